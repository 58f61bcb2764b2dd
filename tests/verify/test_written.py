"""Rows a certificate writes against the rules every seed row keeps (C005, :mod:`veriweb.verify.written`).

Each defect is a marker that still runs, is still guarded and labelled right, and writes one row
unlike every seed row of its table: an order's total without the shipping fee, a refund that never
adds to the order's amount refunded, a stay charged for one night more than its dates, a merge that
leaves the merge date empty, an order line that stores its price in dollars where every other stores
cents.
The twins: the clean sites, whose certificates write nothing any rule forbids.
"""

from __future__ import annotations

import pytest

from veriweb.engine import Session
from veriweb.generate.domains import MODULES
from veriweb.generate.site import generate_site
from veriweb.scaffold import Site
from veriweb.scaffold.io import from_data, to_data
from veriweb.scaffold.site import Column, Table
from veriweb.verify.checks import UNGUARDED_WRITE
from veriweb.verify.feasibility import verify_task
from veriweb.verify.written import Rule, rules, written_issues


@pytest.fixture(scope="module")
def sites() -> dict[str, Site]:
    return {domain: generate_site(domain, 0) for domain in MODULES}


def _edited(site: Site, marker: str, old: str, new: str) -> Site:
    """``site`` with ``old`` replaced by ``new`` in the SQL of ``marker``'s effects (exactly once)."""
    data = to_data(site)
    data.pop("id", None)
    effects = next(m for m in data["markers"] if m["name"] == marker)["effects"]
    assert sum(e["sql"].count(old) for e in effects) == 1, old
    for effect in effects:
        effect["sql"] = effect["sql"].replace(old, new)
    return from_data(data, check_id=False)


def _written(site: Site, task_id: str) -> list:
    task = next(t for t in site.tasks if t.id == task_id)
    session = Session(site)
    try:
        return written_issues(site, task, task.certificate, session, f"$.tasks[{task_id}]")
    finally:
        session.close()


def _marker_path(site: Site, marker: str) -> str:
    return f"$.markers[{next(i for i, m in enumerate(site.markers) if m.name == marker)}]"


def test_clean_sites_write_nothing_a_rule_forbids(sites: dict[str, Site]) -> None:
    for site in sites.values():
        for task in site.tasks:
            if task.kind != "infeasible" and task.certificate:
                assert _written(site, task.id) == [], (site.domain, task.id)


def test_rules_read_off_the_seed_rows(sites: dict[str, Site]) -> None:
    described = {d: {r.describe() for rs in rules(s).values() for r in rs} for d, s in sites.items()}
    assert ("total = the sum of qty * price over its order_items rows + a fixed amount for each shipping"
            in described["shop"])
    assert "price = the price of the products row its product_id names" in described["shop"]
    assert "refunded = the sum of amount over its refunds rows" in described["admin"]
    assert "nights = the days from check_in to check_out" in described["travel"]
    assert "merged_on is filled when state is 'merged'" in described["code"]


@pytest.mark.parametrize(("domain", "marker", "old", "new", "task", "said"), [
    ("shop", "place_order", " + (CASE :shipping WHEN 'express' THEN 1500 ELSE 500 END)", "", "checkout_cart",
     "a fixed amount for each shipping"),
    ("shop", "place_order", "c.qty, p.price FROM", "c.qty, p.price / 100 FROM", "checkout_cart",
     "price = the price of the products row"),
    ("admin", "refund_order", "refunded = refunded + :amount", "refunded = refunded", "refund_line",
     "refunded = the sum of amount over its refunds rows"),
    ("travel", "book_stay", "n.nights, :guests", "n.nights + 1, :guests", "hotel_budget",
     "nights = the days from check_in to check_out"),
    ("code", "merge_mr", "merged_on = :today", "merged_on = NULL", "merge_only",
     "merged_on is filled when state is 'merged'"),
])
def test_a_marker_that_writes_a_row_unlike_every_seed_row(sites: dict[str, Site], domain: str, marker: str,
                                                          old: str, new: str, task: str, said: str) -> None:
    site = _edited(sites[domain], marker, old, new)
    issues = _written(site, task)
    assert issues and all(i.code == UNGUARDED_WRITE for i in issues)
    assert any(said in i.message for i in issues), [i.message for i in issues]
    assert all(i.location.startswith(_marker_path(site, marker) + ".effects[") for i in issues)
    # the search's own certificate writes the same row: the task is certified but not shipped
    verdict = verify_task(site, next(t for t in site.tasks if t.id == task), budget=2_000)
    assert verdict.status == "certified" and not verdict.shipped
    assert any(i.code == UNGUARDED_WRITE and said in i.message for i in verdict.issues)


def test_the_same_edit_on_a_marker_no_certificate_runs_says_nothing(sites: dict[str, Site]) -> None:
    site = _edited(sites["shop"], "place_order", " + (CASE :shipping WHEN 'express' THEN 1500 ELSE 500 END)", "")
    assert _written(site, "add_to_cart") == []  # adds to the cart, places no order


def _table(rows: list[dict]) -> Table:
    names = list(rows[0])
    return Table(name="t", columns=[Column(name=n, type="integer") for n in names], rows=rows)


def test_a_rule_needs_enough_rows_and_values() -> None:
    from veriweb.verify.written import _arithmetic

    rows = [{"id": i, "qty": q, "price": p, "amount": q * p} for i, (q, p) in enumerate(
        [(1, 5), (2, 7), (3, 5), (1, 9), (4, 2)], 1)]
    assert Rule("t", "product", ("amount", "price", "qty"), 5) in _arithmetic(_table(rows), ["qty", "price", "amount"])
    assert _arithmetic(_table(rows[:4]), ["qty", "price", "amount"]) == []  # four rows are no rule
    constant = [dict(r, qty=1, amount=r["price"]) for r in rows]
    assert _arithmetic(_table(constant), ["qty", "price", "amount"]) == []  # times a constant 1: a copy, no rule

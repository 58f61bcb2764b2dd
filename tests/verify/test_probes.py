"""Judge probes: every decoy is rejected and the certificate accepted, on the example site and on
generated sites; a weakened judge is caught by the decoy built for its weakness."""

from __future__ import annotations

from collections import Counter

import pytest

from veriweb.engine import Session
from veriweb.generate.site import generate_site
from veriweb.scaffold import Site, Task
from veriweb.scaffold.io import from_data, to_data
from veriweb.scaffold.site import FootprintEntry
from veriweb.scaffold.values import Exists, Query
from veriweb.verify.feasibility import verify_task
from veriweb.verify.probes import KINDS, Probe, probe_issues, probe_task, summarize

KNOWN_WEAK: set[tuple[str, str, str]] = set()
"""Real findings not fixed yet, kept visible as (domain, task, decoy kind); empty now that the
shop's review tasks limit their footprint to the product named."""


def _fooled(site: Site, task: Task, probes: list[Probe]) -> set[tuple[str, str, str]]:
    return {(site.domain, task.id, p.kind) for p in probes if p.applicable and not p.ok}


def _check_site(site: Site) -> Counter[str]:
    session = Session(site)
    applicable: Counter[str] = Counter()
    for task in site.tasks:
        probes = probe_task(site, task, task.certificate, session=session)
        assert probes[0].kind == "sanity" and probes[0].passed_by_judge, (task.id, "certificate rejected")
        assert _fooled(site, task, probes) <= KNOWN_WEAK, (task.id, [p for p in probes if p.applicable and not p.ok])
        applicable.update(p.kind for p in probes if p.applicable)
        names = [p.name for p in probes if p.applicable]
        assert len(names) == len(set(names)), task.id
    return applicable


def test_example_site_judges_reject_every_decoy(shop: Site) -> None:
    applicable = _check_site(shop)
    assert set(applicable) == set(KINDS)  # every kind of decoy is built at least once
    assert applicable["other_entity"] >= 20 and applicable["noop"] >= 2 * 10


@pytest.mark.parametrize("domain", ["shop", "admin", "forum", "code", "travel", "mail"])
@pytest.mark.parametrize("seed", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_generated_judges_reject_every_decoy(domain: str, seed: int) -> None:
    applicable = _check_site(generate_site(domain, seed))
    assert applicable["sanity"] >= 10 and applicable["partial"] >= 4


def test_a_footprint_that_allows_any_product_is_caught(shop: Site) -> None:
    # The example's review task once allowed a review of *any* product (footprint: reviews where
    # user_id = me), so reviewing every product passed the judge. Put that weakness back and the
    # all-rows decoy must catch it; the fixed task passes every probe (test above).
    index = next(i for i, t in enumerate(shop.tasks) if t.id == "review_product")
    data = to_data(shop)
    entry = data["tasks"][index]["footprint"][0]
    entry["where"] = [c for c in entry["where"] if c["column"] == "user_id"]
    data.pop("id")
    weak = from_data(data)
    task = weak.task("review_product")
    probes = probe_task(weak, task, task.certificate)
    fooled = [p for p in probes if p.applicable and not p.ok]
    assert [p.kind for p in fooled] == ["all_rows"]
    issues = probe_issues(weak, task, probes)
    assert [(i.code, i.cls, i.location) for i in issues] == [("F009", "feasibility", f"$.tasks[{index}].goal")]
    assert "all_rows" in issues[0].message


def test_not_applicable_decoys_are_not_counted_as_passes(shop: Site) -> None:
    task = shop.task("count_orders")
    table = summarize(probe_task(shop, task, task.certificate))
    assert table["budget"] == {"run": 0, "ok": 0, "fooled": 0, "n/a": 1}
    assert table["wrong_answer"]["run"] == 1 and table["wrong_answer"]["ok"] == 1
    assert table["sanity"] == {"run": 1, "ok": 1, "fooled": 0, "n/a": 0}


def test_probes_with_the_searchs_certificate(shop: Site) -> None:
    task = shop.task("add_to_cart")
    verdict = verify_task(shop, task, budget=400)
    assert verdict.status == "certified"
    probes = probe_task(shop, task, verdict.certificate)
    assert probes[0].passed_by_judge and not probe_issues(shop, task, probes)
    assert {p.kind for p in probes if p.applicable} >= {"other_entity", "all_rows", "quantity", "undone", "partial"}


# ----------------------------------------------------------------------------- weak judges are caught


def _fooled_kinds(site: Site, task: Task) -> set[str]:
    probes = probe_task(site, task, task.certificate)
    assert probes[0].passed_by_judge
    return {p.kind for p in probes if p.applicable and not p.ok}


def test_a_goal_that_ignores_the_product_is_caught(shop: Site) -> None:
    task = shop.task("add_to_cart")
    mine = [c for c in task.goal[0].query.where if c.column == "user_id"]
    weak = task.model_copy(update={"goal": [Exists(kind="exists", query=Query(table="cart_items", where=mine))],
                                   "footprint": [FootprintEntry(table="cart_items")]})
    assert {"other_entity", "all_rows", "quantity"} <= _fooled_kinds(shop, weak)
    assert not _fooled_kinds(shop, task)


def test_a_goal_that_ignores_the_quantity_is_caught(shop: Site) -> None:
    task = shop.task("add_to_cart")
    query = task.goal[0].query
    weak = task.model_copy(update={"goal": [Exists(kind="exists", query=query.model_copy(
        update={"where": [c for c in query.where if c.column != "qty"]}))]})
    assert _fooled_kinds(shop, weak) == {"quantity"}


def test_a_goal_met_before_the_last_write_is_caught(shop: Site) -> None:
    task = shop.task("buy_under_budget")
    weak = task.model_copy(update={"goal": [task.progress[0].predicate]})  # "a red shirt is in the cart"
    assert "partial" in _fooled_kinds(shop, weak)


def test_a_lenient_answer_check_is_caught(shop: Site) -> None:
    task = shop.task("count_orders")
    weak = task.model_copy(update={"answer": task.answer.model_copy(update={"tolerance": 5})})
    assert _fooled_kinds(shop, weak) == {"wrong_answer"}


def test_a_budget_one_cent_over_is_rejected(shop: Site) -> None:
    task = shop.task("buy_under_budget")
    probes = [p for p in probe_task(shop, task, task.certificate) if p.kind == "budget"]
    assert len(probes) == 1 and probes[0].applicable and not probes[0].passed_by_judge
    assert "one cent lower" in probes[0].description


def test_a_quantity_typed_again_later_is_no_decoy(shop: Site) -> None:
    """Changing a typed number that the certificate types again before submitting ends in the
    certificate's own state: not a decoy. Changing the last one still is, and the judge rejects it."""
    from veriweb.verify.probes import _quantity

    task = shop.task("add_to_cart")
    certificate = [*task.certificate[:-1], "fill('31', '2')", task.certificate[-1]]  # the quantity typed twice
    session = Session(shop)
    try:
        probes = _quantity(shop, task, certificate, session)
    finally:
        session.close()
    skipped = [p for p in probes if not p.applicable]
    real = [p for p in probes if p.applicable]
    assert len(skipped) == 2 and all("certificate's own state" in p.description for p in skipped)
    assert len(real) == 2 and not any(p.passed_by_judge for p in real)

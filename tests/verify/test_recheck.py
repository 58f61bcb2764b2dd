"""Traced static checks and the incremental re-check: the same issues as checking afresh, for less."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from veriweb.errors import VeriwebError
from veriweb.generate.site import generate_site
from veriweb.scaffold import Site
from veriweb.scaffold.io import from_data, to_data
from veriweb.verify.checks import Issue, all_checks, static_issues
from veriweb.verify.defects import inject
from veriweb.verify.recheck import FIELDS, WHOLE, check_site, recheck, replaced
from veriweb.verify.repair import Context, apply_repairs, repair_static


@pytest.fixture(scope="module")
def shop() -> Site:
    return generate_site("shop", 1)


@pytest.fixture(scope="module")
def raw() -> Site:
    return inject(generate_site("forum", 3), 3)[0]


def edited(site: Site, edit: Any) -> Site:
    data = copy.deepcopy(to_data(site))
    data.pop("id", None)
    edit(data)
    return from_data(data, check_id=False)


def test_traced_run_gives_the_static_issues(shop: Site, raw: Site) -> None:
    for site in (shop, raw):
        run = check_site(site)
        assert run.issues == static_issues(site)
        assert len(run.results) == len(all_checks())
        assert all(reads <= FIELDS | {WHOLE} for _, reads in run.results)
        assert type(site) is Site  # traced in place for the run only (the engine's caches know the object)
    assert static_issues(raw), "the injected site must have defects, or this test shows nothing"
    # what a check reads is traced: the link check reads pages, never the database's rows
    links = dict(zip(all_checks(), check_site(shop).results))
    assert "pages" in next(reads for check, (_, reads) in links.items() if check.__name__ == "check_links")
    assert "database" not in next(reads for check, (_, reads) in links.items() if check.__name__ == "check_links")


def test_recheck_reruns_only_what_reads_the_change(shop: Site) -> None:
    def negative_stock(data: dict[str, Any]) -> None:
        products = next(t for t in data["database"]["tables"] if t["name"] == "products")
        products["rows"][0]["price"] = "twelve"  # a value of the wrong type (M004)

    before = check_site(shop)
    site = edited(shop, negative_stock)
    run = recheck(site, before, {"database", "id"})
    assert run.issues == static_issues(site)
    assert "M004" in {i.code for i in run.issues}
    for (old, reads), (new, _) in zip(before.results, run.results):
        if "database" not in reads and WHOLE not in reads:
            assert new is old  # kept, not run again
    kept = sum(1 for (old, _), (new, _) in zip(before.results, run.results) if new is old)
    assert 0 < kept < len(all_checks())


def test_recheck_told_nothing_changed_keeps_everything_and_by_identity_finds_replaced_fields(shop: Site) -> None:
    before = check_site(shop)
    assert recheck(shop, before, set()).results == before.results
    fewer = shop.model_copy(update={"tasks": shop.tasks[1:]})
    assert replaced(shop, fewer) == {"tasks"}
    assert recheck(fewer, before).issues == static_issues(fewer)
    with pytest.raises(VeriwebError, match="not fields of a site"):
        recheck(shop, before, {"rows"})


def test_repair_rounds_traced_give_what_a_full_check_each_round_gives(raw: Site) -> None:
    fast = repair_static(raw)
    slow = repair_static(raw, check=static_issues)
    assert to_data(fast[0]) == to_data(slow[0])
    assert fast[1] == slow[1] and fast[1], "the raw site needs repairs"
    assert fast[3] == slow[3]
    assert fast[4].dropped_tasks == slow[4].dropped_tasks
    assert fast[4].checked is not None and slow[4].checked is None


def test_apply_repairs_reports_the_fields_it_changed_and_undoes_a_failed_operator(shop: Site) -> None:
    def null_price(data: dict[str, Any]) -> None:
        products = next(t for t in data["database"]["tables"] if t["name"] == "products")
        products["rows"][0]["price"] = None  # a required value missing (C003)

    site = edited(shop, null_price)
    issues = [i for i in static_issues(site) if i.code == "C003"]
    assert issues
    ctx = Context()
    _, repairs, _, unfixed = apply_repairs(site, issues, ctx)
    assert repairs and not unfixed
    assert ctx.changed == {"database", "id"}
    # an issue no operator fixes leaves the site as it was (an element path that is not there)
    ctx = Context()
    same, repairs, _, unfixed = apply_repairs(shop, [Issue("semantic", "M001", "$.pages[0].elements[999].text",
                                                           "placeholder")], ctx)
    assert (repairs, len(unfixed)) == ([], 1)
    assert to_data(same) == to_data(shop) and ctx.changed == {"id"}


def test_ledger_validates_what_changed_and_undoes_it(shop: Site) -> None:
    from pydantic import ValidationError

    from veriweb.verify.repair import _Ledger

    data = to_data(shop)
    data.pop("id", None)
    before = copy.deepcopy(data)
    ledger = _Ledger(data)
    data["pages"][0]["route"] = "no-slash"  # a route must start with /
    data["pages"][0]["elements"].append({"type": "text", "text": "kept?"})
    data["database"]["tables"][0]["rows"][0]["id"] = 1.0  # equal to 1, but not the same data
    changed = ledger.diff(data)
    assert set(changed) == {"pages", "database"}
    with pytest.raises(ValidationError, match="route"):
        ledger.validate(data, changed)
    ledger.undo(data, changed)
    assert data == before and list(data) == list(before)
    assert type(data["database"]["tables"][0]["rows"][0]["id"]) is int
    assert ledger.diff(data) == {}
    data["tasks"].pop()  # a shorter list is validated whole, and kept
    changed = ledger.diff(data)
    ledger.validate(data, changed)
    ledger.commit(data, changed)
    assert ledger.diff(data) == {}


def test_a_lookup_shared_by_checks_counts_as_read_by_each(shop: Site) -> None:
    from veriweb.verify.checks import one_run, per_run, reads_open

    calls = []

    @per_run
    def page_count(site: Site) -> int:
        calls.append(site)
        return len(site.pages)

    from veriweb.verify.recheck import _traced

    with _traced(shop) as traced, one_run():
        assert traced
        reads_open.append(set())
        assert page_count(shop) == len(shop.pages)
        first = reads_open.pop()
        reads_open.append(set())
        assert page_count(shop) == len(shop.pages)  # made once, its reads counted again
        second = reads_open.pop()
    assert len(calls) == 1 and first == second == {"pages"}
    assert page_count(shop) == len(shop.pages) and len(calls) == 2  # outside a run: made afresh
    # the checks that share shown_columns (M010, M013) each count what it read
    results = dict(zip((c.__name__ for c in all_checks()), check_site(shop).results))
    for name in ("check_observable", "check_answer_shown"):
        assert {"pages", "database"} <= results[name][1]

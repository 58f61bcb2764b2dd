"""Repairs of S016 and C012 (:mod:`veriweb.verify.repair_tasks`): the defect is fixed where a fix
is safe, the repaired site reports nothing, and a repaired raw site keeps the task."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from veriweb.generate.site import generate_site
from veriweb.scaffold.io import from_data, to_data
from veriweb.verify.checks_tasks import check_seed_invariants, check_task_addresses
from veriweb.verify.repair import Context, operator_for
from veriweb.verify.repair_tasks import keep_invariant, restart_task


@pytest.fixture(scope="module")
def shop() -> dict[str, Any]:
    return to_data(generate_site("shop", 2))


def _site(data: dict[str, Any]) -> Any:
    return from_data(data, check_id=False)


def test_operators_are_registered() -> None:
    from veriweb.verify.checks import Issue

    assert operator_for(Issue("structural", "S016", "$.tasks[0].start_url", "")) is restart_task
    assert operator_for(Issue("consistency", "C012", "$.database.tables[1].rows[4]", "")) is keep_invariant


def test_start_nowhere_restarts_at_home(shop: dict[str, Any]) -> None:
    data = copy.deepcopy(shop)
    data["tasks"][1]["start_url"] = "/wlecome"
    [issue] = check_task_addresses(_site(data))
    outcome = restart_task(data, issue, Context())
    assert outcome is not None and outcome[1].tasks == {data["tasks"][1]["id"]}
    assert data["tasks"][1]["start_url"] == "/" and check_task_addresses(_site(data)) == []


def test_missing_account_drops_the_task(shop: dict[str, Any]) -> None:
    data = copy.deepcopy(shop)
    number = next(n for n, t in enumerate(data["tasks"]) if t.get("user"))
    task_id = data["tasks"][number]["id"]
    data["tasks"][number]["user"] = "nobody_here"
    [issue] = check_task_addresses(_site(data))
    ctx = Context()
    assert restart_task(data, issue, ctx) is not None
    assert task_id in ctx.dropped_tasks and task_id not in {t["id"] for t in data["tasks"]}


def test_negative_stock_goes_back_to_its_bound(shop: dict[str, Any]) -> None:
    data = copy.deepcopy(shop)
    t_index = next(i for i, t in enumerate(data["database"]["tables"]) if t["name"] == "products")
    data["database"]["tables"][t_index]["rows"][4]["stock"] = -3
    issues = check_seed_invariants(_site(data))
    assert issues
    outcome = keep_invariant(data, issues[0], Context())
    assert outcome is not None and outcome[1].tables == {"products"}
    assert data["database"]["tables"][t_index]["rows"][4]["stock"] == 0
    assert check_seed_invariants(_site(data)) == []


def test_column_bound_takes_the_other_column() -> None:
    data = to_data(generate_site("admin", 2))
    t_index = next(i for i, t in enumerate(data["database"]["tables"]) if t["name"] == "orders")
    row = data["database"]["tables"][t_index]["rows"][3]
    row["refunded"] = row["total"] + 500
    issues = [i for i in check_seed_invariants(_site(data)) if i.location.endswith(f"rows[3]")]
    assert issues
    assert keep_invariant(data, issues[0], Context()) is not None
    assert row["refunded"] == row["total"]
    assert check_seed_invariants(_site(data)) == []


def test_repair_site_keeps_the_task_and_ships_no_defect(shop: dict[str, Any]) -> None:
    from veriweb.verify.pipeline import repair_site

    data = copy.deepcopy(shop)
    number = next(n for n, t in enumerate(data["tasks"]) if t["kind"] == "navigate")
    data["tasks"][number]["start_url"] = "/wlecome"
    t_index = next(i for i, t in enumerate(data["database"]["tables"]) if t["name"] == "products")
    data["database"]["tables"][t_index]["rows"][4]["stock"] = -3
    fixed, report = repair_site(_site(data))
    assert fixed is not None, report.site_dropped
    kept = {t.id: t for t in fixed.tasks}
    assert data["tasks"][number]["id"] in kept and kept[data["tasks"][number]["id"]].start_url == "/"
    assert {r["code"] for r in report.repairs} >= {"S016", "C012"}
    assert report.verified is not None and report.verified.as_dict()["defects"] == 0

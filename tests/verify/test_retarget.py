"""Retargeting a task whose goal already holds at the start: another entity or another start page."""

from __future__ import annotations

import copy

import pytest

from veriweb.engine import Episode, Session
from veriweb.generate.site import generate_site
from veriweb.scaffold import Site
from veriweb.scaffold.io import from_data, to_data
from veriweb.verify.pipeline import repair_site, replays
from veriweb.verify.retarget import candidates, start_is_right

BUDGET = 400


def first_site_with(domain: str, task_id: str, seeds: range = range(40)) -> Site:
    """The first generated site of ``domain`` that has the task ``task_id``."""
    for seed in seeds:
        site = generate_site(domain, seed)
        if any(t.id == task_id for t in site.tasks):
            return site
    raise AssertionError(f"no {domain} site of seeds {seeds} has a {task_id} task")


@pytest.fixture(scope="module")
def admin() -> Site:
    return first_site_with("admin", "set_price")


def already_priced(site: Site) -> Site:
    """The admin site with only its set_price task, whose product already has the new price."""
    data = copy.deepcopy(to_data(site))
    data.pop("id", None)
    task = next(t for t in data["tasks"] if t["id"] == "set_price")
    data["tasks"] = [task]
    price = round(float(task["slots"]["price"].lstrip("$")) * 100)
    products = next(t for t in data["database"]["tables"] if t["name"] == "products")
    row = next(r for r in products["rows"] if r["name"] == task["slots"]["product"])
    row["price"] = price
    return from_data(data, check_id=False)


def test_a_done_write_is_retargeted_to_another_entity(admin: Site) -> None:
    site = already_priced(admin)
    task = site.task("set_price")
    session = Session(site)
    try:
        assert not start_is_right(site, task, session)
        found = list(candidates(site, task, session))
        assert found, "no other product to set the price of"
        moved, change = found[0]
        assert change.startswith("slot product:")
        assert moved.slots["product"] != task.slots["product"]
        assert moved.slots["price"] == task.slots["price"]
        assert moved.slots["product"] in moved.instruction and task.slots["product"] not in moved.instruction
        assert moved.certificate == []
        assert all(start_is_right(site, m, session) for m, _ in found)
        assert len({m.slots["product"] for m, _ in found}) == len(found)
    finally:
        session.close()


def test_repair_ships_the_retargeted_task_certified(admin: Site) -> None:
    site = already_priced(admin)
    fixed, report = repair_site(site, budget=BUDGET)
    assert "F001" in {i["code"] for i in report.raw.issues}
    assert fixed is not None and [t.id for t in fixed.tasks] == ["set_price"]
    moved = fixed.task("set_price")
    assert moved.slots["product"] != site.task("set_price").slots["product"]
    assert any(r["operator"] == "retarget_task" and r["code"] == "F001" for r in report.repairs)
    assert moved.certificate and replays(fixed, moved, moved.certificate)
    assert report.verified.probes_run > 0 and report.verified.probes_passed == 0
    assert report.dropped_tasks == {}


def test_a_navigate_task_started_on_its_goal_page_starts_at_home() -> None:
    shop = generate_site("shop", 1)
    task = shop.task("cheapest_0")
    session = Session(shop)
    try:
        episode = Episode(shop, task, session=session)
        episode.reset()
        for action in task.certificate:
            episode.step(action)
        goal_page = str(session.ui.url)
        stuck = task.model_copy(update={"start_url": goal_page})
        assert not start_is_right(shop, stuck, session)
        moved, change = next(iter(candidates(shop, stuck, session)))
        assert moved.start_url == "/" and change == f"start_url {goal_page!r} -> '/'"
        assert moved.slots == task.slots and moved.instruction == task.instruction
    finally:
        session.close()


def test_a_sound_task_is_left_alone(admin: Site) -> None:
    session = Session(admin)
    try:
        assert start_is_right(admin, admin.task("set_price"), session)
    finally:
        session.close()

"""Retargeting a task whose goal already holds at the start: another entity or another start page."""

from __future__ import annotations

import copy
import datetime

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


def already_done(site: Site, task_id: str) -> Site:
    """The site with only ``task_id``, whose generator certificate's writes are already in the data
    (the tables it changes are copied back from the database after replaying it)."""
    task = site.task(task_id)
    session = Session(site)
    try:
        episode = Episode(site, task, session=session)
        episode.reset()
        for action in task.certificate:
            episode.step(action)
        assert episode.judge.progress().goal
        tables = {entry.table for entry in task.footprint}
        dumped = {}
        for name in tables:
            cursor = session.db.conn.execute(f'SELECT * FROM "{name}"')
            columns = [d[0] for d in cursor.description]
            dumped[name] = [dict(zip(columns, row)) for row in cursor.fetchall()]
    finally:
        session.close()
    data = copy.deepcopy(to_data(site))
    data.pop("id", None)
    data["tasks"] = [t for t in data["tasks"] if t["id"] == task_id]
    for table in data["database"]["tables"]:
        if table["name"] in dumped:
            known = {c["name"] for c in table["columns"]} | {table.get("primary_key", "id")}
            types = {c["name"]: c["type"] for c in table["columns"]}
            table["rows"] = [{k: (bool(v) if types.get(k) == "boolean" and v is not None else v)
                              for k, v in row.items() if k in known} for row in dumped[table["name"]]]
    return from_data(data, check_id=False)


def test_a_created_row_already_there_gets_a_new_name() -> None:
    """create_coupon whose coupon is already in the data: the task creates a new code, numbered on,
    that no coupon has (an existing code would collide with its row)."""
    admin = first_site_with("admin", "create_coupon")
    site = already_done(admin, "create_coupon")
    task = site.task("create_coupon")
    session = Session(site)
    try:
        assert not start_is_right(site, task, session)
        moved, change = next(iter(candidates(site, task, session)))
    finally:
        session.close()
    old, new = task.slots["code"], moved.slots["code"]
    assert change == f"slot code: {old!r} -> {new!r}"
    assert new != old and new.rstrip("0123456789") == old.rstrip("0123456789")
    assert new in moved.instruction and old not in moved.instruction
    coupons = next(t for t in to_data(site)["database"]["tables"] if t["name"] == "coupons")
    assert old in {r["code"] for r in coupons["rows"]} and new not in {r["code"] for r in coupons["rows"]}


def test_a_rewrite_keeps_the_tasks_entity() -> None:
    """A rewrite whose entity is gone (no booking of the user to that city on that day to move) is
    not proposed; slots holding the same value move together."""
    from veriweb.verify.retarget import entity_found

    travel = first_site_with("travel", "rebook")
    site = already_done(travel, "rebook")
    task = site.task("rebook")
    session = Session(site)
    try:
        assert entity_found(site, travel.task("rebook"), session)
        nowhere = task.model_copy(update={"slots": {**task.slots, "city": "Atlantis"}})
        assert not entity_found(site, nowhere, session)
        found = list(candidates(site, task, session))
        assert found
        for moved, _ in found:
            assert entity_found(site, moved, session)
            for a, b in (("date", "day"), ("old_date", "old_day")):
                if task.slots.get(a) == task.slots.get(b):
                    assert moved.slots.get(a) == moved.slots.get(b)
    finally:
        session.close()


def test_fresh_values() -> None:
    from veriweb.verify.retarget import _fresh

    assert _fresh("RAPID35", {"RAPID35", "RAPID36"}) == "RAPID37"
    assert _fresh("TICKET-007", {"TICKET-007"}) == "TICKET-008"
    assert _fresh("Summer sale", {"Summer sale"}) is None


def test_a_day_written_with_its_weekday_is_an_alias() -> None:
    from veriweb.verify.wording import date_aliases, month_day

    assert month_day("Sunday, June 21") == (6, 21) == month_day("Sun Jun 21, 2026")
    assert month_day("Monday") is None
    assert date_aliases({"date": "Sunday, June 21", "day": "2026-06-21"}) == {"2026-06-21": ["date"]}
    assert date_aliases({"date": "Sunday, June 22", "day": "2026-06-21"}) == {}


def test_a_day_in_words_is_rewritten_in_its_own_style() -> None:
    from veriweb.verify.wording import reworded

    assert reworded("Sunday, June 21", "2026-06-16") == "Tuesday, June 16"
    assert reworded("Sun, Jun 21", "2026-07-03") == "Fri, Jul 3"
    assert reworded("June 21st, 2026", "2027-05-02") == "May 2nd, 2027"
    assert reworded("28 June", "2026-09-11") == "11 September"
    assert reworded("21 June", "not a day") is None


def test_a_rewrite_never_leaves_the_instructions_day_behind() -> None:
    """book_flight says its day in words ("Sunday, June 21") and compares the ISO day: a rewrite
    of the day writes the words for the new day, in the same style."""
    from veriweb.verify.wording import month_day

    travel = next(site for site in map(lambda seed: generate_site("travel", seed), range(40)) if any(
        t.id == "book_flight" and str(t.slots.get("date", "")).split(",")[0].endswith("day") for t in site.tasks))
    site = already_done(travel, "book_flight")
    task = site.task("book_flight")
    words = [name for name, value in task.slots.items() if name != "day" and month_day(str(value))]
    assert words and month_day(task.slots[words[0]]) == month_day(task.slots["day"])
    session = Session(site)
    try:
        found = list(candidates(site, task, session))
    finally:
        session.close()
    assert found
    moves = [moved for moved, change in found if change.startswith("slot day:")]
    assert moves
    for moved in moves:
        said = moved.slots[words[0]]
        assert month_day(said) == month_day(moved.slots["day"]) != month_day(task.slots["day"])
        weekday = datetime.date.fromisoformat(moved.slots["day"]).strftime("%A")
        assert said.startswith(f"{weekday}, ") and said in moved.instruction, said


def test_an_issue_left_in_a_task_drops_the_task_not_the_site(admin: Site) -> None:
    """A static issue that repair leaves inside one task (its location under ``$.tasks[i]``) drops
    that task; the others ship, each still replaying."""
    from veriweb.verify.checks import Issue
    from veriweb.verify.pipeline import _flawed_tasks, _without

    left = [Issue("semantic", "M016", "$.tasks[1].slots.date", "the instruction names one value and the goal "
                  "checks another"), Issue("structural", "S001", "$.pages[0].links[0]", "a broken link")]
    flawed = _flawed_tasks(admin, left)
    assert list(flawed) == [admin.tasks[1].id] and flawed[admin.tasks[1].id].startswith("M016 left after repair")
    kept = _without(admin, flawed, admin.name)
    assert [t.id for t in kept.tasks] == [t.id for t in admin.tasks if t.id not in flawed]
    assert kept.id != admin.id

"""Other-entity decoys are wrong answers: one that meets every condition the instruction states is
not counted against the judge, while a judge that ignores a stated condition is still caught."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from veriweb.engine import Session
from veriweb.generate.site import generate_site
from veriweb.scaffold import Site, Task
from veriweb.scaffold.io import from_data, to_data
from veriweb.scaffold.site import render_instruction
from veriweb.verify.decoys import other_entity
from veriweb.verify.stated import StatedConditions, stated_values
from veriweb.verify.trajectories import Run, judge_writes, record


def _hotel_task(stars: int, *, drop_city: bool = False, wish: str | None = None) -> tuple[Site, Task]:
    """Travel site 2's hotel task ("a hotel in Berlin, N stars or better, within $556.00"), with the
    stated stars set to ``stars``; with ``drop_city`` its goal no longer checks the city; with ``wish``
    the instruction also asks for it ("Ask for a window seat."), which no row records."""
    site = generate_site("travel", 2)
    index = next(i for i, t in enumerate(site.tasks) if t.id.startswith("hotel_budget"))
    data = to_data(site)
    data.pop("id")
    task = data["tasks"][index]
    task["slots"]["stars"] = stars
    if wish is not None:
        task["slots"]["wish"] = wish
        task["template"] += " Ask for a {wish}."
    task["instruction"] = render_instruction(task["template"], task["slots"])
    if drop_city:
        goal = task["goal"][0]
        assert "city = :city AND " in goal["sql"]
        goal["sql"] = goal["sql"].replace("city = :city AND ", "")
        goal["params"].pop("city")
    site = from_data(data)
    return site, site.tasks[index]


@contextmanager
def _recorded(site: Site, task: Task) -> Iterator[tuple[Session, Run, StatedConditions]]:
    """A session left where the task's certificate leads, its run and its stated conditions."""
    session = Session(site)
    try:
        run = record(site, task, task.certificate, session)
        yield session, run, StatedConditions.of(site, task, session, run)
    finally:
        session.close()


@pytest.fixture(scope="module")
def lenient() -> tuple[Site, Task]:
    return _hotel_task(1)


def test_stated_values_read_money_and_counts(lenient: tuple[Site, Task]) -> None:
    _, task = lenient
    values = stated_values(task)
    assert values["budget"] == ["$556.00", 556.0, 55600]
    assert values["people"] == ["3 guests", 3]
    assert "username" not in values and "password" not in values  # credentials are not conditions


def test_another_hotel_that_meets_every_stated_condition_is_not_a_decoy(lenient: tuple[Site, Task]) -> None:
    site, task = lenient
    with _recorded(site, task) as (session, run, stated):
        assert ("stay_view", "city", "=", "Berlin") in stated.conditions
        assert ("stay_view", "stars", ">=", 1) in stated.conditions  # the direction the goal compares in
        assert ("stay_view", "total", "<=", 55600) in stated.conditions
        # hotel 1 is in Berlin, has 3 stars and four nights there cost $368.00: a right answer too
        assert judge_writes(site, task, session, [(c, dict(c.args, hotel_id=1)) for c in run.calls]) == (True, 0)
        assert stated.all_hold(session)
        probes = other_entity(site, task, run, list(task.certificate), session)
    right = [p for p in probes if p.name.endswith(":hotel_id=1")]
    assert len(right) == 1 and not right[0].applicable and right[0].passed_by_judge
    assert "another right answer" in right[0].description
    real = [p for p in probes if p.applicable]
    assert len(real) >= 10 and not any(p.passed_by_judge for p in real)  # the others are wrong and rejected


def test_a_hotel_that_breaks_a_stated_condition_stays_a_decoy(lenient: tuple[Site, Task]) -> None:
    site, task = lenient
    with _recorded(site, task) as (session, run, stated):
        berlin = {r["id"] for r in site.database.table("cities").rows if r["name"] == "Berlin"}
        elsewhere = next(r["id"] for r in site.database.table("hotels").rows if r["city_id"] not in berlin)
        assert judge_writes(site, task, session, [(c, dict(c.args, hotel_id=elsewhere)) for c in run.calls])
        assert not stated.all_hold(session)


def test_a_judge_that_ignores_the_stated_city_is_still_caught() -> None:
    site, task = _hotel_task(1, drop_city=True)
    session = Session(site)
    try:
        run = record(site, task, task.certificate, session)
        probes = other_entity(site, task, run, list(task.certificate), session)
    finally:
        session.close()
    fooled = [p for p in probes if p.applicable and p.passed_by_judge]
    assert fooled, "a hotel in another city passed a judge that forgot the city, and no probe said so"
    assert any(p.name.endswith(":hotel_id=1") and not p.applicable for p in probes)  # Berlin: still right


def test_no_stated_condition_read_keeps_every_decoy() -> None:
    stated = StatedConditions([], {})
    site = generate_site("travel", 2)
    session = Session(site)
    try:
        assert not stated.all_hold(session)
    finally:
        session.close()


def test_a_stated_value_no_written_row_shows_keeps_every_decoy() -> None:
    """One stated value the certificate's rows do not show ("a window seat"): the conditions are not
    all read, so no decoy is excused as another right answer (a judge ignoring it stays caught)."""
    site, task = _hotel_task(1, wish="window seat")
    with _recorded(site, task) as (session, _, stated):
        assert stated.conditions == []
        assert not stated.all_hold(session)


def test_dates_an_instruction_writes_match_the_iso_date_stored() -> None:
    from veriweb.verify.stated import _same_day

    today = dt.date(2026, 6, 1)
    for written in ("18 June", "June 18", "Thursday, June 18", "Thu 18 Jun", "June 18th, 2026", "18 June 2026"):
        assert _same_day("2026-06-18", written, today), written
    for written in ("June 19", "18 June 2025", "Thursday", "18"):
        assert not _same_day("2026-06-18", written, today), written
    assert not _same_day("not a date", "18 June", today)
    assert not _same_day("2027-06-18", "18 June", today)  # a month-day is in the virtual clock's year

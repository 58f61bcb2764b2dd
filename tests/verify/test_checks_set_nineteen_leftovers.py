"""Checks for four kinds of defect the nineteenth hand-made set still missed after its own round (its cases
were written by someone who read neither the checks nor these tests). Each defect is planted in a
generated site, the clean site is its twin, and the repair is run.

- C009: a guard against overlapping stays that compares one stay's check-in with another's check-out
  inclusively, so back-to-back stays are refused; the repair compares strictly. A stay's own check-out
  after its own check-in stays as it is.
- C013 and C009: a cut-off day stated by a view's labels ("archived" posts) and by guards whose messages
  say the same word, where one statement disagrees with the rest; the repair writes the day most of them
  say, in a view's SQL or in the guard's parameter.
- M009: a form's success message naming one value of a column of the row it acts on ("Merged into
  main.") where the rows hold others and the marker does not write it; the repair reads it from the row.
- C013: a ``LEFT JOIN`` that looks up the row a foreign key points at only when that row has a fixed value
  (milestones only when active); the repair looks it up whatever its value.
"""

from __future__ import annotations

import json

from jsonwalk import messages as _messages, planted as _planted, site_data as _data  # tests/verify/jsonwalk.py

from veriweb.generate.site import generate_site
from veriweb.scaffold import Site
from veriweb.scaffold.io import from_data
from veriweb.verify.repair import repair_static


def _same(a: Site, b: Site) -> bool:
    return json.dumps(_data(a)) == json.dumps(_data(b))


def test_an_overlap_guard_refusing_back_to_back_stays_is_found_and_compares_strictly() -> None:
    clean = generate_site("travel", 0)
    assert not [m for m in _messages(clean, "C009") if "back-to-back" in m]
    site = _planted(clean, "a.check_in < b.check_out AND b.check_in < a.check_out",
                    "a.check_in <= b.check_out AND b.check_out >= a.check_in")
    found = [m for m in _messages(site, "C009") if "back-to-back bookings are refused" in m]
    assert len(found) == 1 and "a.check_in < b.check_out" in found[0]
    fixed = repair_static(site)[0]
    assert "a.check_in < b.check_out AND b.check_out > a.check_in" in json.dumps(_data(fixed))
    assert not [m for m in _messages(fixed, "C009") if "back-to-back" in m]


def test_a_stays_own_dates_compared_inclusively_are_not_an_overlap() -> None:
    clean = generate_site("travel", 0)
    site = _planted(clean, '"sql": "SELECT :co > :ci"', '"sql": "SELECT :co >= :ci"')
    assert not [m for m in _messages(site, "C009") if "back-to-back" in m]


def test_a_view_labelling_rows_archived_from_another_day_than_the_guards_is_found_and_takes_their_day() -> None:
    clean = generate_site("forum", 0)
    day = next(g.predicate.params["cutoff"] for m in clean.markers for g in m.preconditions
               if "cutoff" in getattr(g.predicate, "params", {}))
    assert not [m for m in _messages(clean, "C013") if "cut-off" in m or "labels posts rows" in m]
    site = _planted(clean, f"WHEN p.created < '{day}'", "WHEN p.created < '2031-01-01'")
    found = [m for m in _messages(site, "C013") if "labels posts rows 'archived' by created against 2031-01-01" in m]
    assert len(found) == 1 and f"against {day} in 2 of 3" in found[0]
    assert _same(repair_static(site)[0], clean)


def test_a_guard_whose_cut_off_day_disagrees_with_the_others_is_found_and_takes_theirs() -> None:
    clean = generate_site("forum", 0)
    data = _data(clean)
    vote = next(m for m in data["markers"] if m["name"] == "vote")
    guard = next(g for g in vote["preconditions"] if "cutoff" in g["predicate"].get("params", {}))
    day, guard["predicate"]["params"]["cutoff"] = guard["predicate"]["params"]["cutoff"], "2031-01-01"
    site = from_data(data, check_id=False)
    found = [m for m in _messages(site, "C009") if "statements of the same cut-off" in m]
    assert len(found) == 1 and found[0].endswith(f"it should be {day}")
    assert _same(repair_static(site)[0], clean)


def test_a_success_message_naming_one_rows_value_is_found_and_reads_it_from_the_row() -> None:
    clean = generate_site("code", 0)
    assert not [m for m in _messages(clean, "M009") if "target_branch" in m]
    site = _planted(clean, '"success_message": "Merged."', '"success_message": "Merged into main."')
    found = [m for m in _messages(site, "M009") if "shows the fixed target_branch 'main' for every row" in m]
    assert len(found) == 1
    fixed = repair_static(site)[0]
    assert '"success_message": "Merged into {row.target_branch}."' in json.dumps(_data(fixed))


def test_a_message_naming_the_state_its_marker_writes_is_not_a_fixed_value() -> None:
    clean = generate_site("code", 0)
    site = _planted(clean, '"success_message": "Merged."', '"success_message": "The request is merged now."')
    assert not [m for m in _messages(site, "M009") if "for every row" in m]


def test_a_lookup_join_that_drops_rows_of_another_state_is_found_and_looks_them_up() -> None:
    clean = generate_site("code", 0)
    assert not [m for m in _messages(clean, "C013") if "looks up the milestones row" in m]
    site = _planted(clean, "LEFT JOIN milestones m ON m.id = i.milestone_id",
                    "LEFT JOIN milestones m ON m.id = i.milestone_id AND m.state = 'active'")
    found = [m for m in _messages(site, "C013") if "looks up the milestones row that issues.milestone_id points at "
             "only when m.state = 'active'" in m]
    assert len(found) == 1
    assert _same(repair_static(site)[0], clean)


def test_a_lookup_join_whose_test_every_pointed_at_row_passes_is_left_alone() -> None:
    clean = generate_site("code", 0)
    site = _planted(clean, "LEFT JOIN milestones m ON m.id = i.milestone_id",
                    "LEFT JOIN milestones m ON m.id = i.milestone_id AND m.title != 'no such milestone'")
    assert not [m for m in _messages(site, "C013") if "looks up the milestones row" in m]

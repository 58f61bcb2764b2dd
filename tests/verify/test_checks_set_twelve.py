"""Kinds the twelfth hand-made set shipped wrong (held out, measured in session 20), now found, each with
a twin that must stay clean.

- "You left the community." after ``join`` (M003: a success message in the past tense of the verb
  that undoes its marker's);
- a cancel whose guard no longer reads the order's status (C005: a move into a fixed state that
  reads no state first; the repair adds "not already cancelled");
- a judge edited to read another value than the one its instruction states is found by the
  search (M016, ``tests/verify/test_value_drift.py``).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from veriweb.generate.site import generate_site
from veriweb.scaffold.io import from_data, to_data
from veriweb.verify.checks import CONTRADICTORY_LABEL, UNGUARDED_WRITE, static_issues
from veriweb.verify.repair import repair_static

from jsonwalk import dicts  # tests/verify/jsonwalk.py

Data = dict[str, Any]


@pytest.fixture(scope="module")
def forum() -> Data:
    data = to_data(generate_site("forum", 0))
    data.pop("id", None)
    return data


def _message_of(data: Data, marker: str) -> dict[str, Any]:
    """The action (a dict in ``data``) of the first form that posts to ``marker``."""
    found = [node for node in dicts(data) if node.get("kind") == "marker" and node.get("marker") == marker
             and "success_message" in node]
    assert found, marker
    return found[0]


def _m003(data: Data) -> list[str]:
    return [i.message for i in static_issues(from_data(data, check_id=False)) if i.code == CONTRADICTORY_LABEL
            and "success message" in i.message]


def test_a_message_in_the_past_tense_of_the_opposite_verb(forum: Data) -> None:
    assert not _m003(forum)  # "Welcome! You joined the community." after join
    left = copy.deepcopy(forum)
    _message_of(left, "join")["success_message"] = "You left the community."
    assert any("You left the community." in m and "join" in m for m in _m003(left))
    # twins: "left" in another sense, and the same words after leave
    spots = copy.deepcopy(forum)
    _message_of(spots, "join")["success_message"] = "Welcome! You joined the community. 3 invites left."
    assert not _m003(spots)
    after_leave = copy.deepcopy(forum)
    _message_of(after_leave, "leave")["success_message"] = "You left the community."
    assert not _m003(after_leave)


@pytest.fixture(scope="module")
def shop() -> Data:
    data = to_data(generate_site("shop", 0))
    data.pop("id", None)
    return data


def _c005(data: Data, said: str) -> list[str]:
    return [i.location for i in static_issues(from_data(data, check_id=False)) if i.code == UNGUARDED_WRITE
            and said in i.message]


def test_a_cancel_whose_guard_no_longer_reads_the_status(shop: Data) -> None:
    data = copy.deepcopy(shop)
    cancel = next(m for m in data["markers"] if m["name"] == "cancel_order")
    guard = cancel["preconditions"][0]["predicate"]
    assert " AND status = 'placed'" in guard["sql"]
    guard["sql"] = guard["sql"].replace(" AND status = 'placed'", "")
    assert _c005(data, "nothing it runs reads the state")
    fixed, _, _, left, _ = repair_static(from_data(data, check_id=False))
    assert not left
    marker = next(m for m in fixed.markers if m.name == "cancel_order")
    assert any("status = 'cancelled'" in g.predicate.sql for g in marker.preconditions)
    assert not _c005(to_data(fixed), "nothing it runs reads the state")
    # twins: the clean guard, and a write that reads the state itself (WHERE ... AND status = 'placed')
    assert not _c005(shop, "nothing it runs reads the state")
    twin = copy.deepcopy(data)
    effect = next(m for m in twin["markers"] if m["name"] == "cancel_order")["effects"][0]
    effect["sql"] += " AND status = 'placed'"
    assert not _c005(twin, "nothing it runs reads the state")

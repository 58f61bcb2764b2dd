"""Checks for the misses of the eleventh hand-made set (held out, measured at the end of session 19),
each with twins that must stay clean, and the repairs that fix them.

- an order taking one unit of stock per cart line whatever its quantity, a cancelled booking for
  three giving back one seat (C013: a figure moved by one through rows that record their units);
- a vote that does not take back the vote it replaces (C013);
- leaving a community that no longer lowers its member count, which joining raises (C005);
- unstarring that removes every star of the user (C005: a link row's write that drops the record
  its guard looks it up by);
- a refund stored with the order's key as the staff member who made it (C013).

And from the twelfth set (held out, measured at this session's start), five kinds of judge the
verifier used to certify again as they were (the defect shipped):

- "express shipping" judged on ``shipping = 'standard'`` (M016: a choice the judge reads that the
  instruction does not say, while it says another);
- "Log in as moreau98" for a task acting as hugo48, and a password the account does not have
  (M016); the credentials left out of an instruction the task leaves them to (F012);
- "the highest order total" answered with ``min`` (M018);
- a "Closed" tab opening ``?state=open`` (S014).
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from veriweb.generate.site import generate_site
from veriweb.scaffold.io import from_data, to_data
from veriweb.scaffold.site import render_instruction
from veriweb.verify import checks as C
from veriweb.verify.checks import CREDENTIALS_UNSAID, LINK_ENTITY, ORDER_AGAINST_WORDS, SLOT_CONTRADICTS_GOAL, UNGUARDED_WRITE
from veriweb.verify.checks_views import VIEW_FIGURE
from veriweb.verify.repair import repair_static

from jsonwalk import clean_sites, found  # tests/verify/jsonwalk.py

Data = dict[str, Any]


@pytest.fixture(scope="module")
def clean() -> dict[str, Data]:
    return clean_sites()


_found = found


def _effects(data: Data, marker: str) -> list[str]:
    return [e["sql"] for m in data["markers"] if m["name"] == marker for e in m["effects"]]


def _edited(data: Data, marker: str, old: str, new: str) -> Data:
    data = copy.deepcopy(data)
    effect = next(e for m in data["markers"] if m["name"] == marker for e in m["effects"] if old in e["sql"])
    effect["sql"] = effect["sql"].replace(old, new)
    return data


def _repaired(data: Data) -> Data:
    fixed, _, _, left, _ = repair_static(from_data(data, check_id=False))
    assert not left
    return to_data(fixed)


def test_stock_lowered_by_one_per_cart_line_whatever_its_quantity(clean: dict[str, Data]) -> None:
    taken = "stock - (SELECT sum(qty) FROM cart_items WHERE user_id = :user_id AND product_id = products.id)"
    assert any(taken in sql for sql in _effects(clean["shop"], "place_order"))
    data = _edited(clean["shop"], "place_order", taken, "stock - 1")
    assert _found(data, VIEW_FIGURE, "units taken")
    assert any(taken in sql for sql in _effects(_repaired(data), "place_order"))
    assert not _found(clean["shop"], VIEW_FIGURE, "units taken")  # a twin: the clean marker


def test_a_cancelled_booking_for_three_gives_back_one_seat(clean: dict[str, Data]) -> None:
    given = "seats = seats + (SELECT passengers FROM bookings WHERE id = :booking_id)"
    assert any(given in sql for sql in _effects(clean["travel"], "cancel_booking"))
    data = _edited(clean["travel"], "cancel_booking", given, "seats = seats + 1")
    assert _found(data, VIEW_FIGURE, "units taken")
    assert any("seats = seats + (SELECT passengers FROM bookings WHERE id = :booking_id" in sql
               for sql in _effects(_repaired(data), "cancel_booking"))
    # a twin: a count moved by one through rows that hold no units (a member per subscription) is right
    twin = _edited(clean["forum"], "join", "members = members + 1 WHERE id = :forum_id",
                   "members = members + 1 WHERE id = (SELECT forum_id FROM subscriptions WHERE user_id = :user_id "
                   "AND forum_id = :forum_id)")
    assert not _found(twin, VIEW_FIGURE, "units taken")


def test_a_vote_that_does_not_take_back_the_one_it_replaces(clean: dict[str, Data]) -> None:
    back = " - coalesce((SELECT value FROM votes WHERE user_id = :user_id AND post_id = :post_id), 0)"
    original = next(sql for sql in _effects(clean["forum"], "vote") if back in sql)
    data = _edited(clean["forum"], "vote", back, "")
    assert _found(data, VIEW_FIGURE, "counts twice")
    assert original in _effects(_repaired(data), "vote")
    assert not _found(clean["forum"], VIEW_FIGURE, "counts twice")
    # a twin: a vote row only ever added, never replaced (no update of the stored value)
    twin = copy.deepcopy(data)
    vote = next(m for m in twin["markers"] if m["name"] == "vote")
    vote["effects"] = [e for e in vote["effects"] if not (e["op"] == "update" and e["table"] == "votes")]
    assert not _found(twin, VIEW_FIGURE, "counts twice")


def test_leaving_a_community_that_no_longer_lowers_its_members(clean: dict[str, Data]) -> None:
    data = copy.deepcopy(clean["forum"])
    leave = next(m for m in data["markers"] if m["name"] == "leave")
    lowered = [e for e in leave["effects"] if "members = members - 1" in e["sql"]]
    assert lowered
    leave["effects"] = [e for e in leave["effects"] if e not in lowered]
    assert _found(data, UNGUARDED_WRITE, "stops counting")
    assert lowered[0]["sql"] in _effects(_repaired(data), "leave")
    assert not _found(clean["forum"], UNGUARDED_WRITE, "stops counting")
    # a twin: neither joining nor leaving keeps a count (nothing to drift)
    join = next(m for m in data["markers"] if m["name"] == "join")
    join["effects"] = [e for e in join["effects"] if "members" not in e["sql"]]
    assert not _found(data, UNGUARDED_WRITE, "stops counting")


def test_unstarring_that_removes_every_star_of_the_user(clean: dict[str, Data]) -> None:
    original = "DELETE FROM stars WHERE user_id = :user_id AND project_id = :project_id"
    assert original in _effects(clean["code"], "unstar")
    data = _edited(clean["code"], "unstar", original, "DELETE FROM stars WHERE user_id = :user_id")
    assert _found(data, UNGUARDED_WRITE, "unstar")
    fixed = _effects(_repaired(data), "unstar")
    assert any("project_id = :project_id" in sql and "user_id = :user_id" in sql for sql in fixed)
    assert not _found(clean["code"], UNGUARDED_WRITE, "unstar")


def test_a_refund_stored_with_the_orders_key_as_its_staff_member(clean: dict[str, Data]) -> None:
    original = next(sql for sql in _effects(clean["admin"], "refund_order") if sql.startswith("INSERT"))
    assert ":today, :user_id)" in original
    data = _edited(clean["admin"], "refund_order", ":today, :user_id)", ":today, :order_id)")
    assert _found(data, VIEW_FIGURE, "staff_id")
    assert original in _effects(_repaired(data), "refund_order")
    assert not _found(clean["admin"], VIEW_FIGURE, "takes :")
    # a twin: a key named for the parameter it takes (the order's own key) is where it belongs
    twin = _edited(clean["admin"], "refund_order", ":today, :user_id)", ":today, :staff_id)")
    assert not _found(twin, VIEW_FIGURE, "staff_id")


def _task(data: Data, task_id: str) -> Data:
    return next(t for t in data["tasks"] if t["id"] == task_id)


def test_a_shipping_choice_judged_other_than_the_instruction_says(clean: dict[str, Data]) -> None:
    data = copy.deepcopy(clean["shop"])
    task = _task(data, "checkout_cart")
    assert "express" in task["instruction"]
    conditions = [c for c in task["goal"][0]["query"]["where"] if c.get("value") == "express"]
    conditions[0]["value"] = "standard"
    assert _found(data, SLOT_CONTRADICTS_GOAL, "says 'express'")
    repaired = _task(_repaired(data), "checkout_cart")
    assert {"column": "shipping", "value": "express"} in repaired["goal"][0]["query"]["where"]
    assert not _found(clean["shop"], SLOT_CONTRADICTS_GOAL, "judge reads")
    # a twin: an instruction that says no shipping at all leaves the judge's choice alone
    task["template"] = task["template"].replace(", express delivery", "")
    task["instruction"] = render_instruction(task["template"], task["slots"])
    assert "express" not in task["template"]
    assert not _found(data, SLOT_CONTRADICTS_GOAL, "judge reads")


def test_an_instruction_logging_in_as_another_user_than_the_task_acts_as(clean: dict[str, Data]) -> None:
    data = copy.deepcopy(clean["forum"])
    task = _task(data, "create_post")
    named = task["user"]
    task["user"] = _task(data, "vote")["user"]
    assert _found(data, SLOT_CONTRADICTS_GOAL, f"log in as {named!r}")
    assert _task(_repaired(data), "create_post")["user"] == named
    assert not _found(clean["forum"], SLOT_CONTRADICTS_GOAL, "log in as")


def test_a_password_the_account_does_not_have(clean: dict[str, Data]) -> None:
    data = copy.deepcopy(clean["forum"])
    task = _task(data, "vote")
    right = task["slots"]["password"]
    task["slots"]["password"] = "wrong-pass-00"
    task["instruction"] = task["instruction"].replace(right, "wrong-pass-00")
    assert _found(data, SLOT_CONTRADICTS_GOAL, "login fails")
    repaired = _task(_repaired(data), "vote")
    assert repaired["slots"]["password"] == right and right in repaired["instruction"]


def test_credentials_left_to_an_instruction_that_does_not_give_them(clean: dict[str, Data]) -> None:
    data = copy.deepcopy(clean["travel"])
    task = _task(data, "flights_total")
    user, password = task["slots"]["username"], task["slots"]["password"]
    task["template"] = "How much did you pay in total for your upcoming flights?"
    task["instruction"] = task["template"]
    assert _found(data, CREDENTIALS_UNSAID, user)
    repaired = _task(_repaired(data), "flights_total")
    assert user in repaired["instruction"] and password in repaired["instruction"]
    assert not _found(clean["travel"], CREDENTIALS_UNSAID, "")
    # a twin: a task that signs in from the profile needs no credentials in its words
    task["credentials"] = "profile"
    assert not _found(data, CREDENTIALS_UNSAID, "")


def test_the_highest_total_answered_with_the_lowest(clean: dict[str, Data]) -> None:
    data = copy.deepcopy(clean["admin"])
    query = _task(data, "customer_largest")["answer"]["value"]["query"]
    assert query["agg"] == "max"
    query["agg"] = "min"
    assert _found(data, ORDER_AGAINST_WORDS, "min(total)")
    assert _task(_repaired(data), "customer_largest")["answer"]["value"]["query"]["agg"] == "max"
    assert not _found(clean["admin"], ORDER_AGAINST_WORDS, "")
    # a twin: "the lowest" read with min is right
    task = _task(data, "customer_largest")
    task["template"] = task["template"].replace("highest", "lowest")
    task["instruction"] = task["instruction"].replace("highest", "lowest")
    assert not _found(data, ORDER_AGAINST_WORDS, "")


def test_a_closed_tab_opening_the_open_list() -> None:
    data = to_data(generate_site("code", 2))
    data.pop("id", None)
    text = json.dumps(data)
    assert "issues?state=closed" in text and not _found(data, LINK_ENTITY, "filters")
    broken = json.loads(text.replace("issues?state=closed", "issues?state=open", 1))
    found = _found(broken, LINK_ENTITY, "filters state=open")
    assert len(found) == 1
    assert "issues?state=closed" in json.dumps(_repaired(broken)["pages"]) + json.dumps(_repaired(broken)["layout"])


def test_when_a_request_was_merged_answered_with_when_it_was_opened() -> None:
    site = generate_site("code", 2)
    merged = next(r for r in site.database.table("merge_requests").rows if r.get("merged_on"))
    data = to_data(site)
    data.pop("id", None)
    task = _task(data, "milestone_due")
    task["template"] = 'On what date was the merge request "{title}" merged?'
    task["slots"] = {"title": merged["title"]}
    task["progress"] = []
    task["instruction"] = render_instruction(task["template"], task["slots"])
    task["answer"]["value"]["query"] = {"select": "created", "table": "merge_requests",
                                        "where": [{"column": "title", "value": {"ref": "slot.title"}}]}
    assert _found(data, C.ANSWER_ASKS_OTHER, "reads created")
    repaired = _task(_repaired(data), "milestone_due")
    assert repaired["answer"]["value"]["query"]["select"] == "merged_on"
    # a twin: "opened" read off created is what is asked
    task["answer"]["value"]["query"]["select"] = "merged_on"
    assert not _found(data, C.ANSWER_ASKS_OTHER, "")

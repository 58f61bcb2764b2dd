"""Checks of what markers accept against what the site gives them (:mod:`veriweb.verify.checks_params`),
and of a record begun after its first use (:func:`veriweb.verify.checks_data.check_begun_after_use`).
Each defect is planted in a generated site, the clean site is its twin, and the repair is run. They were
asked for by cases of the nineteenth hand-made set that were only caught by a failing certificate.
"""

from __future__ import annotations

import json

from jsonwalk import dicts, messages as _messages, planted as _planted, site_data as _data  # tests/verify/jsonwalk.py

from veriweb.generate.site import generate_site
from veriweb.scaffold import Site
from veriweb.scaffold.io import from_data
from veriweb.verify.repair import repair_static


def _same(a: Site, b: Site) -> bool:
    return json.dumps(_data(a)) == json.dumps(_data(b))


def _marker(data: dict, name: str) -> dict:
    return next(m for m in data["markers"] if m["name"] == name)


def test_an_integer_parameter_writing_money_is_found_and_takes_the_money_type() -> None:
    clean = generate_site("admin", 0)
    assert not _messages(clean, "S013")
    data = _data(clean)
    next(p for p in _marker(data, "save_product")["params"] if p["name"] == "price")["type"] = "integer"
    site = from_data(data, check_id=False)
    assert len([m for m in _messages(site, "S013") if "save_product.price takes whole numbers" in m]) == 1
    assert _same(repair_static(site)[0], clean)


def test_a_guard_reading_a_parameter_its_marker_lacks_is_found_and_reads_the_closest() -> None:
    clean = generate_site("admin", 0)
    assert not _messages(clean, "S012")
    site = _planted(clean, '"params": {"o": {"ref": "param.order_id"}}}, "message": "Only paid orders',
                    '"params": {"o": {"ref": "param.order"}}}, "message": "Only paid orders')
    found = [m for m in _messages(site, "S012") if "reads param.order, which the marker does not take" in m]
    assert len(found) == 1 and found[0].endswith("it should read param.order_id")
    assert _same(repair_static(site)[0], clean)


def test_a_guard_reading_a_name_nothing_binds_is_found_and_bound_to_the_parameter() -> None:
    clean = generate_site("travel", 0)
    site = _planted(clean, "FROM flights WHERE seats < 0", "FROM flights WHERE id = :flight_id AND seats < 0")
    found = [m for m in _messages(site, "S012") if "reads :flight_id, which nothing binds" in m]
    assert len(found) == 1
    fixed = repair_static(site)[0]
    guard = next(g for g in fixed.marker("book_flight").invariants if ":flight_id" in g.predicate.sql)
    assert guard.predicate.params["flight_id"].ref == "param.flight_id"
    assert not [m for m in _messages(fixed, "S012") if "nothing binds" in m]


def test_a_guard_refusing_the_last_seat_is_found_and_refuses_only_fewer_than_none() -> None:
    clean = generate_site("travel", 0)
    assert not [m for m in _messages(clean, "C009") if "the last one can never be had" in m]
    site = _planted(clean, "FROM flights WHERE seats < 0", "FROM flights WHERE seats <= 0")
    assert len([m for m in _messages(site, "C009") if "run after the write, refuses seats <= 0" in m]) == 1
    assert _same(repair_static(site)[0], clean)


def test_the_time_written_into_a_column_of_days_is_found_and_written_as_today() -> None:
    clean = generate_site("shop", 0)
    site = _planted(clean, "SELECT :user_id, :today, 'placed'", "SELECT :user_id, :now, 'placed'")
    assert len([m for m in _messages(site, "C013") if "writes the date and time (:now) into orders.created" in m]) == 1
    assert _same(repair_static(site)[0], clean)


def test_a_length_the_seed_data_breaks_is_found_and_allows_it() -> None:
    clean = generate_site("forum", 0)
    assert not _messages(clean, "C012")
    data = _data(clean)
    body = next(p for p in _marker(data, "add_comment")["params"] if p["name"] == "body")
    body["min_length"] = 300
    site = from_data(data, check_id=False)
    found = [m for m in _messages(site, "C012") if "add_comment.body's min length is 300" in m]
    assert len(found) == 1
    fixed = repair_static(site)[0]
    shortest = min(len(r["body"]) for r in clean.database.table("comments").rows)
    assert next(p for p in fixed.marker("add_comment").params if p.name == "body").min_length == shortest


def test_a_fixed_argument_outside_the_parameters_range_is_found_and_moved_inside() -> None:
    clean = generate_site("forum", 0)
    data = _data(clean)
    sent = [d for d in dicts(data["pages"]) if d.get("marker") == "vote" and d.get("args", {}).get("value") == -1]
    for action in sent:
        action["args"]["value"] = -2
    site = from_data(data, check_id=False)
    found = [m for m in _messages(site, "S013") if "sends -2, which the marker refuses" in m]
    assert len(found) == len(sent) >= 1 and all(m.endswith("it should send -1") for m in found)
    assert _same(repair_static(site)[0], clean)


def test_a_form_shown_only_for_states_its_marker_refuses_is_found_and_shown_for_those_it_takes() -> None:
    clean = generate_site("code", 0)
    assert not _messages(clean, "S004")
    data = _data(clean)
    holders = [d for d in dicts(data["pages"]) if d.get("type") == "record"
               and any(f.get("action", {}).get("marker") == "merge_mr" for f in d.get("elements", []))]
    assert holders
    for holder in holders:
        next(c for c in holder["query"]["where"] if c["column"] == "state")["value"] = "closed"
    site = from_data(data, check_id=False)
    found = [m for m in _messages(site, "S004") if "the form for 'merge_mr' is shown only where state is 'closed'" in m]
    assert len(found) == len(holders)
    fixed = repair_static(site)[0]
    shown = [d for d in dicts(_data(fixed)["pages"]) if d.get("type") == "record"
             and any(f.get("action", {}).get("marker") == "merge_mr" for f in d.get("elements", []))]
    assert all({"column": "state", "op": "in", "value": ["open"]} in h["query"]["where"] for h in shown)


def test_an_account_joined_after_its_first_post_is_found_and_dated_at_that_post() -> None:
    clean = generate_site("forum", 0)
    assert not _messages(clean, "C010")
    users = clean.database.table("users")
    user = users.rows[3]
    first = min(r["created"] for r in clean.database.table("posts").rows if r["user_id"] == user["id"])[:10]
    site = _planted(clean, f'"username": "{user["username"]}", "password": "{user["password"]}", "name": "{user["name"]}", '
                           f'"joined": "{user["joined"]}"',
                    f'"username": "{user["username"]}", "password": "{user["password"]}", "name": "{user["name"]}", '
                    f'"joined": "2026-06-01"')
    found = [m for m in _messages(site, "C010") if f"joined 2026-06-01 is after its first posts row ({first})" in m]
    assert len(found) == 1
    fixed = repair_static(site)[0]
    assert fixed.database.table("users").rows[3]["joined"] == first

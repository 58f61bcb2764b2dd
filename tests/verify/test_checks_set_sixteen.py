"""Checks asked for by the sixteenth hand-made set (held out: its cases were written by someone who read
neither the checks nor these tests). Each defect is planted in a generated site, the clean site is its
twin, and the repair is run.

- M016: a template that writes out a figure where the slot its judge reads belongs ("I need 2 of" where
  ``qty`` is 3; "the 13:50 flight" where ``time`` is 13:15); the repair puts the slot back.
- M003: an option that sends another option's value while its words name another ("Open" sending
  ``closed`` beside "Closed"; "4 stars or more" sending 3); the repair sends the value its words name.
- M003: a sort link that repeats another's order while only the other names the column ("Top scoring"
  sorting by comments beside "Most comments"); the repair sorts by the column its words name.
- M018: "the last flight" picked by departure ascending (the words "the last" and "the first", and a
  departure time as a time of day); the repair turns the order round.
- C013: a figure named for one table that counts rows of another (``comments`` counting votes); the
  repair counts the named table.
- M011: two tabs each labelled with what only the other holds; the repair swaps the labels.
- M015: a list comparing a choice with a column that holds none of its values (the customer group
  with the city); the repair compares it with the column that holds them all.
- C005: a state set from a choice with the day named for one state stamped whatever is chosen
  (reopening dates the closing); an "add" that sets a quantity where a row may hold one already; an
  insert of a value each owner holds exactly once (a second inbox). Each repair writes the SQL back.
- C005: a marker storing the key of a row only its owner sees (the folder a message moves to) with no
  guard asking whether it is the user's; the repair adds the guard.
- S013: a contact picker whose choices fill the recipients with names; the repair sends the address.
- M003: "Top products" sorted by units ascending (the words of amount, a tab's label); the repair turns it.
- S004: a form field its marker argument of the same name does not send; the repair sends it.
- C013: revenue summed over orders with no test of the cancelled ones; the repair leaves them out.
- M003: options whose labels name each other's values ("Unread" sending starred); S004: two fields sent
  as each other; M015: two filters each comparing the other's choice (the choices' values read from a
  table's rows too). Each repair turns them back.
- M016 (seventeenth set): a goal repeated word for word while a slot the instruction states goes
  unjudged; the repeat reads it. M003: "N stars or more" over an exact test; the test takes the bound.
- S002: a record's page orphaned because the rows naming it link to a name search; the repair links
  those rows to it again (not a new link from a hub).
- C004: a seed order whose refunded amount is not the sum of its refunds, as every other order's is;
  the repair writes the sum.
"""

from __future__ import annotations

from typing import Any

import pytest

from veriweb.generate.site import generate_site
from veriweb.scaffold import Site
from veriweb.scaffold.io import from_data, to_data
from veriweb.scaffold.site import render_instruction
from veriweb.verify.checks import (AMBIGUOUS_CONTROL, CONTRADICTORY_LABEL, EMPTY_FILTER, ORDER_AGAINST_WORDS,
                                   SLOT_CONTRADICTS_GOAL, UNGUARDED_WRITE, static_issues)
from veriweb.verify.repair import repair_static


def _data(site: Site) -> dict:
    data = to_data(site)
    data.pop("id", None)
    return data


def _dicts(value: Any) -> list[dict]:
    if isinstance(value, dict):
        return [value] + [d for v in value.values() for d in _dicts(v)]
    if isinstance(value, list):
        return [d for v in value for d in _dicts(v)]
    return []


def _messages(site: Site, code: str) -> list[str]:
    return [i.message for i in static_issues(site) if i.code == code]


def test_a_figure_written_where_the_judged_slot_belongs_is_found_and_the_slot_put_back() -> None:
    clean = generate_site("shop", 0)
    assert not [m for m in _messages(clean, SLOT_CONTRADICTS_GOAL) if "writes out" in m]
    data = _data(clean)
    task = next(t for t in data["tasks"] if t["id"] == "add_to_cart")
    assert "I need {qty} of" in task["template"] and task["slots"]["qty"] != 2
    task["template"] = task["template"].replace("I need {qty} of", "I need 2 of")
    task["instruction"] = render_instruction(task["template"], task["slots"])
    site = from_data(data, check_id=False)
    found = [m for m in _messages(site, SLOT_CONTRADICTS_GOAL) if "writes out '2' where its slot qty" in m]
    assert len(found) == 1
    fixed = repair_static(site)[0]
    assert fixed.task("add_to_cart").template == clean.task("add_to_cart").template


def test_a_figure_the_judge_does_not_read_is_no_slot_of_its_own() -> None:
    # "three nights" style words and figures that no unstated judged slot stands behind say nothing
    for domain in ("shop", "admin", "forum", "code", "travel", "mail"):
        site = generate_site(domain, 2)
        assert not [m for m in _messages(site, SLOT_CONTRADICTS_GOAL) if "writes out" in m], domain


@pytest.mark.parametrize(("domain", "seed", "label", "wrong", "right"), [
    ("code", 0, "Open", "closed", "open"),
    ("travel", 1, "4 stars or more", "3", "4"),
    ("mail", 0, "Unread only", "starred", "unread"),
])
def test_an_option_sending_another_options_value_is_found_and_sends_its_own(
        domain: str, seed: int, label: str, wrong: str, right: str) -> None:
    clean = generate_site(domain, seed)
    assert not [m for m in _messages(clean, CONTRADICTORY_LABEL) if "choosing it does what the other" in m]
    data = _data(clean)
    option = next(o for o in _dicts(data) if o.get("label") == label and o.get("value") == right)
    option["value"] = wrong
    site = from_data(data, check_id=False)
    found = [m for m in _messages(site, CONTRADICTORY_LABEL) if f"{label!r} sends {wrong!r}" in m]
    assert len(found) == 1 and f"its words name {right!r}" in found[0]
    fixed = _data(repair_static(site)[0])
    assert any(o.get("label") == label and o.get("value") == right for o in _dicts(fixed))


def test_a_sort_link_repeating_anothers_order_is_found_and_sorts_by_what_it_names() -> None:
    clean = generate_site("forum", 0)
    assert not [m for m in _messages(clean, CONTRADICTORY_LABEL) if "the link does not order what it says" in m]
    data = _data(clean)
    top = next(s for s in _dicts(data) if s.get("key") == "top" and "label" in s)
    assert top["column"] == "score"
    top["column"] = "comments"
    site = from_data(data, check_id=False)
    found = [m for m in _messages(site, CONTRADICTORY_LABEL) if "the link does not order what it says" in m]
    assert len(found) == 1 and "its words name 'score'" in found[0]
    fixed = _data(repair_static(site)[0])
    assert {s["column"] for s in _dicts(fixed) if s.get("key") == "top" and "label" in s} == {"score"}


def _planted_sql(clean: Site, old: str, new: str) -> Site:
    import json

    text = json.dumps(_data(clean))
    assert old in text, old
    return from_data(json.loads(text.replace(old, new, 1)), check_id=False)


@pytest.mark.parametrize(("domain", "old", "new", "code", "words"), [
    ("forum", "(SELECT count(*) FROM comments c WHERE c.post_id = p.id)",
     "(SELECT count(*) FROM votes c WHERE c.post_id = p.id)", "C013", "named for the comments table"),
    ("code", "closed_on = CASE :state WHEN 'closed' THEN :today END", "closed_on = :today", UNGUARDED_WRITE,
     "stamps closed_on whatever :state is"),
    ("shop", "SET qty = qty + :qty", "SET qty = :qty", UNGUARDED_WRITE, "by setting its qty to :qty"),
    ("mail", ":name, 'custom',", ":name, 'inbox',", UNGUARDED_WRITE, "with kind 'inbox', which each user_id holds"),
])
def test_sql_that_writes_or_counts_other_than_its_names_say_is_found_and_written_back(
        domain: str, old: str, new: str, code: str, words: str) -> None:
    clean = generate_site(domain, 0)
    assert not [m for m in _messages(clean, code) if words in m]
    site = _planted_sql(clean, old, new)
    assert len([m for m in _messages(site, code) if words in m]) == 1
    fixed = repair_static(site)[0]
    assert not [m for m in _messages(fixed, code) if words in m]
    assert [(m.name, [e.sql for e in m.effects]) for m in fixed.markers] == \
        [(m.name, [e.sql for e in m.effects]) for m in clean.markers]
    assert [v.sql for v in fixed.database.views] == [v.sql for v in clean.database.views]


def test_the_last_flight_picked_by_earliest_departure_is_found_and_turned_round() -> None:
    clean = generate_site("travel", 1)
    task = next(t for t in clean.tasks if "the last flight" in t.instruction)
    assert not _messages(clean, ORDER_AGAINST_WORDS)
    data = _data(clean)
    order = next(t for t in data["tasks"] if t["id"] == task.id)["goal"][0]["params"]["id"]["query"]["order_by"]
    assert order[0] == {"column": "depart", "dir": "desc"}
    order[0]["dir"] = "asc"
    site = from_data(data, check_id=False)
    assert [m for m in _messages(site, ORDER_AGAINST_WORDS) if "asks for the last" in m]
    fixed = repair_static(site)[0]
    assert fixed.task(task.id).goal[0].params["id"].query.order_by[0].dir == "desc"


def test_tabs_labelled_with_each_others_content_are_found_and_swapped_back() -> None:
    clean = generate_site("forum", 0)
    data = _data(clean)
    tabs = next(d["tabs"] for d in _dicts(next(p for p in data["pages"] if p["id"] == "search")) if "tabs" in d)
    assert [t["label"] for t in tabs] == ["Threads", "Communities", "Users"]
    assert not [m for m in _messages(clean, AMBIGUOUS_CONTROL) if "the two labels are the wrong way round" in m]
    tabs[1]["label"], tabs[2]["label"] = "Users", "Communities"
    site = from_data(data, check_id=False)
    assert len([m for m in _messages(site, AMBIGUOUS_CONTROL) if "the two labels are the wrong way round" in m]) == 1
    fixed = repair_static(site)[0]
    assert fixed.page("search").model_dump() == clean.page("search").model_dump()


def test_a_choice_compared_with_a_column_holding_none_of_its_values_is_found_and_redirected() -> None:
    clean = generate_site("admin", 0)
    data = _data(clean)
    listed = next(d for d in _dicts(next(p for p in data["pages"] if p["id"] == "customers")) if d.get("name") == "customers")
    test = next(c for c in listed["query"]["where"] if c["column"] == "customer_group")
    test["column"] = "city"
    site = from_data(data, check_id=False)
    found = [m for m in _messages(site, EMPTY_FILTER) if "is compared with city, which holds none" in m]
    assert len(found) == 1 and "customer_group holds them all" in found[0]
    fixed = repair_static(site)[0]
    assert fixed.page("customers").model_dump() == clean.page("customers").model_dump()


def test_a_sort_link_naming_one_column_and_sorting_by_another_is_found_alone() -> None:
    clean = generate_site("forum", 0)
    data = _data(clean)
    top = next(s for s in _dicts(data) if s.get("key") == "top" and "label" in s)
    hot = next(s for s in _dicts(data) if s.get("key") == "hot" and "label" in s)
    top["column"] = "hot"  # "Top scoring" sorting by hot: a twin of "Trending", which names hot
    site = from_data(data, check_id=False)
    assert [m for m in _messages(site, CONTRADICTORY_LABEL) if "its words name 'score'" in m]
    fixed = _data(repair_static(site)[0])
    assert {s["column"] for s in _dicts(fixed) if s.get("key") == "top" and "label" in s} == {"score"}
    assert {s["column"] for s in _dicts(fixed) if s.get("key") == "hot" and "label" in s} == {hot["column"]}


def test_a_key_to_another_users_private_row_unguarded_is_found_and_guarded() -> None:
    clean = generate_site("mail", 0)
    assert not [m for m in _messages(clean, UNGUARDED_WRITE) if "only its owner sees" in m]
    data = _data(clean)
    move = next(m for m in data["markers"] if m["name"] == "move_email")
    kept = [g for g in move["preconditions"] if "FROM folders WHERE" not in g["predicate"]["sql"]]
    assert len(kept) == len(move["preconditions"]) - 1
    move["preconditions"] = kept
    site = from_data(data, check_id=False)
    assert len([m for m in _messages(site, UNGUARDED_WRITE) if "stores the folders row :folder_id" in m]) == 1
    fixed = repair_static(site)[0]
    guards = [g.predicate.sql for g in fixed.marker("move_email").preconditions]
    assert any("FROM folders WHERE id = :k AND user_id = :user_id" in g for g in guards)
    assert not [m for m in _messages(fixed, UNGUARDED_WRITE) if "only its owner sees" in m]


def _with_picker(sends: str) -> Site:
    data = _data(generate_site("mail", 0))
    compose = next(p for p in data["pages"] if p["id"] == "compose")
    compose["elements"].insert(1, {
        "type": "form", "label": "Pick a recipient", "submit": "Insert", "action": {"kind": "navigate", "route": "/compose"},
        "fields": [{"name": "to", "label": "Pick a recipient", "type": "select", "options": [{"label": "-", "value": ""}],
                    "options_query": {"query": {"table": "contacts", "where": [{"column": "user_id", "value": {"ref": "user.id"}}]},
                                      "value": sends, "label": "name"}}]})
    return from_data(data, check_id=False)


def test_a_picker_sending_names_where_addresses_are_stored_is_found_and_sends_addresses() -> None:
    assert not [m for m in _messages(_with_picker("email"), "S013") if "the picker passes" in m]
    site = _with_picker("name")
    assert len([m for m in _messages(site, "S013") if "the picker passes 'name'" in m]) == 1
    fixed = _data(repair_static(site)[0])
    assert [d["options_query"]["value"] for d in _dicts(fixed) if isinstance(d.get("options_query"), dict)
            and d.get("name") == "to"] == ["email"]


def test_a_list_of_top_sellers_sorted_from_the_bottom_is_found_and_turned_round() -> None:
    clean = generate_site("admin", 0)
    assert not [m for m in _messages(clean, CONTRADICTORY_LABEL) if "its first rows are the other end" in m]
    data = _data(clean)
    listed = next(d for d in _dicts(data) if d.get("name") == "bestsellers" and "query" in d)
    assert listed["query"]["order_by"][0] == {"column": "units", "dir": "desc"}
    listed["query"]["order_by"][0]["dir"] = "asc"
    site = from_data(data, check_id=False)
    assert len([m for m in _messages(site, CONTRADICTORY_LABEL) if "but sorts units ascending" in m]) == 1
    fixed = _data(repair_static(site)[0])
    assert next(d for d in _dicts(fixed) if d.get("name") == "bestsellers" and "query" in d)["query"]["order_by"][0] == \
        {"column": "units", "dir": "desc"}


def test_a_field_its_form_sends_something_else_for_is_found_and_sent() -> None:
    clean = generate_site("admin", 0)
    assert not [m for m in _messages(clean, "S004") if "never sends what is typed" in m]
    data = _data(clean)
    form = next(d for d in _dicts(data) if d.get("type") == "form" and d.get("action", {}).get("marker") == "save_product")
    form["action"]["args"]["stock"] = {"ref": "row.stock"}
    site = from_data(data, check_id=False)
    assert len([m for m in _messages(site, "S004") if "shows a field 'stock' but sends row.stock" in m]) == 1
    fixed = _data(repair_static(site)[0])
    assert [d["action"]["args"]["stock"] for d in _dicts(fixed) if d.get("type") == "form"
            and d.get("action", {}).get("marker") == "save_product"] == [{"ref": "field.stock"}]


def test_a_seed_figure_off_the_sum_every_other_row_keeps_is_found_and_summed() -> None:
    clean = generate_site("admin", 0)
    assert not [m for m in _messages(clean, "C004") if "is not the sum of" in m]
    data = _data(clean)
    orders = next(t for t in data["database"]["tables"] if t["name"] == "orders")
    row = next(r for r in orders["rows"] if r["refunded"])
    right, row["refunded"] = row["refunded"], row["refunded"] - 598
    site = from_data(data, check_id=False)
    found = [m for m in _messages(site, "C004") if "is not the sum of refunds.amount" in m]
    assert len(found) == 1 and found[0].endswith(f"it should be {right}")
    fixed = repair_static(site)[0]
    assert next(r for r in fixed.database.table("orders").rows if r["id"] == row["id"])["refunded"] == right


@pytest.mark.parametrize("old", [" AND o.status != 'canceled'", "WHERE o.status != 'canceled' "])
def test_revenue_that_counts_cancelled_orders_is_found_and_leaves_them_out(old: str) -> None:
    clean = generate_site("admin", 0)
    assert not [m for m in _messages(clean, "C013") if "as money earned" in m]
    site = _planted_sql(clean, old, " " if old.startswith(" ") else "")
    assert len([m for m in _messages(site, "C013") if "sums orders as money earned" in m]) == 1
    fixed = repair_static(site)[0]
    assert not [m for m in _messages(fixed, "C013") if "as money earned" in m]
    sql = next(v.sql for v in fixed.database.views if v.sql != next(w.sql for w in clean.database.views if w.name == v.name))
    assert "o.status != 'canceled'" in sql


def test_a_record_page_orphaned_by_row_links_sent_elsewhere_gets_those_links_back() -> None:
    clean = generate_site("shop", 0)
    site = _planted_sql(clean, '"href": "/category/{row.id}"', '"href": "/search?q={row.name}"')
    assert [m for m in _messages(site, "S002") if "page 'category'" in m]
    fixed, log = repair_static(site)[:2]
    assert [r.change for r in log if r.code == "S002"] == \
        ["row links /search?q={row.name} -> '/category/{row.id}', the page of their record"]
    assert fixed.page("home").model_dump() == clean.page("home").model_dump()


def test_options_whose_labels_name_each_others_values_are_found_and_swapped_back() -> None:
    clean = generate_site("mail", 0)
    data = _data(clean)
    options = next(d["options"] for d in _dicts(data) if d.get("name") == "show" and d.get("options"))
    unread = next(o for o in options if o["value"] == "unread")
    starred = next(o for o in options if o["value"] == "starred")
    assert not [m for m in _messages(clean, CONTRADICTORY_LABEL) if "the opposite of what the words say" in m]
    unread["value"], starred["value"] = "starred", "unread"  # "Unread only" sends starred, "Important" unread
    site = from_data(data, check_id=False)
    assert [m for m in _messages(site, CONTRADICTORY_LABEL) if "sends 'starred' while" in m]
    fixed = _data(repair_static(site)[0])
    options = next(d["options"] for d in _dicts(fixed) if d.get("name") == "show" and d.get("options"))
    assert next(o["value"] for o in options if o["label"] == unread["label"]) == "unread"


def test_two_fields_sent_as_each_other_are_found_and_sent_as_themselves() -> None:
    clean = generate_site("shop", 0)
    data = _data(clean)
    form = next(d for d in _dicts(data) if d.get("type") == "form" and d.get("action", {}).get("marker") == "place_order")
    args = form["action"]["args"]
    names = [f["name"] for f in form["fields"] if args.get(f["name"]) == {"ref": f"field.{f['name']}"}][:2]
    assert len(names) == 2
    args[names[0]], args[names[1]] = args[names[1]], args[names[0]]
    site = from_data(data, check_id=False)
    assert len([m for m in _messages(site, "S004") if "never sends what is typed" in m]) == 2
    fixed = _data(repair_static(site)[0])
    form = next(d for d in _dicts(fixed) if d.get("type") == "form" and d.get("action", {}).get("marker") == "place_order")
    assert all(form["action"]["args"][n] == {"ref": f"field.{n}"} for n in names)


def test_two_filters_comparing_each_others_choice_are_found_and_turned_back() -> None:
    clean = generate_site("admin", 0)
    data = _data(clean)
    listed = next(d for d in _dicts(next(p for p in data["pages"] if p["id"] == "products"))
                  if d.get("type") in ("list", "table") and d.get("query", {}).get("table") == "catalog")
    tests = {c["column"]: c for c in listed["query"]["where"]}
    assert tests["status"]["value"] == {"ref": "query.status"} and tests["category_id"]["value"] == {"ref": "query.category"}
    tests["status"]["value"], tests["category_id"]["value"] = {"ref": "query.category"}, {"ref": "query.status"}
    site = from_data(data, check_id=False)
    assert len([m for m in _messages(site, EMPTY_FILTER) if "which holds none of the values it offers" in m]) == 2
    fixed = _data(repair_static(site)[0])
    listed = next(d for d in _dicts(next(p for p in fixed["pages"] if p["id"] == "products"))
                  if d.get("type") in ("list", "table") and d.get("query", {}).get("table") == "catalog")
    pairs = {(c["column"], c["value"].get("ref")) for c in listed["query"]["where"] if isinstance(c["value"], dict)}
    assert {("status", "query.status"), ("category_id", "query.category")} <= pairs


def test_a_goal_repeated_where_the_instruction_names_another_slot_is_found_and_reads_it() -> None:
    """From the seventeenth set: "subscribe to c/{first}, c/{second} and c/{third}" judged on first twice."""
    import json

    clean = generate_site("forum", 0)
    assert not [m for m in _messages(clean, SLOT_CONTRADICTS_GOAL) if "repeats a goal" in m]
    data = _data(clean)
    task = next(t for t in data["tasks"] if t["id"] == "memberships")
    task["goal"][1] = json.loads(json.dumps(task["goal"][1]).replace('"slot.second"', '"slot.first"'))
    site = from_data(data, check_id=False)
    assert len([m for m in _messages(site, SLOT_CONTRADICTS_GOAL) if "repeats a goal on slot first" in m]) == 1
    fixed = repair_static(site)[0]
    assert [g.model_dump() for g in fixed.task("memberships").goal] == [g.model_dump() for g in clean.task("memberships").goal]

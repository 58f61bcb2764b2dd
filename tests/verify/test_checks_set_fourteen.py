"""Checks asked for by the fourteenth hand-made set (held out: its cases were written by someone who read
neither the checks nor these tests).

- M016: a task's answer key or goal compares a status with a value no row holds or gets, spelt like one
  the data has (``status = 'completed'`` where orders say ``'complete'``); the repair spells it as the
  data does.
- M008: a lookup inside a list answer's condition (the issue whose labels to list, by its title) that
  matches two records.
- M015: a list on a page named for a yes/no column ("Important" at ``/starred``) that shows the rows
  where it is false (or one named for its negation that shows those where it is true); the repair
  flips the filter.
- S011: a form on a record shown through a view that posts another record's key as the one its marker
  looks up; the repair posts the column that holds the right key.
- C013: a figure named for units computed as a count of rows that each hold a quantity; the repair
  sums the quantity.
- C013: a toggle whose texts name its flag by another word ("Mark important" for starred), read by
  which text negates the other; the repair swaps them.
- M017 from the stored certificate: a retrieve task whose stored certificate still runs step by step
  but whose answer the judge now rejects, while the only answer found is another: the key reads another
  figure (a title for an author), and the task is not certified.
- M016: two date slots whose names put them in order (a day out and a return day) holding dates the
  other way round.
- M003: radio options whose labels say each other's number ("1 star" sends 5, "5 stars" sends 1).
- C005 from a press: "Vote up" moving the score down; and no guard above zero asked of a counter the
  seed rows already hold below zero.
- S013: a link that fills a form field through its address with another kind of value than the marker
  stores there (a contact's name as the recipient); the repair passes the right column.
- M016 (from the fifteenth set): an answer key testing a yes/no column against its instruction's words
  ("not read yet" counted over ``read = true``); the repair turns the test round.
- M011: a form field labelled with another field's name ("Check in" on ``check_out``); the repair swaps
  the two labels.
- C005 from the stored certificate: the rows its markers write are held against the seed rows' rules
  even when it no longer reaches the goal (in the set, a stay booked for a night more than its dates put
  the task over its budget, so no search certified it and no search's rows were checked).
"""

from __future__ import annotations

import pytest
from jsonwalk import dicts  # tests/verify/jsonwalk.py

from veriweb.generate.site import generate_site
from veriweb.scaffold import Site
from veriweb.scaffold.io import from_data, to_data
from veriweb.verify.checks import SLOT_CONTRADICTS_GOAL, UNGUARDED_WRITE, static_issues
from veriweb.verify.feasibility import verify_task
from veriweb.verify.repair import repair_static


@pytest.fixture(scope="module")
def admin() -> Site:
    return generate_site("admin", 0)


def _data(site: Site) -> dict:
    data = to_data(site)
    data.pop("id", None)
    return data


def _goal_status(data: dict, task_id: str) -> dict:
    task = next(t for t in data["tasks"] if t["id"] == task_id)
    return next(c for c in task["goal"][1]["query"]["where"] if c["column"] == "status")


def test_a_goal_that_compares_with_a_misspelt_status_is_found_and_spelt_back(admin: Site) -> None:
    data = _data(admin)
    assert _goal_status(data, "cancel_pending")["value"] == "canceled"
    _goal_status(data, "cancel_pending")["value"] = "cancelled"
    site = from_data(data, check_id=False)
    index = next(i for i, t in enumerate(site.tasks) if t.id == "cancel_pending")
    found = [i for i in static_issues(site) if i.code == SLOT_CONTRADICTS_GOAL and "spelt like 'canceled'" in i.message]
    assert [i.location for i in found] == [f"$.tasks[{index}].goal[1].query.where[1].value"]
    fixed = repair_static(site)[0]
    assert _goal_status(_data(fixed), "cancel_pending")["value"] == "canceled"
    assert not [i for i in static_issues(fixed) if i.code == SLOT_CONTRADICTS_GOAL]


def test_a_value_the_data_holds_or_a_marker_writes_is_no_misspelling(admin: Site) -> None:
    assert not [i for i in static_issues(admin) if i.code == SLOT_CONTRADICTS_GOAL]
    data = _data(admin)
    _goal_status(data, "cancel_pending")["value"] = "pending"  # another status the data has: not this check's
    site = from_data(data, check_id=False)
    assert not [i for i in static_issues(site) if "spelt like" in i.message]


def test_the_stored_certificate_s_writes_are_checked() -> None:
    data = _data(generate_site("travel", 0))
    marker = next(m for m in data["markers"] if m["name"] == "book_stay")
    effect = next(e for e in marker["effects"] if e["table"] == "stays")
    assert effect["sql"].count("n.nights, :guests") == 1
    effect["sql"] = effect["sql"].replace("n.nights, :guests", "n.nights + 1, :guests")
    site = from_data(data, check_id=False)
    task = next(t for t in site.tasks if t.id == "hotel_budget")
    verdict = verify_task(site, task, budget=300)
    assert not verdict.shipped
    assert any(i.code == UNGUARDED_WRITE and "nights = the days from check_in to check_out" in i.message
               for i in verdict.issues)


def _stay_form(data: dict) -> dict:
    return next(d for d in dicts(data["pages"]) if d.get("type") == "form"
                and (d.get("action") or {}).get("marker") == "book_stay")


def test_a_field_labelled_with_another_field_s_name_is_found_and_the_labels_swapped() -> None:
    data = _data(generate_site("travel", 0))
    fields = {f["name"]: f for f in _stay_form(data)["fields"]}
    assert {"check_in", "check_out"} <= set(fields)
    assert not [i for i in static_issues(from_data(data, check_id=False)) if i.code == "M011"]
    fields["check_in"]["label"], fields["check_out"]["label"] = "Leaving", "Check in"
    site = from_data(data, check_id=False)
    found = [i for i in static_issues(site) if i.code == "M011"]
    assert len(found) == 1 and found[0].location.endswith(".label") and "'check_out' 'Check in'" in found[0].message
    fixed = {f["name"]: f["label"] for f in _stay_form(_data(repair_static(site)[0]))["fields"]}
    assert (fixed["check_in"], fixed["check_out"]) == ("Check in", "Leaving")


def test_a_list_answer_s_lookup_that_matches_two_records_is_ambiguous() -> None:
    """``labels_of`` lists the labels of the issue its slot names (a lookup inside the list's condition);
    a second issue with that title in another project makes the lookup pick one of two (M008)."""
    site = generate_site("code", 0)
    task = next(t for t in site.tasks if t.id == "labels_of")
    data = _data(site)
    assert not [i for i in static_issues(site) if i.code == "M008"]
    issues = next(t for t in data["database"]["tables"] if t["name"] == "issues")
    named = next(r for r in issues["rows"] if r["title"] == task.slots["title"])
    other = next(p for p in {r["project_id"] for r in issues["rows"]} if p != named["project_id"])
    issues["rows"].append(dict(named, id=max(r["id"] for r in issues["rows"]) + 1, project_id=other,
                               number=max(r["number"] for r in issues["rows"] if r["project_id"] == other) + 1))
    found = [i for i in static_issues(from_data(data, check_id=False)) if i.code == "M008"]
    index = next(i for i, t in enumerate(site.tasks) if t.id == "labels_of")
    assert [i.location for i in found] == [f"$.tasks[{index}].answer.list_query.where[0].value"]


def _starred_filter(data: dict) -> dict:
    page = next(p for p in data["pages"] if p["id"] in ("starred", "unstarred"))
    return next(c for d in dicts(page) if d.get("type") in ("list", "table")
                for c in d["query"]["where"] if c["column"] == "starred")


def test_a_page_named_for_a_flag_that_lists_the_rows_without_it_is_found_and_flipped() -> None:
    data = _data(generate_site("mail", 0))
    assert _starred_filter(data)["value"] is True
    assert not [i for i in static_issues(from_data(data, check_id=False)) if i.code == "M015"]
    _starred_filter(data)["value"] = False
    site = from_data(data, check_id=False)
    found = [i for i in static_issues(site) if i.code == "M015"]
    assert len(found) == 1 and "named 'starred'" in found[0].message and found[0].location.endswith(".value")
    assert _starred_filter(_data(repair_static(site)[0]))["value"] is True


def test_a_page_named_for_the_flag_s_negation_lists_the_rows_without_it() -> None:
    data = _data(generate_site("mail", 0))
    page = next(p for p in data["pages"] if p["id"] == "starred")
    page["title"] = "Unstarred"
    condition = _starred_filter(data)
    assert condition["value"] is True  # "Unstarred" over the starred rows: the opposite of what it says
    assert [i for i in static_issues(from_data(data, check_id=False)) if i.code == "M015"] == []  # named both ways
    page["id"], page["route"] = "unstarred", "/unstarred"
    found = [i for i in static_issues(from_data(data, check_id=False)) if i.code == "M015"]
    assert len(found) == 1 and "named 'unstarred'" in found[0].message
    condition["value"] = False
    assert [i for i in static_issues(from_data(data, check_id=False)) if i.code == "M015"] == []


def test_a_form_on_a_view_s_record_that_posts_another_record_s_key_is_found_and_repaired(admin: Site) -> None:
    """The order page shows a row of a view; its note form posts the order's customer as ``order_id`` (S011),
    and the repair posts the view's column that holds the order's own key."""
    data = _data(admin)
    form = next(d for d in dicts(data["pages"]) if d.get("type") == "form"
                and (d.get("action") or {}).get("marker") == "add_order_note")
    right = form["action"]["args"]["order_id"]
    assert right["ref"].startswith("row.")
    form["action"]["args"]["order_id"] = {"ref": "row.customer_id"}
    site = from_data(data, check_id=False)
    found = [i for i in static_issues(site) if i.code == "S011"]
    assert len(found) == 1 and found[0].location.endswith(".action.args.order_id")
    fixed = _data(repair_static(site)[0])
    form = next(d for d in dicts(fixed["pages"]) if d.get("type") == "form"
                and (d.get("action") or {}).get("marker") == "add_order_note")
    assert form["action"]["args"]["order_id"] == right


def test_units_counted_as_rows_where_each_row_holds_a_quantity(admin: Site) -> None:
    """A report's ``units`` as ``count(*)`` over order lines that hold ``qty`` (C013): it counts lines, not
    units. The repair sums the quantity again; a count named for rows (``orders``) is not this check's."""
    data = _data(admin)
    view = next(v for v in data["database"]["views"] if v["name"] == "sales_month")
    assert view["sql"].count("sum(i.qty) AS units") == 1
    view["sql"] = view["sql"].replace("sum(i.qty) AS units", "count(*) AS units")
    site = from_data(data, check_id=False)
    found = [i for i in static_issues(site) if i.code == "C013"]
    assert len(found) == 1 and "its name says units" in found[0].message
    fixed = next(v for v in _data(repair_static(site)[0])["database"]["views"] if v["name"] == "sales_month")
    assert "sum(i.qty) AS units" in fixed["sql"]
    view["sql"] = view["sql"].replace("count(*) AS units", "count(*) AS lines")
    assert not [i for i in static_issues(from_data(data, check_id=False)) if i.code == "C013"]


def test_a_toggle_whose_words_name_the_flag_otherwise_is_read_by_its_negation() -> None:
    """"Mark important" on a starred message and "Not important" on the others (C013): the texts never
    say "star", but one is the other negated, so the one shown on starred rows is backwards."""
    data = _data(generate_site("mail", 0))
    view = next(v for v in data["database"]["views"] if v["name"] == "mail_view")
    right = "CASE WHEN e.starred = 1 THEN 'Not important' ELSE 'Mark important' END"
    assert view["sql"].count(right) == 1
    assert not [i for i in static_issues(from_data(data, check_id=False)) if i.code == "C013"]
    view["sql"] = view["sql"].replace(right, "CASE WHEN e.starred = 1 THEN 'Mark important' ELSE 'Not important' END")
    site = from_data(data, check_id=False)
    found = [i for i in static_issues(site) if i.code == "C013"]
    assert len(found) == 1 and "'Mark important'" in found[0].message
    fixed = next(v for v in _data(repair_static(site)[0])["database"]["views"] if v["name"] == "mail_view")
    assert right in fixed["sql"]


def _answer_select(data: dict, task_id: str) -> dict:
    return next(t for t in data["tasks"] if t["id"] == task_id)["answer"]["value"]["query"]


def test_an_answer_key_that_reads_another_column_than_its_stored_certificate_answered_is_not_shipped() -> None:
    """"Who wrote the top post?" keyed on the post's title: the stored certificate still runs step by step and
    answers the author, which the judge rejects; the search answers the title, which the judge accepts. That
    is the key's fault, not a stale certificate's (M017), so the task is not certified."""
    data = _data(generate_site("forum", 0))
    query = _answer_select(data, "top_author")
    assert query["select"] == "author"
    query["select"] = "title"
    site = from_data(data, check_id=False)
    task = next(t for t in site.tasks if t.id == "top_author")
    verdict = verify_task(site, task, budget=2_000)
    assert not verdict.shipped
    assert [i.code for i in verdict.issues if i.code == "M017"] == ["M017"]
    assert "answers 'noble_jamal'" in next(i.message for i in verdict.issues if i.code == "M017")


def test_a_stored_certificate_that_fails_on_its_way_is_no_evidence_against_the_key() -> None:
    """The same key with a stored certificate whose steps fail (an element renumbered): nothing says the
    pages still lead where they led, so the certificate is stale (F002) and the search's answer certifies
    the task. This is the limit of the defence: it reads only certificates that still run."""
    data = _data(generate_site("forum", 0))
    _answer_select(data, "top_author")["select"] = "title"
    task = next(t for t in data["tasks"] if t["id"] == "top_author")
    task["certificate"] = [a.replace("click('56')", "click('zz999')") for a in task["certificate"]]
    assert "click('zz999')" in task["certificate"]
    site = from_data(data, check_id=False)
    verdict = verify_task(site, next(t for t in site.tasks if t.id == "top_author"), budget=2_000)
    assert verdict.status == "certified" and verdict.shipped
    assert {i.code for i in verdict.issues} == {"F002"}


def test_two_date_slots_out_of_order_are_found() -> None:
    """A round trip whose return day comes before its day out (M016); the task is dropped, as nothing says
    which date was meant."""
    data = _data(generate_site("travel", 0))
    task = next(t for t in data["tasks"] if t["id"] == "round_trip")
    assert task["slots"]["day"] < task["slots"]["return_day"]
    assert not [i for i in static_issues(from_data(data, check_id=False)) if "out of order" in i.message]
    task["slots"]["return_day"] = "2026-06-10"
    found = [i for i in static_issues(from_data(data, check_id=False)) if "out of order" in i.message]
    index = data["tasks"].index(task)
    assert [(i.code, i.location) for i in found] == [("M016", f"$.tasks[{index}].slots.return_day")]
    fixed = repair_static(from_data(data, check_id=False))[0]
    assert "round_trip" not in {t.id for t in fixed.tasks}


def test_a_rebooking_s_new_day_may_come_before_the_old_one() -> None:
    """``old_day`` and ``day`` name no order (a flight moved earlier is a rebooking too)."""
    data = _data(generate_site("travel", 0))
    task = next(t for t in data["tasks"] if t["id"] == "rebook")
    task["slots"]["day"] = "2026-06-01"
    assert not [i for i in static_issues(from_data(data, check_id=False)) if "out of order" in i.message]


def test_radio_options_that_send_each_other_s_number_are_swapped_back() -> None:
    """"1 star" sending 5 and "5 stars" sending 1 (M003): each label says the other's value."""
    data = _data(generate_site("shop", 0))
    field = next(f for d in dicts(data["pages"]) if d.get("type") == "form"
                 and (d.get("action") or {}).get("marker") == "write_review" for f in d["fields"] if f["name"] == "rating")
    assert sorted(o["value"] for o in field["options"]) == [str(n) for n in range(1, 6)]
    right = [dict(o) for o in field["options"]]
    for option in field["options"]:
        option["value"] = str(6 - int(option["value"]))
    site = from_data(data, check_id=False)
    assert [i.code for i in static_issues(site) if i.location.endswith(".options")] == ["M003"]
    fixed = _data(repair_static(site)[0])
    field = next(f for d in dicts(fixed["pages"]) if d.get("type") == "form"
                 and (d.get("action") or {}).get("marker") == "write_review" for f in d["fields"] if f["name"] == "rating")
    assert field["options"] == right


def _flip_vote(data: dict) -> None:
    effect = next(e for m in data["markers"] if m["name"] == "vote" for e in m["effects"] if e["table"] == "posts")
    assert effect["sql"].count("score = score + :value - coalesce(") == 1
    effect["sql"] = effect["sql"].replace("score = score + :value - coalesce(", "score = score - :value + coalesce(")


def test_a_vote_that_moves_the_score_against_its_button_is_not_shipped() -> None:
    """"Vote up" lowering the post's score (C005 from the certificate's own press): the vote task is not
    shipped. Scores below zero are in the seed rows, so no guard keeping it above zero is asked for either
    (that would zero those rows)."""
    data = _data(generate_site("forum", 0))
    _flip_vote(data)
    site = from_data(data, check_id=False)
    assert not [i for i in static_issues(site) if i.code == "C005"]
    verdict = verify_task(site, next(t for t in site.tasks if t.id == "vote"), budget=2_000)
    assert not verdict.shipped
    assert any(i.code == "C005" and "the other way from what the button says" in i.message for i in verdict.issues)
    clean = generate_site("forum", 0)
    assert verify_task(clean, next(t for t in clean.tasks if t.id == "vote"), budget=2_000).shipped


def _write_to_link(data: dict) -> dict:
    return next(d for d in dicts(data["pages"]) if d.get("type") == "link" and d.get("href", "").startswith("/compose?to="))


def test_a_link_that_fills_a_field_with_another_kind_of_value_is_found_and_repaired() -> None:
    """"Write to this contact" filling the recipient with the contact's name (S013): every recipient the
    send marker stores is an address, no name is. The repair passes the row's one column of addresses."""
    data = _data(generate_site("mail", 0))
    link = _write_to_link(data)
    right = link["href"]
    assert right == "/compose?to={row.email}"
    link["href"] = "/compose?to={row.name}"
    site = from_data(data, check_id=False)
    found = [i for i in static_issues(site) if i.code == "S013"]
    assert len(found) == 1 and found[0].location.endswith(".href") and "emails.recipients" in found[0].message
    assert _write_to_link(_data(repair_static(site)[0]))["href"] == right


def test_an_answer_key_testing_a_flag_against_its_instruction_s_words_is_turned_round() -> None:
    """(From the fifteenth set.) "How many messages have I not read yet?" counted over ``read = true``
    (M016); the repair counts the unread ones. Words that name the flag both ways say nothing."""
    from veriweb.verify.wording import flag_words

    assert flag_words("How many messages have I not read yet?", "read") is False
    assert flag_words("How many unread messages are there?", "read") is False
    assert flag_words("Mark the message as read", "read") is True
    assert flag_words("Star every unstarred message", "starred") is None
    data = _data(generate_site("mail", 0))
    assert not [i for i in static_issues(from_data(data, check_id=False)) if "the opposite of its words" in i.message]
    task = next(t for t in data["tasks"] if t["id"] == "count_from")
    for key in ("template", "instruction"):  # "... still in the Inbox, those I have not read yet."
        task[key] = task[key].rstrip("?.") + ", those I have not read yet."
    condition = {"column": "read", "value": True}
    task["answer"]["value"]["query"]["where"].append(condition)
    site = from_data(data, check_id=False)
    found = [i for i in static_issues(site) if "the opposite of its words" in i.message]
    assert len(found) == 1 and found[0].code == "M016" and found[0].location.endswith(".value")
    fixed = next(t for t in _data(repair_static(site)[0])["tasks"] if t["id"] == "count_from")
    assert {"column": "read", "value": False} in [{k: c.get(k) for k in ("column", "value")}
                                                   for c in fixed["answer"]["value"]["query"]["where"]]

"""Checks against hand-made defects written unlike the injector's, and real text that only looks like one.

Each case edits a clean generated site the way a person (or another generator) might: a stored
"N/A" or "[product name]", a "Keep order" button on a marker that cancels, an order number no
order has, a booking reference used twice in a table kept per user. Each has a twin that must
stay clean: "Untitled Goose Plush Toy" is a real name, and a total that a discount column on its
own row explains is not a wrong total.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from veriweb.generate.site import generate_site
from veriweb.scaffold.io import from_data, to_data
from veriweb.scaffold.site import render_instruction
from veriweb.verify.checks import Issue, static_issues
from veriweb.verify.mutation_walk import elements, marker_forms, table

Data = dict[str, Any]


@pytest.fixture(scope="module")
def clean() -> dict[str, Data]:
    return {domain: to_data(generate_site(domain, 0)) for domain in ("shop", "admin", "forum", "travel")}


def found(data: Data, edit: Callable[[Data], None]) -> list[Issue]:
    mutated = copy.deepcopy(data)
    edit(mutated)
    return static_issues(from_data(mutated, check_id=False))


def at(issues: list[Issue], code: str, location: str) -> bool:
    return any(i.code == code and i.location.startswith(location) for i in issues)


def _set_row(table_name: str, column: str, value: Any, row: int = 0) -> Callable[[Data], None]:
    def edit(data: Data) -> None:
        tbl, _ = table(data, table_name)
        tbl["rows"][row][column] = value
    return edit


@pytest.mark.parametrize("value", ["N/A", "[product name]", "<Insert description>", "TODO: write this",
                                   "Dolor sit amet, sed do eiusmod tempor."])
def test_a_stored_placeholder_is_reported(clean: dict[str, Data], value: str) -> None:
    _, index = table(clean["shop"], "products")
    issues = found(clean["shop"], _set_row("products", "description", value, row=2))
    assert at(issues, "M001", f"$.database.tables[{index}].rows[2].description")


@pytest.mark.parametrize("value", ["Untitled Goose Plush Toy", "The TODO list widget drops items after a reload",
                                   "Why does my query return NULL for dates?", "Fails on undefined variables",
                                   "[Selling] Refurbished trail running shoes"])
def test_real_text_with_a_placeholder_word_is_not_reported(clean: dict[str, Data], value: str) -> None:
    issues = found(clean["shop"], _set_row("products", "description", value, row=2))
    assert not [i for i in issues if i.code == "M001"], [(i.location, i.message) for i in issues]


def test_an_insert_here_note_on_a_page_is_reported(clean: dict[str, Data]) -> None:
    data = copy.deepcopy(clean["shop"])
    path = next(p for node, p, page, _ in elements(data) if page is not None and node.get("type") == "text"
                and node.get("text", "").strip() and "{" not in node["text"])

    def edit(mutated: Data) -> None:
        node = next(n for n, p, _, _ in elements(mutated) if p == path)
        node["text"] = "<Insert company history>"
    assert at(found(data, edit), "M001", path)


def _discounted(explained: bool) -> Callable[[Data], None]:
    """Orders get a money ``discount`` column; order 0's total drops by 12.34, with (or without) its
    discount saying so."""
    def edit(data: Data) -> None:
        orders, _ = table(data, "orders")
        total = next(c for c in orders["columns"] if c["name"] == "total")
        orders["columns"].append(dict(copy.deepcopy(total), name="discount", nullable=True))
        for row in orders["rows"]:
            row["discount"] = None
        orders["rows"][0]["total"] -= 1234
        if explained:
            orders["rows"][0]["discount"] = 1234
    return edit


def test_a_total_its_own_discount_explains_is_not_reported_and_one_it_does_not_is(clean: dict[str, Data]) -> None:
    _, index = table(clean["shop"], "orders")
    assert not at(found(clean["shop"], _discounted(True)), "C004", f"$.database.tables[{index}]")
    assert at(found(clean["shop"], _discounted(False)), "C004", f"$.database.tables[{index}].rows[0].total")


def test_an_express_total_charging_the_standard_fee_is_reported_and_recomputed(clean: dict[str, Data]) -> None:
    """C004 (set eight): an express order whose total carries the standard fee, which other orders charge,
    is off: the shipping method sets the fee. The repair recomputes it with the express fee."""
    from veriweb.verify.repair import repair_static

    orders, index = table(clean["shop"], "orders")
    row = next(n for n, r in enumerate(orders["rows"]) if r["shipping"] == "express")
    fees = {r["shipping"]: None for r in orders["rows"]}
    assert len(fees) == 2  # standard and express, each with its own fee

    def cheaper(data: Data) -> None:
        table(data, "orders")[0]["rows"][row]["total"] -= 1000  # express 15.00 -> standard 5.00

    assert at(found(clean["shop"], cheaper), "C004", f"$.database.tables[{index}].rows[{row}].total")
    mutated = copy.deepcopy(clean["shop"])
    cheaper(mutated)
    fixed, _, _, _, _ = repair_static(from_data(mutated, check_id=False))
    assert fixed.database.table("orders").rows[row]["total"] == orders["rows"][row]["total"]


def test_a_fee_some_rows_of_every_status_pay_is_not_set_by_the_status() -> None:
    """C004 (clean generated sites, seeds 777 and 4242): a fee charged at random, with a status whose
    few rows split (one of two, or two of three, paying it), does not make the status decide the
    fee; a shipping method whose rows all agree does."""
    from veriweb.verify.checks import deciding_columns

    rows = ([{"id": n, "status": "complete", "total": 100 + (599 if n % 10 == 0 else 0)} for n in range(40)]
            + [{"id": 40, "status": "canceled", "total": 100}, {"id": 41, "status": "canceled", "total": 100},
               {"id": 42, "status": "pending", "total": 699}, {"id": 43, "status": "pending", "total": 100}])
    assert deciding_columns([("status", "text")], rows, "id", {r["id"]: 100 for r in rows}) == []
    rows[43]["total"] = 699  # now two of three pending orders pay it: still too few rows to tell
    rows.append({"id": 44, "status": "pending", "total": 100})
    sums = {r["id"]: 100 for r in rows}
    assert deciding_columns([("status", "text")], rows, "id", sums) == []
    shipped = [{**r, "status": "express" if r["total"] > 100 else "standard"} for r in rows]
    assert deciding_columns([("status", "text")], shipped, "id", sums) == ["status"]


@pytest.mark.parametrize("duration, length, wrong", [(None, "4h 15m", True), (170, "2h 50m", False)])
def test_a_length_written_out_unlike_its_duration_is_reported_and_rewritten(
        clean: dict[str, Data], duration: int | None, length: str, wrong: bool) -> None:
    """C004 (set eight): a flight service whose length says another time than its duration, where every
    other row writes its duration out. A row whose duration and length change together stays clean."""
    from veriweb.verify.checks_data import written_as
    from veriweb.verify.repair import repair_static

    services, index = table(clean["travel"], "services")
    row = services["rows"][0]
    assert row["length"] in (written_as(row["duration"], "{h}h {m:02d}m"), written_as(row["duration"], "{h}h {m}m"))

    def edit(data: Data) -> None:
        edited = table(data, "services")[0]["rows"][0]
        edited["length"] = length
        if duration is not None:
            edited["duration"] = duration

    assert at(found(clean["travel"], edit), "C004", f"$.database.tables[{index}].rows[0].length") == wrong
    if wrong:
        mutated = copy.deepcopy(clean["travel"])
        edit(mutated)
        fixed, _, _, _, _ = repair_static(from_data(mutated, check_id=False))
        assert fixed.database.table("services").rows[0]["length"] == row["length"]


def _order_slot(value: int | None) -> Callable[[Data], None]:
    def edit(data: Data) -> None:
        task = next(t for t in data["tasks"] if t["id"] == "refund_line")
        if value is not None:
            task["slots"]["order"] = value
            task["instruction"] = render_instruction(task["template"], task["slots"])
    return edit


def test_a_number_slot_naming_no_row_is_reported(clean: dict[str, Data]) -> None:
    """"Refund a line of order 999999": the goal looks the order up by key (``refunds.order_id``)."""
    number = next(n for n, t in enumerate(clean["admin"]["tasks"]) if t["id"] == "refund_line")
    assert at(found(clean["admin"], _order_slot(999999)), "M005", f"$.tasks[{number}].slots.order")
    assert not at(found(clean["admin"], _order_slot(None)), "M005", f"$.tasks[{number}]")


@pytest.mark.parametrize(("domain", "marker", "label", "wrong"), [
    ("shop", "cancel_order", "Keep order", True), ("shop", "cancel_order", "Save", True),
    ("shop", "cancel_order", "Cancel this order", False), ("forum", "join", "Leave", True),
    ("forum", "leave", "Join", True), ("forum", "leave", "Leave community", False),
])
def test_a_button_whose_verb_contradicts_its_markers_name(clean: dict[str, Data], domain: str, marker: str,
                                                          label: str, wrong: bool) -> None:
    data = copy.deepcopy(clean[domain])
    path = next(p for _, p, _, m in marker_forms(data) if m["name"] == marker)

    def edit(mutated: Data) -> None:
        form = next(f for f, p, _, _ in marker_forms(mutated) if p == path)
        form["submit"] = label
    assert at(found(data, edit), "M003", f"{path}.submit") is wrong


def test_a_reference_used_twice_in_a_table_kept_per_user_is_reported(clean: dict[str, Data]) -> None:
    bookings, index = table(clean["travel"], "bookings")
    assert bookings is not None and len(bookings["rows"]) >= 5
    twin = bookings["rows"][0]["reference"]
    issues = found(clean["travel"], _set_row("bookings", "reference", twin, row=3))
    assert at(issues, "C002", f"$.database.tables[{index}].rows[3].reference")


def _book_flight(invariant: str | None, effect: str | None = None) -> Callable[[Data], None]:
    def edit(data: Data) -> None:
        marker = next(m for m in data["markers"] if m["name"] == "book_flight")
        if invariant is None:
            marker["invariants"] = []
        else:
            marker["invariants"][0]["predicate"]["sql"] = invariant
        if effect is not None:
            seats = next(e for e in marker["effects"] if "seats" in e["sql"])
            seats["sql"] = effect
    return edit


@pytest.mark.parametrize(("invariant", "effect", "unbounded"), [
    ("SELECT NOT EXISTS (SELECT 1 FROM flights WHERE seats > 100000)", None, True),  # names seats, bounds nothing
    ("SELECT NOT EXISTS (SELECT 1 FROM flights WHERE seats IS NULL)", None, True),
    (None, "UPDATE flights SET seats = (seats - :passengers) WHERE id = :flight_id", True),
    (None, "UPDATE flights SET seats = seats + (0 - :passengers) WHERE id = :flight_id", True),
    ("SELECT NOT EXISTS (SELECT 1 FROM flights f WHERE f.seats < 0)", None, False),
    ("SELECT NOT EXISTS (SELECT 1 FROM flights WHERE \"seats\" < 0)",
     "UPDATE flights SET seats = (seats - :passengers) WHERE id = :flight_id", False),
])
def test_a_counter_taken_down_needs_a_check_that_bounds_it(clean: dict[str, Data], invariant: str | None,
                                                           effect: str | None, unbounded: bool) -> None:
    index = next(n for n, m in enumerate(clean["travel"]["markers"]) if m["name"] == "book_flight")
    assert at(found(clean["travel"], _book_flight(invariant, effect)), "C005", f"$.markers[{index}]") is unbounded


def _group_options(keep: Callable[[str], bool]) -> Callable[[Data], None]:
    def edit(data: Data) -> None:
        form = next(f for f, _, _, m in marker_forms(data) if m["name"] == "set_customer_group")
        field = next(f for f in form["fields"] if f["name"] == "customer_group")
        field["options"] = [o for o in field["options"] if keep(o["value"])]
    return edit


def test_a_goal_value_no_form_can_send_is_a_missing_control(clean: dict[str, Data]) -> None:
    """"Move the customer to VIP" where the only drop-down that sets the group lost its "VIP" option; the
    same form with every option, or without an option no task needs, is fine."""
    data = clean["admin"]
    number = next(n for n, t in enumerate(data["tasks"]) if t["id"] == "customer_group")
    form = next(f for f, _, _, m in marker_forms(data) if m["name"] == "set_customer_group")
    options = [o["value"] for o in next(f for f in form["fields"] if f["name"] == "customer_group")["options"]]
    needed = next(v for v in options if any(v == str(s) for s in data["tasks"][number]["slots"].values()))
    spare = next(v for v in options if v != needed and v)
    assert at(found(data, _group_options(lambda v: v != needed)), "M007", f"$.tasks[{number}].goal")
    assert not at(found(data, _group_options(lambda v: v != spare)), "M007", f"$.tasks[{number}]")
    assert not at(found(data, _group_options(lambda v: True)), "M007", f"$.tasks[{number}]")


def test_a_blank_name_a_list_links_by_and_a_blank_option_are_empty_labels_and_are_restored(
        clean: dict[str, Data]) -> None:
    """A category whose name is "" (the home page links each category by ``{row.name}``), and a
    shipping option with no words: both are M002, and repair gives them words from the data."""
    from veriweb.verify.repair import repair_static

    _, index = table(clean["shop"], "categories")
    issues = found(clean["shop"], _set_row("categories", "name", "  ", row=1))
    assert at(issues, "M002", f"$.database.tables[{index}].rows[1].name")
    data = copy.deepcopy(clean["shop"])
    form, path = next((f, p) for f, p, _, m in marker_forms(data) if m["name"] == "place_order")
    number, field = next((n, f) for n, f in enumerate(form["fields"]) if len(f.get("options") or []) >= 2)
    field["options"][1]["label"] = ""
    where = f"{path}.fields[{number}].options[1].label"
    broken = from_data(data, check_id=False)
    assert at(static_issues(broken), "M002", where)
    fixed, repairs = repair_static(broken)[:2]
    assert [(r.code, r.location) for r in repairs] == [("M002", where)]
    assert static_issues(fixed) == []
    restored = to_data(fixed)
    form = next(f for f, p, _, _ in marker_forms(restored) if p == path)
    assert form["fields"][number]["options"][1]["label"].strip()


SAID = [  # (domain, seed, the form's marker, what is edited, the text, where the issue is, the repair's result)
    ("admin", 0, "cancel_order", "submit", "Mark as shipped", "submit", "Cancel order"),
    ("admin", 0, "cancel_order", "success_message", "The order has been marked as shipped.", "action.success_message",
     "Done."),
    ("mail", 0, "delete_contact", "success_message", "Contact restored.", "action.success_message", "Done."),
    ("code", 0, "merge_mr", "title", "Delete this merge request?", "confirm.title", "Merge mr?"),
    ("mail", 0, "toggle_read", "submit", "Mark as read", "submit", "Toggle read"),
]


@pytest.mark.parametrize("domain, seed, name, field, text, where, fixed_text", SAID,
                         ids=[f"{s[2]}:{s[3]}" for s in SAID])
def test_what_a_form_says_against_its_marker(domain: str, seed: int, name: str, field: str, text: str, where: str,
                                             fixed_text: str) -> None:
    """M003 (set nine): a cancel button saying "Mark as shipped" (a status its marker does not set), a
    success message or a dialog title saying what the marker does not do ("Contact restored." after a
    delete; "Delete this merge request?" before a merge), a read toggle with one fixed text. The repair
    puts words that cannot contradict the marker. Twin: the unedited site (and the 2,030 clean sites of
    the seed sweep) report none of these."""
    from veriweb.verify.checks_meaning import check_label_meaning
    from veriweb.verify.repair import repair_static

    data = to_data(generate_site(domain, seed))
    data.pop("id", None)
    assert check_label_meaning(from_data(data, check_id=False)) == []
    form, path = next((f, p) for f, p, _, m in marker_forms(data) if m["name"] == name)
    holder = form["action"] if field == "success_message" else form["confirm"] if field == "title" else form
    holder[field] = text
    issues = check_label_meaning(from_data(data, check_id=False))
    assert [(i.code, i.location) for i in issues] == [("M003", f"{path}.{where}")]
    fixed, _, _, left, _ = repair_static(from_data(data, check_id=False))
    assert left == []
    form = next(f for f, p, _, _ in marker_forms(to_data(fixed)) if p == path)
    holder = form["action"] if field == "success_message" else form["confirm"] if field == "title" else form
    assert holder[field] == fixed_text


@pytest.mark.parametrize("label", ["Decline", "Close without merging"])
def test_a_form_saying_what_a_sibling_marker_does_runs_that_marker(label: str) -> None:
    """M003 (set nine): the "Decline" form under "Close this merge request without merging?" posting to
    ``merge_mr`` (its button says the opposite, its dialog says merging is not done; or a button "Close
    without merging"): the form runs ``close_mr``, the one marker its words name."""
    from veriweb.verify.checks_meaning import check_label_meaning
    from veriweb.verify.repair import repair_static

    data = to_data(generate_site("code", 0))
    data.pop("id", None)
    form, path = next((f, p) for f, p, _, m in marker_forms(data) if m["name"] == "close_mr")
    assert form["submit"] == "Decline" and "without merging" in form["confirm"]["title"]
    form["action"]["marker"], form["submit"] = "merge_mr", label
    issues = check_label_meaning(from_data(data, check_id=False))
    assert sorted((i.code, i.location) for i in issues) == [("M003", f"{path}.confirm.title"), ("M003", f"{path}.submit")]
    fixed, _, _, left, _ = repair_static(from_data(data, check_id=False))
    assert left == [] and next(f for f, p, _, _ in marker_forms(to_data(fixed)) if p == path)["action"]["marker"] == "close_mr"


def test_a_text_written_through_a_date_input() -> None:
    """S013 (set nine): the compose form's Subject field made a date input, though ``send_email.subject``
    is text that names no day: no subject can be typed. The repair makes it a text box again. Twin: the
    unedited form."""
    from veriweb.verify.checks_pages import check_field_types
    from veriweb.verify.repair import repair_static

    data = to_data(generate_site("mail", 0))
    data.pop("id", None)
    form, path = next((f, p) for f, p, _, m in marker_forms(data) if m["name"] == "send_email")
    number = next(n for n, f in enumerate(form["fields"]) if f["name"] == "subject")
    assert check_field_types(from_data(data, check_id=False)) == []
    form["fields"][number]["type"] = "date"
    issues = check_field_types(from_data(data, check_id=False))
    assert [(i.code, i.location) for i in issues] == [("S013", f"{path}.fields[{number}].type")]
    fixed, _, _, left, _ = repair_static(from_data(data, check_id=False))
    assert left == [] and next(f for f, p, _, _ in marker_forms(to_data(fixed)) if p == path)["fields"][number]["type"] != "date"


def test_an_insert_writing_two_parameters_into_each_others_columns() -> None:
    """C013 (set nine): ``comment`` inserting ``:user_id`` into ``notes.issue_id`` and ``:issue_id`` into
    ``notes.author_id``. The repair swaps them back. Twin: the unedited insert."""
    from veriweb.verify.checks_views import check_view_figures
    from veriweb.verify.repair import repair_static

    data = to_data(generate_site("code", 0))
    data.pop("id", None)
    m_index, marker = next((n, m) for n, m in enumerate(data["markers"]) if m["name"] == "comment")
    unedited = marker["effects"][0]["sql"]
    assert "VALUES (:issue_id, :user_id," in unedited and check_view_figures(from_data(data, check_id=False)) == []
    marker["effects"][0]["sql"] = unedited.replace("VALUES (:issue_id, :user_id,", "VALUES (:user_id, :issue_id,")
    issues = check_view_figures(from_data(data, check_id=False))
    assert [(i.code, i.location) for i in issues] == [("C013", f"$.markers[{m_index}].effects[0].sql")]
    fixed, _, _, left, _ = repair_static(from_data(data, check_id=False))
    assert left == [] and to_data(fixed)["markers"][m_index]["effects"][0]["sql"] == unedited


@pytest.mark.parametrize("shown", ["Processing", "Shipped"])
def test_a_fixed_status_typed_into_a_records_text(shown: str) -> None:
    """M009 (set nine): the order page's "Status: {row.status|title}" typed out as "Status: Processing"
    (a word no order has) or "Status: Shipped" (one of the values): every order shows it. The repair
    reads the row's status again. Twin: the unedited page."""
    from veriweb.verify.checks_pages import check_literal_amounts
    from veriweb.verify.repair import repair_static

    data = to_data(generate_site("shop", 0))
    data.pop("id", None)
    node, path = next((n, p) for n, p, _, _ in elements(data) if n.get("text") == "Status: {row.status|title}")
    assert check_literal_amounts(from_data(data, check_id=False)) == []
    node["text"] = f"Status: {shown}"
    issues = check_literal_amounts(from_data(data, check_id=False))
    assert [(i.code, i.location) for i in issues] == [("M009", f"{path}.text")]
    fixed, _, _, left, _ = repair_static(from_data(data, check_id=False))
    assert left == [] and next(n for n, p, _, _ in elements(to_data(fixed)) if p == path)["text"] == "Status: {row.status}"

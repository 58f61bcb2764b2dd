"""Checks against a second set of hand-made defects, each with a twin that must stay clean, and the
repairs that fix them.

The defects are of forms the injector does not write: a page titled "Page Title", a drop-down option
called "Option 2", an airline called "Airline Name", "Restore" on a marker that trashes, a quantity
slot of 2 judged against 1, an answer read from a table that is not there, two folders named "Inbox"
of one user, an issue closed before it was opened, a merged request with no merge date, a stay whose
nights disagree with its dates, an email filed in another user's folder, a reply to no email, and a
link only a dialog nothing opens can show.
"""

from __future__ import annotations

import copy
import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest

from veriweb.generate.site import generate_site
from veriweb.scaffold.io import from_data, to_data
from veriweb.scaffold.site import render_instruction
from veriweb.verify.checks import Issue, static_issues
from veriweb.verify.mutation_walk import elements, marker_forms, table
from veriweb.verify.repair import repair_static

Data = dict[str, Any]
Edit = Callable[[Data], None]


@pytest.fixture(scope="module")
def clean() -> dict[str, Data]:
    return {domain: to_data(generate_site(domain, 0)) for domain in ("shop", "forum", "code", "travel", "mail")}


def found(data: Data, edit: Edit) -> list[Issue]:
    mutated = copy.deepcopy(data)
    edit(mutated)
    return static_issues(from_data(mutated, check_id=False))


def at(issues: list[Issue], code: str, location: str) -> bool:
    return any(i.code == code and i.location.startswith(location) for i in issues)


def repaired(data: Data, edit: Edit) -> list[Issue]:
    """The issues left once the repairs have run on the edited site."""
    mutated = copy.deepcopy(data)
    edit(mutated)
    return static_issues(repair_static(from_data(mutated, check_id=False))[0])


def found_then_fixed(data: Data, edit: Edit, code: str, where: str, around: str) -> None:
    """The edit is reported as ``code`` at ``where``, and nothing of that code is left ``around`` it
    once the repairs have run."""
    assert at(found(data, edit), code, where)
    assert not at(repaired(data, edit), code, around)


def _rows(data: Data, name: str) -> list[Data]:
    found_table, _ = table(data, name)
    assert found_table is not None, name
    return found_table["rows"]


def _index(data: Data, name: str) -> int:
    _, number = table(data, name)
    assert number is not None
    return number


# ----------------------------------------------------------------------------- placeholders and labels


@pytest.mark.parametrize(("title", "wrong"), [("Page Title", True), ("Communities", False),
                                              ("Page 2 of the rules", False)])
def test_a_page_titled_with_a_placeholder(clean: dict[str, Data], title: str, wrong: bool) -> None:
    number = next(n for n, p in enumerate(clean["forum"]["pages"]) if p["route"] != "/")

    def edit(data: Data) -> None:
        data["pages"][number]["title"] = title
    assert at(found(clean["forum"], edit), "M001", f"$.pages[{number}].title") is wrong


def _option_label(label: str) -> tuple[str, Edit]:
    def first_option(data: Data) -> tuple[Data, str]:
        for form, path, _, _ in marker_forms(data):
            for f_index, field_el in enumerate(form.get("fields", [])):
                for o_index, option in enumerate(field_el.get("options") or []):
                    if str(option.get("value", "")).strip():
                        return option, f"{path}.fields[{f_index}].options[{o_index}].label"
        raise AssertionError("no option with a value")

    def edit(data: Data) -> None:
        first_option(data)[0]["label"] = label
    return first_option(copy.deepcopy(CLEAN_SHOP))[1], edit


CLEAN_SHOP = to_data(generate_site("shop", 0))


@pytest.mark.parametrize(("label", "wrong"), [("Option 2", True), ("Tab 3", True), ("Express (2 days)", False),
                                              ("Page 2", False)])
def test_an_option_with_a_generic_label(label: str, wrong: bool) -> None:
    path, edit = _option_label(label)
    assert at(found(CLEAN_SHOP, edit), "M001", path) is wrong


@pytest.mark.parametrize(("value", "wrong"), [("Airline Name", True), ("Name", True), ("Nordic Air", False),
                                              ("Name Brand Air", False)])
def test_a_stored_value_that_only_names_its_column(clean: dict[str, Data], value: str, wrong: bool) -> None:
    number = _index(clean["travel"], "airlines")

    def edit(data: Data) -> None:
        _rows(data, "airlines")[1]["name"] = value
    assert at(found(clean["travel"], edit), "M001", f"$.database.tables[{number}].rows[1].name") is wrong


def test_a_bracketed_capital_slot_in_prose_is_reported_and_a_tag_is_not(clean: dict[str, Data]) -> None:
    data = clean["forum"]
    path = next(p for node, p, page, _ in elements(data) if page is not None and node.get("type") == "text"
                and node.get("text", "").strip() and "{" not in node["text"])

    def prose(text: str) -> Edit:
        def edit(mutated: Data) -> None:
            next(n for n, p, _, _ in elements(mutated) if p == path)["text"] = text
        return edit
    assert at(found(data, prose("Founded in [YEAR] by [FOUNDER NAME].")), "M001", path)
    number = _index(data, "posts")

    def tagged(mutated: Data) -> None:
        _rows(mutated, "posts")[0]["title"] = "[SOLD] Trail running shoes, size 42"
    assert not at(found(data, tagged), "M001", f"$.database.tables[{number}]")


def test_a_blank_tab_label_and_a_blank_header_over_data(clean: dict[str, Data]) -> None:
    data = clean["travel"]
    tabs = next((n, p) for n, p, _, _ in elements(data) if n.get("type") == "tabs")
    tables = next((n, p) for n, p, _, _ in elements(data) if n.get("type") == "table"
                  and any("{row." in str(c["cell"]) for c in n["columns"]))
    column = next(i for i, c in enumerate(tables[0]["columns"]) if "{row." in str(c["cell"]))

    def blank(mutated: Data) -> None:
        by_path = {p: n for n, p, _, _ in elements(mutated)}
        by_path[tabs[1]]["tabs"][0]["label"] = " "
        by_path[tables[1]]["columns"][column]["header"] = ""
    issues = found(data, blank)
    assert at(issues, "M002", f"{tabs[1]}.tabs[0].label")
    assert at(issues, "M002", f"{tables[1]}.columns[{column}].header")
    assert not at(found(data, lambda d: None), "M002", tables[1])


def test_a_blank_value_a_drop_down_shows_as_an_option(clean: dict[str, Data]) -> None:
    number = _index(clean["code"], "labels")

    def blank(data: Data) -> None:
        _rows(data, "labels")[0]["name"] = ""
    assert at(found(clean["code"], blank), "M002", f"$.database.tables[{number}].rows[0].name")


@pytest.mark.parametrize(("domain", "marker", "label", "wrong"), [
    ("mail", "trash_email", "Restore", True), ("mail", "trash_email", "Move to Deleted items", False),
    ("code", "merge_mr", "Close", True), ("code", "merge_mr", "Merge", False),
    ("code", "unstar", "Remove star", False), ("code", "unstar", "Star", True),
])
def test_a_button_saying_the_opposite_of_its_markers_verb(clean: dict[str, Data], domain: str, marker: str,
                                                          label: str, wrong: bool) -> None:
    data = clean[domain]
    path = next(p for _, p, _, m in marker_forms(data) if m["name"] == marker)

    def edit(mutated: Data) -> None:
        next(f for f, p, _, _ in marker_forms(mutated) if p == path)["submit"] = label
    assert at(found(data, edit), "M003", f"{path}.submit") is wrong
    if wrong:
        assert not at(repaired(data, edit), "M003", path)


# ----------------------------------------------------------------------------- tasks


def test_a_number_slot_the_goal_fixes_to_another_number(clean: dict[str, Data]) -> None:
    """"Add 2 of them to the cart", with the goal's ``qty = :qty`` written out as ``qty = 1``."""
    data = clean["shop"]

    def conditions(task: Data) -> list[Data]:
        return [c for p in task.get("goal", []) for c in (p.get("query") or {}).get("where", [])]
    number, task, name = next((n, t, s) for n, t in enumerate(data["tasks"]) for s, v in t.get("slots", {}).items()
                              if isinstance(v, int) and not isinstance(v, bool) and any(
                                  c.get("column") == s and c.get("value") == {"ref": f"slot.{s}"}
                                  for c in conditions(t)))
    value = task["slots"][name]

    def literal(fixed: int) -> Edit:
        def edit(mutated: Data) -> None:
            for cond in conditions(mutated["tasks"][number]):
                if cond.get("column") == name:
                    cond["value"] = fixed
        return edit
    assert at(found(data, literal(value + 1)), "M016", f"$.tasks[{number}].slots.{name}")
    assert not at(found(data, literal(value)), "M016", f"$.tasks[{number}]")


def test_an_answer_read_from_a_missing_table_is_reported_and_the_task_dropped(clean: dict[str, Data]) -> None:
    data = clean["shop"]
    number = next(n for n, t in enumerate(data["tasks"]) if t["kind"] == "retrieve"
                  and isinstance((t.get("answer") or {}).get("value"), dict) and "query" in t["answer"]["value"])
    task_id = data["tasks"][number]["id"]

    def edit(mutated: Data) -> None:
        mutated["tasks"][number]["answer"]["value"]["query"]["table"] = "monthly_figures"
    assert at(found(data, edit), "S005", f"$.tasks[{number}].answer.value.query.table")
    mutated = copy.deepcopy(data)
    edit(mutated)
    fixed = repair_static(from_data(mutated, check_id=False))[0]
    assert task_id not in {t.id for t in fixed.tasks}
    assert not [i for i in static_issues(fixed) if i.code == "S005"]


# ----------------------------------------------------------------------------- keys


def test_a_code_used_twice_is_reported(clean: dict[str, Data]) -> None:
    number = _index(clean["travel"], "cities")

    def edit(data: Data) -> None:
        rows = _rows(data, "cities")
        rows[3]["code"] = rows[2]["code"]
    assert at(found(clean["travel"], edit), "C002", f"$.database.tables[{number}].rows[3].code")
    assert not at(repaired(clean["travel"], edit), "C002", f"$.database.tables[{number}]")


def test_a_name_one_owner_uses_twice_is_reported_and_one_two_owners_share_is_not(clean: dict[str, Data]) -> None:
    data = clean["mail"]
    number = _index(data, "folders")
    rows = _rows(data, "folders")
    mine = [i for i, r in enumerate(rows) if r["user_id"] == rows[0]["user_id"]]
    other = next(i for i, r in enumerate(rows) if r["user_id"] != rows[0]["user_id"] and r["name"] != rows[0]["name"])

    def twice(mutated: Data) -> None:
        _rows(mutated, "folders")[mine[-1]]["name"] = rows[0]["name"]

    def shared(mutated: Data) -> None:
        _rows(mutated, "folders")[other]["name"] = rows[0]["name"] + " archive"
        _rows(mutated, "folders")[mine[-1]]["name"] = rows[0]["name"] + " archive"
    assert at(found(data, twice), "C002", f"$.database.tables[{number}].rows[{mine[-1]}].name")
    assert not at(found(data, shared), "C002", f"$.database.tables[{number}]")


def test_an_email_in_another_users_folder_is_reported_and_repointed(clean: dict[str, Data]) -> None:
    data = clean["mail"]
    number = _index(data, "emails")
    folders = _rows(data, "folders")
    emails = _rows(data, "emails")
    row = next(i for i, e in enumerate(emails) if e.get("folder_id") is not None)
    owner = emails[row]["user_id"]
    foreign = next(f["id"] for f in folders if f["user_id"] != owner)

    def edit(mutated: Data) -> None:
        _rows(mutated, "emails")[row]["folder_id"] = foreign
    found_then_fixed(data, edit, "C001", f"$.database.tables[{number}].rows[{row}].folder_id", f"$.database.tables[{number}]")


def test_a_reply_to_no_email_is_reported_and_repaired(clean: dict[str, Data]) -> None:
    data = clean["mail"]
    number = _index(data, "emails")
    row = next(i for i, e in enumerate(_rows(data, "emails")) if e.get("in_reply_to") is not None)

    def edit(mutated: Data) -> None:
        _rows(mutated, "emails")[row]["in_reply_to"] = 987654
    found_then_fixed(data, edit, "C001", f"$.database.tables[{number}].rows[{row}].in_reply_to", f"$.database.tables[{number}]")


# ----------------------------------------------------------------------------- rules of the rows


def _closed_issue(data: Data) -> int:
    return next(i for i, r in enumerate(_rows(data, "issues")) if r.get("closed_on"))


def test_an_issue_closed_before_it_was_opened(clean: dict[str, Data]) -> None:
    data = clean["code"]
    number, row = _index(data, "issues"), _closed_issue(data)

    def edit(mutated: Data) -> None:
        issue = _rows(mutated, "issues")[row]
        issue["closed_on"] = (dt.date.fromisoformat(issue["created"][:10]) - dt.timedelta(days=30)).isoformat()
    found_then_fixed(data, edit, "C010", f"$.database.tables[{number}].rows[{row}].closed_on", f"$.database.tables[{number}]")


def test_a_merged_request_without_a_merge_date(clean: dict[str, Data]) -> None:
    data = clean["code"]
    number = _index(data, "merge_requests")
    row = next(i for i, r in enumerate(_rows(data, "merge_requests")) if r["state"] == "merged")

    def edit(mutated: Data) -> None:
        _rows(mutated, "merge_requests")[row]["merged_on"] = None
    found_then_fixed(data, edit, "C010", f"$.database.tables[{number}].rows[{row}].merged_on", f"$.database.tables[{number}]")


def test_nights_that_disagree_with_the_dates(clean: dict[str, Data]) -> None:
    data = clean["travel"]
    number = _index(data, "stays")

    def moved(days: int, nights: bool) -> Edit:
        def edit(mutated: Data) -> None:
            stay = _rows(mutated, "stays")[1]
            stay["check_out"] = (dt.date.fromisoformat(stay["check_out"]) + dt.timedelta(days=days)).isoformat()
            if nights:
                stay["nights"] += days
        return edit
    assert at(found(data, moved(2, nights=False)), "C004", f"$.database.tables[{number}].rows[1].nights")
    assert not at(found(data, moved(2, nights=True)), "C004", f"$.database.tables[{number}].rows[1].nights")
    left = repaired(data, moved(2, nights=False))
    assert not at(left, "C004", f"$.database.tables[{number}].rows[1].nights")


def test_no_row_rule_fires_on_clean_sites() -> None:
    for domain in ("shop", "admin", "forum", "code", "travel", "mail"):
        for seed in (1, 2):
            issues = static_issues(generate_site(domain, seed))
            assert not issues, (domain, seed, [(i.code, i.location, i.message) for i in issues][:5])


# ----------------------------------------------------------------------------- reachability


def _unlinked(route: str) -> Edit:
    """Every link to ``route`` removed, from the pages and the layout."""
    def edit(mutated: Data) -> None:
        def keep(e: Any) -> bool:
            return not (e.get("type") == "link" and e.get("href") == route)
        for node, _, _, _ in list(elements(mutated)):
            for key in ("elements", "items", "item"):
                if isinstance(node.get(key), list):
                    node[key] = [e for e in node[key] if keep(e)]
        for page in mutated["pages"]:
            page["elements"] = [e for e in page["elements"] if keep(e)]
        for part in ("header", "footer"):
            mutated["layout"][part] = [e for e in mutated["layout"][part] if keep(e)]
    return edit


def test_a_page_linked_only_from_a_dialog_nothing_opens(clean: dict[str, Data]) -> None:
    data = clean["travel"]
    number, route = next((n, p["route"]) for n, p in enumerate(data["pages"]) if p["route"] != "/"
                         and "{" not in p["route"] and at(found(data, _unlinked(p["route"])), "S002", f"$.pages[{n}]"))

    def in_dialog(opened: bool) -> Edit:
        def edit(mutated: Data) -> None:
            _unlinked(route)(mutated)
            mutated["pages"][0]["elements"].append({"type": "dialog", "id": "more_help", "title": "More", "elements": [
                {"type": "link", "text": "Read more", "href": route}]})
            if opened:
                mutated["pages"][0]["elements"].append({"type": "button", "text": "More", "action": "open",
                                                        "target": "more_help"})
        return edit
    assert at(found(data, in_dialog(opened=False)), "S002", f"$.pages[{number}]")
    assert not at(found(data, in_dialog(opened=True)), "S002", f"$.pages[{number}]")


# ----------------------------------------------------------------------------- repairs of wrong names


def test_a_link_over_a_view_passing_the_wrong_key_is_repointed(clean: dict[str, Data]) -> None:
    """The issue page's link to its project passes the issue's id (the list reads a view)."""
    data = clean["code"]
    path = next(p for n, p, _, _ in elements(data) if n.get("type") == "link"
                and n.get("href") == "/projects/{row.project_id}")

    def edit(mutated: Data) -> None:
        next(n for n, p, _, _ in elements(mutated) if p == path)["href"] = "/projects/{row.id}"
    assert at(found(data, edit), "S011", f"{path}.href")
    mutated = copy.deepcopy(data)
    edit(mutated)
    fixed = to_data(repair_static(from_data(mutated, check_id=False))[0])
    assert next(n for n, p, _, _ in elements(fixed) if p == path)["href"] == "/projects/{row.project_id}"


def test_an_option_list_reading_a_missing_table_takes_the_table_its_field_names(clean: dict[str, Data]) -> None:
    data = clean["code"]
    form, path = next((f, p) for f, p, _, m in marker_forms(data) if m["name"] == "create_issue")
    number = next(i for i, f in enumerate(form["fields"]) if (f.get("options_query") or {}).get("query", {}).get(
        "table") == "labels")

    def edit(mutated: Data) -> None:
        moved = next(f for f, p, _, _ in marker_forms(mutated) if p == path)
        moved["fields"][number]["options_query"]["query"]["table"] = "tags"
    assert at(found(data, edit), "S005", f"{path}.fields[{number}].options_query.query.table")
    mutated = copy.deepcopy(data)
    edit(mutated)
    fixed = to_data(repair_static(from_data(mutated, check_id=False))[0])
    repaired_form = next(f for f, p, _, m in marker_forms(fixed) if m["name"] == "create_issue")
    assert repaired_form["fields"][number]["options_query"]["query"]["table"] == "labels"


def test_a_form_argument_reading_a_column_its_row_lacks_reads_the_rows_key(clean: dict[str, Data]) -> None:
    data = clean["mail"]
    path, name = next((p, k) for f, p, _, _ in marker_forms(data)
                      for k, v in f["action"].get("args", {}).items() if v == {"ref": "row.id"})

    def edit(mutated: Data) -> None:
        next(f for f, p, _, _ in marker_forms(mutated) if p == path)["action"]["args"][name] = {"ref": "row.message_id"}
    assert at(found(data, edit), "S012", f"{path}.action.args.{name}")
    mutated = copy.deepcopy(data)
    edit(mutated)
    fixed = to_data(repair_static(from_data(mutated, check_id=False))[0])
    assert next(f for f, p, _, _ in marker_forms(fixed) if p == path)["action"]["args"][name] == {"ref": "row.id"}


def test_a_link_row_that_can_be_added_twice_is_reported_and_guarded(clean: dict[str, Data]) -> None:
    """add_label without the check that the issue has that tag already: issue_labels would hold the
    pair twice, which no seed row does."""
    data = clean["code"]
    number = next(n for n, m in enumerate(data["markers"]) if any(
        e["table"] == "issue_labels" and e["op"] == "insert" and ":issue_id" in e["sql"] for e in m["effects"]))

    def unguarded(mutated: Data) -> None:
        marker = mutated["markers"][number]
        for kind in ("preconditions", "invariants"):
            marker[kind] = [g for g in marker.get(kind, []) if "issue_labels" not in str(g)]
        for effect in marker["effects"]:
            effect["sql"] = effect["sql"].replace("OR IGNORE ", "")
    issues = found(data, unguarded)
    assert any(i.code == "C005" and i.location.startswith(f"$.markers[{number}].effects") for i in issues)
    clean_issues = found(data, lambda d: None)
    assert not any(i.code == "C005" and i.location.startswith(f"$.markers[{number}]") for i in clean_issues)
    assert not any(i.code == "C005" for i in repaired(data, unguarded))


def test_a_column_headed_total_showing_the_refunded_amount(clean: dict[str, Data]) -> None:
    data = to_data(generate_site("admin", 0))
    cell_path, column_path = next((p, p.rsplit(".cell", 1)[0]) for n, p, _, _ in elements(data)
                                  if n.get("type") == "text" and "{row.total|money}" in (n.get("text") or "")
                                  and ".columns[" in p)

    def edit(mutated: Data) -> None:
        node = next(n for n, p, _, _ in elements(mutated) if p == cell_path)
        node["text"] = node["text"].replace("{row.total|money}", "{row.refunded|money}")
    assert at(found(data, edit), "C008", f"{column_path}.header")
    assert not at(found(data, lambda d: None), "C008", column_path)
    assert not at(repaired(data, edit), "C008", column_path)


def test_a_count_typed_without_a_minimum_is_guarded_by_repair() -> None:
    data = to_data(generate_site("admin", 0))
    number, marker = next((n, m) for n, m in enumerate(data["markers"]) if m["name"] == "save_product")
    param = next(i for i, p in enumerate(marker["params"]) if p["name"] == "stock")

    def unbounded(mutated: Data) -> None:
        moved = mutated["markers"][number]
        moved["params"][param].pop("min", None)
        moved["invariants"] = []
    found_then_fixed(data, unbounded, "C005", f"$.markers[{number}].params[{param}]", f"$.markers[{number}]")


def test_a_floor_on_a_counter_the_marker_only_raises_is_vacuous_and_gets_the_seed_rows_ceiling() -> None:
    """refund_order's "refunded <= total" rewritten as "refunded >= 0": refunds could pass the total."""
    data = to_data(generate_site("admin", 0))
    number = next(n for n, m in enumerate(data["markers"]) if m["name"] == "refund_order")
    guard = next(i for i, g in enumerate(data["markers"][number]["invariants"]) if "refunded" in str(g))

    def floor(mutated: Data) -> None:
        mutated["markers"][number]["invariants"][guard]["predicate"] = {
            "kind": "sql", "sql": "SELECT NOT EXISTS (SELECT 1 FROM orders WHERE refunded < 0)"}
    path = f"$.markers[{number}].invariants[{guard}].predicate"
    assert at(found(data, floor), "C009", path)
    assert not at(found(data, lambda d: None), "C009", f"$.markers[{number}]")
    mutated = copy.deepcopy(data)
    floor(mutated)
    fixed = repair_static(from_data(mutated, check_id=False))[0]
    marker = next(m for m in fixed.markers if m.name == "refund_order")
    assert any("refunded > total" in getattr(g.predicate, "sql", "") for g in marker.invariants)


def test_a_view_wording_a_flag_backwards_is_reported_and_swapped(clean: dict[str, Data]) -> None:
    data = clean["travel"]
    number, view = next((n, v) for n, v in enumerate(data["database"]["views"])
                        if "THEN 'Yes' ELSE 'No'" in v["sql"])

    def backwards(mutated: Data) -> None:
        moved = mutated["database"]["views"][number]
        moved["sql"] = moved["sql"].replace("THEN 'Yes' ELSE 'No'", "THEN 'No' ELSE 'Yes'", 1)
    assert at(found(data, backwards), "C006", f"$.database.views[{number}].sql")
    assert not at(found(data, lambda d: None), "C006", "$.database.views")
    mutated = copy.deepcopy(data)
    backwards(mutated)
    fixed = to_data(repair_static(from_data(mutated, check_id=False))[0])
    assert fixed["database"]["views"][number]["sql"] == view["sql"]


@pytest.mark.parametrize(("value", "wrong"), [("Founded in 20XX by Acme.", True), ("Founded in 2019 by Acme.", False),
                                              ("None", True), ("None of the tabs restore their order", False),
                                              ("Replace lorem ipsum in the onboarding emails", False),
                                              ("Lorem ipsum, dolor sit amet.", True)])
def test_filler_in_a_stored_value(clean: dict[str, Data], value: str, wrong: bool) -> None:
    number = _index(clean["code"], "issues")

    def edit(data: Data) -> None:
        _rows(data, "issues")[0]["title"] = value
    assert at(found(clean["code"], edit), "M001", f"$.database.tables[{number}].rows[0].title") is wrong


def test_a_confirming_dialog_with_no_title_or_its_buttons_swapped() -> None:
    data = to_data(generate_site("shop", 0))
    path = next(p for f, p, _, m in marker_forms(data) if f.get("confirm") and m["name"] == "remove_from_cart")

    def dialog(**changes: str) -> Edit:
        def edit(mutated: Data) -> None:
            next(f for f, p, _, _ in marker_forms(mutated) if p == path)["confirm"].update(changes)
        return edit
    assert at(found(data, dialog(title="")), "M002", f"{path}.confirm.title")
    assert not at(found(data, lambda d: None), "M002", path)
    assert not at(found(data, dialog(confirm="Confirm")), "M003", path)  # "Confirm" agrees to whatever is asked
    swapped = dialog(confirm="Add to cart", cancel="Remove item")
    assert at(found(data, swapped), "M003", f"{path}.confirm.confirm")
    assert not at(repaired(data, swapped), "M003", path)


def test_a_sort_by_a_missing_column_is_reported_and_removed(clean: dict[str, Data]) -> None:
    data = clean["shop"]
    path, count = next((p, len(n["sorts"])) for n, p, _, _ in elements(data) if n.get("sorts")
                       and table(data, n["query"]["table"])[0] is not None)

    def edit(mutated: Data) -> None:
        next(n for n, p, _, _ in elements(mutated) if p == path)["sorts"].append(
            {"key": "popular", "label": "Most popular", "column": "popularity_rank", "dir": "desc"})
    assert at(found(data, edit), "S006", f"{path}.sorts[{count}].column")
    mutated = copy.deepcopy(data)
    edit(mutated)
    fixed = to_data(repair_static(from_data(mutated, check_id=False))[0])
    assert len(next(n for n, p, _, _ in elements(fixed) if p == path)["sorts"]) == count


def test_a_relabelled_button_never_takes_words_the_checks_call_contradictory() -> None:
    """An unlabelled form on ``unsave_post``: "Unsave post" has "post" in it, which sounds like adding."""
    from veriweb.verify.checks_meaning import label_contradicts

    assert label_contradicts("Unsave post", "unsave_post", {"delete"})
    assert not label_contradicts("Delete", "unsave_post", {"delete"})
    assert label_contradicts("Restore", "trash_email", {"update"})
    assert not label_contradicts("Trash email", "trash_email", {"update"})


def test_options_that_write_their_numbers_out_are_repaired_to_the_numbers() -> None:
    """A rating radio sending "one".."five" to an integer parameter: every option is refused (S013);
    the repair sends 1..5 again."""
    data = to_data(generate_site("shop", 3))
    words = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
    path, number, values = next((p, i, [o["value"] for o in f["options"]]) for form, p, _, _ in marker_forms(data)
                                for i, f in enumerate(form.get("fields", []))
                                if len(f.get("options") or []) >= 3 and all(
                                    str(o["value"]).isdigit() and int(o["value"]) <= 10 for o in f["options"]))

    def spelled(mutated: Data) -> None:
        form = next(f for f, p, _, _ in marker_forms(mutated) if p == path)
        for option in form["fields"][number]["options"]:
            option["value"] = words[int(option["value"])]
    assert at(found(data, spelled), "S013", f"{path}.fields[{number}].options")
    mutated = copy.deepcopy(data)
    spelled(mutated)
    fixed = to_data(repair_static(from_data(mutated, check_id=False))[0])
    form = next(f for f, p, _, _ in marker_forms(fixed) if p == path)
    assert [o["value"] for o in form["fields"][number]["options"]] == values


@pytest.mark.parametrize(("domain", "name", "edit_row"), [
    ("shop", "cart_items", lambda row: row.update(qty=14)),
    ("mail", "users", lambda row: row.update(vacation=True, vacation_message="")),
])
def test_a_seed_row_breaking_a_per_user_invariant_is_moved_back_inside_it(domain: str, name: str,
                                                                          edit_row: Callable[[Data], None]) -> None:
    """An invariant over one user's rows (``user_id = :user_id AND qty > 10``): the number or the flag
    that makes it true is set back."""
    data = to_data(generate_site(domain, 3))
    number = _index(data, name)

    def edit(mutated: Data) -> None:
        edit_row(_rows(mutated, name)[1])
    found_then_fixed(data, edit, "C012", f"$.database.tables[{number}].rows[1]", f"$.database.tables[{number}]")


def test_a_row_number_used_twice_in_one_scope(clean: dict[str, Data]) -> None:
    """Two issues of one project both numbered #2; the same number in two projects is right."""
    data = clean["code"]
    number = _index(data, "issues")
    rows = _rows(data, "issues")
    first, second = next((i, j) for i, a in enumerate(rows) for j, b in enumerate(rows)
                         if i < j and a["project_id"] == b["project_id"])
    other = next(j for j, b in enumerate(rows) if b["project_id"] != rows[first]["project_id"])

    def twice(mutated: Data) -> None:
        _rows(mutated, "issues")[second]["number"] = rows[first]["number"]

    def elsewhere(mutated: Data) -> None:
        moved = _rows(mutated, "issues")
        taken = {r["number"] for r in moved if r["project_id"] == moved[other]["project_id"]}
        if rows[first]["number"] not in taken:
            moved[other]["number"] = rows[first]["number"]
    assert at(found(data, twice), "C002", f"$.database.tables[{number}].rows[{second}].number")
    assert not at(found(data, elsewhere), "C002", f"$.database.tables[{number}]")
    assert not at(repaired(data, twice), "C002", f"$.database.tables[{number}]")


def test_a_link_sending_a_name_to_another_kind_of_page_goes_to_the_page_that_looks_it_up() -> None:
    """A post table's "c/{row.forum}" link sent to /u/{row.forum}, a user's profile (looked up by
    username): S011, and the repair sends it to the community page, which looks up forum names."""
    data = to_data(generate_site("forum", 3))
    path, href = next((p, n["href"]) for n, p, _, _ in elements(data) if n.get("type") == "link"
                      and n.get("href", "").startswith("/c/{row.") and n["href"].count("{") == 1)
    profile = next(p["route"] for p in data["pages"] if p["route"].startswith("/u/{"))
    wrong = profile.split("{")[0] + "{" + href.split("{")[1]

    def edit(mutated: Data) -> None:
        next(n for n, p, _, _ in elements(mutated) if p == path)["href"] = wrong
    assert at(found(data, edit), "S011", f"{path}.href")
    mutated = copy.deepcopy(data)
    edit(mutated)
    fixed = to_data(repair_static(from_data(mutated, check_id=False))[0])
    assert next(n for n, p, _, _ in elements(fixed) if p == path)["href"] == href

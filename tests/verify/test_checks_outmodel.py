"""Checks against defects the raw-mode injector never makes (:mod:`veriweb.verify.mutations`).

Every variant, applied to a clean generated site, is reported under its class's code; twin edits
that look alike but break nothing are not; and the new codes (S015, M013-M015) and widened checks
each have a scaffold with the defect and one without.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from veriweb.generate.site import generate_site
from veriweb.scaffold import Site
from veriweb.scaffold.io import from_data, to_data
from veriweb.verify.checks import CHECKS, Issue, static_issues
from veriweb.verify.mutation_walk import elements, marker_forms, table
from veriweb.verify.mutations import EXPECTED, VARIANTS

Data = dict[str, Any]
DOMAINS = ("shop", "admin", "forum", "code", "travel", "mail")


@pytest.fixture(scope="module")
def clean() -> dict[str, Data]:
    return {domain: to_data(generate_site(domain, 0)) for domain in DOMAINS}


def issues_after(data: Data, edit: Callable[[Data], Any]) -> tuple[list[Issue], Any]:
    """The static issues after ``edit`` (none checked when the edit does not apply) and its place."""
    mutated = copy.deepcopy(data)
    where = edit(mutated)
    return (static_issues(from_data(mutated, check_id=False)) if where is not None else []), where


def near(location: str, where: str) -> bool:
    return location == where or location.startswith((where + ".", where + "[")) or where.startswith(
        (location + ".", location + "["))


def test_every_variant_has_a_registered_code() -> None:
    assert {v.name for v in VARIANTS} == set(EXPECTED)
    assert len(VARIANTS) >= 25
    assert all(code in CHECKS for code in EXPECTED.values())


@pytest.mark.parametrize("variant", VARIANTS, ids=[v.name for v in VARIANTS])
def test_variant_is_found_under_its_code(clean: dict[str, Data], variant: Any) -> None:
    for domain in DOMAINS:
        found, where = issues_after(clean[domain], variant.edit)
        if where is None:
            continue
        codes = {i.code for i in found}
        assert EXPECTED[variant.name] in codes, (domain, where, [(i.code, i.location) for i in found])
        if variant.name not in ("line_changed_not_total", "counter_guard_other_column"):  # shows at the total / write
            assert any(near(i.location, where) for i in found if i.code == EXPECTED[variant.name]), (domain, where)
        return
    pytest.fail(f"{variant.name} applies to no domain's seed-0 site")


def test_clean_sites_report_nothing(clean: dict[str, Data]) -> None:
    for domain, data in clean.items():
        assert static_issues(from_data(data, check_id=False)) == [], domain


# ----------------------------------------------------------------------------- twins: alike, not defects


def codes_after(data: Data, edit: Callable[[Data], Any]) -> set[str]:
    found, _ = issues_after(data, edit)
    return {i.code for i in found}


def existing_hidden_id(data: Data) -> str:
    """A form posting a fixed id of a row that exists (a hidden input done right)."""
    for form, path, bound, _ in marker_forms(data):
        for arg, value in form["action"].get("args", {}).items():
            if isinstance(value, dict) and value.get("ref") == "row.id" and bound:
                form["action"]["args"][arg] = table(data, bound)[0]["rows"][0]["id"]
                return path
    raise AssertionError("no form to edit")


def link_named_own_page(data: Data) -> str:
    """A layout link renamed to the title of the page it opens."""
    from veriweb.verify.mutation_walk import resolve

    titles = {p["id"]: p.get("title", "") for p in data["pages"]}
    for node, path, page, _ in elements(data):
        if page is None and node.get("type") == "link" and "{" not in node["href"]:
            dest = resolve(data, node["href"])
            if dest and titles.get(dest) and "{" not in titles[dest]:
                node["text"] = titles[dest]
                return path
    raise AssertionError("no link to edit")


def filter_on_existing_value(data: Data) -> str:
    """A list filtered on a value some row has."""
    for node, path, _, _ in elements(data):
        if node.get("type") in ("list", "table"):
            tbl = table(data, node["query"]["table"])[0]
            if tbl is not None and tbl.get("rows"):
                column = next(c["name"] for c in tbl["columns"] if c["type"] == "text")
                node["query"].setdefault("where", []).append({"column": column, "value": tbl["rows"][0][column]})
                return path
    raise AssertionError("no list to edit")


def repriced_product(data: Data) -> str:
    """A product repriced after it was ordered: every line of it keeps the old price."""
    products, _ = table(data, "products")
    lines, _ = table(data, "order_items")
    product = lines["rows"][0]["product_id"]
    for row in products["rows"]:
        if row["id"] == product:
            row["price"] += 500
    return "$.database"


def duplicate_colour(data: Data) -> str:
    """Two products of the same colour: colour is no key."""
    products, _ = table(data, "products")
    products["rows"][2]["color"] = products["rows"][1]["color"]
    return "$.database"


def answer_from_shown_column(data: Data) -> str:
    """A retrieve task asking for the product's price instead (shown on its page)."""
    for task in data["tasks"]:
        query = ((task.get("answer") or {}).get("value") or {}).get("query")
        if task["kind"] == "retrieve" and query and query["table"] == "products" and not query.get("agg"):
            query["select"] = "price"
            return task["id"]
    raise AssertionError("no task to edit")


@pytest.mark.parametrize(("code", "domain", "twin"), [
    ("S015", "shop", existing_hidden_id),
    ("M014", "shop", link_named_own_page),
    ("M015", "shop", filter_on_existing_value),
    ("C006", "shop", repriced_product),
    ("C002", "shop", duplicate_colour),
    ("M013", "shop", answer_from_shown_column),
])
def test_twin_edit_is_not_reported(clean: dict[str, Data], code: str, domain: str, twin: Callable[[Data], Any]) -> None:
    assert code not in codes_after(clean[domain], twin)


# ----------------------------------------------------------------------------- widened checks, one by one


def test_sql_naming_a_missing_column_is_reported_where_it_is(clean: dict[str, Data]) -> None:
    data = copy.deepcopy(clean["travel"])
    for m_index, found in enumerate(data["markers"]):
        if found["name"] == "book_flight":
            found["effects"][-1]["sql"] = found["effects"][-1]["sql"].replace("seats - ", "seat_count - ")
            break
    issues = static_issues(from_data(data, check_id=False))
    assert [(i.code, i.location) for i in issues if i.code == "S006"] == [
        ("S006", f"$.markers[{m_index}].effects[{len(found['effects']) - 1}].sql")]


def test_a_view_reading_a_missing_column_is_reported(clean: dict[str, Data]) -> None:
    data = copy.deepcopy(clean["shop"])
    view = next(v for v in data["database"]["views"] if v["name"] == "cart_view")
    view["sql"] = view["sql"].replace("p.price AS price", "p.cost AS price")
    index = data["database"]["views"].index(view)
    assert any(i.code == "S006" and i.location == f"$.database.views[{index}].sql"
               for i in static_issues(from_data(data, check_id=False)))


def test_a_date_ordered_after_an_unguarded_date_is_unguarded(clean: dict[str, Data]) -> None:
    """book_stay: check-out after check-in, check-in after today: neither is reported (the clean
    site). With check-in's comparison with today and the calendar look-ups gone, check-in can be
    in the past, and check-out, ordered only after it, too: both are reported."""
    data = copy.deepcopy(clean["travel"])
    found = next(m for m in data["markers"] if m["name"] == "book_stay")
    found["preconditions"] = [c for c in found["preconditions"] if "today" not in str(c) and "calendar" not in str(c)]
    assert any(":co > :ci" in str(c) for c in found["preconditions"])  # the ordering stays
    issues = [i for i in static_issues(from_data(data, check_id=False)) if i.code == "C005"]
    index = data["markers"].index(found)
    params = [p["name"] for p in found["params"]]
    assert [i.location for i in issues] == [f"$.markers[{index}].params[{params.index(name)}]"
                                            for name in ("check_in", "check_out")]


def test_undo_label_on_an_adding_form_is_reported(clean: dict[str, Data]) -> None:
    data = copy.deepcopy(clean["code"])
    for form, path, _, found in marker_forms(data):
        if found["name"] == "star":
            form["submit"] = "Unstar"
            break
    issues = static_issues(from_data(data, check_id=False))
    assert any(i.code == "M003" and i.location == f"{path}.submit" for i in issues)


@pytest.mark.parametrize("label, wrong", [("Track this order", True), ("View details", True),
                                          ("Cancel this order", False), ("Read and cancel", False)])
def test_a_looking_label_on_a_form_that_writes_is_reported(clean: dict[str, Data], label: str, wrong: bool) -> None:
    """M003 (set eight): "Track this order" on the form that cancels it: the button says it only
    shows something. A label that says what the marker does, also after a looking word, stays clean."""
    data = copy.deepcopy(clean["shop"])
    for form, path, _, found in marker_forms(data):
        if found["name"] == "cancel_order":
            form["submit"] = label
            break
    else:
        raise AssertionError("no cancel form")
    issues = [i for i in static_issues(from_data(data, check_id=False)) if i.location == f"{path}.submit"]
    assert bool(issues) == wrong, issues
    if wrong:
        assert issues[0].code == "M003" and "only shows something" in issues[0].message


def test_example_site_reports_nothing() -> None:
    from veriweb.cli import load_site

    site: Site = load_site(None)
    assert static_issues(site) == []


@pytest.mark.parametrize("swap, wrong", [((1, 2), True), ((0, 1), False)])
def test_drop_down_values_the_wrong_way_round_for_their_words(clean: dict[str, Data], swap: tuple[int, int],
                                                              wrong: bool) -> None:
    """M003 (set eight): the stops filter's "At most 1 stop" sending 0 and "Nonstop only" sending 1. The
    repair swaps them back. Swapping "Any number of stops" with "Nonstop only" is another defect, which
    this check cannot tell from a choice of values, and it stays quiet about it. The "Off" and "On"
    values of a setting, swapped, are the same check's other case."""
    from veriweb.verify.checks_meaning import swapped_options
    from veriweb.verify.repair import repair_static

    data = copy.deepcopy(clean["travel"])
    field = data["pages"][1]["elements"][2]["elements"][0]["fields"][4]
    assert [o["label"] for o in field["options"]] == ["Any number of stops", "Nonstop only", "At most 1 stop"]
    original = copy.deepcopy(field["options"])
    a, b = swap
    field["options"][a]["value"], field["options"][b]["value"] = field["options"][b]["value"], field["options"][a]["value"]
    where = "$.pages[1].elements[2].elements[0].fields[4].options"
    issues = [i for i in static_issues(from_data(data, check_id=False)) if i.location == where]
    assert bool(issues) == wrong, issues
    if wrong:
        assert issues[0].code == "M003"
        fixed, _, _, _, _ = repair_static(from_data(data, check_id=False))
        assert to_data(fixed)["pages"][1]["elements"][2]["elements"][0]["fields"][4]["options"] == original
    assert swapped_options([{"label": "Off", "value": "1"}, {"label": "On", "value": "0"}]) is not None
    assert swapped_options([{"label": "Off", "value": "0"}, {"label": "On", "value": "1"}]) is None

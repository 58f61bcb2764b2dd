"""Repair operators: a scaffold with the defect is repaired, loads, and the check no longer fires."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from veriweb.errors import VeriwebError
from veriweb.generate.site import generate_site
from veriweb.scaffold import Site
from veriweb.scaffold.io import from_data, to_data
from veriweb.verify.checks import Issue, static_issues
from veriweb.verify.repair import (
    OPERATORS, Touch, apply_repairs, coerce_value, get_at, invalidated, parse_path, repair_static,
)


@pytest.fixture(scope="module")
def shop() -> Site:
    return generate_site("shop", 1)


def broken(site: Site, edit: Callable[[dict[str, Any]], None]) -> Site:
    data = copy.deepcopy(to_data(site))
    data.pop("id", None)
    edit(data)
    return from_data(data, check_id=False)


def page(data: dict[str, Any], page_id: str) -> dict[str, Any]:
    return next(p for p in data["pages"] if p["id"] == page_id)


def table(data: dict[str, Any], name: str) -> dict[str, Any]:
    return next(t for t in data["database"]["tables"] if t["name"] == name)


def marker(data: dict[str, Any], name: str) -> dict[str, Any]:
    return next(m for m in data["markers"] if m["name"] == name)


def task(data: dict[str, Any], task_id: str) -> dict[str, Any]:
    return next(t for t in data["tasks"] if t["id"] == task_id)


def elements(node: Any) -> list[dict[str, Any]]:
    """Every element dict under ``node``, depth first."""
    out = []
    if isinstance(node, dict):
        if "type" in node and isinstance(node.get("type"), str):
            out.append(node)
        for value in node.values():
            out += elements(value)
    elif isinstance(node, list):
        for value in node:
            out += elements(value)
    return out


def _checkout_form(data: dict[str, Any]) -> dict[str, Any]:
    return next(e for e in elements(page(data, "checkout")) if e["type"] == "form"
                and e["action"].get("marker") == "place_order")


def _home_list(data: dict[str, Any]) -> dict[str, Any]:
    return next(e for e in elements(page(data, "home")) if e["type"] == "list")


def _unlink_exact(data: dict[str, Any], href: str) -> None:
    for element in elements(data):
        if element["type"] == "link" and element.get("href") == href:
            text = element["text"]
            element.clear()
            element.update(type="text", text=text)


def e_broken_link(d: dict[str, Any]) -> None:
    page(d, "cart")["elements"].append({"type": "link", "text": "Checkout", "href": "/chekout"})


def e_orphan(d: dict[str, Any]) -> None:
    extra = [p for p in d["pages"] if "{" not in p["route"] and p["id"] not in ("home", "login", "cart", "checkout")]
    _unlink_exact(d, extra[-1]["route"])


def e_unknown_marker(d: dict[str, Any]) -> None:
    _checkout_form(d)["action"]["marker"] = "place_ordr"


def e_missing_field(d: dict[str, Any]) -> None:
    form = _checkout_form(d)
    form["fields"] = form["fields"][:-1]


def e_unknown_table(d: dict[str, Any]) -> None:
    _home_list(d)["query"]["table"] = "categorys"


def e_unknown_column(d: dict[str, Any]) -> None:
    _home_list(d)["query"]["order_by"][0]["column"] = "nmae"


def e_widget(d: dict[str, Any]) -> None:
    page(d, "orders")["elements"].append({"type": "button", "text": "More", "target": "details"})
    page(d, "orders")["elements"].append({"type": "collapsible", "id": "detail", "label": "More",
                                           "elements": [{"type": "text", "text": "Benefits."}]})


def e_duplicate_page(d: dict[str, Any]) -> None:
    clone = copy.deepcopy(page(d, "orders"))
    clone["route"] = "/jobs"
    d["pages"].append(clone)
    page(d, "home")["elements"].append({"type": "link", "text": "Jobs", "href": "/jobs"})


def e_no_home(d: dict[str, Any]) -> None:
    page(d, "home")["route"] = "/start"


def e_link_key(d: dict[str, Any]) -> None:
    link = next(e for e in elements(page(d, "category")) if e["type"] == "link"
                and e.get("href") == "/product/{row.id}")
    link["href"] = "/product/{row.category_id}"


def e_placeholder(d: dict[str, Any]) -> None:
    page(d, "orders")["elements"].append({"type": "text", "text": "Lorem ipsum dolor sit amet."})


def e_placeholder_row(d: dict[str, Any]) -> None:
    table(d, "products")["rows"][5]["description"] = "TODO"


def e_empty_label(d: dict[str, Any]) -> None:
    next(e for e in elements(d["layout"]) if e["type"] == "link" and e["href"] != "/")["text"] = ""


def e_contradictory(d: dict[str, Any]) -> None:
    next(e for e in elements(page(d, "cart")) if e["type"] == "form"
         and e["action"].get("marker") == "remove_from_cart")["submit"] = "Save"


def e_wrong_type(d: dict[str, Any]) -> None:
    table(d, "products")["rows"][3]["price"] = "$12.50"


def e_missing_entity(d: dict[str, Any]) -> None:
    t = task(d, "price_lookup")
    t["slots"]["product"] = t["slots"]["product"][:-1] + "z"
    t["instruction"] = t["template"].format(**t["slots"])


def e_ambiguous(d: dict[str, Any]) -> None:
    rows = table(d, "products")["rows"]
    twin = copy.deepcopy(next(r for r in rows if r["name"] == task(d, "price_lookup")["slots"]["product"]))
    twin["id"] = max(r["id"] for r in rows) + 1
    twin["price"] += 500
    rows.append(twin)


def e_missing_control(d: dict[str, Any]) -> None:
    for element in elements(d):
        if element["type"] == "form" and element.get("action", {}).get("marker") == "write_review":
            words = element.get("label") or element["submit"]
            element.clear()
            element.update(type="text", text=words)


def e_unknown_slot(d: dict[str, Any]) -> None:
    t = task(d, "cheapest_0")
    t["goal"][0]["params"] = {**t["goal"][0].get("params", {}), "zz": {"ref": "slot.nothing"}}


def e_dangling(d: dict[str, Any]) -> None:
    table(d, "reviews")["rows"][2]["user_id"] = 9999


def e_duplicate_key(d: dict[str, Any]) -> None:
    rows = table(d, "reviews")["rows"]
    rows[4]["id"] = rows[3]["id"]


def e_null(d: dict[str, Any]) -> None:
    table(d, "orders")["rows"][7]["status"] = None


def e_total(d: dict[str, Any]) -> None:
    table(d, "orders")["rows"][9]["total"] += 1234


def e_guard(d: dict[str, Any]) -> None:
    m = marker(d, "place_order")
    m["invariants"] = [c for c in m.get("invariants", []) if "stock" not in str(c)]
    m["preconditions"] = [c for c in m.get("preconditions", []) if "stock" not in str(c)]


def e_cents(d: dict[str, Any]) -> None:
    record = page(d, "product")["elements"][0]
    for element in record["elements"]:
        if "{row.price|money}" in element.get("text", ""):
            element["text"] = element["text"].replace("{row.price|money}", "{row.price}")
            return
    raise AssertionError("the product page shows no price")


def e_constraint(d: dict[str, Any]) -> None:
    t = task(d, "add_to_cart")
    t.setdefault("constraints", []).append({"description": "never add it", "predicate": t["goal"][0]})


CASES = [
    ("S001", e_broken_link, "retarget_link"), ("S002", e_orphan, "link_orphan"),
    ("S003", e_unknown_marker, "retarget_marker"), ("S004", e_missing_field, "add_field"),
    ("S005", e_unknown_table, "rename_reference"), ("S006", e_unknown_column, "rename_reference"),
    ("S007", e_widget, "rename_reference"), ("S008", e_duplicate_page, "dedupe_page"), ("S009", e_no_home, "add_home"),
    ("S011", e_link_key, "fix_link_key"),
    ("M001", e_placeholder, "restore_text"), ("M001", e_placeholder_row, "restore_text"),
    ("M002", e_empty_label, "restore_text"), ("M003", e_contradictory, "fix_label"), ("M004", e_wrong_type, "coerce_cell"),
    ("M005", e_missing_entity, "rewrite_slot"),
    ("M007", e_missing_control, "add_control"), ("M008", e_ambiguous, "disambiguate"), ("M006", e_unknown_slot, "drop_task"),
    ("C001", e_dangling, "repoint_key"), ("C002", e_duplicate_key, "dedupe_key"), ("C003", e_null, "fill_null"),
    ("C004", e_total, "recompute_total"), ("C005", e_guard, "tighten_marker"), ("C006", e_cents, "format_money"),
    ("C007", e_constraint, "drop_constraint"),
]


def test_generated_site_is_clean(shop: Site) -> None:
    assert static_issues(shop) == []
    fixed, log, touched, left, _ = repair_static(shop)
    assert (log, left, bool(touched)) == ([], [], False)
    assert fixed.id == shop.id


@pytest.mark.parametrize(("code", "edit", "operator"), CASES, ids=[f"{c[0]}-{c[1].__name__}" for c in CASES])
def test_operator_repairs_its_defect(shop: Site, code: str, edit: Callable[[dict[str, Any]], None],
                                     operator: str) -> None:
    site = broken(shop, edit)
    before = static_issues(site)
    assert code in {i.code for i in before}, f"the hand-made defect does not show as {code}: {before}"
    fixed, log, touched, left, _ = repair_static(site)
    assert [i for i in left if i.code == code] == []
    assert left == []
    assert any(r.code == code and r.operator == operator for r in log), log
    assert all(r.change for r in log)
    assert touched
    assert from_data(to_data(fixed)).id == fixed.id  # the repaired scaffold loads and re-hashes the same


def test_broken_link_is_retargeted_not_removed(shop: Site) -> None:
    fixed, log, _, _, _ = repair_static(broken(shop, e_broken_link))
    assert page(to_data(fixed), "cart")["elements"][-1]["href"] == "/checkout"
    assert "'/chekout' -> '/checkout'" in log[0].change


def _unlink(node: Any, prefix: str) -> None:
    if isinstance(node, dict):
        if node.get("type") == "link" and node.get("href", "").startswith(prefix):
            text = node["text"]
            node.clear()
            node.update(type="text", text=text)
        for value in node.values():
            _unlink(value, prefix)
    elif isinstance(node, list):
        for value in node:
            _unlink(value, prefix)


def test_orphan_record_page_is_linked_where_its_records_are_listed(shop: Site) -> None:
    site = broken(shop, lambda d: _unlink(d["pages"], "/product/"))
    assert [i.location for i in static_issues(site) if i.code == "S002"] == ["$.pages[3]"]
    fixed, log, touched, left, _ = repair_static(site)
    assert left == [] and "plain text" in log[0].change
    hrefs = json.dumps(to_data(fixed))
    assert hrefs.count('"/product/{row.id}"') >= 1
    assert "product" in touched.pages


def test_task_issues_wait_for_the_fixes_of_their_round(shop: Site) -> None:
    issues = [Issue("structural", "S001", "$.pages[4].elements[3].href", "made up"),
              Issue("semantic", "M006", "$.tasks[0].goal[0]", "a"), Issue("semantic", "M006", "$.tasks[0].goal[1]", "b")]
    site = broken(shop, e_broken_link)
    _, repairs, _, unfixed = apply_repairs(site, issues)
    assert [r.operator for r in repairs] == ["retarget_link"]
    _, repairs, _, _ = apply_repairs(site, issues[1:])
    assert [r.operator for r in repairs] == ["drop_task"]  # one task, dropped once


def test_missing_entity_rewrites_slot_and_instruction(shop: Site) -> None:
    fixed, log, touched, _, _ = repair_static(broken(shop, e_missing_entity))
    repaired = fixed.task("price_lookup")
    original = shop.task("price_lookup").slots["product"]
    assert repaired.slots["product"] == original
    assert original in repaired.instruction
    assert touched.tasks == {"price_lookup"}


def test_unknown_slot_task_is_dropped_and_counted(shop: Site) -> None:
    fixed, _, _, _, ctx = repair_static(broken(shop, e_unknown_slot))
    assert fixed.task("cheapest_0") is None
    assert "M006" in ctx.dropped_tasks["cheapest_0"]
    assert len(fixed.tasks) == len(shop.tasks) - 1


def test_total_is_recomputed_from_lines(shop: Site) -> None:
    fixed, _, _, _, _ = repair_static(broken(shop, e_total))
    assert table(to_data(fixed), "orders")["rows"][9]["total"] == table(to_data(shop), "orders")["rows"][9]["total"]


def test_unfixable_issue_is_reported_not_hidden(shop: Site) -> None:
    issue = Issue("structural", "S999", "$.nowhere[3]", "made up")
    _, repairs, _, unfixed = apply_repairs(shop, [issue])
    assert repairs == [] and unfixed == [issue]


def test_invalidation_follows_tables_and_pages(shop: Site) -> None:
    visits = {"cheapest_0": {"home", "category"}, "price_lookup": {"search", "product"}}
    hit = invalidated(shop, Touch(tables={"orders"}), visits)
    assert "count_orders" in hit and "cheapest_0" not in hit
    assert invalidated(shop, Touch(pages={"product"}), visits) >= {"price_lookup"}
    assert "cheapest_0" not in invalidated(shop, Touch(pages={"product"}), visits)


def test_coerce_value() -> None:
    assert coerce_value("money", "$12.50", []) == (True, 1250)
    assert coerce_value("integer", "7", []) == (True, 7)
    assert coerce_value("date", "06/15/2026", []) == (True, "2026-06-15")
    assert coerce_value("boolean", "yes", []) == (True, True)
    assert coerce_value("integer", "seven", []) == (False, None)


def test_paths() -> None:
    assert parse_path("$.pages[3].elements[1].href") == ["pages", 3, "elements", 1, "href"]
    assert get_at({"a": [{"b": 2}]}, ["a", 0, "b"]) == 2
    with pytest.raises(VeriwebError, match="JSON path"):
        parse_path("pages[3]")


def test_every_operator_is_documented() -> None:
    for code, operator in OPERATORS.items():
        assert operator.__doc__, code


def test_added_edit_form_starts_from_the_record() -> None:
    """M007 on an update marker: the new form sits in the record and starts from its values, so saving
    it changes only what is typed (the set_price task stays within its footprint)."""
    from veriweb.verify.search import solve

    admin = next(site for site in (generate_site("admin", seed) for seed in range(40))
                 if any(t.id == "set_price" for t in site.tasks))

    def no_edit_form(d: dict[str, Any]) -> None:
        for element in elements(d):
            if element["type"] == "form" and element.get("action", {}).get("marker") == "save_product":
                words = element.get("label") or element["submit"]
                element.clear()
                element.update(type="text", text=words)

    site = broken(admin, no_edit_form)
    assert "M007" in {i.code for i in static_issues(site)}
    fixed, log, _, left, _ = repair_static(site)
    assert left == [] and any(r.operator == "add_control" for r in log)
    data = to_data(fixed)
    record = next(e for e in page(data, "product")["elements"] if e["type"] == "record")
    form = next(e for e in elements(record) if e["type"] == "form" and e["action"].get("marker") == "save_product")
    values = {f["name"]: f.get("value") for f in form["fields"]}
    assert values == {"price": {"ref": "row.price_input"}, "stock": {"ref": "row.stock"},
                      "status": {"ref": "row.status"}}
    result = solve(fixed, fixed.task("set_price"), budget=400)
    assert result.status == "solved", result.reason


def test_a_name_with_a_word_added_is_rewritten_to_the_name_it_contains() -> None:
    travel = generate_site("travel", 1)

    def invented(d: dict[str, Any]) -> None:
        t = task(d, "open_flight")
        t["slots"]["origin"] = "Quantum " + t["slots"]["origin"]
        t["instruction"] = t["template"].format(**t["slots"])

    site = broken(travel, invented)
    assert "M005" in {i.code for i in static_issues(site)}
    fixed, log, _, left, _ = repair_static(site)
    assert left == []
    assert fixed.task("open_flight").slots["origin"] == travel.task("open_flight").slots["origin"]
    assert travel.task("open_flight").instruction == fixed.task("open_flight").instruction
    assert any(r.operator == "rewrite_slot" for r in log)


def _mend_cases(d: dict[str, Any], how: str) -> tuple[str, str]:
    """Break the checkout form the two ways a form loses a parameter: its field renamed, or its argument dropped."""
    form = _checkout_form(d)
    arg, value = next((a, v) for a, v in form["action"]["args"].items()
                      if isinstance(v, dict) and v.get("ref", "").startswith("field."))
    field = value["ref"][6:]
    if how == "renamed":
        next(f for f in form["fields"] if f["name"] == field)["name"] = f"{field}_input"
    else:
        del form["action"]["args"][arg]
    return arg, field


@pytest.mark.parametrize("how", ["renamed", "dropped"])
def test_add_field_mends_the_field_that_is_there(shop: Site, how: str) -> None:
    """A form whose field was renamed, or whose argument was dropped, gets that field back in use,
    not a second field with the same label beside it (which M011 would then flag as ambiguous)."""
    seen: dict[str, str] = {}

    def edit(d: dict[str, Any]) -> None:
        seen["arg"], seen["field"] = _mend_cases(d, how)

    site = broken(shop, edit)
    before = len(_checkout_form(to_data(site))["fields"])
    fixed, log, _, left, _ = repair_static(site)
    form = _checkout_form(to_data(fixed))
    assert left == []
    assert len(form["fields"]) == before
    assert [f["name"] for f in form["fields"]].count(seen["field"]) == 1
    assert form["action"]["args"][seen["arg"]] == {"ref": f"field.{seen['field']}"}
    assert any(r.operator == "add_field" and "mends" in r.change for r in log), log
    assert form == _checkout_form(to_data(shop))


def test_add_field_mends_an_optional_field_renamed() -> None:
    """An optional parameter's field renamed (a reply's body) is renamed back, not added twice."""
    mail = generate_site("mail", 1)
    data = copy.deepcopy(to_data(mail))
    data.pop("id", None)
    optional = {(m["name"], p["name"]) for m in data["markers"] for p in m.get("params", [])
                if p.get("required", True) is False}
    form, arg = next((e, a) for e in elements(data) if e["type"] == "form" and e["action"].get("kind") == "marker"
                     for a, v in e["action"].get("args", {}).items()
                     if (e["action"]["marker"], a) in optional and isinstance(v, dict)
                     and v.get("ref", "").startswith("field."))
    name = form["action"]["args"][arg]["ref"][6:]
    next(f for f in form["fields"] if f["name"] == name)["name"] = f"{name}_input"
    fixed, log, _, left, _ = repair_static(from_data(data, check_id=False))
    assert left == []
    assert any(r.code == "S004" and f"{name}_input -> {name}" in r.change for r in log), log
    assert to_data(fixed)["pages"] == to_data(mail)["pages"]


def test_ranked_matches_are_get_close_matches() -> None:
    import difflib
    import random

    from veriweb.verify.repair import ranked_matches

    rng = random.Random(7)
    words = ["Quantum Paris", "Quantum", "Paris", "Olive Relaxed Straight Jeans", "Olive Jeans", "ab", "ba", "abc",
             "cba", "", "a", "Sprint 27", "Sprint 72", "Sprint 2", "Error 500 from the admin console"]
    for _ in range(200):
        word = rng.choice(words) + rng.choice(["", "s", " x", " Paris"])
        options = sorted(set(rng.sample(words, rng.randint(0, len(words)))))
        n = rng.choice([1, 2, 3, 12])
        assert ranked_matches(word, options, n) == difflib.get_close_matches(word, options, n=n, cutoff=0.0)


@pytest.mark.parametrize(("name", "units"), [("stays", "nights"), ("bookings", "passengers")])
def test_a_total_without_lines_is_recomputed_by_the_rule_the_other_rows_follow(name: str, units: str) -> None:
    travel = generate_site("travel", 1)
    right = next(r for r in table(to_data(travel), name)["rows"] if r[units] >= 2)

    def doubled(d: dict[str, Any]) -> None:
        next(r for r in table(d, name)["rows"] if r["id"] == right["id"])["total"] *= 2

    site = broken(travel, doubled)
    assert "C004" in {i.code for i in static_issues(site)}
    fixed, log, _, left, _ = repair_static(site)
    assert left == []
    assert next(r for r in table(to_data(fixed), name)["rows"] if r["id"] == right["id"])["total"] == right["total"]
    assert any(r.operator == "recompute_total" and "units x price" in r.change for r in log), log


def test_a_broken_row_link_goes_to_the_page_that_looks_up_what_it_passes() -> None:
    forum = generate_site("forum", 3)  # its post page's route, /comments/{id}, is the closest string
    bad: list[str] = []

    def mistyped(d: dict[str, Any]) -> None:
        def walk(node: Any, path: str) -> None:
            if isinstance(node, dict):
                if node.get("type") == "link" and node.get("href") == "/u/{row.author}" and not bad:
                    node["href"] = "/u-details/{row.author}"
                    bad.append(path)
                for key, value in node.items():
                    walk(value, f"{path}.{key}")
            elif isinstance(node, list):
                for index, value in enumerate(node):
                    walk(value, f"{path}[{index}]")
        walk(d["pages"], "$.pages")

    site = broken(forum, mistyped)
    assert bad and any(i.code == "S001" and i.location == f"{bad[0]}.href" for i in static_issues(site))
    fixed, log, _, left, _ = repair_static(site)
    assert left == []
    assert any(r.location == f"{bad[0]}.href" and r.change.endswith("-> '/u/{row.author}'") for r in log), log


def test_a_missing_line_price_is_filled_from_its_product_not_the_most_common_price() -> None:
    admin = generate_site("admin", 1)
    lines = table(to_data(admin), "order_items")["rows"]
    prices = [r["price"] for r in lines]
    line = next(r for r in lines if prices.count(r["price"]) == 1)  # not the most common price

    def emptied(d: dict[str, Any]) -> None:
        next(r for r in table(d, "order_items")["rows"] if r["id"] == line["id"])["price"] = None

    site = broken(admin, emptied)
    assert "C003" in {i.code for i in static_issues(site)}
    fixed, log, _, left, _ = repair_static(site)
    assert left == []
    assert next(r for r in table(to_data(fixed), "order_items")["rows"] if r["id"] == line["id"])["price"] == line["price"]
    assert any(r.operator == "fill_null" and "as its products row holds it" in r.change for r in log), log

"""Checks for defect classes the raw-mode injector never makes, on hand-written mutations of clean sites.

Each case takes a clean generated site, makes one edit by hand that a person or a one-pass
author could make, and expects the check's code at the edited place; its twin makes a similar
edit that is not a defect and expects nothing from that check.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from veriweb.generate.site import generate_site
from veriweb.scaffold import Site
from veriweb.scaffold.io import from_data, to_data
from veriweb.verify.checks import CHECKS, static_issues
from veriweb.verify.repair import repair_static

Data = dict[str, Any]
Edit = Callable[[Data], str]
"""Edits the site's data in place and returns the JSON path where the defect is (or would be)."""


@pytest.fixture(scope="module")
def sites() -> dict[str, Site]:
    return {domain: generate_site(domain, 0) for domain in ("shop", "admin", "forum", "travel")}


# ----------------------------------------------------------------------------- finding things


def nodes(data: Any, path: str = "$") -> Iterator[tuple[Any, str]]:
    """Every dict in the data with its JSON path."""
    if isinstance(data, dict):
        yield data, path
        for key, value in data.items():
            yield from nodes(value, f"{path}.{key}")
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from nodes(value, f"{path}[{index}]")


def find(data: Data, test: Callable[[Data], bool], under: str = "$") -> tuple[Data, str]:
    hits = [(node, path) for node, path in nodes(data) if path.startswith(under) and test(node)]
    assert hits, "the generated site no longer has what this test edits"
    return hits[0]


def page(data: Data, page_id: str) -> tuple[Data, str]:
    index = next(n for n, p in enumerate(data["pages"]) if p["id"] == page_id)
    return data["pages"][index], f"$.pages[{index}]"


def home(data: Data) -> tuple[Data, str]:
    """The page at ``/`` (its elements are outside any list, so a link there is a fixed link)."""
    index = next(n for n, p in enumerate(data["pages"]) if p["route"] == "/")
    return data["pages"][index], f"$.pages[{index}]"


def table(data: Data, name: str) -> tuple[Data, str]:
    index = next(n for n, t in enumerate(data["database"]["tables"]) if t["name"] == name)
    return data["database"]["tables"][index], f"$.database.tables[{index}]"


def marker(data: Data, name: str) -> tuple[Data, str]:
    index = next(n for n, m in enumerate(data["markers"]) if m["name"] == name)
    return data["markers"][index], f"$.markers[{index}]"


def task(data: Data, task_id: str) -> tuple[Data, str]:
    index = next(n for n, t in enumerate(data["tasks"]) if t["id"] == task_id)
    return data["tasks"][index], f"$.tasks[{index}]"


def text_is(value: str) -> Callable[[Data], bool]:
    return lambda node: node.get("text") == value


def price_text_in_search(data: Data) -> tuple[Data, str]:
    _, where = page(data, "search")
    return find(data, text_is("{row.price|money}"), under=where)


# ----------------------------------------------------------------------------- the edits


def unknown_column(data: Data) -> str:
    _, where = page(data, "product")
    node, path = find(data, text_is("In stock: {row.stock}"), under=where)
    node["text"] = "In stock: {row.stock_level}"
    return f"{path}.text"


def known_column(data: Data) -> str:
    _, where = page(data, "product")
    node, path = find(data, text_is("In stock: {row.stock}"), under=where)
    node["text"] = "In stock: {row.stock} ({row.color})"
    return f"{path}.text"


def row_outside_list(data: Data) -> str:
    about, where = home(data)
    about["elements"].append({"type": "link", "text": "Our bestseller", "href": "/product/{row.id}"})
    return f"{where}.elements[{len(about['elements']) - 1}].href"


def missing_route_param(data: Data) -> str:
    about, where = home(data)
    about["elements"].append({"type": "text", "text": "You are reading {param.slug}."})
    return f"{where}.elements[{len(about['elements']) - 1}].text"


def fixed_amount(data: Data) -> str:
    node, path = price_text_in_search(data)
    node["text"] = "$24.99"
    return f"{path}.text"


def amount_outside_rows(data: Data) -> str:
    about, where = home(data)
    about["elements"].append({"type": "text", "text": "Orders over $50.00 ship free."})
    return f"{where}.elements[{len(about['elements']) - 1}].text"


def _list_price(data: Data, differs: bool) -> None:
    products, _ = table(data, "products")
    products["columns"].append({"name": "list_price", "type": "money"})
    for row in products["rows"]:
        row["list_price"] = row["price"] + (500 if differs else 0)


def list_shows_other_price(data: Data) -> str:
    _list_price(data, differs=True)
    node, path = price_text_in_search(data)
    node["text"] = "{row.list_price|money}"
    return f"{path}.text"


def list_shows_equal_price(data: Data) -> str:
    _list_price(data, differs=False)
    node, path = price_text_in_search(data)
    node["text"] = "{row.list_price|money}"
    return f"{path}.text"


def detail_label_other_column(data: Data) -> str:
    _list_price(data, differs=True)
    node, path = price_text_in_search(data)
    node["text"] = "Price: {row.price|money}"
    _, where = page(data, "product")
    detail, _ = find(data, text_is("Price: {row.price|money}"), under=where)
    detail["text"] = "Price: {row.list_price|money}"
    return f"{path}.text"


def date_input_for_number(data: Data) -> str:
    _, where = page(data, "product")
    field, path = find(data, lambda n: n.get("name") == "qty" and n.get("type") == "textbox", under=where)
    field["type"] = "date"
    return f"{path}.type"


def option_the_marker_refuses(data: Data) -> str:
    _, where = page(data, "product")
    field, path = find(data, lambda n: n.get("name") == "size" and n.get("type") == "select", under=where)
    field["options"].append({"value": "XXL", "label": "XXL"})
    return f"{path}.options[{len(field['options']) - 1}].value"


def option_relabelled(data: Data) -> str:
    _, where = page(data, "product")
    field, path = find(data, lambda n: n.get("name") == "size" and n.get("type") == "select", under=where)
    field["options"][-1]["label"] = "Extra large"
    return f"{path}.options[{len(field['options']) - 1}].value"


def text_param_into_integer(data: Data) -> str:
    review, where = marker(data, "write_review")
    index = next(n for n, p in enumerate(review["params"]) if p["name"] == "rating")
    review["params"][index]["type"] = "text"
    return f"{where}.params[{index}].type"


def link_names_other_record(data: Data) -> str:
    products, _ = table(data, "products")
    first, second = products["rows"][0], products["rows"][1]
    about, where = home(data)
    about["elements"].append({"type": "link", "text": second["name"], "href": f"/product/{first['id']}"})
    return f"{where}.elements[{len(about['elements']) - 1}].href"


def link_to_missing_record(data: Data) -> str:
    about, where = home(data)
    about["elements"].append({"type": "link", "text": "Our bestseller", "href": "/product/99999"})
    return f"{where}.elements[{len(about['elements']) - 1}].href"


def link_names_its_record(data: Data) -> str:
    products, _ = table(data, "products")
    first = products["rows"][0]
    about, where = home(data)
    about["elements"].append({"type": "link", "text": first["name"], "href": f"/product/{first['id']}"})
    return f"{where}.elements[{len(about['elements']) - 1}].href"


def write_hidden_column(data: Data) -> str:
    cancel, where = marker(data, "cancel_order")
    cancel["effects"][0]["sql"] = "UPDATE orders SET city = 'Nowhere' WHERE id = :order_id AND user_id = :user_id"
    return f"{where}.effects[0]"


def write_hidden_column_no_record(data: Data) -> str:
    """A write to a column of a table no page shows a row of (users: no profile page)."""
    cancel, where = marker(data, "cancel_order")
    cancel["effects"][0]["table"] = "users"
    cancel["effects"][0]["sql"] = "UPDATE users SET password = 'reset' WHERE id = :user_id"
    return f"{where}.effects[0]"


def write_shown_column(data: Data) -> str:
    cancel, where = marker(data, "cancel_order")
    cancel["effects"][0]["sql"] = "UPDATE orders SET status = 'cancelled' WHERE id = :order_id AND user_id = :user_id"
    return f"{where}.effects[0]"


def duplicate_field_name(data: Data) -> str:
    _, where = page(data, "product")
    form, path = find(data, lambda n: n.get("type") == "form" and n["action"].get("marker") == "add_to_cart",
                      under=where)
    index = next(n for n, f in enumerate(form["fields"]) if f["name"] == "size")
    form["fields"][index]["name"] = "qty"
    return f"{path}.fields[{index}].name"


def _two_links(data: Data, second: str) -> str:
    about, where = home(data)
    about["elements"] += [{"type": "link", "text": "Read more", "href": "/login"},
                          {"type": "link", "text": "Read more", "href": second}]
    return f"{where}.elements[{len(about['elements']) - 1}].text"


def same_label_other_place(data: Data) -> str:
    return _two_links(data, "/search")


def same_label_same_place(data: Data) -> str:
    return _two_links(data, "/login")


def negative_bound(data: Data) -> str:
    save, where = marker(data, "save_product")
    save["invariants"][0]["predicate"]["sql"] = "SELECT NOT EXISTS (SELECT 1 FROM products WHERE stock < -100)"
    return f"{where}.invariants[0].predicate"


def zero_bound(data: Data) -> str:
    save, where = marker(data, "save_product")
    save["invariants"][0]["predicate"]["sql"] = "SELECT NOT EXISTS (SELECT 1 FROM products WHERE stock < 0)"
    return f"{where}.invariants[0].predicate"


def date_guard_long_ago(data: Data) -> str:
    """A guard that a date parameter is after today, rewritten to "after 1 January 2000"."""
    guard, path = find(data, lambda n: n.get("kind") == "sql" and re.fullmatch(r"SELECT :\w+ >=? :today", n["sql"])
                       is not None, under="$.markers")
    guard["sql"] = guard["sql"].replace(":today", "'2000-01-01'")
    return path


def date_guard_from_today(data: Data) -> str:
    """The same guard, loosened only to let today itself through."""
    guard, path = find(data, lambda n: n.get("kind") == "sql" and re.fullmatch(r"SELECT :\w+ >=? :today", n["sql"])
                       is not None, under="$.markers")
    guard["sql"] = guard["sql"].replace(" > ", " >= ")
    return path


def _order_task(data: Data, constraint: Data) -> str:
    """A task (the first mutate task, its goal replaced) to ship one order, with ``constraint``."""
    orders, _ = table(data, "orders")
    order = orders["rows"][0]["id"]
    index = next(n for n, t in enumerate(data["tasks"]) if t["kind"] == "mutate")
    data["tasks"][index]["goal"] = [{"kind": "exists", "query": {"table": "orders", "where": [
        {"column": "id", "value": order}, {"column": "status", "value": "shipped"}]}}]
    data["tasks"][index]["constraints"] = [{"description": "the order's status", "predicate": constraint}]
    data["tasks"][index].pop("progress", None)
    return f"$.tasks[{index}].constraints[0]"


def _status(op: str, status: str, order: int) -> Data:
    return {"kind": "exists", "query": {"table": "orders", "where": [
        {"column": "id", "value": order}, {"column": "status", "op": op, "value": status}]}}


def must_stay_pending(data: Data) -> str:
    order = table(data, "orders")[0]["rows"][0]["id"]
    return _order_task(data, _status("!=", "pending", order))


def must_stay_pending_negated(data: Data) -> str:
    order = table(data, "orders")[0]["rows"][0]["id"]
    return _order_task(data, {"kind": "not", "item": _status("=", "pending", order)})


def must_not_be_cancelled(data: Data) -> str:
    """The order must not be canceled on the way (as the data spells it: ``'cancelled'`` matches no row,
    a misspelling the task-literal check reports)."""
    order = table(data, "orders")[0]["rows"][0]["id"]
    return _order_task(data, _status("=", "canceled", order))


def post_from_the_future(data: Data) -> str:
    posts, where = table(data, "posts")
    posts["rows"][3]["created"] = "2027-01-01T10:00:00"
    return f"{where}.rows[3].created"


def post_from_today(data: Data) -> str:
    """A post made this morning: one with no comments yet (comments dated before it would be a defect)."""
    posts, where = table(data, "posts")
    comments, _ = table(data, "comments")
    commented = {c["post_id"] for c in comments["rows"]}
    index = next(n for n, p in enumerate(posts["rows"]) if p["id"] not in commented)
    posts["rows"][index]["created"] = data["clock"]["today"] + "T08:00:00" if "clock" in data else "2026-06-15T08:00:00"
    return f"{where}.rows[{index}].created"


def _budget(data: Data, above: int) -> str:
    """The budget of the shop's budget task set ``above`` cents over the named product's price."""
    budget, where = task(data, "buy_within_budget")
    products, _ = table(data, "products")
    price = next(r["price"] for r in products["rows"] if r["name"] == budget["slots"]["product"])
    index, cond = next((n, c) for n, con in enumerate(budget["constraints"])
                       for c in con["predicate"]["query"]["where"] if c["column"] == "total")
    cond["value"] = price + above
    return f"{where}.constraints[{index}]"


def budget_below_price(data: Data) -> str:
    return _budget(data, -1)


def budget_well_above_price(data: Data) -> str:
    return _budget(data, 10_000)


def _search_count(data: Data, term: str) -> str:
    count, where = task(data, "count_reviews")
    count["slots"]["term"] = term
    count["answer"] = {"type": "number", "value": {"query": {"table": "products", "select": "*", "agg": "count",
                                                             "where": [{"column": "name", "op": "contains",
                                                                        "value": {"ref": "slot.term"}}]}}}
    return f"{where}.slots.term"


def search_for_nothing(data: Data) -> str:
    return _search_count(data, "Zzyzx")


def search_for_part_of_a_name(data: Data) -> str:
    products, _ = table(data, "products")
    return _search_count(data, products["rows"][0]["name"].split()[-1].lower())


def _best_rated(data: Data, tie_break: bool) -> str:
    best, where = task(data, "best_rated")
    query = best["answer"]["value"]["query"]
    category = query["where"][0]["value"]
    products, _ = table(data, "products")
    rows = [r for r in products["rows"] if r["category_id"] == category]
    top = max(r["rating"] for r in rows)
    other = next(r for r in rows if r["rating"] != top)
    other["rating"] = top  # a second product as well rated as the best
    if not tie_break:
        query["order_by"] = [o for o in query["order_by"] if o["column"] != "id"]
    else:
        query["order_by"] = [{"column": "rating", "dir": "desc"}, {"column": "name"}]
    return f"{where}.answer.value"


def tied_best(data: Data) -> str:
    return _best_rated(data, tie_break=False)


def tie_broken_by_name(data: Data) -> str:
    return _best_rated(data, tie_break=True)


CASES: list[tuple[str, str, Edit, Edit]] = [
    ("S012", "shop", unknown_column, known_column),
    ("S012", "shop", row_outside_list, known_column),
    ("S012", "shop", missing_route_param, known_column),
    ("S013", "shop", date_input_for_number, option_relabelled),
    ("S013", "shop", option_the_marker_refuses, option_relabelled),
    ("S013", "shop", text_param_into_integer, option_relabelled),
    ("S014", "shop", link_names_other_record, link_names_its_record),
    ("S014", "shop", link_to_missing_record, link_names_its_record),
    ("M009", "shop", fixed_amount, amount_outside_rows),
    ("M010", "shop", write_hidden_column, write_shown_column),
    ("M010", "shop", write_hidden_column_no_record, write_shown_column),
    ("M011", "shop", duplicate_field_name, same_label_same_place),
    ("M011", "shop", same_label_other_place, same_label_same_place),
    ("M012", "shop", tied_best, tie_broken_by_name),
    ("C007", "admin", must_stay_pending, must_not_be_cancelled),
    ("C007", "admin", must_stay_pending_negated, must_not_be_cancelled),
    ("C008", "shop", list_shows_other_price, list_shows_equal_price),
    ("C008", "shop", detail_label_other_column, list_shows_equal_price),
    ("C009", "admin", negative_bound, zero_bound),
    ("C009", "travel", date_guard_long_ago, date_guard_from_today),
    ("C010", "forum", post_from_the_future, post_from_today),
    ("C011", "shop", budget_below_price, budget_well_above_price),
    ("M005", "shop", search_for_nothing, search_for_part_of_a_name),
]


def edited(site: Site, edit: Edit) -> tuple[Site, str]:
    data = to_data(site)
    data["id"] = ""
    where = edit(data)
    return from_data(data, check_id=False), where


@pytest.mark.parametrize("code, domain, defect, twin", CASES, ids=[f"{c[0]}-{c[2].__name__}" for c in CASES])
def test_hand_made_defect_is_found_where_it_is(sites: dict[str, Site], code: str, domain: str,
                                               defect: Edit, twin: Edit) -> None:
    broken, where = edited(sites[domain], defect)
    found = [i for i in static_issues(broken) if i.code == code]
    assert where in [i.location for i in found], [(i.code, i.location, i.message) for i in static_issues(broken)]
    # other lists (a category's, the deals page's) may show the same price: each is reported there
    assert all(i.cls == CHECKS[code][0] and len(i.message) > 30 for i in found)


@pytest.mark.parametrize("code, domain, defect, twin", CASES, ids=[f"{c[0]}-{c[3].__name__}" for c in CASES])
def test_the_twin_edit_is_not_a_defect(sites: dict[str, Site], code: str, domain: str, defect: Edit, twin: Edit) -> None:
    fine, _ = edited(sites[domain], twin)
    assert static_issues(fine) == []


def test_clean_sites_have_no_issues(sites: dict[str, Site]) -> None:
    for site in sites.values():
        assert static_issues(site) == []


def test_new_codes_are_registered_with_their_class() -> None:
    for code in ("S012", "S013", "S014", "M009", "M010", "M011", "M012", "C008", "C009", "C010", "C011"):
        assert code in CHECKS
        assert CHECKS[code][0] == {"S": "structural", "M": "semantic", "C": "consistency"}[code[0]]


REPAIRED = [("M009", "shop", fixed_amount), ("S012", "shop", unknown_column), ("S012", "shop", row_outside_list),
            ("S013", "shop", date_input_for_number), ("S013", "shop", option_the_marker_refuses),
            ("S013", "shop", text_param_into_integer), ("S014", "shop", link_names_other_record),
            ("S014", "shop", link_to_missing_record), ("C008", "shop", list_shows_other_price),
            ("C009", "admin", negative_bound), ("C009", "travel", date_guard_long_ago),
            ("C010", "forum", post_from_the_future)]


@pytest.mark.parametrize("code, domain, defect", REPAIRED, ids=[f"{c[0]}-{c[2].__name__}" for c in REPAIRED])
def test_repair_fixes_the_defect(sites: dict[str, Site], code: str, domain: str, defect: Edit) -> None:
    broken, where = edited(sites[domain], defect)
    fixed, repairs = repair_static(broken)[:2]
    assert [r.code for r in repairs] == [code], repairs
    assert static_issues(fixed) == []
    assert len(fixed.tasks) == len(broken.tasks)


def test_a_tied_answer_drops_its_task_and_nothing_else(sites: dict[str, Site]) -> None:
    broken, _ = edited(sites["shop"], tied_best)
    fixed, repairs = repair_static(broken)[:2]
    assert [(r.code, r.operator) for r in repairs] == [("M012", "drop_task")]
    assert {t.id for t in broken.tasks} - {t.id for t in fixed.tasks} == {"best_rated"}
    assert static_issues(fixed) == []


def test_a_hidden_write_is_shown_on_the_detail_page_of_its_row(sites: dict[str, Site]) -> None:
    """M010's repair: the column the marker changes is shown in the record of its table's detail
    page, so after the write the agent sees the new value there."""
    from veriweb.engine import Session
    from veriweb.engine.render import axtree_text

    broken, where = edited(sites["shop"], write_hidden_column)
    assert where in [i.location for i in static_issues(broken) if i.code == "M010"]
    fixed, repairs = repair_static(broken)[:2]
    # the edit's other effect: cancel_order no longer sets "cancelled", which its task needs (M007); no
    # control can be added for that, so the task is dropped and the site kept
    number = next(n for n, t in enumerate(broken.tasks) if t.id == "cancel_order")
    assert [(r.code, r.operator, r.location.split(".goal")[0]) for r in repairs] == [
        ("M010", "show_column", where), ("M007", "drop_task", f"$.tasks[{number}]")]
    assert static_issues(fixed) == [] and "cancel_order" not in [t.id for t in fixed.tasks]
    order = fixed.page("order")
    record = next(e for e in order.elements if e.type == "record")
    assert "City: {row.city}" in [getattr(e, "text", None) for e in record.elements]
    session = Session(fixed)
    try:
        row = session.db.conn.execute("SELECT o.id, o.city, u.username FROM orders o JOIN users u "
                                      "ON u.id = o.user_id ORDER BY o.id LIMIT 1").fetchone()
        page_text = axtree_text(session.reset(f"/orders/{row[0]}", user=row[2]))
        assert f"City: {row[1]}" in page_text, page_text
    finally:
        session.close()


def test_a_placeholder_over_the_only_stock_display_is_repaired_whole(sites: dict[str, Site]) -> None:
    """The product page's stock line replaced by a placeholder: M001 removes the placeholder (nothing
    says what it stood for), M010 finds the stock place_order changes shown nowhere, and its repair
    shows the stock on the product page again."""
    def stock_placeholder(data: Data) -> str:
        _, where = page(data, "product")
        line, path = find(data, lambda n: n.get("type") == "text" and "{row.stock}" in n.get("text", ""), under=where)
        line["text"] = "Placeholder text"
        return f"{path}.text"

    broken, where = edited(sites["shop"], stock_placeholder)
    assert {(i.code, i.location) for i in static_issues(broken)} >= {("M001", where)}
    assert "M010" in {i.code for i in static_issues(broken)}
    fixed, repairs = repair_static(broken)[:2]
    assert {(r.code, r.operator) for r in repairs} == {("M001", "restore_text"), ("M010", "show_column")}
    assert static_issues(fixed) == []
    texts = [n.get("text") for n, _ in nodes(to_data(fixed)["pages"]) if n.get("type") == "text"]
    assert "Stock: {row.stock}" in texts and "Placeholder text" not in texts


def test_no_safe_fix_leaves_the_site_unchanged(sites: dict[str, Site]) -> None:
    """Nothing is changed to fix what has no safe fix; a task that cannot be done any more (the hidden
    write's other effect: cancel_order no longer sets what its task needs) is dropped, nothing else."""
    for edit in (write_hidden_column_no_record, same_label_other_place):
        broken, _ = edited(sites["shop"], edit)
        fixed, repairs, _, left = repair_static(broken)[:4]
        assert left and {(r.code, r.operator) for r in repairs} <= {("M007", "drop_task")}
        kept = {t.id for t in fixed.tasks}
        assert fixed.model_dump(exclude={"tasks", "id"}) == broken.model_dump(exclude={"tasks", "id"})
        assert [t.model_dump() for t in fixed.tasks] == [t.model_dump() for t in broken.tasks if t.id in kept]

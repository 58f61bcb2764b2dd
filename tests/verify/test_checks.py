"""Each check code: a site that has the defect is reported at the right place; the clean site is not."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from veriweb.scaffold import Site
from veriweb.verify.checks import CHECKS, CLASSES, static_issues

Edit = Callable[[dict[str, Any]], None]


def at(data: Any, *path: Any) -> Any:
    for part in path:
        data = data[part]
    return data


def put(path: tuple[Any, ...], value: Any) -> Edit:
    def edit(data: dict[str, Any]) -> None:
        at(data, *path[:-1])[path[-1]] = value
    return edit


def add_page(data: dict[str, Any]) -> None:
    data["pages"].append({"id": "secret", "route": "/secret", "title": "Secret", "elements": []})


def duplicate_route(data: dict[str, Any]) -> None:
    data["pages"].append({"id": "home2", "route": "/", "title": "Again", "elements": [
        {"type": "link", "text": "About", "href": "/about"}]})


def remove_home(data: dict[str, Any]) -> None:
    data["pages"][0]["route"] = "/start"


def no_login(data: dict[str, Any]) -> None:
    data["auth"] = None


def duplicate_pk(data: dict[str, Any]) -> None:
    data["database"]["tables"][0]["rows"][1]["id"] = 1


def forbid_goal(data: dict[str, Any]) -> None:
    task = data["tasks"][3]
    task["constraints"].append({"description": "Do not change anything", "predicate": copy.deepcopy(task["goal"][0])})


def drop_review_form(data: dict[str, Any]) -> None:
    tab = data["pages"][3]["elements"][0]["elements"][4]["tabs"][2]["elements"]
    tab[1] = {"type": "text", "text": "Reviews are closed."}


def twin_product(data: dict[str, Any]) -> None:
    rows = data["database"]["tables"][1]["rows"]
    twin = copy.deepcopy(next(r for r in rows if r["name"] == "Red Flannel Shirt"))
    twin["id"] = max(r["id"] for r in rows) + 1
    rows.append(twin)


STATIC_CASES: list[tuple[str, Edit, str]] = [
    ("S001", put(("pages", 0, "elements", 4, "item", 0, "href"), "/categories/{row.id}"), "$.pages[0].elements[4].item[0].href"),
    ("S002", add_page, "$.pages[10]"),
    ("S003", put(("pages", 4, "elements", 1, "columns", 4, "cell", 0, "action", "marker"), "delete_item"),
     "$.pages[4].elements[1].columns[4].cell[0].action.marker"),
    ("S004", put(("pages", 6, "elements", 4, "fields"), []), "$.pages[6].elements[4].action.args.name"),
    ("S005", put(("pages", 7, "elements", 1, "query", "table"), "order"), "$.pages[7].elements[1].query.table"),
    ("S006", put(("pages", 0, "elements", 6, "query", "order_by", 0, "column"), "stars"),
     "$.pages[0].elements[6].query.order_by[0].column"),
    ("S007", put(("pages", 9, "elements", 2, "target"), "contact_form"), "$.pages[9].elements[2].target"),
    ("S008", duplicate_route, "$.pages[0].route"),
    ("S009", remove_home, "$.pages"),
    ("S010", no_login, "$.auth"),
    ("M001", put(("pages", 9, "elements", 1, "text"), "Lorem ipsum dolor sit amet."), "$.pages[9].elements[1].text"),
    ("M002", put(("pages", 0, "elements", 5, "text"), "  "), "$.pages[0].elements[5].text"),
    ("M003", put(("pages", 4, "elements", 1, "columns", 4, "cell", 0, "submit"), "Save"),
     "$.pages[4].elements[1].columns[4].cell[0].submit"),
    ("M004", put(("database", "tables", 1, "rows", 2, "price"), "24.99"), "$.database.tables[1].rows[2].price"),
    ("M005", put(("tasks", 3, "slots", "product"), "Velvet Tuxedo Jacket"), "$.tasks[3].slots.product"),
    ("M006", put(("tasks", 3, "goal", 0, "query", "where", 2, "value"), {"ref": "slot.colour"}), "$.tasks[3].goal[0]"),
    ("C001", put(("database", "tables", 3, "rows", 0, "product_id"), 999), "$.database.tables[3].rows[0].product_id"),
    ("C002", duplicate_pk, "$.database.tables[0].rows[0].id"),
    ("C003", put(("database", "tables", 1, "rows", 4, "name"), None), "$.database.tables[1].rows[4].name"),
    ("C004", put(("database", "tables", 4, "rows", 0, "total"), 4099), "$.database.tables[4].rows[0].total"),
    ("S011", put(("pages", 0, "elements", 6, "item", 0, "href"), "/product/{row.category_id}"),
     "$.pages[0].elements[6].item[0].href"),
    ("C005", put(("markers", 2, "invariants"), []), "$.markers[2].effects[2]"),
    ("C006", put(("pages", 3, "elements", 0, "elements", 1, "text"), "Price: {row.price}"),
     "$.pages[3].elements[0].elements[1].text"),
    ("C007", forbid_goal, "$.tasks[3].constraints[0]"),
    ("M007", drop_review_form, "$.tasks[7].footprint[0]"),
    ("M008", twin_product, "$.tasks[3].goal[0].query.where[1].value"),
]


def mutated(shop: Site, edit: Edit) -> Site:
    data = copy.deepcopy(shop.model_dump(mode="json"))
    data["id"] = ""
    edit(data)
    if "tasks" in data:  # keep instructions in step with edited slots
        from veriweb.scaffold.site import render_instruction

        for task in data["tasks"]:
            task["instruction"] = render_instruction(task["template"], task["slots"])
    return Site.model_validate(data)


def test_clean_example_site_has_no_issues(shop: Site) -> None:
    assert static_issues(shop) == []


@pytest.mark.parametrize("code, edit, location", STATIC_CASES, ids=[c[0] for c in STATIC_CASES])
def test_each_static_check_finds_its_defect_where_it_is(shop: Site, code: str, edit: Edit, location: str) -> None:
    issues = static_issues(mutated(shop, edit))
    found = [i for i in issues if i.code == code]
    assert found, f"{code} not reported; got {[(i.code, i.location) for i in issues]}"
    assert any(i.location == location for i in found), [i.location for i in found]
    for issue in found:
        assert issue.cls == CHECKS[code][0] and issue.cls in CLASSES and issue.message


def test_codes_cover_every_class() -> None:
    assert len(CHECKS) >= 20
    assert {cls for cls, _ in CHECKS.values()} == set(CLASSES)

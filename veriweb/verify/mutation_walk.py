"""Walking a site's JSON data for the out-of-model mutations (:mod:`veriweb.verify.mutations`).

Small readers over the raw data (elements and where they sit, tables, routes, record pages,
markers and the forms posting to them) and the typo every misspelling variant makes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from veriweb.engine.templates import Route

Data = dict[str, Any]
Edit = Callable[[Data], "str | None"]

_CHILD_KEYS = ("elements", "item", "items")


def elements(data: Data) -> Iterator[tuple[Data, str, int | None, str | None]]:
    """Every element of the layout and the pages: (node, JSON path, page index or None, bound table)."""
    def walk(items: list[Any], path: str, page: int | None, bound: str | None) -> Iterator[Any]:
        for index, node in enumerate(items):
            here = f"{path}[{index}]"
            yield node, here, page, bound
            inner = node["query"]["table"] if node.get("type") in ("list", "table", "record") else bound
            for key in _CHILD_KEYS:
                if isinstance(node.get(key), list):
                    yield from walk(node[key], f"{here}.{key}", page, inner)
            for number, tab in enumerate(node.get("tabs") or []):
                yield from walk(tab.get("elements", []), f"{here}.tabs[{number}].elements", page, inner)
            for number, column in enumerate(node.get("columns") or []):
                yield from walk(column.get("cell", []), f"{here}.columns[{number}].cell", page, inner)

    layout = data.get("layout", {})
    for part in ("header", "footer"):
        yield from walk(layout.get(part, []), f"$.layout.{part}", None, None)
    for number, page in enumerate(data["pages"]):
        yield from walk(page.get("elements", []), f"$.pages[{number}].elements", number, None)


def parent_list(data: Data, path: str) -> tuple[list[Any], int]:
    """The list holding the element at ``path`` and its index there."""
    steps = re.findall(r"\.([A-Za-z_]\w*)|\[(\d+)\]", path[1:])
    node: Any = data
    for key, index in steps[:-1]:
        node = node[key] if key else node[int(index)]
    return node, int(steps[-1][1])


def table(data: Data, name: str) -> tuple[Data, int] | tuple[None, None]:
    for index, item in enumerate(data["database"]["tables"]):
        if item["name"] == name:
            return item, index
    return None, None


def pk(tbl: Data) -> str:
    return tbl.get("primary_key", "id")


def routes(data: Data) -> list[Route]:
    return [Route.compile(p["id"], p["route"]) for p in data["pages"]]


def resolve(data: Data, href: str) -> str | None:
    path = re.sub(r"\{[^}]*\}", "1", href.split("?")[0]) or "/"
    for route in routes(data):
        if route.match(path) is not None:
            return route.page_id
    return None


def record_pages(data: Data) -> dict[str, tuple[str, str]]:
    """Page id -> (table, column) its record looks up by its one route parameter."""
    out = {}
    for page in data["pages"]:
        route = Route.compile(page["id"], page["route"])
        if len(route.params) != 1:
            continue
        ref = f"param.{route.params[0][0]}"
        for node, _, _, _ in elements({"pages": [page], "layout": {}}):
            if node.get("type") == "record":
                for cond in node["query"].get("where", []):
                    if isinstance(cond.get("value"), dict) and cond["value"].get("ref") == ref:
                        out.setdefault(page["id"], (node["query"]["table"], cond["column"]))
    return out


def marker(data: Data, name: str) -> Data | None:
    return next((m for m in data["markers"] if m["name"] == name), None)


def marker_forms(data: Data) -> Iterator[tuple[Data, str, str | None, Data]]:
    """Every form posting to an existing marker: (form, path, bound table, marker)."""
    for node, path, _, bound in elements(data):
        if node.get("type") == "form" and node.get("action", {}).get("kind") == "marker":
            found = marker(data, node["action"].get("marker", ""))
            if found is not None:
                yield node, path, bound, found


def typo(word: str) -> str:
    """Swap two letters in the middle of ``word`` (or drop one when they are the same)."""
    if len(word) < 4:
        return word + word[-1]
    middle = len(word) // 2
    a, b = word[middle - 1], word[middle]
    if a == b:
        return word[:middle] + word[middle + 1:]
    return word[:middle - 1] + b + a + word[middle + 1:]


def ops(m: Data) -> set[str]:
    """The effect operations (insert, update, delete, ...) of marker data ``m``."""
    return {e["op"] for e in m.get("effects", [])}


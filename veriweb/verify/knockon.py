"""Knock-on effects: where else an injected defect shows, under other checks.

A defect rarely shows at one place only: orphaning a page can orphan the pages only it links
to, removing a form leaves every task that needed its marker without a control, and a broken
order line upsets its order's total. These are real defects of the raw site, so the ground
truth records them (per defect, as (code, path) pairs) and precision counts them; recall is
measured on each defect's own location only. They are computed from the site's JSON, by the
definition of each effect, not by running the checks.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from veriweb.engine.templates import Route
from veriweb.scaffold import Site
from veriweb.verify import checks as C
from veriweb.verify.injectors import _STEP, Hit, put


def _walk_data(elements: list[Any], path: str) -> Any:
    """Every element dict under ``elements`` with its JSON path."""
    for index, element in enumerate(elements):
        here = f"{path}[{index}]"
        yield element, here
        for attr in ("elements", "item", "items"):
            if element.get(attr):
                yield from _walk_data(element[attr], f"{here}.{attr}")
        for number, tab in enumerate(element.get("tabs") or []):
            yield from _walk_data(tab["elements"], f"{here}.tabs[{number}].elements")
        for number, column in enumerate(element.get("columns") or []):
            yield from _walk_data(column["cell"], f"{here}.columns[{number}].cell")


def _data_elements(data: dict[str, Any]) -> Any:
    for part in ("header", "footer"):
        for element, path in _walk_data(data["layout"][part], f"$.layout.{part}"):
            yield element, path, None
    for number, page in enumerate(data["pages"]):
        for element, path in _walk_data(page["elements"], f"$.pages[{number}].elements"):
            yield element, path, page["id"]


def reachable_pages(data: dict[str, Any]) -> set[str]:
    """Page ids a visitor can reach from ``/`` (links, GET forms, redirects; the layout's links
    on every page that shows it; the login page, where the site sends visitors)."""
    routes = [Route.compile(p["id"], p["route"]) for p in data["pages"]]
    edges: dict[str | None, set[str]] = {}
    for element, _, page_id in _data_elements(data):
        target = element.get("href") if element.get("type") == "link" else None
        if element.get("type") == "form":
            target = element["action"].get("route") or element["action"].get("redirect")
        dest = C.resolve_href(routes, target) if target else None
        if dest is not None:
            edges.setdefault(page_id, set()).add(dest)
    layout = {p["id"] for p in data["pages"] if p.get("layout", True)}
    start = [C.resolve_href(routes, "/")]
    if data.get("auth"):
        start.append(C.resolve_href(routes, data["auth"].get("login_page", "/login")))
    seen: set[str] = set()
    stack = [s for s in start if s is not None]
    if stack:
        stack += sorted(edges.get(None, ()))
    while stack:
        page_id = stack.pop()
        if page_id in seen:
            continue
        seen.add(page_id)
        stack.extend(edges.get(page_id, ()))
        if page_id in layout:
            stack.extend(edges.get(None, ()))
    return seen


def uncovered_entries(data: dict[str, Any]) -> set[str]:
    """Footprint entries of mutate tasks that no form's marker can write, as JSON paths."""
    markers = {m["name"]: m for m in data["markers"]}
    writes = set()
    for element, _, _ in _data_elements(data):
        if element.get("type") == "form" and element["action"].get("kind") == "marker":
            marker = markers.get(element["action"]["marker"])
            writes.update((e["table"], e["op"]) for e in (marker["effects"] if marker else []))
    out = set()
    for number, task in enumerate(data["tasks"]):
        if task["kind"] == "mutate":
            for index, entry in enumerate(task.get("footprint", [])):
                if not any((entry["table"], op) in writes for op in entry.get("ops", ["insert", "update", "delete"])):
                    out.add(f"$.tasks[{number}].footprint[{index}]")
    return out


def _line_parents(site: Site, path: str, value: Any) -> set[str]:
    """A row edit on a line table (quantity and money lines pointing at a row with a money total)
    shows at its parents' totals (the row's parent before and after the edit): their paths.
    An added row (``value`` a whole row) counts as a new line of its parent."""
    steps = _STEP.findall(path[1:])
    if len(steps) < 5 or steps[0][0] != "database" or steps[1][0] != "tables":
        return set()
    table = site.database.tables[int(steps[2][1])]
    if not any(c.name in ("qty", "quantity") for c in table.columns):
        return set()
    r_index = int(steps[4][1])
    rows = []
    if r_index < len(table.rows):
        rows.append(table.rows[r_index])
    if len(steps) == 5 and isinstance(value, dict):
        rows.append(value)
    elif len(steps) == 6 and rows:
        rows.append(rows[0] | {steps[5][0]: value})
    out = set()
    for fk in table.foreign_keys:
        for p_index, parent in enumerate(site.database.tables):
            total = parent.column("total")
            if parent.name != fk.ref_table or total is None or total.type != "money":
                continue
            wanted = {row.get(fk.column) for row in rows}
            for k, prow in enumerate(parent.rows):
                if prow.get(parent.primary_key) in wanted:
                    out.add(f"$.database.tables[{p_index}].rows[{k}].total")
    return out


def _edits_pages(hit: Hit) -> bool:
    return any(".elements" in p or ".header" in p or ".footer" in p for p, _ in hit.edits)


def knock_on(site: Site, clean: dict[str, Any], hit: Hit) -> tuple[tuple[str, str], ...]:
    """Where else a defect shows, as (check code, path), computed from its edits alone: pages it
    leaves unreachable (S002), task writes it leaves without a form (M007), parent totals its
    line edits upset (C004)."""
    data = json.loads(json.dumps(clean))
    for path, value in hit.edits:
        put(data, path, copy.deepcopy(value))
    out: set[tuple[str, str]] = set()
    if _edits_pages(hit):
        before, after = reachable_pages(clean), reachable_pages(data)
        out |= {("S002", f"$.pages[{n}]") for n, p in enumerate(clean["pages"]) if p["id"] in before - after}
        out |= {("M007", e) for e in uncovered_entries(data) - uncovered_entries(clean)}
    for path, value in hit.edits:
        out |= {("C004", t) for t in _line_parents(site, path, value)}
    return tuple(sorted(out))


def joint_knock_on(site: Site, clean: dict[str, Any], raw: dict[str, Any],
                   hits: list[Hit]) -> dict[int, set[tuple[str, str]]]:
    """Effects only several defects make together (two links to a page both broken, both forms
    writing a table gone), charged to every page-editing defect among them."""
    alone = {k for hit in hits for k in hit.knock_on}
    unreachable = reachable_pages(clean) - reachable_pages(raw)
    joint = {("S002", f"$.pages[{n}]") for n, p in enumerate(clean["pages"]) if p["id"] in unreachable}
    joint |= {("M007", e) for e in uncovered_entries(raw) - uncovered_entries(clean)}
    joint -= alone
    editors = [n for n, hit in enumerate(hits) if _edits_pages(hit)]
    return {n: joint for n in editors} if joint else {}


__all__ = ["joint_knock_on", "knock_on", "reachable_pages", "uncovered_entries"]

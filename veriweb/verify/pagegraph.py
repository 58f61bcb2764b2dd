"""The static page graph of a scaffold, and how many links each page is from the pages a task needs.

Pages are nodes; links, search forms and a marker form's redirect are edges (the layout's links
leave every page that shows the layout). The pages a task needs are the ones its goal names (a
navigate task), the ones with a list, table or record of the table its answer reads (a retrieve
task), and the ones with a form whose marker writes the task's tables (a mutate task). The
search uses the distances as a heuristic only.
"""

from __future__ import annotations

import re
from collections import defaultdict, deque
from typing import Any

from veriweb.engine.templates import Route
from veriweb.scaffold import Site, Task
from veriweb.scaffold.values import AllOf, AnyOf, Not, PageIs, QueryValue

FAR = 6
"""The distance given to pages from which no page that matters can be reached."""


def _walk(elements: list[Any]) -> list[Any]:
    out: list[Any] = []
    stack = list(elements)
    while stack:
        element = stack.pop()
        out.append(element)
        for attr in ("elements", "item", "items"):
            children = getattr(element, attr, None)
            if isinstance(children, list):
                stack.extend(children)
        for tab in getattr(element, "tabs", None) or []:
            stack.extend(tab.elements)
        for column in getattr(element, "columns", None) or []:
            stack.extend(column.cell)
    return out


def resolve_template(routes: list[Route], href: str) -> str | None:
    """The page id a URL template leads to (placeholders filled with a plausible value)."""
    path = re.sub(r"\{[^}]*\}", "1", href.split("?")[0].split("#")[0]) or "/"
    return next((r.page_id for r in routes if r.match(path) is not None), None)


def _predicate_pages(predicate: Any) -> set[str]:
    if isinstance(predicate, PageIs):
        return {predicate.page}
    if isinstance(predicate, (AllOf, AnyOf)):
        return set().union(*(_predicate_pages(p) for p in predicate.items)) if predicate.items else set()
    if isinstance(predicate, Not):
        return set()
    return set()


def _answer_tables(task: Task) -> set[str]:
    spec = task.answer
    if spec is None:
        return set()
    tables = set()
    if spec.list_query is not None:
        tables.add(spec.list_query.table)
    if isinstance(spec.value, QueryValue):
        tables.add(spec.value.query.table)
    return tables


def targets(site: Site, task: Task, good_markers: set[str]) -> set[str]:
    """Page ids that matter for the task (empty: no opinion)."""
    targets: set[str] = set()
    for predicate in task.goal:
        targets |= _predicate_pages(predicate)
    if targets:
        return targets
    tables = _answer_tables(task)
    for page in site.pages:
        for element in _walk(page.elements):
            kind = getattr(element, "type", "")
            if task.kind == "mutate" and kind == "form" and getattr(element.action, "marker", None) in good_markers:
                targets.add(page.id)
            elif tables and kind in ("list", "table", "record") and element.query.table in tables:
                targets.add(page.id)
    return targets


def distances(site: Site, routes: list[Route], targets: set[str]) -> dict[str, int]:
    """Links from every page to the nearest target, on the scaffold's page graph (layout included)."""
    if not targets:
        return {}
    reverse: dict[str, set[str]] = defaultdict(set)
    layout_targets: set[str] = set()
    for element in _walk(list(site.layout.header) + list(site.layout.footer)):
        for href in _hrefs(element):
            dest = resolve_template(routes, href)
            if dest is not None:
                layout_targets.add(dest)
    for page in site.pages:
        outgoing = set(layout_targets) if page.layout else set()
        for element in _walk(page.elements):
            for href in _hrefs(element):
                dest = resolve_template(routes, href)
                if dest is not None:
                    outgoing.add(dest)
        for dest in outgoing:
            reverse[dest].add(page.id)
    distance = {page_id: 0 for page_id in targets}
    queue = deque(targets)
    while queue:
        page_id = queue.popleft()
        for source in reverse.get(page_id, ()):
            if source not in distance:
                distance[source] = distance[page_id] + 1
                queue.append(source)
    return {page_id: min(d, FAR) for page_id, d in distance.items()}


def _hrefs(element: Any) -> list[str]:
    kind = getattr(element, "type", "")
    if kind == "link":
        return [element.href]
    if kind == "form":
        target = getattr(element.action, "route", None) or getattr(element.action, "redirect", None)
        return [target] if target else []
    return []


__all__ = ["FAR", "distances", "resolve_template", "targets"]

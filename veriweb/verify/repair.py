"""Repair operators: one pure function per defect code, and the fixed-point loop that applies them.

An operator takes the site's JSON data (the round's own, never the site's), the issue a check
reported and a :class:`Context`, edits the data in place and returns what it changed and what it
touched, or ``None`` when it cannot fix the issue. The loop (:func:`repair_static`) runs the
static checks, applies one operator per issue (what it changed is validated, and undone if it
fails: :class:`_Ledger`), and checks again, re-running only the checks that read a field the
round changed (:mod:`veriweb.verify.recheck`), until nothing changes or the round limit is
reached. Every repair is logged as a :class:`Repair` (code, location, operator, what changed).

Edits go deepest-location-first within a round, so removing an element never shifts the index
of another issue's location in the same round. What an operator touched (tables, pages, markers,
tasks) decides which tasks must be re-verified: :func:`invalidated` lists every task that reads
something a repair touched.

Operators never read a raw corpus's defect sidecar: they see only the scaffold and the issue.
"""

from __future__ import annotations

import ast
import datetime as dt
import difflib
import heapq
import io
import json
import pickle
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from veriweb.engine.templates import Route
from veriweb.errors import VeriwebError
from veriweb.scaffold import Site
from veriweb.scaffold.site import Marker, Page, Table, Task
from veriweb.scaffold.io import from_data, to_data
from veriweb.scaffold.site import render_instruction
from veriweb.verify.checks import Issue, resolve_href
from veriweb.verify.checks_keys import expected_unit_total
from veriweb.verify.form_fields import FIELD_TYPES, build_fields, humanise
from veriweb.verify.placement import place_form
from veriweb.verify.recheck import CheckRun, check_site, recheck
from veriweb.verify.repair_links import heading_columns, json_dicts, link_by_values
from veriweb.verify.wording import singular

MAX_ROUNDS = 6
"""How many check-repair rounds the loop runs before giving up on what is left."""

_CONTAINERS = ("elements", "item", "items", "cell", "header", "footer")
_TOKEN = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]")


@dataclass(frozen=True)
class Repair:
    """One logged repair: which issue, which operator, and what it changed."""

    code: str
    location: str
    operator: str
    change: str

    def as_dict(self) -> dict[str, str]:
        """JSON data of the repair."""
        return {"code": self.code, "location": self.location, "operator": self.operator, "change": self.change}


@dataclass
class Touch:
    """What a repair changed, so the tasks that read it can be re-verified."""

    tables: set[str] = field(default_factory=set)
    pages: set[str] = field(default_factory=set)
    markers: set[str] = field(default_factory=set)
    tasks: set[str] = field(default_factory=set)

    def update(self, other: Touch) -> None:
        """Add what ``other`` touched."""
        self.tables |= other.tables
        self.pages |= other.pages
        self.markers |= other.markers
        self.tasks |= other.tasks

    def __bool__(self) -> bool:
        return bool(self.tables or self.pages or self.markers or self.tasks)


@dataclass
class Context:
    """What operators may consult besides the data: the issue list of the round; and what the
    round left: the tasks dropped (with why), the site's top-level fields its repairs changed, and
    the traced static checks of the last site checked (:func:`repair_static`)."""

    issues: list[Issue] = field(default_factory=list)
    dropped_tasks: dict[str, str] = field(default_factory=dict)
    changed: set[str] = field(default_factory=set)
    checked: CheckRun | None = None
    deferred: set[tuple[str, str]] = field(default_factory=set)
    """Issues a late operator (:data:`_LATE`) was held back for once: the next round runs it whatever else runs."""


Outcome = tuple[str, Touch]
Operator = Callable[[dict[str, Any], Issue, Context], Outcome | None]

# ----------------------------------------------------------------------------- JSON paths


def parse_path(path: str) -> list[str | int]:
    """``$.pages[3].elements[1].href`` -> ``['pages', 3, 'elements', 1, 'href']``.

    Raises:
        VeriwebError: the path is not a ``$``-rooted JSON path of keys and indexes.
    """
    if not path.startswith("$"):
        raise VeriwebError(f"location {path!r} is not a JSON path (it must start with $)")
    tokens: list[str | int] = []
    pos = 1
    for match in _TOKEN.finditer(path, 1):
        if match.start() != pos:
            raise VeriwebError(f"location {path!r} is not a JSON path of .keys and [indexes]")
        tokens.append(match.group(1) if match.group(1) is not None else int(match.group(2)))
        pos = match.end()
    if pos != len(path):
        raise VeriwebError(f"location {path!r} has trailing text at {path[pos:]!r}")
    return tokens


def get_at(data: Any, tokens: list[str | int], default: Any = None) -> Any:
    """The value at ``tokens`` in ``data``, or ``default`` when any step is missing."""
    node = data
    for token in tokens:
        if isinstance(token, int) and isinstance(node, list) and 0 <= token < len(node):
            node = node[token]
        elif isinstance(token, str) and isinstance(node, dict) and token in node:
            node = node[token]
        else:
            return default
    return node


def site_of(data: dict[str, Any]) -> Site:
    """The site ``data`` holds, for an operator that reads it through the models: validated, not
    hashed (its ``id`` is whatever the data says; no operator reads it)."""
    return Site.model_validate(data)


def _table_row(data: dict[str, Any], tokens: list[str | int]) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The table and the row a ``$.database.tables[i].rows[j]...`` path points into, or ``None``."""
    table, row = get_at(data, tokens[:3]), get_at(data, tokens[:5])
    return (table, row) if isinstance(table, dict) and isinstance(row, dict) else None


def _sort_key(path: str) -> tuple[Any, ...]:
    try:
        return tuple((0, t) if isinstance(t, int) else (1, t) for t in parse_path(path))
    except VeriwebError:
        return ()


def _element_path(tokens: list[str | int]) -> list[str | int] | None:
    """The path of the innermost element (an entry of an element list) at or above ``tokens``."""
    for end in range(len(tokens), 1, -1):
        if isinstance(tokens[end - 1], int) and tokens[end - 2] in _CONTAINERS:
            return tokens[:end]
    return None


def _page_of(tokens: list[str | int], data: dict[str, Any]) -> set[str]:
    if len(tokens) >= 2 and tokens[0] == "pages" and isinstance(tokens[1], int):
        page = get_at(data, tokens[:2])
        return {page["id"]} if isinstance(page, dict) else set()
    if tokens and tokens[0] == "layout":
        return {p["id"] for p in data.get("pages", []) if p.get("layout", True)}
    return set()


def _remove_at(data: dict[str, Any], tokens: list[str | int]) -> Any:
    parent = get_at(data, tokens[:-1])
    index = tokens[-1]
    if isinstance(parent, list) and isinstance(index, int) and 0 <= index < len(parent):
        return parent.pop(index)
    return None


# ----------------------------------------------------------------------------- site helpers


def _routes(data: dict[str, Any]) -> list[Route]:
    return [Route.compile(p["id"], p["route"]) for p in data.get("pages", [])]


def _tables(data: dict[str, Any]) -> list[dict[str, Any]]:
    return data.get("database", {}).get("tables", [])


def _table(data: dict[str, Any], name: str) -> dict[str, Any] | None:
    return next((t for t in _tables(data) if t["name"] == name), None)


def _marker(data: dict[str, Any], name: str) -> dict[str, Any] | None:
    return next((m for m in data.get("markers", []) if m["name"] == name), None)


def _closest(word: str, options: list[str], cutoff: float = 0.6) -> str | None:
    found = difflib.get_close_matches(word, sorted(set(options)), n=1, cutoff=cutoff)
    return found[0] if found else None


def ranked_matches(word: str, options: list[str], n: int) -> list[str]:
    """``difflib.get_close_matches(word, options, n, cutoff=0.0)``, the same list in the same order,
    without the full ratio of every option: options are taken by their ``quick_ratio`` (an upper
    bound of ``ratio``), highest first, until it falls below the ``n``-th best ratio found."""
    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(word)
    bounds = []
    for option in options:
        matcher.set_seq1(option)
        bounds.append((matcher.quick_ratio(), option))
    bounds.sort(key=lambda pair: pair[0], reverse=True)
    best: list[tuple[float, str]] = []  # a min-heap of the n best (ratio, option) so far
    for bound, option in bounds:
        if len(best) == n and bound < best[0][0]:
            break
        matcher.set_seq1(option)
        pair = (matcher.ratio(), option)
        if len(best) < n:
            heapq.heappush(best, pair)
        elif pair > best[0]:
            heapq.heapreplace(best, pair)
    return [option for _, option in sorted(best, reverse=True)]


def _placeholders(text: str) -> list[str]:
    return re.findall(r"\{[^}]*\}", text)


def _href_for(route: str, params: list[str]) -> str | None:
    """A URL template for ``route`` keeping the old href's placeholders (``{row.id}``), if they fit."""
    slots = re.findall(r"\{[^}]*\}", route)
    if len(slots) != len(params):
        return None
    out = route
    for slot, value in zip(slots, params):
        out = out.replace(slot, value, 1)
    return out


def _best_route(data: dict[str, Any], href: str) -> str | None:
    """The href of the page whose route matches ``href`` best (same number of placeholders)."""
    ranked = _ranked_routes(data, href)
    return ranked[0] if ranked else None


def _ranked_routes(data: dict[str, Any], href: str) -> list[str]:
    """The hrefs of the pages whose routes match ``href`` (same number of placeholders, at least
    half alike), best first; ties keep the pages' order."""
    path = href.split("?")[0].split("#")[0]
    params = _placeholders(path)
    bare = re.sub(r"\{[^}]*\}", "{}", path)
    scored = []
    for number, page in enumerate(data.get("pages", [])):
        route = page["route"]
        candidate = _href_for(route, params)
        if candidate is None:
            continue
        ratio = difflib.SequenceMatcher(None, bare, re.sub(r"\{[^}]*\}", "{}", route)).ratio()
        if ratio >= 0.5:
            scored.append((-ratio, number, candidate))
    return [candidate for _, _, candidate in sorted(scored)]


def _opens_wrong_record(data: dict[str, Any], location: str) -> bool:
    """Whether the row link at ``location`` passes its page another table's key (S011 there)."""
    from veriweb.verify.intent import check_link_keys

    return any(i.location == location for i in check_link_keys(site_of(data)))


def _task_index(data: dict[str, Any], tokens: list[str | int]) -> int | None:
    if len(tokens) >= 2 and tokens[0] == "tasks" and isinstance(tokens[1], int):
        return tokens[1]
    return None


def _drop_task(data: dict[str, Any], index: int, ctx: Context, reason: str) -> Outcome | None:
    tasks = data.get("tasks", [])
    if not 0 <= index < len(tasks):
        return None
    task = tasks.pop(index)
    ctx.dropped_tasks[task["id"]] = reason
    return f"dropped task {task['id']!r}: {reason}", Touch(tasks={task["id"]})


# ----------------------------------------------------------------------------- structural operators


def retarget_link(data: dict[str, Any], issue: Issue, ctx: Context) -> Outcome | None:
    """S001: a route that takes only slugs while links put names in it takes any text (the links wait
    a round for it); point a broken link (or form target) at the page whose route matches best, else
    remove it."""
    tokens = parse_path(issue.location)
    parent = get_at(data, tokens[:-1])
    key = tokens[-1]
    pages = _page_of(tokens, data)
    wanted = re.search(r"takes only a slug, but .*; it should be '([^']*)'$", issue.message)
    if wanted is not None and key == "route" and isinstance(parent, dict):  # a route too narrow for its names
        old, parent["route"] = parent["route"], wanted.group(1)
        return f"route {old!r} -> {wanted.group(1)!r}", Touch(pages={parent.get("id", "")})
    if any(i.code == "S001" and "takes only a slug, but" in i.message for i in ctx.issues):
        return None  # a route too narrow for the names put in it is fixed this round: links wait for it
    if key == "href" and isinstance(parent, dict):
        old = parent.get("href", "")
        ranked = _ranked_routes(data, old) if old.startswith("/") else []
        for new in ranked:  # a row link goes to a page that looks up what it passes (not S011)
            if resolve_href(_routes(data), new) is None:
                continue
            parent["href"] = new
            if "{row." not in new or len(ranked) == 1 or not _opens_wrong_record(data, issue.location):
                return f"link {old!r} -> {new!r}", Touch(pages=pages)
            parent["href"] = old
    elif key == "action" and isinstance(parent, dict):
        action = parent.get("action", {})
        attr = "route" if "route" in action else "redirect"
        old = action.get(attr, "")
        new = _best_route(data, old)
        if new is not None:
            action[attr] = new
            return f"form target {old!r} -> {new!r}", Touch(pages=pages)
        if attr == "redirect" and action.get("kind") == "marker":
            del action["redirect"]
            return f"dropped the redirect to {old!r}", Touch(pages=pages)
    return remove_element(data, issue, ctx)


def remove_element(data: dict[str, Any], issue: Issue, ctx: Context) -> Outcome | None:
    """Last resort for an element that cannot be fixed: remove it from its page."""
    tokens = parse_path(issue.location)
    path = _element_path(tokens)
    if path is None:
        return None
    removed = _remove_at(data, path)
    if removed is None:
        return None
    label = removed.get("text") or removed.get("submit") or removed.get("label") or removed.get("id") or ""
    return f"removed {removed.get('type', 'element')} {label!r}", Touch(pages=_page_of(tokens, data))


def link_orphan(data: dict[str, Any], issue: Issue, ctx: Context) -> Outcome | None:
    """S002: link an unreachable page from the navigation (from the home page when no layout nav); the
    page of one record is reached again from the lists of its records whose links went elsewhere."""
    tokens = parse_path(issue.location)
    if tokens[-1:] == ["layout"] and issue.message.endswith("it should keep the site's layout"):
        page = get_at(data, tokens[:-1])  # a dead end without the layout: the layout back
        if not isinstance(page, dict) or page.get("layout", True):
            return None
        del page["layout"]
        return f"page {page['id']!r} keeps the site's layout", Touch(pages={page["id"]})
    page = get_at(data, tokens)
    if not isinstance(page, dict):
        return None
    named = _link_where_named(data, page, {i.location for i in ctx.issues if i.code == "S002"})
    if named is not None:
        return named
    rows = _row_links_elsewhere(data, page)
    if rows is not None:
        return rows
    href = page["route"]
    if _placeholders(href):
        href = _example_href(data, page)
        if href is None:
            return None
    link = {"type": "link", "text": page.get("title") or humanise(page["id"]), "href": href}
    header = data.setdefault("layout", {}).setdefault("header", [])
    nav = next(_navs(header), None)
    if nav is not None and page.get("layout", True) is not False:
        nav.setdefault("elements", []).append(link)
        return f"linked {page['id']!r} from the navigation as {href!r}", Touch(pages={page["id"]})
    home = next((p for p in data["pages"] if resolve_href([Route.compile(p["id"], p["route"])], "/")), None)
    if home is None:
        return None
    home.setdefault("elements", []).append(link)
    return f"linked {page['id']!r} from the home page as {href!r}", Touch(pages={page["id"], home["id"]})


def _row_links_elsewhere(data: dict[str, Any], page: dict[str, Any]) -> Outcome | None:
    """An orphan page that shows one record of a table by its key (``/category/{id}``), while lists of
    that table link each row, named as that page names it, somewhere else (``/search?q={row.name}``):
    those links open the record's page again."""
    holes = [h.strip("{}").split(":")[0] for h in _placeholders(page["route"])]
    shown = next((e for e in json_dicts(page.get("elements", [])) if e.get("type") == "record"
                  and any(c.get("column") == "id" and c.get("value") == {"ref": f"param.{holes[0]}"}
                          for c in e.get("query", {}).get("where", []))), None) if len(holes) == 1 else None
    if shown is None:
        return None
    table, href = shown["query"]["table"], re.sub(r"\{[^}]*\}", "{row.id}", page["route"])
    titled = {m for e in json_dicts(shown.get("elements", [])) if e.get("type") == "heading"
              for m in re.findall(r"\{row\.(\w+)", e.get("text", ""))}  # what names the record on its page
    moved = []
    for other in data["pages"]:
        for listed in json_dicts(other.get("elements", [])):
            if listed.get("type") not in ("list", "table") or listed.get("query", {}).get("table") != table:
                continue
            for link in json_dicts(listed.get("item", []) + [c for col in listed.get("columns", []) for c in col.get("cell", [])]):
                said = set(re.findall(r"\{row\.(\w+)", link.get("text", "")))
                if link.get("type") == "link" and "{row." in link.get("href", "") and "{row.id}" not in link["href"] \
                        and said and said <= titled:
                    moved.append((link["href"], other["id"]))
                    link["href"] = href
    if not moved:
        return None
    return (f"row links {', '.join(sorted({h for h, _ in moved}))} -> {href!r}, the page of their record",
            Touch(pages={page["id"]} | {p for _, p in moved}))


def _texts_in(elements: list[Any]) -> Iterator[dict[str, Any]]:
    """Every text element, depth first (item templates, cells, sections, widgets)."""
    for element in elements:
        if not isinstance(element, dict):
            continue
        if element.get("type") == "text":
            yield element
        for attr in ("elements", "item", "items"):
            yield from _texts_in(element.get(attr, []))
        for tab in element.get("tabs", []):
            yield from _texts_in(tab.get("elements", []))
        for column in element.get("columns", []):
            yield from _texts_in(column.get("cell", []))


def _link_where_named(data: dict[str, Any], page: dict[str, Any], orphans: set[str]) -> Outcome | None:
    """Turn the plain text that names an orphan page into a link to it.

    A sub-page of a record (``/projects/{id}/issues/new``) is linked from the page of that record
    (``/projects/{id}``), once a visitor can reach that (it is not in ``orphans``, the round's S002
    locations: until then, nothing is done).
    A page of one record (``/product/{id}``) is linked from the rows of lists and tables of the
    same table elsewhere (a text of the row, see :func:`_row_link_text`, becomes a link to
    ``/product/{row.id}``), else from rows of other tables that show its
    key (:func:`veriweb.verify.repair_links.link_by_values`); a page without parameters from a
    text that says its title.
    """
    slots = _placeholders(page["route"])
    touched: set[str] = set()
    count = 0
    if len(slots) == 1:
        record = next((e for e in page.get("elements", []) if isinstance(e, dict) and e.get("type") == "record"), None)
        if record is None:
            return None
        source = record["query"]["table"]  # a table or a view
        param = slots[0].strip("{}").split(":")[0]
        column = next((c["column"] for c in record["query"].get("where", [])
                       if c.get("value") == {"ref": f"param.{param}"}), None)
        if column is None:
            return None
        href = page["route"].replace(slots[0], "{row." + column + "}")
        parent = _parent_record_page(data, page, source, column, slots[0])
        if parent is not None and f"$.pages[{data['pages'].index(parent)}]" in orphans:
            return None  # the record's page is linked first; a later round links this one from it
        if parent is not None:  # a sub-page of a record (/projects/{id}/issues/new): linked from the record's page
            inner = next(e for e in parent.get("elements", []) if isinstance(e, dict) and e.get("type") == "record")
            inner.setdefault("elements", []).append(
                {"type": "link", "text": page.get("title") or humanise(page["id"]), "href": href})
            return (f"linked {page['id']!r} from the page of its record, {parent['id']!r}",
                    Touch(pages={page["id"], parent["id"]}))
        names = heading_columns(page) | {column}
        for other in data["pages"]:
            if other is page:
                continue
            for bound in _bound(other.get("elements", []), source):
                texts = list(_texts_in(bound.get("item", []) + [c for col in bound.get("columns", [])
                                                                for c in col.get("cell", [])]))
                text = _row_link_text(texts, names)
                if text is not None:
                    shown = text_value(text, bound)
                    text.clear()
                    text.update(type="link", text=shown, href=href)
                    touched.add(other["id"])
                    count += 1
        if not count:  # rows of other tables that show the record's key, as the data tells
            count, found = link_by_values(data, page, source, column, slots[0])
            touched |= found
    else:
        title = (page.get("title") or "").strip().casefold()
        for other in data["pages"] + [{"id": None, "elements": data.get("layout", {}).get("header", [])
                                       + data.get("layout", {}).get("footer", [])}]:
            for text in _texts_in(other.get("elements", [])):
                if title and text["text"].strip().casefold() == title:
                    shown = text["text"]
                    text.clear()
                    text.update(type="link", text=shown, href=page["route"])
                    touched |= {other["id"]} if other["id"] else _page_of(["layout"], data)
                    count += 1
    if not count:
        return None
    return f"linked {page['id']!r} from {count} place(s) that named it in plain text", Touch(pages=touched | {page["id"]})


def _row_link_text(texts: list[dict[str, Any]], names: set[str]) -> dict[str, Any] | None:
    """Which text of a row becomes its link to the record: one showing what the record is called
    (``names``: the columns its page's heading shows, or its key), else a short fixed word of the
    row ("Select", "View details": what a row's link usually says), else its first value."""
    for text in texts:
        if set(re.findall(r"\{row\.(\w+)", text["text"])) & names:
            return text
    for text in texts:
        if text["text"].strip() and "{" not in text["text"] and len(text["text"].split()) <= 3:
            return text
    return next((t for t in texts if "{row." in t["text"]), None)


def _parent_record_page(data: dict[str, Any], page: dict[str, Any], source: str, column: str,
                        slot: str) -> dict[str, Any] | None:
    """The page of the same record whose route the page's route extends (``/projects/{id}`` for
    ``/projects/{id}/issues/new``)."""
    head = page["route"].split(slot)[0] + slot
    if head == page["route"]:
        return None
    for number, other in enumerate(data["pages"]):
        if other is page:
            continue
        slots = _placeholders(other["route"])
        record = next((e for e in other.get("elements", []) if isinstance(e, dict) and e.get("type") == "record"), None)
        if (len(slots) == 1 and record is not None and record["query"].get("table") == source
                and other["route"].replace(slots[0], slot) == head
                and any(c.get("column") == column and c.get("value") == {"ref": f"param.{slots[0].strip('{}').split(':')[0]}"}
                        for c in record["query"].get("where", []))):
            return other
    return None


def text_value(text: dict[str, Any], bound: dict[str, Any]) -> str:
    """The words a text element shows (kept as the link's label)."""
    return str(text.get("text", "")) or humanise(bound.get("name", "item"))


def _bound(elements: list[Any], table: str) -> Iterator[dict[str, Any]]:
    """Lists and tables bound to ``table``, anywhere in ``elements``."""
    for element in elements:
        if not isinstance(element, dict):
            continue
        if element.get("type") in ("list", "table") and element.get("query", {}).get("table") == table:
            yield element
        for attr in ("elements", "item", "items"):
            yield from _bound(element.get(attr, []), table)
        for tab in element.get("tabs", []):
            yield from _bound(tab.get("elements", []), table)


def _navs(elements: list[Any]) -> Iterator[dict[str, Any]]:
    for element in elements:
        if isinstance(element, dict) and element.get("type") == "section":
            if element.get("role") == "navigation":
                yield element
            yield from _navs(element.get("elements", []))


def _example_href(data: dict[str, Any], page: dict[str, Any]) -> str | None:
    """A concrete address of a page with route parameters: the first row its record reads."""
    slots = _placeholders(page["route"])
    if len(slots) != 1:
        return None
    for element in page.get("elements", []):
        query = element.get("query") if isinstance(element, dict) and element.get("type") == "record" else None
        if not query:
            continue
        table = _table(data, query["table"])
        if table and table.get("rows"):
            key = table.get("primary_key", "id")
            return page["route"].replace(slots[0], str(table["rows"][0].get(key)))
    return None


def retarget_marker(data: dict[str, Any], issue: Issue, ctx: Context) -> Outcome | None:
    """S003: point a form at the marker its name is closest to, else remove the form."""
    tokens = parse_path(issue.location)
    action = get_at(data, tokens[:-1])
    if isinstance(action, dict):
        old = action.get("marker", "")
        names = [m["name"] for m in data.get("markers", [])]
        new = _closest(old, names)
        if new is not None:
            action["marker"] = new
            return f"form posts to {new!r} instead of {old!r}", Touch(pages=_page_of(tokens, data), markers={new})
    return remove_element(data, issue, ctx)


def _login_field(data: dict[str, Any], form: dict[str, Any], tokens: list[str | int]) -> Outcome | None:
    """S004 on a login form: the one field of the kind the login reads (a password input for the
    password, a text input for the user name) that it reads under no name gets the name it reads."""
    action = form["action"]
    wanted = action.get(tokens[-1]) or ("username" if tokens[-1] == "username_field" else "password")
    read = {action.get("username_field") or "username", action.get("password_field") or "password"}
    secret = tokens[-1] == "password_field"
    spare = [f for f in form.get("fields", []) if f.get("name") not in read
             and (f.get("type") == "password") == secret and f.get("type") in ("textbox", "password", "email")]
    if len(spare) != 1:
        return None
    old, spare[0]["name"] = spare[0]["name"], wanted
    return f"login field {old!r} -> {wanted!r}, the name the login reads", Touch(pages=_page_of(tokens, data))


def add_field(data: dict[str, Any], issue: Issue, ctx: Context) -> Outcome | None:
    """S004: give a form the field its marker needs (and send it), or drop an argument it cannot fill; an
    argument named for a field of its form that sends something else sends the field; a record around a form
    that shows it only for states its marker refuses shows it for those the marker accepts."""
    tokens = parse_path(issue.location)
    kept = re.search(r"; it should start with row\.(\w+)$", issue.message)
    if kept is not None and len(tokens) >= 2 and tokens[-2] == "fields":
        field_el = get_at(data, tokens)  # an edit form's field left blank: it starts with the record's value
        if not isinstance(field_el, dict) or field_el.get("value") not in (None, ""):
            return None
        field_el["value"] = {"ref": f"row.{kept.group(1)}"}
        return f"field {field_el.get('name')!r} starts with row.{kept.group(1)}", Touch(pages=_page_of(tokens, data))
    if issue.message.endswith("it needs an empty first choice") and tokens[-1] == "options":
        field_el = get_at(data, tokens[:-1])  # a required choice preset to its first option: an empty one first
        if not isinstance(field_el, dict) or any(o.get("value") == "" for o in field_el.get("options", [])):
            return None
        field_el["options"] = [{"value": "", "label": f"Choose {field_el.get('label', 'one').lower()}"},
                               *field_el.get("options", [])]
        return f"drop-down {field_el.get('label', '')!r} starts empty", Touch(pages=_page_of(tokens, data))
    shown = re.search(r"accepts only (.+): the form always fails; it should be shown where (\w+) is one of those$",
                      issue.message)
    unsent = re.search(r"but the form never sends it; it should send field\.(\w+) as (\w+)$", issue.message)
    if unsent is not None and tokens[-1] == "args":  # a field named for a parameter, never sent: sent
        args = get_at(data, tokens)
        if not isinstance(args, dict) or unsent.group(2) in args:
            return None
        args[unsent.group(2)] = {"ref": f"field.{unsent.group(1)}"}
        return f"the form sends field {unsent.group(1)} as {unsent.group(2)}", Touch(pages=_page_of(tokens, data))
    owner = re.search(r"the form always fails; it should be shown where (\w+) is the user's$", issue.message)
    if owner is not None and tokens[-1] == "op":  # an owner-only form shown to everyone but the owner
        cond = get_at(data, tokens[:-1])
        if not isinstance(cond, dict) or cond.get("op") != "!=":
            return None
        cond["op"] = "="
        return f"the form shows where {owner.group(1)} is the user's", Touch(pages=_page_of(tokens, data))
    if shown is not None and tokens[-2:-1] == ["where"]:  # a record around the form showing only refused states
        cond = get_at(data, tokens)
        if not isinstance(cond, dict) or cond.get("column") != shown.group(2):
            return None
        old = cond.get("value")
        cond["op"], cond["value"] = "in", re.findall(r"'([^']*)'", shown.group(1))
        return f"the form shows where {cond['column']} is one of {cond['value']}, not {old!r}", Touch(
            pages=_page_of(tokens, data))
    form_tokens = tokens[:tokens.index("action")] if "action" in tokens else None
    form = get_at(data, form_tokens) if form_tokens else None
    if not isinstance(form, dict):
        return None
    action = form.setdefault("action", {})
    if action.get("kind") == "login" and tokens[-1] in ("username_field", "password_field"):
        return _login_field(data, form, tokens)
    sends = re.search(r"it should send (row\.\w+)$", issue.message)
    if sends and tokens[-2:-1] == ["args"]:  # a row's own key sent for another table's
        name = str(tokens[-1])
        old, action["args"][name] = action["args"].get(name), {"ref": sends.group(1)}
        return f"form {form.get('submit')!r} sends {sends.group(1)} as {name}, not {old!r}", \
            Touch(pages=_page_of(tokens, data))
    if "never sends what is typed into it" in issue.message and tokens[-2:-1] == ["args"]:  # the field of its name
        name = str(tokens[-1])
        old, action["args"][name] = action["args"].get(name), {"ref": f"field.{name}"}
        return f"form {form.get('submit')!r} sends field {name!r} as {name}, not {old!r}", Touch(pages=_page_of(tokens, data))
    marker = _marker(data, action.get("marker", ""))
    if marker is None:
        return None
    args = action.setdefault("args", {})
    fields = form.setdefault("fields", [])
    names = {f["name"] for f in fields}
    added, mended = [], []
    for param in marker.get("params", []):
        name = param["name"]
        sent = args.get(name)
        ref = sent.get("ref", "") if isinstance(sent, dict) else ""
        missing_field = ref.startswith("field.") and ref[6:] not in names
        if name in args and not missing_field:
            continue
        if param.get("required", True) is False or (param.get("type") == "boolean" and name not in args):
            continue
        field_name = ref[6:] if missing_field else name
        label = param.get("label") or humanise(name)
        spare = _unread_field(fields, args, field_name, label)
        if spare is not None:  # the field is there under another name, or nothing sends it: mend, don't add
            if missing_field:
                mended.append(f"{spare['name']} -> {field_name}")
                spare["name"] = field_name
                names.add(field_name)
            else:
                mended.append(f"{name} <- field {spare['name']}")
            args[name] = {"ref": f"field.{spare['name']}"}
            continue
        element: dict[str, Any] = {"name": field_name, "label": label}
        if param.get("choices"):
            element.update(type="select", options=[{"value": c, "label": c} for c in param["choices"]])
        else:
            element["type"] = FIELD_TYPES.get(param.get("type", "text"), "textbox")
        fields.append(element)
        names.add(field_name)
        args[name] = {"ref": f"field.{field_name}"}
        added.append(field_name)
    params = {p["name"]: p for p in marker.get("params", [])}
    for name, value in list(args.items()):  # arguments reading fields that are still missing
        ref = value.get("ref", "") if isinstance(value, dict) else ""
        if ref.startswith("field.") and ref[6:] not in names:
            label = params.get(name, {}).get("label") or humanise(ref[6:])
            spare = _unread_field(fields, args, ref[6:], label)
            if spare is not None:
                mended.append(f"{spare['name']} -> {ref[6:]}")
                spare["name"] = ref[6:]
            else:
                fields.append({"name": ref[6:], "label": label, "type": "textbox"})
                added.append(ref[6:])
            names.add(ref[6:])
    if not added and not mended:
        return None
    what = [f"gets field(s) {', '.join(added)}"] * bool(added) + [f"mends {', '.join(mended)}"] * bool(mended)
    return (f"form {form.get('submit', 'Submit')!r} {' and '.join(what)} for {marker['name']}",
            Touch(pages=_page_of(tokens, data), markers={marker["name"]}))


def _unread_field(fields: list[dict[str, Any]], args: dict[str, Any], name: str, label: str) -> dict[str, Any] | None:
    """The form's field that should supply ``name``: one that no argument reads, named or labelled like it."""
    read = {v["ref"][6:] for v in args.values() if isinstance(v, dict) and str(v.get("ref", "")).startswith("field.")}
    spare = [f for f in fields if f.get("name") not in read]
    for candidate in spare:
        if candidate.get("name") == name:
            return candidate
    same_label = [f for f in spare if str(f.get("label", "")).strip().lower() == label.strip().lower()]
    if len(same_label) == 1:
        return same_label[0]
    close = _closest(name, [str(f.get("name")) for f in spare], cutoff=0.7)
    return next((f for f in spare if f.get("name") == close), None)


def rename_reference(data: dict[str, Any], issue: Issue, ctx: Context) -> Outcome | None:
    """S005, S006, S007: a name that points at nothing becomes the closest existing name (a task that
    reads one is dropped); a dialog nothing opens gets a button before it that opens it, and a modal
    one nothing inside closes gets a Close button."""
    tokens = parse_path(issue.location)
    trapped = issue.message.endswith("it needs a Close button")
    if trapped or issue.message.endswith("it needs a button that opens it"):
        dialog = get_at(data, tokens[:-1])
        holder, index = get_at(data, tokens[:-2]), tokens[-2]
        if not isinstance(dialog, dict) or not isinstance(holder, list) or not isinstance(index, int):
            return None
        if trapped:  # a modal dialog nothing inside closes: a Close button, last in it
            dialog["elements"].append({"type": "button", "text": "Close", "action": "close", "target": dialog["id"]})
            return f"dialog {dialog['id']!r}: a Close button", Touch(pages=_page_of(tokens, data))
        holder.insert(index, {"type": "button", "text": dialog.get("title") or "Open", "action": "open",
                              "target": dialog["id"]})  # a dialog nothing opens: a button just before it
        return f"dialog {dialog['id']!r}: a button {dialog.get('title')!r} opens it", Touch(pages=_page_of(tokens, data))
    if tokens[0] == "tasks":
        # a task's judge reading a table or column that is not there: the closest name would judge
        # something else than the instruction asks, so the task goes
        return drop_task(data, issue, ctx)
    parent = get_at(data, tokens[:-1])
    key = tokens[-1]
    if not isinstance(parent, dict) or not isinstance(parent.get(key), str):
        return None
    old = parent[key]
    if len(tokens) >= 3 and tokens[-3] == "sorts" and key == "column":
        # a sort by a column the list's rows lack: the closest one they have, else the sort goes
        element = get_at(data, tokens[:-3])
        table = _table(data, element.get("query", {}).get("table", "")) if isinstance(element, dict) else None
        names = [c["name"] for c in table["columns"]] + [table.get("primary_key", "id")] if table else []
        new_column = _closest(old, names)
        if new_column is None:
            removed = element["sorts"].pop(tokens[-2])
            return f"sort {removed.get('label')!r} removed", Touch(pages=_page_of(tokens, data))
        parent[key] = new_column
        return f"sort column {old!r} -> {new_column!r}", Touch(pages=_page_of(tokens, data))
    if key == "table":
        new = _table_for(data, tokens, parent, old)
    elif key == "target":
        new = _closest(old, _widget_ids(data, tokens))
    else:
        table = _query_table(data, tokens)
        new = _closest(old, [c["name"] for c in table["columns"]] + [table.get("primary_key", "id")] if table else [])
    if new is None:
        return remove_element(data, issue, ctx) if _element_path(tokens) and key == "target" else None
    parent[key] = new
    touch = Touch(pages=_page_of(tokens, data))
    if tokens[0] == "markers":
        touch.markers.add(get_at(data, tokens[:2])["name"])
    if key == "table":
        touch.tables.add(new)
    return f"{key} {old!r} -> {new!r}", touch


def _table_for(data: dict[str, Any], tokens: list[str | int], query: dict[str, Any], old: str) -> str | None:
    """The table a query naming the missing table ``old`` most likely means: the closest name among the
    tables that have the columns it reads (and the views, whose columns are not declared); when no
    name is close, the table its drop-down's field names ("label", "Tag" -> labels), else the one
    table that has those columns."""
    columns = _query_columns(query, get_at(data, tokens[:-2]) if len(tokens) > 2 else None)
    fitting = _tables_with(data, columns)
    views = [v["name"] for v in data.get("database", {}).get("views", [])]
    found = _closest(old, (fitting or [t["name"] for t in _tables(data)]) + views)
    if found is not None:
        return found
    field_el = get_at(data, tokens[:-3]) if len(tokens) > 3 and tokens[-3] == "options_query" else None
    hints = [str(field_el.get(k, "")) for k in ("name", "label")] if isinstance(field_el, dict) else []
    named = next((found for hint in hints if (found := _closest(hint.lower(), fitting)) is not None), None)
    if named is not None:
        return named
    return fitting[0] if len(fitting) == 1 and len(columns) >= 2 else None


def _query_columns(query: dict[str, Any], holder: Any) -> set[str]:
    """The columns a query reads (its conditions, order, selection; an option list's value and label)."""
    names = {c.get("column") for c in query.get("where", []) if isinstance(c, dict)}
    names |= {o.get("column") for o in query.get("order_by", []) if isinstance(o, dict)}
    names.add(query.get("select") if query.get("select") != "*" else None)
    if isinstance(holder, dict) and holder.get("query") is query:
        names |= {holder.get("value"), holder.get("label")}
    return {n for n in names if isinstance(n, str)}


def _tables_with(data: dict[str, Any], columns: set[str]) -> list[str]:
    """The tables that have every one of ``columns``."""
    return [t["name"] for t in _tables(data)
            if columns <= {c["name"] for c in t["columns"]} | {t.get("primary_key", "id")}]


def _query_table(data: dict[str, Any], tokens: list[str | int]) -> dict[str, Any] | None:
    for end in range(len(tokens) - 1, 0, -1):
        node = get_at(data, tokens[:end])
        if isinstance(node, dict) and isinstance(node.get("table"), str):
            return _table(data, node["table"])
    return None


def _widget_ids(data: dict[str, Any], tokens: list[str | int]) -> list[str]:
    roots = [data.get("layout", {}).get("header", []), data.get("layout", {}).get("footer", [])]
    if tokens[0] == "pages":
        roots.append(get_at(data, tokens[:2] + ["elements"], []))
    out: list[str] = []

    def visit(elements: list[Any]) -> None:
        for element in elements:
            if not isinstance(element, dict):
                continue
            if element.get("type") in ("dialog", "collapsible", "menu", "tabs"):
                out.append(element["id"])
            for attr in ("elements", "item", "items"):
                visit(element.get(attr, []))
            for tab in element.get("tabs", []):
                visit(tab.get("elements", []))
            for column in element.get("columns", []):
                visit(column.get("cell", []))

    for root in roots:
        visit(root)
    return out


def _missing_page_ids(data: dict[str, Any], taken: set[str]) -> dict[str, set[str]]:
    """Page ids the tasks' goals and constraints name that no page has, with the parameters they give."""
    out: dict[str, set[str]] = {}
    for task in data.get("tasks", []):
        for node in json_dicts([task.get("goal"), task.get("constraints"), task.get("progress")]):
            if node.get("kind") == "page" and isinstance(node.get("page"), str) and node["page"] not in taken:
                out.setdefault(node["page"], set()).update(node.get("params") or {})
    return out


def dedupe_page(data: dict[str, Any], issue: Issue, ctx: Context) -> Outcome | None:
    """S008: a second marker, task or view of a name is dropped (the first one stays); of two pages
    sharing an id, the one whose route takes the parameters the tasks give a page id
    no page has takes that id (the id it was meant to have); else the later gets a fresh id. Sharing a
    route, the later is dropped."""
    tokens = parse_path(issue.location)
    if tokens[0] != "pages":  # a second marker, task or view of a name: the first one stays
        holder, index = get_at(data, tokens[:-2]), tokens[-2]
        item = get_at(data, tokens[:-1])
        if not isinstance(holder, list) or not isinstance(item, dict) or not isinstance(index, int):
            return None
        del holder[index]
        name = item.get(tokens[-1], "")
        kind = {"markers": "marker", "tasks": "task", "views": "view"}[str(tokens[-3])]
        touch = Touch(markers={name}) if kind == "marker" else Touch(tasks={name}) if kind == "task" else \
            Touch(tables={name})
        return f"dropped a second {kind} named {name!r}", touch
    if len(tokens) > 3:  # a second widget of an id on one page: the first one stays
        widget = get_at(data, tokens[:-1])
        if not isinstance(widget, dict) or _remove_at(data, tokens[:-1]) is None:
            return None
        return (f"dropped a second {widget.get('type', 'widget')} with the id {widget.get('id')!r}",
                Touch(pages=_page_of(tokens, data)))
    index, attr = tokens[1], tokens[-1]
    pages = data["pages"]
    page = pages[index] if isinstance(index, int) and index < len(pages) else None
    if page is None:
        return None
    first = next(i for i, p in enumerate(pages) if p[attr] == page[attr])
    if first == index:
        return "", Touch()  # the first holder keeps it; the later one is repaired
    if attr == "id":
        taken = {p["id"] for p in pages}
        missing = _missing_page_ids(data, taken)
        if len(missing) == 1:  # tasks wait for a page no page is: one of the two is it, by its route's params
            wanted, params = next(iter(missing.items()))
            holders = [i for i, p in enumerate(pages) if p["id"] == page["id"]]
            fits = [i for i in holders if set(re.findall(r"\{(\w+)", pages[i]["route"])) == params]
            if len(fits) == 1:
                old, pages[fits[0]]["id"] = pages[fits[0]]["id"], wanted
                return f"page id {old!r} -> {wanted!r}, the page the tasks wait for", Touch(pages={old, wanted})
        number = 2
        while f"{page['id']}_{number}" in taken:
            number += 1
        old, page["id"] = page["id"], f"{page['id']}_{number}"
        return f"page id {old!r} -> {page['id']!r}", Touch(pages={old, page["id"]})
    pages.pop(index)
    return f"dropped page {page['id']!r}, a second page at {page['route']!r}", Touch(pages={page["id"]})


def add_home(data: dict[str, Any], issue: Issue, ctx: Context) -> Outcome | None:
    """S009: move the page that looks most like a home page to ``/``, else add one linking every page."""
    pages = data["pages"]
    candidate = next((p for p in pages if p["id"] in ("home", "index", "start") and not _placeholders(p["route"])), None)
    if candidate is not None:
        old, candidate["route"] = candidate["route"], "/"
        return f"page {candidate['id']!r} moved from {old!r} to '/'", Touch(pages={candidate["id"]})
    links = [{"type": "link", "text": p.get("title") or humanise(p["id"]), "href": p["route"]}
             for p in pages if not _placeholders(p["route"])]
    taken = {p["id"] for p in pages}
    page_id = next(name for name in ("home", "home_page", "start_page") if name not in taken)
    pages.insert(0, {"id": page_id, "route": "/", "title": data.get("name", "Home"),
                     "elements": [{"type": "heading", "text": data.get("name", "Home"), "level": 1}, *links]})
    return f"added a home page at '/' linking {len(links)} pages", Touch(pages={page_id})


# ----------------------------------------------------------------------------- semantic operators


def _label_for(data: dict[str, Any], element: dict[str, Any], tokens: list[str | int]) -> str | None:
    if len(tokens) == 3 and tokens[0] == "pages" and tokens[2] == "title":  # a page: its first fixed heading
        heading = next((e.get("text", "") for e in element.get("elements", []) if e.get("type") == "heading"
                        and e.get("text", "").strip() and "{" not in e.get("text", "")), None)
        return heading or humanise(element.get("id", "page"))
    kind = element.get("type")
    if kind == "link":
        target = resolve_href(_routes(data), element.get("href", "/"))
        page = next((p for p in data["pages"] if p["id"] == target), None)
        return (page.get("title") or humanise(page["id"])) if page else None
    if kind == "form":
        marker = _marker(data, element.get("action", {}).get("marker", ""))
        if marker is not None:
            return marker.get("label") or humanise(marker["name"])
        return {"navigate": "Go", "login": "Sign in", "logout": "Sign out"}.get(element.get("action", {}).get("kind"))
    if kind == "heading" and tokens[0] == "pages":
        return get_at(data, tokens[:2]).get("title")
    if kind == "button":
        return humanise(element.get("target", "more"))
    return None


def restore_text(data: dict[str, Any], issue: Issue, ctx: Context) -> Outcome | None:
    """M001, M002: placeholder or empty text is restored from the data, or the element is dropped.

    A label comes from what the element leads to (a link's page title, a form's marker label);
    a field's label from its marker parameter; a stored text value from the row's other text; a
    free text with nothing to restore it from is removed.
    """
    tokens = parse_path(issue.location)
    if tokens[:2] == ["database", "tables"]:
        return _restore_row_text(data, tokens)
    parent = get_at(data, tokens[:-1])
    attr = tokens[-1]
    if issue.message.endswith("it should say in plain words what could not be done") and isinstance(parent, dict):
        marker = get_at(data, tokens[:2])  # a message of program text or another language: plain words
        what = humanise(str(marker.get("name", "this"))).lower()
        old, parent[attr] = parent.get(attr), (f"Sorry, {what} could not be done." if tokens[2:3] == ["message"]
                                              else f"Sorry, {what} is not possible here.")
        return f"marker {marker.get('name')!r}: message {old!r} -> {parent[attr]!r}", Touch(markers={marker["name"]})
    own = re.search(r"it should be (?:the signed-in user's own \(user\.(\w+)\)|row\.(\w+))$", issue.message)
    if own is not None and attr == "value" and isinstance(parent, dict):  # one account's details for everyone,
        ref = f"user.{own.group(1)}" if own.group(1) else f"row.{own.group(2)}"  # or another column of the row
        old, parent["value"] = parent.get("value"), {"ref": ref}
        return f"field value {old!r} -> {{{ref}}}", Touch(pages=_page_of(tokens, data))
    if not isinstance(parent, dict):
        return None
    pages = _page_of(tokens, data)
    if len(tokens) >= 3 and tokens[-3] == "options" and attr == "label":  # an option says its value
        label = humanise(str(parent.get("value", "")))
        if label:
            old, parent[attr] = parent.get(attr), label
            return f"option label {old!r} -> {label!r}", Touch(pages=pages)
    if len(tokens) >= 3 and tokens[-3] == "fields":  # a field's label
        form = get_at(data, tokens[:-3])
        marker = _marker(data, (form or {}).get("action", {}).get("marker", ""))
        param = next((p for p in (marker or {}).get("params", []) if p["name"] == parent.get("name")), None)
        label = (param or {}).get("label") or humanise(parent.get("name", "value"))
        old, parent[attr] = parent.get(attr), label
        return f"field label {old!r} -> {label!r}", Touch(pages=pages)
    if attr in ("text", "submit", "label", "title"):
        label = _label_for(data, parent, tokens)
        if label:
            old, parent[attr] = parent.get(attr), label
            return f"{attr} {old!r} -> {label!r}", Touch(pages=pages)
    if attr in ("empty_text", "missing_text", "placeholder"):
        old = parent.pop(attr, None)
        return f"{attr} {old!r} -> the default", Touch(pages=pages)
    return remove_element(data, issue, ctx)


def _restore_row_text(data: dict[str, Any], tokens: list[str | int]) -> Outcome | None:
    found = _table_row(data, tokens)
    if found is None:
        return None
    table, row = found
    column = tokens[-1]
    spec = next((c for c in table["columns"] if c["name"] == column), None)
    old = row.get(column)
    if spec is not None and spec.get("nullable"):
        row[column] = None
        change = "cleared"
    else:
        noun = singular(table["name"]).replace("_", " ").capitalize()
        row[column] = f"{noun} {row.get(table.get('primary_key', 'id'))}"
        change = f"-> {row[column]!r}"
    return f"{table['name']}.{column} {old!r} {change}", Touch(tables={table["name"]})


_VERBS = {"delete": "Delete", "insert": "Add", "update": "Save"}


def fix_label(data: dict[str, Any], issue: Issue, ctx: Context) -> Outcome | None:
    """M003: a submit label that contradicts its marker takes the marker's own label or verb (a login or
    logout form's button says "Log in" or "Sign out"); a button that names a sibling marker runs that
    marker when its form sends every parameter it takes; a fixed number sent against the button's
    word ("Upvote" sending -1) changes sign; a sort link, or a list's own words, saying the other
    direction sorts the way it says; a filter's test takes the bound its options say; a text naming what
    a form does not ask for (a login page's "e-mail address" for a login name) names what it asks for, and
    a checkbox label that negates what ticking it does loses the negation."""
    tokens = parse_path(issue.location)
    if tokens[-1] == "action" and issue.message.endswith("the visitor stays signed in; it should sign the visitor out"):
        form = get_at(data, tokens[:-1])  # a "Sign out" button that does something else: it signs out
        if not isinstance(form, dict) or form.get("type") != "form":
            return None
        old, form["action"] = form.get("action"), {"kind": "logout"}
        return f"button {form.get('submit')!r} signs out (its form was {old!r})", Touch(pages=_page_of(tokens, data))
    reworded = re.search(r"; it should say '([^']*)' for '([^']*)'$", issue.message)
    if reworded is not None and tokens[-1] in ("text", "label"):  # words saying what the control does not do
        holder, attr = get_at(data, tokens[:-1]), tokens[-1]
        if not isinstance(holder, dict) or reworded.group(2) not in holder.get(attr, ""):
            return None
        old = holder[attr]
        holder[attr] = re.sub(r"  +", " ", old.replace(reworded.group(2), reworded.group(1), 1)).strip()
        holder[attr] = holder[attr][:1].upper() + holder[attr][1:]
        return f"{attr} {old!r} -> {holder[attr]!r}", Touch(pages=_page_of(tokens, data))
    if tokens[-1] == "options_query" and "the label and the value are swapped" in issue.message:
        chosen = get_at(data, tokens)
        if not isinstance(chosen, dict):
            return None
        chosen["label"], chosen["value"] = chosen.get("value"), chosen.get("label")
        return f"the choices are labelled with {chosen['label']} and send {chosen['value']}", Touch(pages=_page_of(tokens, data))
    if tokens[-1] == "options":  # a drop-down's values the wrong way round: swapped back
        from veriweb.verify.checks_meaning import swapped_options

        options = get_at(data, tokens)
        found = swapped_options(options) if isinstance(options, list) else None
        if found is None:
            return None
        a, b = found[0], found[1]
        options[a]["value"], options[b]["value"] = options[b]["value"], options[a]["value"]
        return (f"options {options[a].get('label')!r} and {options[b].get('label')!r} send each other's value",
                Touch(pages=_page_of(tokens, data)))
    if tokens[-2:] == ["confirm", "confirm"] and "the buttons are swapped" in issue.message:
        dialog = get_at(data, tokens[:-1])
        if not isinstance(dialog, dict):
            return None
        dialog["confirm"], dialog["cancel"] = dialog.get("cancel", ""), dialog.get("confirm", "")
        return f"dialog buttons {dialog['cancel']!r} and {dialog['confirm']!r} swapped back", Touch(pages=_page_of(tokens, data))
    if tokens[-2:] == ["confirm", "confirm"]:  # the confirming dialog's "yes" button: the marker's own words
        form, dialog = get_at(data, tokens[:-2]), get_at(data, tokens[:-1])
        marker = _marker(data, form.get("action", {}).get("marker", "")) if isinstance(form, dict) else None
        if marker is None or not isinstance(dialog, dict):
            return None
        old, dialog["confirm"] = dialog.get("confirm"), marker.get("label") or humanise(marker["name"])
        if dialog.get("cancel", "").strip().lower() == dialog["confirm"].strip().lower():
            dialog["cancel"] = "Go back"  # the two buttons were swapped: the other one backs out
        return f"dialog button {old!r} -> {dialog['confirm']!r}", Touch(pages=_page_of(tokens, data),
                                                                          markers={marker["name"]})
    if tokens[-2:] in (["action", "success_message"], ["confirm", "title"], ["confirm", "text"]):
        # what the form says besides its button: words that cannot contradict its marker
        form = get_at(data, tokens[:-2])
        marker = _marker(data, form.get("action", {}).get("marker", "")) if isinstance(form, dict) else None
        if marker is None or not _about(issue, marker["name"]):
            return None  # a stale issue: an earlier fix this round gave the form another marker
        from veriweb.verify.checks_meaning import label_contradicts

        ops = {e["op"] for e in marker["effects"]}
        sql = " ".join(e["sql"] for e in marker["effects"])
        # the button agreeing with its marker ("Discard" on trash_email) outweighs a message naming another
        if label_contradicts(str(form.get("submit") or ""), marker["name"], ops, sql) and (
                switched := _run_sibling(data, form, tokens)) is not None:
            return switched
        holder = form["action"] if tokens[-2] == "action" else form["confirm"]
        new = {"success_message": "Done.", "title": f"{humanise(marker['name'])}?", "text": "Are you sure?"}[tokens[-1]]
        old, holder[tokens[-1]] = holder.get(tokens[-1]), new
        return f"{tokens[-1].replace('_', ' ')} {old!r} -> {new!r}", Touch(pages=_page_of(tokens, data),
                                                                            markers={marker["name"]})
    if len(tokens) >= 3 and tokens[-3] == "sorts" and tokens[-1] == "column":  # a sort link repeating another's order
        sorts, said = get_at(data, tokens[:-2]), re.search(r"; its words name '(\w+)'", issue.message)
        if not isinstance(sorts, list):
            return None
        sort = sorts[tokens[-2]]
        if said is not None:
            old, sort["column"] = sort.get("column"), said.group(1)
            return f"sort {sort.get('label')!r} orders by {said.group(1)}, not {old}", Touch(pages=_page_of(tokens, data))
        sorts.pop(tokens[-2])
        return f"sort {sort.get('label')!r} removed: it repeated another's order", Touch(pages=_page_of(tokens, data))
    if len(tokens) >= 3 and tokens[-3] == "options" and tokens[-1] == "value":  # an option sending another's value
        options, said = get_at(data, tokens[:-2]), re.search(r"; its words name '([^']*)'", issue.message)
        if not isinstance(options, list) or not isinstance(get_at(data, tokens[:-1]), dict):
            return None
        option = options[tokens[-2]]
        if said is not None:  # the value its words name
            old, option["value"] = option.get("value"), said.group(1)
            return f"option {option.get('label')!r} sends {said.group(1)!r}, not {old!r}", Touch(pages=_page_of(tokens, data))
        options.pop(tokens[-2])  # no value it could mean: the option goes
        return f"option {option.get('label')!r} removed: it sent another option's value", Touch(pages=_page_of(tokens, data))
    if len(tokens) >= 2 and tokens[-2] == "order_by":  # a list whose words say the other end comes first
        order = get_at(data, tokens)
        if not isinstance(order, dict):
            return None
        old = order.pop("dir", "asc")
        if old == "asc":
            order["dir"] = "desc"
        return (f"list sorted by {order.get('column')}: {old} -> {'desc' if old == 'asc' else 'asc'}",
                Touch(pages=_page_of(tokens, data)))
    only = re.search(r"it should keep only (\w+) = (.+)$", issue.message)
    if only is not None and tokens[-1:] == ["where"]:  # a list whose words name one state it never tests
        import ast

        conds = get_at(data, tokens)
        if not isinstance(conds, list):
            return None
        conds.append({"column": only.group(1), "op": "=", "value": ast.literal_eval(only.group(2))})
        return f"list keeps only {only.group(1)} = {only.group(2)}", Touch(pages=_page_of(tokens, data))
    keep = re.search(r"it should keep (\w+) = (.+)$", issue.message)
    if keep is not None and len(tokens) >= 2 and tokens[-2] == "where":  # a list keeping rows its words do not name
        import ast

        cond = get_at(data, tokens)
        if not isinstance(cond, dict):
            return None
        old = (cond.get("column"), cond.get("value"))
        cond["column"], cond["value"] = keep.group(1), ast.literal_eval(keep.group(2))
        return (f"list keeps {cond['column']} = {cond['value']!r}, not {old[0]} = {old[1]!r}",
                Touch(pages=_page_of(tokens, data)))
    if len(tokens) >= 3 and tokens[-3] == "where" and tokens[-1] == "op" and issue.message.endswith(
            "it should keep the day itself"):  # a day field filtering a range of days
        cond = get_at(data, tokens[:-1])
        if not isinstance(cond, dict):
            return None
        old = cond.pop("op", "=")
        return f"filter on {cond.get('column')}: {old} -> =", Touch(pages=_page_of(tokens, data))
    if len(tokens) >= 3 and tokens[-3] == "where" and tokens[-1] == "op":  # a filter's bound the other way round
        cond = get_at(data, tokens[:-1])
        said = re.search(r"while its options say (<=|>=)", issue.message)
        flipped = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}
        old = cond.get("op", "=") if isinstance(cond, dict) else None
        new = flipped.get(old) if old in flipped else (said.group(1) if said and old == "=" else None)
        if new is None:
            return None
        cond["op"] = new
        return f"filter on {cond.get('column')}: {old} -> {cond['op']}", Touch(pages=_page_of(tokens, data))
    if len(tokens) >= 3 and tokens[-3] == "sorts":  # a sort link saying the other direction: the direction it says
        sort = get_at(data, tokens[:-1])
        if not isinstance(sort, dict):
            return None
        old, sort["dir"] = sort.get("dir", "asc"), "desc" if sort.get("dir", "asc") == "asc" else "asc"
        return f"sort {sort.get('label')!r}: {old} -> {sort['dir']}", Touch(pages=_page_of(tokens, data))
    if len(tokens) >= 3 and tokens[-3:-1] == ["action", "args"]:  # "Upvote" sending -1: the sign it says
        form = get_at(data, tokens[:-3])
        args = form.get("action", {}).get("args", {}) if isinstance(form, dict) else {}
        value = args.get(tokens[-1])
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not value:
            return None
        args[tokens[-1]] = -value
        return (f"button {form.get('submit')!r} sends {tokens[-1]} = {-value}, not {value}",
                Touch(pages=_page_of(tokens, data), markers={form["action"].get("marker", "")}))
    form = get_at(data, tokens[:-1])
    if not isinstance(form, dict):
        return None
    named = re.search(r"says what marker (\w+) does, but its form runs", issue.message)
    other = _marker(data, named.group(1)) if named else None
    current = form.get("action", {}).get("marker", "")
    if other is None and _about(issue, current) and (switched := _run_sibling(data, form, tokens)) is not None:
        return switched
    if other is not None:  # the button names a sibling marker: run it, when the form supplies what it needs
        supplied = set(form.get("action", {}).get("args", {}))
        if {p["name"] for p in other.get("params", [])} <= supplied:
            old, form["action"]["marker"] = form["action"].get("marker"), other["name"]
            return (f"button {form.get('submit')!r} runs {other['name']}, not {old}",
                    Touch(pages=_page_of(tokens, data), markers={other["name"], old or ""}))
    kind = form.get("action", {}).get("kind")
    if kind in ("login", "logout"):  # a session button says what its form does
        old, form["submit"] = form.get("submit"), "Log in" if kind == "login" else "Sign out"
        return f"button {old!r} -> {form['submit']!r}", Touch(pages=_page_of(tokens, data))
    marker = _marker(data, form.get("action", {}).get("marker", ""))
    if marker is None:
        return None
    ops = {e["op"] for e in marker["effects"]}
    # the marker's own words first ("Cancel stay" says what cancel_stay does, a bare "Save" may not),
    # unless the checks would read them as contradicting it ("Unsave post": "post" sounds like adding)
    from veriweb.verify.checks_meaning import label_contradicts

    candidates = [marker.get("label") or "", humanise(marker["name"]), _VERBS[min(ops)] if len(ops) == 1 else ""]
    candidates = [c for c in candidates if c.strip()]
    sql = " ".join(e["sql"] for e in marker["effects"])
    label = next((c for c in candidates if not label_contradicts(c, marker["name"], ops, sql)), candidates[-1])
    old, form["submit"] = form.get("submit"), label
    return f"button {old!r} -> {label!r}", Touch(pages=_page_of(tokens, data), markers={marker["name"]})


def _about(issue: Issue, marker: str) -> bool:
    """Whether ``issue`` speaks of ``marker`` (its message names it, or no marker at all)."""
    named = set(re.findall(r"\bmarker (\w+)", issue.message)) | set(re.findall(r"\bbut (\w+) removes", issue.message))
    return not named or marker in named


def _run_sibling(data: dict[str, Any], form: dict[str, Any], tokens: list[Any]) -> Outcome | None:
    """A form more of whose words (its button, dialog title and text, success message; what they say
    is not done and the name of the record left out) say the verb of one other marker writing the same
    tables than its own marker's, and which sends every parameter that marker takes ("Decline" with
    "Close this merge request without merging?" and "Closed." posting to ``merge_mr``: ``close_mr``):
    the form runs that marker. ``None`` when there is no such one marker."""
    from veriweb.verify.checks_meaning import NEGATED
    from veriweb.verify.wording import stem

    marker = _marker(data, form.get("action", {}).get("marker", ""))
    if marker is None:
        return None
    tables = {e["table"] for e in marker["effects"]}
    nouns = [t.replace("_", " ").rstrip("s") for t in tables]
    confirm = form.get("confirm") or {}
    said: list[set[str]] = []
    for text in (form.get("submit"), confirm.get("title"), confirm.get("text"),
                 form.get("action", {}).get("success_message")):
        text = NEGATED.sub(" ", str(text or ""))
        for noun in nouns:  # "merge request" names the record, not what is done to it
            text = re.sub(rf"\b{re.escape(noun)}s?\b", " ", text, flags=re.I)
        said.append({stem(w) for w in re.findall(r"[A-Za-z]+", text)})

    def support(name: str) -> int:
        return sum(stem(name.split("_")[0]) in words for words in said)

    from veriweb.verify.checks_meaning import _DELETE_WORDS

    if all(e.get("op") == "delete" for e in marker["effects"]) and _DELETE_WORDS.search(str(form.get("submit") or "")):
        return None  # the button says what its marker does ("Delete permanently" on a purge): the rest is wrong
    supplied = set(form.get("action", {}).get("args", {}))
    found = [m for m in data.get("markers", []) if m["name"] != marker["name"]
             and support(m["name"]) > support(marker["name"])
             and tables & {e["table"] for e in m["effects"]} and {p["name"] for p in m.get("params", [])} <= supplied]
    if len(found) != 1:
        return None
    old, form["action"]["marker"] = marker["name"], found[0]["name"]
    return (f"button {form.get('submit')!r} runs {found[0]['name']}, not {old}: what its form says",
            Touch(pages=_page_of(tokens, data), markers={found[0]["name"], old}))


_DATE_FORMATS = ("%m/%d/%Y", "%d.%m.%Y", "%B %d, %Y", "%b %d, %Y", "%d %B %Y", "%Y/%m/%d", "%d/%m/%Y")


def coerce_value(kind: str, value: Any, peers: list[Any]) -> tuple[bool, Any]:
    """Coerce ``value`` to a column type; ``peers`` are the column's well-typed values (for scale).

    Returns:
        ``(True, coerced)`` or ``(False, None)`` when it cannot be read as that type.
    """
    text = str(value).strip()
    if kind in ("integer", "money"):
        if isinstance(value, float) and kind == "integer":
            return True, int(round(value))
        number = re.sub(r"[,$€£\s]", "", text)
        numbers = re.findall(r"-?\d[\d,]*(?:\.\d+)?", text)
        unit = r"[$€£#№]?\s*" + re.escape(numbers[0]) + r"\s*[A-Za-z.]{0,12}" if len(numbers) == 1 else ""
        if unit and re.fullmatch(unit, text):
            number = numbers[0].replace(",", "")  # a number with its unit or currency: '7 units', '91.99 USD'
        try:
            amount = float(number)
        except ValueError:
            return False, None
        if kind == "money" and ("." in number or "$" in text or isinstance(value, float)):
            cents = int(round(amount * 100))
            typical = sorted(abs(p) for p in peers if isinstance(p, int))
            if typical and isinstance(value, float) and "." not in number:
                median = typical[len(typical) // 2]
                if abs(abs(amount) - median) < abs(abs(cents) - median):
                    cents = int(round(amount))
            return True, cents
        return True, int(round(amount))
    if kind == "real":
        try:
            return True, float(re.sub(r"[,\s]", "", text))
        except ValueError:
            return False, None
    if kind == "boolean":
        lowered = text.casefold()
        if lowered in ("true", "yes", "y", "1", "on"):
            return True, True
        if lowered in ("false", "no", "n", "0", "off"):
            return True, False
        return False, None
    if kind in ("date", "datetime"):
        try:
            parsed = dt.datetime.fromisoformat(text)
        except ValueError:
            parsed = None
            for fmt in _DATE_FORMATS:
                try:
                    parsed = dt.datetime.strptime(text, fmt)
                    break
                except ValueError:
                    continue
        if parsed is None:
            return False, None
        return True, parsed.date().isoformat() if kind == "date" else parsed.replace(tzinfo=None).isoformat()
    return True, text if not isinstance(value, bool) else ("yes" if value else "no")


def coerce_cell(data: dict[str, Any], issue: Issue, ctx: Context) -> Outcome | None:
    """M004: a query ordering by numbers written as text orders by the number column they were made
    from; a text column every row of which holds a number gets the number's type; a stored value
    of the wrong type is coerced to its column's type (else the column's
    most common value, or none when the column allows it); a text written unlike every other row (spaces
    around it, a 12-hour time) reads as the check says it should."""
    tokens = parse_path(issue.location)
    slashed = re.search(r"^'([\d/]+)' is a day written with slashes .*; it should read '([\d-]+)'$", issue.message)
    if slashed is not None:  # a day written dd/mm/yyyy among ISO dates: written as ISO
        holder = get_at(data, tokens[:-1])
        if not isinstance(holder, dict) or not isinstance(holder.get(tokens[-1]), str):
            return None
        holder[tokens[-1]] = holder[tokens[-1]].replace(slashed.group(1), slashed.group(2))
        touch = Touch(markers={data["markers"][tokens[1]]["name"]}) if tokens[0] == "markers" else \
            Touch(tables={get_at(data, tokens[:3]).get("name", "")})
        return f"{slashed.group(1)!r} -> {slashed.group(2)!r}", touch
    ordered = re.search(r"numbers written as text .*; it should order by (\w+)$", issue.message)
    if ordered is not None and tokens[-3:-2] == ["order_by"] and tokens[-1] == "column":
        order = get_at(data, tokens[:-1])  # a query ordering by numbers as text: the number they were made from
        if not isinstance(order, dict):
            return None
        old, order["column"] = order.get("column"), ordered.group(1)
        touch = Touch(tasks={data["tasks"][tokens[1]]["id"]}) if tokens[0] == "tasks" else Touch()
        return f"orders by {order['column']}, not {old}", touch
    retype = re.search(r"is declared text, but every row holds a number .*its type should be (\w+)$", issue.message)
    if retype is not None and tokens[:2] == ["database", "tables"] and tokens[-3:-2] == ["columns"]:
        spec = get_at(data, tokens[:-1])  # numbers declared text: the column's type, not its cells
        table = get_at(data, tokens[:3])
        if not isinstance(spec, dict) or not isinstance(table, dict):
            return None
        old, spec["type"] = spec.get("type"), retype.group(1)
        return f"{table['name']}.{spec['name']} type {old!r} -> {spec['type']!r}", Touch(tables={table["name"]})
    found = _table_row(data, tokens)
    if found is None:
        return None
    table, row = found
    column = tokens[-1]
    trimmed = re.search(r" (?:(?:has spaces around it|is on the 12-hour clock|is in lower case|is turned round|"
                        r"is garbled \(UTF-8 read as Latin-1\)|has a note typed after its code|is written as a link), unlike every "
                        r"other row|goes into addresses that take a \w+, which it is not): .*it should read "
                        r"('.*'|\".*\")$", issue.message)
    if trimmed is not None and isinstance(row.get(column), str):
        import ast

        old, row[column] = row[column], ast.literal_eval(trimmed.group(1))
        if row[column] == old:
            return None
        return f"{table['name']}.{column} {old!r} -> {row[column]!r}", Touch(tables={table["name"]})
    spec = next((c for c in table["columns"] if c["name"] == column), None)
    if spec is None:
        return None
    from veriweb.verify.checks import _type_ok

    peers = [r.get(column) for r in table.get("rows", []) if _type_ok(spec["type"], r.get(column))
             and r.get(column) is not None]
    old = row.get(column)
    ok, value = coerce_value(spec["type"], old, peers)
    if not ok:
        if spec.get("nullable"):
            value = None
        elif peers:
            value = Counter(map(repr, peers)).most_common(1)[0][0]
            value = next(p for p in peers if repr(p) == value)
        else:
            return None
    row[column] = value
    return f"{table['name']}.{column} {old!r} -> {value!r}", Touch(tables={table["name"]})


def fill_null(data: dict[str, Any], issue: Issue, ctx: Context) -> Outcome | None:
    """C003: a missing required value is what the site's pages still pair with the row (a drop-down
    whose options are this column's values labelled by another of its columns: Porto's city code
    from the "City" options, see :func:`_value_from_options`), else its parent row's value where the
    table's rows copy it from their parents (an order line's price), else the column's most common value
    (or a typed default); per-row text with nothing to restore it from gets a name made from the
    row's key. A table of consecutive months or days that skips one gets the row for it."""
    tokens = parse_path(issue.location)
    if issue.message.endswith("the form can be sent only with an invented one"):  # a blank profile: the task goes
        return drop_task(data, issue, ctx)
    added = re.search(r"lists consecutive \w+ values but skips \S+: it should have the row (\{.*\})$", issue.message)
    if added is not None and tokens[-1] == "rows" and tokens[:2] == ["database", "tables"]:
        table = get_at(data, tokens[:-1])
        new = json.loads(added.group(1))
        if not isinstance(table, dict) or new in table.get("rows", []):
            return None
        table["rows"].append(new)  # the period the consecutive rows skip (checks_data.missing_periods)
        return f"{table['name']}: row {new!r} added", Touch(tables={table["name"]})
    found = _table_row(data, tokens)
    if found is None:
        return None
    table, row = found
    column = tokens[-1]
    if "where every other row's is above 0: the price is missing" in issue.message and row.get(column) == 0:
        row[column] = None  # a price of 0 among prices: missing, and restored as a missing one is
    shown = _value_from_options(data, table, row, column)
    if shown is not None:
        row[column] = shown
        return (f"{table['name']}.{column} None -> {shown!r} (as the pages' options pair it)",
                Touch(tables={table["name"]}))
    spec = next((c for c in table["columns"] if c["name"] == column), None)
    if spec is None:
        return None
    copied = _value_from_parent(data, table, row, column)
    if copied is not None:
        row[column] = copied[0]
        return (f"{table['name']}.{column} None -> {copied[0]!r} (as its {copied[1]} row holds it)",
                Touch(tables={table["name"]}))
    peers = [r.get(column) for r in table.get("rows", []) if r.get(column) is not None]
    if spec["type"] == "text" and (spec.get("unique") or len({repr(p) for p in peers}) > len(peers) // 2):
        return _restore_row_text(data, tokens)  # names and other per-row text: no borrowed value
    if spec.get("unique") or not peers:
        defaults = {"integer": 0, "money": 0, "real": 0.0, "boolean": False,
                    "date": data.get("clock", {}).get("today", "2026-06-15"), "datetime": "2026-06-15T09:00:00"}
        if spec["type"] not in defaults:
            return _restore_row_text(data, tokens)
        value = defaults[spec["type"]]
    else:
        counts = Counter(map(repr, peers))
        value = next(p for p in peers if repr(p) == counts.most_common(1)[0][0])
    row[column] = value
    return f"{table['name']}.{column} None -> {value!r}", Touch(tables={table["name"]})


def _parent_values(data: dict[str, Any], table: dict[str, Any], column: str) -> tuple[str, dict[Any, Any], str] | None:
    """Where ``table``'s rows copy ``column`` from their parent rows (nine in ten or more agree, as
    an order line's price with its product's): the key column, the parent's values by key and the
    parent table's name; else ``None``."""
    for fk in table.get("foreign_keys", []):
        parent = next((t for t in data["database"]["tables"] if t["name"] == fk["ref_table"]), None)
        if parent is None or not any(c["name"] == column for c in parent["columns"]):
            continue
        key = fk.get("ref_column") or parent.get("primary_key", "id")
        by_key = {r.get(key): r.get(column) for r in parent.get("rows", [])}
        pairs = [(r[column], by_key[r.get(fk["column"])]) for r in table.get("rows", [])
                 if r.get(column) is not None and r.get(fk["column"]) in by_key]
        if len(pairs) >= 10 and sum(a == b for a, b in pairs) * 10 >= len(pairs) * 9:
            return fk["column"], by_key, parent["name"]
    return None


def _value_from_parent(data: dict[str, Any], table: dict[str, Any], row: dict[str, Any],
                       column: str) -> tuple[Any, str] | None:
    """``row[column]`` as its parent row holds it, and the parent table's name, when the table's
    rows copy that column from their parents (:func:`_parent_values`); else ``None``."""
    found = _parent_values(data, table, column)
    if found is None:
        return None
    own, by_key, parent = found
    value = by_key.get(row.get(own))
    return None if value is None else (value, parent)


def _value_from_options(data: dict[str, Any], table: dict[str, Any], row: dict[str, Any], column: str) -> Any:
    """The value of ``row[column]`` that a drop-down of the site still shows: a list of options whose
    values are ``column``'s values and whose labels are another column's (at least two other rows
    agree), with one option labelled like ``row`` whose value no other row holds; else ``None``."""
    rows = [r for r in table.get("rows", []) if r is not row]
    held = {r.get(column) for r in rows}
    labels = [c["name"] for c in table["columns"] if c["type"] == "text" and c["name"] != column]
    for node in json_dicts([data.get("pages", []), data.get("layout", {})]):
        options = node.get("options") if isinstance(node.get("options"), list) else None
        if not options or len(options) < 3:
            continue
        pairs = [(o.get("value"), o.get("label")) for o in options if isinstance(o, dict)]
        for label in labels:
            agree = sum(1 for value, shown in pairs for r in rows
                        if r.get(label) == shown and r.get(column) == value and value is not None)
            if agree < 2:
                continue
            value = next((v for v, shown in pairs if shown == row.get(label) and v not in held and v), None)
            if value is not None:
                return value
    return None


def rewrite_slot(data: dict[str, Any], issue: Issue, ctx: Context) -> Outcome | None:
    """M005: a task naming a missing entity is rewritten to the closest existing one whose entity the
    task finds at the start (the product to remove is one in the user's cart: see
    :func:`_with_entity`), else the closest (a name with one word added, "Quantum Paris", to the
    stored name it contains); its instruction is re-rendered from its template (the task is then
    re-certified)."""
    tokens = parse_path(issue.location)
    index = _task_index(data, tokens)
    if index is not None and issue.message.endswith("the control it names is not there"):
        return _drop_task(data, index, ctx, issue.message)
    if index is None or tokens[2:3] != ["slots"]:
        return None
    task = data["tasks"][index]
    name = tokens[3]
    old = task["slots"].get(name)
    site_task = Task.model_validate(task)  # the rest of the data is valid already (see apply_repairs)
    from veriweb.verify.checks import _slot_tables

    tables = _slot_tables(site_task).get(name, set())
    columns = _slot_columns(task, name)
    values = [str(row[c]) for t in _tables(data) if t["name"] in tables for row in t.get("rows", [])
              for c in columns if isinstance(row.get(c), str)]
    taken = {v for k, v in task["slots"].items() if k != name}
    # the closest names (the first is the closest of all, as _closest would pick it)
    ranked = ranked_matches(str(old), sorted({v for v in values if v not in taken}), _ENTITY_TRIES)
    new = ranked[0] if ranked else None
    if new is not None:  # the closest name whose entity is there for the task (a product in the cart)
        new = _with_entity(data, index, name, ranked) or new
    if new is None:  # the lookup goes through a view or SQL: any stored text close enough
        values = [v for t in _tables(data) for row in t.get("rows", []) for v in row.values() if isinstance(v, str)]
        values = [v for v in values if v not in taken and len(v) <= 80]
        # A name with one word added ("Quantum Paris"): the stored name it contains; else the closest.
        size = len(str(old).split())
        text = str(old)  # a value not in the text as it is cannot match it as a word: no regex built for it
        inside = [v for v in values if len(v) >= 3 and v in text and size - len(v.split()) <= 1
                  and re.search(rf"(?<!\w){re.escape(v)}(?!\w)", text)]
        new = max(sorted(set(inside)), key=len, default=None) or _closest(str(old), values, cutoff=0.6)
    if new is None:
        return _drop_task(data, index, ctx, f"slot {name!r} names {old!r}, and nothing like it exists")
    task["slots"][name] = new
    task["instruction"] = render_instruction(task["template"], task["slots"])
    task.pop("certificate", None)
    return f"task {task['id']!r} slot {name}: {old!r} -> {new!r}", Touch(tasks={task["id"]})


_ENTITY_TRIES = 12
"""How many of the closest names M005 checks for one whose entity the task finds."""


def _with_entity(data: dict[str, Any], index: int, name: str, ranked: list[str]) -> str | None:
    """The first of ``ranked`` that, put in slot ``name`` of task ``index``, leaves the task's entity
    there at the start (:func:`veriweb.verify.retarget.entity_found`: the cart row to remove, the
    booking to move), or ``None``."""
    from veriweb.engine import Session
    from veriweb.verify.retarget import entity_found

    if len(ranked) < 2:
        return None
    try:
        site = site_of(data)
        task = site.tasks[index]
        session = Session(site)
    except (VeriwebError, ValueError):
        return None
    try:
        for value in ranked:
            if entity_found(site, task.model_copy(update={"slots": {**task.slots, name: value}}), session):
                return value
    finally:
        session.close()
    return None


def _slot_columns(task: dict[str, Any], slot: str) -> set[str]:
    """Columns a task's conditions compare the slot with."""
    found: set[str] = set()

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("value") == {"ref": f"slot.{slot}"} and isinstance(node.get("column"), str):
                found.add(node["column"])
            for value in node.values():
                visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    visit(task)
    return found or {"name", "title"}


def drop_task(data: dict[str, Any], issue: Issue, ctx: Context) -> Outcome | None:
    """M006 and feasibility defects with no fix: the task is dropped (and counted)."""
    index = _task_index(data, parse_path(issue.location))
    return None if index is None else _drop_task(data, index, ctx, f"{issue.code}: {issue.message}")


# ----------------------------------------------------------------------------- consistency operators


def repoint_key(data: dict[str, Any], issue: Issue, ctx: Context) -> Outcome | None:
    """C001: a dangling foreign key is re-pointed at the row that agrees most with what the record
    copied from it (:func:`_agreement`: an order line's price is its product's, a booking's total is
    its passengers times its flight's price plus the usual fee), then the nearest key; cleared if
    nullable."""
    tokens = parse_path(issue.location)
    found = _table_row(data, tokens)
    if found is None:
        return None
    table, row = found
    column = tokens[-1]
    unlinked = re.search(r"are no pair of (\w+), while every other row's are: (?:(\w+) should be empty|the \w+ row (\{.*\}) "
                         r"should be added)$", issue.message)
    if unlinked is not None:  # a pair the table linking the two does not hold
        if unlinked.group(2) == column:
            old, row[column] = row.get(column), None
            return f"{table['name']}.{column} {old!r} -> None", Touch(tables={table["name"]})
        link = next((t for t in _tables(data) if t["name"] == unlinked.group(1)), None)
        added = json.loads(unlinked.group(3)) if unlinked.group(3) else None
        if link is None or added is None or added in link["rows"]:
            return None
        link["rows"].append(added)
        return f"{link['name']}: row {added!r} added", Touch(tables={link["name"]})
    if "points at its own row" in issue.message:
        return _unloop(table, row, column)
    fk = next((f for f in table.get("foreign_keys", []) if f["column"] == column), None) or _undeclared_key(
        data, table, column)
    target = _table(data, fk["ref_table"]) if fk else None
    if target is None:
        return None
    spec = next((c for c in table["columns"] if c["name"] == column), {})
    keys = [r.get(fk.get("ref_column", "id")) for r in target.get("rows", []) if r.get(fk.get("ref_column", "id")) is not None]
    old = row.get(column)
    if spec.get("nullable"):
        new = None
    elif keys:
        agree = _agreement(table, row, column, target, fk.get("ref_column", "id"))
        if not agree and _copies_amount(table, column, target, fk.get("ref_column", "id")):
            # the other rows copy an amount of the row they point at and no row has this one's: a line
            # of nothing (pointing it anywhere makes its amount disagree there), so it goes
            table["rows"].pop(tokens[4])
            return (f"deleted the {table['name']} row pointing at missing {fk['ref_table']} {old!r} (no "
                    f"{fk['ref_table']} row has what it copies)", Touch(tables={table["name"]}))

        def nearest(k: Any) -> tuple[Any, ...]:
            numeric = isinstance(k, (int, float)) and isinstance(old, (int, float))
            return (-agree.get(k, 0),) + ((abs(k - old), k) if numeric else (float("inf"), str(k)))

        new = min(keys, key=nearest)
    else:
        table["rows"].pop(tokens[4])
        return f"deleted the {table['name']} row pointing at missing {fk['ref_table']} {old!r}", Touch(tables={table["name"]})
    row[column] = new
    return f"{table['name']}.{column} {old!r} -> {new!r}", Touch(tables={table["name"], fk["ref_table"]})


_ANSWERING = re.compile(r"^\s*(?:(?:re|fwd?|aw|sv)\s*:\s*)+", re.I)


def _unloop(table: dict[str, Any], row: dict[str, Any], column: str) -> Outcome | None:
    """A row whose key names itself names the latest earlier row its text answers ("Re: X" answers the
    row whose same column is X), else nothing (when the column allows it)."""
    key = table.get("primary_key", "id")
    own = row.get(key)
    named = []
    for name, text in row.items():
        if isinstance(text, str) and _ANSWERING.match(text):
            said = _ANSWERING.sub("", text).strip().casefold()
            named += [r.get(key) for r in table["rows"] if r is not row and isinstance(r.get(name), str)
                      and _ANSWERING.sub("", r[name]).strip().casefold() == said and not _ANSWERING.match(r[name])]
    earlier = [k for k in named if isinstance(k, (int, float)) and isinstance(own, (int, float)) and k < own]
    spec = next((c for c in table["columns"] if c["name"] == column), {})
    if earlier:
        new = max(earlier)
    elif spec.get("nullable"):
        new = None
    else:
        return None
    old, row[column] = row.get(column), new
    return f"{table['name']} {own!r}: {column} {old!r} -> {new!r} (it named its own row)", Touch(tables={table["name"]})


def _undeclared_key(data: dict[str, Any], table: dict[str, Any], column: str) -> dict[str, str] | None:
    """The foreign key an undeclared key column stands for, as the checks read it
    (:func:`veriweb.verify.checks_keys.check_undeclared_keys`): ``NAME_id`` names table NAME, an
    ``in_reply_to`` or ``parent`` column its own table."""
    from veriweb.verify.checks_keys import _SELF_REFERENCE, named_table

    if _SELF_REFERENCE.search(column):
        return {"column": column, "ref_table": table["name"], "ref_column": table.get("primary_key", "id")}
    target = named_table(site_of(data), column)
    if target is None or target.name == table["name"]:
        return None
    return {"column": column, "ref_table": target.name, "ref_column": target.primary_key}


def _copies_amount(table: dict[str, Any], column: str, target: dict[str, Any], key: str) -> bool:
    """Whether nearly every row of ``table`` holds an amount equal to one of the row it points at by
    ``column`` (an order line's price is its product's)."""
    by_key = {r.get(key): r for r in target.get("rows", [])}
    money = [c["name"] for c in table["columns"] if c["type"] == "money"]
    prices = [c["name"] for c in target["columns"] if c["type"] == "money"]
    linked = [(r, by_key[r.get(column)]) for r in table.get("rows", []) if r.get(column) in by_key]
    if len(linked) < 5:
        return False
    return any(sum(1 for r, t in linked if r.get(m) == t.get(p)) >= 0.9 * len(linked) for m in money for p in prices)


def _agreement(table: dict[str, Any], row: dict[str, Any], column: str, target: dict[str, Any],
               key: str) -> dict[Any, int]:
    """For each row of ``target`` (by ``key``): how many of ``row``'s values agree with it, were
    ``row[column]`` to point at it. A column of the same name with the same value counts; so does
    an amount of ``row`` that is a count of ``row`` times an amount of the target plus the fee the
    table's other rows charge that way (``total = passengers x price + fee``)."""
    by_key = {r.get(key): r for r in target.get("rows", [])}
    money = [c["name"] for c in table["columns"] if c["type"] == "money"]
    counts = [c["name"] for c in table["columns"] if c["type"] == "integer" and c["name"] != column]
    prices = [c["name"] for c in target["columns"] if c["type"] == "money"]
    fees: dict[tuple[str, str, str | None], Counter[int]] = {}
    for other in table.get("rows", []):
        linked = by_key.get(other.get(column)) if other is not row else None
        if linked is None:
            continue
        for m in money:
            for p in prices:
                for n in [None, *counts]:
                    times = 1 if n is None else other.get(n)
                    if isinstance(other.get(m), int) and isinstance(linked.get(p), int) and isinstance(times, int):
                        fees.setdefault((m, p, n), Counter())[other[m] - times * linked[p]] += 1
    usual = {combo: counter.most_common(1)[0][0] for combo, counter in fees.items()
             if counter.most_common(1)[0][1] >= max(2, sum(counter.values()) // 2)}
    shared = [c["name"] for c in table["columns"] if c["name"] not in (column, key, table.get("primary_key", "id"))
              and any(t["name"] == c["name"] for t in target["columns"])]
    out: dict[Any, int] = {}
    for value, candidate in by_key.items():
        score = sum(1 for name in shared if row.get(name) is not None and row.get(name) == candidate.get(name))
        for (m, p, n), fee in usual.items():
            times = 1 if n is None else row.get(n)
            if isinstance(row.get(m), int) and isinstance(candidate.get(p), int) and isinstance(times, int) \
                    and row[m] - times * candidate[p] == fee:
                score += 1
        if score:
            out[value] = score
    return out


def dedupe_key(data: dict[str, Any], issue: Issue, ctx: Context) -> Outcome | None:
    """C002: every later holder of a duplicated key gets a fresh one (the first keeps it); a link row
    repeating an earlier row's pair is removed."""
    tokens = parse_path(issue.location)
    if len(tokens) == 5 and "the later one should be removed" in issue.message:
        table = get_at(data, tokens[:3])
        if not isinstance(table, dict) or not isinstance(tokens[4], int) or tokens[4] >= len(table.get("rows", [])):
            return None
        gone = table["rows"].pop(tokens[4])
        return f"{table['name']}: row {gone!r} removed (it repeated an earlier row's pair)", Touch(tables={table["name"]})
    found = _table_row(data, tokens)
    if found is None:
        return None
    table, row = found
    column = tokens[-1]
    rows = table["rows"]
    value = row.get(column)
    first = next(i for i, r in enumerate(rows) if r.get(column) == value)
    if first == tokens[4]:
        return "", Touch()
    existing = {r.get(column) for r in rows}
    if isinstance(value, int) and not isinstance(value, bool):
        new: Any = max(v for v in existing if isinstance(v, int) and not isinstance(v, bool)) + 1
    else:
        number = 2
        while f"{value} {number}" in existing:
            number += 1
        new = f"{value} {number}"
    row[column] = new
    return f"{table['name']}.{column} {value!r} -> {new!r} (row {tokens[4]})", Touch(tables={table["name"]})


def recompute_total(data: dict[str, Any], issue: Issue, ctx: Context) -> Outcome | None:
    """C004: a total that disagrees with its lines is recomputed: their sum plus the site's usual fee.

    A total with no lines (a booking: nights x the hotel's price) is recomputed by the rule the
    table's other rows follow (:func:`veriweb.verify.checks_keys.expected_unit_total`).
    """
    tokens = parse_path(issue.location)
    if tokens[0] == "markers":  # an insert's total without the units it stores: counted as the seed rows do
        from veriweb.verify.checks_keys import unit_total_writes

        fixed = next((sql for path, sql, _, _ in unit_total_writes(site_of(data)) if path == issue.location), None)
        effect = get_at(data, tokens[:-1])
        if fixed is None or not isinstance(effect, dict):
            return None
        effect["sql"] = fixed
        name = data["markers"][tokens[1]]["name"]
        return f"marker {name!r}: the total counts the units it stores", Touch(markers={name})
    found = _table_row(data, tokens)
    if found is None:
        return None
    table, row = found
    summed = re.search(r"is not the sum of \w+\.\w+ over its rows, as in every other \w+ row: it should be (-?[\d.]+)$",
                       issue.message)
    if summed is not None and isinstance(row.get(tokens[-1]), (int, float)):  # the sum the other rows keep
        old, right = row[tokens[-1]], float(summed.group(1))
        row[tokens[-1]] = int(right) if right == int(right) and isinstance(old, int) else right
        return f"{table['name']}.{tokens[-1]} {old!r} -> {row[tokens[-1]]!r}", Touch(tables={table["name"]})
    key = table.get("primary_key", "id")
    for lines in _tables(data):
        fk = next((f for f in lines.get("foreign_keys", []) if f["ref_table"] == table["name"]), None)
        price = next((c["name"] for c in lines["columns"] if c["type"] == "money"), None)
        qty = next((c["name"] for c in lines["columns"] if c["name"] in ("qty", "quantity")), None)
        if fk is None or price is None or qty is None:
            continue
        sums: dict[Any, int] = {}
        for line in lines.get("rows", []):
            if isinstance(line.get(price), int) and isinstance(line.get(qty), int):
                sums[line.get(fk["column"])] = sums.get(line.get(fk["column"]), 0) + line[price] * line[qty]
        if row.get(key) not in sums:
            continue
        fee = _usual_fee(table, sums, row, key)
        old = row.get("total")
        row["total"] = sums[row[key]] + fee
        return f"{table['name']} {row[key]}: total {old!r} -> {row['total']!r}", Touch(tables={table["name"]})
    written = re.search(r"\((\w+) should read '([^']*)'\)$", issue.message)
    if written is not None and tokens[-1] == written.group(1):  # a number written out: as its own row's number
        old, row[written.group(1)] = row.get(written.group(1)), written.group(2)
        return f"{table['name']}.{written.group(1)} {old!r} -> {written.group(2)!r}", Touch(tables={table["name"]})
    clock = re.search(r": (\w+) should be (\d\d:\d\d(?: \(\+\d\))?)$", issue.message)
    if clock is not None and tokens[-1] == clock.group(1) and isinstance(row.get(clock.group(1)), str):
        old, row[clock.group(1)] = row[clock.group(1)], clock.group(2)  # a time of day the row's length says
        return f"{table['name']}.{clock.group(1)} {old!r} -> {clock.group(2)!r}", Touch(tables={table["name"]})
    days = re.search(r" to \w+ is (-?\d+) (?:days|minutes), as ", issue.message)
    if days is not None and len(tokens) == 6:  # a count of days between two of the row's dates
        old, row[tokens[5]] = row.get(tokens[5]), int(days.group(1))
        return f"{table['name']}.{tokens[5]} {old!r} -> {row[tokens[5]]!r}", Touch(tables={table["name"]})
    if not (isinstance(tokens[2], int) and isinstance(tokens[4], int)):
        return None
    value = expected_unit_total(site_of(data), tokens[2], tokens[4])  # no lines: units x price + the usual fee
    if value is None or value == row.get("total"):
        return None
    old = row.get("total")
    row["total"] = value
    return f"{table['name']} {row.get(key)}: total {old!r} -> {value!r} (units x price)", Touch(tables={table["name"]})


def _usual_fee(table: dict[str, Any], sums: dict[Any, int], row: dict[str, Any], key: str) -> int:
    """The fee most rows like ``row`` (same value of a low-cardinality text column) charge."""
    from veriweb.verify.checks import deciding_columns

    others = [r for r in table["rows"] if r is not row and isinstance(r.get("total"), int) and r.get(key) in sums]
    deciding = deciding_columns([(c["name"], c["type"]) for c in table["columns"]], table["rows"], key, sums)
    texts = [c["name"] for c in table["columns"] if c["type"] == "text"]
    for column in deciding + [c for c in texts if c not in deciding]:  # a column that sets the fee first
        values = {r.get(column) for r in others}
        if len(values) > max(1, len(others) // 2) or len(values) > 12:
            continue
        same = Counter(r["total"] - sums[r[key]] for r in others if r.get(column) == row.get(column))
        if same:
            return same.most_common(1)[0][0]
    fees = Counter(r["total"] - sums[r[key]] for r in others)
    return fees.most_common(1)[0][0] if fees else 0


_DECREMENT = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*=\s*\1\s*-\s*", re.I)


def tighten_marker(data: dict[str, Any], issue: Issue, ctx: Context) -> Outcome | None:
    """Markers whose effects can break an invariant: add the missing guards.

    A column an effect decrements (``stock = stock - :qty``) gets an invariant that no row goes
    below zero; a date parameter an insert stores gets a precondition that it is not in the past;
    a link row that could be added twice gets an invariant that each pair is there once; a count
    typed straight into a column gets a minimum of zero; two dates typed into a row get a
    precondition that keeps them in the order every seed row has, and an amount raised past what the
    seed rows keep it under an invariant (:mod:`veriweb.verify.checks_guards`); a marker that writes the
    signed-in user requires login.
    """
    tokens = parse_path(issue.location)
    if tokens[:1] != ["markers"] or len(tokens) < 2:
        return None
    marker = get_at(data, tokens[:2])
    if not isinstance(marker, dict):
        return None
    if tokens[2:] == ["requires_login"] and "but does not require login" in issue.message:
        if marker.get("requires_login"):
            return None
        marker["requires_login"] = True  # it writes the signed-in user: only a signed-in user may run it
        return f"marker {marker['name']!r} requires login", Touch(markers={marker["name"]})
    added = []
    invariants = marker.setdefault("invariants", [])
    preconditions = marker.setdefault("preconditions", [])
    known = repr(invariants) + repr(preconditions)
    for effect in marker["effects"]:
        for column in _DECREMENT.findall(effect["sql"]):
            sql = f"SELECT NOT EXISTS (SELECT 1 FROM {effect['table']} WHERE {column} < 0)"
            if sql not in known:
                invariants.append({"predicate": {"kind": "sql", "sql": sql},
                                   "message": f"Sorry, there is not enough {column.replace('_', ' ')}."})
                added.append(f"{effect['table']}.{column} >= 0")
    own_fix = any(said in issue.message for said in ("as every seed row of", "every form offers at most",
                                                     "which every seed row keeps"))
    for param in marker.get("params", []) if not own_fix else ():
        mentioned = any(f":{param['name']}" in e["sql"] for e in marker["effects"] if e["op"] in ("insert", "update"))
        if param.get("type") == "date" and mentioned:
            guard = {"kind": "compare", "left": {"ref": f"param.{param['name']}"}, "op": ">=",
                     "right": {"ref": "clock.today"}}
            if repr(guard) not in known:
                preconditions.append({"predicate": guard, "message": "That date is in the past."})
                added.append(f"{param['name']} >= today")
    wide = re.search(r"accepts (\w+) up to [\d.]+, but every form offers at most ([\d.]+)", issue.message)
    if len(tokens) >= 4 and tokens[2] == "params" and isinstance(tokens[3], int) and wide is not None:
        param = marker["params"][tokens[3]]  # a bound wider than any choice: the widest choice
        param["max"] = float(wide.group(2))
        added.append(f"{param['name']} <= {wide.group(2)}")
    elif len(tokens) >= 4 and tokens[2] == "params" and isinstance(tokens[3], int) and "below zero" in issue.message:
        param = marker["params"][tokens[3]]  # a value typed straight into a count: at least zero
        if param.get("min") is None or param["min"] < 0:
            param["min"] = 0
            added.append(f"{param['name']} >= 0")
    if len(tokens) >= 4 and tokens[2] == "effects":  # a counter stepped against the rows it counts
        from veriweb.verify.checks_guards import guard_fixes

        effect = marker["effects"][tokens[3]]
        fix = next((f for f in guard_fixes(site_of(data)) if f.location == issue.location and f.sql
                    and f.sql != effect["sql"]), None)
        if fix is not None:
            old, effect["sql"] = effect["sql"], fix.sql
            owner = re.search(r"adds them with (\w+) = :user_id\) and no guard asks whose", issue.message)
            if owner is not None:  # the guards that look the row up by its key ask whose it is too
                _ask_owner(marker, effect["table"], owner.group(1))
            return f"marker {marker['name']!r}: {old!r} -> {fix.sql!r}", Touch(markers={marker["name"]})
    if len(tokens) == 2:  # dates typed out of the order every seed row keeps: the precondition
        from veriweb.verify.checks_guards import guard_fixes

        for fix in guard_fixes(site_of(data)):
            if fix.location == issue.location and fix.add is not None and fix.add[0] not in known:
                sql, message, params, kind = fix.add
                (preconditions if kind == "preconditions" else invariants).append(
                    {"predicate": {"kind": "sql", "sql": sql, "params": params}, "message": message})
                added.append(message)
            elif fix.location == issue.location and fix.effect is not None:  # a count the marker left alone
                position, effect = fix.effect
                marker["effects"].insert(position, dict(effect))
                return f"marker {marker['name']!r}: added {effect['sql']!r}", Touch(markers={marker["name"]})
    pair = re.search(r"second (\w+) row for the same ([\w ]+?), which no seed row", issue.message)
    if pair is not None:  # a link row added twice: an invariant that each pair is there once
        table, columns = pair.group(1), pair.group(2).split(" and ")
        sql = (f"SELECT NOT EXISTS (SELECT 1 FROM {table} GROUP BY {', '.join(columns)} HAVING count(*) > 1)")
        if sql not in known:
            invariants.append({"predicate": {"kind": "sql", "sql": sql}, "message": "That is there already."})
            added.append(f"one {table} row per {' and '.join(columns)}")
    if not added:
        return None
    return f"marker {marker['name']!r} guarded: {', '.join(added)}", Touch(markers={marker["name"]})


def _ask_owner(marker: dict[str, Any], table: str, column: str) -> None:
    """Each precondition of ``marker`` that looks a ``table`` row up (``FROM orders WHERE id = :o``)
    without the user asks for the user's own row (``WHERE user_id = :user_id AND id = :o``)."""
    for guard in marker.get("preconditions", []):
        predicate = guard.get("predicate", {})
        sql = predicate.get("sql")
        if not isinstance(sql, str) or ":user_id" in sql:
            continue
        predicate["sql"] = re.sub(rf"(\bFROM\s+\"?{re.escape(table)}\"?\s+WHERE\s+)", rf"\1{column} = :user_id AND ",
                                  sql, count=1, flags=re.I)


def format_money(data: dict[str, Any], issue: Issue, ctx: Context) -> Outcome | None:
    """C006: a record numbered by another record's key is numbered by its own; an amount shown in raw
    cents (``{row.price}``) is shown as money (``{row.price|money}``);
    other values of the same text (``{row.items}`` items) keep their format. A view that words a
    yes-or-no column backwards swaps its words."""
    tokens = parse_path(issue.location)
    parent = get_at(data, tokens[:-1])
    attr = tokens[-1]
    if not isinstance(parent, dict) or not isinstance(parent.get(attr), str):
        return None
    numbered = re.search(r"by (\w+), the key of its \w+ row: it shows another record's number; it should show "
                         r"(#\{row\.\w+\})$", issue.message)
    if numbered is not None and f"#{{row.{numbered.group(1)}}}" in parent[attr]:  # numbered by another row's key
        old = parent[attr]
        parent[attr] = old.replace(f"#{{row.{numbered.group(1)}}}", numbered.group(2))
        return f"{attr}: {old!r} -> {parent[attr]!r}", Touch(pages=_page_of(tokens, data))
    since = re.search(r" says since .*: it should say '([^']*)' for '([^']*)'$", issue.message)
    if since is not None and since.group(2) in parent[attr]:  # a row's text dating it otherwise than its own date
        old = parent[attr]
        parent[attr] = old.replace(since.group(2), since.group(1), 1)
        table = get_at(data, tokens[:3])
        return f"{attr}: {since.group(2)} -> {since.group(1)}", Touch(tables={table.get("name", "")} if isinstance(table, dict) else set())
    said = re.search(r" says (\$[\d,.]+), while its \w+ is (\$[\d,.]+), .*: it should say \$[\d,.]+$", issue.message)
    if said is not None and said.group(1) in parent[attr]:  # a row's text stating another amount than its own
        old = parent[attr]
        parent[attr] = old.replace(said.group(1), said.group(2), 1)
        table = get_at(data, tokens[:3])
        return f"{attr}: {said.group(1)} -> {said.group(2)}", Touch(tables={table.get("name", "")} if isinstance(table, dict) else set())
    from veriweb.verify.checks_figures import stated_fixes

    stated = next((f for f in stated_fixes(site_of(data)) if f.location == issue.location), None)
    if stated is not None:  # a figure the words state against the SQL: the words, or a CASE that ignores its test
        if stated.sql_at:
            place = parse_path(stated.sql_at)
            effect = get_at(data, place[:-1])
            old, effect["sql"] = effect["sql"], stated.sql
            name = data["markers"][place[1]]["name"]
            return f"marker {name!r}: {old!r} -> {stated.sql!r}", Touch(markers={name})
        old, parent[attr] = parent[attr], stated.text
        return f"{old!r} -> {stated.text!r}", Touch(pages=_page_of(tokens, data))
    backwards = re.search(r"says '([^']*)' when (\w+) is true and '([^']*)' when it is false", issue.message)
    if backwards is not None and tokens[:2] == ["database", "views"]:
        said, column, unsaid = backwards.groups()
        old = parent[attr]
        pattern = (r"(CASE\s+WHEN\s+(?:NOT\s+)?(?:\w+\.)?" + re.escape(column) + r"\b[^']*?THEN\s+)'([^']*)'"
                   r"(\s+ELSE\s+)'([^']*)'")
        parent[attr] = re.sub(pattern, lambda m: f"{m.group(1)}'{m.group(4)}'{m.group(3)}'{m.group(2)}'", old,
                              count=1, flags=re.I)
        if parent[attr] == old:
            return None
        return f"view {parent.get('name')!r}: {said!r} and {unsaid!r} swapped", Touch(tables={parent.get("name", "")})
    from veriweb.verify.intent import _money_columns, money_references

    site = site_of(data)
    element = ".".join(str(t) for t in tokens[:-1])
    money = set().union(*_money_columns(site).values())  # a count beside an amount stays a count
    columns = set()
    for path, ref_attr, text, _, formatted in money_references(site):
        if ref_attr == attr and not formatted and ".".join(str(t) for t in parse_path(path)) == element:
            columns.update(c for c in re.findall(r"\{row\.([A-Za-z_][A-Za-z0-9_]*)(?:\|[a-z_]+)?\}", text)
                           if c in money)
    old = parent[attr]
    new = old
    for column in columns:
        new = re.sub(r"\{row\." + re.escape(column) + r"(?:\|[a-z_]+)?\}", "{row." + column + "|money}", new)
    if new == old:
        return None
    parent[attr] = new
    return f"{attr} {old!r} -> {new!r}", Touch(pages=_page_of(tokens, data))


def drop_constraint(data: dict[str, Any], issue: Issue, ctx: Context) -> Outcome | None:
    """C007: a constraint that forbids what the goal requires is removed (the task is re-certified)."""
    tokens = parse_path(issue.location)
    index = _task_index(data, tokens)
    if index is None or len(tokens) < 4 or tokens[2] != "constraints":
        return drop_task(data, issue, ctx)
    task = data["tasks"][index]
    removed = _remove_at(data, tokens[:4])
    if removed is None:
        return None
    task.pop("certificate", None)
    return f"task {task['id']!r}: removed constraint {removed.get('description', '')!r}", Touch(tasks={task["id"]})


def disambiguate(data: dict[str, Any], issue: Issue, ctx: Context) -> Outcome | None:
    """M008: a task's lookup matches several records; every record but the first gets a distinct
    name (``"Blue Mug"`` -> ``"Blue Mug (2)"``), so the task names exactly one. A lookup that cannot be
    told apart that way drops the task, not the site."""
    tokens = parse_path(issue.location)
    index = _task_index(data, tokens)
    node = get_at(data, tokens)
    looked = re.search(r"; the rows matching (\{.*\}) in (\w+) by (\w+)$", issue.message)
    if looked is not None and isinstance(node, dict) and node.get("kind") == "sql":  # a lookup in a goal's SQL
        table = _table(data, looked.group(2))
        wanted = json.loads(looked.group(1))
        if table is None:
            return drop_task(data, issue, ctx)
        return _renamed(table, [r for r in table.get("rows", []) if all(r.get(k) == v for k, v in wanted.items())],
                        looked.group(3))
    if index is None or not isinstance(node, dict) or not isinstance(node.get("query"), dict):
        return None
    query = node["query"]
    table = _table(data, query.get("table", ""))
    task = data["tasks"][index]
    slots = task.get("slots", {})
    auth = data.get("auth") or {}
    accounts = _table(data, auth.get("table", "users"))
    user = next((r for r in (accounts or {}).get("rows", []) if task.get("user") is not None
                 and r.get(auth.get("username_column", "username")) == task.get("user")), None)
    wanted: dict[str, Any] = {}
    for cond in query.get("where", []):
        value = cond.get("value")
        if cond.get("op", "=") != "=":
            return drop_task(data, issue, ctx)
        ref = str(value.get("ref", "")) if isinstance(value, dict) else ""
        if ref.startswith("slot."):
            value = slots.get(ref[5:])
        elif ref.startswith("user.") and user is not None and ref[5:] in user:
            value = user[ref[5:]]
        elif isinstance(value, (dict, list)):
            return drop_task(data, issue, ctx)
        wanted[cond["column"]] = value
    names = [c for c in wanted if table and any(col["name"] == c and col["type"] == "text" for col in table["columns"])]
    if table is None or not names:
        return drop_task(data, issue, ctx)
    rows = [r for r in table.get("rows", []) if all(r.get(k) == v for k, v in wanted.items())]
    return _renamed(table, rows, names[0])


def _renamed(table: dict[str, Any], rows: list[dict[str, Any]], column: str) -> Outcome | None:
    """Every row of ``rows`` but the first renamed in ``column`` (``"Blue Mug (2)"``)."""
    if len(rows) < 2:
        return None
    taken = {r.get(column) for r in table["rows"]}
    renamed = []
    for row in rows[1:]:
        number = 2
        while f"{row[column]} ({number})" in taken:
            number += 1
        row[column] = f"{row[column]} ({number})"
        taken.add(row[column])
        renamed.append(row[column])
    return (f"{table['name']}.{column}: {len(renamed)} other record(s) renamed {', '.join(map(repr, renamed))}",
            Touch(tables={table["name"]}))


def _key_column(site: Any, bound: str, table: str, column: str, cache: dict[Any, Any], besides: str = "") -> str | None:
    """The first column of a row of ``bound`` (a table, or a view showing it unchanged), other than ``besides``,
    that holds keys of ``table.column``; ``None`` when none does."""
    from veriweb.verify import intent
    from veriweb.verify.checks_pages import base_column, row_columns

    return next((n for n in row_columns(site, bound) if n != besides
                 and (base := base_column(site, bound, n, cache)) is not None
                 and intent.passes_key(site, base[0], base[1], table, column)), None)


def _fix_form_key(data: dict[str, Any], issue: Issue, tokens: list[Any]) -> Outcome | None:
    """S011 on a form: the argument posts the column of its row that holds the key its marker looks up
    (in a table, or shown unchanged by a view); ``None`` when the row has no such column."""
    from veriweb.verify.checks import walk_bound
    from veriweb.verify.checks_meaning import key_tables

    site = site_of(data)
    page = site.pages[tokens[1]]
    form_path = issue.location.rsplit(".action.args.", 1)[0]
    for element, path, bound in walk_bound(page.elements, f"$.pages[{tokens[1]}].elements", None):
        if path != form_path or element.type != "form" or bound is None or element.action.kind != "marker":
            continue
        marker = next((m for m in site.markers if m.name == element.action.marker), None)
        table = key_tables(site, marker).get(tokens[-1]) if marker is not None else None
        target = site.database.table(table) if table is not None else None
        if target is None:
            return None
        right = _key_column(site, bound, table, target.primary_key, {})
        if right is None:
            return None
        args = get_at(data, tokens[:-1])
        old, args[tokens[-1]] = args[tokens[-1]], {"ref": f"row.{right}"}
        return (f"form argument {tokens[-1]}: {old.get('ref') if isinstance(old, dict) else old!r} -> row.{right}",
                Touch(pages=_page_of(tokens, data)))
    return None


def _uncross(data: dict[str, Any], tokens: list[str | int], a: str, space: str, b: str) -> Outcome | None:
    """S011: a link or form that passed ``a`` and ``b`` crosswise passes each under its own name."""
    if tokens[-1] == "href":
        holder = get_at(data, tokens[:-1])
        href = holder.get("href", "") if isinstance(holder, dict) else ""
        fixed = re.sub(rf"([?&])({a}|{b})=\{{{space}\.({a}|{b})\}}",
                       lambda m: f"{m.group(1)}{m.group(2)}={{{space}.{m.group(2)}}}", href)
        if fixed == href:
            return None
        holder["href"] = fixed
        return f"link {href!r} -> {fixed!r}", Touch(pages=_page_of(tokens, data))
    args = get_at(data, tokens[:-1])
    if not isinstance(args, dict) or not all(isinstance(args.get(n), dict) for n in (a, b)):
        return None
    args[a], args[b] = {"ref": f"{space}.{a}"}, {"ref": f"{space}.{b}"}
    return f"the form sends {a} and {b} each under its own name", Touch(pages=_page_of(tokens, data))


def fix_link_key(data: dict[str, Any], issue: Issue, ctx: Context) -> Outcome | None:
    """S011: a link that passes its target page the wrong record's key goes to the page that looks up
    what it passes, when it shows that value and such a page exists (a community's name sent to a
    user's profile goes to the community); else it passes the right column of its row (the one
    that holds the target's key, in a table or shown unchanged by a view); else it is removed. A form that
    posts the wrong record's key posts the column of its row that holds the key (:func:`_fix_form_key`)."""
    from veriweb.verify import intent
    from veriweb.verify.checks import walk_bound
    from veriweb.verify.checks_pages import base_column

    tokens = parse_path(issue.location)
    redirected = re.search(r"the form opens another table's page with that row's key: an unrelated record; "
                           r"it should (?:open (\S+)|stay on the page)$", issue.message)
    if redirected is not None and tokens[-1] == "redirect":
        action = get_at(data, tokens[:-1])
        if not isinstance(action, dict) or not action.get("redirect"):
            return None
        old = action.pop("redirect")
        if redirected.group(1):
            action["redirect"] = redirected.group(1)
        return f"redirect {old!r} -> {action.get('redirect', 'none (the page stays)')!r}", Touch(pages=_page_of(tokens, data))
    if issue.message.endswith("which inserts no row: the address has no key and no page serves it; it should stay on "
                              "the page") and tokens[-1] == "redirect":
        action = get_at(data, tokens[:-1])
        if not isinstance(action, dict) or not action.get("redirect"):
            return None
        old = action.pop("redirect")
        return f"redirect {old!r} -> none (the page stays)", Touch(pages=_page_of(tokens, data))
    own = re.search(r"whatever record the page shows; it should open ('.+')$", issue.message)
    if own is not None and tokens[-1] == "href":
        link = get_at(data, tokens[:-1])
        if not isinstance(link, dict):
            return None
        old, link["href"] = link.get("href"), ast.literal_eval(own.group(1))
        return f"link {old!r} -> {link['href']!r}", Touch(pages=_page_of(tokens, data))
    crossed = re.match(r"(\w+) is sent (\w+)\.(\w+) and \3 is sent \2\.\1: the two values are passed crosswise",
                       issue.message)
    if crossed is not None:
        return _uncross(data, tokens, *crossed.group(1, 2, 3))
    if tokens[:1] != ["pages"] or not isinstance(tokens[1], int):
        return None
    if tokens[-3:-1] == ["action", "args"]:
        return _fix_form_key(data, issue, tokens)
    site = site_of(data)
    keys = intent._page_keys(site, through_views=True)
    routes = _routes(data)
    page = site.pages[tokens[1]]
    for element, path, bound in walk_bound(page.elements, f"$.pages[{tokens[1]}].elements", None):
        if f"{path}.href" != issue.location or element.type != "link" or bound is None:
            continue
        refs = intent._HREF_ROW.findall(element.href)
        dest = resolve_href(routes, element.href)
        if len(refs) != 1 or dest not in keys:
            return None
        _, target_table, target_column = keys[dest]
        cache: dict[Any, Any] = {}
        passed = base_column(site, bound, refs[0], cache)
        home = next((page_id for page_id, (_, t, c) in sorted(keys.items()) if passed == (t, c)), None)
        link = get_at(data, tokens[:-1])
        shows_it = "{row." + refs[0] in link.get("text", "")
        if home is not None and link.get("href", "").count("{") == 1 and shows_it:
            # the link shows the value it sends, which is the key of another page ("c/{row.forum}"
            # sent to a user's profile): it goes to the page that looks that value up
            old = link["href"]
            link["href"] = re.sub(r"\{\w+(?::\w+)?\}", "{row." + refs[0] + "}", site.page(home).route)
            return f"link {old!r} -> {link['href']!r}", Touch(pages=_page_of(tokens, data) | {dest, home})
        right = _key_column(site, bound, target_table, target_column, cache, besides=refs[0])
        if right is None:
            return remove_element(data, issue, ctx)
        old = link["href"]
        link["href"] = re.sub(r"\{row\." + re.escape(refs[0]) + r"\}", "{row." + right + "}", old)
        return f"link {old!r} -> {link['href']!r}", Touch(pages=_page_of(tokens, data) | {dest})
    return None


def add_control(data: dict[str, Any], issue: Issue, ctx: Context) -> Outcome | None:
    """M007: a task must change a table that no form can change, but a marker can: the marker gets
    a form. It goes on the page of one record whose key the marker takes (``product_id`` from
    ``/products/{id}``), else on the page that says what the task asks (see
    :func:`veriweb.verify.placement.place_form`); on a record's page the form goes inside the
    record. Every task of the round that lacks the same marker gets its form on the page its own
    instruction points at (a reply and a forward need the same "send" form on two pages). The
    fields are what :func:`veriweb.verify.form_fields.build_fields` makes of each parameter: a
    drop-down of the rows a key names, values the record, the address or the account holds."""
    tokens = parse_path(issue.location)
    entry = get_at(data, tokens)
    if "the goal holds from the start or never" in issue.message:
        return drop_task(data, issue, ctx)
    scoped = re.search(r"; it should test (\w+) = user\.id$", issue.message)
    if scoped is not None and isinstance(entry, dict) and isinstance(entry.get("query"), dict):
        return _scope_goal(data, tokens, entry, scoped.group(1))
    unwritten = re.search(r"row with (\w+) = (.+), but no form writes a value into \w+\.\w+ and no row holds", issue.message)
    if unwritten is not None and isinstance(entry, dict):
        return _unwritten_goal(data, issue, ctx, entry, unwritten.group(1))
    if not isinstance(entry, dict) or "table" not in entry:
        return None
    ops = entry.get("ops", ["insert", "update", "delete"])
    posted = {e["action"].get("marker") for e in json_dicts(data) if e.get("type") == "form"
              and isinstance(e.get("action"), dict) and e["action"].get("kind") == "marker"}
    marker = next((m for m in data.get("markers", []) if m["name"] not in posted
                   and any(x["table"] == entry["table"] and x["op"] in ops for x in m["effects"])), None)
    if marker is None:
        return None
    instructions = [_instruction(data, tokens)]
    for other in ctx.issues:  # the other tasks that lack this marker's form, this round
        other_tokens = parse_path(other.location) if other.code == issue.code else []
        other_entry = get_at(data, other_tokens) if other_tokens else None
        if (other_tokens[:1] == ["tasks"] and isinstance(other_entry, dict)
                and any(x["table"] == other_entry.get("table") and x["op"] in other_entry.get("ops", [x["op"]])
                        for x in marker["effects"])):
            instructions.append(_instruction(data, other_tokens))
    placed: list[str] = []
    for instruction in dict.fromkeys(instructions):
        place, args, spot = place_form(data, marker, entry["table"], instruction)
        if place is None or place["id"] in placed:
            continue
        _put_form(data, marker, place, args, spot)
        placed.append(place["id"])
    if not placed:
        return None
    return (f"added a form for {marker['name']!r} " + " and ".join(f"on page {p!r}" for p in placed),
            Touch(pages=set(placed), markers={marker["name"]}))


def _scope_goal(data: dict[str, Any], tokens: list[str | int], goal: dict[str, Any], column: str) -> Outcome | None:
    """M007: a goal that wants rows gone where the site lets a user remove only their own: the goal (and
    each progress step over the same rows) keeps to the user's own rows, the only reading that can hold."""
    task = get_at(data, tokens[:2])
    if not isinstance(task, dict):
        return None
    said = json.dumps(goal["query"].get("where", []), sort_keys=True)
    own = {"column": column, "value": {"ref": "user.id"}}
    for predicate in [goal] + [step.get("predicate") for step in task.get("progress", [])]:
        query = predicate.get("query") if isinstance(predicate, dict) else None
        if isinstance(query, dict) and query.get("table") == goal["query"].get("table") \
                and json.dumps(query.get("where", []), sort_keys=True) == said:
            query["where"] = [dict(own)] + list(query.get("where", []))
    return (f"task {task['id']!r}: its goal keeps to the user's own {goal['query'].get('table')} rows ({column} = user.id)",
            Touch(tasks={task["id"]}))


def _unwritten_goal(data: dict[str, Any], issue: Issue, ctx: Context, goal: dict[str, Any], column: str) -> Outcome | None:
    """M007: a goal condition no form can ever make true (``flair = 'Discussion'`` where nothing writes a
    flair). When the instruction never says the value, the condition is the author's slip and goes (from
    the goal and from progress steps on the same table); when it does, the task asks for what the site
    cannot do, and is dropped."""
    tokens = parse_path(issue.location)
    task = get_at(data, tokens[:2])
    query = goal.get("query") if isinstance(goal.get("query"), dict) else None
    cond = next((c for c in (query or {}).get("where", []) if c.get("column") == column
                 and c.get("op", "=") == "=" and not isinstance(c.get("value"), (dict, list))), None)
    if not isinstance(task, dict) or cond is None:
        return drop_task(data, issue, ctx)
    value = cond["value"]
    if isinstance(value, str) and value.strip().casefold() in str(task.get("instruction", "")).casefold():
        return drop_task(data, issue, ctx)
    said = json.dumps(cond, sort_keys=True)
    for predicate in [goal] + [step.get("predicate") for step in task.get("progress", [])]:
        where = predicate.get("query", {}).get("where") if isinstance(predicate, dict) else None
        if isinstance(where, list) and predicate["query"].get("table") == query.get("table"):
            predicate["query"]["where"] = [c for c in where if json.dumps(c, sort_keys=True) != said]
    return (f"task {task['id']!r}: the goal no longer asks {query.get('table')}.{column} = {value!r}, which nothing "
            f"writes and its instruction never says", Touch(tasks={task["id"]}))


def _instruction(data: dict[str, Any], tokens: list[str | int]) -> str:
    task = get_at(data, tokens[:2]) if tokens and tokens[0] == "tasks" else None
    return str(task.get("instruction", "")) if isinstance(task, dict) else ""


def _put_form(data: dict[str, Any], marker: dict[str, Any], place: dict[str, Any], args: dict[str, Any],
              spot: dict[str, Any] | None) -> None:
    """Build the marker's form on ``place`` (in ``spot``, else inside the record, else at the end)."""
    from veriweb.verify.placement import record_source

    record = next((e for e in place.get("elements", []) if isinstance(e, dict) and e.get("type") == "record"), None)
    inside = record is not None and (spot is None or any(t is spot for t in _texts_in(record.get("elements", []))))
    if record is not None and not inside and any(str(v.get("ref", "")).startswith("row.") for v in args.values()):
        spot, inside = None, True  # the key comes from the row the record shows: the form goes inside it
    editing = any(e["op"] == "update" for e in marker["effects"])
    fields = build_fields(data, place, marker, args, _record_columns(data, place) if inside else set(),
                          editing=editing, record_table=record_source(data, place) if inside else None)
    label = marker.get("label") or humanise(marker["name"])
    form = {"type": "form", "label": label, "fields": fields, "submit": label,
            "action": {"kind": "marker", "marker": marker["name"], "args": args}}
    if spot is not None:
        spot.clear()
        spot.update(form)
    else:  # inside the record, the form can start from the record's values
        (record if record is not None else place).setdefault("elements", []).append(form)


def _record_columns(data: dict[str, Any], page: dict[str, Any]) -> set[str]:
    """The columns of the record a page shows (a table's columns, or the names a view's SQL gives)."""
    record = next((e for e in page.get("elements", []) if isinstance(e, dict) and e.get("type") == "record"), None)
    if record is None:
        return set()
    source = record["query"]["table"]
    table = _table(data, source)
    if table is not None:
        return {c["name"] for c in table.get("columns", [])} | {table.get("primary_key", "id")}
    views = {v["name"]: v["sql"] for v in data.get("database", {}).get("views", [])}
    return set(re.findall(r"\bAS\s+(\w+)", views.get(source, ""), flags=re.IGNORECASE))


# ----------------------------------------------------------------------------- the table of operators


OPERATORS: dict[str, Operator] = {
    "S001": retarget_link, "S002": link_orphan, "S003": retarget_marker, "S004": add_field,
    "S005": rename_reference, "S006": rename_reference, "S007": rename_reference, "S008": dedupe_page,
    "S009": add_home, "S011": fix_link_key,
    "M001": restore_text, "M002": restore_text, "M003": fix_label, "M004": coerce_cell, "M005": rewrite_slot,
    "M006": drop_task, "M007": add_control, "M008": disambiguate,
    "C001": repoint_key, "C002": dedupe_key, "C003": fill_null, "C004": recompute_total, "C005": tighten_marker,
    "C006": format_money, "C007": drop_constraint,
    "F001": drop_task, "F003": drop_task, "F004": drop_task, "F006": drop_task, "F007": drop_task,
}
"""The operator for each check code that has a fix. Codes not listed fall back by location:
a task's defect drops the task, a marker's defect tightens the marker, an element's defect
removes the element."""


_LATE: tuple[Operator, ...] = (link_orphan, rewrite_slot, fix_link_key)
"""Operators that add to a site what another fix may bring back (a link to a page nobody links to, which
the link a repair points back at it restores), or rewrite a task to fit data another fix may mend (a slot
naming a time the data writes otherwise, "19:55" against "7:55 PM"), or re-key links a fixed view may set
right (``u.name AS username``: every profile link passes names until the view passes usernames again):
held back one round when something else was repaired."""

_DROPS: tuple[Operator, ...] = (drop_task, add_control)
"""Operators that give up on a task, or add a control a task lacks: they run only in a round where
nothing else was repaired (a fix may remove their cause)."""


def _gives_up(operator: Operator | None) -> bool:
    """Whether ``operator`` is one of :data:`_DROPS`, or says it may give up a task (``gives_up``)."""
    return operator in _DROPS or bool(getattr(operator, "gives_up", False))


def operator_for(issue: Issue) -> Operator | None:
    """The operator that repairs ``issue``: by code, else by where the issue is."""
    if issue.code in OPERATORS:
        return OPERATORS[issue.code]
    from veriweb.verify.repair_pages import OPERATORS as PAGE_OPERATORS  # they build on this module

    if issue.code in PAGE_OPERATORS:
        return PAGE_OPERATORS[issue.code]
    from veriweb.verify.repair_tasks import OPERATORS as TASK_OPERATORS

    if issue.code in TASK_OPERATORS:
        return TASK_OPERATORS[issue.code]
    try:
        tokens = parse_path(issue.location)
    except VeriwebError:
        return None
    if tokens[:1] == ["tasks"]:
        return drop_task
    if tokens[:1] == ["markers"]:
        return tighten_marker
    if _element_path(tokens) is not None:
        return remove_element
    return None


def _dumps(value: Any) -> bytes:
    """Pickled bytes of JSON data with no memo (``fast`` mode), so equal data gives equal bytes
    however its objects happen to be shared (JSON data holds no cycles); ``1``, ``1.0`` and
    ``True`` still differ."""
    out = io.BytesIO()
    pickler = pickle.Pickler(out, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.fast = True
    pickler.dump(value)
    return out.getvalue()


class _Ledger:
    """The site's data in parts (each page, task, marker and table apart, every other top-level
    key whole), as pickled bytes: which parts an operator changed, so that only they are
    validated again, and undone when the operator fails.

    An operator edits the data in place; comparing each part's bytes before and after says what
    it changed (see :func:`_dumps`; bytes that differ for equal data, keys reordered say, only
    cost a validation).
    Validating the changed parts is validating the whole site, since no model of a site checks
    one part against another (no validator above a page, task, marker or table, and the lists
    holding them check only their own length), and the parts left alone were valid before.
    """

    def __init__(self, data: dict[str, Any]) -> None:
        self.keys = list(data)
        self.parts = {key: self._dump(key, value) for key, value in data.items()}

    @staticmethod
    def _dump(key: str, value: Any) -> Any:
        if key in _ITEM_MODELS and isinstance(value, list):
            return [_dumps(item) for item in value]
        if key == "database" and isinstance(value, dict):
            return {name: [_dumps(t) for t in part] if name == "tables" and isinstance(part, list) else _dumps(part)
                    for name, part in value.items()}
        return _dumps(value)

    @staticmethod
    def _load(part: Any) -> Any:
        if isinstance(part, list):
            return [pickle.loads(item) for item in part]
        if isinstance(part, dict):
            return {name: _Ledger._load(inner) for name, inner in part.items()}
        return pickle.loads(part)

    def diff(self, data: dict[str, Any]) -> dict[str, Any]:
        """The parts of ``data`` that differ from the ledger's: top-level key -> its new parts."""
        now = {key: self._dump(key, value) for key, value in data.items()}
        changed = {key: part for key, part in now.items() if self.parts.get(key) != part}
        if list(data) != self.keys:
            changed[""] = now  # keys added, removed or reordered: the whole site
        return changed

    def validate(self, data: dict[str, Any], changed: dict[str, Any]) -> None:
        """Validate what changed as :meth:`Site.model_validate` would validate it.

        Raises:
            pydantic.ValidationError: a changed part is not valid.
        """
        if "" in changed:
            Site.model_validate(data)
            return
        for key, part in changed.items():
            old = self.parts[key]
            if key in _ITEM_MODELS and isinstance(part, list) and isinstance(old, list) and len(part) == len(old) > 0:
                model = _ITEM_MODELS[key]
                for item, now, before in zip(data[key], part, old):
                    if now != before:
                        model.model_validate(item)
            elif (key == "database" and isinstance(part, dict) and isinstance(old, dict) and list(part) == list(old)
                  and all(part[k] == old[k] for k in part if k != "tables")
                  and isinstance(part.get("tables"), list) and isinstance(old.get("tables"), list)
                  and len(part["tables"]) == len(old["tables"])):
                for table, now, before in zip(data[key]["tables"], part["tables"], old["tables"]):
                    if now != before:
                        Table.model_validate(table)
            else:
                Site.__pydantic_validator__.validate_assignment(Site.model_construct(), key, data[key])

    def undo(self, data: dict[str, Any], changed: dict[str, Any]) -> None:
        """Put the changed parts of ``data`` back as the ledger has them (in place, keys in their order)."""
        if not changed:
            return
        restored = {key: (data[key] if key not in changed and key in data and "" not in changed
                          else self._load(self.parts[key])) for key in self.keys}
        data.clear()
        data.update(restored)

    def commit(self, data: dict[str, Any], changed: dict[str, Any]) -> None:
        """Take the changed parts as the ledger's own."""
        if "" in changed:
            self.keys, self.parts = list(data), dict(changed[""])
            return
        self.parts.update(changed)


_ITEM_MODELS: dict[str, type[Any]] = {"pages": Page, "tasks": Task, "markers": Marker}
"""Top-level lists whose items the ledger keeps and validates one by one."""


def apply_repairs(site: Site, issues: list[Issue], ctx: Context | None = None) -> tuple[Site, list[Repair], Touch, list[Issue]]:
    """Apply one operator per issue, deepest location first, and re-validate the site.

    Each operator edits the data in place; what it changed is validated (as the whole site would
    be) and kept, or undone when it fails or leaves the site invalid (see :class:`_Ledger`).

    Returns:
        The repaired site, the repairs made, what they touched, and the issues nothing could fix.
    """
    ctx = ctx or Context()
    ctx.issues = issues
    data = to_data(site)  # fresh containers: the site itself is never edited
    data.pop("id", None)
    ledger = _Ledger(data)
    start = dict(ledger.parts)
    task_ids = [t["id"] for t in data.get("tasks", [])]
    repairs: list[Repair] = []
    touched = Touch()
    unfixed: list[Issue] = []
    seen: set[tuple[str, str]] = set()
    ordered = sorted(issues, key=lambda i: (_sort_key(i.location), i.code), reverse=True)
    fixes = [i for i in ordered if not _gives_up(operator_for(i)) and operator_for(i) not in _LATE]
    late = [i for i in ordered if operator_for(i) in _LATE]
    drops = [i for i in ordered if _gives_up(operator_for(i))]
    for issue in fixes + late + drops:
        if (issue.code, issue.location) in seen:
            continue
        seen.add((issue.code, issue.location))
        operator = operator_for(issue)
        if operator in _LATE and repairs and (issue.code, issue.location) not in ctx.deferred:
            ctx.deferred.add((issue.code, issue.location))
            continue  # a fix this round may bring back what it adds; held back one round, never more
        if _gives_up(operator) and repairs:
            continue  # a fix this round may remove the cause; the next round's checks decide
        index = _task_index(data, parse_path(issue.location)) if issue.location.startswith("$.tasks[") else None
        if index is not None:
            current = [t["id"] for t in data.get("tasks", [])]
            wanted = task_ids[index] if index < len(task_ids) else None
            # the same task now (by id; of two tasks with one id, the same one of them)
            now = [n for n, t in enumerate(current) if t == wanted][task_ids[:index].count(wanted):][:1]
            if not now:
                continue  # its task was dropped this round
            issue = Issue(issue.cls, issue.code, issue.location.replace(f"$.tasks[{index}]", f"$.tasks[{now[0]}]", 1),
                          issue.message)
        outcome, changed = _attempt(operator, data, issue, ctx, ledger)
        if outcome is None and index is not None and _gives_up(operator) and operator is not drop_task:
            # A task's issue its own operator could not fix, when no other fix is left this round: the
            # task goes, not the whole site with it.
            operator = drop_task
            outcome, changed = _attempt(operator, data, issue, ctx, ledger)
        if outcome is None:
            unfixed.append(issue)
            continue
        ledger.commit(data, changed)
        change, touch = outcome
        touched.update(touch)
        if "layout" in changed or "" in changed:
            # The header, menu and footer are on every page that has the layout: a link added there
            # renumbers every element after it, so each task that visits such a page is read again.
            touched.update(Touch(pages={p["id"] for p in data.get("pages", []) if p.get("layout", True) is not False}))
        if change:
            repairs.append(Repair(issue.code, issue.location, operator.__name__, change))
    ctx.changed = {key for key in set(start) | set(ledger.parts) if start.get(key) != ledger.parts.get(key)} | {"id"}
    return from_data(data, check_id=False), repairs, touched, unfixed


def _attempt(operator: Operator | None, data: dict[str, Any], issue: Issue, ctx: Context,
             ledger: _Ledger) -> tuple[Outcome | None, Any]:
    """Run ``operator`` on ``issue``: its outcome and what it changed, or ``None`` with everything it
    changed undone (it gave up, raised, or left a scaffold that does not validate)."""
    try:
        outcome = operator(data, issue, ctx) if operator else None
    except _OPERATOR_FAULTS:
        outcome = None
    changed = ledger.diff(data)
    if outcome is not None:
        try:
            ledger.validate(data, changed)  # an operator must leave a valid scaffold (hashed once, at the end)
        except _OPERATOR_FAULTS:
            outcome = None
    if outcome is None:
        ledger.undo(data, changed)
    return outcome, changed


_OPERATOR_FAULTS = (VeriwebError, ValueError, KeyError, IndexError, TypeError, StopIteration)
"""What an operator that cannot fix its issue may raise (a pydantic ValidationError is a ValueError)."""


def repair_static(site: Site, *, rounds: int = MAX_ROUNDS, check: Callable[[Site], list[Issue]] | None = None,
                  checked: CheckRun | None = None) -> tuple[Site, list[Repair], Touch, list[Issue], Context]:
    """Check, repair and check again until nothing changes (at most ``rounds`` rounds).

    Args:
        site: the site to repair.
        rounds: the most check-repair rounds.
        check: the site's static issues, asked afresh each round; by default the static checks,
            traced (:func:`veriweb.verify.recheck.check_site`) and, after a round, run again only
            where its repairs changed a field they read (:func:`veriweb.verify.recheck.recheck`):
            the same issues, for less.
        checked: the traced checks of ``site`` already run, when ``check`` is the default.

    Returns:
        The repaired site, every repair in order, what they touched, the issues still reported
        at the end, and the context (tasks dropped, with why; ``checked``: the traced run of the
        last site checked, for :func:`veriweb.verify.recheck.recheck`, or ``None`` with a ``check``).
    """
    ctx = Context()
    log: list[Repair] = []
    touched = Touch()
    run: CheckRun | None = None
    if check is None:
        run = checked if checked is not None and checked.site is site else check_site(site)
        issues = run.issues
    else:
        issues = check(site)
    for _ in range(rounds):
        if not issues:
            break
        site, repairs, touch, _ = apply_repairs(site, issues, ctx)
        log.extend(repairs)
        touched.update(touch)
        if not repairs:
            break
        if run is not None:
            run = recheck(site, run, ctx.changed)
            issues = run.issues
        else:
            issues = check(site)  # type: ignore[misc]
    ctx.checked = run
    return site, log, touched, issues, ctx


# ----------------------------------------------------------------------------- invalidation


def task_reads(task_data: dict[str, Any], table_names: set[str]) -> set[str]:
    """The tables a task's predicates, answer, footprint and constraints read or name."""
    found: set[str] = set()
    words = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("table"), str):
                found.add(node["table"])
            if isinstance(node.get("sql"), str):
                found.update(w for w in words.findall(node["sql"]) if w in table_names)
            for value in node.values():
                visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    visit({k: v for k, v in task_data.items() if k != "certificate"})
    return found


def invalidated(site: Site, touched: Touch, visits: dict[str, set[str]]) -> set[str]:
    """Ids of the tasks that read something a repair touched.

    Args:
        site: the repaired site.
        touched: what the repairs touched.
        visits: for each task id, the pages its old certificate went through (and its start page).
    """
    data = to_data(site)
    names = {t["name"] for t in _tables(data)} | {v["name"] for v in data.get("database", {}).get("views", [])}
    marker_tables = {m["name"]: {e["table"] for e in m["effects"]} for m in data.get("markers", [])}
    touched_tables = set(touched.tables)
    for name in touched.markers:
        touched_tables |= marker_tables.get(name, set())
    # A view reading a touched table shows other rows or figures too (a month's revenue over orders
    # whose totals were recomputed), and so does a view over that view.
    views = {v["name"]: task_reads({"sql": v.get("sql", "")}, names) - {v["name"]}
             for v in data.get("database", {}).get("views", [])}
    grown = True
    while grown:
        more = {view for view, reads in views.items() if view not in touched_tables and reads & touched_tables}
        touched_tables |= more
        grown = bool(more)
    out = set()
    for task in data.get("tasks", []):
        reads = task_reads(task, names)
        if (task["id"] in touched.tasks or reads & touched_tables
                or visits.get(task["id"], set()) & touched.pages):
            out.add(task["id"])
    return out


__all__ = [
    "MAX_ROUNDS", "OPERATORS", "Context", "Repair", "Touch", "apply_repairs", "coerce_value", "get_at",
    "invalidated", "operator_for", "parse_path", "repair_static", "task_reads",
]

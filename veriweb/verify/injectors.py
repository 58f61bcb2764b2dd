"""Defect injectors: one edit per defect kind, each making the kind of mistake a one-pass author makes.

Every injector takes the clean site (as a model, for walking), the site's JSON data (edited in
place) and a random stream, and returns a :class:`Hit` (what it broke, where) or ``None`` when
the site offers nothing to break that way. Injectors keep every list the same length where they
edit pages (an element is replaced, never removed), so the JSON paths of earlier defects stay
true; rows are only appended at the end of a table.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from veriweb.scaffold import Site
from veriweb.scaffold.site import render_instruction
from veriweb.verify import checks as C
from veriweb.verify.retrace import Trace

_STEP = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]")


@dataclass
class Hit:
    """What an injector did: location, message, scope, and the tasks it targets by design."""

    location: str
    message: str
    scope: tuple[str, str | None]
    """What the edit touches, for finding the tasks it breaks: ("page", page id or None for the
    layout), ("table", name), ("marker", name) or ("task", id)."""
    tasks: tuple[str, ...] = ()
    related: tuple[str, ...] = ()
    edits: list[tuple[str, Any]] = field(default_factory=list)
    """The logged sets that make this defect (see :attr:`Workbench.log`)."""
    knock_on: tuple[tuple[str, str], ...] = ()
    """(code, path) of the places it shows under another check (see :func:`knock_on`)."""


@dataclass
class Workbench:
    """The state injectors share: the clean site, the raw data being edited, and what is taken."""

    site: Site
    data: dict[str, Any]
    traces: dict[str, Trace]
    taken: set[str] = field(default_factory=set)
    """Locations already edited (and task ids already given a task-level defect)."""

    def elements(self, *types: str, pages_only: bool = True) -> list[tuple[Any, str, str | None]]:
        """Untaken elements of these types, with path and page id, in document order."""
        return [(e, p, pid) for e, p, pid in C.all_elements(self.site)
                if e.type in types and (pid is not None or not pages_only) and not self._near(p)]

    def _near(self, path: str) -> bool:
        return any(path.startswith(t) or t.startswith(path) for t in self.taken if t.startswith("$"))

    log: list[tuple[str, Any]] = field(default_factory=list)
    """Every ``set`` made, in order: replaying one hit's part of it gives the site with that defect alone."""

    def take(self, path: str) -> str:
        self.taken.add(path)
        return path

    def set(self, path: str, value: Any) -> None:
        """Set the value at ``path`` in the raw data, and log it."""
        put(self.data, path, value)
        self.log.append((path, copy.deepcopy(value)))


def get(data: Any, path: str) -> Any:
    """The value at a JSON path such as ``$.pages[3].elements[1].href``."""
    node = data
    for key, index in _STEP.findall(path[1:]):
        node = node[key] if key else node[int(index)]
    return node


def put(data: Any, path: str, value: Any) -> None:
    """Set the value at a JSON path (a list index at or past the end appends: a row added
    after other rows were, replayed on its own)."""
    steps = _STEP.findall(path[1:])
    parent = get(data, "$" + "".join(f".{k}" if k else f"[{i}]" for k, i in steps[:-1]))
    key, index = steps[-1]
    if not key and int(index) >= len(parent):
        parent.append(value)
    else:
        parent[key if key else int(index)] = value


def _page_index(site: Site, page_id: str | None) -> int | None:
    return next((n for n, p in enumerate(site.pages) if p.id == page_id), None)


def _pick(rng: random.Random, items: list[Any]) -> Any:
    return items[rng.randrange(len(items))] if items else None


# ----------------------------------------------------------------------------- structural


def broken_link(wb: Workbench, rng: random.Random) -> Hit | None:
    """A link to a page that does not exist (a misspelt or invented route)."""
    routes = C._routes(wb.site)
    links = [(e, p, pid) for e, p, pid in wb.elements("link")
             if e.href.startswith("/") and C.resolve_href(routes, e.href) is not None]
    found = _pick(rng, links)
    if found is None:
        return None
    element, path, page_id = found
    head, _, rest = element.href.lstrip("/").partition("/")
    head = head.split("?")[0] or "home"
    for guess in rng.sample([f"{head}s", f"{head}-details", f"view-{head}", f"{head}.html", head[:-1] or "index"], 5):
        href = "/" + guess + ("/" + rest if rest else "")
        if C.resolve_href(routes, href) is None:
            wb.set(wb.take(f"{path}.href"), href)
            return Hit(f"{path}.href", f"link {element.text!r} now leads to {href!r}", ("page", page_id))
    return None


def wrong_link(wb: Workbench, rng: random.Random) -> Hit | None:
    """A link to the wrong record: it passes another column of the row (a category id where the
    page wants a product id)."""
    from veriweb.verify.intent import _page_keys, bound_links, passes_key

    routes = C._routes(wb.site)
    keys = _page_keys(wb.site)
    options = []
    for element, path, page_id, table, column in bound_links(wb.site):
        dest = C.resolve_href(routes, element.href)
        if dest not in keys or wb._near(path):
            continue
        _, target_table, target_column = keys[dest]
        if not passes_key(wb.site, table, column, target_table, target_column):
            continue
        others = [c.name for c in wb.site.database.table(table).columns
                  if c.type == "integer" and c.name != column
                  and not passes_key(wb.site, table, c.name, target_table, target_column)]
        if others:
            options.append((element, path, page_id, column, others))
    found = _pick(rng, options)
    if found is None:
        return None
    element, path, page_id, column, others = found
    other = rng.choice(others)
    href = element.href.replace(f"{{row.{column}", f"{{row.{other}", 1)
    wb.set(wb.take(f"{path}.href"), href)
    return Hit(f"{path}.href", f"link {element.text!r} passes {other} instead of {column}", ("page", page_id))


def orphan_page(wb: Workbench, rng: random.Random) -> Hit | None:
    """A page no link leads to any more (its links were written as plain text)."""
    routes = C._routes(wb.site)
    login = C.resolve_href(routes, wb.site.auth.login_page) if wb.site.auth else None
    home = C.resolve_href(routes, "/")
    by_target: dict[str, list[tuple[Any, str]]] = {}
    other: set[str] = set()
    for element, path, _ in C.all_elements(wb.site):
        if element.type == "link":
            dest = C.resolve_href(routes, element.href)
            if dest is not None:
                by_target.setdefault(dest, []).append((element, path))
        elif element.type == "form":
            target = getattr(element.action, "route", None) or getattr(element.action, "redirect", None)
            dest = C.resolve_href(routes, target) if target else None
            if dest is not None:
                other.add(dest)
    choices = [pid for pid in by_target if pid not in (home, login) and pid not in other
               and not any(wb._near(path) for _, path in by_target[pid])]
    page_id = _pick(rng, sorted(choices))
    if page_id is None:
        return None
    for element, path in by_target[page_id]:
        wb.set(wb.take(path), {"type": "text", "text": element.text})
    number = _page_index(wb.site, page_id)
    pages = {pid for _, p, pid in C.all_elements(wb.site) if any(p == q for _, q in by_target[page_id])}
    return Hit(f"$.pages[{number}]", f"page {page_id!r} is linked from nowhere",
               ("page", None if None in pages else page_id))


def _marker_forms(wb: Workbench) -> list[tuple[Any, str, str | None]]:
    return [(e, p, pid) for e, p, pid in wb.elements("form", pages_only=False)
            if e.action.kind == "marker" and wb.site.marker(e.action.marker) is not None]


def missing_field(wb: Workbench, rng: random.Random) -> Hit | None:
    """A form that no longer supplies a parameter its marker needs (renamed field or dropped argument)."""
    options = []
    for element, path, page_id in _marker_forms(wb):
        for arg, value in element.action.args.items():
            if isinstance(value, C.Ref) and value.namespace == "field":
                index = next((n for n, f in enumerate(element.fields) if f.name == value.name), None)
                if index is not None:
                    options.append((path, page_id, arg, value.name, index))
    found = _pick(rng, options)
    if found is None:
        return None
    path, page_id, arg, name, index = found
    wb.take(path)
    marker = wb.site.marker(get(wb.data, f"{path}.action.marker"))
    param = next((p for p in marker.params if p.name == arg), None) if marker else None
    needed = param is not None and param.required and param.type != "boolean"
    if not needed or rng.random() < 0.5:
        new = rng.choice([f"{name}_value", f"new_{name}", f"{name}_input", f"{name}s"])
        wb.set(f"{path}.fields[{index}].name", new)
        message = f"field {name!r} was renamed {new!r}, but the form still sends {name!r}"
    else:
        wb.set(f"{path}.action.args", {k: v for k, v in get(wb.data, f"{path}.action.args").items() if k != arg})
        message = f"the form no longer sends {arg!r} to its marker"
    return Hit(path, message, ("page", page_id))


def unknown_marker(wb: Workbench, rng: random.Random) -> Hit | None:
    """A form posting to a marker that does not exist (a near miss of a real name)."""
    found = _pick(rng, _marker_forms(wb))
    if found is None:
        return None
    element, path, page_id = found
    name = element.action.marker
    names = {m.name for m in wb.site.markers}
    for guess in rng.sample([f"{name}_action", f"do_{name}", name.replace("_", ""), f"{name}s", f"submit_{name}"], 5):
        if guess not in names:
            wb.set(wb.take(f"{path}.action.marker"), guess)
            return Hit(f"{path}.action.marker", f"form posts to {guess!r} instead of {name!r}", ("page", page_id))
    return None


# ----------------------------------------------------------------------------- semantic

_LOREM = ["Lorem ipsum dolor sit amet, consectetur adipiscing elit.", "TODO: write the copy for this section",
          "Placeholder text", "TBD", "Description goes here {{ description }}", "???"]


def _rows(wb: Workbench, *types: str, skip_keys: bool = True) -> list[tuple[int, int, str, Any]]:
    """Untaken (table index, row index, column, value) with a column of one of these types."""
    out = []
    for t_index, table in enumerate(wb.site.database.tables):
        fks = {fk.column for fk in table.foreign_keys}
        columns = [c for c in table.columns if c.type in types and not (skip_keys and (
            c.name == table.primary_key or c.name in fks or c.unique))]
        for r_index, row in enumerate(table.rows):
            for column in columns:
                where = f"$.database.tables[{t_index}].rows[{r_index}].{column.name}"
                if row.get(column.name) is not None and where not in wb.taken:
                    out.append((t_index, r_index, column.name, row.get(column.name)))
    return out


def _slot_values(site: Site) -> set[str]:
    return {str(v).casefold() for t in site.tasks for v in t.slots.values() if v is not None}


def placeholder(wb: Workbench, rng: random.Random) -> Hit | None:
    """Placeholder text left on a page or in a record (lorem ipsum, TODO, TBD)."""
    text = rng.choice(_LOREM)
    if rng.random() < 0.5:
        found = _pick(rng, [(e, p, pid) for e, p, pid in wb.elements("text", "heading")
                            if e.text.strip() and not C._PLACEHOLDER_TEXT.search(e.text)])
        if found is not None:
            element, path, page_id = found
            wb.set(wb.take(f"{path}.text"), text)
            return Hit(f"{path}.text", f"{element.type} text replaced by {text!r}", ("page", page_id))
    slots = _slot_values(wb.site)
    free = [r for r in _rows(wb, "text") if len(str(r[3])) > 25 and str(r[3]).casefold() not in slots]
    found = _pick(rng, free)
    if found is None:
        return None
    t_index, r_index, column, _ = found
    where = wb.take(f"$.database.tables[{t_index}].rows[{r_index}].{column}")
    wb.set(where, text)
    return Hit(where, f"{wb.site.database.tables[t_index].name}.{column} holds {text!r}",
               ("table", wb.site.database.tables[t_index].name))


def empty_content(wb: Workbench, rng: random.Random) -> Hit | None:
    """A heading, link, button or field with no words on it."""
    options: list[tuple[str, str | None]] = []
    for element, path, page_id in wb.elements("heading", "link", "form"):
        if element.type in ("heading", "link") and element.text.strip() and "{" not in element.text:
            options.append((f"{path}.text", page_id))
        elif element.type == "form":
            options.append((f"{path}.submit", page_id))
            options += [(f"{path}.fields[{n}].label", page_id) for n, f in enumerate(element.fields) if f.label.strip()]
    found = _pick(rng, options)
    if found is None:
        return None
    where, page_id = found
    wb.set(wb.take(where), "")
    return Hit(where, "label left empty", ("page", page_id))


def missing_value(wb: Workbench, rng: random.Random) -> Hit | None:
    """A record with a required value left out."""
    required = [r for r in _rows(wb, "text", "integer", "money", "date", "real")
                if not wb.site.database.tables[r[0]].column(r[2]).nullable]
    found = _pick(rng, required)
    if found is None:
        return None
    t_index, r_index, column, _ = found
    where = wb.take(f"$.database.tables[{t_index}].rows[{r_index}].{column}")
    wb.set(where, None)
    name = wb.site.database.tables[t_index].name
    return Hit(where, f"{name}.{column} left empty", ("table", name))


def _mistype(kind: str, value: Any, rng: random.Random) -> Any:
    if kind == "money":
        return rng.choice([f"${value / 100:,.2f}", f"{value / 100:.2f}", f"{value / 100:.2f} USD"])
    if kind == "integer":
        return rng.choice([f"{value} units", f"{value}.0 pcs", f"#{value}"])
    if kind == "real":
        return f"{value} / 5"
    if kind == "boolean":
        return "yes" if value else "no"
    if kind == "date":
        year, month, day = str(value)[:10].split("-")
        return rng.choice([f"{int(month)}/{int(day)}/{year}", f"{day}.{month}.{year}", f"{year}{month}{day}"])
    return value


def wrong_type(wb: Workbench, rng: random.Random) -> Hit | None:
    """A stored value of the wrong type: an amount as text, a date in another format."""
    found = _pick(rng, [r for r in _rows(wb, "money", "integer", "real", "boolean", "date")
                        if not isinstance(r[3], str) or len(r[3]) >= 10])
    if found is None:
        return None
    t_index, r_index, column, value = found
    table = wb.site.database.tables[t_index]
    new = _mistype(table.column(column).type, value, rng)
    where = wb.take(f"$.database.tables[{t_index}].rows[{r_index}].{column}")
    wb.set(where, new)
    return Hit(where, f"{table.name}.{column} holds {new!r} instead of {value!r}", ("table", table.name))


def contradictory_label(wb: Workbench, rng: random.Random) -> Hit | None:
    """A submit button whose words say the opposite of what its marker does ("Save" that deletes)."""
    options = []
    for element, path, page_id in _marker_forms(wb):
        ops = {e.op for e in wb.site.marker(element.action.marker).effects}
        if ops == {"delete"}:
            options.append((path, page_id, rng.choice(["Save", "Save changes", "Add", "Update"])))
        elif ops == {"insert"}:
            options.append((path, page_id, rng.choice(["Delete", "Remove", "Discard"])))
    found = _pick(rng, options)
    if found is None:
        return None
    path, page_id, label = found
    wb.set(wb.take(f"{path}.submit"), label)
    return Hit(f"{path}.submit", f"button says {label!r} but does the opposite", ("page", page_id))


# ----------------------------------------------------------------------------- consistency


def dangling_key(wb: Workbench, rng: random.Random) -> Hit | None:
    """A record that points at a row that does not exist."""
    options = []
    for t_index, table in enumerate(wb.site.database.tables):
        for fk in table.foreign_keys:
            target = wb.site.database.table(fk.ref_table)
            if target is None:
                continue
            for r_index, row in enumerate(table.rows):
                where = f"$.database.tables[{t_index}].rows[{r_index}].{fk.column}"
                if isinstance(row.get(fk.column), int) and where not in wb.taken:
                    options.append((where, table.name, target))
    found = _pick(rng, options)
    if found is None:
        return None
    where, name, target = found
    top = max((r.get(target.primary_key) for r in target.rows if isinstance(r.get(target.primary_key), int)), default=0)
    value = top + rng.randrange(100, 1000)
    wb.set(wb.take(where), value)
    return Hit(where, f"{name} row points at {target.name} {value}, which does not exist", ("table", name))


def duplicate_key(wb: Workbench, rng: random.Random) -> Hit | None:
    """Two records with the same key (a primary key or a unique column)."""
    options = []
    for t_index, table in enumerate(wb.site.database.tables):
        if len(table.rows) < 3:
            continue
        referenced = any(fk.ref_table == table.name for t in wb.site.database.tables for fk in t.foreign_keys)
        for column in [c.name for c in table.columns if c.unique] + ([] if referenced else [table.primary_key]):
            options.append((t_index, column))
    found = _pick(rng, options)
    if found is None:
        return None
    t_index, column = found
    table = wb.site.database.tables[t_index]
    source, victim = rng.sample(range(len(table.rows)), 2)
    where = f"$.database.tables[{t_index}].rows[{victim}].{column}"
    partner = f"$.database.tables[{t_index}].rows[{source}].{column}"
    if where in wb.taken or partner in wb.taken or table.rows[source].get(column) is None:
        return None
    wb.set(wb.take(where), table.rows[source][column])
    wb.take(partner)
    return Hit(where, f"{table.name}.{column} {table.rows[source][column]!r} is used twice", ("table", table.name),
               related=(partner,))


def total_mismatch(wb: Workbench, rng: random.Random) -> Hit | None:
    """A stored total that disagrees with the lines it sums."""
    options = []
    for t_index, table in enumerate(wb.site.database.tables):
        column = table.column("total")
        if column is None or column.type != "money":
            continue
        has_lines = any(any(fk.ref_table == table.name for fk in t.foreign_keys)
                        and any(c.name in ("qty", "quantity") for c in t.columns) for t in wb.site.database.tables)
        if not has_lines:
            continue
        for r_index, row in enumerate(table.rows):
            where = f"$.database.tables[{t_index}].rows[{r_index}].total"
            if isinstance(row.get("total"), int) and where not in wb.taken:
                options.append((where, table.name, row["total"]))
    found = _pick(rng, options)
    if found is None:
        return None
    where, name, value = found
    new = value + rng.choice([-1, 1]) * rng.randrange(101, 4999) if value > 5000 else value + rng.randrange(101, 4999)
    wb.set(wb.take(where), new)
    return Hit(where, f"{name} total {new} instead of {value}", ("table", name))


def price_display(wb: Workbench, rng: random.Random) -> Hit | None:
    """An amount shown in raw cents on one page and as money elsewhere ("2499" next to "$24.99")."""
    from veriweb.verify.intent import money_references

    options = [(path, attr, text, page_id) for path, attr, text, page_id, formatted in money_references(wb.site)
               if formatted and page_id is not None and not wb._near(path)]
    found = _pick(rng, options)
    if found is None:
        return None
    path, attr, text, page_id = found
    new = text.replace("|money}", rng.choice(["}", "|num}", "|int}"]), 1)
    wb.set(wb.take(f"{path}.{attr}"), new)
    return Hit(f"{path}.{attr}", f"amount shown without its currency format: {new!r}", ("page", page_id))


def invariant_break(wb: Workbench, rng: random.Random) -> Hit | None:
    """A marker whose guard was dropped, so it can break what the data relies on (negative stock,
    a booking dated in the past)."""
    from veriweb.verify.intent import guarded_writes

    options = [g for g in guarded_writes(wb.site) if g.guards and not wb._near(f"$.markers[{g.marker}]")]
    found = _pick(rng, options)
    if found is None:
        return None
    wb.take(f"$.markers[{found.marker}]")
    marker = get(wb.data, f"$.markers[{found.marker}]")
    for kind in ("preconditions", "invariants"):
        wb.set(f"$.markers[{found.marker}].{kind}",
               [c for n, c in enumerate(marker[kind]) if (kind, n) not in found.guards])
    return Hit(found.location, f"marker {marker['name']!r} lost the check that kept {found.what}",
               ("marker", marker["name"]))


# ----------------------------------------------------------------------------- tasks

_INVENTED = ["Velvet", "Titanium", "Heritage", "Quantum", "Coastal", "Aurora", "Granite", "Juniper", "Sable", "Lumen"]


def _tasks(wb: Workbench, *kinds: str) -> list[tuple[int, Any]]:
    return [(n, t) for n, t in enumerate(wb.site.tasks) if t.kind in kinds and t.id not in wb.taken]


def _retemplate(wb: Workbench, number: int, slots: dict[str, Any]) -> None:
    task = get(wb.data, f"$.tasks[{number}]")
    task["slots"] = slots
    task["instruction"] = render_instruction(task["template"], slots)


def missing_entity(wb: Workbench, rng: random.Random) -> Hit | None:
    """A task that names something the site does not have (an invented product, person, place)."""
    corpus = {v.casefold() for t in wb.site.database.tables for r in t.rows for v in r.values() if isinstance(v, str)}
    written = {e.table for m in wb.site.markers for e in m.effects if e.op == "insert"}
    options = []
    for number, task in _tasks(wb, "navigate", "retrieve", "mutate"):
        tables = C._slot_tables(task)
        for name, value in task.slots.items():
            if isinstance(value, str) and value.strip() and tables.get(name, set()) - written:
                options.append((number, task, name, value))
    found = _pick(rng, options)
    if found is None:
        return None
    number, task, name, value = found
    words = value.split()
    for _ in range(10):
        changed = list(words)
        changed[rng.randrange(len(words))] = rng.choice(_INVENTED)
        new = " ".join(changed) if len(words) > 1 else f"{rng.choice(_INVENTED)} {value}"
        if new.casefold() not in corpus:
            break
    else:
        return None
    _retemplate(wb, number, task.slots | {name: new})
    wb.taken.add(task.id)
    return Hit(f"$.tasks[{number}].slots.{name}", f"task {task.id!r} names {new!r}, which the site does not have",
               ("task", task.id), tasks=(task.id,))


def goal_at_start(wb: Workbench, rng: random.Random) -> Hit | None:
    """A task whose goal already holds at the start (it starts on the goal page, or the data already
    has what it asks for)."""
    options = []
    for number, task in _tasks(wb, "navigate", "mutate"):
        recorded = wb.traces.get(task.id)
        if recorded is None or not recorded.success:
            continue
        final = wb.site.page(recorded.pages[-1]) if recorded.pages else None
        if task.kind == "navigate" and recorded.final_url.startswith("/") and final is not None and (
                task.start_logged_in or not final.requires_login):
            options.append((number, task, recorded))
        elif (task.kind == "mutate" and recorded.changes and all(op != "delete" for _, op, _, _ in recorded.changes)
              and not any(f"inserted:{t}" in wb.taken for t, op, _, _ in recorded.changes if op == "insert")):
            # two tasks' inserts, each numbered from the clean site, would collide: one per table
            options.append((number, task, recorded))
    found = _pick(rng, options)
    if found is None:
        return None
    number, task, recorded = found
    if task.kind == "navigate":
        wb.set(f"$.tasks[{number}].start_url", recorded.final_url)
    else:
        if _overwrites_taken(wb, recorded.changes):
            return None
        for table_name, op, old, new in recorded.changes:
            t_index = next(n for n, t in enumerate(wb.site.database.tables) if t.name == table_name)
            table = wb.site.database.tables[t_index]
            rows = get(wb.data, f"$.database.tables[{t_index}].rows")
            known = {c.name for c in table.columns} | {table.primary_key}
            values = {k: v for k, v in (new or {}).items() if k in known}
            if op == "insert":
                wb.taken.add(f"inserted:{table_name}")
                wb.set(f"$.database.tables[{t_index}].rows[{len(rows)}]", values)
            else:
                key = old.get(table.primary_key)
                index = next((i for i, r in enumerate(rows) if r.get(table.primary_key) == key), None)
                if index is None:
                    continue
                for column, value in values.items():
                    where = f"$.database.tables[{t_index}].rows[{index}].{column}"
                    if rows[index].get(column) != value:
                        wb.taken.add(where)
                        wb.set(where, value)
    wb.taken.add(task.id)
    scope = ("task", task.id) if task.kind == "navigate" else ("table", recorded.changes[0][0])
    return Hit(f"$.tasks[{number}]", f"task {task.id!r} is already done before the agent starts",
               scope, tasks=(task.id,))


def _overwrites_taken(wb: Workbench, changes: list[Any]) -> bool:
    """Whether writing these recorded row updates would overwrite a value another defect set."""
    for table_name, op, old, new in changes:
        if op == "insert":
            continue
        t_index = next(n for n, t in enumerate(wb.site.database.tables) if t.name == table_name)
        table = wb.site.database.tables[t_index]
        rows = get(wb.data, f"$.database.tables[{t_index}].rows")
        index = next((i for i, r in enumerate(rows) if r.get(table.primary_key) == old.get(table.primary_key)), None)
        if index is not None and any(f"$.database.tables[{t_index}].rows[{index}].{column}" in wb.taken
                                     for column in (new or {})):
            return True
    return False


def _other_day(row: dict[str, Any], table: Any, column: str, today: Any, rng: random.Random) -> str:
    """Another day for a date in ``row``, a few days off, still on the same side of the row's other
    dates and not after today (a twin merged on another day, not before it was opened)."""
    old = row.get(column)
    try:
        day = dt.date.fromisoformat(str(old)[:10])
    except ValueError:
        return "2025-01-0" + str(rng.randrange(1, 9))
    others = [str(row[c.name])[:10] for c in table.columns if c.type in ("date", "datetime") and c.name != column
              and isinstance(row.get(c.name), str)]
    floor = max((o for o in others if o <= day.isoformat()), default="")
    ceiling = min([o for o in others if o > day.isoformat()] + [today.isoformat()])
    choices = [d for k in range(1, 10) for d in ((day - dt.timedelta(days=k)).isoformat(),
                                                 (day + dt.timedelta(days=k)).isoformat())
               if floor <= d <= ceiling]
    return rng.choice(choices) if choices else (day - dt.timedelta(days=1)).isoformat()


def answer_not_unique(wb: Workbench, rng: random.Random) -> Hit | None:
    """A lookup that matches two records with different answers (two products of the same name)."""
    options = []
    for number, task in _tasks(wb, "retrieve"):
        value = task.answer.value if task.answer else None
        if not isinstance(value, C.QueryValue) or value.query.agg is not None:
            continue
        table = wb.site.database.table(value.query.table)
        conds = value.query.where
        if table is None or not conds or any(c.op != "=" for c in conds):
            continue
        column = table.column(value.query.select)
        if column is None or column.type not in ("money", "integer", "real", "text", "date") or column.unique:
            continue
        if any(table.column(c.column) is not None and table.column(c.column).unique for c in conds):
            continue
        from veriweb.verify.checks_keys import identifier_columns

        if any(c.column in identifier_columns(wb.site, table) for c in conds):
            continue  # two rows sharing a login name or a sku: a duplicate key (C002), not this defect
        options.append((number, task, table, column))
    found = _pick(rng, options)
    if found is None:
        return None
    number, task, table, column = found
    from veriweb.verify.intent import lookup_rows

    matches = lookup_rows(wb.site, task.answer.value.query, task.slots)
    if len(matches) != 1:
        return None
    t_index = wb.site.database.tables.index(table)
    rows = get(wb.data, f"$.database.tables[{t_index}].rows")
    twin = copy.deepcopy(matches[0])
    top = max((r.get(table.primary_key) for r in rows if isinstance(r.get(table.primary_key), int)), default=0)
    twin[table.primary_key] = top + 1000  # clear of rows another defect adds with the next ids
    old = twin.get(column.name)
    if column.type in ("money", "integer"):
        twin[column.name] = (old or 0) + rng.randrange(1, 40) * (100 if column.type == "money" else 1)
    elif column.type == "real":
        twin[column.name] = round((old or 0) + 0.5, 1)
    elif column.type == "date":
        twin[column.name] = _other_day(twin, table, column.name, wb.site.clock.today, rng)
    else:
        twin[column.name] = f"{old} (copy)"
    from veriweb.verify.checks_keys import identifier_columns

    from veriweb.verify.checks_keys import _NUMBERED

    numbered = {c.name for c in table.columns if c.type == "integer" and _NUMBERED.search(c.name)}
    for unique in (c for c in table.columns
                   if c.unique or c.name in identifier_columns(wb.site, table) or c.name in numbered):
        if isinstance(twin.get(unique.name), str):
            twin[unique.name] = f"{twin[unique.name]}-2"
        elif isinstance(twin.get(unique.name), int):
            ints = [r.get(unique.name) for r in rows if isinstance(r.get(unique.name), int)]
            twin[unique.name] = max(ints, default=0) + 1000
    where = f"$.database.tables[{t_index}].rows[{len(rows)}]"
    wb.set(where, twin)
    wb.taken.update((task.id, where))
    return Hit(f"$.tasks[{number}].answer", f"task {task.id!r}: two {table.name} match, with different {column.name}",
               ("table", table.name), tasks=(task.id,), related=(where,))


def contradictory_constraint(wb: Workbench, rng: random.Random) -> Hit | None:
    """A constraint that forbids what the goal requires."""
    options = [(n, t) for n, t in _tasks(wb, "navigate", "mutate") if t.goal]
    found = _pick(rng, options)
    if found is None:
        return None
    number, task = found
    if task.progress and rng.random() < 0.4:
        sub = rng.choice(task.progress)
        predicate, what = sub.predicate, sub.description.rstrip(".")
    else:
        predicate, what = rng.choice(task.goal), "change anything"
    constraints = get(wb.data, f"$.tasks[{number}].constraints")
    constraints.append({"description": f"Do not {what[:1].lower()}{what[1:]}",
                        "predicate": json.loads(predicate.model_dump_json())})
    wb.taken.add(task.id)
    return Hit(f"$.tasks[{number}].constraints[{len(constraints) - 1}]",
               f"task {task.id!r} forbids what its goal requires", ("task", task.id), tasks=(task.id,))


def missing_control(wb: Workbench, rng: random.Random) -> Hit | None:
    """A task that needs a form the site does not have (the author never wrote it)."""
    all_forms = [(e, p) for e, p, _ in C.all_elements(wb.site) if e.type == "form" and e.action.kind == "marker"]
    effects = {m.name: m.effects for m in wb.site.markers}
    options = []
    for number, task in _tasks(wb, "mutate"):
        for entry in task.footprint:
            makers = {e.action.marker for e, _ in all_forms
                      if any(x.table == entry.table and x.op in entry.ops for x in effects.get(e.action.marker, []))}
            if len(makers) == 1:
                options.append((number, task, makers.pop()))
    found = _pick(rng, options)
    if found is None:
        return None
    number, task, marker = found
    paths = [p for e, p in all_forms if e.action.marker == marker]
    if any(wb._near(p) for p in paths):
        return None
    for element, path in ((e, p) for e, p in all_forms if e.action.marker == marker):
        wb.set(wb.take(path), {"type": "text", "text": element.label or element.submit})
    wb.taken.add(task.id)
    return Hit(f"$.tasks[{number}]", f"task {task.id!r} needs {marker!r}, but no page has a form for it",
               ("task", task.id), tasks=(task.id,))


Injector = Callable[[Workbench, random.Random], "Hit | None"]

INJECTORS: dict[str, tuple[str, str, bool, Injector]] = {
    # kind: (check code, class, a repair should exist, injector)
    "broken_link": ("S001", "structural", True, broken_link),
    "orphan_page": ("S002", "structural", True, orphan_page),
    "wrong_link": ("S011", "structural", True, wrong_link),
    "unknown_marker": ("S003", "structural", True, unknown_marker),
    "missing_field": ("S004", "structural", True, missing_field),
    "placeholder": ("M001", "semantic", True, placeholder),
    "empty_content": ("M002", "semantic", True, empty_content),
    "contradictory_label": ("M003", "semantic", True, contradictory_label),
    "wrong_type": ("M004", "semantic", True, wrong_type),
    "missing_entity": ("M005", "semantic", True, missing_entity),
    "missing_control": ("M007", "semantic", True, missing_control),
    "dangling_key": ("C001", "consistency", True, dangling_key),
    "duplicate_key": ("C002", "consistency", True, duplicate_key),
    "missing_value": ("C003", "consistency", True, missing_value),
    "total_mismatch": ("C004", "consistency", True, total_mismatch),
    "invariant_break": ("C005", "consistency", True, invariant_break),
    "price_display": ("C006", "consistency", True, price_display),
    "contradictory_constraint": ("C007", "consistency", True, contradictory_constraint),
    "answer_not_unique": ("M008", "semantic", True, answer_not_unique),
    "goal_at_start": ("F001", "feasibility", True, goal_at_start),
}
"""Every defect kind: the check code that should report it, its class, whether a repair should
exist, and its injector."""

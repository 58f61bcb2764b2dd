"""Checks of intent: does the site do what its data, markers and tasks mean? (S011, C005-C007, M007, M008)

These static checks look past single elements to how parts fit together: a marker that can
drive a counter negative or store a date nobody checked (C005), an amount shown as raw cents
on one page and as money on another (C006), a constraint that forbids what the goal requires
(C007), a task whose writes no form can make (M007), and a task whose lookup matches several
records with different answers (M008). Like every check they are pure functions of a
scaffold, written for the defect class, and silent on clean sites. S011 finds links that pass
their target page the wrong kind of key (a category id to a product page).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from veriweb.engine.templates import Route
from veriweb.scaffold import Site
from veriweb.scaffold.values import AllOf, Exists, QueryValue, Ref
from veriweb.verify import checks as C

_DECREMENT = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*=\s*\(?\s*\1\s*(?:-|\+\s*\(?\s*(?:0\s*)?-)")
"""``col = col - x``, and the same written ``col = (col - x)``, ``col = col + (0 - x)`` or ``col = col + -x``."""
_BOUND_VALUE = r"(?:-?[01](?![\d.])|:\w+|\(|[A-Za-z_]\w*\.\w+)"
"""What bounds a counter: zero (or one), a parameter, a sub-query, another row's column."""
_TEMPLATE_REF = re.compile(r"\{row\.([A-Za-z_][A-Za-z0-9_]*)(?:\|([a-z_]+))?\}")


# ----------------------------------------------------------------------------- C005


@dataclass
class GuardedWrite:
    """A write a marker makes that data relies on being bounded, and the checks that bound it."""

    marker: int
    location: str
    what: str
    guards: set[tuple[str, int]] = field(default_factory=set)


def _mentions(check: Any, pattern: re.Pattern[str]) -> bool:
    return bool(pattern.search(json.dumps(check.predicate.model_dump(mode="json"))))


def _sql_texts(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        if isinstance(node.get("sql"), str):
            yield node["sql"]
        for child in node.values():
            yield from _sql_texts(child)
    elif isinstance(node, list):
        for child in node:
            yield from _sql_texts(child)


def _bounds(check: Any, column: str) -> bool:
    """Does ``check`` keep ``column`` from going below zero? Its SQL must compare the column (less
    what is taken off it) with zero, a parameter or a lookup (``stock < 0``, ``seats >= :n``): a check
    that merely names it (``seats > 100000``, ``stock IS NULL``) bounds nothing. A check with no SQL
    (a structured comparison) counts when it names the column."""
    texts = list(_sql_texts(check.predicate.model_dump(mode="json")))
    if not texts:
        return _mentions(check, re.compile(rf"\b{re.escape(column)}\b"))
    name = rf'(?:\w+\.)?"?\b{re.escape(column)}\b"?'
    bound = re.compile(rf"{name}\s*(?:[-+]\s*(?::\w+|\w+|\([^()]*\))\s*)?(?:<=?|>=?)\s*{_BOUND_VALUE}|"
                       rf"{_BOUND_VALUE}\s*(?:<=?|>=?)\s*{name}", re.I)
    return any(bound.search(text) for text in texts)


def guarded_writes(site: Site) -> list[GuardedWrite]:
    """Every counter a marker decrements and every date parameter it stores, with the
    preconditions and invariants that mention them (``(kind, index)`` pairs)."""
    out = []
    for m_index, marker in enumerate(site.markers):
        checks = [(kind, n, c) for kind in ("preconditions", "invariants") for n, c in enumerate(getattr(marker, kind))]
        for e_index, effect in enumerate(marker.effects):
            if effect.op != "update":
                continue
            for column in dict.fromkeys(_DECREMENT.findall(effect.sql)):
                guards = {(kind, n) for kind, n, c in checks if _bounds(c, column)}
                out.append(GuardedWrite(m_index, f"$.markers[{m_index}].effects[{e_index}]",
                                        f"{effect.table}.{column} from going below zero", guards))
        for p_index, column, table in _param_counts(site, marker):
            param = marker.params[p_index].name
            word = re.compile(rf"\b{re.escape(column)}\b|param\.{re.escape(param)}\"|:{re.escape(param)}\b")
            guards = {(kind, n) for kind, n, c in checks if _mentions(c, word)}
            out.append(GuardedWrite(m_index, f"$.markers[{m_index}].params[{p_index}]",
                                    f"{table}.{column} from being set below zero", guards))
        dated = _dated_guards(marker, checks)
        for p_index, param in enumerate(marker.params):
            if param.type not in ("date", "datetime"):
                continue
            used = re.compile(rf":{re.escape(param.name)}\b")
            if not any(used.search(e.sql) for e in marker.effects):
                continue
            out.append(GuardedWrite(m_index, f"$.markers[{m_index}].params[{p_index}]",
                                    f"{param.name} from being a date in the past", dated.get(param.name, set())))
    return out


def _param_counts(site: Site, marker: Any) -> Iterator[tuple[int, str, str]]:
    """(parameter index, column, table) for each count column (integer or money, never negative
    in the seed data) a marker sets straight from a parameter with no lower bound of 0 or more
    and no fixed choices: what is typed is stored, ``-5`` included."""
    from veriweb.verify.dataflow import parse_effect

    names = {p.name: n for n, p in enumerate(marker.params)}
    for effect in marker.effects:
        if effect.op not in ("insert", "update"):
            continue
        table = site.database.table(effect.table)
        write = parse_effect(marker.name, effect.op, effect.table, effect.sql)
        for column, source in write.sources.items():
            spec = table.column(column) if table is not None else None
            index = names.get(source.value) if source.kind == "param" else None
            if spec is None or index is None or spec.type not in ("integer", "money") or column == table.primary_key \
                    or column.endswith("_id") or any(fk.column == column for fk in table.foreign_keys):
                continue
            param = marker.params[index]
            if param.choices or (param.min is not None and param.min >= 0) or param.type not in ("integer", "money"):
                continue
            values = [row.get(column) for row in table.rows]
            if values and all(isinstance(v, int) and v >= 0 for v in values):
                yield index, column, table.name


_TODAY = re.compile(r":today\b|clock\.today|vw_today|date\('now'|'\d{4}-\d{2}-\d{2}'", re.I)
"""Today, or a fixed day (how far back a fixed day lets dates through is C009's question)."""
_LOOKUP = re.compile(r"\bFROM\b|\"kind\": \"(?:exists|count)\"", re.I)
_ORDER = re.compile(r":(\w+)\s*(>=|>|<=|<)\s*:(\w+)")


def _sql_of(check: Any) -> str:
    """A check's SQL with its local parameter names replaced by the marker's (``:ci`` -> ``:check_in``)."""
    predicate = check.predicate
    sql = getattr(predicate, "sql", "") or ""
    for local, value in getattr(predicate, "params", {}).items():
        if isinstance(value, Ref) and value.namespace == "param":
            sql = re.sub(rf":{re.escape(local)}\b", f":{value.name}", sql)
    return sql


def _dated_guards(marker: Any, checks: list[tuple[str, int, Any]]) -> dict[str, set[tuple[str, int]]]:
    """For each date parameter, the checks that keep it off the past: one comparing it with
    today (or a fixed day) or looking it up in a table (a calendar of bookable days), or one
    ordering it after another date parameter that is kept off the past (check-out after a
    check-in that is after today). Ordering two dates keeps only the later one."""
    names = [p.name for p in marker.params if p.type in ("date", "datetime")]
    refs = {n: re.compile(rf"param\.{re.escape(n)}\"|:{re.escape(n)}\b") for n in names}
    guarded = {n: {(kind, i) for kind, i, c in checks if _mentions(c, refs[n])
                   and (_mentions(c, _TODAY) or _mentions(c, _LOOKUP))} for n in names}
    after: dict[str, set[tuple[str, tuple[str, int]]]] = {n: set() for n in names}  # P >= Q, by which check
    for kind, i, check in checks:
        for left, op, right in _ORDER.findall(_sql_of(check)):
            later, earlier = (left, right) if op in (">", ">=") else (right, left)
            if later in after and earlier in after:
                after[later].add((earlier, (kind, i)))
    direct = {n: set(g) for n, g in guarded.items()}
    changed = True
    while changed:  # the checks that keep it off the past: its own, and each ordering after a kept date
        changed = False
        for name in names:
            via = {g for earlier, g in after[name] if guarded[earlier]}
            if not via <= guarded[name]:
                guarded[name] |= via
                changed = True
    return {n: g if g else direct[n] for n, g in guarded.items()}


def check_guards(site: Site) -> list[C.Issue]:
    """C005: a marker that decrements a counter, or stores a date, with nothing checking the result. A
    counter some seed rows already hold below zero (a post's score) is not kept from going there."""
    return [C.Issue("consistency", C.UNGUARDED_WRITE, g.location,
                    f"marker {site.markers[g.marker].name!r} has no precondition or invariant keeping {g.what}")
            for g in guarded_writes(site) if not g.guards and not _negative_in_seed(site, g.what)]


def _negative_in_seed(site: Site, what: str) -> bool:
    """Whether the column ``what`` keeps from going below zero (``posts.score from ...``) has seed rows below
    zero, more than one (one is a defect of the data, which C012 and the seed checks read)."""
    found = re.match(r"(\w+)\.(\w+) from going below zero", what)
    table = site.database.table(found.group(1)) if found else None
    if table is None:
        return False
    below = [r for r in table.rows if isinstance(r.get(found.group(2)), (int, float)) and r[found.group(2)] < 0]
    return len(below) > 1


# ----------------------------------------------------------------------------- C006


def _money_columns(site: Site) -> dict[str, set[str]]:
    out = {t.name: {c.name for c in t.columns if c.type == "money"} for t in site.database.tables}
    for view in site.database.views:
        out[view.name] = set(view.money_columns)
    return out


def money_references(site: Site) -> Iterator[tuple[str, str, str, str | None, bool]]:
    """Every ``{row.X}`` in page text where ``X`` is a money column of the bound table or view:
    element path, attribute, the text, page id, and whether it is shown with ``|money``."""
    money = _money_columns(site)

    regions = [(site.layout.header, "$.layout.header", None), (site.layout.footer, "$.layout.footer", None)]
    regions += [(page.elements, f"$.pages[{n}].elements", page.id) for n, page in enumerate(site.pages)]
    for elements, path, page_id in regions:
        for element, here, bound in C.walk_bound(elements, path, None):
            if bound is None:
                continue
            for attr in ("text", "label", "submit", "title"):
                text = C.field_of(element, attr)
                if isinstance(text, str) and "{row." in text:
                    for column, filt in _TEMPLATE_REF.findall(text):
                        if column in money.get(bound, ()):
                            yield here, attr, text, page_id, filt == "money"


def check_amounts(site: Site) -> list[C.Issue]:
    """C006: an amount is shown in raw cents (``{row.price}`` of a money column) where the site
    means money ("2499" on one page, "$24.99" on another)."""
    refs = list(money_references(site))
    return [C.Issue("consistency", C.VALUE_DISAGREES, f"{path}.{attr}",
                    f"{text!r} shows an amount in raw cents; elsewhere the site shows it as money")
            for path, attr, text, _, formatted in refs if not formatted]


# ----------------------------------------------------------------------------- C007


def _canonical(predicate: Any) -> str:
    return json.dumps(predicate.model_dump(mode="json", exclude_defaults=True), sort_keys=True)


def _required(task: Any) -> set[str]:
    out = set()
    for predicate in list(task.goal) + [s.predicate for s in task.progress]:
        out.add(_canonical(predicate))
        if isinstance(predicate, AllOf):
            out.update(_canonical(item) for item in predicate.items)
    return out


def check_constraints(site: Site) -> list[C.Issue]:
    """C007: a constraint forbids a condition the goal or a progress step requires."""
    issues = []
    for number, task in enumerate(site.tasks):
        required = _required(task)
        for index, constraint in enumerate(task.constraints):
            predicate = constraint.predicate
            if _canonical(predicate) in required:
                where = f"$.tasks[{number}].constraints[{index}]"
                issues.append(C.Issue("consistency", C.CONSTRAINT_FORBIDS_GOAL, where,
                                      f"task {task.id!r}: constraint {constraint.description!r} fails the task as "
                                      f"soon as its goal is reached"))
    return issues


# ----------------------------------------------------------------------------- M007


def check_controls(site: Site) -> list[C.Issue]:
    """M007: a task must change a table that no form on the site can change."""
    forms = [e for e, _, _ in C.all_elements(site) if e.type == "form" and e.action.kind == "marker"]
    reachable = [site.marker(f.action.marker) for f in forms]
    writes = {(e.table, e.op) for m in reachable if m is not None for e in m.effects}
    issues = []
    for number, task in enumerate(site.tasks):
        if task.kind != "mutate":
            continue
        missing = False
        for index, entry in enumerate(task.footprint):
            if not any((entry.table, op) in writes for op in entry.ops):
                missing = True
                issues.append(C.Issue("semantic", C.MISSING_CONTROL, f"$.tasks[{number}].footprint[{index}]",
                                      f"task {task.id!r} must change {entry.table}, but no form on the site does"))
        if not missing:
            issues += _unsendable(site, forms, task, number)
    return issues


def _unsendable(site: Site, forms: list[Any], task: Any, number: int) -> list[C.Issue]:
    """M007 for a value the goal needs written (``customers.customer_group = 'VIP'``) that every form
    writing that column can only send from a fixed set without it (a drop-down lacking "VIP", an
    argument fixed to ""). A form that may send anything (a text box, options read from the data, a
    value computed in SQL) can send it. Where no form writes any value there (an insert that leaves
    ``flair`` empty) and no row holds the value, the goal can never hold; a goal that wants no row to
    match is read by :func:`_unremovable`."""
    issues = []
    for index, predicate in enumerate(task.goal):
        if not isinstance(predicate, Exists):
            continue
        if predicate.negate:
            issues += _unremovable(site, forms, task, number, index, predicate)
            continue
        for cond in predicate.query.where:
            value = cond.value
            if isinstance(value, Ref) and value.namespace == "slot":
                value = task.slots.get(value.name)
            if cond.op != "=" or value is None or isinstance(value, (Ref, QueryValue, list, bool)):
                continue
            sets = _sent_values(site, forms, predicate.query.table, cond.column)
            wanted = str(value).strip().casefold()
            table = site.database.table(predicate.query.table)
            if all(s is not None and not s for s in sets) and table is not None and table.column(cond.column) is not None \
                    and not any(str(row.get(cond.column)).strip().casefold() == wanted for row in table.rows):
                issues.append(C.Issue("semantic", C.MISSING_CONTROL, f"$.tasks[{number}].goal[{index}]",
                                      f"task {task.id!r} needs a {table.name} row with {cond.column} = {value!r}, "
                                      f"but no form writes a value into {table.name}.{cond.column} and no row holds "
                                      f"{value!r}: the goal can never hold"))
                continue
            if sets and all(s is not None and wanted not in s for s in sets):
                offered = sorted({v for s in sets if s is not None for v in s})[:6]
                issues.append(C.Issue("semantic", C.MISSING_CONTROL, f"$.tasks[{number}].goal[{index}]",
                                      f"task {task.id!r} needs {predicate.query.table}.{cond.column} = {value!r}, "
                                      f"but every form that writes it sends only one of {offered}"))
    return issues


def _unremovable(site: Site, forms: list[Any], task: Any, number: int, index: int, predicate: Any) -> list[C.Issue]:
    """M007 for a goal that wants no row of a table to match (``NOT EXISTS folders WHERE kind = 'trash'``)
    where no form's marker deletes from that table or changes a column the test reads: rows that match
    at the start can never stop matching, so the goal holds from the start or never."""
    table = predicate.query.table
    if site.database.table(table) is None:
        return []
    tested = {cond.column for cond in predicate.query.where}
    owners: set[str | None] = set()  # per delete, the column it keeps to the signed-in user's rows (None: any row)
    for form in forms:
        marker = site.marker(form.action.marker)
        for effect in marker.effects if marker is not None else ():
            if effect.table == table and effect.op == "delete":
                owner = re.search(r"\b(\w+)\s*=\s*:user_id\b", effect.sql)
                owners.add(owner.group(1) if owner else None)
            if effect.table == table and effect.op == "update" and (not tested or any(
                    re.search(rf"\b{re.escape(column)}\s*=", re.split(r"\bWHERE\b", effect.sql, maxsplit=1, flags=re.I)[0])
                    for column in tested)):
                return []
    if not owners:
        return [C.Issue("semantic", C.MISSING_CONTROL, f"$.tasks[{number}].goal[{index}]",
                        f"task {task.id!r} needs no {table} row to match, but no form deletes from {table} or changes "
                        f"{', '.join(sorted(tested)) or 'its rows'}: the goal holds from the start or never")]
    if None in owners or len(owners) != 1 or owners & tested:
        return []
    from veriweb.verify.checks_tasks import task_user_row

    owner = owners.pop()
    user = task_user_row(site, task)
    uid = user.get(site.auth.id_column) if user is not None and site.auth is not None else None
    others = [r for r in lookup_rows(site, predicate.query, task.slots, user) if r.get(owner) != uid]
    if uid is None or not others:
        return []
    return [C.Issue("semantic", C.MISSING_CONTROL, f"$.tasks[{number}].goal[{index}]",
                    f"task {task.id!r} needs no {table} row to match, but the site removes only the signed-in user's "
                    f"own ({owner} = :user_id) and {len(others)} of other users match: the goal can never hold; it should "
                    f"test {owner} = user.id")]


def _sent_values(site: Site, forms: list[Any], table: str, column: str) -> list[set[str] | None]:
    """For each form whose marker writes ``table.column``, the values it can write there (folded), or
    ``None`` when it can write any."""
    from veriweb.verify.dataflow import parse_effect

    out: list[set[str] | None] = []
    for form in forms:
        marker = site.marker(form.action.marker)
        if marker is None:
            continue
        for effect in marker.effects:
            if effect.table != table or effect.op not in ("insert", "update"):
                continue
            write = parse_effect(marker.name, effect.op, effect.table, effect.sql)
            if write.columns is not None and column not in write.columns:
                continue
            source = write.sources.get(column)
            if source is None:
                out.append(None)  # written, from what is not known
            elif source.kind == "literal":
                out.append({str(source.value).strip().casefold()})
            elif source.kind == "expr" and str(source.value).strip().upper() == "NULL":
                out.append(set())  # written empty
            elif source.kind != "param":
                out.append(None)
            else:
                out.append(_arg_values(form, source.value))
    return out


def _arg_values(form: Any, param: str) -> set[str] | None:
    """The values a form can post as ``param`` (folded), ``None`` for any."""
    arg = form.action.args.get(param)
    if arg is None or isinstance(arg, QueryValue):
        return None
    if not isinstance(arg, Ref):
        return {str(arg).strip().casefold()}
    if arg.namespace != "field":
        return None
    field_el = next((f for f in form.fields if f.name == arg.name), None)
    if field_el is None or C.field_of(field_el, "options_query") is not None:
        return None
    options = C.field_of(field_el, "options") or []
    return {str(o.value).strip().casefold() for o in options} or None


# ----------------------------------------------------------------------------- M008


def lookup_rows(site: Site, query: Any, slots: dict[str, Any], user: dict[str, Any] | None = None
                ) -> list[dict[str, Any]]:
    """The seed rows a lookup by equality matches, its values taken from literals, slots, (given the
    task's ``user`` row) ``user.*``, and lookups of one record each (``customer_id = (SELECT id FROM
    customers WHERE name = :customer)``) (``[]`` when the query needs anything else, or reads a view)."""
    table = site.database.table(query.table)
    if table is None or query.order_by or any(c.op != "=" for c in query.where):
        return []
    wanted = {}
    for cond in query.where:
        value = cond.value
        if isinstance(value, Ref):
            if value.namespace == "user" and user is not None and value.name in user:
                value = user[value.name]
            elif value.namespace != "slot" or value.name not in slots:
                return []
            else:
                value = slots[value.name]
        elif isinstance(value, QueryValue) and value.query.agg is None and value.query.select:
            inner = {json.dumps(r.get(value.query.select)) for r in lookup_rows(site, value.query, slots, user)}
            if len(inner) != 1:
                return []  # a lookup that names no single record: its own issue, if any
            value = json.loads(inner.pop())
        elif isinstance(value, (QueryValue, list)):
            return []
        wanted[cond.column] = value
    return [r for r in table.rows if all(r.get(k) == v for k, v in wanted.items())]


def _lookups(task: Any, base: str) -> Iterator[tuple[Any, str]]:
    """Every one-value lookup (a :class:`QueryValue`) in the task's answer and goal, however deep (the
    issue a list answer's rows belong to: ``issue_id = (SELECT id FROM issues WHERE title = :title)``)."""
    def walk(value: Any, path: str) -> Iterator[tuple[Any, str]]:
        if isinstance(value, QueryValue):
            yield value, path
        if isinstance(value, BaseModel):
            for name in type(value).model_fields:
                yield from walk(getattr(value, name), f"{path}.{name}")
        elif isinstance(value, (list, tuple)):
            for index, item in enumerate(value):
                yield from walk(item, f"{path}[{index}]")

    if task.answer is not None:
        yield from walk(task.answer, f"{base}.answer")
    for index, predicate in enumerate(task.goal):
        yield from walk(predicate, f"{base}.goal[{index}]")


def check_ambiguous(site: Site) -> list[C.Issue]:
    """M008: a task looks up one record by what it names (among the user's own, when it says so), but
    several records match, with different values of what it reads."""
    from veriweb.verify.checks_tasks import task_user_row

    issues = []
    for number, task in enumerate(site.tasks):
        if task.kind == "infeasible":
            continue
        for value, path in _lookups(task, f"$.tasks[{number}]"):
            query = value.query
            if query.agg is not None:
                continue
            rows = lookup_rows(site, query, task.slots, task_user_row(site, task))
            if len(rows) > 1 and len({json.dumps(r.get(query.select)) for r in rows}) > 1:
                issues.append(C.Issue("semantic", C.AMBIGUOUS_ENTITY, path,
                                      f"task {task.id!r}: {len(rows)} {query.table} match, with different "
                                      f"{query.select}; the task names no single one"))
    return issues


_ALL_WORDS = re.compile(r"\b(?:all|every|each|both|any|some|several|two|three|many)\b", re.I)


def ambiguous_targets(site: Site) -> Iterator[tuple[str, str, int]]:
    """Each mutate task whose goal wants one record in a state (``exists booking_view WHERE user_id =
    user AND dest_city = :city AND status = 'cancelled'``) while, at the start, several records its named
    values pick out are not yet in it ("cancel the booking for the flight to Milan" with two Milan
    bookings): either passes, and the instruction names no single one. Only for instructions that speak of
    one record (no "all", "every", "both"). The goal's path, the table and how many records match."""
    from veriweb.engine.session import Session
    from veriweb.verify.checks_tasks import task_user_row

    found = []
    for number, task in enumerate(site.tasks):
        if task.kind != "mutate" or _ALL_WORDS.search(task.instruction):
            continue
        for index, goal in enumerate(task.goal):
            if not isinstance(goal, Exists) or goal.negate:
                continue
            named, state = [], []
            user = task_user_row(site, task)
            for cond in goal.query.where:
                value = cond.value
                if cond.op not in (None, "="):
                    break
                if isinstance(value, Ref) and value.namespace == "slot" and value.name in task.slots:
                    named.append((cond.column, task.slots[value.name]))
                elif isinstance(value, Ref) and value.namespace == "user" and user is not None and value.name in user:
                    named.append((cond.column, user[value.name]))
                elif isinstance(value, (str, int, float, bool)) and not isinstance(value, Ref):
                    state.append((cond.column, value))
                else:
                    break
            else:
                if any(isinstance(v, Ref) and v.namespace == "slot" for v in (c.value for c in goal.query.where)) \
                        and state:
                    found.append((number, index, goal.query.table, named, state))
    if not found:
        return
    session = Session(site)
    try:
        for number, index, table, named, state in found:
            named_sql = "".join(f'"{c}" = ? AND ' for c, _ in named)
            state_sql = " AND ".join(f'"{c}" IS ?' for c, _ in state)
            sql = f'SELECT count(*) FROM "{table}" WHERE {named_sql}NOT ({state_sql})'
            try:
                rows = session.db.conn.execute(sql, [v for _, v in named] + [v for _, v in state]).fetchall()
            except Exception:  # noqa: BLE001 - a table or column that is not there is another check's business
                continue
            if rows and rows[0][0] > 1:
                yield f"$.tasks[{number}].goal[{index}]", table, rows[0][0]
    finally:
        session.close()


def check_ambiguous_targets(site: Site) -> list[C.Issue]:
    """M008: see :func:`ambiguous_targets`. The repair drops the task."""
    return [C.Issue("semantic", C.AMBIGUOUS_ENTITY, location,
                    f"{count} {table} rows match what the task names and are not yet as its goal wants: changing any "
                    f"one of them passes, and the task names no single one")
            for location, table, count in ambiguous_targets(site)]


# ----------------------------------------------------------------------------- S011

_HREF_ROW = re.compile(r"\{row\.([A-Za-z_][A-Za-z0-9_]*)(?:\|[a-z_]+)?\}")


def _page_keys(site: Site, *, through_views: bool = False) -> dict[str, tuple[str, str, str]]:
    """For each page with one integer route parameter: the table and column its records look up
    by that parameter (``param.P`` compared with ``=``), when that is one real table's column
    (or, with ``through_views``, a view's column that shows one unchanged). Made once per check run
    (:func:`veriweb.verify.checks.per_run`): the dict is shared, read it only."""
    return _page_keys_of(site, through_views)


@C.per_run
def _page_keys_of(site: Site, through_views: bool) -> dict[str, tuple[str, str, str]]:
    out: dict[str, tuple[str, str, str]] = {}
    for page in site.pages:
        route = Route.compile(page.id, page.route)
        if len(route.params) != 1 or route.params[0][1] not in ("int", "str", "slug"):
            continue  # a record page found by one key: a number (/posts/{id}) or a name (/u/{username})
        name = route.params[0][0]
        found = set()
        for element, _ in C.walk(page.elements, "$"):
            if element.type != "record":
                continue
            for cond in element.query.where:
                if cond.op == "=" and isinstance(cond.value, Ref) and cond.value.ref == f"param.{name}":
                    found.add((element.query.table, cond.column))
        if len(found) == 1:
            table, column = found.pop()
            if site.database.table(table) is None and through_views:
                from veriweb.verify.checks_pages import base_column

                table, column = base_column(site, table, column) or (table, column)
            if site.database.table(table) is not None:
                out[page.id] = (name, table, column)
    return out


def bound_links(site: Site) -> Iterator[tuple[Any, str, str | None, str, str]]:
    """Every link inside a list, table or record over a real table whose href passes one
    ``{row.X}``: the link, its path, its page id, the bound table and ``X``."""
    for number, page in enumerate(site.pages):
        for element, here, bound in C.walk_bound(page.elements, f"$.pages[{number}].elements", None):
            if element.type == "link" and bound is not None:
                refs = _HREF_ROW.findall(element.href)
                if len(refs) == 1 and site.database.table(bound) is not None:
                    yield element, here, page.id, bound, refs[0]


def passes_key(site: Site, table: str, column: str, target_table: str, target_column: str) -> bool:
    """Whether ``table.column`` holds keys of ``target_table.target_column``: the same column,
    a declared foreign key, or a ``NAME_id`` column naming the target table."""
    if table == target_table and column == target_column:
        return True
    source = site.database.table(table)
    if source is not None and any(fk.column == column and fk.ref_table == target_table
                                  and fk.ref_column == target_column for fk in source.foreign_keys):
        return True
    stem = column[:-3] if column.endswith("_id") else None
    target = site.database.table(target_table)
    return bool(stem and target is not None and target_column == target.primary_key
                and target_table.rstrip("s").startswith(stem.rstrip("s")))


def _view_links(site: Site) -> Iterator[tuple[Any, str, str | None, str, str]]:
    """Like :func:`bound_links`, for links in a list over a view: the table and column the view's
    column shows unchanged (links whose column the view computes are left out)."""
    from veriweb.verify.checks_pages import base_column

    cache: dict[Any, Any] = {}
    for number, page in enumerate(site.pages):
        for element, here, bound in C.walk_bound(page.elements, f"$.pages[{number}].elements", None):
            if element.type != "link" or bound is None or site.database.table(bound) is not None:
                continue
            refs = _HREF_ROW.findall(element.href)
            base = base_column(site, bound, refs[0], cache) if len(refs) == 1 else None
            if base is not None:
                yield element, here, page.id, base[0], base[1]


def check_link_keys(site: Site) -> list[C.Issue]:
    """S011: a link passes its target page a value that is not the key the page looks up (the
    category id where the page wants a product id): it leads to the wrong record."""
    routes = C._routes(site)
    keys = _page_keys(site, through_views=True)
    issues = []
    for element, path, _, table, column in [*bound_links(site), *_view_links(site)]:
        dest = C.resolve_href(routes, element.href)
        if dest not in keys:
            continue
        _, target_table, target_column = keys[dest]
        if not passes_key(site, table, column, target_table, target_column):
            issues.append(C.Issue("structural", C.WRONG_TARGET, f"{path}.href",
                                  f"link {element.text!r} passes {table}.{column} to page {dest!r}, which looks "
                                  f"up {target_table}.{target_column}: it opens the wrong record"))
    return issues


INTENT_CHECKS = [check_link_keys, check_guards, check_amounts, check_constraints, check_controls, check_ambiguous,
                 check_ambiguous_targets]

__all__ = ["GuardedWrite", "INTENT_CHECKS", "bound_links", "check_ambiguous", "check_ambiguous_targets", "check_amounts", "check_constraints",
           "check_controls", "check_guards", "check_link_keys", "guarded_writes", "lookup_rows", "money_references",
           "passes_key"]

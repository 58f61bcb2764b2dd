"""What a task's own spec says about where it writes: the rows its footprint allows, and the values its goal sets.

The search's relevance (:mod:`veriweb.verify.relevance`) reads these to order actions, never to
prune them; they come from the task's footprint and goal predicates (which the judge enforces),
never from its certificate.

- :func:`target_names`: the texts that name the rows a mutate task may update or delete (the
  products "with less than 3 in stock in Bedding", the product whose SKU the task gives): a link
  or a page heading that shows one of them is about the task's entities even when the task's
  slots name none of them (a filter, a SKU).
- :func:`goal_values`: for each column the goal or a progress subgoal sets equal to a slot or a
  literal (``stock = slot.amount``, ``status = 'disabled'``), those values: a form field named
  like the column wants that value.
- :func:`goal_computed`: for each column the goal sets equal to a value it computes from the
  database (a refund's amount equal to the order line's total), that value now: typed only
  where the page shows it.
- :func:`subgoal_slots`: for each ordered progress subgoal (then the goal), the slot each column
  it tests must equal, nested value queries included (the return leg of a round trip wants
  ``origin_city = slot.destination``): the subgoal to reach next says which slot goes where.
- :func:`rival_names`: the other values of the columns the task's named entities live in (the
  other projects' paths, when the task names one): a page whose heading names one of them is
  about another entity of the same kind.
- :func:`effect_allowed`: whether a marker's write could fall inside the footprint.
- :func:`frozen_columns`: for each table the footprint restricts to some columns, the columns
  it may not change (a form that writes a product's price and stock, for a task that may only
  change the stock, must leave the price as it is).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from veriweb.engine.query import Context, fetch_rows, scalar_value
from veriweb.engine.session import Session
from veriweb.errors import VeriwebError
from veriweb.scaffold import Site, Task
from veriweb.scaffold.values import AllOf, AnyOf, Compare, Cond, Count, Exists, Query, QueryValue, Ref, SqlPredicate

MAX_TARGETS = 25
"""A footprint that allows more rows than this says nothing about which one matters."""
_SHARED = 4
"""A text more rows of a table than this share (a category, a status) names none of them."""
_NAME = re.compile(r"[^\W\d_]")


def _fold(value: Any) -> str:
    return " ".join(str(value).casefold().split())


def target_names(site: Site, task: Task, session: Session, ctx: Context) -> list[str]:
    """Texts that name the rows the task may still have to update or delete (folded, longest first).

    For each footprint entry with conditions, the rows of its table that match them in the
    session's database now, less those whose columns already hold every value the goal wants
    (:func:`goal_values`) in every column the entry lets change (a product restocked or disabled
    already; the columns that pick the rows out do not count), and less those written since
    the start (a message moved to another folder); where the goal wants some rows gone from a query
    on the table (a negated ``Exists``: "no open issue of Uma's is left"), only the rows that query
    still matches count (Uma's open issues, not every open issue the footprint allows); each row is
    named by its
    text values that at most :data:`_SHARED` rows of the table share (a product's name and SKU,
    not its category or status). An entry matching more than :data:`MAX_TARGETS` rows, or every
    row of its table, names nothing.
    """
    if task.kind != "mutate":
        return []
    slots, literals = goal_values(task)
    wanted = {column: {_fold(task.slots.get(name)) for name in names if task.slots.get(name) is not None}
              for column, names in slots.items()}
    for column, values in literals.items():
        wanted.setdefault(column, set()).update(values)
    keys = {t.name: t.primary_key for t in site.database.tables}
    absent = [item.query for item in _conjuncts(task.goal) if isinstance(item, Exists) and item.negate]
    written = {(c.table, (c.new or c.old or {}).get(keys.get(c.table, "id")))
               for c in (session.db.changes() if session.version != "0" else ()) if c.op == "update"}
    names: list[str] = []
    for entry in task.footprint:
        if not entry.where or not set(entry.ops) & {"update", "delete"}:
            continue
        try:
            rows = fetch_rows(session.db.guard, Query(table=entry.table, where=entry.where), ctx)
            everything = fetch_rows(session.db.guard, Query(table=entry.table), ctx)
        except VeriwebError:
            continue  # a condition this context cannot resolve: no opinion
        if not rows or len(rows) > MAX_TARGETS or len(rows) >= len(everything):
            continue
        gone = _rows_to_go(session, entry.table, keys.get(entry.table, "id"), absent, ctx)
        if gone is not None:  # the goal names the rows it wants gone: those are the ones to write
            rows = [row for row in rows if row.get(keys.get(entry.table, "id")) in gone]
        shared: Counter[tuple[str, str]] = Counter()
        for row in everything:
            for column, value in row.items():
                if isinstance(value, str):
                    shared[(column, _fold(value))] += 1
        for row in rows:
            # Done: every column the entry lets change already holds what the goal wants there.
            changing = {_fold(c) for c in entry.columns or ()}
            checked = [(_fold(value), wanted[_fold(c)]) for c, value in row.items()
                       if _fold(c) in wanted and _fold(c) in changing]
            if checked and all(value in values for value, values in checked):
                continue  # done already
            if (entry.table, row.get(keys.get(entry.table, "id"))) in written:
                continue  # written already (into a column the goal reads through another table)
            for column, value in row.items():
                text = _fold(value) if isinstance(value, str) else ""
                if len(text) >= 4 and _NAME.search(text) and shared[(column, text)] <= _SHARED and text not in names:
                    names.append(text)
    return sorted(names, key=lambda n: (-len(n), n))


def _conjuncts(goal: list[Any]) -> list[Any]:
    """The goal's predicates that must all hold (its list, and the items of an ``AllOf`` in it)."""
    out: list[Any] = []
    for item in goal:
        out.extend(_conjuncts(list(item.items)) if isinstance(item, AllOf) else [item])
    return out


def _rows_to_go(session: Session, table: str, key: str, absent: list[Query], ctx: Context) -> set[Any] | None:
    """The keys of ``table``'s rows that a negated ``Exists`` of the goal matches now ("no open issue
    of Uma's is left": Uma's open issues), or ``None`` when the goal has no such query on the table
    (or it cannot be read in this context)."""
    found: set[Any] | None = None
    for query in absent:
        if query.table != table:
            continue
        try:
            rows = fetch_rows(session.db.guard, Query(table=table, where=query.where), ctx)
        except VeriwebError:
            return None
        found = (found or set()) | {row.get(key) for row in rows}
    return found


_SQL_FROM = re.compile(r"\bFROM\s+[\"`]?(\w+)", re.IGNORECASE)
_SQL_EQUAL = re.compile(r"(?<![\w.:])(?:\w+\.)?[\"`]?(\w+)[\"`]?\s*=\s*(?::(\w+)|'([^']*)'|(-?\d+(?:\.\d+)?))(?![\w.])")
_SQL_NEGATED = re.compile(r"\b(NOT|OR)\b", re.IGNORECASE)


def sql_conditions(predicate: SqlPredicate) -> list[tuple[str, Cond]]:
    """The equalities a SQL goal wants (``city = :city``, ``status = 'confirmed'``), as (table, condition)
    pairs, the parameter resolved to what the predicate binds it to (a slot, a literal).

    Only a plain conjunction is read (no ``NOT`` or ``OR``: an equality under one is no wish);
    the table is the first one the SQL reads from.
    """
    sql = predicate.sql
    table = _SQL_FROM.search(sql)
    if table is None or _SQL_NEGATED.search(sql):
        return []
    out: list[tuple[str, Cond]] = []
    for match in _SQL_EQUAL.finditer(sql):
        column, param, text, number = match.groups()
        if param is not None:
            if param not in predicate.params:
                continue
            value: Any = predicate.params[param]
        elif text is not None:
            value = text
        else:
            value = float(number) if "." in number else int(number)
        if isinstance(value, (Ref, str, int, float)) and not isinstance(value, bool):
            out.append((table.group(1), Cond(column=column, value=value)))
    return out


_SQL_CAP = re.compile(r"[\w\"`]\s*<=?\s*:(\w+)")


def caps_from_above(task: Task) -> bool:
    """Does the goal want a row whose value stays under a bound the task gives (``total <=
    :budget``, a price ``<`` a slot)? Such a task is done most likely with the cheapest things
    first. Only what the goal asks to exist counts (not a negated query: no row left under it)."""

    def caps(predicate: Any) -> bool:
        if isinstance(predicate, SqlPredicate):
            return not _SQL_NEGATED.search(predicate.sql) and any(
                m.group(1) in predicate.params for m in _SQL_CAP.finditer(predicate.sql))
        if isinstance(predicate, Exists):
            return not predicate.negate and any(c.op in ("<", "<=") for c in predicate.query.where)
        if isinstance(predicate, (AllOf, AnyOf)):
            return any(caps(item) for item in predicate.items)
        return False

    return any(caps(predicate) for predicate in task.goal)


def _conditions(predicate: Any) -> list[tuple[str, Any]]:
    """The (table, condition) pairs of the queries a predicate wants rows of (negated ones aside)."""
    if isinstance(predicate, SqlPredicate):
        return sql_conditions(predicate)
    if isinstance(predicate, Exists):
        return [] if predicate.negate else [(predicate.query.table, c) for c in predicate.query.where]
    if isinstance(predicate, Count):
        return [(predicate.query.table, c) for c in predicate.query.where] if predicate.op in (">", ">=", "=") else []
    if isinstance(predicate, (AllOf, AnyOf)):
        return [pair for item in predicate.items for pair in _conditions(item)]
    if isinstance(predicate, Compare):  # "the user's vacation = true": the row's column as the goal wants it
        return _compared(predicate.left, predicate.op, predicate.right) or _compared(
            predicate.right, _MIRROR.get(predicate.op, predicate.op), predicate.left)
    return []


_MIRROR = {"<": ">", ">": "<", "<=": ">=", ">=": "<="}


def _compared(side: Any, op: str, other: Any) -> list[tuple[str, Any]]:
    """A compare whose ``side`` reads one column of rows (no aggregate): the rows' conditions and
    ``column op other``, as an Exists of those rows with that value would give them."""
    query = side.query if isinstance(side, QueryValue) else None
    if query is None or query.agg or query.select == "*" or isinstance(other, QueryValue):
        return []
    return [*((query.table, c) for c in query.where), (query.table, Cond(column=query.select, op=op, value=other))]


def _equalities(task: Task) -> list[tuple[str, Any]]:
    predicates = [*task.goal, *(sub.predicate for sub in task.progress)]
    return [(t, c) for p in predicates for t, c in _conditions(p) if c.op == "="]


def goal_computed(site: Site, task: Task, session: Session, ctx: Context) -> dict[str, set[str]]:
    """For each column (folded) the goal sets equal to a computed value, that value as text now
    (``215.99`` for a money column's 21599 cents, ``30``); a value the database cannot compute
    here is left out."""
    types = {(t.name, c.name): c.type for t in site.database.tables for c in t.columns}
    out: dict[str, set[str]] = {}
    for table, cond in _equalities(task):
        if not isinstance(cond.value, QueryValue):
            continue
        try:
            value = scalar_value(session.db.guard, cond.value, ctx)
        except VeriwebError:
            continue
        if value is None or isinstance(value, bool):
            continue
        texts = {str(value)}
        if types.get((table, cond.column)) == "money" and isinstance(value, int):
            texts = {f"{value / 100:.2f}"}
        elif isinstance(value, float):
            texts = {f"{value:.2f}"} | ({str(int(value))} if value.is_integer() else {str(value)})
        out.setdefault(_fold(cond.column), set()).update(texts)
    return out


def goal_values(task: Task) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """The values the goal and progress subgoals want columns to equal.

    Returns:
        ``(slots, literals)``: for each column (folded), the names of the slots it must equal,
        and the literal values (folded) it must equal.
    """
    slots: dict[str, set[str]] = {}
    literals: dict[str, set[str]] = {}
    for _, cond in _equalities(task):
        column = _fold(cond.column)
        if isinstance(cond.value, Ref):
            if cond.value.namespace == "slot":
                slots.setdefault(column, set()).add(cond.value.name)
        elif isinstance(cond.value, bool):  # a flag: the ways a form writes it (an "On" option whose value is 1)
            literals.setdefault(column, set()).update(_TRUE if cond.value else _FALSE)
        elif isinstance(cond.value, (str, int, float)):
            literals.setdefault(column, set()).add(_fold(cond.value))
    return slots, literals


_TRUE = {"true", "1", "on", "yes"}
_FALSE = {"false", "0", "off", "no"}


def _slot_columns(predicate: Any, out: dict[str, set[str]]) -> None:
    """Collect ``column -> slots`` from every equality with a slot in ``predicate``, at any depth."""
    if isinstance(predicate, SqlPredicate):
        for _, cond in sql_conditions(predicate):
            if isinstance(cond.value, Ref) and cond.value.namespace == "slot":
                out.setdefault(_fold(cond.column), set()).add(cond.value.name)
    elif isinstance(predicate, (Exists, Count)):
        if isinstance(predicate, Exists) and predicate.negate:
            return
        _query_slots(predicate.query, out)
    elif isinstance(predicate, (AllOf, AnyOf)):
        for item in predicate.items:
            _slot_columns(item, out)


def _query_slots(query: Any, out: dict[str, set[str]]) -> None:
    for cond in query.where:
        if cond.op != "=":
            continue
        if isinstance(cond.value, Ref) and cond.value.namespace == "slot":
            out.setdefault(_fold(cond.column), set()).add(cond.value.name)
        elif isinstance(cond.value, QueryValue):
            inner: dict[str, set[str]] = {}
            _query_slots(cond.value.query, inner)
            for column, slots in inner.items():
                out.setdefault(column, set()).update(slots)
            # The row the subquery finds by a slot is what the outer column holds: assignee_id =
            # (the id of the user named by slot "new") wants that slot in the assignee field too.
            if cond.value.query.agg is None and (cond.value.query.select == "id" or cond.value.query.select.endswith("_id")):
                out.setdefault(_fold(cond.column), set()).update(*inner.values())


def subgoal_slots(task: Task) -> list[dict[str, set[str]]]:
    """For each progress subgoal in order, then the goal: ``column -> slots`` it wants equal."""
    out = []
    for predicate in [*(sub.predicate for sub in task.progress), None]:
        found: dict[str, set[str]] = {}
        for item in ([predicate] if predicate is not None else task.goal):
            _slot_columns(item, found)
        out.append(found)
    return out


def rival_names(site: Site, session: Session, entities: list[str], *, keep: int = 5_000) -> frozenset[str]:
    """Values (folded) of the text columns in which one of ``entities`` (folded) occurs, less the
    entities themselves: the names of other things of the same kinds."""
    if not entities:
        return frozenset()
    from veriweb.engine.database import quote

    wanted = list(dict.fromkeys(entities))
    marks = ", ".join("?" for _ in wanted)
    out: set[str] = set()
    for table in site.database.tables:
        for column in table.columns:
            if column.type != "text":
                continue
            name, col = quote(table.name), quote(column.name)
            hit = session.db.guard.engine(f"SELECT 1 FROM {name} WHERE lower({col}) IN ({marks}) LIMIT 1",
                                          wanted).fetchone()
            if hit is None:
                continue
            for (value,) in session.db.guard.engine(f"SELECT DISTINCT lower({col}) FROM {name} LIMIT {keep}"):
                if isinstance(value, str) and len(value) >= 4:
                    out.add(" ".join(value.split()))
    return frozenset(out - set(wanted))


_SET = re.compile(r"\bSET\b(.*?)(?:\bWHERE\b|$)", re.IGNORECASE | re.DOTALL)
_ASSIGNED = re.compile(r"[\"`]?(\w+)[\"`]?\s*=")


def effect_allowed(effect: Any, footprint: list[Any]) -> bool:
    """Could this write fall inside the footprint: an entry of its table allows its operation and,
    for an update, one of the columns it sets (as far as its SQL's ``SET`` clause tells: a form may
    write back the values it did not change)?"""
    for entry in footprint:
        if entry.table != effect.table or effect.op not in entry.ops:
            continue
        if effect.op != "update" or entry.columns is None:
            return True
        clause = _SET.search(effect.sql)
        if clause is None:
            return True
        depth, parts, start = 0, [], 0
        text = clause.group(1)
        for index, char in enumerate(text):  # split on top-level commas only
            depth += char == "("
            depth -= char == ")"
            if char == "," and depth == 0:
                parts.append(text[start:index])
                start = index + 1
        parts.append(text[start:])
        columns = {m.group(1) for part in parts if (m := _ASSIGNED.match(part.strip()))}
        if not columns or columns & set(entry.columns):
            return True
    return False


def frozen_columns(site: Site, task: Task) -> dict[str, set[str]]:
    """For each table every footprint entry of which names its columns, the other columns (folded)."""
    allowed: dict[str, set[str] | None] = {}
    for entry in task.footprint:
        if entry.columns is None:
            allowed[entry.table] = None
        elif entry.table not in allowed or allowed[entry.table] is not None:
            allowed[entry.table] = (allowed.get(entry.table) or set()) | {_fold(c) for c in entry.columns}
    out: dict[str, set[str]] = {}
    for table in site.database.tables:
        columns = allowed.get(table.name)
        if columns is not None:
            out[table.name] = {_fold(c.name) for c in table.columns} - columns - {_fold(table.primary_key)}
    return out


__all__ = ["MAX_TARGETS", "effect_allowed", "frozen_columns", "goal_computed", "goal_values", "rival_names",
           "sql_conditions", "subgoal_slots", "target_names"]

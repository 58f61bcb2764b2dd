"""Compile declarative queries, values and predicates to guarded, read-only SQL, and evaluate them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field as _default
from typing import Any

from veriweb.engine.database import quote
from veriweb.engine.sqlguard import Guard
from veriweb.scaffold.values import (
    AllOf, AnyOf, Compare, Cond, Count, Exists, Not, PageIs, Query, QueryValue, Ref, ScalarQuery,
    SqlPredicate,
)

COMPILED_BUDGET = 20_000
"""Step budget (thousands of VM steps) of list and count queries compiled from declarative queries."""

_SQL_OPS = {"=": "=", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


@dataclass
class Context:
    """What references resolve against (see ``REF_NAMESPACES``)."""

    param: dict[str, Any] = _default(default_factory=dict)
    query: dict[str, Any] = _default(default_factory=dict)
    field: dict[str, Any] = _default(default_factory=dict)
    row: dict[str, Any] = _default(default_factory=dict)
    user: dict[str, Any] = _default(default_factory=dict)
    slot: dict[str, Any] = _default(default_factory=dict)
    clock: dict[str, Any] = _default(default_factory=dict)
    result: dict[str, Any] = _default(default_factory=dict)

    def with_row(self, row: dict[str, Any]) -> Context:
        """A copy whose ``row.*`` is ``row``."""
        return Context(self.param, self.query, self.field, row, self.user, self.slot, self.clock, self.result)

    def lookup(self, ref: Ref) -> Any:
        """The value of a reference, ``None`` if it is not set."""
        return getattr(self, ref.namespace).get(ref.name)


class Compiler:
    """Builds SQL text and its positional parameters for one statement."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.params: list[Any] = []

    def value(self, expr: Any) -> str:
        """SQL for a value expression: a bound parameter or a scalar subquery."""
        if isinstance(expr, QueryValue):
            return f"({self.scalar(expr.query)})"
        if isinstance(expr, Ref):
            expr = self.ctx.lookup(expr)
        if isinstance(expr, bool):
            expr = int(expr)
        self.params.append(expr)
        return "?"

    def resolved(self, expr: Any) -> Any:
        """A reference's value or a literal (scalar queries are compiled, not resolved)."""
        return self.ctx.lookup(expr) if isinstance(expr, Ref) else expr

    def condition(self, cond: Cond) -> str | None:
        """SQL for one condition, or ``None`` when it is skipped (empty search field)."""
        column = quote(cond.column)
        value = cond.value
        if cond.skip_if_empty and not isinstance(value, QueryValue):
            resolved = self.resolved(value)
            if resolved is None or resolved == "":
                return None
        if cond.op == "is_null":
            return f"{column} IS NULL"
        if cond.op == "not_null":
            return f"{column} IS NOT NULL"
        if cond.op in ("in", "not_in"):
            items = value if isinstance(value, list) else [self.resolved(value)]
            marks = ", ".join(self.value(item) for item in items) or "NULL"
            return f"{column} {'IN' if cond.op == 'in' else 'NOT IN'} ({marks})"
        if cond.op in ("contains", "startswith"):
            text = self.resolved(value)
            text = "" if text is None else str(text)
            escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            self.params.append(("%" if cond.op == "contains" else "") + escaped + "%")
            return f"{column} LIKE ? ESCAPE '\\'"
        if not isinstance(value, QueryValue) and self.resolved(value) is None and cond.op in ("=", "!="):
            return f"{column} IS {'NOT ' if cond.op == '!=' else ''}NULL"
        return f"{column} {_SQL_OPS[cond.op]} {self.value(value)}"

    def where(self, conds: list[Cond]) -> str:
        """A ``WHERE`` clause (or nothing) for all conditions."""
        parts = [sql for cond in conds if (sql := self.condition(cond)) is not None]
        return f" WHERE {' AND '.join(parts)}" if parts else ""

    def rows(self, query: Query, *, order: list[tuple[str, str]] | None = None,
             limit: int | None = None, offset: int = 0) -> str:
        """``SELECT *`` for a row query, with optional override of order, limit and offset."""
        sql = f"SELECT * FROM {quote(query.table)}{self.where(query.where)}"
        keys = order if order is not None else [(o.column, o.dir) for o in query.order_by]
        if keys:
            sql += " ORDER BY " + ", ".join(f"{quote(c)} {d.upper()}" for c, d in keys)
        limit = limit if limit is not None else query.limit
        if limit is not None or offset:
            sql += f" LIMIT {int(limit if limit is not None else -1)} OFFSET {int(offset)}"
        return sql

    def scalar(self, query: ScalarQuery) -> str:
        """SQL for a scalar query (a column of the first row, or an aggregate)."""
        inner = self.rows(query)
        column = "*" if query.select == "*" else quote(query.select)
        if query.agg:
            expr = "count(*)" if query.agg == "count" and column == "*" else f"{query.agg}({column})"
            return f"SELECT {expr} FROM ({inner})"
        if column == "*":
            raise ValueError("select '*' needs agg='count'")
        return f"SELECT {column} FROM ({inner}) LIMIT 1"


def fetch_rows(guard: Guard, query: Query, ctx: Context, **kwargs: Any) -> list[dict[str, Any]]:
    """Every row of ``query`` as dicts (``kwargs`` as for :meth:`Compiler.rows`)."""
    comp = Compiler(ctx)
    names, rows = guard.read_named(comp.rows(query, **kwargs), comp.params, budget=COMPILED_BUDGET)
    return [dict(zip(names, row)) for row in rows]


def count_rows(guard: Guard, query: Query, ctx: Context) -> int:
    """How many rows match ``query`` (ignoring its limit)."""
    comp = Compiler(ctx)
    sql = f"SELECT count(*) FROM {quote(query.table)}{comp.where(query.where)}"
    return int(guard.read_named(sql, comp.params, budget=COMPILED_BUDGET)[1][0][0])


def scalar_value(guard: Guard, expr: Any, ctx: Context) -> Any:
    """Evaluate a value expression (literal, reference, or scalar query)."""
    if isinstance(expr, QueryValue):
        comp = Compiler(ctx)
        sql = comp.scalar(expr.query)
        rows = guard.read(sql, comp.params)
        return rows[0][0] if rows else None
    if isinstance(expr, Ref):
        return ctx.lookup(expr)
    return expr


def column_values(guard: Guard, query: ScalarQuery, ctx: Context) -> list[tuple[Any, tuple[Any, ...]]]:
    """Every row's ``select`` value with its ``order_by`` key (for list answers and ties)."""
    comp = Compiler(ctx)
    inner = comp.rows(query)
    keys = [quote(o.column) for o in query.order_by]
    cols = ", ".join([quote(query.select)] + keys)
    return [(row[0], tuple(row[1:])) for row in guard.read(f"SELECT {cols} FROM ({inner})", comp.params)]


# ----------------------------------------------------------------------------- predicates

PageProbe = Callable[[str, dict[str, Any]], bool]
"""Answers "is the browser on page ``id`` with these route parameters?" for ``page`` predicates."""


def holds(guard: Guard, predicate: Any, ctx: Context, on_page: PageProbe | None = None) -> bool:
    """Evaluate a predicate against the current state.

    Raises:
        QueryRefused: the predicate tried something the guard forbids.
        QueryFailed: the predicate names a missing table or column, or its SQL is wrong.
    """
    if isinstance(predicate, AllOf):
        return all(holds(guard, item, ctx, on_page) for item in predicate.items)
    if isinstance(predicate, AnyOf):
        return any(holds(guard, item, ctx, on_page) for item in predicate.items)
    if isinstance(predicate, Not):
        return not holds(guard, predicate.item, ctx, on_page)
    if isinstance(predicate, PageIs):
        if on_page is None:
            return False
        params = {name: scalar_value(guard, value, ctx) for name, value in predicate.params.items()}
        return on_page(predicate.page, params)
    comp = Compiler(ctx)
    if isinstance(predicate, Compare):
        sql = f"SELECT ({comp.value(predicate.left)}) {_SQL_OPS[predicate.op]} ({comp.value(predicate.right)})"
        params: Any = comp.params
    elif isinstance(predicate, Exists):
        sql = f"SELECT {'NOT ' if predicate.negate else ''}EXISTS ({comp.rows(predicate.query)})"
        params = comp.params
    elif isinstance(predicate, Count):
        inner = comp.rows(predicate.query)
        sql = f"SELECT (SELECT count(*) FROM ({inner})) {_SQL_OPS[predicate.op]} ({comp.value(predicate.value)})"
        params = comp.params
    elif isinstance(predicate, SqlPredicate):
        sql = predicate.sql
        params = {name: _bindable(scalar_value(guard, value, ctx)) for name, value in predicate.params.items()}
        params.setdefault("user_id", ctx.user.get("id"))
        params.setdefault("today", ctx.clock.get("today"))
    else:  # pragma: no cover - the scaffold's union is closed
        raise TypeError(f"unknown predicate {predicate!r}")
    rows = guard.read(sql, params)
    return bool(rows and rows[0] and rows[0][0])


def _bindable(value: Any) -> Any:
    return int(value) if isinstance(value, bool) else value

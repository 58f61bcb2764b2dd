"""Values, queries and predicates: the declarative, read-only language of a scaffold."""

from __future__ import annotations

import re
from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, field_validator

Scalar = str | int | float | bool | None
"""A literal value as it appears in JSON."""

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_IDENT_RE = re.compile(rf"^{IDENT}$")

REF_NAMESPACES = ("param", "query", "field", "row", "user", "slot", "clock", "result")
"""Where a reference can look a value up.

- ``param.X``: a typed route parameter of the current page (``/product/{id:int}``).
- ``query.X``: a URL query-string parameter (``/search?q=shoes``).
- ``field.X``: a field of the form being submitted.
- ``row.X``: a column of the record bound by the enclosing list, table or record.
- ``user.X``: a column of the logged-in user (of the task's user, in task predicates).
- ``slot.X``: a slot of the task.
- ``clock.today`` / ``clock.now``: the virtual clock.
- ``result.id``: the row id inserted by the marker that just ran (redirects only).
"""


class Model(BaseModel):
    """Base of every scaffold model: unknown keys are errors, not silently ignored."""

    model_config = ConfigDict(extra="forbid", validate_assignment=False, allow_inf_nan=False)


def check_ident(value: str, what: str = "name") -> str:
    """Validate a SQL-safe identifier (table, column, parameter name)."""
    if not _IDENT_RE.match(value):
        raise ValueError(f"{what} {value!r} must be letters, digits and underscores, not starting with a digit")
    return value


class Ref(Model):
    """A value looked up at run time, e.g. ``{"ref": "param.id"}`` or ``{"ref": "user.id"}``."""

    ref: str

    @field_validator("ref")
    @classmethod
    def _valid(cls, value: str) -> str:
        namespace, _, name = value.partition(".")
        if namespace not in REF_NAMESPACES or not _IDENT_RE.match(name):
            raise ValueError(
                f"reference {value!r} must be NAMESPACE.NAME with NAMESPACE one of {', '.join(REF_NAMESPACES)}"
            )
        return value

    @property
    def namespace(self) -> str:
        return self.ref.partition(".")[0]

    @property
    def name(self) -> str:
        return self.ref.partition(".")[2]


CompareOp = Literal["=", "!=", "<", "<=", ">", ">="]
CondOp = Literal[
    "=", "!=", "<", "<=", ">", ">=", "contains", "startswith", "in", "not_in", "is_null", "not_null"
]


class OrderBy(Model):
    """One sort key of a query."""

    column: str
    dir: Literal["asc", "desc"] = "asc"

    check_names = field_validator("column")(classmethod(lambda cls, v: check_ident(v, "column")))


class Cond(Model):
    """One condition of a query's ``where`` (all conditions must hold).

    ``contains`` and ``startswith`` compare case-insensitively. With ``skip_if_empty``, a
    condition whose value resolves to ``None`` or ``""`` is left out (search and filter
    forms whose field was left blank).
    """

    column: str
    op: CondOp = "="
    value: ValueExpr | list[Scalar] = None
    skip_if_empty: bool = False

    check_names = field_validator("column")(classmethod(lambda cls, v: check_ident(v, "column")))


class Query(Model):
    """A read-only query over one table or view: rows matching ``where``, in ``order_by`` order."""

    table: str
    where: list[Cond] = []
    order_by: list[OrderBy] = []
    limit: int | None = Field(default=None, ge=1)

    check_names = field_validator("table")(classmethod(lambda cls, v: check_ident(v, "table")))


class ScalarQuery(Query):
    """A query reduced to one value: ``select`` a column of the first row, or aggregate it.

    ``agg="count"`` with ``select="*"`` counts the matching rows.
    """

    select: str
    agg: Literal["count", "sum", "min", "max", "avg"] | None = None

    @field_validator("select")
    @classmethod
    def _select(cls, value: str) -> str:
        return value if value == "*" else check_ident(value, "column")


class QueryValue(Model):
    """A value computed from the database when it is needed, e.g. the cheapest red shirt's id."""

    query: ScalarQuery


ValueExpr = Union[Ref, QueryValue, Scalar]
"""A literal, a reference, or a scalar query."""


# ----------------------------------------------------------------------------- predicates


class Compare(Model):
    """``left op right``; either side may be a literal, a reference or a scalar query."""

    kind: Literal["compare"]
    left: ValueExpr
    op: CompareOp = "="
    right: ValueExpr


class Exists(Model):
    """At least one row matches the query (or none does, with ``negate``)."""

    kind: Literal["exists"]
    query: Query
    negate: bool = False


class Count(Model):
    """The number of rows matching ``query`` compares to ``value``."""

    kind: Literal["count"]
    query: Query
    op: CompareOp = "="
    value: ValueExpr


class PageIs(Model):
    """The browser shows page ``page`` (a page id), with route parameters equal to ``params``."""

    kind: Literal["page"]
    page: str
    params: dict[str, ValueExpr] = {}


class SqlPredicate(Model):
    """Raw read-only SQL whose first column of the first row is truthy.

    Named parameters (``:name``) are bound from ``params``. The engine refuses writes,
    ``ATTACH``, pragmas and non-deterministic functions, and aborts runaway queries.
    """

    kind: Literal["sql"]
    sql: str = Field(min_length=1, max_length=20_000)
    params: dict[str, ValueExpr] = {}


class AllOf(Model):
    """Every item holds."""

    kind: Literal["all"]
    items: list[Predicate]


class AnyOf(Model):
    """At least one item holds."""

    kind: Literal["any"]
    items: list[Predicate]


class Not(Model):
    """The item does not hold."""

    kind: Literal["not"]
    item: Predicate


Predicate = Annotated[
    Union[Compare, Exists, Count, PageIs, SqlPredicate, AllOf, AnyOf, Not],
    Field(discriminator="kind"),
]
"""A read-only condition over the backend state (and, for ``page``, the browser's URL)."""

for _model in (Cond, Compare, Count, PageIs, SqlPredicate, AllOf, AnyOf, Not):
    _model.model_rebuild()

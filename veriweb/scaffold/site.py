"""The site scaffold: database, users, markers, pages, tasks; the one source of truth of a site."""

from __future__ import annotations

import datetime as dt
import string
from typing import Literal

from pydantic import Field, field_validator, model_validator

from veriweb.scaffold.elements import Element
from veriweb.scaffold.values import (
    IDENT, Cond, Model, Predicate, Query, Scalar, ScalarQuery, ValueExpr, check_ident,
)

SCHEMA_VERSION = "1"

ColumnType = Literal["integer", "real", "text", "boolean", "date", "datetime", "money"]
"""Column and parameter types. ``money`` is stored as integer cents and shown as ``$12.50``;
``date`` as ``YYYY-MM-DD`` text; ``datetime`` as ``YYYY-MM-DDTHH:MM:SS`` text."""

# ----------------------------------------------------------------------------- database


class Column(Model):
    """A typed column."""

    name: str
    type: ColumnType
    nullable: bool = False
    unique: bool = False

    check_name = field_validator("name")(classmethod(lambda cls, v: check_ident(v, "column")))


class ForeignKey(Model):
    """``column`` refers to ``ref_table.ref_column``."""

    column: str
    ref_table: str
    ref_column: str = "id"


class Table(Model):
    """A table: typed columns, an integer primary key, foreign keys, indexes and seed rows."""

    name: str
    columns: list[Column] = Field(min_length=1)
    primary_key: str = "id"
    foreign_keys: list[ForeignKey] = []
    indexes: list[list[str]] = []
    rows: list[dict[str, Scalar]] = []

    check_name = field_validator("name")(classmethod(lambda cls, v: check_ident(v, "table")))

    def column(self, name: str) -> Column | None:
        """The column called ``name``, or ``None``."""
        return next((c for c in self.columns if c.name == name), None)


class View(Model):
    """A read-only view, defined by one SELECT (joins for lists that show related records).

    ``money_columns`` names the view's columns that hold money (integer cents).
    """

    name: str
    sql: str = Field(min_length=1)
    money_columns: list[str] = []

    check_name = field_validator("name")(classmethod(lambda cls, v: check_ident(v, "view")))


class Database(Model):
    """Tables and views."""

    tables: list[Table] = []
    views: list[View] = []

    def table(self, name: str) -> Table | None:
        """The table called ``name``, or ``None``."""
        return next((t for t in self.tables if t.name == name), None)


class Auth(Model):
    """How users log in: the table of accounts and its columns."""

    table: str = "users"
    id_column: str = "id"
    username_column: str = "username"
    password_column: str = "password"
    name_column: str = "name"
    login_page: str = "/login"


class Clock(Model):
    """The virtual clock: the day the site believes it is, and the time an episode starts."""

    today: dt.date = dt.date(2026, 6, 15)
    start_time: dt.time = dt.time(9, 0, 0)
    seconds_per_step: int = Field(default=1, ge=0)


# ----------------------------------------------------------------------------- markers


class MarkerParam(Model):
    """A typed marker parameter, checked before any write."""

    name: str
    type: ColumnType
    label: str = ""
    required: bool = True
    min: float | None = None
    max: float | None = None
    min_length: int | None = None
    max_length: int | None = None
    choices: list[str] | None = None

    check_name = field_validator("name")(classmethod(lambda cls, v: check_ident(v, "parameter")))


class Check(Model):
    """A read-only predicate and the message the site shows when it does not hold."""

    predicate: Predicate
    message: str


class Effect(Model):
    """One parameterised write. ``sql`` may only ``op`` rows of ``table``: the engine enforces it.

    Named parameters: the marker's parameters, ``:user_id``, ``:today`` and ``:now``.
    """

    op: Literal["insert", "update", "delete"]
    table: str
    sql: str = Field(min_length=1)


class Marker(Model):
    """A state change: the only way anything persists.

    Parameters are checked, then preconditions; effects run in one transaction; invariants
    are checked afterwards, and any failure rolls the whole marker back and shows ``message``
    (or the failing check's own message).
    """

    name: str
    label: str = ""
    params: list[MarkerParam] = []
    requires_login: bool = False
    preconditions: list[Check] = []
    effects: list[Effect] = Field(min_length=1)
    invariants: list[Check] = []
    message: str = "Sorry, that could not be done."
    irreversible: bool = False

    check_name = field_validator("name")(classmethod(lambda cls, v: check_ident(v, "marker")))


# ----------------------------------------------------------------------------- pages


class Layout(Model):
    """Elements shown around every page (unless the page opts out)."""

    header: list[Element] = []
    footer: list[Element] = []


class Page(Model):
    """A page: a route pattern with typed parameters (``/product/{id:int}``) and its elements."""

    id: str = Field(pattern=rf"^{IDENT}$")
    route: str = Field(pattern=r"^/")
    title: str
    requires_login: bool = False
    layout: bool = True
    elements: list[Element] = []


# ----------------------------------------------------------------------------- tasks


class FootprintEntry(Model):
    """Rows a task may change: of ``table``, matching ``where`` (on the old or new row), and only
    ``columns`` (all if ``None``), by ``ops``."""

    table: str
    where: list[Cond] = []
    columns: list[str] | None = None
    ops: list[Literal["insert", "update", "delete"]] = ["insert", "update", "delete"]


class Subgoal(Model):
    """An ordered step of progress towards the goal."""

    description: str
    predicate: Predicate


class Constraint(Model):
    """Something that must not happen: the task is failed as soon as ``predicate`` holds."""

    description: str
    predicate: Predicate


class AnswerSpec(Model):
    """The expected answer of a retrieve task, computed at judge time.

    ``value`` is a literal, reference or scalar query; for ``list`` answers, ``list_query``
    gives every row's ``select`` column (ties by ``order_by`` are interchangeable when
    ``order="exact"``). ``candidates`` lists names of other entities: an answer naming one of
    them is wrong.
    """

    type: Literal["number", "currency", "date", "text", "list", "boolean"]
    value: ValueExpr = None
    list_query: ScalarQuery | None = None
    order: Literal["any", "exact"] = "any"
    candidates: ScalarQuery | None = None
    tolerance: float = Field(default=0.0, ge=0)


TaskKind = Literal["navigate", "retrieve", "mutate", "infeasible"]


class Task(Model):
    """A task: instruction, goal, progress, constraints, footprint, and a certificate.

    ``instruction`` must equal ``template`` rendered with ``slots`` (``{name}`` placeholders).
    """

    id: str = Field(pattern=rf"^{IDENT}$")
    family: str = "custom"
    kind: TaskKind
    template: str
    slots: dict[str, Scalar] = {}
    instruction: str
    user: str | None = None
    start_logged_in: bool = False
    credentials: Literal["instruction", "profile", "none"] = "none"
    start_url: str = Field(default="/", pattern=r"^/")
    goal: list[Predicate] = []
    progress: list[Subgoal] = []
    constraints: list[Constraint] = []
    footprint: list[FootprintEntry] = []
    answer: AnswerSpec | None = None
    difficulty: Literal["easy", "medium", "hard"] = "easy"
    max_steps: int = Field(default=40, ge=1, le=1000)
    certificate: list[str] = []

    @model_validator(mode="after")
    def _consistent(self) -> Task:
        rendered = render_instruction(self.template, self.slots)
        if rendered != self.instruction:
            raise ValueError(f"instruction must equal the template rendered with the slots: {rendered!r}")
        if self.kind == "retrieve" and self.answer is None:
            raise ValueError("a retrieve task needs an 'answer' spec")
        if self.kind in ("navigate", "mutate") and not self.goal:
            raise ValueError(f"a {self.kind} task needs at least one goal predicate")
        if self.start_logged_in and self.user is None:
            raise ValueError("start_logged_in needs 'user' (the username to log in as)")
        return self


def render_instruction(template: str, slots: dict[str, Scalar]) -> str:
    """Render a task template: ``{name}`` placeholders from ``slots``; ``{{`` for a brace.

    Raises:
        ValueError: a placeholder has no slot, or the template is malformed.
    """
    out: list[str] = []
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise ValueError(f"template {template!r} is malformed: {exc}") from None
    for literal, name, spec, conversion in parsed:
        out.append(literal)
        if name is None:
            continue
        if spec or conversion or name not in slots:
            if name not in slots:
                raise ValueError(f"template names slot {{{name}}} but slots has no {name!r}")
            raise ValueError(f"template placeholder {{{name}}} must not use a format spec")
        value = slots[name]
        out.append(_slot_text(value))
    return "".join(out)


def _slot_text(value: Scalar) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return ""
    return str(value)


# ----------------------------------------------------------------------------- site


class Site(Model):
    """A whole website as data.

    ``id`` is a content hash of everything else (see :func:`veriweb.scaffold.io.site_id`).
    """

    schema_version: Literal["1"] = SCHEMA_VERSION
    id: str = ""
    name: str
    domain: str = "custom"
    description: str = ""
    generator: str = "hand-written"
    clock: Clock = Clock()
    auth: Auth | None = None
    database: Database = Database()
    markers: list[Marker] = []
    layout: Layout = Layout()
    pages: list[Page] = Field(min_length=1)
    tasks: list[Task] = []

    def page(self, page_id: str) -> Page | None:
        """The page with id ``page_id``, or ``None``."""
        return next((p for p in self.pages if p.id == page_id), None)

    def marker(self, name: str) -> Marker | None:
        """The marker called ``name``, or ``None``."""
        return next((m for m in self.markers if m.name == name), None)

    def task(self, task_id: str) -> Task | None:
        """The task with id ``task_id``, or ``None``."""
        return next((t for t in self.tasks if t.id == task_id), None)


__all__ = [
    "SCHEMA_VERSION", "AnswerSpec", "Auth", "Check", "Clock", "Column", "ColumnType", "Constraint",
    "Database", "Effect", "ForeignKey", "FootprintEntry", "Layout", "Marker", "MarkerParam", "Page",
    "Query", "Site", "Subgoal", "Table", "Task", "TaskKind", "View", "render_instruction",
]

"""Judging a task against the backend state: goal, ordered progress, constraints, footprint, answers."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from veriweb.engine.answers import Verdict, judge_answer, stateable
from veriweb.engine.database import Change, quote
from veriweb.engine.query import Context, column_values, holds, scalar_value
from veriweb.engine.session import Session
from veriweb.scaffold.site import FootprintEntry, Task
from veriweb.scaffold.values import AllOf, AnyOf, Cond, Not, PageIs, QueryValue


@dataclass(frozen=True)
class Progress:
    """Where a task stands now (a function of the current state, never a ratchet).

    Attributes:
        subgoals: which progress predicates hold, in order.
        goal: whether every goal predicate holds.
        violation: the broken constraint or the write outside the footprint, if any.
    """

    subgoals: tuple[bool, ...]
    goal: bool
    violation: str | None

    @property
    def done(self) -> int:
        """How many subgoals hold."""
        return sum(self.subgoals)

    @property
    def total(self) -> int:
        """How many subgoals there are."""
        return len(self.subgoals)


class Judge:
    """Evaluates one task's predicates on one session.

    References in task predicates resolve to the task's slots, the task's user (``user.*``,
    whoever is logged in), and the virtual clock.
    """

    def __init__(self, session: Session, task: Task) -> None:
        self.session = session
        self.task = task
        # Results are memoised on the session, so the episodes of one session share them. A key
        # names the objects it depends on by identity, and the entry holds those objects, so an
        # identity can never be reused while its entry lives (see ``_memo``).
        self._cache = session.memo("judge")
        self._slots_key = (id(task.slots), task.user)
        self._reads_page = tuple(_reads_page(p) for p in self._predicates())
        self._page_dependent = any(self._reads_page)
        self._progress_key = (id(task.progress), id(task.goal), id(task.constraints), id(task.footprint),
                              id(task.slots), task.user)
        self._pinned = (task.progress, task.goal, task.constraints, task.footprint, task.slots)

    def _predicates(self) -> list[Any]:
        task = self.task
        return ([sub.predicate for sub in task.progress] + list(task.goal)
                + [constraint.predicate for constraint in task.constraints])

    def _memo(self, key: tuple[Any, ...], pinned: Any, compute: Any) -> Any:
        """The memoised value of ``key``, computing (and storing it with ``pinned``) on a miss."""
        entry = self._cache.get(key)
        if entry is not None:
            return entry[1]
        value = compute()
        if len(self._cache) > 16_384:
            self._cache.clear()
        self._cache[key] = (pinned, value)
        return value

    def context(self) -> Context:
        """The context task predicates resolve against."""
        return Context(slot=dict(self.task.slots), user=self._task_user(),
                       clock={"today": self.session.today, "now": self.session.now})

    def _task_user(self) -> dict[str, Any]:
        auth = self.session.site.auth
        if self.task.user is None or auth is None:
            return {}
        username = self.task.user

        def fetch() -> dict[str, Any]:
            cursor = self.session.db.guard.engine(
                f"SELECT * FROM {quote(auth.table)} WHERE {quote(auth.username_column)} = ?", (username,))
            row = cursor.fetchone()
            return dict(zip([d[0] for d in cursor.description], row)) if row else {}

        return dict(self._memo(("user", username, self.session.version), None, fetch))

    def holds(self, predicate: Any) -> bool:
        """Evaluate one predicate now (memoised per database state, and per page for page predicates)."""
        return self._holds(predicate, _reads_page(predicate))

    def _holds(self, predicate: Any, reads_page: bool) -> bool:
        key: tuple[Any, ...] = (id(predicate), self._slots_key, self.session.version)
        if reads_page:
            key += self._page_key()
        return self._memo(key, (predicate, self.task.slots), lambda: holds(
            self.session.db.guard, predicate, self.context(), self.session.on_page))

    def _page_key(self) -> tuple[Any, ...]:
        return self.session.page_key()  # from the address: no page is built to key a predicate

    def progress(self) -> Progress:
        """Subgoals, goal and violations in the current state (memoised per database state, and
        per page when a predicate reads the page)."""
        key: tuple[Any, ...] = ("progress", self._progress_key, self.session.version)
        if self._page_dependent:
            key += self._page_key()
        return self._memo(key, self._pinned, self._progress)

    def _progress(self) -> Progress:
        reads = iter(self._reads_page)
        subgoals = tuple(self._holds(sub.predicate, next(reads)) for sub in self.task.progress)
        goal_reads = [next(reads) for _ in self.task.goal]
        goal = bool(self.task.goal) and all(self._holds(p, r) for p, r in zip(self.task.goal, goal_reads))
        return Progress(subgoals, goal, self.violation())

    def violation(self) -> str | None:
        """The first broken constraint or out-of-footprint write, or ``None``."""
        for constraint in self.task.constraints:
            if self.holds(constraint.predicate):
                return f"constraint broken: {constraint.description}"
        key = ("footprint", id(self.task.footprint), id(self.task.slots), self.task.user, self.session.version)
        return self._memo(key, (self.task.footprint, self.task.slots), self.footprint_violation)

    def broken_constraints(self) -> list[str]:
        """The description of every constraint broken in the current state."""
        return [c.description for c in self.task.constraints if self.holds(c.predicate)]

    def footprint_violation(self) -> str | None:
        """The first write since reset that the task's footprint does not allow, or ``None``."""
        if self.session.version == "0":
            return None
        ctx = self.context()
        for change in self.session.db.changes():
            if not any(self._allows(entry, change, ctx) for entry in self.task.footprint):
                row = change.new or change.old or {}
                return f"write outside the task's footprint: {change.op} on {change.table} row {row.get('id')}"
        return None

    def _allows(self, entry: FootprintEntry, change: Change, ctx: Context) -> bool:
        if entry.table != change.table or change.op not in entry.ops:
            return False
        if entry.columns is not None and change.op == "update" and change.old and change.new:
            changed = {c for c in change.new if change.new.get(c) != change.old.get(c)}
            if not changed <= set(entry.columns):
                return False
        rows = [r for r in (change.old, change.new) if r is not None]
        return any(all(self._cond(cond, row, ctx) for cond in entry.where) for row in rows)

    def _cond(self, cond: Cond, row: dict[str, Any], ctx: Context) -> bool:
        actual = row.get(cond.column)
        if cond.op == "is_null":
            return actual is None
        if cond.op == "not_null":
            return actual is not None
        if isinstance(cond.value, list):
            values = [v for v in cond.value]
        else:
            values = [scalar_value(self.session.db.guard, cond.value, ctx)]
        expected = values[0] if values else None
        if cond.skip_if_empty and expected in (None, ""):
            return True
        if cond.op == "in":
            return any(_eq(actual, v) for v in values)
        if cond.op == "not_in":
            return not any(_eq(actual, v) for v in values)
        if cond.op == "contains":
            return str(expected or "").casefold() in str(actual or "").casefold()
        if cond.op == "startswith":
            return str(actual or "").casefold().startswith(str(expected or "").casefold())
        if cond.op == "=":
            return _eq(actual, expected)
        if cond.op == "!=":
            return not _eq(actual, expected)
        try:
            return {"<": actual < expected, "<=": actual <= expected, ">": actual > expected,
                    ">=": actual >= expected}[cond.op]
        except TypeError:
            return False

    # ------------------------------------------------------------------ answers

    def expected_answer(self) -> Any:
        """The expected answer of a retrieve task, computed now from the state."""
        spec = self.task.answer
        if spec is None:
            return None
        ctx = self.context()
        guard = self.session.db.guard
        if spec.type == "list" and spec.list_query is not None:
            pairs = column_values(guard, spec.list_query, ctx)
            money = self._is_money(spec.list_query.table, spec.list_query.select)
            values = [_major(v) if money else v for v, _ in pairs]
            if spec.order != "exact":
                return values
            groups: list[Any] = []
            last_key: object = object()
            for (value, order_key), shown in zip(pairs, values):
                if groups and order_key == last_key:
                    group = groups[-1] if isinstance(groups[-1], list) else [groups[-1]]
                    group.append(shown)
                    groups[-1] = group
                else:
                    groups.append(shown)
                last_key = order_key
            return groups
        value = scalar_value(guard, spec.value, ctx)
        if spec.type == "currency" and isinstance(spec.value, QueryValue):
            if self._is_money(spec.value.query.table, spec.value.query.select):
                return _major(value)
        return value

    def _is_money(self, table: str, column: str) -> bool:
        types = self.session.db.column_types.get(table)
        if types is None:
            view = next((v for v in self.session.site.database.views if v.name == table), None)
            return bool(view and column in view.money_columns)
        return types.get(column) == "money"

    def judge_answer(self, text: str) -> Verdict:
        """Judge a message sent to the user against the expected answer."""
        spec = self.task.answer
        if spec is None:
            return Verdict(False, "this task expects no answer")
        return self.judge_against(text, self.expected_answer(), self.candidates())

    def candidates(self) -> list[str]:
        """The values the answer's ``candidates`` query gives now (what a text answer may name)."""
        spec = self.task.answer
        if spec is None or spec.candidates is None:
            return []
        return [str(v) for v, _ in column_values(self.session.db.guard, spec.candidates, self.context())]

    def judge_against(self, text: str, expected: Any, candidates: list[str]) -> Verdict:
        """Judge ``text`` against an expected answer and candidates computed in the current state
        (:meth:`judge_answer`, for a caller that computes them once per state)."""
        spec = self.task.answer
        if spec is None:
            return Verdict(False, "this task expects no answer")
        if expected is None or expected == []:
            return Verdict(False, "the expected answer does not exist in the current state")
        missing = unstated(expected)
        if missing:
            return Verdict(False, f"the expected answer {missing}: no answer can name it")
        if not stateable(expected, spec.type, spec.order):  # the site's data, not the grader's fault
            return Verdict(False, f"the expected answer {expected!r} is not a {spec.type}: no answer can match it")
        return judge_answer(text, expected, spec.type, today=dt.date.fromisoformat(self.session.today),
                            order=spec.order, candidates=candidates, tolerance=spec.tolerance)


def unstated(expected: object) -> str:
    """Why a value read from the database cannot be stated as an answer ("" if it can).

    The expected answer is data, so a missing value (NULL) or blank text in it is a state of the
    site (a defect for the verifier to find), not a fault of the grader: the judge says no.
    """
    items = expected if isinstance(expected, list | tuple) else [expected]
    for index, item in enumerate(items):
        for value in item if isinstance(item, list | tuple) else [item]:
            if value is None:
                return f"has a missing value (NULL) at item {index}"
            if isinstance(value, str) and not value.strip():
                return f"has blank text at item {index}"
    return ""


def _reads_page(predicate: Any) -> bool:
    if isinstance(predicate, PageIs):
        return True
    if isinstance(predicate, (AllOf, AnyOf)):
        return any(_reads_page(item) for item in predicate.items)
    if isinstance(predicate, Not):
        return _reads_page(predicate.item)
    return False


def _major(cents: Any) -> Any:
    if isinstance(cents, (int, float)) and not isinstance(cents, bool):
        return Decimal(int(round(cents))) / 100
    return cents


def _eq(actual: Any, expected: Any) -> bool:
    if isinstance(actual, bool) or isinstance(expected, bool):
        return bool(actual) == bool(expected)
    if actual == expected:
        return True
    return actual is not None and expected is not None and str(actual) == str(expected)

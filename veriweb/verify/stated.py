"""The conditions an instruction states, read from its slots and the certificate's writes, not from the goal.

A decoy is a wrong answer only if it breaks something the instruction asked for. "A 3-star-or-better
hotel in Edinburgh within $275" is met by every such hotel, so booking another one of them is
another right answer, and a judge that passes it is sound. The conditions come from the
instruction's slots: each value the template states is matched against the rows the certificate
wrote (and the views over them), giving ``column = value`` where the certificate's row shows that
value, and ``column >= value`` / ``column <= value`` where it shows a number on that side of a stated
number ("4 stars" in the goal read as ``stars >= :stars``; a total under a stated budget). A goal
that ignores a stated condition does not weaken it: the goal is read only for the direction of a
comparison the instruction states.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Any

from veriweb.engine import Episode, Session
from veriweb.engine.answers import parse_date
from veriweb.errors import VeriwebError
from veriweb.scaffold import Site, Task
from veriweb.verify.dataflow import view_tables
from veriweb.verify.trajectories import Run, judge_writes

_PLACEHOLDER = re.compile(r"(?<!\{)\{(\w+)\}")
_SQL_SLOT_OP = re.compile(r"\b(\w+)\s*(>=|<=|>|<)\s*:(\w+)")
_CREDENTIALS = {"username", "password"}

Condition = tuple[str, str, str, Any]
"""``(table or view, column, op, value)``: some row the task wrote there must meet it."""


def stated_values(task: Task) -> dict[str, list[Any]]:
    """Each slot the template states (credentials aside), with the values it may be stored as:
    its text, and for "$449.00" 449.0 and 44900 (cents), for "2 guests" the number 2."""
    out: dict[str, list[Any]] = {}
    for name in dict.fromkeys(_PLACEHOLDER.findall(task.template)):
        if name in _CREDENTIALS or name not in task.slots:
            continue
        value = task.slots[name]
        forms: list[Any] = [value]
        if isinstance(value, str):
            money = re.fullmatch(r"\$([\d,]+(?:\.\d\d)?)", value.strip())
            count = re.fullmatch(r"(\d+)(?: [a-z]+)?", value.strip())
            if money:
                amount = float(money.group(1).replace(",", ""))
                forms += [amount, round(amount * 100)]
            elif count:
                forms.append(int(count.group(1)))
        out[name] = forms
    return out


def _directions(task: Task) -> dict[str, str]:
    """For slots the goal compares with an inequality, the operator (``>=`` or ``<=``) it uses, keyed by
    ``slot.NAME``, or by ``=VALUE`` for a stated number the goal holds as a literal (a budget in cents)."""
    out: dict[str, str] = {}

    def note(value: Any, op: str) -> None:
        direction = ">=" if op.startswith(">") else "<="
        if isinstance(value, dict) and str(value.get("ref", "")).startswith("slot."):
            out[value["ref"]] = direction
        elif _is_number(value):
            out[f"={value}"] = direction

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("op") in (">", ">=", "<", "<="):
                note(node.get("value"), node["op"])
            if isinstance(node.get("sql"), str):
                params = node.get("params") or {}
                for _, op, param in _SQL_SLOT_OP.findall(node["sql"]):
                    note(params.get(param), op)
            for child in node.values():
                walk(child)
        elif isinstance(node, list):
            for child in node:
                walk(child)

    walk([p.model_dump(mode="json") for p in task.goal])
    return out


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _same_day(stored: str, stated: str, today: dt.date) -> bool:
    """Is ``stored`` an ISO date, the day ``stated`` writes ("18 June", "Tuesday, June 23", "June 23rd,
    2026"; read as the answer judge reads dates, a month-day in the virtual clock's year)?"""
    try:
        day = dt.date.fromisoformat(stored.strip())
    except ValueError:
        return False
    return parse_date(stated, today) == day


def _holds(value: Any, op: str, target: Any) -> bool:
    if op == "=":
        if isinstance(value, str) and isinstance(target, str):
            return value.strip().lower() == target.strip().lower()
        return value == target
    if not (_is_number(value) and _is_number(target)):
        return False
    return value >= target if op == ">=" else value <= target


def _rows(session: Session, name: str, key: str | None = None, values: list[Any] | None = None
          ) -> set[tuple[tuple[str, Any], ...]]:
    """The rows of table or view ``name`` as ``(column, value)`` tuples (those whose ``key`` is in ``values``)."""
    if key is not None and values is not None:
        cursor = session.db.guard.engine(f'SELECT * FROM "{name}" WHERE "{key}" IN ({", ".join("?" * len(values))})',
                                         values)
    else:
        cursor = session.db.guard.engine(f'SELECT * FROM "{name}"')
    names = [d[0] for d in cursor.description]
    return {tuple(zip(names, row)) for row in cursor.fetchall()}


@dataclass
class StatedConditions:
    """The stated conditions of one task, and the rows (of the written tables and their views) to test.

    Build with :meth:`of` once per task; then, in the state a decoy left, :meth:`all_hold` says
    whether that decoy meets every condition (another right answer rather than a wrong one).
    """

    conditions: list[Condition]
    before: dict[str, set[tuple[tuple[str, Any], ...]]]
    _by_key: dict[str, dict[Any, tuple[tuple[str, Any], ...]]] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, site: Site, task: Task, session: Session, run: Run) -> StatedConditions:
        """The conditions ``task`` states, matched against the writes of the certificate's marker calls.

        Leaves ``session`` in the state the certificate's calls reach (callers reset before each decoy).
        """
        values = stated_values(task)
        Episode(site, task, session=session).reset()
        if not values or not run.calls:
            return cls([], {})
        written = {c.table for c in _cert_changes(site, task, session, run)}
        Episode(site, task, session=session).reset()
        names = sorted(written | {v.name for v in site.database.views if view_tables(site, v.name) & written})
        before = {name: _rows(session, name) for name in names}
        if _cert_changes(site, task, session, run) is None:
            return cls([], {})
        directions = _directions(task)
        keys = _key_columns(site)
        conditions: list[Condition] = []
        read: set[str] = set()
        for name in names:
            after = _rows(session, name)
            for row in (after - before[name]) | (before[name] - after):
                for column, value in row:
                    key = column in keys.get(name, set()) or column == "id" or column.endswith("_id")
                    for slot, forms in values.items():
                        for form in forms:
                            direction = directions.get(f"slot.{slot}") or directions.get(f"={form}")
                            condition = _condition(name, column, value, form, direction, key, site.clock.today)
                            if condition is not None:
                                read.add(slot)
                                if condition not in conditions:
                                    conditions.append(condition)
        if read != set(values):  # a stated value no written row shows: a decoy may break it unseen
            return cls([], before)
        return cls(conditions, before)

    def all_hold(self, session: Session) -> bool:
        """Does the state in ``session`` (a decoy's) meet every stated condition? ``False`` when the
        conditions could not all be read: when no condition could, or when some stated value shows
        in no row the certificate wrote (then every decoy counts as a wrong answer, as before)."""
        if not self.conditions:
            return False
        touched: dict[str, set[tuple[tuple[str, Any], ...]]] = {}
        logged: dict[str, set[Any]] | None = None
        for name in dict.fromkeys(table for table, _, _, _ in self.conditions):  # only what a condition reads
            before = self.before.get(name, set())
            key = session.db.primary_keys.get(name)
            if key is None:  # a view: its rows are compared whole
                after = _rows(session, name)
                touched[name] = (after - before) | (before - after)
                continue
            # a table: only the rows the change log names can differ from the rows before
            if logged is None:
                logged = {}
                for change in session.db.changes():
                    pk = session.db.primary_keys.get(change.table)
                    for row in (change.old, change.new):
                        if row is not None:
                            logged.setdefault(change.table, set()).add(row.get(pk))
            keys = logged.get(name, set())
            if not keys:
                touched[name] = set()
                continue
            if name not in self._by_key:
                self._by_key[name] = {dict(row).get(key): row for row in before}
            by_key = self._by_key[name]
            old = {by_key[k] for k in keys if k in by_key}
            new = _rows(session, name, key, sorted(keys, key=repr))
            touched[name] = (new - old) | (old - new)
        for table, column, op, target in self.conditions:
            if not any(_holds(dict(row).get(column), op, target) for row in touched.get(table, ())):
                return False
        return True


def _condition(table: str, column: str, value: Any, form: Any, direction: str | None,
               key: bool, today: dt.date) -> Condition | None:
    """The condition a certificate row's ``value`` shows for a stated ``form``, or ``None``."""
    if isinstance(value, str) and isinstance(form, str):
        if value.strip().lower() == form.strip().lower():
            return (table, column, "=", form)
        return (table, column, "=", value) if _same_day(value, form, today) else None
    if not (_is_number(value) and _is_number(form)):
        return None
    if key:  # a row's key is named, never bounded
        return (table, column, "=", form) if value == form else None
    if value == form:
        return (table, column, direction or "=", form)
    if form == 0 or not (abs(form) / 10 <= abs(value) <= abs(form) * 10):
        return None  # far apart: not this stated number
    if direction is not None:
        return (table, column, direction, form) if _holds(value, direction, form) else None
    return (table, column, ">=" if value > form else "<=", form)


def _key_columns(site: Site) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for table in site.database.tables:
        out[table.name] = {table.primary_key, *(f.column for f in table.foreign_keys)}
    return out


def _cert_changes(site: Site, task: Task, session: Session, run: Run) -> list[Any] | None:
    """Apply the certificate's marker calls (from a reset) and return the database's changes."""
    judged = judge_writes(site, task, session, [(c, c.args) for c in run.calls])
    return None if judged is None else session.db.changes()


def _entered(actions: list[str] | tuple[str, ...]) -> list[str]:
    """The values ``actions`` type into fields or choose from lists, in order (unparsable actions skipped)."""
    from veriweb.engine.actions import Fill, SelectOption, parse_action

    out: list[str] = []
    for text in actions:
        try:
            action = parse_action(text)
        except VeriwebError:  # a stored certificate may hold anything: what does not parse enters nothing
            continue
        if isinstance(action, Fill):
            out.append(action.value)
        elif isinstance(action, SelectOption):
            out += list(action.options)
    return [v for v in out if v.strip()]


def _said(value: str, instruction: str) -> bool:
    """Whether the instruction says ``value`` as words of its own (not inside a longer word or number)."""
    return re.search(rf"(?<![\w.]){re.escape(value.strip().lower())}(?![\w])", instruction.lower()) is not None


def drifted_values(task: Task, failed: list[str] | tuple[str, ...], found: list[str] | tuple[str, ...]
                   ) -> tuple[list[str], list[str]]:
    """What a new solution changed of the values the instruction states, against a stored one that failed.

    Returns ``(dropped, put_instead)``: values the failed certificate typed or chose that the
    instruction says and the new solution never enters (nor anything containing them, or contained
    in them: "Copenhagen" kept as "Copenhagen (CPH)"), and values the new solution enters that
    neither the instruction nor the failed certificate has. Both non-empty means the judge now
    passes a value the instruction does not ask for while the one it asks for fails: evidence
    against the judge, not a stale certificate.
    """
    before, after = _entered(failed), _entered(found)
    alike = lambda v, w: _said(v, w) or _said(w, v)  # noqa: E731 - one holds the other as words of its own
    dropped = [v for v in dict.fromkeys(before) if _said(v, task.instruction) and not any(alike(v, w) for w in after)]
    put = [v for v in dict.fromkeys(after) if not _said(v, task.instruction) and not any(alike(v, w) for w in before)]
    return dropped, put


__all__ = ["Condition", "StatedConditions", "drifted_values", "stated_values"]

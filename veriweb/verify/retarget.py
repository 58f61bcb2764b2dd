"""Retargeting a task whose start state is wrong: its goal already holds, or a constraint is broken.

A task whose goal is true before the agent does anything (F001) or whose constraint already
holds at the start (F007) asks nothing of the agent, so as written it cannot be shipped. Often
the task itself is sound and only its entity or its starting page is wrong: the data already has
the price asked for this product, or the task starts on the page it asks the agent to find. The
repair, as the issue's operator list puts it, rewrites the task to an existing entity (or starts
it elsewhere) and re-renders its instruction from its template, so the instruction and the
predicates cannot drift apart; the caller then certifies the rewritten task from scratch by
search, exactly like any other repaired task.

:func:`candidates` proposes rewrites in a fixed order and keeps only those whose start state is
right: the goal false and no constraint broken at the start, and the entity the task is about
there (:func:`entity_found`: a row for each change the task may make to existing rows, a row for
each lookup its goal and footprint make in tables it does not insert into: a booking to move is
one the user has). A value naming exactly one row is preferred (an ambiguous one is caught when
the task is certified again: F004), then one of the same family as the entities the task's
other slots name (an issue of the same project as the other issue to tag), then the closest to
the old value. It reads the site's data and the task's predicates, never the generator's plan.
"""

from __future__ import annotations

import difflib
import json
import re
import sqlite3
from collections.abc import Callable, Iterator
from typing import Any

from pydantic import BaseModel

from veriweb.engine import Episode, Session
from veriweb.errors import VeriwebError
from veriweb.scaffold import Site, Task
from veriweb.scaffold.site import render_instruction
from veriweb.scaffold.values import Exists, Query, QueryValue, Scalar
from veriweb.verify.wording import date_aliases, reworded

MAX_VALUES = 40
"""How many other values of a slot's column are looked at (closest to the old value first)."""


def start_is_right(site: Site, task: Task, session: Session) -> bool:
    """Whether ``task`` starts well: its goal (if it has one and is not a retrieve) is false, and no
    constraint already holds, in a freshly reset episode."""
    try:
        episode = Episode(site, task, session=session)
        episode.reset()
        judge = episode.judge
        if any(judge.holds(c.predicate) for c in task.constraints):
            return False
        return task.kind == "retrieve" or not task.goal or not all(judge.holds(p) for p in task.goal)
    except VeriwebError:
        return False


def candidates(site: Site, task: Task, session: Session) -> Iterator[tuple[Task, str]]:
    """Rewrites of ``task`` whose start state is right, with what each changed, best first.

    A navigate task is first started from the home page, then from the other tasks' start pages.
    Then each slot the goal matches against a column is set to another value of that column that
    exists there (one naming a single row first, then the closest to the old value); the instruction
    is re-rendered. A day the instruction also writes in words ("Sunday, June 21") comes last, and
    its words are rewritten for the new day in the same style (:func:`~veriweb.verify.wording.reworded`).

    Args:
        site: the site the task belongs to.
        task: the task to rewrite.
        session: a session of ``site`` (its state is reset).

    Yields:
        ``(rewritten task, description of the change)``; the certificate is cleared.
    """
    if not start_is_right(site, task.model_copy(update={"goal": [], "constraints": []}), session):
        return  # the task cannot even be started (a missing user): nothing to retarget
    if task.kind == "navigate":
        starts = ["/"] + sorted({t.start_url for t in site.tasks if t.start_url != task.start_url})
        for start in starts:
            if start == task.start_url:
                continue
            moved = task.model_copy(update={"start_url": start, "certificate": []})
            if start_is_right(site, moved, session):
                yield moved, f"start_url {task.start_url!r} -> {start!r}"
    aliases = date_aliases(task.slots)
    # A day the instruction also writes in words is rewritten last: the words must be rewritten
    # with it, and a day is what a task's other entities (the flight back) most often hang on.
    for name, values in sorted(_slot_values(site, task, session),  # read from the start state
                               key=lambda found: str(task.slots.get(found[0])) in aliases):
        old = task.slots.get(name)
        # a slot holding the same value (the day the instruction says, the day the goal compares)
        # is the same thing: it is rewritten with it, and so is the day written in words
        same = [other for other, v in task.slots.items() if v == old and type(v) is type(old)]
        words = aliases.get(str(old), [])
        for value in values:
            said = {other: reworded(str(task.slots[other]), str(value)) for other in words}
            if None in said.values():
                continue  # the day in words cannot be written for this value
            slots: dict[str, Scalar] = {**task.slots, **{other: value for other in same}, **said}
            try:
                instruction = render_instruction(task.template, slots)
            except (KeyError, ValueError, IndexError):
                break
            moved = task.model_copy(update={"slots": slots, "instruction": instruction, "certificate": []})
            if start_is_right(site, moved, session) and entity_found(site, moved, session):
                yield moved, f"slot {name}: {old!r} -> {value!r}"


def _lookups(node: object) -> Iterator[QueryValue]:
    """Every scalar query nested in a predicate or condition (depth first)."""
    if isinstance(node, QueryValue):
        yield node
        yield from _lookups(node.query.where)
    elif isinstance(node, (list, tuple)):
        for item in node:
            yield from _lookups(item)
    elif isinstance(node, BaseModel):
        for name in type(node).model_fields:
            yield from _lookups(getattr(node, name))


def entity_found(site: Site, task: Task, session: Session) -> bool:
    """Whether what ``task`` is about exists at the start: each footprint entry that only changes
    existing rows (update, delete; an entry that may also insert, a cart line, need not) matches a
    row, and each lookup its goal and footprint make (``the flight numbered :number on :day``)
    finds one, except in tables the task inserts into (the issue it creates is looked up only once
    it exists)."""
    inserted = {e.table for e in task.footprint if "insert" in e.ops}
    checks = [Exists(kind="exists", query=Query(table=e.table, where=e.where)) for e in task.footprint
              if set(e.ops) & {"update", "delete"} and "insert" not in e.ops and e.where]
    for lookup in _lookups([task.goal, [e.where for e in task.footprint]]):
        if lookup.query.table not in inserted and lookup.query.agg is None:
            checks.append(Exists(kind="exists", query=Query(table=lookup.query.table, where=lookup.query.where)))
    if not checks:
        return True
    try:
        episode = Episode(site, task, session=session)
        episode.reset()
        return all(episode.judge.holds(check) for check in checks)
    except VeriwebError:
        return False


def _slot_values(site: Site, task: Task, session: Session) -> Iterator[tuple[str, list[Scalar]]]:
    """For each slot the goal matches against a column (those the footprint selects rows by first):
    the other values of that column, those naming one row first, then the closest to the old value;
    for a slot naming the row the task inserts, one new value (see :func:`_fresh`)."""
    from veriweb.verify.checks import _slot_tables
    from veriweb.verify.repair import _slot_columns

    data_task = task.model_dump(mode="json")
    conn = session.db.conn
    tables = _slot_tables(task)
    footprint = json.dumps([entry.where for entry in task.footprint], default=str)
    inserted = {entry.table for entry in task.footprint if "insert" in entry.ops}
    # Slots that pick the rows the task may change (the entity) come before the values it writes.
    for name in sorted(task.slots, key=lambda n: f"slot.{n}'" not in footprint):
        old = task.slots[name]
        if old is None or isinstance(old, bool) or name not in tables:
            continue
        found: dict[Scalar, int] = {}
        taken: set[Scalar] = {old}
        for table in sorted(tables[name]):
            for column in sorted(_slot_columns(data_task, name)):
                try:
                    rows = conn.execute(f'SELECT "{column}", count(*) FROM "{table}" WHERE "{column}" IS NOT NULL '
                                        f'GROUP BY "{column}"').fetchall()
                except Exception:  # noqa: BLE001 - a column the table does not have: not this pair
                    continue
                for value, count in rows:
                    taken.add(value)
                    if type(value) is type(old) and value != old:
                        found[value] = found.get(value, 0) + count
        if tables[name] & inserted:
            # The value of the row the task creates (a coupon's code): an existing one would
            # collide with its row, so the task creates a new one, numbered on from the old.
            fresh = _fresh(old, taken)
            if fresh is not None:
                yield name, [fresh]
            continue
        family = _family(site, conn, task, name, tables[name], _slot_columns(data_task, name))
        links = _links(site, conn, task, name)
        ranked = sorted(found, key=lambda v: (found[v] != 1, -links(v), -family(v),
                                              -difflib.SequenceMatcher(None, str(old), str(v)).ratio(), str(v)))
        if ranked:
            yield name, ranked[:MAX_VALUES]


def _family(site: Site, conn: object, task: Task, name: str, tables: set[str],
            columns: set[str]) -> Callable[[Scalar], int]:
    """How many foreign-key values the row a value names shares with the rows the task's other
    slots name in the same table (an issue of the same project as the other issue to tag)."""
    def keys(table: str, column: str, value: Scalar) -> set[tuple[str, Scalar]]:
        fks = _fk_columns(site, table)
        if not fks:
            return set()
        try:
            names = ", ".join(f'"{c}"' for c in fks)
            rows = conn.execute(f'SELECT {names} FROM "{table}" '  # type: ignore[attr-defined]
                                f'WHERE "{column}" = ?', (value,)).fetchall()
        except Exception:  # noqa: BLE001 - a column the table does not have: not this pair
            return set()
        return {(c, v) for row in rows for c, v in zip(fks, row) if v is not None}

    pairs = [(t, c) for t in sorted(tables) for c in sorted(columns)]
    others: set[tuple[str, Scalar]] = set()
    for other, value in task.slots.items():
        if other != name and value is not None and not isinstance(value, bool):
            for table, column in pairs:
                others |= keys(table, column, value)

    def score(value: Scalar) -> int:
        if not others:
            return 0
        return len(others & {k for t, c in pairs for k in keys(t, c, value)})

    return score


def _links(site: Site, conn: sqlite3.Connection, task: Task, name: str) -> Callable[[Scalar], int]:
    """How many of the ways the row slot ``name`` names is tied to the rows the other slots name
    would still tie the row a new value names.

    Two rows are tied when one points at the other, or a row of a third table points at both (a
    member of a project, an issue of the project assigned to the user). "Assign the new issue in
    payments/pulse to Clara Varga" only works in a project Clara is a member of: a rewrite to
    another project should keep that tie, as the task's author kept it.
    """
    from veriweb.verify.checks import _slot_columns as slot_columns

    columns = {slot: sorted({(t, c) for t, c, op in where if op == "="}) for slot, where in slot_columns(task).items()}
    keyed = {t.name: t for t in site.database.tables}

    def rows(slot: str, value: Scalar) -> set[tuple[str, Any]]:
        out: set[tuple[str, Any]] = set()
        if isinstance(value, bool) or value is None:
            return out
        for table, column in columns.get(slot, []):
            found = keyed.get(table)
            if found is None:
                continue
            try:
                hits = conn.execute(f'SELECT "{found.primary_key}" FROM "{table}" WHERE "{column}" = ? LIMIT 8',
                                    (value,)).fetchall()
            except sqlite3.Error:  # a column the table does not have: not this pair
                continue
            out |= {(table, key) for key, in hits}
        return out

    def ties(mine: set[tuple[str, Any]], theirs: set[tuple[str, Any]]) -> set[tuple[str, str, str]]:
        out: set[tuple[str, str, str]] = set()
        for table_a, key_a in mine:
            for table_b, key_b in theirs:
                for kind, sql, args in _tie_queries(keyed, table_a, key_a, table_b, key_b):
                    if kind not in out and conn.execute(sql, args).fetchone() is not None:
                        out.add(kind)
        return out

    others = [rows(slot, value) for slot, value in task.slots.items() if slot != name]
    others = [found for found in others if found]
    old = [ties(rows(name, task.slots[name]), found) for found in others]
    if not any(old):
        return lambda value: 0

    def kept(value: Scalar) -> int:
        mine = rows(name, value)
        return sum(len(before & ties(mine, found)) for before, found in zip(old, others) if before)

    return kept


def _tie_queries(tables: dict[str, Any], table_a: str, key_a: Any, table_b: str, key_b: Any
                 ) -> Iterator[tuple[tuple[str, str, str], str, tuple[Any, ...]]]:
    """The queries that find each tie between row ``key_a`` of ``table_a`` and row ``key_b`` of
    ``table_b`` (see :func:`_links`): (kind of tie, SQL, arguments); a row is found when they are tied."""
    a, b = tables[table_a], tables[table_b]
    for fk in a.foreign_keys:
        if fk.ref_table == table_b:
            yield ((table_a, fk.column, ""),
                   f'SELECT 1 FROM "{table_a}" WHERE "{a.primary_key}" = ? AND "{fk.column}" = '
                   f'(SELECT "{fk.ref_column}" FROM "{table_b}" WHERE "{b.primary_key}" = ?)', (key_a, key_b))
    for fk in b.foreign_keys:
        if fk.ref_table == table_a:
            yield ((table_b, "", fk.column),
                   f'SELECT 1 FROM "{table_b}" WHERE "{b.primary_key}" = ? AND "{fk.column}" = '
                   f'(SELECT "{fk.ref_column}" FROM "{table_a}" WHERE "{a.primary_key}" = ?)', (key_b, key_a))
    for link in tables.values():
        if link.name in (table_a, table_b):
            continue
        for to_a in (fk for fk in link.foreign_keys if fk.ref_table == table_a):
            for to_b in (fk for fk in link.foreign_keys if fk.ref_table == table_b and fk.column != to_a.column):
                yield ((link.name, to_a.column, to_b.column),
                       f'SELECT 1 FROM "{link.name}" WHERE "{to_a.column}" = (SELECT "{to_a.ref_column}" FROM '
                       f'"{table_a}" WHERE "{a.primary_key}" = ?) AND "{to_b.column}" = (SELECT "{to_b.ref_column}" '
                       f'FROM "{table_b}" WHERE "{b.primary_key}" = ?) LIMIT 1', (key_a, key_b))


def _fresh(old: Scalar, taken: set[Scalar]) -> Scalar | None:
    """A value no row holds, numbered on from ``old`` (``RAPID35`` -> ``RAPID36``), or ``None`` when
    ``old`` does not end in a number."""
    match = re.fullmatch(r"(.*?)(\d+)", str(old)) if isinstance(old, str) else None
    if match is None:
        return None
    head, digits = match.groups()
    for number in range(int(digits) + 1, int(digits) + 100):
        value = f"{head}{number:0{len(digits)}d}"
        if value not in taken:
            return value
    return None


def _fk_columns(site: Site, table: str) -> list[str]:
    found = site.database.table(table)
    return sorted({fk.column for fk in found.foreign_keys}) if found is not None else []


__all__ = ["MAX_VALUES", "candidates", "entity_found", "start_is_right"]

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
right: the goal false and no constraint broken at the start; a value naming exactly one row is
preferred (an ambiguous one is caught when the task is certified again: F004). It reads the
site's data and the task's predicates, never the generator's plan.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterator

from veriweb.engine import Episode, Session
from veriweb.errors import VeriwebError
from veriweb.scaffold import Site, Task
from veriweb.scaffold.site import render_instruction
from veriweb.scaffold.values import Scalar

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
    is re-rendered.

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
    for name, values in list(_slot_values(site, task, session)):  # read from the start state
        old = task.slots.get(name)
        for value in values:
            slots: dict[str, Scalar] = {**task.slots, name: value}
            try:
                instruction = render_instruction(task.template, slots)
            except (KeyError, ValueError, IndexError):
                break
            moved = task.model_copy(update={"slots": slots, "instruction": instruction, "certificate": []})
            if start_is_right(site, moved, session):
                yield moved, f"slot {name}: {old!r} -> {value!r}"


def _slot_values(site: Site, task: Task, session: Session) -> Iterator[tuple[str, list[Scalar]]]:
    """For each slot the goal matches against a column (those the footprint selects rows by first):
    the other values of that column, those naming one row first, then the closest to the old value."""
    from veriweb.verify.checks import _slot_tables
    from veriweb.verify.repair import _slot_columns

    data_task = task.model_dump(mode="json")
    conn = session.db.conn
    tables = _slot_tables(task)
    footprint = json.dumps([entry.where for entry in task.footprint], default=str)
    # Slots that pick the rows the task may change (the entity) come before the values it writes.
    for name in sorted(task.slots, key=lambda n: f"slot.{n}'" not in footprint):
        old = task.slots[name]
        if old is None or isinstance(old, bool) or name not in tables:
            continue
        found: dict[Scalar, int] = {}
        for table in sorted(tables[name]):
            for column in sorted(_slot_columns(data_task, name)):
                try:
                    rows = conn.execute(f'SELECT "{column}", count(*) FROM "{table}" WHERE "{column}" IS NOT NULL '
                                        f'GROUP BY "{column}"').fetchall()
                except Exception:  # noqa: BLE001 - a column the table does not have: not this pair
                    continue
                for value, count in rows:
                    if type(value) is type(old) and value != old:
                        found[value] = found.get(value, 0) + count
        ranked = sorted(found, key=lambda v: (found[v] != 1, -difflib.SequenceMatcher(None, str(old), str(v)).ratio(),
                                              str(v)))
        if ranked:
            yield name, ranked[:MAX_VALUES]


__all__ = ["MAX_VALUES", "candidates", "start_is_right"]

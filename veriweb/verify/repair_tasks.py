"""Repair operators for the checks of :mod:`veriweb.verify.checks_tasks` (S016, C012).

- S016 at a task's ``start_url``: the task starts from the home page instead (the episode used
  to open on "not found"); the task is re-certified like every task a repair touches. A page
  predicate naming no page, or a user with no account, has no safe fix: the task is dropped.
- C012: a seed row that breaks a marker's invariant ``NOT EXISTS (SELECT 1 FROM T WHERE cond)``
  gets the nearest value that keeps it: a column compared with a number (``stock < 0``) takes
  that bound, a column compared with another column of the row (``refunded > total``) takes that
  column's value; of a condition that ANDs parts (one user's rows: ``user_id = :user_id AND qty >
  10``), the first comparison with a number is kept false, else a flag is turned off. A condition
  of any other shape is left alone (the site is then dropped, as before, rather than guessed at).
"""

from __future__ import annotations

import re
from typing import Any

from veriweb.scaffold.site import render_instruction
from veriweb.verify import repair as R
from veriweb.verify.checks import Issue
from veriweb.verify.checks_tasks import ROW_INVARIANT

_COMPARISON = re.compile(r"^\s*\(?\s*\"?(\w+)\"?\s*(<=|>=|<|>)\s*(?:(-?\d+(?:\.\d+)?)|\"?([A-Za-z_]\w*)\"?)\s*\)?\s*$")


def restart_task(data: dict[str, Any], issue: Issue, ctx: R.Context) -> R.Outcome | None:
    """S016: a start address no page serves becomes ``/``; other S016 issues drop the task."""
    tokens = R.parse_path(issue.location)
    index = R._task_index(data, tokens)
    if index is None:
        return None
    task = data["tasks"][index]
    served = any(page.get("route") == "/" for page in data.get("pages", []))
    if tokens[-1] == "start_url" and served and task.get("start_url") != "/":
        old, task["start_url"] = task.get("start_url"), "/"
        return f"task {task['id']!r} starts at / instead of {old!r}, which no page serves", R.Touch(tasks={task["id"]})
    return R._drop_task(data, index, ctx, issue.message)


def _fixes(condition: str) -> list[tuple[str, str, Any]]:
    """(column, operator, bound) for each comparison the condition ORs together, or [] when any
    part has another shape. ``bound`` is a number, or ``("column", name)``. A condition that ANDs
    parts (``user_id = :user_id AND qty > 10``) is kept once one of its comparisons is: the first
    that compares a column with a number (``qty > 10``), else a flag (``vacation = 1``)."""
    parts = re.split(r"\s+OR\s+", condition.strip(), flags=re.I)
    if len(parts) == 1 and re.search(r"\s+AND\s+", parts[0], flags=re.I):
        conjuncts = re.split(r"\s+AND\s+", parts[0].strip(), flags=re.I)
        for conjunct in conjuncts:
            match = _COMPARISON.match(conjunct)
            if match is not None and match.group(3) is not None:
                return [(match.group(1), match.group(2), float(match.group(3)))]
        for conjunct in conjuncts:
            flag = _FLAG.match(conjunct)
            if flag is not None:  # keeping a flag off keeps the whole condition false
                return [(flag.group(1), "flag", float(flag.group(2)))]
        return []
    out = []
    for part in parts:
        match = _COMPARISON.match(part)
        if match is None:
            return []
        column, op, number, other = match.groups()
        out.append((column, op, float(number) if number is not None else ("column", other)))
    return out


_FLAG = re.compile(r"^\s*\(?\s*\"?(\w+)\"?\s*=\s*([01])\s*\)?\s*$")


def keep_invariant(data: dict[str, Any], issue: Issue, ctx: R.Context) -> R.Outcome | None:
    """C012: move a seed row's values back inside the invariant it breaks (see the module doc)."""
    tokens = R.parse_path(issue.location)
    found = R._table_row(data, tokens)
    if found is None:
        return None
    table, row = found
    for marker in data.get("markers", []):
        for check in marker.get("invariants", []):
            predicate = check.get("predicate", {})
            match = ROW_INVARIANT.match(predicate.get("sql", "")) if predicate.get("kind") == "sql" else None
            if match is None or match.group(1) != table.get("name"):
                continue
            fixes = _fixes(match.group(2))
            changed = []
            for column, op, bound in fixes:
                value = row.get(column)
                if op == "flag":
                    if value in (0, 1) and float(value) == bound:  # True == 1: a boolean counts
                        row[column] = (not value) if isinstance(value, bool) else 1 - int(value)
                        changed.append(f"{column} {value!r} -> {row[column]!r}")
                    continue
                if not isinstance(value, (int, float)) or isinstance(value, bool):
                    continue
                target = row.get(bound[1]) if isinstance(bound, tuple) else bound
                if not isinstance(target, (int, float)) or isinstance(target, bool):
                    continue
                broken = {"<": value < target, "<=": value <= target, ">": value > target, ">=": value >= target}[op]
                if not broken or op in ("<=", ">="):  # a strict bound is kept by the bound itself
                    continue
                new = int(target) if isinstance(value, int) and float(target).is_integer() else target
                row[column] = new
                changed.append(f"{column} {value!r} -> {new!r}")
            if changed:
                return (f"{table['name']} row {row.get(table.get('primary_key', 'id'))!r}: {', '.join(changed)} "
                        f"(marker {marker['name']!r} keeps {match.group(2).strip()!r} false)",
                        R.Touch(tables={table["name"]}))
    return None


def restate_slot(data: dict[str, Any], issue: Issue, ctx: R.Context) -> R.Outcome | None:
    """M016: the instruction states the day the goal reads (the stated slot takes the goal's value and
    the instruction is rendered again), or the slot goes back where the template wrote another
    record's name; any other M016 drops its task."""
    tokens = R.parse_path(issue.location)
    named = re.search(r"writes out (?:\w+ \w+ )?(['\"])(.*?)\1 where its slot (\w+)", issue.message)
    if named is not None and tokens[-1:] == ["template"]:  # the slot back where the other record's name is
        task = R.get_at(data, tokens[:-1])
        name, written = named.group(3), named.group(2)
        at = task["template"].lower().find(written.lower())
        if at < 0:
            return None
        task["template"] = task["template"][:at] + "{" + name + "}" + task["template"][at + len(written):]
        task["instruction"] = render_instruction(task["template"], task["slots"])
        return f"task {task['id']!r}: {written!r} in the template -> {{{name}}}", R.Touch(tasks={task["id"]})
    found = re.search(r"but its goal reads (\w+) = '([^']*)', a day the instruction never states", issue.message)
    if found is None or tokens[-2:-1] != ["slots"]:
        return R.drop_task(data, issue, ctx)
    from veriweb.verify.checks_tasks import written_like

    task = R.get_at(data, tokens[:2])
    old = task["slots"][tokens[-1]]
    today = _today(data)
    task["slots"][tokens[-1]] = written_like(found.group(2), str(old), today)
    task["instruction"] = render_instruction(task["template"], task["slots"])
    return (f"task {task['id']!r}: {tokens[-1]} {old!r} -> {task['slots'][tokens[-1]]!r} (the day its goal reads)",
            R.Touch(tasks={task["id"]}))


def _today(data: dict[str, Any]) -> Any:
    """The site's virtual today (a date; the default clock's when its data names none)."""
    from veriweb.scaffold.site import Clock

    return Clock.model_validate(data.get("clock") or {}).today


restate_slot.gives_up = True  # type: ignore[attr-defined]  # else it drops a task: after the other fixes

OPERATORS: dict[str, R.Operator] = {"S016": restart_task, "M016": restate_slot, "C012": keep_invariant}
"""The operators of this module, by code."""

__all__ = ["OPERATORS", "keep_invariant", "restart_task", "restate_slot"]

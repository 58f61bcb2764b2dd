"""Checks of what data, guards and tasks mean: guards that never block, goals a constraint forbids
in meaning, seed dates on the wrong side of today, answers picked from a tie, budgets below the
price of what must be bought, rules the seed rows keep, link rows added twice (C004, C005, C007,
C009, C010, C011, M012).

- C009: a marker's precondition or invariant that can never fail: it compares a counter that is
  never negative with a negative bound (``stock >= -100``), compares constants, reads nothing,
  or lets a date parameter through as long as it is after some day long before today.
- C007 (in meaning): the goal pins a record's values (``status = 'shipped'``) and a constraint
  fails the task whenever the record has them (``status != 'pending'``), or whenever no record
  keeps the old value; :mod:`veriweb.verify.intent` finds the identical-predicate case.
- C010: one seed row's date lies on the other side of the site's today from every other row of
  its column, or of its status (one upcoming booking dated last year).
- C011: a task that must buy a named item (a slot naming a record with a price) under a budget
  (a constraint on a money column, or a goal's ``total <= :budget``) lower than that price.
- C007 (by page): a constraint forbids the one page whose forms can write what the goal needs.
- M012: a retrieve task whose answer is the first row of an ordering (the cheapest, the newest)
  where the first two rows tie on the ordering but have different answers.
- Rules read off a table's seed rows, reported for the one or two rows that break them
  (:func:`check_row_rules`): dates in order (C010), a date a status implies (C010), a count of
  days between two dates (C004).
- C012: a seed value outside the range every marker writing its column keeps (a rating of 8 where
  reviews are written with 1 to 5) (:func:`check_seed_ranges`).
- C004: a text that writes two others of its row joined (a path from namespace and name) but for one row.
- C012: a row whose two columns of one kind hold the same value (a flight to its own origin) where every
  other row keeps them apart (:func:`check_self_pairs`).
- M004: a seed text with spaces around it where no other row of its column has any.
- C003: a table of consecutive months or days that skips one (:func:`check_missing_periods`).
- C005: a link row a marker can add twice where no seed row repeats the pair
  (:func:`check_duplicate_inserts`); C009 also for a zero floor on a counter the marker only raises.

Pure functions of the scaffold, silent on clean generated sites.
"""

from __future__ import annotations

import datetime as dt
import difflib
import itertools
import json
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from typing import Any

from veriweb.scaffold import Site
from veriweb.scaffold.values import AllOf, Compare, Exists, Not, PageIs, QueryValue, Ref, SqlPredicate
from veriweb.verify import checks as C
from veriweb.verify import dataflow
from veriweb.verify.intent import _DECREMENT, _canonical, _required

_NEGATIVE_BOUND = re.compile(r"(?<![\w.:])((?:\w+\.)?\w+)\s*(>=|>|<=|<)\s*(-\s*\d+(?:\.\d+)?)")
_NEGATIVE_BOUND_LEFT = re.compile(r"(-\s*\d+(?:\.\d+)?)\s*(>=|>|<=|<)\s*((?:\w+\.)?\w+)(?![\w(])")
_DATE_GUARD = re.compile(r":(\w+)\s*(>=|>)\s*(?:'(\d{4}-\d{2}-\d{2})'|:(\w+))")


# ----------------------------------------------------------------------------- C009


def _nonnegative_columns(site: Site, tables: set[str]) -> set[str]:
    """Numeric columns of ``tables`` whose seed values are all zero or more (counters, amounts)."""
    out: set[str] = set()
    for name in tables:
        out |= _nonnegative_in(site, name)
    return out


@C.per_run
def _nonnegative_in(site: Site, name: str) -> frozenset[str]:
    """:func:`_nonnegative_columns` of one table (made once per check run: every guard asks)."""
    out = set()
    table = site.database.table(name)
    if table is None or not table.rows:
        return frozenset()
    for column in table.columns:
        if column.type not in ("integer", "money", "real"):
            continue
        values = [r.get(column.name) for r in table.rows if r.get(column.name) is not None]
        if values and all(isinstance(v, (int, float)) and v >= 0 for v in values):
            out.add(column.name)
    return frozenset(out)


def _guards(site: Site) -> Iterator[tuple[int, Any, str, Any]]:
    for m_index, marker in enumerate(site.markers):
        for kind in ("preconditions", "invariants"):
            for index, check in enumerate(getattr(marker, kind)):
                yield m_index, marker, f"$.markers[{m_index}].{kind}[{index}].predicate", check.predicate


def _vacuous_sql(site: Site, marker: Any, predicate: SqlPredicate) -> str | None:
    sql = predicate.sql
    tables = dataflow.sql_tables(sql)
    counters = _nonnegative_columns(site, tables)
    for match in _NEGATIVE_BOUND.finditer(sql):
        column = match.group(1).split(".")[-1]
        if column in counters:
            return (f"it bounds {column} by {match.group(3).replace(' ', '')}, but {column} is never negative: "
                    f"the bound never blocks and lets it go below zero")
    for match in _NEGATIVE_BOUND_LEFT.finditer(sql):
        column = match.group(3).split(".")[-1]
        if column in counters:
            return (f"it bounds {column} by {match.group(1).replace(' ', '')}, but {column} is never negative: "
                    f"the bound never blocks and lets it go below zero")
    raised = _raised_only(marker)
    for match in _ZERO_BOUND.finditer(sql):
        column = match.group(1).split(".")[-1]
        if column in raised:
            return (f"it only keeps {column} from going below zero, but {marker.name} only raises {column}: "
                    f"the bound never blocks, and nothing bounds {column} from above")
    if not tables and ":" not in sql and not predicate.params:
        return "it reads no table and no parameter, so its answer never changes"
    dates = {p.name for p in marker.params if p.type in ("date", "datetime")}
    today = site.clock.today.isoformat()
    for match in _DATE_GUARD.finditer(sql):
        name, literal, other = match.group(1), match.group(3), match.group(4)
        bound = predicate.params.get(name)
        param = bound.name if isinstance(bound, Ref) and bound.namespace == "param" else name
        if param not in dates:
            continue
        if other is not None:
            value = predicate.params.get(other)
            literal = value if isinstance(value, str) else None
        if literal is not None and re.fullmatch(r"\d{4}-\d{2}-\d{2}", literal) and literal < today:
            return (f"it only asks that {param} be after {literal}, long before today ({today}): "
                    f"a date in the past passes")
    return None


_ZERO_BOUND = re.compile(r"(?<![\w.:])((?:\w+\.)?\w+)\s*(?:<\s*0|>=\s*0)(?![\d.])")
_RAISE = re.compile(r"\b(\w+)\s*=\s*(?:\w+\.)?\1\s*\+\s*(?::(\w+)|(\d+(?:\.\d+)?))")


def _raised_only(marker: Any) -> set[str]:
    """Columns every write of the marker raises (``refunded = refunded + :amount`` with an amount of at
    least zero) and none lowers or sets outright."""
    params = {p.name: p for p in marker.params}
    raised: set[str] = set()
    other: set[str] = set()
    for effect in marker.effects:
        if effect.op != "update":
            continue
        for match in _RAISE.finditer(effect.sql):
            param = params.get(match.group(2)) if match.group(2) else None
            if match.group(3) is not None or (param is not None and param.min is not None and param.min >= 0):
                raised.add(match.group(1))
            else:
                other.add(match.group(1))
        other |= set(_DECREMENT.findall(effect.sql))
    return raised - other


def _vacuous_compare(predicate: Any) -> bool:
    if not isinstance(predicate, Compare):
        return False
    literal = (str, int, float, bool)
    return isinstance(predicate.left, literal) and isinstance(predicate.right, literal)


def check_vacuous_guards(site: Site) -> list[C.Issue]:
    """C009: a guard (precondition or invariant) that is there but can never block."""
    issues = []
    for _, marker, path, predicate in _guards(site):
        reason = None
        if isinstance(predicate, SqlPredicate):
            reason = _vacuous_sql(site, marker, predicate)
        elif _vacuous_compare(predicate):
            reason = "it compares two fixed values, so its answer never changes"
        elif isinstance(predicate, (Exists,)):
            counters = _nonnegative_columns(site, {predicate.query.table})
            for cond in predicate.query.where:
                if (cond.column in counters and cond.op in ("<", "<=", ">", ">=")
                        and isinstance(cond.value, (int, float)) and not isinstance(cond.value, bool) and cond.value < 0):
                    reason = (f"it bounds {cond.column} by {cond.value}, but {cond.column} is never negative: "
                              f"the bound never blocks and lets it go below zero")
        if reason:
            issues.append(C.Issue("consistency", C.VACUOUS_GUARD, path,
                                  f"a check of marker {marker.name!r} can never block: {reason}"))
    return issues


# ----------------------------------------------------------------------------- C007 in meaning


def _key(value: Any) -> str:
    return json.dumps(value.model_dump(mode="json") if hasattr(value, "model_dump") else value, sort_keys=True)


def _literal(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _holds(left: Any, op: str, right: Any) -> bool | None:
    """``left op right`` for literals; ``None`` when it cannot be decided."""
    try:
        if op == "=":
            return left == right
        if op == "!=":
            return left != right
        if op in ("in", "not_in") and isinstance(right, list):
            return (left in right) == (op == "in")
        if op == "is_null":
            return left is None
        if op == "not_null":
            return left is not None
        if left is None or right is None:
            return None
        if op == "<":
            return left < right
        if op == "<=":
            return left <= right
        if op == ">":
            return left > right
        if op == ">=":
            return left >= right
        if op == "contains":
            return str(right).casefold() in str(left).casefold()
        if op == "startswith":
            return str(left).casefold().startswith(str(right).casefold())
    except TypeError:
        return None
    return None


def goal_rows(task: Any) -> list[tuple[str, dict[str, Any]]]:
    """The records a task's goal requires, as ``(table, {column: value})`` with every value pinned
    by ``=`` (a literal, a reference or a scalar query)."""
    out = []
    predicates = list(task.goal)
    for predicate in list(predicates):
        if isinstance(predicate, AllOf):
            predicates.extend(predicate.items)
    for predicate in predicates:
        if isinstance(predicate, Exists) and not predicate.negate and predicate.query.where:
            if all(c.op == "=" and not c.skip_if_empty for c in predicate.query.where):
                out.append((predicate.query.table, {c.column: c.value for c in predicate.query.where}))
        elif isinstance(predicate, Compare) and predicate.op == "=":
            for side, other in ((predicate.left, predicate.right), (predicate.right, predicate.left)):
                if isinstance(side, QueryValue) and _literal(other):
                    query = side.query
                    if query.agg is None and query.where and all(c.op == "=" for c in query.where):
                        pinned = {c.column: c.value for c in query.where}
                        pinned[query.select] = other
                        out.append((query.table, pinned))
    return out


def _unique_columns(site: Site, table_name: str) -> set[str]:
    table = site.database.table(table_name)
    if table is None:
        return set()
    return {table.primary_key} | {c.name for c in table.columns if c.unique}


def _implied(conds: list[Any], pinned: dict[str, Any]) -> bool:
    """Every condition holds on a record with the ``pinned`` values."""
    if not conds:
        return False
    for cond in conds:
        if cond.column not in pinned:
            return False
        value = pinned[cond.column]
        if cond.op == "=" and _key(cond.value) == _key(value):
            continue
        if not (_literal(value) and (_literal(cond.value) or isinstance(cond.value, list))):
            return False
        if _holds(value, cond.op, cond.value) is not True:
            return False
    return True


def _same_record(site: Site, table: str, conds: list[Any], pinned: dict[str, Any]) -> bool:
    """The conditions name, by a unique column, the record the goal pins."""
    unique = _unique_columns(site, table)
    return any(c.op == "=" and c.column in unique and c.column in pinned and _key(c.value) == _key(pinned[c.column])
               for c in conds)


def _contradicted(conds: list[Any], pinned: dict[str, Any]) -> bool:
    """Some condition fails on a record with the ``pinned`` values."""
    for cond in conds:
        value = pinned.get(cond.column, ...)
        if value is ... or not _literal(value) or not (_literal(cond.value) or isinstance(cond.value, list)):
            continue
        if _holds(value, cond.op, cond.value) is False:
            return True
    return False


def _forbids(site: Site, predicate: Any, rows: list[tuple[str, dict[str, Any]]]) -> bool:
    """Whether ``predicate`` (a constraint) holds on every state where the goal's records exist."""
    for table, pinned in rows:
        if isinstance(predicate, Exists) and predicate.query.table == table:
            conds = predicate.query.where
            if not predicate.negate and _implied(conds, pinned):
                return True
            if predicate.negate and _same_record(site, table, conds, pinned) and _contradicted(conds, pinned):
                return True
        elif isinstance(predicate, Not) and isinstance(predicate.item, Exists) and not predicate.item.negate:
            query = predicate.item.query
            if query.table == table and _same_record(site, table, query.where, pinned) and \
                    _contradicted(query.where, pinned):
                return True
        elif isinstance(predicate, Compare):
            for side, other, op in ((predicate.left, predicate.right, predicate.op),
                                    (predicate.right, predicate.left, _flip(predicate.op))):
                if not (isinstance(side, QueryValue) and _literal(other)):
                    continue
                query = side.query
                if (query.table == table and query.agg is None and query.select in pinned
                        and _literal(pinned[query.select]) and all(c.op == "=" for c in query.where)
                        and _same_record(site, table, query.where, pinned) and _implied(query.where, pinned)
                        and _holds(pinned[query.select], op, other) is True):
                    return True
    return False


def _flip(op: str) -> str:
    return {"<": ">", ">": "<", "<=": ">=", ">=": "<="}.get(op, op)


def check_constraint_meaning(site: Site) -> list[C.Issue]:
    """C007 (in meaning): a constraint that holds whenever the records the goal requires exist."""
    issues = []
    for number, task in enumerate(site.tasks):
        if task.kind == "infeasible":
            continue
        rows = goal_rows(task)
        if not rows:
            continue
        required = _required(task)
        for index, constraint in enumerate(task.constraints):
            if _canonical(constraint.predicate) in required:
                continue  # the identical predicate: reported by intent.check_constraints
            if _forbids(site, constraint.predicate, rows):
                issues.append(C.Issue("consistency", C.CONSTRAINT_FORBIDS_GOAL, f"$.tasks[{number}].constraints[{index}]",
                                      f"task {task.id!r}: constraint {constraint.description!r} holds whenever the "
                                      f"goal's record has the values the goal asks for, so reaching the goal fails "
                                      f"the task"))
    return issues


def _form_pages(site: Site) -> dict[str, set[str | None]]:
    """For each marker, the pages with a form posting to it (``None``: the layout, every page)."""
    out: dict[str, set[str | None]] = defaultdict(set)
    for element, _, page_id in C.all_elements(site):
        if element.type == "form" and element.action.kind == "marker":
            out[element.action.marker].add(page_id)
    return out


def _may_make(marker: Any, effect: Any, query: Any) -> bool:
    """Whether ``effect`` could make a row match ``query``: an insert into its table, or an update
    of a column the query's conditions name (or of columns the SQL does not show)."""
    if effect.table != query.table or effect.op not in ("insert", "update"):
        return False
    if effect.op == "insert":
        return True
    write = dataflow.parse_effect(marker.name, effect.op, effect.table, effect.sql)
    return write.columns is None or bool(write.columns & {cond.column for cond in query.where})


def check_constraint_pages(site: Site) -> list[C.Issue]:
    """C007 (by page): a constraint forbids being on the page every form that could write the
    goal's records is on, so the goal can only be reached by failing the task."""
    forms = _form_pages(site)
    issues = []
    for number, task in enumerate(site.tasks):
        if task.kind == "infeasible":
            continue
        forbidden = {c.predicate.page: index for index, c in enumerate(task.constraints)
                     if isinstance(c.predicate, PageIs) and not c.predicate.params}
        if not forbidden:
            continue
        for goal in task.goal:
            if not isinstance(goal, Exists) or goal.negate:
                continue
            pages = {page for marker in site.markers for page in forms.get(marker.name, set())
                     if any(_may_make(marker, e, goal.query) for e in marker.effects)}
            if pages and None not in pages and pages <= set(forbidden):
                index = min(forbidden[p] for p in pages if p is not None)
                where = f"$.tasks[{number}].constraints[{index}]"
                issues.append(C.Issue("consistency", C.CONSTRAINT_FORBIDS_GOAL, where,
                                      f"task {task.id!r}: a constraint forbids page {sorted(pages)[0]!r}, the only "
                                      f"place with a form that can write the {goal.query.table} row its goal needs"))
                break
    return issues


# ----------------------------------------------------------------------------- C010


def _day(value: Any) -> str | None:
    if not isinstance(value, str) or len(value) < 10:
        return None
    try:
        dt.date.fromisoformat(value[:10])
    except ValueError:
        return None
    return value[:10]


_UPCOMING = re.compile(r"^(upcoming|scheduled|planned|future|booked ahead)$", re.I)


def _future_outliers(rows: list[tuple[int, str]], today: str, least: int) -> list[tuple[int, str]]:
    """The one row dated after today when at least ``least`` others are all dated today or before."""
    future = [(i, d) for i, d in rows if d > today]
    if len(future) == 1 and len(rows) - 1 >= least:
        return future
    return []


def check_seed_dates(site: Site) -> list[C.Issue]:
    """C010: seed dates on the wrong side of the site's today.

    Two cases only, both wrong whatever the data means: one row dated in the future in a column
    where every other row (at least ten) is dated today or earlier (a record created tomorrow);
    and a row whose status says it is still to come (``upcoming``, ``scheduled``) dated in the
    past in a column where the other rows of that status are all dated after today.
    """
    today = site.clock.today.isoformat()
    issues = []
    for t_index, table in enumerate(site.database.tables):
        dates = [c.name for c in table.columns if c.type in ("date", "datetime")]
        groups = [c.name for c in table.columns if c.type == "text"]
        for column in dates:
            days = [(i, d) for i, r in enumerate(table.rows) if (d := _day(r.get(column))) is not None]
            where = f"$.database.tables[{t_index}].rows"
            for r_index, day in _future_outliers(days, today, 10):
                issues.append(C.Issue("consistency", C.STALE_DATE, f"{where}[{r_index}].{column}",
                                      f"{table.name}.{column} of row {r_index} is {day}, after today ({today}), "
                                      f"while every other {table.name} row is dated today or before"))
            for group in groups:
                members = [(i, d) for i, d in days
                           if isinstance(table.rows[i].get(group), str) and _UPCOMING.match(table.rows[i][group])]
                past = [(i, d) for i, d in members if d < today]
                if len(past) == 1 and len(members) >= 3:
                    r_index, day = past[0]
                    issues.append(C.Issue("consistency", C.STALE_DATE, f"{where}[{r_index}].{column}",
                                          f"{table.name} row {r_index} is {table.rows[r_index][group]!r} but its "
                                          f"{column} is {day}, before today ({today}), unlike every other "
                                          f"{table.rows[r_index][group]!r} row"))
    return issues


def _outliers(held: list[int], broke: list[int], least: int = 5, share: int = 20) -> list[int]:
    """The rows that break a rule every other row keeps: one or two, against at least ``least``
    keeping it and at least ``share - 1`` of ``share`` rows in all."""
    if not broke or len(held) < least or len(broke) > 2 or len(broke) * share > len(held) + len(broke):
        return []
    return broke


def _status_dates(table: Any, where: str, group: str, statuses: list[str], column: str,
                  days: list[str | None]) -> list[C.Issue]:
    """C010 for the rows of a status whose date ``column`` is empty where every other row of that status
    fills it, or the reverse; only when the status decides the date throughout: some status always
    fills it, another never does, and no more than two rows in all go against their status."""
    rows = table.rows
    odd: list[tuple[int, str, str]] = []
    filling = emptying = False
    for status in statuses:
        members = [i for i, r in enumerate(rows) if r.get(group) == status]
        filled = [i for i in members if days[i]]
        empty = [i for i in members if rows[i].get(column) in (None, "")]
        if len(filled) + len(empty) != len(members):
            return []  # a value that is neither a date nor empty: not this rule's business
        fewer, more = (empty, filled) if len(filled) >= len(empty) else (filled, empty)
        if fewer and not _outliers(more, fewer, 4):
            return []  # this status does not decide the date
        filling |= more is filled and len(more) >= 4
        emptying |= more is empty and len(more) >= 4
        odd += [(i, status, "empty" if i in empty else "filled") for i in fewer]
    if not (filling and emptying) or len(odd) > 2:
        return []
    return [C.Issue("consistency", C.STALE_DATE, f"{where}[{r_index}].{column}",
                    f"{table.name} row {r_index} is {status!r} but its {column} is {state}, unlike every other "
                    f"{status!r} row") for r_index, status, state in odd]


_CLOCK = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)(?:\s*\(\+(\d)\))?$")


def _minutes(value: Any) -> int | None:
    """Minutes since the first midnight of a time of day ("13:50"; "00:10 (+1)" the next day)."""
    match = _CLOCK.match(value) if isinstance(value, str) else None
    if match is None:
        return None
    return int(match.group(3) or 0) * 1440 + int(match.group(1)) * 60 + int(match.group(2))


def _clock(minutes: int, marked: bool) -> str:
    """A time of day, with the days after the first as "(+1)" where the column marks them."""
    days, rest = divmod(minutes, 1440)
    return f"{rest // 60:02d}:{rest % 60:02d}" + (f" (+{days})" if days and marked else "")


def _minute_counts(table: Any, where: str, first: str, then: str) -> list[C.Issue]:
    """C004 for a whole-number column that is the minutes from the time of day ``first`` to ``then`` (past
    midnight if need be) in every row but one or two (a flight of 220 minutes departing 10:10 and arriving
    12:50). When another column of the row writes that number out ("3h 40m"), the two agree against the
    time, so the time is what is wrong; else the number is."""
    issues = []
    rows = table.rows
    for count in (c.name for c in table.columns if c.type == "integer" and c.name != table.primary_key):
        known = [(i, r[count], a, b) for i, r in enumerate(rows) if isinstance(r.get(count), int)
                 and not isinstance(r.get(count), bool) and (a := _minutes(r.get(first))) is not None
                 and (b := _minutes(r.get(then))) is not None]
        if len({n for _, n, _, _ in known}) < 3:
            continue
        gap = {i: (b - a) % 1440 for i, _, a, b in known}
        held = [i for i, n, _, _ in known if n == gap[i]]
        broke = [i for i, n, _, _ in known if n != gap[i]]
        for r_index in _outliers(held, broke):
            row, spot = rows[r_index], f"{where}[{r_index}]"
            value = row[count]
            writer = next((c.name for c in table.columns if c.type == "text" and isinstance(row.get(c.name), str)
                           and any(written_as(value, form) == row[c.name] for form, _ in _FORMATS)
                           and sum(any(written_as(r[count], form) == r.get(c.name) for form, _ in _FORMATS)
                                   for r in rows if isinstance(r.get(count), int)) >= len(rows) - 2), None)
            if writer is not None:
                marked = any("(+" in str(r.get(then)) for r in rows)
                at = _clock(_minutes(row[first]) + value, marked)  # type: ignore[operator]
                issues.append(C.Issue("consistency", C.TOTAL_MISMATCH, f"{spot}.{then}",
                                      f"{table.name} row {r_index}: {then} {row[then]} is not {count} {value} minutes "
                                      f"after {first} {row[first]}, as in every other row, and {writer} "
                                      f"{row[writer]!r} agrees with {count}: {then} should be {at}"))
            else:
                issues.append(C.Issue("consistency", C.TOTAL_MISMATCH, f"{spot}.{count}",
                                      f"{table.name} row {r_index}: {count} is {value}, but {first} to {then} is "
                                      f"{gap[r_index]} minutes, as {count} is in every other row"))
    return issues


def check_row_rules(site: Site) -> list[C.Issue]:
    """Rules the seed rows of a table keep but for one or two, read off the rows themselves:

    - C010, dates in order: a column dated no earlier than another in every other row (an issue
      closed before it was opened, a stay that ends before it begins);
    - C010, a date a status implies: a date column every other row of a status fills (or every
      other row of it leaves empty), empty (or filled) in one (a merged request with no merge date);
    - C004, a count of days: a whole-number column that is the days between two date columns in
      every other row (a stay's nights against its check-in and check-out);
    - C004, a count of minutes: the same between two times of day (a flight's duration against its
      departure and arrival).
    """
    issues = []
    for t_index, table in enumerate(site.database.tables):
        where = f"$.database.tables[{t_index}].rows"
        dates = [c.name for c in table.columns if c.type in ("date", "datetime")]
        days = {c: [_day(r.get(c)) for r in table.rows] for c in dates}
        for first, then in itertools.permutations(dates, 2):
            issues += _dates_in_order(table, where, first, then, days)
            issues += _day_counts(table, where, first, then, days)
        clocks = [c.name for c in table.columns if c.type == "text"
                  and sum(_minutes(r.get(c.name)) is not None for r in table.rows) >= max(5, len(table.rows) - 2)]
        for first, then in itertools.permutations(clocks, 2):
            issues += _minute_counts(table, where, first, then)
        for group in (c.name for c in table.columns if c.type == "text"):
            values = Counter(r.get(group) for r in table.rows if isinstance(r.get(group), str))
            if not 2 <= len(values) <= 8:
                continue  # not a status
            for column in dates:
                issues += _status_dates(table, where, group, list(values), column, days[column])
    return issues


def _dates_in_order(table: Any, where: str, first: str, then: str,
                    days: dict[str, list[str | None]]) -> list[C.Issue]:
    """C010 for the rows whose ``then`` is before their ``first`` where every other row's is not."""
    pairs = [(i, a, b) for i, (a, b) in enumerate(zip(days[first], days[then])) if a and b]
    if len({a for _, a, _ in pairs}) < 3:
        return []  # one or two dates in the whole column: no order to learn
    held = [i for i, a, b in pairs if a <= b]
    broke = [i for i, a, b in pairs if a > b]
    return [C.Issue("consistency", C.STALE_DATE, f"{where}[{r_index}].{then}",
                    f"{table.name} row {r_index}: {then} {days[then][r_index]} is before {first} "
                    f"{days[first][r_index]}, unlike every other row") for r_index in _outliers(held, broke)]


def _day_counts(table: Any, where: str, first: str, then: str, days: dict[str, list[str | None]]) -> list[C.Issue]:
    """C004 for a whole-number column that is the days from ``first`` to ``then`` in every row but one
    or two."""
    issues = []
    for count in (c.name for c in table.columns if c.type == "integer" and c.name != table.primary_key):
        known = [(i, r.get(count), days[first][i], days[then][i]) for i, r in enumerate(table.rows)
                 if isinstance(r.get(count), int) and days[first][i] and days[then][i]]
        if len({n for _, n, _, _ in known}) < 3:
            continue  # a constant is no count of days
        gap = {i: (dt.date.fromisoformat(b) - dt.date.fromisoformat(a)).days for i, _, a, b in known}
        held = [i for i, n, _, _ in known if n == gap[i]]
        broke = [i for i, n, _, _ in known if n != gap[i]]
        issues += [C.Issue("consistency", C.TOTAL_MISMATCH, f"{where}[{r_index}].{count}",
                           f"{table.name} row {r_index}: {count} is {table.rows[r_index][count]}, but {first} to "
                           f"{then} is {gap[r_index]} days, as {count} is in every other row")
                   for r_index in _outliers(held, broke)]
    return issues


def check_duplicate_inserts(site: Site) -> list[C.Issue]:
    """C005: a marker that adds a row linking two records the user picks and nothing else (a tag on an
    issue, a star on a project) where the seed rows never pair them twice, and nothing stops a second one: no
    guard of the marker reads the table, the insert neither ignores nor checks an existing pair, and
    no key declares the pair unique. Adding the same tag twice is then one click away."""
    issues = []
    for m_index, marker in enumerate(site.markers):
        guards = " ".join(json.dumps(g.predicate.model_dump(), default=str)
                          for g in (*marker.preconditions, *marker.invariants))
        for e_index, effect in enumerate(marker.effects):
            table = site.database.table(effect.table)
            if effect.op != "insert" or table is None or len(table.rows) < 5:
                continue
            if re.search(r"\bOR\s+(?:IGNORE|REPLACE)\b|\bON\s+CONFLICT\b|\bNOT\s+EXISTS\b|\bEXCEPT\b",
                         effect.sql, re.I) or re.search(rf"\b{re.escape(table.name)}\b", guards):
                continue
            write = dataflow.parse_effect(marker.name, effect.op, effect.table, effect.sql)
            picked = sorted(fk.column for fk in table.foreign_keys
                            if write.sources.get(fk.column) is not None and write.sources[fk.column].kind == "param")
            if len(picked) < 2 or set(picked) <= {c.name for c in table.columns if c.unique}:
                continue
            if any(c.name not in picked and c.name != table.primary_key and c.type not in ("date", "datetime")
                   for c in table.columns):
                continue  # a row that says more than the pair (a refund's amount): an event, not a link
            pairs = Counter(tuple(r.get(c) for c in picked) for r in table.rows)
            if max(pairs.values()) > 1:
                continue  # the seed data pairs them twice: a second pair is allowed
            issues.append(C.Issue("consistency", C.UNGUARDED_WRITE, f"$.markers[{m_index}].effects[{e_index}]",
                                  f"marker {marker.name!r} can add a second {table.name} row for the same "
                                  f"{' and '.join(picked)}, which no seed row repeats, and nothing stops it"))
    return issues


# ----------------------------------------------------------------------------- M012


def _resolve(value: Any, task: Any, site: Site) -> tuple[bool, Any]:
    if isinstance(value, Ref):
        if value.namespace == "slot" and value.name in task.slots:
            return True, task.slots[value.name]
        if value.ref == "clock.today":
            return True, site.clock.today.isoformat()
        return False, None
    if isinstance(value, QueryValue):
        return False, None
    return True, value


def ordered_rows(site: Site, query: Any, task: Any) -> list[dict[str, Any]] | None:
    """The seed rows a query over a table returns, in its order (``None`` if it cannot tell)."""
    table = site.database.table(query.table)
    if table is None:
        return None
    rows = list(table.rows)
    for cond in query.where:
        known, value = _resolve(cond.value, task, site)
        if not known:
            return None
        if cond.skip_if_empty and value in (None, ""):
            continue
        kept = []
        for row in rows:
            holds = _holds(row.get(cond.column), cond.op, value)
            if holds is None and cond.op not in ("<", "<=", ">", ">="):
                return None
            if holds:
                kept.append(row)
        rows = kept
    for order in reversed(query.order_by):
        present = [r for r in rows if r.get(order.column) is not None]
        if len(present) != len(rows):
            return None
        try:
            rows = sorted(rows, key=lambda r: r[order.column], reverse=order.dir == "desc")
        except TypeError:
            return None
    return rows


def check_tied_answers(site: Site) -> list[C.Issue]:
    """M012: a task reads the first row of an ordering, but the first two rows tie on every sort key
    and give different answers: which one is "the" answer depends on storage order. A trailing sort
    by the table's key does not count: it breaks the tie, but the instruction cannot say so."""
    issues = []
    for number, task in enumerate(site.tasks):
        if task.kind == "infeasible":
            continue
        for value, path in _ordered_lookups(task, f"$.tasks[{number}]"):
            issue = _tie(site, task, value.query, path)
            if issue is not None:
                issues.append(issue)
    return issues


def _ordered_lookups(task: Any, base: str) -> Iterator[tuple[QueryValue, str]]:
    """The scalar queries a task's answer and goal read that pick the first row of an ordering."""
    found: list[tuple[Any, str]] = []
    if task.answer is not None:
        found.append((task.answer.value, f"{base}.answer.value"))
    for index, predicate in enumerate(task.goal):
        if isinstance(predicate, Compare):
            found += [(predicate.left, f"{base}.goal[{index}].left"), (predicate.right, f"{base}.goal[{index}].right")]
        elif isinstance(predicate, PageIs):
            found += [(v, f"{base}.goal[{index}].params.{k}") for k, v in predicate.params.items()]
    for value, path in found:
        if isinstance(value, QueryValue) and value.query.agg is None and value.query.order_by:
            yield value, path


def _tie(site: Site, task: Any, query: Any, path: str) -> C.Issue | None:
    """M012 for one ordered lookup: an issue when its first two rows tie with different answers."""
    rows = ordered_rows(site, query, task)
    if rows is None or len(rows) < 2:
        return None
    first, second = rows[0], rows[1]
    table = site.database.table(query.table)
    meaningful = list(query.order_by)
    while len(meaningful) > 1 and table is not None and meaningful[-1].column == table.primary_key:
        meaningful.pop()  # a trailing key only breaks ties by storage order: the words do not say it
    if all(first.get(o.column) == second.get(o.column) for o in meaningful) and \
            first.get(query.select) != second.get(query.select):
        keys = ", ".join(o.column for o in meaningful)
        return C.Issue("semantic", C.TIED_ANSWER, path,
                       f"task {task.id!r}: the first two {query.table} by {keys} tie "
                       f"({first.get(meaningful[0].column)!r}) but have different {query.select} "
                       f"({first.get(query.select)!r}, {second.get(query.select)!r}); the task names no single one")
    return None


# ----------------------------------------------------------------------------- C011

_BUDGET_SQL = re.compile(r"(\w+)\s*<=?\s*:(\w+)")


def budgets(site: Site, task: Any, base: str) -> Iterator[tuple[int, str]]:
    """The spending limits a task sets, in cents, with their paths: a constraint that fails the
    task when a money column exceeds a fixed amount, or a goal that keeps one at or under it."""
    for index, constraint in enumerate(task.constraints):
        predicate = constraint.predicate
        if isinstance(predicate, Exists) and not predicate.negate:
            table = site.database.table(predicate.query.table)
            for cond in predicate.query.where:
                column = table.column(cond.column) if table is not None else None
                if column is not None and column.type == "money" and cond.op in (">", ">=") and \
                        isinstance(cond.value, int) and not isinstance(cond.value, bool):
                    yield cond.value, f"{base}.constraints[{index}]"
    for index, predicate in enumerate(task.goal):
        if isinstance(predicate, SqlPredicate):
            for column, name in _BUDGET_SQL.findall(predicate.sql):
                value = predicate.params.get(name)
                if column in ("total", "amount", "cost", "price") and isinstance(value, int) and \
                        not isinstance(value, bool):
                    yield value, f"{base}.goal[{index}]"


def named_prices(site: Site, task: Any) -> Iterator[tuple[str, str, int]]:
    """For each slot that names a record with a price (a text column equal to the slot, in a table
    with a ``price`` money column): the slot, the table, and the lowest price of such records."""
    for slot, value in task.slots.items():
        if not isinstance(value, str) or not value.strip():
            continue
        for table in site.database.tables:
            price = table.column("price")
            if price is None or price.type != "money":
                continue
            texts = [c.name for c in table.columns if c.type == "text"]
            prices = [r["price"] for r in table.rows if isinstance(r.get("price"), int)
                      and any(r.get(c) == value for c in texts)]
            if prices:
                yield slot, table.name, min(prices)


def check_budgets(site: Site) -> list[C.Issue]:
    """C011: a task must buy (or book) a named item but its budget is below the item's lowest price."""
    issues = []
    for number, task in enumerate(site.tasks):
        if task.kind != "mutate":
            continue
        limits = list(budgets(site, task, f"$.tasks[{number}]"))
        if not limits:
            continue
        for slot, table, cheapest in named_prices(site, task):
            for limit, path in limits:
                if cheapest > limit:
                    issues.append(C.Issue("consistency", C.BUDGET_TOO_LOW, path,
                                          f"task {task.id!r}: the budget ${limit / 100:,.2f} is below the lowest price "
                                          f"of {task.slots[slot]!r} in {table} (${cheapest / 100:,.2f}); no purchase "
                                          f"can keep to it"))
                    break
    return issues


_FORMATS = (
    ("{h}h {m:02d}m", lambda v: {"h": v // 60, "m": v % 60}),
    ("{h}h {m}m", lambda v: {"h": v // 60, "m": v % 60}),
    ("{v} min", lambda v: {"v": v}),
    ("${d}.{c:02d}", lambda v: {"d": v // 100, "c": v % 100}),
)
"""Ways a text column may write a number of another column: minutes as hours and minutes, cents as dollars."""


def written_as(value: int, form: str) -> str:
    """``value`` written in the form ``form`` (one of :data:`_FORMATS`)."""
    return form.format(**dict(_FORMATS)[form](value))


def check_written_numbers(site: Site) -> list[C.Issue]:
    """C004: a text column that writes a number column of its own row in one form (a flight's length
    "5h 15m" for a duration of 315 minutes), where one or two rows write another number than their
    own (a length of "4h 15m" beside 315 minutes): a derived value that disagrees with its source."""
    issues = []
    for t_index, table in enumerate(site.database.tables):
        numbers = [c.name for c in table.columns if c.type in ("integer", "money") and c.name != table.primary_key]
        texts = [c.name for c in table.columns if c.type == "text"]
        rows = table.rows
        if len(rows) < 5:
            continue
        for text in texts:
            for number in numbers:
                pairs = [(n, r[number], r[text]) for n, r in enumerate(rows)
                         if isinstance(r.get(number), int) and isinstance(r.get(text), str)]
                if len(pairs) < 5:
                    continue
                # Every form writes a digit: with fewer digit-bearing texts than a fit needs, none fits.
                if sum(any(ch.isdigit() for ch in t) for _, _, t in pairs) < len(pairs) - max(2, len(pairs) // 20):
                    continue
                allowed = max(2, len(pairs) // 20)
                fits = {}
                for form, _ in _FORMATS:  # a form stops being tried once it misses more rows than allowed
                    off: set[int] = set()
                    for n, v, t in pairs:
                        if written_as(v, form) != t:
                            off.add(n)
                            if len(off) > allowed:
                                break
                    else:
                        fits[form] = off
                if not fits:
                    continue
                best = min(fits, key=lambda form: (len(fits[form]), form))
                wrong = set.intersection(*fits.values())  # a row that one fitting form writes is right
                example = next((v, t) for n, v, t in pairs if n not in wrong)
                for n, v, t in pairs:
                    if n in wrong:
                        issues.append(C.Issue("consistency", C.TOTAL_MISMATCH,
                                              f"$.database.tables[{t_index}].rows[{n}].{text}",
                                              f"{table.name} {rows[n].get(table.primary_key)}: {text} {t!r} disagrees "
                                              f"with its {number} {v}, which the other rows write out ({example[0]} "
                                              f"as {example[1]!r}) ({text} should read {written_as(v, best)!r})"))
    return issues


def child_sums(site: Site) -> Iterator[tuple[int, Any, list[str], Any, Any, str, dict[Any, float], set[Any]]]:
    """For each table of at least eight rows (its index, the table and its number columns), each table
    whose rows point at it and each number column of those rows: the column's sum per key pointed at, and
    the keys with a row whose value there is no number."""
    numeric = ("integer", "money", "real")
    for p_index, parent in enumerate(site.database.tables):
        if len(parent.rows) < 8:
            continue
        figures = [c.name for c in parent.columns if c.type in numeric and c.name != parent.primary_key]
        for child in site.database.tables:
            for fk in (f for f in child.foreign_keys if f.ref_table == parent.name and child is not parent):
                keys = {f.column for f in child.foreign_keys}
                for part in (c.name for c in child.columns if c.type in numeric and c.name not in keys):
                    sums: dict[Any, float] = defaultdict(int)
                    unread = set()  # parents with a line whose figure is no number (a defect of its own)
                    for row in child.rows:
                        if isinstance(row.get(part), (int, float)) and not isinstance(row.get(part), bool):
                            sums[row.get(fk.column)] += row[part]
                        elif row.get(part) is not None:
                            unread.add(row.get(fk.column))
                    yield p_index, parent, figures, child, fk, part, sums, unread


def check_child_sums(site: Site) -> list[C.Issue]:
    """C004: a seed row whose figure is not the sum of one column over the rows that point at it, where
    every other row's is (an order that says 40000 refunded while its refund rows add up to 40598).
    The rule counts only when it holds in all but one row in fifty of at least eight, over at least five
    rows with lines and three sums; the repair writes the sum."""
    issues = []
    for p_index, parent, figures, child, fk, part, sums, unread in child_sums(site):
        if len({v for v in sums.values() if v}) < 3:
            continue
        owed = [sums.get(r.get(fk.ref_column), 0) for r in parent.rows]
        for figure in figures:
            held = [n for n, r in enumerate(parent.rows) if isinstance(r.get(figure), (int, float))]
            off = [n for n in held if parent.rows[n][figure] != owed[n]]
            if not off or len(off) > max(1, len(held) // 50):
                continue
            kept = set(held) - set(off)
            if sum(1 for n in kept if owed[n]) < 5 or len({owed[n] for n in kept} - {0}) < 3:
                continue
            for n in off:
                row = parent.rows[n]
                if row.get(fk.ref_column) not in sums or row.get(fk.ref_column) in unread:
                    continue  # no line left to sum (one may point elsewhere), or one unreadable
                issues.append(C.Issue("consistency", C.TOTAL_MISMATCH,
                                      f"$.database.tables[{p_index}].rows[{n}].{figure}",
                                      f"{parent.name} {row.get(parent.primary_key)}: {figure} {row[figure]} "
                                      f"is not the sum of {child.name}.{part} over its rows, as in every "
                                      f"other {parent.name} row: it should be {owed[n]}"))
    return issues


_QUANTITIES = frozenset({"qty", "quantity", "quantities", "units", "count"})


def check_empty_lines(site: Site) -> list[C.Issue]:
    """C012: a line of a quantity of nothing (0 x Mixing Bowl) where every other line holds at least one,
    in a table no other table points at: shown as something bought. The repair removes the row."""
    referenced = {fk.ref_table for t in site.database.tables for fk in t.foreign_keys}
    issues = []
    for t_index, table in enumerate(site.database.tables):
        if table.name in referenced:
            continue
        for column in (c.name for c in table.columns if c.type == "integer" and c.name in _QUANTITIES):
            values = [(n, r.get(column)) for n, r in enumerate(table.rows)
                      if isinstance(r.get(column), int) and not isinstance(r.get(column), bool)]
            held = [n for n, v in values if v >= 1]
            broke = [n for n, v in values if v <= 0]
            for n in sorted(_outliers(held, broke), reverse=True):
                row = table.rows[n]
                issues.append(C.Issue("consistency", C.SEED_BREAKS_INVARIANT, f"$.database.tables[{t_index}].rows[{n}]",
                                      f"{table.name} {row.get(table.primary_key)!r} has {column} {row[column]}, where every "
                                      f"other row holds at least one: a line of nothing: the row should go"))
    return issues


def check_prefixed_keys(site: Site) -> list[C.Issue]:
    """C012: a row whose text begins with the code of another parent row than the one its key points at
    (service "OX 669" operated by airline BF) where every other row's text begins with its own parent's
    code: the page names one operator and the number another, and a filter by either misses the row. The
    repair points the key at the row whose code the text begins with."""
    issues = []
    for t_index, table in enumerate(site.database.tables):
        for key in table.foreign_keys:
            parent = site.database.table(key.ref_table)
            if parent is None or parent.name == table.name:
                continue
            by_id = {r.get(parent.primary_key): r for r in parent.rows}
            for code in (c.name for c in parent.columns if c.type == "text" and c.name != parent.primary_key):
                codes = {str(r[code]): r.get(parent.primary_key) for r in parent.rows if isinstance(r.get(code), str)}
                if len(codes) < 3 or len(codes) != len(parent.rows) or any(not 1 < len(c) <= 4 for c in codes):
                    continue
                for text in (c.name for c in table.columns if c.type == "text"):
                    held, broke = [], []
                    for n, row in enumerate(table.rows):
                        value, owner = row.get(text), by_id.get(row.get(key.column))
                        if not isinstance(value, str) or owner is None:
                            continue
                        first = re.split(r"[\s\-]", value, maxsplit=1)[0]
                        if first == owner.get(code):
                            held.append(n)
                        elif first in codes:
                            broke.append(n)
                    for n in _outliers(held, broke):
                        row = table.rows[n]
                        first = re.split(r"[\s\-]", row[text], maxsplit=1)[0]
                        issues.append(C.Issue("consistency", C.SEED_BREAKS_INVARIANT,
                                              f"$.database.tables[{t_index}].rows[{n}].{key.column}",
                                              f"{table.name} {row.get(table.primary_key)!r}: its {text} {row[text]!r} begins "
                                              f"with {parent.name} {first}'s {code}, but its {key.column} points at "
                                              f"{parent.name} {row.get(key.column)!r}, while every other row's {text} begins "
                                              f"with its own {parent.name}'s {code}: {key.column} should be "
                                              f"{json.dumps(codes[first])}"))
    return issues


def check_seed_ranges(site: Site) -> list[C.Issue]:
    """C012: a seed value outside the range every marker that writes its column keeps it in (a review
    rated 8 where the only write is ``write_review``'s rating, accepted from 1 to 5): a record no use of
    the site could have made, shown as "8/5". Only columns every write of which sets from a parameter
    with both bounds (or a number inside them), for the one or two rows that break the range where every
    other row keeps it; the repair moves the value to the nearest bound."""
    writes = dataflow.site_writes(site)
    markers = {m.name: m for m in site.markers}
    issues = []
    for t_index, table in enumerate(site.database.tables):
        for column in (c.name for c in table.columns if c.type in ("integer", "real", "money")):
            setting = [w for w in writes if w.table == table.name and w.op != "delete"
                       and (w.columns is None or column in w.columns)]
            bounds: list[tuple[float, float, str]] = []
            literals: list[float] = []
            for write in setting:
                source = write.sources.get(column)
                if source is None:
                    bounds = []
                    break
                if source.kind == "literal" and isinstance(source.value, (int, float)):
                    literals.append(source.value)
                    continue
                marker = markers.get(write.marker)
                param = next((p for p in marker.params if p.name == source.value), None) if marker else None
                if source.kind != "param" or param is None or param.min is None or param.max is None:
                    bounds = []
                    break
                bounds.append((param.min, param.max, write.marker))
            if not bounds:
                continue
            low, high = min(b[0] for b in bounds), max(b[1] for b in bounds)
            if any(not low <= v <= high for v in literals):
                continue
            values = [(n, r[column]) for n, r in enumerate(table.rows)
                      if isinstance(r.get(column), (int, float)) and not isinstance(r.get(column), bool)]
            held = [n for n, v in values if low <= v <= high]
            broke = [n for n, v in values if not low <= v <= high]
            for n in _outliers(held, broke, least=3, share=4):  # a declared range: few rows need keep it
                value = table.rows[n][column]
                nearest = high if value > high else low
                nearest = int(nearest) if float(nearest).is_integer() else nearest
                who = ", ".join(sorted({b[2] for b in bounds}))
                issues.append(C.Issue("consistency", C.SEED_BREAKS_INVARIANT,
                                      f"$.database.tables[{t_index}].rows[{n}].{column}",
                                      f"{table.name} {table.rows[n].get(table.primary_key)}: {column} {value} is outside "
                                      f"{low:g} to {high:g}, the range every marker writing it keeps ({who}), as "
                                      f"every other row does: it should be {nearest}"))
    return issues + _seed_choices(site, writes, markers)


def _seed_choices(site: Site, writes: list[Any], markers: dict[str, Any]) -> list[C.Issue]:
    """C012 for a text seed value that is none of the choices every marker writing its column takes
    (a cart line in size "XXL" where ``add_to_cart`` takes S to XL): one or two such rows where the
    others keep to the choices; the repair writes the choice nearest to it."""
    issues = []
    for t_index, table in enumerate(site.database.tables):
        for column in (c.name for c in table.columns if c.type == "text"):
            setting = [w for w in writes if w.table == table.name and w.op != "delete"
                       and (w.columns is None or column in w.columns)]
            choices: list[str] = []
            who: set[str] = set()
            for write in setting:
                source = write.sources.get(column)
                marker = markers.get(write.marker)
                param = (next((p for p in marker.params if p.name == source.value), None)
                         if marker is not None and source is not None and source.kind == "param" else None)
                if source is not None and source.kind == "literal" and isinstance(source.value, str):
                    choices.append(source.value)
                elif param is not None and param.choices:
                    choices += [str(c) for c in param.choices]
                    who.add(write.marker)
                else:
                    who = set()
                    break
            if not who:
                continue
            values = [(n, r[column]) for n, r in enumerate(table.rows) if isinstance(r.get(column), str)]
            held = [n for n, v in values if v in choices]
            broke = [n for n, v in values if v not in choices]
            for n in _outliers(held, broke, least=3, share=4):
                value = table.rows[n][column]
                nearest = max(sorted(set(choices)), key=lambda c: difflib.SequenceMatcher(None, c.casefold(),
                                                                                          value.casefold()).ratio())
                issues.append(C.Issue("consistency", C.SEED_BREAKS_INVARIANT,
                                      f"$.database.tables[{t_index}].rows[{n}].{column}",
                                      f"{table.name} {table.rows[n].get(table.primary_key)}: {column} {value!r} is none "
                                      f"of {', '.join(dict.fromkeys(choices))}, the choices every marker writing it takes "
                                      f"({', '.join(sorted(who))}), as every other row's is: it should be "
                                      f"{json.dumps(nearest)}"))
    return issues


_PERIOD_FORMATS = ("%B %Y", "%b %Y", "%Y-%m", "%B", "%b", "%Y-%m-%d", "%d %B %Y", "%B %d, %Y", "%A %d %B", "%a %d %b")
"""Ways a row may write its month or day out beside it (a label "March 2026")."""


def _period(value: Any) -> tuple[str, dt.date] | None:
    """``("month", first day)`` for "2026-03", ``("day", day)`` for "2026-03-14", else ``None``."""
    if isinstance(value, str) and re.fullmatch(r"\d{4}-\d{2}", value):
        try:
            return "month", dt.date.fromisoformat(value + "-01")
        except ValueError:
            return None
    day = _day(value)
    return ("day", dt.date.fromisoformat(day)) if day is not None and len(value) == 10 else None


def _next(kind: str, day: dt.date) -> dt.date:
    if kind == "day":
        return day + dt.timedelta(days=1)
    return dt.date(day.year + day.month // 12, day.month % 12 + 1, 1)


def missing_periods(site: Site) -> Iterator[tuple[int, str, str, dict[str, Any]]]:
    """Each table listing consecutive months or days (the months an analytics page offers, a calendar)
    that skips exactly one inside its range while every other step is one: the table's index, the
    column, the missing value, and the row that fills it in (a copy of the row before it, with the next
    key and every other column that writes the period out written for the missing one). Only where every
    other column is the key or writes the period out, so the new row says nothing made up."""
    for t_index, table in enumerate(site.database.tables):
        rows = table.rows
        if len(rows) < 6:
            continue
        for column in (c.name for c in table.columns if c.type in ("text", "date")):
            if _period(rows[0].get(column)) is None:
                continue  # the first row's is no month or day: nor is the column a list of them
            periods = [_period(r.get(column)) for r in rows]
            if any(p is None for p in periods) or len({p[0] for p in periods}) != 1:  # type: ignore[index]
                continue
            kind = periods[0][0]  # type: ignore[index]
            days = sorted(p[1] for p in periods)  # type: ignore[index]
            if len(set(days)) != len(days):
                continue
            gaps = [(a, b) for a, b in zip(days, days[1:]) if _next(kind, a) != b]
            if len(gaps) != 1 or _next(kind, _next(kind, gaps[0][0])) != gaps[0][1]:
                continue
            before, missing = gaps[0][0], _next(kind, gaps[0][0])
            model = next(r for r, p in zip(rows, periods) if p[1] == before)  # type: ignore[index]
            row: dict[str, Any] = {}
            for other in table.columns:
                if other.name == column:
                    row[other.name] = missing.isoformat()[:7 if kind == "month" else 10]
                elif other.name == table.primary_key and other.type == "integer":
                    row[other.name] = max(int(r.get(other.name) or 0) for r in rows) + 1
                else:
                    form = next((f for f in _PERIOD_FORMATS if all(
                        isinstance(r.get(other.name), str) and r[other.name] == p[1].strftime(f)  # type: ignore[index]
                        for r, p in zip(rows, periods))), None)
                    if form is None:
                        break
                    row[other.name] = missing.strftime(form)
            else:
                if table.primary_key not in row and table.primary_key in model:
                    continue
                yield t_index, column, row[column], row


def check_missing_periods(site: Site) -> list[C.Issue]:
    """C003: see :func:`missing_periods`. The repair adds the row."""
    return [C.Issue("consistency", C.NULL_VALUE, f"$.database.tables[{t_index}].rows",
                    f"{site.database.tables[t_index].name} lists consecutive {column} values but skips {value}: "
                    f"it should have the row {json.dumps(row, sort_keys=True)}")
            for t_index, column, value, row in missing_periods(site)]


def _joinings(rows: list[dict[str, Any]], target: str, texts: list[str]) -> Iterator[tuple[str, str, str]]:
    """``(a, separator, b)`` for each way the first rows write ``target`` as two other text columns joined."""
    for row in rows[:3]:
        value = row.get(target)
        if not isinstance(value, str):
            continue
        for a in texts:
            head = row.get(a)
            if a == target or not isinstance(head, str) or not head or not value.startswith(head):
                continue
            for b in texts:
                tail = row.get(b)
                if b in (a, target) or not isinstance(tail, str) or not tail or not value.endswith(tail):
                    continue
                separator = value[len(head):len(value) - len(tail)]
                if len(head) + len(tail) <= len(value) and len(separator) <= 3 and not separator.strip(" /-:,|.")  :
                    yield a, separator, b
        return


def check_joined_text(site: Site) -> list[C.Issue]:
    """C004: a text column that writes two others of its row joined (a project's path "data/ember" from its
    namespace and name) in every row but one or two (a path "platform/harbour" for platform's harbor):
    lookups by the joined text miss the record. The repair writes it joined."""
    issues = []
    for t_index, table in enumerate(site.database.tables):
        rows = table.rows
        if len(rows) < 6:
            continue
        texts = [c.name for c in table.columns if c.type == "text"]
        for target in texts:
            for a, separator, b in set(_joinings(rows, target, texts)):
                def joined(r: dict[str, Any]) -> str | None:
                    return (f"{r[a]}{separator}{r[b]}" if isinstance(r.get(a), str) and isinstance(r.get(b), str)
                            else None)
                held = [n for n, r in enumerate(rows) if joined(r) == r.get(target)]
                broke = [n for n, r in enumerate(rows) if joined(r) is not None and joined(r) != r.get(target)]
                if len(held) < 5 or not broke or len(broke) > max(1, len(rows) // 20):
                    continue  # an exact rule: one row against five or more is enough (a table of 8 projects)
                for n in broke:
                    right = joined(rows[n])
                    issues.append(C.Issue("consistency", C.TOTAL_MISMATCH,
                                          f"$.database.tables[{t_index}].rows[{n}].{target}",
                                          f"{table.name} row {n}: {target} {rows[n].get(target)!r} is not its {a} and "
                                          f"{b} joined, as in every other row ({target} should read {right!r})"))
    return issues


def check_self_pairs(site: Site) -> list[C.Issue]:
    """C012: a row whose two columns of one kind hold the same value (a flight from Helsinki to Helsinki, a
    merge request into its own branch) where every other row keeps them apart (two foreign keys to one
    table, or two text columns sharing values). The repair gives the second the value it most often has
    beside the first's in the other rows (else in the column)."""
    issues = []
    for t_index, table in enumerate(site.database.tables):
        rows = table.rows
        if len(rows) < 8:
            continue
        people = site.auth.table if site.auth is not None else "users"
        targets = {f.column: f.ref_table for f in table.foreign_keys if f.ref_table != people}  # one may do both
        texts = [c.name for c in table.columns if c.type == "text"]
        pairs = [(a, b) for a, b in itertools.combinations(list(targets), 2) if targets[a] == targets[b]]
        for a, b in itertools.combinations(texts, 2):
            left = {r.get(a) for r in rows if r.get(a)}
            if len(left & {r.get(b) for r in rows if r.get(b)}) >= 3 or (
                    "_" in a and "_" in b and a.rsplit("_", 1)[1] == b.rsplit("_", 1)[1]):
                pairs.append((a, b))  # one kind of value: shared values (cities), or a shared name (two branches)
        for a, b in pairs:
            known = [n for n, r in enumerate(rows) if r.get(a) is not None and r.get(b) is not None]
            same = [n for n in known if rows[n][a] == rows[n][b]]
            for n in _outliers([n for n in known if n not in same], same):
                beside = Counter(r[b] for r in rows if r.get(a) == rows[n][a] and r.get(b) not in (None, rows[n][a]))
                beside = beside or Counter(r[b] for r in rows if r.get(b) not in (None, rows[n][a]))
                if not beside:
                    continue
                right = beside.most_common(1)[0][0]
                issues.append(C.Issue("consistency", C.SEED_BREAKS_INVARIANT,
                                      f"$.database.tables[{t_index}].rows[{n}].{b}",
                                      f"{table.name} {rows[n].get(table.primary_key)}: {a} and {b} are both "
                                      f"{rows[n][a]!r}, while every other row keeps them apart: {b} should be "
                                      f"{json.dumps(right)}"))
    return issues


def _odd_texts(site: Site, odd: Callable[[str], bool]) -> Iterator[tuple[str, Any, str, str]]:
    """Each seed text that is ``odd`` in a text column where every other filled row's is not (one or two
    against at least five: :func:`_outliers`): its path, its table, its column and the text."""
    for t_index, table in enumerate(site.database.tables):
        for column in (c.name for c in table.columns if c.type == "text"):
            texts = [(n, r[column]) for n, r in enumerate(table.rows) if isinstance(r.get(column), str) and r[column].strip()]
            flagged = {n for n, v in texts if odd(v)}
            for n in _outliers([n for n, _ in texts if n not in flagged], sorted(flagged)):
                yield f"$.database.tables[{t_index}].rows[{n}].{column}", table, column, table.rows[n][column]


def check_padded_text(site: Site) -> list[C.Issue]:
    """M004: a seed text with spaces around it in a column where every other row has none (a listing
    titled "WTS: Barely used road bike "): a lookup by the name as it reads finds nothing. The repair
    trims it."""
    return [C.Issue("semantic", C.WRONG_TYPE, where,
                    f"{table.name}.{column} {value!r} has spaces around it, unlike every other row: "
                    f"a lookup by {value.strip()!r} finds nothing; it should read {value.strip()!r}")
            for where, table, column, value in _odd_texts(site, lambda v: v != v.strip())]


_LINK_PREFIX = re.compile(r"^\s*(?:mailto:|tel:|https?://|www\.)", re.I)


def check_linked_values(site: Site) -> list[C.Issue]:
    """M004: a stored address or number written as a link (``mailto:carol@inbox.example``, ``tel:+1 555``)
    in a column where every other row holds the bare value: a form filled from it sends the link's
    text, a lookup by the address finds nothing. The repair keeps the bare value."""
    return [C.Issue("semantic", C.WRONG_TYPE, where,
                    f"{table.name}.{column} {value!r} is written as a link, unlike every other row: what is filled "
                    f"in or matched from it is the link's text; it should read {_LINK_PREFIX.sub('', value).strip()!r}")
            for where, table, column, value in _odd_texts(site, lambda v: bool(_LINK_PREFIX.match(v)
                                                                               and _LINK_PREFIX.sub("", v).strip()))]

_MOJIBAKE = re.compile("[\u00c2\u00c3][\u0080-\u00bf]|\u00e2\u20ac")
"""UTF-8 bytes read as Latin-1 or Windows-1252: "Ã¡" for "á", "â€™" for "’"."""


def _ungarbled(text: str) -> str | None:
    """``text`` decoded again as the UTF-8 it was (``None``: it is not such a text)."""
    if not _MOJIBAKE.search(text):
        return None
    for codec in ("cp1252", "latin-1"):
        try:
            fixed = text.encode(codec).decode("utf-8")
        except UnicodeError:
            continue
        if fixed != text:
            return fixed
    return None


def check_garbled_text(site: Site) -> list[C.Issue]:
    """M004: a seed text whose accented letters are UTF-8 read as Latin-1 ("PÃ¡blo" for "Páblo"): pages
    show nonsense, and a search for the name finds nothing. The repair decodes it again."""
    issues = []
    for t_index, table in enumerate(site.database.tables):
        for column in (c.name for c in table.columns if c.type == "text"):
            for n, row in enumerate(table.rows):
                value = row.get(column)
                fixed = _ungarbled(value) if isinstance(value, str) else None
                if fixed is not None:
                    issues.append(C.Issue("semantic", C.WRONG_TYPE, f"$.database.tables[{t_index}].rows[{n}].{column}",
                                          f"{table.name}.{column} {value!r} is garbled (UTF-8 read as Latin-1), unlike "
                                          f"every other row: it shows as nonsense and a search for it finds nothing; "
                                          f"it should read {fixed!r}"))
    return issues


def _tallies(site: Site) -> Iterator[tuple[str, str, str, str, str]]:
    """Each counter a marker keeps by hand: the marker adds a row to a table and raises a column of the row
    its key names by one (``join``: a ``subscriptions`` row, and ``forums.members + 1`` where ``id =
    :forum_id``). As (marker, counted table, its key column, parent table, counter column)."""
    from veriweb.verify.dataflow import parse_effect

    for marker in site.markers:
        writes = [parse_effect(marker.name, e.op, e.table, e.sql) for e in marker.effects]
        for added in (w for w in writes if w.op == "insert"):
            child = site.database.table(added.table)
            for fk in child.foreign_keys if child is not None else ():
                source = added.sources.get(fk.column)
                if source is None or source.kind != "param":
                    continue
                for effect in marker.effects:
                    raised = re.fullmatch(rf"\s*UPDATE\s+{re.escape(fk.ref_table)}\s+SET\s+(\w+)\s*=\s*\1\s*\+\s*1\s+"
                                          rf"WHERE\s+id\s*=\s*:{re.escape(source.value)}\s*", effect.sql, re.I)
                    if raised is not None:
                        yield marker.name, added.table, fk.column, fk.ref_table, raised.group(1)


def check_tallies(site: Site) -> list[C.Issue]:
    """C012: a counter a marker keeps by hand (see :func:`_tallies`) that a seed row holds below the rows it
    counts (a community with five subscriptions showing 0 members): the page states a wrong number, and
    the marker that takes a row away (and lowers the counter) is refused, its counter going below zero.
    The repair sets the counter to the rows it counts."""
    issues, seen = [], set()
    tables = {t.name: (n, t) for n, t in enumerate(site.database.tables)}
    for _, child_name, key, parent_name, column in _tallies(site):
        if (parent_name, column) in seen or child_name not in tables or parent_name not in tables:
            continue
        seen.add((parent_name, column))
        counts = Counter(r.get(key) for r in tables[child_name][1].rows)
        t_index, parent = tables[parent_name]
        for n, row in enumerate(parent.rows):
            value, held = row.get(column), counts.get(row.get(parent.primary_key), 0)
            if isinstance(value, int) and not isinstance(value, bool) and value < held:
                issues.append(C.Issue("consistency", C.SEED_BREAKS_INVARIANT,
                                      f"$.database.tables[{t_index}].rows[{n}].{column}",
                                      f"{parent_name} {row.get(parent.primary_key)}: {column} {value} is below its "
                                      f"{held} {child_name} rows, which it counts one by one: the page states too few, "
                                      f"and taking a row away would take it below what it counts; its {column} "
                                      f"should be {held}"))
    return issues


_ACTIVITY = re.compile(r"^(?:updated|updated_at|updated_on|last_activity|last_active|last_updated|activity)$")
"""Columns that say when a row, or anything under it, last changed."""


def check_stale_activity(site: Site) -> list[C.Issue]:
    """C010: a row's last-activity date (``projects.updated``) earlier than rows made under it since, of two
    or more kinds (tickets and change requests opened after it), where every other row's keeps up with
    both kinds: pages say the row has lain still for months. The repair sets it to the latest of them."""
    from veriweb.verify.checks_views import _MADE_AT

    issues = []
    for t_index, table in enumerate(site.database.tables):
        for column in (c.name for c in table.columns if _ACTIVITY.match(c.name)):
            lags: dict[int, list[str]] = {}
            for child in site.database.tables:
                for fk in (f for f in child.foreign_keys if f.ref_table == table.name):
                    for made in (c.name for c in child.columns if _MADE_AT.match(c.name)):
                        latest: dict[Any, str] = {}
                        for row in child.rows:
                            key, day = row.get(fk.column), row.get(made)
                            if key is not None and isinstance(day, str):
                                latest[key] = max(latest.get(key, ""), day[:10])
                        behind = [n for n, r in enumerate(table.rows) if isinstance(r.get(column), str)
                                  and r[column][:10] < latest.get(r.get(table.primary_key), "")]
                        kept = sum(1 for r in table.rows if isinstance(r.get(column), str)
                                   and latest.get(r.get(table.primary_key)) and r[column][:10] >= latest[r[table.primary_key]])
                        if behind and len(behind) <= 2 and kept >= 5:
                            for n in behind:
                                lags.setdefault(n, []).append(latest[table.rows[n][table.primary_key]])
            for n, days in lags.items():
                if len(days) >= 2:
                    row = table.rows[n]
                    issues.append(C.Issue("consistency", C.STALE_DATE, f"$.database.tables[{t_index}].rows[{n}].{column}",
                                          f"{table.name} {row.get(table.primary_key)}: {column} {row[column]!r} is before "
                                          f"rows made under it since (as late as {max(days)}), unlike every other row: "
                                          f"it should be {max(days)!r}"))
    return issues


def check_self_references(site: Site) -> list[C.Issue]:
    """C001: a row whose key into its own table names itself (a message replying to itself, a comment
    that is its own parent): the thread loops on the row, and the row it answers is lost. The repair
    points it at the row its text answers ("Re: X" answers X), else clears it."""
    from veriweb.verify.checks_keys import _SELF_REFERENCE

    issues = []
    for t_index, table in enumerate(site.database.tables):
        columns = [fk.column for fk in table.foreign_keys if fk.ref_table == table.name] + [
            c.name for c in table.columns if c.type == "integer" and _SELF_REFERENCE.search(c.name)
            and not any(fk.column == c.name for fk in table.foreign_keys)]
        for column in columns:
            for n, row in enumerate(table.rows):
                if row.get(column) is not None and row.get(column) == row.get(table.primary_key):
                    issues.append(C.Issue("consistency", C.DANGLING_KEY, f"$.database.tables[{t_index}].rows[{n}].{column}",
                                          f"{table.name} {row.get(table.primary_key)}: {column} points at its own row: "
                                          f"the row refers to itself, and the row it should name is lost"))
    return issues


_TWELVE_HOUR = re.compile(r"^\s*(\d{1,2})[:.](\d{2})\s*([AaPp])\.?\s*[Mm]\.?\s*$")


_PRICED = re.compile(r"^(?:price|fare|rate|cost|unit_price|nightly_rate|base_price)$")


def check_zero_prices(site: Site) -> list[C.Issue]:
    """C003: a price of 0 in a column where every other row's is above 0 (a 4-star hotel at $0.00): the price
    is missing, and the row becomes the cheapest of every list and answer. The repair restores a price as
    for any missing value."""
    issues = []
    for t_index, table in enumerate(site.database.tables):
        for column in (c.name for c in table.columns if c.type in ("money", "integer", "real") and _PRICED.match(c.name)):
            values = [(n, r.get(column)) for n, r in enumerate(table.rows) if isinstance(r.get(column), (int, float))]
            for n in _outliers([n for n, v in values if v > 0], [n for n, v in values if v == 0]):
                issues.append(C.Issue("consistency", C.NULL_VALUE, f"$.database.tables[{t_index}].rows[{n}].{column}",
                                      f"{table.name} {table.rows[n].get(table.primary_key)!r}'s {column} is 0, where every "
                                      f"other row's is above 0: the price is missing"))
    return issues


def _head_noun(name: str) -> str:
    """The last word of a name, folded and without a plural ``s`` ("Brown Waxed Baseball Caps" -> "cap")."""
    words = re.findall(r"[A-Za-z]+", name)
    word = words[-1].lower() if words else ""
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def misfiled_rows(site: Site) -> Iterator[tuple[str, str, Any, Any, str]]:
    """Each row filed under another parent (category) than every other row whose name ends in the same noun:
    one or two "... Cap" under Shoes where five others are under Hats. Path of its key, its name, the key
    it holds, the one the others hold, and the noun."""
    for t_index, table in enumerate(site.database.tables):
        named = next((c.name for c in table.columns if c.name in ("name", "title") and c.type == "text"), None)
        if named is None:
            continue
        for fk in table.foreign_keys:
            parent = site.database.table(fk.ref_table)
            if parent is None or fk.ref_table == table.name or not any(c.name == "name" for c in parent.columns) \
                    or not re.search(r"categor|department|collection|section|genre|aisle|shelf|range", fk.column):
                continue  # only rows filed by what they are (not people's rows by their surnames)
            by_noun: dict[str, list[tuple[int, Any]]] = {}
            for r_index, row in enumerate(table.rows):
                if isinstance(row.get(named), str) and row.get(fk.column) is not None:
                    by_noun.setdefault(_head_noun(row[named]), []).append((r_index, row[fk.column]))
            for noun, rows in by_noun.items():
                counts = Counter(key for _, key in rows)
                (usual, held), *_ = counts.most_common()
                keys = {r.get(parent.primary_key) for r in parent.rows}
                stray = [(n, key) for n, key in rows if key != usual]
                if any(key not in keys for _, key in stray):
                    continue  # a key that names no row: a dangling key (C001), repaired as one
                if len(noun) >= 3 and held >= 4 and 1 <= len(stray) <= 2 and held >= 4 * len(stray):
                    for n, key in stray:
                        yield (f"$.database.tables[{t_index}].rows[{n}].{fk.column}", table.rows[n][named], key, usual,
                               noun)


def check_misfiled_rows(site: Site) -> list[C.Issue]:
    """C012: see :func:`misfiled_rows`. The repair files the row where the others are."""
    return [C.Issue("consistency", C.SEED_BREAKS_INVARIANT, location,
                    f"{name!r} is filed under {key!r}, while every other row whose name ends in {noun!r} is under "
                    f"{usual!r}: it is missing from its own list and shown in another; its {location.rsplit('.', 1)[1]} "
                    f"should be {usual!r}")
            for location, name, key, usual, noun in misfiled_rows(site)]


def check_unearned_states(site: Site) -> list[C.Issue]:
    """C012: a seed row in the state a marker moves rows to, which that marker's own precondition on the
    row would have refused (a merge request 'merged' while its pipeline 'failed', where merging demands
    a passed pipeline): the data shows what the site says cannot happen. Only a precondition that reads
    the row alone (its key, no user) and tests one of its columns for a value is used; the repair gives
    the row that value."""
    from veriweb.scaffold.values import SqlPredicate
    from veriweb.verify.checks_views import seeded

    rules = []
    for marker in site.markers:
        for effect in marker.effects:
            table = site.database.table(effect.table)
            keyed = re.search(rf"\bWHERE\s+{re.escape(table.primary_key)}\s*=\s*:(\w+)", effect.sql, re.I) \
                if table is not None and effect.op == "update" else None
            if keyed is None:
                continue
            moves = [(c, v.value) for c, v in dataflow.parse_effect(marker.name, effect.op, effect.table,
                                                                    effect.sql).sources.items()
                     if v.kind == "literal" and isinstance(v.value, str)]  # SET state = 'merged'
            for (column, state), guard in ((m, g) for m in moves for g in marker.preconditions):
                predicate = guard.predicate
                if not isinstance(predicate, SqlPredicate) or re.search(rf"\b{column}\b", predicate.sql):
                    continue
                holes = set(re.findall(r"(?<![:\w]):(\w+)", predicate.sql))
                refs = {name: getattr(ref, "ref", None) for name, ref in (predicate.params or {}).items()}
                if len(holes) != 1 or refs.get(next(iter(holes))) != f"param.{keyed.group(1)}":
                    continue  # it reads more than the row (the user, another parameter)
                tests = [t for t in re.finditer(r"\b(\w+)\s*=\s*'([^']*)'", predicate.sql)
                         if table.column(t.group(1)) is not None]
                if len(tests) == 1:
                    rules.append((marker, table, column, state, next(iter(holes)), predicate.sql,
                                  guard.message, tests[0].group(1), tests[0].group(2)))
    if not rules:
        return []
    issues = []
    with seeded(site) as conn:
        if conn is None:
            return []
        for marker, table, column, state, hole, sql, message, tested, wanted in rules:
            t_index = site.database.tables.index(table)
            for r_index, row in enumerate(table.rows):
                if row.get(column) != state or row.get(tested) == wanted:
                    continue
                try:
                    held = conn.execute(sql, {hole: row.get(table.primary_key)}).fetchone()
                except Exception:  # noqa: BLE001 - a guard that does not run: other checks say why
                    break
                if held is not None and not held[0]:
                    issues.append(C.Issue(
                        "consistency", C.SEED_BREAKS_INVARIANT, f"$.database.tables[{t_index}].rows[{r_index}].{tested}",
                        f"{table.name} row {row.get(table.primary_key)!r} is {column} {state!r} with {tested} "
                        f"{row.get(tested)!r}, which {marker.name} (the marker that makes it {state!r}) refuses: "
                        f"{message!r}; its {tested} should be {wanted!r}"))
    return issues


_SLASHED_DAY = re.compile(r"(?<![\w/])(\d{1,2})/(\d{1,2})/(\d{4})(?![\w/])")


def _iso_of(text: str, today: Any) -> str | None:
    """The ISO day a ``dd/mm/yyyy`` (or ``mm/dd/yyyy``) date means: the only valid reading, else the
    one nearer ``today``."""
    import datetime as dt

    found = _SLASHED_DAY.fullmatch(text)
    if found is None:
        return None
    a, b, year = (int(g) for g in found.groups())
    readings = []
    for day, month in ((a, b), (b, a)):
        try:
            readings.append(dt.date(year, month, day))
        except ValueError:
            continue
    if not readings:
        return None
    return min(readings, key=lambda d: abs((d - today).days)).isoformat()


def check_slashed_days(site: Site) -> list[C.Issue]:
    """M004: a day written ``17/12/2025`` where the site's dates are ISO (a guard's parameter, a literal in
    its SQL): compared as text, every ISO date ('2025-...', '2026-...') sorts after it, so the cut-off
    it sets never bites. The repair writes it as ISO."""
    issues = []
    places: list[tuple[str, str]] = []
    for m_index, marker in enumerate(site.markers):
        for kind in ("preconditions", "invariants"):
            for g_index, guard in enumerate(getattr(marker, kind)):
                where = f"$.markers[{m_index}].{kind}[{g_index}].predicate"
                if isinstance(getattr(guard.predicate, "sql", None), str):
                    places.append((f"{where}.sql", guard.predicate.sql))
                for name, value in (getattr(guard.predicate, "params", None) or {}).items():
                    if isinstance(value, str):
                        places.append((f"{where}.params.{name}", value))
        for e_index, effect in enumerate(marker.effects):
            places.append((f"$.markers[{m_index}].effects[{e_index}].sql", effect.sql))
    for v_index, view in enumerate(site.database.views):
        places.append((f"$.database.views[{v_index}].sql", view.sql))
    for location, text in places:
        for found in _SLASHED_DAY.finditer(text):
            iso = _iso_of(found.group(0), site.clock.today)
            if iso is not None:
                issues.append(C.Issue("semantic", C.WRONG_TYPE, location,
                                      f"{found.group(0)!r} is a day written with slashes where the site's dates are "
                                      f"ISO: compared as text, every ISO date sorts after it; it should read {iso!r}"))
                break
    return issues


NAMED_SHARE = 0.9
"""How many of a table's rows must name their own value of a column (a product's colour in its name)
before a row whose name says another value of it is called a contradiction."""


def check_named_values(site: Site) -> list[C.Issue]:
    """C012: a row whose name says one value of a column its table names its rows by, and whose column
    holds another ("Green Waxed Breton Shirt" stored as blue, where every other product's name says its
    colour): a filter by what the name says misses it, and one by the column shows it under the wrong
    heading. The repair sets the column to what the name says."""
    issues = []
    for t_index, table in enumerate(site.database.tables):
        named = next((c.name for c in table.columns if c.name in ("name", "title") and c.type == "text"), None)
        if named is None or len(table.rows) < 8:
            continue
        for column in (c.name for c in table.columns if c.type == "text" and c.name != named):
            values = {r[column] for r in table.rows if isinstance(r.get(column), str) and r[column].strip()}
            if not 2 <= len(values) <= 30:
                continue
            patterns = {v: re.compile(rf"(?<![\w-]){re.escape(v)}(?![\w-])", re.I) for v in values}
            says = [{v for v, p in patterns.items() if isinstance(r.get(named), str) and p.search(r[named])}
                    for r in table.rows]
            own = sum(1 for r, said in zip(table.rows, says) if r.get(column) in said)
            if own < NAMED_SHARE * len(table.rows):
                continue
            for r_index, (row, said) in enumerate(zip(table.rows, says)):
                if len(said) == 1 and row.get(column) is not None and row.get(column) not in said:
                    (value,) = said
                    issues.append(C.Issue(
                        "consistency", C.SEED_BREAKS_INVARIANT, f"$.database.tables[{t_index}].rows[{r_index}].{column}",
                        f"{row[named]!r} has {column} {row.get(column)!r}, while its name says {value!r} and every "
                        f"other row's name says its own {column}: it is missing from its own list and shown in "
                        f"another; its {column} should be {value!r}"))
    return issues


def check_written_otherwise(site: Site) -> list[C.Issue]:
    """M004: a text written otherwise than every other row writes the same thing: a code in lower case
    among upper-case codes ("foo-12183" among "FOO-12181"); a time of day on the 12-hour clock ("7:55 PM")
    among 24-hour ones ("19:55"); a person's name turned round ("Costa, Oskar") where other rows write it
    "Oskar Costa". A lookup by the usual spelling finds nothing. The repair
    writes it the usual way."""
    issues = []
    for t_index, table in enumerate(site.database.tables):
        for column in (c.name for c in table.columns if c.type == "text"):
            texts = [(n, r[column]) for n, r in enumerate(table.rows) if isinstance(r.get(column), str) and r[column]]
            coded = [n for n, v in texts if re.fullmatch(r"[A-Z0-9][A-Z0-9-]*[0-9][A-Z0-9-]*", v) and re.search(r"[A-Z]", v)]
            lower = [n for n, v in texts if re.fullmatch(r"[a-z0-9][a-z0-9-]*[0-9][a-z0-9-]*", v) and re.search(r"[a-z]", v)]
            fixes = [(n, table.rows[n][column].upper(), "in lower case") for n in _outliers(coded, lower)]
            plain = [n for n, v in texts if re.fullmatch(r"\d{2}:\d{2}", v)]
            for n in _outliers(plain, [n for n, v in texts if _TWELVE_HOUR.match(v)]):
                hour, minute, half = _TWELVE_HOUR.match(table.rows[n][column]).groups()  # type: ignore[union-attr]
                fixes.append((n, f"{int(hour) % 12 + (12 if half in 'Pp' else 0):02d}:{minute}", "on the 12-hour clock"))
            values = {v for _, v in texts}
            for n, v in texts:
                turned = re.fullmatch(r"([A-Z][\w'-]+), ([A-Z][\w' -]+)", v)
                if turned is not None and f"{turned.group(2)} {turned.group(1)}" in values:
                    fixes.append((n, f"{turned.group(2)} {turned.group(1)}", "turned round"))
            for n, fixed, how in fixes:
                value = table.rows[n][column]
                issues.append(C.Issue("semantic", C.WRONG_TYPE, f"$.database.tables[{t_index}].rows[{n}].{column}",
                                      f"{table.name}.{column} {value!r} is {how}, unlike every other row: a lookup by "
                                      f"{fixed!r} finds nothing; it should read {fixed!r}"))
    return issues


_AMOUNT_IN_TEXT = re.compile(r"\$\s?(\d{1,3}(?:,\d{3})*(?:\.\d{2})?)(?!\d)")


def check_amounts_in_text(site: Site) -> list[C.Issue]:
    """C006: a row's text stating an amount ("Amount due: $145.58") other than the row's own money column
    holds ($154.58), where every other row's text states exactly its amount: the message contradicts
    itself, and an answer read from either is judged against the other. The repair writes the column's
    amount into the text."""
    issues = []
    for t_index, table in enumerate(site.database.tables):
        money = [c.name for c in table.columns if c.type == "money"]
        texts = [c.name for c in table.columns if c.type == "text"]
        for amount_column in money:
            for text_column in texts:
                agree, differ = [], []
                for n, row in enumerate(table.rows):
                    value, text = row.get(amount_column), row.get(text_column)
                    if not isinstance(value, int) or isinstance(value, bool) or not isinstance(text, str):
                        continue
                    stated = _AMOUNT_IN_TEXT.findall(text)
                    if len(stated) != 1:
                        continue
                    (agree if round(float(stated[0].replace(",", "")) * 100) == value else differ).append(n)
                for n in _outliers(agree, differ):
                    row = table.rows[n]
                    old = _AMOUNT_IN_TEXT.search(row[text_column]).group(0)  # type: ignore[union-attr]
                    right = f"${row[amount_column] / 100:,.2f}"
                    issues.append(C.Issue("consistency", C.VALUE_DISAGREES,
                                          f"$.database.tables[{t_index}].rows[{n}].{text_column}",
                                          f"{table.name} {row.get(table.primary_key)!r}'s {text_column} says {old}, while its "
                                          f"{amount_column} is {right}, as every other row's {text_column} says its "
                                          f"{amount_column}: it should say {right}"))
    return issues + _offered_prices(site)


_OFFERED = re.compile(r"\b(?:now|only|just|priced at|price(?: is)?:?|costs?|sells? for|yours for)\s+(\$\d[\d,]*(?:\.\d\d)?)(?![\d.,]*\s*(?:off|or more|and up|\+))",
                      re.I)


def _offered_prices(site: Site) -> list[C.Issue]:
    """C006: a row's text offering it at a price ("Now only $149.99") other than its own price column
    holds ($192.99): the page contradicts itself, and a price read from either is judged against the
    other. Only a table with one money column named for a price; the repair writes that price."""
    issues = []
    for t_index, table in enumerate(site.database.tables):
        prices = [c.name for c in table.columns if c.type == "money" and "price" in c.name.split("_")]
        if len(prices) != 1:
            continue
        for text_column in (c.name for c in table.columns if c.type == "text"):
            for n, row in enumerate(table.rows):
                value, text = row.get(prices[0]), row.get(text_column)
                if not isinstance(value, int) or isinstance(value, bool) or not isinstance(text, str):
                    continue
                offered = {m.group(1) for m in _OFFERED.finditer(text)}
                if len(offered) != 1:
                    continue
                (old,) = offered
                if round(float(old[1:].replace(",", "")) * 100) != value:
                    right = f"${value / 100:,.2f}"
                    issues.append(C.Issue("consistency", C.VALUE_DISAGREES,
                                          f"$.database.tables[{t_index}].rows[{n}].{text_column}",
                                          f"{table.name} {row.get(table.primary_key)!r}'s {text_column} says {old}, while "
                                          f"its {prices[0]} is {right}, the price the text offers it at: it should say "
                                          f"{right}"))
    return issues


_SINCE = re.compile(r"\b(?:since|joined(?: us)?(?: in)?|member since|here since|started in|with us since)\s+"
                    r"(?:(January|February|March|April|May|June|July|August|September|October|November|December)\s+)?"
                    r"((?:19|20)\d\d)\b", re.I)
_JOINED = re.compile(r"^(?:joined|join_date|joined_on|created|created_at|registered|member_since|since|signed_up)$")


def check_stated_since(site: Site) -> list[C.Issue]:
    """C006: a row's text saying since when it has been there ("Member here since March 2019") that its own
    date of joining contradicts (2022-01-10): the profile contradicts itself, and a "when did she join"
    answer read from either is judged against the other. The repair writes the row's month and year."""
    import calendar

    issues = []
    for t_index, table in enumerate(site.database.tables):
        joined = [c.name for c in table.columns if c.type in ("date", "datetime") and _JOINED.match(c.name)]
        if len(joined) != 1:
            continue
        for text_column in (c.name for c in table.columns if c.type == "text"):
            for n, row in enumerate(table.rows):
                day, text = _day(row.get(joined[0])), row.get(text_column)
                if day is None or not isinstance(text, str):
                    continue
                stated = list(_SINCE.finditer(text))
                if len(stated) != 1:
                    continue
                month, year = stated[0].group(1), int(stated[0].group(2))
                actual = dt.date.fromisoformat(day)
                wrong = year != actual.year or (month is not None and
                                                 list(calendar.month_name).index(month.capitalize()) != actual.month)
                if not wrong:
                    continue
                said = f"{month + ' ' if month else ''}{year}"
                right = f"{calendar.month_name[actual.month] + ' ' if month else ''}{actual.year}"
                issues.append(C.Issue("consistency", C.VALUE_DISAGREES,
                                      f"$.database.tables[{t_index}].rows[{n}].{text_column}",
                                      f"{table.name} {row.get(table.primary_key)!r}'s {text_column} says since {said}, while "
                                      f"its {joined[0]} is {day}: it should say {right!r} for {said!r}"))
    return issues


_ENDS = re.compile(r"^(?:expires|expiry|expires_on|expiry_date|valid_until|valid_to|until|ends|ends_on|end_date)$")
"""Dates a row stops being valid on (not a due date: a milestone past due is overdue, still open)."""


def check_expired_states(site: Site) -> list[C.Issue]:
    """C010: a row whose end date has passed (a coupon that expired) holding a status only rows still running
    hold ('active'), where every other row that ended holds one other status ('inactive'): a page of live
    rows lists a dead one. The repair gives it the status of the rows that ended."""
    issues = []
    today = str(site.clock.today)
    for t_index, table in enumerate(site.database.tables):
        ends = [c.name for c in table.columns if c.type in ("date", "datetime") and _ENDS.match(c.name)]
        states = [c.name for c in table.columns if c.type == "text" and c.name in ("status", "state")]
        for end, state in itertools.product(ends, states):
            rows = [(n, r[state], r[end][:10] >= today) for n, r in enumerate(table.rows)
                    if isinstance(r.get(state), str) and isinstance(r.get(end), str) and _ISO_DAY.match(r[end])]
            ended = Counter(v for _, v, later in rows if not later)
            live = {v for _, v, later in rows if later}
            if not ended:
                continue
            (other, count), *_ = ended.most_common()
            wrong = [n for n, v, later in rows if not later and v != other and v in live]
            if not 1 <= len(wrong) <= 2 or count < 5 or count < 4 * len(wrong):
                continue
            for n in wrong:
                value = table.rows[n][state]
                issues.append(C.Issue("consistency", C.STALE_DATE, f"$.database.tables[{t_index}].rows[{n}].{state}",
                                      f"{table.name} {table.rows[n].get(table.primary_key)!r} is {value!r} while its "
                                      f"{end} {table.rows[n][end]} has passed, as only rows still running are; the "
                                      f"rows that ended are {other!r}: its {state} should be {other!r}"))
    return issues


def check_unroutable_values(site: Site) -> list[C.Issue]:
    """M004: a value that links put in an address whose route takes only a slug or a number (``/u/{username:slug}``)
    while the value does not fit it ("grace.mor": a slug has no dots): every link to that row opens no page.
    The repair writes the value with what does not fit as ``_`` (when no other row holds that)."""
    from veriweb.verify.checks_pages import base_column, bound_elements

    kinds = {"slug": re.compile(r"[A-Za-z0-9_-]+"), "int": re.compile(r"-?\d{1,18}")}
    routes = C._routes(site)
    pages = {p.id: p for p in site.pages}
    cache: dict[Any, Any] = {}
    flagged: dict[tuple[str, str], str] = {}
    routed: dict[tuple[str, str], tuple[int, str]] = {}  # (table, column) -> (page index, route segment)
    for element, _, _, bound in bound_elements(site):
        href = C.field_of(element, "href")
        if element.type != "link" or bound is None or not isinstance(href, str) or "{row." not in href:
            continue
        page = pages.get(C.resolve_href(routes, href) or "")
        if page is None:
            continue
        shape, parts = page.route.strip("/").split("/"), href.split("?")[0].strip("/").split("/")
        for segment, part in zip(shape, parts):
            kind = re.fullmatch(r"\{\w+:(slug|int)\}", segment)
            column = re.fullmatch(r"\{row\.(\w+)\}", part)
            base = base_column(site, bound, column.group(1), cache) if kind and column else None
            if base is not None:
                flagged.setdefault(base, kind.group(1))  # type: ignore[union-attr]
                routed.setdefault(base, (site.pages.index(page), segment))
    issues = []
    for (table_name, column), kind in flagged.items():
        t_index, table = next((n, t) for n, t in enumerate(site.database.tables) if t.name == table_name)
        values = {str(r.get(column)) for r in table.rows}
        spaced = sorted({v for v in values if kind == "slug" and re.search(r"\s", v)})
        if spaced:  # names with spaces: the column holds names, so the route is what is wrong
            p_index, segment = routed[(table_name, column)]
            route = site.pages[p_index].route
            wanted = route.replace(segment, segment.replace(":slug", ":str"), 1)
            issues.append(C.Issue("structural", C.BROKEN_LINK, f"$.pages[{p_index}].route",
                                  f"route {route!r} takes only a slug, but links put {table_name}.{column} in it, "
                                  f"which holds names such as {spaced[0]!r}: every link to them opens no page; "
                                  f"it should be {wanted!r}"))
            continue
        for n, row in enumerate(table.rows):
            value = row.get(column)
            if isinstance(value, str) and not kinds[kind].fullmatch(value):
                fixed = re.sub(r"[^A-Za-z0-9_-]", "_", value) if kind == "slug" else None
                issues.append(C.Issue("semantic", C.WRONG_TYPE, f"$.database.tables[{t_index}].rows[{n}].{column}",
                                      f"{table_name}.{column} {value!r} goes into addresses that take a {kind}, which it is "
                                      f"not: every link to it opens no page"
                                      + (f"; it should read {fixed!r}" if fixed and fixed not in values else "")))
    return issues


_BEGUN = re.compile(r"^(?:joined|joined_on|join_date|created|created_at|created_on|signed_up|registered|member_since|"
                    r"since|opened|opened_on|started|started_on)$")
"""Date columns that say when a record began (an account joined, a project was created)."""
_DONE = re.compile(r"^(?:created|created_at|created_on|posted|posted_at|placed|placed_on|sent|sent_at|written|"
                   r"written_on|commented_at|submitted|submitted_at)$")
"""Date columns that say when a record was made by or under another (a post, an order, a comment)."""
_ISO_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}")


_SHAPES = str.maketrans({**{c: "A" for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"}, **{c: "a" for c in "abcdefghijklmnopqrstuvwxyz"},
                         **{c: "9" for c in "0123456789"}})


def _shape(text: str) -> str:
    """A text's shape: each capital ``A``, each small letter ``a``, each digit ``9`` ("BAC-15735" is "AAA-99999")."""
    return text.translate(_SHAPES)


_MORE_THAN_ONE = re.compile(r"\bcount\s*\(\s*\*\s*\)\s*(?:>\s*1|>=\s*2)\b", re.I)


def check_early_duplicate_tests(site: Site) -> list[C.Issue]:
    """C009: a precondition of a marker that adds a row, testing that no two rows of that table are alike
    (``HAVING count(*) > 1``): preconditions run before the row exists, when there is no second one, so the
    test never fails and a duplicate goes in. The repair makes it an invariant (run after the write)."""
    issues = []
    for m_index, marker in enumerate(site.markers):
        added = {e.table for e in marker.effects if e.op == "insert"}
        for k, guard in enumerate(marker.preconditions):
            sql = getattr(guard.predicate, "sql", None)
            if isinstance(sql, str) and _MORE_THAN_ONE.search(sql) and any(
                    re.search(rf"\bFROM\s+{re.escape(t)}\b", sql, re.I) for t in added):
                issues.append(C.Issue("consistency", C.VACUOUS_GUARD, f"$.markers[{m_index}].preconditions[{k}]",
                                      f"marker {marker.name!r} tests for a second alike row ({guard.message!r}) before "
                                      f"it adds the row, when there is none: the test never fails; it should run "
                                      f"after the write, as an invariant"))
    return issues


def check_annotated_codes(site: Site) -> list[C.Issue]:
    """M004: a code that every other row writes in one shape ("BAC-15735") with a note typed after it in one
    row ("BAC-15735 (old stock)"): a lookup by the code finds nothing. The repair keeps the code."""
    issues = []
    for t_index, table in enumerate(site.database.tables):
        for column in (c.name for c in table.columns if c.type == "text"):
            values = [(n, r.get(column)) for n, r in enumerate(table.rows) if isinstance(r.get(column), str)]
            if len(values) < 8 or sum(" " in v for _, v in values[:10]) > 2:
                continue  # too few rows to know a shape by, or words, not a code
            shapes = Counter(_shape(v) for _, v in values)
            if not shapes:
                continue
            shape, held = shapes.most_common(1)[0]
            if held < 8 or held < len(values) - 2 or not re.search(r"\d", shape) or not re.search(r"[Aa]", shape) \
                    or " " in shape or len({v for _, v in values}) < len(values):
                continue  # a code (letters and digits, one per row), not a time or an amount
            held_codes = {v for _, v in values}
            for n, value in values:
                if _shape(value) != shape and _shape(value[:len(shape)]) == shape and re.match(r"\s", value[len(shape):]) \
                        and value[:len(shape)] not in held_codes:  # a note after a space, the code no other row's
                    issues.append(C.Issue("semantic", C.WRONG_TYPE, f"$.database.tables[{t_index}].rows[{n}].{column}",
                                          f"{table.name}.{column} {value!r} has a note typed after its code, unlike "
                                          f"every other row: a lookup by the code finds nothing; it should read "
                                          f"{value[:len(shape)]!r}"))
    return issues


_NO_DAYS = frozenset({"1970-01-01", "1969-12-31", "1900-01-01", "0001-01-01", "1000-01-01"})
"""Days a program writes when it has none: the Unix epoch and the first days of calendars."""


def check_placeholder_days(site: Site) -> list[C.Issue]:
    """C010: a seed date that is a program's "no date" (1970-01-01, the Unix epoch) in a column whose other
    rows are recent: the row shows as fifty years old, and it becomes the oldest of every list and answer.
    The repair dates it on the day of the row it belongs to (an issue on its project's), else on the
    column's earliest real day."""
    issues = []
    tables = {t.name: t for t in site.database.tables}
    for t_index, table in enumerate(site.database.tables):
        for column in (c.name for c in table.columns if c.type in ("date", "datetime", "text")):
            days = [r.get(column) for r in table.rows]
            real = sorted(d[:10] for d in days if isinstance(d, str) and _ISO_DAY.match(d) and d[:10] not in _NO_DAYS)
            if len(real) < 5 or real[0] < "1990":
                continue
            for n, row in enumerate(table.rows):
                day = row.get(column)
                if not (isinstance(day, str) and day[:10] in _NO_DAYS):
                    continue
                owner = [p.get(column) for fk in table.foreign_keys if fk.ref_table in tables
                         for p in tables[fk.ref_table].rows
                         if p.get(tables[fk.ref_table].primary_key) == row.get(fk.column)
                         and isinstance(p.get(column), str) and p.get(column)[:10] not in _NO_DAYS]
                meant = (owner[0][:10] if owner else real[0]) + day[10:]
                issues.append(C.Issue("consistency", C.STALE_DATE, f"$.database.tables[{t_index}].rows[{n}].{column}",
                                      f"{table.name} {row.get(table.primary_key)}: {column} {day!r} is a program's "
                                      f"'no date', among days from {real[0]} on: the row shows as decades old; "
                                      f"it should be {meant!r}"))
    return issues


def begun_after_use(site: Site) -> Iterator[tuple[str, str, str, str, str]]:
    """Each row whose beginning (``joined``) is after the first row made under it in a table (its first
    post): one or two such rows, where every other row began before its first row of that table. Path
    of the date, the row's key, the date, the table and the day of the first use. (Tables are taken one
    at a time: where rows of a table often come before the beginning, as imported comments may, that
    table says nothing.)"""
    for p_index, parent in enumerate(site.database.tables):
        begun = [c.name for c in parent.columns if c.type in ("date", "datetime") and _BEGUN.match(c.name)]
        if len(begun) != 1:
            continue
        column = begun[0]
        flagged: set[int] = set()
        for child in site.database.tables:
            made = [c.name for c in child.columns if c.type in ("date", "datetime") and _DONE.match(c.name)]
            keys = [fk.column for fk in child.foreign_keys if fk.ref_table == parent.name]
            if child is parent or len(made) != 1 or len(keys) != 1:
                continue
            first: dict[Any, str] = {}  # parent key -> the day of its first row here
            for row in child.rows:
                day, key = row.get(made[0]), row.get(keys[0])
                if isinstance(day, str) and _ISO_DAY.match(day) and key is not None and day[:10] < first.get(key, "9999") \
                        and day[:10] not in _NO_DAYS:  # a placeholder day is another check's (check_placeholder_days)
                    first[key] = day[:10]
            late, kept = [], 0
            for r_index, row in enumerate(parent.rows):
                day, used = row.get(column), first.get(row.get(parent.primary_key))
                if not isinstance(day, str) or not _ISO_DAY.match(day) or used is None:
                    continue  # a day written otherwise is another check's (M004)
                if day[:10] > used:
                    late.append((r_index, row, day, used))
                else:
                    kept += 1
            if 1 <= len(late) <= 2 and kept >= 5 * len(late):
                for r_index, row, day, used in late:
                    if r_index not in flagged:
                        flagged.add(r_index)
                        yield (f"$.database.tables[{p_index}].rows[{r_index}].{column}",
                               f"{parent.name} {row.get(parent.primary_key)}", day, child.name, used)


def check_begun_after_use(site: Site) -> list[C.Issue]:
    """C010: see :func:`begun_after_use`. The repair dates the beginning on the day of the first use."""
    return [C.Issue("consistency", C.STALE_DATE, location,
                    f"{row}'s {location.rsplit('.', 1)[1]} {day} is after its first {table} row ({used}), while every "
                    f"other row began before its first {table} row: it should be {used} at the latest")
            for location, row, day, table, used in begun_after_use(site)]


def check_clock_day(site: Site) -> list[C.Issue]:
    """C010: the virtual clock leaves its day within a task's step budget (a whole day a step, or a
    start just before midnight), while ``today`` stays: what a step writes is stamped a later day
    than the one the site calls today, so it sorts above everything, and "today" filters miss it."""
    clock = site.clock
    steps = max((t.max_steps for t in site.tasks), default=40)
    start = clock.start_time.hour * 3600 + clock.start_time.minute * 60 + clock.start_time.second
    if start + clock.seconds_per_step * steps < 86_400:
        return []
    where = "$.clock.seconds_per_step" if clock.seconds_per_step > 1 else "$.clock.start_time"
    return [C.Issue("consistency", C.STALE_DATE, where,
                    f"the clock starts at {clock.start_time} and moves {clock.seconds_per_step} s a step: within "
                    f"{steps} steps (the longest task's budget) it is past midnight while today stays "
                    f"{clock.today}, so what a step writes is dated after the site's today")]


def _sent_by_owner(row: dict[str, Any], address: str) -> bool:
    return bool(address) and str(row.get("sender") or "").lower() == address


def misfiled_mail(site: Site) -> Iterator[tuple[str, Any, str, Any, Any]]:
    """Each message filed in its owner's Sent folder that someone else sent (or in their Inbox that they
    sent to others only): Sent lists mail its owner never wrote, and the Inbox, where searches, counts
    and "from" questions look, lacks it. Messages are the rows of a table keyed to a folders table
    (a ``kind`` or ``name`` of inbox / sent, and an owner) and holding a ``sender`` address; owners are
    the accounts table's rows with an ``email``. A Sent folder counts only where most of its messages
    are from its owner's address (where none are, the account's address is what is wrong). Path of the
    folder key, the row's id, the folder it is in (its kind and key), and the folder it belongs in."""
    auth = site.auth
    users = site.database.table(auth.table) if auth is not None else None
    if users is None or users.column("email") is None:
        return
    address = {u.get(users.primary_key): str(u.get("email") or "").lower() for u in users.rows}
    names = {u.get(users.primary_key): str(u.get(auth.name_column) or "") for u in users.rows}
    for t_index, table in enumerate(site.database.tables):
        if table.column("sender") is None:
            continue
        for fk in table.foreign_keys:
            folders = site.database.table(fk.ref_table)
            if folders is None or folders.column("user_id") is None:
                continue
            kind = "kind" if folders.column("kind") is not None else "name"
            box: dict[tuple[Any, str], Any] = {}
            for folder in folders.rows:
                box.setdefault((folder.get("user_id"), str(folder.get(kind) or "").lower()), folder.get(folders.primary_key))
            of = {folder.get(folders.primary_key): (folder.get("user_id"), str(folder.get(kind) or "").lower())
                  for folder in folders.rows}
            held = Counter(row.get(fk.column) for row in table.rows)  # per folder: its messages,
            own_sent = Counter(row.get(fk.column) for row in table.rows  # and those from its owner's address
                               if _sent_by_owner(row, address.get(of.get(row.get(fk.column), (None,))[0], "")))
            for r_index, row in enumerate(table.rows):
                owner, where = of.get(row.get(fk.column), (None, ""))
                mine = address.get(owner, "")
                sender = str(row.get("sender") or "").lower()
                if not mine or not sender:
                    continue
                to = str(row.get("recipients") or "").lower() + " " + str(row.get("cc") or "").lower()
                if sender == mine and str(row.get("sender_name") or names.get(owner, "")) != names.get(owner, ""):
                    continue  # from someone else, with the owner's address: the address is wrong (misaddressed_senders)
                folder = row.get(fk.column)
                mostly_own = own_sent[folder] >= 2 * (held[folder] - own_sent[folder])
                belongs = "inbox" if where == "sent" and sender != mine and mostly_own else \
                    "sent" if where == "inbox" and sender == mine and mine not in to else None
                target = box.get((owner, belongs)) if belongs else None
                if target is not None:
                    yield (f"$.database.tables[{t_index}].rows[{r_index}].{fk.column}", row.get(table.primary_key),
                           where, row.get(fk.column), target)


def strays(site: Site) -> Iterator[tuple[str, Any, str, Any, Any]]:
    """Each message in one account's Inbox, from someone else, addressed (To and Cc) to another account of the
    site and not to its owner: someone else's mail in the wrong mailbox, where its owner reads, counts and
    answers it and its addressee never sees it. Path of the row's folder key, the row's id, the addressee's
    username, and the addressee's account id and Inbox key."""
    auth = site.auth
    users = site.database.table(auth.table) if auth is not None else None
    if users is None or users.column("email") is None:
        return
    by_address = {str(u.get("email") or "").lower(): u for u in users.rows if u.get("email")}
    address = {u.get(users.primary_key): str(u.get("email") or "").lower() for u in users.rows}
    for t_index, table in enumerate(site.database.tables):
        if table.column("sender") is None or table.column("recipients") is None or table.column("user_id") is None:
            continue
        for fk in table.foreign_keys:
            folders = site.database.table(fk.ref_table)
            if folders is None or folders.column("user_id") is None or folders.column("kind") is None:
                continue
            inbox = {f.get("user_id"): f.get(folders.primary_key) for f in folders.rows if str(f.get("kind")).lower() == "inbox"}
            of = {f.get(folders.primary_key): (f.get("user_id"), str(f.get("kind") or "").lower()) for f in folders.rows}
            for r_index, row in enumerate(table.rows):
                owner, kind = of.get(row.get(fk.column), (None, ""))
                mine = address.get(owner, "")
                to = re.findall(r"[\w.+-]+@[\w.-]+", f"{row.get('recipients') or ''} {row.get('cc') or ''}".lower())
                if kind != "inbox" or not mine or not to or mine in to or str(row.get("sender") or "").lower() == mine:
                    continue
                others = [by_address[a] for a in to if a in by_address]
                if len(others) != 1 or inbox.get(others[0].get(users.primary_key)) is None:
                    continue
                other = others[0]
                yield (f"$.database.tables[{t_index}].rows[{r_index}].{fk.column}", row.get(table.primary_key),
                       str(other.get(auth.username_column)), other.get(users.primary_key),
                       inbox[other.get(users.primary_key)])


def check_strays(site: Site) -> list[C.Issue]:
    """C012: see :func:`strays`. The repair moves the message to its addressee's Inbox."""
    return [C.Issue("consistency", C.SEED_BREAKS_INVARIANT, location,
                    f"message {key!r} sits in an Inbox whose owner it is not addressed to; it is addressed to {user!r} "
                    f"of this site, who never sees it; it belongs to account {account!r}, in folder {folder!r}")
            for location, key, user, account, folder in strays(site)]


def misaddressed_senders(site: Site) -> Iterator[tuple[str, Any, str, str]]:
    """Each message that names someone else as its sender (``sender_name``) but carries its owner's own
    address as ``sender``: a reply goes back to the owner, and a judge comparing with the stored sender
    passes it. Only where that name's own address is known (the address other messages from them carry,
    or the owner's contact of that name). Path of the sender, the row's id, the name, and the address."""
    auth = site.auth
    users = site.database.table(auth.table) if auth is not None else None
    if users is None or users.column("email") is None:
        return
    own = {u.get(users.primary_key): (str(u.get("email") or "").lower(), str(u.get(auth.name_column) or ""))
           for u in users.rows}
    contacts = site.database.table("contacts")
    for t_index, table in enumerate(site.database.tables):
        if table.column("sender") is None or table.column("sender_name") is None or table.column("user_id") is None:
            continue
        known: dict[str, Counter[str]] = {}
        for row in table.rows:
            if isinstance(row.get("sender"), str) and row.get("sender_name"):
                known.setdefault(row["sender_name"], Counter())[row["sender"]] += 1
        for r_index, row in enumerate(table.rows):
            mine, name = own.get(row.get("user_id"), ("", ""))
            said = str(row.get("sender_name") or "")
            if not mine or not said or said == name or str(row.get("sender") or "").lower() != mine:
                continue
            others = [a for a, _ in (known.get(said) or Counter()).most_common() if a.lower() != mine]
            if not others and contacts is not None:
                others = [c["email"] for c in contacts.rows if c.get("name") == said and c.get("user_id") == row["user_id"]
                          and isinstance(c.get("email"), str)]
            if others:
                yield f"$.database.tables[{t_index}].rows[{r_index}].sender", row.get(table.primary_key), said, others[0]


def check_misaddressed_senders(site: Site) -> list[C.Issue]:
    """C012: see :func:`misaddressed_senders`. The repair gives the message its sender's own address."""
    return [C.Issue("consistency", C.SEED_BREAKS_INVARIANT, location,
                    f"message {key!r} is from {name!r} but carries its owner's own address as its sender: a reply "
                    f"goes back to the owner; its sender should be {address!r}")
            for location, key, name, address in misaddressed_senders(site)]


def check_misfiled_mail(site: Site) -> list[C.Issue]:
    """C012: see :func:`misfiled_mail`. The repair files the message where it belongs."""
    return [C.Issue("consistency", C.SEED_BREAKS_INVARIANT, location,
                    f"message {key!r} is in its owner's {where} folder ({held!r}) but "
                    f"{'someone else sent it' if where == 'sent' else 'its owner sent it to others'}: "
                    f"it is missing from its own list and shown in another; its {location.rsplit('.', 1)[1]} "
                    f"should be {target!r}")
            for location, key, where, held, target in misfiled_mail(site)]


DATA_CHECKS = [check_written_numbers, check_vacuous_guards, check_constraint_meaning, check_constraint_pages, check_seed_dates,
               check_row_rules, check_duplicate_inserts, check_tied_answers, check_budgets, check_child_sums, check_seed_ranges,
               check_prefixed_keys, check_empty_lines, check_stated_since,
               check_missing_periods, check_padded_text, check_joined_text,
               check_self_pairs, check_begun_after_use,
               check_zero_prices, check_misfiled_rows, check_written_otherwise,
               check_amounts_in_text, check_expired_states, check_unroutable_values, check_clock_day,
               check_named_values, check_unearned_states, check_slashed_days, check_garbled_text,
               check_self_references, check_stale_activity, check_tallies, check_placeholder_days,
               check_annotated_codes, check_early_duplicate_tests, check_misfiled_mail,
               check_linked_values, check_misaddressed_senders, check_strays]

__all__ = ["DATA_CHECKS", "budgets", "check_budgets", "check_child_sums", "check_constraint_meaning", "check_constraint_pages",
           "check_duplicate_inserts", "check_row_rules", "check_seed_dates", "check_seed_ranges", "check_prefixed_keys", "check_empty_lines", "check_stated_since", "check_tied_answers",
           "check_vacuous_guards", "goal_rows", "ordered_rows"]

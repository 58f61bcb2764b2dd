"""Rows a certificate writes, held against the rules every seed row of their table keeps (C005).

A marker's SQL can be well formed, guarded and labelled right and still write a row no seed row
resembles: an order's total without the shipping fee every other order adds, a refund that
overwrites the amount refunded so far, an edit that stamps ``edited_at`` but leaves ``edited`` at 0,
a booking whose nights are one more than its dates span. The seed rows show what the data means:
a rule that holds in every one of them (and is not a coincidence of few rows or constant columns)
is a rule of the site, and a marker that breaks it at once is defective.

Rules are read off a table's seed rows (:func:`rules`), each kept only when it holds in every row,
over at least :data:`LEAST_ROWS` rows and :data:`LEAST_VALUES` different values of what it
constrains:

- ``product`` / ``sum`` / ``difference``: a number column is the product, sum or difference of two
  others of the same row (a line's amount is its quantity times its price);
- ``days``: a whole-number column counts the days between two date columns of the row;
- ``order``: a date column is never before another (check-out after check-in);
- ``fill``: whether a column is filled follows a small-valued column (every ``shipped`` order has a
  shipping date, no ``placed`` one does; ``edited = 1`` exactly when ``edited_at`` is set): learned
  only when some value always fills it and another never does;
- ``children``: a parent's number column is the sum over its child rows (by a foreign key) of a
  child column or of the product of two, plus an offset that is constant or fixed by a small-valued
  parent column (a shipping fee by shipping method);
- ``copy``: a child column equals the column of the same name of the row its foreign key names
  (a line's price is its product's price).

:func:`written_issues` replays a certificate in a fresh episode and checks every row the markers
wrote (and, for ``children``, the parent of every child row written) against its table's rules.
A broken rule is issue C005 at the effect of the committed marker that wrote the table; the task
is then not shipped, since its end state is data the site itself says is wrong. A rule about
values a written row does not have (a status no seed row has, a parent with no children) says
nothing. The same replay also holds each press against its button's words: a tally (``score``,
``likes``, ...) that a "Vote up" or "Like" moves down, or a "Vote down" moves up, is C005 too.
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
import weakref
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from veriweb.engine import Episode, Session
from veriweb.scaffold import Site, Task
from veriweb.verify import checks as C

LEAST_ROWS = 5
"""Seed rows a rule must hold in before it counts."""
LEAST_VALUES = 3
"""Different values the constrained column must take in those rows (a constant is no rule)."""
_NUMBER_TYPES = ("integer", "real", "money")
_SMALL = range(2, 9)
"""How many different values a column may take to decide a ``fill`` rule or a ``children`` offset."""


@dataclass(frozen=True)
class Rule:
    """One rule of a table's rows (see the module docstring)."""

    table: str
    kind: str
    columns: tuple[str, ...]
    rows: int
    detail: tuple[Any, ...] = ()

    def describe(self) -> str:
        """The rule in words."""
        c = self.columns
        if self.kind in ("product", "sum", "difference"):
            op = {"product": "*", "sum": "+", "difference": "-"}[self.kind]
            return f"{c[0]} = {c[1]} {op} {c[2]}"
        if self.kind == "days":
            return f"{c[0]} = the days from {c[1]} to {c[2]}"
        if self.kind == "order":
            return f"{c[1]} is not before {c[0]}"
        if self.kind == "fill":
            value, filled = self.detail
            return f"{c[1]} is {'filled' if filled else 'empty'} when {c[0]} is {value!r}"
        if self.kind == "children":
            child, fk, offsets = self.detail
            terms = " * ".join(c[1:])
            if offsets[0] is None:
                extra = f" + {offsets[1][0][1]}" if offsets[1][0][1] else ""
            else:
                extra = f" + a fixed amount for each {offsets[0]}"
            return f"{c[0]} = the sum of {terms} over its {child} rows{extra}"
        child_fk, ref, _ = self.detail
        return f"{c[0]} = the {c[0]} of the {ref} row its {child_fk} names"


# ----------------------------------------------------------------------------- learning


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _day(value: Any) -> dt.date | None:
    if not isinstance(value, str) or len(value) < 10:
        return None
    try:
        return dt.date.fromisoformat(value[:10])
    except ValueError:
        return None


def _filled(value: Any) -> bool:
    return value is not None and value != ""


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-6 * max(1.0, abs(a), abs(b))


def _arithmetic(table: Any, numbers: list[str]) -> list[Rule]:
    out = []
    rows = table.rows
    values = {c: [_number(r.get(c)) for r in rows] for c in numbers}
    varied = {c for c in numbers if len({v for v in values[c] if v is not None}) >= LEAST_VALUES}
    for a in numbers:
        if a not in varied:
            continue
        for b, c in itertools.permutations([n for n in numbers if n != a], 2):
            if b not in varied or c not in varied:
                continue  # a constant term makes a copy or a scale, not a relation of three columns
            known = [(x, y, z) for x, y, z in zip(values[a], values[b], values[c])
                     if x is not None and y is not None and z is not None]
            if len(known) < LEAST_ROWS:
                continue
            for kind, op in (("product", lambda y, z: y * z), ("sum", lambda y, z: y + z),
                             ("difference", lambda y, z: y - z)):
                if kind != "difference" and b > c:
                    continue  # symmetric: one order of the two terms is enough
                if all(_close(x, op(y, z)) for x, y, z in known):
                    out.append(Rule(table.name, kind, (a, b, c), len(known)))
    return out


def _dated(table: Any, dates: list[str], integers: list[str]) -> list[Rule]:
    out = []
    days = {c: [_day(r.get(c)) for r in table.rows] for c in dates}
    for first, then in itertools.permutations(dates, 2):
        pairs = [(i, a, b) for i, (a, b) in enumerate(zip(days[first], days[then])) if a and b]
        if len(pairs) >= LEAST_ROWS and len({a for _, a, _ in pairs}) >= LEAST_VALUES and all(a <= b for _, a, b in pairs):
            out.append(Rule(table.name, "order", (first, then), len(pairs)))
        for count in integers:
            known = [(table.rows[i].get(count), (b - a).days) for i, a, b in pairs
                     if isinstance(table.rows[i].get(count), int)]
            if (len(known) >= LEAST_ROWS and len({n for n, _ in known}) >= LEAST_VALUES
                    and all(n == gap for n, gap in known)):
                out.append(Rule(table.name, "days", (count, first, then), len(known)))
    return out


def _fills(table: Any, key: str) -> list[Rule]:
    out = []
    rows = table.rows
    names = [c.name for c in table.columns if c.name != key]
    for group in names:
        values = defaultdict(list)
        for row in rows:
            value = row.get(group)
            if isinstance(value, (str, int)) and value != "":
                values[value].append(row)
        if len(values) not in _SMALL or len(rows) < LEAST_ROWS:
            continue
        for column in names:
            if column == group:
                continue
            decided = []
            for value, members in values.items():
                filled = {_filled(r.get(column)) for r in members}
                if len(filled) == 1 and len(members) >= LEAST_VALUES:
                    decided.append((value, filled.pop(), len(members)))
                elif len(filled) > 1:
                    break  # this value does not decide whether the column is filled
            else:
                if {f for _, f, _ in decided} == {True, False}:
                    out += [Rule(table.name, "fill", (group, column), n, (value, f)) for value, f, n in decided]
    return out


def _children(site: Site, parent: Any, key: str) -> list[Rule]:
    out = []
    parents = {r.get(key): r for r in parent.rows if r.get(key) is not None}
    keys = {f.column for f in parent.foreign_keys}
    targets = [c.name for c in parent.columns if c.type in _NUMBER_TYPES and c.name != key and c.name not in keys]
    groups = [c.name for c in parent.columns if c.name != key and c.type in ("text", "integer", "boolean")]
    for child in site.database.tables:
        for fk in child.foreign_keys:
            if fk.ref_table != parent.name or fk.ref_column != key or child.name == parent.name:
                continue
            numbers = [c.name for c in child.columns if c.type in _NUMBER_TYPES and c.name != child.primary_key
                       and c.name not in {f.column for f in child.foreign_keys}]
            lines = defaultdict(list)
            for row in child.rows:
                if row.get(fk.column) in parents:
                    lines[row.get(fk.column)].append(row)
            if len(lines) < LEAST_ROWS:
                continue
            terms = [(n,) for n in numbers] + [tuple(p) for p in itertools.combinations(numbers, 2)]
            for target in targets:
                if len({parents[p].get(target) for p in lines}) < LEAST_VALUES:
                    continue
                for term in terms:
                    offsets = {}
                    for p, members in lines.items():
                        total = _number(parents[p].get(target))
                        parts = [[_number(r.get(n)) for n in term] for r in members]
                        if total is None or any(v is None for part in parts for v in part):
                            break
                        offsets[p] = total - sum(_product(part) for part in parts)
                    else:
                        decided = _offset_rule(offsets, parents, [g for g in groups if g != target])
                        if decided is not None:
                            out.append(Rule(parent.name, "children", (target, *term), len(offsets),
                                            (child.name, fk.column, decided)))
    return out


def _product(values: list[float]) -> float:
    out = 1.0
    for v in values:
        out *= v
    return out


def _offset_rule(offsets: dict[Any, float], parents: dict[Any, Any], groups: list[str]
                 ) -> tuple[str | None, tuple[tuple[Any, float], ...]] | None:
    """The offset as ``(None, ((None, constant),))``, or as ``(group, ((value, amount), ...))`` when a
    small-valued parent column fixes it; ``None`` when neither holds."""
    amounts = set(round(v, 6) for v in offsets.values())
    if len(amounts) == 1:
        return None, ((None, amounts.pop()),)
    for group in groups:
        by: dict[Any, set[float]] = defaultdict(set)
        seen: dict[Any, int] = defaultdict(int)
        for p, amount in offsets.items():
            by[parents[p].get(group)].add(round(amount, 6))
            seen[parents[p].get(group)] += 1
        if len(by) in _SMALL and all(len(v) == 1 for v in by.values()) and min(seen.values()) >= 2:
            return group, tuple(sorted(((value, next(iter(v))) for value, v in by.items()), key=repr))
    return None


def _copies(site: Site, table: Any) -> list[Rule]:
    out = []
    for fk in table.foreign_keys:
        ref = site.database.table(fk.ref_table)
        if ref is None:
            continue
        by_key = {r.get(fk.ref_column): r for r in ref.rows}
        shared = [c.name for c in table.columns if c.type in _NUMBER_TYPES and c.name != table.primary_key
                  and ref.column(c.name) is not None and c.name != fk.ref_column]
        for column in shared:
            pairs = [(r.get(column), by_key[r.get(fk.column)].get(column)) for r in table.rows
                     if r.get(fk.column) in by_key]
            pairs = [(a, b) for a, b in pairs if _number(a) is not None and _number(b) is not None]
            if (len(pairs) >= LEAST_ROWS and len({a for a, _ in pairs}) >= LEAST_VALUES
                    and all(_close(_number(a), _number(b)) for a, b in pairs)):
                out.append(Rule(table.name, "copy", (column,), len(pairs), (fk.column, ref.name, fk.ref_column)))
    return out


_RULES: dict[int, tuple[Any, dict[str, list[Rule]]]] = {}


def rules(site: Site) -> dict[str, list[Rule]]:
    """Every rule of every table's seed rows, by table (memoised per site object: an edited site, whatever
    its id says, is read afresh)."""
    found = _RULES.get(id(site))
    if found is not None and found[0]() is site:
        return found[1]
    out: dict[str, list[Rule]] = defaultdict(list)
    for table in site.database.tables:
        key = table.primary_key
        fks = {f.column for f in table.foreign_keys}
        numbers = [c.name for c in table.columns if c.type in _NUMBER_TYPES and c.name != key and c.name not in fks]
        dates = [c.name for c in table.columns if c.type in ("date", "datetime")]
        integers = [c.name for c in table.columns if c.type == "integer" and c.name != key and c.name not in fks]
        out[table.name] += _arithmetic(table, numbers) + _dated(table, dates, integers) + _fills(table, key)
        out[table.name] += _copies(site, table)
        for rule in _children(site, table, key):
            out[rule.table].append(rule)
            out[rule.detail[0]].append(rule)  # a child row written asks again of its parent
    if len(_RULES) > 64:
        _RULES.clear()
    _RULES[id(site)] = (weakref.ref(site), dict(out))
    return _RULES[id(site)][1]


# ----------------------------------------------------------------------------- checking


def _rows(session: Session, sql: str, params: tuple[Any, ...]) -> list[dict[str, Any]]:
    cursor = session.db.guard.engine(sql, params)
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]


def _broken(rule: Rule, table: str, row: dict[str, Any], session: Session) -> str | None:
    """Why ``row`` (of ``table``, as written) breaks ``rule``, or ``None`` (kept, or not the rule's business)."""
    c = rule.columns
    if rule.kind in ("product", "sum", "difference"):
        x, y, z = (_number(row.get(n)) for n in c)
        if x is None or y is None or z is None:
            return None
        want = {"product": y * z, "sum": y + z, "difference": y - z}[rule.kind]
        return None if _close(x, want) else f"{c[0]} is {row.get(c[0])}, not {c[1]} {row.get(c[1])} and {c[2]} " \
                                              f"{row.get(c[2])} make {want:g}"
    if rule.kind in ("days", "order"):
        first, then = (c[1], c[2]) if rule.kind == "days" else c
        a, b = _day(row.get(first)), _day(row.get(then))
        if a is None or b is None:
            return None
        if rule.kind == "order":
            return None if a <= b else f"{then} {row.get(then)} is before {first} {row.get(first)}"
        count = row.get(c[0])
        return None if count == (b - a).days else f"{c[0]} is {count}, but {first} to {then} is {(b - a).days} days"
    if rule.kind == "fill":
        value, filled = rule.detail
        if row.get(c[0]) != value or _filled(row.get(c[1])) == filled:
            return None
        return f"{c[0]} is {value!r} and {c[1]} is {'empty' if filled else repr(row.get(c[1]))}"
    if rule.kind == "children":
        child, fk, (group, offsets) = rule.detail
        parent = session.db.primary_keys.get(rule.table, "id")
        if table != rule.table:  # a child row written: its parent, as it is now
            found = _rows(session, f'SELECT * FROM "{rule.table}" WHERE "{parent}" = ?', (row.get(fk),))
            if not found:
                return None
            row = found[0]
        lines = _rows(session, f'SELECT * FROM "{child}" WHERE "{fk}" = ?', (row.get(parent),))
        total = _number(row.get(c[0]))
        parts = [[_number(r.get(n)) for n in c[1:]] for r in lines]
        if not lines or total is None or any(v is None for part in parts for v in part):
            return None
        amount = dict(offsets).get(None if group is None else row.get(group))
        if amount is None:
            return None  # a method no seed row used: its amount is unknown
        want = sum(_product(part) for part in parts) + amount
        return None if _close(total, want) else (f"{rule.table} {row.get(parent)} has {c[0]} {row.get(c[0])}, but its "
                                                 f"{len(lines)} {child} row(s) make {want:g}")
    fk, ref, ref_key = rule.detail
    found = _rows(session, f'SELECT "{c[0]}" FROM "{ref}" WHERE "{ref_key}" = ?', (row.get(fk),))
    if not found or _number(row.get(c[0])) is None or _number(found[0][c[0]]) is None:
        return None
    mine, theirs = row.get(c[0]), found[0][c[0]]
    return None if _close(_number(mine), _number(theirs)) else f"{c[0]} is {mine}, the {ref} row's is {theirs}"


def written_issues(site: Site, task: Task, actions: list[str] | tuple[str, ...], session: Session,
                   location: str) -> list[C.Issue]:
    """C005 for each rule of the seed rows that a row written by ``actions`` (a certificate, replayed here
    in a fresh episode of ``session``) breaks, at the effect of the committed marker that wrote it."""
    table_rules = rules(site)
    episode = Episode(site, task, session=session, end_on_success=False)
    episode.reset()
    committed: list[str] = []
    issues: dict[tuple[str, str], C.Issue] = {}
    for action in actions:
        pressed = pressed_button(session, action)
        before = session.db.change_count() if pressed else 0
        result = session.step(action)
        if result.marker is not None:
            committed.append(result.marker.marker)
            if pressed:
                for why in _against_the_button(pressed, session.db.changes()[before:]):
                    where = _writer(site, committed, why[0]) or f"{location}.certificate"
                    issues.setdefault((where, why[1]), C.Issue("consistency", C.UNGUARDED_WRITE, where,
                                                               f"task {task.id!r}: {why[1]}"))
    if not any(table_rules.values()):
        return list(issues.values())
    for change in session.db.changes():
        if change.new is None:
            continue
        for rule in table_rules.get(change.table, ()):
            why = _broken(rule, change.table, change.new, session)
            if why is None:
                continue
            where = _writer(site, committed, change.table) or f"{location}.certificate"
            issues.setdefault((where, rule.describe()), C.Issue(
                "consistency", C.UNGUARDED_WRITE, where,
                f"task {task.id!r}: the marker writes a {change.table} row that breaks a rule every one of the "
                f"{rule.rows} seed rows of {rule.table} keeps ({rule.describe()}): {why}"))
    return list(issues.values())


_UP_WORDS = {"up", "upvote", "like", "increase", "raise", "boost"}
_DOWN_WORDS = {"down", "downvote", "dislike", "decrease", "lower"}
_TALLIES = {"score", "points", "votes", "likes", "karma"}
"""Columns that tally what up and down buttons say (a post's score)."""


def pressed_button(session: Session, action: str) -> str:
    """The name of the button ``action`` clicks on the session's page, or ``""`` (not a click, not a button)."""
    from veriweb.engine.actions import Click, parse_action
    from veriweb.errors import VeriwebError

    if not action.startswith("click("):
        return ""
    try:
        parsed = parse_action(action)
    except VeriwebError:
        return ""
    node = session.page().by_bid.get(parsed.bid) if isinstance(parsed, Click) else None
    return (node.name or node.text or "") if node is not None and node.role == "button" else ""


def _against_the_button(label: str, changes: list[Any]) -> list[tuple[str, str]]:
    """``(table, why)`` for a tally the press of ``label`` moved against its words ("Vote up" lowering a
    post's score)."""
    words = set(re.findall(r"[a-z]+", label.lower()))
    up, down = bool(words & _UP_WORDS), bool(words & _DOWN_WORDS)
    if up == down:
        return []
    out = []
    for change in changes:
        if change.op != "update" or change.old is None or change.new is None:
            continue
        for column in _TALLIES & set(change.new):
            old, new = _number(change.old.get(column)), _number(change.new.get(column))
            if old is None or new is None or old == new or (new > old) == up:
                continue
            out.append((change.table, f"pressing {label!r} moves {change.table}.{column} from {change.old[column]} to "
                                      f"{change.new[column]}, the other way from what the button says"))
    return out


def _writer(site: Site, committed: list[str], table: str) -> str | None:
    """The path of the first effect on ``table`` of the last committed marker that writes it."""
    for name in reversed(committed):
        for m_index, marker in enumerate(site.markers):
            if marker.name != name:
                continue
            for e_index, effect in enumerate(marker.effects):
                if effect.table == table:
                    return f"$.markers[{m_index}].effects[{e_index}]"
    return None

"""Checks of the literal values SQL writes or compares with: misspellings of the data's values, and today written with another year (C013).

Pure functions of the scaffold, gathered by :func:`veriweb.verify.checks_views.view_fixes`, each
yielding :class:`veriweb.verify.checks_views.Fix` findings with the SQL that fixes them.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from veriweb.scaffold import Site
from veriweb.verify.checks_views import Fix
from veriweb.verify.dataflow import parse_effect


# ----------------------------------------------------------------------------- a value spelt unlike the data


def misspelt_sql(location: str, sql: str, domains: dict[tuple[str, str], dict[str, str]]) -> Iterator[Fix]:
    """A view or effect that tests a status-like column against a value no row holds or is given,
    spelt like one that is (``status != 'cancelled'`` where the data says ``'canceled'``): SQLite
    compares exactly, so the filter keeps or drops every row."""
    from veriweb.verify.checks_guards import misspelt_tests

    fixed, wrong = misspelt_tests(sql, domains)
    if wrong:
        said = ", ".join(f"{v!r} (the data says {n!r})" for v, n in wrong)
        yield Fix(location, f"it compares with {said}, a value no row holds or gets: the test never matches",
                  sql, fixed)


def misspelt_writes(site: Site, domains: dict[tuple[str, str], dict[str, str]]) -> Iterator[Fix]:
    """An effect that writes a status-like column a value nothing else holds, writes or tests, spelt
    like one the seed rows hold (``SET status = 'cancelled'`` where every canceled order says
    ``'canceled'``): what it writes is then a state no page, report or guard knows."""
    from veriweb.verify.checks_guards import near_value

    sources: dict[tuple[str, str, str], set[tuple[int, int]]] = {}
    for m, marker in enumerate(site.markers):
        for e, effect in enumerate(marker.effects):
            for column, value in literal_writes(marker.name, effect):
                sources.setdefault((effect.table, column, value), set()).add((m, e))
    tested = " ".join([v.sql for v in site.database.views]
                      + [g.predicate.sql for mk in site.markers for kind in ("preconditions", "invariants")
                         for g in getattr(mk, kind) if isinstance(getattr(g.predicate, "sql", None), str)])
    for m, marker in enumerate(site.markers):
        for e, effect in enumerate(marker.effects):
            fixed, wrong = effect.sql, []
            for column, value in literal_writes(marker.name, effect):
                domain = domains.get((effect.table, column))
                table = site.database.table(effect.table)
                if domain is None or table is None or sources[(effect.table, column, value)] != {(m, e)}:
                    continue
                seed = {r[column] for r in table.rows if isinstance(r.get(column), str)}
                if value in seed or f"'{value}'" in tested:
                    continue
                near = near_value(value, seed)
                if near is not None:
                    wrong.append((value, near))
                    fixed = fixed.replace(f"'{value}'", f"'{near}'")
            if wrong:
                said = ", ".join(f"{v!r} (the data says {n!r})" for v, n in wrong)
                yield Fix(f"$.markers[{m}].effects[{e}].sql", f"marker {marker.name!r} writes {said}, a value "
                          "nothing else holds, writes or tests: no page or guard knows that state", effect.sql, fixed)


def literal_writes(marker: str, effect: Any) -> list[tuple[str, str]]:
    """The ``(column, value)`` text literals an effect writes (an insert's values, an update's ``SET``)."""
    write = parse_effect(marker, effect.op, effect.table, effect.sql)
    out = [(c, s.value) for c, s in write.sources.items() if s.kind == "literal" and isinstance(s.value, str)]
    if effect.op == "update":
        head = re.split(r"\bWHERE\b", effect.sql, maxsplit=1, flags=re.I)[0]
        out += re.findall(r"\b(\w+)\s*=\s*'([^']*)'", head)
    return list(dict.fromkeys(out))


def unheld_effect_tests(site: Site, domains: dict[tuple[str, str], dict[str, str]]) -> Iterator[Fix]:
    """An update or delete that picks its row by its key and also by a value of a status-like column that
    no row holds or is given and that is no misspelling of one (``WHERE id = :product_id AND status =
    'active'`` where products are 'enabled' or 'disabled'): it never matches, so the marker does nothing.
    The fix drops that test (the key picks the row)."""
    from veriweb.verify.checks_guards import _tests, near_value

    for m, marker in enumerate(site.markers):
        for e, effect in enumerate(marker.effects):
            where = re.search(r"\bWHERE\b", effect.sql, re.I)
            if effect.op not in ("update", "delete") or where is None:
                continue
            condition = effect.sql[where.end():]
            if not re.search(r"(?<![\w.])(?:\w+\.)?id\s*=\s*:\w+", condition):
                continue
            fixed = effect.sql
            for match, domain in _tests(f"FROM {effect.table} WHERE {condition}", domains):  # its table named
                value, written = match.group("value") if match.group("op") == "=" else None, set(domain.values())
                if value is None or value in written or near_value(value, written) is not None or len(written) < 2:
                    continue
                test = re.escape(match.group(0))
                fixed = re.sub(rf"\s+AND\s+{test}|{test}\s+AND\s+", "", fixed, count=1, flags=re.I)
            if fixed != effect.sql:
                yield Fix(f"$.markers[{m}].effects[{e}].sql", f"marker {marker.name!r} also picks its row by a value no "
                          "row holds or gets: it never matches, and the marker does nothing", effect.sql, fixed)


# ----------------------------------------------------------------------------- today written with another year

_DAY_LITERAL = re.compile(r"'(\d{4})-(\d{2})(?:-(\d{2}))?(T\d{2}:\d{2}(?::\d{2})?)?'")


_NOW_WORDS = re.compile(r"upcoming|past|departed|overdue|expired|future|ended|due|checked in|checked out|"
                        r"in progress|coming up|finished|over", re.I)
_WHEN_AGAINST = re.compile(r"\bWHEN\s+([a-z_]\w*\.\w+|[a-z_]\w*)\s*(>=|<=|>|<)\s*([a-z_]\w*\.\w+|[a-z_]\w*)"
                           r"\s+THEN\s+'([^']*)'", re.I)


def words_against_other_days(site: Site, location: str, sql: str) -> Iterator[Fix]:
    """A view's branch that names where a row stands in time ("Upcoming", "Departed", "Overdue") from a
    comparison of two of its dates (``f.date > b.booked``): what is upcoming is upcoming from today,
    not from the day it was booked, so every row keeps its label forever. The fix compares with today
    (``vw_today()``)."""
    fixed, wrong = sql, []
    for found in _WHEN_AGAINST.finditer(sql):
        left, op, right, word = found.groups()
        if not _NOW_WORDS.fullmatch(word.strip()) or right.lower() in _SQL_KEYWORDS or left.lower() in _SQL_KEYWORDS:
            continue
        wrong.append(found.group(0))
        today = re.sub(rf"{re.escape(op)}\s*{re.escape(right)}\b", f"{op} vw_today()", found.group(0), count=1)
        fixed = fixed.replace(found.group(0), today, 1)
    if wrong and fixed != sql:
        yield Fix(location, f"{'; '.join(wrong)} says where a row stands in time by another of its dates, not "
                            "by today: the label never changes as days pass", sql, fixed)


_SQL_KEYWORDS = frozenset({"null", "true", "false", "and", "or", "not", "then", "else", "end", "case", "when"})


def today_typos(site: Site, location: str, sql: str, *, in_marker: bool) -> Iterator[Fix]:
    """A fixed day (or month) that is the site's today with another year (``f.date > '2025-06-15'`` on a
    site whose today is 2026-06-15): what was meant is today, and the figure is a year off. In a view
    the fix reads today (``vw_today()``, ``vw_now()``); in a marker, the ``:today`` or ``:now`` it is given."""
    today = str(site.clock.today)
    year, month, day = today[:4], today[5:7], today[8:10]
    fixed, wrong = sql, []
    for found in _DAY_LITERAL.finditer(sql):
        y, m, d, time = found.groups()
        if y == year or not 1 <= abs(int(y) - int(year)) <= 2 or m != month or (d is not None and d != day):
            continue
        if d is None:
            now = "substr(:today, 1, 7)" if in_marker else "substr(vw_today(), 1, 7)"
        elif time:
            now = ":now" if in_marker else "vw_now()"
        else:
            now = ":today" if in_marker else "vw_today()"
        wrong.append(found.group(0))
        fixed = fixed.replace(found.group(0), now, 1)
    if in_marker:  # a stamp written as today moved back (closed_on = date(:today, '-1 year')): today meant
        for found in re.finditer(r"\b(date|datetime)\s*\(\s*:(today|now)\s*,\s*'-[^']*'\s*\)", sql, re.I):
            wrong.append(found.group(0))
            fixed = fixed.replace(found.group(0), f":{found.group(2)}", 1)
    if wrong:
        yield Fix(location, f"{', '.join(wrong)} is today ({today}) with another year or moved back: the date it "
                            f"reads or writes is off", sql, fixed)


# ----------------------------------------------------------------------------- one cut-off day written twice

_CASE_DAY = re.compile(r"\bWHEN\s+(?:(\w+)\.)?(\w+)\s*(?:<=|>=|<|>)\s*'(\d{4}-\d{2}-\d{2})'\s+THEN\s+'([^']*)'", re.I)
_GUARD_DAY = re.compile(r"(?<![\w.:])(?:(\w+)\.)?(\w+)\s*(?:<=|>=|<|>)\s*(?:'(\d{4}-\d{2}-\d{2})'|:(\w+)\b)")
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


@dataclass(frozen=True)
class Cutoff:
    """One statement of a cut-off day: a view's ``CASE`` that labels rows by a date column against a
    fixed day, or a guard that tests the column against one under a message. ``where`` is the path to
    change (a view's SQL, a guard's predicate, or the parameter that holds the day), ``text`` the value
    there (the SQL, or the day), ``span`` where the day is in it (none: ``text`` is the day), ``words``
    the stems of the label or message, and ``label`` a view's label as written."""

    where: str
    table: str
    column: str
    day: str
    words: frozenset[str]
    text: str
    span: tuple[int, int] = (0, 0)
    label: str = ""


def _table_with(site: Site, alias: str | None, column: str, sql: str) -> str:
    """The table whose ``column`` ``alias.column`` (or a bare ``column``) reads in ``sql`` (``""``: unsure)."""
    from veriweb.verify.checks_views import _aliases

    aliases = _aliases(sql)
    if alias:
        return aliases.get(alias, "")
    held = {t for t in aliases.values() if (table := site.database.table(t)) is not None
            and any(c.name == column for c in table.columns)}
    return held.pop() if len(held) == 1 else ""


def _cutoffs(site: Site) -> Iterator[Cutoff]:
    """Every cut-off day a view's labels or a guard's test states (see :class:`Cutoff`)."""
    from veriweb.verify.checks_guards import _sql_guards
    from veriweb.verify.wording import stem

    def said(text: str) -> frozenset[str]:
        return frozenset(stem(w) for w in re.findall(r"[a-z]+", text.lower()) if len(w) > 3)

    for number, view in enumerate(site.database.views):
        for found in _CASE_DAY.finditer(view.sql):
            table = _table_with(site, found.group(1), found.group(2), view.sql)
            if table and said(found.group(4)):
                yield Cutoff(f"$.database.views[{number}].sql", table, found.group(2), found.group(3),
                             said(found.group(4)), view.sql, found.span(3), found.group(4).strip(" ·-–|"))
    for location, _, guard, sql in _sql_guards(site):
        for found in _GUARD_DAY.finditer(sql):
            table = _table_with(site, found.group(1), found.group(2), sql)
            day = found.group(3) or guard.predicate.params.get(found.group(4) or "")
            if not table or not isinstance(day, str) or not _DAY.fullmatch(day):
                continue
            if found.group(3):
                yield Cutoff(location, table, found.group(2), day, said(guard.message or ""), sql, found.span(3))
            else:
                yield Cutoff(f"{location}.params.{found.group(4)}", table, found.group(2), day,
                             said(guard.message or ""), day)


def disagreeing_cutoffs(site: Site) -> Iterator[tuple[Cutoff, str, str]]:
    """Each statement of a cut-off day that disagrees with most of the others about the same thing: the
    day a view labels a date column's rows by a word ("archived" before 2026-12-17) against the day the
    guards whose messages say that word test the column against (votes on a post created before
    2025-12-17 are refused as "archived"). With the statement, the day most of them say, and what the
    others are (a page that calls every post archived while they all take votes). Only a strict
    majority counts; statements are grouped by a view label's words."""
    found = list(_cutoffs(site))
    out: dict[str, tuple[Cutoff, str, str]] = {}
    for label in (c for c in found if c.where.startswith("$.database.views")):
        same = [c for c in found if (c.table, c.column) == (label.table, label.column) and label.words <= c.words
                and (c.words == label.words or not c.where.startswith("$.database.views"))]
        if len(same) < 3 or not any(not c.where.startswith("$.database.views") for c in same):
            continue
        days = Counter(c.day for c in same)
        (top, count), *rest = days.most_common()
        if not rest or rest[0][1] == count:
            continue
        for wrong in same:
            if wrong.day != top and wrong.where not in out:
                out[wrong.where] = (wrong, top, f"{label.table}.{label.column} against {top} in {count} of {len(same)}")
    yield from out.values()


def cutoff_fix(cutoff: Cutoff, day: str) -> str:
    """The value at ``cutoff.where`` with the day it should say."""
    if cutoff.span == (0, 0):
        return day
    start, end = cutoff.span
    return cutoff.text[:start] + day + cutoff.text[end:]


def disagreeing_view_cutoffs(site: Site) -> Iterator[Fix]:
    """:func:`disagreeing_cutoffs` in views, with the SQL that fixes them."""
    for cutoff, day, others in disagreeing_cutoffs(site):
        if cutoff.where.startswith("$.database.views"):
            yield Fix(cutoff.where, f"it labels {cutoff.table} rows {cutoff.label!r} by "
                      f"{cutoff.column} against {cutoff.day}, while the site's guards and pages about the same "
                      f"test {others}: the page says one thing and the site does another", cutoff.text,
                      cutoff_fix(cutoff, day))


_WALL_CLOCK = (
    (re.compile(r"\bdate\s*\(\s*'now'\s*(?:,\s*'(?:localtime|utc)'\s*)?\)", re.I), "today"),
    (re.compile(r"\bdatetime\s*\(\s*'now'\s*(?:,\s*'(?:localtime|utc)'\s*)?\)", re.I), "now"),
    (re.compile(r"\bstrftime\s*\(\s*'%Y-%m-%d'\s*,\s*'now'\s*\)", re.I), "today"),
    (re.compile(r"\bcurrent_date\b", re.I), "today"),
    (re.compile(r"\bcurrent_timestamp\b", re.I), "now"),
)
"""The machine's clock in SQL, and which of the site's clocks it means."""


def wall_clock(location: str, sql: str, *, in_effect: bool) -> Iterator[Fix]:
    """SQL that reads the machine's clock (``date('now')``, ``CURRENT_TIMESTAMP``): the engine refuses it
    (a run must not depend on the day it runs), so the statement always fails. The fix reads the
    site's own clock: ``:today`` or ``:now`` in an effect, ``vw_today()`` or ``vw_now()`` elsewhere."""
    fixed, said = sql, []
    for pattern, which in _WALL_CLOCK:
        said += [m.group(0) for m in pattern.finditer(fixed)]
        fixed = pattern.sub(f":{which}" if in_effect else f"vw_{which}()", fixed)
    if said:
        yield Fix(location, f"{', '.join(said)} reads the machine's clock, which the engine refuses (a run must not "
                            f"depend on the day it runs), so the statement always fails: the site's clock is read "
                            f"instead", sql, fixed)


_AGGREGATE_EXISTS = re.compile(r"\bEXISTS\s*\(\s*SELECT\s+((?:count|sum|total|max|min|avg|group_concat)\s*\()", re.I)


def always_existing(location: str, sql: str) -> Iterator[Fix]:
    """``EXISTS (SELECT count(*) FROM ... WHERE ...)``: an aggregate without ``GROUP BY`` gives one row
    even over no rows, so the test always holds (an empty cart passes "the cart is not empty"). The
    fix asks for a row (``EXISTS (SELECT 1 FROM ...)``)."""
    from veriweb.verify.dataflow import _top_keyword, closing_paren

    fixed = sql
    for found in reversed(list(_AGGREGATE_EXISTS.finditer(sql))):
        end = closing_paren(sql, found.end(1) - 1)
        inner_close = closing_paren(sql, sql.index("(", found.start()))
        if end is None or inner_close is None or _top_keyword(sql[found.end(1):inner_close], "GROUP") >= 0:
            continue
        fixed = fixed[:found.start(1)] + "1" + fixed[end + 1:]
    if fixed != sql:
        yield Fix(location, "EXISTS over an aggregate always finds its one row, even where no row matches: the test "
                            "always holds; it should ask for a row", sql, fixed)


_YES_WORDS = frozenset({"ok", "yes", "true", "pass", "passed", "valid", "fine", "allowed", "allow", "good", "in stock"})


def worded_results(location: str, sql: str) -> Iterator[Fix]:
    """A guard whose result is a word in every case (``CASE WHEN ... THEN 'oversold' ELSE 'ok' END``): a
    guard holds when its result is true, and a word is no truth value, so the guard tests nothing.
    When one word says yes ("ok"), the fix compares the result with it."""
    body = sql.strip()
    found = re.fullmatch(r"SELECT\s+(CASE\b.*\bEND)\s*", body, re.I | re.S)
    if found is None:
        return
    words = re.findall(r"\b(?:THEN|ELSE)\s+'([^']*)'", found.group(1), re.I)
    branches = len(re.findall(r"\b(?:THEN|ELSE)\b", found.group(1), re.I))
    if len(words) < 2 or len(words) != branches:
        return
    yes = [w for w in words if w.strip().casefold() in _YES_WORDS]
    if len(yes) == 1:
        yield Fix(location, f"the guard's result is a word in every case ({', '.join(map(repr, words))}), never true or "
                            f"false: it tests nothing; it should compare the result with {yes[0]!r}", sql,
                  f"SELECT ({found.group(1)}) = '{yes[0]}'")


_VERBS = {"insert": "insert", "replace": "insert", "update": "update", "delete": "delete"}
_REMOVING = re.compile(r"^(?:delete|remove|discard|erase|purge|trash_forever)(?:_|$)")


def misdeclared_effects(site: Site) -> Iterator[Fix]:
    """An effect whose statement is not the write it is declared as. A marker named for removing
    (``delete_comment``), declared to delete, whose statement only updates the row (``SET body =
    '[deleted]'``): the row stays listed, and a task's footprint that allows deletes refuses the
    update; the fix deletes the rows the update picked. Any other mismatch (an ``INSERT`` declared
    ``update``): the engine passes on the new row's id only for an insert, so what follows the write
    opens the wrong record; the fix declares what the statement does."""
    for m, marker in enumerate(site.markers):
        for e, effect in enumerate(marker.effects):
            found = re.match(r"\s*(\w+)", effect.sql)
            verb = _VERBS.get(found.group(1).lower()) if found else None
            if verb is None or verb == effect.op:
                continue
            where = f"$.markers[{m}].effects[{e}]"
            update = re.fullmatch(r"\s*UPDATE\s+(\w+)\s+SET\s+.+?\s+(WHERE\s+.+)", effect.sql, re.I | re.S)
            if effect.op == "delete" and update is not None and _REMOVING.match(marker.name):
                yield Fix(f"{where}.sql", f"marker {marker.name!r} is declared to delete {effect.table} rows, but its "
                                          f"statement only updates them: the rows stay where they were listed; it "
                                          f"should delete them", effect.sql,
                          f"DELETE FROM {update.group(1)} {update.group(2)}")
            else:
                yield Fix(f"{where}.op", f"marker {marker.name!r} declares an {effect.op} of {effect.table}, but its "
                                         f"statement is an {verb}: what follows the write reads the wrong row",
                          effect.op, verb)


_FRESH_NUMBER = re.compile(r"\(\s*SELECT\s+(?:coalesce\s*\(\s*)?max\s*\(\s*\w+\s*\)(?:\s*,\s*0\s*\))?\s+FROM\s+(\w+)\s*\)"
                           r"\s*\+\s*1\b", re.I)


def borrowed_numbers(site: Site) -> Iterator[Fix]:
    """An insert that numbers its new row from the highest id of another table the marker does not write
    (``(SELECT max(id) FROM stays) + 1`` for a flight booking's reference): that table does not grow
    as these rows are made, so every new row gets the same number. The fix numbers from the table the
    row goes into."""
    for m, marker in enumerate(site.markers):
        written = {x.table for x in marker.effects}
        for e, effect in enumerate(marker.effects):
            if effect.op != "insert":
                continue
            for found in _FRESH_NUMBER.finditer(effect.sql):
                if found.group(1) in written or site.database.table(found.group(1)) is None:
                    continue
                fixed = effect.sql[:found.start(1)] + effect.table + effect.sql[found.end(1):]
                yield Fix(f"$.markers[{m}].effects[{e}].sql", f"marker {marker.name!r} numbers each new {effect.table} "
                                                              f"row from the highest of {found.group(1)}, which it "
                                                              f"never adds to: every new row gets the same number",
                          effect.sql, fixed)
                break


__all__ = ["Cutoff", "unheld_effect_tests", "cutoff_fix", "disagreeing_cutoffs", "disagreeing_view_cutoffs", "literal_writes", "misspelt_sql",
           "misspelt_writes", "today_typos", "always_existing", "wall_clock", "worded_results", "misdeclared_effects", "borrowed_numbers"]

"""Checks of guards that look right and do not guard: against their own messages and the seed data.

An author writes a precondition and its message together; when they disagree, the message is
what users and tasks believe, and the SQL is what runs. These checks read a guard's SQL
against evidence in the site:

- C009, a guard that admits values its message rules out: "Only orders that have not shipped
  can be cancelled" over ``status IN ('placed', 'shipped')``; "The pipeline must pass" over
  ``pipeline IS NOT NULL``. The values are those the column holds in the seed rows or gets from
  markers' writes; the repair rewrites the test to admit what the message admits.
- C009, a guard that compares a column with a value no row holds, spelt like one that is
  (``'cancelled'`` for ``'canceled'``, ``'owner'`` for ``'Owner'``): it never matches; the repair
  spells it as the data does.
- C009, a guard that keeps a date after a fixed day that every date the column holds, and the
  site's today, are already after (``date > '2020-01-01'`` for "this flight has already
  departed"), with no other test of today: it never blocks; the repair compares with today.
- C005, a marker that stores two dates from what the user types while every seed row keeps them
  in order (check-in before check-out), and no guard compares them: the repair adds the
  precondition.
- C005, a parameter whose maximum is above every choice the forms offer and every value the
  column it writes holds (ratings up to 10 on five stars): the repair lowers it.
- C005, a marker that raises an amount the seed rows keep under another (refunded under total)
  with no guard reading it: the repair adds the invariant the rows keep.
- C009, a guard that looks for rows each user owns without naming the user, while its marker acts
  on the user's own rows ("your cart is empty" checked over every cart; "You already have a
  booking on this flight" over anyone's booking of it): the repair names the user.
- C005, a marker that records an amount as a row under a parent and sets the parent's figure to it
  instead of adding it (a second refund forgets the first): the repair adds it.
- C005, a fee its form prices per unit ("$35 per passenger") that the marker adds once, whatever
  the units (read by evaluating the written expression with one unit and with two): the repair
  multiplies it by the units.
- C005, a marker that deletes or updates rows other markers add as the user's own, with a
  condition that names neither the user nor one row (unstarring removes everyone's star): the
  repair limits it to the user's rows.
- C005, two markers that add and remove the same link rows and move the count kept on the row
  they point at the same way (joining and leaving both raise a community's members): the repair
  turns the step of the one that moves against its rows.
- C005, of two such markers one that leaves the count alone (leaving no longer lowers the members):
  the repair adds the step back.

:func:`guard_fixes` gives each finding with the SQL that fixes it; the repair operators apply it
(:func:`veriweb.verify.repair_pages.restore_guard`, :func:`veriweb.verify.repair.tighten_marker`).
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import re
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from veriweb.errors import VeriwebError
from veriweb.scaffold import Site
from veriweb.scaffold.values import Compare, SqlPredicate
from veriweb.verify import checks as C
from veriweb.verify.checks_views import _aliases, column_values
from veriweb.verify.dataflow import _top_keyword, parse_effect, set_span, split_top
from veriweb.verify.wording import stem

_NEGATION = re.compile(r"\b(?:not|no|never|cannot|can't|non|nor|isn't|aren't|wasn't|already)\b", re.I)
_ONLY = re.compile(r"\b(?:only|must|just)\b", re.I)


@dataclass(frozen=True)
class GuardFix:
    """One finding: where (a guard's predicate, or a marker), what is wrong, and the fix: the guard's
    new SQL (``sql``), a guard to add (``add``: its SQL, message, parameters, and whether it is one
    of the ``preconditions`` or the ``invariants``), or an effect to add (``effect``)."""

    location: str
    code: str
    message: str
    sql: str = ""
    add: tuple[str, str, dict[str, Any], str] | None = None
    effect: tuple[int, dict[str, str]] | None = None
    """An effect to insert into the marker: its position and its ``op``, ``table`` and ``sql``."""


_DOMAINS: dict[int, tuple[Any, dict[tuple[str, str], dict[str, str]]]] = {}
""":func:`_domains` of the sites checked last, by ``id`` with a weak reference that tells a reused id."""


def _domains(site: Site) -> dict[tuple[str, str], dict[str, str]]:
    """The values of each text column that reads like a status (two to eight short values in the seed
    rows), with those markers write (:func:`veriweb.verify.checks_views.column_values`). Made once per
    site object (the view, guard and label checks each ask): shared, do not change it."""
    found = _DOMAINS.get(id(site))
    if found is not None and found[0]() is site:
        return found[1]
    if len(_DOMAINS) >= 64:
        _DOMAINS.clear()
    out = _make_domains(site)
    _DOMAINS[id(site)] = (weakref.ref(site), out)
    return out


def _make_domains(site: Site) -> dict[tuple[str, str], dict[str, str]]:
    values = column_values(site)
    out: dict[tuple[str, str], dict[str, str]] = {}
    for table in site.database.tables:
        for column in table.columns:
            seed = {r[column.name] for r in table.rows if isinstance(r.get(column.name), str)}
            if column.type == "text" and 2 <= len(seed) <= 8 and all(len(v) <= 24 for v in seed):
                out[(table.name, column.name)] = values[(table.name, column.name)]
    return out


def _stems(name: str) -> set[str]:
    return {stem(w) for w in re.split(r"[_\W]+", name) if w}


def _mentions(message: str, values: dict[str, str], action: set[str]) -> tuple[set[str], set[str], bool]:
    """The values a guard's message names as allowed and as ruled out, and whether it says "only"; a
    word of the marker's own name (``action``: "cancelled" for ``cancel_order``) names what it does,
    not a value."""
    allowed: set[str] = set()
    ruled_out: set[str] = set()
    stems = {stem(v): v for v in values if " " not in v and stem(v) not in action}
    words = list(re.finditer(r"[A-Za-z']+", message))
    for index, word in enumerate(words):
        value = stems.get(stem(word.group(0)))
        if value is None and word.group(0).lower().startswith("un"):
            value = stems.get(stem(word.group(0)[2:]))
            if value is not None:
                ruled_out.add(value)
                continue
        if value is None:
            continue
        before = message[words[max(0, index - 3)].start():word.start()]
        after = message[word.end():words[min(len(words) - 1, index + 3)].end()]
        # "not shipped", or "A canceled order cannot change its status": the value is ruled out
        (ruled_out if _NEGATION.search(before) or _BARRED.search(after) else allowed).add(value)
    return allowed - ruled_out, ruled_out, bool(_ONLY.search(message))


_BARRED = re.compile(r"\b(?:cannot|can't|can not|may not|must not|won't|will not|is not allowed|are not allowed)\b",
                     re.I)
"""What follows a value a message rules out as the subject ("A canceled order cannot change")."""


_TEST = re.compile(r"\b(?:(?P<alias>\w+)\.)?(?P<column>\w+)\s+(?:(?P<op>=|!=|<>)\s*'(?P<value>[^']*)'|"
                   r"(?P<neg>NOT\s+)?IN\s*\((?P<list>[^)]*)\)|IS\s+NOT\s+NULL)", re.I)


def _admitted(match: re.Match[str], domain: dict[str, str]) -> set[str]:
    if match.group("op"):
        value = match.group("value").lower()
        return {value} if match.group("op") == "=" else set(domain) - {value}
    if match.group("list") is not None:
        listed = {v.lower() for v in re.findall(r"'([^']*)'", match.group("list"))}
        return set(domain) - listed if match.group("neg") else listed
    return set(domain)  # IS NOT NULL: every value


def _rewrite(match: re.Match[str], values: list[str]) -> str:
    column = f"{match.group('alias')}.{match.group('column')}" if match.group("alias") else match.group("column")
    return _rewrite_values(column, values)


def _rewrite_values(column: str, values: list[str]) -> str:
    """``column = 'v'`` for one value, ``column IN ('v', 'w')`` for several."""
    if len(values) == 1:
        return f"{column} = '{values[0]}'"
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


def _sql_guards(site: Site) -> Iterator[tuple[str, Any, Any, str]]:
    """Each guard in SQL: its predicate's path, the marker, the guard, and its SQL."""
    for m_index, marker in enumerate(site.markers):
        for kind in ("preconditions", "invariants"):
            for index, guard in enumerate(getattr(marker, kind)):
                if isinstance(guard.predicate, SqlPredicate):
                    yield f"$.markers[{m_index}].{kind}[{index}].predicate", marker, guard, guard.predicate.sql


def _tests(sql: str, domains: dict[tuple[str, str], dict[str, str]]) -> Iterator[tuple[re.Match[str], dict[str, str]]]:
    """Each test of ``sql`` on a column whose values are known, with those values."""
    aliases = _aliases(sql)
    for match in _TEST.finditer(sql):
        domain = domains.get((_table_of(match, aliases, domains), match.group("column")))
        if domain is not None:
            yield match, domain


def _table_of(match: re.Match[str], aliases: dict[str, str], domains: dict[tuple[str, str], dict[str, str]]) -> str:
    """The table whose column a test of :data:`_TEST` reads (``""``: none known)."""
    return aliases.get(match.group("alias") or "") or next(
        (t for t in aliases.values() if (t, match.group("column")) in domains), "")


def _message_guards(site: Site, domains: dict[tuple[str, str], dict[str, str]]) -> Iterator[GuardFix]:
    for location, marker, guard, sql in _sql_guards(site):
        if not guard.message:
            continue
        for match, domain in _tests(sql, domains):
            allowed, ruled_out, only = _mentions(guard.message, domain, _stems(marker.name))
            admitted = _admitted(match, domain) & set(domain)
            wrong = admitted & ruled_out
            required = re.search(r"\bmust (?:be |have |first )?(\w+)", guard.message, re.I)
            named = required is not None and {stem(required.group(1))} & {stem(v) for v in allowed}
            if only and allowed and len(admitted - allowed) >= (1 if named and len(allowed) == 1 else 2):
                # "only X": two or more others let through (one may be a kind of X); "must pass": any other
                wrong |= admitted - allowed
            if not wrong:
                continue
            keep = sorted(allowed if only and allowed else admitted - ruled_out)
            if not keep:
                continue
            fixed = sql[:match.start()] + _rewrite(match, [domain[v] for v in keep]) + sql[match.end():]
            said = ", ".join(repr(domain[v]) for v in sorted(wrong))
            yield GuardFix(location, C.VACUOUS_GUARD,
                           f"a check of marker {marker.name!r} lets {match.group('column')} {said} through, "
                           f"but its message says {guard.message!r}", sql=fixed)
            break


def _untested_columns(site: Site, domains: dict[tuple[str, str], dict[str, str]]) -> Iterator[GuardFix]:
    """C009: a guard whose message allows only some values of a column ("Only maintainers of this
    project can merge") that reads the column's table but never tests the column: every member gets
    through. The fix tests it for the values the message names."""
    for location, marker, guard, sql in _sql_guards(site):
        if guard.message and _ONLY.search(guard.message):
            found = next(_untested_column(sql, guard.message, marker.name, domains), None)
            if found is not None:
                table, column, fixed = found
                yield GuardFix(location, C.VACUOUS_GUARD,
                               f"a check of marker {marker.name!r} says {guard.message!r}, but it never tests "
                               f"{table}.{column}: every {table} row gets through", sql=fixed)


def _untested_column(sql: str, message: str, marker: str,
                     domains: dict[tuple[str, str], dict[str, str]]) -> Iterator[tuple[str, str, str]]:
    """Each ``(table, column, fixed SQL)`` for a column of a table ``sql`` reads that it never tests
    while ``message`` allows only some of its values (see :func:`_untested_columns`)."""
    aliases = _aliases(sql)
    close = sql.rstrip().rfind(")")
    if close < 0 or not re.search(r"\bWHERE\b", sql[:close], re.I):
        return
    # A table one of whose other columns the guard tests against values is already narrowed: "Only
    # messages in Bin" over folders.kind = 'trash' (the Bin's kind) tests the folder, not its name.
    narrowed = {_table_of(match, aliases, domains) for match, _ in _tests(sql, domains)}
    for alias, table in aliases.items():
        if alias == table and any(a != t and t == table for a, t in aliases.items()):
            continue  # the table's name where an alias stands for it
        if table in narrowed:
            continue
        for (t, column), domain in domains.items():
            if t != table or re.search(rf"\b{re.escape(column)}\b", sql):
                continue
            allowed, ruled_out, only = _mentions(message, domain, _stems(marker))
            if not (only and allowed) or ruled_out or len(allowed) >= len(domain):
                continue
            named = [domain[v] for v in sorted(allowed)]
            target = f"{alias}.{column}" if alias != table or len(aliases) > 1 else column
            test = _rewrite_values(target, named)
            yield table, column, sql[:close].rstrip() + f" AND {test}" + sql[close:]


def near_value(value: str, known: set[str] | list[str]) -> str | None:
    """The one known value that ``value`` (known to none) is a misspelling of: the same but for case,
    the same word stem (``'opened'`` for ``'open'``), or one letter or so off (``'cancelled'`` for
    ``'canceled'``); ``None`` when none or several are."""
    import difflib

    same = [k for k in known if k.lower() == value.lower()]
    if not same:
        same = [k for k in known if stem(k) == stem(value) and " " not in k and " " not in value]
    if not same:
        same = difflib.get_close_matches(value, sorted(known), n=2, cutoff=0.85)[:1]
    return same[0] if len(same) == 1 else None


def misspelt_tests(sql: str, domains: dict[tuple[str, str], dict[str, str]]) -> tuple[str, list[tuple[str, str]]]:
    """``sql`` with each value it tests a known column against that no row holds or is given, but that
    is a misspelling of one (:func:`near_value`), put right; and those ``(value, right value)`` pairs."""
    fixed, wrong = sql, []
    for match, domain in _tests(sql, domains):
        written = set(domain.values())
        listed = [match.group("value")] if match.group("op") else re.findall(r"'([^']*)'", match.group("list") or "")
        for value in listed:
            if value in written or (value, value) in wrong:
                continue
            near = near_value(value, written)
            if near is not None and (value, near) not in wrong:
                wrong.append((value, near))
                fixed = fixed.replace(f"'{value}'", f"'{near}'")
    return fixed, wrong


def _misspelt_values(site: Site, domains: dict[tuple[str, str], dict[str, str]]) -> Iterator[GuardFix]:
    """C009: a guard that compares a column with a value no row holds or is given, spelt like one that
    is (``status = 'cancelled'`` where the data says ``'canceled'``, ``'owner'`` for ``'Owner'``): SQLite
    compares exactly, so the test never matches."""
    for location, marker, _, sql in _sql_guards(site):
        fixed, wrong = misspelt_tests(sql, domains)
        if wrong:
            said = ", ".join(f"{v!r} (the data says {n!r})" for v, n in wrong)
            yield GuardFix(location, C.VACUOUS_GUARD,
                           f"a check of marker {marker.name!r} compares with {said}, a value no row holds or "
                           f"gets: the test never matches", sql=fixed)


def _unheld_values(site: Site, domains: dict[tuple[str, str], dict[str, str]]) -> Iterator[GuardFix]:
    """C009: a guard that compares a column with a value no row holds or is given, and is no misspelling
    of one (``pipeline = 'success'`` where pipelines are 'passed' or 'failed'), whose message names one
    value the column does hold ("The pipeline must pass"): the test never matches. The fix compares with
    the value the message names."""
    for location, marker, guard, sql in _sql_guards(site):
        said = {stem(w) for w in re.findall(r"[a-z]+", (guard.message or "").lower())}
        fixed, wrong = sql, []
        for match, domain in _tests(sql, domains):
            value = match.group("value") if match.group("op") == "=" else None
            written = set(domain.values())
            if value is None or value in written or near_value(value, written) is not None or len(written) < 2:
                continue
            named = [v for v in sorted(written) if stem(v.lower()) in said]
            if len(named) == 1:
                wrong.append((value, named[0]))
                fixed = fixed.replace(f"'{value}'", f"'{named[0]}'")
        if wrong:
            shown = ", ".join(f"{v!r} (its message speaks of {n!r})" for v, n in wrong)
            yield GuardFix(location, C.VACUOUS_GUARD, f"a check of marker {marker.name!r} compares with {shown}, a value "
                                                      f"no row holds or gets: the test never matches", sql=fixed)


_AT_MOST = re.compile(r"\b(?:at most|no more than|up to|a maximum of|maximum of|not more than)\s+(\d+)\b", re.I)
_AT_LEAST = re.compile(r"\b(?:at least|no less than|no fewer than|a minimum of|minimum of|not less than)\s+(\d+)\b", re.I)
_CHARACTERS = {"slash": "/", "space": " ", "spaces": " ", "comma": ",", "commas": ",", "dot": ".", "period": ".",
               "hyphen": "-", "dash": "-", "colon": ":", "semicolon": ";", "backslash": "\\", "slashes": "/",
               "at sign": "@", "apostrophe": "'", "quote": '"'}


def _off_by_one_bounds(site: Site) -> Iterator[GuardFix]:
    """C009: a guard whose message allows a bound itself ("at most 21 nights", "at least 2 characters") while
    its SQL compares strictly with that number (``< 21``, ``> 2``): the bound the message promises is
    refused. The fix compares inclusively."""
    for location, marker, guard, sql in _sql_guards(site):
        message, fixed = guard.message or "", sql
        for said, strict, inclusive in ((_AT_MOST, "<", "<="), (_AT_LEAST, ">", ">=")):
            for number in {m.group(1) for m in said.finditer(message)}:
                fixed = re.sub(rf"(?<![<>=!]){strict}\s*{number}\b(?!\s*[-+*/.])", f"{inclusive} {number}", fixed)
        if fixed != sql:
            yield GuardFix(location, C.VACUOUS_GUARD, f"a check of marker {marker.name!r} says {message!r} but compares "
                                                      f"strictly: the bound it promises is refused", sql=fixed)


def _misnamed_characters(site: Site) -> Iterator[GuardFix]:
    """C009: a guard refusing a character in what is typed (``instr(:n, ' ') = 0``) whose message names
    another one ("names cannot contain a slash"): names with spaces are refused, and slashes go through.
    The fix tests the character the message names."""
    for location, marker, guard, sql in _sql_guards(site):
        words = (guard.message or "").lower()
        named = {c for word, c in _CHARACTERS.items() if re.search(rf"\b{word}\b", words)}
        tests = list(re.finditer(r"\binstr\s*\(\s*(:\w+)\s*,\s*'([^']+)'\s*\)", sql, re.I))
        if len(named) != 1 or len(tests) != 1 or tests[0].group(2) in named:
            continue
        char = next(iter(named))
        found = tests[0]
        fixed = sql[:found.start(2)] + char.replace("'", "''") + sql[found.end(2):]
        yield GuardFix(location, C.VACUOUS_GUARD, f"a check of marker {marker.name!r} refuses {found.group(2)!r} in "
                                                  f"{found.group(1)}, while its message {guard.message!r} names "
                                                  f"{char!r}", sql=fixed)


def _other_tables_keys(site: Site) -> Iterator[GuardFix]:
    """C009: a guard looking up one table's row (``FROM comments WHERE id = :p``) by a parameter that is the
    key of another table (``:p`` is ``param.post_id``), when that table has every column the guard reads:
    the guard reads an unrelated row. The fix reads the table the key belongs to."""
    tables = {t.name: t for t in site.database.tables}
    for location, marker, guard, sql in _sql_guards(site):
        bound = _bound_params(guard.predicate)
        found = re.fullmatch(r"\s*SELECT\s+(?:NOT\s+)?EXISTS\s*\(\s*SELECT\s+1\s+FROM\s+(\w+)\s+WHERE\s+(.*)\)\s*", sql, re.I | re.S)
        if found is None or found.group(1) not in tables:
            continue
        table, condition = tables[found.group(1)], found.group(2)
        key = re.search(r"(?<![\w.])id\s*=\s*:(\w+)", condition)
        param = bound.get(key.group(1), key.group(1)) if key is not None else ""
        owner = param[:-3] if param.endswith("_id") else ""
        right = next((t for n, t in tables.items() if owner and n in (owner + "s", owner + "es", owner)), None)
        if right is None or right.name == table.name:
            continue  # the key of the row's own table
        read = set(re.findall(r"(?<![\w.:'])([a-z_]\w*)\s*(?:=|>=|<=|<|>|!=|<>|\bIN\b|\bIS\b|\bLIKE\b)", condition, re.I))
        if all(right.column(c) is not None or c == right.primary_key for c in read):
            fixed = sql[:found.start(1)] + right.name + sql[found.end(1):]
            yield GuardFix(location, C.VACUOUS_GUARD, f"a check of marker {marker.name!r} looks up a {table.name} row by "
                                                      f"{param}, the key of {right.name}: it reads an unrelated row",
                           sql=fixed)


def _like(pattern: str) -> re.Pattern[str]:
    """SQLite's ``LIKE`` pattern as a regular expression (case-insensitive, as SQLite's is for ASCII)."""
    return re.compile("".join(".*" if c == "%" else "." if c == "_" else re.escape(c) for c in pattern), re.I | re.S)


def _strict_patterns(site: Site) -> Iterator[GuardFix]:
    """C009: a guard requiring what is typed to match a pattern (``:m LIKE '%.com'``) that most values the
    column it is written into holds do not match (contacts at ``.example`` addresses), beside another test
    of the same value: the site's own rows could not have been written through it. The fix drops that
    pattern."""
    from veriweb.verify.checks_params import _param_writes

    writes = {(marker.name, param.name): (table, column) for _, marker, _, param, table, column in _param_writes(site)}
    for location, marker, guard, sql in _sql_guards(site):
        bound = _bound_params(guard.predicate)
        for found in re.finditer(r"\s+AND\s+:(\w+)\s+LIKE\s+'([^']*)'|:(\w+)\s+LIKE\s+'([^']*)'\s+AND\s+", sql, re.I):
            name, pattern = (found.group(1), found.group(2)) if found.group(1) else (found.group(3), found.group(4))
            target = writes.get((marker.name, bound.get(name, name)))
            table = site.database.table(target[0]) if target is not None else None
            values = [v for r in table.rows if isinstance(v := r.get(target[1]), str)] if table is not None else []
            if len(values) < 3 or not re.search(rf":{re.escape(name)}\b", sql[:found.start()] + sql[found.end():]):
                continue
            misses = [v for v in values if not _like(pattern).fullmatch(v)]
            if 2 * len(misses) > len(values):
                yield GuardFix(location, C.VACUOUS_GUARD,
                               f"a check of marker {marker.name!r} wants {name} LIKE {pattern!r}, which {len(misses)} of the "
                               f"{len(values)} values of {target[0]}.{target[1]} do not match (such as {misses[0]!r}): the "
                               f"site's own rows could not have been written through it",
                               sql=sql[:found.start()] + sql[found.end():])
                break


def _unsaid_today_tests(site: Site) -> Iterator[GuardFix]:
    """C009: a guard that also demands a date column be today (``AND created = :today``) while its message
    speaks of something else ("You can only delete your own notes") and hardly any row is from today: the
    marker refuses nearly every row for a reason nobody is told. The fix drops that test."""
    for location, marker, guard, sql in _sql_guards(site):
        if re.search(r"\b(?:today|day|date|time|yesterday|hours?|minutes?|new|recent|just|fresh|now|soon|late|early)\b",
                     guard.message or "", re.I):
            continue
        found = re.search(r"\s+AND\s+(?:(\w+)\.)?(\w+)\s*=\s*:today\b", sql)
        table = site.database.table(_aliases(sql).get(found.group(1) or "", "") or next(iter(_aliases(sql).values()), "")) \
            if found is not None else None
        days = [str(r.get(found.group(2)))[:10] for r in table.rows] if table is not None and found is not None else []
        if not days or 5 * sum(d == str(site.clock.today) for d in days) > len(days):
            continue  # its table unknown, or many rows are today's: the test may be meant
        yield GuardFix(location, C.VACUOUS_GUARD, f"a check of marker {marker.name!r} also demands {found.group(2)} be "
                                                  f"today, which its message {guard.message!r} does not say: nearly every "
                                                  f"row is refused for a reason nobody is told",
                       sql=sql[:found.start()] + sql[found.end():])


# ----------------------------------------------------------------------------- fixed days

_FIXED_DAY = re.compile(r"\b(?:(\w+)\.)?(\w+)\s*(>=|>|<=|<)\s*'(\d{4}-\d{2}-\d{2})'")


def _fixed_days(site: Site) -> Iterator[GuardFix]:
    today = str(site.clock.today)[:10]
    dates = {(t.name, c.name): [r.get(c.name) for r in t.rows if isinstance(r.get(c.name), str)]
             for t in site.database.tables for c in t.columns if c.type in ("date", "datetime")}
    for location, marker, _, sql in _sql_guards(site):
        if re.search(r":today\b|vw_today\(\)", sql):
            continue  # a fixed day beside today is a cap or a floor of its own, not today misspelt
        aliases = _aliases(sql)
        for match in _FIXED_DAY.finditer(sql):
            alias, column, op, day = match.groups()
            if not op.startswith(">"):
                continue  # "until a fixed day": a cap, whatever today is
            table = aliases.get(alias or "") or next((t for t in aliases.values() if (t, column) in dates), None)
            values = [v[:10] for v in dates.get((table or "", column), [])]
            if len(set(values)) < 3 or not today > day or not all(v > day for v in values):
                continue
            fixed = sql[:match.start(4) - 1] + ":today" + sql[match.end(4) + 1:]
            yield GuardFix(location, C.VACUOUS_GUARD,
                           f"a check of marker {marker.name!r} can never block: it compares {column} with the fixed "
                           f"day {day}, and every {column} is after it, as today ({today}) is; it never tells a "
                           f"past {column} from a future one", sql=fixed)
            break


# ----------------------------------------------------------------------------- dates typed out of order


def _day(value: Any) -> str | None:
    if isinstance(value, str) and re.match(r"\d{4}-\d{2}-\d{2}", value):
        try:
            dt.date.fromisoformat(value[:10])
        except ValueError:
            return None
        return value[:10]
    return None


def _guard_texts(marker: Any) -> list[str]:
    """Each guard of a marker as text: its SQL, or ``left op right`` with references as ``:name``."""
    out = []
    for guard in [*marker.preconditions, *marker.invariants]:
        predicate = guard.predicate
        if isinstance(predicate, SqlPredicate):
            names = _bound_params(predicate)
            out.append(re.sub(r":(\w+)", lambda m: f":{names.get(m.group(1), m.group(1))}", predicate.sql))
        elif isinstance(predicate, Compare):
            def side(value: Any) -> str:
                ref = getattr(value, "ref", None)
                return f":{ref.split('.', 1)[1]}" if isinstance(ref, str) and ref.startswith("param.") else repr(value)
            out.append(f"{side(predicate.left)} {predicate.op} {side(predicate.right)}")
    return out


def _ordered(texts: list[str], first: str, then: str, *, strict: bool = False) -> bool:
    """Do the guards keep ``:then`` after ``:first``, directly or through others (``:ci > :today`` and
    ``:co > :ci`` keep ``:co`` after ``:today``)? A comparison ``:b > :a`` (or ``:a < :b``), or a
    difference ``... :b ... - ... :a ... > 0``, puts ``b`` after ``a``; ``>=`` and ``<=`` put it at or
    after, which is not enough when ``strict`` (some step of the chain must rule out the same day)."""
    after: dict[str, set[tuple[str, bool]]] = {}
    for text in texts:
        for b, op, a in re.findall(r":(\w+)\s*(>=?)\s*:(\w+)", text):
            after.setdefault(a, set()).add((b, op == ">"))
        for a, op, b in re.findall(r":(\w+)\s*(<=?)\s*:(\w+)", text):
            after.setdefault(a, set()).add((b, op == "<"))
        for b, a in re.findall(r":(\w+)\b[^<>=]*-[^<>=]*:(\w+)\b[^<>=]*(?:>\s*0|>=\s*1)\b", text):
            after.setdefault(a, set()).add((b, True))
    seen, todo = {(first, False)}, [(first, False)]
    while todo:
        node, was_strict = todo.pop()
        for nxt, step_strict in after.get(node, set()):
            state = (nxt, was_strict or step_strict)
            if state not in seen:
                seen.add(state)
                todo.append(state)
    return (then, True) in seen or (not strict and (then, False) in seen)


def _unordered_dates(site: Site) -> Iterator[GuardFix]:
    for m_index, marker in enumerate(site.markers):
        texts = _guard_texts(marker)
        found = None
        for effect in marker.effects:
            table = site.database.table(effect.table) if effect.op == "insert" else None
            if table is None or found:
                continue
            write = parse_effect(marker.name, effect.op, effect.table, effect.sql)
            typed = {c: s.value for c, s in write.sources.items() if s.kind == "param"}
            dates = [c.name for c in table.columns if c.type in ("date", "datetime") and c.name in typed]
            for first, then in itertools.permutations(dates, 2):
                pairs = [(_day(r.get(first)), _day(r.get(then))) for r in table.rows]
                pairs = [(a, b) for a, b in pairs if a and b]
                if len({a for a, _ in pairs}) < 3 or not all(a < b for a, b in pairs):
                    continue
                p1, p2 = typed[first], typed[then]
                if "today" in (p1, p2) or _ordered(texts, p1, p2, strict=True):
                    continue  # a typed date against today is the date-in-the-past check's (C005 on the parameter)
                words = (then.replace("_", "-").capitalize(), first.replace("_", "-"))
                same = " (a guard lets the two be the same day)" if _ordered(texts, p1, p2) else ""
                found = GuardFix(f"$.markers[{m_index}]", C.UNGUARDED_WRITE,
                                 f"marker {marker.name!r} stores {first} and {then} as typed (:{p1}, :{p2}), and "
                                 f"nothing keeps {then} after {first}, as every seed row of {table.name} has it"
                                 f"{same}",
                                 add=(f"SELECT :{p2} > :{p1}", f"{words[0]} must be after {words[1]}.",
                                      {p: {"ref": f"param.{p}"} for p in (p1, p2) if p != "today"}, "preconditions"))
                break
        if found is not None:
            yield found


# ----------------------------------------------------------------------------- counters against their rows

_STEP = re.compile(r"\bSET\s+(\w+)\s*=\s*\1\s*([+-])\s*(\d+|:\w+)", re.I)


def _counter_moves(site: Site) -> dict[tuple[str, str, str], list[tuple[str, str, int, str, re.Match[str]]]]:
    """For each (link table, table it points at, count column): the markers that add or remove link rows
    and step that count, with the op, the step's sign, where it is and the step's match."""
    moves: dict[tuple[str, str, str], list[tuple[str, str, int, str, re.Match[str]]]] = {}
    for m_index, marker in enumerate(site.markers):
        links = {e.table: e.op for e in marker.effects if e.op in ("insert", "delete")}
        for e_index, effect in enumerate(marker.effects):
            step = _STEP.search(effect.sql) if effect.op == "update" else None
            if step is None:
                continue
            for link, op in links.items():
                table = site.database.table(link)
                if table is None or not any(fk.ref_table == effect.table for fk in table.foreign_keys):
                    continue
                moves.setdefault((link, effect.table, step.group(1)), []).append(
                    (marker.name, op, 1 if step.group(2) == "+" else -1, f"$.markers[{m_index}].effects[{e_index}].sql",
                     step))
    return moves


def _counter_signs(site: Site) -> Iterator[GuardFix]:
    """C005: of two markers that add and remove the same link rows (join / leave) and move the count
    they keep on the row the link points at, one moves it the wrong way: both raise it."""
    for (link, table, column), found in _counter_moves(site).items():
        for name, op, sign, location, step in found:
            natural = 1 if op == "insert" else -1
            if sign == natural or not any(o != op and s == sign for _, o, s, _, _ in found):
                continue
            other = next(n for n, o, s, _, _ in found if o != op and s == sign)
            sql = next(e.sql for m in site.markers if m.name == name for e in m.effects if step.string == e.sql)
            fixed = sql[:step.start(2)] + ("-" if sign > 0 else "+") + sql[step.end(2):]
            did = "removes" if op == "delete" else "adds"
            yield GuardFix(location, C.UNGUARDED_WRITE,
                           f"marker {name!r} {did} a {link} row and {'raises' if sign > 0 else 'lowers'} "
                           f"{table}.{column}, as {other!r} does when it {'adds' if op == 'delete' else 'removes'} "
                           f"one: {column} stops counting the {link} rows", sql=fixed)


def _unmoved_counters(site: Site) -> Iterator[GuardFix]:
    """C005: a marker that adds or removes one link row (leaving a community) and leaves alone the count
    kept on the row it points at, which the marker doing the opposite steps (joining raises the
    members): the count drifts from the rows. The fix steps it back in the marker that does not."""
    for (link, table_name, column), found in _counter_moves(site).items():
        natural = {op for _, op, sign, _, _ in found if sign == (1 if op == "insert" else -1)}
        steppers = {name for name, *_ in found}
        table = site.database.table(table_name)
        source = site.database.table(link)
        if len(natural) != 1 or table is None or source is None:
            continue
        pointers = [fk.column for fk in source.foreign_keys if fk.ref_table == table_name]
        if len(pointers) != 1:
            continue
        wanted = "delete" if natural == {"insert"} else "insert"
        for m_index, marker in enumerate(site.markers):
            if marker.name in steppers or any(e.table == table_name for e in marker.effects):
                continue
            for e_index, effect in enumerate(marker.effects):
                if effect.op != wanted or effect.table != link:
                    continue
                if wanted == "delete":
                    keyed = re.search(rf"(?<![\w.]){re.escape(pointers[0])}\s*=\s*(:\w+)\b", _condition(effect.sql) or "")
                    value = keyed.group(1) if keyed else None
                else:
                    source_of_pointer = parse_effect(marker.name, "insert", link, effect.sql).sources.get(pointers[0])
                    value = f":{source_of_pointer.value}" if getattr(source_of_pointer, "kind", "") == "param" else None
                if value is None or value == ":user_id":
                    continue
                sign = "-" if wanted == "delete" else "+"
                step = {"op": "update", "table": table_name,
                        "sql": f"UPDATE {table_name} SET {column} = {column} {sign} 1 WHERE {table.primary_key} = {value}"}
                did = "removes" if wanted == "delete" else "adds"
                yield GuardFix(f"$.markers[{m_index}]", C.UNGUARDED_WRITE,
                               f"marker {marker.name!r} {did} a {link} row but leaves {table_name}.{column} as it is, "
                               f"which {sorted(steppers)[0]!r} steps when it does the opposite: {column} stops counting "
                               f"the {link} rows", effect=(e_index + 1, step))
                break


_MOVE = re.compile(r"\b(\w+)\s*=\s*\1\s*([+-])\s*(?=[\w:(])", re.I)
_TAKING = {"place", "order", "buy", "purchase", "checkout", "book", "reserve", "rent", "claim", "enroll", "register",
           "sell", "ship", "fulfil", "fulfill", "consume", "use"}
"""Words of a marker's name that take units of what a row holds (an order takes stock, a booking seats)."""
_GIVING = {"cancel", "return", "refund", "restock", "release", "unbook", "void", "replenish", "receive", "undo",
           "withdraw", "drop", "rebook", "change", "move", "swap", "transfer", "edit", "update", "adjust", "set"}
"""Words of a marker's name that give units back, or move them both ways (rebooking frees one seat and takes another)."""
_STOCK = re.compile(r"^(?:stock|seats|seats_left|inventory|available|availability|remaining|capacity|spots|"
                    r"places|rooms_left|units|units_left|in_stock|tickets_left)$", re.I)
"""Columns that count units still to be had."""


def _stock_signs(site: Site) -> Iterator[GuardFix]:
    """C005: a marker named for taking units (``place_order``, ``book_flight``) that raises the column
    counting what is left (``stock = stock + qty``), or one named for giving them back
    (``cancel_booking``, ``restock``) that lowers it: every use moves the count the wrong way."""
    for m_index, marker in enumerate(site.markers):
        words = set(re.split(r"[_\W]+", marker.name.lower()))
        taking, giving = bool(words & _TAKING), bool(words & _GIVING)
        if taking == giving:
            continue
        moves = [(e_index, effect, found) for e_index, effect in enumerate(marker.effects) if effect.op == "update"
                 for found in _MOVE.finditer(re.split(r"\bWHERE\b", effect.sql, maxsplit=1, flags=re.I)[0])
                 if _STOCK.match(found.group(1))]
        if len({(effect.table, found.group(1), found.group(2)) for _, effect, found in moves}) != len(
                {(effect.table, found.group(1)) for _, effect, found in moves}):
            continue  # moves the same count both ways (frees one seat, takes another)
        for e_index, effect, found in moves:
            wrong = "+" if taking else "-"
            if found.group(2) != wrong:
                continue
            fixed = effect.sql[:found.start(2)] + ("-" if wrong == "+" else "+") + effect.sql[found.end(2):]
            yield GuardFix(f"$.markers[{m_index}].effects[{e_index}].sql", C.UNGUARDED_WRITE,
                           f"marker {marker.name!r} {'takes' if taking else 'gives back'} {effect.table} units but "
                           f"{'raises' if taking else 'lowers'} {found.group(1)}, the count of what is left",
                           sql=fixed)


# ----------------------------------------------------------------------------- bounds wider than every choice


def _offered(site: Site, marker: str, param: str) -> list[float] | None:
    """The numbers every form posting to ``marker`` offers for ``param`` (from select or radio options);
    ``None`` when some form lets it be typed, or none offers it."""
    out: list[float] = []
    for page in site.pages:
        for form, _ in C.walk(page.elements, ""):
            if form.type != "form" or form.action.kind != "marker" or form.action.marker != marker:
                continue
            ref = getattr(form.action.args.get(param), "ref", None)
            if not isinstance(ref, str) or not ref.startswith("field."):
                return None
            field = next((f for f in form.fields if f.name == ref[6:]), None)
            options = getattr(field, "options", None) if field is not None else None
            if not options or getattr(field, "options_query", None) is not None:
                return None
            try:
                out += [float(o.value) for o in options]
            except ValueError:
                return None
    return out or None


def _wide_bounds(site: Site) -> Iterator[GuardFix]:
    """C005: a marker parameter whose maximum lets through more than every form offers and every seed
    row of the column it writes holds (a rating up to 10 where the stars go to 5)."""
    for m_index, marker in enumerate(site.markers):
        for p_index, param in enumerate(marker.params):
            if param.max is None or param.type not in ("integer", "real"):
                continue
            offered = _offered(site, marker.name, param.name)
            if offered is None or max(offered) >= param.max:
                continue
            stored = []
            for effect in marker.effects:
                write = parse_effect(marker.name, effect.op, effect.table, effect.sql)
                table = site.database.table(effect.table)
                for column, source in write.sources.items():
                    if source.kind == "param" and source.value == param.name and table is not None:
                        stored += [r[column] for r in table.rows if isinstance(r.get(column), (int, float))]
            if len(stored) < 3 or max(stored) > max(offered):
                continue
            top = max(offered)
            yield GuardFix(f"$.markers[{m_index}].params[{p_index}]", C.UNGUARDED_WRITE,
                           f"marker {marker.name!r} accepts {param.name} up to {param.max:g}, but every form "
                           f"offers at most {top:g} and no stored row holds more: the bound lets in values the "
                           f"site never shows", sql=f"{top:g}")


# ----------------------------------------------------------------------------- a raised counter with no ceiling


def _seed_ceiling(table: Any, column: str) -> str | None:
    """The other column of ``column``'s type that every seed row keeps ``column`` at or under (a refunded
    amount under its order's total; two or more rows above zero), when there is exactly one (keys
    and ids aside)."""
    kind = next((c.type for c in table.columns if c.name == column), None)
    rows = [r for r in table.rows if isinstance(r.get(column), (int, float)) and not isinstance(r.get(column), bool)]
    if kind not in ("integer", "money", "real") or len(rows) < 5 or sum(r[column] > 0 for r in rows) < 2:
        return None
    found = [c.name for c in table.columns
             if c.name not in (column, table.primary_key) and not c.name.endswith("_id") and c.type == kind
             and all(isinstance(r.get(c.name), (int, float)) and r[column] <= r[c.name] for r in rows)]
    return found[0] if len(found) == 1 else None


def _unbounded_raises(site: Site) -> Iterator[GuardFix]:
    """C005: a marker that raises a column the seed rows keep at or under another (refunded under total),
    with no guard that reads the column: nothing stops it passing the other."""
    for m_index, marker in enumerate(site.markers):
        texts = " ".join(_guard_texts(marker))
        for effect in marker.effects:
            step = _STEP.search(effect.sql) if effect.op == "update" else None
            table = site.database.table(effect.table)
            if step is None or step.group(2) != "+" or table is None:
                continue
            column = step.group(1)
            if re.search(rf"\b{re.escape(column)}\b", texts):
                continue  # some guard reads it: the other checks judge that guard
            ceiling = _seed_ceiling(table, column)
            if ceiling is None:
                continue
            yield GuardFix(f"$.markers[{m_index}]", C.UNGUARDED_WRITE,
                           f"marker {marker.name!r} raises {table.name}.{column}, which every seed row keeps at or "
                           f"under {ceiling}, and no guard reads {column}: nothing keeps it there",
                           add=(f"SELECT NOT EXISTS (SELECT 1 FROM {table.name} WHERE {column} > {ceiling})",
                                f"That would take {column.replace('_', ' ')} past {ceiling.replace('_', ' ')}.", {},
                                "invariants"))
            break


# ----------------------------------------------------------------------------- writes beyond the user's own rows


def _owned(site: Site) -> dict[str, str]:
    """Tables whose rows some marker adds as the acting user's own, with the column that says whose."""
    owned: dict[str, str] = {}
    for marker in site.markers:
        for effect in marker.effects:
            if effect.op == "insert":
                write = parse_effect(marker.name, effect.op, effect.table, effect.sql)
                for column, source in write.sources.items():
                    if source.kind == "param" and source.value == "user_id":
                        owned[effect.table] = column
    return owned


_YOU = re.compile(r"\b(?:you|your)\b", re.I)


def _picks_row(site: Site, table: str, condition: str) -> bool:
    """Whether ``condition`` picks one row of ``table`` by its key (``id = :e``)."""
    found = site.database.table(table)
    key = found.primary_key if found is not None else "id"
    return _by_key(re.sub(r"\b\w+\.(?=\w)", "", condition), key)  # with or without a table alias


def _adds_own(marker: str, effect: Any, column: str) -> bool:
    """Whether ``effect`` inserts rows whose ``column`` is the acting user."""
    if effect.op != "insert":
        return False
    source = parse_effect(marker, effect.op, effect.table, effect.sql).sources.get(column)
    return source is not None and source.kind == "param" and source.value == "user_id"


def _unscoped_guards(site: Site) -> Iterator[GuardFix]:
    """C009: a guard that looks for rows of a table each user owns (``EXISTS (SELECT 1 FROM cart_items)``)
    without naming the user or a row, where the marker's own effects on that table act on the user's
    rows: another user's cart lets an empty one through. Rows a parameter picks count too when they
    are no one row and the message speaks to the user ("You already have a booking on this flight"
    over ``flight_id = :f`` alone: anyone's booking blocks the user's)."""
    owned = _owned(site)
    for location, marker, guard, sql in _sql_guards(site):
        for match in re.finditer(r"EXISTS\s*\(\s*SELECT\s+1\s+FROM\s+\"?(\w+)\"?(?:\s+(?:AS\s+)?(\w+))?"
                                 r"(?:\s+WHERE\s+([^()]*))?\)", sql, re.I):
            table, column = match.group(1), owned.get(match.group(1))
            condition = match.group(3) or ""
            if column is None or re.search(rf"\b{re.escape(column)}\b|:user_id\b", condition):
                continue  # the user's rows
            if re.search(r":\w+", condition) and not (_YOU.search(guard.message or "") and not _picks_row(site, table, condition)):
                continue  # rows a parameter picks, unless the message speaks of the user's own among them
            if not any(e.table == table and (re.search(rf"\b{re.escape(column)}\s*=\s*:user_id\b", e.sql) or _adds_own(
                    marker.name, e, column)) for e in marker.effects):
                continue  # the marker itself acts on every user's rows: so may its guard
            where = f" WHERE {column} = :user_id" + (f" AND {condition}" if condition else "")
            fixed = sql[:match.start()] + f"EXISTS (SELECT 1 FROM {table}{where})" + sql[match.end():]
            yield GuardFix(location, C.VACUOUS_GUARD,
                           f"a check of marker {marker.name!r} looks for {table} rows of any user, but the marker "
                           f"acts on the user's own: another user's rows decide it", sql=fixed)
            break


def _unscoped_counts(site: Site) -> Iterator[GuardFix]:
    """C009: a guard that counts rows of a table each user owns without naming the user (``count(*) FROM
    posts WHERE created >= :today``), while its message speaks to the user ("You are posting too
    often") and the marker adds the user's own rows: every user's posts count against one."""
    owned = _owned(site)
    for location, marker, guard, sql in _sql_guards(site):
        message = guard.message
        if not re.search(r"\byou\b", message or "", re.I):
            continue
        for match in re.finditer(r"\bcount\s*\(\s*\*\s*\)\s+FROM\s+\"?(\w+)\"?\s+WHERE\s+([^()]*)\)", sql, re.I):
            table, condition = match.group(1), match.group(2)
            column = owned.get(table)
            if column is None or re.search(rf"\b{re.escape(column)}\b|:user_id\b", condition) or \
                    set(_PARAM.findall(condition)) - _CONTEXT_PARAMS:
                continue
            if not any(e.table == table and e.op == "insert" and re.search(r":user_id\b", e.sql) for e in marker.effects):
                continue
            fixed = sql[:match.start(2)] + f"{column} = :user_id AND " + sql[match.start(2):]
            yield GuardFix(location, C.VACUOUS_GUARD,
                           f"a check of marker {marker.name!r} counts {table} rows of every user, but its message "
                           f"({message!r}) speaks of the user's own: other users' rows count against them",
                           sql=fixed)
            break


_YOURS = re.compile(r"\b(?:your|yours|your own|you own|you wrote|you created|you posted)\b", re.I)


def _ownership_messages(site: Site) -> Iterator[GuardFix]:
    """C009: a guard whose message speaks of the user's own rows ("You can only change your own posts",
    "Please choose one of your folders") that looks a row up in a table rows of which belong to users
    (a user column pointing at the users table) without naming the user: anyone's row lets it through.
    The fix adds the user to the lookup."""
    users = {t.name: fk.column for t in site.database.tables for fk in t.foreign_keys
             if fk.ref_table == "users" and fk.column in ("user_id", "owner_id", "author_id")}
    for location, marker, guard, sql in _sql_guards(site):
        if not _YOURS.search(guard.message or "") or ":user_id" in sql:
            continue
        for match in re.finditer(r"EXISTS\s*\(\s*SELECT\s+1\s+FROM\s+\"?(\w+)\"?(?:\s+(?:AS\s+)?(\w+))?"
                                 r"\s+WHERE\s+([^()]*)\)", sql, re.I):
            table, alias = match.group(1), match.group(2)
            column = users.get(table)
            if column is None:
                continue
            if not re.search(r"\b(?:\w+\.)?id\s*=\s*:\w+", match.group(3)):
                continue  # not one row picked by a parameter
            owner = f"{alias}.{column}" if alias else column
            fixed = sql[:match.end(3)] + f" AND {owner} = :user_id" + sql[match.end(3):]
            yield GuardFix(location, C.VACUOUS_GUARD,
                           f"a check of marker {marker.name!r} says {guard.message!r}, but it looks the {table} row "
                           f"up without the user: another user's row lets it through", sql=fixed)
            break


_ROLES = re.compile(r"\bonly\b.*\b(?:members?|maintainers?|owners?|admins?|administrators?|moderators?|staff|"
                    r"organi[sz]ers?|hosts?)\b|\byou must be\b|\byou need to be\b", re.I)


def _role_messages(site: Site) -> Iterator[GuardFix]:
    """C009: a guard whose message restricts who may act ("Only maintainers of this project can merge") and
    that finds the membership row of another person than the one acting (``m.user_id = r.author_id``, the
    request's author) and never reads the signed-in user: anyone may act on a maintainer's work, and a
    maintainer is refused on anyone else's. The fix asks for the signed-in user's membership."""
    users = {t.name for t in site.database.tables for fk in t.foreign_keys
             if site.auth is not None and fk.ref_table == site.auth.table and fk.column == "user_id"}
    for location, marker, guard, sql in _sql_guards(site):
        if not _ROLES.search(guard.message or "") or ":user_id" in sql:
            continue
        aliases = {alias or table: table for table, alias in
                   re.findall(r"\b(?:FROM|JOIN)\s+\"?(\w+)\"?(?:\s+(?:AS\s+)?(?!ON\b|WHERE\b|JOIN\b)(\w+))?", sql, re.I)}
        for match in re.finditer(r"\b(\w+)\.user_id\s*=\s*(\w+)\.(\w+_id)\b", sql):
            if aliases.get(match.group(1)) not in users or aliases.get(match.group(2)) in (None, aliases.get(match.group(1))):
                continue
            fixed = sql[:match.start(2)] + ":user_id" + sql[match.end(3):]
            yield GuardFix(location, C.VACUOUS_GUARD,
                           f"a check of marker {marker.name!r} says {guard.message!r}, but it asks for the membership of "
                           f"{match.group(2)}.{match.group(3)}, not of the signed-in user: anyone may act, and the "
                           f"right people are refused", sql=fixed)
            break


_LATER = re.compile(r"\b(?:today or later|on or after today|after today|in the future|not in the past|"
                    r"from today|upcoming|later than today)\b", re.I)
_EARLIER = re.compile(r"\b(?:today or earlier|on or before today|before today|in the past|not in the future|"
                      r"earlier than today)\b", re.I)
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}


def _today_directions(site: Site) -> Iterator[GuardFix]:
    """C009: a guard whose message puts a typed date after today ("The expiry date must be today or
    later") that compares it the other way (``:e <= :today``): it refuses every date it should take
    and takes every one it should refuse. The fix turns the comparison."""
    for location, marker, guard, sql in _sql_guards(site):
        later, earlier = bool(_LATER.search(guard.message or "")), bool(_EARLIER.search(guard.message or ""))
        if later == earlier:
            continue
        found = re.fullmatch(r"\s*SELECT\s+(:\w+)\s*(<=|>=|<|>)\s*(:today|:now)\s*", sql, re.I)
        swapped = re.fullmatch(r"\s*SELECT\s+(:today|:now)\s*(<=|>=|<|>)\s*(:\w+)\s*", sql, re.I)
        if found is None and swapped is None:
            continue
        op = found.group(2) if found else _FLIP[swapped.group(2)]  # as ":param op today"
        after = op in (">", ">=")
        if after == later:
            continue
        match = found or swapped
        fixed = sql[:match.start(2)] + _FLIP[match.group(2)] + sql[match.end(2):]
        yield GuardFix(location, C.VACUOUS_GUARD,
                       f"a check of marker {marker.name!r} says {guard.message!r}, but it takes only dates "
                       f"{'on or ' if '=' in op else ''}{'after' if after else 'before'} today ({sql.strip()}): "
                       "it refuses what it should take",
                       sql=fixed)


def _last_units(site: Site) -> Iterator[GuardFix]:
    """C009: a guard that asks for more units left than are asked for (``stock > :q``) where the message
    speaks of having that many: the last unit can never be had. The fix allows the count itself."""
    for location, marker, guard, sql in _sql_guards(site):
        for found in re.finditer(r"\b(\w+)\s*>\s*(:\w+)(?!\s*[-+*/])|(:\w+)\s*<\s*(\w+)\b", sql):
            column = found.group(1) or found.group(4)
            if not _STOCK.match(column or ""):
                continue
            start, end = (found.span(0))
            text = found.group(0)
            fixed_text = text.replace(">", ">=", 1) if found.group(1) else text.replace("<", "<=", 1)
            yield GuardFix(location, C.VACUOUS_GUARD,
                           f"a check of marker {marker.name!r} needs more {column} left than are asked for "
                           f"({text}): the last one can never be had", sql=sql[:start] + fixed_text + sql[end:])
            break


def _unscoped_writes(site: Site) -> Iterator[GuardFix]:
    """C005: a marker that deletes (or updates) rows of a table whose rows another marker adds as the
    user's own (``user_id = :user_id``), with a condition that neither names the user nor one row by
    its key: unstarring removes every user's star on the project."""
    owned = _owned(site)
    for m_index, marker in enumerate(site.markers):
        for e_index, effect in enumerate(marker.effects):
            column = owned.get(effect.table)
            table = site.database.table(effect.table)
            where = re.search(r"\bWHERE\b", effect.sql, re.I)
            if column is None or table is None or effect.op not in ("delete", "update") or where is None:
                continue
            condition = effect.sql[where.end():]
            parents = {fk.ref_table for fk in table.foreign_keys}
            if any(e.op == "delete" and e.table in parents for e in marker.effects):
                continue  # the rows of a record the marker deletes go with it, whoever added them
            top = re.sub(r"\(\s*SELECT\b[^()]*(?:\([^()]*\)[^()]*)*\)", "(...)", condition, flags=re.I)
            if re.search(rf"(?<![\w.]){re.escape(table.primary_key)}\s*(?:=|IN)\s*", top):
                continue  # one row by its key (not a key a subquery reads by)
            if re.search(rf"\b{re.escape(column)}\b|:user_id\b", condition):
                keys = {fk.column for fk in table.foreign_keys}
                picked = re.findall(r"(?<![\w.])(\w+)\s*(?:=|IN)\s*\(\.\.\.\)", top)
                if re.search(rf"\b{re.escape(column)}\b|:user_id\b", top) or not picked or set(picked) & keys:
                    continue  # the user's own rows, directly or through a parent the user owns
                # only a subquery asks whose: the rows are picked by a value it reads (an e-mail address), and
                # every user's rows holding that value go too
            fixed = effect.sql[:where.end()] + f" {column} = :user_id AND" + effect.sql[where.end():]
            yield GuardFix(f"$.markers[{m_index}].effects[{e_index}].sql", C.UNGUARDED_WRITE,
                           f"marker {marker.name!r} {effect.op}s {effect.table} rows whatever their {column}, "
                           f"though each is one user's own (another marker adds them with {column} = :user_id): "
                           f"it changes other users' rows too", sql=fixed)


def _unconditioned_writes(site: Site) -> Iterator[GuardFix]:
    """C005: a signed-in user's marker that updates or deletes rows with no condition at all, where it
    is given no row's key: saving one's settings renames every account, clearing one's cart empties
    everyone's. The write is kept to the user's own rows: their account (the accounts table's key) or
    the rows another marker adds as the user's own."""
    owned = _owned(site)
    auth = site.auth
    for m_index, marker in enumerate(site.markers):
        if not marker.requires_login or _param_keys(marker):
            continue  # a marker given a row's key: see _unkeyed_writes
        for e_index, effect in enumerate(marker.effects):
            table = site.database.table(effect.table)
            if effect.op not in ("update", "delete") or table is None or len(table.rows) < 2 \
                    or _condition(effect.sql) is not None:
                continue
            if auth is not None and effect.table == auth.table:
                test = f"{auth.id_column} = :user_id"
            elif effect.table in owned:
                test = f"{owned[effect.table]} = :user_id"
            else:
                continue
            yield GuardFix(f"$.markers[{m_index}].effects[{e_index}].sql", C.UNGUARDED_WRITE,
                           f"marker {marker.name!r} {effect.op}s every {effect.table} row (no condition at all), "
                           f"though a signed-in user acts only on their own: it changes every user's",
                           sql=_with_test(effect.sql, test))


_SIBLINGS = re.compile(r"(?<![\w.])\"?(\w+)\"?\s*(?:=|IN)\s*\(\s*SELECT\s+(?:\w+\.)?\"?(\w+)\"?\s+FROM\s+\"?(\w+)\"?"
                       r"(?:\s+(?:AS\s+)?\w+)?\s+WHERE\s+(?:\w+\.)?\"?(\w+)\"?\s*=\s*:(\w+)\s*\)", re.I)


def _sibling_writes(site: Site) -> Iterator[GuardFix]:
    """C005: a marker given one row's key that updates or deletes every row sharing a column with it
    (``DELETE FROM issue_labels WHERE issue_id = (SELECT issue_id FROM issue_labels WHERE id =
    :link_id)``): removing one label from a ticket removes all of them. The fix writes the one row."""
    for m_index, marker in enumerate(site.markers):
        for e_index, effect in enumerate(marker.effects):
            table = site.database.table(effect.table)
            condition = _condition(effect.sql)
            if effect.op not in ("update", "delete") or table is None or condition is None:
                continue
            for found in _SIBLINGS.finditer(condition):
                column, selected, source, key, param = found.groups()
                if source != effect.table or column != selected or key != table.primary_key or column == key:
                    continue
                if _by_key(condition.replace(found.group(0), ""), key):
                    continue  # the one row is also picked by its key
                start = effect.sql.find(found.group(0))
                yield GuardFix(f"$.markers[{m_index}].effects[{e_index}].sql", C.UNGUARDED_WRITE,
                               f"marker {marker.name!r} is given one {effect.table} row's key (:{param}) but "
                               f"{effect.op}s every row with the same {column}: it changes its siblings too",
                               sql=effect.sql[:start] + f"{key} = :{param}" + effect.sql[start + len(found.group(0)):])
                break


_CREATION_STAMP = re.compile(r"^(?:created|created_at|created_on|placed|placed_at|booked|booked_at|joined|joined_at|"
                             r"registered|registered_at)$")


def _assignments(site: Site) -> Iterator[tuple[int, Any, int, Any, tuple[int, int], list[str]]]:
    """Each update effect with a ``SET`` list: the marker and its index, the effect and its index, the
    span of the list in its SQL, and the list's items."""
    for m_index, marker in enumerate(site.markers):
        for e_index, effect in enumerate(marker.effects):
            span = set_span(effect.sql) if effect.op == "update" else None
            if span is not None:
                yield m_index, marker, e_index, effect, span, split_top(effect.sql[span[0]:span[1]])


def _restamped_creation(site: Site) -> Iterator[GuardFix]:
    """C005: an update that rewrites when its row was made (``SET status = :status, created = :today``):
    changing an order's status moves its order date, and everything found by that date is lost. The
    assignment is dropped."""
    for m_index, marker, e_index, effect, span, items in _assignments(site):
        stamped = [item for item in items if _CREATION_STAMP.match(item.split("=", 1)[0].strip().strip('"'))]
        if not stamped or len(stamped) == len(items):
            continue
        kept = ", ".join(item for item in items if item not in stamped)
        column = stamped[0].split("=", 1)[0].strip()
        rest = effect.sql[span[1]:]
        yield GuardFix(f"$.markers[{m_index}].effects[{e_index}].sql", C.UNGUARDED_WRITE,
                       f"marker {marker.name!r} rewrites {effect.table}.{column} ({stamped[0]}), when the row was "
                       f"made: the record moves in time",
                       sql=effect.sql[:span[0]] + " " + kept + (" " + rest if rest else ""))


_SET_PARAM = re.compile(r'\s*"?(\w+)"?\s*=\s*:(\w+)\s*')
"""One item of a SET list that writes a parameter as it is (``qty = :qty``): the column and the parameter."""


def _overwritten_tallies(site: Site) -> Iterator[GuardFix]:
    """C005: a marker that records an amount as a new row under a parent (a refund under its order) and
    sets the parent's figure to that amount (``SET refunded = :amount``) instead of adding it: a
    second refund forgets the first. The figure adds the amount."""
    for m_index, marker, e_index, effect, span, items in _assignments(site):
        parent = site.database.table(effect.table)
        if parent is None:
            continue
        recorded: set[str] = set()  # parameters a child row of this parent stores as a number beside its key
        for other in marker.effects:
            child = site.database.table(other.table) if other.op == "insert" else None
            if child is None or other.table == effect.table:
                continue
            sources = parse_effect(marker.name, "insert", other.table, other.sql).sources
            keys = {fk.column for fk in child.foreign_keys if fk.ref_table == effect.table}
            numbers = {c.name for c in child.columns if c.type in ("integer", "money", "real")} - keys
            if any(k in sources and sources[k].kind == "param" and _by_key(_condition(effect.sql) or "", parent.primary_key,
                                                                           sources[k].value) for k in keys):
                recorded |= {sources[c].value for c in numbers if c in sources and sources[c].kind == "param"}
        kinds = {c.name: c.type for c in parent.columns}
        for item in items:
            found = _SET_PARAM.fullmatch(item)
            if found is None or found.group(2) not in recorded or kinds.get(found.group(1)) not in ("integer", "money", "real"):
                continue
            column, param = found.groups()
            sql = effect.sql.replace(item.strip(), f"{column} = {column} + :{param}", 1)
            yield GuardFix(f"$.markers[{m_index}].effects[{e_index}].sql", C.UNGUARDED_WRITE,
                           f"marker {marker.name!r} records :{param} as a new row under one of {effect.table} and sets "
                           f"that row's {column} to it: the {column} of the rows before it is forgotten", sql=sql)
            break


def _unconditional_stamps(site: Site) -> Iterator[GuardFix]:
    """C005: an update that sets a state from a parameter and stamps the day named for one of its states
    whatever state is chosen (``SET state = :state, closed_on = :today``): reopening an issue dates its
    closing. The stamp is set only when the state is the one it is named for."""
    for m_index, marker, e_index, effect, span, items in _assignments(site):
        states = {}
        for item in items:
            found = _SET_PARAM.fullmatch(item)
            param = next((p for p in marker.params if found and p.name == found.group(2) and p.choices), None)
            if param is not None:
                states[param.name] = [str(c) for c in param.choices]
        for item in items:
            found = re.fullmatch(r'\s*"?(\w+?)_(?:on|at|date|day)"?\s*=\s*:today\s*', item)
            if found is None:
                continue
            for param, choices in states.items():
                named = [c for c in choices if stem(c) == stem(found.group(1))]
                if len(named) == 1 and len(choices) >= 2:
                    column = item.split("=", 1)[0].strip()
                    fixed = effect.sql.replace(item.strip(), f"{column} = CASE :{param} WHEN '{named[0]}' THEN :today END", 1)
                    yield GuardFix(f"$.markers[{m_index}].effects[{e_index}].sql", C.UNGUARDED_WRITE,
                                   f"marker {marker.name!r} stamps {column} whatever :{param} is, while the day is "
                                   f"named for {named[0]!r}: every other choice is dated as {named[0]!r}", sql=fixed)
                    break


def _overwritten_additions(site: Site) -> Iterator[GuardFix]:
    """C005: a marker named for adding ("add_to_cart") that puts a quantity into a row which may already
    hold one, and sets it there (``SET qty = :qty``) where its insert of a new row stores the same
    parameter: adding two more to a cart holding three leaves two. The quantity is added."""
    for m_index, marker, e_index, effect, span, items in _assignments(site):
        if not re.search(r"(?:^|_)add(?:_|$)", marker.name):
            continue
        inserted = {e.table: parse_effect(marker.name, "insert", e.table, e.sql).sources for e in marker.effects
                    if e.op == "insert" and re.search(r"\bNOT\s+EXISTS\b", e.sql, re.I)}
        sources = inserted.get(effect.table)
        table = site.database.table(effect.table)
        if sources is None or table is None:
            continue
        kinds = {c.name: c.type for c in table.columns}
        for item in items:
            found = _SET_PARAM.fullmatch(item)
            source = sources.get(found.group(1)) if found else None
            if found is None or kinds.get(found.group(1)) not in ("integer", "real") or source is None or (
                    source.kind, source.value) != ("param", found.group(2)):
                continue
            column, param = found.groups()
            yield GuardFix(f"$.markers[{m_index}].effects[{e_index}].sql", C.UNGUARDED_WRITE,
                           f"marker {marker.name!r} adds :{param} to a row that may hold some already by setting its "
                           f"{column} to :{param}: what was there is lost",
                           sql=effect.sql.replace(item.strip(), f"{column} = {column} + :{param}", 1))
            break


def _unique_kinds(site: Site) -> Iterator[GuardFix]:
    """C005: an insert that stores a fixed value which every owner's seed rows hold exactly once (a new
    folder of kind ``'inbox'`` where each user has one inbox and many ``'custom'`` folders): every lookup
    of the user's inbox then finds two. The insert stores the value owners' rows repeat."""
    for m_index, marker in enumerate(site.markers):
        for e_index, effect in enumerate(marker.effects):
            table = site.database.table(effect.table) if effect.op == "insert" else None
            if table is None or len(table.rows) < 6:
                continue
            owners = [fk.column for fk in table.foreign_keys if fk.ref_table == "users"]
            sources = parse_effect(marker.name, "insert", effect.table, effect.sql).sources
            for column, source in sources.items():
                if source.kind != "literal" or not isinstance(source.value, str) or not owners:
                    continue
                owner = owners[0]
                groups: dict[Any, list[Any]] = {}
                for row in table.rows:
                    groups.setdefault(row.get(owner), []).append(row.get(column))
                if len(groups) < 3 or not all(g.count(source.value) == 1 for g in groups.values()):
                    continue
                repeated = sorted({v for g in groups.values() for v in g if isinstance(v, str) and g.count(v) > 1})
                if len(repeated) != 1:
                    continue
                yield GuardFix(f"$.markers[{m_index}].effects[{e_index}].sql", C.UNGUARDED_WRITE,
                               f"marker {marker.name!r} adds a {table.name} row with {column} {source.value!r}, which "
                               f"each {owner} holds exactly once in the seed rows: lookups of it find two",
                               sql=re.sub(rf"'{re.escape(source.value)}'", f"'{repeated[0]}'", effect.sql, count=1))
                break


def _private_tables(site: Site) -> dict[str, str]:
    """Tables whose rows each belong to one user and are only ever shown to that user (every page query
    of the table tests its user column against the signed-in user), with that column."""
    from veriweb.verify.checks_pages import bound_elements

    owners = {t.name: fk.column for t in site.database.tables for fk in t.foreign_keys if fk.ref_table == "users"}
    shown: dict[str, bool] = {}
    for element, _, _, _ in bound_elements(site):
        queries = [C.field_of(element, "query")] if element.type in ("list", "table", "record") else []
        queries += [o.query for o in (C.field_of(f, "options_query") for f in C.field_of(element, "fields") or []) if o]
        for query in queries:
            if query is None or query.table not in owners:
                continue
            mine = any(c.column == owners[query.table] and getattr(c.value, "ref", "") == "user.id" for c in query.where)
            shown[query.table] = shown.get(query.table, True) and mine
    return {table: owners[table] for table, mine in shown.items() if mine}


def _unowned_keys(site: Site) -> Iterator[GuardFix]:
    """C005: a marker that stores a key the user chose of a row only its owner ever sees (the folder to
    move a message to), with nothing it runs asking whether that row is the user's: a crafted request
    files the user's mail in another user's folder. The guard is added."""
    private = None
    for m_index, marker in enumerate(site.markers):
        if not marker.requires_login:
            continue
        for effect in marker.effects:
            table = site.database.table(effect.table)
            if table is None or effect.op not in ("insert", "update"):
                continue
            sources = parse_effect(marker.name, effect.op, effect.table, effect.sql).sources
            for fk in table.foreign_keys:
                source = sources.get(fk.column)
                if source is None or source.kind != "param" or fk.ref_table == effect.table:
                    continue
                if private is None:
                    private = _private_tables(site)
                owner = private.get(fk.ref_table)
                guards = [g.predicate for g in marker.preconditions if isinstance(g.predicate, SqlPredicate)]
                if owner is None or any(re.search(rf"\b(?:FROM|JOIN)\s+\"?{fk.ref_table}\b", g.sql, re.I) and
                                        f"param.{source.value}" in json.dumps(g.model_dump(mode="json")) for g in guards):
                    continue
                if any(re.search(rf"\b{fk.ref_table}\b", e.sql) and ":user_id" in e.sql for e in marker.effects):
                    continue  # the effect itself picks the row among the user's own
                sql = f"SELECT EXISTS (SELECT 1 FROM {fk.ref_table} WHERE {fk.ref_column} = :k AND {owner} = :user_id)"
                yield GuardFix(f"$.markers[{m_index}]", C.UNGUARDED_WRITE,
                               f"marker {marker.name!r} stores the {fk.ref_table} row :{source.value} names, which "
                               f"only its owner sees, without asking whether it is the user's: another user's row is "
                               f"taken", add=(sql, f"Please choose one of your {fk.ref_table.replace('_', ' ')}.",
                                              {"k": {"ref": f"param.{source.value}"}}, "preconditions"))
                break


_PER_UNIT = re.compile(r"\$\s?(\d+(?:\.\d\d)?)\s*(?:per|a|each|/)\s*(passenger|traveller|traveler|person|guest|adult|"
                       r"seat|ticket|night|item|unit)\b", re.I)
_UNIT_PARAMS = {"people": ("passengers", "travellers", "travelers", "people", "persons", "guests", "adults", "seats",
                           "tickets"),
                "night": ("nights",), "item": ("qty", "quantity", "items", "units", "count")}
_PEOPLE = ("passenger", "traveller", "traveler", "person", "guest", "adult", "seat", "ticket")


def _value_items(sql: str) -> list[str]:
    """The value expressions of an insert (``VALUES (...)`` or ``SELECT ... FROM``) or an update's SET
    list, each as written."""
    span = set_span(sql)
    if span is not None:
        return [item.split("=", 1)[1] for item in split_top(sql[span[0]:span[1]]) if "=" in item]
    found = re.match(r"^\s*INSERT\s+(?:OR\s+\w+\s+)?INTO\s+\"?\w+\"?\s*\([^)]*\)\s*(.*)$", sql, re.I | re.S)
    rest = found.group(1).strip() if found else ""
    if rest.upper().startswith("VALUES") and rest.endswith(")"):
        return split_top(rest[rest.index("(") + 1:-1])
    if rest.upper().startswith("SELECT"):
        body = rest[6:]
        cut = min([i for i in (_top_keyword(body, "FROM"), _top_keyword(body, "WHERE")) if i >= 0], default=len(body))
        return split_top(body[:cut])
    return []


_SQL_WORDS = frozenset({"case", "when", "then", "else", "end", "and", "or", "not", "null", "is", "in", "true", "false",
                        "between", "like"})


def _evaluate(expression: str, params: dict[str, int]) -> float | None:
    """``expression`` evaluated with every column and subquery as 0 and the parameters as given (any
    other as 1), or ``None`` when SQLite cannot evaluate it."""
    import sqlite3

    text = re.sub(r"\(\s*SELECT\b[^()]*(?:\([^()]*\)[^()]*)*\)", "0", expression, flags=re.I)
    text = re.sub(r":(\w+)", lambda m: str(params.get(m.group(1), 1)), text)
    text = re.sub(r"(?<![\w.'])([A-Za-z_]\w*(?:\.\w+)?)(?!\s*\()(?![\w'])",
                  lambda m: m.group(1) if m.group(1).lower() in _SQL_WORDS else "0", text)
    try:
        value = sqlite3.connect(":memory:").execute(f"SELECT {text}").fetchone()[0]
    except sqlite3.Error:
        return None
    return value if isinstance(value, (int, float)) else None


def _fees_once(site: Site) -> Iterator[GuardFix]:
    """C005: a fee its form prices per unit ("Add a checked bag ($35 per passenger)") that the marker
    adds once whatever the number of units it is given (``:passengers * price + CASE WHEN :bag THEN
    3500 ELSE 0 END``): three passengers pay for one bag. The fee is multiplied by the units."""
    for element, _, _ in C.all_elements(site):
        action = C.field_of(element, "action")
        if element.type != "form" or action is None or action.kind != "marker":
            continue
        m_index, marker = next(((n, m) for n, m in enumerate(site.markers) if m.name == action.marker), (None, None))
        if marker is None:
            continue
        for field_el in element.fields:
            said = _PER_UNIT.search(field_el.label or "")
            if said is None:
                continue
            unit = said.group(2).lower()
            names = _UNIT_PARAMS["people"] if unit in _PEOPLE else _UNIT_PARAMS[unit]
            param = next((p.name for p in marker.params if p.name in names), None)
            cents = round(float(said.group(1)) * 100)
            if param is None:
                continue
            for e_index, effect in enumerate(marker.effects):
                for item in _value_items(effect.sql):
                    if not re.search(rf"(?<![\w.]){cents}(?![\w.])", item) or not re.search(rf":{param}\b", item):
                        continue  # no fee here, or nothing counted by the units (C004 counts them)
                    once, twice = _evaluate(item, {param: 1}), _evaluate(item, {param: 2})
                    if once != cents or twice != cents:
                        continue  # the fee is multiplied, or the expression is not a fee plus what is zeroed
                    fixed = effect.sql.replace(item, re.sub(rf"(?<![\w.]){cents}(?![\w.])", f"({cents} * :{param})", item), 1)
                    yield GuardFix(f"$.markers[{m_index}].effects[{e_index}].sql", C.UNGUARDED_WRITE,
                                   f"marker {marker.name!r} adds the fee its form prices {said.group(0)!r} once, "
                                   f"whatever :{param} is: more {unit}s pay for one", sql=fixed)
                    return


def _cascade_elsewhere(site: Site) -> Iterator[GuardFix]:
    """C005: a marker that deletes one record by its key and, with it, rows of a table that points at
    that record, picked by something else than the pointer (``DELETE FROM comments WHERE user_id =
    :user_id`` beside ``DELETE FROM posts WHERE id = :post_id``): deleting a post deletes the user's
    comments everywhere. The rows that point at the record go with it instead."""
    for m_index, marker in enumerate(site.markers):
        deleted = {}
        for effect in marker.effects:
            table = site.database.table(effect.table)
            condition = _condition(effect.sql) if effect.op == "delete" else None
            key = re.search(rf"(?<![\w.]){re.escape(table.primary_key)}\s*=\s*:(\w+)\b", condition) \
                if table is not None and condition else None
            if key is not None:
                deleted[effect.table] = key.group(1)
        for e_index, effect in enumerate(marker.effects):
            table = site.database.table(effect.table)
            if effect.op != "delete" or table is None or effect.table in deleted:
                continue
            pointers = [(fk.column, deleted[fk.ref_table], fk.ref_table) for fk in table.foreign_keys
                        if fk.ref_table in deleted]
            condition = _condition(effect.sql)
            if len(pointers) != 1 or condition is None:
                continue
            column, param, parent = pointers[0]
            if re.search(rf"\b{re.escape(column)}\b|:{re.escape(param)}\b", condition):
                continue
            cut = _top_keyword(effect.sql, "WHERE")
            yield GuardFix(f"$.markers[{m_index}].effects[{e_index}].sql", C.UNGUARDED_WRITE,
                           f"marker {marker.name!r} deletes the {parent} row :{param} and "
                           f"{effect.table} rows picked by {condition.strip()!r}, not by {column}: it deletes other "
                           f"records' rows", sql=effect.sql[:cut + 5] + f" {column} = :{param}")


def _ignored_params(site: Site) -> Iterator[GuardFix]:
    """C005: a marker that takes a parameter (a form sends it) which none of its effects or guards
    reads, named for a column of a table it updates (``edit_post`` given a ``title`` whose update sets
    only the body): the edit is silently lost. The fix writes it into that column."""
    for m_index, marker in enumerate(site.markers):
        guards = " ".join(g.predicate.sql + " " + " ".join(str(v) for v in (g.predicate.params or {}).values())
                          for g in [*marker.preconditions, *marker.invariants] if isinstance(g.predicate, SqlPredicate))
        effects = " ".join(e.sql for e in marker.effects)
        for param in marker.params:
            if re.search(rf":{re.escape(param.name)}\b", effects) or f"param.{param.name}" in guards \
                    or re.search(rf":{re.escape(param.name)}\b", guards):
                continue
            for e_index, effect in enumerate(marker.effects):
                table = site.database.table(effect.table)
                span = set_span(effect.sql) if effect.op == "update" else None
                if table is None or span is None or table.column(param.name) is None:
                    continue
                yield GuardFix(f"$.markers[{m_index}].effects[{e_index}].sql", C.UNGUARDED_WRITE,
                               f"marker {marker.name!r} takes {param.name!r} but nothing it runs reads it, though its "
                               f"update of {effect.table} could set {effect.table}.{param.name}: what is sent is lost",
                               sql=effect.sql[:span[0]] + f" {param.name} = :{param.name}," + effect.sql[span[0]:])
                break


_MESSAGE_NUMBER = re.compile(r"(?<![\w.$])(\d+)(?![\w.%])")
_SQL_BOUND = re.compile(r"(<=|>=|<|>)\s*(\d+)(?![\w.])")


def _numbered_bounds(site: Site) -> Iterator[GuardFix]:
    """C009: a guard whose message states one limit ("at most 10 of one item") over a test of another
    (``qty > 100``): what the message forbids gets through. The test takes the message's number."""
    for location, marker, guard, sql in _sql_guards(site):
        said = set(_MESSAGE_NUMBER.findall(guard.message or ""))
        bounds = _SQL_BOUND.findall(sql)
        if len(said) != 1 or len(bounds) != 1:
            continue
        (number,), (op, limit) = tuple(said), bounds[0]
        if limit == number or abs(int(limit) - int(number)) == 1:
            continue  # the same limit, or the same one written strictly ("at most 10": < 11)
        found = _SQL_BOUND.search(sql)
        yield GuardFix(location, C.VACUOUS_GUARD,
                       f"a check of marker {marker.name!r} tests {op} {limit}, but its message says "
                       f"{guard.message!r}: what the message forbids gets through",
                       sql=sql[:found.start(2)] + number + sql[found.end(2):])


_PARAM = re.compile(r":(\w+)")
_CONTEXT_PARAMS = frozenset({"user_id", "today", "now"})


def _bound_params(predicate: SqlPredicate) -> dict[str, str]:
    """A SQL guard's placeholders bound to its marker's parameters: placeholder -> parameter."""
    return {name: ref.ref.split(".", 1)[1] for name, ref in (predicate.params or {}).items()
            if getattr(ref, "ref", "").startswith("param.")}


def _param_keys(marker: Any) -> dict[str, tuple[str, str]]:
    """For each parameter of ``marker`` its guards look a row up by (``FROM cart_items WHERE id = :i``
    with ``i`` bound to ``param.item_id``): the table and the column it is compared with."""
    out: dict[str, tuple[str, str]] = {}
    for guard in marker.preconditions:
        predicate = guard.predicate
        if not isinstance(predicate, SqlPredicate):
            continue
        bound = _bound_params(predicate)
        aliases = _aliases(predicate.sql)
        for found in re.finditer(r"(?:\b(\w+)\.)?(\w+)\s*=\s*:(\w+)\b", predicate.sql):
            param = bound.get(found.group(3), found.group(3) if any(p.name == found.group(3) for p in marker.params)
                              else None)
            alias = found.group(1)
            table = aliases.get(alias) if alias else next(iter(set(aliases.values())), None) if len(
                set(aliases.values())) == 1 else None
            if param is not None and table is not None:
                out.setdefault(param, (table, found.group(2)))
    return out


def _condition(sql: str) -> str | None:
    """An update's or delete's top-level ``WHERE`` condition (not one inside a subquery of what it
    sets), or ``None`` when it has none."""
    at = _top_keyword(sql, "WHERE")
    return sql[at + 5:] if at >= 0 else None


def _with_test(sql: str, test: str) -> str:
    """``sql`` (an update or delete) with ``test`` added to its top-level condition, or as one."""
    at = _top_keyword(sql, "WHERE")
    return sql[:at + 5] + f" {test} AND" + sql[at + 5:] if at >= 0 else sql.rstrip().rstrip(";") + f" WHERE {test}"


def _by_key(condition: str, key: str, param: str = r"\w+") -> bool:
    """Whether ``condition`` picks one row by its key (``id = :item_id``)."""
    return bool(re.search(rf"(?<![\w.]){re.escape(key)}\s*=\s*:{param}\b", condition))


_SET_LITERAL = re.compile(r"\s*\"?(\w+)\"?\s*=\s*'([^']*)'\s*")
"""One item of a SET list that writes a fixed text (``status = 'cancelled'``): the column and the value."""


def _one_row_writes(site: Site, op: str) -> Iterator[tuple[int, Any, int, Any, Any, str, re.Match[str]]]:
    """Each ``op`` (update or delete) effect that picks one row by its key from a marker parameter: the
    marker and its index, the effect and its index, its table, its condition, and the key's match
    (``group(1)``: the parameter)."""
    for m_index, marker in enumerate(site.markers):
        for e_index, effect in enumerate(marker.effects):
            table = site.database.table(effect.table)
            condition = _condition(effect.sql) if effect.op == op else None
            if table is None or condition is None:
                continue
            key = re.search(rf"(?<![\w.]){re.escape(table.primary_key)}\s*=\s*:(\w+)\b", condition)
            if key is not None and key.group(1) not in _CONTEXT_PARAMS:
                yield m_index, marker, e_index, effect, table, condition, key


def _unsourced_transitions(site: Site) -> Iterator[GuardFix]:
    """C005: a marker that moves one row (picked by its key) into a fixed state (``SET status =
    'cancelled'``) while nothing it runs reads the state the row is in now: no guard, no condition of
    the write. An order already delivered, or cancelled, is cancelled again; a merged request is
    closed. A state column is a text column whose seed rows hold two or more values, the one set among
    them or among what markers write. The fix adds the guard every such marker needs at least: the row
    is not in that state already (which states it may leave from, the site does not say)."""
    domains = _domains(site)
    for m_index, marker, _, effect, table, condition, key in _one_row_writes(site, "update"):
        read = " ".join(json.dumps(c.predicate.model_dump()) for c in (*marker.preconditions, *marker.invariants))
        span = set_span(effect.sql)
        if span is not None:
            for item in split_top(effect.sql[span[0]:span[1]]):
                found = _SET_LITERAL.fullmatch(item)
                if found is None:
                    continue
                column, value = found.groups()
                seeded = {r.get(column) for r in table.rows if isinstance(r.get(column), str)}
                if len(seeded) < 2 or value.lower() not in domains.get((table.name, column), {}):
                    continue
                if re.search(rf"\b{re.escape(column)}\b", condition) or re.search(rf"\b{re.escape(column)}\b", read):
                    continue  # the row's state is read before it is moved
                guard = f"SELECT NOT EXISTS (SELECT 1 FROM {table.name} WHERE {table.primary_key} = :k AND " \
                        f"{column} = '{value}')"
                yield GuardFix(f"$.markers[{m_index}]", C.UNGUARDED_WRITE,
                               f"marker {marker.name!r} sets {table.name}.{column} to {value!r} whatever the row's "
                               f"{column} is now: nothing it runs reads the state it moves the row from (a row "
                               f"already {value!r}, or past where the move makes sense, is moved all the same)",
                               add=(guard, f"This is already {value}.", {"k": {"ref": f"param.{key.group(1)}"}},
                                    "preconditions"))
                break


_KEY_TEST = re.compile(r"(?<![\w.:])(?:(\w+)\.)?\"?(\w+)\"?\s*=\s*:(\w+)\b")


def _key_of(site: Site, table_name: str | None, column: str) -> tuple[str, str] | None:
    """The row a key column names, as ``(table, key column)``: a table's own key names its row, a
    foreign key the row it points at; ``None`` for a column that is no key."""
    table = site.database.table(table_name) if table_name else None
    if table is None:
        return None
    if column == table.primary_key:
        return table.name, column
    pointer = next((fk for fk in table.foreign_keys if fk.column == column), None)
    return (pointer.ref_table, pointer.ref_column) if pointer is not None else None


def _key_uses(site: Site, marker: Any, m_index: int) -> list[tuple[str, tuple[str, str], str, str, int, int, str]]:
    """Every place ``marker`` compares a parameter with a key column, outside an effect's subqueries:
    ``(parameter, the row's table and key, location, sql, start and end of the column's name in sql, the
    table the column is of, or "" in an effect)``."""
    out = []
    for e_index, effect in enumerate(marker.effects):
        condition = _condition(effect.sql) if effect.op in ("update", "delete") else None
        if condition is None:
            continue
        offset = len(effect.sql) - len(condition)
        top = re.sub(r"\(\s*SELECT\b[^()]*(?:\([^()]*\)[^()]*)*\)", lambda m: " " * len(m.group(0)), condition,
                     flags=re.I)
        for found in _KEY_TEST.finditer(top):
            if found.group(1) not in (None, effect.table):
                continue
            key = _key_of(site, effect.table, found.group(2))
            if key is not None:
                out.append((found.group(3), key, f"$.markers[{m_index}].effects[{e_index}].sql", effect.sql,
                            offset + found.start(2), offset + found.end(2), ""))
    for g_index, guard in enumerate(marker.preconditions):
        predicate = guard.predicate
        if not isinstance(predicate, SqlPredicate):
            continue
        bound = _bound_params(predicate)
        aliases = _aliases(predicate.sql)
        tables = set(aliases.values())
        for found in _KEY_TEST.finditer(predicate.sql):
            alias, column, name = found.groups()
            param = bound.get(name, name if name == "user_id" or any(p.name == name for p in marker.params) else None)
            table = aliases.get(alias) if alias else next(iter(tables)) if len(tables) == 1 else None
            key = _key_of(site, table, column) if param is not None else None
            if key is not None:
                out.append((param, key, f"$.markers[{m_index}].preconditions[{g_index}].predicate",
                            predicate.sql, found.start(2), found.end(2), table or ""))
    return out


def _crossed_keys(site: Site) -> Iterator[GuardFix]:
    """C005 and C009: one parameter taken as the key of two different rows: ``:user_id`` (the signed-in
    account) picking a community (``UPDATE forums ... WHERE id = :user_id``: joining raises the members
    of the community whose number is the user's), or a guard looking a label link's key up as its
    ticket's (``il.issue_id = :l`` where the write deletes ``issue_labels`` by ``id = :link_id``). The
    row the parameter names is the account (for ``:user_id``), else the one every write of the marker
    takes it as; the other place is rewritten: a guard reads the column of its table that names that
    row, a write reads the parameter that names its row."""
    auth = site.auth
    for m_index, marker in enumerate(site.markers):
        uses = _key_uses(site, marker, m_index)
        for param in dict.fromkeys(u[0] for u in uses):
            mine = [u for u in uses if u[0] == param]
            written = {u[1] for u in mine if not u[6]}
            if param == "user_id" and auth is not None:
                right = (auth.table, auth.id_column)
            elif param != "user_id" and len(written) == 1:
                right = next(iter(written))
            else:
                continue
            for _, key, location, sql, start, end, guard_table in mine:
                if key == right:
                    continue
                fixed = ""
                if not guard_table:  # a write: the parameter that names the row it picks
                    other = next((u[0] for u in uses if u[0] != param and u[1] == key), None) or next(
                        (p.name for p in marker.params if p.name == f"{key[0].rstrip('s')}_id"), None)
                    after = re.compile(rf"(\s*=\s*):{re.escape(param)}\b").match(sql, end)
                    if other is not None and after is not None:
                        fixed = sql[:after.start()] + f"{after.group(1)}:{other}" + sql[after.end():]
                else:  # a guard: the column of its table that names the right row
                    table = site.database.table(guard_table)
                    columns = [c.name for c in table.columns if _key_of(site, table.name, c.name) == right] \
                        if table is not None else []
                    if len(columns) == 1:
                        fixed = sql[:start] + columns[0] + sql[end:]
                if not fixed:
                    continue
                named = "the signed-in account" if param == "user_id" else f"a {right[0]} row"
                yield GuardFix(location, C.VACUOUS_GUARD if guard_table else C.UNGUARDED_WRITE,
                               f"marker {marker.name!r} takes :{param} as the key of a {key[0]} row here, though "
                               f"it names {named}: the wrong row is {'read' if guard_table else 'written'}",
                               sql=fixed)
                break


def _orphaning_deletes(site: Site) -> Iterator[GuardFix]:
    """C005: a marker that deletes one row by its key (``DELETE FROM posts WHERE id = :post_id``) while
    rows of another table point at it (a vote's ``post_id``) and nothing it runs deletes or rewrites them:
    they are left pointing at a row that is gone. Only pointers some seed row or marker fills count.
    The fix deletes them first."""
    for m_index, marker, e_index, _, table, _, key in _one_row_writes(site, "delete"):
        pointers = [(other, pointer) for other in site.database.tables for pointer in other.foreign_keys
                    if other.name != table.name and pointer.ref_table == table.name
                    and pointer.ref_column == table.primary_key]
        for other, pointer in pointers:
            filled = any(r.get(pointer.column) is not None for r in other.rows) or any(
                e.op == "insert" and e.table == other.name and re.search(rf"\b{pointer.column}\b", e.sql)
                for m in site.markers for e in m.effects)
            handled = any(e.table == other.name and e.op in ("delete", "update")
                          and re.search(rf"\b{pointer.column}\b", e.sql) for e in marker.effects)
            if filled and not handled:
                yield GuardFix(f"$.markers[{m_index}]", C.UNGUARDED_WRITE,
                               f"marker {marker.name!r} deletes a {table.name} row but leaves the {other.name} "
                               f"rows that point at it ({other.name}.{pointer.column}): they point at nothing",
                               effect=(e_index, {"op": "delete", "table": other.name, "sql":
                                                 f"DELETE FROM {other.name} WHERE {pointer.column} = "
                                                 f":{key.group(1)}"}))
                break


_STAMP = re.compile(r"^(\w+?)_(?:on|at|date|time)$")


def _stamps_of_other_states(site: Site) -> Iterator[GuardFix]:
    """C005: an update that moves a row into one state and stamps the day of another (``SET state =
    'closed', merged_on = :today``): the request reads as merged on a day it was closed. A stamp column
    is named for a state value of the same table (``merged_on`` for ``'merged'``). The fix stamps the
    column named for the state set, or stamps nothing when the table has none."""
    domains = _domains(site)
    for m_index, marker, e_index, effect, span, items in _assignments(site):
        literals = (_SET_LITERAL.fullmatch(item) for item in items)
        states = [m.groups() for m in literals if m and len(domains.get((effect.table, m.group(1)), {})) >= 2]
        table = site.database.table(effect.table)
        for column, value in states[:1]:
            values = {stem(v): v for v in domains[(effect.table, column)].values()}
            for item in items:
                stamped = re.fullmatch(r"\s*\"?(\w+)\"?\s*=\s*:(?:today|now)\s*", item)
                named = _STAMP.match(stamped.group(1)) if stamped else None
                if named is None or stem(named.group(1)) not in values or stem(named.group(1)) == stem(value):
                    continue
                own = next((c.name for c in table.columns if (m := _STAMP.match(c.name)) is not None
                            and stem(m.group(1)) == stem(value)), None) if table is not None else None
                kept = [i for i in items if i is not item]
                body = ", ".join(i.strip() for i in kept) if own is None else ", ".join(
                    i.strip() if i is not item else i.replace(stamped.group(1), own, 1).strip() for i in items)
                rest = effect.sql[span[1]:]
                yield GuardFix(f"$.markers[{m_index}].effects[{e_index}].sql", C.UNGUARDED_WRITE,
                               f"marker {marker.name!r} sets {effect.table}.{column} to {value!r} and stamps "
                               f"{stamped.group(1)}, the day of {values[stem(named.group(1))]!r}: the row reads "
                               f"as {values[stem(named.group(1))]} when it was not",
                               sql=effect.sql[:span[0]] + " " + body + (" " + rest if rest else ""))
                break


_NOT_EXISTS = re.compile(r"\bNOT\s+EXISTS\s*\(\s*SELECT\s+1\s+FROM\s+\"?(\w+)\"?\s+WHERE\s+([^()]*)\)", re.I)


def _equal_tests(condition: str, table: Any) -> dict[str, str]:
    """The ``column = :param`` tests of ``condition`` on ``table``'s columns: column -> the test's text."""
    names = {c.name for c in table.columns}
    return {m.group(1): m.group(0) for m in re.finditer(r"(?<![\w.])(\w+)\s*=\s*:(\w+)\b", condition)
            if m.group(1) in names}


def _unguarded_upserts(site: Site) -> Iterator[GuardFix]:
    """C005: a marker that updates the row of a table matching its parameters (``qty = qty + :qty`` on the
    user's line of a product and size) and then inserts a row with those very values and no test that
    it is not there yet: when the row exists, both happen, and a second line joins the bumped one. The
    insert gets the test (``WHERE NOT EXISTS (SELECT 1 FROM ... WHERE`` the update's tests ``)``)."""
    for m_index, marker in enumerate(site.markers):
        for u_index, update in enumerate(marker.effects):
            table = site.database.table(update.table)
            condition = _condition(update.sql) if update.op == "update" else None
            tests = _equal_tests(condition, table) if table is not None and condition is not None else {}
            if len(tests) < 2:
                continue
            params = {c: t.rsplit(":", 1)[1] for c, t in tests.items()}  # "size = :size" -> size
            for i_index, insert in enumerate(marker.effects[u_index + 1:], u_index + 1):
                if insert.op != "insert" or insert.table != table.name or re.search(r"\bEXISTS\b|\bWHERE\b",
                                                                                    insert.sql, re.I):
                    continue
                sources = parse_effect(marker.name, insert.op, insert.table, insert.sql).sources or {}
                if any(getattr(sources.get(c), "value", None) != p or sources[c].kind != "param"
                       for c, p in params.items()):
                    continue
                guard = f" WHERE NOT EXISTS (SELECT 1 FROM {table.name} WHERE {' AND '.join(tests.values())})"
                body = re.match(r"(?is)^(\s*INSERT\s+INTO\s+\w+\s*\([^)]*\)\s*)(VALUES\s*\((.*)\)|SELECT\b.*?)\s*;?\s*$",
                                insert.sql)
                if body is None:
                    continue
                select = f"SELECT {body.group(3)}" if body.group(3) is not None else body.group(2).rstrip()
                yield GuardFix(f"$.markers[{m_index}].effects[{i_index}].sql", C.UNGUARDED_WRITE,
                               f"marker {marker.name!r} updates the {table.name} row matching "
                               f"{', '.join(sorted(tests))} and then inserts one with the same values whether or "
                               f"not it is there: a second row joins the updated one", sql=body.group(1) + select + guard)
                break


def _stale_stamps(site: Site) -> Iterator[GuardFix]:
    """C005: an update that moves a row out of a state and keeps the day it entered it, where every seed
    row keeps that day only while in the state (``closed_on`` set on closed issues, empty on open ones):
    ``closed_on = CASE :state WHEN 'closed' THEN :today ELSE closed_on END`` reopens an issue that still
    reads as closed on its old day. The fix clears the day on the way out."""
    for m_index, marker, e_index, effect, span, items in _assignments(site):
        table = site.database.table(effect.table)
        if table is None:
            continue
        for item in items:
            found = re.fullmatch(r"\s*\"?(\w+)\"?\s*=\s*(CASE\b.*\bWHEN\s+'([^']*)'\s+THEN\s+:(?:today|now)\s+"
                                 r"ELSE\s+\"?(\w+)\"?\s+END)\s*", item, re.I | re.S)
            if found is None or found.group(1) != found.group(4):
                continue
            stamp, value = found.group(1), found.group(3)
            state = next((c.name for c in table.columns if any(r.get(c.name) == value for r in table.rows)), None)
            if state is None:
                continue
            inside = [r for r in table.rows if r.get(state) == value]
            outside = [r for r in table.rows if r.get(state) != value]
            if not inside or not outside or any(r.get(stamp) is None for r in inside) or any(
                    r.get(stamp) is not None for r in outside):
                continue
            cleared = item[:found.start(2)] + re.sub(rf"\s+ELSE\s+\"?{re.escape(stamp)}\"?\s+END", " END",
                                                      found.group(2), flags=re.I) + item[found.end(2):]
            body = ", ".join(i.strip() if i is not item else cleared.strip() for i in items)
            rest = effect.sql[span[1]:]
            yield GuardFix(f"$.markers[{m_index}].effects[{e_index}].sql", C.UNGUARDED_WRITE,
                           f"marker {marker.name!r} keeps {effect.table}.{stamp} when the row leaves {value!r}, "
                           f"though every seed row has a {stamp} only while {state} is {value!r}: the row "
                           f"still reads as {value} on its old day", sql=effect.sql[:span[0]] + " " + body
                           + (" " + rest if rest else ""))
            break


def _split_upserts(site: Site) -> Iterator[GuardFix]:
    """C005: a marker that updates a row if it is there and inserts it if not, where the two look for
    "the row" by different columns: adding a hat in size L to a cart that holds it in size M updates no
    row (the update wants size L) and inserts none (the insert sees the hat already there), so nothing
    happens. The look-up that tests fewer columns gets the tests it lacks."""
    for m_index, marker in enumerate(site.markers):
        for u_index, update in enumerate(marker.effects):
            table = site.database.table(update.table)
            condition = _condition(update.sql) if update.op == "update" else None
            if table is None or condition is None:
                continue
            for i_index, insert in enumerate(marker.effects):
                found = _NOT_EXISTS.search(insert.sql) if insert.op == "insert" and insert.table == table.name else None
                if found is None or found.group(1) != table.name:
                    continue
                updated, looked = _equal_tests(condition, table), _equal_tests(found.group(2), table)
                if not updated or not looked or updated.keys() == looked.keys():
                    continue
                if looked.keys() < updated.keys():
                    extra = " AND ".join(updated[c] for c in updated if c not in looked)
                    at = found.start(2) + len(found.group(2))
                    fixed, index, which = insert.sql[:at].rstrip() + f" AND {extra}" + insert.sql[at:], i_index, "insert"
                elif updated.keys() < looked.keys():
                    extra = " AND ".join(looked[c] for c in looked if c not in updated)
                    fixed, index, which = _with_test(update.sql, extra), u_index, "update"
                else:
                    continue
                yield GuardFix(f"$.markers[{m_index}].effects[{index}].sql", C.UNGUARDED_WRITE,
                               f"marker {marker.name!r} updates the {table.name} row matching "
                               f"{', '.join(sorted(updated))} and inserts one unless a row matching "
                               f"{', '.join(sorted(looked))} is there: a row matching one and not the other is "
                               f"neither updated nor added (the {which} lacks {extra})", sql=fixed)
                break


def _unread_bindings(site: Site) -> Iterator[GuardFix]:
    """C009: a guard that binds one of its marker's parameters (``:a`` to ``param.assignee_id``) and never
    reads it (beyond asking whether it is empty), reading the signed-in user once where a test of the
    parameter would go (``m.user_id = :user_id``): "only members can be assigned" tests whether the one
    assigning is a member. The fix reads the parameter there."""
    for location, marker, guard, sql in _sql_guards(site):
        bound = [name for name, ref in (guard.predicate.params or {}).items()  # read at most to ask if it is empty
                 if getattr(ref, "ref", "").startswith("param.")
                 and not re.search(rf":{re.escape(name)}\b(?!\s+IS\s+(?:NOT\s+)?NULL\b)", sql, re.I)]
        users = list(re.finditer(r"(?<![\w.]):user_id\b", sql))
        if len(bound) != 1 or len(users) != 1:
            continue
        fixed = sql[:users[0].start()] + f":{bound[0]}" + sql[users[0].end():]
        meant = guard.predicate.params[bound[0]].ref.split(".", 1)[1]
        yield GuardFix(location, C.VACUOUS_GUARD,
                       f"a check of marker {marker.name!r} is given {meant} (as :{bound[0]}) and never reads it; it "
                       f"reads the signed-in user where {meant} would go: it tests the one acting, not {meant}",
                       sql=fixed)


def _unread_keys(site: Site) -> Iterator[GuardFix]:
    """C009: a guard that binds a key parameter of its marker (``:p`` to ``param.project_id``) and never
    reads it, while it looks rows up in a table that has that very column and leaves it untested
    ("Only members of this project can be assigned" over ``FROM members WHERE user_id = :a``): a member
    of any project passes. The fix tests the column against the parameter in that lookup."""
    for location, marker, guard, sql in _sql_guards(site):
        unread = [(name, ref.ref.split(".", 1)[1]) for name, ref in (guard.predicate.params or {}).items()
                  if getattr(ref, "ref", "").startswith("param.") and ref.ref.endswith("_id")
                  and not re.search(rf":{re.escape(name)}\b", sql)]
        if len(unread) != 1:
            continue
        name, column = unread[0]
        lookups = ((table, where, tail) for table in site.database.tables if table.column(column) is not None
                   for where, tail in _subquery_tails(sql, table.name))
        found = next(((table, where) for table, where, tail in lookups
                      if where >= 0 and not re.search(rf"\b{re.escape(column)}\b", tail)), None)
        if found is not None:
            table, where = found
            yield GuardFix(location, C.VACUOUS_GUARD,
                           f"a check of marker {marker.name!r} is given {column} (as :{name}) and never reads it, "
                           f"while the {table.name} rows it looks up have a {column}: any {column} passes",
                           sql=sql[:where] + f" {column} = :{name} AND" + sql[where:])


_NEXT_NUMBER = re.compile(r"\bmax\s*\(\s*\"?(\w+)\"?\s*\)", re.I)
_INSERT_SELECT = re.compile(r"^\s*INSERT\s+INTO\s+\"?(\w+)\"?\s*\(([^)]*)\)\s*SELECT\s+(.*?)\s+FROM\s+\"?(\w+)\"?"
                            r"(?:\s+WHERE\s+(.*))?\s*$", re.I | re.S)


_INSERT_VALUES = re.compile(r"(?is)^(\s*INSERT\s+INTO\s+\"?(\w+)\"?\s*)\(([^()]*)\)(\s*VALUES\s*)\((.*)\)(\s*;?\s*)$")


def _counted_keys(site: Site) -> Iterator[GuardFix]:
    """C005: an insert that gives its row the key ``count(*) + 1`` of its table: once any row is deleted
    (or the seed's keys have a gap), that key is taken and every insert fails. The fix lets the database
    number the row."""
    for m_index, marker in enumerate(site.markers):
        for e_index, effect in enumerate(marker.effects):
            table = site.database.table(effect.table)
            found = _INSERT_VALUES.match(effect.sql) if effect.op == "insert" and table is not None else None
            if found is None:
                continue
            columns = [c.strip().strip('"') for c in found.group(3).split(",")]
            values = split_top(found.group(5))
            if len(columns) != len(values) or table.primary_key not in columns:
                continue
            index = columns.index(table.primary_key)
            if not re.search(r"\bcount\s*\(", values[index], re.I):
                continue
            keep = [n for n in range(len(columns)) if n != index]
            sql = (f"{found.group(1)}({', '.join(columns[n] for n in keep)}){found.group(4)}"
                   f"({', '.join(values[n] for n in keep)}){found.group(6)}")
            yield GuardFix(f"$.markers[{m_index}].effects[{e_index}].sql", C.UNGUARDED_WRITE,
                           f"marker {marker.name!r} gives the new {table.name} row the key {values[index]}: once a "
                           "row is deleted that key is taken, and every insert fails", sql=sql)


_VOID_VALUE = re.compile(r"^(?:cancell?ed|void(?:ed)?|withdrawn|deleted|revoked|refunded)$", re.I)


def _void_blockers(site: Site, domains: dict[tuple[str, str], dict[str, str]]) -> Iterator[GuardFix]:
    """C009: a guard refusing a second row ("You already have a booking on this flight": ``NOT EXISTS``
    a row of the user and the flight) that counts rows a marker has voided (a cancelled booking): once
    cancelled, the flight can never be booked again. The fix leaves voided rows out."""
    for location, marker, guard, sql in _sql_guards(site):
        found = re.search(r"\bNOT\s+EXISTS\s*\(\s*SELECT\s+1\s+FROM\s+\"?(\w+)\"?\s+WHERE\s+([^()]*)\)", sql, re.I)
        table = site.database.table(found.group(1)) if found is not None else None
        if table is None or ":" not in found.group(2):
            continue
        for column in (c.name for c in table.columns if c.type == "text"):
            void = [v for v in domains.get((table.name, column), {}).values() if _VOID_VALUE.match(v)]
            if len(void) != 1 or re.search(rf"\b{column}\b", found.group(2)):
                continue
            written = any(e.table == table.name and e.op == "update" and re.search(rf"\b{column}\s*=\s*'{void[0]}'",
                                                                                   e.sql, re.I)
                          for m in site.markers for e in m.effects)
            if not written:
                continue  # no marker voids a row: nothing to leave out
            clause = found.group(2).rstrip()
            fixed = sql.replace(clause, f"{clause} AND {column} <> '{void[0]}'", 1)
            yield GuardFix(location, C.VACUOUS_GUARD,
                           f"a check of marker {marker.name!r} ({guard.message!r}) counts {table.name} rows whose "
                           f"{column} is {void[0]!r}: once one is {void[0]}, it blocks for good", sql=fixed)
            break


def _global_numbers(site: Site) -> Iterator[GuardFix]:
    """C005: an insert that numbers its row one past the highest number of the whole table (``max(number)
    + 1 FROM issues``) where every seed row is numbered within its parent (each project's issues count
    from 1): the new issue takes a number past every project's. The fix counts within the parent the
    insert writes (``WHERE project_id = :project_id``)."""
    for m_index, marker in enumerate(site.markers):
        for e_index, effect in enumerate(marker.effects):
            found = _INSERT_SELECT.match(effect.sql) if effect.op == "insert" else None
            table = site.database.table(effect.table)
            if found is None or table is None or found.group(4) != effect.table:
                continue
            columns = [c.strip().strip('"') for c in found.group(2).split(",")]
            values = split_top(found.group(3))
            if len(columns) != len(values):
                continue
            condition = found.group(5) or ""
            for column, value in zip(columns, values):
                numbered = _NEXT_NUMBER.search(value)
                if numbered is None or numbered.group(1) != column:
                    continue
                pointers = {fk.column for fk in table.foreign_keys}
                for parent, given in zip(columns, values):
                    param = re.fullmatch(r"\s*:(\w+)\s*", given)
                    if param is None or parent not in pointers or re.search(rf"\b{re.escape(parent)}\b", condition):
                        continue
                    groups: dict[Any, list[Any]] = {}
                    for row in table.rows:
                        groups.setdefault(row.get(parent), []).append(row.get(column))
                    numbers = [n for g in groups.values() for n in g]
                    if len(groups) < 2 or max(len(g) for g in groups.values()) < 2 or len(set(numbers)) == len(
                            numbers) or any(len(set(g)) != len(g) for g in groups.values()):
                        continue  # numbers unique over the table, or not within each parent
                    test = f"{parent} = :{param.group(1)}"
                    fixed = (effect.sql.rstrip() + f" AND {test}") if found.group(5) else (
                        effect.sql.rstrip() + f" WHERE {test}")
                    yield GuardFix(f"$.markers[{m_index}].effects[{e_index}].sql", C.UNGUARDED_WRITE,
                                   f"marker {marker.name!r} numbers a new {effect.table} row one past the highest "
                                   f"{column} of every {parent}, though the seed rows number them within each "
                                   f"{parent}: the new row's {column} skips ahead", sql=fixed)
                    break
                break


def check_guard_rows(site: Site) -> list[C.Issue]:
    """C009: a guard whose message names one row of a table ("already in Archived") while its SQL picks
    another by a fixed value (the folder of kind ``trash``): it blocks, or lets through, another case than
    its message says (:func:`veriweb.verify.checks_meaning.row_against_text`)."""
    from veriweb.verify.checks_meaning import row_against_text

    issues = []
    for m_index, marker in enumerate(site.markers):
        for kind in ("preconditions", "invariants"):
            for g_index, guard in enumerate(getattr(marker, kind)):
                sql = C.field_of(guard.predicate, "sql")
                if isinstance(sql, str) and guard.message:
                    issues += row_against_text(site, guard.message, [sql],
                                               f"$.markers[{m_index}].{kind}[{g_index}].message",
                                               f"guard message {guard.message!r} of {marker.name!r}",
                                               "its test reads", code="C009")
    return issues


def _unkeyed_writes(site: Site) -> Iterator[GuardFix]:
    """C005: a marker that takes the key of one row (a cart line, a community, a booking) and updates or
    deletes rows with no condition at all, or with one that reads none of its parameters, where no
    other of its effects on that table reads the key: "Remove" empties the whole cart, joining one
    community counts a member in every one, cancelling one booking gives seats back on every flight.
    The fix keys the write by the row its guards look the key up in (through the foreign key that
    row holds, for a write to another table)."""
    for m_index, marker in enumerate(site.markers):
        keys = _param_keys(marker)
        if not keys:
            continue
        for e_index, effect in enumerate(marker.effects):
            table = site.database.table(effect.table)
            if effect.op not in ("update", "delete") or table is None or len(table.rows) < 2:
                continue
            condition = _condition(effect.sql)
            if set(_PARAM.findall(condition or "")) - _CONTEXT_PARAMS or _by_key(condition or "", table.primary_key,
                                                                                 "user_id"):
                continue  # keyed by something it is given, or the user's own row (users.id = :user_id)
            used = {p for e in marker.effects if e.table == effect.table and e is not effect
                    for p in _PARAM.findall(e.sql)}
            key = _key_condition(site, table, keys, used)
            if key is None:
                continue
            fixed = _with_test(effect.sql, key)
            said = "with no condition" if condition is None else "by a condition that reads none of its parameters"
            yield GuardFix(f"$.markers[{m_index}].effects[{e_index}].sql", C.UNGUARDED_WRITE,
                           f"marker {marker.name!r} is given one row's key but {effect.op}s {effect.table} rows "
                           f"{said}: it changes every such row, not the one", sql=fixed)


def _unowned_writes(site: Site) -> Iterator[GuardFix]:
    """C005: a marker that changes or deletes one row of a table whose rows are each one user's own
    (another marker adds them with ``user_id = :user_id``), picked by its key alone, while neither the
    write nor any guard asks whose it is: any user cancels another's order, edits another's post,
    deletes another's comment. A write that only steps a counter of the row (a vote on a post:
    ``score = score + :value``) is anyone's to make. The fix asks for the user's own row."""
    owned = _owned(site)
    for m_index, marker in enumerate(site.markers):
        guards = " ".join(g.predicate.sql for g in marker.preconditions if isinstance(g.predicate, SqlPredicate))
        for e_index, effect in enumerate(marker.effects):
            column = owned.get(effect.table)
            table = site.database.table(effect.table)
            if column is None or table is None or effect.op not in ("update", "delete"):
                continue
            condition = _condition(effect.sql)
            if condition is None or not _by_key(condition, table.primary_key):
                continue  # not one row by its key (the unscoped and unkeyed writes are other checks)
            if ":user_id" in effect.sql or ":user_id" in guards or re.search(rf"\b{re.escape(column)}\b", condition):
                continue
            if any(e.op == "insert" and e.table == effect.table for e in marker.effects):
                continue
            if effect.op == "update":
                sets = effect.sql[:_top_keyword(effect.sql, "WHERE")]
                assigned = re.findall(r"(\w+)\s*=\s*([^,]+)", sets.split("SET", 1)[-1] if "SET" in sets.upper() else "")
                if all(re.search(rf"\b{re.escape(name)}\b", value) for name, value in assigned):
                    continue  # a counter stepped (score = score + :value): anyone's to make
            fixed = _with_test(effect.sql, f"{column} = :user_id")
            yield GuardFix(f"$.markers[{m_index}].effects[{e_index}].sql", C.UNGUARDED_WRITE,
                           f"marker {marker.name!r} {effect.op}s a {effect.table} row by its key alone, though each "
                           f"is one user's own (another marker adds them with {column} = :user_id) and no guard "
                           f"asks whose: any user changes another's", sql=fixed)


_GUARDED_BY = re.compile(r"\bFROM\s+\"?(\w+)\"?(?:\s+\w+)?\s+WHERE\b[^()]*?\b(\w+)\s*(=|IN)\s*"
                         r"(\(\s*SELECT\s+\w+\s+FROM\s+\"?(\w+)\"?\s+WHERE\s+[^()]*'[^']*'[^()]*\))", re.I)


def _wider_than_guard(site: Site) -> Iterator[GuardFix]:
    """C005: a marker whose guard looks for rows of a table by a key into another table, picked by a
    fixed value ("Bin is already empty.": emails whose folder is the user's ``kind = 'trash'`` folder),
    while its update or delete of that table never tests that key: "Empty Bin" deletes every message
    the user has. The fix puts the guard's test into the write."""
    for m_index, marker in enumerate(site.markers):
        guards = [g.predicate.sql for g in marker.preconditions if isinstance(g.predicate, SqlPredicate)]
        for e_index, effect in enumerate(marker.effects):
            table = site.database.table(effect.table)
            if effect.op not in ("update", "delete") or table is None:
                continue
            condition = _condition(effect.sql) or ""
            if _by_key(condition, table.primary_key):
                continue  # one row by its key: the guard asks about that row, not which rows to write
            for sql in guards:
                if re.match(r"\s*SELECT\s+NOT\b", sql, re.I):
                    continue  # "not already in the Bin": a test of the row, not of which rows
                found = next((g for g in _GUARDED_BY.finditer(sql) if g.group(1) == effect.table and any(
                    fk.column == g.group(2) and fk.ref_table == g.group(5) for fk in table.foreign_keys)), None)
                if found is None or re.search(rf"\b{re.escape(found.group(2))}\b", condition):
                    continue
                test = f"{found.group(2)} {found.group(3)} {found.group(4)}"
                fixed = _with_test(effect.sql, test)
                yield GuardFix(f"$.markers[{m_index}].effects[{e_index}].sql", C.UNGUARDED_WRITE,
                               f"marker {marker.name!r} checks {effect.table} rows whose {found.group(2)} is "
                               f"{found.group(4)}, but its {effect.op} never tests {found.group(2)}: it changes "
                               f"every such row of any {found.group(5)}", sql=fixed)
                break


def _key_condition(site: Site, table: Any, keys: dict[str, tuple[str, str]], used: set[str]) -> str | None:
    """The condition keying a write to ``table`` by a parameter its guards look a row up by: that row
    itself (``id = :item_id``), the link row by the record it points at (``project_id = :project_id``
    in ``stars``), or the row of ``table`` the looked-up row points at (``id = (SELECT
    flight_id FROM bookings WHERE id = :booking_id)``); ``None`` when no parameter keys ``table`` or
    another effect on it reads the key already."""
    for param, (looked, column) in sorted(keys.items()):
        if param in used:
            return None
        if looked == table.name and column == table.primary_key:
            return f"{table.primary_key} = :{param}"
    for param, (looked, column) in sorted(keys.items()):  # a link row by what it links (a user's star on a project)
        if looked == table.name and any(fk.column == column for fk in table.foreign_keys):
            return f"{column} = :{param}"
    for param, (looked, column) in sorted(keys.items()):
        source = site.database.table(looked)
        if source is None or column != source.primary_key:
            continue
        links = [fk for fk in source.foreign_keys if fk.ref_table == table.name]
        if len(links) == 1:
            return (f"{links[0].ref_column} = (SELECT {links[0].column} FROM {looked} "
                    f"WHERE {source.primary_key} = :{param})")
    return None


def _named_params(message: str, marker: Any) -> set[str]:
    """The parameters of ``marker`` that ``message`` names by their name (``check_in``: "check-in",
    "check in", "checkin") or their label."""
    text = " " + re.sub(r"[^a-z0-9]+", " ", message.lower()) + " "
    out = set()
    for param in marker.params:
        forms = {" ".join(param.name.lower().split("_")), param.name.lower().replace("_", ""),
                 re.sub(r"_id$", "", param.name.lower()).replace("_", " ")}  # issue_id: "this issue"
        if param.label:
            forms.add(re.sub(r"[^a-z0-9]+", " ", param.label.lower()).strip())
        if any(f" {form} " in text for form in forms if len(form) >= 4):
            out.add(param.name)
    return out


def _misread_params(site: Site) -> Iterator[GuardFix]:
    """C009: a guard whose message names one parameter ("Check-in must be after today.") while its
    SQL reads another of the same type and not that one (``:co`` bound to ``check_out``): the day the
    message promises is never tested. The fix binds the named parameter instead."""
    for location, marker, guard, sql in _sql_guards(site):
        if not guard.message:
            continue
        refs = {name: ref.ref.split(".", 1)[1] for name, ref in (guard.predicate.params or {}).items()
                if getattr(ref, "ref", "").startswith("param.")}
        named = _named_params(guard.message, marker)
        read = set(refs.values())
        types = {p.name: p.type for p in marker.params}
        if len(named) != 1 or named & read or len(read) != 1:
            continue
        wanted, = named
        (_, got), = refs.items()
        if types.get(got) != types.get(wanted) or got.endswith("_id") or wanted.endswith("_id"):
            continue  # keys are named by their record, in words of its own ("this ticket" for issue_id)
        yield GuardFix(location, C.VACUOUS_GUARD,
                       f"a check of marker {marker.name!r} says {guard.message!r}, but it tests {got}, not {wanted}")


_GROUP_RULE = re.compile(r"\bFROM\s+(\w+)\b(?:(?!\bFROM\b).)*?\bGROUP\s+BY\s+(.+?)\s+HAVING\s+count\(\*\)\s*>\s*1",
                         re.I | re.S)


_SCOPE_WORDS = re.compile(r"\b(?:in|within|for|on|inside) (?:this|that|the same|each) [a-z]+", re.I)
"""Words of a rule's message that say it holds within one record ("in this community")."""


def _unscoped_groups(site: Site) -> Iterator[GuardFix]:
    """C012: an invariant that no two rows share a value (``GROUP BY body HAVING count(*) > 1``) that the
    seed data already breaks, with every account bound to ``:user_id`` in turn, where grouping by one of
    the table's keys too (the order a note is on, the owner of a folder) holds on every binding: the rule
    lost its scope, and every use of the marker fails. The fix groups by that key too (one named by the
    marker's parameters first, then the owner). A rule the seed does not break yet whose message names a
    scope ("already used in this community") while it groups over every value of the one key the marker
    is given (``forum_id``) is grouped by that key too."""
    from veriweb.verify.checks_tasks import _bindings

    found = []
    for location, marker, guard, sql in _sql_guards(site):
        shape = _GROUP_RULE.search(sql) if ".invariants[" in location and not guard.predicate.params else None
        if shape is None or set(re.findall(r"(?<!:):(\w+)", sql)) - {"user_id", "today"}:
            continue
        table = site.database.table(shape.group(1))
        if table is not None:
            found.append((location, marker, guard, sql, shape, table))
    if not found:
        return
    from veriweb.engine.session import Session

    session = Session(site)
    try:
        today = site.clock.today.isoformat()
        binds = [{**b, "today": today} for b in _bindings(site)]

        def holds(text: str) -> bool | None:
            try:
                return all(bool((session.db.guard.read(text, b) or [[0]])[0][0]) for b in binds)
            except VeriwebError:
                return None

        for location, marker, guard, sql, shape, table in found:
            grouped = {c.strip().lower() for c in shape.group(2).split(",")}
            params = {p.name for p in marker.params}
            held = holds(sql)
            said = _SCOPE_WORDS.search(guard.message or "")
            if held is True and said is not None:
                # not broken yet, but its message names a scope it does not group by: the marker's one key
                keys = [p for p in sorted(params) if p.endswith("_id") and p != "user_id" and p not in grouped
                        and table.column(p) is not None]
                if len(keys) == 1:
                    start = shape.start(2)
                    yield GuardFix(location, C.SEED_BREAKS_INVARIANT,
                                   f"marker {marker.name!r}'s rule that no two {table.name} rows share "
                                   f"{shape.group(2).strip()} says {said.group(0)!r} (its message: {guard.message!r}), "
                                   f"but it groups the rows of every {keys[0]}: what one {keys[0]} holds blocks "
                                   f"the others; per {keys[0]} it holds",
                                   sql=sql[:start] + f"{keys[0]}, " + sql[start:])
                continue
            if held is not False:
                continue
            keys = [c.name for c in table.columns if (c.name.endswith("_id") or c.name == "user_id")
                    and c.name.lower() not in grouped]
            keys.sort(key=lambda c: (c not in params, c != "user_id", c))
            for key in keys:
                start = shape.start(2)
                fixed = sql[:start] + f"{key}, " + sql[start:]
                if holds(fixed):
                    yield GuardFix(location, C.SEED_BREAKS_INVARIANT,
                                   f"marker {marker.name!r}'s rule that no two {table.name} rows share "
                                   f"{shape.group(2).strip()} is already broken by the seed data (its message: "
                                   f"{guard.message!r}): every use of the marker fails, while per {key} it holds",
                                   sql=fixed)
                    break
    finally:
        session.close()


_ACTOR = re.compile(r"^(?:author|staff|creator|reporter|opener|issuer|poster|sender|agent|actor|created_by|opened_by|"
                    r"issued_by|posted_by|reported_by|processed_by|handled_by)(?:_id|_user_id)?$")
"""Columns that name who did what a row records: the signed-in user who made the marker run."""


def _summed_figures(site: Site) -> set[tuple[str, str, str, str]]:
    """``(parent, figure, child, part)`` for each figure every seed row of ``parent`` keeps equal to the sum
    of ``part`` over its ``child`` rows (a post's score and its votes' values), over at least five rows with
    children and three different sums."""
    from veriweb.verify.checks_data import child_sums

    out = set()
    for _, parent, figures, child, fk, part, sums, _ in child_sums(site):
        if part == child.primary_key:
            continue
        owed = [sums.get(r.get(fk.ref_column), 0) for r in parent.rows]
        for figure in figures:
            if all(r.get(figure) == o for r, o in zip(parent.rows, owed)) and sum(
                    1 for o in owed if o) >= 5 and len(set(owed)) >= 3:
                out.add((parent.name, figure, child.name, part))
    # or a marker says so: it moves the figure by the value it writes to a child row (``score = score +
    # :value`` beside ``votes.value = :value``)
    children = {(c.name, f.ref_table) for c in site.database.tables for f in c.foreign_keys}
    for marker in site.markers:
        for effect in marker.effects:
            moved = re.search(r"\bSET\s+(\w+)\s*=\s*\1\s*\+\s*:(\w+)", effect.sql, re.I) if effect.op == "update" else None
            if moved is None:
                continue
            figure, param = moved.groups()
            for other in marker.effects:
                if (other.table, effect.table) not in children:
                    continue
                table = site.database.table(other.table)
                for column in (c.name for c in table.columns) if table is not None else ():
                    if re.search(rf"\b{column}\s*=\s*:{param}\b", other.sql) or (
                            other.op == "insert" and _inserted_param(other.sql, column) == param):
                        out.add((effect.table, figure, other.table, column))
    return out


def _inserted(sql: str, column: str) -> tuple[str, tuple[int, int]] | None:
    """What an ``INSERT`` (``VALUES`` or ``SELECT``) writes into ``column``, as written, and its span in ``sql``."""
    from veriweb.verify.checks_keys import _insert_values

    spans = _insert_values(sql)
    if spans is None or column not in spans:
        return None
    start, end = spans[column]
    return sql[start:end], (start, end)


def _inserted_param(sql: str, column: str) -> str | None:
    """The parameter an ``INSERT`` writes into ``column``, if it writes one."""
    found = _inserted(sql, column)
    param = re.fullmatch(r":(\w+)", found[0]) if found is not None else None
    return param.group(1) if param else None


def _inserted_literal(sql: str, column: str) -> tuple[str, tuple[int, int]] | None:
    """The number an ``INSERT`` writes into ``column``, if it writes one, and its span in ``sql``."""
    found = _inserted(sql, column)
    return found if found is not None and re.fullmatch(r"-?\d+(?:\.\d+)?", found[0]) else None


def _uneven_starts(site: Site) -> Iterator[GuardFix]:
    """C005: a marker that adds a row with a figure every seed row keeps equal to the sum of its child rows
    (a post's score and its votes) and one child row whose value differs from that figure (a post starting
    at score 1 with an automatic vote of -1): the new row breaks the rule from its first moment, and every
    later vote moves the score by the wrong amount. The fix writes the child the parent's figure."""
    rules = _summed_figures(site)
    if not rules:
        return
    for m_index, marker in enumerate(site.markers):
        inserts = [(e_index, e) for e_index, e in enumerate(marker.effects) if e.op == "insert"]
        for parent, figure, child, part in rules:
            made = [_inserted_literal(e.sql, figure) for _, e in inserts if e.table == parent]
            added = [(e_index, e, _inserted_literal(e.sql, part)) for e_index, e in inserts if e.table == child]
            if len(made) != 1 or made[0] is None or len(added) != 1 or added[0][2] is None:
                continue
            e_index, effect, (value, span) = added[0]  # type: ignore[misc]
            if float(value) == float(made[0][0]):
                continue
            yield GuardFix(f"$.markers[{m_index}].effects[{e_index}].sql", C.UNGUARDED_WRITE,
                           f"marker {marker.name!r} adds a {parent} row with {figure} {made[0][0]} and one {child} row "
                           f"with {part} {value}, while a {parent} row's {figure} is the sum of its {child} rows' "
                           f"{part} (the seed rows, or the markers that move it, say so): the new row breaks that "
                           f"from the start",
                           sql=effect.sql[:span[0]] + made[0][0] + effect.sql[span[1]:])


def _misgrouped_rules(site: Site) -> Iterator[GuardFix]:
    """C009: a rule that no two rows share a value (``GROUP BY lower(name) HAVING count(*) > 1``) whose
    message names another column of the table and not the one it groups by ("You already have a contact
    with that email address"): a second contact with the same address goes through. The fix groups by the
    column the message names."""
    from veriweb.verify.wording import stem

    for location, marker, guard, sql in _sql_guards(site):
        shape = _GROUP_RULE.search(sql)
        table = site.database.table(shape.group(1)) if shape is not None else None
        if shape is None or table is None or ".invariants[" not in location:
            continue
        said = {stem(w) for w in re.findall(r"[a-z]+", (guard.message or "").lower())}
        grouped = [g.strip() for g in shape.group(2).split(",")]
        keys = {f.column for f in table.foreign_keys} | {"user_id"}
        for item in grouped:
            column = re.fullmatch(r"(?:lower\(\s*)?(\w+)\s*\)?", item)
            if column is None or column.group(1) in keys or stem(column.group(1)) in said:
                continue
            named = [c.name for c in table.columns if c.type == "text" and c.name not in keys
                     and c.name != column.group(1) and all(stem(w) in said for w in c.name.split("_"))]
            if len(named) == 1:
                start = shape.start(2) + shape.group(2).index(item)
                fixed = sql[:start] + item.replace(column.group(1), named[0]) + sql[start + len(item):]
                yield GuardFix(location, C.VACUOUS_GUARD,
                               f"marker {marker.name!r}'s rule that no two {table.name} rows share {item} says "
                               f"{guard.message!r}, which names {named[0]}, not {column.group(1)}: two rows with the "
                               f"same {named[0]} go through", sql=fixed)


_INTERVAL_END = re.compile(r"^(check_?)(in|out)(_date|_at|_on|_day)?$|^(start|starts|end|ends)(_at|_time|_on)$")
"""Columns and parameters that bound a stay or a slot whose end is free again at once (the day a guest
checks out, the minute a meeting ends): its start, or its end."""


def _interval_side(name: str) -> tuple[str, str] | None:
    """``(family, "start" or "end")`` of a bound of :data:`_INTERVAL_END` (``check_out`` -> ``("check", "end")``)."""
    found = _INTERVAL_END.match(name)
    if found is None:
        return None
    if found.group(1):
        return f"check{found.group(3) or ''}", "start" if found.group(2) == "in" else "end"
    return found.group(5), "start" if found.group(4).startswith("start") else "end"


def _touching_intervals(site: Site) -> Iterator[GuardFix]:
    """C009: a guard against overlapping stays or slots that compares one's start with another's end
    inclusively (``a.check_in <= b.check_out``, or ``b.check_out >= a.check_in``; ``a.check_in >
    b.check_out`` in a test that they do not overlap): a stay starting the day another ends is refused
    as a double booking, though the room is free again that day. The fix compares strictly."""
    compare = re.compile(r"(?<![\w.:])((?:\w+\.)?\w+|:\w+)\s*(<=|>=|<|>)\s*((?:\w+\.)?\w+|:\w+)(?!\s*[-+*/(.])")
    flips = {"<=": "<", ">": ">=", ">=": ">", "<": "<="}
    for location, marker, guard, sql in _sql_guards(site):
        params = _bound_params(guard.predicate)
        touching = []
        for found in compare.finditer(sql):
            sides = []
            for term in (found.group(1), found.group(3)):
                owner, _, name = term.rpartition(".")
                if term.startswith(":"):
                    owner, name = ":", params.get(term[1:], term[1:])
                sides.append((owner, _interval_side(name)))
            (left_owner, left), (right_owner, right) = sides
            if left is None or right is None or left[0] != right[0] or left[1] == right[1] or left_owner == right_owner:
                continue  # not one stay's start against another's end
            if found.group(2) in (("<=", ">") if left[1] == "start" else (">=", "<")):
                touching.append(found)
        if touching:
            fixed = sql
            for found in reversed(touching):
                start, end = found.span(2)
                fixed = fixed[:start] + flips[found.group(2)] + fixed[end:]
            first = touching[0]
            yield GuardFix(location, C.VACUOUS_GUARD,
                           f"marker {marker.name!r}'s check {guard.message!r} compares one period's start with "
                           f"another's end inclusively ({first.group(0)!r}): two periods that only touch (one "
                           f"starts when the other ends) count as overlapping, so back-to-back bookings are "
                           f"refused; it should be {first.group(1)} {flips[first.group(2)]} {first.group(3)}",
                           sql=fixed)


def _disagreeing_cutoffs(site: Site) -> Iterator[GuardFix]:
    """C009: a guard that tests a date column against another day than the site's other statements of
    the same cut-off (:func:`veriweb.verify.checks_literals.disagreeing_cutoffs`): votes refused as
    "archived" from another day than the page calls posts archived. The fix tests the day most of them
    say (in the SQL, or in the parameter that holds it)."""
    from veriweb.verify.checks_literals import cutoff_fix, disagreeing_cutoffs

    for cutoff, day, others in disagreeing_cutoffs(site):
        if not cutoff.where.startswith("$.markers"):
            continue
        message = (f"a check tests {cutoff.table}.{cutoff.column} against {cutoff.day}, while the site's other "
                   f"statements of the same cut-off test {others}: it should be {day}")
        if cutoff.span == (0, 0):
            yield GuardFix(cutoff.where, C.VACUOUS_GUARD, message)
        else:
            yield GuardFix(cutoff.where, C.VACUOUS_GUARD, message, sql=cutoff_fix(cutoff, day))


def _last_units_after(site: Site) -> Iterator[GuardFix]:
    """C009: an invariant refusing a count of what is left at zero (``seats <= 0``) after the write: the
    last one can never be had (:func:`veriweb.verify.checks_params.last_units_refused`). The fix refuses
    only a count below zero."""
    from veriweb.verify.checks_params import last_units_refused

    for location, marker, test, fixed in last_units_refused(site):
        yield GuardFix(location, C.VACUOUS_GUARD, f"a check of marker {marker!r}, run after the write, refuses {test}: "
                                                  f"the last one can never be had", sql=fixed)


def _anonymous_writes(site: Site) -> Iterator[GuardFix]:
    """C005: a marker that writes the signed-in user (``:user_id``) into a row while it does not ask for
    a login: a signed-out visitor's review is stored with no author, and shows nowhere. The fix asks for
    the login."""
    if site.auth is None:
        return
    for m_index, marker in enumerate(site.markers):
        if marker.requires_login:
            continue
        written = [e for e in marker.effects if e.op in ("insert", "update") and re.search(r":user_id\b", e.sql)]
        if written:
            yield GuardFix(f"$.markers[{m_index}].requires_login", C.UNGUARDED_WRITE,
                           f"marker {marker.name!r} writes the signed-in user (:user_id) into {written[0].table}, but "
                           f"does not require login: a signed-out visitor's row is stored with no user")


def _insert_value(sql: str, column: str, value: str) -> str | None:
    """``sql``, an ``INSERT``, with ``value`` written for ``column``."""
    found = _inserted(sql, column)
    return None if found is None else sql[:found[1][0]] + value + sql[found[1][1]:]


def _misattributed_actors(site: Site) -> Iterator[GuardFix]:
    """C005: a marker run by a signed-in user that records someone else as the one who acted (the order's
    customer as the staff member who issued a refund; the assignee as a ticket's author): an insert that
    fills a column naming who did it (``staff_id``, ``author_id``) with another parameter, a lookup or a
    fixed account (``1``) rather than ``:user_id``. The fix records ``:user_id``."""
    if site.auth is None:
        return
    for m_index, marker in enumerate(site.markers):
        if not marker.requires_login:
            continue
        for e_index, effect in enumerate(marker.effects):
            if effect.op != "insert":
                continue
            write = parse_effect(marker.name, effect.op, effect.table, effect.sql)
            for column, source in (write.sources or {}).items():
                if not _ACTOR.match(column.lower()) or source.kind not in ("param", "expr", "literal"):
                    continue
                if source.kind == "literal":  # one account recorded whoever acts (staff #1)
                    fixed = _insert_value(effect.sql, column, ":user_id")
                    text = repr(source.value) if isinstance(source.value, str) else str(source.value)
                    if fixed is None:
                        continue
                else:
                    text = f":{source.value}" if source.kind == "param" else str(source.value)
                    if text == ":user_id" or effect.sql.count(text) != 1:
                        continue
                    fixed = effect.sql.replace(text, ":user_id", 1)
                yield GuardFix(f"$.markers[{m_index}].effects[{e_index}].sql", C.UNGUARDED_WRITE,
                               f"marker {marker.name!r} records {text} as the {column} of the {effect.table} row it "
                               f"adds, not the signed-in user who does it (:user_id)", sql=fixed)
                break


def _subquery_tails(sql: str, table: str) -> Iterator[tuple[int, str]]:
    """For each ``FROM table`` of ``sql`` inside parentheses: where its ``WHERE`` ends (-1: none) and the
    subquery's text from ``FROM`` to its closing parenthesis."""
    for found in re.finditer(rf"\bFROM\s+\"?{table}\"?\b", sql, re.I):
        depth, end = 0, len(sql)
        for index in range(found.end(), len(sql)):
            if sql[index] == "(":
                depth += 1
            elif sql[index] == ")":
                if depth == 0:
                    end = index
                    break
                depth -= 1
        if end == len(sql):
            continue  # the statement's own FROM, not a subquery
        tail = sql[found.start():end]
        where = re.search(r"\bWHERE\b", tail, re.I)
        yield (found.start() + where.end() if where else -1), tail


def _unscoped_reads(site: Site) -> Iterator[GuardFix]:
    """C005: a marker's effect that reads the rows of a table each user owns (cart lines) through a
    subquery that does not name the user nor one row by its key, while the marker reads that table
    elsewhere as the user's own (``user_id = :user_id``): the stock taken off for an order counts what
    is in every user's cart. The fix names the user in that subquery too."""
    owned = _owned(site)
    for m_index, marker in enumerate(site.markers):
        texts = [e.sql for e in marker.effects] + [g.predicate.sql for g in (*marker.preconditions, *marker.invariants)
                                                    if isinstance(g.predicate, SqlPredicate)]
        for table, column in owned.items():
            own = rf"\b(?:\w+\.)?{re.escape(column)}\s*=\s*:user_id\b"
            if not any(re.search(own, tail) for text in texts for _, tail in _subquery_tails(text, table)) and not any(
                    e.table == table and re.search(own, e.sql) for e in marker.effects):
                continue
            for e_index, effect in enumerate(marker.effects):
                if effect.table == table:
                    continue
                for where, tail in _subquery_tails(effect.sql, table):
                    if where < 0 or re.search(rf"\b{re.escape(column)}\b|:user_id\b", tail) or _picks_row(
                            site, table, tail[tail.upper().index("WHERE") + 5:]):
                        continue
                    fixed = effect.sql[:where] + f" {column} = :user_id AND" + effect.sql[where:]
                    yield GuardFix(f"$.markers[{m_index}].effects[{e_index}].sql", C.UNGUARDED_WRITE,
                                   f"marker {marker.name!r} reads {table} rows whatever their {column} in "
                                   f"{tail.strip()[:80]!r}, though elsewhere it reads them as the user's own: it "
                                   f"counts other users' rows too", sql=fixed)
                    break


def _unbracketed_or(sql: str) -> tuple[str, str] | None:
    """A ``WHERE`` of ``sql`` written ``key = :p AND col = 'a' OR col = 'b'`` (AND binds before OR, so
    the last alternative alone passes, for any row): the clause and the same with the alternatives
    bracketed (``key = :p AND (col = 'a' OR col = 'b')``), or ``None``."""
    for found in re.finditer(r"\bWHERE\b", sql, re.I):
        start = found.end()
        end = len(sql)
        depth = 0
        for index in range(start, len(sql)):  # the clause runs to the end of its parentheses
            depth += {"(": 1, ")": -1}.get(sql[index], 0)
            if depth < 0:
                end = index
                break
        tail = sql[start:end]
        stop = min((i for i in (_top_keyword(tail, w) for w in ("GROUP", "ORDER", "LIMIT")) if i >= 0), default=len(tail))
        clause = tail[:stop].strip()
        alternatives = _split_words(clause, "OR")
        if len(alternatives) < 2:
            continue
        first = _split_words(alternatives[0], "AND")
        column = re.match(r"([\w.]+)\s*(?:=|<>|!=|\bIN\b)", first[-1], re.I) if len(first) > 1 else None
        if column is None or any(":" in alt for alt in alternatives[1:]) or ":" not in " ".join(first[:-1]):
            continue  # not a keyed test whose last part is one of several values of one column
        if not all(re.match(rf"{re.escape(column.group(1))}\s*(?:=|<>|!=|\bIN\b)", alt, re.I) for alt in alternatives[1:]):
            continue
        fixed = " AND ".join(first[:-1]) + " AND (" + " OR ".join([first[-1], *alternatives[1:]]) + ")"
        return clause, fixed
    return None


def _split_words(text: str, word: str) -> list[str]:
    """``text`` split at the keyword ``word`` outside parentheses and quotes."""
    parts, rest = [], text
    while True:
        cut = _top_keyword(rest, word)
        if cut < 0:
            parts.append(rest.strip())
            return parts
        parts.append(rest[:cut].strip())
        rest = rest[cut + len(word):]


def _loose_alternatives(site: Site) -> Iterator[GuardFix]:
    """C009: a guard testing its row and one of several values with the alternatives unbracketed
    (``id = :o AND status = 'pending' OR status = 'processing'``): while any row anywhere has the last
    value, the guard holds for every row. The fix brackets the alternatives."""
    for location, marker, guard, sql in _sql_guards(site):
        found = _unbracketed_or(sql)
        if found is not None:
            clause, fixed = found
            yield GuardFix(location, C.VACUOUS_GUARD,
                           f"a check of marker {marker.name!r} reads {clause!r}: AND binds before OR, so the last "
                           f"alternative alone passes it, for any row; it should read {fixed!r}",
                           sql=sql.replace(clause, fixed, 1))


def guard_fixes(site: Site) -> list[GuardFix]:
    """Every finding of :func:`check_guards`, with its fix."""
    domains = _domains(site)
    return [*_message_guards(site, domains), *_misspelt_values(site, domains), *_unheld_values(site, domains),
            *_off_by_one_bounds(site), *_misnamed_characters(site), *_other_tables_keys(site), *_strict_patterns(site),
            *_unsaid_today_tests(site),
            *_fixed_days(site),
            *_unordered_dates(site),
            *_counter_signs(site), *_unmoved_counters(site), *_wide_bounds(site), *_unbounded_raises(site), *_unscoped_writes(site),
            *_unkeyed_writes(site), *_unconditioned_writes(site), *_sibling_writes(site), *_restamped_creation(site), *_overwritten_tallies(site), *_fees_once(site), *_unconditional_stamps(site),
            *_overwritten_additions(site), *_unique_kinds(site), *_unowned_keys(site),
            *_cascade_elsewhere(site), *_ignored_params(site), *_numbered_bounds(site),
            *_unowned_writes(site), *_wider_than_guard(site), *_unsourced_transitions(site), *_crossed_keys(site), *_orphaning_deletes(site),
            *_stamps_of_other_states(site), *_split_upserts(site), *_stale_stamps(site), *_global_numbers(site),
            *_unscoped_guards(site), *_unscoped_counts(site), *_unread_bindings(site), *_stock_signs(site), *_ownership_messages(site), *_role_messages(site),
            *_today_directions(site), *_last_units(site), *_untested_columns(site, domains), *_misread_params(site),
            *_unscoped_groups(site), *_misattributed_actors(site), *_unscoped_reads(site), *_unread_keys(site),
            *_unguarded_upserts(site), *_anonymous_writes(site), *_uneven_starts(site),
            *_misgrouped_rules(site), *_touching_intervals(site), *_disagreeing_cutoffs(site),
            *_last_units_after(site), *_loose_alternatives(site), *_counted_keys(site),
            *_void_blockers(site, domains)]


def check_guards(site: Site) -> list[C.Issue]:
    """C009 and C005: guards against their messages and the seed data (see the module docstring)."""
    return [C.Issue(C.CHECKS[f.code][0], f.code, f.location, f.message) for f in guard_fixes(site)]


def check_shared_messages(site: Site) -> list[C.Issue]:
    """C009: a marker's precondition that shows the message of an earlier one while testing something else,
    reading values the earlier one does not ("This post is archived" on a rule that wants the visitor to be
    a member): a visitor refused by it is told the wrong reason and cannot act on it. The repair removes
    the later check (the earlier one is the rule the message was written for). Two checks of one rule
    (a strict one added beside a lenient one) read the same values and are left alone."""
    issues = []
    for m_index, marker in enumerate(site.markers):
        seen: dict[str, set[str]] = {}
        for k, guard in enumerate(marker.preconditions):
            text = json.dumps(guard.predicate.model_dump(mode="json"), sort_keys=True)
            sql = getattr(guard.predicate, "sql", "") or ""
            bound = getattr(guard.predicate, "params", None) or {}
            reads = set(re.findall(r'"ref": "(\w+\.\w+)"', text)) | {  # what it reads, however it names it
                f"param.{name}" for name in re.findall(r":(\w+)", sql) if name not in bound}
            key = " ".join((guard.message or "").lower().split())
            if key and key in seen and not reads <= seen[key]:  # reading what the other does: one rule, twice
                issues.append(C.Issue("consistency", C.VACUOUS_GUARD, f"$.markers[{m_index}].preconditions[{k}]",
                                      f"marker {marker.name!r}: a check shows {guard.message!r}, the message of an earlier "
                                      f"check, while testing something else: a visitor it refuses is told the wrong "
                                      f"reason; the later one should be removed"))
            seen.setdefault(key, reads)
    return issues


GUARD_CHECKS = [check_guards, check_guard_rows, check_shared_messages]

__all__ = ["GUARD_CHECKS", "GuardFix", "check_guards", "guard_fixes"]

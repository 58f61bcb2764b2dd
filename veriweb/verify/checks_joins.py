"""Checks of how SQL matches rows: keys paired with the wrong table's, per-row figures picking other rows, joins that repeat rows (C013).

Each is a pure function of a view's (or an effect's, or a guard's) SQL and the scaffold's declared
foreign keys, yields :class:`veriweb.verify.checks_views.Fix` findings with the SQL that fixes them,
and is gathered by :func:`veriweb.verify.checks_views.view_fixes`:

- a foreign key matched with the key of a table it does not point at (``comments.post_id = u.id``);
- a per-row count over rows that point at the row shown, picked by another column
  (``c.user_id = p.user_id`` for a post's comments);
- a join of the rows pointing at an aggregate's rows that nothing reads (``LEFT JOIN order_items``
  under ``sum(o.total)``): each row counted once per line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from veriweb.scaffold import Site
from veriweb.verify.checks_views import Fix, _aliases, _main_from, _subqueries
from veriweb.verify.dataflow import _SQL_WORDS, _TABLE_NAMES, _top_keyword


# ----------------------------------------------------------------------------- a key matched with another table's


_EQUAL_COLUMNS = re.compile(r"(?<![\w.:'])(?:([A-Za-z_]\w*)\.)?([A-Za-z_]\w*)\s*=\s*(?:([A-Za-z_]\w*)\.)?([A-Za-z_]\w*)(?![\w.(])")


def _scopes(sql: str) -> list[tuple[int, int]]:
    """``(start, end)`` of the whole statement and of each parenthesised ``SELECT`` in it."""
    return [(0, len(sql)), *_subqueries(sql)]


def _column_table(site: Site, sql: str, at: int, alias: str | None, column: str,
                  bindings: dict[str, set[str]]) -> str | None:
    """The table a column reference at ``at`` reads: its alias's table (one table for the alias
    throughout the SQL), or for a bare column the one table of the innermost ``SELECT`` around it
    that has such a column."""
    if alias is not None:
        tables = bindings.get(alias, set())
        if len(tables) != 1:
            return None
        table = next(iter(tables))
        found = site.database.table(table)
        return table if found is not None and found.column(column) is not None else None
    if column.lower() in _SQL_WORDS:
        return None
    inner = [(s, e) for s, e in _scopes(sql) if s <= at < e]
    start, end = max(inner, key=lambda span: span[0])
    own = {t for a, t in _aliases(_own_text(sql, start, end)).items()}
    having = [t for t in own if (table := site.database.table(t)) is not None and table.column(column) is not None]
    return having[0] if len(having) == 1 else None


def _own_text(sql: str, start: int, end: int) -> str:
    """The text of the scope ``start:end`` less its nested ``SELECT``s (blanked, so offsets hold)."""
    text = sql[start:end]
    for s, e in _subqueries(sql):
        if start < s and e <= end and (s, e) != (start, end):
            text = text[:s - start] + " " * (e - s) + text[e - start:]
    return text


def _bindings(sql: str) -> dict[str, set[str]]:
    """Alias (and table name) -> the tables it names in ``sql``."""
    bindings: dict[str, set[str]] = {}
    for match in _TABLE_NAMES.finditer(sql):
        table, alias = match.group(1), match.group(2)
        if table.lower() in _SQL_WORDS or table.upper() == "SELECT":
            continue
        bindings.setdefault(alias if alias and alias.lower() not in _SQL_WORDS else table, set()).add(table)
        bindings.setdefault(table, set()).add(table)
    return bindings


def mismatched_keys(site: Site, location: str, sql: str) -> Iterator[Fix]:
    """A condition matching a foreign key with the key of another table than the one it points at
    (``comments.post_id = u.id`` for a user's comments; ``s.id = r.order_id`` joining the staff
    member who made a refund): the figure reads unrelated rows. The fix takes the same row's key that
    does point at that table (``comments.user_id``), when there is exactly one."""
    bindings = _bindings(sql)
    for match in _EQUAL_COLUMNS.finditer(sql):
        left = (match.group(1), match.group(2), match.start(2), match.start(1) if match.group(1) else match.start(2))
        right = (match.group(3), match.group(4), match.start(4), match.start(3) if match.group(3) else match.start(4))
        if not (left[0] or right[0]):
            continue  # two bare names: not a join
        sides = [(a, c, _column_table(site, sql, at, a, c, bindings), at, begin) for a, c, at, begin in (left, right)]
        for (alias, column, table, at, _), (o_alias, o_column, o_table, _, _) in (sides, sides[::-1]):
            if table is None or o_table is None:
                continue
            key = next((fk for fk in site.database.table(table).foreign_keys if fk.column == column), None)
            other = site.database.table(o_table)
            if key is None or key.ref_table == o_table or o_column != other.primary_key:
                continue
            if site.database.table(key.ref_table) is None:
                continue
            right_keys = [fk for fk in site.database.table(table).foreign_keys if fk.ref_table == o_table]
            fixed = sql
            if len(right_keys) == 1:
                fixed = sql[:at] + right_keys[0].column + sql[at + len(column):]
            said = f"{alias + '.' if alias else ''}{column}"
            yield Fix(location, f"{said} points at {key.ref_table}, but it is matched with "
                                f"{o_alias + '.' if o_alias else ''}{o_column}, the key of {o_table}: the "
                                f"condition pairs unrelated rows", sql, fixed)
            return


def keys_matched(site: Site, location: str, sql: str) -> Iterator[Fix]:
    """A condition matching two tables' own keys (``p.id = c.id`` joining a comment's post) where one of
    them has a foreign key to the other (``comments.post_id``): rows pair by the accident of equal
    numbers. The fix matches the foreign key instead, when there is exactly one; a key that is itself
    the foreign key (a one-to-one table) is left alone."""
    bindings = _bindings(sql)
    for match in _EQUAL_COLUMNS.finditer(sql):
        if not (match.group(1) and match.group(3)):
            continue
        sides = []
        for alias, column, at in ((match.group(1), match.group(2), match.start(1)),
                                  (match.group(3), match.group(4), match.start(3))):
            tables = bindings.get(alias, set())
            table = site.database.table(next(iter(tables))) if len(tables) == 1 else None
            sides.append((alias, column, at, table))
        if any(t is None or c != t.primary_key for _, c, _, t in sides) or sides[0][3].name == sides[1][3].name:
            continue
        for (alias, column, at, table), (_, _, _, other) in (sides, sides[::-1]):
            keys = [fk for fk in table.foreign_keys if fk.ref_table == other.name]
            if any(fk.column == column for fk in keys) or any(fk.column == other.primary_key and fk.ref_table == table.name
                                                              for fk in other.foreign_keys):
                break  # a one-to-one table: its key is the other's
            if len(keys) == 1:
                fixed = sql[:at] + f"{alias}.{keys[0].column}" + sql[at + len(alias) + 1 + len(column):]
                yield Fix(location, f"{alias}.{column} (the key of {table.name}) is matched with the key of "
                                    f"{other.name}, though {table.name}.{keys[0].column} is what points at "
                                    f"{other.name}: the condition pairs rows whose ids happen to be equal", sql, fixed)
                return


def doubled_joins(site: Site, location: str, sql: str) -> Iterator[Fix]:
    """Two joins of one table under two aliases through the same foreign key (``o.id = s.origin_id`` and
    ``d.id = s.origin_id``) while another foreign key of the same row to that table
    (``s.destination_id``) is matched in no condition: both aliases are the same row, so every flight seems to land
    where it took off. The fix joins the alias named like the unread key (``d``: destination) through it,
    else the later join."""
    bindings = _bindings(sql)
    joins: dict[tuple[str, str, str], list[tuple[str, int, int]]] = {}
    for match in _EQUAL_COLUMNS.finditer(sql):
        if not (match.group(1) and match.group(3)):
            continue
        for (alias, column), (o_alias, o_column, o_at) in (((match.group(1), match.group(2)), (match.group(3), match.group(4), match.start(3))),
                                                         ((match.group(3), match.group(4)), (match.group(1), match.group(2), match.start(1)))):
            tables, o_tables = bindings.get(alias, set()), bindings.get(o_alias, set())
            if len(tables) != 1 or len(o_tables) != 1:
                continue
            table, o_table = site.database.table(next(iter(tables))), site.database.table(next(iter(o_tables)))
            if table is None or o_table is None or column != table.primary_key:
                continue
            key = next((fk for fk in o_table.foreign_keys if fk.column == o_column and fk.ref_table == table.name), None)
            if key is not None and alias != o_alias:
                joins.setdefault((o_alias, o_column, table.name), []).append((alias, o_at, len(o_alias) + 1 + len(o_column)))
    for (o_alias, o_column, table_name), uses in joins.items():
        aliases = list(dict.fromkeys(alias for alias, _, _ in uses))
        if len(aliases) != 2:
            continue
        o_table = site.database.table(next(iter(bindings[o_alias])))
        matched = {m.group(k) for m in _EQUAL_COLUMNS.finditer(sql) for k in (2, 4)}
        unread = [fk.column for fk in o_table.foreign_keys if fk.ref_table == table_name and fk.column != o_column
                  and fk.column not in matched]
        if len(unread) != 1:
            continue
        named = [alias for alias in aliases if unread[0].lower().startswith(alias.lower())
                 and not o_column.lower().startswith(alias.lower())]
        wrong = named[0] if len(named) == 1 else aliases[-1]
        alias, at, length = next(u for u in reversed(uses) if u[0] == wrong)
        fixed = sql[:at] + f"{o_alias}.{unread[0]}" + sql[at + length:]
        yield Fix(location, f"{aliases[0]} and {aliases[1]} are both joined to {table_name} through {o_alias}.{o_column}, "
                            f"while {o_alias}.{unread[0]} is matched nowhere: the two are the same row; {wrong} should be "
                            f"joined through {unread[0]}", sql, fixed)


def matched_by_name(site: Site, location: str, sql: str) -> Iterator[Fix]:
    """A row matched with rows of its own table by a name (``g.name = f.name`` in a folder's count) where the
    table's rows belong to different users and names repeat between them: every user's folder called
    "Work" is counted as one. The fix matches the row itself (its key)."""
    bindings = _bindings(sql)
    for match in _EQUAL_COLUMNS.finditer(sql):
        a_alias, a_col, b_alias, b_col = match.group(1), match.group(2), match.group(3), match.group(4)
        if not (a_alias and b_alias) or a_alias == b_alias or a_col != b_col:
            continue
        a_tables, b_tables = bindings.get(a_alias, set()), bindings.get(b_alias, set())
        if len(a_tables) != 1 or a_tables != b_tables:
            continue
        table = site.database.table(next(iter(a_tables)))
        if table is None or a_col == table.primary_key or table.column(a_col) is None:
            continue
        owners = [fk.column for fk in table.foreign_keys if site.auth is not None and fk.ref_table == site.auth.table]
        if len(owners) != 1:
            continue
        seen: dict[Any, Any] = {}
        shared = False
        for row in table.rows:
            value, owner = row.get(a_col), row.get(owners[0])
            if value is not None and value in seen and seen[value] != owner:
                shared = True
                break
            seen.setdefault(value, owner)
        if not shared:
            continue
        key = table.primary_key
        fixed = sql[:match.start()] + f"{a_alias}.{key} = {b_alias}.{key}" + sql[match.end():]
        yield Fix(location, f"{a_alias}.{a_col} = {b_alias}.{b_col} matches {table.name} rows by {a_col}, which rows of "
                            f"different {owners[0]} share: other users' rows are counted with each one; it should match "
                            f"the row itself ({key})", sql, fixed)
        return


def miscorrelated(site: Site, location: str, sql: str) -> Iterator[Fix]:
    """A per-row figure over one table whose rows point at the row shown (``comments.post_id`` on a post)
    that picks them by another column instead (``c.user_id = p.user_id``: every comment of the post's
    author, not the comments on the post). The fix picks them by the key that points at the row."""
    main = _main_from(sql)
    if main is None or site.database.table(main[0]) is None:
        return
    outer_table, outer_alias = main
    lead = len(sql) - len(sql.lstrip())
    select_end = lead + 6 + _top_keyword(sql.lstrip()[6:], "FROM")
    spans = list(_subqueries(sql))
    for start, end in spans:
        if start > select_end or any(s < start and end < e for s, e in spans):
            continue
        inner = sql[start:end]
        if not re.match(r"\s*SELECT\s+(?:count|sum|avg|max|min|total)\s*\(", inner, re.I):
            continue
        own = _aliases(inner)
        tables = set(own.values())
        if len(tables) != 1 or re.search(r"\bJOIN\b", inner, re.I):
            continue
        table = site.database.table(next(iter(tables)))
        link = next((fk for fk in table.foreign_keys if fk.ref_table == outer_table), None) if table else None
        if link is None:
            continue
        alias = next(a for a, t in own.items() if a != t) if any(a != t for a, t in own.items()) else table.name
        tests = list(re.finditer(rf"(?:\b{re.escape(alias)}\.)?(\w+)\s*=\s*{re.escape(outer_alias)}\.(\w+)\b", inner))
        if not tests or any(t.group(1) == link.column and t.group(2) == link.ref_column for t in tests):
            continue
        test = tests[0]
        if table.column(test.group(1)) is None:
            continue
        wanted = f"{alias}.{link.column} = {outer_alias}.{link.ref_column}"
        fixed_inner = inner[:test.start()] + wanted + inner[test.end():]
        yield Fix(location, f"({inner.strip()}) picks the {table.name} rows by {test.group(0)}, not by "
                            f"{table.name}.{link.column}, which points at the {outer_table} row shown: it counts "
                            f"other rows than the row's own", sql, sql[:start] + fixed_inner + sql[end:])
        return



# ----------------------------------------------------------------------------- a join that repeats rows

_JOIN = re.compile(r"\s(?:LEFT\s+(?:OUTER\s+)?|INNER\s+)?JOIN\s+\"?(\w+)\"?\s+(?:AS\s+)?(\w+)\s+ON\s+(.+?)"
                   r"(?=\s(?:LEFT|INNER|JOIN|WHERE|GROUP|ORDER|LIMIT)\b|\)|$)", re.I | re.S)


def fanned_out(site: Site, location: str, sql: str) -> Iterator[Fix]:
    """An aggregate over one table's rows (``sum(o.total)``, ``count(o.id)``) in a query that also joins
    the rows pointing at them (``LEFT JOIN order_items i ON i.order_id = o.id``) without reading any of
    their columns: every row is counted once per row that points at it; or with no aggregate and no
    grouping, each row listed once per row pointing at it. The fix drops the join."""
    aliases = _aliases(sql)
    for found in _JOIN.finditer(sql):
        child, alias, on = found.group(1), found.group(2), found.group(3)
        table = site.database.table(child)
        if table is None or alias.lower() in _SQL_WORDS:
            continue
        rest = sql[:found.start()] + sql[found.end():]
        if re.search(rf"\b{re.escape(alias)}\.", rest):
            continue  # its columns are read: the join is meant
        for fk in table.foreign_keys:
            link = re.search(rf"\b{re.escape(alias)}\.{fk.column}\s*=\s*(\w+)\.(\w+)\b|\b(\w+)\.(\w+)\s*=\s*"
                             rf"{re.escape(alias)}\.{fk.column}\b", on)
            if link is None:
                continue
            parent, column = (link.group(1), link.group(2)) if link.group(1) else (link.group(3), link.group(4))
            if aliases.get(parent) != fk.ref_table or column != fk.ref_column:
                continue
            summed = re.search(rf"\b(?:sum|count|avg|total)\s*\(\s*(?:DISTINCT\s+)?[^()]*\b{re.escape(parent)}\.", rest,
                               re.I)
            if summed is None and not re.search(r"\bGROUP\s+BY\b|\bSELECT\s+DISTINCT\b", sql, re.I):
                yield Fix(location, f"the join of {child} ({alias}) on {alias}.{fk.column} repeats each {fk.ref_table} "
                                    f"row once per {child} row pointing at it, and nothing reads {alias}'s columns: "
                                    f"every list of them shows a row several times", sql, rest)
                return
            if summed is None or re.search(r"\bDISTINCT\b", summed.group(0), re.I):
                continue
            yield Fix(location, f"the join of {child} ({alias}) on {alias}.{fk.column} repeats each {fk.ref_table} "
                                f"row once per {child} row pointing at it, and nothing reads {alias}'s columns: "
                                f"the aggregates over {parent} count each row several times", sql, rest)
            return



# ----------------------------------------------------------------------------- a lookup that drops what it looks up


_LEFT_JOIN = re.compile(r"\bLEFT\s+(?:OUTER\s+)?JOIN\s+(\w+)(?:\s+(?:AS\s+)?(?!ON\b)(\w+))?\s+ON\s+"
                        r"(.*?)(?=\s+(?:LEFT|INNER|CROSS|JOIN|WHERE|GROUP|ORDER|LIMIT|UNION)\b|\s*\)|\s*$)", re.I | re.S)
_LITERAL_TEST = re.compile(r"^(\w+)\.(\w+)\s*(=|!=|<>)\s*('(?:[^']|'')*'|-?\d+)$")


def _passes(row: dict[str, Any], column: str, op: str, literal: str) -> bool:
    """Whether ``row`` passes the test ``column op literal`` (``=``, ``!=`` or ``<>``; a quoted text or a whole number)."""
    value = literal[1:-1].replace("''", "'") if literal.startswith("'") else int(literal)
    return (row.get(column) == value) == (op == "=")


def filtered_lookups(site: Site, location: str, sql: str) -> Iterator[Fix]:
    """A ``LEFT JOIN`` that looks up the one row a foreign key points at, and only when that row has a
    fixed value (``LEFT JOIN milestones m ON m.id = i.milestone_id AND m.state = 'active'``): a row that
    does point at one without that value (an issue of a closed milestone) shows none, as if it had no
    milestone. Reported when a seed row does so. The fix looks the row up whatever its value."""
    bindings = {alias or table: table for table, alias in
                ((m.group(1), m.group(2)) for m in _TABLE_NAMES.finditer(sql)) if table.lower() not in _SQL_WORDS}
    for join in _LEFT_JOIN.finditer(sql):
        target = site.database.table(join.group(1))
        alias = join.group(2) or join.group(1)
        if target is None:
            continue
        terms = [t.strip() for t in re.split(r"\bAND\b", join.group(3), flags=re.I)]
        tests, lookup = [], None
        for term in terms:
            test = _LITERAL_TEST.match(term)
            if test is not None and test.group(1) == alias and target.column(test.group(2)) is not None:
                tests.append((term, test.group(2), test.group(3), test.group(4)))
                continue
            pair = _EQUAL_COLUMNS.fullmatch(term)
            if pair is None:
                continue
            for own, other in (((pair.group(1), pair.group(2)), (pair.group(3), pair.group(4))),
                               ((pair.group(3), pair.group(4)), (pair.group(1), pair.group(2)))):
                source = site.database.table(bindings.get(other[0] or "", ""))
                if own == (alias, target.primary_key) and source is not None and any(
                        fk.column == other[1] and fk.ref_table == target.name for fk in source.foreign_keys):
                    lookup = (source, other[1])
        if lookup is None or not tests:
            continue
        source, key = lookup
        by_key = {row.get(target.primary_key): row for row in target.rows}

        dropped = [row for r in source.rows if (row := by_key.get(r.get(key))) is not None
                   and not all(_passes(row, c, op, lit) for _, c, op, lit in tests)]
        if not dropped:
            continue
        kept = " AND ".join(t for t in terms if t not in {term for term, *_ in tests})
        start, end = join.span(3)
        said = " AND ".join(term for term, *_ in tests)
        yield Fix(location, f"it looks up the {target.name} row that {source.name}.{key} points at only when {said}: "
                            f"rows of {source.name} pointing at one that is not (such as {target.name} row "
                            f"{dropped[0].get(target.primary_key)!r}) show none, as if they had none",
                  sql, sql[:start] + kept + sql[end:])


__all__ = ["fanned_out", "filtered_lookups", "miscorrelated", "mismatched_keys"]

"""Checks of keys, SQL and stored amounts that single-column checks miss (S005/S006, C001, C002, C004, C006).

- S005/S006 in SQL: every view, SQL predicate (goal, progress, constraint, precondition,
  invariant) and marker effect is compiled against the site's schema (an empty in-memory
  SQLite database); one that names a missing table or column, or does not parse, is reported
  at its ``sql``.
- C001 undeclared: a ``NAME_id`` column no foreign key declares, whose values are (almost all)
  keys of the one table ``NAME`` names (or, for ``in_reply_to`` and ``parent``, of its own
  table); the rest point at nothing.
- C001 owners: a row pointing at a row of another owner where every other row points within its
  own (an email filed in another user's folder).
- C002 natural keys: a column rows are looked up by must be unique even when nothing declares
  it: the accounts' login name, a record page's route parameter (``/u/{username}``; within the
  signed-in user's rows when the page looks it up there), an identifier column (sku, email,
  slug, path, reference, code) whose other values are all distinct, and a row number within
  its scope (an issue's number in its project); the name of a table others are filed under
  (categories); a link row's pair (a project member) twice where no other pair is.
- C004 per unit: a stored ``total`` on a row pointing at a priced row and counting units
  (passengers, nights) agrees with count x price plus the fees the other rows charge.
- C006 lines: a line's price (an order item) disagrees with the priced row it points at, where
  (nearly) every other line agrees and another line of the same row is charged the price shown
  (when none is, the price may have changed after they were charged).
"""

from __future__ import annotations

import itertools
import json
import re
import sqlite3
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from veriweb.engine.database import days_between
from veriweb.engine.templates import Route
from veriweb.scaffold import Site
from veriweb.scaffold.values import SqlPredicate
from veriweb.verify import checks as C

_PARAM = re.compile(r"(?<![:\w]):([A-Za-z_][A-Za-z0-9_]*)")
_SQL_TYPES = {"integer": "INTEGER", "money": "INTEGER", "real": "REAL", "boolean": "INTEGER"}
_IDENTIFIERS = ("username", "sku", "email", "slug", "path", "reference", "handle", "login", "code")
_PER_OWNER = ("slug", "path")
"""Identifiers that name a row only within its owner's rows (two users may each have a "notes" path)."""


# ----------------------------------------------------------------------------- SQL against the schema


def _schema(site: Site) -> tuple[sqlite3.Connection, list[C.Issue]]:
    conn = sqlite3.connect(":memory:")
    conn.create_function("vw_today", 0, lambda: "2000-01-01", deterministic=True)
    conn.create_function("vw_now", 0, lambda: "2000-01-01T00:00:00")
    conn.create_function("vw_days", 2, days_between, deterministic=True)
    for table in site.database.tables:
        names = dict.fromkeys([table.primary_key] + [c.name for c in table.columns])
        types = {c.name: _SQL_TYPES.get(c.type, "TEXT") for c in table.columns}
        defs = [f'"{table.primary_key}" INTEGER PRIMARY KEY'] + [
            f'"{n}" {types.get(n, "TEXT")}' for n in names if n != table.primary_key]
        try:
            conn.execute(f'CREATE TABLE "{table.name}" ({", ".join(defs)})')
        except sqlite3.Error:
            continue  # a reserved or doubled name: the loader and the other checks report it
    issues = []
    pending: list[tuple[int, Any, Exception | None]] = [(n, v, None) for n, v in enumerate(site.database.views)]
    while pending:  # views may read views declared after them: retry while any more gets created
        left = []
        for number, view, _ in pending:
            try:
                conn.execute(f'CREATE VIEW "{view.name}" AS {view.sql}')
            except sqlite3.Error as exc:
                left.append((number, view, exc))
        progress, pending = len(left) < len(pending), left
        if not progress:
            break
    for number, view, exc in pending:
        if exc is not None:
            issues.append(_sql_issue(f"$.database.views[{number}].sql", f"view {view.name!r}", exc))
    return conn, issues


def _sql_issue(where: str, what: str, exc: Exception) -> C.Issue:
    text = str(exc)
    code = C.UNKNOWN_TABLE if "no such table" in text else C.UNKNOWN_COLUMN
    return C.Issue("structural", code, where, f"{what} does not run against the site's schema: {text}")


def _sqls(site: Site) -> Iterator[tuple[str, str, str]]:
    """Every SQL text a task or marker runs: (sql, its JSON path, what it is)."""
    for predicate, path, task in C._predicates(site):
        if isinstance(predicate, SqlPredicate):
            what = f"task {task.id!r}'s condition" if task is not None else "a marker's check"
            yield predicate.sql, f"{path}.sql", what
    for m_index, marker in enumerate(site.markers):
        for e_index, effect in enumerate(marker.effects):
            yield effect.sql, f"$.markers[{m_index}].effects[{e_index}].sql", f"marker {marker.name!r}'s effect"


def check_sql(site: Site) -> list[C.Issue]:
    """S005/S006: views, SQL predicates and effects name only tables and columns the schema has."""
    conn, issues = _schema(site)
    try:
        for number, view in enumerate(site.database.views):
            try:  # SQLite checks a view's columns only when it is read
                conn.execute(f'EXPLAIN SELECT * FROM "{view.name}"')
            except sqlite3.Error as exc:
                if not any(i.location == f"$.database.views[{number}].sql" for i in issues):
                    issues.append(_sql_issue(f"$.database.views[{number}].sql", f"view {view.name!r}", exc))
        for sql, where, what in _sqls(site):
            params = dict.fromkeys(_PARAM.findall(sql))
            try:
                conn.execute(f"EXPLAIN {sql}", params)
            except sqlite3.Error as exc:
                issues.append(_sql_issue(where, what, exc))
    finally:
        conn.close()
    return issues


# ----------------------------------------------------------------------------- keys


def named_table(site: Site, column: str) -> Any:
    """The one table a ``NAME_id`` column names (``staff_id`` -> staff, ``category_id`` -> categories)."""
    if not column.endswith("_id") or len(column) < 5:
        return None
    stem = column[:-3].rstrip("s")
    found = [t for t in site.database.tables
             if t.name.rstrip("s") == stem or t.name == stem + "es" or t.name == stem[:-1] + "ies"]
    return found[0] if len(found) == 1 else None


_SELF_REFERENCE = re.compile(r"(?:^|_)(?:in_reply_to|reply_to|parent|previous|prev|next|original|duplicate_of|"
                             r"forwarded_from|replaces|replaced_by)(?:_id)?$")
"""Integer columns named for another row of their own table."""


def check_undeclared_keys(site: Site) -> list[C.Issue]:
    """C001: an undeclared ``NAME_id`` column whose values are keys of table NAME, but for a few (and an
    undeclared ``in_reply_to`` or ``parent`` column whose values are keys of its own table)."""
    keys = {t.name: {row.get(t.primary_key) for row in t.rows} for t in site.database.tables}
    issues = []
    for t_index, table in enumerate(site.database.tables):
        declared = {fk.column for fk in table.foreign_keys} | {table.primary_key}
        for column in table.columns:
            target = named_table(site, column.name) if column.name not in declared else None
            if target is None and column.name not in declared and column.type == "integer" \
                    and _SELF_REFERENCE.search(column.name):
                target = table  # a reply's in_reply_to, an item's parent: a row of the same table
            elif target is not None and target.name == table.name:
                target = None
            if target is None or not target.rows:
                continue
            values = [(n, row.get(column.name)) for n, row in enumerate(table.rows) if row.get(column.name) is not None]
            missing = [(n, v) for n, v in values if v not in keys[target.name]]
            if len(values) < 5 or len(missing) * 10 > len(values):
                continue  # too few to tell, or not keys of that table at all
            for r_index, value in missing:
                issues.append(C.Issue("consistency", C.DANGLING_KEY,
                                      f"$.database.tables[{t_index}].rows[{r_index}].{column.name}",
                                      f"{table.name}.{column.name} = {value!r} points at no row of {target.name}"))
    return issues


def check_owner_keys(site: Site) -> list[C.Issue]:
    """C001: a row pointing at a row of another owner, where every other row points within its owner
    (an email of one user filed in another user's folder). Both tables name their owner by a column
    of the same name keyed to the same table; the rule is read off the rows (at least five keep it,
    one or two break it)."""
    tables = {t.name: t for t in site.database.tables}
    issues = []
    for t_index, table in enumerate(site.database.tables):
        owners = {fk.column: fk.ref_table for fk in table.foreign_keys}
        for fk in table.foreign_keys:
            parent = tables.get(fk.ref_table)
            if parent is None or parent is table:
                continue
            shared = [c for c, ref in owners.items() if c != fk.column
                      and any(p.column == c and p.ref_table == ref for p in parent.foreign_keys)]
            by_key = {row.get(fk.ref_column): row for row in parent.rows}
            for owner in shared:
                known = tables.get(owners[owner])  # a row whose owner is no row is a dangling key already
                real = {r.get(known.primary_key) for r in known.rows} if known is not None else set()
                pairs = [(n, row.get(owner), by_key[row[fk.column]].get(owner)) for n, row in enumerate(table.rows)
                         if row.get(fk.column) in by_key and row.get(owner) in real]
                held = [n for n, mine, theirs in pairs if mine == theirs]
                broke = [n for n, mine, theirs in pairs if mine != theirs]
                if len(held) < 5 or not broke or len(broke) > 2 or len(broke) * 20 > len(pairs):
                    continue
                for r_index in broke:
                    row = table.rows[r_index]
                    issues.append(C.Issue(
                        "consistency", C.DANGLING_KEY, f"$.database.tables[{t_index}].rows[{r_index}].{fk.column}",
                        f"{table.name} row {r_index} ({owner} {row.get(owner)!r}) points at {parent.name} "
                        f"{row.get(fk.column)!r} of {owner} {by_key[row[fk.column]].get(owner)!r}: every other "
                        f"{table.name} row points at its own {owner}'s {parent.name}"))
    return issues


def _lookup_columns(site: Site) -> dict[str, set[str]]:
    """Per table, the columns rows are found by: the login name, and a record page's one
    non-number route parameter when the record is looked up by it alone."""
    found: dict[str, set[str]] = defaultdict(set)
    if site.auth is not None:
        found[site.auth.table].add(site.auth.username_column)
    for page in site.pages:
        route = Route.compile(page.id, page.route)
        if len(route.params) != 1 or route.params[0][1] == "int":
            continue
        for element, _ in C.walk(page.elements, "$"):
            if element.type == "record" and len(element.query.where) == 1:
                cond = element.query.where[0]
                ref = C.field_of(cond.value, "ref")
                if cond.op == "=" and ref == f"param.{route.params[0][0]}":
                    found[element.query.table].add(cond.column)
    return found


def _owned_lookups(site: Site) -> dict[str, dict[str, str]]:
    """Per table, the columns a record page finds a row by within its owner's rows (``/mail/{name}``
    shows the signed-in user's folder of that name): column -> the owner column."""
    found: dict[str, dict[str, str]] = defaultdict(dict)
    for page in site.pages:
        route = Route.compile(page.id, page.route)
        if len(route.params) != 1 or route.params[0][1] == "int":
            continue
        for element, _ in C.walk(page.elements, "$"):
            if element.type != "record" or len(element.query.where) != 2:
                continue
            refs = [(cond, str(C.field_of(cond.value, "ref") or "")) for cond in element.query.where]
            by_param = [c for c, ref in refs if c.op == "=" and ref == f"param.{route.params[0][0]}"]
            by_owner = [c for c, ref in refs if c.op == "=" and ref.startswith("user.")]
            if len(by_param) == 1 and len(by_owner) == 1:
                columns = (by_param[0].column, by_owner[0].column)
                table = _stored_table(site, element.query.table, columns)
                if table is not None:
                    found[table][columns[0]] = columns[1]
    return found


_FROM = re.compile(r"\b(?:FROM|JOIN)\s+\"?(\w+)\"?", re.I)


def _stored_table(site: Site, name: str, columns: tuple[str, ...]) -> str | None:
    """The table holding ``columns`` that ``name`` reads: ``name`` itself, or for a view, the first
    table its SQL reads that has them all (``folder_view`` shows ``folders``)."""
    if site.database.table(name) is not None:
        return name
    view = next((v for v in site.database.views if v.name == name), None)
    for candidate in _FROM.findall(view.sql) if view is not None else []:
        table = site.database.table(candidate)
        if table is not None and all(table.column(c) is not None for c in columns):
            return candidate
    return None


def identifier_columns(site: Site, table: Any) -> set[str]:
    """Text columns of ``table`` that name one row each though nothing declares them unique: the
    ones rows are looked up by, and identifiers (sku, email, ...) of a table not kept per user."""
    lookups = _lookup_columns(site).get(table.name, set())
    per_user = any(c.name == "user_id" for c in table.columns)
    return {c.name for c in table.columns if c.type == "text" and not c.unique
            and (c.name in lookups or (c.name in _IDENTIFIERS and not (per_user and c.name in _PER_OWNER)))}


_NAMES = ("name", "title")
_PEOPLE = ("username", "email", "password", "login")


def _named_parent(site: Site, table: Any) -> bool:
    """A table of things other rows are filed under (categories, labels, airlines): it points at no other
    table, rows of another table point at it, and its rows are no people (two people may share a name)."""
    return (not table.foreign_keys and not any(c.name in _PEOPLE for c in table.columns)
            and any(f.ref_table == table.name for t in site.database.tables if t is not table for f in t.foreign_keys))


def check_natural_keys(site: Site) -> list[C.Issue]:
    """C002: columns rows are looked up by (or identifiers whose other values are all distinct, the name of
    a table other rows are filed under among them: two categories called "Pants") hold no value twice,
    even where nothing declares them unique."""
    lookups = _lookup_columns(site)
    owned = _owned_lookups(site)
    issues = []
    for t_index, table in enumerate(site.database.tables):
        declared = {table.primary_key} | {c.name for c in table.columns if c.unique}
        per_user = any(c.name == "user_id" for c in table.columns)
        for column in table.columns:
            if column.name in declared or column.type != "text":
                continue
            counts = Counter(row.get(column.name) for row in table.rows if row.get(column.name) not in (None, ""))
            repeated = {v for v, n in counts.items() if n > 1}
            owner = owned.get(table.name, {}).get(column.name)
            if owner is not None and column.name not in lookups.get(table.name, set()):
                issues += _owned_duplicates(table, t_index, column.name, owner)
                continue
            if not repeated:
                continue
            looked_up = column.name in lookups.get(table.name, set())
            identifier = ((column.name in _IDENTIFIERS and not (per_user and column.name in _PER_OWNER)
                           or column.name in _NAMES and _named_parent(site, table))
                          and len(counts) >= 5
                          and len(repeated) == 1 and counts.most_common(1)[0][1] == 2)
            if not (looked_up or identifier):
                continue
            why = "rows are looked up by it" if looked_up else "it identifies a row (every other value is distinct)"
            for r_index, row in enumerate(table.rows):
                if row.get(column.name) in repeated:
                    issues.append(C.Issue("consistency", C.DUPLICATE_KEY,
                                          f"$.database.tables[{t_index}].rows[{r_index}].{column.name}",
                                          f"{table.name}.{column.name} {row[column.name]!r} is used by "
                                          f"{counts[row[column.name]]} rows, but {why}"))
        issues += _scoped_numbers(table, t_index, declared)
    return issues


def check_repeated_links(site: Site) -> list[C.Issue]:
    """C002: a row of a table that links two others (members: a project and a user; one attribute at most,
    such as the role) repeating the pair of an earlier row, where no other pair is there twice (Dave listed twice in one project, as Developer and
    as Maintainer): the two rows contradict each other. The repair removes the later one, unless some row
    points at it."""
    referenced = {f.ref_table for t in site.database.tables for f in t.foreign_keys}
    issues = []
    for t_index, table in enumerate(site.database.tables):
        keys = [f.column for f in table.foreign_keys]
        rest = [c for c in table.columns if c.name not in keys and c.name != table.primary_key]
        if len(keys) < 2 or len(rest) > 1 or len(table.rows) < 8 or table.name in referenced:
            continue  # a link with one attribute at most (a member's role), not a record of its own (a review)
        for a, b in itertools.combinations(keys, 2):
            pairs = Counter((r.get(a), r.get(b)) for r in table.rows if r.get(a) is not None and r.get(b) is not None)
            twice = [p for p, n in pairs.items() if n > 1]
            if len(twice) != 1 or pairs[twice[0]] != 2 or len(pairs) < 8:
                continue
            later = [n for n, r in enumerate(table.rows) if (r.get(a), r.get(b)) == twice[0]][1]
            issues.append(C.Issue("consistency", C.DUPLICATE_KEY, f"$.database.tables[{t_index}].rows[{later}]",
                                  f"{table.name} row {later} repeats the {a} and {b} of an earlier row "
                                  f"({twice[0][0]!r}, {twice[0][1]!r}), which no other pair does: the two rows "
                                  f"contradict each other; the later one should be removed"))
    return issues


def _key_values(site: Site, table_name: str, column: str | None) -> set[Any]:
    """The values a referenced column holds (the table's key when ``column`` is ``None``)."""
    table = site.database.table(table_name)
    if table is None:
        return set()
    return {r.get(column or table.primary_key) for r in table.rows}


def check_unlinked_pairs(site: Site) -> list[C.Issue]:
    """C001: a row whose two keys name a pair that the table linking them does not hold, where every other
    row's pair is there (an issue assigned to someone who is no member of its project, while every other
    assignee is, eight at least): the record points at a link that does not exist. The repair clears the key
    where other rows leave it empty, else adds the link (with the attribute most links have)."""
    from veriweb.verify.checks_data import _outliers

    links = []
    for table in site.database.tables:
        keys = [f for f in table.foreign_keys]
        rest = [c for c in table.columns if c.name not in {f.column for f in keys} and c.name != table.primary_key]
        if len(keys) == 2 and len(rest) <= 1 and len(table.rows) >= 5:
            links.append((table, keys, rest))
    issues = []
    for t_index, table in enumerate(site.database.tables):
        if len(table.rows) < 8:
            continue
        for link, (k1, k2), rest in links:
            if link is table:
                continue
            for f1, f2 in itertools.permutations(table.foreign_keys, 2):
                if (f1.ref_table, f2.ref_table) != (k1.ref_table, k2.ref_table) or f1.column == f2.column:
                    continue
                held = {(r.get(k1.column), r.get(k2.column)) for r in link.rows}
                exist = [_key_values(site, f.ref_table, f.ref_column) for f in (f1, f2)]
                if any(a not in exist[0] or b not in exist[1] for a, b in held):
                    continue  # the links themselves point at nothing: their repair comes first
                known = [n for n, r in enumerate(table.rows)  # keys that point at nothing are C001's other check's
                         if r.get(f1.column) in exist[0] and r.get(f2.column) in exist[1]]
                broke = [n for n in known if (table.rows[n][f1.column], table.rows[n][f2.column]) not in held]
                for n in _outliers([n for n in known if n not in broke], broke, 8):
                    row = table.rows[n]
                    if any(r.get(f2.column) is None for r in table.rows):
                        fix = f"{f2.column} should be empty"
                    else:
                        added = {link.primary_key: max(int(r.get(link.primary_key) or 0) for r in link.rows) + 1,
                                 k1.column: row[f1.column], k2.column: row[f2.column]}
                        for column in rest:
                            values = Counter(r.get(column.name) for r in link.rows)
                            added[column.name] = values.most_common(1)[0][0]
                        fix = f"the {link.name} row {json.dumps(added, sort_keys=True)} should be added"
                    issues.append(C.Issue("consistency", C.DANGLING_KEY,
                                          f"$.database.tables[{t_index}].rows[{n}].{f2.column}",
                                          f"{table.name} {row.get(table.primary_key)}: its {f1.column} {row[f1.column]!r} "
                                          f"and {f2.column} {row[f2.column]!r} are no pair of {link.name}, while every "
                                          f"other row's are: {fix}"))
    return issues



_NUMBERED = re.compile(r"^(?:number|no|seq|position)$|_(?:number|no)$")
"""Whole-number columns that number rows within a scope (an issue's #2 in its project)."""


def _scoped_numbers(table: Any, t_index: int, declared: set[str]) -> list[C.Issue]:
    """C002 for a row number (``issues.number``) that two rows of one scope (a foreign key: the
    project) share, where every other row's number is its scope's own."""
    issues = []
    for column in table.columns:
        if column.name in declared or column.type != "integer" or not _NUMBERED.search(column.name):
            continue
        for fk in table.foreign_keys:
            pairs = Counter((row.get(fk.column), row.get(column.name)) for row in table.rows
                            if row.get(column.name) is not None and row.get(fk.column) is not None)
            repeated = {p for p, n in pairs.items() if n > 1}
            if len(pairs) < 5 or len(repeated) != 1 or pairs[next(iter(repeated))] != 2:
                continue
            for r_index, row in enumerate(table.rows):
                if (row.get(fk.column), row.get(column.name)) in repeated:
                    issues.append(C.Issue("consistency", C.DUPLICATE_KEY,
                                          f"$.database.tables[{t_index}].rows[{r_index}].{column.name}",
                                          f"{table.name}.{column.name} {row[column.name]!r} is used twice in "
                                          f"{fk.column} {row[fk.column]!r}, where every other number is its own"))
            break
    return issues


def _owned_duplicates(table: Any, t_index: int, column: str, owner: str) -> list[C.Issue]:
    """C002 for values of ``column`` that one owner's rows hold twice (a page finds the row by the
    value among the owner's rows: two folders named "Inbox" of one user)."""
    counts = Counter((row.get(owner), row.get(column)) for row in table.rows if row.get(column) not in (None, ""))
    return [C.Issue("consistency", C.DUPLICATE_KEY, f"$.database.tables[{t_index}].rows[{r_index}].{column}",
                    f"{table.name}.{column} {row[column]!r} is used by {counts[(row.get(owner), row[column])]} rows "
                    f"of {owner} {row.get(owner)!r}, but a page finds that owner's row by it")
            for r_index, row in enumerate(table.rows)
            if row.get(column) not in (None, "") and counts[(row.get(owner), row.get(column))] > 1]


# ----------------------------------------------------------------------------- amounts


def _priced_parent(site: Site, table: Any) -> Iterator[tuple[Any, Any, str]]:
    """(foreign key, parent table, money column) for each parent with a money column the row shares or prices by."""
    for fk in table.foreign_keys:
        parent = site.database.table(fk.ref_table)
        if parent is None:
            continue
        for column in parent.columns:
            if column.type == "money" and column.name in ("price", "unit_price", "rate", "fare", "cost"):
                yield fk, parent, column.name


def check_line_prices(site: Site) -> list[C.Issue]:
    """C006: a line's price disagrees with the priced row it points at, where every other line agrees."""
    issues = []
    for t_index, table in enumerate(site.database.tables):
        own = {c.name for c in table.columns if c.type == "money"}
        for fk, parent, column in _priced_parent(site, table):
            if column not in own:
                continue
            prices = {row.get(parent.primary_key): row.get(column) for row in parent.rows}
            pairs = [(n, row.get(column), prices.get(row.get(fk.column))) for n, row in enumerate(table.rows)
                     if isinstance(row.get(column), int) and isinstance(prices.get(row.get(fk.column)), int)]
            differ = [(n, own_price, theirs) for n, own_price, theirs in pairs if own_price != theirs]
            if len(pairs) < 10 or len(differ) * 50 > len(pairs):
                continue  # lines keep their own prices here (prices change): nothing to compare
            charged: dict[Any, Counter[Any]] = defaultdict(Counter)
            for n, own_price, _ in pairs:
                charged[table.rows[n].get(fk.column)][own_price] += 1
            for r_index, own_price, theirs in differ:
                same = charged[table.rows[r_index].get(fk.column)]
                if not same.get(theirs):
                    continue  # no line of it is charged the price shown: it may have changed since
                issues.append(C.Issue("consistency", C.VALUE_DISAGREES,
                                      f"$.database.tables[{t_index}].rows[{r_index}].{column}",
                                      f"{table.name} row {r_index} charges {own_price} for {parent.name} "
                                      f"{table.rows[r_index].get(fk.column)}, whose page shows {theirs}"))
    return issues


@dataclass
class _UnitTotals:
    """How a table's ``total`` is made: ``count`` units of a priced parent row, plus a fee."""

    fk: Any
    parent: Any
    column: str
    count: str
    wrong: list[tuple[int, int, int]]
    fees: Counter[int]
    unit_fees: Counter[int]

    def expected(self, row: dict[str, Any], price: Any) -> int | None:
        """The total ``row`` should store, at the fee most rows charge (per row or per unit)."""
        units = row.get(self.count)
        if not isinstance(units, int) or isinstance(units, bool) or not isinstance(price, int) or units <= 0:
            return None
        per_row = self.fees.most_common(1)[0] if self.fees else (0, 0)
        per_unit = self.unit_fees.most_common(1)[0] if self.unit_fees else (0, 0)
        fee = per_unit[0] * units if per_unit[1] > per_row[1] else per_row[0]
        return units * price + fee


def _unit_totals(site: Site, table: Any) -> Iterator[_UnitTotals]:
    """For each priced parent of ``table``, the unit column that explains its totals best (if one does)."""
    if table.column("total") is None or any(
            fk.ref_table == table.name for other in site.database.tables for fk in other.foreign_keys):
        return  # no total, or one with lines (C004 proper compares those)
    counts = [c.name for c in table.columns if c.type == "integer" and c.name != table.primary_key
              and not c.name.endswith("_id")]
    for fk, parent, column in _priced_parent(site, table):
        prices = {row.get(parent.primary_key): row.get(column) for row in parent.rows}
        best: _UnitTotals | None = None
        for count in counts:
            rows = [(n, row["total"], row[count] * prices[row.get(fk.column)]) for n, row in enumerate(table.rows)
                    if isinstance(row.get("total"), int) and isinstance(row.get(count), int)
                    and isinstance(prices.get(row.get(fk.column)), int) and row[count] > 0]
            fees = Counter(total - base for _, total, base in rows)
            unit_fees = Counter((total - base) // table.rows[n][count] for n, total, base in rows
                                if (total - base) % table.rows[n][count] == 0)
            usual = {f for f, k in fees.items() if k >= 2 and f >= 0} | {0}
            usual_unit = {f for f, k in unit_fees.items() if k >= 2 and f >= 0}

            def fits(n: int, total: int, base: int, count: str = count) -> bool:
                diff = total - base
                return diff in usual or (diff % table.rows[n][count] == 0 and diff // table.rows[n][count]
                                         in usual_unit)

            wrong = [(n, total, base) for n, total, base in rows if not fits(n, total, base)]
            if len(rows) >= 10 and len(wrong) * 10 <= len(rows) and (best is None or len(wrong) < len(best.wrong)):
                best = _UnitTotals(fk, parent, column, count, wrong, fees, unit_fees)
        if best is not None:
            yield best


def check_unit_totals(site: Site) -> list[C.Issue]:
    """C004: a stored ``total`` of a row that counts units of a priced row is count x price plus
    a fee (per row or per unit) other rows charge too."""
    issues = []
    for t_index, table in enumerate(site.database.tables):
        for model in _unit_totals(site, table):
            for r_index, total, base in model.wrong:
                where = f"$.database.tables[{t_index}].rows[{r_index}].total"
                issues.append(C.Issue("consistency", C.TOTAL_MISMATCH, where,
                                      f"{table.name} row {r_index}: total {total} disagrees with {model.count} x "
                                      f"{model.parent.name}.{model.column} = {base} plus any fee the other rows "
                                      "charge"))
    return issues


def expected_unit_total(site: Site, t_index: int, r_index: int) -> int | None:
    """The total row ``r_index`` of table ``t_index`` should store, by the rule the other rows follow
    (units x the parent's price plus the usual fee), or ``None`` if no such rule explains the table."""
    table = site.database.tables[t_index]
    row = table.rows[r_index]
    for model in _unit_totals(site, table):
        price = next((r.get(model.column) for r in model.parent.rows
                      if r.get(model.parent.primary_key) == row.get(model.fk.column)), None)
        value = model.expected(row, price)
        if value is not None:
            return value
    return None


def _insert_values(sql: str) -> dict[str, tuple[int, int]] | None:
    """For an ``INSERT ... VALUES (...)`` or ``INSERT ... SELECT ...``, each column's value expression as
    its ``(start, end)`` in ``sql``; ``None`` when the statement is not that plain."""
    from veriweb.verify.dataflow import _INSERT, _top_keyword, split_top

    match = _INSERT.match(sql)
    if match is None:
        return None
    columns = [c.strip().strip('"') for c in match.group(3).split(",")]
    rest_start = match.start(4)
    rest = match.group(4)
    if rest.upper().startswith("VALUES"):
        open_at = rest.index("(")
        body_start = rest_start + open_at + 1
        body = sql[body_start:rest_start + rest.rindex(")")]
    elif rest.upper().startswith("SELECT"):
        body_start = rest_start + len("SELECT")
        tail = sql[body_start:]
        cut = min([i for i in (_top_keyword(tail, "FROM"), _top_keyword(tail, "WHERE")) if i >= 0], default=len(tail))
        body = tail[:cut]
    else:
        return None
    values = split_top(body)
    if len(values) != len(columns):
        return None
    out, at = {}, body_start
    for column, value in zip(columns, values):
        start = sql.index(value, at)
        out[column] = (start, start + len(value))
        at = start + len(value)
    return out


def unit_total_writes(site: Site) -> Iterator[tuple[str, str, str, str]]:
    """C004 on markers: an insert into a table whose seed totals are units x a price (a booking:
    passengers x the fare; a stay: nights x the rate) that computes its total without the units it
    stores (``price + bag`` for every passenger count, ``:guests * price`` for a stay of several
    nights). Yields the effect's path, the new SQL, the units column and what it stores there."""
    for m, marker in enumerate(site.markers):
        for e, effect in enumerate(marker.effects):
            table = site.database.table(effect.table)
            if effect.op != "insert" or table is None:
                continue
            models = list(_unit_totals(site, table))
            spans = _insert_values(effect.sql) if models else None
            if not spans or "total" not in spans:
                continue
            for model in models:
                if model.count not in spans:
                    continue
                units = effect.sql[slice(*spans[model.count])].strip()
                start, end = spans["total"]
                total = effect.sql[start:end]
                if re.search(rf"(?<![\w.:]){re.escape(units)}(?![\w])", total) or not re.search(r"\bprice\b", total):
                    continue
                others = [effect.sql[slice(*spans[c])].strip() for c in spans if c not in (model.count, "total")]
                factor = next((o for o in others if re.fullmatch(r":\w+|\w+\.\w+", o)
                               and re.search(rf"(?<![\w.:]){re.escape(o)}\s*\*|\*\s*{re.escape(o)}(?![\w])", total)),
                              None)
                new_total = (re.sub(rf"(?<![\w.:]){re.escape(factor)}(?![\w])", units, total, count=1) if factor
                             else f"{units} * ({total.strip()})")
                yield (f"$.markers[{m}].effects[{e}].sql", effect.sql[:start] + new_total + effect.sql[end:],
                       model.count, units)
                break


def check_unit_total_writes(site: Site) -> list[C.Issue]:
    """C004: see :func:`unit_total_writes`."""
    return [C.Issue("consistency", C.TOTAL_MISMATCH, path,
                    f"the total this insert stores does not count {count} ({units}), though every seed row's total "
                    f"is {count} x the price")
            for path, _, count, units in unit_total_writes(site)]


_ON_CLAUSE = re.compile(r"\bON\b(.*?)(?=\b(?:LEFT|INNER|CROSS|JOIN|WHERE|GROUP|ORDER|LIMIT)\b|$)", re.I | re.S)


def check_joined_duplicates(site: Site) -> list[C.Issue]:
    """C002: a row repeating another's value of a column that a view joins other rows on (a second
    ``months`` row for ``2026-06``), where every other value is held once: each joined row is counted
    twice (June's revenue doubled) and every list of the values shows it twice. The repair removes the
    later row, when nothing points at it."""
    from veriweb.verify.checks_views import _aliases

    joined: set[tuple[str, str]] = set()
    for view in site.database.views:
        aliases = _aliases(view.sql)
        for clause in _ON_CLAUSE.finditer(view.sql):
            for alias, column in re.findall(r"(?<![\w.])(\w+)\.(\w+)", clause.group(1)):
                if alias in aliases:
                    joined.add((aliases[alias], column))
    issues = []
    for t_index, table in enumerate(site.database.tables):
        for column in table.columns:
            if (table.name, column.name) not in joined or column.name == table.primary_key or column.type == "boolean" \
                    or any(fk.column == column.name for fk in table.foreign_keys):
                continue
            values = [row.get(column.name) for row in table.rows]
            counts = Counter(v for v in values if v not in (None, ""))
            repeated = [v for v, n in counts.items() if n > 1]
            if len(counts) < 5 or len(repeated) != 1 or counts[repeated[0]] != 2:
                continue
            later = max(n for n, v in enumerate(values) if v == repeated[0])
            row = table.rows[later]
            if any(fk.ref_table == table.name and any(r.get(fk.column) == row.get(fk.ref_column) for r in other.rows)
                   for other in site.database.tables for fk in other.foreign_keys):
                continue  # other rows point at it: removing it is no repair
            issues.append(C.Issue("consistency", C.DUPLICATE_KEY, f"$.database.tables[{t_index}].rows[{later}]",
                                  f"{table.name} row {later} repeats {column.name} {repeated[0]!r}, which every other row "
                                  f"holds once and a view joins on: what it joins is counted twice; the later one "
                                  f"should be removed"))
    return issues


KEY_CHECKS = [check_unit_total_writes, check_sql, check_undeclared_keys, check_owner_keys, check_natural_keys, check_line_prices,
              check_unit_totals, check_repeated_links, check_unlinked_pairs, check_joined_duplicates]

__all__ = ["KEY_CHECKS", "check_line_prices", "check_natural_keys", "check_owner_keys", "check_repeated_links", "check_sql", "check_unlinked_pairs",
           "check_undeclared_keys", "check_unit_totals", "expected_unit_total", "named_table"]

"""Checks of the figures views compute: what a column's own name, or the site's other SQL, says it must be.

A view that an author got wrong shows a wrong figure on every page that reads it, and nothing
else in the site disagrees loudly: the count is a number, the total is an amount. These
checks (C013) read a view's SQL against evidence inside the site itself:

- a sum over line rows that leaves out the quantity every other figure multiplies the same
  amount by (``sum(p.price)`` where ``c.qty * p.price`` is the line total elsewhere);
- a per-row count or sum whose subquery never refers to the row (``(SELECT count(*) FROM
  stars s)`` on each project, where stars point at projects): every row shows the same figure;
- a figure named after one value of a column that counts another (``... AND i.state =
  'closed') AS open_issues``; ``e.read = 1`` counted as ``unread``), or never tests the column;
- a ``CASE`` whose words say the opposite of its test: "Upcoming" for a date already past,
  "You downvoted" for a vote of +1, "Room only" for a hotel with breakfast;
- an effect that stamps a date column named for one state when the state becomes another
  (``closed_on = CASE :state WHEN 'open' THEN :today``);
- a figure named for what remains that adds what is taken off (``sum(o.total + o.refunded) AS net``);
- a marker named for one value (``empty_trash``) whose effect picks rows by another (``kind = 'archive'``);
- a toggle's button texts chosen by the state they would set ("Star" on a starred message), ``CASE``
  words over a number saying another branch's number, and a marker named for toggling that sets
  one value (``toggle_read`` writing ``read = 1``);
- a running figure moved by a multiple of a value its marker records once in a row (``score =
  score + 2 * :value`` beside the vote row that stores ``:value``), or by one for a row of several
  units (``seats = seats - 1`` for a booking of ``:passengers``);
- an update writing a parameter named for one column into another (``SET author_id = :assignee_id``);
- two roles of a row joined from one table (author, reviewer) shown under each other's names;
- a column passed through under the name of another column of its row (``c.name AS city_code``);
- an inner join on a key some seed rows leave empty (the unassigned issues vanish);
- a per-row count named for the rows it counts that keeps only some by a figure (``comments`` counting
  those with a positive score);
- an insert dating the row it makes with another record's date (a refund dated as its order);
- a lookup by a word no row of its column holds that another column holds (``name = 'Archive'`` for the
  folder of ``kind = 'archive'``);
- a ``CASE`` whose words name a yes/no column that its test does not read ("Breakfast included" decided
  by the stars);
- the text a search reads leaving out the column its page invites the search by ("Search by subject,
  name or address" over a haystack without the sender's name);
- a column of ``CASE`` words that writes none of what a filter's option looks for ("flagged" where the
  "Starred" option looks for ``starred``);
- an amount held in cents written out as dollars (``'$' || i.bounty``), or in whole dollars where the
  seed amounts have cents (``p.price / 100`` pre-filling a price form).

How SQL matches rows (keys, correlations, joins) is read by :mod:`veriweb.verify.checks_joins`, the
literal values it writes or compares with by :mod:`veriweb.verify.checks_literals`; their findings
are gathered here too.

The same reading applies to markers' effects (a stored total summed without the quantity).
:func:`view_fixes` gives, for each finding, the SQL that fixes it; the repair operator
(:func:`veriweb.verify.repair_pages.fix_view`) applies it. Every check is a pure function of the
scaffold and silent on clean generated sites.
"""

from __future__ import annotations

import contextlib
import json
import re
from typing import Any
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from veriweb.scaffold import Site
from veriweb.verify import checks as C
from veriweb.verify.dataflow import (
    _INSERT, _SQL_WORDS, _TABLE_NAMES, _top_keyword, closing_paren, parse_effect, set_span, split_top,
)
from veriweb.verify.wording import singular, stem

VIEW_FIGURE = C._code("C013", "consistency", "a view computes a figure that its own name or the site's other "
                                             "figures contradict")

_QUANTITY = re.compile(r"^(?:qty|quantity|quantities|units|count|seats|nights|passengers|guests|tickets|amount_units)$")


@dataclass(frozen=True)
class Fix:
    """One finding: where (a view's or an effect's SQL), what is wrong, and the SQL that fixes it."""

    location: str
    message: str
    old: str
    new: str


# ----------------------------------------------------------------------------- SQL reading


def _aliases(sql: str) -> dict[str, str]:
    """Alias (and table name) -> table, for every ``FROM``/``JOIN`` of ``sql`` (subqueries included)."""
    out: dict[str, str] = {}
    for match in _TABLE_NAMES.finditer(sql):
        table, alias = match.group(1), match.group(2)
        if table.lower() in _SQL_WORDS or table.upper() == "SELECT":
            continue
        if alias and alias.lower() not in _SQL_WORDS:
            out[alias] = table
        out.setdefault(table, table)
    return out


def _subqueries(sql: str) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of each parenthesised ``SELECT`` in ``sql`` (the text inside the parentheses)."""
    for match in re.finditer(r"\(\s*SELECT\b", sql, re.I):
        end = closing_paren(sql, match.start())
        if end is not None:
            yield match.start() + 1, end


def _select_items(sql: str) -> list[tuple[str, str]] | None:
    """The top-level select list of a ``SELECT`` as ``(expression, alias)``; ``None`` if it is not one."""
    body = sql.strip()
    if not body[:6].upper() == "SELECT":
        return None
    cut = _top_keyword(body[6:], "FROM")
    if cut < 0:
        return None
    out = []
    for item in split_top(body[6:6 + cut]):
        found = re.fullmatch(r"(.*?)\s+AS\s+\"?(\w+)\"?", item.strip(), re.I | re.S)
        if found:
            out.append((found.group(1), found.group(2)))
    return out


def _main_from(sql: str) -> tuple[str, str] | None:
    """The ``(table, alias)`` after the outermost ``FROM``."""
    body = sql.strip()
    cut = _top_keyword(body[6:], "FROM") if body[:6].upper() == "SELECT" else -1
    if cut < 0:
        return None
    found = re.match(r"FROM\s+\"?(\w+)\"?(?:\s+(?:AS\s+)?(\w+))?", body[6 + cut:], re.I)
    if found is None:
        return None
    alias = found.group(2) if found.group(2) and found.group(2).lower() not in _SQL_WORDS else found.group(1)
    return found.group(1), alias


def _words(name: str) -> set[str]:
    return {w for w in re.split(r"[_\W]+", name.lower()) if w}


# ----------------------------------------------------------------------------- sums without the quantity


def _products(site: Site, texts: list[str]) -> dict[tuple[str, str], set[tuple[str, str]]]:
    """Each amount ``(table, column)`` that some SQL of the site multiplies by a quantity column, with
    those quantity columns: ``c.qty * p.price`` gives ``(products, price) -> {(cart_items, qty)}``."""
    out: dict[tuple[str, str], set[tuple[str, str]]] = {}
    for sql in texts:
        aliases = _aliases(sql)
        for a1, c1, a2, c2 in re.findall(r"\b(\w+)\.(\w+)\s*\*\s*(\w+)\.(\w+)\b", sql):
            for (qa, qc), (pa, pc) in (((a1, c1), (a2, c2)), ((a2, c2), (a1, c1))):
                if _QUANTITY.match(qc) and not _QUANTITY.match(pc) and qa in aliases and pa in aliases:
                    out.setdefault((aliases[pa], pc), set()).add((aliases[qa], qc))
    return out


def _unweighted_sums(site: Site, location: str, sql: str,
                     products: dict[tuple[str, str], set[tuple[str, str]]]) -> Iterator[Fix]:
    aliases = _aliases(sql)
    for match in re.finditer(r"\bsum\s*\(", sql, re.I):
        end = closing_paren(sql, match.end() - 1)
        if end is None:
            continue
        inner = sql[match.end():end]
        if "*" in inner or re.search(r"\bSELECT\b", inner, re.I):
            continue
        for alias, column in re.findall(r"\b(\w+)\.(\w+)\b", inner):
            table = aliases.get(alias)
            partners = products.get((table, column), set()) if table else set()
            here = [(a, qc) for qt, qc in sorted(partners) for a, t in aliases.items() if t == qt and a != t]
            here += [(qt, qc) for qt, qc in sorted(partners) if aliases.get(qt) == qt]
            if not here:
                continue
            q_alias, q_column = here[0]
            fixed = sql[:match.end()] + re.sub(rf"\b{re.escape(alias)}\.{re.escape(column)}\b",
                                               f"{q_alias}.{q_column} * {alias}.{column}", inner, count=1) + sql[end:]
            yield Fix(location, f"sum({inner.strip()}) adds up {table}.{column} once per row, but the site "
                                f"multiplies {table}.{column} by {q_column} elsewhere (a line's amount is "
                                f"{q_column} times it): the sum leaves out the quantity", sql, fixed)
            break


# ----------------------------------------------------------------------------- per-row figures over every row


def _uncorrelated(site: Site, location: str, sql: str) -> Iterator[Fix]:
    main = _main_from(sql)
    if main is None:
        return
    outer_table, outer_alias = main
    if site.database.table(outer_table) is None:
        return
    lead = len(sql) - len(sql.lstrip())
    select_end = lead + 6 + _top_keyword(sql.lstrip()[6:], "FROM")  # the select list ends here
    spans = list(_subqueries(sql))
    for start, end in spans:
        if any(s < start and end < e for s, e in spans):
            continue  # nested: its parent is what refers to the row or not
        inner = sql[start:end]
        if not re.match(r"\s*SELECT\s+(?:count|sum|avg|max|min|total|group_concat)\s*\(", inner, re.I):
            continue
        own = _aliases(inner)
        if any(alias not in own for alias, _ in re.findall(r"\b([A-Za-z_]\w*)\.(\w+)\b", inner)):
            continue  # refers to something outside itself: correlated
        if start > select_end:
            continue  # in a filter or a join, not a column of each row
        for alias, table_name in own.items():
            table = site.database.table(table_name)
            link = next((fk for fk in table.foreign_keys if fk.ref_table == outer_table), None) if table else None
            if link is None:
                continue
            where = _top_keyword(inner, "WHERE")
            condition = f"{alias}.{link.column} = {outer_alias}.{link.ref_column}"
            if where >= 0:
                fixed_inner = inner[:where + 5] + f" {condition} AND" + inner[where + 5:]
            else:
                fixed_inner = inner.rstrip() + f" WHERE {condition}"
            yield Fix(location, f"({inner.strip()}) never refers to the {outer_table} row it is shown on, though "
                                f"{table_name}.{link.column} points at {outer_table}: every row shows the same "
                                f"figure, the one for all of them", sql, sql[:start] + fixed_inner + sql[end:])
            break


# ----------------------------------------------------------------------------- a figure named after another value


@C.per_run
def column_values(site: Site) -> dict[tuple[str, str], dict[str, str]]:
    """Each column's text values, folded -> as written: those its seed rows hold and those markers write
    as literals (an insert's value, an update's ``column = 'value'``). Shared: do not change it."""
    out: dict[tuple[str, str], dict[str, str]] = {}
    for table in site.database.tables:
        for column in table.columns:
            out[(table.name, column.name)] = {r[column.name].lower(): r[column.name] for r in table.rows
                                              if isinstance(r.get(column.name), str)}
    for marker in site.markers:
        for effect in marker.effects:
            write = parse_effect(marker.name, effect.op, effect.table, effect.sql)
            written = [(c, s.value) for c, s in write.sources.items() if s.kind == "literal" and isinstance(s.value, str)]
            if effect.op == "update":  # what it sets, not what its WHERE tests
                head = re.split(r"\bWHERE\b", effect.sql, maxsplit=1, flags=re.I)[0]
                written += re.findall(r"\b(\w+)\s*=\s*'([^']*)'", head)
            for column, value in written:
                if (effect.table, column) in out:
                    out[(effect.table, column)].setdefault(value.lower(), value)
    return out


def _domain(site: Site, table: str, column: str) -> set[str]:
    """The text values (folded) a column holds or gets (:func:`column_values`)."""
    return set(column_values(site).get((table, column), {}))


def _misnamed(site: Site, location: str, sql: str) -> Iterator[Fix]:
    items = _select_items(sql) or []
    aliases = _aliases(sql)
    flags = {(t.name, c.name) for t in site.database.tables for c in t.columns if c.type == "boolean"}
    for expr, name in items:
        if not re.search(r"\b(?:count|sum|total)\s*\(", expr, re.I):
            continue
        words = _words(name)
        for match in re.finditer(r"\b(\w+)\.(\w+)\s*(=|!=|<>)\s*('([^']*)'|[01]\b)", expr):
            alias, column, op, literal, text = match.groups()
            table = aliases.get(alias)
            if table is None or re.search(r"\bNOT\s*\(?\s*$", expr[:match.start()], re.I):
                continue  # a negated test: read no further than a plain one
            if text is not None and op == "=":
                value = text.lower()
                others = (_domain(site, table, column) & words) - {value}
                if not others or _words(value) & words:
                    continue  # the name says no other value, or says this one
                named = sorted(others)[0]
                fixed_expr = expr[:match.start(4)] + f"'{named}'" + expr[match.end(4):]
                yield Fix(location, f"{name} is named for {column} = {named!r}, but it counts rows where "
                                    f"{alias}.{column} = {literal}", sql, _replace_item(sql, expr, fixed_expr, name))
            elif text is None and (table, column) in flags:
                truth = (literal == "1") == (op == "=")
                if f"un{column}" in words or f"not_{column}" in name.lower():
                    wanted = False
                elif column in words:
                    wanted = True
                else:
                    continue
                if truth != wanted:
                    flipped = "0" if literal == "1" else "1"
                    fixed_expr = expr[:match.start(4)] + flipped + expr[match.end(4):]
                    yield Fix(location, f"{name} counts rows where {alias}.{column} {op} {literal}: the "
                                        f"{'opposite' if truth else 'rest'} of what its name says",
                              sql, _replace_item(sql, expr, fixed_expr, name))


def _redefined_columns(site: Site, location: str, sql: str) -> Iterator[Fix]:
    """A view column named like a stored column of its table that is that column worked on with another
    one (``o.total - o.refunded AS total``): every page showing the view's ``total`` shows something
    the data does not call the total (an order looks cheaper than it was, its lines no longer add up to
    it). The fix shows the stored column; a figure worked out from it wants a name of its own."""
    aliases = _aliases(sql)
    for expr, name in _select_items(sql) or []:
        found = re.fullmatch(rf"\s*(\w+)\.{re.escape(name)}\s*([-+*/])\s*(\w+)\.(\w+)\s*", expr)
        if found is None or found.group(1) != found.group(3) or found.group(4) == name:
            continue
        table = site.database.table(aliases.get(found.group(1), ""))
        if table is None or table.column(name) is None or table.column(found.group(4)) is None:
            continue
        yield Fix(location, f"{name} is {expr.strip()}, under the name of the stored {table.name}.{name}: what "
                            f"the data calls {name} is {found.group(1)}.{name}", sql,
                  _replace_item(sql, expr, f"{found.group(1)}.{name}", name))


def _overridden_columns(site: Site, location: str, sql: str) -> Iterator[Fix]:
    """A view column named like a stored column of its table that passes the column through only in some
    rows and writes another of its values in the rest, decided by something else (``CASE WHEN p.stock = 0
    THEN 'disabled' ELSE p.status END AS status``): a sold-out product shows as disabled though its stored
    status says enabled, and every filter and goal reading the view's ``status`` sees the wrong one. The fix
    shows the stored column; a state worked out from others wants a name of its own."""
    aliases = _aliases(sql)
    for expr, name in _select_items(sql) or []:
        found = re.fullmatch(r"\s*CASE\s+WHEN\s+(.+?)\s+THEN\s+(.+?)\s+ELSE\s+(.+?)\s+END\s*", expr, re.I | re.S)
        if found is None:
            continue
        test, then, other = found.groups()
        for column_side, literal_side in ((other, then), (then, other)):
            stored = re.fullmatch(rf"(\w+)\.{re.escape(name)}", column_side.strip())
            literal = re.fullmatch(r"'([^']*)'", literal_side.strip())
            if stored and literal:
                break
        else:
            continue
        if re.search(rf"\b{re.escape(name)}\b", test):
            continue  # a wording of the column itself
        table = site.database.table(aliases.get(stored.group(1), ""))
        if table is None or table.column(name) is None or literal.group(1).lower() not in _domain(site, table.name, name):
            continue
        yield Fix(location, f"{name} writes {literal.group(0)}, one of {table.name}.{name}'s own values, whenever "
                            f"{test.strip()}, whatever {table.name}.{name} holds: the view shows a {name} the data does "
                            f"not have", sql, _replace_item(sql, expr, stored.group(0), name))


def _distinct_counts(site: Site, location: str, sql: str) -> Iterator[Fix]:
    """A count named for a table's rows that counts the distinct values of a key to another table
    (``count(DISTINCT o.customer_id) AS orders``, ``count(DISTINCT c.user_id) AS comments``): the page says
    how many customers ordered, or how many people replied, under the name of the rows. The fix counts the
    rows (their own key)."""
    from veriweb.verify.wording import singular

    aliases = _aliases(sql)
    for found in re.finditer(r"count\s*\(\s*DISTINCT\s+(\w+)\.(\w+)\s*\)(?:\s+FROM\s[^()]*\))?\s+AS\s+(\w+)", sql, re.I):
        table = site.database.table(aliases.get(found.group(1), ""))
        if table is None or found.group(2) == table.primary_key:
            continue
        if not any(fk.column == found.group(2) for fk in table.foreign_keys):
            continue  # distinct values of the row's own column: what is counted is named by it
        name = found.group(3).lower()
        if singular(name) != singular(table.name) and not name.endswith("_" + table.name):
            continue
        fixed = sql[:found.start(2)] + table.primary_key + sql[found.end(2):]
        yield Fix(location, f"{found.group(3)} counts the distinct {found.group(2)} of {table.name} (one per "
                            f"{found.group(2).removesuffix('_id')}), not the {table.name} rows its name says; it should "
                            f"count {found.group(1)}.{table.primary_key}", sql, fixed)


def _merged_groups(site: Site, location: str, sql: str) -> Iterator[Fix]:
    """A view grouping a table's rows by a column that is not their key (``GROUP BY u.name``) while it shows
    their key (``u.id AS id``), where rows share that column's value (two users called Uma Silva): the rows
    merge into one, with one key, and the other record disappears. The fix groups by the key."""
    aliases = _aliases(sql)
    cut = _top_keyword(sql, "GROUP")
    grouped = re.match(r"GROUP\s+BY\s+(\w+)\.(\w+)\s*(?=$|HAVING\b|ORDER\b|LIMIT\b|\))", sql[cut:], re.I) if cut >= 0 else None
    table = site.database.table(aliases.get(grouped.group(1), "")) if grouped else None
    column = table.column(grouped.group(2)) if table is not None else None
    if column is None or column.unique:
        return
    if not re.search(rf"(?<![\w.]){re.escape(grouped.group(1))}\.{re.escape(table.primary_key)}\b", sql[:cut]):
        return
    values = Counter(row.get(grouped.group(2)) for row in table.rows)
    if not values or max(values.values()) < 2:
        return
    at = cut + grouped.start(2)
    fixed = sql[:at] + table.primary_key + sql[at + len(grouped.group(2)):]
    yield Fix(location, f"it groups {table.name} rows by {grouped.group(1)}.{grouped.group(2)}, which several rows share, "
                        f"while it shows each row's {table.primary_key}: those rows merge into one and the others vanish; "
                        f"it should group by {grouped.group(1)}.{table.primary_key}", sql, fixed)


def _scaled_columns(site: Site, location: str, sql: str) -> Iterator[Fix]:
    """A view column named like a stored column of its table that is that column scaled by a fixed number
    (``CAST(h.price * 1.2 AS INTEGER) AS price``): every page shows a figure the data does not hold (a price
    20% above what the booking charges). Converting units (``/ 100``) is another matter, left alone. The fix
    shows the stored column."""
    aliases = _aliases(sql)
    for expr, name in _select_items(sql) or []:
        found = re.search(rf"(\w+)\.{re.escape(name)}\s*([*/+-])\s*(\d+(?:\.\d+)?)\b", expr)
        if found is None or float(found.group(3)) in (0.0, 1.0, 100.0, 1000.0):
            continue
        table = site.database.table(aliases.get(found.group(1), ""))
        if table is None or table.column(name) is None or table.column(name).type not in ("money", "integer", "real"):
            continue
        yield Fix(location, f"{name} is {expr.strip()}, the stored {table.name}.{name} worked on with a fixed "
                            f"{found.group(3)}: every page shows a {name} the data does not hold; it should show "
                            f"{found.group(1)}.{name}", sql, _replace_item(sql, expr, f"{found.group(1)}.{name}", name))


def _reversed_days(site: Site, location: str, sql: str) -> Iterator[Fix]:
    """``vw_days(later, earlier)`` given the earlier day first (``vw_days(s.check_in, s.check_out)``), as every
    seed row shows: each figure comes out negative ("-6 nights"). The fix swaps them."""
    aliases = _aliases(sql)
    for found in re.finditer(r"vw_days\s*\(\s*(\w+)\.(\w+)\s*,\s*(\w+)\.(\w+)\s*\)", sql, re.I):
        if found.group(1) != found.group(3):
            continue
        table = site.database.table(aliases.get(found.group(1), ""))
        pairs = [(row.get(found.group(2)), row.get(found.group(4))) for row in (table.rows if table else [])]
        pairs = [(a, b) for a, b in pairs if isinstance(a, str) and isinstance(b, str) and a != b]
        if not pairs or not all(a < b for a, b in pairs):
            continue
        swapped = f"vw_days({found.group(3)}.{found.group(4)}, {found.group(1)}.{found.group(2)})"
        yield Fix(location, f"{found.group(0)} takes the earlier day first (every {table.name} row has {found.group(2)} "
                            f"before {found.group(4)}), so each count of days is negative; it should be {swapped}",
                  sql, sql[:found.start()] + swapped + sql[found.end():])


def _counted_tables(site: Site, location: str, sql: str) -> Iterator[Fix]:
    """A figure named for one table that counts the rows of another (``(SELECT count(*) FROM votes c
    WHERE c.post_id = p.id) AS comments`` where the site has a ``comments`` table with a ``post_id``):
    the page says "3 comments" for three votes. The fix counts the table the name names."""
    from veriweb.verify.wording import singular

    tables = {t.name: t for t in site.database.tables}
    for expr, name in _select_items(sql) or []:
        found = re.fullmatch(r"\(\s*SELECT\s+count\s*\(\s*\*\s*\)\s+FROM\s+(\w+)(?:\s+(?:AS\s+)?(\w+))?\s+WHERE\s+(.*)\)",
                             expr.strip(), re.I | re.S)
        named = next((t for t in (name, f"{name}s", singular(name)) if t in tables), None) if found else None
        if found is None or named is None or named == found.group(1) or found.group(1) not in tables:
            continue
        inner = found.group(2) or found.group(1)
        used = set(re.findall(rf"\b{re.escape(inner)}\.(\w+)", found.group(3)))
        columns = {c.name for c in tables[named].columns} | {tables[named].primary_key}
        if not used or not used <= columns:
            continue  # the named table could not be counted the same way
        fixed = re.sub(rf"(\bFROM\s+){re.escape(found.group(1))}\b", lambda m: m.group(1) + named, expr, count=1, flags=re.I)
        yield Fix(location, f"{name} is named for the {named} table, but it counts rows of {found.group(1)}",
                  sql, _replace_item(sql, expr, fixed, name))


_EARNED = re.compile(r"(?:^|_)(?:revenue|sales|income|earnings|earned|gross|net|turnover|takings)(?:_|$)", re.I)
_VOID = re.compile(r"^(?:cancell?ed|void(?:ed)?|annulled)$", re.I)


def _cancelled_earnings(site: Site, location: str, sql: str) -> Iterator[Fix]:
    """A figure named for money earned (``revenue``, ``sales``, ``net``) summed in a view that reads a
    table whose rows can be cancelled (a status column holding ``'canceled'``) with no test of that
    status anywhere: cancelled orders count as revenue. The fix leaves them out where the table is
    joined."""
    if not any(re.search(r"\bsum\s*\(", expr, re.I) and _EARNED.search(label) for expr, label in _select_items(sql) or []):
        return
    aliases = _aliases(sql)
    for alias, name in sorted(aliases.items()):
        table = site.database.table(name)
        named = {a for a, t in aliases.items() if t == name}
        if table is None or (alias == name and len(named) > 1):
            continue  # the table under its alias, not its bare name
        found = next(((c.name, v) for c in table.columns if c.type == "text"
                      for v in sorted({r.get(c.name) for r in table.rows if isinstance(r.get(c.name), str)})
                      if _VOID.match(v)), None)
        if found is None or any(re.search(rf"\b{re.escape(a)}\.{found[0]}\b", sql) for a in named) or (
                len(named) == 1 and re.search(rf"(?<![\w.]){found[0]}\s*(?:!=|<>|=|NOT\b|IN\b)", sql, re.I)):
            continue
        test = f"{alias}.{found[0]} != '{found[1]}'"
        joined = re.search(rf"\bJOIN\s+{re.escape(name)}\s+(?:AS\s+)?{re.escape(alias)}\s+ON\s+", sql, re.I)
        if joined is not None:  # inside the join's condition, so a LEFT JOIN keeps its empty months
            end = min([m.start() for m in re.finditer(r"\s(?:LEFT\s+|INNER\s+)?JOIN\s|\sWHERE\s|\sGROUP\s+BY\s|\sORDER\s+BY\s",
                                                      sql[joined.end():], re.I)] or [len(sql) - joined.end()])
            at = joined.end() + end
            fixed = sql[:at] + f" AND {test}" + sql[at:]
        else:
            where = _top_keyword(sql, "WHERE")
            group = min([i for i in (_top_keyword(sql, "GROUP BY"), _top_keyword(sql, "ORDER BY")) if i >= 0],
                        default=len(sql))
            fixed = (sql[:where + 5] + f" {test} AND" + sql[where + 5:]) if 0 <= where < group else \
                sql[:group].rstrip() + f" WHERE {test} " + sql[group:].lstrip()
        yield Fix(location, f"it sums {name} as money earned without leaving out rows whose {found[0]} is "
                            f"{found[1]!r}: cancelled {name} count", sql, fixed.strip())
        return


def _replace_item(sql: str, expr: str, fixed: str, name: str) -> str:
    """``sql`` with the select item ``expr AS name`` rewritten to ``fixed``: the occurrence of
    ``expr`` named ``name``, not the first one (two columns may be written alike, the defect
    being that one of them should not be)."""
    for match in re.finditer(re.escape(expr), sql):
        if re.match(rf"\s*(?:AS\s+)?[\"`]?{re.escape(name)}[\"`]?\b", sql[match.end():], re.I):
            return sql[:match.start()] + fixed + sql[match.end():]
    return sql.replace(expr, fixed, 1)


def _unfiltered(site: Site, location: str, sql: str) -> Iterator[Fix]:
    """A per-row count named for one value of a column (``open_issues``) whose subquery never tests that
    column: it counts every row, whatever the value."""
    for expr, name in _select_items(sql) or []:
        inner = expr.strip()
        if not (inner.startswith("(") and re.match(r"\(\s*SELECT\s+(?:count|sum)\s*\(", inner, re.I)):
            continue
        words = _words(name)
        for alias, table_name in _aliases(inner).items():
            table = site.database.table(table_name)
            if table is None or alias == table_name and any(a != t and t == table_name for a, t in
                                                            _aliases(inner).items()):
                continue
            for column in (c.name for c in table.columns if c.type == "text"):
                named = sorted(_domain(site, table_name, column) & words)
                if len(named) != 1 or re.search(rf"\b(?:{re.escape(alias)}\.)?{re.escape(column)}\b", inner):
                    continue
                where = _top_keyword(inner[1:-1], "WHERE")
                if where < 0:
                    continue
                cut = 1 + where + 5
                fixed_expr = inner[:cut] + f" {alias}.{column} = '{named[0]}' AND" + inner[cut:]
                yield Fix(location, f"{name} is named for {column} = {named[0]!r}, but its count never tests "
                                    f"{column}: it counts every row", sql, _replace_item(sql, inner, fixed_expr, name))
                return


# ----------------------------------------------------------------------------- words against their test

_FUTURE = {"upcoming", "scheduled", "future", "planned", "coming", "next", "due", "pending"}
_PAST = {"completed", "past", "done", "finished", "departed", "expired", "flown", "ended", "previous", "over",
         "overdue", "stayed"}
_UP = {"up", "upvote", "upvoted", "liked", "like", "plus", "positive", "agree", "agreed"}
_DOWN = {"down", "downvote", "downvoted", "disliked", "dislike", "minus", "negative", "disagree", "disagreed"}
_TODAY = r"(?:vw_today\(\)|date\('now'\)|:today|current_date)"
_TEXT = r"'((?:[^']|'')*)'"


def _cases(sql: str) -> Iterator[tuple[list[tuple[str, int, int]], tuple[int, int] | None]]:
    """Each ``CASE`` of ``sql`` whose results are all quoted texts: its branches as ``(test, start, end)``
    (the span of the branch's text; a simple ``CASE x WHEN v`` gives the test ``x = v``) and the
    span of its ``ELSE`` text, if any."""
    for match in re.finditer(r"\bCASE\b", sql, re.I):
        depth, end = 0, None
        for word in re.finditer(r"'(?:[^']|'')*'|\bCASE\b|\bEND\b", sql[match.start():], re.I):
            token = word.group(0).upper()
            depth += 1 if token == "CASE" else -1 if token == "END" else 0
            if depth == 0:
                end = match.start() + word.start()
                break
        if end is None:
            continue
        body_start = match.end()
        body = sql[body_start:end]
        first = re.search(r"\bWHEN\b", body, re.I)
        if first is None:
            continue
        subject = body[:first.start()].strip()
        branches = [(m.group(1).strip() if not subject else f"{subject} = {m.group(1).strip()}",
                     body_start + m.start(2), body_start + m.end(2))
                    for m in re.finditer(rf"\bWHEN\s+(.+?)\s+THEN\s+{_TEXT}", body, re.I | re.S)]
        if len(branches) != len(re.findall(r"\bWHEN\b", body, re.I)):
            continue  # a result that is not a text: not a wording
        other = re.search(rf"\bELSE\s+{_TEXT}\s*$", body, re.I | re.S)
        yield branches, ((body_start + other.start(1), body_start + other.end(1)) if other else None)


def _side(text: str, first: set[str], second: set[str]) -> int:
    """1 if ``text`` has words of ``first`` only, -1 of ``second`` only, else 0."""
    words = _words(text)
    a, b = bool(words & first), bool(words & second)
    return 1 if a and not b else -1 if b and not a else 0


def _test_sides(test: str) -> tuple[str, int] | None:
    """What a ``CASE`` test says about its THEN branch: ``("time", 1)`` for a date after today (-1 before),
    ``("sign", 1)`` for a positive value (-1 negative); ``None`` when it is neither."""
    test = test.strip()
    date = re.fullmatch(rf"(?:\w+\.)?\w+\s*(>=|>|<=|<)\s*{_TODAY}", test, re.I)
    if date:
        return "time", 1 if date.group(1).startswith(">") else -1
    date = re.fullmatch(rf"{_TODAY}\s*(>=|>|<=|<)\s*(?:\w+\.)?\w+", test, re.I)
    if date:
        return "time", 1 if date.group(1).startswith("<") else -1
    sign = re.fullmatch(r"(?:\w+\.)?\w+\s*(=|>=|>|<=|<)\s*(-?\d+)", test)
    if sign:
        op, number = sign.group(1), int(sign.group(2))
        if op == "=" and number != 0:
            return "sign", 1 if number > 0 else -1
        if op in (">", ">=") and number >= 0:
            return "sign", 1
        if op in ("<", "<=") and number <= 0:
            return "sign", -1
    return None


def _backwards_words(location: str, sql: str) -> Iterator[Fix]:
    for branches, other in _cases(sql):
        texts = [(a, b) for _, a, b in branches] + ([other] if other else [])
        for test, a, b in branches:
            sides = _test_sides(test)
            if sides is None:
                continue
            kind, side = sides
            first, second = (_FUTURE, _PAST) if kind == "time" else (_UP, _DOWN)
            if _side(sql[a:b], first, second) != -side:
                continue
            partner = next(((c, d) for c, d in reversed(texts) if (c, d) != (a, b)
                            and _side(sql[c:d], first, second) == side), None)
            if partner is None:
                continue
            c, d = partner
            (x, y), (u, v) = sorted([(a, b), (c, d)])
            fixed = sql[:x] + sql[u:v] + sql[y:u] + sql[x:y] + sql[v:]
            what = {("time", 1): "a date after today", ("time", -1): "a date before today",
                    ("sign", 1): "a positive value", ("sign", -1): "a negative value"}[(kind, side)]
            yield Fix(location, f"CASE WHEN {test} says '{sql[a:b]}' for {what}, and '{sql[c:d]}' is said "
                                f"otherwise: the words are the wrong way round", sql, fixed)
            break


_NEGATING = re.compile(r"\b(?:no|not|without|non|never|unavailable)\b", re.I)


def _says(text: str, column: str) -> int:
    """1 if ``text`` names the flag ``column`` ("Breakfast included" for ``breakfast``), -1 if it names
    it negated ("No breakfast"), 0 if it does not name it."""
    words = [w for w in re.split(r"[_\W]+", column.lower()) if len(w) >= 4 and w not in ("has", "is")]
    if not words:
        return 0
    tokens = list(re.finditer(r"[A-Za-z]+", text))
    if any(m.group(0).lower() in {f"un{w}" for w in words} for m in tokens):
        return -1  # "unread"
    found = next((m for m in tokens if m.group(0).lower() in words), None)
    if found is None:
        return 0
    return -1 if _NEGATING.search(text[:found.start()]) or _NEGATING.search(text[found.end():]) else 1


_ACTION = re.compile(r"^\s*(?:mark|add|remove|set|make|turn|toggle|enable|disable|show|hide|flag|unflag|star|"
                     r"unstar|pin|unpin|include|exclude|request|cancel|undo)\b", re.I)
"""Words a button starts with: its text says what pressing it does."""


def _flag_words(site: Site, location: str, sql: str) -> Iterator[Fix]:
    """A ``CASE`` over a yes/no column whose branch for "yes" does not name the flag and whose other
    branch does ("Room only" for a hotel with breakfast, "Breakfast included" for one without)."""
    flags = {c.name for t in site.database.tables for c in t.columns if c.type == "boolean"}
    for branches, other in _cases(sql):
        if len(branches) != 1 or other is None:
            continue
        test, a, b = branches[0]
        found = re.fullmatch(r"(NOT\s+)?(?:\w+\.)?(\w+)(?:\s*(=|!=|<>)\s*([01]))?", test.strip(), re.I)
        if found is None or found.group(2) not in flags:
            continue
        truth = not found.group(1)
        if found.group(3) and (found.group(3) != "=") == (found.group(4) == "1"):
            truth = not truth
        if any(_ACTION.match(sql[c:d]) for c, d in ((a, b), other)):
            continue  # a toggle's button says what pressing it does, the opposite of the state
        yes, no = ((a, b), other) if truth else (other, (a, b))
        said_yes, said_no = _says(sql[yes[0]:yes[1]], found.group(2)), _says(sql[no[0]:no[1]], found.group(2))
        if said_yes <= 0 and said_no == 1 or said_yes == -1 and said_no >= 0:
            (x, y), (u, v) = sorted([(a, b), other])
            fixed = sql[:x] + sql[u:v] + sql[y:u] + sql[x:y] + sql[v:]
            yield Fix(location, f"CASE WHEN {test} says '{sql[yes[0]:yes[1]]}' when {found.group(2)} is true and "
                                f"'{sql[no[0]:no[1]]}' when it is false: the words are the wrong way round", sql, fixed)


def _sets(label: str, value: str) -> int:
    """1 if a button's ``label`` names setting ``value`` ("Star" or "Restar" for starred, "Reopen" for
    'open', "Mark as closed" for 'closed'), -1 if it names undoing it ("Unstar"), 0 if neither."""
    wanted = {stem(w) for w in re.split(r"[_\W]+", value.lower()) if len(w) >= 3} - {"has", "is"}
    if not wanted:
        return 0
    said = 0
    for token in re.findall(r"[A-Za-z]+", label.lower()):
        if stem(token) in wanted or (token.startswith("re") and stem(token[2:]) in wanted):
            said = said or 1
        elif token.startswith("un") and stem(token[2:]) in wanted:
            said = -1
    return said


_NEGATION_WORDS = {"not", "no", "remove", "unmark", "clear"}


def _negated_pair(first: str, second: str) -> tuple[int, int]:
    """``(1, -1)`` when ``second`` undoes ``first`` in words of their own ("Mark important" / "Not important",
    "Pin" / "Unpin"): the same content word, negated in the second only; ``(-1, 1)`` the other way round;
    ``(0, 0)`` when they are no such pair."""
    def read(label: str) -> tuple[set[str], bool]:
        content, negated = set(), False
        for token in re.findall(r"[a-z]+", label.lower()):
            if token in _NEGATION_WORDS:
                negated = True
            elif token.startswith("un") and len(token) > 4:
                negated = True
                content.add(stem(token[2:]))
            elif len(token) >= 3 and not _ACTION.match(token):
                content.add(stem(token))
        return content, negated

    (a, a_not), (b, b_not) = read(first), read(second)
    if not a or a != b or a_not == b_not:
        return 0, 0
    return (-1, 1) if a_not else (1, -1)


def _toggle_words(site: Site, location: str, sql: str) -> Iterator[Fix]:
    """A toggle's button text chosen by the state it would set, not the one the row is in: "Star"
    on a starred message and "Unstar" on the others, "Reopen" on an open issue and "Mark as closed" on
    a closed one. Pressing the button shown would change nothing; the words are swapped."""
    flags = {c.name for t in site.database.tables for c in t.columns if c.type == "boolean"}
    for branches, other in _cases(sql):
        if len(branches) != 1 or other is None:
            continue
        test, a, b = branches[0]
        shown, rest = sql[a:b], sql[other[0]:other[1]]
        if not (_ACTION.match(shown) or _ACTION.match(rest) or re.match(r"\s*re[a-z]", shown + " " + rest, re.I)):
            continue
        flag = re.fullmatch(r"(?:\w+\.)?(\w+)\s*=\s*1", test.strip())
        value = re.fullmatch(r"(?:\w+\.)?(\w+)\s*=\s*'([^']*)'", test.strip())
        if flag is not None and flag.group(1) in flags:
            this, that = _sets(shown, flag.group(1)), _sets(rest, flag.group(1))
            if this == that == 0:  # the texts name the flag by another word ("Mark important" for starred)
                this, that = _negated_pair(shown, rest)
            backwards = this == 1 and that == -1
        elif value is not None:
            where = _column_of(site, sql, value.group(1))
            others = _domain(site, *where) - {value.group(2).lower()} if where else set()
            this = _sets(shown, value.group(2))
            again = re.match(rf"\s*re{re.escape(stem(value.group(2).lower()))}", shown, re.I) is not None
            backwards = this == 1 and _sets(shown, " ".join(others)) == 0 and _sets(rest, value.group(2)) == 0 and (
                _sets(rest, " ".join(others)) == 1 or again)  # "Reopen" on an open row, whatever the other says
        else:
            continue
        if backwards:
            (x, y), (u, v) = sorted([(a, b), other])
            fixed = sql[:x] + sql[u:v] + sql[y:u] + sql[x:y] + sql[v:]
            yield Fix(location, f"CASE WHEN {test} offers '{shown}', which would set the state the row is "
                                f"already in, and '{rest}' otherwise: the button texts are the wrong way round",
                      sql, fixed)


def _numbered_words(location: str, sql: str) -> Iterator[Fix]:
    """A ``CASE`` over a number whose words say another branch's number ("WHEN 0 THEN '1 stop' WHEN 1
    THEN 'Nonstop'"): the words of two branches are swapped. Found where a branch's text states one
    number, not its own, that another branch tests for, and that branch's text states none."""
    for branches, _ in _cases(sql):
        tests = []
        for test, a, b in branches:
            found = re.fullmatch(r"(?:\w+\.)?(\w+)\s*=\s*(\d+)", test.strip())
            if found is None:
                break
            tests.append((found.group(1), found.group(2), a, b))
        else:
            if len(tests) < 2 or len({t[0] for t in tests}) != 1:
                continue
            for column, value, a, b in tests:
                said = re.findall(r"(?<![\w.$])(\d+)(?![\w.%])", sql[a:b])
                if len(said) != 1 or said[0] == value:
                    continue
                other = next((t for t in tests if t[1] == said[0]), None)
                if other is None or re.findall(r"(?<![\w.$])(\d+)(?![\w.%])", sql[other[2]:other[3]]):
                    continue
                (x, y), (u, v) = sorted([(a, b), (other[2], other[3])])
                fixed = sql[:x] + sql[u:v] + sql[y:u] + sql[x:y] + sql[v:]
                yield Fix(location, f"CASE WHEN {column} = {value} says '{sql[a:b]}' and WHEN {column} = {other[1]} "
                                    f"says '{sql[other[2]:other[3]]}': the words are the wrong way round", sql, fixed)
                break


_SUM_NAMES = frozenset({"total", "revenue", "sum", "spent", "sales", "gross", "net", "turnover", "income", "earned"})
_EXTREME_NAMES = frozenset({"max", "min", "largest", "highest", "lowest", "biggest", "top", "best", "avg", "average",
                            "mean", "peak", "smallest", "cheapest"})


def _aggregate_names(location: str, sql: str) -> Iterator[Fix]:
    """A figure whose name says a sum (``revenue``, ``total``, ``spent``) computed with ``max``, ``min``
    or ``avg``, or one whose name says an extreme or a mean computed with ``sum``: the function of
    what its name says is put back."""
    for expr, alias in _select_items(sql) or []:
        words = set(alias.lower().split("_"))
        outer = re.match(r"\s*(?:coalesce\s*\(\s*)?(sum|max|min|avg)\s*\(", expr, re.I)
        if outer is None:
            continue
        function = outer.group(1).lower()
        if function in ("max", "min", "avg") and words & _SUM_NAMES and not words & _EXTREME_NAMES:
            right = "sum"
        elif function == "sum" and words & _EXTREME_NAMES and not words & _SUM_NAMES:
            named = words & _EXTREME_NAMES
            right = ("max" if named & {"max", "largest", "highest", "biggest", "top", "best", "peak"}
                     else "min" if named & {"min", "lowest", "smallest", "cheapest"} else "avg")
        else:
            continue
        start = outer.start(1)
        fixed_expr = expr[:start] + right + expr[start + len(function):]
        yield Fix(location, f"{alias} is computed with {function}(...), but its name says the {right}: "
                            f"{function} put back as {right}", sql, _replace_item(sql, expr, fixed_expr, alias))


_UNIT_NAMES = {"units", "unit", "qty", "quantity", "quantities", "pieces", "copies"}
"""Words of a figure's name that say it counts units (what a line's quantity holds), not rows."""
_QUANTITY_COLUMNS = ("qty", "quantity", "units")


def _counted_units(site: Site, location: str, sql: str) -> Iterator[Fix]:
    """A figure named for units (``units``, ``qty_sold``; ``items`` beside a figure the same select weighs
    by the quantity) computed as ``count(*)`` over rows that hold a quantity (order lines with ``qty``):
    it counts the lines, not the units in them. The sum of the quantity is put back."""
    from veriweb.verify.dataflow import _SQL_WORDS, _TABLE_NAMES

    holders = []
    for match in _TABLE_NAMES.finditer(sql):
        table = site.database.table(match.group(1))
        alias = match.group(2) if match.group(2) and match.group(2).lower() not in _SQL_WORDS else match.group(1)
        column = next((c for c in _QUANTITY_COLUMNS if table is not None and table.column(c) is not None), None)
        if column is not None:
            holders.append((alias, column))
    if len({h for h in holders}) != 1:
        return  # no table with a quantity, or two: which one the figure sums is not clear
    alias, column = holders[0]
    items = _select_items(sql) or []
    # "items" counts units where the same select weighs its rows by the quantity (``sum(c.qty * p.price)``
    # beside ``count(*) AS items``: the cart's subtotal is of units, so is its count); else it may count rows
    weighed = any(re.search(rf"\b{alias}\.{column}\b", expr) for expr, _ in items)
    names = _UNIT_NAMES | ({"items", "item"} if weighed else set())
    for expr, name in items:
        if not set(name.lower().split("_")) & names:
            continue
        if re.fullmatch(r"\s*count\s*\(\s*(?:\*|\w+\.\w+|\w+)\s*\)\s*", expr, re.I):
            yield Fix(location, f"{name} counts the {alias} rows with {expr.strip()}, but its name says units, and "
                                f"each row holds {column} of them: the sum of {alias}.{column} put back",
                      sql, _replace_item(sql, expr, f"sum({alias}.{column})", name))


def _swapped_values(location: str, sql: str, marker: Any) -> Iterator[Fix]:
    """An insert that writes one of its parameters into a column named for another of them, which gets
    something else (``(issue_id, author_id) VALUES (:user_id, :issue_id)``): the comment lands on the
    wrong record under the wrong author. The two values are swapped back."""
    match = re.match(r"\s*INSERT\s+INTO\s+\"?\w+\"?\s*\(([^)]*)\)\s*VALUES\s*\((.*)\)\s*;?\s*$", sql, re.I | re.S)
    if match is None:
        return
    columns = [c.strip().strip('"') for c in match.group(1).split(",")]
    values = split_top(match.group(2))
    if len(columns) != len(values):
        return
    given = {p.name for p in marker.params} | {"user_id"}
    params = [v.strip()[1:] if re.fullmatch(r":\w+", v.strip()) else None for v in values]
    for a, (column, param) in enumerate(zip(columns, params)):
        if param is None or param == column or param not in columns or param not in given:
            continue
        b = columns.index(param)
        other = params[b]
        if other is None or other == param or (other != column and not (column.endswith("_id") and other == "user_id")):
            continue
        fixed_values = list(values)
        fixed_values[a], fixed_values[b] = values[b], values[a]
        start, end = match.span(2)
        yield Fix(location, f"the insert writes :{param} into {column} and :{other} into {param}: the values are "
                            f"the wrong way round", sql, sql[:start] + ", ".join(v.strip() for v in fixed_values) + sql[end:])
        return


def _stored_params(marker: Any) -> set[str]:
    """Parameters a marker writes as they are into a row (``VALUES (..., :value)``, ``SET value = :value``)."""
    return {str(source.value) for effect in marker.effects
            for source in parse_effect(marker.name, effect.op, effect.table, effect.sql).sources.values()
            if source.kind == "param"}


_UNIT_PARAMS = frozenset({"qty", "quantity", "passengers", "guests", "travellers", "travelers", "tickets", "seats",
                          "units", "people", "rooms", "places"})
"""Parameter names that count units a row takes (seats, items, rooms), each one a unit of a running figure."""


def _scaled_counter(location: str, sql: str, marker: Any) -> Iterator[Fix]:
    """A running figure moved by a multiple of a value the same marker records in a row of its own
    (``score = score + 2 * :value`` or ``score + :value + :value`` beside a vote row that stores
    ``:value``), or by one where the row records how many units it takes (``seats = seats - 1`` for a
    booking of ``:passengers``): the figure drifts from what its rows add up to. The value is counted
    once."""
    span = set_span(sql)
    stored = _stored_params(marker) if span is not None else set()
    if span is None or not stored:
        return
    offset = span[0]
    for item in split_top(sql[span[0]:span[1]]):
        found = re.fullmatch(r"(\w+)\s*=\s*\1\s*([-+].*)", item, re.S)
        if found is None:
            continue
        column, change = found.group(1), found.group(2)
        one = re.fullmatch(r"([-+])\s*1", change.strip())
        counted = sorted(p for p in stored if p.lower() in _UNIT_PARAMS)
        if one is not None and len(counted) == 1:  # seats - 1 for a booking that records :passengers
            start = sql.find(item, offset)
            if start >= 0:
                yield Fix(location, f"{column} moves by {one.group(1)} 1 for a row that records :{counted[0]} of them: "
                                    f"the figure drifts from the rows it counts", sql,
                          sql[:start] + f"{column} = {column} {one.group(1)} :{counted[0]}" + sql[start + len(item):])
                return
        terms = re.findall(r"([-+])\s*((?:\d+\s*\*\s*)?:\w+(?:\s*\*\s*\d+)?)(?=\s*(?:[-+]|$))", change)
        for param in sorted(stored):
            mine = [(sign, term) for sign, term in terms if re.fullmatch(rf"(?:\d+\s*\*\s*)?:{param}(?:\s*\*\s*\d+)?",
                                                                           term.strip())]
            scaled = [(sign, term) for sign, term in mine if re.search(r"\d", term.replace(f":{param}", ""))]
            factor = [int(n) for _, term in scaled for n in re.findall(r"\d+", term.replace(f":{param}", ""))]
            twice = len(mine) >= 2 and len({sign for sign, _ in mine}) == 1
            if not (twice or (scaled and all(2 <= f <= 9 for f in factor))):
                continue
            sign = mine[0][0]
            fixed_change = change
            for _, term in mine:  # drop every mention of the value, then add it once
                fixed_change = re.sub(rf"\s*[-+]\s*{re.escape(term)}(?=\s*(?:[-+]|$))", "", fixed_change, count=1)
            fixed_item = f"{column} = {column} {sign} :{param}{(' ' + fixed_change.strip()) if fixed_change.strip() else ''}"
            start = sql.find(item, offset)
            if start < 0:
                continue
            yield Fix(location, f"{column} moves by {' '.join(s + ' ' + t.strip() for s, t in mine)} for one row that records "
                                f":{param} once: the figure drifts from the rows it counts", sql,
                      sql[:start] + fixed_item + sql[start + len(item):])
            return


_THROUGH = re.compile(r"(?<![\w.])\"?(\w+)\"?\s*(=|IN)\s*\(\s*SELECT\s+(?:\w+\.)?\"?(\w+)\"?\s+FROM\s+\"?(\w+)\"?"
                      r"\s+WHERE\s+([^()]*(?:\([^()]*\)[^()]*)*)\)\s*$", re.I | re.S)


def _counted_through(site: Site, location: str, sql: str, table_name: str) -> Iterator[Fix]:
    """A running figure moved by one for rows picked through rows that record how many units each takes
    (``stock = stock - 1 WHERE id IN (SELECT product_id FROM cart_items WHERE user_id = :user_id)``,
    ``seats = seats + 1 WHERE id = (SELECT flight_id FROM bookings WHERE id = :booking_id)``): an
    order of three takes one from the stock, a cancelled booking for three gives back one seat. The
    figure moves by the units those rows record."""
    table = site.database.table(table_name)
    span = set_span(sql)
    at = _top_keyword(sql, "WHERE")
    if table is None or span is None or at < 0:
        return
    picked = _THROUGH.match(sql[at + 5:].strip())
    if picked is None or picked.group(1) != table.primary_key:
        return
    _, how, pointer, source_name, condition = picked.groups()
    source = site.database.table(source_name)
    if source is None or not any(fk.column == pointer and fk.ref_table == table.name for fk in source.foreign_keys):
        return
    units = [c.name for c in source.columns if c.name.lower() in _UNIT_PARAMS and c.type == "integer"]
    if len(units) != 1:
        return
    for item in split_top(sql[span[0]:span[1]]):
        found = re.fullmatch(r"(\w+)\s*=\s*\1\s*([-+])\s*1", item.strip())
        if found is None or found.group(1) == units[0]:
            continue
        column, sign = found.groups()
        if how == "=":
            amount = f"(SELECT {units[0]} FROM {source_name} WHERE {condition.strip()})"
        else:
            amount = f"(SELECT sum({units[0]}) FROM {source_name} WHERE {condition.strip()} AND {pointer} = {table.name}.{table.primary_key})"
        start = sql.find(item, span[0])
        yield Fix(location, f"{column} moves by {sign} 1 for each {source_name} row picked, though each records its "
                            f"{units[0]}: the figure drifts from the units taken", sql,
                  sql[:start] + f"{column} = {column} {sign} {amount}" + sql[start + len(item):])
        return


def _replaced_counts(location: str, marker: Any, index: int) -> Iterator[Fix]:
    """A running figure moved by a value the same marker then stores in place of the one stored before
    (``score = score + :value`` beside ``UPDATE votes SET value = :value WHERE user_id = :user_id AND
    post_id = :post_id``) without taking the earlier value back: voting up twice, or up then down,
    moves the score by both. The figure moves by the new value less the stored one."""
    effect = marker.effects[index]
    span = set_span(effect.sql) if effect.op == "update" else None
    if span is None:
        return
    for item in split_top(effect.sql[span[0]:span[1]]):
        found = re.fullmatch(r"(\w+)\s*=\s*\1\s*([-+])\s*:(\w+)", item.strip())
        if found is None:
            continue
        column, sign, param = found.groups()
        for later in marker.effects[index + 1:]:
            stored = re.search(rf"\bSET\s+(\w+)\s*=\s*:{param}\b", later.sql, re.I) if later.op == "update" else None
            if stored is None or later.table == effect.table or re.search(rf"\bFROM\s+\"?{later.table}\b", effect.sql, re.I):
                continue
            where = _top_keyword(later.sql, "WHERE")
            keys = [(k, v) for k, v in re.findall(r"(?<![\w.])(\w+)\s*=\s*(:\w+)(?![\w])", later.sql[where:])
                    if v != f":{param}"] if where >= 0 else []
            if len(keys) < 2:
                continue  # the stored row is found by the user and the record, or this is not a replacement
            earlier = " AND ".join(f"{k} = {v}" for k, v in keys)
            taken = f"coalesce((SELECT {stored.group(1)} FROM {later.table} WHERE {earlier}), 0)"
            start = effect.sql.find(item, span[0])
            back = "-" if sign == "+" else "+"
            yield Fix(location, f"{column} moves by {sign} :{param}, which the marker then stores in {later.table} in "
                                f"place of the earlier value without taking that back: a second vote counts twice",
                      effect.sql, effect.sql[:start] + f"{item.strip()} {back} {taken}" + effect.sql[start + len(item):])
            return


def _doubled_keys(site: Site, location: str, sql: str, table_name: str) -> Iterator[Fix]:
    """An insert that writes one parameter into two keys pointing at different tables (``refunds (order_id,
    staff_id) VALUES (:order_id, :order_id)``): the row names the order's number as the staff member
    who made it. Where the other key points at the accounts, it takes the signed-in user."""
    table = site.database.table(table_name)
    auth = site.auth
    found = _INSERT.match(sql)
    if table is None or auth is None or found is None or not found.group(4).strip().upper().startswith("VALUES"):
        return
    columns = [c.strip().strip('"') for c in found.group(3).split(",")]
    inner = found.group(4).strip()[len("VALUES"):].strip()
    if not (inner.startswith("(") and inner.endswith(")")):
        return
    values = split_top(inner[1:-1])
    points = {fk.column: fk.ref_table for fk in table.foreign_keys}
    if len(values) != len(columns):
        return
    for i, (column, value) in enumerate(zip(columns, values)):
        param = re.fullmatch(r":(\w+)", value.strip())
        if param is None or column == param.group(1) or points.get(column) != auth.table:
            continue
        twin = next((c for c, v in zip(columns, values) if c != column and v.strip() == value.strip()
                     and c in points and points[c] != auth.table), None)
        if twin is None or twin != param.group(1):
            continue
        fixed = [*values[:i], ":user_id", *values[i + 1:]]
        yield Fix(location, f"{table_name}.{column} (a {auth.table} key) takes :{param.group(1)}, which {twin} "
                            f"(a {points[twin]} key) takes too: the row names a {points[twin]} row as its "
                            f"{auth.table} row", sql,
                  sql[:found.start(4)] + "VALUES (" + ", ".join(v.strip() for v in fixed) + ")")
        return


def _misdirected_sets(site: Site, location: str, sql: str, table_name: str) -> Iterator[Fix]:
    """An update that writes a parameter named for one column of its table into another (``SET author_id =
    :assignee_id``, the table having an ``assignee_id`` the write leaves alone): assigning a ticket
    rewrites its author. The value is written into the column it is named for."""
    table = site.database.table(table_name)
    span = set_span(sql)
    if table is None or span is None:
        return
    body = sql[span[0]:span[1]]
    names = {c.name for c in table.columns}
    assigned = dict(re.findall(r"(?<![\w.])\"?(\w+)\"?\s*=\s*:(\w+)\s*(?:,|$)", body.strip() + ","))
    for column, param in assigned.items():
        if param != column and param in names and column in names and param not in assigned:
            found = re.search(rf"(?<![\w.])\"?{re.escape(column)}\"?(\s*=\s*:{re.escape(param)}\b)", body)
            if found is None:
                continue
            start = span[0] + found.start()
            yield Fix(location, f"the update writes :{param} into {column}, though {table_name} has a {param} column "
                                f"it leaves alone: the value lands in the wrong column", sql,
                      sql[:start] + param + found.group(1) + sql[start + len(found.group(0)):])
            return


_ROLE_JOIN = re.compile(r"\bJOIN\s+\"?(\w+)\"?\s+(?:AS\s+)?(\w+)\s+ON\s+(\w+)\.(\w+)\s*=\s*(\w+)\.(\w+)", re.I)


@C.per_run
def _written_back(site: Site) -> frozenset[tuple[str, str]]:
    """``(view, column)`` pairs a form bound to the view pre-fills a field from (``{row.stock}``) and whose
    marker updates the base table's column of that name from the field: what the form shows is saved."""
    from veriweb.scaffold.values import Ref
    from veriweb.verify.checks_pages import bound_elements

    out = set()
    for element, _, _, bound in bound_elements(site):
        action = C.field_of(element, "action")
        marker = site.marker(action.marker) if element.type == "form" and getattr(action, "kind", "") == "marker" else None
        if marker is None or bound is None:
            continue
        updated = {c for e in marker.effects if e.op == "update"
                   for c in re.findall(r"\b(\w+)\s*=\s*:\w+", re.split(r"\bWHERE\b", e.sql, maxsplit=1, flags=re.I)[0])}
        for field_el in element.fields:
            value = C.field_of(field_el, "value")
            if isinstance(value, Ref) and value.namespace == "row" and value.name in updated:
                out.add((bound, value.name))
    return frozenset(out)


def _shadowed_columns(site: Site, location: str, name: str, sql: str) -> Iterator[Fix]:
    """A view column named as a column of its table but computed from it (``p.stock - (pending units)
    AS stock``), that a form shows in a field and saves back into that column: every save writes the
    computed figure over the stored one, and pages show something else than the column's name says. The
    fix passes the column through."""
    main = _main_from(sql)
    table = site.database.table(main[0]) if main is not None else None
    if table is None:
        return
    saved = {column for view, column in _written_back(site) if view == name}
    for expr, alias in _select_items(sql) or []:
        plain = f"{main[1]}.{alias}"
        if alias in saved and table.column(alias) is not None and expr.strip() != plain \
                and re.search(rf"\b{re.escape(plain)}\b", expr) and re.search(r"[-+*/]", expr.replace(plain, "")):
            shown = expr.strip() if len(expr.strip()) <= 60 else expr.strip()[:57] + "..."
            yield Fix(location, f"its column {alias} is computed ({shown}), not {table.name}.{alias} as its "
                                f"name says, and a form saves it back into {table.name}.{alias}: every save writes the "
                                f"computed figure over the stored one", sql, sql.replace(f"{expr} AS {alias}", f"{plain} AS {alias}", 1))


_PREFIXED = re.compile(r"'(Re|Fwd|Fw|FW|RE|FWD)\s*:\s*'\s*\|\|\s*[\w.]+\s+AS\s+(\w+)")


def _crossed_prefixes(location: str, sql: str) -> Iterator[Fix]:
    """A subject column for forwarding (``forward_subject``) built with a reply's ``'Re: '``, or one for
    replying built with ``'Fwd: '``: every forwarded message goes out looking like a reply. The prefix
    the column's name calls for is written."""
    fixed, wrong = sql, []
    for found in _PREFIXED.finditer(sql):
        prefix, name = found.group(1).lower(), found.group(2).lower()
        want = "Fwd" if re.search(r"forward|fwd", name) else "Re" if re.search(r"repl|^re_", name) else None
        if want is None or (prefix == "re") == (want == "Re"):
            continue
        wrong.append(f"{found.group(2)} starts with {found.group(1)!r}")
        fixed = fixed.replace(found.group(0), found.group(0).replace(f"'{found.group(1)}", f"'{want}", 1), 1)
    if wrong:
        yield Fix(location, f"{'; '.join(wrong)}: a {'forward' if 'Fwd' in fixed else 'reply'} marked as the "
                            f"other kind of message", sql, fixed)


def _swapped_roles(location: str, sql: str) -> Iterator[Fix]:
    """A view that joins one table twice for two roles of its row (``users a ON a.id = r.author_id``,
    ``users v ON v.id = r.reviewer_id``) and names each role's column after the other (``v.name AS
    author``, ``a.name AS reviewer``): every page shows the reviewer as the author. The two
    expressions are swapped back."""
    roles: dict[str, str] = {}  # join alias -> the role its key column names (author, reviewer)
    tables: dict[str, str] = {}
    for found in _ROLE_JOIN.finditer(sql):
        table, alias, left, left_col, right, right_col = found.groups()
        key = right_col if left == alias else left_col if right == alias else None
        if key is None or not key.endswith("_id"):
            continue
        roles[alias], tables[alias] = key[:-3].lower(), table
    if len(roles) < 2:
        return
    items = _select_items(sql) or []
    wrong = []
    for expr, name in items:
        used = set(re.findall(r"\b(\w+)\.\w+", expr)) & set(roles)
        if len(used) != 1:
            continue
        alias = used.pop()
        named = [a for a, role in roles.items() if role == name.lower() and tables[a] == tables[alias]]
        if roles[alias] != name.lower() and named:
            wrong.append((expr, name, alias, named[0]))
    for expr, name, alias, other in wrong:
        partner = next((w for w in wrong if w[2] == other and w[3] == alias), None)
        if partner is None:
            continue
        fixed = _replace_item(_replace_item(sql, expr, partner[0], name), partner[0], expr, partner[1])
        yield Fix(location, f"{name} shows {alias}'s row, joined as the {roles[alias]}, and {partner[1]} shows the "
                            f"{roles[other]}'s: the two roles are the wrong way round", sql, fixed)
        return


def _column_of(site: Site, sql: str, column: str) -> tuple[str, str] | None:
    """``(table, column)`` of a column a view's ``FROM`` tables hold (the first that has it)."""
    for table_name in _aliases(sql).values():
        table = site.database.table(table_name)
        if table is not None and table.column(column) is not None:
            return table_name, column
    return None


_TOGGLE = re.compile(r"(?:^|_)(?:toggle|flip|switch)(?:_|$)")


def _names_flag(name: str, column: str) -> bool:
    """Does a marker's name name the yes/no ``column`` (``toggle_star`` names ``starred``)?"""
    column = column.lower()
    return any(len(word) >= 3 and (word == column or column.startswith(word) or word.startswith(column))
               for word in name.lower().split("_"))


def _fixed_toggles(site: Site) -> Iterator[Fix]:
    """A marker named for toggling a yes/no column (``toggle_read``, ``toggle_star``) whose effect sets it
    to one value (``SET read = 1``): pressing it a second time cannot undo the first. The fix flips it
    (``1 - read``). Or one that flips another yes/no column of the same table and never the one its name
    says (``toggle_read`` flipping ``starred``): the fix flips the named one."""
    flags = {(t.name, c.name) for t in site.database.tables for c in t.columns if c.type == "boolean"}
    for m, marker in enumerate(site.markers):
        if not _TOGGLE.search(marker.name.lower()):
            continue
        for e, effect in enumerate(marker.effects):
            if effect.op != "update":
                continue
            head = re.split(r"\bWHERE\b", effect.sql, maxsplit=1, flags=re.I)[0]
            for found in re.finditer(r"\b(\w+)\s*=\s*([01]|TRUE|FALSE)\b(?!\s*[-+*/|])", head, re.I):
                column = found.group(1)
                if (effect.table, column) not in flags or not _names_flag(marker.name, column):
                    continue
                start, end = found.span()
                fixed = effect.sql[:start] + f"{column} = 1 - {column}" + effect.sql[end:]
                yield Fix(f"$.markers[{m}].effects[{e}].sql",
                          f"marker {marker.name!r} is named for toggling {column}, but its effect sets it to "
                          f"{found.group(2)} every time: a second press cannot undo the first", effect.sql, fixed)
                break
            else:
                yield from _misnamed_flip(marker, m, e, head, flags)


def _misnamed_flip(marker: Any, m: int, e: int, head: str, flags: set[tuple[str, str]]) -> Iterator[Fix]:
    effect = marker.effects[e]
    flipped = [f for f in _FLIP_ITEM.finditer(head) if f.group(1) == (f.group(2) or f.group(3))]
    if len(flipped) != 1 or _names_flag(marker.name, flipped[0].group(1)):
        return
    column = flipped[0].group(1)
    named = [c for t, c in sorted(flags) if t == effect.table and c != column and _names_flag(marker.name, c)]
    if (effect.table, column) in flags and len(named) == 1:
        fixed = re.sub(rf"\b{column}\b", named[0], effect.sql[:len(head)]) + effect.sql[len(head):]
        yield Fix(f"$.markers[{m}].effects[{e}].sql",
                  f"marker {marker.name!r} is named for toggling {named[0]}, but its effect flips {column}: "
                  f"the button does something else than it says", effect.sql, fixed)


_FLIP_ITEM = re.compile(r"\b(\w+)\s*=\s*(?:1\s*-\s*(\w+)|NOT\s+(\w+))", re.I)


# ----------------------------------------------------------------------------- effects in the wrong order

_LITERAL_SET = re.compile(r"\b(\w+)\s*=\s*('[^']*')")
_DELTA = re.compile(r":(\w+)\s*-\s*(?:coalesce\s*\(\s*)?\(\s*SELECT\s+(\w+)\s+FROM\s+(\w+)\b", re.I)


def _undone_by(earlier: Any, later: Any) -> str | None:
    """Why ``later`` finds nothing left to do once ``earlier`` has run, or ``None``: it reads rows of a
    state that ``earlier`` has just moved them out of (giving back the seats of a booking with status
    ``'confirmed'`` after setting it ``'cancelled'``), takes a stored value from the parameter it
    was just set to (``:value - (SELECT value FROM votes ...)`` after the vote was stored: always 0) or
    from a row just deleted, or copies rows just deleted (order lines from a cart emptied first)."""
    table = earlier.table
    reads = later.table == table or re.search(rf"\bFROM\s+{table}\b", later.sql, re.I)
    if not reads:
        return None
    if earlier.op == "update":
        parts = re.split(r"\bWHERE\b", earlier.sql, maxsplit=1, flags=re.I)
        head, where = parts[0], parts[1] if len(parts) > 1 else ""
        for column, value in _LITERAL_SET.findall(head):
            for was in re.findall(rf"\b{column}\s*=\s*('[^']*')", where):
                if was != value and re.search(rf"\b{column}\s*=\s*{re.escape(was)}", later.sql):
                    return (f"reads {table} rows with {column} = {was}, which an earlier effect has just set to "
                            f"{value}")
    if earlier.op == "delete" and re.search(rf"^\s*INSERT\s+INTO\s+\w+\s*\([^)]*\)\s*SELECT\b(?:(?!\bWHERE\b)[^;])*?\bFROM\s+{table}\b",
                                            later.sql, re.I):
        return f"copies rows of {table} that an earlier effect has just deleted"
    for param, column, source in _DELTA.findall(later.sql):
        if source != table:
            continue
        if earlier.op == "delete":
            return f"takes {table}.{column} from :{param} after an earlier effect deleted the row it reads"
        if earlier.op == "update" and re.search(rf"\bSET\b.*\b{column}\s*=\s*:{param}\b", earlier.sql, re.I | re.S):
            return f"takes {table}.{column} from :{param} after an earlier effect stored :{param} there (always 0)"
        if earlier.op == "insert" and re.search(rf"\b{column}\b", earlier.sql.split(")")[0]) \
                and f":{param}" in earlier.sql:
            return f"takes {table}.{column} from :{param} after an earlier effect stored :{param} there (always 0)"
    return None


def _reads_newest_before(early: Any, late: Any) -> bool:
    """Whether ``early`` reads the newest row of the table ``late`` (a later effect of the same marker)
    inserts into (``SELECT max(id) FROM posts`` before ``INSERT INTO posts``)."""
    if late.op != "insert":
        return False
    return bool(re.search(r"\bmax\s*\(\s*(?:\w+\.)?id\s*\)", early.sql, re.I)
                and re.search(rf"\bFROM\s+\"?{re.escape(late.table)}\b", early.sql, re.I))


def _copied_user_columns(site: Site) -> Iterator[Fix]:
    """A marker's insert copying a column of the signed-in user's row that no seed row holds there, while
    the seed rows hold another column of the users' rows (``u.username`` into ``sender_name``, where every
    seeded message says "Leo Reyes"): everything written through the site says it otherwise than the
    data. The fix copies the column the seed rows hold."""
    for m, marker in enumerate(site.markers):
        for e, effect in enumerate(marker.effects):
            if effect.op != "insert":
                continue
            target = site.database.table(effect.table)
            for column, source in parse_effect(marker.name, effect.op, effect.table, effect.sql).sources.items():
                if source.kind != "user" or target is None:
                    continue
                users = site.database.table(source.value[0])
                held = [r.get(column) for r in target.rows if isinstance(r.get(column), str) and r.get(column)]
                if users is None or not held:
                    continue
                domains = {c.name: {r.get(c.name) for r in users.rows} for c in users.columns if c.type == "text"}
                found = {name: sum(v in values for v in held) for name, values in domains.items()}
                users_held = sum(any(v in values for values in domains.values()) for v in held)  # the users' own
                if found.get(source.value[1], 0) > 0:
                    continue
                usual = [name for name, count in found.items() if count >= max(5, 0.8 * users_held)]
                alias = next((a for a, t in _aliases(effect.sql).items() if t == users.name), None)
                if len(usual) != 1 or alias is None or f"{alias}.{source.value[1]}" not in effect.sql:
                    continue
                yield Fix(f"$.markers[{m}].effects[{e}].sql",
                          f"marker {marker.name!r} writes the user's {source.value[1]} into {target.name}.{column}, "
                          f"where every seed row holds the user's {usual[0]}: what is written through the site says "
                          f"it otherwise", effect.sql,
                          effect.sql.replace(f"{alias}.{source.value[1]}", f"{alias}.{usual[0]}", 1))


_PARAM_TESTS = re.compile(r"(?<![\w.])(?:\w+\.)?(\w+)\s*=\s*:(\w+)")


def _upsert_backwards(early: Any, late: Any) -> bool:
    """An insert that adds a row unless one like it exists (``WHERE NOT EXISTS (SELECT 1 FROM T WHERE a = :a
    ...)``), run before the update meant for an existing row (``UPDATE T SET n = n + :n WHERE a = :a ...``):
    the update then finds the row just inserted as well, so a first "add 3" stores 6."""
    if early.op != "insert" or late.op != "update" or early.table != late.table:
        return False
    guard = re.search(r"\bNOT\s+EXISTS\s*\(\s*SELECT\b.*?\bFROM\s+(\w+)\b(.*)", early.sql, re.I | re.S)
    where = re.search(r"\bWHERE\b(.*)$", late.sql, re.I | re.S)
    if guard is None or where is None or guard.group(1) != early.table:
        return False
    tests = set(_PARAM_TESTS.findall(where.group(1)))
    return bool(tests) and tests <= set(_PARAM_TESTS.findall(guard.group(2))) and \
        re.search(r"\bSET\s+(\w+)\s*=\s*\1\s*[-+]", late.sql, re.I) is not None


def _misordered_effects(site: Site) -> Iterator[Fix]:
    """A marker's effect that runs after another effect which undoes what it reads (see :func:`_undone_by`):
    it never does its part. The fix runs it before the first such effect (``new`` is the order of the
    effects, as a JSON list of their indexes)."""
    for m, marker in enumerate(site.markers):
        effects = marker.effects
        found = next(((early, late, why) for late in range(1, len(effects)) for early in range(late)
                      if (why := _undone_by(effects[early], effects[late])) is not None), None)
        if found is None:
            found = next(((early, late, f"adds to the {effects[late].table} row that its own insert has just made")
                          for late in range(1, len(effects)) for early in range(late)
                          if _upsert_backwards(effects[early], effects[late])), None)
        if found is None:
            ahead = next(((early, late) for late in range(1, len(effects)) for early in range(late)
                          if _reads_newest_before(effects[early], effects[late])), None)
            if ahead is not None:  # reads the newest row of a table before the row it wants is written
                early, late = ahead
                order = [n for n in range(len(effects)) if n != early]
                order.insert(order.index(late) + 1, early)
                yield Fix(f"$.markers[{m}].effects",
                          f"marker {marker.name!r}: its effect on {effects[early].table} reads the newest "
                          f"{effects[late].table} row before its own effect on {effects[late].table} writes it: it "
                          "runs too early and lands on the row before", "", json.dumps(order))
            continue
        early, late, why = found
        order = list(range(early)) + [late] + list(range(early, late)) + list(range(late + 1, len(effects)))
        yield Fix(f"$.markers[{m}].effects",
                  f"marker {marker.name!r}: its effect on {effects[late].table} {why}: it runs too late to do "
                  f"anything", "", json.dumps(order))


# ----------------------------------------------------------------------------- deductions added

_NET = {"net", "balance", "remaining", "outstanding", "left", "profit", "after"}
"""Words of a figure that is what remains once something is taken off."""
_DEDUCTION = re.compile(r"^(?:refund|refunds|refunded|discount|discounts|returned|returns|cost|costs|expense|"
                        r"expenses|withdrawn|spent|used|paid_out|chargeback|chargebacks)$")
"""Columns that hold what is taken off an amount."""


def _deductions_added(location: str, sql: str) -> Iterator[Fix]:
    """A figure named for what remains (``net``, ``balance``) that adds what is taken off
    (``sum(o.total + o.refunded) AS net``)."""
    for expr, name in _select_items(sql) or []:
        if not _words(name) & _NET:
            continue
        for match in re.finditer(r"\+\s*(?:\w+\.)?(\w+)\b", expr):
            if _DEDUCTION.match(match.group(1).lower()):
                fixed_expr = expr[:match.start()] + "-" + expr[match.start() + 1:]
                yield Fix(location, f"{name} adds {match.group(1)}, which is taken off what it counts, not added "
                                    f"to it", sql, _replace_item(sql, expr, fixed_expr, name))
                break


_GROSS = {"revenue", "gross", "sales", "turnover", "takings", "billed"}
"""Words of a figure that is everything taken in, before anything is taken off."""


def _gross_deducted(location: str, sql: str) -> Iterator[Fix]:
    """A figure named for everything taken in (``revenue``, ``gross``) that takes off what is refunded or
    discounted, beside a column named for what remains (``net``): the two say the same, and what was
    taken in can no longer be read. The fix stops taking it off."""
    items = _select_items(sql) or []
    if not any(_words(name) & _NET for _, name in items):
        return
    for expr, name in items:
        if not _words(name) & _GROSS or _words(name) & _NET:
            continue
        for match in re.finditer(r"\s*-\s*(?:\w+\.)?(\w+)\b", expr):
            if _DEDUCTION.match(match.group(1).lower()):
                fixed_expr = expr[:match.start()] + expr[match.end():]
                yield Fix(location, f"{name} takes off {match.group(1)}, though it is named for everything taken in and "
                                    f"another column says what remains", sql, _replace_item(sql, expr, fixed_expr, name))
                break


_SUMMED = re.compile(r"coalesce\(\s*\(\s*SELECT\s+sum\((\w+)\)\s+FROM\s+(\w+)[^()]*(?:\([^()]*\)[^()]*)*\)\s*,\s*0\s*\)", re.I)


def _tallies_subtracted(location: str, sql: str) -> Iterator[Fix]:
    """A total of one tally over several tables (``karma``: the score of a user's posts and of their
    comments) that takes one table's tally off instead of adding it, where the name says nothing of what is
    left (``net``, ``balance``, ``difference``). The fix adds it."""
    for expr, name in _select_items(sql) or []:
        if _words(name) & _NET or re.search(r"diff|delta|change|remain|left|gap", name, re.I):
            continue
        parts = list(_SUMMED.finditer(expr))
        if len(parts) < 2 or len({p.group(1).lower() for p in parts}) != 1 or len({p.group(2) for p in parts}) != len(parts):
            continue
        for before, after in zip(parts, parts[1:]):
            between = expr[before.end():after.start()]
            if between.strip() == "-":
                at = before.end() + between.index("-")
                fixed_expr = expr[:at] + "+" + expr[at + 1:]
                yield Fix(location, f"{name} takes the {after.group(1)} of {after.group(2)} off the {before.group(1)} of "
                                    f"{before.group(2)}: a total of one tally adds its parts", sql,
                          _replace_item(sql, expr, fixed_expr, name))
                return


def _marker_named_value(site: Site, m_index: int, e_index: int) -> Iterator[Fix]:
    """An effect of a marker named for one value of a column (``empty_trash``) that picks rows by another
    (``kind = 'archive'``) and never by the one its name says."""
    marker = site.markers[m_index]
    effect = marker.effects[e_index]
    words = _words(marker.name)
    for match in re.finditer(r"\b(?:(\w+)\.)?(\w+)\s*=\s*'([^']*)'", effect.sql):
        column, value = match.group(2), match.group(3).lower()
        tables = set(_aliases(effect.sql).values()) | {effect.table}
        domain = set().union(*(_domain(site, t, column) for t in tables))
        named = sorted((domain & words) - {value})
        if len(named) != 1 or value in words or value not in domain or f"'{named[0]}'" in effect.sql.lower():
            continue
        fixed = effect.sql[:match.start(3)] + named[0] + effect.sql[match.end(3):]
        yield Fix(f"$.markers[{m_index}].effects[{e_index}].sql",
                  f"marker {marker.name!r} is named for {column} = {named[0]!r}, but its effect picks rows with "
                  f"{column} = {match.group(3)!r}", effect.sql, fixed)
        return


# ----------------------------------------------------------------------------- a date stamped for another state

_STAMP = re.compile(r"\b(\w+)\s*=\s*CASE\s+:(\w+)\s+WHEN\s+'([^']*)'\s+THEN\s+(?::today|:now|vw_today\(\)|vw_now\(\))",
                    re.I)


def _stamps(site: Site, location: str, table: str, sql: str) -> Iterator[Fix]:
    """An effect that stamps a date column named for one state (``closed_on``) when the state it
    writes from the same parameter is another (``CASE :state WHEN 'open' THEN :today``)."""
    for match in _STAMP.finditer(sql):
        column, param, value = match.group(1), match.group(2), match.group(3).lower()
        state = re.search(rf"\b(\w+)\s*=\s*:{re.escape(param)}\b", sql)
        if state is None:
            continue
        words = _words(column)
        named = sorted((_domain(site, table, state.group(1)) & words) - {value})
        if value in words or len(named) != 1:
            continue
        fixed = sql[:match.start(3)] + named[0] + sql[match.end(3):]
        yield Fix(location, f"{column} is named for {state.group(1)} = {named[0]!r}, but the effect stamps it when "
                            f"{state.group(1)} becomes {value!r}", sql, fixed)


# ----------------------------------------------------------------------------- the check


# ----------------------------------------------------------------------------- money in cents written out

_CURRENCY = re.compile(r"'[^']*[$\u20ac\u00a3][^']*'")


def _cents_columns(site: Site, sql: str) -> dict[str, list[int]]:
    """``alias.column`` -> its seed values, for each reference of ``sql`` to a money column (cents)."""
    from veriweb.verify.checks_pages import base_column

    out: dict[str, list[int]] = {}
    aliases = _aliases(sql)
    for alias, column in set(re.findall(r"\b(\w+)\.(\w+)\b", sql)):
        base = base_column(site, aliases[alias], column) if alias in aliases else None
        table = site.database.table(base[0]) if base is not None else None
        kind = table.column(base[1]) if table is not None and base is not None else None
        if kind is not None and kind.type == "money":
            out[f"{alias}.{column}"] = [r[base[1]] for r in table.rows if isinstance(r.get(base[1]), int)]  # type: ignore[union-attr,index]
    return out


def _dollars(ref: str) -> str:
    return f"({ref} / 100) || '.' || substr('0' || ({ref} % 100), -2)"


def _cents_as_dollars(site: Site, location: str, sql: str) -> Iterator[Fix]:
    """An amount of money, held in cents, written out as text without turning it into dollars: next to a
    currency sign (``'$' || i.bounty || '.00'``: $15000.00 for a $150 bounty), or divided by 100 as a whole
    number while the seed amounts have cents (``p.price / 100`` pre-fills a price form with 196 for
    $196.99). The dollars and cents are written out instead."""
    money = _cents_columns(site, sql)
    if not money:
        return
    for expr, name in _select_items(sql) or []:
        for ref, values in money.items():
            # the places the amount is shown, not tested (``CASE WHEN i.bounty > 0 THEN ...``)
            at = [m for m in re.finditer(rf"(?<![\w.]){re.escape(ref)}\b", expr)
                  if not re.match(r"\s*(?:[<>!]=?|=|<>|IS\b)", expr[m.end():], re.I)
                  and not re.search(r"(?:[<>!]=?|=|<>)\s*$", expr[:m.start()])]
            if not at or len(at) > 1 or re.search(rf"{re.escape(ref)}\s*%\s*100\b", expr):
                continue
            divided = re.search(rf"\(?\s*{re.escape(ref)}\s*/\s*100(?![\d.])\s*\)?", expr)
            if divided is None and _CURRENCY.search(expr) and not re.search(
                    rf"{re.escape(ref)}\s*[/*]", expr) and expr.strip() != ref:
                shown = at[0]
                tail = re.match(r"\s*\|\|\s*'\.00'", expr[shown.end():])
                fixed = expr[:shown.start()] + _dollars(ref) + expr[shown.end() + (tail.end() if tail else 0):]
                some = next((v for v in values if v), 15000)
                yield Fix(location, f"{name} writes {ref}, an amount in cents, next to a currency sign as if it "
                                    f"were dollars ({some} cents shown as {some} dollars): dollars and cents written out",
                          sql, _replace_item(sql, expr, fixed, name))
            elif divided is not None and any(v % 100 for v in values) and "'.00'" not in expr:
                fixed = expr[:divided.start()] + "(" + _dollars(ref) + ")" + expr[divided.end():]
                cents = next(v for v in values if v % 100)
                yield Fix(location, f"{name} writes {ref} in whole dollars, dropping the cents the seed amounts "
                                    f"have ({cents} cents written as {cents // 100}): dollars and cents written out",
                          sql, _replace_item(sql, expr, fixed, name))


def _mislabelled_columns(site: Site, location: str, sql: str) -> Iterator[Fix]:
    """A column passed through under the name of another column of the same row (``c.name AS city_code``
    where ``cities`` has a ``code``; ``u.name AS username`` where ``users`` has a ``username``): every page and
    filter reading ``city_code`` gets names. The name, less its table's own word (``city_``), is that other
    column; it is passed through instead."""
    from veriweb.verify.wording import singular

    aliases = _aliases(sql)
    for expr, name in _select_items(sql) or []:
        found = re.fullmatch(r"\s*(\w+)\.(\w+)\s*", expr)
        table = site.database.table(aliases.get(found.group(1), "")) if found else None
        if found is None or table is None or found.group(2) == name:
            continue
        own = singular(table.name)
        meant = (name[len(own) + 1:] if name.startswith(f"{own}_")
                 else name if table.column(name) is not None and name != table.primary_key else None)
        if meant and meant != found.group(2) and table.column(meant) is not None and table.column(found.group(2)):
            yield Fix(location, f"{name} passes {expr.strip()} through, but its name says {table.name}.{meant}: "
                                f"{found.group(1)}.{meant} passed through instead",
                      sql, _replace_item(sql, expr, f"{found.group(1)}.{meant}", name))


def _case_words(expr: str) -> list[str] | None:
    """The words a column made of ``CASE`` expressions of string literals (``(CASE WHEN e.read = 0 THEN
    'unread ' ELSE '' END) || (CASE ...)``) can write, each branch's literal once; ``None`` for any
    other expression."""
    parts = [p for p in split_top(expr, "|") if p]  # "||" splits into its parts and empty ones between
    words: list[str] = []
    for part in parts:
        inner = part.strip()
        while inner.startswith("(") and closing_paren(inner, 0) == len(inner) - 1:
            inner = inner[1:-1].strip()
        if not re.fullmatch(r"CASE\b.*\bEND", inner, re.I | re.S):
            return None
        branches = re.findall(r"\b(?:THEN|ELSE)\b", inner, re.I)
        literals = re.findall(r"\b(?:THEN|ELSE)\s+'([^']*)'", inner, re.I)
        if len(literals) != len(branches):
            return None
        words += literals
    return words


def unmatched_choices(site: Site) -> Iterator[tuple[str, str, str, str, str]]:
    """Each choice of a searching form tested (``=`` or ``contains``) against a view column made of
    ``CASE`` words that writes none of it, while exactly one of those words is chosen by no option (a
    "Starred" option sending ``starred`` to a filter on ``tags``, whose ``CASE`` writes ``flagged``): the
    list shows nothing for it. The view's path, the column, the
    word it writes, the option's value and label; the fix writes the option's value."""
    from veriweb.verify.checks_words import _query_tests

    views = {v.name: (n, v) for n, v in enumerate(site.database.views)}
    options: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for element, _, page in C.searching_forms(site):
        for field_el in element.fields:
            listed = [(str(C.field_of(o, "value")), str(C.field_of(o, "label") or "")) for o in C.field_of(field_el, "options") or []]
            options.setdefault((page, field_el.name), []).extend((v, l) for v, l in listed if v not in ("", "None"))
    seen = set()
    for element, _, page, _, cond in _query_tests(site):
        offered = options.get((page, cond.value.name))
        found = views.get(element.query.table)
        if not offered or found is None or cond.op not in (None, "=", "==", "contains"):
            continue
        number, view = found
        item = next((e for e, name in _select_items(view.sql) or [] if name == cond.column), None)
        words = _case_words(item) if item is not None else None
        if not words:
            continue
        def meets(value: str, word: str) -> bool:
            return value in word if cond.op == "contains" else value == word.strip()
        lost = [(v, l) for v, l in offered if not any(meets(v, w) for w in words)]
        unused = [w for w in words if w.strip() and not any(meets(v, w) for v, _ in offered)]
        if len(lost) == 1 and len(unused) == 1 and (number, cond.column) not in seen:
            seen.add((number, cond.column))
            yield f"$.database.views[{number}].sql", cond.column, unused[0], lost[0][0], lost[0][1]


_SEARCH_BY = re.compile(r"\b(?:search|find|look)\w*(?:\s+\w+)?\s+(?:by|for|on)\s+([a-z ,'/]+)", re.I)


def _said_keys(texts: list[str]) -> list[str]:
    """The words a page's search invitation names ("Search by subject, name or address" -> subject, name,
    address)."""
    out = []
    for text in texts:
        for match in _SEARCH_BY.finditer(text):
            out += [w for w in re.split(r"\s*(?:,|\bor\b|\band\b|/)\s*", match.group(1).lower().strip()) if w]
    return out


def unsearched_keys(site: Site) -> Iterator[tuple[str, str, str, str]]:
    """Each text a search matches against (``haystack``, a view column joining other columns with ``||``)
    that leaves out the one column of its view named for a word the page invites the search by ("Search by
    subject, name or address" over a haystack without ``e.sender_name``): searching by it finds nothing.
    The view's path, the searched column, the word and the column reference left out."""
    from veriweb.verify.checks_words import _query_tests

    views = {v.name: (n, v) for n, v in enumerate(site.database.views)}
    seen = set()
    for element, path, page_id, _, cond in _query_tests(site):
        found = views.get(element.query.table)
        if found is None or cond.op != "contains":
            continue
        number, view = found
        items = _select_items(view.sql) or []
        haystack = next((e for e, name in items if name == cond.column), None)
        if haystack is None or "||" not in haystack:
            continue
        page = site.page(page_id)
        texts = [t for e, _ in C.walk(page.elements if page else [], "$") for t in
                 (C.field_of(e, "text"), C.field_of(e, "label"), C.field_of(e, "placeholder")) if isinstance(t, str)]
        for word in _said_keys(texts):
            named = [(e.strip(), name) for e, name in items if name != cond.column
                     and stem(word) in {stem(w) for w in name.lower().split("_")}
                     and re.fullmatch(r"\w+\.\w+", e.strip())]
            if len(named) != 1 or re.search(rf"(?<![\w.]){re.escape(named[0][0])}\b", haystack):
                continue
            if (number, cond.column, named[0][0]) not in seen:
                seen.add((number, cond.column, named[0][0]))
                yield f"$.database.views[{number}].sql", cond.column, word, named[0][0]


def _lossy_joins(site: Site, location: str, sql: str) -> Iterator[Fix]:
    """An inner join on a key that seed rows leave empty (``JOIN users u ON u.id = i.assignee_id`` where
    73 issues have no assignee): every row without one vanishes from every list, count and page that
    reads the view. The join is made a ``LEFT JOIN``."""
    aliases = _aliases(sql)
    for match in re.finditer(r"(?<!LEFT )(?<!OUTER )\b(?:INNER\s+)?JOIN\s+\"?(\w+)\"?(?:\s+(?:AS\s+)?(\w+))?\s+ON\s+"
                             r"(\w+)\.(\w+)\s*=\s*(\w+)\.(\w+)", sql, re.I):
        joined = match.group(2) or match.group(1)
        if joined.upper() in ("ON", "WHERE"):
            continue
        a, ac, b, bc = match.group(3, 4, 5, 6)
        outer, column = (b, bc) if a == joined else (a, ac) if b == joined else (None, None)
        table = site.database.table(aliases.get(outer, "")) if outer else None
        if table is None or column is None or table.column(column) is None:
            continue
        empty = sum(1 for r in table.rows if r.get(column) is None)
        if empty == 0 or empty == len(table.rows):
            continue
        head = re.match(r"(?:INNER\s+)?JOIN", match.group(0), re.I)
        fixed = sql[:match.start()] + "LEFT JOIN" + sql[match.start() + (head.end() if head else 4):]
        yield Fix(location, f"the view joins {match.group(1)} on {outer}.{column} with an inner join, but {empty} "
                            f"{table.name} rows leave {column} empty: they vanish from everything that reads the view; "
                            f"a LEFT JOIN keeps them", sql, fixed)


def _flags_not_read(site: Site, location: str, sql: str) -> Iterator[Fix]:
    """A ``CASE`` whose words name a yes/no column of a table the view reads ("Breakfast included" where
    hotels have ``breakfast``) while its test reads something else (``h.stars >= 4``): the words are
    decided by another figure. The test reads the named column."""
    aliases = _aliases(sql)
    aliased = {table for alias, table in aliases.items() if alias != table}
    flags = [(alias, c.name) for alias, table in aliases.items() if alias != table or table not in aliased
             for t in [site.database.table(table)] if t is not None for c in t.columns if c.type == "boolean"]
    for match in re.finditer(r"\bWHEN\s+(.+?)\s+THEN\s+'([^']*)'", sql, re.I | re.S):
        test, words = match.group(1), match.group(2)
        if re.search(r"\bWHEN\b|\bCASE\b|\(\s*SELECT\b", test, re.I):
            continue
        said = {stem(w) for w in re.findall(r"[a-z]+", words.lower())}
        named = sorted({(a, c) for a, c in flags if all(stem(w) in said for w in c.split("_"))})
        if len(named) != 1:
            continue
        alias, column = named[0]
        if re.search(rf"\b{re.escape(column)}\b", test) or not re.search(r"\w+\.\w+", test):
            continue
        fixed = sql[:match.start(1)] + f"{alias}.{column}" + sql[match.end(1):]
        yield Fix(location, f"the words {words!r} name {column}, but the CASE tests {test.strip()}: they are decided by "
                            f"another figure; {alias}.{column} tested instead", sql, fixed)


def _misplaced_literals(site: Site, location: str, sql: str) -> Iterator[Fix]:
    """A test of a column against a word no row of it holds, which another column of the same table holds
    (``name = 'Archive'`` where folders are named "Old mail" and the archive is the one of ``kind =
    'archive'``): the lookup finds nothing, for every user. The test reads that other column."""
    aliases = _aliases(sql)
    for match in re.finditer(r"\b(?:WHERE|AND|OR|ON)\s+(?:(\w+)\.)?(\w+)\s*=\s*'([^']*)'", sql, re.I):
        alias, column, word = match.groups()
        owners = [aliases[alias]] if alias in aliases else [t for t in set(aliases.values())
                                                              if (tb := site.database.table(t)) and tb.column(column)]
        table = site.database.table(owners[0]) if len(owners) == 1 else None
        if table is None or table.column(column) is None or len(table.rows) < 3:
            continue
        held = {str(r.get(column)).casefold() for r in table.rows if r.get(column) is not None}
        if word.casefold() in held:
            continue
        other = [(c.name, next(r[c.name] for r in table.rows if isinstance(r.get(c.name), str)
                               and r[c.name].casefold() == word.casefold()))
                 for c in table.columns if c.type == "text" and c.name != column
                 and any(isinstance(r.get(c.name), str) and r[c.name].casefold() == word.casefold() for r in table.rows)]
        if len(other) != 1:
            continue
        name, value = other[0]
        start = match.start(2) if alias is None else match.start(1)
        fixed = sql[:start] + (f"{alias}." if alias else "") + f"{name} = '{value}'" + sql[match.end():]
        yield Fix(location, f"it looks {table.name} up by {column} = '{word}', which no row holds, while {name} "
                            f"holds {value!r}: the lookup finds nothing; {name} = '{value}' tested instead", sql, fixed)


def _narrowed_counts(site: Site, location: str, sql: str) -> Iterator[Fix]:
    """A per-row count named for the rows it counts, all of them (``AS comments`` over ``comments``), whose
    subquery also keeps only some by a figure (``AND c.score > 0``): "N comments" leaves the others out.
    The extra test is dropped."""
    for expr, name in _select_items(sql) or []:
        found = re.fullmatch(r"\s*\(\s*SELECT\s+count\(\*\)\s+FROM\s+(\w+)(?:\s+(?:AS\s+)?(\w+))?\s+WHERE\s+(.+)\)\s*",
                             expr, re.I | re.S)
        if found is None or found.group(1).lower() != name.lower() or site.database.table(found.group(1)) is None:
            continue
        table = site.database.table(found.group(1))
        alias = found.group(2) or found.group(1)
        parts = re.split(r"\s+AND\s+", found.group(3).strip(), flags=re.I)
        narrowing = [p for p in parts if (m := re.fullmatch(rf"{alias}\.(\w+)\s*(?:>|>=|<|<=)\s*-?\d+(?:\.\d+)?", p.strip()))
                     and table.column(m.group(1)) is not None and table.column(m.group(1)).type in ("integer", "real")]
        if len(narrowing) != 1 or len(parts) < 2:
            continue
        kept = " AND ".join(p for p in parts if p is not narrowing[0])
        fixed_expr = expr[:found.start(3)] + kept + expr[found.end(3):]
        yield Fix(location, f"{name} counts only the {table.name} rows where {narrowing[0].strip()}, but its name says "
                            f"every one of them: the test dropped", sql, _replace_item(sql, expr, fixed_expr, name))


def _overflagged_counts(site: Site, location: str, sql: str) -> Iterator[Fix]:
    """A per-row count named for one yes/no column (``unread``: ``e.read = 0``) whose subquery also keeps rows
    by another yes/no column its name does not mention (``AND e.starred = 0``): "3 unread" leaves out every
    unread message that is also starred. The extra test is dropped."""
    from veriweb.verify.wording import flag_words

    for expr, name in _select_items(sql) or []:
        found = re.fullmatch(r"\s*\(\s*SELECT\s+count\(\*\)\s+FROM\s+(\w+)(?:\s+(?:AS\s+)?(\w+))?\s+WHERE\s+(.+)\)\s*",
                             expr, re.I | re.S)
        table = site.database.table(found.group(1)) if found is not None else None
        if table is None:
            continue
        alias = found.group(2) or found.group(1)
        parts = re.split(r"\s+AND\s+", found.group(3).strip(), flags=re.I)
        flags = {}
        for part in parts:
            test = re.fullmatch(rf"(?:{re.escape(alias)}\.)?(\w+)\s*(?:=|!=|<>)\s*(?:0|1|true|false)", part.strip(), re.I)
            column = table.column(test.group(1)) if test else None
            if column is not None and column.type == "boolean":
                flags[column.name] = part
        named = [c for c in flags if flag_words(name.replace("_", " "), c) is not None]
        others = [c for c in flags if c not in named]
        if len(named) != 1 or len(others) != 1 or len(parts) < 3:
            continue  # the row's own test, the named flag and one more: a count of rows in two states
        extra = flags[others[0]]
        kept = " AND ".join(p for p in parts if p is not extra)
        fixed_expr = expr[:found.start(3)] + kept + expr[found.end(3):]
        yield Fix(location, f"{name} counts only the {table.name} rows where {extra.strip()} too, which its name "
                            f"does not say: every {named[0]} one that is not is left out; the test dropped", sql,
                  _replace_item(sql, expr, fixed_expr, name))


def _unread_params(marker: Any) -> set[str]:
    """The parameters of ``marker`` that none of its effects or checks reads (a field the form sends for nothing)."""
    from veriweb.scaffold.values import Ref

    texts = [e.sql for e in marker.effects]
    for guard in [*marker.preconditions, *marker.invariants]:
        texts.append(str(getattr(guard.predicate, "sql", "") or ""))
        texts += [f":{value.ref.split('.', 1)[1]}" for value in (getattr(guard.predicate, "params", None) or {}).values()
                  if isinstance(value, Ref) and value.ref.startswith("param.")]
    read = set(re.findall(r":(\w+)", " ".join(texts)))
    return {p.name for p in marker.params} - read


def _ignored_params(location: str, effect: Any, marker: Any, write: Any) -> Iterator[Fix]:
    """An effect that fills a column from somewhere else (``(SELECT address FROM users WHERE id = :user_id)``)
    while the marker takes a parameter of that very name that nothing reads: what the visitor typed in
    that field is thrown away (an order shipped to the saved address, not the one given). The fix writes
    the parameter. ``write`` is the effect as :func:`parse_effect` reads it."""
    unread = _unread_params(marker)
    if not unread:
        return
    for column, source in write.sources.items():
        if column in unread and source.kind not in ("param", "literal") and isinstance(source.value, str) \
                and source.value.strip() and source.value in effect.sql:
            yield Fix(location, f"marker {marker.name!r} fills {column} from {source.value.strip()[:60]} while its "
                                f"parameter :{column}, the field the visitor fills, is read nowhere: what was typed is "
                                f"thrown away; it should write :{column}", effect.sql,
                      effect.sql.replace(source.value, f":{column}", 1))


def _where_part(sql: str) -> tuple[int, str]:
    """Where an ``UPDATE``'s or ``DELETE``'s top-level ``WHERE`` clause starts in ``sql``, and the clause (``-1, ""``: none)."""
    if not re.match(r"\s*(?:UPDATE|DELETE)\b", sql, re.I):
        return -1, ""
    cut = _top_keyword(sql, "WHERE")
    return (cut, sql[cut:]) if cut >= 0 else (-1, "")


def _ranged_keys(site: Site, location: str, effect: Any, marker: Any) -> Iterator[Fix]:
    """An update or delete that picks its rows by a range of keys from a parameter (``id >= :note_id``) where
    the marker names one row: "delete this comment" erases it and every later one, other people's too. The
    fix picks the one row."""
    table = site.database.table(effect.table)
    start, where = _where_part(effect.sql)
    if table is None or start < 0:
        return
    params = {p.name for p in marker.params}
    for found in re.finditer(rf"(?<![\w.])((?:\w+\.)?{re.escape(table.primary_key)})\s*(>=|>|<=|<)\s*:(\w+)\b", where):
        if found.group(3) not in params:
            continue
        fixed = effect.sql[:start + found.start(2)] + "=" + effect.sql[start + found.end(2):]
        yield Fix(location, f"marker {marker.name!r} picks the {table.name} rows with {found.group(1)} {found.group(2)} "
                            f":{found.group(3)}, a range of keys where it names one row: every row past it goes too; it "
                            f"should pick {found.group(1)} = :{found.group(3)}", effect.sql, fixed)
        return


_SCALAR_PICK = re.compile(r"(?<![\w.])((?:\w+\.)?(\w+))\s*=\s*\(\s*SELECT\s+(?:\w+\.)?(\w+)\s+FROM\s+(\w+)"
                          r"(?:\s+(?:AS\s+)?(?!WHERE\b)\w+)?\s+WHERE\s+([^()]*)\)", re.I)


def _widened_picks(site: Site, location: str, effect: Any, marker: Any) -> Iterator[Fix]:
    """An update or delete whose rows are picked by a value looked up in a subquery, in two shapes:

    - the value of the row the marker names, read off that row (``sender = (SELECT sender FROM emails
      WHERE id = :email_id)``): every row sharing it changes ("mark read" marks all that sender's mail);
      the fix picks the row itself;
    - a value of another table's rows that are several (``id = (SELECT product_id FROM cart_items WHERE
      user_id = :user_id)``, a cart of several lines): ``=`` takes the first of them only, and the rest
      are never touched; the fix takes them all (``IN``)."""
    table = site.database.table(effect.table)
    start, where = _where_part(effect.sql)
    if table is None or start < 0:
        return
    for found in _SCALAR_PICK.finditer(where):
        column, selected, source, inner = found.group(2), found.group(3), found.group(4), found.group(5)
        tests = dict(re.findall(r"(?:\w+\.)?(\w+)\s*=\s*(:\w+)", inner))
        outside = where[:found.start()] + where[found.end():]
        if source == table.name and column == selected and column != table.primary_key \
                and table.primary_key in tests and not re.search(rf"(?<![\w.])(?:\w+\.)?{re.escape(table.primary_key)}\s*=", outside):
            own = table.column("user_id") is not None and marker.requires_login and not re.search(
                r"(?<![\w.])(?:\w+\.)?user_id\s*=\s*:user_id\b", outside)  # the signed-in user's row, as the rest are
            picked = f"{table.primary_key} = {tests[table.primary_key]}" + (" AND user_id = :user_id" if own else "")
            fixed = effect.sql[:start + found.start()] + picked + effect.sql[start + found.end():]
            yield Fix(location, f"marker {marker.name!r} picks every {table.name} row whose {column} is that of the row "
                                f"{tests[table.primary_key]} names: all rows sharing it change, not the one; it should pick "
                                f"{picked}", effect.sql, fixed)
            return
        other = site.database.table(source)
        if other is None or source == table.name or not tests or other.primary_key in tests \
                or any((c := other.column(name)) is None or c.unique for name in tests):
            continue
        fixed_tests = {name: value.strip("'") for name, value in
                       re.findall(r"(?:\w+\.)?(\w+)\s*=\s*('[^']*'|-?\d+(?:\.\d+)?)(?![\w.])", inner)}
        rows = [row for row in other.rows if all(str(row.get(name)) == value for name, value in fixed_tests.items())]
        groups = Counter(tuple(row.get(name) for name in tests) for row in rows)
        if not groups or max(groups.values()) < 2 or re.search(r"\bLIMIT\b|\b(?:max|min|sum|count|avg)\s*\(", found.group(0), re.I):
            continue
        fixed = effect.sql[:start + found.start()] + re.sub(r"\s*=\s*\(", " IN (", found.group(0), count=1) + \
            effect.sql[start + found.end():]
        yield Fix(location, f"marker {marker.name!r} picks {found.group(1)} = (SELECT {selected} FROM {source} ...), "
                            f"a subquery of several rows ({source} rows share its test): '=' takes the first only and the "
                            f"others are never changed; it should be IN", effect.sql, fixed)
        return


def _multiplied_inserts(site: Site, location: str, effect: Any, marker: Any) -> Iterator[Fix]:
    """An ``INSERT ... SELECT`` from a table none of whose columns it reads, without an aggregate (``SELECT
    (SELECT max(id) FROM issues), :label_id FROM labels WHERE :label_id IS NOT NULL``): it writes its one row
    once per row of that table (a new issue tagged nine times). The fix selects without the table."""
    inserted = _INSERT.match(effect.sql) if effect.op == "insert" else None
    select = inserted.group(4) if inserted else ""
    main = _main_from(select) if select[:6].upper() == "SELECT" else None
    table = site.database.table(main[0]) if main is not None else None
    if table is None:
        return
    cut = _top_keyword(select[6:], "FROM") + 6
    head, tail = select[:cut], select[cut:]
    source = re.match(r"FROM\s+\"?\w+\"?(?:\s+(?:AS\s+)?(?!WHERE\b|JOIN\b|GROUP\b|ORDER\b|LIMIT\b)\w+)?\s*", tail, re.I)
    rest = tail[source.end():] if source else ""
    if source is None or re.match(r"JOIN\b|,", rest, re.I) or _top_keyword(rest, "GROUP") >= 0 or _top_keyword(rest, "LIMIT") >= 0:
        return
    outside = head + rest
    for start, end in reversed(list(_subqueries(outside))):
        outside = outside[:start] + outside[end:]
    names = {c.name for c in table.columns} | {table.primary_key}
    if re.search(r"\b(?:count|sum|max|min|avg|total|group_concat)\s*\(", outside, re.I) or \
            re.search(rf"(?<![:\w])(?:{re.escape(main[1])}\.)?\b(?:{'|'.join(map(re.escape, names))})\b", outside):
        return
    fixed = effect.sql[:inserted.start(4)] + head.rstrip() + (" " + rest if rest else "")
    yield Fix(location, f"marker {marker.name!r} inserts into {effect.table} with a SELECT from {table.name} that reads "
                        f"nothing of its rows: the row is written once per {table.name} row; it should select without "
                        f"{table.name}", effect.sql, fixed.rstrip())


def _narrowed_numbering(site: Site, location: str, effect: Any, marker: Any) -> Iterator[Fix]:
    """A new row numbered from the highest number among only some of its table's rows (``max(number) FROM
    issues WHERE project_id = :project_id AND state = 'open'``): once the latest ones are in another state, the
    new row reuses a number already taken. The fix numbers from them all."""
    if effect.op != "insert":
        return
    pattern = rf"max\s*\(\s*(\w+)\s*\)[^;]*?\bFROM\s+{re.escape(effect.table)}\s+WHERE\s+([^()]*)"
    for found in re.finditer(pattern, effect.sql, re.I):
        literal = re.search(r"\s+AND\s+(?:\w+\.)?(\w+)\s*(?:=|!=|<>)\s*'[^']*'", found.group(2), re.I)
        if literal is None or literal.group(1) == found.group(1):
            continue
        at = found.start(2) + literal.start()
        fixed = effect.sql[:at] + effect.sql[at + len(literal.group(0)):]
        yield Fix(location, f"marker {marker.name!r} numbers a new {effect.table} row from max({found.group(1)}) over only "
                            f"the rows where{literal.group(0)[4:]}: once the latest rows are otherwise, a number already "
                            f"taken is given again; it should number from them all", effect.sql, fixed)
        return


_CLIPPED = re.compile(r"(?:(?:trim|ltrim|rtrim)\s*\(\s*)?substr\s*\(\s*:(\w+)\s*,", re.I)


def _clipped_params(location: str, effect: Any, marker: Any, write: Any) -> Iterator[Fix]:
    """An effect that stores only a piece of a text the visitor typed (``trim(substr(:to, 1, instr(:to || ',',
    ',') - 1))`` into ``recipients``) and the whole of it nowhere: a message to two people is kept as sent to
    the first, without a word. The fix stores what was typed. ``write`` is the effect as
    :func:`parse_effect` reads it."""
    texts = {p.name for p in marker.params if p.type == "text"}
    whole = {s.value for s in write.sources.values() if s.kind == "param"}
    for column, source in write.sources.items():
        found = _CLIPPED.match(source.value) if source.kind == "expr" and isinstance(source.value, str) else None
        if found is None or found.group(1) not in texts or found.group(1) in whole:
            continue
        if re.search(r"preview|snippet|excerpt|summary|short|initial|abbr|prefix", column, re.I):
            continue  # a piece kept beside the whole, by name
        yield Fix(location, f"marker {marker.name!r} stores only a piece of :{found.group(1)} in {column} "
                            f"({source.value.strip()[:60]}): what the visitor typed is cut without a word; it should "
                            f"store :{found.group(1)}", effect.sql, effect.sql.replace(source.value, f":{found.group(1)}", 1))


_MADE_AT = re.compile(r"^(?:created|created_at|created_on|added|added_on|posted|posted_at|sent|sent_at|placed|"
                    r"booked|issued|issued_on|made|made_on|refunded_on|written|written_at)$")
"""Columns that say when the row itself was made."""


def _borrowed_stamps(site: Site, location: str, sql: str, marker: Any) -> Iterator[Fix]:
    """An insert that dates the row it makes (``created``) with another record's date (``o.created``, the
    order's) rather than the clock: a refund made today looks months old. The clock is written instead
    (``:today``, or ``:now`` for a time)."""
    match = re.match(r"\s*INSERT\s+INTO\s+\"?(\w+)\"?\s*\(([^)]*)\)\s*SELECT\s+", sql, re.I)
    table = site.database.table(match.group(1)) if match is not None else None
    if match is None or table is None:
        return
    columns = [c.strip().strip('"') for c in match.group(2).split(",")]
    rest = sql[match.end():]
    cut = _top_keyword(rest, "FROM")
    values = split_top(rest[:cut]) if cut >= 0 else []
    if len(values) != len(columns):
        return
    for column, value in zip(columns, values):
        spec = table.column(column)
        read = re.fullmatch(r"(\w+)\.(\w+)", value.strip())
        if spec is None or spec.type not in ("date", "datetime") or not _MADE_AT.match(column) or read is None:
            continue
        clock = ":now" if spec.type == "datetime" else ":today"
        at = match.end() + rest.index(value)
        yield Fix(location, f"marker {marker.name!r} dates the {table.name} row it makes with {value.strip()}, another "
                            f"record's date, not the clock: a row made today looks older; {clock} written instead",
                  sql, sql[:at] + clock + sql[at + len(value):])


def mislabelled(site: Site) -> set[tuple[str, str]]:
    """``(view, column)`` for each column :func:`_mislabelled_columns` finds passed under another's name."""
    out = set()
    for view in site.database.views:
        for fix in _mislabelled_columns(site, "", view.sql):
            out.add((view.name, fix.message.split(" ", 1)[0]))
    return out


_CUT_SHAPES = (("time", r"\d{2}:\d{2}"), ("date", r"\d{4}-\d{2}-\d{2}"), ("day", r"\d{4}-\d{2}-\d{2}"),
               ("month", r"\d{4}-\d{2}"), ("year", r"\d{4}"))
"""What a column named for a time, day, month or year cut out of a stored text holds."""
_CUT = re.compile(r"^substr\(\s*(\w+)\.(\w+)\s*,\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)$", re.I)


def _miscut_texts(site: Site, location: str, sql: str) -> Iterator[Fix]:
    """A column named for a time (day, month, year) cut out of a stored date and time at the wrong place
    (``substr(sent_at, 1, 5) AS time``: "2026-" for every message), where each seed value holds one at
    one place. The fix cuts there."""
    aliases = _aliases(sql)
    for expr, name in _select_items(sql) or []:
        found = _CUT.match(expr.strip())
        words = set(name.lower().split("_"))
        shape = next((p for word, p in _CUT_SHAPES if word in words), None)
        if found is None or shape is None:
            continue
        table = site.database.table(aliases.get(found.group(1), ""))
        values = [v for r in (table.rows if table is not None else []) if isinstance(v := r.get(found.group(2)), str)]
        if len(values) < 3:
            continue
        start, length = int(found.group(3)), int(found.group(4)) if found.group(4) else None
        cuts = [v[start - 1:start - 1 + length] if length is not None else v[start - 1:] for v in values]
        if any(re.fullmatch(shape, c) for c in cuts):
            continue
        places = {(m.start(), len(m.group(0))) for v in values for m in [re.search(rf"(?<!\d){shape}(?!\d)", v)] if m}
        if len(places) != 1 or not all(re.search(shape, v) for v in values):
            continue
        (at, size), = places
        fixed = f"substr({found.group(1)}.{found.group(2)}, {at + 1}, {size})"
        yield Fix(location, f"{name} is cut from {found.group(1)}.{found.group(2)} at {start}, which gives {cuts[0]!r} "
                            f"where every row holds its {next(w for w, p in _CUT_SHAPES if p == shape)} at {at + 1}: "
                            f"the column never shows what its name says", sql, _replace_item(sql, expr, fixed, name))


def _clipped_columns(site: Site, location: str, sql: str) -> Iterator[Fix]:
    """A view column named like a stored text column that cuts it short (``substr(p.title, 1, 24) AS
    title``) where some seed values are longer: pages show cut titles, and a search or a goal matching
    the whole text finds nothing. The fix shows the stored column."""
    aliases = _aliases(sql)
    for expr, name in _select_items(sql) or []:
        found = re.fullmatch(r"\s*substr\s*\(\s*(\w+)\.(\w+)\s*,\s*1\s*,\s*(\d+)\s*\)\s*", expr, re.I)
        table = site.database.table(aliases.get(found.group(1), "")) if found and found.group(2) == name else None
        if table is None or table.column(name) is None:
            continue
        longer = sum(isinstance(v := r.get(name), str) and len(v) > int(found.group(3)) for r in table.rows)
        if longer:
            yield Fix(location, f"{name} keeps only the first {found.group(3)} characters of {table.name}.{name}, which "
                                f"{longer} row(s) hold longer: pages show them cut, and a search or a goal naming the "
                                f"whole text finds nothing", sql, _replace_item(sql, expr, f"{found.group(1)}.{name}", name))


def _stored_counts(site: Site, location: str, sql: str) -> Iterator[Fix]:
    """A view column named for a table whose rows it counts (``comments``) that shows a count stored on
    the row (``p.comment_count``) where each seed row's stored count is what it counts, but a marker adds
    or removes those rows without touching the stored count: after the first reply the page says the old
    number for good. The fix counts the rows."""
    from veriweb.verify.wording import singular

    aliases = _aliases(sql)
    for expr, name in _select_items(sql) or []:
        found = re.fullmatch(r"\s*(\w+)\.(\w+)\s*", expr)
        parent = site.database.table(aliases.get(found.group(1), "")) if found else None
        counted = next((site.database.table(t) for t in (name, f"{name}s", singular(name)) if site.database.table(t)),
                       None)
        fk = next((f for f in counted.foreign_keys if parent is not None and f.ref_table == parent.name), None) \
            if counted is not None else None
        if fk is None or parent.column(found.group(2)) is None:
            continue
        counts = Counter(r.get(fk.column) for r in counted.rows)
        stored = [(r.get(found.group(2)), counts.get(r.get(parent.primary_key), 0)) for r in parent.rows]
        if sum(1 for _, held in stored if held) < 3 or any(value != held for value, held in stored):
            continue
        kept = any(e.table == parent.name and re.search(rf"\b{re.escape(found.group(2))}\b", e.sql)
                   for m in site.markers for e in m.effects)
        if kept or not any(e.table == counted.name and e.op in ("insert", "delete") for m in site.markers
                           for e in m.effects):
            continue
        live = f"(SELECT count(*) FROM {counted.name} c WHERE c.{fk.column} = {found.group(1)}.{parent.primary_key})"
        yield Fix(location, f"{name} shows {parent.name}.{found.group(2)}, a count stored on the row that no marker "
                            f"keeps, while markers add and remove {counted.name} rows: after the first change it "
                            f"states the old number for good", sql, _replace_item(sql, expr, live, name))


def _borrowed_fallbacks(location: str, sql: str) -> Iterator[Fix]:
    """A column that falls back to another record's value of the same kind (``coalesce(u.name, a.name) AS
    assignee``, where ``u`` is the assignee and ``a`` the author, both of ``users``): a row with no
    assignee reads as assigned to its author. The fix falls back to saying there is none."""
    aliases = _aliases(sql)
    for expr, name in _select_items(sql) or []:
        found = re.fullmatch(r"\s*coalesce\s*\(\s*(\w+)\.(\w+)\s*,\s*(\w+)\.(\w+)\s*\)\s*", expr, re.I)
        if found is None or found.group(1) == found.group(3) or found.group(2) != found.group(4):
            continue
        if aliases.get(found.group(1)) is None or aliases.get(found.group(1)) != aliases.get(found.group(3)):
            continue
        yield Fix(location, f"{name} falls back to {found.group(3)}.{found.group(4)}, another {aliases[found.group(1)]} "
                            f"row's, where {found.group(1)} has none: such rows read as someone else's; it should say "
                            f"there is none", sql,
                  _replace_item(sql, expr, f"coalesce({found.group(1)}.{found.group(2)}, 'None')", name))


def _coarse_matches(site: Site, location: str, sql: str) -> Iterator[Fix]:
    """A join that matches rows by the first characters of a key it groups by, cut shorter than the key
    (``substr(o.created, 1, 4) = substr(m.month, 1, 4)`` where every month is written ``2026-06`` and the view
    groups by month): each month takes every order of its year. The fix matches the whole key."""
    aliases = _aliases(sql)
    pattern = re.compile(r"substr\s*\(\s*(\w+)\.(\w+)\s*,\s*1\s*,\s*(\d+)\s*\)\s*=\s*"
                         r"substr\s*\(\s*(\w+)\.(\w+)\s*,\s*1\s*,\s*\3\s*\)", re.I)
    for found in pattern.finditer(sql):
        for near, far in ((4, 1), (1, 4)):
            alias, column = found.group(near), found.group(near + 1)
            table = site.database.table(aliases.get(alias, ""))
            values = [r.get(column) for r in table.rows] if table is not None else []
            sizes = {len(v) for v in values if isinstance(v, str)}
            grouped = re.search(rf"\bGROUP\s+BY\s+{re.escape(alias)}\.{re.escape(column)}\b", sql, re.I)
            if len(values) >= 2 and len(sizes) == 1 and all(isinstance(v, str) for v in values) and grouped \
                    and next(iter(sizes)) > int(found.group(3)):
                size = next(iter(sizes))
                fixed = (f"substr({found.group(far)}.{found.group(far + 1)}, 1, {size}) = {alias}.{column}")
                yield Fix(location, f"rows are matched to {alias}.{column} by its first {found.group(3)} characters of "
                                    f"{size}, though the view groups by the whole of it: each {column} takes the rows "
                                    f"of others", sql, sql[:found.start()] + fixed + sql[found.end():])
                break


def _dropped_groups(location: str, sql: str) -> Iterator[Fix]:
    """A view that keeps every row of its first table (``FROM months m LEFT JOIN orders o ... GROUP BY
    m.month``), then drops some groups again with ``HAVING`` (months without a refund): pages listing the
    months lose those, and a month asked for shows nothing. The fix drops the ``HAVING``."""
    body = sql.strip()
    head = re.match(r"SELECT\b.*?\bFROM\s+(\w+)(?:\s+(?:AS\s+)?(\w+))?\s+LEFT\s+JOIN\b", body, re.I | re.S)
    having = _top_keyword(body, "HAVING")
    group = _top_keyword(body, "GROUP")
    if head is None or having < 0 or group < 0 or having < group:
        return
    alias = head.group(2) or head.group(1)
    if not re.match(rf"GROUP\s+BY\s+{re.escape(alias)}\.\w+\s*$", body[group:having].strip(), re.I):
        return
    rest = [i for i in (_top_keyword(body[having:], "ORDER"), _top_keyword(body[having:], "LIMIT")) if i >= 0]
    end = having + min(rest) if rest else len(body)
    yield Fix(location, f"the view keeps every {head.group(1)} row with a LEFT JOIN, then drops some groups again "
                        f"({body[having:end].strip()}): those rows vanish from each page that lists them", sql,
              (body[:having].rstrip() + " " + body[end:].strip()).strip())


def _capped_views(location: str, sql: str) -> Iterator[Fix]:
    """A view that ends in ``LIMIT n``: every page, goal and answer reading it loses every row past the
    first n of all records (everyone's older mail, not each user's). Pages page through lists
    themselves; the fix drops the cap."""
    cut = _top_keyword(sql, "LIMIT")
    if cut >= 0:
        yield Fix(location, f"the view keeps only the first rows of everything it reads ({sql[cut:].strip()}): every "
                            f"row past them vanishes from each page, goal and answer that reads it",
                  sql, sql[:cut].rstrip())


def _capped_lists(location: str, sql: str) -> Iterator[Fix]:
    """A column that lists a row's related names (``group_concat``) over rows cut by ``LIMIT``: a ticket
    with three labels shows one, and a filter matching the list misses the others. The fix drops the
    cap."""
    for expr, name in _select_items(sql) or []:
        if re.search(r"\bgroup_concat\s*\(", expr, re.I) and (capped := re.search(r"\s+LIMIT\s+\d+", expr, re.I)):
            fixed = expr[:capped.start()] + expr[capped.end():]
            yield Fix(location, f"{name} lists only the first{capped.group(0)[6:]} of the rows it joins together: "
                                f"the others are never shown or matched", sql, _replace_item(sql, expr, fixed, name))


def _skipped_counts(site: Site, location: str, sql: str) -> Iterator[Fix]:
    """A per-row count of one table's rows that counts a column (``count(i.assignee_id)``) some of whose
    values are empty: the rows without one are left out ("3 open tickets" of five, two unassigned),
    though the name counts rows. The fix counts rows (``count(*)``)."""
    for expr, name in _select_items(sql) or []:
        found = re.fullmatch(r"\s*\(\s*SELECT\s+count\s*\(\s*(\w+)\.(\w+)\s*\)\s+FROM\s+(\w+)(?:\s+(?:AS\s+)?(\w+))?"
                             r"\s+WHERE\s+.+\)\s*", expr, re.I | re.S)
        table = site.database.table(found.group(3)) if found else None
        if table is None or found.group(1) != (found.group(4) or found.group(3)) or found.group(2) in name.split("_"):
            continue
        if table.column(found.group(2)) is not None and any(r.get(found.group(2)) is None for r in table.rows):
            fixed = expr[:found.start(1)] + "*" + expr[found.end(2):]
            yield Fix(location, f"{name} counts {table.name} rows by {found.group(1)}.{found.group(2)}, which some rows "
                                f"leave empty: those rows are not counted", sql, _replace_item(sql, expr, fixed, name))


def _catalog_prices(site: Site, location: str, sql: str) -> Iterator[Fix]:
    """A line's figure computed from the price of the joined catalog row (``i.qty * p.price``) where the line
    keeps its own price (``i.price``, what was paid): every old line is repriced at today's price. The
    fix reads the line's own."""
    main = _main_from(sql)
    aliases = _aliases(sql)
    if main is None:
        return
    table = site.database.table(main[0])
    alias = main[1] or main[0]
    if table is None:
        return
    own = {c.name for c in table.columns}
    for expr, name in _select_items(sql) or []:
        for found in re.finditer(r"\b(\w+)\.(price|unit_price)\b", expr):
            other = site.database.table(aliases.get(found.group(1), ""))
            if (other is None or other.name == table.name or found.group(2) not in own
                    or not any(fk.ref_table == other.name for fk in table.foreign_keys)
                    or not re.search(rf"\b{re.escape(alias)}\.\w+\s*\*|\*\s*{re.escape(alias)}\.\w+", expr)):
                continue
            fixed = expr[:found.start()] + f"{alias}.{found.group(2)}" + expr[found.end():]
            yield Fix(location, f"{name} multiplies by {found.group(0)}, the {other.name} row's current price, though "
                                f"{table.name}.{found.group(2)} keeps the price of each line: old lines are repriced",
                      sql, _replace_item(sql, expr, fixed, name))
            return


_STARTS = frozenset({"in", "start", "starts", "begin", "begins", "from", "depart", "departure", "checkin", "opens"})
_ENDS = frozenset({"out", "end", "ends", "until", "return", "finish", "expires", "checkout", "closes"})
_BEGUN = re.compile(r"\b(?:begun|began|begins?|started|starts?|under way|underway)\b", re.I)
_OVER = re.compile(r"\b(?:ended|ends|finished|over|expired|past|passed|completed)\b", re.I)


def _misread_days(site: Site, location: str, sql: str, message: str) -> Iterator[Fix]:
    """A guard whose message speaks of a start ("has already begun") while it compares today with the
    row's end day (``check_out > :today``), or of an end while it reads the start, where the table has
    one day column of the kind the message means: the rule holds a day later (or earlier) than it says.
    The fix reads that column."""
    begun, over = bool(_BEGUN.search(message or "")), bool(_OVER.search(message or ""))
    if begun == over:
        return
    table = site.database.table(next(iter(_aliases(sql).values()), ""))
    if table is None:
        return
    days = [c.name for c in table.columns if c.type in ("date", "datetime")]
    want, avoid = (_STARTS, _ENDS) if begun else (_ENDS, _STARTS)
    right = [c for c in days if set(c.split("_")) & want and not set(c.split("_")) & avoid]
    for found in re.finditer(r"(?<![\w.:])(?:\w+\.)?(\w+)\s*(?:<=|>=|<|>)\s*:today\b|:today\s*(?:<=|>=|<|>)\s*(?:\w+\.)?(\w+)\b", sql):
        column = found.group(1) or found.group(2)
        if column in days and set(column.split("_")) & avoid and len(right) == 1:
            at = found.start(1) if found.group(1) else found.start(2)
            fixed = sql[:at] + right[0] + sql[at + len(column):]
            yield Fix(location, f"the guard says {message!r} but compares today with {column}: it should read {right[0]}",
                      sql, fixed)
            return


_NAMING = ("name", "full_name", "display_name", "username", "title", "login")
"""Columns that name a row for people."""
_IDENTIFYING = frozenset({*_NAMING, "path", "slug", "handle", "code", "sku", "number", "email", "key", "ref", "label"})
"""Columns that identify a row as well as its name does (a project's path, a product's SKU)."""
_CONTENT = frozenset({"body", "text", "content", "message", "description", "subject"})


def _entity_columns(site: Site, location: str, sql: str) -> Iterator[Fix]:
    """A column named for a joined row (``customer``) that shows another of its columns than the one that
    names it (``c.city AS customer``): lists name a town instead of the buyer. The fix shows its name."""
    from veriweb.verify.wording import singular

    aliases = _aliases(sql)
    for expr, name in _select_items(sql) or []:
        found = re.fullmatch(r"\s*(\w+)\.(\w+)\s*", expr)
        table = site.database.table(aliases.get(found.group(1), "")) if found else None
        if table is None or name not in (table.name, singular(table.name)):
            continue
        naming = [c for c in _NAMING if table.column(c) is not None]
        if found.group(2) in _IDENTIFYING or found.group(2) == table.primary_key or len(naming) != 1:
            continue
        fixed = f"{found.group(1)}.{naming[0]}"
        yield Fix(location, f"{name} shows {expr.strip()}, though {table.name}.{naming[0]} is what names a {name}: "
                            f"every page naming the {name} shows something else", sql, _replace_item(sql, expr, fixed, name))


def _dropped_content(site: Site, location: str, sql: str) -> Iterator[Fix]:
    """A text built for a message's part (``forward_body``) that never reads that part (``e.body``), while
    other built texts read theirs (``forward_subject`` = 'Fwd: ' || ``e.subject``): every forward arrives
    without its content. The fix adds the part at its end."""
    main = _main_from(sql)
    table = site.database.table(main[0]) if main else None
    if table is None:
        return
    alias = main[1] or main[0]
    for expr, name in _select_items(sql) or []:
        part = name.rsplit("_", 1)[-1]
        if "_" not in name or part not in _CONTENT or table.column(part) is None or "||" not in expr:
            continue
        if re.search(rf"\b{re.escape(part)}\b", expr):
            continue
        fixed = f"{expr.rstrip()} || ' ' || {alias}.{part}"
        yield Fix(location, f"{name} is built without {alias}.{part}: it never holds the {part} its name says",
                  sql, _replace_item(sql, expr, fixed, name))


_PER_ITEM = re.compile(r"\b(?:of|per|for) (?:an?|each|one|any one|any single|every) (item|product|article|thing|\w+)\b", re.I)
_GROUP_SUM = re.compile(r"\bFROM\s+(\w+)\b(?:(?!\bFROM\b).)*?\bGROUP\s+BY\s+([\w.]+(?:\s*,\s*[\w.]+)*)\s+HAVING\s+(?:sum|count)\s*\(",
                        re.I | re.S)


def _unscoped_caps(site: Site, location: str, sql: str, message: str) -> Iterator[Fix]:
    """An invariant capping a sum per group (``GROUP BY user_id HAVING sum(qty) > 10``) whose message caps
    it per item ("at most 10 of an item") while the groups never part the items: the whole cart is capped,
    and a shopper with 8 things cannot add 3 of another. The fix groups by the item's key too."""
    from veriweb.verify.wording import singular

    said = _PER_ITEM.search(message or "")
    found = _GROUP_SUM.search(sql)
    table = site.database.table(found.group(1)) if found else None
    if said is None or table is None:
        return
    word = said.group(1).lower()
    grouped = {g.strip().split(".")[-1] for g in found.group(2).split(",")}
    keys = [fk.column for fk in table.foreign_keys if fk.column not in grouped and (
        word in ("item", "product", "article", "thing") and site.auth is not None and fk.ref_table != site.auth.table
        or singular(fk.ref_table) == word)]
    if len(keys) != 1:
        return
    at = found.end(2)
    fixed = sql[:at] + f", {keys[0]}" + sql[at:]
    yield Fix(location, f"the rule says {said.group(0)!r}, but it sums over groups of {found.group(2)}, which never part "
                        f"one {word} from another: the cap holds for all of them together; it should group by "
                        f"{keys[0]} too", sql, fixed)


def _spared_rows(site: Site, location: str, sql: str, marker: Any, guard: Any) -> Iterator[Fix]:
    """An invariant that skips the very row the marker writes (``NOT EXISTS (SELECT 1 FROM flights WHERE seats < 0
    AND id != :f)`` with ``:f`` the flight booked): the only row the write can break is never looked at, so
    the rule never refuses (six seats sold on a flight with one left). The fix looks at every row."""
    bound = {name: value.ref.split(".", 1)[1] for name, value in (getattr(guard.predicate, "params", None) or {}).items()
             if hasattr(value, "ref") and value.ref.startswith("param.")}
    for found in re.finditer(r"\bFROM\s+(\w+)(?:\s+(?:AS\s+)?(?!WHERE\b)\w+)?\s+WHERE\s+([^()]*)", sql, re.I):
        table = site.database.table(found.group(1))
        if table is None:
            continue
        skip = re.search(rf"\s+AND\s+(?:\w+\.)?{re.escape(table.primary_key)}\s*(?:!=|<>)\s*:(\w+)\b", found.group(2), re.I)
        param = bound.get(skip.group(1), skip.group(1)) if skip else None
        written = param is not None and any(e.table == table.name and e.op == "update" and re.search(
            rf"\b{re.escape(table.primary_key)}\s*=\s*:{re.escape(param)}\b", e.sql) for e in marker.effects)
        if not written:
            continue
        at = found.start(2) + skip.start()
        fixed = sql[:at] + sql[at + len(skip.group(0)):]
        yield Fix(location, f"marker {marker.name!r}'s rule {guard.message!r} looks at every {table.name} row but the one "
                            f"it writes ({skip.group(0).strip()}): the only row the write can break is never checked, so "
                            f"the rule never refuses; it should check that row too", sql, fixed)
        return


_COUNT_CASE = re.compile(r"CASE\s+((?:\w+\.)?(\w+))\s+((?:WHEN\s+\d+\s+THEN\s+'[^']*'\s+)+)ELSE\s+\1\s*\|\|\s*' (\w+)'\s+END",
                         re.I)
_NONE_WORDS = re.compile(r"\b(?:non|no|none|zero|direct|nonstop|free)\b", re.I)


def _miscounted_labels(location: str, sql: str) -> Iterator[Fix]:
    """A ``CASE`` writing counts out (``WHEN 0 THEN 'Nonstop' WHEN 1 THEN '1 stop' ELSE stops || ' stops'``)
    with a label that says another number than its own (``WHEN 1 THEN 'Nonstop'``): 13 flights with a stop
    sold as nonstop. The fix writes the count as the ``ELSE`` does."""
    from veriweb.verify.wording import singular

    for found in _COUNT_CASE.finditer(sql):
        word = found.group(4)
        for when in re.finditer(r"WHEN\s+(\d+)\s+THEN\s+'([^']*)'", found.group(3), re.I):
            number, label = int(when.group(1)), when.group(2)
            digits = re.findall(r"\d+", label)
            wrong = (digits and int(digits[0]) != number) or (not digits and number != 0 and _NONE_WORDS.search(label))
            if not wrong:
                continue
            right = f"{number} {singular(word) if number == 1 else word}"
            start = found.start(3) + when.start(2)
            fixed = sql[:start] + right + sql[start + len(label):]
            yield Fix(location, f"{found.group(1)} {number} is written {label!r}: the label says another number "
                                f"than the row's; it should say {right!r}", sql, fixed)
            return


_REPLY_PREFIXES = frozenset({"re", "aw", "sv", "antw"})
"""Reply prefixes (in English, German, Scandinavian, Dutch) that mail programs write once however long the thread."""
_PREFIX_ITEM = re.compile(r"^\s*'(\w{2,4}):\s?'\s*\|\|\s*(\w+)\.(\w+)\s*$")


def _doubled_prefixes(site: Site, location: str, sql: str) -> Iterator[Fix]:
    """A text built by putting a reply's prefix before a column (``'Re: ' || e.subject``) that some rows
    already start with: replies to a thread go out as "Re: Re: ...". The fix keeps a text that has the
    prefix."""
    aliases = _aliases(sql)
    for expr, name in _select_items(sql) or []:
        found = _PREFIX_ITEM.match(expr)
        table = site.database.table(aliases.get(found.group(2), "")) if found else None
        if table is None or table.column(found.group(3)) is None:
            continue
        prefix = f"{found.group(1)}:"
        if found.group(1).lower() not in _REPLY_PREFIXES or re.search(r"forward|fwd", name, re.I):
            continue  # "Fwd: Fwd:" is what mail programs write; a reply's prefix is kept once (on a forward it
            # is another defect: _crossed_prefixes)
        values = [v for r in table.rows if isinstance(v := r.get(found.group(3)), str)]
        if not any(v.lower().startswith(prefix.lower()) for v in values):
            continue
        column = f"{found.group(2)}.{found.group(3)}"
        fixed = f"CASE WHEN {column} LIKE '{prefix}%' THEN {column} ELSE {expr.strip()} END"
        yield Fix(location, f"{name} puts {prefix!r} before {column}, which some rows already start with: they get it "
                            f"twice", sql, _replace_item(sql, expr, fixed, name))


_TEXT_TRUTH = re.compile(r"(?<![\w.])((?:(\w+)\.)?(\w+))\s*(=|!=|<>)\s*'(true|false|yes|no)'", re.I)


def _column_type(site: Site, aliases: dict[str, str], qualifier: str | None, column: str) -> str | None:
    """The stored type of ``qualifier.column`` (or of a bare column every table of the SQL that has it agrees on)."""
    tables = [aliases.get(qualifier, qualifier)] if qualifier else sorted(set(aliases.values()))
    kinds = {c.type for name in tables if (t := site.database.table(name)) is not None
             for c in t.columns if c.name == column}
    return next(iter(kinds)) if len(kinds) == 1 else None


def _text_truths(site: Site, location: str, sql: str) -> Iterator[Fix]:
    """A yes/no column compared with the word ``'true'`` (or ``'false'``, ``'yes'``, ``'no'``): SQLite
    stores it as 1 or 0, and a number never equals a text, so the test is false for every row (a
    "Checked bag: No" on every booking). The fix compares it with the number the word means."""
    aliases = _aliases(sql)
    fixed = sql
    said = []
    for match in _TEXT_TRUTH.finditer(sql):
        if _column_type(site, aliases, match.group(2), match.group(3)) != "boolean":
            continue
        truth = match.group(5).lower() in ("true", "yes")
        if match.group(4) != "=":
            truth = not truth
        fixed = fixed.replace(match.group(0), f"{match.group(1)} = {int(truth)}", 1)
        said.append(match.group(0))
    if said:
        yield Fix(location, f"{said[0]} compares a yes/no column, stored as 1 or 0, with a word: it never holds for "
                            f"any row (nor its opposite, every row)", sql, fixed)


_DATE_GAP = re.compile(r"(?<![\w.])((?:(\w+)\.)?(\w+))\s*-\s*((?:(\w+)\.)?(\w+))(?![\w.(])")


def _date_differences(site: Site, location: str, sql: str) -> Iterator[Fix]:
    """One date column taken from another with ``-`` (``check_out - check_in``): the days are stored as text,
    which SQLite reads as their leading year, so every difference is 0. The fix counts the days
    between them (``vw_days``)."""
    aliases = _aliases(sql)
    for match in _DATE_GAP.finditer(sql):
        left = _column_type(site, aliases, match.group(2), match.group(3))
        right = _column_type(site, aliases, match.group(5), match.group(6))
        if left == right == "date":
            days = f"vw_days({match.group(1)}, {match.group(4)})"
            yield Fix(location, f"{match.group(0)} subtracts one day written as text from another, which SQLite reads "
                                f"as their years: the difference is 0 (or a whole number of years)",
                      sql, sql.replace(match.group(0), days, 1))
            return


_UNEQUAL = re.compile(r"(?<![\w.])((?:(\w+)\.)?(\w+))\s*(?:!=|<>)\s*(:\w+)")


def _null_blind_tests(site: Site, location: str, sql: str) -> Iterator[Fix]:
    """A precondition that must hold and tests ``column != :value`` on a column some rows leave empty:
    NULL is neither equal nor unequal to anything, so a row without a value (an unassigned ticket)
    never passes, and the marker refuses it with a message about something else. The fix compares
    with ``IS NOT``, which treats an empty value as different."""
    aliases = _aliases(sql)
    fixed, said = sql, None
    for match in _UNEQUAL.finditer(sql):
        if re.search(r"\bNOT\s+EXISTS\s*\((?:(?!\)).)*$", sql[:match.start()], re.I | re.S):
            continue  # inside NOT EXISTS: a missing value passes there as it should
        qualifier, column = match.group(2), match.group(3)
        tables = [aliases.get(qualifier, qualifier)] if qualifier else sorted(set(aliases.values()))
        empty = [name for name in tables if (t := site.database.table(name)) is not None and t.column(column) is not None
                 and any(row.get(column) is None for row in t.rows)]
        if len(empty) == 1:
            fixed = fixed.replace(match.group(0), f"{match.group(1)} IS NOT {match.group(4)}", 1)
            said = said or (match.group(0), f"{empty[0]}.{column}")
    if said is not None:
        yield Fix(location, f"{said[0]} never holds where {said[1]} is empty (NULL is neither equal nor unequal to "
                            f"anything): those rows are always refused", sql, fixed)


def _unscoped_subqueries(site: Site, location: str, sql: str) -> Iterator[Fix]:
    """A subquery over a table of users' own rows (one with ``user_id``) that tests no user, in a statement
    that is about the signed-in user's rows of that table (another subquery over it tests ``user_id =
    :user_id``, or it inserts the user's row): it reads everyone's rows ("not bookmarked yet" by anyone;
    the stock taken off every product in anyone's cart). The fix tests the signed-in user there too."""
    spans = list(_subqueries(sql))
    inserted = re.match(r"\s*INSERT\s+INTO\s+(\w+)\s*\(([^)]*)\)", sql, re.I)
    for start, end in spans:
        if not re.search(r"\b(?:EXISTS|IN)\s*\($", sql[:start], re.I):
            continue  # only a test of which rows there are (a number counted over the whole table is meant so)
        inner = sql[start:end]
        head = re.match(r"\s*SELECT\b.*?\bFROM\s+(\w+)(?:\s+(?:AS\s+)?(?!WHERE\b)(\w+))?\s*(.*)$", inner, re.I | re.S)
        if head is None or re.search(r"\bJOIN\b|\(\s*SELECT\b|\buser_id\b", inner, re.I):
            continue
        table = site.database.table(head.group(1))
        if table is None or table.column("user_id") is None:
            continue
        rest = sql[:start] + sql[end:]
        scoped = any(re.search(rf"\bFROM\s+{table.name}\b.*\buser_id\s*=\s*:user_id\b", sql[a:b], re.I | re.S)
                     for a, b in spans if (a, b) != (start, end)) or (
            inserted is not None and inserted.group(1) == table.name and "user_id" in inserted.group(2)
            and ":user_id" in rest)
        if not scoped:
            continue
        test = f"{head.group(2) + '.' if head.group(2) else ''}user_id = :user_id"
        tail = head.group(3)
        where = re.match(r"WHERE\b", tail, re.I)
        if where is not None:
            fixed_inner = inner[:len(inner) - len(tail)] + f"WHERE {test} AND" + tail[where.end():]
        elif not tail.strip():
            fixed_inner = inner.rstrip() + f" WHERE {test}"
        else:
            continue
        yield Fix(location, f"a subquery over {table.name} tests no user, while the rest of the statement is about the "
                            f"signed-in user's rows: it reads everyone's", sql, sql[:start] + fixed_inner + sql[end:])
        return


_THRESHOLD = re.compile(r"^\(?\s*(?:(\w+)\.)?(\w+)\s*(>=|>|<=|<|=)\s*(-?\d+(?:\.\d+)?)\s*\)?$")


def _thresholded_views(site: Site, location: str, sql: str) -> Iterator[Fix]:
    """A view that keeps only the rows whose number passes a fixed bar (``WHERE r.rating >= 3``), or whose
    amount is exactly some figure (``o.refunded = 0``): every page, goal and answer that reads it silently
    loses the others (the one- and two-star reviews, every order with a refund), with nothing on the page
    saying so. Lists filter their own rows; the fix drops the bar."""
    where = _top_keyword(sql, "WHERE")
    if where < 0:
        return
    end = min([i for i in (_top_keyword(sql, w) for w in ("GROUP", "ORDER", "LIMIT", "HAVING")) if i > where] or [len(sql)])
    parts = _split_top_and(sql[where + 5:end])
    aliases = _aliases(sql)
    kept = []
    dropped = None
    for part in parts:
        found = _THRESHOLD.match(part.strip())
        kind = _column_type(site, aliases, found.group(1), found.group(2)) if found else None
        barred = found is not None and (kind in ("integer", "real", "money") and found.group(3) != "=" and
                                        float(found.group(4)) != 0 or kind == "money" and found.group(3) == "=")
        if barred and dropped is None:  # a bar on a number, or an amount that must be exactly some figure
            dropped = part.strip()
        else:
            kept.append(part.strip())
    if dropped is None:
        return
    fixed = sql[:where].rstrip() + (f" WHERE {' AND '.join(kept)}" if kept else "") + \
        (" " + sql[end:].lstrip() if end < len(sql) else "")
    yield Fix(location, f"the view keeps only the rows where {dropped}: every page, goal and answer reading it loses the "
                        f"others without a word", sql, fixed)


def _split_top_and(text: str) -> list[str]:
    """``text`` split at its top-level ``AND``s (outside parentheses and quotes; a ``BETWEEN ... AND`` is
    not split, nor is text with an ``OR`` at its top level, returned whole)."""
    if _top_keyword(text, "OR") >= 0 or _top_keyword(text, "BETWEEN") >= 0:
        return [text.strip()]
    out, start = [], 0
    while (cut := _top_keyword(text[start:], "AND")) >= 0:
        out.append(text[start:start + cut])
        start += cut + 3
    out.append(text[start:])
    return [p.strip() for p in out if p.strip()]


def _borrowed_own_columns(site: Site, location: str, sql: str) -> Iterator[Fix]:
    """A view column named for a column its own rows have (``created``) that reads that column of a joined
    row instead (``i.created``, the ticket's, on a view of notes): every row shows its parent's value (each
    comment dated the day its ticket opened). The fix reads the row's own."""
    main = _main_from(sql)
    table = site.database.table(main[0]) if main is not None else None
    if table is None:
        return
    aliases = _aliases(sql)
    for expr, name in _select_items(sql) or []:
        found = re.fullmatch(r"\s*(\w+)\.(\w+)\s*", expr)
        if found is None or found.group(2) != name or found.group(1) == main[1] or table.column(name) is None \
                or name == table.primary_key or aliases.get(found.group(1), main[0]) == main[0]:
            continue
        yield Fix(location, f"{name} reads {expr.strip()}, the {aliases.get(found.group(1))} row's, though each "
                            f"{main[0]} row has its own {name}: every row shows its parent's", sql,
                  _replace_item(sql, expr, f"{main[1]}.{name}", name))


def _borrowed_joins(site: Site, location: str, sql: str) -> Iterator[Fix]:
    """A table joined through a joined row's key (``JOIN users u ON u.id = p.user_id``, the post's author on a
    view of comments) where the view's own rows hold that key too (``c.user_id``) and no other join reads
    theirs: every row shows its parent's person. The fix joins through the row's own key."""
    main = _main_from(sql)
    table = site.database.table(main[0]) if main is not None else None
    if table is None:
        return
    aliases = _aliases(sql)
    for join in re.finditer(r"\bJOIN\s+(\w+)\s+(?:AS\s+)?(\w+)\s+ON\s+(\w+)\.(\w+)\s*=\s*(\w+)\.(\w+)", sql, re.I):
        joined, alias = join.group(1), join.group(2)
        sides = [join.group(3, 4), join.group(5, 6)]
        other = next(((a, c) for a, c in sides if a != alias), None)
        if other is None or other[0] == main[1] or aliases.get(other[0]) in (None, main[0]):
            continue
        if not any(f.column == other[1] and f.ref_table == joined for f in table.foreign_keys):
            continue  # the view's rows hold no key of that table
        rest = sql[:join.start()] + sql[join.end():]
        if re.search(rf"\b{main[1]}\.{other[1]}\b", rest) and re.search(rf"\bJOIN\s+{joined}\b", rest, re.I):
            continue  # another join already reads the row's own: this one means the parent's
        fixed = sql[:join.start()] + join.group(0).replace(f"{other[0]}.{other[1]}", f"{main[1]}.{other[1]}", 1) + \
            sql[join.end():]
        named = [name for expr, name in _select_items(sql) or [] if re.search(rf"\b{alias}\.", expr)]
        if any(name.startswith(singular(aliases[other[0]]) + "_") for name in named):
            continue  # the parent's person, named as such (post_author)
        yield Fix(location, f"{joined} is joined through {other[0]}.{other[1]}, the {aliases[other[0]]} row's, though each "
                            f"{main[0]} row has its own {other[1]}: every row shows its parent's", sql, fixed)
        return


def _found_by_new_value(site: Site, location: str, sql: str, marker: Any, table_name: str) -> Iterator[Fix]:
    """An update that finds its row by the value it writes (``SET name = :name ... WHERE name = :name``) while
    the marker takes the row's key (``contact_id``) and never reads it: a rename changes nothing (no row
    has the new name yet) and an edit rewrites every row that already shares it. The fix finds the row by
    its key."""
    table = site.database.table(table_name)
    span = set_span(sql)
    if table is None or span is None:
        return
    key = table.primary_key
    unread = [p.name for p in marker.params if f":{p.name}" not in sql
              and (p.name == f"{singular(table.name)}_id" or p.name == f"{table.name}_id")]
    if len(unread) != 1 or re.search(rf"\b{key}\s*=", sql[span[1]:]):
        return
    where = sql[span[1]:]
    for column, param in re.findall(r"(?<![\w.])(\w+)\s*=\s*:(\w+)", sql[span[0]:span[1]]):
        test = re.search(rf"(?<![\w.]){column}\s*=\s*:{param}\b", where)
        if test is not None and column != key:
            fixed = sql[:span[1]] + where[:test.start()] + f"{key} = :{unread[0]}" + where[test.end():]
            yield Fix(location, f"the update finds its {table.name} row by the {column} it writes (:{param}), not by its key "
                                f":{unread[0]}, which it never reads: a change of {column} changes nothing", sql, fixed)
            return


_GONE = re.compile(r"\b(?:no longer exists?|does not exist|doesn't exist|not found|cannot be found|could not be found|"
                   r"no such)\b", re.I)
_LITERAL_TEST = re.compile(r"\s+AND\s+(?:\w+\.)?(\w+)\s*(?:=|!=|<>)\s*'[^']*'", re.I)


def _narrowed_existence(site: Site, location: str, sql: str, message: str) -> Iterator[Fix]:
    """A precondition whose message says the record does not exist ("This product no longer exists.") that
    also tests a state of it (``AND status = 'enabled'``): a record in another state is refused with a
    message that says it is gone (a disabled product can never be edited, not even enabled again). The fix
    tests only that it exists."""
    if not _GONE.search(message or "") or not re.match(r"\s*SELECT\s+EXISTS\s*\(", sql, re.I):
        return
    found = _LITERAL_TEST.search(sql)
    if found is not None:
        yield Fix(location, f"the check says {message!r} but also tests {found.group(0).strip()[4:]}: a record in "
                            f"another state is told it is gone", sql, sql[:found.start()] + sql[found.end():])


def view_fixes(site: Site) -> list[Fix]:
    """Every finding of :func:`check_view_figures`, with the SQL that fixes it."""
    texts = [v.sql for v in site.database.views] + [e.sql for m in site.markers for e in m.effects]
    products = _products(site, texts)
    from veriweb.verify.checks_guards import _domains
    from veriweb.verify.checks_joins import (doubled_joins, fanned_out, filtered_lookups, keys_matched, matched_by_name,
                                             miscorrelated, mismatched_keys)
    from veriweb.verify.checks_literals import (always_existing, borrowed_numbers, disagreeing_view_cutoffs,
                                                misdeclared_effects, misspelt_sql, misspelt_writes, today_typos, unheld_effect_tests, wall_clock, words_against_other_days,
                                                worded_results)

    domains = _domains(site)
    out: list[Fix] = []
    for number, view in enumerate(site.database.views):
        location = f"$.database.views[{number}].sql"
        out += misspelt_sql(location, view.sql, domains)
        out += today_typos(site, location, view.sql, in_marker=False)
        out += wall_clock(location, view.sql, in_effect=False)
        out += words_against_other_days(site, location, view.sql)
        out += fanned_out(site, location, view.sql)
        for finder in (_uncorrelated, _misnamed, _redefined_columns, _overridden_columns, _counted_tables, _cancelled_earnings, _unfiltered, mismatched_keys,
                       miscorrelated, filtered_lookups, keys_matched, doubled_joins, matched_by_name):
            out += finder(site, location, view.sql)
        out += _unweighted_sums(site, location, view.sql, products)
        out += _backwards_words(location, view.sql)
        out += _deductions_added(location, view.sql)
        out += _gross_deducted(location, view.sql)
        out += _tallies_subtracted(location, view.sql)
        out += _flag_words(site, location, view.sql)
        out += _toggle_words(site, location, view.sql)
        out += _numbered_words(location, view.sql)
        out += _aggregate_names(location, view.sql)
        out += _counted_units(site, location, view.sql)
        out += _swapped_roles(location, view.sql)
        out += _crossed_prefixes(location, view.sql)
        out += _shadowed_columns(site, location, view.name, view.sql)
        out += _cents_as_dollars(site, location, view.sql)
        out += _mislabelled_columns(site, location, view.sql)
        out += _lossy_joins(site, location, view.sql)
        out += _flags_not_read(site, location, view.sql)
        out += _misplaced_literals(site, location, view.sql)
        out += _narrowed_counts(site, location, view.sql)
        out += _overflagged_counts(site, location, view.sql)
        out += _miscut_texts(site, location, view.sql)
        out += _miscounted_labels(location, view.sql)
        out += _doubled_prefixes(site, location, view.sql)
        out += _entity_columns(site, location, view.sql)
        out += _dropped_content(site, location, view.sql)
        out += _catalog_prices(site, location, view.sql)
        out += _clipped_columns(site, location, view.sql)
        out += _capped_views(location, view.sql)
        out += _stored_counts(site, location, view.sql)
        out += _borrowed_fallbacks(location, view.sql)
        out += _coarse_matches(site, location, view.sql)
        out += _dropped_groups(location, view.sql)
        out += _capped_lists(location, view.sql)
        out += _skipped_counts(site, location, view.sql)
        out += _text_truths(site, location, view.sql)
        out += _date_differences(site, location, view.sql)
        out += _thresholded_views(site, location, view.sql)
        out += _borrowed_own_columns(site, location, view.sql)
        out += _distinct_counts(site, location, view.sql)
        out += _merged_groups(site, location, view.sql)
        out += _scaled_columns(site, location, view.sql)
        out += _reversed_days(site, location, view.sql)
        out += _borrowed_joins(site, location, view.sql)
    for location, column, word, ref in unsearched_keys(site):
        sql = next(v.sql for n, v in enumerate(site.database.views) if f"$.database.views[{n}].sql" == location)
        expr = next(e for e, name in _select_items(sql) or [] if name == column)
        out.append(Fix(location, f"the page invites a search by {word}, but {column}, which the search reads, leaves "
                                 f"out {ref}: searching by {word} finds nothing; {ref} added to it",
                       sql, _replace_item(sql, expr, f"{expr.rstrip()} || ' ' || {ref}", column)))
    for location, column, word, value, label in unmatched_choices(site):
        sql = next(v.sql for n, v in enumerate(site.database.views) if f"$.database.views[{n}].sql" == location)
        kept = word[len(word.rstrip()):]  # the space a word written beside others ends with
        fixed = re.sub(rf"'{re.escape(word)}'", f"'{value}{kept}'", sql, count=1)
        out.append(Fix(location, f"{column} writes {word.strip()!r} where the option {label!r} looks for {value!r}, "
                                 f"which it never writes: that choice always shows nothing; {value!r} written instead",
                       sql, fixed))
    for m, marker in enumerate(site.markers):
        for e, effect in enumerate(marker.effects):
            out += _unweighted_sums(site, f"$.markers[{m}].effects[{e}].sql", effect.sql, products)
            out += _misplaced_literals(site, f"$.markers[{m}].effects[{e}].sql", effect.sql)
            out += _borrowed_stamps(site, f"$.markers[{m}].effects[{e}].sql", effect.sql, marker)
            out += _stamps(site, f"$.markers[{m}].effects[{e}].sql", effect.table, effect.sql)
            out += _marker_named_value(site, m, e)
            out += _swapped_values(f"$.markers[{m}].effects[{e}].sql", effect.sql, marker)
            out += _scaled_counter(f"$.markers[{m}].effects[{e}].sql", effect.sql, marker)
            out += _counted_through(site, f"$.markers[{m}].effects[{e}].sql", effect.sql, effect.table)
            out += _replaced_counts(f"$.markers[{m}].effects[{e}].sql", marker, e)
            out += _doubled_keys(site, f"$.markers[{m}].effects[{e}].sql", effect.sql, effect.table)
            out += _misdirected_sets(site, f"$.markers[{m}].effects[{e}].sql", effect.sql, effect.table)
            out += mismatched_keys(site, f"$.markers[{m}].effects[{e}].sql", effect.sql)
            out += misspelt_sql(f"$.markers[{m}].effects[{e}].sql", effect.sql, domains)
            out += today_typos(site, f"$.markers[{m}].effects[{e}].sql", effect.sql, in_marker=True)
            out += wall_clock(f"$.markers[{m}].effects[{e}].sql", effect.sql, in_effect=True)
            out += _text_truths(site, f"$.markers[{m}].effects[{e}].sql", effect.sql)
            out += _unscoped_subqueries(site, f"$.markers[{m}].effects[{e}].sql", effect.sql)
            out += _found_by_new_value(site, f"$.markers[{m}].effects[{e}].sql", effect.sql, marker, effect.table)
            out += _date_differences(site, f"$.markers[{m}].effects[{e}].sql", effect.sql)
            write = parse_effect(marker.name, effect.op, effect.table, effect.sql)
            out += _clipped_params(f"$.markers[{m}].effects[{e}].sql", effect, marker, write)
            out += _ignored_params(f"$.markers[{m}].effects[{e}].sql", effect, marker, write)
            out += _ranged_keys(site, f"$.markers[{m}].effects[{e}].sql", effect, marker)
            out += _widened_picks(site, f"$.markers[{m}].effects[{e}].sql", effect, marker)
            out += _multiplied_inserts(site, f"$.markers[{m}].effects[{e}].sql", effect, marker)
            out += _narrowed_numbering(site, f"$.markers[{m}].effects[{e}].sql", effect, marker)
        for kind in ("preconditions", "invariants"):
            for k, guard in enumerate(getattr(marker, kind)):
                sql = getattr(guard.predicate, "sql", None)
                if isinstance(sql, str):
                    where = f"$.markers[{m}].{kind}[{k}].predicate.sql"
                    out += [*wall_clock(where, sql, in_effect=False), *always_existing(where, sql),
                            *worded_results(where, sql), *_text_truths(site, where, sql)]
        for k, guard in enumerate(marker.preconditions):
            sql = getattr(guard.predicate, "sql", None)
            if isinstance(sql, str):
                out += mismatched_keys(site, f"$.markers[{m}].preconditions[{k}].predicate.sql", sql)
                out += _misread_days(site, f"$.markers[{m}].preconditions[{k}].predicate.sql", sql, guard.message)
                out += _null_blind_tests(site, f"$.markers[{m}].preconditions[{k}].predicate.sql", sql)
                out += _narrowed_existence(site, f"$.markers[{m}].preconditions[{k}].predicate.sql", sql, guard.message)
        for k, guard in enumerate(marker.invariants):
            sql = getattr(guard.predicate, "sql", None)
            if isinstance(sql, str):
                out += _unscoped_caps(site, f"$.markers[{m}].invariants[{k}].predicate.sql", sql, guard.message)
                out += _spared_rows(site, f"$.markers[{m}].invariants[{k}].predicate.sql", sql, marker, guard)
    out += misspelt_writes(site, domains)
    out += misdeclared_effects(site)
    out += borrowed_numbers(site)
    out += unheld_effect_tests(site, domains)
    out += disagreeing_view_cutoffs(site)
    from veriweb.verify.checks_params import (narrowed_sweeps, null_only_writes, reset_tallies, silent_flags, timed_days,
                                              unset_flags)

    marker_rules = (
        (narrowed_sweeps, "deletes every such row but only where {column} is set one way, which nothing it says "
                          "mentions: the rest stay"),
        (silent_flags, "also sets {column}, the flag another marker is named for, though nothing it says mentions it: "
                       "every use quietly changes it"),
        (unset_flags, "changes the row but leaves {column}, the flag for what it does, as it was: the change never "
                      "shows as made"),
        (null_only_writes, "writes {column} only when it is empty: it never writes a value"),
        (reset_tallies, "sets {column} to a fixed number, while other markers keep it as a running tally: every use "
                        "wipes what it counted"),
        (timed_days, "writes the date and time (:now) into {column}, where every row holds a day: the row is not "
                     "today's for anything that compares days"),
    )
    for finder, says in marker_rules:
        out += [Fix(location, f"marker {marker!r} " + says.format(column=column), old, new)
                for location, marker, column, old, new in finder(site)]
    out += _fixed_toggles(site)
    out += _misordered_effects(site)
    out += _copied_user_columns(site)
    out += _empty_figures(site)
    return out


@contextlib.contextmanager
def seeded(site: Site) -> Iterator[Any]:
    """The connection to the engine's database of ``site`` as seeded (``None`` if the engine cannot
    load it), closed when the block ends."""
    from veriweb.engine.database import Database

    try:
        db = Database.build(site, today=site.clock.today.isoformat(),
                            now_fn=lambda: f"{site.clock.today.isoformat()}T{site.clock.start_time}")
    except Exception:  # noqa: BLE001 - a site the engine cannot load: other checks say why
        yield None
        return
    try:
        yield db.conn
    finally:
        db.conn.close()


_NUMBER_TEXT = re.compile(r"-?\d+(?:\.\d+)?")


def _text_orders(site: Site) -> Iterator[C.Issue]:
    """M004: a task's query orders rows by a column that holds numbers written as text ("120.99" sorts
    before "22.99"): the first row it picks is not the least one. When the table has a number column
    whose name starts the text column's ("price" for "price_input"), that is the one to order by."""
    from veriweb.verify.checks_tasks import _picked_queries

    found = [(f"{path}.order_by[{k}].column", query.table, order.column)
             for number, task in enumerate(site.tasks)
             for part in ("goal", "answer", "progress", "constraints")
             for query, path in _picked_queries(getattr(task, part), f"$.tasks[{number}].{part}")
             for k, order in enumerate(query.order_by)]
    if not found:
        return
    views = {v.name for v in site.database.views}
    typed = {(t.name, c.name): c.type for t in site.database.tables for c in t.columns}
    retyped = {(t.name, c) for t in site.database.tables for c in C._numbers_as_text(t)}  # M004 at the column
    found = [f for f in found if f[1] in views or typed.get((f[1], f[2])) == "text" and f[1:] not in retyped]
    if not found:
        return
    with seeded(site) as conn:
        if conn is None:
            return
        for location, table, column in found:
            try:
                cursor = conn.execute(f'SELECT * FROM "{table}" LIMIT 0')
                names = [d[0] for d in cursor.description]
                values = [v for v, in conn.execute(f'SELECT "{column}" FROM "{table}"') if v is not None]
            except Exception:  # noqa: BLE001 - a table or column that is not there: other checks say why
                continue
            texts = sorted({v for v in values if isinstance(v, str)})
            if len(texts) < 2 or len(texts) != len(set(values)) or not all(_NUMBER_TEXT.fullmatch(v) for v in texts) \
                    or texts == sorted(texts, key=float):
                continue
            usual = next((n for n in names if n != column and column.startswith(n) and {
                kind for kind, in conn.execute(f'SELECT DISTINCT typeof("{n}") FROM "{table}"')} <= {
                "integer", "real"}), None)  # "price" for "price_input": the number the text was made from
            yield C.Issue("semantic", C.WRONG_TYPE, location,
                          f"orders {table} by {column}, numbers written as text ({texts[0]!r} sorts before "
                          f"{sorted(texts, key=float)[0]!r}): the first row is not the least"
                          + (f"; it should order by {usual}" if usual else ""))


_SUM = re.compile(r"\bsum\s*\(", re.I)
_GUARDED = re.compile(r"\b(?:coalesce|ifnull)\s*\(\s*$", re.I)


def _bare_sums(expr: str) -> list[tuple[int, int]]:
    """The spans of ``expr`` an aggregate can leave empty (NULL) unguarded: each ``(SELECT sum(...) ...)``
    subquery, or a bare ``sum(...)``, that no ``coalesce(`` or ``ifnull(`` wraps."""
    spans: list[tuple[int, int]] = []
    for found in _SUM.finditer(expr):
        start = found.start()
        depth, opened = 0, None
        for index in range(start - 1, -1, -1):  # the parenthesis around it: a subquery's, if it is in one
            if expr[index] == ")":
                depth += 1
            elif expr[index] == "(":
                if depth == 0:
                    opened = index
                    break
                depth -= 1
        if opened is not None and re.match(r"\(\s*SELECT\b", expr[opened:], re.I):
            start = opened
        elif opened is not None and _GUARDED.search(expr[:opened + 1]):
            continue  # coalesce(sum(...), 0)
        if _GUARDED.search(expr[:start]):
            continue
        opening = start if expr[start] == "(" else expr.index("(", start)
        close = closing_paren(expr, opening)
        if close is not None and (start, close + 1) not in spans and not any(a <= start < b for a, b in spans):
            spans.append((start, close + 1))
    return spans


def _empty_sums(expr: str, sql: str) -> list[tuple[int, int]]:
    """The spans of :func:`_bare_sums` that can sum over no rows: a subquery, or a sum in a view with a
    ``LEFT JOIN`` (a group of no matches). A plain grouped sum is NULL only over NULL values, which the
    value checks report where they are."""
    left = re.search(r"\bLEFT\s+(?:OUTER\s+)?JOIN\b", sql, re.I) is not None
    return [(a, b) for a, b in _bare_sums(expr) if left or expr[a:b].lstrip("( \n").upper().startswith("SELECT")]


_SIMPLE_CASE = re.compile(r"(?is)^\s*CASE\s+(?!WHEN\b)([\w.]+)\s+(WHEN\b.*)\bEND\s*$")


def _case_without_else(expr: str) -> str | None:
    """For ``CASE x WHEN 0 THEN 'Nonstop' WHEN 1 THEN '1 stop' END`` (no ``ELSE``: NULL for every other
    ``x``), the same with an ``ELSE`` that says the rest the way the branches do (``x || ' stops'``,
    else ``x`` itself); ``None`` for any other expression."""
    found = _SIMPLE_CASE.match(expr)
    if found is None or _top_keyword(found.group(2), "ELSE") >= 0:
        return None
    operand = found.group(1)
    counted = re.findall(r"\bWHEN\s+(\d+)\s+THEN\s+'\1\s+([A-Za-z]+)'", found.group(2), re.I)
    tail = f" || ' {counted[-1][1]}s'" if counted and not counted[-1][1].endswith("s") else ""
    return f"{expr.rstrip()[:-3].rstrip()} ELSE {operand}{tail} END"


def _empty_figures(site: Site) -> Iterator[Fix]:
    """A view's figure left NULL for some rows and not others: an aggregate over no rows (a user's karma
    adding the scores of posts they never wrote), or a ``CASE`` without ``ELSE`` (a flight's "2 stops"
    when the branches say only "Nonstop" and "1 stop"): the page shows nothing where the figure belongs.
    The fix makes each empty aggregate 0, or gives the ``CASE`` an ``ELSE`` worded like its branches."""
    candidates = [(number, view, [(e, a) for e, a in _select_items(view.sql) or []
                                  if _empty_sums(e, view.sql) or _case_without_else(e)])
                  for number, view in enumerate(site.database.views)]
    candidates = [found for found in candidates if found[2]]
    if not candidates:
        return
    with seeded(site) as conn:
        if conn is None:
            return
        for number, view, wanted in candidates:
            try:
                rows = conn.execute(f'SELECT {", ".join(chr(34) + a + chr(34) for _, a in wanted)} '
                                       f'FROM "{view.name}"').fetchall()
            except Exception:  # noqa: BLE001 - a view that does not run: the schema checks say why
                continue
            for column, (expr, alias) in enumerate(wanted):
                values = [row[column] for row in rows]
                empty = sum(v is None for v in values)
                if not empty or empty == len(values):
                    continue
                worded = _case_without_else(expr)
                if worded is not None:
                    yield Fix(f"$.database.views[{number}].sql",
                              f"view {view.name!r} leaves {alias} empty (NULL) for {empty} of {len(values)} rows: its "
                              f"CASE has no ELSE, so every value its branches do not name gives nothing; the page "
                              f"shows nothing where the words belong", view.sql, view.sql.replace(expr, worded, 1))
                    continue
                if not all(isinstance(v, int | float) for v in values if v is not None):
                    continue
                fixed = expr
                for start, end in reversed(_empty_sums(expr, view.sql)):
                    fixed = f"{fixed[:start]}coalesce({fixed[start:end]}, 0){fixed[end:]}"
                yield Fix(f"$.database.views[{number}].sql",
                          f"view {view.name!r} leaves {alias} empty (NULL) for {empty} of {len(values)} rows: an "
                          f"aggregate over no rows is NULL, not 0, and so is anything added to it; the page shows "
                          f"nothing where the number belongs", view.sql, view.sql.replace(expr, fixed, 1))


def check_view_figures(site: Site) -> list[C.Issue]:
    """C013: a view (or an effect) that computes a figure its own name or the site's other SQL
    contradicts (see the module docstring)."""
    seen: set[str] = set()
    issues = []
    for fix in view_fixes(site):
        if fix.location in seen:
            continue  # one finding per place: the repair fixes them one round at a time
        seen.add(fix.location)
        issues.append(C.Issue("consistency", VIEW_FIGURE, fix.location, fix.message))
    return issues


def recreating_updates(site: Site) -> Iterator[tuple[int, str, str]]:
    """Each marker that changes a row by deleting it and inserting a new one without its key (``DELETE FROM
    contacts WHERE id = :contact_id ...`` then ``INSERT INTO contacts (...) VALUES (...)``): every save gives
    the record a new key, so links to it and tasks naming it by key break. The marker's index, the table,
    and the ``UPDATE`` that changes the row in place."""
    from veriweb.verify.dataflow import _INSERT

    for m_index, marker in enumerate(site.markers):
        if len(marker.effects) != 2 or [e.op for e in marker.effects] != ["delete", "insert"]:
            continue
        gone, made = marker.effects
        table = site.database.table(gone.table)
        deleted = re.fullmatch(r"\s*DELETE\s+FROM\s+(\w+)\s+(WHERE\s+.+?)\s*", gone.sql, re.I | re.S)
        inserted = _INSERT.match(made.sql)
        if table is None or made.table != gone.table or deleted is None or inserted is None:
            continue
        if not re.search(rf"\b{re.escape(table.primary_key)}\s*=\s*:\w+", deleted.group(2)):
            continue  # not one row picked by its key: a replace of many rows is another thing
        columns = [c.strip().strip('"') for c in inserted.group(3).split(",")]
        rest = inserted.group(4).strip()
        if table.primary_key in columns or not rest.upper().startswith("VALUES"):
            continue
        values = split_top(rest[len("VALUES"):].strip()[1:-1])
        if len(values) != len(columns):
            continue
        sets = ", ".join(f"{c} = {v}" for c, v in zip(columns, values))
        yield m_index, table.name, f"UPDATE {table.name} SET {sets} {deleted.group(2)}"


def kept_baskets(site: Site) -> Iterator[tuple[int, str, str]]:
    """Each marker that makes a record (an order) and copies the signed-in user's rows of another table into
    its lines (``INSERT INTO order_items ... SELECT ... FROM cart_items c WHERE c.user_id = :user_id``) but
    never empties that table: after checking out, the basket still holds everything, and the next press
    places the same order again. The marker's index, the basket table, and the ``DELETE`` that empties it."""
    auth = site.auth.table if site.auth else None
    for m_index, marker in enumerate(site.markers):
        made = {e.table for e in marker.effects if e.op == "insert"}
        if not marker.requires_login or len(made) < 2:
            continue
        for effect in marker.effects:
            inserted = _INSERT.match(effect.sql) if effect.op == "insert" else None
            select = inserted.group(4) if inserted else ""
            main = _main_from(select) if select[:6].upper() == "SELECT" else None
            table = site.database.table(main[0]) if main is not None else None
            if table is None or table.name in made or table.name == auth:
                continue
            where = _top_keyword(select, "WHERE")
            owner = re.search(rf"\b{re.escape(main[1])}\.(\w+)\s*=\s*:user_id\b|(?<![.\w])(\w+)\s*=\s*:user_id\b",
                              select[where:]) if where >= 0 else None
            column = owner and (owner.group(1) or (owner.group(2) if main[1] == main[0] else None))
            if not column or table.column(column) is None:
                continue
            if any(e.table == table.name for e in marker.effects if e.op in ("delete", "update")):
                continue
            yield m_index, table.name, f"DELETE FROM {table.name} WHERE {column} = :user_id"
            break


def check_kept_baskets(site: Site) -> list[C.Issue]:
    """C013: see :func:`kept_baskets`. The repair empties the basket after the copy."""
    return [C.Issue("consistency", VIEW_FIGURE, f"$.markers[{m_index}].effects",
                    f"marker {site.markers[m_index].name!r} copies the user's {basket} rows into a new record but "
                    f"never empties {basket}: everything stays there after it, and the next use makes the same record "
                    f"again; it should empty {basket}")
            for m_index, basket, _ in kept_baskets(site)]


def check_recreating_updates(site: Site) -> list[C.Issue]:
    """C013: see :func:`recreating_updates`. The repair changes the row in place."""
    return [C.Issue("consistency", VIEW_FIGURE, f"$.markers[{m_index}].effects",
                    f"marker {site.markers[m_index].name!r} changes a {table} row by deleting it and adding a new one: "
                    f"every save gives it a new key, and links to it break; it should update it in place")
            for m_index, table, _ in recreating_updates(site)]


def check_text_orders(site: Site) -> list[C.Issue]:
    """M004: see :func:`_text_orders`."""
    return list(_text_orders(site))


VIEW_CHECKS = [check_view_figures, check_text_orders, check_recreating_updates, check_kept_baskets]

__all__ = ["VIEW_CHECKS", "VIEW_FIGURE", "Fix", "check_view_figures", "column_values", "view_fixes"]

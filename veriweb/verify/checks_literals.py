"""Checks of the literal values SQL writes or compares with: misspellings of the data's values, and today written with another year (C013).

Pure functions of the scaffold, gathered by :func:`veriweb.verify.checks_views.view_fixes`, each
yielding :class:`veriweb.verify.checks_views.Fix` findings with the SQL that fixes them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
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


# ----------------------------------------------------------------------------- today written with another year

_DAY_LITERAL = re.compile(r"'(\d{4})-(\d{2})(?:-(\d{2}))?(T\d{2}:\d{2}(?::\d{2})?)?'")


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


__all__ = ["literal_writes", "misspelt_sql", "misspelt_writes", "today_typos"]

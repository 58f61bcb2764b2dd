"""Checks of what markers accept against what the site gives them: parameters, guards' references, fixed
arguments and the records their forms sit in.

Each rule reads a marker's declared parameters against evidence elsewhere in the site, and says nothing
where there is none:

- S013: a parameter typed for whole numbers that writes a money column (or a real one whose seed values
  have fractions): the form pre-filled with 69.99 is refused. The repair gives it the column's type.
- S012: a guard reading a parameter (``param.forum``) its marker does not take: the value is always
  missing, so the guard never passes (or never blocks). The repair reads the parameter whose name is
  closest. And a guard's SQL reading a name nothing binds (``:flight_id`` with no such entry in its
  ``params``): the query fails. The repair binds it to the marker's parameter of that name. And a guard
  looking up another table's row by the signed-in user's id (the product whose id is the user's); the
  repair reads the marker's key of that table.
- C013: a marker writing the date and time (``:now``) into a column every seed row of which holds a bare
  day: the row is not "today's" for any filter or page that compares days. The repair writes ``:today``.
- C012: a parameter's shortest or longest length that most of the seed values of the column it writes
  break (reviews of 14 characters where ``min_length`` is 30), or its range that many break (a price
  capped at $150 where dearer products sell): the site's own data could not have been written through
  it. The repair allows the seed values' extreme.
- S013: a form sending a fixed argument (the "-1" button's ``value``) its marker refuses (outside the
  parameter's range or choices). The repair sends the nearest value it accepts.
- S004: a form inside a record that shows only rows in states (``status = 'pending'``) its marker's
  guard refuses (refunds only of processing, shipped or complete orders): the form is never usable. The
  repair shows the form for the states the guard accepts.
- S015: a record reached by a key in the address that shows anyone's row where every other list of the
  same rows shows only the signed-in user's. The repair shows only the user's.
- S011: a form redirecting with the key of the row its marker adds to another table's page. The repair
  opens the page of that row, or stays put.
- S004: a form field named for a parameter of its marker that the form never sends. The repair sends it.
- S004: a record showing an owner-only form where the row's owner is not the user. The repair shows it to
  the owner.
- C005: an edit setting a running tally to a fixed number (``score = 1``). The repair drops the assignment.
- C009: a guard run after the write that refuses a count left at zero (``seats <= 0``): the last unit can
  never be had. The repair refuses only a count below zero.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from veriweb.engine.markers import coerce
from veriweb.scaffold import Site
from veriweb.scaffold.values import Compare, Ref, SqlPredicate
from veriweb.verify import checks as C
from veriweb.verify import dataflow


def _param_writes(site: Site) -> Iterator[tuple[int, Any, int, Any, str, str]]:
    """Each marker parameter written as it is into a column: marker index, marker, parameter index,
    parameter, table, column."""
    markers = {m.name: (n, m) for n, m in enumerate(site.markers)}
    for write in dataflow.site_writes(site):
        index, marker = markers.get(write.marker, (None, None))
        if marker is None:
            continue
        for column, source in write.sources.items():
            if source.kind == "param":
                p_index = next((n for n, p in enumerate(marker.params) if p.name == source.value), None)
                if p_index is not None:
                    yield index, marker, p_index, marker.params[p_index], write.table, column


# ----------------------------------------------------------------------------- S013: whole numbers for cents


def whole_money_params(site: Site) -> Iterator[tuple[str, str, str, str]]:
    """Each integer parameter written as it is into a money column, or a real one whose seed values have
    fractions: path of its type, ``marker.param``, ``table.column``, and the column's type."""
    seen = set()
    for m_index, marker, p_index, param, table_name, column in _param_writes(site):
        table = site.database.table(table_name)
        declared = table.column(column) if table is not None else None
        if param.type != "integer" or declared is None or declared.type not in ("money", "real"):
            continue
        location = f"$.markers[{m_index}].params[{p_index}].type"
        if location not in seen and (declared.type == "money" or any(
                isinstance(v := r.get(column), float) and v != int(v) for r in table.rows)):
            seen.add(location)
            yield location, f"{marker.name}.{param.name}", f"{table_name}.{column}", declared.type


def check_whole_money_params(site: Site) -> list[C.Issue]:
    """S013: see :func:`whole_money_params`."""
    return [C.Issue("structural", C.FIELD_TYPE, location,
                    f"{param} takes whole numbers, but it writes {column}, which holds "
                    f"{'amounts of money (69.99 is refused, and 70 is stored as 70 cents)' if kind == 'money' else 'fractions'}; "
                    f"its type should be the column's, which is {kind}")
            for location, param, column, kind in whole_money_params(site)]


# ----------------------------------------------------------------------------- S012: a guard reading no parameter


def _guard_refs(marker: Any, m_index: int) -> Iterator[tuple[str, str]]:
    """Each ``param.X`` a guard of ``marker`` reads: the path of the reference, and X."""
    for kind in ("preconditions", "invariants"):
        for index, guard in enumerate(getattr(marker, kind)):
            predicate, where = guard.predicate, f"$.markers[{m_index}].{kind}[{index}].predicate"
            if isinstance(predicate, SqlPredicate):
                for name, value in predicate.params.items():
                    if isinstance(value, Ref) and value.namespace == "param":
                        yield f"{where}.params.{name}", value.name
            elif isinstance(predicate, Compare):
                for side in ("left", "right"):
                    value = getattr(predicate, side)
                    if isinstance(value, Ref) and value.namespace == "param":
                        yield f"{where}.{side}", value.name


def unknown_guard_params(site: Site) -> Iterator[tuple[str, str, str, str | None]]:
    """Each guard's reference to a parameter its marker does not take: path, marker, the name read, and
    the parameter closest to it (``None``: none is close)."""
    from difflib import get_close_matches

    for m_index, marker in enumerate(site.markers):
        taken = [p.name for p in marker.params]
        for location, name in _guard_refs(marker, m_index):
            if name in taken:
                continue
            near = [p for p in taken if p.startswith(name) or name.startswith(p)]
            near = near or get_close_matches(name, taken, n=1, cutoff=0.6)
            yield location, marker.name, name, near[0] if len(near) == 1 else None


def unbound_guard_names(site: Site) -> Iterator[tuple[str, str, str, bool]]:
    """Each ``:name`` a guard's SQL reads that nothing binds (neither its ``params`` nor the engine, which
    binds ``:user_id`` and ``:today``): the query fails, so the guard never passes. Path of the SQL, the
    marker, the name, and whether the marker takes a parameter of that name."""
    for m_index, marker in enumerate(site.markers):
        for kind in ("preconditions", "invariants"):
            for index, guard in enumerate(getattr(marker, kind)):
                predicate = guard.predicate
                if not isinstance(predicate, SqlPredicate):
                    continue
                text = re.sub(r"'(?:[^']|'')*'", "''", predicate.sql)  # no names inside quoted text
                for name in dict.fromkeys(re.findall(r"(?<![:\w]):([A-Za-z_]\w*)", text)):
                    if name not in predicate.params and name not in ("user_id", "today"):
                        yield (f"$.markers[{m_index}].{kind}[{index}].predicate.sql", marker.name, name,
                               any(p.name == name for p in marker.params))


def misbound_user_keys(site: Site) -> Iterator[tuple[str, str, str, str]]:
    """Each guard parameter bound to the signed-in user's id (``user.id``) that the SQL compares with the key
    of another table than the accounts' (``products WHERE id = :p``), where the marker takes the key of
    that table (``product_id``): the guard looks at the product whose id is the user's. Path of the
    binding, marker, table, and the parameter it should read."""
    accounts = site.auth.table if site.auth is not None else "users"
    for m_index, marker in enumerate(site.markers):
        taken = {p.name for p in marker.params}
        for kind in ("preconditions", "invariants"):
            for index, guard in enumerate(getattr(marker, kind)):
                predicate = guard.predicate
                if not isinstance(predicate, SqlPredicate):
                    continue
                for name, value in predicate.params.items():
                    if not (isinstance(value, Ref) and value.ref == "user.id"):
                        continue
                    for found in re.finditer(rf"\bFROM\s+(\w+)(?:\s+(?:AS\s+)?(\w+))?\s+WHERE\s+(?:(\w+)\.)?id\s*=\s*:{name}\b",
                                             predicate.sql, re.I):
                        table = found.group(1)
                        key = f"{table[:-1] if table.endswith('s') else table}_id"
                        if table != accounts and key in taken:
                            yield (f"$.markers[{m_index}].{kind}[{index}].predicate.params.{name}", marker.name, table, key)


def check_unknown_guard_params(site: Site) -> list[C.Issue]:
    """S012: see :func:`unknown_guard_params` and :func:`unbound_guard_names`."""
    issues = [C.Issue("structural", C.UNBOUND_REFERENCE, location,
                      f"a check of marker {marker!r} reads param.{name}, which the marker does not take: the value is "
                      f"always missing" + (f"; it should read param.{near}" if near else ""))
              for location, marker, name, near in unknown_guard_params(site)]
    issues += [C.Issue("structural", C.UNBOUND_REFERENCE, location,
                       f"a check of marker {marker!r} looks up the {table} row whose id is the signed-in user's: the "
                       f"user's id is no {table} key; it should read param.{key}")
               for location, marker, table, key in misbound_user_keys(site)]
    issues += [C.Issue("structural", C.UNBOUND_REFERENCE, location,
                       f"a check of marker {marker!r} reads :{name}, which nothing binds (only its params, :user_id "
                       f"and :today are): the check fails whatever is asked"
                       + (f"; it should bind {name} to param.{name}" if taken else ""))
               for location, marker, name, taken in unbound_guard_names(site)]
    return issues


# ----------------------------------------------------------------------------- C013: the time written for a day


def timed_days(site: Site) -> Iterator[tuple[str, str, str, str, str]]:
    """Each marker effect writing ``:now`` into a column every seed row of which holds a bare day
    (``2026-06-15``): path of the effect's SQL, marker, ``table.column``, the SQL, and the SQL with
    ``:today`` (gathered by :func:`veriweb.verify.checks_views.view_fixes`)."""
    for m_index, marker in enumerate(site.markers):
        for e_index, effect in enumerate(marker.effects):
            if ":now" not in effect.sql or effect.op not in ("insert", "update"):
                continue
            write = dataflow.parse_effect(marker.name, effect.op, effect.table, effect.sql)
            table = site.database.table(effect.table)
            if table is None:
                continue
            for column, source in write.sources.items():
                values = [r.get(column) for r in table.rows if r.get(column) is not None]
                if source.kind == "param" and source.value == "now" and values and all(
                        isinstance(v, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", v) for v in values):
                    fixed = _today_for(effect.sql, column, effect.op)
                    if fixed is not None:
                        yield (f"$.markers[{m_index}].effects[{e_index}].sql", marker.name, f"{effect.table}.{column}",
                               effect.sql, fixed)


def _today_for(sql: str, column: str, op: str) -> str | None:
    """``sql`` with the ``:now`` it writes into ``column`` written as ``:today``."""
    if op == "update":
        fixed = re.sub(rf"(\b{re.escape(column)}\s*=\s*):now\b", r"\1:today", sql, count=1)
        return fixed if fixed != sql else None
    if sql.count(":now") == 1:
        return sql.replace(":now", ":today")
    return None


def null_only_writes(site: Site) -> Iterator[tuple[str, str, str, str, str]]:
    """Each insert that writes a parameter into a column only when the parameter is empty (``... :label_id
    WHERE :label_id IS NULL``): it never writes a value, only the missing one. Path of the effect's SQL,
    marker, parameter, the SQL, and the SQL writing it when it is given (gathered by
    :func:`veriweb.verify.checks_views.view_fixes`)."""
    for m_index, marker in enumerate(site.markers):
        for e_index, effect in enumerate(marker.effects):
            if effect.op != "insert":
                continue
            written = {str(s.value) for s in dataflow.parse_effect(marker.name, effect.op, effect.table, effect.sql).sources.values()
                       if s.kind == "param"}
            for found in re.finditer(r":(\w+)\s+IS\s+NULL\b", effect.sql, re.I):
                if found.group(1) in written and found.group(1) not in ("user_id", "today", "now"):
                    fixed = effect.sql[:found.start()] + f":{found.group(1)} IS NOT NULL" + effect.sql[found.end():]
                    yield (f"$.markers[{m_index}].effects[{e_index}].sql", marker.name, found.group(1), effect.sql, fixed)
                    break


# ----------------------------------------------------------------------------- C012: lengths the seed data breaks


def strict_lengths(site: Site) -> Iterator[tuple[str, str, str, Any, Any, int, int]]:
    """Each parameter's ``min_length`` (``max_length``) that most seed values of the column it writes fall
    below (go past), or ``min`` (``max``) that three or more and a tenth of them do (a price capped at
    $150 where dearer products sell): path of the bound, ``marker.param``, ``table.column``, the bound, the
    seed values' extreme (in the parameter's units: dollars for money), how many break it, and how many
    there are. One or two seed values out of a numeric range are the seed's fault (C012,
    :func:`veriweb.verify.checks_data.check_seed_ranges`)."""
    seen = set()
    for m_index, marker, p_index, param, table_name, column in _param_writes(site):
        table = site.database.table(table_name)
        declared = table.column(column) if table is not None else None
        if table is None or declared is None:
            continue
        texts = [v for r in table.rows if isinstance(v := r.get(column), str)]
        numbers = [v / 100 if declared.type == "money" else v for r in table.rows
                   if isinstance(v := r.get(column), (int, float)) and not isinstance(v, bool)]
        rules = [("min_length", texts, lambda v, n: len(v) < n, lambda vs: min(len(v) for v in vs), 0.5),
                 ("max_length", texts, lambda v, n: len(v) > n, lambda vs: max(len(v) for v in vs), 0.5)]
        if param.type in ("integer", "real", "money"):
            rules += [("min", numbers, lambda v, n: v < n, min, 0.1), ("max", numbers, lambda v, n: v > n, max, 0.1)]
        for bound, values, breaks, extreme, share in rules:
            limit = getattr(param, bound)
            location = f"$.markers[{m_index}].params[{p_index}].{bound}"
            if limit is None or location in seen or len(values) < 3:
                continue
            broken = [v for v in values if breaks(v, limit)]
            if len(broken) > share * len(values) and len(broken) >= 3:
                seen.add(location)
                yield (location, f"{marker.name}.{param.name}", f"{table_name}.{column}", limit,
                       extreme(values), len(broken), len(values))


# ----------------------------------------------------------------------------- S013: a fixed argument refused


def refused_arguments(site: Site) -> Iterator[tuple[str, str, Any, str, Any]]:
    """Each fixed argument a form sends that its marker refuses: path of the argument, the form's
    button, the value, why, and the nearest value the parameter accepts (``None``: none is known)."""
    for element, path, _ in C.all_elements(site):
        action = C.field_of(element, "action")
        marker = site.marker(action.marker) if getattr(action, "kind", "") == "marker" else None
        if marker is None:
            continue
        for name, value in action.args.items():
            param = next((p for p in marker.params if p.name == name), None)
            if param is None or value is None or isinstance(value, (Ref, dict)) or not isinstance(value, (int, float, str)):
                continue
            try:
                coerce(param, str(value))
            except ValueError as exc:
                yield f"{path}.action.args.{name}", str(element.submit or ""), value, str(exc), _nearest(param, value)


def _nearest(param: Any, value: Any) -> Any:
    """The value ``param`` accepts nearest to ``value``: a number moved inside its range, a choice
    differing only in case."""
    if isinstance(value, (int, float)) and param.type in ("integer", "real", "money"):
        low = param.min if param.min is not None else value
        high = param.max if param.max is not None else value
        near = min(max(value, low), high)
        return int(near) if param.type == "integer" else near
    if isinstance(value, str) and param.choices:
        same = [c for c in param.choices if c.casefold() == value.casefold()]
        return same[0] if len(same) == 1 else None
    return None


# ----------------------------------------------------------------------------- S004: a form for states it refuses


_STATE_TEST = re.compile(r"\b(\w+)\s+(?:IN\s*\(([^()]*)\)|=\s*('[^']*'))", re.I)


def _accepted(sql: str, column: str) -> set[str] | None:
    """The values of ``column`` a guard's SQL keeps (``status IN ('a', 'b')``, ``status = 'a'``), if it
    tests the column once and positively."""
    found = [m for m in _STATE_TEST.finditer(sql) if m.group(1) == column]
    if len(found) != 1 or re.search(rf"\bNOT\s+(?:\w+\.)?{re.escape(column)}\b|{re.escape(column)}\s+NOT\s+IN", sql, re.I):
        return None
    listed = found[0].group(2) if found[0].group(2) is not None else found[0].group(3)
    return set(re.findall(r"'([^']*)'", listed))


def _tests_around_forms(site: Site) -> Iterator[tuple[str, Any, str]]:
    """Each test of a record or list around a form posting to a marker: the test's path, the test and the
    form's marker (the form shows only for the rows the test keeps)."""
    holders: list[tuple[str, Any]] = []
    for element, path, _ in C.all_elements(site):  # in document order: a holder comes before what it holds
        if element.type in ("record", "list"):
            holders.append((path, element))
        action = C.field_of(element, "action")
        if element.type != "form" or getattr(action, "kind", "") != "marker":
            continue
        for holder_path, holder in holders:
            if path.startswith(holder_path + "."):
                for index, cond in enumerate(holder.query.where or []):
                    yield f"{holder_path}.query.where[{index}]", cond, action.marker


def unusable_forms(site: Site) -> Iterator[tuple[str, str, str, str, list[str], list[str]]]:
    """Each test of a record (or list) that keeps only rows in states the guard of a form inside it
    refuses: path of the test, the marker, its guard's message, the column, the states shown, and those
    the guard accepts."""
    from veriweb.verify.checks_guards import _sql_guards

    guards: dict[str, list[tuple[str, str]]] = {}
    for _, marker, guard, sql in _sql_guards(site):
        guards.setdefault(marker.name, []).append((sql, guard.message))
    for location, cond, marker in _tests_around_forms(site):
        shown = [cond.value] if cond.op == "=" and isinstance(cond.value, str) else (
            list(cond.value) if cond.op == "in" and isinstance(cond.value, list) else None)
        if not shown:
            continue
        for sql, message in guards.get(marker, []):
            accepted = _accepted(sql, cond.column)
            if accepted and not accepted & set(shown):
                yield location, marker, message, cond.column, shown, sorted(accepted)


def check_unusable_forms(site: Site) -> list[C.Issue]:
    """S004: see :func:`unusable_forms`, :func:`inverted_owner_tests` and :func:`unsent_fields`."""
    seen, issues = set(), []
    for location, marker, name in unsent_fields(site):
        issues.append(C.Issue("structural", C.FIELD_MISMATCH, location,
                              f"the form's field {name!r} fills nothing: {marker!r} takes {name}, but the form never sends "
                              f"it; it should send field.{name} as {name}"))
    for location, marker, column in inverted_owner_tests(site):
        if location not in seen:
            seen.add(location)
            issues.append(C.Issue("structural", C.FIELD_MISMATCH, location,
                                  f"the form for {marker!r} is shown only where {column} is not the signed-in user, but "
                                  f"{marker!r} acts only on the user's own rows: the form always fails; it should be "
                                  f"shown where {column} is the user's"))
    for location, marker, message, column, shown, accepted in unusable_forms(site):
        if location in seen:
            continue
        seen.add(location)
        issues.append(C.Issue("structural", C.FIELD_MISMATCH, location,
                              f"the form for {marker!r} is shown only where {column} is {' or '.join(map(repr, shown))}, "
                              f"but its check {message!r} accepts only {', '.join(map(repr, accepted))}: the form always "
                              f"fails; it should be shown where {column} is one of those"))
    return issues


# ----------------------------------------------------------------------------- C009: the last unit refused


_STOCK_ZERO = re.compile(r"\b(seats|seats_left|stock|in_stock|inventory|rooms_left|spots|places|quantity_left)\s*<=\s*0\b")


def last_units_refused(site: Site) -> Iterator[tuple[str, str, str, str]]:
    """Each invariant (run after the write) refusing a count of what is left at zero (``seats <= 0``):
    path of the predicate, marker, the test, and the SQL refusing only a count below zero."""
    for m_index, marker in enumerate(site.markers):
        for index, guard in enumerate(marker.invariants):
            predicate = guard.predicate
            if isinstance(predicate, SqlPredicate) and re.search(r"\bNOT\s+EXISTS\b", predicate.sql, re.I):
                found = _STOCK_ZERO.search(predicate.sql)
                if found is not None:
                    fixed = predicate.sql[:found.start()] + f"{found.group(1)} < 0" + predicate.sql[found.end():]
                    yield f"$.markers[{m_index}].invariants[{index}].predicate", marker.name, found.group(0), fixed


def check_params(site: Site) -> list[C.Issue]:
    """C012 and S013 of this module (see the module docstring; its C013 and C009 findings are reported by
    :func:`veriweb.verify.checks_views.check_view_figures` and :func:`veriweb.verify.checks_guards.check_guards`,
    whose repairs write the SQL they give)."""
    issues = []
    for location, param, column, limit, extreme, broken, count in strict_lengths(site):
        bound = location.rsplit(".", 1)[1]
        said = (f"the {'shortest' if bound == 'min_length' else 'longest'} has {extreme} characters" if "length" in bound
                else f"the {'least' if bound == 'min' else 'most'} is {extreme:g}")
        issues.append(C.Issue("consistency", C.SEED_BREAKS_INVARIANT, location,
                              f"{param}'s {bound.replace('_', ' ')} is {limit:g}, but {broken} of the {count} values of "
                              f"{column} break it ({said}): the site's own data could not have been written through it; "
                              f"it should be {extreme:g}"))
    issues += [C.Issue("structural", C.FIELD_TYPE, location,
                       f"the form {button!r} sends {value!r}, which the marker refuses ({why})"
                       + (f"; it should send {near!r}" if near is not None else ""))
               for location, button, value, why, near in refused_arguments(site)]
    return issues


def unsent_fields(site: Site) -> Iterator[tuple[str, str, str]]:
    """Each form field named for a parameter of the form's marker that the form does not send at all (the
    "Checked bag" box of a booking form with no ``bag`` argument): whatever is filled in there is lost.
    Path of the form's arguments, the marker and the field."""
    for element, path, _ in C.all_elements(site):
        action = C.field_of(element, "action")
        marker = site.marker(action.marker) if element.type == "form" and getattr(action, "kind", "") == "marker" else None
        if marker is None:
            continue
        # a required one is reported by check_fields ("never supplies ..., which ... needs")
        taken = {p.name for p in marker.params if not p.required or p.type == "boolean"}
        sent = {v.name for v in action.args.values() if isinstance(v, Ref) and v.namespace == "field"}
        for field_el in element.fields:
            if field_el.name in taken and field_el.name not in action.args and field_el.name not in sent:
                yield f"{path}.action.args", marker.name, field_el.name


# ----------------------------------------------------------------------------- a record page showing anyone's rows


def _owner_column(site: Site, source: str) -> str | None:
    """The column of ``source`` (a table or a view) named for the row's owner (``user_id``...), if it has one;
    whether the site's lists compare it with the signed-in user is :func:`unowned_records`' to count."""
    from veriweb.verify.checks_pages import source_columns

    columns = source_columns(site, source) or set()
    return next((c for c in ("user_id", "owner_id", "customer_id", "account_id") if c in columns), None)


def unowned_records(site: Site) -> Iterator[tuple[str, str, str]]:
    """Each record on a page reached by a key in the address (``/message/{id}``) over a table or view
    whose every other list and record on the site (two at least) shows only the signed-in user's rows,
    while this one shows any row: anyone's message opens by its number. Path of the record, the source,
    and the owner column."""
    owned: dict[str, list[bool]] = {}  # source -> for each list or record over it: whether it keeps the user's
    records: list[tuple[str, str, Any]] = []
    for element, path, page_id in C.all_elements(site):
        if element.type not in ("list", "table", "record") or page_id is None:
            continue
        query = element.query
        column = _owner_column(site, query.table)
        if column is None or any(isinstance(c.value, Ref) and c.value.namespace == "row" for c in query.where):
            continue  # rows of a record around it: scoped by that record
        mine = any(c.column == column and isinstance(c.value, Ref) and c.value.ref == "user.id" for c in query.where)
        owned.setdefault(query.table, []).append(mine)
        keyed = any(isinstance(c.value, Ref) and c.value.namespace == "param" for c in query.where)
        if element.type == "record" and keyed and not mine:
            records.append((path, query.table, column))
    for path, source, column in records:
        others = owned[source]
        if sum(others) >= 2 and sum(others) == len(others) - 1:
            yield path, source, column


def check_unowned_records(site: Site) -> list[C.Issue]:
    """S015: see :func:`unowned_records`. The repair shows only the signed-in user's row."""
    return [C.Issue("structural", C.KEY_NAMES_NOTHING, location,
                    f"the record shows any {source} row by the key in the address, while every other list of them "
                    f"shows only the signed-in user's: anyone's opens by its number; it should offer those whose "
                    f"{column} is the user's")
            for location, source, column in unowned_records(site)]


# ----------------------------------------------------------------------------- a redirect to another table's page


def misdirected_results(site: Site) -> Iterator[tuple[str, str, str, str | None]]:
    """Each form redirecting to a page of one table's records with the key of the row its marker adds to
    another (``/flight/{result.id}`` after a booking): the page shows an unrelated record. Path of the
    redirect, the marker, the table it adds to, and the route of a page of that table's records
    (``None``: there is none)."""
    from veriweb.verify.checks_pages import base_column

    routes = C._routes(site)
    pages = {p.id: p for p in site.pages}
    cache: dict[Any, Any] = {}

    def shown_table(page: Any) -> str | None:
        top = next((e for e in page.elements if e.type == "record"), None)
        if top is None or not any(isinstance(c.value, Ref) and c.value.namespace == "param" for c in top.query.where):
            return None
        base = base_column(site, top.query.table, "id", cache)
        return base[0] if base is not None else None

    for element, path, _ in C.all_elements(site):
        action = C.field_of(element, "action")
        redirect = getattr(action, "redirect", None) if getattr(action, "kind", "") == "marker" else None
        marker = site.marker(action.marker) if redirect and "{result.id}" in redirect else None
        added = next((e.table for e in marker.effects if e.op == "insert"), None) if marker is not None else None
        target = pages.get(C.resolve_href(routes, redirect) or "") if added is not None else None
        shown = shown_table(target) if target is not None else None
        if shown is None or shown == added:
            continue
        own = next((p.route for p in site.pages if shown_table(p) == added and len(re.findall(r"\{", p.route)) == 1), None)
        yield f"{path}.action.redirect", marker.name, added, own


def check_misdirected_results(site: Site) -> list[C.Issue]:
    """S011: see :func:`misdirected_results`. The repair opens the page of the row added, or stays put."""
    issues = []
    for location, marker, added, route in misdirected_results(site):
        fixed = re.sub(r"\{[^}]*\}", "{result.id}", route) if route else None
        issues.append(C.Issue("structural", C.WRONG_TARGET, location,
                              f"after marker {marker!r} adds a {added} row, the form opens another table's page with "
                              f"that row's key: an unrelated record; "
                              + (f"it should open {fixed}" if fixed else "it should stay on the page")))
    return issues


# ----------------------------------------------------------------------------- a tally set by an edit


def reset_tallies(site: Site) -> Iterator[tuple[str, str, str, str, str]]:
    """Each update setting a column to a fixed number (``score = 1``) where other markers keep it as a
    running tally (``score = score + :value``): every edit wipes what the tally counted. Path of the
    effect's SQL, marker, ``table.column``, the SQL, and the SQL without that assignment (gathered by
    :func:`veriweb.verify.checks_views.view_fixes`)."""
    tallies = {(e.table, c) for m in site.markers for e in m.effects if e.op == "update"
               for c in re.findall(r"\b(\w+)\s*=\s*\1\s*[-+]", e.sql)}
    for m_index, marker in enumerate(site.markers):
        for e_index, effect in enumerate(marker.effects):
            if effect.op != "update":
                continue
            head = re.split(r"\bWHERE\b", effect.sql, maxsplit=1, flags=re.I)[0]
            for found in re.finditer(r",\s*(\w+)\s*=\s*-?\d+(?:\.\d+)?\b(?!\s*[-+*/])|\b(\w+)\s*=\s*-?\d+(?:\.\d+)?\s*,", head):
                column = found.group(1) or found.group(2)
                if (effect.table, column) in tallies and not re.search(rf"\b{re.escape(column)}\s*=\s*{re.escape(column)}\b", effect.sql):
                    fixed = effect.sql.replace(found.group(0), "", 1)  # ", score = 1" or "score = 1,"
                    yield (f"$.markers[{m_index}].effects[{e_index}].sql", marker.name, f"{effect.table}.{column}",
                           effect.sql, fixed)
                    break


# ----------------------------------------------------------------------------- C013: flags another marker keeps


def _assignments(sql: str) -> list[tuple[str, str, int, int]]:
    """Each top-level ``column = value`` of an update's ``SET``: column, value, and the span to cut it with
    its comma."""
    span = dataflow.set_span(sql)
    if span is None:
        return []
    places, at = [], span[0]
    for item in dataflow.split_top(sql[span[0]:span[1]]):
        start = sql.find(item, at)
        places.append((item, start, start + len(item)))
        at = start + len(item)
    out = []
    for number, (item, start, end) in enumerate(places):
        found = re.match(r"\"?(\w+)\"?\s*=(.*)$", item, re.S)
        if found is None:
            continue
        cut = ((places[number - 1][2], end) if number  # ", column = value"
               else (start, places[1][1]) if len(places) > 1 else (start, end))  # "column = value, "
        out.append((found.group(1), found.group(2).strip(), *cut))
    return out


def _name_stems(*texts: str) -> set[str]:
    from veriweb.verify.wording import stem

    return {stem(w) for text in texts for w in re.findall(r"[a-z]+", (text or "").lower().replace("_", " ")) if len(w) > 2}


def silent_flags(site: Site) -> Iterator[tuple[str, str, str, str, str]]:
    """Each update that also sets a flag another marker is named for and keeps (``toggle_star`` setting
    ``read = 1``; ``archive_email`` setting ``starred = 0``), where nothing the marker says (its name, label
    or message) mentions the flag: the use quietly changes what another control is for. Path of the
    effect's SQL, marker, ``table.column``, the SQL, and the SQL without that assignment."""
    from veriweb.verify.wording import stem

    owners: dict[tuple[str, str], set[str]] = {}
    for marker in site.markers:
        stems = _name_stems(marker.name)
        for effect in marker.effects:
            if effect.op == "update":
                for column, _, _, _ in _assignments(effect.sql):
                    if stem(column) in stems:
                        owners.setdefault((effect.table, column), set()).add(marker.name)
    for m_index, marker in enumerate(site.markers):
        said = _name_stems(marker.name, marker.label or "", marker.message or "")
        for e_index, effect in enumerate(marker.effects):
            if effect.op != "update":
                continue
            assignments = _assignments(effect.sql)
            for column, value, start, end in assignments if len(assignments) > 1 else ():
                others = owners.get((effect.table, column), set()) - {marker.name}
                if not others or stem(column) in said or value not in ("0", "1"):
                    continue
                table = site.database.table(effect.table)
                declared = table.column(column) if table is not None else None
                if declared is None or any(r.get(column) not in (0, 1, None, True, False) for r in table.rows):
                    continue
                fixed = effect.sql[:start] + effect.sql[end:]
                yield (f"$.markers[{m_index}].effects[{e_index}].sql", marker.name, f"{effect.table}.{column}",
                       effect.sql, fixed)
                break


def unset_flags(site: Site) -> Iterator[tuple[str, str, str, str, str]]:
    """Each update by a marker named for a verb (``edit_post``) of a table with a flag named for that verb
    done (``posts.edited``, set on some seed rows) that leaves the flag as it was: the change never shows
    as made ("· edited"). Path of the effect's SQL, marker, ``table.column``, the SQL, and the SQL setting
    the flag."""
    from veriweb.verify.wording import stem

    for m_index, marker in enumerate(site.markers):
        verbs = {stem(w) for w in marker.name.lower().split("_")[:1]}
        for e_index, effect in enumerate(marker.effects):
            table = site.database.table(effect.table) if effect.op == "update" else None
            if table is None:
                continue
            flags = [c.name for c in table.columns if c.name != table.primary_key and stem(c.name) in verbs
                     and c.name.endswith("ed") and all(r.get(c.name) in (0, 1, None, True, False) for r in table.rows)
                     and any(r.get(c.name) in (1, True) for r in table.rows)]
            written = {column for e in marker.effects if e.table == effect.table for column, *_ in _assignments(e.sql)}
            span = dataflow.set_span(effect.sql)
            if len(flags) != 1 or flags[0] in written or span is None:
                continue
            head = effect.sql[:span[1]].rstrip()
            fixed = f"{head}, {flags[0]} = 1" + (" " + effect.sql[span[1]:].lstrip() if effect.sql[span[1]:].strip() else "")
            yield (f"$.markers[{m_index}].effects[{e_index}].sql", marker.name, f"{effect.table}.{flags[0]}",
                   effect.sql, fixed)


def narrowed_sweeps(site: Site) -> Iterator[tuple[str, str, str, str, str]]:
    """Each delete of every row of a kind (a marker with no parameter naming a row: "Empty Bin") that also
    keeps rows by a flag (``AND read = 1``) nothing the marker says mentions: the unread messages stay in the
    Bin it promises to empty. Path of the effect's SQL, marker, ``table.column``, the SQL, and the SQL
    without that test."""
    from veriweb.verify.wording import stem

    for m_index, marker in enumerate(site.markers):
        if any(p.name.endswith("id") or p.name.endswith("ids") for p in marker.params):
            continue
        said = _name_stems(marker.name, marker.label or "", marker.message or "")
        for e_index, effect in enumerate(marker.effects):
            table = site.database.table(effect.table) if effect.op == "delete" else None
            if table is None:
                continue
            for found in re.finditer(r"\s+AND\s+(?:\w+\.)?(\w+)\s*=\s*([01])\b(?!\s*\))", effect.sql, re.I):
                column = found.group(1)
                if table.column(column) is None or stem(column) in said or not all(
                        r.get(column) in (0, 1, None, True, False) for r in table.rows):
                    continue
                yield (f"$.markers[{m_index}].effects[{e_index}].sql", marker.name, f"{effect.table}.{column}",
                       effect.sql, effect.sql[:found.start()] + effect.sql[found.end():])
                break


# ----------------------------------------------------------------------------- owner-only forms shown to others


def inverted_owner_tests(site: Site) -> Iterator[tuple[str, str, str]]:
    """Each record showing a form only where the row's owner is NOT the signed-in user (``user_id !=
    user.id``) while the form's marker acts only on the user's own rows (a guard comparing the row's owner
    with ``:user_id``): the owner never sees the form, and everyone else's attempt fails. Path of the
    test's ``op``, the marker and the column."""
    owned_markers = {m.name for m in site.markers for g in m.preconditions
                     if isinstance(g.predicate, SqlPredicate) and re.search(r"\b(?:user_id|owner_id|author_id)\s*=\s*:user_id\b",
                                                                            g.predicate.sql)}
    for location, cond, marker in _tests_around_forms(site):
        if marker in owned_markers and cond.op == "!=" and isinstance(cond.value, Ref) and cond.value.ref == "user.id":
            yield f"{location}.op", marker, cond.column

PARAM_CHECKS = [check_whole_money_params, check_unknown_guard_params, check_unusable_forms, check_params,
                check_unowned_records, check_misdirected_results]

__all__ = ["PARAM_CHECKS", "check_misdirected_results", "check_params", "check_unowned_records", "misdirected_results", "unowned_records", "check_unknown_guard_params", "check_unusable_forms",
           "check_whole_money_params", "last_units_refused", "refused_arguments", "strict_lengths", "timed_days",
           "inverted_owner_tests", "misbound_user_keys", "null_only_writes", "reset_tallies", "silent_flags", "unset_flags", "narrowed_sweeps", "unsent_fields", "unbound_guard_names", "unknown_guard_params", "unusable_forms", "whole_money_params"]

"""Decoys that write: the right action on other rows, on every row, undone, or left unfinished.

Each builder takes the certificate's replay (:class:`~veriweb.verify.trajectories.Run`) and
returns :class:`~veriweb.verify.trajectories.Probe` records; see :mod:`veriweb.verify.probes`.
"""

from __future__ import annotations

import re
from typing import Any

from veriweb.engine import Session
from veriweb.engine.markers import run_marker
from veriweb.engine.query import Context, scalar_value
from veriweb.errors import MarkerFailed, VeriwebError
from veriweb.scaffold import Site, Task
from veriweb.scaffold.elements import Form
from veriweb.scaffold.values import PageIs, QueryValue, Ref, SqlPredicate
from veriweb.verify.dataflow import _TABLE_NAMES, parse_effect
from veriweb.verify.stated import StatedConditions
from veriweb.verify.trajectories import (
    DONE, Call, Completed, Prefixes, Probe, Run, as_action, judge_writes, next_version, not_applicable,
)

MAX_OTHER = 20
"""At most this many ``other_entity`` decoys per task."""


def entity_args(site: Site, call: Call) -> list[tuple[str, str]]:
    """The arguments of a marker call that name a row, with the table of that row."""
    marker = site.marker(call.marker)
    if marker is None:
        return []
    out: list[tuple[str, str]] = []
    for param in marker.params:
        value = call.args.get(param.name)
        if param.type != "integer" or not isinstance(value, int) or isinstance(value, bool):
            continue
        table = _param_table(site, marker, param.name)
        if table is not None:
            out.append((param.name, table))
    return out


def _param_table(site: Site, marker: Any, param: str) -> str | None:
    for effect in marker.effects:
        columns = [m.group(1) for m in re.finditer(rf"\b(\w+)\s*=\s*:{param}\b", effect.sql)]
        write = parse_effect(marker.name, effect.op, effect.table, effect.sql)
        columns += [c for c, s in write.sources.items() if s.kind == "param" and s.value == param]
        table = site.database.table(effect.table)
        for column in columns:
            if table is None:
                continue
            if column == table.primary_key:
                return table.name
            fk = next((f for f in table.foreign_keys if f.column == column), None)
            if fk is not None:
                return fk.ref_table
    guess = param[:-3] if param.endswith("_id") else None
    for name in (f"{guess}s", f"{guess}es", guess) if guess else ():
        if site.database.table(name) is not None:
            return name
    return None


def _other_keys(session: Session, table: str, value: Any, limit: int) -> list[Any]:
    pk = session.db.primary_keys.get(table, "id")
    keys = [r[0] for r in session.db.guard.engine(
        f'SELECT "{pk}" FROM "{table}" WHERE "{pk}" != ? ORDER BY "{pk}"', (value,)).fetchall()]
    if len(keys) <= limit:
        return keys
    step = len(keys) / limit
    return [keys[int(i * step)] for i in range(limit)]


def read_columns(site: Site, task: Task, table: str) -> set[str]:
    """The columns of ``table`` that the task's predicates read (what tells its rows apart for the task)."""
    columns: set[str] = set()
    known = {c.name for c in site.database.table(table).columns} if site.database.table(table) else set()

    def query(q: Any) -> None:
        if q.table == table:
            columns.update(c.column for c in q.where)
            columns.update(o.column for o in q.order_by)
            if getattr(q, "select", "*") != "*":
                columns.add(q.select)
        for cond in q.where:
            if isinstance(cond.value, QueryValue):
                query(cond.value.query)

    def walk(node: Any) -> None:
        if isinstance(node, QueryValue):
            query(node.query)
        elif isinstance(node, SqlPredicate):
            aliases = [m.group(2) or m.group(1) for m in _TABLE_NAMES.finditer(node.sql) if m.group(1) == table]
            for alias in aliases:
                columns.update(c for c in re.findall(rf"\b{re.escape(alias)}\.(\w+)", node.sql) if c in known)
            for value in node.params.values():
                walk(value)
        elif hasattr(node, "query") and hasattr(node.query, "where"):
            query(node.query)
            walk(getattr(node, "value", None))
        elif hasattr(node, "items"):
            for item in node.items:
                walk(item)
        elif hasattr(node, "item"):
            walk(node.item)
        elif hasattr(node, "left"):
            walk(node.left)
            walk(node.right)
        elif hasattr(node, "params") and isinstance(node.params, dict):
            for value in node.params.values():
                walk(value)

    for predicate in [*task.goal, *(s.predicate for s in task.progress), *(c.predicate for c in task.constraints)]:
        walk(predicate)
    return columns


def _distinct_keys(site: Site, task: Task, session: Session, table: str, value: Any, limit: int) -> list[Any]:
    """Other rows of ``table`` that differ from row ``value`` in a column the task reads (else they would
    be just as right: "any red shirt")."""
    pk = session.db.primary_keys.get(table, "id")
    columns = sorted(read_columns(site, task, table) - {pk})
    if not columns:
        return _other_keys(session, table, value, limit)
    cols = ", ".join(f'"{c}"' for c in columns)
    same = " AND ".join(f'o."{c}" IS r."{c}"' for c in columns)
    keys = [r[0] for r in session.db.guard.engine(
        f'SELECT o."{pk}" FROM "{table}" o, (SELECT {cols} FROM "{table}" WHERE "{pk}" = ?) r '
        f'WHERE o."{pk}" != ? AND NOT ({same}) ORDER BY o."{pk}"', (value, value)).fetchall()]
    if len(keys) <= limit:
        return keys
    step = len(keys) / limit
    return [keys[int(i * step)] for i in range(limit)]


def other_entity(site: Site, task: Task, run: Run, certificate: list[str], session: Session, *,
                 prefixes: Prefixes | None = None) -> list[Probe]:
    """The right action on up to :data:`MAX_OTHER` other rows (another page, for a navigate task).

    ``prefixes``, if given, holds the certificate's states (see :class:`Prefixes`).
    """
    if task.kind == "navigate":
        return _other_page(site, task, run, certificate, session, prefixes)
    if task.kind != "mutate" or not run.calls:
        return [not_applicable("other_entity", "the certificate runs no marker")]
    targets = [(i, name, table) for i, call in enumerate(run.calls) for name, table in entity_args(site, call)]
    if not targets:
        return [not_applicable("other_entity", "no marker argument names a row")]
    share = max(1, MAX_OTHER // len(targets))
    stated = StatedConditions.of(site, task, session, run)
    probes: list[Probe] = []
    for index, name, table in targets[:MAX_OTHER]:
        call = run.calls[index]
        for other in _distinct_keys(site, task, session, table, call.args[name], share):
            plan = [(c, dict(c.args, **({name: other} if i == index else {}))) for i, c in enumerate(run.calls)]
            judged = judge_writes(site, task, session, plan)
            if judged is None:
                continue
            label = f"other_entity:{call.marker}#{index}:{name}={other}"
            what = f"{call.marker} with {name}={other} ({table} row) instead of {call.args[name]}"
            if stated.all_hold(session):  # the state the decoy left: another right answer, not a wrong one
                probes.append(Probe("other_entity", label, f"{what} meets every condition the instruction "
                                    "states (another right answer, not a decoy)", judged[0], applicable=False))
                continue
            probes.append(Probe("other_entity", label, what, judged[0]))
    return probes or [not_applicable("other_entity", "the site refuses the marker on every other row")]


def _other_page(site: Site, task: Task, run: Run, certificate: list[str], session: Session,
                prefix: Prefixes | None) -> list[Probe]:
    final = run.final
    tables = {name: value.query.table for p in task.goal if isinstance(p, PageIs)
              for name, value in p.params.items() if isinstance(value, QueryValue)}
    for goal in task.goal:  # a record page the goal pins no row of: any row's page would pass
        if isinstance(goal, PageIs) and final is not None and final.page_id == goal.page:
            tables.update({name: table for name, table in _record_params(site, goal.page).items()
                           if name not in goal.params})
    if final is None or not tables:
        return [not_applicable("other_entity", "the goal page's parameters are not looked up in a table")]
    probes: list[Probe] = []
    path = final.url.split("?")[0]
    cut = len(certificate[:-1])
    if prefix is not None and not prefix.has(cut):
        prefix = None
    for name, table in tables.items():
        value = final.params.get(name)
        if not isinstance(value, int) or not re.search(rf"/{value}(?=/|$)", path):
            continue
        for other in _other_keys(session, table, value, MAX_OTHER // len(tables)):
            url = re.sub(rf"/{value}(?=/|$)", f"/{other}", path, count=1)
            actions = [*certificate[:-1], as_action(f"goto({url!r})")]
            prefix = prefix or Prefixes(site, task, list(certificate), session, [cut])  # stepped once for all
            passed, at = prefix.judge(cut, actions[cut:])
            if passed and at is not None and at < len(actions) - 1:
                continue  # the prefix alone passes: that is the partial probe's finding
            probes.append(Probe("other_entity", f"other_entity:{name}={other}", f"opened {url} instead", passed))
    return probes or [not_applicable("other_entity", "no page parameter names a row")]


def _record_params(site: Site, page_id: str) -> dict[str, str]:
    """Each parameter of a page's route that a record on the page looks its row up by (``id`` of
    ``/product/{id:int}``, read by a record of ``products`` where ``id = param.id``, or of a view whose
    ``id`` is the key of ``products``), with the table."""
    from veriweb.verify.checks import walk
    from veriweb.verify.dataflow import view_base

    page = site.page(page_id)
    if page is None:
        return {}
    out: dict[str, str] = {}
    for element, _ in walk(page.elements, "$"):
        if element.type != "record":
            continue
        for cond in element.query.where:
            if not isinstance(cond.value, Ref) or cond.value.namespace != "param":
                continue
            table = site.database.table(element.query.table)
            base = (table.name, cond.column) if table is not None else view_base(site, element.query.table, cond.column)
            keyed = site.database.table(base[0]) if base is not None else None
            if keyed is not None and base[1] == keyed.primary_key:
                out.setdefault(cond.value.name, keyed.name)
    return out


def all_rows(site: Site, task: Task, run: Run, session: Session) -> list[Probe]:
    """Each of the certificate's last three marker calls applied to every row its list (or table) offers."""
    if task.kind != "mutate" or not run.calls:
        return [not_applicable("all_rows", "the certificate runs no marker")]
    probes: list[Probe] = []
    for index, call in enumerate(run.calls[-3:], start=max(0, len(run.calls) - 3)):
        keys = {name for name, _ in entity_args(site, call)}
        variants = [v for v in _list_variants(session, call)
                    if keys and all(v.get(k) == call.args.get(k) for k in call.args if k not in keys)]
        source = "the list on its page"
        if len(variants) < 2:
            targets = entity_args(site, call)
            if not targets:
                continue
            name, table = targets[0]
            variants = [dict(call.args, **{name: k}) for k in [call.args[name], *_other_keys(session, table,
                                                                                              call.args[name], 50)]]
            source = f"every {table} row (up to 51)"
        before = [(c, c.args) for c in run.calls[:index]]
        plan = [*before, *((call, args) for args in variants), *((c, c.args) for c in run.calls[index + 1:])]
        judged = judge_writes(site, task, session, plan,
                               frozenset(range(len(before), len(before) + len(variants))))
        if judged is None or judged[1] < 2:
            continue
        probes.append(Probe("all_rows", f"all_rows:{call.marker}#{index}",
                            f"{call.marker} applied to {judged[1]} rows of {source}", judged[0]))
    return probes or [not_applicable("all_rows", "no marker call could be applied to several rows")]


def _list_variants(session: Session, call: Call) -> list[dict[str, Any]]:
    page = call.page
    out: list[dict[str, Any]] = []
    for info in page.forms.values():
        form: Form = info.form
        if form.action.kind != "marker" or form.action.marker != call.marker:
            continue
        ctx = Context(param=dict(page.params), field=dict(info.defaults), row=dict(info.ctx.row or {}),
                      user=call.user, clock=call.clock)
        args = dict(call.args)
        for name, expr in form.action.args.items():
            if isinstance(expr, Ref) and expr.namespace == "field":
                continue
            try:
                args[name] = scalar_value(session.db.guard, expr, ctx)
            except VeriwebError:
                break
        else:
            if args not in out:
                out.append(args)
    return out


# ----------------------------------------------------------------------------- undo and partial


def undone(site: Site, task: Task, run: Run, certificate: list[str], session: Session) -> list[Probe]:
    """The certificate, then undone (through an inverse marker, and through the change log), then done."""
    if task.kind != "mutate" or not run.calls:
        return [not_applicable("undone", "the certificate writes nothing")]
    after = Completed(site, task, certificate, session)  # the certificate stepped once for every undo tried
    probes = _undone_by_marker(site, task, run, after, session)
    episode = after.episode()
    if episode is None:
        return probes or [not_applicable("undone", "the certificate ends the episode before its last action")]
    changes = session.db.changes()
    guard = session.db.guard
    for change in reversed(changes):
        pk = session.db.primary_keys[change.table]
        if change.op == "insert":
            guard.engine(f'DELETE FROM "{change.table}" WHERE "{pk}" = ?', (change.new[pk],))
        elif change.op == "delete":
            names = list(change.old)
            guard.engine(f'INSERT INTO "{change.table}" ({", ".join(f"{chr(34)}{n}{chr(34)}" for n in names)}) '
                         f'VALUES ({", ".join("?" for _ in names)})', [change.old[n] for n in names])
        else:
            names = list(change.old)
            guard.engine(f'UPDATE "{change.table}" SET {", ".join(f"{chr(34)}{n}{chr(34)} = ?" for n in names)} '
                         f'WHERE "{pk}" = ?', [change.old[n] for n in names] + [change.new[pk]])
    session.version = next_version()
    passed = episode.step(DONE).success
    return [*probes, Probe("undone", "undone:change_log",
                           f"the certificate, then its {len(changes)} writes reversed in the database, then done",
                           passed)]


_INVERSE = {"insert": ("delete",), "delete": ("insert",), "update": ("update",)}


def _goal_tables(site: Site, task: Task) -> set[str]:
    """The base tables the task's goal reads."""
    from veriweb.verify.dataflow import sql_tables, view_tables

    names: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, QueryValue):
            walk(node.query)
        elif isinstance(node, SqlPredicate):
            names.update(sql_tables(node.sql))
        elif hasattr(node, "table") and hasattr(node, "where"):
            names.add(node.table)
            for cond in node.where:
                walk(cond.value)
        for attr in ("query", "left", "right", "value", "item"):
            child = getattr(node, attr, None)
            if child is not None and not isinstance(child, (str, int, float, bool)):
                walk(child)
        for item in getattr(node, "items", None) or []:
            walk(item)
        params = getattr(node, "params", None)
        if isinstance(params, dict):
            for value in params.values():
                walk(value)

    for predicate in task.goal:
        walk(predicate)
    return {base for name in names for base in view_tables(site, name)}


def _restored(session: Session, change: Any) -> bool:
    """Did the last marker put this row back as it was before ``change``?"""
    pk = session.db.primary_keys[change.table]
    key = (change.new or change.old)[pk]
    rows = session.db.guard.engine(f'SELECT * FROM "{change.table}" WHERE "{pk}" = ?', (key,))
    names = [d[0] for d in rows.description]
    found = [dict(zip(names, r)) for r in rows.fetchall()]
    if change.op == "insert":
        return not found
    if not found:
        return False
    if change.op == "delete":
        return found[0] == change.old
    moved = [c for c in change.new if change.new.get(c) != change.old.get(c)]
    return all(found[0].get(c) == change.old.get(c) for c in moved)


def _undone_by_marker(site: Site, task: Task, run: Run, after: Completed, session: Session) -> list[Probe]:
    """The certificate, then its last write undone through another marker of the site (one whose
    effects invert it: a delete for an insert, an update of the same columns), then done."""
    from veriweb.verify.dataflow import posted_markers

    last = run.calls[-1]
    runnable = posted_markers(site)
    read = _goal_tables(site, task)
    for marker in site.markers:
        if marker.name == last.marker or marker.name not in runnable:
            continue
        episode = after.episode()
        if episode is None:
            return []
        written = [c for c in session.db.changes() if c.table in read]
        fits = [c for c in written for e in marker.effects if e.table == c.table and e.op in _INVERSE[c.op]]
        if not fits:
            continue
        change = fits[-1]
        row = change.old if change.op != "insert" else change.new
        pk = session.db.primary_keys[change.table]
        args: dict[str, Any] = {}
        for param in marker.params:
            if change.op == "update" and param.name in (change.old or {}):
                args[param.name] = change.old[param.name]
            elif param.name in last.args:
                args[param.name] = last.args[param.name]
            elif param.name in row:
                args[param.name] = row[param.name]
            elif param.name.endswith("_id") or param.name == "id":
                args[param.name] = row.get(pk)
        try:
            run_marker(session.db, marker, args, Context(user=last.user, clock=last.clock, slot=dict(task.slots)))
        except (MarkerFailed, VeriwebError):
            continue
        session.version = next_version()
        if not _restored(session, change):
            continue  # it wrote something else: not an undo of that write
        passed = episode.step(DONE).success
        return [Probe("undone", f"undone:{marker.name}", f"the certificate, then {marker.name} undoing its "
                      f"{change.op} on {change.table}, then done", passed)]
    return []


def partial(site: Site, task: Task, run: Run, certificate: list[str], session: Session, *,
            prefixes: Prefixes | None = None) -> list[Probe]:
    """The certificate stopped before each of its (last five) writes, then done.

    ``prefixes``, if given, holds the certificate's states (see :class:`Prefixes`).
    """
    if task.kind == "retrieve" or task.kind == "infeasible":
        return [not_applicable("partial", "a retrieve or infeasible task is finished by its answer")]
    cuts = [call.step for call in run.calls] or ([len(certificate) - 1] if certificate else [])
    chosen = sorted(set(cuts))[-5:]
    if chosen and (prefixes is None or not all(prefixes.has(cut) for cut in chosen)):
        prefixes = Prefixes(site, task, list(certificate), session, chosen)  # stepped once for every cut
    probes = []
    for cut in chosen:
        passed, _ = prefixes.judge(cut, [])  # type: ignore[union-attr]
        probes.append(Probe("partial", f"partial:{cut}", f"the certificate stopped before step {cut} "
                            f"({certificate[cut]}), then done", passed))
    return probes or [not_applicable("partial", "the certificate is empty")]


__all__ = ["MAX_OTHER", "all_rows", "entity_args", "other_entity", "partial", "read_columns", "undone"]

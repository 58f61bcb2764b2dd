"""Judge probes: wrong trajectories (decoys) that every task's judge must reject.

:func:`probe_task` builds decoys from a task's certificate and asks the real judge (an
:class:`~veriweb.engine.Episode`) about each. A sound judge accepts the certificate (the
``sanity`` probe) and rejects every decoy:

- ``noop``: reset, then only say "done" or give up.
- ``other_entity``: the right action on up to 20 other rows: each entity argument of each
  marker the certificate ran is replaced by another row's key and the markers are applied
  in order (a navigate task instead opens the same page for another row).
- ``all_rows``: the certificate's marker applied to every row the list on its page offers
  (or, without such a list, to every row of the entity's table).
- ``quantity``: a numeric slot value typed one more or one less.
- ``budget``: the certificate with the task's budget set one cent below what it spent.
- ``undone``: the certificate, then its last write undone through an inverse marker of the
  site (a delete for an insert, an update of the same columns) when there is one, and,
  separately, every write it made reversed through the change log; then "done" (judged on
  the final state).
- ``partial``: the certificate stopped before each write (before its last action, for a
  task that writes nothing), then "done".
- ``enumerate`` and ``wrong_answer`` (retrieve tasks): an answer listing every candidate,
  and a near miss (one more, one cent, a day, another row's value, a list missing an item).

A decoy that cannot be built for a task (no marker, no numeric slot, no budget, ...) is a
probe with ``applicable=False``: counted as not applicable, never as a pass. Decoys that
write do so through the engine's markers (parameters, preconditions, invariants checked),
so a decoy the site itself refuses is not applicable either.
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from veriweb.engine import Episode, PageModel, Session
from veriweb.engine.actions import Fill, SelectOption, format_action, parse_action
from veriweb.engine.markers import run_marker
from veriweb.engine.query import Context, column_values, scalar_value
from veriweb.errors import ActionSyntaxError, MarkerFailed, VeriwebError
from veriweb.scaffold import Site, Task
from veriweb.scaffold.elements import Form
from veriweb.scaffold.values import Exists, PageIs, QueryValue, Ref, SqlPredicate
from veriweb.verify.checks import CERTIFICATE_FAILS, CHECKS, JUDGE_FOOLED, Issue
from veriweb.verify.dataflow import _TABLE_NAMES, parse_effect

KINDS = ("sanity", "noop", "other_entity", "all_rows", "quantity", "budget", "undone", "partial", "enumerate",
         "wrong_answer")
"""Every probe kind, in the order :func:`probe_task` tries them."""

MAX_OTHER = 20
"""At most this many ``other_entity`` decoys per task."""

_DONE = "send_msg_to_user('Done.')"
_versions = itertools.count(1)


@dataclass(frozen=True)
class Probe:
    """One question put to a task's judge.

    Attributes:
        kind: one of :data:`KINDS`.
        name: unique within the task, e.g. ``other_entity:add_to_cart:product_id=7``.
        description: what the trajectory did, in words.
        passed_by_judge: whether the judge called it a success.
        applicable: ``False`` if the decoy could not be built (then it says why).
        expected: what a sound judge says (``True`` only for the certificate itself).
    """

    kind: str
    name: str
    description: str
    passed_by_judge: bool
    applicable: bool = True
    expected: bool = False

    @property
    def ok(self) -> bool:
        """The judge said what it should (not-applicable probes are neither ok nor wrong)."""
        return self.applicable and self.passed_by_judge == self.expected


@dataclass
class _Call:
    """One marker the certificate ran: at which step, with which arguments, as whom, on which page."""

    step: int
    marker: str
    args: dict[str, Any]
    user: dict[str, Any]
    clock: dict[str, Any]
    page: PageModel


@dataclass
class _Run:
    """The certificate replayed in a bare session: its marker calls and the final page."""

    calls: list[_Call] = field(default_factory=list)
    final: PageModel | None = None


def _na(kind: str, why: str) -> Probe:
    return Probe(kind, f"{kind}:n/a", why, False, applicable=False)


def _action(text: str) -> str:
    return format_action(parse_action(text))


# ----------------------------------------------------------------------------- running


def _record(site: Site, task: Task, certificate: list[str], session: Session) -> _Run:
    session.reset(task.start_url, user=task.user if task.start_logged_in else None)
    run = _Run()
    for number, action in enumerate(certificate):
        page, user = session.page(), session.user_row()
        clock = {"today": session.today, "now": session.now}
        result = session.step(action)
        if result.marker is not None:
            run.calls.append(_Call(number, result.marker.marker, dict(result.marker.args), user, clock, page))
    run.final = session.page()
    return run


def judge_trajectory(site: Site, task: Task, actions: list[str], session: Session, *,
                     end_on_success: bool = True) -> tuple[bool, int | None]:
    """Run ``actions`` (then "done", if the episode is still open) and return whether the judge
    passed it, and the index of the step where it did (``len(actions)`` for the final "done")."""
    episode = Episode(site, task, session=session, end_on_success=end_on_success)
    episode.reset()
    for number, action in enumerate([*actions, _DONE]):
        if episode.finished:
            break
        outcome = episode.step(action)
        if outcome.success:
            return True, number
    return False, None


def _judge_writes(site: Site, task: Task, session: Session, calls: list[tuple[_Call, dict[str, Any]]],
                  optional: frozenset[int] = frozenset()) -> tuple[bool, int] | None:
    """Reset, apply markers directly (as the forms would), then say "done": did the judge pass it?

    Only for mutate tasks, whose "done" the episode judges by goal and violations alone.

    Returns whether the judge passed it and how many of the ``optional`` calls the site
    accepted, or ``None`` if it refused a call that is not optional (the decoy cannot be done).
    """
    episode = Episode(site, task, session=session)
    episode.reset()
    accepted = 0
    for number, (call, args) in enumerate(calls):
        marker = session.markers[call.marker]
        try:
            run_marker(session.db, marker, args, Context(user=call.user, clock=call.clock, slot=dict(task.slots)))
        except (MarkerFailed, VeriwebError):
            session.version = f"probe-{next(_versions)}"
            if number in optional:
                continue
            return None
        accepted += number in optional
        session.version = f"probe-{next(_versions)}"
    # what Episode.step does for "done" on a mutate task, without rendering the page it would show
    progress = episode.judge.progress()
    return progress.goal and progress.violation is None, accepted


# ----------------------------------------------------------------------------- entities


def entity_args(site: Site, call: _Call) -> list[tuple[str, str]]:
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


def _other_entity(site: Site, task: Task, run: _Run, certificate: list[str], session: Session) -> list[Probe]:
    if task.kind == "navigate":
        return _other_page(site, task, run, certificate, session)
    if task.kind != "mutate" or not run.calls:
        return [_na("other_entity", "the certificate runs no marker")]
    targets = [(i, name, table) for i, call in enumerate(run.calls) for name, table in entity_args(site, call)]
    if not targets:
        return [_na("other_entity", "no marker argument names a row")]
    share = max(1, MAX_OTHER // len(targets))
    probes: list[Probe] = []
    for index, name, table in targets[:MAX_OTHER]:
        call = run.calls[index]
        for other in _distinct_keys(site, task, session, table, call.args[name], share):
            plan = [(c, dict(c.args, **({name: other} if i == index else {}))) for i, c in enumerate(run.calls)]
            judged = _judge_writes(site, task, session, plan)
            if judged is None:
                continue
            probes.append(Probe("other_entity", f"other_entity:{call.marker}#{index}:{name}={other}",
                                f"{call.marker} with {name}={other} ({table} row) instead of {call.args[name]}",
                                judged[0]))
    return probes or [_na("other_entity", "the site refuses the marker on every other row")]


def _other_page(site: Site, task: Task, run: _Run, certificate: list[str], session: Session) -> list[Probe]:
    final = run.final
    tables = {name: value.query.table for p in task.goal if isinstance(p, PageIs)
              for name, value in p.params.items() if isinstance(value, QueryValue)}
    if final is None or not tables:
        return [_na("other_entity", "the goal page's parameters are not looked up in a table")]
    probes: list[Probe] = []
    path = final.url.split("?")[0]
    for name, table in tables.items():
        value = final.params.get(name)
        if not isinstance(value, int) or not re.search(rf"/{value}(?=/|$)", path):
            continue
        for other in _other_keys(session, table, value, MAX_OTHER // len(tables)):
            url = re.sub(rf"/{value}(?=/|$)", f"/{other}", path, count=1)
            actions = [*certificate[:-1], _action(f"goto({url!r})")]
            passed, at = judge_trajectory(site, task, actions, session)
            if passed and at is not None and at < len(actions) - 1:
                continue  # the prefix alone passes: that is the partial probe's finding
            probes.append(Probe("other_entity", f"other_entity:{name}={other}", f"opened {url} instead", passed))
    return probes or [_na("other_entity", "no page parameter names a row")]


def _all_rows(site: Site, task: Task, run: _Run, session: Session) -> list[Probe]:
    if task.kind != "mutate" or not run.calls:
        return [_na("all_rows", "the certificate runs no marker")]
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
        judged = _judge_writes(site, task, session, plan,
                               frozenset(range(len(before), len(before) + len(variants))))
        if judged is None or judged[1] < 2:
            continue
        probes.append(Probe("all_rows", f"all_rows:{call.marker}#{index}",
                            f"{call.marker} applied to {judged[1]} rows of {source}", judged[0]))
    return probes or [_na("all_rows", "no marker call could be applied to several rows")]


def _list_variants(session: Session, call: _Call) -> list[dict[str, Any]]:
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


# ----------------------------------------------------------------------------- values


def _numeric(value: Any) -> Decimal | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return Decimal(str(value))
    if isinstance(value, str) and re.fullmatch(r"-?\d+(?:\.\d+)?", value.strip()):
        return Decimal(value.strip())
    return None


def _quantity(site: Site, task: Task, certificate: list[str], session: Session) -> list[Probe]:
    if task.kind not in ("mutate", "navigate"):
        return [_na("quantity", "only tasks that act on the site have quantities to get wrong")]
    probes: list[Probe] = []
    for slot, value in task.slots.items():
        number = _numeric(value)
        if number is None:
            continue
        step = Decimal(1) if number == number.to_integral_value() else Decimal("0.01")
        for index, text in enumerate(certificate):
            try:
                action = parse_action(text)
            except ActionSyntaxError:
                continue
            typed = action.value if isinstance(action, Fill) else (
                action.options[0] if isinstance(action, SelectOption) and len(action.options) == 1 else None)
            if typed is None or _numeric(typed) != number:
                continue
            for delta in (step, -step):
                wrong = str(number + delta)
                changed = (f"fill({action.bid!r}, {wrong!r})" if isinstance(action, Fill)
                           else f"select_option({action.bid!r}, {wrong!r})")
                actions = [*certificate[:index], _action(changed), *certificate[index + 1:]]
                passed, _ = judge_trajectory(site, task, actions, session)
                probes.append(Probe("quantity", f"quantity:{slot}@{index}{delta:+}", f"typed {wrong} for {slot} instead of "
                                    f"{typed} at step {index}", passed))
    return probes or [_na("quantity", "no numeric slot value is typed in the certificate")]


def _budget(site: Site, task: Task, certificate: list[str], session: Session) -> list[Probe]:
    found = [(j, k, cond) for j, c in enumerate(task.constraints) if isinstance(c.predicate, Exists)
             for k, cond in enumerate(c.predicate.query.where)
             if cond.op in (">", ">=") and (isinstance(cond.value, (int, float)) and not isinstance(cond.value, bool)
                                            or isinstance(cond.value, Ref) and cond.value.namespace == "slot")]
    if not found:
        return [_na("budget", "no constraint caps a number")]
    probes: list[Probe] = []
    for j, k, cond in found:
        episode = Episode(site, task, session=session, end_on_success=True)
        episode.reset()
        for action in certificate:
            if episode.finished:
                break
            episode.step(action)
        query = task.constraints[j].predicate.query
        others = Exists(kind="exists", query=query.model_copy(update={"where": query.where[:k] + query.where[k + 1:]}))
        rows = [c.new for c in session.db.changes() if c.table == query.table and c.new is not None]
        spent = [r.get(cond.column) for r in rows if isinstance(r.get(cond.column), (int, float))]
        if not spent or not episode.judge.holds(others):
            continue
        cap = max(spent) - (1 if isinstance(max(spent), int) else 0.01)
        data = task.model_dump(mode="json")
        if isinstance(cond.value, Ref):
            if not isinstance(task.slots.get(cond.value.name), (int, float)):
                continue
            decoy = task.model_copy(update={"slots": dict(task.slots, **{cond.value.name: cap})})
        else:
            data["constraints"][j]["predicate"]["query"]["where"][k]["value"] = cap
            decoy = Task.model_validate(data)
        passed, _ = judge_trajectory(site, decoy, certificate, session)
        probes.append(Probe("budget", f"budget:constraints[{j}]", f"the certificate spends {max(spent)} "
                            f"({cond.column}); with the cap one cent lower ({cap}) it must fail", passed))
    return probes or [_na("budget", "the certificate writes no row the budget constraint reads")]


# ----------------------------------------------------------------------------- undo and partial


def _completed(site: Site, task: Task, certificate: list[str], session: Session) -> Episode | None:
    episode = Episode(site, task, session=session, end_on_success=False)
    episode.reset()
    for action in certificate:
        if episode.finished:
            return None
        episode.step(action)
    return None if episode.finished else episode


def _undone(site: Site, task: Task, run: _Run, certificate: list[str], session: Session) -> list[Probe]:
    if task.kind != "mutate" or not run.calls:
        return [_na("undone", "the certificate writes nothing")]
    probes = _undone_by_marker(site, task, run, certificate, session)
    episode = _completed(site, task, certificate, session)
    if episode is None:
        return probes or [_na("undone", "the certificate ends the episode before its last action")]
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
    session.version = f"probe-{next(_versions)}"
    passed = episode.step(_DONE).success
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


def _undone_by_marker(site: Site, task: Task, run: _Run, certificate: list[str], session: Session) -> list[Probe]:
    """The certificate, then its last write undone through another marker of the site (one whose
    effects invert it: a delete for an insert, an update of the same columns), then done."""
    from veriweb.verify.dataflow import posted_markers

    last = run.calls[-1]
    runnable = posted_markers(site)
    read = _goal_tables(site, task)
    for marker in site.markers:
        if marker.name == last.marker or marker.name not in runnable:
            continue
        episode = _completed(site, task, certificate, session)
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
        session.version = f"probe-{next(_versions)}"
        if not _restored(session, change):
            continue  # it wrote something else: not an undo of that write
        passed = episode.step(_DONE).success
        return [Probe("undone", f"undone:{marker.name}", f"the certificate, then {marker.name} undoing its "
                      f"{change.op} on {change.table}, then done", passed)]
    return []


def _partial(site: Site, task: Task, run: _Run, certificate: list[str], session: Session) -> list[Probe]:
    if task.kind == "retrieve" or task.kind == "infeasible":
        return [_na("partial", "a retrieve or infeasible task is finished by its answer")]
    cuts = [call.step for call in run.calls] or ([len(certificate) - 1] if certificate else [])
    probes = []
    for cut in sorted(set(cuts))[-5:]:
        passed, _ = judge_trajectory(site, task, certificate[:cut], session)
        probes.append(Probe("partial", f"partial:{cut}", f"the certificate stopped before step {cut} "
                            f"({certificate[cut]}), then done", passed))
    return probes or [_na("partial", "the certificate is empty")]


# ----------------------------------------------------------------------------- answers


def _answers(site: Site, task: Task, certificate: list[str], session: Session) -> list[Probe]:
    if task.kind != "retrieve" or task.answer is None:
        return [_na("enumerate", "not a retrieve task"), _na("wrong_answer", "not a retrieve task")]
    prefix = certificate[:-1] if certificate and certificate[-1].startswith("send_msg_to_user") else list(certificate)
    episode = Episode(site, task, session=session, end_on_success=False)
    episode.reset()
    for action in prefix:
        if not episode.finished:
            episode.step(action)
    expected = episode.judge.expected_answer()
    spec = task.answer
    ctx = episode.judge.context()
    guard = session.db.guard
    values: list[Any] = []
    query = spec.candidates or spec.list_query or (spec.value.query if isinstance(spec.value, QueryValue) else None)
    if query is not None and query.agg is None:
        unfiltered = query.model_copy(update={"where": [], "limit": None})
        values = [v for v, _ in column_values(guard, query.model_copy(update={"limit": None}), ctx)]
        if len(set(map(str, values))) < 2:
            values = [v for v, _ in column_values(guard, unfiltered, ctx)]
        if len({_shown(v) for v in values} - set(map(_shown, expected if isinstance(expected, list) else [expected]))) < 1:
            values = [v for v, _ in column_values(guard, unfiltered, ctx)]
        if _is_money(site, session, query.table, query.select):
            values = [Decimal(int(v)) / 100 for v in values if isinstance(v, (int, float))]
    probes = []
    shown = _shown(expected)
    if spec.type in ("number",) and _numeric(expected) is not None:
        top = int(_numeric(expected)) + 3
        listing = ", ".join(str(i) for i in range(max(0, top - 25), top + 1))
    else:
        texts = list(dict.fromkeys(_shown(v) for v in values[:60]))
        wanted = [_shown(v) for v in expected] if isinstance(expected, list) else [shown]
        texts += [w for w in wanted if w not in texts]
        listing = ", ".join(texts) if set(texts) - set(wanted) else ""
    if listing:
        passed, _ = judge_trajectory(site, task, [*prefix, _action(f"send_msg_to_user({listing!r})")], session)
        probes.append(Probe("enumerate", "enumerate", f"answered with every candidate: {listing[:80]}...", passed))
    else:
        probes.append(_na("enumerate", "fewer than two candidates to list"))
    wrong = _near_miss(spec.type, expected, values, session)
    if wrong is None:
        probes.append(_na("wrong_answer", "no near miss could be built"))
    else:
        passed, _ = judge_trajectory(site, task, [*prefix, _action(f"send_msg_to_user({wrong!r})")], session)
        probes.append(Probe("wrong_answer", "wrong_answer", f"answered {wrong!r} (expected {shown!r})", passed))
    return probes


def _is_money(site: Site, session: Session, table: str, column: str) -> bool:
    types = session.db.column_types.get(table)
    if types is not None:
        return types.get(column) == "money"
    view = next((v for v in site.database.views if v.name == table), None)
    return bool(view and column in view.money_columns)


def _shown(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(_shown(v) for v in value)
    if isinstance(value, Decimal):
        return f"${value:,.2f}"
    return str(value)


def _near_miss(kind: str, expected: Any, values: list[Any], session: Session) -> str | None:
    if expected is None:
        return None
    if kind == "list" and isinstance(expected, list):
        if len(expected) >= 2:
            return _shown(expected[:-1])
        extra = next((v for v in values if _shown(v) not in map(_shown, expected)), None)
        return None if extra is None else _shown([*expected, extra])
    if kind == "boolean":
        return "no" if expected else "yes"
    if kind == "date":
        try:
            return (dt.date.fromisoformat(str(expected)[:10]) + dt.timedelta(days=1)).isoformat()
        except ValueError:
            return None
    number = _numeric(expected if not isinstance(expected, Decimal) else str(expected))
    if kind == "currency" and number is not None:
        return f"${number + Decimal('0.01'):,.2f}"
    if kind == "number" and number is not None:
        return str(number + 1)
    other = next((v for v in values if _shown(v).casefold() != _shown(expected).casefold()), None)
    return None if other is None else _shown(other)


# ----------------------------------------------------------------------------- entry points


def probe_task(site: Site, task: Task, certificate: list[str] | tuple[str, ...], *,
               session: Session | None = None) -> list[Probe]:
    """Put the certificate and every decoy that can be built to the task's judge.

    Args:
        site: the site.
        task: the task.
        certificate: an action sequence that solves it (the search's trace, or a stored one).
        session: a session of the site to reuse.

    Returns:
        The sanity probe first, then the decoys (not-applicable ones included, marked).
    """
    session = session or Session(site)
    certificate = list(certificate)
    passed, _ = judge_trajectory(site, task, certificate, session)
    probes = [Probe("sanity", "sanity", "the certificate itself", passed, expected=True)]
    noops = [("say done", _DONE)] if task.kind == "infeasible" else [
        ("say done", _DONE), ("give up", "report_infeasible('This cannot be done.')")]
    for name, action in noops:
        ok, _ = judge_trajectory(site, task, [action], session)
        probes.append(Probe("noop", f"noop:{name}", f"reset, then only {action}", ok))
    if task.kind == "infeasible":
        return probes
    run = _record(site, task, certificate, session)
    probes += _other_entity(site, task, run, certificate, session)
    probes += _all_rows(site, task, run, session)
    probes += _quantity(site, task, certificate, session)
    probes += _budget(site, task, certificate, session)
    probes += _undone(site, task, run, certificate, session)
    probes += _partial(site, task, run, certificate, session)
    probes += _answers(site, task, certificate, session)
    return probes


def probe_issues(site: Site, task: Task, probes: list[Probe]) -> list[Issue]:
    """Issues for probes the judge got wrong: F002 if it rejects the certificate, F009 per fooled decoy kind."""
    index = next((i for i, t in enumerate(site.tasks) if t.id == task.id), None)
    location = f"$.tasks[{index}]" if index is not None else f"$.tasks[?(@.id=={task.id!r})]"
    issues: list[Issue] = []
    for probe in probes:
        if not probe.applicable or probe.ok:
            continue
        if probe.kind == "sanity":
            issues.append(Issue(CHECKS[CERTIFICATE_FAILS][0], CERTIFICATE_FAILS, f"{location}.certificate",
                                f"task {task.id!r}: the judge rejects the certificate itself"))
        else:
            where = f"{location}.answer" if task.kind == "retrieve" else (
                f"{location}.goal" if task.goal else location)
            issues.append(Issue(CHECKS[JUDGE_FOOLED][0], JUDGE_FOOLED, where,
                                f"task {task.id!r}: the judge accepts a wrong trajectory ({probe.kind}): "
                                f"{probe.description}"))
    return issues


def summarize(probes: list[Probe]) -> dict[str, dict[str, int]]:
    """Per kind: probes run, decoys rejected (or certificate accepted), judge fooled, not applicable."""
    out: dict[str, dict[str, int]] = {}
    for probe in probes:
        row = out.setdefault(probe.kind, {"run": 0, "ok": 0, "fooled": 0, "n/a": 0})
        if not probe.applicable:
            row["n/a"] += 1
            continue
        row["run"] += 1
        row["ok" if probe.ok else "fooled"] += 1
    return out


__all__ = ["KINDS", "MAX_OTHER", "Probe", "entity_args", "judge_trajectory", "probe_issues", "probe_task", "summarize"]

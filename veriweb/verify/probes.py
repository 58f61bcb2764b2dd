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
import json
import re
from decimal import Decimal
from typing import Any

from veriweb.engine import Episode, Session
from veriweb.engine.actions import Fill, SelectOption, parse_action
from veriweb.engine.query import column_values
from veriweb.errors import ActionSyntaxError
from veriweb.scaffold import Site, Task
from veriweb.scaffold.values import Exists, QueryValue, Ref
from veriweb.verify.checks import CERTIFICATE_FAILS, CHECKS, JUDGE_FOOLED, Issue
from veriweb.verify.decoys import MAX_OTHER, all_rows, entity_args, other_entity, partial, undone
from veriweb.verify.trajectories import (
    DONE, Prefixes, Probe, as_action, end_state, judge_trajectory, not_applicable, record,
)

KINDS = ("sanity", "progress", "noop", "other_entity", "all_rows", "quantity", "budget", "undone", "partial", "enumerate",
         "wrong_answer")
"""Every probe kind, in the order :func:`probe_task` tries them."""


# ----------------------------------------------------------------------------- values


def _numeric(value: Any) -> Decimal | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return Decimal(str(value))
    if isinstance(value, str) and re.fullmatch(r"-?\d+(?:\.\d+)?", value.strip()):
        return Decimal(value.strip())
    return None


def _quantity(site: Site, task: Task, certificate: list[str], session: Session,
              prefixes: Prefixes | None = None) -> list[Probe]:
    if task.kind not in ("mutate", "navigate"):
        return [not_applicable("quantity", "only tasks that act on the site have quantities to get wrong")]
    probes: list[Probe] = []
    goal_state: tuple[str, str] | None = None
    for slot, value in task.slots.items():
        number = _numeric(value)
        if number is None:
            continue
        step = Decimal(1) if number == number.to_integral_value() else Decimal("0.01")
        for index, text in enumerate(certificate):
            action, typed = _typed(text)
            if typed is None or _numeric(typed) != number:
                continue
            for delta in (step, -step):
                wrong = str(number + delta)
                changed = (f"fill({action.bid!r}, {wrong!r})" if isinstance(action, Fill)
                           else f"select_option({action.bid!r}, {wrong!r})")
                actions = [*certificate[:index], as_action(changed), *certificate[index + 1:]]
                if prefixes is None or not prefixes.has(index):  # the certificate stepped once for every decoy
                    prefixes = Prefixes(site, task, certificate, session, _typed_steps(task, certificate))
                passed, _ = prefixes.judge(index, actions[index:])
                description = f"typed {wrong} for {slot} instead of {typed} at step {index}"
                if passed:  # a value typed again later, or a filter that finds the same rows: the same work
                    if goal_state is None:
                        goal_state = end_state(site, task, certificate, session)
                    if end_state(site, task, actions, session) == goal_state:
                        probes.append(not_applicable("quantity", f"{description} ends in the certificate's own "
                                                                 f"state (same database and page)"))
                        continue
                probes.append(Probe("quantity", f"quantity:{slot}@{index}{delta:+}", description, passed))
    return probes or [not_applicable("quantity", "no numeric slot value is typed in the certificate")]


def _typed_steps(task: Task, certificate: list[str]) -> list[int]:
    """The steps of the certificate that type a numeric slot value (where quantity decoys change it)."""
    numbers = {n for n in (_numeric(v) for v in task.slots.values()) if n is not None}
    return [index for index, text in enumerate(certificate)
            if (typed := _typed(text)[1]) is not None and _numeric(typed) in numbers]


def _typed(text: str) -> tuple[Any, str | None]:
    """A certificate step's action and the value it types (a fill, or a single option chosen), else None."""
    try:
        action = parse_action(text)
    except ActionSyntaxError:
        return None, None
    typed = action.value if isinstance(action, Fill) else (
        action.options[0] if isinstance(action, SelectOption) and len(action.options) == 1 else None)
    return action, typed


def _budget(site: Site, task: Task, certificate: list[str], session: Session) -> list[Probe]:
    found = [(j, k, cond) for j, c in enumerate(task.constraints) if isinstance(c.predicate, Exists)
             for k, cond in enumerate(c.predicate.query.where)
             if cond.op in (">", ">=") and (isinstance(cond.value, (int, float)) and not isinstance(cond.value, bool)
                                            or isinstance(cond.value, Ref) and cond.value.namespace == "slot")]
    if not found:
        return [not_applicable("budget", "no constraint caps a number")]
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
    return probes or [not_applicable("budget", "the certificate writes no row the budget constraint reads")]


# ----------------------------------------------------------------------------- answers


def _answers(site: Site, task: Task, certificate: list[str], session: Session) -> list[Probe]:
    if task.kind != "retrieve" or task.answer is None:
        return [not_applicable("enumerate", "not a retrieve task"), not_applicable("wrong_answer", "not a retrieve task")]
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
    after: list[Prefixes] = []  # the prefix stepped once for both answers

    def answered(text: str) -> bool:
        if not after:
            after.append(Prefixes(site, task, prefix, session, [len(prefix)]))
        return after[0].judge(len(prefix), [as_action(f"send_msg_to_user({text!r})")])[0]

    if listing:
        passed = answered(listing)
        probes.append(Probe("enumerate", "enumerate", f"answered with every candidate: {listing[:80]}...", passed))
    else:
        probes.append(not_applicable("enumerate", "fewer than two candidates to list"))
    wrong = _near_miss(spec.type, expected, values, session)
    if wrong is None:
        probes.append(not_applicable("wrong_answer", "no near miss could be built"))
    else:
        passed = answered(wrong)
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


def _progress_falls(site: Site, task: Task, certificate: list[str], session: Session) -> Probe:
    """Whether a progress step of the task that holds at the start no longer holds once its certificate
    has solved it (a step that lost its ``negate``: "the post is gone" holding while the post is there):
    a dense reward built on it pays for doing nothing and takes back pay for the solution's own work.
    Steps about where the agent is (a page) are left out: a solution may rightly leave a page. The probe
    "passes" when such a step falls."""
    episode = Episode(site, task, session=session, end_on_success=True)
    episode.reset()
    start = episode.judge.progress().subgoals
    end = start
    for action in certificate:
        if episode.finished:
            break
        end = episode.step(action).progress.subgoals
    fallen = [task.progress[n].description for n, (was, now) in enumerate(zip(start, end))
              if was and not now and '"page"' not in json.dumps(task.progress[n].predicate.model_dump(mode="json"))]
    if fallen:
        return Probe("progress", "progress:falls", f"progress step {fallen[0]!r} holds at the start and no longer once "
                                                   f"the certificate has solved the task", True)
    return Probe("progress", "progress:falls", "no progress step falls from the start to the solution", False)


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
    # The certificate is stepped once, its state saved before every step: the decoys that share a
    # prefix with it (partial, quantity, another page) start from there instead of replaying it.
    prefixes = Prefixes(site, task, certificate, session, range(len(certificate) + 1))
    passed, _ = prefixes.judge(len(certificate), [])
    probes = [Probe("sanity", "sanity", "the certificate itself", passed, expected=True)]
    if task.kind != "infeasible" and task.progress:
        probes.append(_progress_falls(site, task, certificate, session))
    noops = [("say done", DONE)] if task.kind == "infeasible" else [
        ("say done", DONE), ("give up", "report_infeasible('This cannot be done.')")]
    for name, action in noops:
        ok, _ = judge_trajectory(site, task, [action], session)
        probes.append(Probe("noop", f"noop:{name}", f"reset, then only {action}", ok))
    if task.kind == "infeasible":
        return probes
    run = record(site, task, certificate, session)
    probes += other_entity(site, task, run, certificate, session, prefixes=prefixes)
    probes += all_rows(site, task, run, session)
    probes += _quantity(site, task, certificate, session, prefixes)
    probes += _budget(site, task, certificate, session)
    probes += undone(site, task, run, certificate, session)
    probes += partial(site, task, run, certificate, session, prefixes=prefixes)
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
        elif probe.kind == "progress":
            issues.append(Issue(CHECKS[JUDGE_FOOLED][0], JUDGE_FOOLED, f"{location}.progress",
                                f"task {task.id!r}: its progress falls along its own certificate ({probe.description}): "
                                f"a dense reward would punish the solution's steps"))
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

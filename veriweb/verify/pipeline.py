"""The verify/repair pipeline: one site (:func:`verify_site`, :func:`repair_site`) and whole corpora.

Verifying a site runs the static checks, then certifies every task by search
(:func:`veriweb.verify.feasibility.verify_task`) and puts each certified task's judge to its
decoys (:func:`veriweb.verify.probes.probe_task`). Repairing a site runs the static repairs to a
fixed point first (:func:`veriweb.verify.repair.repair_static`, which needs no verdict), so a task
that reads something a repair touched is searched on the repaired site, not on the raw site too
(its raw status is derived: see :func:`repair_site`); every task that reads something a repair
touched is verified again (the search re-run, its trace the new certificate); a task that
is not certified or proven infeasible, or whose judge passes a decoy, is dropped; then every kept
certificate is replayed once more in a fresh session. A site left with detectable defects or no
tasks is dropped. Everything dropped is counted, and every repair is logged in the site's report.

Corpora (:func:`verify_corpus`, :func:`repair_corpus`) run sites in parallel processes with a
progress bar; their files are written atomically, the manifest and report last. The verifier
never reads a raw corpus's ``.defects.json`` sidecars: only the report's scoring step does
(:func:`veriweb.verify.report.score_checks`).
"""

from __future__ import annotations

import os
import re
import sqlite3
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from veriweb.engine import Session
from veriweb.errors import VeriwebError
from veriweb.scaffold import Site, Task, load, save
from veriweb.scaffold.io import with_id
from veriweb.verify.checks import CLASSES, Issue, resolve_href, static_issues
from veriweb.verify.recheck import check_site, recheck
from veriweb.verify.repair import Repair, invalidated, repair_static
from veriweb.verify.search import fewer_collections

DEFAULT_BUDGET = 2_000
"""Actions the search may step per task (afresh after each new subgoal) before it says undecided."""

SHIPPABLE = ("certified", "proven_infeasible")
INFEASIBLE_CERTIFICATE = "report_infeasible('This cannot be done on this site.')"


@dataclass
class Side:
    """Figures for one side (raw or verified) of a site."""

    issues: list[dict[str, str]] = field(default_factory=list)
    by_class: dict[str, int] = field(default_factory=dict)
    tasks: int = 0
    statuses: dict[str, int] = field(default_factory=dict)
    false_feasible: int = 0
    probes_run: int = 0
    probes_passed: int = 0

    @property
    def feasible(self) -> int:
        """Tasks certified or proven infeasible."""
        return sum(self.statuses.get(s, 0) for s in SHIPPABLE)

    @property
    def undecided(self) -> int:
        """Tasks the search could not decide within its budget."""
        return self.statuses.get("undecided", 0)

    def as_dict(self) -> dict[str, Any]:
        """JSON data, with the derived counts."""
        data = asdict(self)
        data.update(defects=len(self.issues), feasible=self.feasible, undecided=self.undecided)
        return data


@dataclass
class SiteReport:
    """What verifying (and repairing) one site found and did."""

    name: str
    file: str = ""
    domain: str = ""
    raw_id: str = ""
    raw: Side = field(default_factory=Side)
    verified: Side | None = None
    verified_id: str = ""
    repairs: list[dict[str, str]] = field(default_factory=list)
    dropped_tasks: dict[str, str] = field(default_factory=dict)
    site_dropped: str = ""
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        """JSON data of the report (what ``report.json`` lists per site)."""
        data = asdict(self)
        data["raw"] = self.raw.as_dict()
        data["verified"] = self.verified.as_dict() if self.verified is not None else None
        return data


# ----------------------------------------------------------------------------- one task


def replays(site: Site, task: Task, certificate: list[str] | tuple[str, ...], *,
            session: Session | None = None) -> bool:
    """Whether ``certificate`` solves ``task`` in a freshly reset episode (of ``session``, or of a new
    session of ``site``)."""
    from veriweb.verify.feasibility import replay

    own = session is None
    session = session or Session(site)
    try:
        ok, _ = replay(site, task, list(certificate), session=session)
    finally:
        if own:
            session.close()
    return ok


def _verdicts(site: Site, tasks: list[Task], budget: int, unsearched: set[str] | frozenset[str] = frozenset()
              ) -> dict[str, Any]:
    from veriweb.verify.feasibility import verify_task

    session = Session(site)
    try:
        return {task.id: verify_task(site, task, budget=budget, session=session, search=task.id not in unsearched)
                for task in tasks}
    finally:
        session.close()


def _bad_probes(site: Site, task: Task, certificate: list[str] | tuple[str, ...], *,
                session: Session | None = None) -> tuple[int, list[str]]:
    """How many probes ran, and the names of those the judge got wrong (a decoy passed)."""
    from veriweb.verify.probes import probe_task

    own = session is None
    session = session or Session(site)
    try:
        probes = probe_task(site, task, list(certificate), session=session)
    finally:
        if own:
            session.close()
    ran = [p for p in probes if p.applicable]
    return len(ran), [p.name for p in ran if not p.ok]


def _certificate(verdict: Any, task: Task) -> list[str]:
    if verdict.status == "certified":
        return list(verdict.certificate)
    return list(task.certificate) or [INFEASIBLE_CERTIFICATE]


def _visits(site: Site, certificates: dict[str, list[str]]) -> dict[str, set[str]]:
    """The pages each task's certificate goes through (its start page included)."""
    from veriweb.engine import Episode
    from veriweb.engine.templates import Route

    routes = [Route.compile(p.id, p.route) for p in site.pages]
    out: dict[str, set[str]] = {}
    session = Session(site)
    try:
        for task in site.tasks:
            pages = {resolve_href(routes, task.start_url)}
            try:
                episode = Episode(site, task, session=session, end_on_success=False)
                episode.reset()
                for action in certificates.get(task.id, []):
                    outcome = episode.step(action)
                    pages.add(resolve_href(routes, str(session.ui.url)))
                    if outcome.terminated or outcome.truncated:
                        break
            except VeriwebError:  # a task that cannot run (no such user, a judge reading no table): the pages so far
                pass
            out[task.id] = {p for p in pages if p is not None}
    finally:
        session.close()
    return out


RETARGET_TRIES = 3
"""How many rewrites of a task whose start state is wrong are certified before it is dropped."""


def _retarget(site: Site, verdicts: dict[str, Any], budget: int) -> tuple[Site, list[Repair]]:
    """Rewrite each task whose goal holds (F001) or constraint is broken (F007) at the start to another
    entity or start page (:func:`veriweb.verify.retarget.candidates`) and certify it from scratch;
    the first rewrite that is certified replaces the task (``verdicts`` is updated in place)."""
    from itertools import islice

    from veriweb.verify.checks import CONSTRAINT_AT_START, GOAL_AT_START
    from veriweb.verify.feasibility import verify_task
    from veriweb.verify.retarget import candidates

    wrong_start = {GOAL_AT_START, CONSTRAINT_AT_START}
    tasks = list(site.tasks)
    log: list[Repair] = []
    session = Session(site)
    try:
        for index, task in enumerate(tasks):
            verdict = verdicts[task.id]
            codes = {i.code for i in verdict.issues}
            if verdict.shipped or not codes & wrong_start:
                continue
            for moved, change in list(islice(candidates(site, task, session), RETARGET_TRIES)):
                trial = site.model_copy(update={"tasks": [*tasks[:index], moved, *tasks[index + 1:]]})
                fresh = verify_task(trial, moved, budget=budget, session=session)
                if fresh.shipped:
                    tasks[index] = moved
                    verdicts[task.id] = fresh
                    log.append(Repair(min(codes & wrong_start), f"$.tasks[{index}]", "retarget_task",
                                      f"task {task.id!r} {change}"))
                    break
    finally:
        session.close()
    return (site.model_copy(update={"tasks": tasks}) if log else site), log


def _replaced_certificates(site: Site, verdicts: dict[str, Any], kept: set[str]) -> list[Repair]:
    """``replace_certificate`` for each kept task whose stored certificate failed (F002) and whose
    search certified it anew: the new certificate is the one shipped."""
    from veriweb.verify.checks import CERTIFICATE_FAILS

    out = []
    for index, task in enumerate(site.tasks):
        verdict = verdicts.get(task.id)
        if task.id in kept and verdict is not None and any(i.code == CERTIFICATE_FAILS for i in verdict.issues):
            out.append(Repair(CERTIFICATE_FAILS, f"$.tasks[{index}].certificate", "replace_certificate",
                              f"task {task.id!r}: the stored certificate ({len(task.certificate)} actions) no "
                              f"longer replays; the search's ({len(verdict.certificate)} actions) replaces it"))
    return out


def ship_unrepaired(site: Site, budget: int) -> tuple[list[Task], dict[str, Any], dict[str, str]]:
    """Verify every task of ``site`` as it is, repairing nothing: the tasks it would ship (with
    their certificates), each task's verdict, and why each other task was dropped.

    What training on "raw sites filtered to their feasible tasks" means in the ablation
    (:mod:`veriweb.agents.ablation_corpora`): the same search, decoys and probes as
    :func:`verify_site`, without the repair that could have saved a task.
    """
    verdicts = _verdicts(site, site.tasks, budget)
    dropped: dict[str, str] = {}
    kept, _ = _keep(site, verdicts, dropped, reuse={})
    return kept, verdicts, dropped


def _keep(site: Site, verdicts: dict[str, Any], dropped: dict[str, str],
          reuse: dict[str, tuple[int, list[str]]]) -> tuple[list[Task], dict[str, tuple[int, list[str]]]]:
    """The tasks to ship (with their certificates) and their probe results; the others go to ``dropped``.

    A task in ``reuse`` was not verified again (nothing it reads changed), so its probe results on
    the raw site stand; every other certified task's judge is probed here.
    """
    from veriweb.verify.checks_tasks import contradicted_difficulty
    from veriweb.verify.repair_tasks import certified_difficulty

    kept: list[Task] = []
    probes: dict[str, tuple[int, list[str]]] = {}
    session = Session(site)
    try:
        for task in site.tasks:
            verdict = verdicts[task.id]
            if not verdict.shipped:
                codes = ", ".join(sorted({i.code for i in verdict.issues}))
                dropped[task.id] = f"{verdict.status}" + (f" ({codes})" if codes else "") + (
                    f": {verdict.proof}" if verdict.proof and verdict.status != "certified" else "")
                continue
            certificate = _certificate(verdict, task)
            task = task.model_copy(update={"certificate": certificate})
            if task.kind != "infeasible" and contradicted_difficulty(task.difficulty, len(certificate)):
                task = task.model_copy(update={"difficulty": certified_difficulty(site, task, certificate)})
            if verdict.status == "certified":
                ran, bad = reuse.get(task.id) or _bad_probes(site, task, certificate, session=session)
                probes[task.id] = (ran, bad)
                if bad:
                    decoys = [name for name in bad if name != "progress:falls"]
                    dropped[task.id] = f"the judge passes decoys: {', '.join(decoys[:5])}" if decoys else \
                        "its progress falls along its own certificate"
                    continue
            kept.append(task)
    finally:
        session.close()
    return kept, probes


RAW_STATUS_SHARE = 4
"""The search that gives a raw status (:func:`_raw_statuses`) gets ``budget // RAW_STATUS_SHARE``."""


def _raw_statuses(site: Site, verdicts: dict[str, Any], fresh: dict[str, Any], budget: int) -> dict[str, Any]:
    """The raw verdicts to report. A task not searched on the raw site (a repair changed what it
    reads) whose search on the repaired site certified it is certified on the raw site too when
    that certificate solves it there (replayed in a fresh episode, F005 added if it is long);
    when it does not (a repair moved the element it clicks, or fixed the link it needs), the task
    is searched on the raw site after all, with a quarter of the budget (``RAW_STATUS_SHARE``):
    that search only says what the report's raw column shows, and mostly runs out of budget on
    the defect the repair fixed (77 of 92 such searches on 30 raw sites did, and they were a
    quarter of the repair's CPU; 11 of the 15 that succeeded needed under 500 states). The others
    (undecided or infeasible after repair, which the raw site's defects rarely make easier) stay
    undecided on the raw side. ``repair_site(search_raw=True)`` searches every task on the raw
    site with the whole budget."""
    from veriweb.verify.feasibility import NOT_SEARCHED, certified, verify_task

    out = dict(verdicts)
    session: Session | None = None
    try:
        for index, task in enumerate(site.tasks):
            verdict, found = verdicts[task.id], fresh.get(task.id)
            if verdict.proof != NOT_SEARCHED or found is None or found.status != "certified":
                continue
            session = session or Session(site)
            if replays(site, task, found.certificate, session=session):
                out[task.id] = certified(task, found.certificate, list(verdict.issues), f"$.tasks[{index}]")
            else:
                out[task.id] = verify_task(site, task, budget=max(1, budget // RAW_STATUS_SHARE), session=session)
    finally:
        if session is not None:
            session.close()
    return out


# ----------------------------------------------------------------------------- one site


def _final_replays(final: Site, verdicts: dict[str, Any], probes: dict[str, tuple[int, list[str]]],
                   dropped: dict[str, str], budget: int) -> tuple[Site, int, list[Repair]]:
    """Replay every kept certificate in a fresh session of the final site, which the search never used.

    A certificate that does not replay there was found on a site that a repair has changed since in
    a way the invalidation did not foresee (the figure an answer reads moved with a recomputed
    total): the task is searched once more on the final site, and kept with the new certificate
    when that certifies it, its judge rejects every probe and the new certificate replays in a fresh
    session of its own (``replace_certificate``, F002); otherwise it is dropped. Returns the site (its certificates updated), how many certificates did
    not replay, and the repairs. ``verdicts`` and ``probes`` are updated in place.
    """
    from veriweb.verify.checks import CERTIFICATE_FAILS
    from veriweb.verify.feasibility import verify_task

    session = Session(final)  # a fresh session of the final site, never used by the search
    try:
        stale = [t for t in final.tasks if t.kind != "infeasible" and not replays(final, t, t.certificate, session=session)]
    finally:
        session.close()
    if not stale:
        return final, 0, []
    tasks = {t.id: t for t in final.tasks}
    log: list[Repair] = []
    session = Session(final)
    try:
        for task in stale:
            fresh = verify_task(final, task.model_copy(update={"certificate": []}), budget=budget, session=session)
            if fresh.status == "certified":
                moved = task.model_copy(update={"certificate": list(fresh.certificate)})
                ran, bad = _bad_probes(final, moved, moved.certificate, session=session)
                if not bad and replays(final, moved, moved.certificate):  # in a session of its own, too
                    tasks[task.id], verdicts[task.id], probes[task.id] = moved, fresh, (ran, bad)
                    index = next(n for n, t in enumerate(final.tasks) if t.id == task.id)
                    log.append(Repair(CERTIFICATE_FAILS, f"$.tasks[{index}].certificate", "replace_certificate",
                                      f"task {task.id!r}: its certificate ({len(task.certificate)} actions) did not "
                                      f"replay on the repaired site; searched again, a new one "
                                      f"({len(moved.certificate)} actions) replaces it"))
                    continue
            dropped[task.id] = "the certificate does not replay in a fresh session, and searching again did not certify it"
            del tasks[task.id]
    finally:
        session.close()
    return with_id(final.model_copy(update={"tasks": list(tasks.values())})), len(stale), log


def _without(site: Site, dropped: dict[str, str], name: str) -> Site:
    """``site`` without the tasks in ``dropped``, every other certificate replayed to show that
    dropping tasks changed nothing else."""
    site = with_id(site.model_copy(update={"tasks": [t for t in site.tasks if t.id not in dropped]}))
    session = Session(site)
    try:
        for task in site.tasks:
            if task.kind != "infeasible" and not replays(site, task, task.certificate, session=session):
                raise VeriwebError(f"task {task.id!r} of {name} stopped replaying after other tasks were dropped")
    finally:
        session.close()
    return site


def _flawed_tasks(site: Site, left: list[Issue]) -> dict[str, str]:
    """The tasks that static issues left after repair lie in (``$.tasks[i]...``: an instruction
    a retarget left naming the old day), each with why it is dropped. Such an issue is the task's,
    not the site's: dropping the task, not the whole site, removes it."""
    out: dict[str, str] = {}
    for issue in left:
        match = _TASK_PATH.match(issue.location)
        if match is not None and int(match.group(1)) < len(site.tasks):
            task = site.tasks[int(match.group(1))]
            out.setdefault(task.id, f"{issue.code} left after repair: {issue.message}")
    return out


_TASK_PATH = re.compile(r"\$\.tasks\[(\d+)\]")


def _merged(static: list[Issue], dynamic: list[Issue]) -> list[Issue]:
    """The dynamic issues that a static one does not already report (same code, same place: a
    constraint the checks read as forbidding the goal and the search found breaking at it)."""
    known = {(i.code, i.location) for i in static}
    return [i for i in dynamic if (i.code, i.location) not in known]


def _side(site: Site, issues: list[Issue], verdicts: dict[str, Any], probes: dict[str, tuple[int, list[str]]],
          false_feasible: int) -> Side:
    side = Side(issues=[i.as_dict() for i in issues], tasks=len(site.tasks))
    side.by_class = {cls: n for cls in CLASSES if (n := sum(i.cls == cls for i in issues))}
    side.statuses = dict(Counter(verdicts[t.id].status for t in site.tasks if t.id in verdicts))
    side.false_feasible = false_feasible
    side.probes_run = sum(n for n, _ in probes.values())
    side.probes_passed = sum(len(bad) for _, bad in probes.values())
    return side


def _examine(site: Site, budget: int, issues: list[Issue] | None = None, *,
             unsearched: set[str] | frozenset[str] = frozenset()
             ) -> tuple[list[Issue], dict[str, Any], dict[str, tuple[int, list[str]]], int]:
    """Issues (``issues``, the site's static issues if already known, then the dynamic ones), verdicts,
    probes of certified tasks, and stored certificates that fail. The tasks in ``unsearched`` get
    every check but the search (:data:`veriweb.verify.feasibility.NOT_SEARCHED`)."""
    from veriweb.verify.checks import CERTIFICATE_FAILS

    issues = static_issues(site) if issues is None else list(issues)
    verdicts = _verdicts(site, site.tasks, budget, unsearched)
    dynamic = _merged(issues, [i for t in site.tasks for i in verdicts[t.id].issues])
    session = Session(site)  # one session for every probe: each probe resets the episode it runs
    try:
        probes = {t.id: _bad_probes(site, t, verdicts[t.id].certificate, session=session)
                  for t in site.tasks if verdicts[t.id].status == "certified"}
    finally:
        session.close()
    # verify_task replays every stored certificate in a freshly reset episode (F002 when it fails)
    stale = sum(1 for t in site.tasks if t.kind != "infeasible" and t.certificate
                and any(i.code == CERTIFICATE_FAILS for i in verdicts[t.id].issues))
    return issues + dynamic, verdicts, probes, stale


def verify_site(site: Site, *, budget: int = DEFAULT_BUDGET, name: str = "") -> SiteReport:
    """Verify a site without changing it.

    ``raw.false_feasible`` counts tasks that carry a certificate (so claim to be feasible) whose
    certificate fails on replay in a fresh session.
    """
    started = time.perf_counter()
    with fewer_collections():
        issues, verdicts, probes, stale = _examine(site, budget)
    report = SiteReport(name=name or site.name, domain=site.domain, raw_id=site.id)
    report.raw = _side(site, issues, verdicts, probes, stale)
    report.seconds = round(time.perf_counter() - started, 3)
    return report


def repair_site(site: Site, *, budget: int = DEFAULT_BUDGET, name: str = "", search_raw: bool = False
                ) -> tuple[Site | None, SiteReport]:
    """Verify, repair and certify a site.

    A task that reads something a static repair changes is searched first on the repaired site.
    If that certifies it, its raw status is ``certified`` when the certificate also solves it on
    the raw site, and otherwise comes from a search on the raw site; if not, it is reported
    ``undecided`` on the raw side without a raw search (the search that runs out of budget is
    the costly one). Its judge is probed on the repaired site only. With ``search_raw`` every
    task is searched (and probed) on the raw site as well, so the raw figures are the raw
    search's own (about twice the CPU on a raw corpus); what is shipped is the same either way.

    Returns:
        The certified site (every kept task certified by the search and replayed in a fresh
        session, or proven infeasible; every judge probe rejected; no static issue left), or
        ``None`` when the site itself cannot be made usable; and the site's report.
    """
    with fewer_collections():  # see there: a third of the CPU otherwise goes to the cycle collector
        return _repair_site(site, budget=budget, name=name, search_raw=search_raw)


def _repair_site(site: Site, *, budget: int, name: str, search_raw: bool) -> tuple[Site | None, SiteReport]:
    started = time.perf_counter()
    report = SiteReport(name=name or site.name, domain=site.domain, raw_id=site.id)
    checked = check_site(site)  # traced, so later checks re-run only what a change can alter
    static = checked.issues
    # The static repairs need no verdict, so they come first: a task that reads something they
    # change is searched once, on the repaired site, not on the raw site too (its raw status is
    # then what that search's certificate does on the raw site: see _raw_statuses).
    # The checks are pure functions of the site: its first round checks the raw site, already checked.
    fixed, log, touched, remaining, ctx = repair_static(site, checked=checked)
    stored = _visits(site, {t.id: list(t.certificate) for t in site.tasks})
    unsearched = set() if search_raw else invalidated(fixed, touched, stored) & {t.id for t in site.tasks}
    raw_verdicts, probes, stale = _examine(site, budget, static, unsearched=unsearched)[1:]
    visits = _visits(site, {t.id: list(raw_verdicts[t.id].certificate) or list(t.certificate) for t in site.tasks})

    repairs: list[Repair] = list(log)
    dropped = dict(ctx.dropped_tasks)
    again = invalidated(fixed, touched, visits) | (unsearched & {t.id for t in fixed.tasks})
    if touched:
        again |= {t.id for t in fixed.tasks if not raw_verdicts[t.id].shipped}  # a repair may have freed them
    fresh = _verdicts(fixed, [t for t in fixed.tasks if t.id in again], budget)
    verdicts = {t.id: fresh.get(t.id, raw_verdicts[t.id]) for t in fixed.tasks}
    shown = _raw_statuses(site, raw_verdicts, fresh, budget)
    report.raw = _side(site, list(static) + _merged(static, [i for t in site.tasks for i in shown[t.id].issues]),
                       shown, probes, stale)
    fixed, moved = _retarget(fixed, verdicts, budget)
    repairs += moved

    kept, probes = _keep(fixed, verdicts, dropped, reuse={t: probes[t] for t in probes if t not in again
                                                          and verdicts.get(t) is raw_verdicts.get(t)})
    repairs += _replaced_certificates(fixed, verdicts, {t.id for t in kept})
    final = with_id(fixed.model_copy(update={"tasks": kept}))
    final, false_feasible, again_certified = _final_replays(final, verdicts, probes, dropped, budget)
    repairs += again_certified
    if false_feasible:
        final = _without(final, dropped, report.name)
    left = recheck(final, ctx.checked).issues if ctx.checked is not None else static_issues(final)
    flawed = _flawed_tasks(final, left)
    if flawed:
        dropped.update(flawed)
        final = _without(final, dropped, report.name)
        left = recheck(final, ctx.checked).issues if ctx.checked is not None else static_issues(final)
    report.repairs = [r.as_dict() for r in repairs]
    report.dropped_tasks = dropped
    if left:
        report.site_dropped = (f"{len(left)} defect(s) no repair could fix: "
                               + ", ".join(sorted({f'{i.code} at {i.location}' for i in left})[:5]))
    elif not final.tasks:
        report.site_dropped = "no task survived verification"
    shipped_verdicts = {t.id: verdicts[t.id] for t in final.tasks}
    report.verified = _side(final, left, shipped_verdicts, {k: v for k, v in probes.items() if k in shipped_verdicts},
                            0)
    report.verified_id = "" if report.site_dropped else final.id
    report.seconds = round(time.perf_counter() - started, 3)
    return (None if report.site_dropped else final), report


# ----------------------------------------------------------------------------- corpora

_SITE_FAULTS = (VeriwebError, sqlite3.Error, RecursionError)
"""Failures that drop one site (reported with the reason) instead of stopping the corpus."""


def _verify_file(path: str, rel: str, budget: int) -> dict[str, Any]:
    try:
        site = load(path)
    except VeriwebError as exc:
        return SiteReport(name=rel, file=rel, site_dropped=f"does not load: {exc}").as_dict()
    try:
        report = verify_site(site, budget=budget, name=site.name)
    except _SITE_FAULTS as exc:  # one site the engine cannot run must not stop a corpus
        return SiteReport(name=site.name, file=rel, raw_id=site.id,
                          site_dropped=f"verification failed: {type(exc).__name__}: {exc}").as_dict()
    report.file = rel
    return report.as_dict()


def _repair_file(path: str, rel: str, out: str, budget: int, search_raw: bool = False) -> dict[str, Any]:
    try:
        site = load(path)
    except VeriwebError as exc:
        return SiteReport(name=rel, file=rel, site_dropped=f"does not load: {exc}").as_dict()
    try:
        fixed, report = repair_site(site, budget=budget, name=site.name, search_raw=search_raw)
    except _SITE_FAULTS as exc:
        return SiteReport(name=site.name, file=rel, raw_id=site.id,
                          site_dropped=f"repair failed: {type(exc).__name__}: {exc}").as_dict()
    report.file = rel
    if fixed is not None:
        save(fixed, Path(out) / rel)
    return report.as_dict()


def _run(jobs: list[tuple[Any, ...]], func: Any, workers: int | None, progress: bool, label: str) -> list[dict[str, Any]]:
    from veriweb.generate.corpus import run_jobs

    return run_jobs(jobs, func, workers=workers, progress=progress, label=label)


def verify_corpus(directory: str | os.PathLike[str], *, budget: int = DEFAULT_BUDGET, workers: int | None = None,
                  progress: bool = True, html: bool = False) -> dict[str, Any]:
    """Verify every site of a corpus and write ``DIR/report.json`` (and ``report.html``).

    Returns:
        The report (see :func:`veriweb.verify.report.build_report`).
    """
    from veriweb.generate.corpus import read_corpus
    from veriweb.verify import report as R

    started = time.perf_counter()
    root = Path(directory)
    manifest, files = read_corpus(root)
    jobs = [(str(path), entry["file"], budget) for path, entry in zip(files, manifest["sites"])]
    sites = _run(jobs, _verify_file, workers, progress, "verifying")
    data = R.build_report(sites, raw_dir=root, budget=budget, mode="verify",
                          seconds=time.perf_counter() - started)
    R.write_report(data, root, html=html)
    return data


def repair_corpus(directory: str | os.PathLike[str], out: str | os.PathLike[str], *, budget: int = DEFAULT_BUDGET,
                  workers: int | None = None, progress: bool = True, html: bool = False,
                  search_raw: bool = False) -> dict[str, Any]:
    """Repair and certify every site of a corpus into ``out`` (same layout, its own manifest and report).

    ``search_raw``: see :func:`repair_site`.

    ``out`` may be ``directory`` itself: each site file is replaced atomically by its certified
    version (a dropped site's file is removed), and the manifest and report are written last.

    Returns:
        The report; its ``manifest`` key holds the certified corpus's manifest.
    """
    from veriweb.generate.corpus import _check_writable, _write_json, read_corpus
    from veriweb.verify import report as R

    started = time.perf_counter()
    root, target = Path(directory), Path(out)
    manifest, files = read_corpus(root)
    _check_writable(target)
    for entry in manifest["sites"]:
        (target / entry["file"]).parent.mkdir(parents=True, exist_ok=True)
    jobs = [(str(path), entry["file"], str(target), budget, search_raw)
            for path, entry in zip(files, manifest["sites"])]
    sites = _run(jobs, _repair_file, workers, progress, "repairing")
    entries = []
    dropped_sites = []
    for entry, site in zip(manifest["sites"], sites):
        if site["site_dropped"]:
            dropped_sites.append({"file": entry["file"], "reason": site["site_dropped"]})
            if target.resolve() == root.resolve():
                (target / entry["file"]).unlink(missing_ok=True)
            continue
        kept = {k: v for k, v in entry.items() if k not in ("defects", "feasible_tasks", "truth")}
        kept.update(id=site["verified_id"], tasks=site["verified"]["tasks"], repairs=len(site["repairs"]),
                    tasks_dropped=len(site["dropped_tasks"]))
        entries.append(kept)
    certified = {k: v for k, v in manifest.items() if k not in ("raw", "defect_model", "model_hash", "sites")}
    certified.update(sites=entries, certified=True, dropped_sites=dropped_sites)
    data = R.build_report(sites, raw_dir=root, budget=budget, mode="repair", seconds=time.perf_counter() - started)
    R.write_report(data, target, html=html)
    _write_json(target / "manifest.json", certified)
    data["manifest"] = certified
    return data


__all__ = ["DEFAULT_BUDGET", "SHIPPABLE", "Side", "SiteReport", "repair_corpus", "repair_site", "replays",
           "verify_corpus", "verify_site"]

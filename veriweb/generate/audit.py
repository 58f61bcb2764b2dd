"""Audit of generated sites: every certificate replays, no-ops fail, infeasible goals stay false.

Run over many seeds to find blueprint bugs the tests' seeds miss::

    python -m veriweb.generate.audit --seeds 0:200 --domains all --jobs 2

It prints, per domain and task family, the tasks a plan failed to solve (dropped at
generation) and the certificates that failed on replay, and exits non-zero on any failure.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from veriweb.engine import Episode, Session
from veriweb.scaffold import Site


@dataclass
class SiteAudit:
    """What went wrong on one site (all empty on a sound site)."""

    domain: str
    seed: int
    tasks: int = 0
    families: Counter[str] = field(default_factory=Counter)
    dropped: list[tuple[str, str]] = field(default_factory=list)
    failures: list[tuple[str, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """No task dropped and no check failed."""
        return not self.dropped and not self.failures


def check_site(site: Site) -> list[tuple[str, str]]:
    """Replay every task of ``site`` in a fresh episode and return ``(task id, problem)`` pairs.

    Checks: the goal is false at the start; the certificate replays without an action error
    to success within half the step budget; a run of no-ops never succeeds; and no state that
    a feasible certificate passes through makes an infeasible task's goal true.
    """
    problems: list[tuple[str, str]] = []
    session = Session(site)
    try:
        for task in site.tasks:
            episode = Episode(site, task, session=session)
            episode.reset()
            if episode.judge.progress().goal:
                problems.append((task.id, "goal true at the start"))
            outcome = None
            for action in task.certificate:
                outcome = episode.step(action)
                if outcome.error is not None:
                    problems.append((task.id, f"{action}: {outcome.error}"))
                    break
                if outcome.terminated or outcome.truncated:
                    break
            if outcome is None or not outcome.success:
                problems.append((task.id, f"certificate does not succeed ({outcome and outcome.info})"))
            if len(task.certificate) > task.max_steps // 2:
                problems.append((task.id, "certificate longer than half the budget"))
            episode.reset()
            for _ in range(task.max_steps):
                outcome = episode.step("noop()")
                if outcome.terminated or outcome.truncated:
                    break
            if outcome is None or outcome.success:
                problems.append((task.id, "a run of no-ops succeeds"))
        infeasible = [t for t in site.tasks if t.kind == "infeasible"]
        judges = [Episode(site, t, session=session).judge for t in infeasible]
        for task in site.tasks:
            if task.kind == "infeasible" or not judges:
                continue
            session.reset(task.start_url, user=task.user if task.start_logged_in else None)
            for action in task.certificate:
                session.step(action)
                for judge in judges:
                    if any(judge.holds(p) for p in judge.task.goal):
                        problems.append((judge.task.id, f"goal reached by the certificate of {task.id}"))
    finally:
        session.close()
    return problems


def audit_one(domain: str, seed: int) -> SiteAudit:
    """Generate ``domain``/``seed`` (dropping failed plans, not raising) and check the result."""
    from veriweb.generate.site import generate_site_checked

    site, dropped = generate_site_checked(domain, seed)
    out = SiteAudit(domain, seed, tasks=len(site.tasks), families=Counter(t.family for t in site.tasks))
    families = {t.id: t.family for t in site.tasks}
    out.dropped = [(line.split(":", 1)[0], line) for line in dropped]
    out.failures = [(families.get(tid, tid), f"{tid}: {msg}") for tid, msg in check_site(site)]
    return out


def _one(args: tuple[str, int]) -> SiteAudit:
    return audit_one(*args)


def audit_arguments(description: str, argv: list[str] | None, *, seeds: str, jobs: int
                    ) -> tuple[argparse.Namespace, list[str], Sequence[int]]:
    """Parse an audit's command line: ``--seeds START:STOP`` (or one seed), ``--domains``, ``--jobs``.

    Returns:
        The parsed arguments, the domains ('all' expanded) and the seeds.
    """
    from veriweb.generate.site import available_domains

    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--seeds", default=seeds, help="START:STOP (a range) or one seed")
    parser.add_argument("--domains", default="all", help="comma-separated, or 'all'")
    parser.add_argument("--jobs", type=int, default=jobs)
    args = parser.parse_args(argv)
    start, _, stop = args.seeds.partition(":")
    chosen = range(int(start), int(stop)) if stop else [int(start)]
    domains = available_domains() if args.domains == "all" else args.domains.split(",")
    return args, domains, chosen


def main(argv: list[str] | None = None) -> int:
    """Command-line entry (see the module docstring)."""
    args, domains, seeds = audit_arguments(__doc__.splitlines()[0], argv, seeds="0:200", jobs=2)
    failing = 0
    with ProcessPoolExecutor(args.jobs) as pool:
        for domain in domains:  # one domain at a time, reported as soon as it is done
            results = list(pool.map(_one, [(domain, s) for s in seeds], chunksize=4))
            failing += _report(domain, seeds, results)
    return 1 if failing else 0


def _report(domain: str, seeds: Sequence[int], results: list[SiteAudit]) -> int:
    """Print one domain's audit; return how many tasks were dropped or failed."""
    dropped: Counter[str] = Counter()
    failed: Counter[str] = Counter()
    examples: dict[str, str] = {}
    for result in results:
        for tid, line in result.dropped:
            name = tid.rstrip("_0123456789") or tid
            dropped[name] += 1
            examples.setdefault("d" + name, f"seed {result.seed}: {line}")
        for family, line in result.failures:
            failed[family] += 1
            examples.setdefault("f" + family, f"seed {result.seed}: {line}")
    tasks = sum(r.tasks for r in results)
    print(f"{domain}: {tasks} tasks kept over {len(seeds)} seeds; dropped {sum(dropped.values())}, "
          f"replay failures {sum(failed.values())}", flush=True)
    for name, n in sorted(dropped.items()):
        print(f"  dropped {name}: {n}   e.g. {examples['d' + name][:300]}", flush=True)
    for name, n in sorted(failed.items()):
        print(f"  failed  {name}: {n}   e.g. {examples['f' + name][:300]}", flush=True)
    return sum(dropped.values()) + sum(failed.values())


if __name__ == "__main__":
    sys.exit(main())

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


def main(argv: list[str] | None = None) -> int:
    """Command-line entry (see the module docstring)."""
    from veriweb.generate.site import available_domains

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0:200", help="START:STOP (a range) or one seed")
    parser.add_argument("--domains", default="all", help="comma-separated, or 'all'")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    start, _, stop = args.seeds.partition(":")
    seeds = range(int(start), int(stop)) if stop else [int(start)]
    domains = available_domains() if args.domains == "all" else args.domains.split(",")
    work = [(d, s) for d in domains for s in seeds]
    dropped: Counter[tuple[str, str]] = Counter()
    failed: Counter[tuple[str, str]] = Counter()
    tasks: Counter[str] = Counter()
    examples: dict[tuple[str, str], str] = {}
    with ProcessPoolExecutor(args.jobs) as pool:
        for result in pool.map(_one, work, chunksize=4):
            tasks[result.domain] += result.tasks
            for tid, line in result.dropped:
                key = (result.domain, tid.rstrip("_0123456789") or tid)
                dropped[key] += 1
                examples.setdefault(key, f"seed {result.seed}: {line}")
            for family, line in result.failures:
                key = (result.domain, family)
                failed[key] += 1
                examples.setdefault(key, f"seed {result.seed}: {line}")
    for domain in domains:
        print(f"{domain}: {tasks[domain]} tasks kept over {len(seeds)} seeds; "
              f"dropped {sum(n for (d, _), n in dropped.items() if d == domain)}, "
              f"replay failures {sum(n for (d, _), n in failed.items() if d == domain)}")
        for (d, name), n in sorted(dropped.items()):
            if d == domain:
                print(f"  dropped {name}: {n}   e.g. {examples[(d, name)][:300]}")
        for (d, name), n in sorted(failed.items()):
            if d == domain:
                print(f"  failed  {name}: {n}   e.g. {examples[(d, name)][:300]}")
    return 1 if dropped or failed else 0


if __name__ == "__main__":
    sys.exit(main())

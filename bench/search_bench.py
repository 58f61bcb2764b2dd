"""Feasibility search: how many generated tasks it solves, at what cost, and how long its solutions are.

Run: ``python bench/search_bench.py`` (``--sites N`` sites per domain, seeds 0..N-1; ``--budget``;
``--exact`` for the shortest-solution A*; ``--verbose`` for one line per task). With ``--corpus SEED``
it instead verifies every task of the first ``--sites`` sites of a corpus with that seed (as
``veriweb generate --seed SEED`` plans them) the way verification does (:func:`verify_task`:
proofs, then the search to the whole step budget) and prints the verdicts, the CPU per site, and
the false-infeasible tasks (a verdict of infeasible on a task whose generator certificate
replays; the certificate is read only for this count). For each domain
it prints the feasible tasks solved / undecided / unsolved, the mean and 95th-percentile CPU
milliseconds per task, the mean number of actions stepped, and the mean ratio of the found
solution's length to the generator's certificate (which the search never reads; the bench reads
it only to compare). Every solution is replayed in a fresh episode and counted as a failure if
it does not succeed. Timings are process CPU time, so other work on the machine does not count.
"""

from __future__ import annotations

import argparse
import statistics
import time

from veriweb.engine import Episode, Session
from veriweb.generate.site import available_domains, generate_site
from veriweb.scaffold import Site, Task
from veriweb.verify.search import solve

VERIFY_SITES = 500
VERIFY_SECONDS = 120.0
CORES = 2


def replays(site: Site, task: Task, actions: list[str]) -> bool:
    """Do ``actions`` solve ``task`` in a fresh episode?"""
    episode = Episode(site, task)
    episode.reset()
    outcome = None
    for action in actions:
        if episode.finished:
            return False
        outcome = episode.step(action)
    return outcome is not None and outcome.success


def p95(values: list[float]) -> float:
    """The 95th percentile (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))] if ordered else 0.0


def corpus(seed: int, sites: int, budget: int, verbose: bool) -> None:
    """Verify every task of the first ``sites`` sites of a corpus with ``seed``; print the verdicts."""
    from collections import Counter

    from veriweb.generate.corpus import build_site, plan_corpus
    from veriweb.verify.feasibility import replay, verify_task

    counts: Counter[str] = Counter()
    false_infeasible: list[str] = []
    cpu = 0.0
    for spec in plan_corpus(sites, [], seed).sites:
        site, _ = build_site(spec)
        session = Session(site)
        started = time.process_time()
        for task in site.tasks:
            verdict = verify_task(site, task.model_copy(update={"certificate": []}), budget=budget, session=session)
            counts[verdict.status] += 1
            if verbose and verdict.status not in ("certified", "proven_infeasible"):
                print(f"  {spec.number} {spec.domain} {task.id} {task.family}: {verdict.status} {verdict.proof[:80]}")
            if verdict.status == "infeasible" and task.kind != "infeasible" and task.certificate \
                    and replay(site, task, task.certificate)[0]:
                false_infeasible.append(f"{spec.number}-{spec.domain}:{task.id}")
        cpu += time.process_time() - started
    verdicts = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    print(f"corpus seed {seed}, {sites} sites, budget {budget}: {verdicts}; false-infeasible "
          f"{len(false_infeasible)} {false_infeasible}; CPU per site {cpu / sites:.2f} s")


def main() -> None:
    """Run the benchmark and print one row per domain and a total."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sites", type=int, default=5, help="sites per domain (seeds 0..N-1)")
    parser.add_argument("--budget", type=int, default=2_000, help="actions the search may step per task")
    parser.add_argument("--exact", action="store_true", help="shortest solutions (A*), slower")
    parser.add_argument("--domains", nargs="*", default=None, help="domains to run (default: all)")
    parser.add_argument("--verbose", action="store_true", help="one line per task")
    parser.add_argument("--corpus", type=int, default=None, metavar="SEED",
                        help="verify the first --sites sites of the corpus with this seed instead")
    args = parser.parse_args()
    if args.corpus is not None:
        corpus(args.corpus, args.sites, args.budget, args.verbose)
        return
    domains = args.domains or list(available_domains())
    header = f"{'domain':8} {'tasks':>5} {'solved':>6} {'undec':>5} {'unsolv':>6} {'bad':>3} " \
             f"{'mean ms':>8} {'p95 ms':>7} {'steps':>6} {'len/cert':>8}"
    print(f"search over {args.sites} sites per domain, budget {args.budget}{' (exact)' if args.exact else ''}")
    print(header)
    totals: dict[str, list[float]] = {"ms": [], "steps": [], "ratio": []}
    counts = {"tasks": 0, "solved": 0, "undecided": 0, "unsolved": 0, "bad": 0}
    for domain in domains:
        ms: list[float] = []
        steps: list[float] = []
        ratios: list[float] = []
        row = {"tasks": 0, "solved": 0, "undecided": 0, "unsolved": 0, "bad": 0}
        for seed in range(args.sites):
            site = generate_site(domain, seed)
            session = Session(site)  # one per site, as verification uses it
            for task in site.tasks:
                if task.kind == "infeasible":
                    continue
                blind = task.model_copy(update={"certificate": []})
                started = time.process_time()
                result = solve(site, blind, session=session, budget=args.budget, exact=args.exact)
                ms.append((time.process_time() - started) * 1000)
                steps.append(result.expanded)
                row["tasks"] += 1
                row[result.status] += 1
                if result.status == "solved":
                    if not replays(site, task, result.actions):
                        row["bad"] += 1
                    if task.certificate:
                        ratios.append(len(result.actions) / len(task.certificate))
                if args.verbose:
                    print(f"  {domain} {seed} {task.family:22} {result.status:9} {result.expanded:5} "
                          f"{len(task.certificate):3} {len(result.actions):3} {ms[-1]:8.1f} ms", flush=True)
        print(f"{domain:8} {row['tasks']:5} {row['solved']:6} {row['undecided']:5} {row['unsolved']:6} "
              f"{row['bad']:3} {statistics.fmean(ms) if ms else 0:8.1f} {p95(ms):7.1f} "
              f"{statistics.fmean(steps) if steps else 0:6.0f} {statistics.fmean(ratios) if ratios else 0:8.2f}",
              flush=True)
        totals["ms"] += ms
        totals["steps"] += steps
        totals["ratio"] += ratios
        for key in counts:
            counts[key] += row[key]
    ms = totals["ms"]
    print(f"{'all':8} {counts['tasks']:5} {counts['solved']:6} {counts['undecided']:5} {counts['unsolved']:6} "
          f"{counts['bad']:3} {statistics.fmean(ms) if ms else 0:8.1f} {p95(ms):7.1f} "
          f"{statistics.fmean(totals['steps']) if ms else 0:6.0f} "
          f"{statistics.fmean(totals['ratio']) if totals['ratio'] else 0:8.2f}")
    if ms and counts["tasks"]:
        per_site = sum(ms) / 1000 / (args.sites * len(domains))
        print(f"solved {counts['solved'] / counts['tasks']:.1%} of feasible tasks; "
              f"search CPU per site {per_site:.2f} s, so {VERIFY_SITES} sites on {CORES} cores: "
              f"{per_site * VERIFY_SITES / CORES:.0f} s (budget for all of verification: {VERIFY_SECONDS:.0f} s)")


if __name__ == "__main__":
    main()

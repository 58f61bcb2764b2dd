"""Benchmark: dynamic feasibility verification and judge probes on generated sites.

For each domain and seed, every task is verified (search certificate, infeasibility proof,
start-state checks), then probed with decoys, using the search's certificate when it found
one and the generator's stored certificate otherwise. Prints task statuses, probe counts per
kind, issues by code, and CPU time per task.

    python bench/verify_bench.py                  # 3 sites per domain, budget 2000
    python bench/verify_bench.py --seeds 1 --budget 500
    python bench/verify_bench.py --raw --seeds 2   # raw sites: statuses against the defect manifest

With ``--raw``, each site first goes through the defect model (``veriweb.verify.defects``) and
the statuses are split by the manifest's ground truth (a task it marks broken, or not); the
verifier never reads the manifest.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter, defaultdict

from veriweb.engine import Session
from veriweb.generate.site import generate_site
from veriweb.verify.feasibility import STATUSES, verify_task
from veriweb.verify.probes import KINDS, probe_issues, probe_task, summarize

DOMAINS = ("shop", "admin", "forum", "code", "travel", "mail")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3, help="sites per domain (seeds 1..N)")
    parser.add_argument("--budget", type=int, default=2_000, help="states the search may expand per task")
    parser.add_argument("--domains", nargs="*", default=list(DOMAINS))
    parser.add_argument("--raw", action="store_true", help="inject defects first and compare with the manifest")
    args = parser.parse_args()
    truth: Counter[tuple[str, str]] = Counter()
    goal_at_start = [0, 0]

    statuses: dict[str, Counter[str]] = defaultdict(Counter)
    probes: dict[str, Counter[str]] = defaultdict(Counter)
    codes: Counter[str] = Counter()
    verify_cpu: dict[str, list[float]] = defaultdict(list)
    probe_cpu: dict[str, list[float]] = defaultdict(list)
    fooled: list[str] = []
    stored_used = not_probed = 0
    for domain in args.domains:
        for seed in range(1, args.seeds + 1):
            site = generate_site(domain, seed)
            feasible: dict[str, bool] = {}
            flagged_at_start: set[str] = set()
            if args.raw:
                from veriweb.verify.defects import inject_site

                injection = inject_site(site, seed)
                site, feasible = injection.site, injection.feasible
                flagged_at_start = {t for d in injection.defects if d.code == "F001" for t in d.tasks}
            session = Session(site)
            for task in site.tasks:
                start = time.process_time()
                verdict = verify_task(site, task, budget=args.budget, session=session)
                verify_cpu[domain].append(time.process_time() - start)
                if args.raw:
                    truth[(verdict.status, "ok" if feasible.get(task.id, True) else "broken")] += 1
                    if task.id in flagged_at_start:
                        goal_at_start[1] += 1
                        goal_at_start[0] += any(i.code == "F001" for i in verdict.issues)
                statuses[domain][verdict.status] += 1
                codes.update(issue.code for issue in verdict.issues)
                certificate = list(verdict.certificate) or list(task.certificate)
                if not certificate:  # raw sites carry none: nothing to probe the judge with
                    not_probed += 1
                    continue
                stored_used += not verdict.certificate
                start = time.process_time()
                found = probe_task(site, task, certificate, session=session)
                probe_cpu[domain].append(time.process_time() - start)
                for kind, row in summarize(found).items():
                    probes[kind].update(row)
                for issue in probe_issues(site, task, found):
                    codes[issue.code] += 1
                    fooled.append(f"{domain}/{seed}/{task.id}: {issue.message}")
            session.close()

    # ------------------------------------------------------------------ report
    print(f"budget {args.budget} states per task; seeds 1..{args.seeds}\n")
    print(f"{'domain':8}" + "".join(f"{s:>18}" for s in STATUSES) + f"{'verify ms/task':>16}{'probe ms/task':>15}")
    total: Counter[str] = Counter()
    for domain in args.domains:
        total.update(statuses[domain])
        v, p = verify_cpu[domain], probe_cpu[domain]
        print(f"{domain:8}" + "".join(f"{statuses[domain][s]:>18}" for s in STATUSES)
              + f"{1000 * sum(v) / max(1, len(v)):>16.0f}{1000 * sum(p) / max(1, len(p)):>15.0f}")
    all_v = [x for d in args.domains for x in verify_cpu[d]]
    all_p = [x for d in args.domains for x in probe_cpu[d]]
    print(f"{'all':8}" + "".join(f"{total[s]:>18}" for s in STATUSES)
          + f"{1000 * sum(all_v) / max(1, len(all_v)):>16.0f}{1000 * sum(all_p) / max(1, len(all_p)):>15.0f}")
    print(f"\ntasks probed with the generator's stored certificate (search found none): {stored_used}; "
          f"not probed (no certificate at all): {not_probed}")
    print(f"\n{'probe kind':14}{'run':>7}{'rejected ok':>13}{'fooled':>8}{'n/a':>7}")
    for kind in KINDS:
        row = probes[kind]
        print(f"{kind:14}{row['run']:>7}{row['ok']:>13}{row['fooled']:>8}{row['n/a']:>7}")
    if args.raw:
        print("\nraw sites, status by the manifest's ground truth (broken = a defect breaks or targets the task):")
        for status in STATUSES:
            print(f"  {status:18} manifest ok {truth[(status, 'ok')]:>4}   manifest broken {truth[(status, 'broken')]:>4}")
        print(f"  injected goal-at-start defects reported as F001: {goal_at_start[0]}/{goal_at_start[1]}")
    print("\nissues by code: " + (", ".join(f"{c} x{n}" for c, n in sorted(codes.items())) or "none"))
    for line in fooled:
        print("  " + line)


if __name__ == "__main__":
    main()

"""Out-of-model recall: do the checks find defects the raw-mode injector never makes?

Applies every variant of :mod:`veriweb.verify.mutations` to clean generated sites of every
domain (seeded, several sites each) and prints, per variant: on how many sites it applied, on
how many the static checks reported a new issue (on how many at the edited JSON location, and
on how many with the code of the variant's class, ``own``), by which codes, and one example
location. A variant that only the engine can find (``dynamic``)
is also put to :func:`veriweb.verify.feasibility.verify_task` for the task it edits. The clean
sites' own issues are printed first: they must be 0.

    python bench/outmodel_bench.py                 # 6 domains x 3 seeds, static checks
    python bench/outmodel_bench.py --seeds 0 1 2 3 --dynamic
    python bench/outmodel_bench.py --only slot_near_miss --verbose
"""

from __future__ import annotations

import argparse
import copy
import re
from collections import Counter, defaultdict

from veriweb.errors import VeriwebError
from veriweb.generate.site import generate_site
from veriweb.scaffold.io import from_data, to_data
from veriweb.verify.checks import static_issues
from veriweb.verify.mutations import EXPECTED, VARIANTS

DOMAINS = ("shop", "admin", "forum", "code", "travel", "mail")


def _near(issue_location: str, edited: str) -> bool:
    """Whether an issue is at the edited place: one path is a prefix of the other (same record)."""
    a, b = issue_location, edited
    return a == b or a.startswith(b + ".") or a.startswith(b + "[") or b.startswith(a + ".") or b.startswith(a + "[")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--domains", nargs="+", default=list(DOMAINS))
    parser.add_argument("--only", nargs="+", default=None, help="variant names to run")
    parser.add_argument("--dynamic", action="store_true", help="also verify the edited task in the engine")
    parser.add_argument("--verbose", action="store_true", help="print every new issue")
    args = parser.parse_args()

    variants = [v for v in VARIANTS if args.only is None or v.name in args.only]
    stats: dict[str, dict[str, object]] = defaultdict(lambda: {"applied": 0, "found": 0, "located": 0, "own": 0,
                                                               "dyn": 0, "codes": Counter(), "example": ""})
    clean_issues = 0
    sites = 0
    for domain in args.domains:
        for seed in args.seeds:
            site = generate_site(domain, seed)
            sites += 1
            base = static_issues(site)
            clean_issues += len(base)
            for issue in base:
                print(f"CLEAN {domain}/{seed}: {issue.code} {issue.location} {issue.message}")
            before = {(i.code, i.location) for i in base}
            data = to_data(site)
            for variant in variants:
                mutated = copy.deepcopy(data)
                where = variant.edit(mutated)
                if where is None:
                    continue
                row = stats[variant.name]
                row["applied"] += 1  # type: ignore[operator]
                try:
                    broken = from_data(mutated, check_id=False)
                except VeriwebError as exc:
                    row["found"] += 1  # type: ignore[operator]
                    row["located"] += 1  # type: ignore[operator]
                    row["codes"]["load"] += 1  # type: ignore[index]
                    row["example"] = row["example"] or f"load error: {str(exc).splitlines()[0][:60]}"
                    continue
                new = [i for i in static_issues(broken) if (i.code, i.location) not in before]
                if args.verbose:
                    print(f"{variant.name} {domain}/{seed} edited {where}")
                    for issue in new:
                        print(f"    {issue.code} {issue.location} {issue.message}")
                if new:
                    row["found"] += 1  # type: ignore[operator]
                    located = [i for i in new if _near(i.location, where)]
                    if located:
                        row["located"] += 1  # type: ignore[operator]
                    if any(i.code == EXPECTED.get(variant.name) for i in new):
                        row["own"] += 1  # type: ignore[operator]
                    for code in sorted({i.code for i in new}):
                        row["codes"][code] += 1  # type: ignore[index]
                    row["example"] = row["example"] or f"{(located or new)[0].code} {(located or new)[0].location}"
                elif args.dynamic and where.startswith("$.tasks["):
                    from veriweb.verify.feasibility import verify_task
                    index = int(re.match(r"\$\.tasks\[(\d+)\]", where).group(1))  # type: ignore[union-attr]
                    verdict = verify_task(broken, broken.tasks[index], budget=2000)
                    if verdict.issues or verdict.status not in ("certified", "proven_infeasible"):
                        row["dyn"] += 1  # type: ignore[operator]
                        for code in sorted({i.code for i in verdict.issues}) or [verdict.status]:
                            row["codes"][f"dyn:{code}"] += 1  # type: ignore[index]

    print(f"\nclean sites: {sites}, static issues on them: {clean_issues}\n")
    print(f"{'variant':26} {'code':>4} {'applied':>7} {'found':>5} {'at':>4} {'own':>4} {'dyn':>4}  codes / example")
    total_applied = total_found = 0
    missed = []
    for variant in variants:
        row = stats.get(variant.name)
        if row is None:
            print(f"{variant.name:26} {0:>7}  (applies to no site)")
            continue
        applied, found = int(row["applied"]), int(row["found"]) + int(row["dyn"])
        total_applied += applied
        total_found += found
        if found < applied:
            missed.append(variant.name)
        codes = ", ".join(f"{c}x{n}" for c, n in sorted(row["codes"].items()))  # type: ignore[union-attr]
        print(f"{variant.name:26} {EXPECTED.get(variant.name, ''):>4} {applied:>7} {row['found']:>5} "
              f"{row['located']:>4} {row['own']:>4} {row['dyn']:>4}  "
              f"{codes}  e.g. {row['example']}")
    print(f"\nvariants: {len(variants)}, applications: {total_applied}, found: {total_found} "
          f"({100 * total_found / max(1, total_applied):.1f}%); variants with a miss: {', '.join(missed) or 'none'}")


if __name__ == "__main__":
    main()

"""Raw corpus figures: defects per site by class, ground-truth feasible tasks, and static-check
recall and precision per code against the injected defects.

    python bench/defects_bench.py --sites 60 [--seed 0] [--workers 2]

A reported issue matches a defect when they share the code and one location is a prefix of the
other (or of one of the defect's related locations); for precision, an issue is also true when
it is a recorded knock-on effect of a defect (a page a broken link leaves unreachable).
Feasibility codes (F...) are found by the dynamic checks, not run here, so their recall is
shown as "dyn".
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from veriweb.generate.corpus import build_site, plan_corpus
from veriweb.verify.checks import CHECKS, CLASSES, static_issues
from veriweb.verify.defects import DEFAULT_MODEL, inject_site


def _near(location: str, place: str) -> bool:
    return location.startswith(place) or place.startswith(location)


def _matches(code: str, location: str, defect: Any) -> bool:
    """Same code at the defect's location (or a related one)."""
    return code == defect.code and any(_near(location, p) for p in (defect.location, *defect.related))


def _explained(code: str, location: str, defect: Any) -> bool:
    """Matched, or a knock-on effect of the defect under another code."""
    return _matches(code, location, defect) or any(c == code and _near(location, p) for c, p in defect.knock_on)


def measure(spec: Any) -> dict[str, Any]:
    """Generate, inject and check one site; count what matched."""
    site, _ = build_site(spec)
    start = time.perf_counter()
    found = inject_site(site, spec.seed, DEFAULT_MODEL)
    inject_s = time.perf_counter() - start
    start = time.perf_counter()
    issues = static_issues(found.site)
    check_s = time.perf_counter() - start
    out: dict[str, Any] = {"defects": len(found.defects), "classes": Counter(d.cls for d in found.defects),
                           "kinds": Counter(d.kind for d in found.defects), "tasks": len(found.feasible),
                           "feasible": sum(found.feasible.values()), "unattributed": len(found.unattributed),
                           "injected": Counter(), "detected": Counter(), "reported": Counter(), "true": Counter(),
                           "inject_s": inject_s, "check_s": check_s}
    for defect in found.defects:
        out["injected"][defect.code] += 1
        if any(_matches(i.code, i.location, defect) for i in issues):
            out["detected"][defect.code] += 1
    for issue in issues:
        out["reported"][issue.code] += 1
        if any(_explained(issue.code, issue.location, d) for d in found.defects):
            out["true"][issue.code] += 1
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sites", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    plan = plan_corpus(args.sites, ["all"], args.seed)
    if args.workers > 1:
        with ProcessPoolExecutor(args.workers) as pool:
            results = list(pool.map(measure, plan.sites))
    else:
        results = [measure(spec) for spec in plan.sites]
    total: dict[str, Counter] = {k: Counter() for k in ("classes", "kinds", "injected", "detected", "reported", "true")}
    for r in results:
        for key in total:
            total[key].update(r[key])
    n = len(results)
    tasks = sum(r["tasks"] for r in results)
    feasible = sum(r["feasible"] for r in results)
    print(f"defect model {DEFAULT_MODEL.config_hash()[:16]} (rate {DEFAULT_MODEL.rate}), {n} sites, seed {args.seed}")
    print(f"defects per site: {sum(r['defects'] for r in results) / n:.2f}  ("
          + ", ".join(f"{c} {total['classes'][c] / n:.2f}" for c in CLASSES) + ")")
    print(f"ground-truth feasible tasks: {feasible}/{tasks} = {100 * feasible / tasks:.1f}%"
          f"  (unattributed broken tasks: {sum(r['unattributed'] for r in results)})")
    print(f"mean inject {sum(r['inject_s'] for r in results) / n:.2f} s/site, "
          f"static checks {1000 * sum(r['check_s'] for r in results) / n:.1f} ms/site")
    print("\nkinds: " + ", ".join(f"{k} {v}" for k, v in sorted(total["kinds"].items())))
    print(f"\n{'code':<6}{'class':<13}{'injected':>9}{'detected':>9}{'recall':>8}"
          f"{'reported':>9}{'true':>6}{'precision':>10}")
    for code in sorted(CHECKS):
        inj, det = total["injected"][code], total["detected"][code]
        rep, true = total["reported"][code], total["true"][code]
        if not (inj or rep):
            continue
        recall = "dyn" if code.startswith("F") else (f"{100 * det / inj:.1f}%" if inj else "-")
        precision = f"{100 * true / rep:.1f}%" if rep else "-"
        print(f"{code:<6}{CHECKS[code][0]:<13}{inj:>9}{det:>9}{recall:>8}{rep:>9}{true:>6}{precision:>10}")
    static_inj = sum(v for k, v in total["injected"].items() if not k.startswith("F"))
    static_det = sum(v for k, v in total["detected"].items() if not k.startswith("F"))
    rep, true = sum(total["reported"].values()), sum(total["true"].values())
    print(f"\nstatic codes overall: recall {100 * static_det / max(static_inj, 1):.1f}% ({static_det}/{static_inj}), "
          f"precision {100 * true / max(rep, 1):.1f}% ({true}/{rep})")


if __name__ == "__main__":
    main()

"""CPU per site of the static repair rounds and of the static checks, against a reference checkout.

Usage::

    python bench/repair_rounds_bench.py --raw /tmp/vw/s5/r3 [--clean DIR --clean-sites 100] [--ref /tmp/ref]

``--raw``: a raw corpus; each site goes through :func:`veriweb.verify.repair.repair_static` (the
checks, the operators, the checks again, to a fixed point) and a digest is taken of everything it
returns (the repaired site's file text, the repairs, what they touched, the issues left, the tasks
dropped). ``--clean``: a corpus of clean sites, put through
:func:`veriweb.verify.checks.static_issues` (their issues are counted: they must be 0). With
``--ref`` (a directory holding another checkout's ``veriweb`` package, e.g. ``git worktree add
/tmp/ref COMMIT``) the same runs are made there in a subprocess: the bench prints both CPU figures,
their ratio, and whether every digest is the same. Process CPU time, printed, never asserted.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any


def run(raw: str | None, clean: str | None, clean_sites: int) -> dict[str, Any]:
    """CPU seconds per site and digests, in this process (whatever ``veriweb`` it imports)."""
    from veriweb.generate.corpus import load_sites
    from veriweb.scaffold.io import dumps
    from veriweb.verify.checks import static_issues
    from veriweb.verify.repair import repair_static

    out: dict[str, Any] = {}
    if raw:
        digests, spent, sites = {}, 0.0, 0
        for site in load_sites(raw):
            started = time.process_time()
            fixed, log, touched, left, ctx = repair_static(site)
            spent += time.process_time() - started
            sites += 1
            record = [dumps(fixed), [r.as_dict() for r in log],
                      [sorted(getattr(touched, k)) for k in ("tables", "pages", "markers", "tasks")],
                      [i.as_dict() for i in left], ctx.dropped_tasks]
            digests[site.name] = hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()[:16]
        out["raw"] = {"sites": sites, "cpu": spent / max(sites, 1), "digests": digests}
    if clean:
        issues, spent, sites = 0, 0.0, 0
        for site in load_sites(clean):
            if sites >= clean_sites:
                break
            started = time.process_time()
            issues += len(static_issues(site))
            spent += time.process_time() - started
            sites += 1
        out["clean"] = {"sites": sites, "cpu": spent / max(sites, 1), "issues": issues}
    return out


def main() -> None:
    """Run the benchmark."""
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        raw, clean, count = (sys.argv[2] or None), (sys.argv[3] or None), int(sys.argv[4])
        print(json.dumps(run(raw, clean, count)))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--raw", default=None, help="a raw corpus to repair (static rounds only)")
    parser.add_argument("--clean", default=None, help="a clean corpus to check")
    parser.add_argument("--clean-sites", type=int, default=100, help="how many clean sites to check")
    parser.add_argument("--ref", default=None, help="a reference checkout (the directory holding veriweb/)")
    args = parser.parse_args()
    results = {}
    for label, path in (("this", str(Path(__file__).resolve().parent.parent)), ("ref", args.ref)):
        if path is None:
            continue
        env = dict(os.environ, PYTHONPATH=str(Path(path).resolve()))
        done = subprocess.run([sys.executable, __file__, "--child", args.raw or "", args.clean or "",
                               str(args.clean_sites)], env=env, check=True, capture_output=True, text=True)
        results[label] = json.loads(done.stdout.strip().splitlines()[-1])
    mine, ref = results["this"], results.get("ref")
    print(f"{'':34}{'this CPU-s/site':>16}" + (f"{'ref CPU-s/site':>16}{'ref/this':>10}" if ref else ""))
    for part, name in (("raw", "repair_static (raw sites)"), ("clean", "static_issues (clean sites)")):
        if part not in mine:
            continue
        line = f"{name:34}{mine[part]['cpu']:>16.3f}"
        if ref:
            line += f"{ref[part]['cpu']:>16.3f}{ref[part]['cpu'] / max(mine[part]['cpu'], 1e-9):>10.2f}"
        print(line + f"   ({mine[part]['sites']} sites)")
    if "clean" in mine:
        print(f"issues on the clean sites: {mine['clean']['issues']}"
              + (f" (ref {ref['clean']['issues']})" if ref else ""))
    if ref and "raw" in mine:
        differ = sorted(k for k in mine["raw"]["digests"] if mine["raw"]["digests"][k] != ref["raw"]["digests"].get(k))
        print("repair_static results the same as the reference on every site" if not differ
              else f"repair_static results DIFFER on {len(differ)} site(s): {', '.join(differ[:8])}")


if __name__ == "__main__":
    main()

"""Verify and repair a raw corpus and print the figures the issue asks for.

Usage::

    python bench/repair_bench.py --sites 30 --seed 4 --budget 2000 --workers 2 [--raw DIR] [--out DIR]

Generates a raw corpus (``veriweb generate --raw``) unless ``--raw`` names an existing one, repairs
it into ``--out``, and prints: defects per site before and after (by class), feasible-task rate,
task retention, false-feasible and undecided tasks, judge probes passed, check recall and
precision against the raw sidecars, and the wall time of the repair.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from veriweb.generate.corpus import plan_corpus, write_corpus
from veriweb.verify.defects import DefectModel
from veriweb.verify.pipeline import repair_corpus
from veriweb.verify.report import format_table


def main() -> None:
    """Run the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sites", type=int, default=30)
    parser.add_argument("--seed", type=int, default=4)
    parser.add_argument("--budget", type=int, default=2000)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--raw", default=None, help="an existing raw corpus (else one is generated)")
    parser.add_argument("--out", default=None, help="where the certified corpus goes (else a temporary directory)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="veriweb-repair-bench-"))
    raw = Path(args.raw) if args.raw else work / "raw"
    if not args.raw:
        started = time.perf_counter()
        write_corpus(plan_corpus(args.sites, ["all"], args.seed), raw, workers=args.workers, progress=False,
                     raw=DefectModel())
        print(f"generated {args.sites} raw sites in {time.perf_counter() - started:.1f} s")
    out = Path(args.out) if args.out else work / "certified"
    started = time.perf_counter()
    report = repair_corpus(raw, out, budget=args.budget, workers=args.workers, progress=False, html=True)
    seconds = time.perf_counter() - started
    print(format_table(report))
    verified = report["verified"]
    print(f"\nrepair wall time {seconds:.1f} s ({seconds / max(report['sites'], 1):.2f} s per site); "
          f"retention {verified['retention']}; drop reasons {verified['drop_reasons']}")
    print(f"report: {out / 'report.json'} and {out / 'report.html'}")


if __name__ == "__main__":
    main()

"""How the search certifies retrieve tasks: without and with the grounding check.

Usage::

    python bench/answer_bench.py CORPUS [--budget 2000]

For every retrieve task of ``CORPUS`` (a generated corpus, e.g. ``veriweb generate --sites 24
--domains all --seed 200 --out h24 --no-verify``), the search's certificate from the task's
start (:func:`veriweb.verify.search.solve`) is set beside the generator's plan, twice: the plain
search, and the grounded one that certifies tasks (``grounded=True``). The plain search tries
the answers a page offers against the judge, so a certificate that answers on the start page,
with a number the page shows for another reason or a title listed there without the figure the
question compares, proves only that the right answer was among the page's strings. The bench
prints, per task family: the retrieve tasks; for the plain search, those certified, those whose
certificate is a single answer on the start page and those
:func:`veriweb.verify.grounding.grounded` finds ungrounded (a rewrite of the rows changes the
right answer and no page the certificate showed); for the grounded search, those certified and
those ungrounded (none, by construction); the generator's plans found ungrounded; and the mean
certificate lengths. Then the overall shares, and the CPU time of each search (a ratio: these
machines are noisy).
"""

from __future__ import annotations

import argparse
import time
from collections import Counter, defaultdict
from pathlib import Path

from veriweb.generate.corpus import load_sites
from veriweb.verify.grounding import grounded
from veriweb.verify.search import solve

COLUMNS = ("tasks", "certified", "one step", "ungrounded", "g. cert.", "g. ungr.", "plan ungr.")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", help="a corpus directory")
    parser.add_argument("--budget", type=int, default=2000, help="the search's budget (default 2000)")
    args = parser.parse_args()
    rows: dict[str, Counter[str]] = defaultdict(Counter)
    seconds = {False: 0.0, True: 0.0}
    for site in load_sites(Path(args.corpus)):
        for task in site.tasks:
            if task.kind != "retrieve":
                continue
            row = rows[task.family]
            row["tasks"] += 1
            row["plan ungr."] += grounded(site, task, task.certificate) is False
            row["plan len"] += len(task.certificate)
            for careful in (False, True):
                start = time.process_time()
                result = solve(site, task, budget=args.budget, grounded=careful)
                seconds[careful] += time.process_time() - start
                if result.status != "solved":
                    continue
                prefix = "g. " if careful else ""
                row[f"{prefix}cert." if careful else "certified"] += 1
                row[f"{prefix}ungr." if careful else "ungrounded"] += grounded(site, task, result.actions) is False
                row[f"{prefix}len"] += len(result.actions)
                if not careful:
                    row["one step"] += len(result.actions) == 1
    print(f"{'family':<26}" + "".join(f" {name:>10}" for name in (*COLUMNS, "len", "g. len", "plan len")))
    for family, row in sorted(rows.items()):
        lengths = [row["len"] / max(row["certified"], 1), row["g. len"] / max(row["g. cert."], 1),
                   row["plan len"] / max(row["tasks"], 1)]
        print(f"{family:<26}" + "".join(f" {row[name]:>10}" for name in COLUMNS)
              + "".join(f" {length:>10.1f}" for length in lengths))
    total = sum(rows.values(), Counter())
    certified, careful = max(total["certified"], 1), max(total["g. cert."], 1)
    print(f"plain search: {total['certified']} of {total['tasks']} retrieve tasks certified, one-step answers "
          f"{total['one step']} ({total['one step'] / certified:.0%}), ungrounded {total['ungrounded']} "
          f"({total['ungrounded'] / certified:.0%})")
    print(f"grounded search: {total['g. cert.']} certified, ungrounded {total['g. ungr.']} "
          f"({total['g. ungr.'] / careful:.0%}); the generator's plans ungrounded: {total['plan ungr.']}")
    print(f"CPU: plain {seconds[False]:.1f} s, grounded {seconds[True]:.1f} s "
          f"(x{seconds[True] / max(seconds[False], 1e-9):.2f})")


if __name__ == "__main__":
    main()

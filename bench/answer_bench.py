"""How the search certifies retrieve tasks: how many of its certificates answer without moving.

Usage::

    python bench/answer_bench.py CORPUS [--budget 2000]

For every retrieve task of ``CORPUS`` (a generated corpus, e.g. ``veriweb generate --sites 24
--domains all --seed 200 --out h24 --no-verify``), the search's certificate from the task's
start (:func:`veriweb.verify.search.solve`) is set beside the generator's plan. The search tries
the answers a page offers against the judge, so a certificate that answers on the start page,
with a number the page shows for another reason or a title listed there without the figure the
question compares, proves only that the right answer was among the page's strings. The bench
prints, per task family: the retrieve tasks, those certified, those whose certificate is a
single answer on the start page, those :func:`veriweb.verify.grounding.grounded` finds
ungrounded (a rewrite of the rows changes the right answer and no page the certificate showed),
for the search's certificate and for the generator's plan, and the mean length of both; then
the overall shares. Nothing is timed.
"""

from __future__ import annotations

import argparse
from collections import Counter, defaultdict
from pathlib import Path

from veriweb.generate.corpus import load_sites
from veriweb.verify.grounding import grounded
from veriweb.verify.search import solve


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", help="a corpus directory")
    parser.add_argument("--budget", type=int, default=2000, help="the search's budget (default 2000)")
    args = parser.parse_args()
    rows: dict[str, Counter[str]] = defaultdict(Counter)
    for site in load_sites(Path(args.corpus)):
        for task in site.tasks:
            if task.kind != "retrieve":
                continue
            result = solve(site, task, budget=args.budget)
            row = rows[task.family]
            row["tasks"] += 1
            if result.status == "solved":
                row["certified"] += 1
                row["one step"] += len(result.actions) == 1
                row["ungrounded"] += grounded(site, task, result.actions) is False
                row["plan ungr."] += grounded(site, task, task.certificate) is False
                row["search len"] += len(result.actions)
                row["plan len"] += len(task.certificate)
    counts = ("tasks", "certified", "one step", "ungrounded", "plan ungr.")
    print(f"{'family':<26}" + "".join(f" {name:>10}" for name in (*counts, "search len", "plan len")))
    for family, row in sorted(rows.items()):
        lengths = [row[name] / max(row["certified"], 1) for name in ("search len", "plan len")]
        print(f"{family:<26}" + "".join(f" {row[name]:>10}" for name in counts)
              + "".join(f" {length:>10.1f}" for length in lengths))
    total = sum(rows.values(), Counter())
    certified = max(total["certified"], 1)
    print(f"one-step answers: {total['one step']} of {total['certified']} certified retrieve tasks "
          f"({total['one step'] / certified:.0%}); ungrounded: the search's {total['ungrounded']} "
          f"({total['ungrounded'] / certified:.0%}), the generator's plans' {total['plan ungr.']} "
          f"({total['plan ungr.'] / certified:.0%})")

if __name__ == "__main__":
    main()

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
from collections import defaultdict
from pathlib import Path

from veriweb.generate.corpus import load_sites
from veriweb.verify.grounding import grounded
from veriweb.verify.search import solve


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", help="a corpus directory")
    parser.add_argument("--budget", type=int, default=2000, help="the search's budget (default 2000)")
    args = parser.parse_args()
    rows: dict[str, list[int]] = defaultdict(lambda: [0] * 7)  # tasks, certified, one step, lengths, ungrounded
    for site in load_sites(Path(args.corpus)):
        for task in site.tasks:
            if task.kind != "retrieve":
                continue
            result = solve(site, task, budget=args.budget)
            row = rows[task.family]
            row[0] += 1
            if result.status == "solved":
                row[1] += 1
                row[2] += len(result.actions) == 1
                row[3] += len(result.actions)
                row[4] += len(task.certificate)
                row[5] += grounded(site, task, result.actions) is False
                row[6] += grounded(site, task, task.certificate) is False
    print(f"{'family':<26} {'tasks':>6} {'certified':>10} {'one step':>9} {'ungrounded':>11} {'plan ungr.':>11} "
          f"{'search len':>11} {'plan len':>9}")
    for family, (tasks, certified, one, length, plan, loose, plan_loose) in sorted(rows.items()):
        print(f"{family:<26} {tasks:>6} {certified:>10} {one:>9} {loose:>11} {plan_loose:>11} "
              f"{length / max(certified, 1):>11.1f} {plan / max(certified, 1):>9.1f}")
    certified, one, loose, plan_loose = (sum(r[k] for r in rows.values()) for k in (1, 2, 5, 6))
    print(f"one-step answers: {one} of {certified} certified retrieve tasks ({one / max(certified, 1):.0%}); "
          f"ungrounded: the search's {loose} ({loose / max(certified, 1):.0%}), the generator's plans' {plan_loose} "
          f"({plan_loose / max(certified, 1):.0%})")


if __name__ == "__main__":
    main()

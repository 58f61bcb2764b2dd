"""Diversity of generated sites without writing a corpus: per domain, tasks per site, the share of
hard tasks, page-graph classes, label-vocabulary overlap, and certificate skeletons per family
(with how many tasks of the family there were), printed as a table.

    python bench/generate_diversity.py --sites 84 --jobs 2

``--sites`` is per domain (84 per domain is a 500-site corpus over six domains).
"""

from __future__ import annotations

import argparse
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from veriweb.generate.site import available_domains, generate_site_checked
from veriweb.generate.stats import DomainStats, graph_class, skeletons, vocabulary


def _one(args: tuple[str, int]) -> dict[str, Any]:
    domain, seed = args
    site, dropped = generate_site_checked(domain, seed)
    return {"domain": domain, "graph": graph_class(site), "skeletons": skeletons(site),
            "vocabulary": vocabulary(site), "families": Counter(t.family for t in site.tasks),
            "difficulty": Counter(t.difficulty for t in site.tasks), "kinds": Counter(t.kind for t in site.tasks),
            "tasks": len(site.tasks), "dropped": len(dropped)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sites", type=int, default=84, help="sites per domain")
    parser.add_argument("--first-seed", type=int, default=1000)
    parser.add_argument("--domains", default="all")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    domains = available_domains() if args.domains == "all" else args.domains.split(",")
    total_tasks = total_sites = total_hard = 0
    with ProcessPoolExecutor(args.jobs) as pool:
        for domain in domains:
            work = [(domain, args.first_seed + n) for n in range(args.sites)]
            stats = DomainStats()
            families: Counter[str] = Counter()
            shapes: dict[str, set[Any]] = defaultdict(set)
            kinds: Counter[str] = Counter()
            hard = dropped = 0
            for result in pool.map(_one, work, chunksize=2):
                stats.sites += 1
                stats.tasks += result["tasks"]
                stats.graph_classes.add(result["graph"])
                stats.vocabularies.append(result["vocabulary"])
                families.update(result["families"])
                kinds.update(result["kinds"])
                hard += result["difficulty"]["hard"]
                dropped += result["dropped"]
                for family, found in result["skeletons"].items():
                    shapes[family].update(found)
            total_tasks += stats.tasks
            total_sites += stats.sites
            total_hard += hard
            low = {f: f"{len(shapes[f])}/{families[f]}" for f in sorted(families) if len(shapes[f]) < 10}
            print(f"{domain}: {stats.sites} sites, {stats.tasks} tasks ({stats.tasks / stats.sites:.1f}/site, "
                  f"{dropped} dropped), hard {hard / max(stats.tasks, 1):.0%}, infeasible "
                  f"{kinds['infeasible'] / max(stats.tasks, 1):.1%}, page-graph classes {len(stats.graph_classes)}, "
                  f"vocabulary overlap {stats.vocabulary_overlap():.0%}", flush=True)
            print("  skeletons " + ", ".join(f"{f} {len(shapes[f])}/{families[f]}" for f in sorted(families)), flush=True)
            print(f"  families under 10 skeletons: {low or 'none'}", flush=True)
    print(f"all: {total_sites} sites, {total_tasks} tasks, hard {total_hard / max(total_tasks, 1):.0%}")


if __name__ == "__main__":
    main()

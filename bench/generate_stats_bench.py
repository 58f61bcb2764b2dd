"""Speed of ``veriweb stats``: CPU seconds per site by part (load, page graph, skeletons,
vocabulary), and the whole directory in one process and in ``--workers`` processes (prints,
never asserts).

Usage::

    python bench/generate_stats_bench.py DIR [--sites 60] [--workers 2]

``DIR`` is a corpus (``veriweb generate ... --out DIR``). ``--sites`` limits the per-part
timing to the first sites of the corpus; the whole-directory runs read every site. CPU seconds,
not wall seconds, for the parts (the machine is shared); the directory runs print both, the
workers' CPU time read from ``RUSAGE_CHILDREN``.
"""

from __future__ import annotations

import argparse
import resource
import time
from collections import defaultdict

from veriweb.generate.corpus import read_corpus
from veriweb.generate.stats import corpus_dir_stats, format_stats, graph_class, skeletons, vocabulary
from veriweb.scaffold import load


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def parts(directory: str, sites: int) -> None:
    """CPU seconds per site of each part of :func:`veriweb.generate.stats.site_stats`."""
    _, files = read_corpus(directory)
    totals: dict[str, float] = defaultdict(float)
    for path in files[:sites]:
        start = time.process_time()
        site = load(path)
        totals["load"] += time.process_time() - start
        for name, part in (("page graph", graph_class), ("skeletons", skeletons), ("vocabulary", vocabulary)):
            start = time.process_time()
            part(site)
            totals[name] += time.process_time() - start
    count = min(sites, len(files))
    print(f"per site over {count} sites (CPU s): " + ", ".join(f"{k} {v / count:.3f}" for k, v in totals.items())
          + f"; total {sum(totals.values()) / count:.3f}")


def whole(directory: str, workers: int) -> str:
    """Time the whole directory with ``workers`` processes and return the printed table."""
    cpu, wall = _cpu(), time.perf_counter()
    text = format_stats(corpus_dir_stats(directory, workers=workers))
    print(f"{workers} process{'es' if workers > 1 else ''}: {time.perf_counter() - wall:.1f} s wall, "
          f"{_cpu() - cpu:.1f} CPU s")
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir")
    parser.add_argument("--sites", type=int, default=60, help="sites timed part by part")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    parts(args.dir, args.sites)
    one = whole(args.dir, 1)
    many = whole(args.dir, args.workers)
    print("same table from both runs:", one == many)


if __name__ == "__main__":
    main()

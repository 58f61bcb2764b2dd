"""Generation speed: CPU seconds per site, by stage and by domain, and a whole corpus (prints, never asserts).

Usage::

    python bench/generate_bench.py [--seeds 4] [--domains all] [--corpus 0] [--workers 2]

Stages of one site (``veriweb.generate.site``): the blueprint draws the site's data, the
scaffold model validates it, a session builds its SQLite database, every task's plan is run in
the engine to give its certificate (``resolve``), and the finished site is hashed and written
as its file text (``identify``). CPU seconds, not wall seconds: the machine is shared, and CPU
time per site is what decides how long a corpus takes on free cores (500 sites in 60 s on two
cores needs at most 0.24 CPU seconds a site, pool overhead included).

``--corpus N`` also writes an N-site corpus with ``--workers`` processes and prints its CPU
seconds per site, workers included (their CPU time is read from ``RUSAGE_CHILDREN``).
"""

from __future__ import annotations

import argparse
import gc
import resource
import shutil
import tempfile
import time
from collections import defaultdict

from veriweb.engine import Session
from veriweb.generate.corpus import plan_corpus, write_corpus
from veriweb.generate.site import _registry, _resolve_all, available_domains, draft_site
from veriweb.generate.streams import GENERATOR_VERSION, Streams
from veriweb.scaffold.io import identify
from veriweb.scaffold.site import Site, Task

STAGES = ("blueprint", "validate", "session", "resolve", "identify")


def stage_times(domain: str, seed: int) -> tuple[dict[str, float], int]:
    """CPU seconds of each stage for one site, as ``draft_site`` runs them; and its task count."""
    times: dict[str, float] = {}
    clock = time.process_time()

    def lap(stage: str) -> None:
        nonlocal clock
        now = time.process_time()
        times[stage] = now - clock
        clock = now

    draft = _registry()[domain](Streams(seed, domain))
    lap("blueprint")
    data = dict(draft.site)
    data.update(generator=GENERATOR_VERSION, domain=domain, tasks=[])
    data.setdefault("description", f"A generated {domain} site (seed {seed}).")
    base = Site.model_validate(data)
    lap("validate")
    session = Session(base)
    lap("session")
    tasks: list[Task] = []
    _resolve_all(draft, base, session, tasks, [], False)
    session.close()
    lap("resolve")
    identify(base.model_copy(update={"tasks": tasks}))
    lap("identify")
    return times, len(tasks)


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=4, help="seeds per domain for the stage figures")
    parser.add_argument("--domains", default="all")
    parser.add_argument("--corpus", type=int, default=0, help="also write a corpus of this many sites")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    domains = available_domains() if args.domains == "all" else args.domains.split(",")
    for domain in domains:  # imports and first-use caches stay out of the figures
        draft_site(domain, 10_000)
    gc.collect()
    gc.freeze()  # as the corpus writer does
    totals: dict[str, float] = defaultdict(float)
    per_domain: dict[str, float] = defaultdict(float)
    tasks = 0
    collecting = gc.isenabled()
    for seed in range(args.seeds):
        for domain in domains:
            gc.disable()  # as draft_site does; the collection afterwards is counted below
            times, count = stage_times(domain, seed)
            start = time.process_time()
            if collecting:
                gc.enable()
            gc.collect()
            times["gc"] = time.process_time() - start
            tasks += count
            for stage, seconds in times.items():
                totals[stage] += seconds
                per_domain[domain] += seconds
    sites = args.seeds * len(domains)
    whole = sum(totals.values())
    print(f"{sites} sites, {tasks} tasks: {whole / sites:.3f} CPU s a site")
    for stage in (*STAGES, "gc"):
        print(f"  {stage:<10} {1000 * totals[stage] / sites:7.1f} ms  {100 * totals[stage] / whole:4.1f}%")
    print("  by domain: " + ", ".join(f"{d} {per_domain[d] / args.seeds:.3f} s" for d in domains))
    if args.corpus:
        out = tempfile.mkdtemp(prefix="vw-gen-bench-")
        try:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu, wall = time.process_time(), time.perf_counter()
            manifest = write_corpus(plan_corpus(args.corpus, domains, 0), out, workers=args.workers,
                                    progress=False)
            wall = time.perf_counter() - wall
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (time.process_time() - cpu + after.ru_utime - before.ru_utime + after.ru_stime
                   - before.ru_stime)
            count = sum(entry["tasks"] for entry in manifest["sites"])
            print(f"corpus: {args.corpus} sites, {count} tasks, {args.workers} workers: {cpu:.1f} CPU s "
                  f"({cpu / args.corpus:.3f} a site), {wall:.1f} s wall")
        finally:
            shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()

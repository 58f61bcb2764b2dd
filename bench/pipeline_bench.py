"""Verify and repair CPU per site, by stage, against a reference checkout: the ratio and byte identity.

Usage::

    python bench/pipeline_bench.py --clean C --raw R                    # this checkout only
    python bench/pipeline_bench.py --clean C --raw R --ref /tmp/ref     # and a reference, side by side

``--clean`` is a corpus to verify (``veriweb generate --no-verify``), ``--raw`` one to repair
(``veriweb generate --raw``); either may be left out. Each run is one process with one worker
(``--workers 1``), so its CPU time is the work itself. ``--ref`` names another checkout of
veriweb (a directory holding the ``veriweb`` package, e.g. ``git worktree add /tmp/ref COMMIT``);
the same runs are made there in a subprocess, and the bench prints CPU seconds per site for both
and their ratio, stage by stage, then says whether ``report.json``, ``manifest.json`` and every
site file came out byte for byte the same.

Stages are exclusive CPU time (a stage nested in another is not counted twice), measured by
wrapping these functions wherever a veriweb module holds them: the static checks, the repair
operators, the search, the infeasibility proofs, the start-state checks, certificate replays,
judge probes, the certificate visits and the retarget candidates; what is left (loading, saving,
sessions, reports) is ``other``. Timings are process CPU time, so other work on the machine
counts little; they are printed, never asserted.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

STAGES = (
    ("static checks", "veriweb.verify.checks", "static_issues"),
    ("static checks", "veriweb.verify.recheck", "check_site"),
    ("static checks", "veriweb.verify.recheck", "recheck"),
    ("repair operators", "veriweb.verify.repair", "apply_repairs"),
    ("search", "veriweb.verify.search", "solve"),
    ("proofs", "veriweb.verify.proofs", "prove_infeasible"),
    ("proofs", "veriweb.verify.proofs", "unreachable_goal"),
    ("start checks", "veriweb.verify.feasibility", "start_issues"),
    ("start checks", "veriweb.verify.feasibility", "noop_issues"),
    ("replays", "veriweb.verify.feasibility", "replay"),
    ("probes", "veriweb.verify.probes", "probe_task"),
    ("visits", "veriweb.verify.pipeline", "_visits"),
    ("retarget", "veriweb.verify.retarget", "candidates"),
)
"""(stage, module, function): each function's exclusive CPU time is charged to its stage."""

PHASES = (
    ("raw: checks, verdicts, probes", "veriweb.verify.pipeline", "_examine"),
    ("repair rounds", "veriweb.verify.repair", "repair_static"),
    ("re-verification", "veriweb.verify.pipeline", "_verdicts"),
    ("retarget", "veriweb.verify.pipeline", "_retarget"),
    ("probes of kept tasks", "veriweb.verify.pipeline", "_keep"),
    ("visits", "veriweb.verify.pipeline", "_visits"),
)
"""(phase, module, function) of :func:`veriweb.verify.pipeline.repair_site`: inclusive CPU time (a
``_verdicts`` call inside ``_examine`` belongs to the raw phase)."""


class Clock:
    """Exclusive CPU time per stage: a call's time minus the time of the stages it calls; and inclusive
    CPU time per phase."""

    def __init__(self) -> None:
        self.spent: Counter[str] = Counter()
        self.stack: list[list[float]] = []
        self.phases: Counter[str] = Counter()
        self.open: list[str] = []

    def phase(self, name: str, func: Any) -> Any:
        """``func``, charging its whole CPU time to phase ``name`` unless a phase is open already."""
        clock = self

        def timed(*args: Any, **kwargs: Any) -> Any:
            if clock.open:
                return func(*args, **kwargs)
            clock.open.append(name)
            started = time.process_time()
            try:
                return func(*args, **kwargs)
            finally:
                clock.open.pop()
                clock.phases[name] += time.process_time() - started

        timed.__wrapped__ = func  # type: ignore[attr-defined]
        return timed

    def wrap(self, stage: str, func: Any) -> Any:
        """``func``, charging its own CPU time to ``stage``."""
        clock = self

        def timed(*args: Any, **kwargs: Any) -> Any:
            frame = [time.process_time(), 0.0]
            clock.stack.append(frame)
            try:
                return func(*args, **kwargs)
            finally:
                clock.stack.pop()
                total = time.process_time() - frame[0]
                clock.spent[stage] += total - frame[1]
                if clock.stack:
                    clock.stack[-1][1] += total

        timed.__wrapped__ = func  # type: ignore[attr-defined]
        return timed


def instrument(clock: Clock) -> None:
    """Replace each staged function, in every loaded veriweb module that holds it, by its timed wrapper."""
    import veriweb.verify.pipeline  # noqa: F401  (loads what the pipeline imports at the top)

    for kind, stage, module_name, name in [("stage", *row) for row in STAGES] + [("phase", *row) for row in PHASES]:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        original = getattr(module, name, None)
        if original is None:
            continue
        timed = clock.wrap(stage, original) if kind == "stage" else clock.phase(stage, original)
        for loaded in list(sys.modules.values()):
            if getattr(loaded, "__name__", "").startswith("veriweb") and getattr(loaded, name, None) is original:
                setattr(loaded, name, timed)


def run(mode: str, corpus: str, out: str, search_raw: bool = False) -> dict[str, Any]:
    """Verify (``mode="verify"``) or repair one corpus in this process; CPU seconds by stage."""
    from veriweb.verify.pipeline import repair_corpus, verify_corpus

    clock = Clock()
    instrument(clock)
    started = time.process_time()
    if mode == "verify":
        data = verify_corpus(corpus, workers=1, progress=False)
    elif search_raw:  # a checkout whose repair_corpus has no such switch searches every raw task anyway
        data = repair_corpus(corpus, out, workers=1, progress=False, search_raw=True)
    else:
        data = repair_corpus(corpus, out, workers=1, progress=False)
    total = time.process_time() - started
    stages = dict(clock.spent)
    stages["other"] = total - sum(stages.values())
    phases = dict(clock.phases)
    if mode == "repair":
        phases["rest (final replays, checks, files)"] = total - sum(phases.values())
    return {"total": total, "stages": stages, "phases": phases, "sites": data["raw"]["sites"]}


def measure(mode: str, corpus: Path, work: Path, label: str, pythonpath: str | None,
            search_raw: bool = False) -> dict[str, Any]:
    """Copy ``corpus`` into ``work`` and run ``mode`` on it, here or (with ``pythonpath``) in a subprocess."""
    source = work / f"{label}-{mode}-in"
    out = work / f"{label}-{mode}-out"
    shutil.rmtree(source, ignore_errors=True)
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(corpus, source)
    target = source if mode == "verify" else out
    if pythonpath is None:
        figures = run(mode, str(source), str(out), search_raw)
    else:
        env = dict(os.environ, PYTHONPATH=pythonpath)
        done = subprocess.run([sys.executable, __file__, "--child", mode, str(source), str(out)]
                              + (["--search-raw"] if search_raw else []), env=env,
                              check=True, capture_output=True, text=True)
        figures = json.loads(done.stdout.strip().splitlines()[-1])
    figures["dir"] = str(target)
    return figures


def same_bytes(a: Path, b: Path) -> list[str]:
    """Files of two corpus outputs that differ (``report.json``, ``manifest.json``, ``sites/*``)."""
    names = {"report.json", "manifest.json"}
    for root in (a, b):
        names |= {f"sites/{p.name}" for p in (root / "sites").glob("*.json")} if (root / "sites").exists() else set()
    return sorted(n for n in names
                  if not (a / n).exists() or not (b / n).exists() or (a / n).read_bytes() != (b / n).read_bytes())


def report_changes(a: Path, b: Path) -> str:
    """Which summary figures of two ``report.json`` differ (raw and verified side), this against the reference."""
    mine, ref = (json.loads((root / "report.json").read_text()) for root in (a, b))
    lines = []
    for side in ("raw", "verified"):
        for key in sorted(set(mine.get(side) or {}) | set(ref.get(side) or {})):
            here, there = (mine.get(side) or {}).get(key), (ref.get(side) or {}).get(key)
            if here != there:
                lines.append(f"  {side}.{key}: {there} -> {here}")
    return "report.json figures that differ (reference -> this):\n" + ("\n".join(lines) or "  none")


def table(mode: str, mine: dict[str, Any], ref: dict[str, Any] | None, part: str = "stages") -> None:
    """Print CPU seconds per site by stage or phase (and the reference's, and the ratio)."""
    sites = max(1, mine["sites"])
    names = sorted(set(mine[part]) | set(ref[part] if ref else ()), key=lambda s: -(ref or mine)[part].get(s, 0.0))
    head = f"{mode + ' ' + part[:-1]:38}{'this CPU-s/site':>16}"
    if ref:
        head += f"{'ref CPU-s/site':>16}{'ref/this':>10}"
    print(head)
    for name in [*names, "total"]:
        here = (mine["total"] if name == "total" else mine[part].get(name, 0.0)) / sites
        line = f"{name:38}{here:>16.3f}"
        if ref:
            there = (ref["total"] if name == "total" else ref[part].get(name, 0.0)) / sites
            line += f"{there:>16.3f}{(there / here if here > 1e-9 else float('inf')):>10.2f}"
        print(line)


def main() -> None:
    """Run the benchmark."""
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        print(json.dumps(run(sys.argv[2], sys.argv[3], sys.argv[4], "--search-raw" in sys.argv[5:])))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clean", default=None, help="a corpus to verify")
    parser.add_argument("--raw", default=None, help="a raw corpus to repair")
    parser.add_argument("--ref", default=None, help="a reference checkout (the directory holding veriweb/)")
    parser.add_argument("--work", default=None, help="where the copies and outputs go (default: a temporary dir)")
    parser.add_argument("--search-raw", action="store_true",
                        help="this checkout searches every raw task on the raw site too (repair_site(search_raw=True))")
    args = parser.parse_args()
    work = Path(args.work or tempfile.mkdtemp(prefix="veriweb-pipeline-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    here = str(Path(__file__).resolve().parent.parent)
    for mode, corpus in (("verify", args.clean), ("repair", args.raw)):
        if corpus is None:
            continue
        mine = measure(mode, Path(corpus), work, "this", here, args.search_raw)
        ref = measure(mode, Path(corpus), work, "ref", str(Path(args.ref).resolve())) if args.ref else None
        print(f"\n{mode} {corpus}: {mine['sites']} sites, one process")
        table(mode, mine, ref)
        if mode == "repair":
            print()
            table(mode, mine, ref, "phases")
        if ref:
            diff = same_bytes(Path(mine["dir"]), Path(ref["dir"]))
            print("outputs byte for byte the same as the reference" if not diff
                  else f"outputs DIFFER from the reference: {', '.join(diff[:8])}")
            if "report.json" in diff:
                print(report_changes(Path(mine["dir"]), Path(ref["dir"])))


if __name__ == "__main__":
    main()

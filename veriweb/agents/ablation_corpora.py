"""The ablation's corpora, made from one seed and one defect rate, cached under the output directory.

For a defect rate ``R`` (:func:`rate_corpora`), under ``DIR/corpora/rate-R/``:

- ``raw-sites``: ``veriweb generate --raw --defect-rate R``: clean sites of the train split with
  the defect model's defects injected; raw sites ship without certificates;
- ``raw``: the same raw sites, each task carrying the certificate its author planned for it (the
  generator's plan, made on the clean site before the defects went in): the author's claimed
  solution, unchecked;
- ``judged``: the same raw sites, each task searched against its own judge (the raw site's, defects
  and all) with the verifier's search and budget, keeping the trace that judge accepts; no check,
  proof, judge probe or repair. This is what rejection sampling (or an RL reward) takes from a raw
  site: a wrong judge's "success" is kept, a task no trace satisfies gives nothing, and a task its
  author called infeasible is rewarded for ``report_infeasible`` whatever the site holds;
- ``filtered``: the raw sites, unrepaired, keeping only the tasks the verifier ships (certified
  by search and every judge decoy rejected, or proven infeasible), with the verifier's
  certificates; a site left with no task is dropped;
- ``verified``: ``veriweb repair`` of the raw sites (repaired, re-verified, certified);
- ``subsampled``: the verified corpus cut, by a seeded draw over all its tasks, to as many tasks
  as ``filtered`` has.

The held-out test corpus (:func:`heldout_corpus`, ``DIR/corpora/test``) is generated from another
seed on the test split and certified by ``veriweb repair``: no training arm ever sees its sites.

Every corpus is built in a ``.partial`` directory and renamed into place when complete, with a
``ablation.json`` stamp of what made it; a complete corpus with the same stamp is reused, a
``.partial`` one is thrown away and made again, and one with another stamp is refused.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from veriweb.errors import VeriwebError
from veriweb.generate.corpus import _write_json, build_site, plan_corpus, read_corpus, run_jobs, write_corpus
from veriweb.scaffold import load, save
from veriweb.scaffold.io import with_id

STAMP = "ablation.json"
"""The file that marks a corpus complete, holding what made it."""

ARM_CORPORA = ("raw", "judged", "filtered", "verified", "subsampled")


def rate_label(rate: float) -> str:
    """The directory name of a defect rate (``rate-06``, ``rate-12.5``)."""
    return f"rate-{int(rate):02d}" if float(rate).is_integer() else f"rate-{rate:g}"


def cached(directory: Path, stamp: dict[str, Any], make: Callable[[Path], None], say: Callable[[str], None]) -> Path:
    """``directory``, made by ``make(partial_dir)`` unless a complete copy with the same ``stamp`` exists.

    Raises:
        VeriwebError: ``directory`` is complete but was made with another stamp.
    """
    marker = directory / STAMP
    if marker.is_file():
        found = json.loads(marker.read_text(encoding="utf-8"))
        if found != stamp:
            raise VeriwebError(f"{directory} was made with other settings ({found}); give another --out or "
                               "remove it")
        say(f"  cached {directory}")
        return directory
    partial = directory.with_name(directory.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)  # half-written by a run that stopped: never counts
    shutil.rmtree(directory, ignore_errors=True)  # no stamp: not complete either
    partial.mkdir(parents=True)
    say(f"  making {directory}")
    make(partial)
    _write_json(partial / STAMP, stamp)
    os.replace(partial, directory)
    return directory


def _derived(source: Path, out: Path, sites: list[tuple[dict[str, Any], Any]], note: str) -> None:
    """Write ``sites`` (manifest entry, and the site or ``None`` to drop it) as a corpus at ``out``, with
    ``source``'s manifest fields."""
    manifest, _ = read_corpus(source)
    entries = []
    for entry, site in sites:
        if site is None or not site.tasks:
            continue
        (out / entry["file"]).parent.mkdir(parents=True, exist_ok=True)
        save(site, out / entry["file"])
        entries.append({k: v for k, v in entry.items() if k not in ("truth",)} | {"id": site.id,
                                                                                   "tasks": len(site.tasks)})
    if not entries:
        raise VeriwebError(f"{out}: no site kept a task ({note}); try more sites")
    _write_json(out / "manifest.json", {k: v for k, v in manifest.items() if k != "sites"}
                | {"sites": entries, "derived": note})


# ----------------------------------------------------------------------------- raw arm: the author's plans


def _with_plans(path: str, seed: int, split: str, number: int, domain: str) -> Any:
    """The raw site at ``path``, each task carrying the certificate its clean original was generated with."""
    from veriweb.generate.corpus import SiteSpec

    raw = load(path)
    clean, _ = build_site(SiteSpec(number, domain, seed, split))
    plans = {t.id: list(t.certificate) for t in clean.tasks}
    tasks = [t.model_copy(update={"certificate": plans.get(t.id, [])}) for t in raw.tasks]
    return with_id(raw.model_copy(update={"tasks": tasks}))


def author_corpus(raw_sites: Path, out: Path, *, workers: int | None) -> None:
    """The raw corpus with each task's author certificate restored (see the module docstring)."""
    manifest, files = read_corpus(raw_sites)
    jobs = [(str(path), int(entry["seed"]), manifest["split"], number, entry["domain"])
            for number, (path, entry) in enumerate(zip(files, manifest["sites"]))]
    sites = run_jobs(jobs, _with_plans, workers=workers, progress=False, label="author plans")
    _derived(raw_sites, out, list(zip(manifest["sites"], sites)), "raw sites with their author's certificates")


# ----------------------------------------------------------------------------- judged arm: the site's own judge


def judged_site(site: Any, budget: int) -> tuple[Any, dict[str, str]]:
    """``site`` keeping each task that a trace satisfies by its own judge, that trace as its certificate, and
    what became of every task (``solved``, ``reported`` for an infeasible-kind task, or why it gave nothing).

    The search is the verifier's (:func:`veriweb.verify.search.solve`, grounded, the task's step budget as its
    depth); nothing else of the verifier runs. A task whose goal holds at the start gives no step to clone.
    """
    from veriweb.engine import Session
    from veriweb.verify.feasibility import replay
    from veriweb.verify.pipeline import INFEASIBLE_CERTIFICATE
    from veriweb.verify.search import solve

    kept, outcome = [], {}
    session = Session(site)
    try:
        for task in site.tasks:
            if task.kind == "infeasible":
                actions, what = [INFEASIBLE_CERTIFICATE], "reported"
            else:
                try:
                    result = solve(site, task, budget=budget, session=session, max_depth=task.max_steps,
                                   grounded=True)
                except VeriwebError as exc:  # the task cannot be run at all: no episode, no reward
                    outcome[task.id] = f"cannot run: {exc}"
                    continue
                if result.status != "solved":
                    outcome[task.id] = result.status
                    continue
                actions, what = result.actions, "solved"
            if not actions:
                outcome[task.id] = "goal at the start"
                continue
            try:
                ok, why = replay(site, task, actions, session=session)
            except VeriwebError as exc:
                ok, why = False, str(exc)
            if not ok:
                outcome[task.id] = f"does not replay: {why}"
                continue
            outcome[task.id] = what
            kept.append(task.model_copy(update={"certificate": list(actions)}))
    finally:
        session.close()
    return (with_id(site.model_copy(update={"tasks": kept})) if kept else None), outcome


def _judged_file(path: str, budget: int) -> tuple[Any, dict[str, str]]:
    return judged_site(load(path), budget)


def _searched_corpus(raw_sites: Path, out: Path, job: Callable[[str, int], tuple[Any, dict[str, Any]]], *,
                     budget: int, workers: int | None, label: str, note: str, sidecar: str) -> None:
    """Run ``job`` (a site file, the budget -> the site kept or ``None``, and what became of its tasks)
    over the raw sites; write the kept sites as a corpus at ``out`` and the rest as ``out/sidecar``."""
    manifest, files = read_corpus(raw_sites)
    done = run_jobs([(str(p), budget) for p in files], job, workers=workers, progress=True, label=label)
    _derived(raw_sites, out, [(entry, site) for entry, (site, _) in zip(manifest["sites"], done)], note)
    _write_json(out / sidecar, {entry["file"]: what for entry, (_, what) in zip(manifest["sites"], done)})


def judged_corpus(raw_sites: Path, out: Path, *, budget: int, workers: int | None) -> None:
    """The raw sites keeping the traces their own judges accept (see :func:`judged_site`); ``outcomes.json``
    says what became of every task."""
    _searched_corpus(raw_sites, out, _judged_file, budget=budget, workers=workers,
                     label="searching against the raw judges",
                     note="raw sites, each task with the trace its own (unverified) judge accepts",
                     sidecar="outcomes.json")


# ----------------------------------------------------------------------------- filtered arm: verify, no repair


def _filter_file(path: str, budget: int) -> tuple[Any, dict[str, Any]]:
    """The raw site at ``path`` keeping only the tasks the verifier ships, and the verdict per task."""
    from veriweb.verify.pipeline import ship_unrepaired

    site = load(path)
    kept, verdicts, dropped = ship_unrepaired(site, budget)
    statuses = {t.id: verdicts[t.id].status for t in site.tasks}
    site = with_id(site.model_copy(update={"tasks": kept})) if kept else None
    return site, {"statuses": statuses, "dropped": dropped}


def filtered_corpus(raw_sites: Path, out: Path, *, budget: int, workers: int | None) -> None:
    """The raw sites keeping their verifier-shipped tasks, no repair; ``verdicts.json`` lists every task's verdict."""
    _searched_corpus(raw_sites, out, _filter_file, budget=budget, workers=workers, label="verifying (no repair)",
                     note="raw sites filtered to the tasks the verifier ships, unrepaired", sidecar="verdicts.json")


# ----------------------------------------------------------------------------- verified and subsampled arms


def verified_corpus(raw_sites: Path, out: Path, *, budget: int, workers: int | None) -> None:
    """``veriweb repair`` of the raw sites into ``out``."""
    from veriweb.verify.pipeline import repair_corpus

    repair_corpus(raw_sites, out, budget=budget, workers=workers, progress=True)


def count_tasks(corpus: Path) -> int:
    """Tasks in a corpus (from its manifest)."""
    manifest, _ = read_corpus(corpus)
    return sum(int(entry["tasks"]) for entry in manifest["sites"])


def subsampled_corpus(verified: Path, out: Path, *, tasks: int, seed: int) -> None:
    """``verified`` cut to ``tasks`` tasks by a seeded draw over all its tasks (all of them if it has fewer)."""
    manifest, files = read_corpus(verified)
    sites = [load(path) for path in files]
    pairs = [(i, t.id) for i, site in enumerate(sites) for t in site.tasks]
    rng = np.random.default_rng([seed, 0xAB1A])
    chosen = set(pairs) if tasks >= len(pairs) else {pairs[int(k)] for k in rng.choice(len(pairs), tasks,
                                                                                       replace=False)}
    kept = []
    for i, (entry, site) in enumerate(zip(manifest["sites"], sites)):
        tasks_here = [t for t in site.tasks if (i, t.id) in chosen]
        kept.append((entry, with_id(site.model_copy(update={"tasks": tasks_here})) if tasks_here else None))
    _derived(verified, out, kept, f"verified sites subsampled to {min(tasks, len(pairs))} tasks (seed {seed})")


# ----------------------------------------------------------------------------- per rate, and the test corpus


def rate_corpora(root: Path, *, sites: int, seed: int, rate: float, budget: int, workers: int | None,
                 say: Callable[[str], None]) -> dict[str, Path]:
    """Every arm's corpus at one defect rate (cached; see the module docstring)."""
    from veriweb.verify.defects import DefectModel

    model = DefectModel.with_rate(rate)
    base = root / "corpora" / rate_label(rate)
    stamp = {"sites": sites, "seed": seed, "split": "train", "defect_model_sha256": model.config_hash(),
             "budget": budget}
    raw_sites = cached(base / "raw-sites", stamp | {"what": "raw-sites"},
                       lambda d: write_corpus(plan_corpus(sites, ["all"], seed), d, workers=workers, progress=True,
                                              raw=model), say)
    out = {"raw": cached(base / "raw", stamp | {"what": "raw"},
                         lambda d: author_corpus(raw_sites, d, workers=workers), say),
           "judged": cached(base / "judged", stamp | {"what": "judged"},
                            lambda d: judged_corpus(raw_sites, d, budget=budget, workers=workers), say),
           "filtered": cached(base / "filtered", stamp | {"what": "filtered"},
                              lambda d: filtered_corpus(raw_sites, d, budget=budget, workers=workers), say),
           "verified": cached(base / "verified", stamp | {"what": "verified"},
                              lambda d: verified_corpus(raw_sites, d, budget=budget, workers=workers), say)}
    target = count_tasks(out["filtered"])
    out["subsampled"] = cached(base / "subsampled", stamp | {"what": "subsampled", "tasks": target},
                               lambda d: subsampled_corpus(out["verified"], d, tasks=target, seed=seed), say)
    return out


def heldout_seed(seed: int) -> int:
    """The held-out test corpus's seed: another stream than any training corpus of ``seed``."""
    return seed + 7919


def heldout_corpus(root: Path, *, sites: int, seed: int, budget: int, workers: int | None,
                say: Callable[[str], None]) -> Path:
    """The held-out verified test corpus: clean test-split sites from :func:`heldout_seed`, certified by repair."""
    from veriweb.verify.pipeline import repair_corpus

    stamp = {"sites": sites, "seed": heldout_seed(seed), "split": "test", "budget": budget}
    clean = cached(root / "corpora" / "test-generated", stamp | {"what": "generated"},
                   lambda d: write_corpus(plan_corpus(sites, ["all"], heldout_seed(seed), split="test"), d,
                                          workers=workers, progress=True), say)
    return cached(root / "corpora" / "test", stamp | {"what": "certified"},
                  lambda d: repair_corpus(clean, d, budget=budget, workers=workers, progress=True), say)


__all__ = ["ARM_CORPORA", "STAMP", "author_corpus", "cached", "count_tasks", "filtered_corpus", "heldout_corpus",
           "heldout_seed", "judged_corpus", "judged_site", "rate_corpora", "rate_label", "subsampled_corpus",
           "verified_corpus"]

"""The verified-versus-raw ablation: one preset, five training corpora, one held-out verified test corpus.

Arms (what each trains on is spelled out in :data:`TRAINS_ON` and in the report):

- ``raw``: raw sites as generated, defects and all, cloning each task's author certificate as given;
- ``judged``: the raw sites, cloning whatever trace each task's own (raw) judge accepts, as rejection
  sampling or an RL reward would;
- ``filtered``: the raw sites, unrepaired, keeping only the tasks the verifier ships, cloning its certificates;
- ``verified``: the sites after verification and repair, cloning their certificates;
- ``subsampled``: the verified sites cut to as many tasks as ``filtered``.

So ``verified - raw`` and ``verified - judged`` are the whole effect against each way of training on
raw sites, ``filtered - judged`` the part that comes from checking each judge (proofs, decoys), ``filtered - raw`` the part that comes from dropping
tasks that cannot be done (and cloning proved solutions instead of claimed ones),
``subsampled - filtered`` the part that comes from repair at equal task count, and
``verified - subsampled`` the part that comes from the extra tasks repair keeps.

Two modes. :func:`run_ablation` takes the corpora made by hand (``judged`` optional). :func:`run_rates` makes them
itself (:mod:`veriweb.agents.ablation_corpora`) at several defect rates, with one held-out test
corpus, and reports the gap against the rate. Every arm clones its corpus with the same preset
(policy size, epochs, batch, learning rate) and seed, through
:func:`veriweb.agents.given.collect_as_given` (a failed replay is cloned as given, never
skipped), and is evaluated greedily on the same test episodes; gaps are paired bootstrap
differences over test sites (seeded). The preset's DAgger rounds and PPO are not run: DAgger is
labelled by the verifier's search oracle, which someone training on raw sites does not have.
The defect model's configuration and its SHA-256 are written before any training starts.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import numpy as np

from veriweb.agents.ablation_report import plot_arms, plot_gaps, write_report
from veriweb.agents.evaluate import EpisodeResult, PolicyAgent, run_episodes, summarise, write_results
from veriweb.agents.presets import Preset
from veriweb.errors import VeriwebError
from veriweb.generate.corpus import load_sites, read_corpus

ARMS = ("raw", "judged", "filtered", "verified", "subsampled")
REQUIRED = ("raw", "filtered", "verified", "subsampled")
"""The arms :func:`run_ablation` needs; ``judged`` is optional there (:func:`run_rates` always makes it)."""
CONTRASTS = (("verified", "raw", "whole effect, against the author's plans"),
             ("verified", "judged", "whole effect, against the raw sites' own judges"),
             ("filtered", "raw", "from feasibility (filtering alone)"),
             ("filtered", "judged", "from checking each judge (proofs, decoys), no repair"),
             ("subsampled", "filtered", "from repair, at equal task count"),
             ("verified", "subsampled", "from the extra tasks repair keeps"))
TRAINS_ON = {
    "raw": "the raw sites (defects injected, unrepaired), every task the author wrote, each with the certificate "
           "its author planned on the clean site before the defects went in; cloned as given: a step that no "
           "longer maps to the broken page ends the demonstration there, and a replay that does not solve the "
           "task is kept (nothing is checked)",
    "judged": "the same raw sites, unrepaired, each task searched against its own judge (the raw site's) with "
              "the verifier's search and budget, keeping the trace that judge accepts: what rejection sampling or "
              "an RL reward takes from a raw site (no check, proof, judge decoy or repair; a wrong judge's "
              "success is kept, a task no trace satisfies gives nothing, an author's infeasible task is solved by "
              "reporting it)",
    "filtered": "the same raw sites, unrepaired, keeping only the tasks the verifier ships (certified by search "
                "with every judge decoy rejected, or proven infeasible), each with the verifier's certificate",
    "verified": "the sites after `veriweb repair` (repaired, re-verified), every task it ships, with its "
                "certificate",
    "subsampled": "the verified sites, cut by a seeded draw over all their tasks to as many tasks as the filtered "
                  "arm has",
}
"""What each arm trains on, in words (printed in the report)."""


def config_hash(config: Mapping[str, Any] | None) -> str:
    """SHA-256 of the canonical JSON of a defect-model configuration (``none`` without one)."""
    if config is None:
        return "none"
    return hashlib.sha256(json.dumps(config, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def paired_difference(a: list[EpisodeResult], b: list[EpisodeResult], *, resamples: int = 2000,
                      seed: int = 0) -> tuple[float, float, float]:
    """Success of ``a`` minus success of ``b`` on the same episodes, with a 95% bootstrap interval
    that resamples test sites (both arms together)."""
    key = lambda r: (r.site, r.task)  # noqa: E731
    left = {key(r): r for r in a}
    right = {key(r): r for r in b}
    if set(left) != set(right):
        raise VeriwebError("the two arms were not evaluated on the same episodes")
    keys = sorted(left)
    sites = np.array([k[0] for k in keys])
    diff = np.array([float(left[k].success) - float(right[k].success) for k in keys])
    names, inverse = np.unique(sites, return_inverse=True)
    sums = np.bincount(inverse, weights=diff, minlength=len(names))
    counts = np.bincount(inverse, minlength=len(names)).astype(float)
    draws = np.random.default_rng(seed).integers(0, len(names), size=(resamples, len(names)))
    means = sums[draws].sum(1) / counts[draws].sum(1)
    return float(diff.mean()), float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


# ----------------------------------------------------------------------------- one arm


def _digest(corpus: Path) -> str:
    return hashlib.sha256((Path(corpus) / "manifest.json").read_bytes()).hexdigest()


def train_arm(preset: Preset, corpus: str | Path, out: str | Path, *, seed: int = 0,
              log: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Clone ``corpus``'s certificates as given with ``preset``'s policy and cloning settings; write ``out/policy.pt``.

    Returns:
        The summary (also in ``out/summary.json``): demonstrations, outcomes per task, epochs, timings.
    """
    import torch

    from veriweb.agents.bc import train_bc
    from veriweb.agents.given import collect_as_given
    from veriweb.agents.policy import Policy, parameter_count, save_policy
    from veriweb.agents.presets import _write_csv, plot_curves

    say = log or (lambda line: None)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(preset.threads)
    torch.manual_seed(seed)
    clock = time.perf_counter()
    demos, outcomes = collect_as_given(load_sites(corpus), workers=preset.workers)
    collect_s = time.perf_counter() - clock
    say(f"demonstrations: {len(demos)} steps from {demos.used}/{demos.tasks} tasks; outcomes {outcomes}")
    policy = Policy(replace(demos.config, **preset.policy))
    clock = time.perf_counter()
    rows = train_bc(policy, demos, epochs=preset.bc_epochs, batch_size=preset.bc_batch, lr=preset.bc_lr, seed=seed,
                    log=lambda row: say(f"bc epoch {row['epoch']:.0f} loss {row['train_loss']:.3f} "
                                        f"acc {row['train_acc_action']:.3f}"))
    summary = {"corpus": str(corpus), "preset": asdict(preset), "seed": seed, "parameters": parameter_count(policy),
               "demonstrations": demos.summary(), "outcomes": outcomes, "epochs": len(rows),
               "updates": len(rows) * -(-len(demos) // preset.bc_batch),
               "train_acc_action": rows[-1]["train_acc_action"] if rows else float("nan"),
               "timings": {"collect_s": collect_s, "bc_s": time.perf_counter() - clock}}
    save_policy(policy, out / "policy.pt", {"preset": preset.name, "stage": "ablation", "corpus": str(corpus),
                                            "seed": seed})
    _write_csv(out / "bc.csv", rows)
    plot_curves(rows, [], out / "curve.png", title=f"ablation {out.name}")
    (out / "summary.json").write_text(json.dumps(summary, indent=1, sort_keys=True, default=float) + "\n",
                                      encoding="utf-8")
    return summary


def _arm(arm: str, preset: Preset, corpus: Path, test_corpus: Path, test_sites: list[Any], out: Path, seed: int,
         say: Callable[[str], None], max_steps: int | None = None) -> tuple[dict[str, Any], list[EpisodeResult]]:
    """Train and evaluate one arm, or reuse a finished run of it with the same stamp (``out/arm.json``)."""
    from veriweb.agents.policy import load_policy

    settings = {k: v for k, v in asdict(preset).items() if k != "workers"}  # side by side or not: the same run
    stamp = {"preset": settings, "seed": seed, "corpus": _digest(corpus), "test": _digest(test_corpus),
             "trainer": "collect_as_given+bc"} | ({"max_steps": max_steps} if max_steps is not None else {})
    done = out / "arm.json"
    if done.is_file():
        data = json.loads(done.read_text(encoding="utf-8"))
        if data.get("stamp") == stamp:
            say(f"[{arm}] cached in {out}")
            return data["summary"], [EpisodeResult(**row) for row in data["episodes"]]
    say(f"== {arm}: cloning {corpus} with preset {preset.name}")
    summary = train_arm(preset, corpus, out, seed=seed, log=lambda line: say(f"[{arm}] {line}"))
    policy, _ = load_policy(out / "policy.pt")
    clock = time.perf_counter()
    results = run_episodes(PolicyAgent(policy, name=arm), test_sites, max_steps=max_steps)
    summary["timings"]["eval_s"] = time.perf_counter() - clock
    say(f"[{arm}] success on the held-out test corpus {100 * np.mean([r.success for r in results]):.1f}% "
        f"({len(results)} episodes)")
    done.write_text(json.dumps({"stamp": stamp, "summary": summary, "episodes": [asdict(r) for r in results]},
                               sort_keys=True, default=float) + "\n", encoding="utf-8")
    return summary, results


def _truth(corpus: Path) -> int | None:
    """Tasks of a corpus cut from raw sites that the defects' ground truth (the ``.defects.json`` sidecars, which no
    arm reads) calls infeasible; ``None`` for a corpus not cut from raw sites."""
    from veriweb.scaffold import load

    raw_dir = corpus.parent / "raw-sites"
    if corpus.name not in ("raw", "judged", "filtered") or not raw_dir.is_dir():
        return None
    manifest, files = read_corpus(corpus)
    broken = 0
    for entry, path in zip(manifest["sites"], files):
        sidecar = raw_dir / (entry["file"][: -len(".json")] + ".defects.json")
        if not sidecar.is_file():
            return None
        feasible = json.loads(sidecar.read_text(encoding="utf-8")).get("tasks", {})
        broken += sum(not feasible.get(t.id, {}).get("feasible", True) for t in load(path).tasks)
    return broken


def _arm_job(arm: str, preset: Preset, corpus: Path, test_corpus: Path, out: Path, seed: int, label: str,
             max_steps: int | None) -> tuple[dict[str, Any], list[EpisodeResult]]:
    """:func:`_arm` in a worker process (one torch thread; progress printed with the arm's label)."""
    import torch

    torch.set_num_threads(1)
    return _arm(arm, preset, corpus, test_corpus, list(load_sites(test_corpus)), out, seed,
                lambda line: print(f"{label} {line}", flush=True), max_steps)


def _all_arms(jobs: list[tuple[str, str, Path, Path]], preset: Preset, test_corpus: Path, seed: int,
              workers: int, say: Callable[[str], None], max_steps: int | None = None
              ) -> dict[tuple[str, str], tuple[dict[str, Any], list[EpisodeResult]]]:
    """Train and evaluate every (section, arm, corpus, out) of ``jobs``, ``workers`` at a time."""
    if workers <= 1 or len(jobs) <= 1:
        test_sites = list(load_sites(test_corpus))
        return {(label, arm): _arm(arm, preset, corpus, test_corpus, test_sites, out, seed,
                                   lambda line, label=label: say(f"{label} {line}"), max_steps)
                for label, arm, corpus, out in jobs}
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    single = replace(preset, workers=1)  # the arms run side by side; each replays in its own process
    done = {}
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        futures = {pool.submit(_arm_job, arm, single, corpus, test_corpus, out, seed, label, max_steps): (label, arm)
                   for label, arm, corpus, out in jobs}
        for future in as_completed(futures):
            done[futures[future]] = future.result()
            say(f"arms finished: {len(done)}/{len(jobs)}")
    return done


def arms_present(arms: Mapping[str, Any]) -> tuple[list[str], list[tuple[str, str, str]]]:
    """The arms of :data:`ARMS` that ``arms`` has, in order, and the contrasts between them."""
    present = [arm for arm in ARMS if arm in arms]
    return present, [c for c in CONTRASTS if c[0] in present and c[1] in present]


def _rate_section(corpora: Mapping[str, Path], test_corpus: Path, out: Path, preset: Preset, seed: int,
                  say: Callable[[str], None], arms: Mapping[str, tuple[dict[str, Any], list[EpisodeResult]]],
                  steps: Mapping[str, tuple[Any, np.ndarray]] | None = None) -> dict[str, Any]:
    """Every arm at one rate (trained and evaluated in ``arms``): the success table and the contrasts, and with
    ``steps`` (label set -> held-out demonstrations and their sites) each arm's held-out per-step accuracy."""
    from veriweb.agents.ablation_steps import accuracies, step_correct
    from veriweb.agents.policy import load_policy

    present, contrasts = arms_present(arms)
    per_step = {}
    for name, (demos, sites) in (steps or {}).items():
        correct = {arm: step_correct(load_policy(out / arm / "policy.pt")[0], demos) for arm in present}
        per_step[name] = accuracies(correct, sites, contrasts, seed=seed)
        say(f"held-out per-step accuracy ({name}): " + ", ".join(
            f"{arm} {100 * per_step[name]['arms'][arm][0]:.1f}%" for arm in present))
    trained = {arm: arms[arm][0] for arm in present}
    results = {arm: arms[arm][1] for arm in present}
    every = [r for arm in present for r in results[arm]]
    table = summarise(every, seed=seed)
    gaps = {f"{a}-{b}": paired_difference(results[a], results[b], seed=seed) for a, b, _ in contrasts}
    corpus_rows = {}
    for arm in present:
        manifest, _ = read_corpus(corpora[arm])
        corpus_rows[arm] = {"corpus": str(corpora[arm]), "sites": len(manifest["sites"]),
                            "tasks": sum(int(e.get("tasks", 0)) for e in manifest["sites"]),
                            "truth_broken": _truth(Path(corpora[arm]))}
    write_results(out / "results.json", table, every, {"preset": preset.name, "seed": seed,
                                                       "corpora": {k: str(v) for k, v in corpora.items()},
                                                       "eval": str(test_corpus)})
    for a, b, _ in contrasts:
        mean, low, high = gaps[f"{a}-{b}"]
        say(f"{a} - {b}: {100 * mean:+.1f} [{100 * low:+.1f}, {100 * high:+.1f}] points")
    return {"arms": present, "contrasts": contrasts, "trained": trained, "table": table, "gaps": gaps, "corpora": corpus_rows, "per_step": per_step}


# ----------------------------------------------------------------------------- the two modes


def run_ablation(corpora: Mapping[str, str | Path], eval_corpus: str | Path, out: str | Path, *, preset: Preset,
                 seed: int = 0, defect_config: Mapping[str, Any] | None = None, max_steps: int | None = None,
                 log: Callable[[str], None] | None = None) -> Path:
    """Train ``preset`` on each arm's given corpus, evaluate all on ``eval_corpus``: ``report.md``, ``report.png``.

    Args:
        corpora: a corpus directory for each of :data:`REQUIRED`, and optionally ``judged``.
        eval_corpus: the held-out verified test corpus.
        out: the output directory (one sub-directory per arm, plus the report).
        preset: the cloning preset every arm uses.
        seed: the root seed every arm uses.
        defect_config: the defect model's configuration, printed and hashed in the report.
        max_steps: override every test task's step budget (default: each task's own).
        log: progress lines go here.

    Returns:
        The path of ``report.md``.
    """
    say = log or (lambda line: None)
    missing = [arm for arm in REQUIRED if arm not in corpora]
    if missing:
        raise VeriwebError(f"the ablation needs a corpus for every arm; missing {', '.join(missing)}")
    began = time.perf_counter()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    digest = config_hash(defect_config)
    (out / "defect_config.json").write_text(json.dumps({"config": defect_config, "sha256": digest}, indent=1,
                                                       sort_keys=True) + "\n", encoding="utf-8")
    say(f"defect model sha256 {digest}")
    paths = {k: Path(v) for k, v in corpora.items() if k in ARMS}
    present, contrasts = arms_present(paths)
    arms = _all_arms([("", arm, paths[arm], out / arm) for arm in present], preset, Path(eval_corpus), seed, 1, say,
                     max_steps)
    from veriweb.agents.ablation_steps import heldout_steps

    steps = {"the eval corpus's certificates": heldout_steps(eval_corpus)}
    section = _rate_section(paths, Path(eval_corpus), out, preset, seed, say, {a: arms[("", a)] for a in present},
                            steps)
    test_sites = list(load_sites(eval_corpus))
    sections = {"given corpora": section}
    settings = {"preset": preset.name, "seed": seed, "eval": str(eval_corpus), "test_tasks": sum(
        len(s.tasks) for s in test_sites), "test_sites": len(test_sites), "wall_s": time.perf_counter() - began}
    plot_arms(sections, present, out / "report.png")
    return write_report(out / "report.md", settings=settings, defects={"given corpora": (defect_config, digest)},
                        sections=sections, arms=present, contrasts=contrasts, trains_on=TRAINS_ON, gap_plot=None)


def run_rates(out: str | Path, *, sites: int, test_sites: int, seed: int = 0, rates: Sequence[float] = (6, 12, 18),
              preset: Preset, budget: int | None = None, workers: int | None = 2, max_steps: int | None = None,
              log: Callable[[str], None] | None = None) -> Path:
    """The whole ablation from one command: corpora at each defect rate, one test corpus, four arms per rate.

    Args:
        out: the output directory (corpora are cached under ``out/corpora``; runs under ``out/rate-R``).
        sites: training sites per rate (one raw corpus of the train split per rate, same seed).
        test_sites: held-out test sites (generated from another seed, test split, certified by repair).
        seed: the root seed of the corpora, the subsample, the cloning and the bootstrap.
        rates: mean defects per site of each raw corpus.
        preset: the cloning preset every arm uses.
        budget: the verifier's search budget per task (default: the pipeline's).
        workers: processes for generation, verification and repair, and arms trained side by side.
        max_steps: override every test task's step budget (default: each task's own; for quick tests).
        log: progress lines go here.

    Returns:
        The path of ``out/report.md`` (beside it ``report.png`` and ``gap.png``).
    """
    from veriweb.agents.ablation_corpora import heldout_corpus, rate_corpora, rate_label
    from veriweb.verify.defects import DefectModel
    from veriweb.verify.pipeline import DEFAULT_BUDGET

    began = time.perf_counter()
    write = log or (lambda line: None)
    say = lambda line: write(f"[{(time.perf_counter() - began) / 60:5.1f} min] {line}")  # noqa: E731
    if sites <= 0 or test_sites <= 0:
        raise VeriwebError(f"--sites and --test-sites must be positive, got {sites} and {test_sites}")
    if not rates:
        raise VeriwebError("--defect-rates: give at least one rate (e.g. 6,12,18)")
    budget = budget or DEFAULT_BUDGET
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    models = {rate_label(r): DefectModel.with_rate(r) for r in rates}
    fixed = {label: {"config": m.as_dict(), "sha256": m.config_hash()} for label, m in models.items()}
    (out / "defect_config.json").write_text(json.dumps(fixed, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    for label, entry in fixed.items():
        say(f"defect model {label}: rate {entry['config']['rate']:g}, sha256 {entry['sha256']}")
    say(f"== held-out test corpus: {test_sites} sites")
    test_dir = heldout_corpus(out, sites=test_sites, seed=seed, budget=budget, workers=workers, say=say)
    held = list(load_sites(test_dir))
    say(f"test corpus: {len(held)} certified sites, {sum(len(s.tasks) for s in held)} tasks")
    corpora = {}
    for rate in rates:
        say(f"== corpora at defect rate {rate:g}")
        corpora[rate_label(rate)] = rate_corpora(out, sites=sites, seed=seed, rate=rate, budget=budget,
                                                 workers=workers, say=say)
    say(f"== training and evaluating {len(ARMS)} arms at {len(rates)} defect rate(s), {workers or 1} at a time")
    jobs = [(label, arm, corpora[label][arm], out / label / arm) for label in corpora for arm in ARMS]
    arms = _all_arms(jobs, preset, test_dir, seed, workers or 1, say, max_steps)
    from veriweb.agents.ablation_steps import cached_heldout_steps

    say("== held-out steps for per-step accuracy (certified test corpus; the same sites as generated)")
    steps = {"search certificates (the certified test corpus)": cached_heldout_steps(
                 test_dir, out / "corpora" / "steps-test.npz"),
             "generator plans (the test sites as generated)": cached_heldout_steps(
                 out / "corpora" / "test-generated", out / "corpora" / "steps-test-generated.npz")}
    sections = {}
    for label in corpora:
        say(f"== {label}")
        sections[label] = _rate_section(corpora[label], test_dir, out / label, preset, seed, say,
                                        {arm: arms[(label, arm)] for arm in ARMS}, steps)
    settings = {"preset": preset.name, "seed": seed, "sites": sites, "eval": str(test_dir), "test_sites": len(held),
                "test_tasks": sum(len(s.tasks) for s in held), "budget": budget, "rates": list(rates),
                "wall_s": time.perf_counter() - began}
    plot_arms(sections, ARMS, out / "report.png")
    plot_gaps({float(models[k].rate): v["gaps"] for k, v in sections.items()}, CONTRASTS, out / "gap.png")
    return write_report(out / "report.md", settings=settings,
                        defects={k: (v["config"], v["sha256"]) for k, v in fixed.items()}, sections=sections,
                        arms=ARMS, contrasts=CONTRASTS, trains_on=TRAINS_ON, gap_plot="gap.png")


__all__ = ["ARMS", "CONTRASTS", "REQUIRED", "TRAINS_ON", "arms_present", "config_hash", "paired_difference", "run_ablation", "run_rates",
           "train_arm"]

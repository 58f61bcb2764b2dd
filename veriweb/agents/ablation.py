"""The verified-versus-raw ablation: one preset, four training corpora, one held-out verified test corpus.

Arms (the corpora are made elsewhere; this module trains and compares):

- ``raw``: sites as generated, defects and all;
- ``filtered``: raw sites keeping only the tasks the verifier proves feasible, no repair;
- ``verified``: sites after verification and repair;
- ``subsampled``: verified sites subsampled to as many feasible tasks as ``filtered``.

So ``verified - raw`` is the whole effect, ``filtered - raw`` the part that comes from dropping
infeasible tasks, ``verified - subsampled`` the part that comes from having more tasks, and
``subsampled - filtered`` the part that comes from repair at equal task count.

Every arm trains the same preset with the same seed and is evaluated on the same test episodes;
gaps are paired bootstrap differences over test sites (seeded). The defect model's configuration
and its SHA-256 are written at the top of the report, fixed before any training starts.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from veriweb.agents.evaluate import EpisodeResult, PolicyAgent, run_episodes, summarise, write_results
from veriweb.agents.presets import Preset, train
from veriweb.errors import VeriwebError
from veriweb.generate.corpus import load_sites

ARMS = ("raw", "filtered", "verified", "subsampled")
CONTRASTS = (("verified", "raw", "whole effect"), ("filtered", "raw", "from feasibility (filtering alone)"),
             ("subsampled", "filtered", "from repair, at equal task count"),
             ("verified", "subsampled", "from the extra tasks repair keeps"))


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


def run_ablation(corpora: Mapping[str, str | Path], eval_corpus: str | Path, out: str | Path, *, preset: Preset,
                 seed: int = 0, defect_config: Mapping[str, Any] | None = None,
                 log: Callable[[str], None] | None = None) -> Path:
    """Train ``preset`` on each arm's corpus, evaluate all on ``eval_corpus``, write ``report.md`` and ``report.png``.

    Args:
        corpora: a corpus directory for each of :data:`ARMS`.
        eval_corpus: the held-out verified test corpus.
        out: the output directory (one sub-directory per arm, plus the report).
        preset: the training preset every arm uses.
        seed: the root seed every arm uses.
        defect_config: the defect model's configuration, printed and hashed in the report.
        log: progress lines go here.

    Returns:
        The path of ``report.md``.
    """
    say = log or (lambda line: None)
    missing = [arm for arm in ARMS if arm not in corpora]
    if missing:
        raise VeriwebError(f"the ablation needs a corpus for every arm; missing {', '.join(missing)}")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    digest = config_hash(defect_config)
    (out / "defect_config.json").write_text(json.dumps({"config": defect_config, "sha256": digest}, indent=1,
                                                       sort_keys=True) + "\n", encoding="utf-8")
    say(f"defect model sha256 {digest}")
    test_sites = list(load_sites(eval_corpus))
    results: dict[str, list[EpisodeResult]] = {}
    trained: dict[str, dict[str, Any]] = {}
    for arm in ARMS:
        say(f"== {arm}: training {preset.name} on {corpora[arm]}")
        sites = list(load_sites(corpora[arm]))
        summary = train(preset, sites, out / arm, seed=seed, corpus=str(Path(corpora[arm]).resolve()),
                        log=lambda line, arm=arm: say(f"[{arm}] {line}"))
        from veriweb.agents.policy import load_policy

        policy, _ = load_policy(out / arm / "policy.pt")
        results[arm] = run_episodes(PolicyAgent(policy, name=arm), test_sites)
        trained[arm] = summary
        rate = np.mean([r.success for r in results[arm]])
        say(f"[{arm}] success on the test corpus {100 * rate:.1f}%")
    every = [r for arm in ARMS for r in results[arm]]
    table = summarise(every, seed=seed)
    write_results(out / "results.json", table, every, {"preset": preset.name, "seed": seed,
                                                       "defect_sha256": digest, "corpora": {k: str(v) for k, v in corpora.items()},
                                                       "eval": str(eval_corpus)})
    gaps = {f"{a}-{b}": paired_difference(results[a], results[b], seed=seed) for a, b, _ in CONTRASTS}
    report = out / "report.md"
    report.write_text(_markdown(preset, seed, defect_config, digest, corpora, eval_corpus, trained, table, gaps),
                      encoding="utf-8")
    _plot(table, gaps, out / "report.png")
    return report


def _markdown(preset: Preset, seed: int, defect: Mapping[str, Any] | None, digest: str,
              corpora: Mapping[str, str | Path], eval_corpus: str | Path, trained: dict[str, dict[str, Any]],
              table: dict[str, Any], gaps: dict[str, tuple[float, float, float]]) -> str:
    lines = ["# Verified versus raw: ablation", "",
             f"Preset `{preset.name}`, seed {seed}, evaluated on `{eval_corpus}`.", "",
             f"Defect model (fixed before training): sha256 `{digest}`", "", "```json",
             json.dumps(defect, indent=1, sort_keys=True), "```", "",
             "| arm | corpus | demos used / tasks | skipped | success [95% CI] | domain mean |",
             "|---|---|---|---|---|---|"]
    for arm in ARMS:
        row = table[arm]["all"]
        demos = trained[arm]["demonstrations"]
        lines.append(f"| {arm} | `{corpora[arm]}` | {demos['used']} / {demos['tasks']} | {demos['skipped'] or '-'} | "
                     f"{100 * row['success']:.1f} [{100 * row['success_ci'][0]:.1f}, {100 * row['success_ci'][1]:.1f}] | "
                     f"{100 * row.get('success_domain_mean', float('nan')):.1f} |")
    lines += ["", "| contrast | meaning | difference [95% CI] |", "|---|---|---|"]
    for a, b, meaning in CONTRASTS:
        mean, low, high = gaps[f"{a}-{b}"]
        lines.append(f"| {a} - {b} | {meaning} | {100 * mean:+.1f} [{100 * low:+.1f}, {100 * high:+.1f}] |")
    lines += ["", "Intervals resample test sites (paired: both arms on the same episodes).", ""]
    return "\n".join(lines)


def _plot(table: dict[str, Any], gaps: dict[str, tuple[float, float, float]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.6))
    rates = [100 * table[arm]["all"]["success"] for arm in ARMS]
    low = [100 * table[arm]["all"]["success_ci"][0] for arm in ARMS]
    high = [100 * table[arm]["all"]["success_ci"][1] for arm in ARMS]
    left.bar(ARMS, rates, yerr=[np.subtract(rates, low), np.subtract(high, rates)], capsize=4, color="#4c72b0")
    left.set_ylabel("success on held-out verified sites (%)")
    left.set_ylim(0, 100)
    names = list(gaps)
    means = [100 * gaps[n][0] for n in names]
    right.barh(names, means, xerr=[[100 * (gaps[n][0] - gaps[n][1]) for n in names],
                                   [100 * (gaps[n][2] - gaps[n][0]) for n in names]], capsize=4, color="#dd8452")
    right.axvline(0, color="black", linewidth=0.8)
    right.set_xlabel("difference in success (points)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)

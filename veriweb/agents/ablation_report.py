"""The ablation's report: ``report.md`` (settings, defect model, what each arm trains on, tables) and its plots.

A *section* is one set of arms trained and evaluated together (one defect rate, or the
corpora given by hand): ``{"trained": {arm: summary}, "table": summarise(...), "gaps":
{"a-b": (mean, low, high)}, "corpora": {arm: {"corpus", "sites", "tasks", "truth_broken"}}}``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np


ARM_COLOURS = {"raw": "#c44e52", "judged": "#8172b2", "filtered": "#dd8452", "verified": "#4c72b0",
               "subsampled": "#55a868"}
"""Each arm's bar colour (the same arm, the same colour, in every plot)."""


def _pct(value: float) -> str:
    return f"{100 * value:.1f}"


def _ci(mean: float, low: float, high: float, signed: bool = False) -> str:
    fmt = "{:+.1f}" if signed else "{:.1f}"
    return f"{fmt.format(100 * mean)} [{fmt.format(100 * low)}, {fmt.format(100 * high)}]"


def write_report(path: Path, *, settings: Mapping[str, Any], defects: Mapping[str, tuple[Any, str]],
                 sections: Mapping[str, Mapping[str, Any]], arms: Sequence[str],
                 contrasts: Sequence[tuple[str, str, str]], trains_on: Mapping[str, str],
                 gap_plot: str | None) -> Path:
    """Write the markdown report to ``path`` and return it.

    Args:
        path: where ``report.md`` goes.
        settings: preset, seed, test corpus and its size, wall time, and (from one command) sites,
            budget and rates.
        defects: per section, the defect model's configuration and its SHA-256.
        sections: per section (a defect rate), the arms' results (see the module docstring).
        arms: the arms, in order.
        contrasts: (a, b, meaning) per paired contrast.
        trains_on: what each arm trains on, in words.
        gap_plot: the gap-against-rate plot's file name, if there is one.
    """
    lines = ["# Verified versus raw: ablation", "",
             f"Preset `{settings['preset']}` (behaviour cloning of each arm's certificates, cloned as given; the "
             f"preset's DAgger and PPO are not run), seed {settings['seed']}. "
             f"Evaluated greedily on the held-out verified corpus `{settings['eval']}`: {settings['test_sites']} "
             f"sites, {settings['test_tasks']} tasks, one episode per task, the same episodes for every arm.", ""]
    if "sites" in settings:
        lines += [f"Training sites per rate: {settings['sites']} (train split, seed {settings['seed']}); "
                  f"verifier budget {settings['budget']} steps per task; wall time {settings['wall_s'] / 60:.1f} "
                  "min (corpora made or read from the cache, all arms trained and evaluated).", ""]
    else:
        lines += [f"Wall time {settings['wall_s'] / 60:.1f} min.", ""]
    lines += ["## Defect model (fixed before any training)", ""]
    first = next(iter(defects.values()))[0]
    if isinstance(first, Mapping) and "weights" in first:
        shared = {k: v for k, v in first.items() if k != "rate"}
        lines += ["Shared configuration (every rate; only `rate` differs):", "", "```json",
                  json.dumps(shared, indent=1, sort_keys=True), "```", ""]
    else:
        lines += ["```json", json.dumps(first, indent=1, sort_keys=True), "```", ""]
    lines += ["| section | rate | sha256 of the configuration |", "|---|---|---|"]
    for name, (config, digest) in defects.items():
        rate = config.get("rate", "-") if isinstance(config, Mapping) else "-"
        lines.append(f"| {name} | {rate} | `{digest}` |")
    lines += ["", "## What each arm trains on", ""]
    lines += [f"- **{arm}**: {trains_on[arm]}." for arm in arms]
    lines += ["", "Every arm: the same policy size, cloning epochs, batch, learning rate and seed; a task's "
              "demonstration is every step of its certificate that can be taken, kept whether or not the replay "
              "solves the task (outcomes: *solved*, *unsolved* = replayed to the end without success, *truncated* "
              "= a step no longer maps to the page and the prefix is kept, *empty* = not one step). *broken (truth)* "
              "is how many training tasks the defect injector's ground truth calls infeasible (no arm reads it).", ""]
    for name, section in sections.items():
        lines += _section(name, section, arms, contrasts)
    if len(sections) > 1:
        lines += ["## The gap against the defect rate", "",
                  "| section | " + " | ".join(f"{a} - {b}" for a, b, _ in contrasts) + " |",
                  "|---|" + "---|" * len(contrasts)]
        for name, section in sections.items():
            lines.append(f"| {name} | " + " | ".join(_ci(*section["gaps"][f"{a}-{b}"], signed=True)
                                                     for a, b, _ in contrasts) + " |")
        lines.append("")
    lines += ["Success is the mean over test episodes; intervals are 95% percentile bootstraps that resample test "
              "sites (contrasts: paired, both arms on the same episodes). Per-step accuracy: each test certificate "
              "replayed, the policy's choice at each step against the certificate's (every head that matters right); "
              "the raw arm clones generator plans and the others search certificates, so it is given under both "
              "labels.", "", "![arms](report.png)", ""]
    if gap_plot:
        lines += [f"![gap against defect rate]({gap_plot})", ""]
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def _section(name: str, section: Mapping[str, Any], arms: Sequence[str],
             contrasts: Sequence[tuple[str, str, str]]) -> list[str]:
    lines = [f"## {name}", "",
             "| arm | sites | tasks | broken (truth) | demo steps | solved / unsolved / truncated / empty | "
             "cloning acc. | success [95% CI] | domain mean |", "|---|---|---|---|---|---|---|---|---|"]
    for arm in arms:
        corpus = section["corpora"][arm]
        trained = section["trained"][arm]
        out = trained["outcomes"]
        row = section["table"][arm]["all"]
        broken = "-" if corpus["truth_broken"] is None else str(corpus["truth_broken"])
        lines.append(f"| {arm} | {corpus['sites']} | {corpus['tasks']} | {broken} | "
                     f"{trained['demonstrations']['steps']} | {out['solved']} / {out['unsolved']} / "
                     f"{out['truncated']} / {out['empty']} | {_pct(trained['train_acc_action'])}% | "
                     f"{_ci(row['success'], *row['success_ci'])} | {_pct(row.get('success_domain_mean', np.nan))} |")
    lines += ["", "| contrast | meaning | difference in points [95% CI] |", "|---|---|---|"]
    for a, b, meaning in contrasts:
        lines.append(f"| {a} - {b} | {meaning} | {_ci(*section['gaps'][f'{a}-{b}'], signed=True)} |")
    lines.append("")
    for labels, found in section.get("per_step", {}).items():
        lines += [f"Held-out per-step accuracy (teacher-forced), labels: {labels}, {found['steps']} steps:", "",
                  "| " + " | ".join(arms) + " | " + " | ".join(f"{a} - {b}" for a, b, _ in contrasts) + " |",
                  "|" + "---|" * (len(arms) + len(contrasts)),
                  "| " + " | ".join(_ci(*found["arms"][arm]) for arm in arms) + " | "
                  + " | ".join(_ci(*found["gaps"][f"{a}-{b}"], signed=True) for a, b, _ in contrasts) + " |", ""]
    return lines


def plot_arms(sections: Mapping[str, Mapping[str, Any]], arms: Sequence[str], path: Path) -> Path:
    """One panel per section: each arm's success on the test corpus with its 95% interval."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(sections), figsize=(3.6 * len(sections) + 0.6, 3.6), squeeze=False)
    for axis, (name, section) in zip(axes[0], sections.items()):
        rows = [section["table"][arm]["all"] for arm in arms]
        rates = np.array([100 * r["success"] for r in rows])
        low = np.array([100 * r["success_ci"][0] for r in rows])
        high = np.array([100 * r["success_ci"][1] for r in rows])
        axis.bar(list(arms), rates, yerr=[rates - low, high - rates], capsize=4,
                 color=[ARM_COLOURS.get(arm, "#8c8c8c") for arm in arms])
        axis.set_title(name)
        axis.set_ylim(0, 100)
        axis.tick_params(axis="x", labelrotation=20)
    axes[0][0].set_ylabel("success on held-out verified sites (%)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def plot_gaps(gaps: Mapping[float, Mapping[str, tuple[float, float, float]]], contrasts: Sequence[tuple[str, str, str]],
              path: Path) -> Path:
    """Each contrast (points, with its 95% interval) against the defect rate."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rates = sorted(gaps)
    fig, axis = plt.subplots(figsize=(6, 3.8))
    for shift, (a, b, _) in enumerate(contrasts):
        key = f"{a}-{b}"
        mean = np.array([100 * gaps[r][key][0] for r in rates])
        low = np.array([100 * gaps[r][key][1] for r in rates])
        high = np.array([100 * gaps[r][key][2] for r in rates])
        x = np.array(rates) + 0.12 * (shift - (len(contrasts) - 1) / 2)
        axis.errorbar(x, mean, yerr=[mean - low, high - mean], marker="o", capsize=3, label=f"{a} - {b}",
                      linewidth=2.2 if shift == 0 else 1)
    axis.axhline(0, color="black", linewidth=0.8)
    axis.set_xlabel("mean defects per raw site")
    axis.set_ylabel("difference in success (points)")
    axis.set_xticks(rates)
    axis.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


__all__ = ["plot_arms", "plot_gaps", "write_report"]

"""Evaluation: every task of every test site, once; success, return and length per group with bootstrap CIs.

Each agent runs one episode per (site, task) of the test corpus, in corpus order, with the
sparse reward. Results are grouped overall and by domain, task family, kind and difficulty.
Confidence intervals are 95% percentile bootstraps that resample *sites* (tasks of one site are
not independent), from a seeded stream, so the same results give the same intervals.

The floors of :mod:`veriweb.agents.floors` run on the same episodes, so every figure has its
random, no-op, always-infeasible and nearest-certificate baselines beside it.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from veriweb.agents.features import featurize
from veriweb.agents.memory import remember
from veriweb.agents.floors import Agent
from veriweb.agents.policy import Policy, discrete_for
from veriweb.envs.actions import DiscreteActions
from veriweb.envs.env import VeriwebEnv
from veriweb.errors import VeriwebError
from veriweb.scaffold import Site

GROUPS = ("domain", "family", "kind", "difficulty", "template")


class PolicyAgent:
    """A trained :class:`Policy`, acting greedily (or sampling, from a seeded stream).

    Args:
        policy: the policy.
        greedy: argmax actions (default) or samples.
        seed: the sampling stream's seed.
        name: the name results are reported under.
    """

    def __init__(self, policy: Policy, *, greedy: bool = True, seed: int = 0, name: str = "policy") -> None:
        import torch

        self.policy, self.greedy, self.name = policy, greedy, name
        self.generator = torch.Generator().manual_seed(seed)
        policy.eval()

    def begin(self, env: DiscreteActions) -> None:
        pass

    def act(self, obs: dict[str, Any], env: DiscreteActions) -> np.ndarray:
        import torch

        features = {k: v[None] for k, v in featurize(obs, env).items()}
        if self.greedy:
            return self.policy.act(features, greedy=True)[0]
        state = torch.get_rng_state()
        torch.set_rng_state(self.generator.get_state())  # sampling draws from this agent's own stream
        try:
            action = self.policy.act(features, greedy=False)[0]
        finally:
            self.generator.set_state(torch.get_rng_state())
            torch.set_rng_state(state)
        return action


@dataclass(frozen=True)
class EpisodeResult:
    """One episode of one agent."""

    agent: str
    site: str
    task: str
    domain: str
    family: str
    kind: str
    difficulty: str
    success: bool
    ret: float
    length: int
    infra_error: bool
    template: str = ""
    """``seen`` / ``unseen``: whether the task's template occurs in the training corpus (when known)."""


def run_episode(agent: Agent, env: DiscreteActions, **reset: Any) -> tuple[dict[str, Any], float, int]:
    """One episode of ``agent`` in ``env`` (reset with ``reset``): the last info, the return and the length."""
    obs, info = env.reset(**reset)
    agent.begin(env)
    total, steps, done = 0.0, 0, False
    while not done:
        action = agent.act(obs, env)
        if isinstance(action, str):
            obs, reward, terminated, truncated, info = env.env.step(action)
            obs = {**obs, "action_mask": env.masks()}
        else:
            obs, reward, terminated, truncated, info = env.step(action)
            remember(env, action, obs)
        total += float(reward)
        steps += 1
        done = terminated or truncated
    return info, total, steps


def run_episodes(agent: Agent, sites: Sequence[Site], *, max_steps: int | None = None,
                 seen_templates: set[str] | None = None) -> list[EpisodeResult]:
    """One episode of ``agent`` per (site, task), in order.

    Args:
        agent: the agent (a :class:`PolicyAgent` or a floor).
        sites: the test sites.
        max_steps: override every task's step budget.
        seen_templates: the training corpus's instruction templates; results then say whether
            each task's template was ``seen`` or ``unseen`` in training (a held-out-template split
            inside any test corpus).
    """
    if not sites:
        raise VeriwebError("no test sites to evaluate on")
    base = VeriwebEnv(sites=list(sites), max_steps=max_steps)
    policy = getattr(agent, "policy", None)
    env = discrete_for(base, policy.config) if isinstance(policy, Policy) else DiscreteActions(base)
    results: list[EpisodeResult] = []
    for index, site in enumerate(sites):
        for task in site.tasks:
            info, total, steps = run_episode(agent, env, options={"site": index, "task": task.id})
            results.append(EpisodeResult(agent.name, site.id, task.id, site.domain, task.family, task.kind,
                                         task.difficulty, bool(info.get("success")), total, steps,
                                         bool(info.get("infra_error")),
                                         "" if seen_templates is None else
                                         ("seen" if task.template in seen_templates else "unseen")))
    return results


def bootstrap_ci(values: np.ndarray, groups: np.ndarray, *, resamples: int = 1000, seed: int = 0,
                 level: float = 0.95) -> tuple[float, float, float]:
    """The mean of ``values`` and its percentile bootstrap interval, resampling whole ``groups``.

    Returns:
        (mean, low, high).
    """
    values = np.asarray(values, dtype=np.float64)
    if len(values) == 0:
        return float("nan"), float("nan"), float("nan")
    keys, inverse = np.unique(groups, return_inverse=True)
    sums = np.bincount(inverse, weights=values, minlength=len(keys))
    counts = np.bincount(inverse, minlength=len(keys)).astype(np.float64)
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(keys), size=(resamples, len(keys)))
    means = sums[draws].sum(1) / counts[draws].sum(1)
    tail = (1 - level) / 2 * 100
    return float(values.mean()), float(np.percentile(means, tail)), float(np.percentile(means, 100 - tail))


def summarise(results: Iterable[EpisodeResult], *, seed: int = 0, resamples: int = 1000) -> dict[str, Any]:
    """Per agent, per group (``all``, ``domain:shop``, ``family:...``, ...): n, success with CI,
    mean return with CI, mean length, infra errors."""
    by_agent: dict[str, list[EpisodeResult]] = defaultdict(list)
    for result in results:
        by_agent[result.agent].append(result)
    out: dict[str, Any] = {}
    for agent, rows in by_agent.items():
        keyed: dict[str, list[EpisodeResult]] = defaultdict(list)
        for row in rows:
            keyed["all"].append(row)
            for group in GROUPS:
                if getattr(row, group):
                    keyed[f"{group}:{getattr(row, group)}"].append(row)
        table: dict[str, Any] = {}
        for key in sorted(keyed, key=lambda k: (k != "all", k)):
            part = keyed[key]
            sites = np.array([r.site for r in part])
            success = bootstrap_ci(np.array([r.success for r in part], float), sites, seed=seed, resamples=resamples)
            ret = bootstrap_ci(np.array([r.ret for r in part]), sites, seed=seed, resamples=resamples)
            table[key] = {"n": len(part), "sites": int(len(set(sites.tolist()))), "success": success[0],
                          "success_ci": [success[1], success[2]], "return": ret[0], "return_ci": [ret[1], ret[2]],
                          "length": float(np.mean([r.length for r in part])),
                          "infra_errors": int(sum(r.infra_error for r in part))}
        domains = [k for k in table if k.startswith("domain:")]
        if domains:  # the headline: success averaged over domains (each domain weighs the same)
            table["all"]["success_domain_mean"] = float(np.mean([table[k]["success"] for k in domains]))
        out[agent] = table
    return out


def format_table(summary: dict[str, Any], *, groups: Sequence[str] = ("all", "domain", "kind", "difficulty",
                                                                        "template", "family")) -> str:
    """A plain-text table: one row per group, one column per agent (success % [CI])."""
    agents = list(summary)
    keys: list[str] = []
    for prefix in groups:
        for agent in agents:
            for key in summary[agent]:
                if (key == prefix or key.startswith(prefix + ":")) and key not in keys:
                    keys.append(key)
    width = max([len(k) for k in keys] + [5])
    head = f"{'group':<{width}}  {'n':>4}  " + "  ".join(f"{a[:22]:>22}" for a in agents)
    lines = [head, "-" * len(head)]
    for key in keys:
        n = next((summary[a][key]["n"] for a in agents if key in summary[a]), 0)
        cells = []
        for agent in agents:
            row = summary[agent].get(key)
            cells.append(f"{'-':>22}" if row is None else
                         f"{100 * row['success']:5.1f} [{100 * row['success_ci'][0]:4.1f},{100 * row['success_ci'][1]:5.1f}]".rjust(22))
        lines.append(f"{key:<{width}}  {n:>4}  " + "  ".join(cells))
    first = agents[0]
    if "success_domain_mean" in summary[first]["all"]:
        lines.append("success averaged over domains: " + ", ".join(
            f"{a} {100 * summary[a]['all']['success_domain_mean']:.1f}%" for a in agents))
    lines.append("mean episode length: " + ", ".join(f"{a} {summary[a]['all']['length']:.1f}" for a in agents))
    return "\n".join(lines)


def write_results(path: str | Path, summary: dict[str, Any], results: Sequence[EpisodeResult],
                  meta: dict[str, Any] | None = None) -> Path:
    """Write the summary, the per-episode results and ``meta`` as one JSON file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"meta": meta or {}, "summary": summary, "episodes": [asdict(r) for r in results]}
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return path


def evaluate(agents: Sequence[Agent], sites: Sequence[Site], *, seed: int = 0, max_steps: int | None = None,
             seen_templates: set[str] | None = None) -> tuple[dict[str, Any], list[EpisodeResult]]:
    """Run every agent on every (site, task) and summarise (see :func:`summarise`)."""
    results: list[EpisodeResult] = []
    for agent in agents:
        results += run_episodes(agent, sites, max_steps=max_steps, seen_templates=seen_templates)
    return summarise(results, seed=seed), results

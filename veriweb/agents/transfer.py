"""Transfer: a policy trained on veriweb sites, run zero-shot on MiniWoB++ in real Chromium.

The policy sees MiniWoB++ through the same element table and the same discrete actions as a
veriweb site (:mod:`veriweb.envs.miniwob`), so nothing is retrained or adapted: what it scores
there is what it learned here. Every agent runs the same episodes (task, seed): seeds
``seed .. seed + episodes - 1`` of each task, so MiniWoB++ draws the same instances for all of
them. Results use :class:`veriweb.agents.evaluate.EpisodeResult` with domain ``miniwob``, the
task name as family, and the episode as the bootstrap unit, so they print with the same table
beside the same floors (random, no-op).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from veriweb.agents.evaluate import EpisodeResult, run_episode, summarise
from veriweb.agents.floors import Agent
from veriweb.envs.actions import DiscreteActions
from veriweb.envs.miniwob import TASKS, MiniWoBEnv
from veriweb.errors import VeriwebError


def _discrete(agent: Agent, base: MiniWoBEnv) -> DiscreteActions:
    from veriweb.agents.policy import Policy, discrete_for

    policy = getattr(agent, "policy", None)
    return discrete_for(base, policy.config) if isinstance(policy, Policy) else DiscreteActions(base)


def run_miniwob(agent: Agent, tasks: Sequence[str] = TASKS, *, episodes: int = 20, seed: int = 0,
                max_steps: int = 10) -> list[EpisodeResult]:
    """``episodes`` episodes of ``agent`` on each MiniWoB++ task.

    Args:
        agent: a :class:`veriweb.agents.evaluate.PolicyAgent` or a floor.
        tasks: MiniWoB++ task names.
        episodes: episodes per task (seeds ``seed`` onwards).
        seed: the first seed.
        max_steps: steps before an episode is cut.

    Raises:
        VeriwebError: no tasks, or a non-positive episode count.
    """
    if not tasks:
        raise VeriwebError("no MiniWoB++ tasks to run")
    if episodes <= 0:
        raise VeriwebError(f"episodes must be positive, got {episodes}")
    results: list[EpisodeResult] = []
    for task in tasks:
        env = _discrete(agent, MiniWoBEnv(task, max_steps=max_steps))
        try:
            for episode in range(episodes):
                info, total, steps = run_episode(agent, env, seed=seed + episode)
                results.append(EpisodeResult(agent.name, f"{task}#{seed + episode}", task, "miniwob", task, "mutate",
                                             "easy", bool(info.get("success")), total, steps,
                                             bool(info.get("infra_error"))))
        finally:
            env.close()
    return results


def evaluate_miniwob(agents: Sequence[Agent], tasks: Sequence[str] = TASKS, *, episodes: int = 20, seed: int = 0,
                     max_steps: int = 10) -> tuple[dict[str, Any], list[EpisodeResult]]:
    """Run every agent on the same MiniWoB++ episodes and summarise (success per task, with CIs)."""
    results: list[EpisodeResult] = []
    for agent in agents:
        results += run_miniwob(agent, tasks, episodes=episodes, seed=seed, max_steps=max_steps)
    return summarise(results, seed=seed), results

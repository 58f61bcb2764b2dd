"""Demonstrations as given: every certificate step that can be taken, kept whether or not the task ends solved.

:func:`veriweb.agents.bc.collect` trusts nothing it cannot replay: a certificate whose replay
does not end in success is skipped. That is the verifier's help. Someone training on raw sites
has only the author's claimed solutions and clones them as they are, so the ablation
(:mod:`veriweb.agents.ablation`) clones every arm with :func:`collect_as_given`:

- each task's certificate is mapped into discrete actions with the notes it needs
  (:func:`veriweb.envs.certificates.certificate_actions`); when the whole certificate does not
  map (a step names an element the broken page does not have), its steps are mapped one at a
  time, without notes, and the prefix up to the first step that does not map is kept;
- a step the action masks forbid ends the demonstration there (the steps before it are kept);
- the demonstration is kept whether or not the replay ends in success.

Each task is counted as ``solved`` (its replay ends in success), ``unsolved`` (it does not),
``truncated`` (a step did not map or was masked; the prefix is kept) or ``empty`` (not one step
could be taken). On a certified corpus every certificate is ``solved``, so the result equals
:func:`~veriweb.agents.bc.collect`'s.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

import numpy as np

from veriweb.agents.bc import Demonstrations, _allowed, concatenate
from veriweb.agents.features import featurize, pack, stack
from veriweb.agents.memory import remember
from veriweb.agents.policy import config_for
from veriweb.envs.actions import DiscreteActions
from veriweb.envs.certificates import certificate_actions
from veriweb.envs.env import VeriwebEnv
from veriweb.errors import VeriwebError
from veriweb.scaffold import Site

OUTCOMES = ("solved", "unsolved", "truncated", "empty")
"""How a task's demonstration ended (see the module docstring)."""


def _plan(env: DiscreteActions, task: Any, index: int) -> tuple[list[np.ndarray], str]:
    """The discrete steps of ``task``'s certificate, and ``""`` or why the plan stops short."""
    try:
        return certificate_actions(env, task, index), ""
    except VeriwebError as exc:
        why = str(exc)
    env.reset(options={"site": index, "task": task.id})
    steps: list[np.ndarray] = []
    for action in task.certificate:
        try:
            steps.append(env.encode(action))
        except VeriwebError:
            break
        _, _, terminated, truncated, _ = env.step(steps[-1])
        if terminated or truncated:
            break
    return steps, why


def _replay_as_given(sites: list[Site], env_kwargs: dict[str, Any] | None) -> tuple[Demonstrations, Counter[str]]:
    env = DiscreteActions(VeriwebEnv(sites=sites, **(env_kwargs or {})))
    rows: list[dict[str, np.ndarray]] = []
    actions: list[np.ndarray] = []
    episodes: list[int] = []
    outcomes: Counter[str] = Counter()
    demos = Demonstrations({}, np.zeros((0, 3), np.int64), np.zeros(0, np.int64), config=config_for(env))
    for index, site in enumerate(sites):
        for task in site.tasks:
            demos.tasks += 1
            plan, why = _plan(env, task, index)
            obs, info = env.reset(options={"site": index, "task": task.id})
            taken = 0
            for action in plan:
                if not _allowed(obs, action):
                    why = why or f"{env.decode(action)} is masked out"
                    break
                rows.append(featurize(obs, env))
                actions.append(action)
                episodes.append(demos.tasks - 1)
                taken += 1
                obs, _, terminated, truncated, info = env.step(action)
                remember(env, action, obs)
                if terminated or truncated:
                    break
            outcome = ("empty" if taken == 0 else "truncated" if why
                       else "solved" if info.get("success") else "unsolved")
            outcomes[outcome] += 1
            if outcome != "solved":
                demos.examples.setdefault(outcome, f"{site.id}/{task.id}: {why or info.get('reason')}")
            if taken:
                demos.used += 1
            else:
                demos.skipped["empty"] += 1
    if rows:
        demos.features = pack(stack(rows))
        demos.actions = np.stack(actions).astype(np.int64)
        demos.episode = np.array(episodes, np.int64)
    return demos, outcomes


def _chunk(args: tuple[list[Site], dict[str, Any] | None]) -> tuple[Demonstrations, Counter[str]]:
    import torch

    torch.set_num_threads(1)
    return _replay_as_given(*args)


def collect_as_given(sites: Iterable[Site], *, env_kwargs: dict[str, Any] | None = None,
                     workers: int = 1) -> tuple[Demonstrations, dict[str, int]]:
    """Every task's certificate steps as (features, discrete action) pairs, failures kept (see the module docstring).

    Args:
        sites: the training sites, with the certificates to clone.
        env_kwargs: extra :class:`VeriwebEnv` arguments.
        workers: processes to replay in (contiguous chunks of sites; the result is the same as with one).

    Returns:
        The demonstrations and the count of tasks per outcome (:data:`OUTCOMES`).

    Raises:
        VeriwebError: no sites, or not one step of any certificate could be taken.
    """
    sites = list(sites)
    if not sites:
        raise VeriwebError("no training sites: give a corpus with at least one site")
    if workers > 1 and len(sites) > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        bounds = np.linspace(0, len(sites), min(workers, len(sites)) + 1).round().astype(int)
        chunks = [(sites[a:b], env_kwargs) for a, b in zip(bounds[:-1], bounds[1:])]
        with ProcessPoolExecutor(len(chunks), mp_context=multiprocessing.get_context("fork")) as pool:
            parts = list(pool.map(_chunk, chunks))
    else:
        parts = [_replay_as_given(sites, env_kwargs)]
    outcomes: Counter[str] = Counter()
    for _, counted in parts:
        outcomes.update(counted)
    demos = concatenate([part for part, _ in parts])
    return demos, {name: outcomes.get(name, 0) for name in OUTCOMES}


__all__ = ["OUTCOMES", "collect_as_given"]

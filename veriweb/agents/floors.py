"""Floors that every result is reported beside: random, no-op, always-infeasible, and nearest-certificate.

An agent here is anything with ``begin(env)`` (a new episode in a :class:`DiscreteActions` env)
and ``act(obs, env)``, which returns a discrete action (an array) or an action string. The
floors say what a score means: a policy that does no better than replaying the closest training
certificate has memorised, not learned.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from veriweb.envs.actions import ACTION_TYPES, DiscreteActions
from veriweb.envs.tokenizer import pieces
from veriweb.scaffold import Site, Task

INFEASIBLE = ACTION_TYPES.index("infeasible")
NOOP = ACTION_TYPES.index("noop")


class Agent(Protocol):
    """What :func:`veriweb.agents.evaluate.evaluate` runs."""

    name: str

    def begin(self, env: DiscreteActions) -> None:
        """A new episode starts in ``env`` (already reset)."""

    def act(self, obs: dict[str, Any], env: DiscreteActions) -> np.ndarray | str:
        """The next action: a discrete action, or an action string."""


class RandomAgent:
    """Uniform over the actions the masks allow, from its own seeded stream.

    Args:
        seed: the stream's seed.
    """

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)

    def begin(self, env: DiscreteActions) -> None:
        pass

    def act(self, obs: dict[str, Any], env: DiscreteActions) -> np.ndarray:
        mask = obs["action_mask"]
        kind = int(self.rng.choice(np.flatnonzero(mask["type"])))
        rows = np.flatnonzero(mask["element"][kind])
        args = np.flatnonzero(mask["argument"][kind])
        return np.array([kind, int(self.rng.choice(rows)) if len(rows) else 0,
                         int(self.rng.choice(args)) if len(args) else 0])


class NoopAgent:
    """Does nothing until the step budget runs out."""

    name = "noop"

    def begin(self, env: DiscreteActions) -> None:
        pass

    def act(self, obs: dict[str, Any], env: DiscreteActions) -> np.ndarray:
        return np.array([NOOP, 0, 0])


class InfeasibleAgent:
    """Reports every task infeasible on its first step (right exactly on the infeasible tasks)."""

    name = "infeasible"

    def begin(self, env: DiscreteActions) -> None:
        pass

    def act(self, obs: dict[str, Any], env: DiscreteActions) -> np.ndarray:
        return np.array([INFEASIBLE, 0, 0])


@dataclass(frozen=True)
class _Memory:
    family: str
    kind: str
    words: frozenset[str]
    slots: dict[str, Any]
    certificate: tuple[str, ...]


def _words(instruction: str) -> frozenset[str]:
    return frozenset(p for p in pieces(instruction) if p.isalnum())


def substitute(action: str, old: dict[str, Any], new: dict[str, Any]) -> str:
    """``action`` with each slot value of ``old`` replaced by the same slot's value in ``new``
    (longest values first, so a value inside another is not replaced twice)."""
    pairs = sorted(((str(old[k]), str(new[k])) for k in old if k in new and str(old[k])),
                   key=lambda pair: -len(pair[0]))
    for before, after in pairs:
        action = action.replace(before, after)
    return action


class NearestCertificateAgent:
    """Replays the most similar training certificate, slot values substituted.

    Similarity: same task family first (else same kind, else any), then the Jaccard overlap of
    the instructions' words; ties go to the earliest training task. After the certificate it
    does nothing.

    Args:
        train_sites: the training sites whose certificates it may replay.
    """

    name = "nearest_certificate"

    def __init__(self, train_sites: Iterable[Site]) -> None:
        self.memory: list[_Memory] = []
        self.by_family: dict[str, list[int]] = defaultdict(list)
        self.by_kind: dict[str, list[int]] = defaultdict(list)
        for site in train_sites:
            for task in site.tasks:
                if not task.certificate:
                    continue
                self.by_family[task.family].append(len(self.memory))
                self.by_kind[task.kind].append(len(self.memory))
                self.memory.append(_Memory(task.family, task.kind, _words(task.instruction), dict(task.slots),
                                           tuple(task.certificate)))
        self.plan: list[str] = []

    def nearest(self, task: Task) -> _Memory | None:
        """The training task whose certificate is replayed for ``task``."""
        pool = self.by_family.get(task.family) or self.by_kind.get(task.kind) or list(range(len(self.memory)))
        if not pool:
            return None
        words = _words(task.instruction)

        def score(index: int) -> float:
            other = self.memory[index].words
            return len(words & other) / max(len(words | other), 1)

        return self.memory[max(pool, key=lambda i: (score(i), -i))]

    def begin(self, env: DiscreteActions) -> None:
        task = env.base.task
        found = self.nearest(task)
        self.plan = [substitute(a, found.slots, dict(task.slots)) for a in found.certificate] if found else []

    def act(self, obs: dict[str, Any], env: DiscreteActions) -> np.ndarray | str:
        if self.plan:
            return self.plan.pop(0)
        return np.array([NOOP, 0, 0])

"""Rewards as pure functions of the judged outcome, chosen by name (like miniwob's ``reward.py``).

Each function takes the step's ``success`` flag, the potential before and after the step
(``phi``: the fraction of the task's subgoals that hold, a function of the state, never a
ratchet), whether a constraint or the footprint was broken, and ``gamma``.
"""

from __future__ import annotations

from collections.abc import Callable


def potential(done: int, total: int) -> float:
    """Phi(s): the fraction of subgoals that hold now (0 when a task has none)."""
    return done / total if total else 0.0


def sparse(*, success: bool, phi_before: float, phi_after: float, violated: bool, gamma: float) -> float:
    """1 on the step that ends in verified success, else 0."""
    return 1.0 if success else 0.0


def dense(*, success: bool, phi_before: float, phi_after: float, violated: bool, gamma: float) -> float:
    """Sparse reward plus potential-based shaping F = gamma * Phi(s') - Phi(s).

    Undoing a subgoal costs exactly what doing it earned, so loops earn nothing; with gamma = 1
    an episode's shaped rewards sum to its sparse return plus Phi(end) - Phi(start).
    """
    return sparse(success=success, phi_before=phi_before, phi_after=phi_after, violated=violated,
                  gamma=gamma) + gamma * phi_after - phi_before


REWARDS: dict[str, Callable[..., float]] = {"sparse": sparse, "dense": dense}


def reward_fn(name: str) -> Callable[..., float]:
    """The reward function called ``name``.

    Raises:
        ValueError: an unknown name (the message lists the known ones).
    """
    if name not in REWARDS:
        raise ValueError(f"unknown reward {name!r}; choose one of {', '.join(REWARDS)}")
    return REWARDS[name]

"""Policy features: a :class:`DiscreteActions` observation as fixed-size integer and float arrays.

The policy reads only what any browser-like source gives (the element table of
:mod:`veriweb.envs.observation`), the goal's token ids, the texts of the discrete arguments
(the task's slot values and the numbers), the action masks, and three scalars (progress,
whether the last action failed, and the fraction of the step budget used). Strings are
dropped, so a batch of observations stacks without copies of page text.

:class:`PolicyObservation` is the same thing as a Gymnasium observation wrapper, so Gymnasium's
``SyncVectorEnv`` / ``AsyncVectorEnv`` batch the features directly.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from veriweb.envs.actions import ACTION_TYPES, DiscreteActions
from veriweb.envs.observation import FLAGS, ROLES
from veriweb.envs.tokenizer import VOCAB_SIZE, encode

ARG_TOKENS = 8
"""Token ids kept per argument text."""
N_EXTRA = 4
"""Scalars per step: progress done/total, whether the task has subgoals, last-action error, budget used."""


def feature_space(n_elements: int, n_args: int, name_tokens: int = 12, value_tokens: int = 6,
                  goal_tokens: int = 48) -> spaces.Dict:
    """The space of :func:`featurize`'s output."""
    T, E, A = len(ACTION_TYPES), n_elements, n_args
    box = lambda low, high, shape, dtype: spaces.Box(low, high, shape, dtype)  # noqa: E731
    return spaces.Dict({
        "goal": box(0, VOCAB_SIZE - 1, (goal_tokens,), np.int32),
        "el_tokens": box(0, VOCAB_SIZE - 1, (E, name_tokens), np.int32),
        "el_value": box(0, VOCAB_SIZE - 1, (E, value_tokens), np.int32),
        "el_role": box(0, len(ROLES) - 1, (E,), np.int32),
        "el_flags": box(0, 1, (E, len(FLAGS)), np.int8),
        "el_depth": box(0, 255, (E,), np.int32),
        "el_mask": box(0, 1, (E,), np.int8),
        "el_overlap": box(0.0, 1.0, (E,), np.float32),
        "arg_tokens": box(0, VOCAB_SIZE - 1, (A, ARG_TOKENS), np.int32),
        "mask_type": box(0, 1, (T,), np.int8),
        "mask_element": box(0, 1, (T, E), np.int8),
        "mask_argument": box(0, 1, (T, A), np.int8),
        "extra": box(-1.0, 1_000.0, (N_EXTRA,), np.float32),
    })


def _overlap(tokens: np.ndarray, goal: np.ndarray) -> np.ndarray:
    """For each element row, the fraction of its (non-pad) name tokens that occur in the goal."""
    present = (tokens > 0)
    hits = np.isin(tokens, goal[goal > 0]) & present
    return (hits.sum(axis=1) / np.maximum(present.sum(axis=1), 1)).astype(np.float32)


def argument_tokens(env: DiscreteActions) -> np.ndarray:
    """Token ids of each argument's text, zeros for pointers, empty slots and page strings.

    Page strings (arguments ``page_start + row``) are left out: the policy represents them by the
    state of their element row. Task strings and numbers are fixed for a task and memoised.
    """
    strings = env.task_strings()
    cached = getattr(env, "_policy_arg_tokens", None)
    if cached is None or cached[0] is not strings:
        out = np.zeros((env.n_args, ARG_TOKENS), np.int32)
        for index, text in enumerate(strings[: env.page_start - env.task_start]):
            out[env.task_start + index] = encode(text, ARG_TOKENS)
        for arg in range(env.number_start, env.n_args):
            out[arg] = encode(str(arg - env.number_start), ARG_TOKENS)
        cached = (strings, out)
        env._policy_arg_tokens = cached  # type: ignore[attr-defined]
    history = env.history() if env.max_history else []
    if not history:
        return cached[1]
    out = cached[1].copy()
    for index, url in enumerate(history[: env.max_history]):
        out[env.history_start + index] = encode(url, ARG_TOKENS)
    return out


def featurize(obs: dict[str, Any], env: DiscreteActions) -> dict[str, np.ndarray]:
    """The policy features of a :class:`DiscreteActions` observation taken in ``env``'s current state.

    Args:
        obs: the observation ``env`` just returned (with ``action_mask``).
        env: the env it came from (for the argument texts and the step count).
    """
    elements = obs["elements"]
    mask = obs["action_mask"]
    done, total = (float(x) for x in obs["progress"])
    base = env.base
    steps = base.episode.steps if base.episode is not None else 0
    budget = base.task.max_steps if base.episode is not None else 40
    extra = np.array([done / total if total else 0.0, float(total > 0), float(bool(obs["last_action_error"])),
                      steps / max(budget, 1)], np.float32)
    return {
        "goal": obs["goal_tokens"].astype(np.int32),
        "el_tokens": elements["tokens"], "el_value": elements["value_tokens"], "el_role": elements["role"],
        "el_flags": elements["flags"], "el_depth": elements["depth"], "el_mask": elements["mask"],
        "el_overlap": _overlap(elements["tokens"], obs["goal_tokens"]),
        "arg_tokens": argument_tokens(env),
        "mask_type": mask["type"], "mask_element": mask["element"], "mask_argument": mask["argument"],
        "extra": extra,
    }


class PolicyObservation(gym.ObservationWrapper[dict[str, np.ndarray], np.ndarray, dict[str, Any]]):
    """Wrap a :class:`DiscreteActions` env so observations are :func:`featurize`'s arrays.

    Args:
        env: a :class:`DiscreteActions` env (the outermost wrapper).
    """

    def __init__(self, env: DiscreteActions) -> None:
        super().__init__(env)
        if not isinstance(env, DiscreteActions):
            raise TypeError(f"PolicyObservation wraps a DiscreteActions env, got {type(env).__name__}")
        self.discrete = env
        config = env.base.config
        self.observation_space = feature_space(env.n_elements, env.n_args, config.name_tokens,
                                               config.value_tokens, config.goal_tokens)

    def observation(self, observation: dict[str, Any]) -> dict[str, np.ndarray]:
        return featurize(observation, self.discrete)


def stack(features: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Stack per-step features into a batch (one leading axis)."""
    return {key: np.stack([f[key] for f in features]) for key in features[0]}

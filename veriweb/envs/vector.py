"""A batched in-process vector env: N veriweb sessions stepped in one process, no copies, no pickling.

Autoreset follows Gymnasium 1.x's ``NEXT_STEP`` mode (as ``SyncVectorEnv`` does by default):
the step after an episode ends resets that sub-env, returns its first observation with reward 0,
and ignores the action given for it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space, concatenate, create_empty_array

from veriweb.envs.env import VeriwebEnv


class VeriwebVectorEnv(VectorEnv):
    """``num_envs`` :class:`VeriwebEnv` instances with the same arguments, stepped together.

    Args:
        num_envs: how many sub-envs.
        **kwargs: arguments of :class:`VeriwebEnv` (``domain=``, ``corpus=``, filters, ...).
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, num_envs: int, **kwargs: Any) -> None:
        self.envs = [VeriwebEnv(**kwargs) for _ in range(num_envs)]
        self.num_envs = num_envs
        self.single_observation_space = self.envs[0].observation_space
        self.single_action_space = self.envs[0].action_space
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._needs_reset = np.zeros(num_envs, dtype=bool)
        self._obs = create_empty_array(self.single_observation_space, num_envs)

    def reset(self, *, seed: int | list[int] | None = None,
              options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Reset every sub-env; an int ``seed`` seeds sub-env ``i`` with ``seed + i``."""
        seeds = [seed + i for i in range(self.num_envs)] if isinstance(seed, int) else (seed or [None] * self.num_envs)
        observations, infos = [], {}
        for index, (env, sub_seed) in enumerate(zip(self.envs, seeds)):
            obs, info = env.reset(seed=sub_seed, options=options)
            observations.append(obs)
            infos = self._add_info(infos, info, index)
        self._needs_reset[:] = False
        self._obs = concatenate(self.single_observation_space, observations, self._obs)
        return self._obs, infos

    def close_extras(self, **kwargs: Any) -> None:
        """Close every sub-env."""
        for env in self.envs:
            env.close()

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every sub-env (resetting, instead, those whose episode ended on the last step)."""
        observations = []
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        terminated = np.zeros(self.num_envs, dtype=bool)
        truncated = np.zeros(self.num_envs, dtype=bool)
        infos: dict[str, Any] = {}
        for index, env in enumerate(self.envs):
            if self._needs_reset[index]:
                obs, info = env.reset()
                self._needs_reset[index] = False
            else:
                obs, rewards[index], terminated[index], truncated[index], info = env.step(actions[index])
                self._needs_reset[index] = terminated[index] or truncated[index]
            observations.append(obs)
            infos = self._add_info(infos, info, index)
        self._obs = concatenate(self.single_observation_space, observations, self._obs)
        return self._obs, rewards, terminated, truncated, infos

"""Gymnasium environments, spaces, wrappers, and their registration from a table.

Importing :mod:`veriweb` registers, for each domain, ``veriweb/<domain>-v0`` (sites generated
from the seed and cached) and ``veriweb/site-v0`` (give ``sites=[...]`` or ``corpus=DIR``)::

    import gymnasium as gym
    import veriweb  # registers the envs

    env = gym.make("veriweb/shop-v0", reward="dense")
"""

from __future__ import annotations

import gymnasium as gym

from veriweb.envs.actions import ACTION_TYPES, DiscreteActions
from veriweb.envs.env import VeriwebEnv
from veriweb.envs.observation import ObservationConfig
from veriweb.envs.vector import VeriwebVectorEnv

ENTRY_POINT = "veriweb.envs.env:VeriwebEnv"
ENVS: list[tuple[str, dict[str, object]]] = [
    ("veriweb/shop-v0", {"domain": "shop"}),
    ("veriweb/admin-v0", {"domain": "admin"}),
    ("veriweb/forum-v0", {"domain": "forum"}),
    ("veriweb/code-v0", {"domain": "code"}),
    ("veriweb/travel-v0", {"domain": "travel"}),
    ("veriweb/mail-v0", {"domain": "mail"}),
    ("veriweb/site-v0", {}),
]
"""Every registered id and its default arguments."""


def register_envs() -> None:
    """Register every env of :data:`ENVS` (idempotent)."""
    for env_id, kwargs in ENVS:
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point=ENTRY_POINT, kwargs=dict(kwargs), disable_env_checker=True)


__all__ = ["ACTION_TYPES", "ENVS", "DiscreteActions", "ObservationConfig", "VeriwebEnv", "VeriwebVectorEnv",
           "register_envs"]

"""``gc_freeze``: the collector's full passes skip the loaded sites, and nothing an agent sees changes."""

from __future__ import annotations

import gc
import hashlib
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from veriweb.envs import DiscreteActions, VeriwebEnv


@pytest.fixture()
def unfreeze() -> Iterator[None]:
    yield
    gc.unfreeze()  # leave the test process as it was


def _digest(obs: dict[str, Any], digest: Any) -> None:
    for name in sorted(obs):
        value = obs[name]
        if isinstance(value, dict):
            _digest(value, digest)
        elif isinstance(value, np.ndarray):
            digest.update(np.ascontiguousarray(value).tobytes())
        else:
            digest.update(str(value).encode())


def _walk(env: DiscreteActions, steps: int) -> str:
    digest = hashlib.sha256()
    obs, _ = env.reset(seed=4)
    _digest(obs, digest)
    for _ in range(steps):
        obs, reward, terminated, truncated, info = env.step(env.sample(obs["action_mask"]))
        _digest(obs, digest)
        digest.update(repr((reward, terminated, truncated, info["success"], info["progress"])).encode())
        if terminated or truncated:
            obs, _ = env.reset()
            _digest(obs, digest)
    return digest.hexdigest()


def test_gc_freeze_freezes_once_per_site_and_changes_no_byte(unfreeze: None) -> None:
    gc.unfreeze()
    plain = _walk(DiscreteActions(VeriwebEnv("shop", num_sites=2, max_steps=20)), 60)
    assert gc.get_freeze_count() == 0
    env = VeriwebEnv("shop", num_sites=2, max_steps=20, gc_freeze=True)
    assert _walk(DiscreteActions(env), 60) == plain
    assert gc.get_freeze_count() > 0
    assert env._frozen == set(env._sessions)  # each site's first session froze once

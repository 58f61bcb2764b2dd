"""``gc_freeze``: the collector's passes skip the loaded sites and cached pages, the
caller's garbage cycles are still collected, and nothing an agent sees changes."""

from __future__ import annotations

import gc
import hashlib
import weakref
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from veriweb.engine.cache import site_cache
from veriweb.envs import DiscreteActions, VeriwebEnv, freezing


@pytest.fixture()
def unfreeze() -> Iterator[None]:
    yield
    freezing.thaw()  # leave the test process as it was


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


def test_freezing_changes_no_byte_and_close_thaws(unfreeze: None) -> None:
    freezing.thaw()
    plain = _walk(DiscreteActions(VeriwebEnv("shop", num_sites=2, max_steps=20)), 60)
    assert gc.get_freeze_count() == 0  # off by default
    env = VeriwebEnv("shop", num_sites=2, max_steps=20, gc_freeze=True)
    assert _walk(DiscreteActions(env), 60) == plain
    assert gc.get_freeze_count() > 0
    env.close()
    assert gc.get_freeze_count() == 0


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def test_a_callers_garbage_cycle_is_collected_once_the_frozen_objects_double(
        unfreeze: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Freezing after every step freezes the caller's objects too; a cycle of theirs that turns to
    garbage must not be kept for ever, only until the frozen set has doubled since the last pass."""
    monkeypatch.setattr(freezing, "CHECK_EVERY", 1)
    freezing.thaw()
    env = VeriwebEnv("forum", num_sites=1, max_steps=20, gc_freeze=True)
    env.reset(seed=0)
    env.step("noop()")  # the process's first step: one full pass
    after_pass = freezing._since_pass[0]
    assert after_pass > 0 and abs(after_pass - gc.get_freeze_count()) < 100
    cycle = _Cycle()
    gone = weakref.ref(cycle)
    env.step("noop()")  # frozen, alive
    del cycle
    gc.collect()
    alive = gone() is not None
    assert alive  # frozen: the collector does not look at it
    freezing._since_pass[0] = gc.get_freeze_count() // 2 - 1  # as if the last pass froze half as many
    env.step("noop()")
    assert gone() is None  # the pass at the doubling collected it
    assert abs(freezing._since_pass[0] - gc.get_freeze_count()) < 100


def test_a_step_leaves_no_cyclic_garbage_so_what_is_frozen_is_still_freed(unfreeze: None) -> None:
    """Freezing after every step is safe only if steps make no reference cycles: then a frozen page
    is freed by reference counting once the env (or its cache) lets go of it."""
    freezing.thaw()
    env = DiscreteActions(VeriwebEnv("mail", num_sites=2, max_steps=20))
    _walk(env, 5)  # sites built, modules imported
    gc.collect()
    gc.disable()
    try:
        _walk(env, 80)
        assert gc.collect() == 0  # nothing the steps dropped was held only by a cycle
    finally:
        gc.enable()
    env.close()
    del env  # its pages may be the very objects the next env's cache hands out
    frozen_env = VeriwebEnv("mail", num_sites=2, max_steps=20, gc_freeze=True)
    _walk(DiscreteActions(frozen_env), 30)
    page = weakref.ref(frozen_env.page)
    cache = site_cache(frozen_env.site)
    alive = page() is not None  # not inside an assert: pytest's rewriting would keep the page
    assert alive and gc.get_freeze_count() > 0
    del frozen_env  # not closed: what it froze stays frozen
    cache.clear()  # as its LRU does to the page once 512 newer ones are kept
    assert page() is None  # freed without the collector, which never looks at frozen objects

"""The Gymnasium environments: registration, checker, seeds, episode rules, rewards, vector envs."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.wrappers import RecordEpisodeStatistics

import veriweb  # noqa: F401  (registers the envs)
from veriweb.envs import ENVS, DiscreteActions, VeriwebEnv, VeriwebVectorEnv
from veriweb.envs.observation import ObservationConfig
from veriweb.envs.tokenizer import VOCAB_SIZE, encode
from veriweb.generate.domains import MODULES
from veriweb.scaffold import Site

AVAILABLE = [env_id for env_id, kwargs in ENVS
             if "domain" not in kwargs or __import__("importlib").util.find_spec(MODULES[str(kwargs["domain"])])]


def make(env_id: str, shop: Site, **kwargs: Any) -> gym.Env[Any, Any]:
    if env_id == "veriweb/site-v0":
        kwargs.setdefault("sites", [shop])
    return gym.make(env_id, **kwargs)


@pytest.mark.parametrize("env_id", AVAILABLE)
def test_check_env_passes_for_every_registered_id(env_id: str, shop: Site) -> None:
    env = make(env_id, shop)
    check_env(env.unwrapped, skip_render_check=False)
    wrapped = DiscreteActions(make(env_id, shop))
    with pytest.warns(UserWarning, match="different from the unwrapped"):
        check_env(wrapped)


def test_every_example_certificate_succeeds_through_the_env(shop: Site) -> None:
    env = VeriwebEnv(sites=[shop], reward="dense", gamma=1.0)
    for task in shop.tasks:
        obs, info = env.reset(options={"site": 0, "task": task.id})
        assert obs["goal"] == task.instruction and info["task"] == task.id
        total, phis = 0.0, [info["progress"][0] / max(1, info["progress"][1])]
        for action in task.certificate:
            obs, reward, terminated, truncated, info = env.step(action)
            total += reward
            phis.append(info["progress"][0] / max(1, info["progress"][1]))
        assert terminated and info["success"], (task.id, info)
        assert phis == sorted(phis), task.id  # Phi never decreases along a certificate
        # gamma = 1: shaped return = sparse return + Phi(end) - Phi(start)
        assert total == pytest.approx(1.0 + phis[-1] - phis[0]), task.id


def test_dense_reward_gives_nothing_for_undo_and_redo(shop: Site) -> None:
    env = VeriwebEnv(sites=[shop], reward="dense", gamma=1.0, end_on_success=False)
    env.reset(options={"site": 0, "task": "add_to_cart"})
    total = 0.0
    for action in shop.task("add_to_cart").certificate:  # type: ignore[union-attr]
        total += env.step(action)[1]
    assert total == pytest.approx(1.0)  # both subgoals hold: Phi went 0 -> 1
    env.step("goto('/cart')")
    remove = next(n for i, n in enumerate(env.page.nodes) if n.role == "button" and n.name == "Remove")
    total += env.step(f"click('{remove.bid}')")[1]
    assert total == pytest.approx(0.0)  # undoing it takes back what doing it earned


def test_constraint_break_ends_the_episode_with_a_penalty(shop: Site) -> None:
    env = VeriwebEnv(sites=[shop], violation_penalty=1.0)
    env.reset(options={"site": 0, "task": "buy_under_budget"})
    for action in ["goto('/product/3')"]:
        env.step(action)
    env.step(f"click('{env.page.find('tab', 'Options').bid}')")
    env.step(f"fill('{env.page.find('textbox', 'Quantity').bid}', '2')")
    env.step(f"click('{env.page.find('button', 'Add to cart').bid}')")
    env.step("goto('/checkout')")
    env.step(f"click('{env.page.find('button', 'Place order').bid}')")
    _, reward, terminated, truncated, info = env.step(f"click('{env.page.find('button', 'Yes, place order').bid}')")
    assert terminated and not truncated and not info["success"] and reward == -1.0
    assert info["violation"].startswith("constraint broken")


def test_horizon_truncates_and_reports(shop: Site) -> None:
    env = VeriwebEnv(sites=[shop], max_steps=5)
    env.reset(seed=3)
    for step in range(5):
        _, reward, terminated, truncated, info = env.step("noop()")
    assert truncated and not terminated and reward == 0.0 and not info["success"]


def test_infeasible_rules(shop: Site) -> None:
    env = VeriwebEnv(sites=[shop])
    env.reset(options={"site": 0, "task": "add_missing_product"})
    assert env.step("report_infeasible('no such product')")[1:4:2] == (1.0, False)
    env.reset(options={"site": 0, "task": "count_orders"})
    _, reward, terminated, _, info = env.step("report_infeasible('cannot')")
    assert terminated and reward == 0.0 and not info["success"]


def test_bad_actions_are_observations(shop: Site) -> None:
    env = VeriwebEnv(sites=[shop])
    obs, _ = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step("clik(")
    assert obs["last_action_error"] and info["last_action_error"] and not terminated and not info["infra_error"]


def test_engine_fault_is_an_infra_error_not_a_zero_reward(shop: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    env = VeriwebEnv(sites=[shop])
    env.reset(seed=0)
    monkeypatch.setattr(env.episode, "step", lambda action: (_ for _ in ()).throw(RuntimeError("disk on fire")))
    _, reward, terminated, truncated, info = env.step("noop()")
    assert info["infra_error"] and truncated and not terminated and "disk on fire" in info["infra_detail"]


def test_reset_options_pick_exactly(shop: Site) -> None:
    env = VeriwebEnv(sites=[shop])
    for task in shop.tasks:
        _, info = env.reset(options={"site": shop.id, "task": task.id})
        assert info["task"] == task.id and info["site"] == shop.id


def test_filters(shop: Site) -> None:
    env = VeriwebEnv(sites=[shop], kind="retrieve")
    kinds = {env.reset(seed=s)[1]["kind"] for s in range(20)}
    assert kinds == {"retrieve"}


SCRIPT = """
import hashlib, json, sys, numpy as np, gymnasium as gym, veriweb
env = gym.make("veriweb/shop-v0")
obs, info = env.reset(seed=1)
d = hashlib.sha256()
for k in sorted(obs):
    v = obs[k]
    if isinstance(v, dict):
        for s in sorted(v): d.update(np.ascontiguousarray(v[s]).tobytes())
    elif isinstance(v, np.ndarray): d.update(v.tobytes())
    else: d.update(str(v).encode())
print(json.dumps([info["site"], info["task"], d.hexdigest()]))
"""


def test_seed_maps_to_the_same_site_task_and_bytes_in_two_processes() -> None:
    runs = [subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True).stdout
            for _ in range(2)]
    assert runs[0] == runs[1] and json.loads(runs[0])[2]


def test_async_vector_env_of_8_gives_8_distinct_tasks_every_run() -> None:
    seen = []
    for _ in range(2):
        envs = gym.vector.AsyncVectorEnv([lambda: gym.make("veriweb/shop-v0") for _ in range(8)])
        try:
            _, infos = envs.reset(seed=0)
            seen.append(list(zip(infos["site"], infos["task"])))
        finally:
            envs.close()
    assert seen[0] == seen[1] and len(set(seen[0])) == 8


def test_sync_and_batched_vector_envs_step_and_autoreset(shop: Site) -> None:
    sync = gym.vector.SyncVectorEnv([lambda: VeriwebEnv(sites=[shop], max_steps=2) for _ in range(3)])
    batched = VeriwebVectorEnv(3, sites=[shop], max_steps=2)
    for envs in (sync, batched):
        obs, infos = envs.reset(seed=5)
        tasks = list(infos["task"])
        for _ in range(2):
            obs, rewards, terminated, truncated, infos = envs.step(["noop()"] * 3)
        assert truncated.all()
        obs, rewards, terminated, truncated, infos = envs.step(["noop()"] * 3)  # NEXT_STEP: this step resets
        assert not truncated.any() and (rewards == 0).all()
        assert obs["elements"]["mask"].shape == (3, ObservationConfig().max_elements)
        del tasks


def test_record_episode_statistics(shop: Site) -> None:
    env = RecordEpisodeStatistics(VeriwebEnv(sites=[shop]))
    env.reset(options={"site": 0, "task": "count_orders"})
    task = shop.task("count_orders")
    assert task is not None
    for action in task.certificate:
        _, _, terminated, truncated, info = env.step(action)
    assert info["episode"]["r"] == 1.0 and info["episode"]["l"] == len(task.certificate) and info["success"]


def test_every_certificate_maps_into_discrete_actions(shop: Site) -> None:
    env = DiscreteActions(VeriwebEnv(sites=[shop]))
    for task in shop.tasks:
        obs, _ = env.reset(options={"site": 0, "task": task.id})
        for action in task.certificate:
            discrete = env.encode(action)
            mask = obs["action_mask"]
            kind, row, arg = discrete
            assert mask["type"][kind] and mask["element"][kind, row] and mask["argument"][kind, arg], (task.id, action)
            obs, _, terminated, _, info = env.step(discrete)
        assert terminated and info["success"], (task.id, info)


def test_truncation_keeps_what_an_agent_acts_on(shop: Site) -> None:
    small = ObservationConfig(max_elements=24)
    env = VeriwebEnv(sites=[shop], config=small)
    obs, info = env.reset(options={"site": 0, "task": "cheapest_red"})
    assert info["truncated_elements"] > 0 and obs["elements"]["mask"].sum() == 24
    kept = set(info["element_bids"])
    actionable = [n.bid for n in env.page.nodes if n.visible and n.interactable]
    assert set(actionable[:24]) <= kept
    assert env.observation_space.contains(obs)


def test_tokenizer_has_no_out_of_vocabulary_text() -> None:
    for text in ["Bonjour, ça va? 你好 — $1,299.00", "click('12')", "", "x" * 1000]:
        ids = encode(text, 32)
        assert ids.dtype == np.int32 and ((0 <= ids) & (ids < VOCAB_SIZE)).all()
    assert encode("Price 42", 4).tolist()[1:3] == [5, 3]  # digits have ids of their own: '4' -> 5, '2' -> 3

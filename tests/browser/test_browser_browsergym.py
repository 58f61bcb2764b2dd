"""An unchanged BrowserGym environment runs veriweb tasks, sees the engine's element ids, and is judged."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("browsergym.core", reason="the BrowserGym adapter needs browsergym-core (the browsergym extra)")

import gymnasium as gym  # noqa: E402

from veriweb.browser import bgym  # noqa: E402
from veriweb.cli import load_site  # noqa: E402
from veriweb.engine import Episode, axtree_text  # noqa: E402


def test_every_example_task_is_registered() -> None:
    site = load_site(None)
    assert bgym.EXAMPLE_IDS == [f"browsergym/veriweb.threadline.{t.id}" for t in site.tasks]
    for env_id in bgym.EXAMPLE_IDS:
        assert env_id in gym.registry


@pytest.mark.parametrize("task_id", ["add_to_cart", "count_orders"])
def test_a_browsergym_env_sees_engine_ids_and_is_judged_by_the_state_api(chromium_path: str, task_id: str) -> None:
    from browsergym.utils.obs import flatten_axtree_to_str

    from veriweb.browser.chromium import shared_playwright

    shared_playwright()  # the process's one Playwright, shared with the other browser tests

    site = load_site(None)
    task = site.task(task_id)
    assert task is not None
    episode = Episode(site, task)
    page = episode.reset()
    env = gym.make(f"browsergym/veriweb.threadline.{task_id}", headless=True)
    try:
        obs, info = env.reset(seed=0)
        assert obs["goal"] == task.instruction
        reward = 0.0
        terminated = False
        for action in task.certificate:
            tree = flatten_axtree_to_str(obs["axtree_object"])
            engine_ids = re.findall(r"^\s*\[(\d+)\]", axtree_text(page), re.MULTILINE)
            browser_ids = re.findall(r"\[(\d+)\]", tree)
            assert browser_ids == engine_ids, (action, tree)
            obs, reward, terminated, truncated, info = env.step(action)
            if "Timeout" in obs["last_action_error"]:  # BrowserGym gives an action 500 ms: a loaded machine misses it
                obs, reward, terminated, truncated, info = env.step(action)
            assert not obs["last_action_error"], obs["last_action_error"]
            page = episode.step(action).page
            if terminated:
                break
        assert reward == 1.0 and terminated
        assert info["task_info"]["success"] is True
    finally:
        env.close()

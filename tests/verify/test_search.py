"""The feasibility search: it solves tasks without reading their certificates, and works as an oracle."""

from __future__ import annotations

from veriweb.engine import Episode
from veriweb.envs import VeriwebEnv
from veriweb.scaffold import Site
from veriweb.verify import oracle, solve


def test_search_solves_example_tasks_without_their_certificates(shop: Site) -> None:
    for task_id in ("count_orders", "latest_order_date", "cheapest_red", "cancel_recent_order"):
        task = shop.task(task_id)
        assert task is not None
        blind = task.model_copy(update={"certificate": []})  # nothing to copy from
        result = solve(shop, blind, budget=2_000)
        assert result.status == "solved", (task_id, result.reason)
        assert len(result.actions) <= len(task.certificate)
        episode = Episode(shop, task)
        episode.reset()
        for action in result.actions:
            outcome = episode.step(action)
        assert outcome.success, (task_id, result.actions, outcome.info)


def test_search_says_undecided_when_the_budget_runs_out(shop: Site) -> None:
    task = shop.task("buy_under_budget")
    assert task is not None
    result = solve(shop, task, budget=5)
    assert result.status == "undecided" and result.actions == []


def test_oracle_from_an_off_track_state_leads_to_success(shop: Site) -> None:
    env = VeriwebEnv(sites=[shop], oracle=True)
    obs, info = env.reset(options={"site": 0, "task": "latest_order_date"})
    obs, _, _, _, info = env.step("goto('/about')")  # leave the certificate's path
    for _ in range(6):
        action = info["oracle"]
        assert action is not None
        obs, reward, terminated, truncated, info = env.step(action)
        if terminated:
            break
    assert info["success"]


def test_oracle_leaves_the_session_as_it_was(shop: Site) -> None:
    env = VeriwebEnv(sites=[shop])
    env.reset(options={"site": 0, "task": "cancel_recent_order"})
    env.step("goto('/about')")
    before = (env.episode.session.state_hash(), env.page.url)
    assert oracle(shop, env.task, env.episode.session, budget=800) is not None
    assert (env.episode.session.state_hash(), env.episode.session.page().url) == before

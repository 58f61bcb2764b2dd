"""MiniWoB++ through veriweb's element table: the DOM conversion, and real tasks in headless Chromium."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from veriweb.envs.miniwob import MiniWoBEnv, page_from_dom, task_strings
from veriweb.envs.observation import ROLE_IDS, ObservationConfig, encode_page
from veriweb.errors import VeriwebError


def _el(ref: int, parent: int, tag: str, text: str = "", value: str = "", classes: str = "", focused: int = 0,
        ident: str = "") -> dict:
    return {"ref": ref, "parent": parent, "tag": tag, "text": text, "value": value, "id": ident, "classes": classes,
            "flags": np.array([focused, 0, 0, 1], np.int8)}


LOGIN = [
    _el(1, 0, "body", focused=1), _el(2, 1, "div", ident="wrap"), _el(3, 2, "p"),
    _el(4, 3, "label", "Username"), _el(5, 3, "input_text", value="ann"), _el(6, 2, "p"),
    _el(7, 6, "label", "Password:"), _el(8, 6, "input_password", ident="password"),
    _el(9, 2, "button", "Login"), _el(10, 2, "span", "Eget", classes="alink"),
    _el(11, 2, "input_checkbox", value="True"), _el(-1, 2, "t", "Donec"),
]


def test_roles_names_values_and_tree_from_dom_elements():
    page = page_from_dom(LOGIN, "miniwob://login-user")
    by = page.by_bid
    assert [by[b].role for b in ("1", "4", "5", "8", "9", "10", "11", "-1")] == [
        "generic", "LabelText", "textbox", "textbox", "button", "link", "checkbox", "StaticText"]
    assert by["5"].name == "Username" and by["5"].value == "ann"
    assert by["8"].name == "Password" and by["8"].value == ""  # the label's text, its colon dropped
    assert by["11"].checked is True and by["1"].focused is True
    assert by["5"].parent is by["3"] and by["3"].depth == by["2"].depth + 1
    assert by["5"].editable and by["9"].interactable and by["10"].interactable and not by["-1"].interactable


def test_the_same_encoder_makes_the_element_table():
    page = page_from_dom(LOGIN, "miniwob://login-user")
    view = encode_page(page, ObservationConfig(max_elements=8))
    assert len(view.bids) == 8
    assert view.truncated == len(LOGIN) - 8
    kept = set(view.bids)
    assert {"5", "8", "9", "10", "11"} <= kept  # what an agent can act on is kept first
    row = view.bids.index("9")
    assert view.arrays["role"][row] == ROLE_IDS["button"] and view.arrays["mask"][row] == 1


def test_a_parent_listed_after_its_child_is_an_error_naming_the_element():
    with pytest.raises(VeriwebError, match=r"dom_elements\[0\] \(ref 2\): its parent 1"):
        page_from_dom([_el(2, 1, "div"), _el(1, 0, "body")], "miniwob://x")


def test_task_strings_come_from_fields_then_quotes():
    fields = (("username", "vina"), ("password", "US"))
    assert task_strings(fields, 'Enter the username "vina" and the password "US", then "Login".', 8) == [
        "vina", "US", "Login"]
    assert task_strings((), "Click “Submit”.", 8) == ["Submit"]


def test_bad_task_names_and_budgets_are_clear_errors():
    with pytest.raises(VeriwebError, match="task names"):
        MiniWoBEnv("Click Link")
    with pytest.raises(VeriwebError, match="max_steps"):
        MiniWoBEnv("click-link", max_steps=0)


def _real_miniwob() -> None:
    pytest.importorskip("miniwob", reason="MiniWoB++ is not installed (pip install -e '.[test]')")
    if not shutil.which("chromedriver") or not (shutil.which("chromium") or shutil.which("chromium-browser")):
        pytest.skip("Debian's chromium and chromium-driver are needed for MiniWoB++")


def _find(env: MiniWoBEnv, role: str, name: str) -> str:
    return next(node.bid for node in env.page.nodes if node.role == role and node.name == name)


def test_real_click_link_by_the_element_table():
    _real_miniwob()
    env = MiniWoBEnv("click-link")
    try:
        for seed in range(3):
            obs, info = env.reset(seed=seed)
            target = env.task_strings(8)[0]
            assert target in obs["goal"] and obs["elements"]["mask"].sum() > 3
            wrong = next(n.bid for n in env.page.nodes if n.role == "link" and n.name != target)
            if seed == 0:  # a wrong link is a failure, judged by MiniWoB++ itself
                obs, reward, terminated, truncated, info = env.step(f"click('{wrong}')")
                assert terminated and reward == 0.0 and not info["success"] and info["raw_reward"] <= 0
                continue
            obs, reward, terminated, truncated, info = env.step(f"click('{_find(env, 'link', target)}')")
            assert terminated and reward == 1.0 and info["success"] and info["raw_reward"] > 0
    finally:
        env.close()


def test_real_login_user_fills_fields_and_reports_unsupported_actions():
    _real_miniwob()
    env = MiniWoBEnv("login-user", max_steps=6)
    try:
        obs, info = env.reset(seed=4)
        user, password = env.task_strings(8)[:2]
        obs, reward, terminated, truncated, info = env.step("goto('/elsewhere')")
        assert "no MiniWoB++ equivalent" in obs["last_action_error"] and not terminated
        obs, *_ = env.step(f"fill('{_find(env, 'textbox', 'Username')}', '{user}')")
        assert env.page.by_bid[_find(env, "textbox", "Username")].value == user
        obs, *_ = env.step(f"fill('{_find(env, 'textbox', 'Password')}', '{password}')")
        obs, reward, terminated, truncated, info = env.step(f"click('{_find(env, 'button', 'Login')}')")
        assert terminated and info["success"] and reward == 1.0
    finally:
        env.close()


def test_discrete_actions_run_on_miniwob_with_its_strings_as_arguments():
    _real_miniwob()
    from veriweb.envs import DiscreteActions
    from veriweb.envs.actions import CLICK

    env = DiscreteActions(MiniWoBEnv("click-link"))
    try:
        obs, info = env.reset(seed=2)
        assert env.task_strings() and env.task_strings()[0] in obs["goal"]
        action = env.encode(f"click('{_find(env.unwrapped, 'link', env.task_strings()[0])}')")
        assert action[0] == CLICK and obs["action_mask"]["element"][CLICK][action[1]] == 1
        obs, reward, terminated, truncated, info = env.step(action)
        assert terminated and info["success"] and info["action_text"].startswith("click(")
    finally:
        env.close()


def test_floors_run_the_same_miniwob_episodes_and_print_as_a_table():
    _real_miniwob()
    from veriweb.agents.evaluate import format_table
    from veriweb.agents.floors import NoopAgent, RandomAgent
    from veriweb.agents.transfer import evaluate_miniwob

    summary, results = evaluate_miniwob([RandomAgent(0), NoopAgent()], ["click-link"], episodes=2, max_steps=3)
    assert [(r.agent, r.site) for r in results] == [("random", "click-link#0"), ("random", "click-link#1"),
                                                    ("noop", "click-link#0"), ("noop", "click-link#1")]
    assert summary["noop"]["all"]["success"] == 0.0  # doing nothing never solves a MiniWoB++ task
    assert all(r.length == 3 for r in results if r.agent == "noop")
    assert "family:click-link" in format_table(summary, groups=("all", "family"))


def test_miniwob_task_strings_are_allowed_arguments_and_solve_login_user():
    _real_miniwob()
    from veriweb.envs import DiscreteActions
    from veriweb.envs.actions import FILL

    env = DiscreteActions(MiniWoBEnv("login-user"))
    try:
        obs, info = env.reset(seed=5)
        strings = env.task_strings()
        assert len(strings) >= 2
        allowed = obs["action_mask"]["argument"][FILL]
        assert all(allowed[env.task_start + i] for i in range(len(strings)))  # the masks offer what it may type
        base = env.unwrapped
        for label, text in (("Username", strings[0]), ("Password", strings[1])):
            action = env.encode(f"fill('{_find(base, 'textbox', label)}', '{text}')")
            assert action[0] == FILL and obs["action_mask"]["argument"][FILL][action[2]] == 1
            obs, *_ = env.step(action)
        obs, reward, terminated, truncated, info = env.step(env.encode(f"click('{_find(base, 'button', 'Login')}')"))
        assert terminated and info["success"]
    finally:
        env.close()


def test_eval_takes_exactly_one_of_corpus_and_miniwob(tmp_path, capsys):
    pytest.importorskip("torch")
    from veriweb.cli import main

    assert main(["eval", "--policy", str(tmp_path / "policy.pt")]) != 0
    assert "exactly one of --corpus DIR and --miniwob TASKS" in capsys.readouterr().err
    assert main(["eval", "--policy", str(tmp_path / "p.pt"), "--corpus", str(tmp_path), "--miniwob", "all"]) != 0

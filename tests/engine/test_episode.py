"""Episode rules and judges on the example site: certificates pass, and nothing else does."""

from __future__ import annotations

import random

import pytest

from veriweb.engine import Episode, Outcome, Session
from veriweb.engine.actions import ACTIONS
from veriweb.scaffold import Site

WORDS = ["shirt", "red", "blue", "cart", "order", "hello", "done", "the", "xyz", "Lyon", "qwerty", "ok", ""]


def replay(episode: Episode, actions: list[str]) -> Outcome:
    episode.reset()
    outcome = None
    for action in actions:
        outcome = episode.step(action)
        if outcome.terminated or outcome.truncated:
            break
    assert outcome is not None
    return outcome


def click(episode: Episode, role: str, name: str) -> Outcome:
    return episode.step(f"click('{episode.session.page().find(role, name).bid}')")


def test_every_certificate_replays_to_success(shop: Site) -> None:
    assert len(shop.tasks) >= 8
    assert {t.kind for t in shop.tasks} == {"navigate", "retrieve", "mutate", "infeasible"}
    for task in shop.tasks:
        outcome = replay(Episode(shop, task), task.certificate)
        assert outcome.success and outcome.terminated and outcome.reward == 1.0, (task.id, outcome.info)
        assert len(task.certificate) <= task.max_steps // 2


def test_progress_never_decreases_along_a_certificate(shop: Site) -> None:
    for task in shop.tasks:
        episode = Episode(shop, task)
        episode.reset()
        done = [episode.judge.progress().done]
        for action in task.certificate:
            done.append(episode.step(action).progress.done)
        assert done == sorted(done), task.id


@pytest.mark.parametrize("end_on_success", [True, False])
def test_no_op_episodes_never_succeed(shop: Site, end_on_success: bool) -> None:
    for task in shop.tasks:
        episode = Episode(shop, task, end_on_success=end_on_success)
        outcome = replay(episode, ["noop()"] * task.max_steps)
        assert outcome.truncated and not outcome.success and outcome.reward == 0.0, task.id
        assert not episode.judge.progress().goal, f"{task.id}: goal already true at the start"


def _random_action(rng: random.Random, session: Session) -> str:
    """A random action of the grammar, on random (mostly valid) ids, with random words.

    ``report_infeasible`` is left out: on an infeasible task it is the right answer by definition.
    Messages carry no digits: a lucky guess of a small count would be a correct answer, not a
    judge that passes wrong work.
    """
    page = session.page()
    bids = [n.bid for n in page.nodes] + ["0", "9999"]
    name = rng.choice([n for n in ACTIONS if n != "report_infeasible"])
    target = rng.choice(bids)
    word = rng.choice(WORDS)
    node = page.by_bid.get(target)
    option = rng.choice(node.children).name if node is not None and node.children else word
    return {
        "click": f"click('{target}')", "dblclick": f"dblclick('{target}')", "hover": f"hover('{target}')",
        "fill": f"fill('{target}', '{word}')", "clear": f"clear('{target}')",
        "select_option": f"select_option('{target}', {option!r})", "check": f"check('{target}')",
        "uncheck": f"uncheck('{target}')", "press": f"press('{target}', '{rng.choice(['Enter', 'Tab', 'a', 'Escape'])}')",
        "focus": f"focus('{target}')", "scroll": f"scroll(0, {rng.choice([-200, 200])})",
        "goto": f"goto('{rng.choice(['/', '/cart', '/orders', '/search?q=' + word, '/product/3', '/nowhere'])}')",
        "go_back": "go_back()", "go_forward": "go_forward()", "noop": "noop()",
        "send_msg_to_user": f"send_msg_to_user('{' '.join(rng.choice(WORDS) for _ in range(3))}')",
    }[name]


@pytest.mark.slow
def test_random_action_sequences_never_raise_and_never_succeed(shop: Site) -> None:
    rng = random.Random(2026)
    session = Session(shop)
    episodes = {task.id: Episode(shop, task, session=session) for task in shop.tasks}
    successes = []
    for number in range(1000):
        task = shop.tasks[number % len(shop.tasks)]
        episode = episodes[task.id]
        episode.reset()
        for _ in range(40):
            outcome = episode.step(_random_action(rng, session))
            if outcome.success:
                successes.append((number, task.id))
            if outcome.terminated or outcome.truncated:
                break
    assert successes == []


def test_write_outside_the_footprint_fails(shop: Site) -> None:
    for task in [t for t in shop.tasks if t.kind == "mutate"]:
        episode = Episode(shop, task, end_on_success=False)
        outcome = replay(episode, task.certificate)
        assert episode.judge.progress().goal and not outcome.terminated, task.id
        # one more write, to a row the task has no business touching
        episode.step("goto('/product/12')")
        if any(entry.table == "reviews" for entry in task.footprint):
            click(episode, "tab", "Options")
            outcome = click(episode, "button", "Add to cart")
        else:
            click(episode, "tab", "Reviews")
            episode.step(f"check('{episode.session.page().find('radio', '3 stars').bid}')")
            episode.step(f"fill('{episode.session.page().find('textbox', 'Your review').bid}', 'Fine shoes.')")
            outcome = click(episode, "button", "Post review")
        assert outcome.terminated and not outcome.success, task.id
        assert "outside the task's footprint" in outcome.info["violation"], task.id


def test_breaking_the_budget_constraint_ends_the_episode(shop: Site) -> None:
    episode = Episode(shop, "buy_under_budget")
    episode.reset()
    for action in ["goto('/product/3')"]:
        episode.step(action)
    click(episode, "tab", "Options")
    episode.step(f"fill('{episode.session.page().find('textbox', 'Quantity').bid}', '2')")  # two shirts: over budget
    click(episode, "button", "Add to cart")
    episode.step("goto('/checkout')")
    click(episode, "button", "Place order")
    outcome = click(episode, "button", "Yes, place order")
    assert outcome.terminated and not outcome.success and outcome.reward == 0.0
    assert outcome.info["violation"] == "constraint broken: an order costs more than the budget"


def test_express_shipping_also_breaks_the_budget(shop: Site) -> None:
    task = shop.task("buy_under_budget")
    assert task is not None
    episode = Episode(shop, task)
    episode.reset()
    for action in task.certificate[:-2]:
        episode.step(action)
    episode.step(f"select_option('{episode.session.page().find('combobox', 'Shipping').bid}', 'express')")
    click(episode, "button", "Place order")
    outcome = click(episode, "button", "Yes, place order")
    assert outcome.terminated and not outcome.success


WRONG_ANSWERS = {
    "cart_total": ["$70.96", "$24.99", "$45.98", "$70.97 or $75.97", "about 70 dollars", ""],
    "count_orders": ["3", "1", "2 or 3", "two or three", "5"],
    "latest_order_date": ["June 8, 2026", "2026-06-01", "June 9, 2025", "June 9 or May 20, 2026"],
    "cheapest_red": ["Red Suede Loafers", "Slim Chino Pants", "Red Jogger Pants, Slim Chino Pants, Relaxed Cargo Pants",
                     "Red Jogger", "Crimson Polo Shirt"],
}


@pytest.mark.parametrize("task_id", sorted(WRONG_ANSWERS))
def test_wrong_answers_fail(shop: Site, task_id: str) -> None:
    task = shop.task(task_id)
    assert task is not None and task.kind == "retrieve"
    for answer in WRONG_ANSWERS[task_id]:
        outcome = replay(Episode(shop, task), task.certificate[:-1] + [f"send_msg_to_user({answer!r})"])
        assert outcome.terminated and not outcome.success, (task_id, answer, outcome.info)


def test_reporting_infeasible_is_right_only_for_infeasible_tasks(shop: Site) -> None:
    for task in shop.tasks:
        outcome = replay(Episode(shop, task), ["report_infeasible('cannot be done')"])
        assert outcome.terminated and outcome.success == (task.kind == "infeasible"), task.id


def test_a_message_does_not_pass_an_infeasible_task(shop: Site) -> None:
    task = next(t for t in shop.tasks if t.kind == "infeasible")
    outcome = replay(Episode(shop, task), ["send_msg_to_user('Done, it is in your cart.')"])
    assert outcome.terminated and not outcome.success


def test_undone_completion_is_not_success(shop: Site) -> None:
    """Add to cart, then remove it again: judged on the final state, so it is not a success."""
    episode = Episode(shop, "add_to_cart", end_on_success=False)
    task = episode.task
    replay(episode, task.certificate)
    assert episode.judge.progress().goal
    episode.step("goto('/cart')")
    page = episode.session.page()
    row = next(i for i, n in enumerate(page.nodes) if n.role == "link" and n.name == "Red Flannel Shirt")
    remove = next(n for n in page.nodes[row:] if n.role == "button" and n.name == "Remove")
    episode.step(f"click('{remove.bid}')")
    outcome = episode.step("send_msg_to_user('done')")
    assert outcome.terminated and not outcome.success and outcome.progress.done == 0


def test_partial_completion_is_not_success(shop: Site) -> None:
    """The right product in the wrong size earns the first subgoal, never the goal."""
    task = shop.task("add_to_cart")
    assert task is not None
    actions = [a for a in task.certificate if not a.startswith("select_option")]
    episode = Episode(shop, task, end_on_success=False)
    replay(episode, actions)
    outcome = episode.step("send_msg_to_user('done')")
    assert not outcome.success and outcome.progress.subgoals == (True, False)

"""The shared task helpers and the audit that replays generated sites."""

from __future__ import annotations

import random

import pytest

from veriweb.generate import generate_site
from veriweb.generate.audit import audit_one, check_site
from veriweb.generate.plan import TaskDraft
from veriweb.generate.tasks import all_pages, as_user, make_task, next_pages, phrase_with_login, start_elsewhere
from veriweb.generate.vocab import Labels


class _Ctx:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.labels = Labels(random.Random(0))


USER = {"username": "ada1", "password": "ada-secret-1"}


def test_start_elsewhere_goes_home_first_unless_the_plan_needs_no_home() -> None:
    home = [("click", "link", "Home"), ("goto", "/")]
    browse = TaskDraft({"id": "a", "start_url": "/"}, [("click", "link", "Orders")])
    login = TaskDraft({"id": "b"}, [("click", "link", "Log in"), ("fill", "textbox", "Username", "ada1")])
    typed = TaskDraft({"id": "c"}, [("goto", "/orders")])
    placed = TaskDraft({"id": "d", "start_url": "/cart"}, [("click", "link", "Orders")])
    ctx = _Ctx(0)
    ctx.labels = {"login": "Log in"}  # type: ignore[assignment]
    out = start_elsewhere(ctx, [browse, login, typed, placed], ["/about", "/help"], home, chance=1.0)
    assert all(d.fields["start_url"] in ("/about", "/help") for d in out[:3]) and out[3].fields["start_url"] == "/cart"
    assert out[0].plan[0] in home and out[0].plan[1:] == browse.plan
    assert out[1].plan == login.plan and out[2].plan == typed.plan and out[3] is placed
    assert start_elsewhere(ctx, [browse], ["/about"], home, chance=0.0) == [browse]
    assert start_elsewhere(ctx, [browse], ["/about"], home, chance=1.0, fits=lambda plan: len(plan) <= 2) == [browse]
    kept = start_elsewhere(ctx, [browse], ["/about"], home, chance=1.0, avoid=lambda draft, page: page == "/about")
    assert kept == [browse]


def test_paging_plans() -> None:
    assert next_pages(0, 10) == []
    assert next_pages(9, 10) == []
    assert next_pages(10, 10) == [("click", "link", "Next")]
    assert len(next_pages(25, 10)) == 2
    assert all_pages(0, 10) == [] and all_pages(10, 10) == []
    assert len(all_pages(11, 10)) == 1 and len(all_pages(30, 10)) == 2


def test_as_user_from_the_profile_or_the_instruction() -> None:
    plan = [("click", "link", "Orders")]
    phrasings, slots, steps, who = as_user(_Ctx(0), USER, ["Open your orders."], {}, plan, chance=0.0)
    assert (phrasings, slots, steps) == (["Open your orders."], {}, plan)
    assert who == {"user": "ada1", "start_logged_in": True, "credentials": "profile"}
    phrasings, slots, steps, who = as_user(_Ctx(0), USER, ["Open your orders."], {"x": 1}, plan, chance=1.0)
    assert who == {"user": "ada1", "credentials": "instruction"}
    assert slots == {"x": 1, "username": "ada1", "password": "ada-secret-1"}
    assert steps[-1] == plan[0] and len(steps) == 5
    assert ("fill", "textbox", _Ctx(0).labels["password"], "ada-secret-1") in steps
    assert all("{username}" in p and "{password}" in p for p in phrasings)


def test_as_user_skips_a_log_in_that_does_not_fit() -> None:
    plan = [("click", "link", "Orders")]
    *_, who = as_user(_Ctx(0), USER, ["Open your orders."], {}, plan, chance=1.0, fits=lambda p: len(p) <= 3)
    assert who["credentials"] == "profile"


def test_phrasing_after_a_prefix() -> None:
    assert phrase_with_login("As {username}: ", True, ["Open it.", "I need it."]) == [
        "As {username}: open it.", "As {username}: I need it."]
    assert phrase_with_login("Sign in. ", False, ["Open it."]) == ["Sign in. Open it."]


def test_make_task_draws_a_phrasing_from_the_stream() -> None:
    drafts = [make_task(_Ctx(seed), "t", "navigate_sorted", "navigate", ["A.", "B.", "C."], {}, [("goto", "/")])
              for seed in range(20)]
    assert {d.fields["template"] for d in drafts} == {"A.", "B.", "C."}
    again = make_task(_Ctx(3), "t", "navigate_sorted", "navigate", ["A.", "B.", "C."], {}, [("goto", "/")])
    assert again.fields == drafts[3].fields and again.plan == [("goto", "/")]


@pytest.mark.parametrize("domain", ["shop", "forum"])
def test_audit_passes_a_generated_site(domain: str) -> None:
    result = audit_one(domain, 1)
    assert result.ok, (result.dropped, result.failures)
    assert result.tasks >= 10


def test_audit_catches_a_broken_certificate_and_a_reachable_infeasible_goal() -> None:
    site = generate_site("shop", 2)
    write = next(t for t in site.tasks if t.id == "add_to_cart")
    broken = write.model_copy(update={"id": "broken", "certificate": write.certificate[:-1]})
    infeasible = next(t for t in site.tasks if t.kind == "infeasible")
    # an "infeasible" goal that the add-to-cart certificate reaches
    reachable = infeasible.model_copy(update={"id": "reachable", "goal": write.goal, "slots": write.slots,
                                              "user": write.user})
    problems = check_site(site.model_copy(update={"tasks": [write, broken, reachable]}))
    assert [tid for tid, _ in problems] == ["broken", "reachable"], problems
    assert "does not succeed" in problems[0][1]
    assert "goal reached by the certificate of add_to_cart" in problems[1][1]

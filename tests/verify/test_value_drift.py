"""A stored certificate that fails is evidence against the judge when the only new solution swaps a
value the instruction states for one it does not (M016, found by the search, not by a static check).

"I need 1 of the Blue Slim Straw Hat, size L": its certificate chooses L. A judge edited to read
size M makes that certificate fail, and the search then finds the solution that chooses M. Certifying
it would ship a judge that rewards the wrong size; the task is left undecided instead. The twins: the
unedited task, and one whose stored certificate fails for a reason of its own (an element that is not
there) while the search's solution enters the same values, both certified.

And a judge met only by pressing the button that undoes what the instruction says ("Vote up the
post" judged on a vote down, met by "Dislike") is not certified either (M016).
"""

from __future__ import annotations

import pytest

from veriweb.generate.site import generate_site
from veriweb.scaffold import Site, Task
from veriweb.verify.checks import SLOT_CONTRADICTS_GOAL
from veriweb.verify.feasibility import verify_task
from veriweb.verify.stated import drifted_values


@pytest.fixture(scope="module")
def shop() -> Site:
    return generate_site("shop", 0)


def _task(site: Site) -> Task:
    return next(t for t in site.tasks if t.id == "add_to_cart")


def _judging_size(task: Task, size: str) -> Task:
    """The task with its goal's size read as the literal ``size`` instead of the slot the instruction states."""
    goal = [p.model_dump() for p in task.goal]
    where = goal[0]["query"]["where"]
    assert any(w["column"] == "size" and w["value"] == {"ref": "slot.size"} for w in where)
    for w in where:
        if w["column"] == "size":
            w["value"] = size
    return Task.model_validate(task.model_dump() | {"goal": goal})


def test_a_judge_that_passes_another_value_than_the_stated_one_is_not_certified_again(shop: Site) -> None:
    task = _task(shop)
    assert task.slots["size"] == "L" and "size L" in task.instruction
    wrong = _judging_size(task, "M")
    verdict = verify_task(shop, wrong, budget=2_000)
    assert verdict.status == "undecided" and not verdict.certificate
    drift = [i for i in verdict.issues if i.code == SLOT_CONTRADICTS_GOAL and "'L'" in i.message]
    assert drift and "'M'" in drift[0].message and drift[0].location.endswith(".goal")


def test_the_twins_are_certified(shop: Site) -> None:
    task = _task(shop)
    assert verify_task(shop, task, budget=2_000).status == "certified"  # unedited: the stored certificate stands
    # a stored certificate that fails on its own (a click on an element that is not there): the search's
    # solution enters the same size and quantity, so nothing drifted
    stale = Task.model_validate(task.model_dump() | {"certificate": [*task.certificate[:-1], "click('9999')"]})
    verdict = verify_task(shop, stale, budget=2_000)
    assert verdict.status == "certified"
    assert not [i for i in verdict.issues if i.code == SLOT_CONTRADICTS_GOAL]


def test_what_counts_as_drift() -> None:
    task = Task(id="t", kind="mutate", template="Book {city} for {guests}", slots={"city": "Copenhagen",
                "guests": "2 guests"}, instruction="Book Copenhagen for 2 guests",
                goal=[{"kind": "page", "page": "home"}])
    chose = ["fill('4', 'Copenhagen')", "select_option('5', '2')"]
    # the same values, or a fuller form of one ("Copenhagen (CPH)"): no drift
    assert drifted_values(task, chose, ["fill('7', 'Copenhagen (CPH)')", "select_option('8', '2')"]) == ([], [])
    # a stated value swapped for an unstated one
    assert drifted_values(task, chose, ["fill('4', 'Oslo')", "select_option('5', '2')"]) == (["Copenhagen"], ["Oslo"])
    # a stated value dropped with nothing put in its place, or an unstated value added beside the stated ones
    assert drifted_values(task, chose, ["select_option('5', '2')"]) == (["Copenhagen"], [])
    assert drifted_values(task, chose, [*chose, "fill('9', 'extra')"]) == ([], ["extra"])
    # "2" inside "12" or "2.5" is not said
    twelve = Task(id="t", kind="mutate", template="Book {n}", slots={"n": "12"}, instruction="Book 12",
                  goal=[{"kind": "page", "page": "home"}])
    assert drifted_values(twelve, ["fill('1', '2')"], ["fill('1', '3')"]) == ([], ["3"])


def test_a_judge_met_only_by_pressing_the_opposite_button_is_not_certified() -> None:
    forum = generate_site("forum", 0)
    task = next(t for t in forum.tasks if t.id == "vote")
    assert "Vote up the post" in task.instruction
    goal = [p.model_dump() for p in task.goal]
    value = next(w for w in goal[0]["query"]["where"] if w["column"] == "value")
    assert value["value"] == 1
    value["value"] = -1  # the judge now wants a vote down
    wrong = Task.model_validate(task.model_dump() | {"goal": goal})
    verdict = verify_task(forum, wrong, budget=2_000)
    assert verdict.status == "undecided"
    found = [i for i in verdict.issues if i.code == SLOT_CONTRADICTS_GOAL and "undoes what the instruction" in i.message]
    assert found and "Dislike" in found[0].message
    # the twin: the task as written is certified by pressing "Like"
    assert verify_task(forum, task, budget=2_000).status == "certified"


def test_which_buttons_undo_the_words() -> None:
    from veriweb.verify.checks_meaning import opposite_words

    assert opposite_words("Downvote the post", "Like") == "Downvote"
    assert opposite_words("Close the issue", "Reopen") is not None
    for words, button in (("Downvote the post", "Dislike"), ("Unstar the project", "Remove star"),
                          ("Remove the star from the project", "Unstar"), ("Cancel your order", "Confirm"),
                          ("Archive the email", "Archive it"), ("Leave a comment", "Join the discussion"),
                          ("Delete the emails in your Inbox", "Move to archive"), ("Unfollow f/hiking", "Following")):
        assert opposite_words(words, button) is None, (words, button)

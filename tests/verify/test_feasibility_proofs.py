"""A feasible-kind task whose goal no action can reach is proved infeasible before any search runs."""

from __future__ import annotations

from veriweb.engine import Session
from veriweb.scaffold import Site, Task
from veriweb.scaffold.site import Constraint, render_instruction
from veriweb.verify.checks import NO_SOLUTION
from veriweb.verify.dataflow import posted_markers
from veriweb.verify.feasibility import verify_task
from veriweb.verify.proofs import runnable_markers
from veriweb.verify.search import solve


def test_a_task_naming_a_product_the_site_lacks_is_proved_infeasible_without_a_search(shop: Site) -> None:
    base = shop.task("add_to_cart")
    assert base is not None
    slots = {**base.slots, "product": "Velvet Tuxedo Jacket"}  # no such product, and no marker adds one
    task = base.model_copy(update={"slots": slots, "instruction": render_instruction(base.template, slots)})
    site = shop.model_copy(update={"tasks": [task if t.id == task.id else t for t in shop.tasks]})
    verdict = verify_task(site, task, budget=2_000, session=Session(site))
    assert verdict.status == "infeasible" and verdict.expanded == 0  # a proof: nothing was searched
    assert "can never hold" in verdict.proof and "lookup in products" in verdict.proof
    assert NO_SOLUTION in {issue.code for issue in verdict.issues}


def test_a_feasible_task_is_still_certified_by_search(shop: Site) -> None:
    task = shop.task("add_to_cart")
    verdict = verify_task(shop, task, budget=2_000, session=Session(shop))
    assert verdict.status == "certified" and verdict.expanded > 0 and verdict.certificate


def _with_task(site: Site, task: Task) -> Site:
    return site.model_copy(update={"tasks": [task if t.id == task.id else t for t in site.tasks]})


def test_a_constraint_that_is_the_goal_itself_stops_the_search_before_a_step(shop: Site) -> None:
    base = shop.task("cancel_recent_order")
    assert base is not None
    forbid = Constraint(description="Do not change anything", predicate=base.goal[0])
    task = base.model_copy(update={"constraints": [forbid]})
    result = solve(_with_task(shop, task), task, budget=2_000)
    assert result.status == "undecided" and result.expanded == 0  # what a search out of budget says
    assert "goal[0] itself" in result.reason
    assert solve(shop, base, budget=2_000).status == "solved"  # the same task without it is solved


def test_a_marker_whose_form_leaves_out_a_required_parameter_cannot_run(shop: Site) -> None:
    assert runnable_markers(shop) == posted_markers(shop)  # every form of the example passes what it needs
    data = shop.model_dump(mode="json")
    removed = []

    def strip(node: object) -> None:  # the forms that write orders no longer pass their parameters
        if isinstance(node, dict):
            action = node.get("action")
            if node.get("type") == "form" and isinstance(action, dict) and action.get("marker") in (
                    "cancel_order", "place_order"):
                removed.extend(action["args"])
                action["args"] = {}
            for value in node.values():
                strip(value)
        elif isinstance(node, list):
            for value in node:
                strip(value)

    strip(data["pages"])
    broken = Site.model_validate(data)
    assert removed and runnable_markers(broken) == posted_markers(shop) - {"cancel_order", "place_order"}
    task = broken.task("cancel_recent_order")
    assert task is not None
    result = solve(broken, task, budget=2_000)
    assert result.status == "undecided" and result.expanded == 0
    assert "no runnable marker writes" in result.reason


def test_a_retrieve_task_whose_answer_is_empty_and_frozen_is_not_searched(shop: Site) -> None:
    base = shop.task("cheapest_red")
    assert base is not None
    assert base.answer is not None and base.answer.value is not None
    slots = {name: ("Chartreuse" if name == "category" else value) for name, value in base.slots.items()}
    task = base.model_copy(update={"slots": slots, "instruction": render_instruction(base.template, slots)})
    assert slots != base.slots
    site = _with_task(shop, task)
    result = solve(site, task, budget=2_000)
    assert result.status == "undecided" and result.expanded == 0, result.reason
    assert "expected answer is empty" in result.reason
    assert solve(shop, base, budget=2_000).status == "solved"

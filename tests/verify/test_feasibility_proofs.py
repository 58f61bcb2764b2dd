"""A feasible-kind task whose goal no action can reach is proved infeasible before any search runs."""

from __future__ import annotations

from veriweb.engine import Session
from veriweb.scaffold import Site
from veriweb.scaffold.site import render_instruction
from veriweb.verify.checks import NO_SOLUTION
from veriweb.verify.feasibility import verify_task


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

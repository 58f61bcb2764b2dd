"""What a search that works in the engine can say beyond solved or not: a constraint that breaks at every
goal it reaches (C007, whatever form the constraint takes), and a long solution made short by jumping back
to an address it has seen."""

from __future__ import annotations

from veriweb.engine import Session
from veriweb.generate.corpus import build_site, plan_corpus
from veriweb.generate.site import generate_site
from veriweb.scaffold import Site, Task
from veriweb.scaffold.site import Constraint
from veriweb.scaffold.values import SqlPredicate
from veriweb.verify.feasibility import verify_task
from veriweb.verify.repair_links import json_dicts
from veriweb.verify.search import solve


def _with_constraint(site: Site, task_id: str, sql: str, description: str) -> tuple[Site, Task, int]:
    task = next(t for t in site.tasks if t.id == task_id)
    constraint = Constraint(description=description, predicate=SqlPredicate(kind="sql", sql=sql))
    changed = task.model_copy(update={"constraints": [*task.constraints, constraint]})
    tasks = [changed if t.id == task_id else t for t in site.tasks]
    return site.model_copy(update={"tasks": tasks}), changed, len(task.constraints)


def test_a_constraint_in_sql_that_every_goal_state_breaks_is_reported_and_one_that_does_not_is_not() -> None:
    """"Check out the cart" with "no order may be placed today" written as SQL: the static checks
    cannot read it, but every state where the goal held broke it. "No order over $1,000,000" does not."""
    site = generate_site("shop", 1)
    found = {}
    for sql, name in (("SELECT EXISTS (SELECT 1 FROM orders WHERE created = vw_today())", "no order today"),
                      ("SELECT EXISTS (SELECT 1 FROM orders WHERE total > 100000000)", "no huge order")):
        changed, task, index = _with_constraint(site, "checkout_cart", sql, name)
        verdict = verify_task(changed, task, budget=2000, session=Session(changed))
        found[name] = (verdict.status, [(i.code, i.location) for i in verdict.issues])
        number = next(n for n, t in enumerate(changed.tasks) if t.id == task.id)
        where = f"$.tasks[{number}].constraints[{index}]"
        if name == "no order today":
            assert verdict.status != "certified" and ("C007", where) in found[name][1], found
        else:
            assert verdict.status == "certified" and not any(c == "C007" for c, _ in found[name][1]), found


def test_a_long_solution_jumps_back_to_an_address_it_has_seen() -> None:
    """Moving three messages of one sender: the search types the search again before each one (18
    steps). With a step budget of 34 that is over half of it, so the solution is shortened by
    jumps: a stretch that ends on an address seen before it becomes one ``goto`` there."""
    site, _ = build_site(plan_corpus(24, ["all"], 200).sites[17])
    task = next(t for t in site.tasks if t.id == "move_sender").model_copy(update={"max_steps": 34})
    site = site.model_copy(update={"tasks": [task if t.id == task.id else t for t in site.tasks]})
    long = solve(site, task, budget=2000, max_depth=task.max_steps, shorten=False)
    assert long.status == "solved" and len(long.actions) > task.max_steps // 2, long
    verdict = verify_task(site, task, budget=2000, session=Session(site))
    assert verdict.status == "certified"
    assert len(verdict.certificate) <= task.max_steps // 2
    assert not any(i.code == "F005" for i in verdict.issues)
    assert any(a.startswith("goto(") for a in verdict.certificate)


def test_a_checkbox_the_goal_wants_set_is_checked_whatever_the_instruction_calls_it() -> None:
    """"Add a checked bag" on a site whose checkbox says "Include hold luggage": no word in common, but
    the goal wants the booking's ``bag`` set, and the checkbox writes ``bag``. Before, the booking
    form was sent without it and the search ran out of budget."""
    site, _ = build_site(plan_corpus(30, ["all"], 3).sites[10])
    task = next(t for t in site.tasks if t.id == "book_for_someone")
    boxes = " ".join(d.get("label", "") for d in json_dicts(site.model_dump()["pages"]) if d.get("type") == "checkbox")
    assert "hold luggage" in boxes.lower() and "luggage" not in task.instruction.lower()
    result = solve(site, task, budget=2000, max_depth=task.max_steps, grounded=True)
    assert result.status == "solved", result.reason


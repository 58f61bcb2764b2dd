"""Dynamic feasibility checks: each F-code on a task that has the defect and on one that doesn't;
certificates come from the search and replay; infeasibility proofs are real arguments."""

from __future__ import annotations

from typing import Any

import pytest

from veriweb.engine import Session
from veriweb.generate.site import generate_site
from veriweb.scaffold import Site, Task
from veriweb.scaffold.site import AnswerSpec, Constraint
from veriweb.scaffold.values import Exists, Query, QueryValue, ScalarQuery, SqlPredicate
from veriweb.verify.feasibility import feasibility_issues, replay, verify_task
from veriweb.verify.proofs import prove_infeasible

BUDGET = 400


def _task(shop: Site, task_id: str, **update: Any) -> tuple[Site, Task]:
    base = shop.task(task_id)
    assert base is not None
    task = base.model_copy(update=update)
    site = shop.model_copy(update={"tasks": [t if t.id != task_id else task for t in shop.tasks]})
    return site, task


def _codes(site: Site, task: Task, budget: int = BUDGET) -> set[str]:
    return {issue.code for issue in verify_task(site, task, budget=budget).issues}


def _products_exist() -> Exists:
    return Exists(kind="exists", query=Query(table="products"))


def test_clean_example_tasks_have_no_feasibility_issue(shop: Site) -> None:
    session = Session(shop)
    for task_id in ("add_to_cart", "cheapest_red", "count_orders", "cancel_recent_order", "add_missing_product"):
        verdict = verify_task(shop, shop.task(task_id), budget=BUDGET, session=session)
        assert verdict.issues == (), (task_id, verdict.issues)
        assert verdict.status in ("certified", "proven_infeasible"), (task_id, verdict.status, verdict.proof)
        assert verdict.shipped


def test_certificate_is_the_searchs_trace_and_replays(shop: Site) -> None:
    task = shop.task("add_to_cart")
    blind = task.model_copy(update={"certificate": []})
    site = shop.model_copy(update={"tasks": [blind]})
    verdict = verify_task(site, blind, budget=BUDGET)
    assert verdict.status == "certified"
    assert verdict.certificate and list(verdict.certificate) != task.certificate
    assert replay(shop, task, verdict.certificate) == (True, "goal reached")


def test_f001_goal_true_at_start(shop: Site) -> None:
    site, bad = _task(shop, "add_to_cart", goal=[_products_exist()])
    assert "F001" in _codes(site, bad)
    assert "F001" not in _codes(shop, shop.task("add_to_cart"))


def test_f002_stored_certificate_that_does_not_replay(shop: Site) -> None:
    good = shop.task("add_to_cart")
    site, bad = _task(shop, "add_to_cart", certificate=good.certificate[:-1])
    verdict = verify_task(site, bad, budget=BUDGET)
    assert [i.location for i in verdict.issues if i.code == "F002"] == ["$.tasks[3].certificate"]
    assert verdict.status == "certified"  # the search still finds its own certificate
    assert "F002" not in _codes(shop, good)


def test_f003_judge_passes_a_noop(shop: Site) -> None:
    site, bad = _task(shop, "count_orders", answer=AnswerSpec(type="text", value="done"))
    codes = _codes(site, bad)
    assert "F003" in codes
    assert "F003" not in _codes(shop, shop.task("count_orders"))


def test_f004_answer_undefined_or_not_unique(shop: Site) -> None:
    nowhere = AnswerSpec(type="text", value=QueryValue(query=ScalarQuery(
        table="products", select="name", where=[{"column": "name", "value": "No Such Thing"}])))
    site, undefined = _task(shop, "cheapest_red", answer=nowhere)
    issues = verify_task(site, undefined, budget=50).issues
    assert any(i.code == "F004" and "does not exist" in i.message for i in issues)
    # "the cheapest product" ordered by price alone: a tie on price gives two names
    tie = AnswerSpec(type="text", value=QueryValue(query=ScalarQuery(table="products", select="name",
                                                                     order_by=[{"column": "category_id"}])))
    site, tied = _task(shop, "cheapest_red", answer=tie)
    issues = verify_task(site, tied, budget=50).issues
    found = [i for i in issues if i.code == "F004"]
    assert found and "not unique" in found[0].message and found[0].location == "$.tasks[9].answer.value"
    assert "F004" not in _codes(shop, shop.task("cheapest_red"))


def test_f005_certificate_longer_than_half_the_budget(shop: Site) -> None:
    shortest = len(verify_task(shop, shop.task("add_to_cart"), budget=BUDGET).certificate)
    site, tight = _task(shop, "add_to_cart", max_steps=2 * shortest - 1)  # no solution fits in half of it
    verdict = verify_task(site, tight, budget=BUDGET)
    assert verdict.status == "certified" and 2 * len(verdict.certificate) > tight.max_steps
    assert "F005" in {i.code for i in verdict.issues}
    assert "F005" not in _codes(shop, shop.task("add_to_cart"))


def test_f006_infeasible_task_whose_goal_a_marker_reaches(shop: Site) -> None:
    feasible_goal = shop.task("add_to_cart")
    site, bad = _task(shop, "add_missing_product", goal=feasible_goal.goal, slots=feasible_goal.slots,
                      template=feasible_goal.template, instruction=feasible_goal.instruction)
    verdict = verify_task(site, bad, budget=BUDGET)
    assert verdict.status == "refuted"
    assert [i.code for i in verdict.issues] == ["F006"]
    assert "F006" not in _codes(shop, shop.task("add_missing_product"))


def test_f007_constraint_broken_at_start(shop: Site) -> None:
    broken = Constraint(description="a product exists", predicate=_products_exist())
    site, bad = _task(shop, "add_to_cart", constraints=[broken])
    issues = verify_task(site, bad, budget=20).issues
    assert [i.location for i in issues if i.code == "F007"] == ["$.tasks[3].constraints[0]"]
    assert "F007" not in _codes(shop, shop.task("buy_under_budget"), budget=20)


def test_f008_feasible_task_with_no_solution(shop: Site) -> None:
    missing = shop.task("add_missing_product")
    site, bad = _task(shop, "add_to_cart", goal=missing.goal, slots={**missing.slots, "qty": 1},
                      template="Add the {product} in size {size}, {qty} of them.",
                      instruction=f"Add the {missing.slots['product']} in size M, 1 of them.", max_steps=3)
    verdict = verify_task(site, bad, budget=5_000)
    assert verdict.status == "infeasible", verdict.proof
    assert "F008" in {i.code for i in verdict.issues}
    assert "F008" not in _codes(shop, shop.task("add_to_cart"))


def test_issue_fields(shop: Site) -> None:
    site, bad = _task(shop, "add_to_cart", goal=[_products_exist()])
    for issue in verify_task(site, bad, budget=20).issues:
        assert issue.cls == "feasibility" and issue.location.startswith("$.tasks[3]") and "add_to_cart" in issue.message


# ----------------------------------------------------------------------------- proofs


def test_proof_of_a_missing_product_names_what_was_checked(shop: Site) -> None:
    proof = prove_infeasible(shop, shop.task("add_missing_product"))
    assert proof.status == "proven_infeasible"
    assert "false at the start" in proof.text and "products" in proof.text and "add_to_cart" in proof.text


def test_proof_fails_when_a_marker_can_create_the_entity(shop: Site) -> None:
    # let a form's marker insert products: now the missing product could be created
    marker = shop.marker("write_review")
    effect = marker.effects[0].model_copy(update={
        "table": "products", "sql": "INSERT INTO products (name) VALUES (:body)"})
    creator = marker.model_copy(update={"effects": [*marker.effects, effect]})
    site = shop.model_copy(update={"markers": [creator if m.name == "write_review" else m for m in shop.markers]})
    proof = prove_infeasible(site, site.task("add_missing_product"), budget=50)
    assert proof.status != "proven_infeasible"
    assert "No goal predicate is shown unreachable" in proof.text


def test_proof_uses_parameter_choices(shop: Site) -> None:
    # "add the Red Flannel Shirt in size XXL": add_to_cart's size accepts only S, M, L, XL
    base = shop.task("add_to_cart")
    goal = base.goal[0].model_copy(deep=True)
    goal.query.where[-1].value = {"ref": "slot.size"}
    site, task = _task(shop, "add_missing_product", goal=[Exists(kind="exists", query=Query(
        table="cart_items", where=[c for c in goal.query.where if c.column in ("user_id", "product_id", "size")]))],
        slots={"product": "Red Flannel Shirt", "size": "XXL"})
    proof = prove_infeasible(site, task, budget=50)
    assert proof.status == "proven_infeasible", proof.text
    assert "size" in proof.text and "XXL" in proof.text


@pytest.mark.parametrize("domain", ["shop", "admin", "forum", "code", "travel", "mail"])
def test_generated_infeasible_tasks_are_proven(domain: str) -> None:
    site = generate_site(domain, 1)
    for task in site.tasks:
        if task.kind == "infeasible":
            proof = prove_infeasible(site, task, budget=20)
            assert proof.status == "proven_infeasible", (task.id, proof.text)


def test_generated_site_has_no_feasibility_issue() -> None:
    site = generate_site("shop", 2)
    issues, verdicts = feasibility_issues(site, budget=150)
    assert issues == []
    assert set(verdicts) == {t.id for t in site.tasks}
    for task in site.tasks:
        verdict = verdicts[task.id]
        if verdict.status == "certified":
            assert replay(site, task, verdict.certificate)[0]
        assert verdict.status in ("certified", "proven_infeasible", "undecided"), (task.id, verdict)


def _infeasible(site: Site, goal: list[Any], slots: dict[str, Any]) -> Task:
    """The site's infeasible task, re-aimed at ``goal`` (built here, so generator changes don't move it)."""
    base = next(t for t in site.tasks if t.kind == "infeasible")
    template = "Do the impossible: " + ", ".join(f"{{{name}}}" for name in slots)
    return base.model_copy(update={"goal": goal, "slots": slots, "template": template, "instruction": template.format(
        **slots), "user": base.user or "x", "start_logged_in": base.start_logged_in})


def test_proof_through_views_needs_rows_behind_them() -> None:
    site = generate_site("travel", 1)
    session = Session(site)
    origin, destination = session.db.guard.engine(
        "SELECT o.name, d.name FROM cities o, cities d WHERE o.id != d.id AND NOT EXISTS (SELECT 1 FROM services s "
        "WHERE s.origin_id = o.id AND s.destination_id = d.id) ORDER BY o.id, d.id LIMIT 1").fetchone()
    goal = Exists(kind="exists", query=Query(table="booking_view", where=[
        {"column": "user_id", "value": {"ref": "user.id"}}, {"column": "origin_city", "value": {"ref": "slot.origin"}},
        {"column": "dest_city", "value": {"ref": "slot.destination"}}]))
    task = _infeasible(site, [goal], {"origin": origin, "destination": destination})  # both cities exist
    proof = prove_infeasible(site, task, budget=20)
    assert proof.status == "proven_infeasible", proof.text
    assert "flight_view" in proof.text and origin in proof.text
    # a marker that can re-point a service's origin could create the route: no proof then
    marker = site.marker("book_flight")
    rewire = marker.effects[-1].model_copy(update={
        "table": "services", "sql": "UPDATE services SET origin_id = :passengers WHERE id = 1"})
    opened = site.model_copy(update={"markers": [
        m.model_copy(update={"effects": [*m.effects, rewire]}) if m.name == "book_flight" else m
        for m in site.markers]})
    assert prove_infeasible(opened, task, budget=20).status != "proven_infeasible"


def test_proof_over_a_sql_goal() -> None:
    site = generate_site("forum", 1)
    goal = SqlPredicate(kind="sql", params={"ghost": {"ref": "slot.ghost"}}, sql=(
        "SELECT EXISTS (SELECT 1 FROM votes v JOIN posts p ON p.id = v.post_id JOIN users u ON u.id = p.user_id "
        "WHERE v.user_id = :user_id AND u.username = :ghost)"))
    task = _infeasible(site, [goal], {"ghost": "nobody_by_that_name"})  # "upvote nobody's newest post"
    proof = prove_infeasible(site, task, budget=20)
    assert proof.status == "proven_infeasible" and "username" in proof.text, proof.text
    # a marker that can add accounts could create that user: no proof then
    first = site.markers[0]
    signup = first.effects[0].model_copy(update={
        "op": "insert", "table": "users", "sql": "INSERT INTO users (username) VALUES (:body)"})
    opened = site.model_copy(update={"markers": [
        first.model_copy(update={"effects": [*first.effects, signup]}), *site.markers[1:]]})
    assert prove_infeasible(opened, task, budget=20).status != "proven_infeasible"


def test_a_task_that_cannot_start_is_reported_not_raised(shop: Site) -> None:
    site, bad = _task(shop, "count_orders", user="nobody")
    verdict = verify_task(site, bad, budget=20)
    assert verdict.status == "infeasible" and not verdict.shipped
    assert [i.code for i in verdict.issues] == ["F008"] and "nobody" in verdict.issues[0].message

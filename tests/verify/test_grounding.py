"""The metamorphic grounding check: a certificate that answers without seeing the evidence is caught."""

from __future__ import annotations

from veriweb.generate.site import generate_site
from veriweb.verify.grounding import grounded
from veriweb.verify.search import solve


def test_a_compare_answered_off_the_home_page_is_ungrounded_and_the_authors_plan_is_not() -> None:
    """"Which of these three listings is cheapest?": the search answers with a title the home page
    lists (it tries each against the judge); reversing the prices changes the right answer and
    nothing that page shows. The generator's plan opens the listings, whose prices change."""
    checked = 0
    for seed in range(1, 4):
        site = generate_site("forum", seed)
        for task in site.tasks:
            if task.family != "retrieve_compare":
                continue
            result = solve(site, task, budget=2000)
            assert result.status == "solved"
            assert grounded(site, task, task.certificate) is True
            if len(result.actions) == 1:
                assert grounded(site, task, result.actions) is False
                checked += 1
    assert checked >= 1


def test_tasks_the_check_cannot_judge_say_so() -> None:
    site = generate_site("shop", 1)
    task = next(t for t in site.tasks if t.kind != "retrieve")
    assert grounded(site, task, task.certificate) is None
    retrieve = next(t for t in site.tasks if t.kind == "retrieve")
    assert grounded(site, retrieve, []) is None


def test_an_amount_stated_in_a_message_body_moves_with_the_rows() -> None:
    """A bill stores 6484 cents and says "Amount due: $64.84." in its body: the rewrite changes both, so
    the author's plan, which reads the body, is grounded (it was a false alarm before texts moved)."""
    from veriweb.verify.grounding import _restate

    row = {"amount": 6484, "body": "Amount due: $64.84. Collected on April 20, order 16484."}
    _restate(row, "amount", 6484, 12975)
    assert row == {"amount": 6484, "body": "Amount due: $129.75. Collected on April 20, order 16484."}
    checked = 0
    for seed in range(1, 3):
        site = generate_site("mail", seed)
        for task in site.tasks:
            if task.family in ("retrieve_lookup", "retrieve_sum") and "bill" in task.instruction:
                assert grounded(site, task, task.certificate) is True
                checked += 1
    assert checked >= 1

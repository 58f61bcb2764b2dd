"""The metamorphic grounding check: a certificate that answers without seeing the evidence is caught."""

from __future__ import annotations

from veriweb.engine.actions import parse_action
from veriweb.generate.site import generate_site
from veriweb.scaffold import Site, Task
from veriweb.verify.grounding import grounded
from veriweb.verify.search import solve


def _compares() -> list[tuple[Site, Task]]:
    """The "which of these three listings is cheapest?" tasks of forum seeds 1 to 3."""
    return [(site, task) for site in (generate_site("forum", seed) for seed in range(1, 4))
            for task in site.tasks if task.family == "retrieve_compare"]


def test_a_compare_answered_off_the_home_page_is_ungrounded_and_the_authors_plan_is_not() -> None:
    """"Which of these three listings is cheapest?": the plain search answers with a title the home
    page lists (it tries each against the judge); reversing the prices changes the right answer and
    nothing that page shows. The generator's plan opens the listings, whose prices change. The
    grounded search (how tasks are certified) never returns such a solution: it certifies the task
    by reading each named listing's price, and answers only then."""
    from veriweb.engine import Episode, Session
    from veriweb.verify.reading import carry, titles_read

    checked = 0
    for site, task in _compares():
        result = solve(site, task, budget=2000)
        assert result.status == "solved"
        assert grounded(site, task, task.certificate) is True
        careful = solve(site, task, budget=2000, grounded=True)
        assert careful.status == "solved", careful.reason
        assert grounded(site, task, careful.actions) is not False
        session = Session(site)  # every listing the task names was read before the answer
        try:
            episode = Episode(site, task, session=session)
            episode.reset()
            memory = carry(None, session.page(), picks=True)
            for action in careful.actions[:-1]:
                episode.step(action)
                memory = carry(memory, session.page())
            named = {str(v).casefold() for k, v in task.slots.items() if k in ("first", "second", "third")}
            assert len(named) == 3 and named <= titles_read(session.page(), memory)
        finally:
            session.close()
        if len(result.actions) == 1:
            assert grounded(site, task, result.actions) is False
            assert careful.actions != result.actions
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


def test_the_best_rated_product_is_asked_only_where_the_category_page_shows_or_sorts_by_rating() -> None:
    """A category listed as names and prices, with no sort by rating, says nothing of which product is
    best rated: the generator asks for it only where the ratings are shown or sorted by, and its plan
    for the question is grounded (rewriting the ratings changes what the pages it reads show)."""
    asked = 0
    for seed in range(28, 60):  # before the fix, seeds 30, 31, 48, 51 and 57 asked it of names and prices
        site = generate_site("shop", seed)
        for task in site.tasks:
            if task.family == "retrieve_extreme" and "rat" in task.instruction:
                asked += 1
                assert grounded(site, task, task.certificate) is True, (seed, task.instruction)
    assert asked >= 3


def test_the_answer_row_and_the_runner_up_are_changed_alone() -> None:
    """"Which of these three is cheapest?": moving the answer's row to the other end, or the runner-up
    just ahead of it, changes the right answer and leaves every other row as it was; a count loses
    the first row it counts."""
    from veriweb.engine import Episode, Session
    from veriweb.verify.grounding import _decider

    checked = 0
    for site, task in _compares():
        answer = parse_action(task.certificate[-1]).text  # type: ignore[attr-defined]
        moved, ahead = _decider(site, task), _decider(site, task, 1)
        assert moved is not None and ahead is not None
        for other in (moved, ahead):
            changed = [(a, b) for x, y in zip(site.database.tables, other.database.tables)
                       for a, b in zip(x.rows, y.rows) if a != b]
            assert len(changed) == 1  # one row, and only its order column
            (before, after), = changed
            assert {k for k in before if before[k] != after[k]} == {"price"}
        session = Session(moved)
        try:
            episode = Episode(moved, task, session=session)
            episode.reset()
            assert not episode.judge.judge_answer(answer).correct
        finally:
            session.close()
        checked += 1
    assert checked >= 2
    site = generate_site("code", 3)
    task = next(t for t in site.tasks if t.family in ("retrieve_count", "retrieve_count_profile"))
    dropped = _decider(site, task)
    assert dropped is not None
    assert sum(len(t.rows) for t in dropped.database.tables) == sum(len(t.rows) for t in site.database.tables) - 1

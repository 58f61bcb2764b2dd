"""An answer key that gives a value of another type than the answer's (a date-and-time for a date)
is the site's defect: the judge says no to every answer, and the verifier says the answer does not exist."""

from __future__ import annotations

from veriweb.engine import Episode, Session
from veriweb.generate.site import generate_site
from veriweb.scaffold import Site
from veriweb.verify.checks import ANSWER_UNDEFINED
from veriweb.verify.feasibility import verify_task


def keyed_on(site: Site, task_id: str, column: str) -> Site:
    task = site.task(task_id)
    value = task.answer.value.model_copy(update={"query": task.answer.value.query.model_copy(update={"select": column})})
    moved = task.model_copy(update={"answer": task.answer.model_copy(update={"value": value})})
    return site.model_copy(update={"tasks": [moved]})


def test_a_date_answer_keyed_on_a_datetime() -> None:
    clean = next(s for s in map(lambda seed: generate_site("mail", seed), range(20))
                 if any(t.id == "received_on" for t in s.tasks))
    assert clean.task("received_on").answer.type == "date"
    site = keyed_on(clean, "received_on", "sent_at")
    task = site.tasks[0]
    session = Session(site)
    try:
        episode = Episode(site, task, session=session)
        episode.reset()
        expected = episode.judge.expected_answer()
        assert isinstance(expected, str) and "T" in expected  # a date and a time
        verdict = episode.judge.judge_answer(expected[:10])
        assert not verdict.correct and "is not a date" in verdict.reason
    finally:
        session.close()
    found = verify_task(site, task, budget=200)
    assert found.status != "certified"
    assert any(i.code == ANSWER_UNDEFINED and "not a date" in i.message for i in found.issues)
    assert not [i for i in verify_task(clean, clean.task("received_on"), budget=2_000).issues
                if i.code == ANSWER_UNDEFINED]

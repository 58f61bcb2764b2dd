"""The judge on expected answers that the data cannot state (a NULL or blank value read from the database)."""

from __future__ import annotations

import pytest

from veriweb.engine import Session
from veriweb.engine.judge import Judge
from veriweb.generate.site import generate_site
from veriweb.scaffold import Site
from veriweb.verify.search import solve


@pytest.mark.parametrize(("value", "says"), [(None, "missing value (NULL)"), ("  ", "blank text")])
def test_list_answer_with_an_unstatable_item_is_judged_wrong_not_a_crash(value: object, says: str) -> None:
    site = generate_site("code", 0)
    task = next(t for t in site.tasks if t.id.startswith("labels_of"))
    session = Session(site)
    judge = Judge(session, task)
    expected = judge.expected_answer()
    assert judge.judge_answer(", ".join(expected)).correct
    session.db.conn.execute("UPDATE labels SET name = ? WHERE name = ?", (value, expected[0]))
    verdict = judge.judge_answer(", ".join(expected))
    assert not verdict.correct
    assert says in verdict.reason and "item 0" in verdict.reason


def test_search_on_a_list_answer_with_a_null_item_finds_no_answer_instead_of_crashing() -> None:
    site = generate_site("code", 0)
    task = next(t for t in site.tasks if t.id.startswith("labels_of"))
    expected = Judge(Session(site), task).expected_answer()
    data = site.model_dump(mode="json")
    labels = next(t for t in data["database"]["tables"] if t["name"] == "labels")
    for row in labels["rows"]:
        if row["name"] in expected:
            row["name"] = None
    broken = Site.model_validate(data)
    assert solve(site, task, budget=300).status == "solved"
    assert solve(broken, broken.task(task.id), budget=300).status != "solved"

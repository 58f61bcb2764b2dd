"""M016 from what the only solution pressed: the instruction's own verbs count, the names it quotes do not."""

from __future__ import annotations

import copy

import pytest
from jsonwalk import dicts  # tests/verify/jsonwalk.py

from veriweb.generate.site import generate_site
from veriweb.scaffold import Site
from veriweb.scaffold.io import from_data, to_data
from veriweb.scaffold.site import render_instruction
from veriweb.verify.checks import SLOT_CONTRADICTS_GOAL
from veriweb.verify.feasibility import verify_task


@pytest.fixture(scope="module")
def code() -> Site:
    for seed in range(40):
        site = generate_site("code", seed)
        if any(t.id == "delete_comment" for t in site.tasks):
            return site
    raise AssertionError("no code site with delete_comment")


def with_title(site: Site, title: str, instruction: str | None = None) -> Site:
    """The site with only delete_comment, its issue renamed ``title`` everywhere the task says it."""
    data = copy.deepcopy(to_data(site))
    data.pop("id", None)
    task = next(t for t in data["tasks"] if t["id"] == "delete_comment")
    old = task["slots"]["title"]
    issues = next(t for t in data["database"]["tables"] if t["name"] == "issues")
    for row in issues["rows"]:
        if row["title"] == old:
            row["title"] = title
    task["slots"]["title"] = title
    task["instruction"] = (instruction or task["instruction"]).replace(old, title)
    task["certificate"] = []
    data["tasks"] = [task]
    forms = [e for e in dicts(data["pages"]) if isinstance(e.get("action"), dict) and e["action"].get("marker") == "delete_comment"]
    assert forms
    for form in forms:
        form["submit"] = "Remove"  # a label the generator also writes: the verb that undoes "Add"
    return from_data(data, check_id=False)


def m016(site: Site) -> list[str]:
    verdict = verify_task(site, site.tasks[0], budget=2_000)
    assert verdict.status == "certified" or verdict.issues, verdict.proof
    return [i.message for i in verdict.issues if i.code == SLOT_CONTRADICTS_GOAL]


def test_a_quoted_name_with_a_verb_is_not_what_the_instruction_asks(code: Site) -> None:
    """Deleting a comment on the issue "Add dark mode to the CLI" presses "Remove": the "Add" is the
    issue's name, not the instruction's verb."""
    assert m016(with_title(code, "Add dark mode to the CLI")) == []


def test_the_instructions_own_verb_still_counts(code: Site) -> None:
    site = with_title(code, "Add dark mode to the CLI")
    task = site.tasks[0]
    template = task.template.replace("delete your comment", "add your comment").replace(" on the issue", " to the issue")
    assert template != task.template
    moved = task.model_copy(update={"template": template, "instruction": render_instruction(template, task.slots)})
    found = m016(site.model_copy(update={"tasks": [moved]}))
    assert found and "presses 'Remove'" in found[0] and "says ('add')" in found[0]

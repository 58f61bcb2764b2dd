"""A task that creates a row names it freely: a new name that differs from a stored one only in its
number ("Taxes 2027" beside "Taxes 2026") is another name, not a misspelt one (M005), so the
rewrite of a task that asks to create a folder it already has (numbered on from the old name, F010)
is kept."""

from __future__ import annotations

import copy

import pytest

from veriweb.generate.site import generate_site
from veriweb.scaffold import Site
from veriweb.scaffold.io import from_data, to_data
from veriweb.scaffold.site import render_instruction
from veriweb.verify.checks import near_miss, static_issues
from veriweb.verify.pipeline import repair_site

FOLDER = "Receipts 2026"


def test_names_that_differ_only_in_their_number_are_not_a_slip() -> None:
    corpus = {"taxes 2026", "quarterly report", "room 12 booking"}
    assert near_miss("Taxes 2027", corpus) is None
    assert near_miss("Taxes 20261", corpus) is None
    assert near_miss("Room 112 booking", corpus) is None
    # a slip of the letters is still one, with or without a number beside it
    assert near_miss("Taxse 2026", corpus) == "taxes 2026"
    assert near_miss("Taxes 2027x", corpus) == "taxes 2026"  # a letter added: a slip, whatever the number
    assert near_miss("Quartely report", corpus) == "quarterly report"


@pytest.fixture(scope="module")
def mail() -> Site:
    """A mail site with its new-folder task only, the folder named with a year."""
    site = next(s for s in (generate_site("mail", seed) for seed in range(20))
                if any(t.id == "new_folder" for t in s.tasks))
    data = copy.deepcopy(to_data(site))
    data.pop("id", None)
    data["tasks"] = [t for t in data["tasks"] if t["id"] == "new_folder"]
    task = data["tasks"][0]
    task["slots"]["folder"] = FOLDER
    task["instruction"] = render_instruction(task["template"], task["slots"])
    task.pop("certificate", None)
    return from_data(data, check_id=False)


def done_at_start(site: Site) -> Site:
    """``site`` with the task's folder already made and its message already filed there (F001)."""
    data = copy.deepcopy(to_data(site))
    data.pop("id", None)
    task = data["tasks"][0]
    tables = {t["name"]: t for t in data["database"]["tables"]}
    user = next(r for r in tables["users"]["rows"] if r["username"] == task["user"])
    folders = tables["folders"]["rows"]
    new_id = max(r["id"] for r in folders) + 1
    mine = [r for r in folders if r["user_id"] == user["id"]]
    folders.append({"id": new_id, "user_id": user["id"], "name": FOLDER, "kind": "custom",
                    "position": max(r["position"] for r in mine) + 1})
    email = next(r for r in tables["emails"]["rows"]
                 if r["user_id"] == user["id"] and r["subject"] == task["slots"]["subject"])
    email["folder_id"] = new_id
    return from_data(data, check_id=False)


def test_the_clean_task_names_a_new_folder_without_an_issue(mail: Site) -> None:
    assert static_issues(mail) == []


def test_a_folder_made_before_the_start_is_renamed_and_the_task_kept(mail: Site) -> None:
    broken = done_at_start(mail)
    fixed, report = repair_site(broken, budget=2_000)
    assert fixed is not None, report.verified
    assert report.verified.issues == []
    (task,) = fixed.tasks
    assert task.slots["folder"] == "Receipts 2027" and "Receipts 2027" in task.instruction
    assert task.certificate
    # the folder the task asks to create already exists (F010, found before any search), so its name
    # is numbered on from the old one, not near it: no M005 puts the old name back
    assert [(r["code"], r["operator"]) for r in report.repairs] == [("F010", "fresh_name")]
    assert not [r for r in report.repairs if r["code"] == "M005"]

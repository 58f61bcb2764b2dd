"""Checks and repairs from the held-out edits (``bench/heldout_bench.py``): "Sign in" on a button
that signs out (and the reverse), a page with no title, a marker parameter with an empty list of
choices. Each is reported where it is, left alone when sound, and repaired."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from veriweb.generate.site import generate_site
from veriweb.scaffold.io import from_data, to_data
from veriweb.verify.checks import check_labels
from veriweb.verify.mutation_walk import elements


@pytest.fixture(scope="module")
def forum() -> dict[str, Any]:
    return to_data(generate_site("forum", 3))


def _form(data: dict[str, Any], kind: str) -> tuple[dict[str, Any], str]:
    return next((node, path) for node, path, _, _ in elements(data)
                if node.get("type") == "form" and node.get("action", {}).get("kind") == kind)


@pytest.mark.parametrize(("kind", "label"), [("logout", "Sign in"), ("login", "Log out")])
def test_session_button_saying_the_opposite(forum: dict[str, Any], kind: str, label: str) -> None:
    data = copy.deepcopy(forum)
    form, path = _form(data, kind)
    form["submit"] = label
    found = [i for i in check_labels(from_data(data, check_id=False)) if i.code == "M003"]
    assert [i.location for i in found] == [f"{path}.submit"]


def test_session_buttons_saying_what_they_do_are_fine(forum: dict[str, Any]) -> None:
    data = copy.deepcopy(forum)
    _form(data, "logout")[0]["submit"] = "Sign out of the forum"
    _form(data, "login")[0]["submit"] = "Log in"
    assert [i for i in check_labels(from_data(data, check_id=False)) if i.code == "M003"] == []


def test_repair_says_what_the_form_does(forum: dict[str, Any]) -> None:
    from veriweb.verify.repair import Context, fix_label

    data = copy.deepcopy(forum)
    form, _ = _form(data, "logout")
    form["submit"] = "Sign in"
    [issue] = [i for i in check_labels(from_data(data, check_id=False)) if i.code == "M003"]
    assert fix_label(data, issue, Context()) is not None
    assert form["submit"] == "Sign out"
    assert [i for i in check_labels(from_data(data, check_id=False)) if i.code == "M003"] == []


def test_page_without_a_title_is_reported_and_named_from_its_heading(forum: dict[str, Any]) -> None:
    from veriweb.verify.checks import check_content
    from veriweb.verify.repair import Context, restore_text

    data = copy.deepcopy(forum)
    number = next(n for n, p in enumerate(data["pages"]) if any(
        e.get("type") == "heading" and "{" not in e.get("text", "") for e in p["elements"]))
    heading = next(e["text"] for e in data["pages"][number]["elements"]
                   if e.get("type") == "heading" and "{" not in e["text"])
    data["pages"][number]["title"] = " "
    [issue] = [i for i in check_content(from_data(data, check_id=False)) if i.code == "M002"]
    assert issue.location == f"$.pages[{number}].title"
    pages = len(data["pages"])
    assert restore_text(data, issue, Context()) is not None
    assert len(data["pages"]) == pages and data["pages"][number]["title"] == heading
    assert [i for i in check_content(from_data(data, check_id=False)) if i.code == "M002"] == []


def test_parameter_with_no_choices_is_reported_and_given_its_columns_values() -> None:
    from veriweb.verify.checks_pages import check_field_types
    from veriweb.verify.repair import Context
    from veriweb.verify.repair_pages import fix_field_type

    data = to_data(generate_site("code", 5))
    m_index, p_index = next((m, p) for m, marker in enumerate(data["markers"])
                            for p, param in enumerate(marker.get("params", [])) if param.get("choices"))
    choices = data["markers"][m_index]["params"][p_index]["choices"]
    data["markers"][m_index]["params"][p_index]["choices"] = []
    found = [i for i in check_field_types(from_data(data, check_id=False)) if i.location.endswith(".choices")]
    assert [i.location for i in found] == [f"$.markers[{m_index}].params[{p_index}].choices"]
    assert fix_field_type(data, found[0], Context()) is not None
    assert set(data["markers"][m_index]["params"][p_index]["choices"]) <= set(choices)
    assert [i for i in check_field_types(from_data(data, check_id=False)) if i.location.endswith(".choices")] == []

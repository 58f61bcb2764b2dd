"""M003 for buttons wired to something else than they say: a sibling marker's verb on a form that runs
another marker ("Archive it" running ``trash_email``), an "Upvote" that sends -1. Both were first
written by hand in a held-out set; each has twins that must stay clean, and a repair that rewires."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from veriweb.generate.site import generate_site
from veriweb.scaffold.io import from_data, to_data
from veriweb.verify.checks import static_issues
from veriweb.verify.checks_meaning import check_label_meaning
from veriweb.verify.mutation_walk import marker_forms
from veriweb.verify.repair import repair_static

Data = dict[str, Any]


@pytest.fixture(scope="module")
def sites() -> dict[str, Data]:
    return {domain: to_data(generate_site(domain, 0)) for domain in ("forum", "mail")}


def _copy(data: Data) -> Data:
    out = copy.deepcopy(data)
    out.pop("id", None)
    return out


def _forms(data: Data, marker: str) -> list[Data]:
    return [form for form, _, _, found in marker_forms(data) if found["name"] == marker]


def test_a_button_naming_a_sibling_marker_is_found_and_rewired(sites: dict[str, Data]) -> None:
    data = _copy(sites["mail"])
    form = _forms(data, "archive_email")[0]
    form["action"]["marker"] = "trash_email"  # the archive button now trashes
    issues = [i for i in check_label_meaning(from_data(data, check_id=False)) if "archive_email" in i.message]
    assert len(issues) == 1 and issues[0].code == "M003" and "its form runs trash_email" in issues[0].message
    fixed, log, _, _, _ = repair_static(from_data(data, check_id=False))
    assert any(r.operator == "fix_label" and "runs archive_email" in r.change for r in log)
    assert len(_forms(to_data(fixed), "archive_email")) == len(_forms(sites["mail"], "archive_email"))
    assert not [i for i in static_issues(fixed) if i.code == "M003"]


def test_a_verb_of_another_kind_of_record_or_a_shared_verb_stays_clean(sites: dict[str, Data]) -> None:
    data = _copy(sites["mail"])
    _forms(data, "delete_contact")[0]["submit"] = "Trash"  # a contact's delete: trash_email acts on emails
    _forms(data, "trash_email")[0]["submit"] = "Delete"  # "delete" names no marker in particular
    assert not [i for i in check_label_meaning(from_data(data, check_id=False)) if "says what marker" in i.message]


def test_an_upvote_that_sends_minus_one_is_found_and_turned(sites: dict[str, Data]) -> None:
    data = _copy(sites["forum"])
    up = next(f for f in _forms(data, "vote") if f["action"]["args"].get("value") == 1)
    up["action"]["args"]["value"] = -1
    issues = [i for i in check_label_meaning(from_data(data, check_id=False)) if "sends value = -1" in i.message]
    assert len(issues) == 1 and issues[0].location.endswith(".action.args.value")
    fixed, _, _, _, _ = repair_static(from_data(data, check_id=False))
    assert sorted(f["action"]["args"]["value"] for f in _forms(to_data(fixed), "vote")) == sorted(
        f["action"]["args"]["value"] for f in _forms(sites["forum"], "vote"))


def test_a_vote_button_without_a_direction_word_stays_clean(sites: dict[str, Data]) -> None:
    data = _copy(sites["forum"])
    for form in _forms(data, "vote"):
        form["submit"] = "Vote"
    assert not [i for i in check_label_meaning(from_data(data, check_id=False)) if "sends value" in i.message]


@pytest.mark.parametrize("domain", ["forum", "mail"])
def test_clean_sites_stay_clean(sites: dict[str, Data], domain: str) -> None:
    assert check_label_meaning(from_data(_copy(sites[domain]), check_id=False)) == []


def test_a_sort_link_saying_the_other_direction_is_turned() -> None:
    from veriweb.verify.checks_meaning import check_sort_labels
    from veriweb.verify.mutation_walk import elements

    data = _copy(to_data(generate_site("shop", 0)))
    sorts = [(node, index) for node, _, _, _ in elements(data) for index, sort in enumerate(node.get("sorts") or [])
             if sort.get("dir", "asc") == "asc" and sort["column"] == "price"]
    assert check_sort_labels(from_data(data, check_id=False)) == []
    node, index = sorts[0]
    node["sorts"][index]["label"] = "Price: high to low"  # still sorted cheapest first
    issues = check_sort_labels(from_data(data, check_id=False))
    assert len(issues) == 1 and issues[0].location.endswith(f".sorts[{index}].label")
    fixed, _, _, _, _ = repair_static(from_data(data, check_id=False))
    assert check_sort_labels(fixed) == []
    # twins: a label with no direction word, and one that says the way it sorts
    for label in ("Price", "Price: low to high"):
        node["sorts"][index]["label"] = label
        assert check_sort_labels(from_data(data, check_id=False)) == []


def test_a_plus_one_button_sending_minus_one_is_turned(sites: dict[str, Data]) -> None:
    data = _copy(sites["forum"])
    votes = [f for f in _forms(data, "vote") if f["action"]["args"]["value"] in (1, -1)]  # not the take-back
    for form in votes:
        form["submit"] = "+1" if form["action"]["args"]["value"] == 1 else "-1"
    assert not [i for i in check_label_meaning(from_data(data, check_id=False)) if "sends value" in i.message]
    for form in votes:
        form["action"]["args"]["value"] = -form["action"]["args"]["value"]
    issues = [i for i in check_label_meaning(from_data(data, check_id=False)) if "sends value" in i.message]
    assert len(issues) == len(votes)

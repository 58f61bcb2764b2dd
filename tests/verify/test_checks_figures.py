"""C006 for figures a page states in words against the figures its SQL uses.

The defects were first written by hand in a held-out set: a checkout that says express costs $12
where the order adds $15, a bargains page "under $15" listing products under $20, a low-stock
page "fewer than 5 units" listing those under 10, and a bag fee the label states and the booking
no longer charges. Each has twins that must stay clean, and a repair.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from veriweb.generate.site import generate_site
from veriweb.scaffold.io import from_data, to_data
from veriweb.verify.checks import static_issues
from veriweb.verify.checks_figures import check_stated_figures
from veriweb.verify.mutation_walk import elements, marker_forms
from veriweb.verify.repair import repair_static

Data = dict[str, Any]


@pytest.fixture(scope="module")
def sites() -> dict[str, Data]:
    return {domain: to_data(generate_site(domain, 0)) for domain in ("shop", "admin", "travel")}


def _copy(data: Data) -> Data:
    out = copy.deepcopy(data)
    out.pop("id", None)
    return out


def _page(data: Data, page: str) -> Data:
    return next(p for p in data["pages"] if p["id"] == page)


def _nodes(data: Data, page: str) -> list[Data]:
    return [node for node, path, _, _ in elements(data) if path.startswith(
        f"$.pages[{data['pages'].index(_page(data, page))}]")]


def _texts(data: Data) -> list[str]:
    out = []
    for node, _, _, _ in elements(data):
        out += [node[k] for k in ("text", "label") if isinstance(node.get(k), str)]
        for field in node.get("fields", []) or []:
            out += [field.get("label", "")] + [o["label"] for o in field.get("options", []) or []]
    return out


def _issues(data: Data) -> list[Any]:
    return check_stated_figures(from_data(data, check_id=False))


def _express(data: Data, amount: str) -> None:
    for node in _nodes(data, "checkout"):
        if isinstance(node.get("text"), str):
            node["text"] = node["text"].replace("express $15.00", f"express {amount}")
        for field in node.get("fields", []) or []:
            for option in field.get("options", []) or []:
                option["label"] = option["label"].replace("Express ($15.00)", f"Express ({amount})")


def test_a_fee_the_checkout_states_against_the_one_it_charges(sites: dict[str, Data]) -> None:
    data = _copy(sites["shop"])
    _express(data, "$12.00")
    issues = _issues(data)
    assert len(issues) == 2 and all("states $12.00 for express" in i.message for i in issues)
    fixed, _, _, _, _ = repair_static(from_data(data, check_id=False))
    texts = _texts(to_data(fixed))
    assert "Express ($15.00)" in texts and "Shipping: standard $5.00, express $15.00." in texts
    assert not [i for i in static_issues(fixed) if i.code == "C006"]


def test_a_fee_changed_in_words_and_sql_alike_stays_clean(sites: dict[str, Data]) -> None:
    data = _copy(sites["shop"])
    _express(data, "$12.00")
    for form, _, _, marker in marker_forms(data):
        if marker["name"] == "place_order":
            for effect in marker["effects"]:
                effect["sql"] = effect["sql"].replace("THEN 1500", "THEN 1200")
    assert _issues(data) == []


def test_a_fee_the_booking_no_longer_charges_is_put_back(sites: dict[str, Data]) -> None:
    data = _copy(sites["travel"])
    marker = next(m for m in data["markers"] if m["name"] == "book_flight")
    effect = next(e for e in marker["effects"] if "THEN 3500 ELSE 0" in e["sql"])
    original = effect["sql"]
    effect["sql"] = original.replace("THEN 3500 ELSE 0", "THEN 0 ELSE 0")
    issues = _issues(data)
    assert len(issues) == 1 and "writes 0 either way for bag" in issues[0].message
    fixed, _, _, _, _ = repair_static(from_data(data, check_id=False))
    marker = next(m for m in to_data(fixed)["markers"] if m["name"] == "book_flight")
    assert original in [e["sql"] for e in marker["effects"]]


@pytest.mark.parametrize("domain, page, sentence, bound, said", [
    ("shop", "deals", "Everything here is under $15.", "under $20", "under $15"),
    ("admin", "low_stock", None, "fewer than 10", "fewer than 5"),
])
def test_a_bound_the_page_states_against_the_one_its_list_uses(sites: dict[str, Data], domain: str, page: str,
                                                                sentence: str | None, bound: str, said: str) -> None:
    data = _copy(sites[domain])
    nodes = _nodes(data, page)
    if sentence is not None:  # the page's words gain a figure its list does not use
        next(n for n in nodes if n.get("type") == "text")["text"] = sentence
    else:  # the list's bound moves away from the one its words state
        for node in nodes:
            for cond in (node.get("query") or {}).get("where", []):
                if cond.get("column") == "stock" and cond.get("op") == "<":
                    cond["value"] = 10
    issues = _issues(data)
    assert len(issues) == 1 and f"says {said!r}" in issues[0].message
    fixed, _, _, _, _ = repair_static(from_data(data, check_id=False))
    assert any(bound in t for t in _texts(to_data(fixed)))
    assert not [i for i in static_issues(fixed) if i.code == "C006"]


def test_a_bound_that_agrees_or_names_no_list_stays_clean(sites: dict[str, Data]) -> None:
    data = _copy(sites["shop"])
    next(n for n in _nodes(data, "deals") if n.get("type") == "text")["text"] = "Everything here is under $20."
    next(n for n in _nodes(data, "home") if n.get("type") == "text")["text"] = "Free returns on orders over $15."
    assert _issues(data) == []


@pytest.mark.parametrize("domain", ["shop", "admin", "travel"])
def test_clean_sites_state_their_figures_right(sites: dict[str, Data], domain: str) -> None:
    assert _issues(_copy(sites[domain])) == []

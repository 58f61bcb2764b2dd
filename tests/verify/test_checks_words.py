"""Checks of what a page's words say against what it shows (``veriweb/verify/checks_words.py``), and a
guard that speaks to the user but looks at everyone's rows. Classes from the fifteenth hand-made set's
misses; each defect is planted by editing a generated site's text, with the clean site as its twin.

- C008: "Refunded: {row.total|money}" where the row has a ``refunded``; "departs ... at {row.arrive},
  arrives ... at {row.depart}"; "Subtotal: {row.items|money}" (a count shown as money). The repair
  writes back the column the words name.
- M003: "Our lowest fares" over a list sorted by price descending; "Nonstop only" over ``stops >=``.
  The repair turns the order, or the test, round.
- C009: "You already have a booking on this flight" over a guard that looks for anyone's booking.
  The repair adds the user.
- M015: a search form's field the results page never reads, while its list has the column. The repair
  adds the test.
- C005: a checked bag priced "$35 per passenger" added once whatever the passengers (the repair
  multiplies it); a refund recorded as a row under its order that sets the order's ``refunded`` to
  its amount instead of adding it (the repair adds it).
"""

from __future__ import annotations

import json

import pytest

from veriweb.generate.site import generate_site
from veriweb.scaffold import Site
from veriweb.scaffold.io import from_data, to_data
from veriweb.verify.checks import CONTRADICTORY_LABEL, LIST_DETAIL, UNGUARDED_WRITE, VACUOUS_GUARD, static_issues
from veriweb.verify.checks_words import WORD_CHECKS
from veriweb.verify.repair import repair_static


def _planted(site: Site, old: str, new: str) -> Site:
    data = to_data(site)
    data.pop("id", None)
    text = json.dumps(data)
    assert text.count(old) >= 1, old
    return from_data(json.loads(text.replace(old, new, 1)), check_id=False)


def _text(site: Site) -> str:
    return json.dumps(to_data(site))


@pytest.fixture(scope="module")
def travel() -> Site:
    return generate_site("travel", 1)


@pytest.fixture(scope="module")
def admin() -> Site:
    return generate_site("admin", 0)


@pytest.fixture(scope="module")
def shop() -> Site:
    return generate_site("shop", 0)


def _found(site: Site, code: str, words: str) -> list[str]:
    return [i.location for i in static_issues(site) if i.code == code and words in i.message]


def test_clean_sites_of_every_domain_say_nothing_here() -> None:
    for domain in ("shop", "admin", "forum", "code", "travel", "mail"):
        for seed in (0, 1):
            site = generate_site(domain, seed)
            assert [i.message for check in WORD_CHECKS for i in check(site)] == [], (domain, seed)
            assert not [i for i in static_issues(site) if i.code == VACUOUS_GUARD], (domain, seed)


@pytest.mark.parametrize(("fixture", "old", "new", "words"), [
    ("admin", "Refunded: {row.refunded|money}", "Refunded: {row.total|money}", "under another column's name"),
    ("travel", "at {row.depart}, arrives {row.dest_city} ({row.dest_code}) at {row.arrive}",
     "at {row.arrive}, arrives {row.dest_city} ({row.dest_code}) at {row.depart}", "in each other's clause"),
    ("shop", "Subtotal: {row.total|money}", "Subtotal: {row.items|money}", "as money while it is a count"),
])
def test_a_figure_under_words_naming_another_column_is_found_and_written_back(
        request: pytest.FixtureRequest, fixture: str, old: str, new: str, words: str) -> None:
    clean = request.getfixturevalue(fixture)
    assert not _found(clean, LIST_DETAIL, "the figure is another column than its words say")
    site = _planted(clean, old, new)
    assert len(_found(site, LIST_DETAIL, words)) == 1
    fixed = repair_static(site)[0]
    assert old in _text(fixed) and new not in _text(fixed)
    assert not _found(fixed, LIST_DETAIL, "the figure is another column than its words say")


def test_a_list_sorted_against_its_own_words_is_found_and_turned_round(travel: Site) -> None:
    deals = next(n for n, p in enumerate(travel.pages) if p.id == "deals")
    assert "lowest fares" in _text(travel)
    data = to_data(travel)
    data.pop("id", None)
    listed = next(e for e in data["pages"][deals]["elements"] if e["type"] == "list")
    assert listed["query"]["order_by"][0] == {"column": "price"}
    listed["query"]["order_by"][0]["dir"] = "desc"
    site = from_data(data, check_id=False)
    found = _found(site, CONTRADICTORY_LABEL, "lowest fares")
    assert len(found) == 1 and found[0].startswith(f"$.pages[{deals}].") and found[0].endswith(".query.order_by[0]")
    fixed = repair_static(site)[0]
    assert next(p for p in fixed.pages if p.id == "deals").model_dump() == travel.page("deals").model_dump()


@pytest.mark.parametrize(("old", "new", "words"), [
    ('"column": "stops", "op": "<="', '"column": "stops", "op": ">="', "offers 'Nonstop only'"),
    ('"column": "stars", "op": ">="', '"column": "stars", "op": "<="', "stars or more"),
    ('"column": "stars", "op": ">="', '"column": "stars", "op": "="', "stars or more"),  # no bound at all
])
def test_a_filter_testing_the_other_bound_from_its_options_is_found_and_turned_round(
        travel: Site, old: str, new: str, words: str) -> None:
    site = _planted(travel, old, new)
    assert len(_found(site, CONTRADICTORY_LABEL, words)) == 1
    fixed = repair_static(site)[0]
    assert [p.model_dump() for p in fixed.pages] == [p.model_dump() for p in travel.pages]


def test_a_guard_speaking_to_the_user_over_everyones_rows_is_found_and_scoped(travel: Site) -> None:
    scoped = "WHERE user_id = :user_id AND flight_id = :f AND status = 'confirmed'"
    site = _planted(travel, scoped, "WHERE flight_id = :f AND status = 'confirmed'")
    assert len(_found(site, VACUOUS_GUARD, "looks for bookings rows of any user")) == 1
    fixed = repair_static(site)[0]
    assert not _found(fixed, VACUOUS_GUARD, "looks for bookings rows of any user")
    guard = next(g for m in fixed.markers if m.name == "book_flight" for g in m.preconditions
                 if "booking on this flight" in (g.message or ""))
    assert ":user_id" in guard.predicate.sql and "flight_id = :f" in guard.predicate.sql


def test_a_guard_picking_one_row_by_its_key_is_not_asked_for_the_user(travel: Site) -> None:
    # "This flight has already departed" picks the flight by its key: whose it is does not matter
    assert "FROM flights WHERE id = :f AND date > :today" in _text(travel)
    assert not _found(travel, VACUOUS_GUARD, "rows of any user")


def _forms(elements: list) -> list:
    found = []
    for element in elements:
        if element.get("type") == "form":
            found.append(element)
        found += _forms(element.get("elements", []))
    return found


def _flights_list(data: dict) -> dict:
    page = next(p for p in data["pages"] if p["id"] == "flights")
    return next(e for e in page["elements"] if e["type"] in ("list", "table"))


def test_a_search_field_the_results_page_never_reads_is_found_and_read(travel: Site) -> None:
    data = to_data(travel)
    data.pop("id", None)
    listed = _flights_list(data)
    kept = [c for c in listed["query"]["where"] if c["column"] != "stops"]
    assert len(kept) == len(listed["query"]["where"]) - 1
    listed["query"]["where"] = kept
    site = from_data(data, check_id=False)
    found = _found(site, "M015", "sends 'stops' to page 'flights', which never reads it")
    assert found and all(f.endswith("]") and ".fields[" in f for f in found)
    fixed = repair_static(site)[0]
    tests = [c for c in _flights_list(to_data(fixed))["query"]["where"] if c["column"] == "stops"]
    assert [(c["op"], c["value"]) for c in tests] == [("<=", {"ref": "query.stops"})]  # "Nonstop only", "At most 1 stop"
    assert not _found(fixed, "M015", "never reads it")


def test_a_search_field_no_list_has_a_column_for_is_left_alone(travel: Site) -> None:
    # the page may pass such a value on in its links (check-in dates to a hotel's page): no filter to add
    data = to_data(travel)
    data.pop("id", None)
    page = next(p for p in data["pages"] if p["id"] == "flights")
    form = next(e for e in _forms(page["elements"]) if e.get("action", {}).get("kind") == "navigate")
    form["fields"].append({"type": "checkbox", "name": "wifi", "label": "Wi-Fi on board"})
    site = from_data(data, check_id=False)
    assert not _found(site, "M015", "sends 'wifi' to page 'flights'")


def test_a_figure_set_to_the_amount_its_marker_records_as_a_new_row_is_found_and_added_to(admin: Site) -> None:
    assert not _found(admin, UNGUARDED_WRITE, "as a new row under one of")
    site = _planted(admin, "SET refunded = refunded + :amount", "SET refunded = :amount")
    assert len(_found(site, UNGUARDED_WRITE, "records :amount as a new row under one of orders")) == 1
    fixed = repair_static(site)[0]
    sql = [e.sql for m in fixed.markers if m.name == "refund_order" for e in m.effects if e.op == "update"]
    assert sql == ["UPDATE orders SET refunded = refunded + :amount WHERE id = :order_id"]


def test_a_fee_priced_per_passenger_but_added_once_is_found_and_multiplied(travel: Site) -> None:
    per_unit = ":passengers * (price + CASE WHEN :bag THEN 3500 ELSE 0 END)"
    assert per_unit in _text(travel) and not _found(travel, UNGUARDED_WRITE, "adds the fee its form prices")
    site = _planted(travel, per_unit, ":passengers * price + CASE WHEN :bag THEN 3500 ELSE 0 END")
    assert len(_found(site, UNGUARDED_WRITE, "adds the fee its form prices")) == 1
    fixed = repair_static(site)[0]
    assert "CASE WHEN :bag THEN (3500 * :passengers) ELSE 0 END" in _text(fixed)
    assert not _found(fixed, UNGUARDED_WRITE, "adds the fee its form prices")

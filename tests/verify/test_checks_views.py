"""C013: figures views (and effects) compute against their own names and the site's other SQL.

Each defect was first written by hand in a held-out set (a cart total without the quantity, a
star count over every project, an "open issues" count of closed ones, an unread count of read
mail, vote notes and stay states worded backwards); each has a twin edit that must stay clean,
and the repair must give back the SQL of the unedited site.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from veriweb.generate.site import generate_site
from veriweb.scaffold.io import from_data, to_data
from veriweb.verify.checks import static_issues
from veriweb.verify.checks_views import VIEW_FIGURE, check_view_figures, view_fixes
from veriweb.verify.repair import repair_static

Data = dict[str, Any]


@pytest.fixture(scope="module")
def clean() -> dict[str, Data]:
    return {domain: to_data(generate_site(domain, 0)) for domain in ("shop", "forum", "code", "travel", "mail",
                                                                       "admin")}


def _view(data: Data, name: str) -> Data:
    return next(v for v in data["database"]["views"] if v["name"] == name)


def _edited(data: Data, name: str, old: str, new: str) -> Data:
    out = copy.deepcopy(data)
    out.pop("id", None)
    view = _view(out, name)
    assert old in view["sql"], (name, old)
    view["sql"] = view["sql"].replace(old, new, 1)
    return out


CASES = [
    ("shop", "cart_totals", "sum(c.qty * p.price)", "sum(p.price)", "leaves out the quantity"),
    ("code", "project_view", "FROM stars s WHERE s.project_id = p.id", "FROM stars s", "every row shows the same"),
    ("code", "label_view", "i.state = 'open'", "i.state = 'closed'", "named for state = 'open'"),
    ("mail", "folder_view", "e.read = 0", "e.read = 1", "the opposite of what its name says"),
    ("forum", "vote_view", "THEN 'You upvoted this post.' ELSE 'You downvoted this post.'",
     "THEN 'You downvoted this post.' ELSE 'You upvoted this post.'", "wrong way round"),
    ("travel", "stay_view", "THEN 'Upcoming'", "THEN 'Completed'", "wrong way round"),
    ("admin", "revenue_month", "sum(o.total - o.refunded)", "sum(o.total + o.refunded)", "net adds refunded"),
    # a foreign key matched with the key of a table it does not point at (set eight: karma summing the
    # comments of the post whose id is the user's, a refund's staff member found by its order id)
    ("forum", "user_stats", "FROM comments WHERE user_id = u.id", "FROM comments WHERE post_id = u.id",
     "post_id points at posts"),
    ("admin", "refund_view", "s.id = r.staff_id", "s.id = r.order_id", "r.order_id points at orders"),
    ("code", "label_view", "i.id = il.issue_id", "i.id = il.label_id", "il.label_id points at labels"),
    # a toggle's button texts chosen by the state it would set (set eight): "Mark read" on read mail,
    # "Reopen issue" on an open issue
    ("mail", "mail_view", "THEN 'Mark unread' ELSE 'Mark read'", "THEN 'Mark read' ELSE 'Mark unread'",
     "button texts are the wrong way round"),
    ("code", "issue_view", "THEN 'Close' ELSE 'Reopen issue'", "THEN 'Reopen issue' ELSE 'Close'",
     "button texts are the wrong way round"),
    # a per-row count picking its rows by another column than the key pointing at the row (set eight):
    # a post's comments counted as every comment of its author
    ("forum", "post_view", "FROM comments c WHERE c.post_id = p.id", "FROM comments c WHERE c.user_id = p.user_id",
     "not by comments.post_id"),
    # words of a CASE over a number saying another branch's number (set eight): nonstop flights "1 stop"
    ("travel", "flight_view", "WHEN 0 THEN 'Nonstop' WHEN 1 THEN '1 stop'", "WHEN 0 THEN '1 stop' WHEN 1 THEN 'Nonstop'",
     "says '1 stop'"),
    # a value spelt unlike the data (set eight): canceled orders counted in the sales
    ("admin", "sales_month", "o.status != 'canceled'", "o.status != 'cancelled'", "'cancelled' (the data says"),
    # a join that repeats each order once per line, read by nothing (set eight): revenue counted per line
    ("admin", "revenue_month", "AND o.status != 'canceled' GROUP BY",
     "AND o.status != 'canceled' LEFT JOIN order_items i ON i.order_id = o.id GROUP BY", "count each row several"),
    # today written with last year (set eight): every booking of the coming year shown as upcoming
    ("travel", "booking_view", "WHEN f.date > vw_today()", "WHEN f.date > '2025-06-15'", "with another year"),
    # two columns then written alike: the repair rewrites the one named closed_issues, not the first
    ("code", "milestone_view", "i.state = 'closed') AS closed_issues", "i.state = 'open') AS closed_issues",
     "named for state = 'closed'"),
]


@pytest.mark.parametrize("domain, view, old, new, said", CASES, ids=[c[1] + ":" + c[4][:12] for c in CASES])
def test_a_view_figure_its_name_or_the_site_contradicts_is_found_and_fixed(
        clean: dict[str, Data], domain: str, view: str, old: str, new: str, said: str) -> None:
    data = clean[domain]
    if view == "stay_view":  # the swap touches both words: Upcoming under the future test, Completed last
        edited = _edited(data, view, "THEN 'Upcoming'", "THEN '@@'")
        edited = _edited(edited, view, "ELSE 'Completed'", "ELSE 'Upcoming'")
        edited = _edited(edited, view, "THEN '@@'", "THEN 'Completed'")
    else:
        edited = _edited(data, view, old, new)
    site = from_data(edited, check_id=False)
    number = [v.name for v in site.database.views].index(view)
    issues = [i for i in check_view_figures(site) if i.location == f"$.database.views[{number}].sql"]
    assert len(issues) == 1 and said in issues[0].message, issues
    assert issues[0].cls == "consistency" and issues[0].code == VIEW_FIGURE
    fixed, log, _, _, _ = repair_static(site)
    assert any(r.operator == "fix_view" for r in log)
    assert _view(to_data(fixed), view)["sql"] == _view(data, view)["sql"]
    assert not [i for i in static_issues(fixed) if i.code == VIEW_FIGURE]


@pytest.mark.parametrize("domain", ["shop", "forum", "code", "travel", "mail"])
def test_clean_sites_have_no_view_figure_issue(clean: dict[str, Data], domain: str) -> None:
    assert check_view_figures(from_data(clean[domain], check_id=False)) == []


TWINS = [
    # the quantity kept, only written the other way round
    ("shop", "cart_totals", "sum(c.qty * p.price)", "sum(p.price * c.qty)"),
    # a count over every project, on purpose: the view's own table is not what stars point at
    ("code", "label_view", "(SELECT count(*) FROM issue_labels il", "(SELECT count(*) FROM issue_labels il"),
    # a figure named for the value it counts, spelled with another word order
    ("code", "project_view", "AS open_issues", "AS issues_open"),
    # an unread count that tests the flag the other way and says so
    ("mail", "folder_view", "e.read = 0", "NOT e.read = 1"),
    # words with no direction to get wrong
    ("forum", "vote_view", "'You upvoted this post.' ELSE 'You downvoted this post.'",
     "'Your vote: +1' ELSE 'Your vote: -1'"),
    # a figure that adds what is taken off, named for the sum it is
    ("admin", "revenue_month", "sum(o.total - o.refunded), 0) AS net", "sum(o.total + o.refunded), 0) AS gross"),
    # numbers no other branch tests for: other words, not swapped ones
    ("travel", "flight_view", "WHEN 1 THEN '1 stop'", "WHEN 1 THEN 'One stop'"),
    # a fixed day that is not today with another year
    ("travel", "booking_view", "WHEN f.date > vw_today()", "WHEN f.date > '2025-06-16'"),
    # a key matched with the table it points at, written the other way round
    ("admin", "refund_view", "s.id = r.staff_id", "r.staff_id = s.id"),
    ("code", "label_view", "i.id = il.issue_id", "il.issue_id = i.id"),
]


@pytest.mark.parametrize("domain, view, old, new", TWINS, ids=[t[1] + ":" + t[3][:16] for t in TWINS])
def test_twin_edits_that_keep_the_figure_right_stay_clean(clean: dict[str, Data], domain: str, view: str, old: str,
                                                          new: str) -> None:
    assert check_view_figures(from_data(_edited(clean[domain], view, old, new), check_id=False)) == []


def _effect_found_and_fixed(data: Data, marker: str, old: str, new: str, said: str) -> tuple[Data, str]:
    """Edit ``old`` to ``new`` in an effect of ``marker``: one C013 on a marker saying ``said``, and the
    repair gives the effect back as it was. Returns the edited data and the effect's original SQL."""
    data = copy.deepcopy(data)
    data.pop("id", None)
    effect = next(e for m in data["markers"] if m["name"] == marker for e in m["effects"] if old in e["sql"])
    original = effect["sql"]
    effect["sql"] = original.replace(old, new)
    issues = [i for i in check_view_figures(from_data(data, check_id=False)) if i.location.startswith("$.markers[")]
    assert len(issues) == 1 and said in issues[0].message
    fixed, _, _, _, _ = repair_static(from_data(data, check_id=False))
    assert original in [e["sql"] for m in to_data(fixed)["markers"] if m["name"] == marker for e in m["effects"]]
    return data, original


def test_a_total_an_effect_sums_without_the_quantity_is_found_and_fixed(clean: dict[str, Data]) -> None:
    _effect_found_and_fixed(clean["shop"], "place_order", "sum(c.qty * p.price)", "sum(p.price)",
                            "leaves out the quantity")


def test_a_figure_named_for_another_value_needs_that_value_in_the_data(clean: dict[str, Data]) -> None:
    """A count named "archived_issues" that counts state = 'closed' says nothing wrong when no issue is
    ever "archived": the name is only read against values the column holds or is given."""
    edited = _edited(clean["code"], "label_view", "AS open_issues", "AS archived_issues")
    edited = _edited(edited, "label_view", "i.state = 'open'", "i.state = 'closed'")
    assert check_view_figures(from_data(edited, check_id=False)) == []


def test_a_date_stamped_when_the_state_becomes_another_is_found_and_fixed(clean: dict[str, Data]) -> None:
    data, original = _effect_found_and_fixed(clean["code"], "set_state", "WHEN 'closed' THEN :today",
                                             "WHEN 'open' THEN :today", "closed_on is named for state = 'closed'")
    # a twin: the stamp renamed to what it records stays clean
    effect = next(e for m in data["markers"] if m["name"] == "set_state" for e in m["effects"]
                  if "CASE :state" in e["sql"])
    effect["sql"] = original.replace("closed_on = CASE", "changed_on = CASE")
    assert not [i for i in check_view_figures(from_data(data, check_id=False)) if "changed_on" in i.message]


def test_a_flag_worded_backwards_and_a_toggle_that_says_its_action(clean: dict[str, Data]) -> None:
    site = generate_site("travel", 0)
    view = next(v for v in site.database.views if "THEN 'Breakfast included' ELSE 'Room only'" in v.sql)
    data = _edited(to_data(site), view.name, "THEN 'Breakfast included' ELSE 'Room only'",
                   "THEN 'Room only' ELSE 'Breakfast included'")
    issues = check_view_figures(from_data(data, check_id=False))
    assert len(issues) == 1 and "when breakfast is true" in issues[0].message
    fixed, _, _, _, _ = repair_static(from_data(data, check_id=False))
    assert _view(to_data(fixed), view.name)["sql"] == view.sql
    # a twin: a toggle's button says what pressing it does, the opposite of the state ("Mark unread")
    mail = clean["mail"]
    assert any("THEN 'Mark unread'" in v["sql"] for v in mail["database"]["views"])
    assert check_view_figures(from_data(mail, check_id=False)) == []


def test_a_count_named_for_a_value_it_never_tests(clean: dict[str, Data]) -> None:
    data = _edited(clean["code"], "label_view", " AND i.state = 'open'", "")
    issues = check_view_figures(from_data(data, check_id=False))
    assert len(issues) == 1 and "never tests state" in issues[0].message
    fixed, _, _, _, _ = repair_static(from_data(data, check_id=False))
    assert "i.state = 'open'" in _view(to_data(fixed), "label_view")["sql"]


def test_a_marker_named_for_one_value_that_picks_another(clean: dict[str, Data]) -> None:
    _effect_found_and_fixed(clean["mail"], "empty_trash", "kind = 'trash'", "kind = 'archive'",
                            "named for kind = 'trash'")


def test_an_effect_writing_a_value_spelt_unlike_the_data_is_respelt(clean: dict[str, Data]) -> None:
    """Cancelling writes 'cancelled' where every canceled order, report and guard says 'canceled': no
    page knows the state it writes. Writing a state some report does test stays clean."""
    edited, original = _effect_found_and_fixed(clean["admin"], "cancel_order", "'canceled'", "'cancelled'",
                                               "writes 'cancelled' (the data says 'canceled')")
    assert original == "UPDATE orders SET status = 'canceled' WHERE id = :order_id"
    twin = copy.deepcopy(clean["admin"])
    twin.pop("id", None)
    effect = next(e for m in twin["markers"] if m["name"] == "cancel_order" for e in m["effects"])
    effect["sql"] = effect["sql"].replace("'canceled'", "'refunded'")  # a state of its own, not a misspelling
    assert not [f for f in view_fixes(from_data(twin, check_id=False)) if "writes" in f.message]


def test_a_toggle_that_sets_one_value_is_made_to_flip(clean: dict[str, Data]) -> None:
    """``toggle_read`` writing ``read = 1`` every time (set eight): a second press cannot mark the message
    unread again. The repair flips the column as the unedited site does."""
    edited, original = _effect_found_and_fixed(clean["mail"], "toggle_read", "read = 1 - read", "read = 1",
                                               "named for toggling read")
    assert "read = 1 - read" in original


def test_a_marker_stamping_today_with_another_year_is_given_now(clean: dict[str, Data]) -> None:
    """A new post stamped '2025-06-15T09:00:00' on a site whose today is 2026-06-15 (set eight): the post
    is a year old the moment it is written. The repair stamps it with ``:now`` as the unedited site does."""
    _effect_found_and_fixed(clean["forum"], "create_post", ":body, :now, 1,", ":body, '2025-06-15T09:00:00', 1,",
                            "is today (2026-06-15) with another year")


def test_a_stamp_of_today_moved_back_is_today_again(clean: dict[str, Data]) -> None:
    """Closing an issue stamps ``closed_on`` a year before today (set eight): ``date(:today, '-1 year')``.
    The repair stamps today, as the unedited site does."""
    _effect_found_and_fixed(clean["code"], "set_state", "THEN :today END", "THEN date(:today, '-1 year') END",
                            "moved back")


@pytest.mark.parametrize(("domain", "marker", "old", "new"), [
    ("forum", "vote", "score = score + :value", "score = score + 2 * :value"),
    ("forum", "vote", "score = score + :value", "score = score + :value + :value"),
    ("travel", "book_flight", "seats = seats - :passengers", "seats = seats - :passengers * 2"),
])
def test_a_running_figure_moved_by_a_multiple_of_the_value_its_row_records(clean: dict[str, Data], domain: str,
                                                                          marker: str, old: str, new: str) -> None:
    """A vote adding twice its value to the post's score (set nine), or a booking taking twice its
    passengers' seats: the row records the value once, so the figure drifts from its rows. The repair
    moves it by the value once, as the unedited site does."""
    _effect_found_and_fixed(clean[domain], marker, old, new, "drifts from the rows it counts")


def test_a_running_figure_moved_by_a_value_the_marker_does_not_record_stays_clean(clean: dict[str, Data]) -> None:
    """Twins: moving a figure by a multiple of a value no row of the marker records (nothing says the
    figure counts it), and a figure moved by its recorded value once, are not reported."""
    data = copy.deepcopy(clean["forum"])
    data.pop("id", None)
    vote = next(m for m in data["markers"] if m["name"] == "vote")
    for effect in vote["effects"][1:]:  # the vote row records 1 whatever the value
        effect["sql"] = effect["sql"].replace(":user_id, :post_id, :value", ":user_id, :post_id, 1").replace(
            "SET value = :value", "SET value = 1")
    effect = vote["effects"][0]
    effect["sql"] = effect["sql"].replace("score = score + :value", "score = score + 2 * :value")
    assert not [f for f in view_fixes(from_data(data, check_id=False)) if "drifts" in f.message]
    assert not [f for f in view_fixes(from_data(clean["travel"], check_id=False)) if "drifts" in f.message]

"""Checks for defects of the tenth hand-made set and of set nine's last misses, each with twins that
must stay clean, and the repairs that fix them.

- a dashboard's "This month so far" reading last month's row (M015: a fixed filter its own words
  contradict);
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from veriweb.generate.site import generate_site
from veriweb.scaffold.io import from_data, to_data
from veriweb.verify.checks import EMPTY_FILTER, static_issues
from veriweb.verify.repair import repair_static

Data = dict[str, Any]


@pytest.fixture(scope="module")
def admin() -> Data:
    data = to_data(generate_site("admin", 0))
    data.pop("id", None)
    return data


def _this_month(data: Data) -> tuple[Data, str]:
    """The dashboard's record of this month's revenue, and its filter value's JSON path."""
    for p, page in enumerate(data["pages"]):
        for e, element in enumerate(page["elements"]):
            texts = " ".join(child.get("text", "") for child in element.get("elements", []))
            if element.get("type") == "record" and "This month" in texts:
                return element, f"$.pages[{p}].elements[{e}].query.where[0].value"
    raise AssertionError("no 'This month' record on the admin dashboard")


def test_this_month_reading_last_month_is_found_and_given_this_month(admin: Data) -> None:
    data = copy.deepcopy(admin)
    record, path = _this_month(data)
    assert record["query"]["where"][0]["value"] == "2026-06"  # the site's today is 2026-06-15
    record["query"]["where"][0]["value"] = "2026-05"
    issues = [i for i in static_issues(from_data(data, check_id=False)) if i.code == EMPTY_FILTER]
    assert [i.location for i in issues] == [path] and "This month" in issues[0].message
    fixed, log, _, left, _ = repair_static(from_data(data, check_id=False))
    assert not left and any(r.operator == "restate_period" for r in log)
    assert _this_month(to_data(fixed))[0]["query"]["where"][0]["value"] == "2026-06"


def test_a_period_its_words_name_stays_clean(admin: Data) -> None:
    """Twins: the unedited dashboard; "Last month" over last month's row; a record whose words name
    this month and last month both (which one a filter should read is not said)."""
    assert not [i for i in static_issues(from_data(admin, check_id=False)) if i.code == EMPTY_FILTER]
    data = copy.deepcopy(admin)
    record, _ = _this_month(data)
    record["query"]["where"][0]["value"] = "2026-05"
    record["elements"][0]["text"] = record["elements"][0]["text"].replace("This month so far", "Last month")
    assert not [i for i in static_issues(from_data(data, check_id=False)) if i.code == EMPTY_FILTER]
    record["elements"][0]["text"] += " Compare with this month."
    assert not [i for i in static_issues(from_data(data, check_id=False)) if i.code == EMPTY_FILTER]

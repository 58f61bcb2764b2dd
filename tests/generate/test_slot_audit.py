"""The stated-value audit: every value an instruction states is read by the judge, on generated sites,
and a goal that stops reading one is found."""

from __future__ import annotations

import pytest

from veriweb.engine import Session
from veriweb.generate.site import generate_site
from veriweb.generate.slot_audit import audit_site, audit_task, stated_slots
from veriweb.scaffold.io import from_data, to_data


@pytest.mark.parametrize("domain", ["shop", "admin", "forum", "code", "travel", "mail"])
def test_generated_judges_read_every_stated_value(domain: str) -> None:
    site = generate_site(domain, 1)
    judged = [f for f in audit_site(site) if f.judged]
    assert not judged, judged


def test_a_refund_goal_that_ignores_the_stated_reason_is_found() -> None:
    site = generate_site("admin", 1)
    index = next(i for i, t in enumerate(site.tasks) if t.id == "refund_line")
    assert "reason" in stated_slots(site.tasks[index])
    data = to_data(site)
    data.pop("id")
    where = data["tasks"][index]["goal"][0]["query"]["where"]
    data["tasks"][index]["goal"][0]["query"]["where"] = [c for c in where if c["column"] != "reason"]
    weak = from_data(data)
    session = Session(weak)
    try:
        found = audit_task(weak, weak.tasks[index], session)
    finally:
        session.close()
    assert {(f.kind, f.name) for f in found} == {("unread slot", "reason"), ("unread write", "refunds.reason")}
    assert all(f.judged for f in found)

"""M007's added forms: drop-downs for keys, values from the record, the address and the account."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from veriweb.generate.site import generate_site
from veriweb.scaffold import Site
from veriweb.scaffold.io import from_data, to_data
from veriweb.verify.checks import static_issues
from veriweb.verify.feasibility import verify_task
from veriweb.verify.form_fields import key_table, name_column, query_params
from veriweb.verify.repair import repair_static
from veriweb.verify.repair_links import json_dicts

BUDGET = 2_000


def first_site_with(domain: str, *task_ids: str, seeds: range = range(40)) -> Site:
    for seed in seeds:
        site = generate_site(domain, seed)
        if all(any(t.id == wanted for t in site.tasks) for wanted in task_ids):
            return site
    raise AssertionError(f"no {domain} site of seeds {seeds} has tasks {task_ids}")


def without_forms(site: Site, marker: str) -> Site:
    """The site with every form posting to ``marker`` replaced by a text saying its label (what a
    one-pass author leaves when it forgets the control)."""
    data = copy.deepcopy(to_data(site))
    data.pop("id", None)
    for node in json_dicts(data):
        action = node.get("action")
        if node.get("type") == "form" and isinstance(action, dict) and action.get("marker") == marker:
            words = node.get("label") or node.get("submit") or "Form"
            node.clear()
            node.update(type="text", text=words)
    return from_data(data, check_id=False)


def forms_of(data: dict[str, Any], marker: str) -> dict[str, dict[str, Any]]:
    """Page id -> the form posting to ``marker`` on it."""
    out = {}
    for page in data["pages"]:
        for node in json_dicts(page.get("elements", [])):
            if node.get("type") == "form" and node.get("action", {}).get("marker") == marker:
                out[page["id"]] = node
    return out


@pytest.fixture(scope="module")
def mail() -> Site:
    """A mail site with reply and forward tasks whose forward page picks the recipient from the
    contacts (a navigate form that reloads the page with ``?to=``)."""
    for seed in range(40):
        site = generate_site("mail", seed)
        data = to_data(site)
        forward = next((p for p in data["pages"] if p["id"] == "forward"), None)
        if ({"reply", "forward"} <= {t.id for t in site.tasks} and forward is not None
                and "to" in query_params(data, forward)):
            return site
    raise AssertionError("no mail site of seeds 0-39 has a forward page with a contacts picker")


@pytest.fixture(scope="module")
def code() -> Site:
    return first_site_with("code", "create_issue")


def test_a_send_form_goes_on_every_page_a_task_needs_it(mail: Site) -> None:
    site = without_forms(mail, "send_email")
    assert {"reply", "forward"} <= {i.message.split("'")[1] for i in static_issues(site) if i.code == "M007"}
    fixed, log, _, left, _ = repair_static(site)
    assert [i for i in left if i.code == "M007"] == []
    forms = forms_of(to_data(fixed), "send_email")
    assert {"reply", "forward"} <= set(forms), sorted(forms)
    reply, forward = forms["reply"], forms["forward"]
    starts = {f["name"]: f.get("value") for f in reply["fields"]}
    assert starts["to"] == {"ref": "row.sender"}  # a reply goes back to whoever sent the message
    assert starts["subject"] == {"ref": "row.reply_subject"}
    assert reply["action"]["args"]["reply_to"] == {"ref": "row.id"}  # the record itself, no field
    assert "reply_to" not in starts
    starts = {f["name"]: f.get("value") for f in forward["fields"]}
    assert starts["to"] == {"ref": "query.to"}  # the contacts picker reloads the page with ?to=
    assert starts["subject"] == {"ref": "row.forward_subject"}
    for task_id in ("reply", "forward"):
        verdict = verify_task(fixed, fixed.task(task_id), budget=BUDGET)
        assert verdict.status == "certified", (task_id, verdict.proof)


def test_a_key_parameter_is_a_drop_down_of_the_records_it_names(code: Site) -> None:
    site = without_forms(code, "create_issue")
    fixed, _, _, left, _ = repair_static(site)
    assert [i for i in left if i.code == "M007"] == []
    forms = forms_of(to_data(fixed), "create_issue")
    assert len(forms) == 1
    page_id, form = next(iter(forms.items()))
    fields = {f["name"]: f for f in form["fields"]}
    for name, table in (("assignee_id", "users"), ("label_id", "labels"), ("milestone_id", "milestones")):
        assert fields[name]["type"] == "select", name
        assert fields[name]["options_query"]["query"]["table"] == table
        assert fields[name]["options"] == [{"value": "", "label": "-"}]  # optional: a blank choice
    # only this project's milestones: another project's "2026 Q1" would be the wrong one
    assert fields["milestone_id"]["options_query"]["query"]["where"] == [
        {"column": "project_id", "value": {"ref": "row.id"}}]
    assert "where" not in fields["label_id"]["options_query"]["query"]
    verdict = verify_task(fixed, fixed.task("create_issue"), budget=BUDGET)
    assert verdict.status == "certified", verdict.proof


def test_key_table_and_name_column(code: Site) -> None:
    data = to_data(code)
    marker = next(m for m in data["markers"] if m["name"] == "create_issue")
    assert key_table(data, marker, "assignee_id")["name"] == "users"  # by the foreign key, not the word
    assert key_table(data, marker, "label_id")["name"] == "labels"
    assert key_table(data, marker, "title") is None
    labels = key_table(data, marker, "label_id")
    assert name_column(labels) == "name"


def test_query_params_are_read_from_links_and_navigate_forms(mail: Site) -> None:
    data = to_data(mail)
    forward = next(p for p in data["pages"] if p["id"] == "forward")
    assert "to" in query_params(data, forward)
    home = next(p for p in data["pages"] if p["route"] == "/")
    assert "to" not in query_params(data, home)

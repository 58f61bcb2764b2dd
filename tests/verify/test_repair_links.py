"""Linking an orphan record page from the rows of other tables that name its record (S002)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from veriweb.generate.site import generate_site
from veriweb.scaffold.io import from_data, to_data
from veriweb.verify.checks import static_issues
from veriweb.verify.repair import repair_static
from veriweb.verify.repair_links import link_by_values


def _links(node: Any, prefix: str, path: str = "$") -> list[tuple[str, dict[str, Any]]]:
    out = []
    if isinstance(node, dict):
        if node.get("type") == "link" and str(node.get("href", "")).startswith(prefix):
            out.append((path, node))
        for key, value in node.items():
            out += _links(value, prefix, f"{path}.{key}")
    elif isinstance(node, list):
        for n, value in enumerate(node):
            out += _links(value, prefix, f"{path}[{n}]")
    return out


def _unlink(data: dict[str, Any], page_id: str) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """Every link to a record page written as plain text, as an author who forgot them would."""
    page = next(p for p in data["pages"] if p["id"] == page_id)
    prefix = page["route"].split("{")[0]
    was = []
    for path, link in _links(data, prefix):
        if link["href"].count("/") == page["route"].count("/"):
            was.append((path, link["href"]))
            text = link["text"]
            link.clear()
            link.update(type="text", text=text)
    return page, was


@pytest.mark.parametrize(("domain", "seed", "page_id"), [("forum", 1, "profile"), ("code", 1, "project")])
def test_orphan_record_page_is_linked_where_it_was(domain: str, seed: int, page_id: str) -> None:
    site = generate_site(domain, seed)
    data = copy.deepcopy(to_data(site))
    data.pop("id", None)
    page, was = _unlink(data, page_id)
    assert was, f"{domain} {seed} has no links to {page_id!r} to remove"
    broken = from_data(data, check_id=False)
    assert any(i.code == "S002" for i in static_issues(broken))
    fixed, log, _, left, _ = repair_static(broken)
    assert left == []
    assert any(r.code == "S002" and r.operator == "link_orphan" for r in log), log
    prefix = page["route"].split("{")[0]
    now = {(p, link["href"]) for p, link in _links(to_data(fixed), prefix)
           if link["href"].count("/") == page["route"].count("/")}
    assert now, "the page is still linked from nowhere"
    assert now <= set(was), f"links the clean site does not have: {now - set(was)}"


def test_numbers_that_merely_fit_are_not_links() -> None:
    """A numeric column whose values happen to be project ids (a count, a score) does not become a
    link: for numbers only a column named for the key counts."""
    data = copy.deepcopy(to_data(generate_site("code", 1)))
    page, _ = _unlink(data, "project")
    source = next(e for e in page["elements"] if e.get("type") == "record")["query"]["table"]
    keys = sorted(r["id"] for r in next(t for t in data["database"]["tables"] if t["name"] == "projects")["rows"])
    data["database"]["tables"].append({"name": "scores", "primary_key": "id",
                                       "columns": [{"name": "points", "type": "integer"}],
                                       "rows": [{"id": n + 1, "points": k} for n, k in enumerate(keys)]})
    data["pages"].append({"id": "scores", "route": "/scores", "title": "Scores", "elements": [
        {"type": "list", "name": "scores", "query": {"table": "scores"},
         "item": [{"type": "text", "text": "{row.points}"}]}]})
    count, touched = link_by_values(data, page, source, "id", "{id:int}")
    assert "scores" not in touched
    assert data["pages"][-1]["elements"][0]["item"][0]["type"] == "text"
    assert count >= 1  # the rows named for the key (an issue's project) still are

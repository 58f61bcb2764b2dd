"""Where M007's repair puts a missing form: where the site's own author had it, most of the time."""

from __future__ import annotations

import copy
import functools
from typing import Any

import pytest

from veriweb.generate.site import generate_site
from veriweb.scaffold.io import from_data, to_data
from veriweb.verify.repair import repair_static

DOMAINS = ("shop", "admin", "forum", "code", "travel", "mail")


def _forms(data: dict[str, Any], marker: str) -> list[tuple[str, list[Any]]]:
    found = []
    for page in data["pages"]:
        def visit(node: Any, path: list[Any]) -> None:
            if isinstance(node, dict):
                if node.get("type") == "form" and node.get("action", {}).get("marker") == marker:
                    found.append((page["id"], path))
                for key, value in node.items():
                    visit(value, path + [key])
            elif isinstance(node, list):
                for n, value in enumerate(node):
                    visit(value, path + [n])
        visit(page, [])
    return found


@functools.lru_cache(maxsize=None)
def _placements(domain: str, seed: int) -> list[tuple[str, str, set[str]]]:
    """For each marker a mutate task needs: remove its forms (as the raw author's missing control
    does, leaving their label as text), repair, and say where the new form went."""
    clean = to_data(generate_site(domain, seed))
    out = []
    for marker in clean["markers"]:
        where = _forms(clean, marker["name"])
        tables = {e["table"] for e in marker["effects"]}
        if not where or not any(e["table"] in tables for t in clean["tasks"] if t["kind"] == "mutate"
                                for e in t.get("footprint", [])):
            continue
        data = copy.deepcopy(clean)
        data.pop("id", None)
        for page_id, path in where:
            node = next(p for p in data["pages"] if p["id"] == page_id)
            for key in path[:-1]:
                node = node[key]
            form = node[path[-1]]
            node[path[-1]] = {"type": "text", "text": form.get("label") or form.get("submit")}
        _, log, _, _, _ = repair_static(from_data(data, check_id=False))
        placed = [r.change.split("on page '")[1].rstrip("'") for r in log if r.operator == "add_control"]
        if placed:
            out.append((marker["name"], placed[0], {p for p, _ in where}))
    return out


@pytest.mark.parametrize(("domain", "marker", "page"), [
    ("code", "comment", "issue"), ("code", "create_issue", "new_issue"), ("admin", "set_customer_group", "customer"),
])
def test_a_keyed_form_goes_on_its_own_records_page(domain: str, marker: str, page: str) -> None:
    """Not on a page whose view merely mentions the table (a project page counting its issues)."""
    found = {m: placed for m, placed, _ in _placements(domain, 1)}
    assert found.get(marker) == page, found


def test_most_forms_go_where_the_author_had_them() -> None:
    rows = [row for domain in DOMAINS for row in _placements(domain, 1)]
    right = sum(placed in pages for _, placed, pages in rows)
    assert len(rows) >= 15
    assert right / len(rows) >= 0.8, [r for r in rows if r[1] not in r[2]]

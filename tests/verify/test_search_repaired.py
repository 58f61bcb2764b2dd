"""The search on forms a repair adds: fields with no value and none marked required."""

from __future__ import annotations

from typing import Any

from veriweb.engine import Episode
from veriweb.generate.site import generate_site
from veriweb.scaffold import Site
from veriweb.verify import solve
from veriweb.verify.relevance import Hints


def _bare_checkout(site: Site) -> Site:
    """The site with its checkout form as a repair's added control has it: every field empty and
    optional (the marker still requires the name, the address and the town)."""
    data: dict[str, Any] = site.model_dump()
    for page in data["pages"]:
        if page["id"] != "checkout":
            continue
        for element in page["elements"]:
            if element.get("type") == "form":
                for form_field in element["fields"]:
                    form_field["required"] = False
                    form_field["value"] = None
    return Site.model_validate(data)


def test_search_fills_a_field_its_marker_requires_though_the_form_does_not() -> None:
    site = _bare_checkout(generate_site("shop", 1))
    task = site.task("checkout_cart")
    assert task is not None
    fields = [f for p in site.pages if p.id == "checkout" for e in p.elements if getattr(e, "type", "") == "form"
              for f in e.fields]
    assert fields and not any(f.required or f.value is not None for f in fields)
    result = solve(site, task.model_copy(update={"certificate": []}), budget=2_000)
    assert result.status == "solved", result.reason
    episode = Episode(site, task)
    episode.reset()
    outcome = None
    for action in result.actions:
        outcome = episode.step(action)
    assert outcome is not None and outcome.success
    # The order's name was typed in (the page no longer fills it in), and it is not the password.
    login = Hints.build(site, task, episode.session).login
    assert login is not None
    name = episode.session.db.conn.execute("SELECT name FROM orders ORDER BY id DESC LIMIT 1").fetchone()[0]
    assert name and name != login[1]

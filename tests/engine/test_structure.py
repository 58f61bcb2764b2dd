"""A step reads only the page's structure, and a page's id and parameters come from its address.

:meth:`Session.step` finds its target on the page without field edits when the page with them is
not made yet, and the judge keys page predicates by :meth:`Session.page_key` (the route the
address matches) instead of building the page: both must give what the built page gives.
"""

from __future__ import annotations

import random

import pytest

from veriweb.engine import Session
from veriweb.generate.site import available_domains, generate_site

_VALUES = ["red", "2", "alice", "alice-pass-42", "", "2026-06-17"]


def _choose(session: Session, rng: random.Random) -> str:
    """A random action on the current page, most often on a form field (so edits pile up)."""
    page = session.page()
    nodes = [n for n in page.nodes if n.interactable and not page.blocked(n)]
    fields = [n for n in nodes if n.role in ("textbox", "date", "combobox", "checkbox", "radio")]
    node = rng.choice(fields if fields and rng.random() < 0.7 else nodes)
    if node.editable:
        return f"fill('{node.bid}', '{rng.choice(_VALUES)}')"
    if node.role == "combobox" and node.children:
        return f"select_option('{node.bid}', '{rng.choice(node.children).name}')"
    if node.role == "checkbox" and rng.random() < 0.3:
        return f"dblclick('{node.bid}')"
    if node.role in ("textbox", "date") and rng.random() < 0.2:
        return f"press('{node.bid}', 'Enter')"
    return f"click('{node.bid}')"


@pytest.mark.parametrize("domain", available_domains())
def test_steps_that_never_ask_for_the_page_match_steps_that_do(domain: str) -> None:
    """The same actions, once with the page made after every step and once never between steps (on
    another site object, so no page is shared): the same errors, messages, UI state and database."""
    watched = Session(generate_site(domain, 0))
    blind = Session(generate_site(domain, 0))
    rng = random.Random(7)
    user = next(iter(sorted(t.user for t in watched.site.tasks if t.user)), None)
    edited = 0
    for number in range(90):
        if number % 30 == 0:
            watched.reset("/", user=user)
            blind.reset("/", user=user)
        action = _choose(watched, rng)
        one, two = watched.step(action), blind.step(action)
        watched.page()  # made after every step on one side only
        assert (one.error, one.message, one.marker is None) == (two.error, two.message, two.marker is None), action
        assert watched.ui.as_dict() == blind.ui.as_dict(), action
        assert watched.version == blind.version, action
        edited += bool(watched.ui.fields)
    assert edited > 10  # the walk did act on pages with field edits
    assert watched.db.state_hash() == blind.db.state_hash()
    assert blind.page().nodes and [n.value for n in blind.page().nodes] == [n.value for n in watched.page().nodes]


@pytest.mark.parametrize("domain", available_domains())
def test_the_page_key_is_the_built_pages_id_and_parameters(domain: str) -> None:
    session = Session(generate_site(domain, 1))
    rng = random.Random(3)
    urls = ["/", "/no-such-page", "/no/such/page/42"]
    seen = set()
    for number in range(60):
        if number % 20 == 0:
            session.reset(urls[(number // 20) % len(urls)])
        page = session.page()
        assert session.page_key() == (page.page_id, tuple(sorted(page.params.items()))), page.url
        assert session.on_page(page.page_id, page.params)
        assert not session.on_page(page.page_id + "-other", page.params)
        seen.add(page.page_id)
        session.step(_choose(session, rng))
    assert "" in seen and len(seen) > 3  # the walk saw a page no route matches and several that match

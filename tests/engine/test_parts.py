"""Memoised layout parts: a copied header or footer is exactly what building it gives."""

from __future__ import annotations

import random
from typing import Any

import pytest

from veriweb.engine import Session, axtree_text, element_list, html_page
from veriweb.engine.page import PageModel
from veriweb.engine.parts import part_memo
from veriweb.engine.query import Context
from veriweb.generate.site import generate_site
from veriweb.scaffold import Site

DOMAINS = ("shop", "admin", "forum", "code", "travel", "mail")


def _picture(page: PageModel) -> tuple[Any, ...]:
    """Everything a page model shows or acts with: renderings, internals of every node, and its forms."""
    nodes = [(n.bid, n.key, n.depth, n.visible, n.focused, n.behaviour, n.tag, n.input_type,
              n.parent.key if n.parent is not None else None, [c.key for c in n.children]) for n in page.nodes]
    forms = [(key, info.form.label, info.fields, info.defaults, info.options, dict(info.ctx.row or {}),
              dict(info.ctx.param), dict(info.ctx.query)) for key, info in page.forms.items()]
    return (axtree_text(page), html_page(page), repr(element_list(page)), nodes, forms,
            page.modal.bid if page.modal is not None else None)


def _walk(cached: Session, fresh: Session, seed: int, steps: int) -> int:
    """A seeded random walk on two sessions of one site; asserts they show the same pages. Returns the
    number of distinct pages seen."""
    rng = random.Random(seed)
    seen = set()
    for number in range(steps):
        if number % 30 == 0:
            for session in (cached, fresh):
                session.reset("/")
        page = cached.page()
        nodes = [n for n in page.nodes if n.interactable and not page.blocked(n)]
        node = rng.choice(nodes)
        if node.editable:
            action = f"fill('{node.bid}', '{rng.choice(['red', '2', 'alice', ''])}')"
        elif node.role == "combobox":
            action = f"select_option('{node.bid}', '{rng.choice(node.children).name}')"
        elif rng.random() < 0.05:
            action = f"goto('{rng.choice(['/', '/nowhere', '/search?q=red', '/search?q=blue'])}')"
        else:
            action = f"click('{node.bid}')"
        first, second = cached.step(action), fresh.step(action)
        assert first.error == second.error, action
        built, afresh = cached.page(), fresh.page()
        assert _picture(built) == _picture(afresh), (number, action, built.url)
        seen.add(built.url)
    return len(seen)


@pytest.mark.parametrize("domain", DOMAINS)
def test_copied_layout_parts_equal_fresh_builds(domain: str) -> None:
    site = generate_site(domain, 0)
    cached, fresh = Session(site), Session(site, cache=False)
    pages = _walk(cached, fresh, seed=5, steps=240)
    table = cached.cache.memo("page_parts")
    plans = sum(len(plans) for _, entries in table.values() for _, plans in entries)
    assert table, "the header and footer were never memoised"
    assert plans < pages, f"{plans} plans for {pages} pages: the parts were rebuilt, not copied"


def test_a_layout_reading_the_address_gets_one_plan_per_value(shop: Site) -> None:
    """The example shop's header has a search box whose value is ``query.q``: two searches show
    their own words, each equal to a fresh build, and a third visit copies a plan."""
    cached, fresh = Session(shop), Session(shop, cache=False)
    for url in ("/search?q=red", "/search?q=blue", "/?q=red", "/search?q=red&page=2"):
        for session in (cached, fresh):
            session.reset(url)
        assert _picture(cached.page()) == _picture(fresh.page()), url
    boxes = [n.value for n in cached.page().nodes if n.key.startswith("h.") and n.role == "textbox"]
    if boxes:  # the example shop's layout has a search box
        assert boxes[0] == "red"


def test_forms_of_copied_parts_keep_the_page_context(shop: Site) -> None:
    session = Session(shop)
    session.reset("/")
    session.page()
    session.reset("/cart")  # a second page: its header comes from the plan
    page = session.page()
    for key, info in page.forms.items():
        assert type(info.ctx) is Context
        assert all(type(getattr(info.ctx, space)) is dict for space in ("param", "query", "user", "clock")), key


def test_no_memo_without_the_cache_or_with_field_edits(shop: Site) -> None:
    from veriweb.engine.page import PageBuilder, UIView
    from veriweb.engine.templates import Url

    session = Session(shop)
    view = UIView(url=Url.parse("/"), fields={}, widgets={}, focus=None, flash=None, confirm=None)
    assert part_memo(PageBuilder(session, view)) is not None
    assert part_memo(PageBuilder(Session(shop, cache=False), view)) is None
    edited = UIView(url=Url.parse("/"), fields={"x": "1"}, widgets={}, focus=None, flash=None, confirm=None)
    assert part_memo(PageBuilder(session, edited)) is None

    class Recording(PageBuilder):
        pass

    assert part_memo(Recording(session, view)) is None

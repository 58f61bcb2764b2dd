"""The three renderings of a page model agree with each other."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from veriweb.engine import Episode, PageModel, axtree_text, element_list, html_page
from veriweb.engine.render import ELEMENT_FIELDS
from veriweb.scaffold import Site


class _Bids(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, bool]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if "data-bid" in values:
            self.found.append((values["data-bid"] or "", "hidden" in values))


def visited_pages(shop: Site) -> list[PageModel]:
    pages = []
    for task in shop.tasks:
        episode = Episode(shop, task, end_on_success=False)
        pages.append(episode.reset())
        for action in task.certificate:
            outcome = episode.step(action)
            pages.append(outcome.page)
            if outcome.terminated:
                break
    return pages


@pytest.fixture(scope="module")
def pages(shop: Site) -> list[PageModel]:
    return visited_pages(shop)


def test_element_list_is_complete_and_free_of_engine_internals(pages: list[PageModel]) -> None:
    for page in pages:
        elements = element_list(page)
        assert [e["bid"] for e in elements] == [str(i) for i in range(1, len(elements) + 1)]
        by_bid = {e["bid"]: e for e in elements}
        for entry in elements:
            assert tuple(entry) == ELEMENT_FIELDS
            if entry["parent"]:
                parent = by_bid[entry["parent"]]
                assert entry["depth"] == parent["depth"] + 1
                assert parent["visible"] or not entry["visible"]
            else:
                assert entry["depth"] == 1


def test_axtree_text_lists_exactly_the_visible_elements(pages: list[PageModel]) -> None:
    for page in pages:
        lines = axtree_text(page).split("\n")
        assert lines[0].startswith("RootWebArea ")
        shown = [line.strip().split("]")[0].lstrip("[") for line in lines[1:]]
        visible = [e for e in element_list(page) if e["visible"]]
        assert shown == [e["bid"] for e in visible]
        for line, entry in zip(lines[1:], visible):
            assert line.startswith("\t" * entry["depth"] + f"[{entry['bid']}] {entry['role']} ")


def test_html_carries_every_bid_in_order_with_hidden_flags(pages: list[PageModel]) -> None:
    for page in pages:
        parser = _Bids()
        parser.feed(html_page(page))
        expected = [(e["bid"], not e["visible"]) for e in element_list(page)]
        assert parser.found == expected, page.url


def test_renderings_show_field_values(pages: list[PageModel]) -> None:
    filled = [p for p in pages if any(n.role == "textbox" and n.value for n in p.nodes)]
    assert filled
    for page in filled:
        html = html_page(page)
        for node in page.nodes:
            if node.role == "textbox" and node.value and node.input_type != "textarea":
                assert f'value="{node.value}"' in html

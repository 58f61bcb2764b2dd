"""Every action of the grammar works in Chromium on valid targets, and leaves the page the engine shows."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from veriweb.browser.axtree import diff, engine_view
from veriweb.browser.driver import BrowserDriver
from veriweb.cli import example_path
from veriweb.client import Client
from veriweb.engine import Session
from veriweb.scaffold import Site, from_data
from veriweb.server import Catalog, create_app
from veriweb.server.loopback import LoopbackServer

SITE = "threadline"

# Carol, logged in, starting at the home page (the add_to_cart task's start).
WIDGETS_AND_KEYS = [
    "goto('/product/3')", "hover('13')", "scroll(0, 300)", "click('7')", "press('7', 'Escape')", "dblclick('7')",
    "press('19', 'Enter')", "press('18', ' ')", "click('19')", "select_option('26', 'M')", "fill('31', '3')",
    "press('31', 'Backspace')", "press('31', '4')", "clear('31')", "fill('31', '2')", "focus('32')",
    "press('32', 'Tab')", "press('50', 'Shift+Tab')", "click('20')", "check('44')", "fill('46', 'Nice')",
    "press('46', 'Enter')", "press('46', 'x')", "click('47')", "go_back()", "go_forward()", "goto('/about')",
    "click('15')", "press('18', 'Escape')", "click('15')", "click('18')", "goto('/')", "fill('16', 'shirt')",
    "press('16', 'Enter')", "click('4', button='right')", "goto('/about')", "check('20')", "uncheck('20')",
    "press('20', ' ')", "click('20')", "fill('21', 'red')", "click('22')", "noop()",
]

# Bob cancels an order: a collapsible, a confirmation dialog dismissed by Escape, then by Cancel, then confirmed.
CONFIRMATION = [
    "goto('/orders/5')", "click('42')", "click('46')", "press('51', 'Escape')", "click('46')", "click('52')",
    "click('46')", "click('51')", "goto('/orders')",
]


def site_with_a_checkbox() -> Site:
    """The example site with one more form on its about page: a checkbox and a text field."""
    data = json.loads(example_path().read_text(encoding="utf-8"))
    data.pop("id", None)
    about = next(page for page in data["pages"] if page["route"] == "/about")
    about["elements"].append({
        "type": "form", "label": "Newsletter", "submit": "Subscribe",
        "action": {"kind": "navigate", "route": "/about"},
        "fields": [{"type": "checkbox", "name": "weekly", "label": "Weekly"},
                   {"type": "textbox", "name": "topic", "label": "Topic"}],
    })
    return from_data(data)


@pytest.fixture(scope="module")
def served(chromium: Any) -> Iterator[tuple[Site, BrowserDriver]]:
    site = site_with_a_checkbox()
    with LoopbackServer(create_app(Catalog.of([site]), task_picker=False)) as server, \
            Client(server.url, server.token) as api:
        context = chromium.new_context()
        yield site, BrowserDriver(context, server.url, api)
        context.close()


@pytest.mark.parametrize("task,actions", [("add_to_cart", WIDGETS_AND_KEYS), ("cancel_recent_order", CONFIRMATION)],
                         ids=["widgets-and-keys", "confirmation"])
def test_every_action_matches_the_engine_in_chromium(served: tuple[Site, BrowserDriver], task: str,
                                                     actions: list[str]) -> None:
    site, driver = served
    found = site.task(task)
    assert found is not None
    session = Session(site)
    session.reset(found.start_url, user=found.user)
    driver.reset(SITE, task)
    problems = diff(engine_view(session.page()), driver.tree())
    for action in actions:
        result = session.step(action)
        acted = driver.act(action)
        if acted.error and not result.error:
            problems.append(f"{action}: the browser refused it: {acted.error}")
        problems.extend(f"{action} on {session.page().url}: {line}" for line in diff(engine_view(session.page()),
                                                                                     driver.tree()))
    assert driver.sid is not None
    assert driver.client.state(driver.sid)["db_hash"] == session.db.state_hash()
    assert not problems, "\n".join(problems)


def test_a_click_behind_a_modal_dialog_does_nothing(served: tuple[Site, BrowserDriver]) -> None:
    site, driver = served
    session = Session(site)
    session.reset("/", user="carol")
    driver.reset(SITE, "add_to_cart")
    for action in ("goto('/about')", "click('15')", "click('5')"):
        engine = session.step(action)
        driver.act(action)
    assert engine.error and "dialog" in engine.error
    assert driver.page.url.endswith("/about")
    assert diff(engine_view(session.page()), driver.tree()) == []

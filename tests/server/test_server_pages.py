"""Site pages over HTTP: the engine's HTML, real links and forms without JavaScript, per-cookie sessions."""

from __future__ import annotations

import json
import re

import httpx
import pytest

from veriweb.engine import Session, html_page
from veriweb.server import Catalog, create_app
from veriweb.server.html import widget_script

pytestmark = pytest.mark.anyio
SITE = "threadline"


def opened(html: str, toggle: str) -> str:
    """The widget state the script posts once the toggle labelled ``toggle`` was clicked open."""
    key = re.findall(rf'data-vw-widget="([^"]+)"[^>]*>{re.escape(toggle)}<', html)[0]
    return json.dumps({key: True})


async def test_index_lists_every_site_and_its_tasks(http: httpx.AsyncClient) -> None:
    response = await http.get("/")
    assert response.status_code == 200
    assert f'href="/s/{SITE}/"' in response.text
    assert "Add 2 of the Red Flannel Shirt in size L to your cart." in response.text
    assert f'action="/_start/{SITE}/add_to_cart"' in response.text


async def test_many_sites_share_one_server_under_their_own_paths() -> None:
    from veriweb.cli import load_site

    app = create_app(Catalog.of([load_site(None), load_site(None)]), token="t", task_picker=False)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as http:
        index = (await http.get("/")).text
        assert '/s/threadline/"' in index and '/s/threadline-2/"' in index
        assert "Start</button>" not in index  # no task picker for agents
        second = await http.get("/s/threadline-2/about")
        assert second.status_code == 200 and 'href="/s/threadline-2/' in second.text
        assert (await http.post("/_start/threadline/add_to_cart")).status_code == 404


async def test_a_page_is_the_engine_html_with_working_links_and_forms(http: httpx.AsyncClient, shop) -> None:
    response = await http.get(f"/s/{SITE}/")
    assert response.status_code == 200
    assert response.headers["cache-control"] == "no-store"
    assert "script-src 'sha256-" in response.headers["content-security-policy"]
    session = Session(shop)
    engine_bids = re.findall(r'data-bid="(\d+)"', html_page(session.page()))
    assert re.findall(r'data-bid="(\d+)"', response.text) == engine_bids
    assert f'<a data-bid="5" href="/s/{SITE}/cart"' in response.text
    assert f'method="post" action="/s/{SITE}/"' in response.text
    assert 'name="q"' in response.text and 'name="_vw_form"' in response.text
    assert widget_script() in response.text


async def test_a_search_form_works_without_javascript(http: httpx.AsyncClient, NoScriptBrowser) -> None:
    browser = await NoScriptBrowser(http).get(f"/s/{SITE}/")
    response = await browser.submit("Search", {"q": "flannel"})
    assert response.status_code == 303
    assert browser.url == f"/s/{SITE}/search?q=flannel"
    assert "Red Flannel Shirt" in browser.html and "Linen Summer Shirt" not in browser.html


async def test_a_task_done_by_hand_shows_as_success_in_the_progress_endpoint(http: httpx.AsyncClient, NoScriptBrowser, auth) -> None:
    browser = NoScriptBrowser(http)
    await browser.get("/")
    response = await http.post(f"/_start/{SITE}/add_to_cart")
    assert response.status_code == 303
    await browser.get(response.headers["location"])
    sid = http.cookies["vw_session"]
    assert "Log in" in browser.html
    await browser.submit("Search", {"q": "Red Flannel Shirt"})
    await browser.click("Red Flannel Shirt")
    assert browser.url == f"/s/{SITE}/product/3"
    tabs = re.findall(r'data-vw-tabs="([^"]+)" data-vw-index="1"', browser.html)[0]
    # the Options tab holds the form: open it as the widget script would, then submit
    await browser.submit("Add to cart", {"size": "L", "qty": "2", "_vw_widgets": json.dumps({tabs: 1})})
    progress = (await http.get(f"/api/sessions/{sid}/progress", headers=auth)).json()
    assert progress["task"] == "add_to_cart"
    assert progress["success"] is True and progress["done"] == progress["total"] == 2
    listing = (await http.get("/api/sessions", headers=auth)).json()["sessions"]
    assert listing[0]["progress"]["success"] is True
    index = (await http.get("/")).text
    assert "SUCCESS" in index


async def test_login_redirects_back_and_a_failed_login_keeps_the_form(http: httpx.AsyncClient, NoScriptBrowser) -> None:
    browser = await NoScriptBrowser(http).get(f"/s/{SITE}/orders")
    assert browser.url.startswith(f"/s/{SITE}/login?next=")
    await browser.submit("Log in", {"username": "bob", "password": "wrong"})
    assert "Invalid username or password." in browser.html
    assert 'value="bob"' in browser.html
    await browser.submit("Log in", {"username": "bob", "password": "hunter2-bob"})
    assert browser.url == f"/s/{SITE}/orders"
    assert "You are logged in." in browser.html


async def test_a_confirmation_dialog_works_without_javascript(http: httpx.AsyncClient, NoScriptBrowser, auth) -> None:
    start = await http.post(f"/_start/{SITE}/cancel_recent_order")
    browser = await NoScriptBrowser(http).get(start.headers["location"])
    await browser.click("Orders")
    await browser.click("Order #5")
    await browser.submit("Cancel this order", {"_vw_widgets": opened(browser.html, "Need to cancel?")})
    assert "Yes, cancel it" in browser.html and " data-vw-confirm=" in browser.html
    await browser.submit("Yes, cancel it")
    sid = http.cookies["vw_session"]
    assert (await http.get(f"/api/sessions/{sid}/progress", headers=auth)).json()["success"] is True


async def test_cancelling_a_confirmation_writes_nothing(http: httpx.AsyncClient, NoScriptBrowser, auth) -> None:
    start = await http.post(f"/_start/{SITE}/cancel_recent_order")
    browser = await NoScriptBrowser(http).get(start.headers["location"])
    sid = http.cookies["vw_session"]
    before = (await http.get(f"/api/sessions/{sid}/state", headers=auth)).json()["db_hash"]
    await browser.click("Orders")
    await browser.click("Order #5")
    await browser.submit("Cancel this order", {"_vw_widgets": opened(browser.html, "Need to cancel?")})
    cancel = re.findall(r'value="\d+" form="vwf-\d+"[^>]*>([^<]+)<', browser.html)[-1]
    assert cancel != "Yes, cancel it"
    await browser.submit(cancel)
    assert " data-vw-confirm=" not in browser.html
    after = (await http.get(f"/api/sessions/{sid}/state", headers=auth)).json()["db_hash"]
    assert after == before


async def test_every_cookie_has_its_own_world(app, NoScriptBrowser, auth) -> None:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as one, \
            httpx.AsyncClient(transport=transport, base_url="http://testserver") as two:
        start = await one.post(f"/_start/{SITE}/add_to_cart")
        first = await NoScriptBrowser(one).get(start.headers["location"])
        await first.get(f"/s/{SITE}/product/3")
        tabs = re.findall(r'data-vw-tabs="([^"]+)" data-vw-index="1"', first.html)[0]
        response = await first.submit("Add to cart", {"size": "M", "qty": "3", "_vw_widgets": json.dumps({tabs: 1})})
        assert response.status_code == 303
        start = await two.post(f"/_start/{SITE}/add_to_cart")
        second = await NoScriptBrowser(two).get(start.headers["location"])
        await second.get(f"/s/{SITE}/cart")
        await first.get(f"/s/{SITE}/cart")
        assert "Red Flannel Shirt" in first.html
        assert "Red Flannel Shirt" not in second.html
        assert one.cookies["vw_session"] != two.cookies["vw_session"]
        hashes = set()
        for client in (one, two):
            sid = client.cookies["vw_session"]
            hashes.add((await client.get(f"/api/sessions/{sid}/state", headers=auth)).json()["db_hash"])
        assert len(hashes) == 2


async def test_unknown_pages_are_404_everywhere(http: httpx.AsyncClient) -> None:
    assert (await http.get("/s/nowhere/")).status_code == 404
    assert (await http.get(f"/s/{SITE}/no/such/page")).status_code == 404
    assert "Page not found" in (await http.get(f"/s/{SITE}/no/such/page")).text
    assert (await http.get(f"/s/{SITE}/product/not-a-number")).status_code == 404
    assert (await http.get("/favicon.ico")).status_code == 404
    assert (await http.get(f"/s/{SITE}")).status_code == 308
    assert (await http.delete(f"/s/{SITE}/")).status_code == 405

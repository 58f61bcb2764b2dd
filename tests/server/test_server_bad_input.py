"""Bad input gets a proper 4xx, never a 500, and changes nothing; nothing leaks between sessions."""

from __future__ import annotations

import json
from urllib.parse import urlencode

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.anyio
SITE = "threadline"
FORM = "application/x-www-form-urlencoded"


async def _setup(http: httpx.AsyncClient, auth: dict[str, str]) -> tuple[str, str]:
    """A session on the product page (logged in as carol), and the product page's add-to-cart form bid."""
    created = (await http.post("/api/sessions", json={"site": SITE, "task": "add_to_cart"}, headers=auth)).json()
    http.cookies.set("vw_session", created["session"])
    page = (await http.get(f"/s/{SITE}/product/3")).text
    form = page.split('aria-label="Add to cart" id="vwf-')[1].split('"')[0]
    return created["session"], form


async def _state(http: httpx.AsyncClient, auth: dict[str, str], sid: str) -> tuple[str, str, int]:
    state = (await http.get(f"/api/sessions/{sid}/state", headers=auth)).json()
    return state["db_hash"], state["state_hash"], state["steps"]


def _valid(form: str, **changes: str) -> dict[str, str]:
    data = {"_vw_form": form, "_vw_press": "", "_vw_focus": "", "_vw_widgets": "", "size": "L", "qty": "2",
            "_vw_click": str(int(form) + 7)}
    data.update(changes)
    return {k: v for k, v in data.items() if v is not None}


async def test_the_valid_post_these_variations_start_from_does_write(http: httpx.AsyncClient, auth) -> None:
    sid, form = await _setup(http, auth)
    tabs = (await http.get(f"/api/sessions/{sid}/page", headers=auth)).json()
    assert any(e["name"] == "Add to cart" and e["role"] == "button" for e in tabs["elements"])
    before = await _state(http, auth, sid)
    page = (await http.get(f"/s/{SITE}/product/3")).text
    wkey = page.split('data-vw-tabs="')[1].split('"')[0]
    response = await http.post(f"/s/{SITE}/product/3", content=urlencode(_valid(form, _vw_widgets=json.dumps(
        {wkey: 1}))), headers={"Content-Type": FORM})
    assert response.status_code == 303
    assert (await _state(http, auth, sid))[0] != before[0]


BAD_POSTS = [
    ({"_vw_form": None}, 400),
    ({"_vw_form": "9999"}, 400),
    ({"_vw_form": "1"}, 400),
    ({"size": "XXL"}, 400),
    ({"size": "L' OR 1=1 --"}, 400),
    ({"qty": "x" * 30_000}, 413),
    ({"colour": "red"}, 400),
    ({"_vw_click": "1"}, 400),
    ({"_vw_click": ""}, 400),
    ({"_vw_press": "Delete", "_vw_focus": "31"}, 400),
    ({"_vw_press": "Enter", "_vw_focus": "9999"}, 400),
    ({"_vw_widgets": "{not json"}, 400),
    ({"_vw_widgets": "[1, 2]"}, 400),
    ({"_vw_widgets": json.dumps({"no_such_widget": True})}, 400),
    ({"_vw_widgets": json.dumps({"account_menu": "open"})}, 400),
]


@pytest.mark.parametrize("changes,status", BAD_POSTS)
async def test_malformed_form_posts_get_4xx_and_change_nothing(http: httpx.AsyncClient, auth, changes: dict,
                                                               status: int) -> None:
    sid, form = await _setup(http, auth)
    before = await _state(http, auth, sid)
    data = _valid(form, **changes)
    response = await http.post(f"/s/{SITE}/product/3", content=urlencode(data), headers={"Content-Type": FORM})
    assert response.status_code == status, response.text
    assert await _state(http, auth, sid) == before


async def test_a_hidden_form_cannot_be_posted(http: httpx.AsyncClient, auth) -> None:
    sid, form = await _setup(http, auth)
    before = await _state(http, auth, sid)
    response = await http.post(f"/s/{SITE}/product/3", content=urlencode(_valid(form)), headers={"Content-Type": FORM})
    assert response.status_code == 409 and "not visible" in response.text
    assert await _state(http, auth, sid) == before


@pytest.mark.parametrize("content,headers,status", [
    (b"q=shirt", {"Content-Type": "text/plain"}, 415),
    (b"--x\r\nContent-Disposition: form-data; name=q\r\n\r\nshirt\r\n--x--", {"Content-Type": "multipart/form-data; boundary=x"}, 415),
    (b"\xff\xfe\xfa", {"Content-Type": FORM}, 400),
    (b"a=1&&&=b=c;", {"Content-Type": FORM}, 400),
    (b"x" * (300 * 1024), {"Content-Type": FORM}, 413),
    (b"q=1", {"Content-Type": FORM, "Content-Length": "abc"}, 400),
])
async def test_bad_bodies_get_4xx_and_change_nothing(http: httpx.AsyncClient, auth, content: bytes,
                                                     headers: dict[str, str], status: int) -> None:
    sid, _ = await _setup(http, auth)
    before = await _state(http, auth, sid)
    response = await http.post(f"/s/{SITE}/product/3", content=content, headers=headers)
    assert response.status_code == status, response.text
    assert await _state(http, auth, sid) == before


async def test_sql_metacharacters_are_just_text(http: httpx.AsyncClient, auth) -> None:
    sid, _ = await _setup(http, auth)
    before = await _state(http, auth, sid)
    page = (await http.get(f"/s/{SITE}/")).text
    form = page.split('aria-label="Search" id="vwf-')[1].split('"')[0]
    for text in ["'; DROP TABLE products; --", "\" OR 1=1 --", "%' UNION SELECT password FROM users --", "\x00"]:
        data = {"_vw_form": form, "q": text, "_vw_click": str(int(form) + 2)}
        response = await http.post(f"/s/{SITE}/", content=urlencode(data), headers={"Content-Type": FORM})
        assert response.status_code == 303
        results = await http.get(response.headers["location"])
        assert results.status_code == 200 and "hunter2" not in results.text
        search = await http.get(f"/s/{SITE}/search", params={"q": text, "list_page": "1; DELETE FROM users"})
        assert search.status_code == 200
    assert (await _state(http, auth, sid))[0] == before[0]
    users = (await http.get(f"/api/sessions/{sid}/tables/users", headers=auth)).json()
    assert users["total"] >= 3


@pytest.mark.parametrize("path", ["/s/threadline/%00", "/s/threadline/product/99999999999999999999",
                                  "/s/threadline/product/-1", "/s/threadline/search?q=" + "a" * 5000,
                                  "/s/threadline/../../etc/passwd", "/s/threadline/category/1?list_page=-5&list_sort=x",
                                  "/s/%FF/", "/s/threadline/%FF%FE"])
async def test_odd_addresses_never_give_a_500(http: httpx.AsyncClient, path: str) -> None:
    response = await http.get(path)
    assert response.status_code < 500, (path, response.status_code)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(["_vw_form", "_vw_click", "_vw_press", "_vw_focus", "_vw_widgets", "size",
                                           "qty", "q", "x"]),
                          st.text(max_size=30)), max_size=8))
def test_random_posts_never_give_a_500_nor_a_write(pairs: list[tuple[str, str]]) -> None:
    import anyio

    from veriweb.cli import load_site
    from veriweb.server import Catalog, create_app

    async def run() -> None:
        app = _fuzz_app(lambda: create_app(Catalog.of([load_site(None)]), token="t"))
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
            auth = {"Authorization": "Bearer t"}
            sid, _ = await _setup(http, auth)
            before = await _state(http, auth, sid)
            response = await http.post(f"/s/{SITE}/product/3", content=urlencode(pairs),
                                       headers={"Content-Type": FORM})
            assert response.status_code in (303, 400, 409, 413), response.text
            assert (await _state(http, auth, sid))[0] == before[0]
            if response.status_code != 303:
                assert await _state(http, auth, sid) == before

    anyio.run(run)


_APPS: list = []


def _fuzz_app(make):  # one app for every example: building one costs more than the example
    if not _APPS:
        _APPS.append(make())
    return _APPS[0]

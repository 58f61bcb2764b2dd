"""Load: many browser sessions writing at once over loopback lose no write and mix no state."""

from __future__ import annotations

import asyncio
import json
import re
from collections import Counter
from urllib.parse import urlencode

import httpx
import pytest

from veriweb.cli import load_site
from veriweb.server import Catalog, create_app
from veriweb.server.loopback import LoopbackServer

SITE = "threadline"
SESSIONS = 20
WRITES = 4
PRODUCTS = (3, 4, 18)  # stock of 15 or more: every add of 1 to 5 passes the stock check
SIZES = ("S", "M", "L", "XL")


def plan(number: int) -> list[tuple[int, str, int]]:
    """Session ``number``'s writes: (product, size, quantity), different for every session."""
    return [(PRODUCTS[(number + j) % 3], SIZES[(number * 3 + j) % 4], 1 + (number * 7 + j) % 5) for j in range(WRITES)]


async def one_session(http: httpx.AsyncClient, base: str, auth: dict[str, str], number: int) -> tuple[str, Counter]:
    created = (await http.post(f"{base}/api/sessions", json={"site": SITE, "task": "add_to_cart"},
                               headers=auth)).json()
    sid = created["session"]
    cookies = {"Cookie": f"vw_session={sid}"}
    seed = (await http.get(f"{base}/api/sessions/{sid}/tables/cart_items", headers=auth)).json()["rows"]
    expected = Counter({(r["product_id"], r["size"]): r["qty"] for r in seed if r["user_id"] == 3})
    for product, size, qty in plan(number):
        page = (await http.get(f"{base}/s/{SITE}/product/{product}", headers=cookies)).text
        form = re.findall(r'aria-label="Add to cart" id="vwf-(\d+)"', page)[0]
        button = re.findall(rf'name="_vw_click" value="(\d+)" data-vw-submit>Add to cart<', page)[0]
        tabs = re.findall(r'data-vw-tabs="([^"]+)" data-vw-index="1"', page)[0]
        data = {"_vw_form": form, "_vw_click": button, "_vw_widgets": json.dumps({tabs: 1}), "size": size,
                "qty": str(qty)}
        response = await http.post(f"{base}/s/{SITE}/product/{product}", content=urlencode(data),
                                   headers={**cookies, "Content-Type": "application/x-www-form-urlencoded"})
        assert response.status_code == 303, response.text
        shown = await http.get(base + response.headers["location"], headers=cookies)
        assert shown.status_code == 200 and 'role="alert"' not in shown.text
        expected[(product, size)] += qty
    return sid, expected


@pytest.mark.anyio
async def test_concurrent_writers_lose_nothing_and_mix_nothing(anyio_backend: str) -> None:
    app = create_app(Catalog.of([load_site(None)]), token="load")
    with LoopbackServer(app) as server:
        auth = {"Authorization": "Bearer load"}
        limits = httpx.Limits(max_connections=SESSIONS, max_keepalive_connections=SESSIONS)
        async with httpx.AsyncClient(limits=limits, timeout=60) as http:
            results = await asyncio.gather(*(one_session(http, server.url, auth, n) for n in range(SESSIONS)))
            hashes = set()
            for sid, expected in results:
                rows = (await http.get(f"{server.url}/api/sessions/{sid}/tables/cart_items", headers=auth)).json()
                found = Counter({(r["product_id"], r["size"]): r["qty"] for r in rows["rows"] if r["user_id"] == 3})
                assert found == expected, sid
                state = (await http.get(f"{server.url}/api/sessions/{sid}/state", headers=auth)).json()
                assert state["writes"] >= WRITES
                hashes.add(state["db_hash"])
            distinct_plans = {tuple(sorted(Counter((p, s) for p, s, _ in plan(n)).items())) for n in range(SESSIONS)}
            assert len(hashes) >= min(len(distinct_plans), SESSIONS // 2)

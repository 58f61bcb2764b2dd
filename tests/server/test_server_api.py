"""The control and state API: token, sessions, reset, progress, answers, tables, clock, OpenAPI; the client."""

from __future__ import annotations

import httpx
import pytest

from veriweb.cli import load_site
from veriweb.client import ApiError, Client
from veriweb.engine import Episode
from veriweb.server import Catalog, create_app
from veriweb.server.loopback import LoopbackServer

SITE = "threadline"


@pytest.mark.anyio
@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer nope"}, {"Authorization": "Basic dGVzdA=="},
                                     {"Authorization": "Bearer"}, {"Cookie": "vw_session=whatever"}])
async def test_every_api_call_needs_the_token(http: httpx.AsyncClient, headers: dict[str, str]) -> None:
    for method, path in [("GET", "/api/sites"), ("GET", "/api/sessions"), ("POST", "/api/sessions"),
                         ("GET", "/api/sessions/x/progress"), ("GET", "/api/sessions/x/tables/users"),
                         ("PUT", "/api/sessions/x/clock"), ("POST", "/api/sessions/x/reset")]:
        response = await http.request(method, path, headers=headers, json={"site": SITE})
        assert response.status_code == 401, (method, path)
        assert response.headers["www-authenticate"] == "Bearer"
        assert "token" in response.json()["error"]


@pytest.mark.anyio
async def test_a_browser_session_cannot_reach_the_api(http: httpx.AsyncClient) -> None:
    await http.get(f"/s/{SITE}/")
    assert "vw_session" in http.cookies
    assert (await http.get("/api/sessions")).status_code == 401
    page = (await http.get(f"/s/{SITE}/")).text
    assert "test-token" not in page


@pytest.mark.anyio
async def test_openapi_document_and_docs_are_public(http: httpx.AsyncClient) -> None:
    spec = (await http.get("/api/openapi.json")).json()
    assert spec["openapi"].startswith("3.")
    assert "/api/sessions/{sid}/progress" in spec["paths"]
    assert spec["components"]["securitySchemes"]["token"]["scheme"] == "bearer"
    docs = await http.get("/api/docs")
    assert docs.status_code == 200 and "/api/sessions/{sid}/reset" in docs.text


@pytest.mark.anyio
async def test_sessions_reset_progress_tables_and_clock(http: httpx.AsyncClient, auth: dict[str, str]) -> None:
    created = await http.post("/api/sessions", json={"site": SITE, "task": "count_orders"}, headers=auth)
    assert created.status_code == 201
    body = created.json()
    sid = body["session"]
    assert body["cookie"] == {"name": "vw_session", "value": sid, "path": "/"}
    assert body["task"] == "count_orders" and body["url"].startswith(f"/s/{SITE}/")
    progress = (await http.get(f"/api/sessions/{sid}/progress", headers=auth)).json()
    assert progress["kind"] == "retrieve" and progress["success"] is False and progress["finished"] is False
    tables = (await http.get(f"/api/sessions/{sid}/tables", headers=auth)).json()["tables"]
    assert {"users", "orders", "products"} <= {t["name"] for t in tables}
    rows = (await http.get(f"/api/sessions/{sid}/tables/users?limit=2&offset=1", headers=auth)).json()
    assert [r["username"] for r in rows["rows"]] == ["bob", "carol"] and rows["total"] >= 3
    clock = await http.put(f"/api/sessions/{sid}/clock", json={"steps": 7}, headers=auth)
    assert clock.status_code == 200 and (await http.get(f"/api/sessions/{sid}/state", headers=auth)).json()["steps"] == 7
    by_seed = (await http.post(f"/api/sessions/{sid}/reset", json={"site": SITE, "seed": 3}, headers=auth)).json()
    assert by_seed["task"] == load_site(None).tasks[3].id and by_seed["seed"] == 3
    page = (await http.get(f"/api/sessions/{sid}/page", headers=auth)).json()
    assert page["axtree"].startswith("RootWebArea") and page["elements"][0]["bid"] == "1"
    assert (await http.delete(f"/api/sessions/{sid}", headers=auth)).status_code == 204
    assert (await http.get(f"/api/sessions/{sid}", headers=auth)).status_code == 404


@pytest.mark.anyio
async def test_answers_are_judged_by_the_engine(http: httpx.AsyncClient, auth: dict[str, str]) -> None:
    site = load_site(None)
    task = site.task("count_orders")
    episode = Episode(site, task)
    episode.reset()
    message = next(a for a in task.certificate if a.startswith("send_msg_to_user"))
    text = message[len("send_msg_to_user("):-1].strip("'\"")
    sid = (await http.post("/api/sessions", json={"site": SITE, "task": task.id}, headers=auth)).json()["session"]
    wrong = (await http.post(f"/api/sessions/{sid}/message", json={"text": "a hundred"}, headers=auth)).json()
    assert wrong["finished"] is True and wrong["success"] is False
    await http.post(f"/api/sessions/{sid}/reset", json={"site": SITE, "task": task.id}, headers=auth)
    right = (await http.post(f"/api/sessions/{sid}/message", json={"text": text}, headers=auth)).json()
    assert right["success"] is True, right
    await http.post(f"/api/sessions/{sid}/reset", json={"site": SITE, "task": "add_missing_product"}, headers=auth)
    report = (await http.post(f"/api/sessions/{sid}/infeasible", json={"reason": "no such product"},
                              headers=auth)).json()
    assert report["success"] is True and report["kind"] == "infeasible"


@pytest.mark.anyio
@pytest.mark.parametrize("method,path,body,status", [
    ("POST", "/api/sessions", {"site": 3}, 422),
    ("POST", "/api/sessions", {}, 422),
    ("POST", "/api/sessions", {"site": SITE, "seed": "one"}, 422),
    ("POST", "/api/sessions", {"site": SITE, "seed": True}, 422),
    ("POST", "/api/sessions", {"site": SITE, "seed": -1}, 422),
    ("POST", "/api/sessions", {"site": SITE, "colour": "red"}, 422),
    ("POST", "/api/sessions", {"site": "nowhere"}, 404),
    ("POST", "/api/sessions", {"site": SITE, "task": "nope"}, 404),
    ("POST", "/api/sessions", {"site": SITE, "user": "mallory"}, 422),
    ("POST", "/api/sessions", [1, 2], 422),
    ("GET", "/api/sessions/unknown/progress", None, 404),
    ("GET", "/api/nothing", None, 404),
    ("DELETE", "/api/sites", None, 405),
])
async def test_bad_api_calls_get_4xx(http: httpx.AsyncClient, auth: dict[str, str], method: str, path: str,
                                     body: object, status: int) -> None:
    response = await http.request(method, path, json=body, headers=auth)
    assert response.status_code == status, response.text
    assert (await http.get("/api/sessions", headers=auth)).json()["sessions"] == []


@pytest.mark.anyio
async def test_bad_table_reads_get_4xx(http: httpx.AsyncClient, auth: dict[str, str]) -> None:
    sid = (await http.post("/api/sessions", json={"site": SITE}, headers=auth)).json()["session"]
    for query, status in [("tables/nope", 404), ("tables/users;DROP TABLE users", 404),
                          ("tables/users?limit=5000", 422), ("tables/users?offset=-1", 422),
                          ("tables/users?limit=x", 422), ("tables?site=nowhere", 404),
                          ("tables/_vw_changes", 404), ("tables/sqlite_master", 404)]:
        assert (await http.get(f"/api/sessions/{sid}/{query}", headers=auth)).status_code == status, query
    bad_json = await http.post(f"/api/sessions/{sid}/reset", content=b"{not json", headers={
        **auth, "Content-Type": "application/json"})
    assert bad_json.status_code == 400
    assert (await http.put(f"/api/sessions/{sid}/clock", json={"steps": 2.5}, headers=auth)).status_code == 422


def test_the_client_on_a_real_server_over_loopback() -> None:
    app = create_app(Catalog.of([load_site(None)]), token="loop-token")
    with LoopbackServer(app) as server, Client(server.url, server.token) as api:
        assert [s["site"] for s in api.sites()] == [SITE]
        session = api.create_session(SITE, task="add_to_cart")
        sid = session["session"]
        with httpx.Client(base_url=server.url, cookies={"vw_session": sid}) as browser:
            page = browser.get(session["url"])
            assert page.status_code == 200 and 'data-bid="1"' in page.text
        assert api.progress(sid)["total"] == 2
        assert api.state(sid)["writes"] == 0
        assert api.rows(sid, "users", limit=1)[0]["username"] == "alice"
        with pytest.raises(ApiError) as refused:
            api.rows(sid, "nope")
        assert refused.value.status == 404
        with Client(server.url, "wrong") as intruder, pytest.raises(ApiError) as denied:
            intruder.sessions()
        assert denied.value.status == 401

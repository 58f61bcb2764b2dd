"""The control and state API under ``/api``: reset, progress, answers, tables, clock; bearer token.

Everything here needs ``Authorization: Bearer TOKEN`` (the token ``veriweb serve`` prints; a
browser session never sees it, and no cookie is accepted in its place), except the OpenAPI
document and its docs page. Browser sessions are named by their cookie value: create one here
and give its cookie to the browser, or read a visitor's from ``GET /api/sessions``.
Tables are read through the engine's read-only SQL guard.
"""

from __future__ import annotations

import hmac
import json
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Route

from veriweb.engine import axtree_text, element_list
from veriweb.engine.database import quote
from veriweb.errors import VeriwebError
from veriweb.server import openapi
from veriweb.server.state import COOKIE, BrowserSession, SiteState, progress, say

MAX_ROWS = 1000
"""The most rows one table read returns."""


def routes() -> list[BaseRoute]:
    """The API's routes."""
    return [
        Route("/api/openapi.json", openapi_json, methods=["GET"]),
        Route("/api/docs", docs, methods=["GET"]),
        Route("/api/sites", list_sites, methods=["GET"]),
        Route("/api/sessions", sessions, methods=["GET", "POST"]),
        Route("/api/sessions/{sid}", one_session, methods=["GET", "DELETE"]),
        Route("/api/sessions/{sid}/reset", reset, methods=["POST"]),
        Route("/api/sessions/{sid}/progress", get_progress, methods=["GET"]),
        Route("/api/sessions/{sid}/message", message, methods=["POST"]),
        Route("/api/sessions/{sid}/infeasible", infeasible, methods=["POST"]),
        Route("/api/sessions/{sid}/tables", tables, methods=["GET"]),
        Route("/api/sessions/{sid}/tables/{table}", table_rows, methods=["GET"]),
        Route("/api/sessions/{sid}/state", get_state, methods=["GET"]),
        Route("/api/sessions/{sid}/page", get_page, methods=["GET"]),
        Route("/api/sessions/{sid}/clock", clock, methods=["PUT"]),
    ]


# ----------------------------------------------------------------------------- plumbing


def _server(request: Request) -> Any:
    from veriweb.server.app import server_state

    return server_state(request)


def authorize(request: Request) -> None:
    """Refuse (401) a request without the right bearer token."""
    header = request.headers.get("authorization", "")
    scheme, _, given = header.partition(" ")
    if scheme.lower() != "bearer" or not given:
        raise HTTPException(401, "the control API needs 'Authorization: Bearer TOKEN' (veriweb serve prints the token)",
                            headers={"WWW-Authenticate": "Bearer"})
    if not hmac.compare_digest(given.strip().encode(), _server(request).token.encode()):
        raise HTTPException(401, "wrong token: use the one veriweb serve printed at start-up",
                            headers={"WWW-Authenticate": "Bearer"})


async def _json(request: Request) -> dict[str, Any]:
    from veriweb.server.app import read_body

    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    body = await read_body(request, 64 * 1024)
    if not body.strip():
        return {}
    if content_type not in ("application/json", ""):
        raise HTTPException(415, "send a JSON body (Content-Type: application/json)")
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise HTTPException(400, "the body is not valid JSON") from None
    if not isinstance(data, dict):
        raise HTTPException(422, "the body must be a JSON object")
    return data


def _field(data: dict[str, Any], name: str, kind: type | tuple[type, ...], default: Any = None,
           *, required: bool = False) -> Any:
    if name not in data or data[name] is None:
        if required:
            raise HTTPException(422, f"'{name}' is required")
        return default
    value = data[name]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise HTTPException(422, f"'{name}' must be {names}, not {type(value).__name__}")
    return value


def _unknown(data: dict[str, Any], allowed: set[str]) -> None:
    extra = sorted(set(data) - allowed)
    if extra:
        raise HTTPException(422, f"unknown field(s) {', '.join(map(repr, extra[:5]))}; allowed: {', '.join(sorted(allowed))}")


def _browser(request: Request) -> BrowserSession:
    authorize(request)
    sid = request.path_params["sid"]
    browser = _server(request).store.get(sid)
    if browser is None:
        raise HTTPException(404, f"no browser session {sid[:40]!r}; create one with POST /api/sessions")
    return browser


def _site_state(request: Request, browser: BrowserSession) -> tuple[str, SiteState]:
    slug = request.query_params.get("site")
    if slug is None:
        if browser.task is not None:
            slug = browser.task.slug
        elif len(browser.sites) == 1:
            slug = next(iter(browser.sites))
        else:
            raise HTTPException(400, "say which site with ?site=NAME (this session has no task to tell)")
    if slug not in _server(request).catalog.sites:
        raise HTTPException(404, f"there is no site {slug[:60]!r} on this server")
    return slug, _server(request).store.site(browser, slug)


def _describe(request: Request, browser: BrowserSession) -> dict[str, Any]:
    server = _server(request)
    current = browser.task
    out: dict[str, Any] = {"session": browser.id, "cookie": {"name": COOKIE, "value": browser.id, "path": "/"},
                           "sites": sorted(browser.sites)}
    if current is not None:
        session = browser.sites[current.slug].session
        out.update(site=current.slug, task=current.task.id, kind=current.task.kind,
                   instruction=current.task.instruction, seed=current.seed, max_steps=current.task.max_steps,
                   url=server.catalog.prefix(current.slug) + str(session.ui.url))
    return out


# ----------------------------------------------------------------------------- endpoints


async def openapi_json(request: Request) -> Response:
    """The OpenAPI document (public)."""
    return JSONResponse(openapi.spec())


async def docs(request: Request) -> Response:
    """The API's documentation as a page (public)."""
    return HTMLResponse(openapi.docs_html())


async def list_sites(request: Request) -> Response:
    """Every site, with its tasks."""
    authorize(request)
    server = _server(request)
    out = []
    for slug, site in server.catalog.sites.items():
        out.append({"site": slug, "name": site.name, "id": site.id, "domain": site.domain,
                    "url": server.catalog.prefix(slug) + "/",
                    "tasks": [{"id": t.id, "kind": t.kind, "instruction": t.instruction, "max_steps": t.max_steps,
                               "start_url": t.start_url} for t in site.tasks]})
    return JSONResponse({"sites": out})


def _reset(request: Request, browser: BrowserSession, data: dict[str, Any]) -> dict[str, Any]:
    _unknown(data, {"site", "task", "seed", "user"})
    server = _server(request)
    slug = _field(data, "site", str, required=True)
    if slug not in server.catalog.sites:
        raise HTTPException(404, f"there is no site {slug[:60]!r} on this server; GET /api/sites lists them")
    seed = _field(data, "seed", int, 0)
    if seed < 0:
        raise HTTPException(422, "'seed' must be 0 or more")
    try:
        state = server.store.reset(browser, slug, _field(data, "task", str), seed, _field(data, "user", str))
    except KeyError as exc:
        raise HTTPException(404, str(exc.args[0])) from None
    except VeriwebError as exc:
        raise HTTPException(422, str(exc)) from None
    state.pending = True  # the browser's next request for the start page shows it without a step
    return _describe(request, browser)


async def sessions(request: Request) -> Response:
    """``GET``: every browser session with its task's progress. ``POST``: a new one, reset to a site and task."""
    authorize(request)
    server = _server(request)
    if request.method == "GET":
        out = []
        for browser in list(server.store.sessions.values()):
            item = _describe(request, browser)
            if browser.task is not None:
                report = progress(browser)
                item["progress"] = {k: report[k] for k in ("done", "total", "goal", "success", "finished")}
            out.append(item)
        return JSONResponse({"sessions": out})
    data = await _json(request)
    browser = server.store.new()
    try:
        described = _reset(request, browser, data)
    except HTTPException:
        server.store.drop(browser.id)
        raise
    return JSONResponse(described, 201)


async def one_session(request: Request) -> Response:
    """``GET``: a browser session's site, task and URL. ``DELETE``: forget it."""
    browser = _browser(request)
    if request.method == "DELETE":
        _server(request).store.drop(browser.id)
        return Response(status_code=204)
    return JSONResponse(_describe(request, browser))


async def reset(request: Request) -> Response:
    """Reset a browser session to a site, a task (by id, or the seed-th) and its start page."""
    browser = _browser(request)
    return JSONResponse(_reset(request, browser, await _json(request)))


async def get_progress(request: Request) -> Response:
    """The current task's subgoals, goal, violation, and success."""
    return JSONResponse(progress(_browser(request)))


async def message(request: Request) -> Response:
    """The agent's message to the user (its answer); judged at once for retrieve tasks."""
    browser = _browser(request)
    data = await _json(request)
    _unknown(data, {"text"})
    text = _field(data, "text", str, required=True)
    try:
        say(browser, message=text)
    except VeriwebError as exc:
        raise HTTPException(409, str(exc)) from None
    return JSONResponse(progress(browser))


async def infeasible(request: Request) -> Response:
    """The agent's report that the task cannot be done."""
    browser = _browser(request)
    data = await _json(request)
    _unknown(data, {"reason"})
    reason = _field(data, "reason", str, "")
    try:
        say(browser, infeasible=reason)
    except VeriwebError as exc:
        raise HTTPException(409, str(exc)) from None
    return JSONResponse(progress(browser))


async def tables(request: Request) -> Response:
    """The site's tables in this session: columns, primary key, row count (read-only)."""
    browser = _browser(request)
    slug, state = _site_state(request, browser)
    db = state.session.db
    out = []
    for name in sorted(db.column_types):
        count = db.guard.read(f"SELECT count(*) FROM {quote(name)}")[0][0]
        out.append({"name": name, "columns": db.column_types[name], "primary_key": db.primary_keys[name],
                    "rows": count})
    return JSONResponse({"site": slug, "tables": out})


async def table_rows(request: Request) -> Response:
    """One table's rows in primary-key order (``limit`` at most 1000, ``offset``), read-only."""
    browser = _browser(request)
    slug, state = _site_state(request, browser)
    db = state.session.db
    name = request.path_params["table"]
    if name not in db.column_types:
        raise HTTPException(404, f"site {slug!r} has no table {name[:60]!r}; GET .../tables lists them")
    limit = _int_param(request, "limit", 100, 0, MAX_ROWS)
    offset = _int_param(request, "offset", 0, 0, 10**9)
    columns, rows = db.guard.read_named(
        f"SELECT * FROM {quote(name)} ORDER BY {quote(db.primary_keys[name])} LIMIT ? OFFSET ?", (limit, offset))
    total = db.guard.read(f"SELECT count(*) FROM {quote(name)}")[0][0]
    return JSONResponse({"site": slug, "table": name, "columns": columns, "total": total, "offset": offset,
                         "rows": [dict(zip(columns, row)) for row in rows]})


def _int_param(request: Request, name: str, default: int, low: int, high: int) -> int:
    text = request.query_params.get(name)
    if text is None:
        return default
    if not text.isdigit() or not low <= int(text) <= high:
        raise HTTPException(422, f"'{name}' must be a whole number from {low} to {high}")
    return int(text)


async def get_state(request: Request) -> Response:
    """The session's state hashes (database alone, and with the UI), URL, user, virtual clock and writes."""
    browser = _browser(request)
    slug, state = _site_state(request, browser)
    session = state.session
    return JSONResponse({"site": slug, "db_hash": session.db.state_hash(), "state_hash": session.state_hash(),
                         "url": str(session.ui.url), "user_id": session.ui.user_id, "steps": session.steps,
                         "now": session.now, "version": session.version, "writes": session.db.change_count()})


async def get_page(request: Request) -> Response:
    """The engine's view of the session's current page: accessibility-tree text and element list."""
    browser = _browser(request)
    slug, state = _site_state(request, browser)
    page = state.session.page()
    return JSONResponse({"site": slug, "url": page.url, "title": page.title, "status": page.status,
                         "axtree": axtree_text(page), "elements": element_list(page)})


async def clock(request: Request) -> Response:
    """Set the virtual clock: how many actions the session has taken (the next runs at ``steps + 1``).

    The engine's clock advances one tick per action; in a browser only the actions that reach
    the server count on their own, so a driver that replays actions sets the count before each.
    """
    browser = _browser(request)
    slug, state = _site_state(request, browser)
    data = await _json(request)
    _unknown(data, {"steps"})
    steps = _field(data, "steps", int, required=True)
    if not 0 <= steps <= 10**6:
        raise HTTPException(422, "'steps' must be from 0 to 1000000")
    state.session.steps = steps
    return JSONResponse({"site": slug, "steps": steps, "now": state.session.now})

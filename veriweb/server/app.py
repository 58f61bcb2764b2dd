"""The ASGI app: every site's pages under ``/s/NAME/``, an index at ``/``, the control API at ``/api``.

A page request is the engine's own action: opening a URL is ``goto(url)``; a form post is a
``click`` on the button that sent it (or a ``press`` of Enter or Escape), after its field values
are set (see :mod:`veriweb.server.forms`). After a post the browser is redirected (303) to the
session's URL, and that one request shows the page as the post left it (flash message, field
values kept after a failed check). The HTML is the engine's (:mod:`veriweb.server.html`).

Use :func:`create_app`; ``veriweb serve`` runs it under uvicorn on 127.0.0.1.
"""

from __future__ import annotations

import copy
import secrets
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, quote

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from veriweb.engine import actions as A
from veriweb.engine.templates import Url
from veriweb.server import index
from veriweb.server.forms import BadPost, check_post
from veriweb.server.html import content_security_policy, page_html
from veriweb.server.sites import SITE_ROOT, Catalog
from veriweb.server.state import COOKIE, BrowserSession, SiteState, Store
from veriweb.server.wiring import regions

MAX_BODY = 256 * 1024
"""The largest request body accepted, in bytes (a 413 beyond)."""

MAX_URL = 4096
"""The longest path and query accepted, in characters (a 414 beyond)."""

PAGE_HEADERS = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
}


@dataclass
class ServerState:
    """What the app serves and how.

    Attributes:
        catalog: the sites.
        store: the browser sessions.
        token: the control API's bearer token (printed at start-up; never in a page).
        task_picker: the index lists each site's tasks with a Start button, and the
            current task's progress (for people; turn off when agents browse).
    """

    catalog: Catalog
    store: Store
    token: str
    task_picker: bool = True
    counters: dict[str, int] = field(default_factory=lambda: {"pages": 0, "posts": 0})


def create_app(catalog: Catalog, *, token: str | None = None, task_picker: bool = True,
               max_sessions: int = 2000) -> Starlette:
    """The ASGI app serving ``catalog``.

    Args:
        catalog: the sites to serve.
        token: the control API token (a random one if not given; read it from
            ``app.state.vw.token``).
        task_picker: show tasks, Start buttons and progress on the index page.
        max_sessions: browser sessions kept (least recently used dropped first).
    """
    from veriweb.server import api

    state = ServerState(catalog, Store(catalog, max_sessions=max_sessions), token or secrets.token_urlsafe(24),
                        task_picker)
    routes = [
        Route("/", index.index_page, methods=["GET"]),
        Route("/_start/{slug}/{task}", index.start_task, methods=["POST"]),
        Route("/_say", index.say_to_user, methods=["POST"]),
        Route(SITE_ROOT + "/{slug}", site_root, methods=["GET", "POST"]),
        Route(SITE_ROOT + "/{slug}/{path:path}", site_page, methods=["GET", "POST"]),
        *api.routes(),
    ]
    app = Starlette(routes=routes, exception_handlers={HTTPException: http_error})
    app.state.vw = state
    return app


def server_state(request: Request) -> ServerState:
    """The app's :class:`ServerState`."""
    return request.app.state.vw


# ----------------------------------------------------------------------------- errors


async def http_error(request: Request, exc: Exception) -> Response:
    """4xx answers: JSON under ``/api``, a small page elsewhere."""
    assert isinstance(exc, HTTPException)
    headers = dict(exc.headers or {})
    if request.url.path.startswith("/api"):
        return JSONResponse({"error": exc.detail, "status": exc.status_code}, exc.status_code, headers=headers)
    body = index.error_page(exc.status_code, str(exc.detail))
    return HTMLResponse(body, exc.status_code, headers={**PAGE_HEADERS, **headers})


async def read_body(request: Request, limit: int = MAX_BODY) -> bytes:
    """The request body, refused with 413 past ``limit`` bytes (checked while reading)."""
    length = request.headers.get("content-length")
    if length is not None:
        if not length.isdigit():
            raise HTTPException(400, "Content-Length is not a number")
        if int(length) > limit:
            raise HTTPException(413, f"the body is larger than {limit} bytes")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise HTTPException(413, f"the body is larger than {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


# ----------------------------------------------------------------------------- site pages


async def site_root(request: Request) -> Response:
    """``/s/NAME`` redirects to ``/s/NAME/``."""
    slug = request.path_params["slug"]
    if slug not in server_state(request).catalog.sites:
        _no_site(slug)
    return RedirectResponse(f"{SITE_ROOT}/{slug}/", 308)


def _no_site(slug: str) -> None:
    raise HTTPException(404, f"there is no site {slug[:60]!r} on this server; the index at / lists them")


def _site_url(request: Request, prefix: str) -> str:
    """The engine URL of a request (path and query as the browser sent them, minus the site's prefix)."""
    raw = request.scope.get("raw_path") or quote(request.url.path).encode()
    path = raw.decode("latin-1").split("?", 1)[0]
    if not path.startswith(prefix):
        path = quote(request.url.path)
    rest = path[len(prefix):] or "/"
    query = request.scope.get("query_string", b"").decode("latin-1")
    url = rest + (f"?{query}" if query else "")
    if len(url) > MAX_URL:
        raise HTTPException(414, f"the address is longer than {MAX_URL} characters")
    if any(ord(c) < 32 or ord(c) == 127 for c in url):
        raise HTTPException(400, "the address has control characters")
    return url


def _browser(request: Request) -> tuple[BrowserSession, bool]:
    store = server_state(request).store
    browser = store.get(request.cookies.get(COOKIE))
    if browser is not None:
        return browser, False
    return store.new(), True


def _page_response(body: str | None, status: int, browser: BrowserSession, new: bool,
                   location: str | None = None) -> Response:
    if location is not None:
        response: Response = RedirectResponse(location, 303, headers=PAGE_HEADERS)
    else:
        headers = {**PAGE_HEADERS, "Content-Security-Policy": content_security_policy()}
        response = HTMLResponse(body, status, headers=headers)
    if new:
        response.set_cookie(COOKIE, browser.id, path="/", httponly=True, samesite="lax")
    return response


async def site_page(request: Request) -> Response:
    """A page of a site (GET), or a form posted on it (POST)."""
    server = server_state(request)
    slug = request.path_params["slug"]
    if slug not in server.catalog.sites:
        _no_site(slug)
    prefix = server.catalog.prefix(slug)
    url = _site_url(request, prefix)
    if request.method == "POST":
        return await _post(request, slug, prefix, url)
    browser, new = _browser(request)
    state = server.store.site(browser, slug)
    session = state.session
    wanted = Url.parse(url)
    server.counters["pages"] += 1
    if not (state.pending and wanted == session.ui.url):
        session.step(A.Goto(url))
    state.pending = False
    if session.ui.url != wanted:  # the engine went elsewhere (a login page): show it at its own address
        state.pending = True
        return _page_response(None, 303, browser, new, prefix + str(session.ui.url))
    page = session.page()
    return _page_response(page_html(session, prefix), page.status, browser, new)


async def _post(request: Request, slug: str, prefix: str, url: str) -> Response:
    server = server_state(request)
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type != "application/x-www-form-urlencoded":
        raise HTTPException(415, "forms post application/x-www-form-urlencoded; submit the form from the page")
    body = await read_body(request)
    try:
        pairs = parse_qsl(body.decode("utf-8"), keep_blank_values=True, strict_parsing=bool(body),
                          max_num_fields=1000)
    except (UnicodeDecodeError, ValueError):
        raise HTTPException(400, "the form body is not valid URL-encoded UTF-8") from None
    browser, new = _browser(request)
    state = server.store.site(browser, slug)
    session = state.session
    saved = (copy.deepcopy(session.ui), session.steps, state.pending)
    server.counters["posts"] += 1
    try:
        return _run_post(state, browser, new, prefix, url, pairs)
    except BadPost as exc:
        session.ui, session.steps, state.pending = saved
        raise HTTPException(exc.status, str(exc)) from None


def _run_post(state: SiteState, browser: BrowserSession, new: bool, prefix: str, url: str,
              pairs: list[tuple[str, str]]) -> Response:
    session = state.session
    if Url.parse(url) != session.ui.url:
        session.step(A.Goto(url))  # the post comes from another page than the session's last one
    post = check_post(session.page(), session.ui.fields, regions(session), pairs)
    if post.widgets is not None:
        session.ui.widgets = dict(post.widgets)
    session.ui.fields.update(post.fields)
    result = session.step(post.action)
    if result.error is not None:
        raise BadPost(f"the page refused this: {result.error}", 409)
    state.pending = True
    return _page_response(None, 303, browser, new, prefix + str(session.ui.url))


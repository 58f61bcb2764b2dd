"""The server's own pages: the index of sites (and, for people, their tasks) and error pages.

With the task picker on (the default of ``veriweb serve``), the index lists every task with a
Start button that resets the visitor's browser session to it, shows the current task's
progress, and takes the answer of a retrieve task. Agents should browse a server started with
the picker off (``--no-task-picker``): then the index only lists the sites, and tasks are
chosen through the control API.
"""

from __future__ import annotations

from html import escape
from typing import Any
from urllib.parse import parse_qsl

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from veriweb.server.state import COOKIE, progress, say

STYLE = ("body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}"
         "li{margin:.3rem 0}.task{color:#333}.ok{color:#060}.no{color:#900}form{display:inline}")


def _doc(title: str, body: str) -> str:
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
            f"<style>{STYLE}</style></head><body>{body}</body></html>")


def error_page(status: int, message: str) -> str:
    """A small page for a 4xx answer."""
    return _doc(f"{status}", f"<h1>{status}</h1><p>{escape(message)}</p><p><a href=\"/\">All sites</a></p>")


async def index_page(request: Request) -> Response:
    """``/``: the sites (and with the task picker, their tasks and the current task's progress)."""
    from veriweb.server.app import PAGE_HEADERS, server_state

    server = server_state(request)
    parts = ["<h1>veriweb sites</h1>"]
    browser = server.store.get(request.cookies.get(COOKIE))
    if server.task_picker and browser is not None and browser.task is not None:
        parts.append(_progress_box(progress(browser)))
    parts.append("<ul>")
    for slug, site in server.catalog.sites.items():
        prefix = server.catalog.prefix(slug)
        parts.append(f'<li><a href="{prefix}/">{escape(site.name)}</a> <small>({escape(site.domain)}, '
                     f"{len(site.tasks)} tasks)</small>")
        if server.task_picker and site.tasks:
            parts.append("<ol>")
            for task in site.tasks:
                parts.append(f'<li class="task">{escape(task.instruction)} <small>[{escape(task.kind)}]</small> '
                             f'<form method="post" action="/_start/{slug}/{escape(task.id)}">'
                             f'<button type="submit">Start</button></form></li>')
            parts.append("</ol>")
        parts.append("</li>")
    parts.append("</ul>")
    if server.task_picker:
        parts.append("<p><small>Progress is also at <code>GET /api/sessions</code> (control API, with the token "
                     "printed at start-up; docs at <a href=\"/api/docs\">/api/docs</a>).</small></p>")
    return HTMLResponse(_doc("veriweb sites", "".join(parts)), headers=PAGE_HEADERS)


def _progress_box(report: dict[str, Any]) -> str:
    done = "".join(f"<li class=\"{'ok' if sub['done'] else 'no'}\">{'✓' if sub['done'] else '·'} "
                   f"{escape(sub['description'])}</li>" for sub in report["subgoals"])
    verdict = "SUCCESS" if report["success"] else ("finished, not a success" if report["finished"] else "in progress")
    answer = ""
    if report["kind"] in ("retrieve", "infeasible") and not report["finished"]:
        answer = ('<form method="post" action="/_say"><label>Answer <input name="message"></label> '
                  '<button type="submit" name="kind" value="message">Send to user</button> '
                  '<button type="submit" name="kind" value="infeasible">Report infeasible</button></form>')
    return (f"<section><h2>Your task: {escape(report['instruction'])}</h2>"
            f"<p>Site <a href=\"/s/{escape(report['site'])}{escape(report['url'])}\">{escape(report['site'])}</a>, "
            f"progress {report['done']}/{report['total']}, <b>{verdict}</b>"
            f"{' (' + escape(report['reason']) + ')' if report['reason'] else ''}</p><ul>{done}</ul>{answer}</section>")


async def start_task(request: Request) -> Response:
    """``POST /_start/SITE/TASK``: reset the visitor's browser session to a task and open its start page."""
    from veriweb.server.app import PAGE_HEADERS, server_state

    server = server_state(request)
    if not server.task_picker:
        raise HTTPException(404, "the task picker is off on this server; tasks are chosen through the control API")
    slug, task_id = request.path_params["slug"], request.path_params["task"]
    if slug not in server.catalog.sites:
        raise HTTPException(404, f"there is no site {slug[:60]!r} on this server")
    browser = server.store.get(request.cookies.get(COOKIE))
    new = browser is None
    browser = browser or server.store.new()
    try:
        state = server.store.reset(browser, slug, task_id)
    except KeyError as exc:
        raise HTTPException(404, str(exc.args[0])) from None
    state.pending = True
    response = RedirectResponse(f"{server.catalog.prefix(slug)}{state.session.ui.url}", 303, headers=PAGE_HEADERS)
    if new:
        response.set_cookie(COOKIE, browser.id, path="/", httponly=True, samesite="lax")
    return response


async def say_to_user(request: Request) -> Response:
    """``POST /_say``: the visitor's answer to the current task (or a report that it is infeasible)."""
    from veriweb.server.app import PAGE_HEADERS, read_body, server_state

    server = server_state(request)
    if not server.task_picker:
        raise HTTPException(404, "the task picker is off on this server; answers go through the control API")
    browser = server.store.get(request.cookies.get(COOKIE))
    if browser is None or browser.task is None:
        raise HTTPException(409, "you have no task yet: press Start next to one on the index page")
    try:
        data = dict(parse_qsl((await read_body(request, 64 * 1024)).decode("utf-8"), keep_blank_values=True))
    except (UnicodeDecodeError, ValueError):
        raise HTTPException(400, "the form body is not valid URL-encoded UTF-8") from None
    text = data.get("message", "")
    if data.get("kind") == "infeasible":
        say(browser, infeasible=text)
    else:
        say(browser, message=text)
    return RedirectResponse("/", 303, headers=PAGE_HEADERS)

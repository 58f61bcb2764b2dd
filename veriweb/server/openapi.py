"""The control API's OpenAPI 3.1 document, written from one table, and a docs page made from it."""

from __future__ import annotations

from functools import lru_cache
from html import escape
from typing import Any

_SID = {"name": "sid", "in": "path", "required": True, "schema": {"type": "string"},
        "description": "the browser session id (the value of its vw_session cookie)"}
_SITE = {"name": "site", "in": "query", "required": False, "schema": {"type": "string"},
         "description": "the site (default: the current task's)"}
_RESET_BODY = {
    "type": "object", "required": ["site"], "additionalProperties": False,
    "properties": {
        "site": {"type": "string", "description": "the site's name on this server (GET /api/sites)"},
        "task": {"type": "string", "description": "a task id; default: the seed-th task"},
        "seed": {"type": "integer", "minimum": 0, "default": 0,
                 "description": "picks the task when none is named (the engine itself is deterministic)"},
        "user": {"type": "string", "description": "log in as this account instead of the task's user"},
    },
}
_OBJECT = {"type": "object"}

ENDPOINTS: list[tuple[str, str, str, list[dict[str, Any]], dict[str, Any] | None, str]] = [
    ("get", "/api/sites", "Every site served, with its tasks.", [], None, "200"),
    ("get", "/api/sessions", "Every browser session, with its task's progress.", [], None, "200"),
    ("post", "/api/sessions", "Create a browser session reset to a site and task; give its cookie to the browser.",
     [], _RESET_BODY, "201"),
    ("get", "/api/sessions/{sid}", "A browser session's site, task and current URL.", [_SID], None, "200"),
    ("delete", "/api/sessions/{sid}", "Forget a browser session.", [_SID], None, "204"),
    ("post", "/api/sessions/{sid}/reset", "Reset a browser session to a site, task and seed (its start page).",
     [_SID], _RESET_BODY, "200"),
    ("get", "/api/sessions/{sid}/progress",
     "The current task's subgoals, goal, violation, and success (by the engine's episode rules).", [_SID], None,
     "200"),
    ("post", "/api/sessions/{sid}/message", "Send the agent's message to the user (a retrieve task's answer).",
     [_SID], {"type": "object", "required": ["text"], "properties": {"text": {"type": "string"}}}, "200"),
    ("post", "/api/sessions/{sid}/infeasible", "Report that the task cannot be done.",
     [_SID], {"type": "object", "properties": {"reason": {"type": "string"}}}, "200"),
    ("get", "/api/sessions/{sid}/tables", "The site's tables in this session (read-only).", [_SID, _SITE], None,
     "200"),
    ("get", "/api/sessions/{sid}/tables/{table}", "One table's rows in key order (read-only).",
     [_SID, _SITE, {"name": "table", "in": "path", "required": True, "schema": {"type": "string"}},
      {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 0, "maximum": 1000, "default": 100}},
      {"name": "offset", "in": "query", "schema": {"type": "integer", "minimum": 0, "default": 0}}], None, "200"),
    ("get", "/api/sessions/{sid}/state", "State hashes (database; database and UI), URL, user, clock, writes.",
     [_SID, _SITE], None, "200"),
    ("get", "/api/sessions/{sid}/page", "The engine's view of the current page: tree text and element list.",
     [_SID, _SITE], None, "200"),
    ("put", "/api/sessions/{sid}/clock", "Set the virtual clock (actions taken so far) before replaying an action.",
     [_SID, _SITE], {"type": "object", "required": ["steps"],
                     "properties": {"steps": {"type": "integer", "minimum": 0}}}, "200"),
]


@lru_cache(maxsize=1)
def spec() -> dict[str, Any]:
    """The OpenAPI document of the control API."""
    paths: dict[str, Any] = {}
    for method, path, summary, params, body, status in ENDPOINTS:
        operation: dict[str, Any] = {
            "summary": summary, "parameters": params, "security": [{"token": []}],
            "responses": {status: {"description": "OK", "content": {"application/json": {"schema": _OBJECT}}}
                          if status != "204" else {"description": "gone"},
                          "401": {"description": "no token, or the wrong one"},
                          "404": {"description": "no such session, site, task or table"},
                          "422": {"description": "a parameter of the wrong type or out of range"}},
        }
        if body is not None:
            operation["requestBody"] = {"required": method == "post" and "required" in body,
                                        "content": {"application/json": {"schema": body}}}
        paths.setdefault(path, {})[method] = operation
    return {
        "openapi": "3.1.0",
        "info": {"title": "veriweb control and state API", "version": "1",
                 "description": "Reset browser sessions to tasks, read progress and (read-only) database tables. "
                                "Every operation needs the bearer token that `veriweb serve` prints."},
        "components": {"securitySchemes": {"token": {"type": "http", "scheme": "bearer"}}},
        "paths": paths,
    }


def docs_html() -> str:
    """A page listing every operation of :func:`spec` (no scripts, nothing fetched)."""
    rows = []
    for method, path, summary, params, body, _ in ENDPOINTS:
        names = ", ".join(escape(p["name"]) for p in params if p["in"] == "query")
        fields = ", ".join(escape(k) for k in (body or {}).get("properties", {}))
        rows.append(f"<tr><td><code>{method.upper()}</code></td><td><code>{escape(path)}</code></td>"
                    f"<td>{escape(summary)}</td><td>{names}</td><td>{fields}</td></tr>")
    return ('<!doctype html><html lang="en"><head><meta charset="utf-8"><title>veriweb API</title>'
            "<style>body{font-family:system-ui,sans-serif;margin:2rem}td{padding:.2rem .6rem;vertical-align:top}"
            "</style></head><body><h1>veriweb control and state API</h1>"
            "<p>Send <code>Authorization: Bearer TOKEN</code> (printed by <code>veriweb serve</code>). "
            'The machine-readable document is <a href="/api/openapi.json">/api/openapi.json</a>; '
            "the Python client is <code>veriweb.client.Client</code>.</p>"
            "<table><tr><th>method</th><th>path</th><th>what</th><th>query</th><th>body</th></tr>"
            + "".join(rows) + "</table></body></html>")

"""A Python client of the control and state API of ``veriweb serve`` (needs the ``server`` extra).

Example::

    from veriweb.client import Client

    with Client("http://127.0.0.1:8000", token) as api:
        session = api.create_session("shop", task="add_to_cart")
        # ... give session["cookie"] to a browser and open session["url"] ...
        print(api.progress(session["session"])["success"])

With ``http=starlette.testclient.TestClient(app)`` the same client talks to an app in process.
"""

from __future__ import annotations

from types import TracebackType
from typing import Any

import httpx

from veriweb.errors import VeriwebError


class ApiError(VeriwebError):
    """The API refused a request; ``status`` is the HTTP status and the message says why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"{status}: {message}")
        self.status = status


class Client:
    """The control API of one server.

    Args:
        base_url: the server, such as ``http://127.0.0.1:8000``.
        token: the token ``veriweb serve`` printed.
        http: an httpx client to send requests with (a ``TestClient`` for an app in process);
            by default a new one for ``base_url``.
        timeout: seconds per request.
    """

    def __init__(self, base_url: str, token: str, *, http: httpx.Client | None = None,
                 timeout: float = 30.0) -> None:
        self.base_url = base_url.rstrip("/")
        self._auth = {"Authorization": f"Bearer {token}"}
        self._http = http if http is not None else httpx.Client(timeout=timeout)

    def __enter__(self) -> Client:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    def _call(self, method: str, path: str, *, json: Any = None, params: dict[str, Any] | None = None) -> Any:
        query = {k: v for k, v in (params or {}).items() if v is not None}
        response = self._http.request(method, self.base_url + path, json=json, params=query, headers=self._auth)
        if response.status_code >= 400:
            try:
                message = response.json().get("error", response.text)
            except ValueError:
                message = response.text
            raise ApiError(response.status_code, message)
        return response.json() if response.content else None

    # ------------------------------------------------------------------ sessions

    def sites(self) -> list[dict[str, Any]]:
        """Every site served, with its tasks."""
        return self._call("GET", "/api/sites")["sites"]

    def sessions(self) -> list[dict[str, Any]]:
        """Every browser session, with its task's progress."""
        return self._call("GET", "/api/sessions")["sessions"]

    def create_session(self, site: str, task: str | None = None, seed: int = 0, user: str | None = None) -> dict[str, Any]:
        """A new browser session reset to ``site`` and ``task``: its id, cookie and start URL."""
        return self._call("POST", "/api/sessions", json=_reset_body(site, task, seed, user))

    def session(self, sid: str) -> dict[str, Any]:
        """A browser session's site, task and URL."""
        return self._call("GET", f"/api/sessions/{sid}")

    def delete(self, sid: str) -> None:
        """Forget a browser session."""
        self._call("DELETE", f"/api/sessions/{sid}")

    def reset(self, sid: str, site: str, task: str | None = None, seed: int = 0,
              user: str | None = None) -> dict[str, Any]:
        """Reset a browser session to a site and task; open the returned ``url`` in the browser next."""
        return self._call("POST", f"/api/sessions/{sid}/reset", json=_reset_body(site, task, seed, user))

    # ------------------------------------------------------------------ the task

    def progress(self, sid: str) -> dict[str, Any]:
        """The task's subgoals, goal, violation, ``success`` and ``finished``."""
        return self._call("GET", f"/api/sessions/{sid}/progress")

    def message(self, sid: str, text: str) -> dict[str, Any]:
        """Send the agent's message to the user (judged for retrieve tasks); the progress after it."""
        return self._call("POST", f"/api/sessions/{sid}/message", json={"text": text})

    def infeasible(self, sid: str, reason: str = "") -> dict[str, Any]:
        """Report the task infeasible; the progress after it."""
        return self._call("POST", f"/api/sessions/{sid}/infeasible", json={"reason": reason})

    # ------------------------------------------------------------------ state

    def tables(self, sid: str, site: str | None = None) -> list[dict[str, Any]]:
        """The site's tables in the session: name, columns, primary key, row count."""
        return self._call("GET", f"/api/sessions/{sid}/tables", params={"site": site})["tables"]

    def rows(self, sid: str, table: str, *, site: str | None = None, limit: int = 100,
             offset: int = 0) -> list[dict[str, Any]]:
        """Rows of one table in key order (read-only)."""
        return self._call("GET", f"/api/sessions/{sid}/tables/{table}",
                          params={"site": site, "limit": limit, "offset": offset})["rows"]

    def state(self, sid: str, site: str | None = None) -> dict[str, Any]:
        """``db_hash`` (the database), ``state_hash`` (with the UI), URL, user, clock and writes."""
        return self._call("GET", f"/api/sessions/{sid}/state", params={"site": site})

    def page(self, sid: str, site: str | None = None) -> dict[str, Any]:
        """The engine's view of the current page: ``axtree`` text and ``elements``."""
        return self._call("GET", f"/api/sessions/{sid}/page", params={"site": site})

    def set_clock(self, sid: str, steps: int, site: str | None = None) -> dict[str, Any]:
        """Set how many actions the session has taken (its virtual clock)."""
        return self._call("PUT", f"/api/sessions/{sid}/clock", json={"steps": steps}, params={"site": site})


def _reset_body(site: str, task: str | None, seed: int, user: str | None) -> dict[str, Any]:
    body: dict[str, Any] = {"site": site, "seed": seed}
    if task is not None:
        body["task"] = task
    if user is not None:
        body["user"] = user
    return body


__all__ = ["ApiError", "Client"]

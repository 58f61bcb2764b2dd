"""Browser sessions: one per cookie, each with its own engine session per site and its current task.

Isolation is structural: a browser session owns its :class:`~veriweb.engine.Session` objects
(each with its own in-memory SQLite database), and nothing is shared between browser sessions
but the read-only scaffolds. The server runs every engine call on its one event-loop thread, so
requests never interleave inside the engine.
"""

from __future__ import annotations

import secrets
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from veriweb.engine import Judge, Session
from veriweb.engine.answers import Verdict
from veriweb.errors import ActionError
from veriweb.scaffold import Site, Task
from veriweb.server.sites import Catalog

COOKIE = "vw_session"
"""The cookie that names a browser session."""


@dataclass
class SiteState:
    """One site as one browser session sees it.

    Attributes:
        session: the engine session (database, UI state, virtual clock).
        pending: the last request was a form post; the next page request for the current URL
            shows the page as the post left it (flash message, kept field values) instead of
            opening the URL afresh.
    """

    session: Session
    pending: bool = False


@dataclass
class TaskState:
    """The task a browser session is doing, and what it has said."""

    slug: str
    task: Task
    seed: int
    judge: Judge
    message: str | None = None
    infeasible: str | None = None
    verdict: Verdict | None = None


@dataclass
class BrowserSession:
    """One browser (one cookie): its sites and its current task."""

    id: str
    sites: dict[str, SiteState] = field(default_factory=dict)
    task: TaskState | None = None


class Store:
    """Every browser session of a server, least recently used first out.

    Args:
        catalog: the sites.
        max_sessions: browser sessions kept; the least recently used is dropped beyond this.
        cache_size: rendered page states each engine session keeps.
    """

    def __init__(self, catalog: Catalog, *, max_sessions: int = 2000, cache_size: int = 64) -> None:
        self.catalog = catalog
        self.max_sessions = max_sessions
        self.cache_size = cache_size
        self.sessions: OrderedDict[str, BrowserSession] = OrderedDict()
        self._spare: dict[str, list[Session]] = {}

    def new(self) -> BrowserSession:
        """A new browser session with a fresh unguessable id."""
        sid = secrets.token_urlsafe(18)
        browser = self.sessions[sid] = BrowserSession(sid)
        while len(self.sessions) > self.max_sessions:
            _, old = self.sessions.popitem(last=False)
            self._recycle(old)
        return browser

    def get(self, sid: str | None) -> BrowserSession | None:
        """The browser session ``sid`` (and mark it used), or ``None``."""
        if not sid:
            return None
        browser = self.sessions.get(sid)
        if browser is not None:
            self.sessions.move_to_end(sid)
        return browser

    def drop(self, sid: str) -> bool:
        """Forget a browser session; whether it existed."""
        browser = self.sessions.pop(sid, None)
        if browser is None:
            return False
        self._recycle(browser)
        return True

    def _recycle(self, browser: BrowserSession) -> None:
        for slug, state in browser.sites.items():
            spare = self._spare.setdefault(slug, [])
            if len(spare) < 8:
                spare.append(state.session)

    def site(self, browser: BrowserSession, slug: str) -> SiteState:
        """The browser session's state on site ``slug``, made on first use (at the site's home page).

        Raises:
            KeyError: no such site.
        """
        state = browser.sites.get(slug)
        if state is None:
            site = self.catalog.get(slug)
            spare = self._spare.get(slug)
            session = spare.pop() if spare else Session(site, cache_size=self.cache_size)
            session.reset("/")
            state = browser.sites[slug] = SiteState(session)
        return state

    def reset(self, browser: BrowserSession, slug: str, task_id: str | None = None, seed: int = 0,
              user: str | None = None) -> SiteState:
        """Reset ``browser`` on site ``slug`` to a task (by id, or the ``seed``-th one) at its start.

        Without a task and with a site that has none, the site is reset to its home page.

        Raises:
            KeyError: no such site or task.
            ActionError: ``user`` is not an account of the site.
        """
        site = self.catalog.get(slug)
        state = self.site(browser, slug)
        task = pick_task(site, task_id, seed)
        if task is None:
            state.session.reset("/", user=user)
            browser.task = None
        else:
            login = user if user is not None else (task.user if task.start_logged_in else None)
            state.session.reset(task.start_url, user=login)
            browser.task = TaskState(slug, task, seed, Judge(state.session, task))
        state.pending = False
        return state

    def stats(self) -> dict[str, Any]:
        """How many browser sessions there are."""
        return {"sessions": len(self.sessions), "max_sessions": self.max_sessions}


def pick_task(site: Site, task_id: str | None, seed: int) -> Task | None:
    """The task ``task_id``, else the ``seed``-th task (modulo their number), else ``None``.

    Raises:
        KeyError: ``task_id`` is not a task of the site.
    """
    if task_id is not None:
        task = site.task(task_id)
        if task is None:
            known = ", ".join(t.id for t in site.tasks[:12]) or "none"
            raise KeyError(f"site {site.name!r} has no task {task_id!r}; its tasks are: {known}")
        return task
    if not site.tasks:
        return None
    return site.tasks[seed % len(site.tasks)]


def progress(browser: BrowserSession) -> dict[str, Any]:
    """The current task's progress and verdict, by the rules of :class:`veriweb.engine.Episode`.

    A navigate or mutate task succeeds while its goal holds without a violation; a retrieve
    task when the answer sent is right; an infeasible task when it is reported infeasible.
    """
    current = browser.task
    if current is None:
        return {"task": None, "success": False, "finished": False, "reason": "no task: reset the session to one"}
    task = current.task
    session = browser.sites[current.slug].session
    state = current.judge.progress()
    finished, success, reason = False, False, ""
    if current.infeasible is not None:
        finished, success, reason = True, task.kind == "infeasible", "reported infeasible"
    elif current.message is not None:
        finished, reason = True, "message sent"
        if task.kind == "retrieve":
            success = bool(current.verdict and current.verdict.correct) and state.violation is None and (
                not task.goal or state.goal)
        elif task.kind in ("navigate", "mutate"):
            success = state.goal and state.violation is None
    elif state.violation is not None:
        finished, reason = True, state.violation
    elif task.kind in ("navigate", "mutate") and state.goal:
        finished, success, reason = True, True, "goal reached"
    return {
        "site": current.slug, "task": task.id, "kind": task.kind, "instruction": task.instruction,
        "seed": current.seed, "steps": session.steps, "url": str(session.ui.url),
        "subgoals": [{"description": sub.description, "done": done}
                     for sub, done in zip(task.progress, state.subgoals)],
        "done": state.done, "total": state.total, "goal": state.goal, "violation": state.violation,
        "message": current.message, "infeasible": current.infeasible,
        "answer": current.verdict.reason if current.verdict else None,
        "finished": finished, "success": success, "reason": reason,
    }


def say(browser: BrowserSession, *, message: str | None = None, infeasible: str | None = None) -> None:
    """Record a message to the user (judged now for retrieve tasks) or a report of infeasibility.

    Raises:
        ActionError: the browser session has no task.
    """
    current = browser.task
    if current is None:
        raise ActionError("this session has no task to answer; reset it to a task first")
    if infeasible is not None:
        current.infeasible = infeasible
    if message is not None:
        current.message = message
        if current.task.kind == "retrieve":
            current.verdict = current.judge.judge_answer(message)

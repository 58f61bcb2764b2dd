"""Carry out the engine's action grammar in Chromium, on a page served by ``veriweb serve``.

:class:`BrowserDriver` owns one Playwright page whose browser session is a session of the
control API. :meth:`BrowserDriver.reset` resets it to a task and opens the start page;
:meth:`BrowserDriver.act` performs one action string (``click('12')``) on the element whose
``data-bid`` is ``12``, the way a Playwright or BrowserGym agent would, and waits until the
page has settled. :meth:`BrowserDriver.tree` reads the accessibility tree.

A click on an element that is not interactive (a table cell, a paragraph) is dispatched on
that element: the engine's ``click(bid)`` means that element, while a mouse click at its
centre would land on whatever lies there (a link inside the cell).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from veriweb.browser.axtree import AXNode, browser_view, dom_bids
from veriweb.client import Client
from veriweb.engine import actions as A
from veriweb.engine.templates import Url
from veriweb.errors import ActionSyntaxError, VeriwebError

KEYS = {"Space": " ", "ControlOrMeta": "Control"}
"""Key names of the grammar that Playwright spells differently."""

_CHOOSE = """(el, wanted) => {
  const options = Array.from(el.options || []);
  const byValue = options.find(o => o.value === wanted);
  if (byValue) return byValue.value;
  const byLabel = options.find(o => o.label.trim() === wanted.trim());
  return byLabel ? byLabel.value : null;
}"""


_ACTIVE = "el => el.hasAttribute('data-vw-i')"

_POINT = """bid => {
  const el = document.querySelector(`[data-bid="${bid}"]`);
  if (el === null) return null;
  el.scrollIntoView({block: 'nearest', inline: 'nearest'});
  const r = el.getBoundingClientRect();
  if (r.width === 0 || r.height === 0) return null;
  const link = el.closest('a[href]');
  const loads = (link !== null && !link.hasAttribute('data-vw-external')) ||
                el.closest('button[type="submit"]') !== null;
  return [r.x + r.width / 2, r.y + r.height / 2, loads];
}"""


@dataclass(frozen=True)
class Acted:
    """What one action did in the browser: an error message if Playwright or the page refused it."""

    error: str | None = None
    message: str | None = None
    infeasible: str | None = None


def _key(key: str) -> str:
    return "+".join(KEYS.get(part, part) for part in key.split("+"))


def _modifiers(mods: tuple[str, ...]) -> list[str]:
    return [KEYS.get(m, m) for m in mods]


class BrowserDriver:
    """One Playwright page, driven by engine actions, against one server.

    Args:
        context: a Playwright browser context (sync API); the driver opens one page in it.
        base_url: the server (``http://127.0.0.1:PORT``).
        client: the control API client of that server.
        timeout: milliseconds Playwright waits for an element before the action fails.
        page: drive this page of ``context`` instead of opening a new one.
        fast: plain left clicks are real mouse events sent at the element's centre (CDP
            ``Input.dispatchMouseEvent`` through ``page.mouse``) without Playwright's
            actionability waits; a click on a link or a submit button waits for the page it
            loads. Everything else is as without.
    """

    def __init__(self, context: Any, base_url: str, client: Client, *, timeout: float = 10_000,
                 page: Any = None, fast: bool = False) -> None:
        self.context = context
        self.fast = fast
        self.base_url = base_url.rstrip("/")
        self.client = client
        self.timeout = timeout
        self.page = page if page is not None else context.new_page()
        self.page.set_default_timeout(timeout)
        self.page.set_default_navigation_timeout(10_000)
        self.cdp = context.new_cdp_session(self.page)
        self._documents = 0  # main-frame navigations so far: the DOM map below holds for one document
        self._dom: tuple[int, dict[int, dict[str, str]]] | None = None
        self.page.on("framenavigated", self._navigated)
        self.sid: str | None = None
        self.site: str | None = None
        self.steps = 0

    @property
    def prefix(self) -> str:
        """The current site's address: origin and path."""
        return f"{self.base_url}/s/{self.site}"

    def reset(self, site: str, task: str | None = None, seed: int = 0) -> dict[str, Any]:
        """Reset this browser's session to a task (creating the session first) and open its start page."""
        if self.sid is None:
            described = self.client.create_session(site, task, seed)
            self.sid = described["session"]
            cookie = described["cookie"]
            self.context.add_cookies([{"name": cookie["name"], "value": cookie["value"], "url": self.base_url}])
        else:
            described = self.client.reset(self.sid, site, task, seed)
        self.site = site
        self.steps = 0
        self.page.goto(self.base_url + described["url"])
        return described

    def _navigated(self, frame: Any) -> None:
        if frame == self.page.main_frame:
            self._documents += 1

    def tree(self, *, hidden: bool = True) -> list[AXNode]:
        """The page's accessibility tree, normalised (see :mod:`veriweb.browser.axtree`)."""
        if self._dom is None or self._dom[0] != self._documents:
            self._dom = (self._documents, dom_bids(self.cdp))
        return browser_view(self.page, self.cdp, self.prefix, hidden=hidden, dom=self._dom[1])

    def act(self, action: str | A.Action, *, clock: bool = True) -> Acted:
        """Perform one action as the engine's ``step`` would; never raises for a refused action.

        With ``clock``, the session's virtual clock is first set to the number of actions taken
        (the engine ticks once per action; in a browser only requests reach the server).
        """
        self.steps += 1
        try:
            parsed = action if isinstance(action, A.Action) else A.parse_action(action)
        except ActionSyntaxError as exc:
            return Acted(error=str(exc))
        if clock and self.sid is not None:
            self.client.set_clock(self.sid, self.steps - 1)
        try:
            result = self._do(parsed)
            if not (self.fast and isinstance(parsed, A.Click)):  # a fast click waits for the page it loads
                self.page.wait_for_load_state()
        except VeriwebError as exc:
            return Acted(error=str(exc))
        except Exception as exc:  # Playwright's errors: a hidden, covered or missing element, a timeout
            if type(exc).__module__.startswith("playwright"):
                return Acted(error=str(exc).split("\n")[0])
            raise
        return result or Acted()

    def _sel(self, bid: str) -> str:
        return f'[data-bid="{bid}"]'

    def _do(self, action: A.Action) -> Acted | None:
        page = self.page
        if isinstance(action, (A.Click, A.DblClick)) and not page.eval_on_selector(self._sel(action.bid), _ACTIVE):
            # Not interactive (a cell, a paragraph): the engine clicks this very element, so the
            # click is dispatched on it, not at its centre, where a link inside it may lie.
            for _ in range(2 if isinstance(action, A.DblClick) else 1):
                page.dispatch_event(self._sel(action.bid), "click")
        elif isinstance(action, A.Click) and self.fast and action.button == "left" and not action.modifiers:
            self._fast_click(action.bid)
        elif isinstance(action, A.Click):
            page.click(self._sel(action.bid), button=action.button, modifiers=_modifiers(action.modifiers))
        elif isinstance(action, A.DblClick):
            page.dblclick(self._sel(action.bid), button=action.button, modifiers=_modifiers(action.modifiers))
        elif isinstance(action, A.Hover):
            page.hover(self._sel(action.bid))
        elif isinstance(action, A.Fill):
            page.fill(self._sel(action.bid), action.value)
            page.focus(self._sel(action.bid))  # Playwright's fill leaves a date input unfocused
        elif isinstance(action, A.Clear):
            page.fill(self._sel(action.bid), "")
        elif isinstance(action, A.SelectOption):
            if len(action.options) != 1:
                raise VeriwebError(f"select_option takes one option here, got {len(action.options)}")
            value = page.eval_on_selector(self._sel(action.bid), _CHOOSE, action.options[0])
            if value is None:
                raise VeriwebError(f"element [{action.bid}] has no option {action.options[0]!r}")
            page.focus(self._sel(action.bid))
            page.select_option(self._sel(action.bid), value=value)
        elif isinstance(action, A.Check):
            page.check(self._sel(action.bid))
        elif isinstance(action, A.Uncheck):
            page.uncheck(self._sel(action.bid))
        elif isinstance(action, A.Press):
            page.press(self._sel(action.bid), _key(action.key))
        elif isinstance(action, A.Focus):
            page.focus(self._sel(action.bid))
        elif isinstance(action, A.Scroll):
            page.mouse.wheel(action.delta_x, action.delta_y)
        elif isinstance(action, A.Goto):
            page.goto(self.prefix + str(Url.parse(action.url)))
        elif isinstance(action, A.GoBack):
            page.go_back()
        elif isinstance(action, A.GoForward):
            page.go_forward()
        elif isinstance(action, A.SendMsgToUser):
            if self.sid is not None:
                self.client.message(self.sid, action.text)
            return Acted(message=action.text)
        elif isinstance(action, A.ReportInfeasible):
            if self.sid is not None:
                self.client.infeasible(self.sid, action.reason)
            return Acted(infeasible=action.reason)
        return None

    def _fast_click(self, bid: str) -> None:
        found = self.page.evaluate(_POINT, bid)
        if found is None:
            raise VeriwebError(f"element [{bid}] is not on the page or not visible")
        x, y, loads = found
        if loads:
            with self.page.expect_navigation(wait_until="load"):
                self.page.mouse.click(x, y)
        else:
            self.page.mouse.click(x, y)

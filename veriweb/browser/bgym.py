"""veriweb tasks as BrowserGym tasks: ``gymnasium.make("browsergym/veriweb.SITE.TASK")``.

Needs the ``browsergym`` extra (``browsergym-core``). Importing this module registers every task
of the bundled example site (``browsergym/veriweb.threadline.add_to_cart``, ...);
:func:`register_sites` and :func:`register_corpus` register more, from a table, as Gymnasium 1.x
loads no plugins. An unchanged BrowserGym agent then runs on veriweb sites:

- ``setup`` creates a browser session on a veriweb server (one per process, started on
  127.0.0.1 on first use, or the one named by ``VERIWEB_SERVER`` and ``VERIWEB_TOKEN``), gives
  its cookie to BrowserGym's page and opens the task's start page. The goal is the task's
  instruction.
- ``validate`` sends the agent's new messages to the state API (a retrieve task's answer, a
  report of infeasibility) and reads progress there: reward 1 on the step that succeeds, done
  when the task is finished. It also sets the session's virtual clock to the number of steps
  taken, as the engine's clock ticks once per action.
- ``cheat`` replays the task's certificate in the page.

**Element ids.** The ids a BrowserGym agent sees are the engine's: an init script copies each
element's ``data-bid`` into BrowserGym's ``bid`` attribute when the page is parsed (elements
with no engine id get ``v0``, ``v1``, ...), so BrowserGym keeps them instead of numbering the
page itself. Prompts, demonstrations and certificates carry over between the two modes.

BrowserGym launches Chromium itself without a path; :func:`veriweb.browser.chromium.use_system_chromium`
(called here) points it at Debian's.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from typing import Any

from browsergym.core.constants import BROWSERGYM_ID_ATTRIBUTE
from browsergym.core.registration import register_task
from browsergym.core.task import AbstractBrowserTask

from veriweb.browser.chromium import use_system_chromium
from veriweb.client import Client
from veriweb.scaffold import Site

use_system_chromium()

BID_SCRIPT = """(() => {
  window.browsergym_elem_counter = 0;  // BrowserGym keeps ids already on the page
  document.addEventListener("DOMContentLoaded", () => {
    let spare = 0;
    for (const el of document.querySelectorAll("*")) {
      const bid = el.getAttribute("data-bid");
      el.setAttribute("%s", bid === null ? "v" + spare++ : bid);
    }
  }, {capture: true});
})();""" % BROWSERGYM_ID_ATTRIBUTE
"""The init script that gives BrowserGym the engine's element ids."""

_SITES: dict[str, Site] = {}
_SERVER: dict[str, Any] = {}
_LOCK = threading.Lock()


def _server() -> tuple[str, Client]:
    """The veriweb server the tasks use (started on first use), and its API client."""
    with _LOCK:
        if "client" not in _SERVER:
            external = os.environ.get("VERIWEB_SERVER")
            if external:
                _SERVER["url"] = external.rstrip("/")
                _SERVER["client"] = Client(external, os.environ.get("VERIWEB_TOKEN", ""))
            else:
                from veriweb.server import Catalog, create_app
                from veriweb.server.loopback import LoopbackServer

                loopback = LoopbackServer(create_app(Catalog.of(_SITES.values()), task_picker=False)).start()
                _SERVER.update(url=loopback.url, client=Client(loopback.url, loopback.token), loopback=loopback)
                _SERVER["slugs"] = list(loopback.app.state.vw.catalog.sites)
        return _SERVER["url"], _SERVER["client"]


class VeriwebTask(AbstractBrowserTask):
    """One task of one veriweb site, for BrowserGym.

    Args:
        seed: BrowserGym's seed (recorded; the site and task are fixed by registration).
        site: the site's name on the server.
        task: the task id.
    """

    def __init__(self, seed: int, site: str, task: str) -> None:
        super().__init__(seed)
        self.site = site
        self.task_id = task
        self.seed = seed
        self.slow_mo = 0  # BrowserGym's default waits a second per action; the site needs none
        self.timeout = 5000
        self.sid: str | None = None
        self.steps = 0
        self.said = 0
        self.rewarded = False

    @classmethod
    def get_task_id(cls) -> str:
        return "veriweb"

    def setup(self, page: Any) -> tuple[str, dict[str, Any]]:
        """Create the browser session, hand its cookie to the page, open the start page."""
        url, client = _server()
        described = client.create_session(self.site, self.task_id, self.seed or 0)
        self.sid = described["session"]
        cookie = described["cookie"]
        page.context.add_cookies([{"name": cookie["name"], "value": cookie["value"], "url": url}])
        page.context.add_init_script(BID_SCRIPT)
        page.goto(url + described["url"])
        self.steps, self.said, self.rewarded = 0, 0, False
        return described["instruction"], {"site": self.site, "task": self.task_id, "session": self.sid}

    def validate(self, page: Any, chat_messages: list[dict[str, Any]]) -> tuple[float, bool, str, dict[str, Any]]:
        """Pass new messages to the state API, tick the clock, and read progress there."""
        assert self.sid is not None, "validate before setup"
        _, client = _server()
        if self.said == 0:  # BrowserGym's own greeting and the goal come first: skip through the goal
            first_user = next((i for i, m in enumerate(chat_messages) if m.get("role") == "user"), -1)
            self.said = first_user + 1
        for message in chat_messages[self.said:]:
            if message.get("role") == "assistant":
                client.message(self.sid, str(message.get("message", "")))
            elif message.get("role") == "infeasible":
                client.infeasible(self.sid, str(message.get("message", "")))
        self.said = len(chat_messages)
        self.steps += 1
        client.set_clock(self.sid, self.steps)
        progress = client.progress(self.sid)
        reward = 1.0 if progress["success"] and not self.rewarded else 0.0
        self.rewarded = self.rewarded or bool(progress["success"])
        return reward, bool(progress["finished"]), "", progress

    def cheat(self, page: Any, chat_messages: list[dict[str, Any]]) -> None:
        """Replay the task's certificate in the page (messages go to the chat as the agent's)."""
        from veriweb.browser.driver import BrowserDriver

        url, client = _server()
        site = _SITES.get(self.site)
        task = site.task(self.task_id) if site is not None else None
        if task is None:
            raise NotImplementedError(f"no certificate known for {self.site}/{self.task_id}")
        driver = BrowserDriver(page.context, url, client, page=page)
        driver.sid, driver.site = self.sid, self.site
        for action in task.certificate:
            acted = driver.act(action, clock=False)
            if acted.message is not None:
                chat_messages.append({"role": "assistant", "message": acted.message})
                self.said = len(chat_messages)
            elif acted.infeasible is not None:
                chat_messages.append({"role": "infeasible", "message": acted.infeasible})
                self.said = len(chat_messages)

    def teardown(self) -> None:
        """Forget the browser session."""
        if self.sid is not None:
            _, client = _server()
            client.delete(self.sid)
            self.sid = None


def register_sites(sites: Iterable[Site]) -> list[str]:
    """Register every task of ``sites`` as ``browsergym/veriweb.SITE.TASK``; the ids registered.

    Sites must be registered before the first task is set up (the server serves those).
    """
    from veriweb.server.sites import Catalog

    if "loopback" in _SERVER:
        raise RuntimeError("register sites before the first BrowserGym task is set up")
    ids = []
    catalog = Catalog.of(list(_SITES.values()) + list(sites))
    for slug, site in catalog.sites.items():
        if slug in _SITES:
            continue
        _SITES[slug] = site
        for task in site.tasks:
            env_id = f"veriweb.{slug}.{task.id}"
            register_task(env_id, VeriwebTask, task_kwargs={"site": slug, "task": task.id})
            ids.append(f"browsergym/{env_id}")
    return ids


def register_corpus(directory: str) -> list[str]:
    """Register every task of every site of a corpus directory."""
    from veriweb.generate.corpus import load_sites

    return register_sites(load_sites(directory))


def _register_example() -> list[str]:
    from veriweb.cli import load_site

    return register_sites([load_site(None)])


EXAMPLE_IDS = _register_example()
"""The BrowserGym ids of the bundled example's tasks."""

"""Debian's Chromium under Playwright: where it is, how it is launched, never a browser download."""

from __future__ import annotations

import os
import shutil
from typing import Any

from veriweb.errors import VeriwebError

CHROMIUM_ARGS = ("--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--disable-dev-shm-usage")
"""Command-line switches for headless Chromium here (Playwright adds a fresh user-data dir itself)."""


def chromium_path() -> str:
    """The Chromium executable: ``$VERIWEB_CHROMIUM``, else ``chromium`` on the PATH.

    Raises:
        VeriwebError: no Chromium found (the message says how to install Debian's).
    """
    found = os.environ.get("VERIWEB_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not found or not os.path.exists(found):
        raise VeriwebError("no Chromium found: apt-get install chromium (or set VERIWEB_CHROMIUM to its path); "
                           "veriweb never downloads a browser")
    return found


def launch(playwright: Any, *, headless: bool = True, **options: Any) -> Any:
    """Launch Chromium through a started Playwright (sync API), with :data:`CHROMIUM_ARGS`."""
    args = list(CHROMIUM_ARGS) + list(options.pop("args", []) or [])
    return playwright.chromium.launch(executable_path=chromium_path(), headless=headless, args=args, **options)


def use_system_chromium() -> None:
    """Make every Playwright ``BrowserType.launch`` without an ``executable_path`` use this Chromium.

    BrowserGym launches Chromium itself and never passes a path; this wraps the launch method
    of Playwright's sync API once, so an unchanged BrowserGym finds Debian's Chromium.
    """
    from playwright.sync_api import BrowserType

    launch_method = BrowserType.launch
    if getattr(launch_method, "_veriweb", False):
        return

    def wrapped(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not kwargs.get("executable_path") and self.name == "chromium":
            kwargs["executable_path"] = chromium_path()
            kwargs["args"] = list(CHROMIUM_ARGS) + [a for a in kwargs.get("args") or [] if a not in CHROMIUM_ARGS]
        return launch_method(self, *args, **kwargs)

    wrapped._veriweb = True  # type: ignore[attr-defined]
    BrowserType.launch = wrapped  # type: ignore[method-assign]


_PLAYWRIGHT: list[Any] = []


def shared_playwright() -> Any:
    """The process's one started Playwright (sync API), shared with BrowserGym.

    Playwright's sync API allows one instance per thread, and BrowserGym keeps a global one
    that it never stops; this returns BrowserGym's if it has started one, else starts one and
    hands it to BrowserGym too. Launch browsers from it and close them; leave it running.
    """
    try:
        import browsergym.core as browsergym_core
    except ImportError:
        browsergym_core = None
    if not _PLAYWRIGHT:
        if browsergym_core is not None and browsergym_core._PLAYWRIGHT is not None:
            _PLAYWRIGHT.append(browsergym_core._PLAYWRIGHT)
        else:
            from playwright.sync_api import sync_playwright

            _PLAYWRIGHT.append(sync_playwright().start())
    if browsergym_core is not None and browsergym_core._PLAYWRIGHT is None:
        browsergym_core._set_global_playwright(_PLAYWRIGHT[0])
    return _PLAYWRIGHT[0]


def stop_shared_playwright() -> None:
    """Stop the shared Playwright (and forget it, here and in BrowserGym).

    Playwright's sync API keeps an asyncio loop marked as running in its thread until it is
    stopped; code that later starts its own loop in the same thread (an ASGI test client, say)
    needs it stopped first.
    """
    if not _PLAYWRIGHT:
        return
    playwright = _PLAYWRIGHT.pop()
    try:
        import browsergym.core as browsergym_core
    except ImportError:
        browsergym_core = None
    if browsergym_core is not None and browsergym_core._PLAYWRIGHT is playwright:
        browsergym_core._PLAYWRIGHT = None
    playwright.stop()

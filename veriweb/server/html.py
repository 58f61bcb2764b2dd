"""The engine's HTML, wired for a real browser: site paths, real forms, and the widget script.

:func:`page_html` renders :func:`veriweb.engine.render.html_page` with a :class:`ServerWiring`,
so there is one HTML renderer and the engine stays the single source of truth. What the wiring
adds, and why:

- Links point under the site's path (``/s/shop/cart``); links that leave the site keep their
  address but do nothing, as in the engine.
- Every form posts (``method="post"``) to the page it is on, with hidden inputs naming the form
  (``_vw_form``, its bid) and, filled by the script, the widget state and a pressed key. Fields
  carry their scaffold names; submit, confirm and cancel buttons name themselves
  (``_vw_click`` = their bid). The server replays the post as the engine's own action.
- Regions (dialogs, collapsible content, menus, tab panels) carry the widget-state entry they
  follow; only a region that is closed itself carries ``hidden``, so the script can open it.
- Interactive elements are flagged (``data-vw-i``) for the engine's Tab order.
"""

from __future__ import annotations

import base64
import hashlib
import json
from functools import lru_cache
from html import escape
from importlib import resources
from typing import Any
from urllib.parse import urlsplit

from veriweb.engine.page import INTERACTIVE_ROLES, Node, PageModel
from veriweb.engine.render import html_page
from veriweb.engine.session import Session
from veriweb.server.wiring import Region, regions

STYLE = ("dialog{position:static;margin:.5em 0}body{font-family:system-ui,sans-serif;max-width:60rem;"
         "margin:1rem auto;padding:0 1rem;line-height:1.4}a,button,label{margin-right:.6em}form{margin:.5em 0}"
         "[role=alert]{color:#a00}[role=status]{color:#060}")
"""Spacing for people, nothing that changes the accessibility tree. Dialogs stay in the flow of
the page, so an open non-modal dialog covers nothing (as in the engine)."""

HIDDEN_INPUTS = ("_vw_form", "_vw_press", "_vw_focus", "_vw_widgets")
"""The hidden inputs of every form; the widget script fills all but ``_vw_form``."""


@lru_cache(maxsize=1)
def widget_script() -> str:
    """The widget script's source (``widgets.js`` beside this module)."""
    return resources.files("veriweb.server").joinpath("widgets.js").read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def script_hash() -> str:
    """The CSP hash source of the inline widget script."""
    digest = hashlib.sha256(widget_script().encode()).digest()
    return f"'sha256-{base64.b64encode(digest).decode()}'"


def content_security_policy() -> str:
    """The policy every site page is served with: only the widget script runs; forms post to this server."""
    return (f"default-src 'none'; script-src {script_hash()}; style-src 'unsafe-inline'; img-src 'self' data:; "
            "form-action 'self'; base-uri 'none'; frame-ancestors 'none'")


def is_external(href: str) -> bool:
    """Does ``href`` leave the site (a scheme or a network path)?"""
    return bool(urlsplit(href).scheme) or href.startswith("//")


def site_href(prefix: str, href: str) -> str:
    """A site-relative ``href`` under the site's path ``prefix``."""
    return prefix + (href if href.startswith("/") else "/" + href)


class ServerWiring:
    """Wires one page of one session for the browser (see the module docstring).

    Args:
        session: the session whose current page is rendered.
        prefix: the site's path on the server, such as ``/s/shop``.
    """

    def __init__(self, session: Session, prefix: str) -> None:
        self.session = session
        self.prefix = prefix
        self.page = session.page()
        self.regions: dict[str, Region] = regions(session)
        self.form_bids = {key: node.bid for key, node in self.page.by_key.items() if node.role == "form"}

    def head(self, page: PageModel) -> str:
        """The style sheet, the widget state and the widget script."""
        state = json.dumps({"widgets": self.session.ui.widgets}, sort_keys=True).replace("</", "<\\/")
        return (f"<style>{STYLE}</style>"
                f'<script type="application/json" id="vw-state">{state}</script>'
                f"<script>{widget_script()}</script>")

    def attrs(self, node: Node, attrs: dict[str, str | None]) -> None:
        """Add what the browser needs to ``node``'s attributes."""
        attrs.pop("hidden", None)
        if node.tag == "dialog":
            attrs.pop("open", None)
        region = self.regions.get(node.key)
        if region is not None:
            self._region(node, region, attrs)
        elif node.role == "dialog" and node is self.page.modal:
            attrs["data-vw-modal"] = "1"  # the confirmation dialog: always open while it exists
            attrs["open"] = None
            attrs["data-vw-confirm"] = f"vwf-{self.form_bids.get(node.key.rsplit(':', 1)[0], '')}"
        if node.role in INTERACTIVE_ROLES and not node.disabled:
            attrs["data-vw-i"] = None
        if node.required and node.tag in ("input", "select", "textarea"):
            attrs["required"] = None  # Chromium ignores aria-required on some controls (dates); forms are novalidate
        behaviour = node.behaviour or ()
        kind = behaviour[0] if behaviour else None
        if node.tag == "a" and node.href is not None:
            if is_external(node.href):
                attrs["data-vw-external"] = None
                if urlsplit(node.href).scheme.lower() not in ("http", "https", "mailto"):
                    attrs["href"] = "#"
            else:
                attrs["href"] = site_href(self.prefix, node.href)
        elif node.role == "form" and node.key in self.page.forms:
            attrs["id"] = f"vwf-{node.bid}"
            attrs["method"] = "post"
            attrs["action"] = site_href(self.prefix, self.page.url)
            attrs["novalidate"] = None
            attrs["autocomplete"] = "off"  # no field values restored on back and forward: the engine has none
        elif kind == "field":
            attrs["name"] = behaviour[2]
            if node.input_type == "password":
                info = self.page.forms.get(behaviour[1])
                value = self.session.ui.fields.get(info.fields[behaviour[2]]) if info else None
                if value is None and info is not None:
                    value = info.defaults.get(behaviour[2])
                attrs["value"] = "" if value is None else str(value)
        elif kind == "option" and node.role == "radio":
            attrs["name"] = behaviour[2]
        elif kind in ("submit", "confirm", "cancel"):
            attrs["type"] = "submit"
            attrs["name"] = "_vw_click"
            attrs["value"] = node.bid
            if kind == "submit":
                attrs["data-vw-submit"] = None
            else:
                attrs["form"] = f"vwf-{self.form_bids.get(behaviour[1], '')}"
        elif kind == "widget":
            attrs["data-vw-widget"] = behaviour[1]
            attrs["data-vw-op"] = behaviour[2]
            attrs["data-vw-default"] = "1" if behaviour[3] else "0"
        elif kind == "tab":
            cut = node.key.rfind(".tab")
            region = self.regions.get(f"{node.key[:cut]}.panel{node.key[cut + 4:]}")
            attrs["data-vw-tabs"] = behaviour[1]
            attrs["data-vw-index"] = str(behaviour[2])
            if region is not None:
                attrs["data-vw-default"] = str(_index(region.default))
                attrs["data-vw-count"] = str(region.count)

    def _region(self, node: Node, region: Region, attrs: dict[str, str | None]) -> None:
        attrs["data-vw-region"] = region.wkey
        attrs["data-vw-kind"] = region.kind
        if region.kind == "tabpanel":
            attrs["data-vw-index"] = str(region.index)
            attrs["data-vw-count"] = str(region.count)
            attrs["data-vw-default"] = str(_index(region.default))
        else:
            attrs["data-vw-default"] = "1" if region.default else "0"
        if region.modal:
            attrs["data-vw-modal"] = None
        if not region.open:
            attrs["hidden"] = None
        elif node.tag == "dialog":
            attrs["open"] = None

    def inner(self, node: Node) -> str:
        """The hidden inputs at the start of each form."""
        if node.role != "form" or node.key not in self.page.forms:
            return ""
        return (f'<input type="hidden" name="_vw_form" value="{escape(node.bid)}">'
                '<input type="hidden" name="_vw_press" value="">'
                '<input type="hidden" name="_vw_focus" value="">'
                '<input type="hidden" name="_vw_widgets" value="">')


def _index(value: Any) -> int:
    return int(value) if isinstance(value, int) else 0


def page_html(session: Session, prefix: str) -> str:
    """The session's current page as a working HTML document under ``prefix``.

    Memoised on the page model: a page state (URL, database version, widgets, field values,
    focus) always renders to the same document.
    """
    page = session.page()
    key = f"html:{prefix}"
    cached = page.renderings.get(key)
    if cached is None:
        wiring = ServerWiring(session, prefix)
        cached = page.renderings[key] = html_page(wiring.page, wiring)
    return cached

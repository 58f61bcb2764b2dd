"""Fixtures for the server tests: the app in process, a no-JavaScript browser over httpx."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest

from veriweb.cli import load_site
from veriweb.server import Catalog, create_app

TOKEN = "test-token"
SITE = "threadline"


@pytest.fixture()
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture()
def app() -> Any:
    """A fresh app serving the bundled example (as ``threadline``) with the token :data:`TOKEN`."""
    return create_app(Catalog.of([load_site(None)]), token=TOKEN)


@pytest.fixture()
async def http(app: Any) -> AsyncIterator[httpx.AsyncClient]:
    """An in-process client of ``app`` (cookies kept, redirects not followed)."""
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as client:
        yield client


@pytest.fixture()
def auth() -> dict[str, str]:
    """The control API's header."""
    return {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture(name="NoScriptBrowser")
def no_script_browser() -> type:
    """:class:`NoScriptBrowser`, the class (make one per client)."""
    return NoScriptBrowser


@dataclass
class Form:
    """A form as a browser without JavaScript sees it."""

    action: str
    attrs: dict[str, str]
    fields: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)
    buttons: list[tuple[str, str, str]] = field(default_factory=list)


class _Forms(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.forms: list[Form] = []
        self.by_id: dict[str, Form] = {}
        self.links: list[tuple[str, str]] = []
        self._form: Form | None = None
        self._button: tuple[str, str, str | None] | None = None
        self._link: str | None = None
        self._text: list[str] = []
        self._select: tuple[str, dict[str, Any]] | None = None

    def handle_starttag(self, tag: str, attrs_list: list[tuple[str, str | None]]) -> None:
        attrs = {k: v or "" for k, v in attrs_list}
        if tag == "form":
            self._form = Form(attrs.get("action", ""), attrs)
            self.forms.append(self._form)
            if "id" in attrs:
                self.by_id[attrs["id"]] = self._form
        elif tag == "input" and self._form is not None:
            kind = attrs.get("type", "text")
            if kind in ("checkbox", "radio") and "checked" not in attrs:
                attrs["unchecked"] = "1"
            self._form.fields.append((attrs.get("name", ""), attrs.get("value", ""), attrs))
        elif tag == "select" and self._form is not None:
            self._select = (attrs.get("name", ""), {"options": [], "selected": None, **attrs})
        elif tag == "option" and self._select is not None:
            self._select[1]["options"].append(attrs.get("value", ""))
            if "selected" in attrs or self._select[1]["selected"] is None:
                if "selected" in attrs or not self._select[1]["options"][:-1]:
                    self._select[1]["selected"] = attrs.get("value", "")
        elif tag == "textarea" and self._form is not None:
            self._button = ("textarea", attrs.get("name", ""), None)
            self._text = []
        elif tag == "button":
            self._button = (attrs.get("name", ""), attrs.get("value", ""), attrs.get("form"))
            self._text = []
        elif tag == "a":
            self._link = attrs.get("href")
            self._text = []

    def handle_data(self, data: str) -> None:
        self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        text = "".join(self._text).strip()
        if tag == "form":
            self._form = None
        elif tag == "select" and self._select is not None and self._form is not None:
            name, info = self._select
            self._form.fields.append((name, info["selected"] or "", {"type": "select", **info}))
            self._select = None
        elif tag == "textarea" and self._button is not None and self._form is not None:
            self._form.fields.append((self._button[1], "".join(self._text), {"type": "textarea"}))
            self._button = None
        elif tag == "button" and self._button is not None:
            name, value, owner = self._button
            target = self.by_id.get(owner) if owner else self._form
            if target is not None:
                target.buttons.append((text, name, value))
            self._button = None
        elif tag == "a" and self._link is not None:
            self.links.append((text, self._link))
            self._link = None


class NoScriptBrowser:
    """Links and forms over HTTP, as a browser with JavaScript off would use them."""

    def __init__(self, http: httpx.AsyncClient) -> None:
        self.http = http
        self.url = ""
        self.html = ""
        self.status = 0

    async def get(self, url: str) -> NoScriptBrowser:
        response = await self.http.get(url)
        hops = 0
        while response.status_code in (301, 302, 303, 307, 308) and hops < 5:
            url = response.headers["location"]
            response = await self.http.get(url)
            hops += 1
        self.url, self.html, self.status = url, response.text, response.status_code
        return self

    def parsed(self) -> _Forms:
        parser = _Forms()
        parser.feed(self.html)
        return parser

    async def click(self, text: str) -> NoScriptBrowser:
        """Follow the first link whose text is ``text``."""
        href = next(h for t, h in self.parsed().links if t == text)
        return await self.get(href)

    async def submit(self, button: str, values: dict[str, str] | None = None, *, nth: int = 0) -> httpx.Response:
        """Submit the form owning the ``nth`` button labelled ``button``, with ``values`` changed."""
        found = [(form, b) for form in self.parsed().forms for b in form.buttons if b[0] == button]
        form, (_, name, value) = found[nth]
        data: list[tuple[str, str]] = []
        for field_name, field_value, attrs in form.fields:
            if attrs.get("type") == "radio" and values and field_name in values:
                if field_value == values[field_name]:
                    data.append((field_name, field_value))
                continue
            if attrs.get("unchecked") and field_name not in (values or {}):
                continue
            if values and field_name in values:
                field_value = values[field_name]
                if attrs.get("type") == "checkbox" and not field_value:
                    continue
            data.append((field_name, field_value))
        if name:
            data.append((name, value))
        response = await self.http.post(form.action, content=urlencode(data),
                                        headers={"Content-Type": "application/x-www-form-urlencoded"})
        if response.status_code == 303:
            await self.get(response.headers["location"])
        return response

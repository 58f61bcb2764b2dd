"""Text templates (``"Price: {row.price|money}"``), route patterns, and URLs."""

from __future__ import annotations

import datetime as dt
import functools
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit

from veriweb.engine.query import Context
from veriweb.scaffold.values import REF_NAMESPACES

_PLACEHOLDER = re.compile(r"\{\{|\}\}|\{([a-z]+)\.([A-Za-z_][A-Za-z0-9_]*)(?:\|([a-z_]+))?\}")
_MONTHS = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()


def money(cents: Any) -> str:
    """Integer cents as ``$1,299.00`` (negative as ``-$5.00``); non-numbers as they are."""
    kind = type(cents)
    if kind is not int and (kind is bool or not isinstance(cents, (int, float))):
        return "" if cents is None else str(cents)
    sign = "-" if cents < 0 else ""
    whole, part = divmod(abs(cents if kind is int else int(round(cents))), 100)
    return f"{sign}${whole:,}.{part:02d}"


def nice_date(value: Any) -> str:
    """``2026-06-15`` as ``Jun 15, 2026``; anything else as it is."""
    text = "" if value is None else str(value)
    shown = _DATES.get(text)
    if shown is None:
        try:
            day = dt.date.fromisoformat(text[:10])
        except ValueError:
            shown = text
        else:
            shown = f"{_MONTHS[day.month - 1]} {day.day}, {day.year}"
        if len(_DATES) >= 65_536:
            _DATES.clear()
        _DATES[text] = shown
    return shown


_DATES: dict[str, str] = {}
""":func:`nice_date` by the value's text (a site's dates repeat on every page that lists them)."""


FILTERS = {
    "money": money,
    "date": nice_date,
    "upper": lambda v: str(v).upper(),
    "lower": lambda v: str(v).lower(),
    "title": lambda v: str(v).title(),
    "int": lambda v: str(int(v)) if isinstance(v, (int, float)) and not isinstance(v, bool) else str(v),
    "plural": lambda v: "" if v == 1 else "s",
    "num": lambda v: f"{v:,}" if isinstance(v, int) and not isinstance(v, bool) else as_text(v),
}


def as_text(value: Any) -> str:
    """A value as page text: ``None`` is empty, booleans are Yes/No, floats lose a ``.0``."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "Yes" if value else "No"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def render(template: str, ctx: Context, *, url: bool = False) -> str:
    """Fill a template's ``{namespace.name|filter}`` placeholders; ``{{`` and ``}}`` are braces.

    With ``url``, filled values are percent-encoded (for hrefs and redirects). An unknown
    namespace or filter is left as written, so a broken template shows as broken.
    """
    parts = _compile(template)
    if parts.__class__ is str:  # no placeholder: the template's text, made once
        return parts
    out = []
    for part in parts:
        if part.__class__ is str:
            out.append(part)
            continue
        namespace, name, filt = part
        value = getattr(ctx, namespace).get(name)
        if filt is not None:
            text = filt(value)
        elif value.__class__ is str:
            text = value
        else:
            text = as_text(value)
        out.append(_url_quote(text) if url else text)
    return "".join(out)


_URL_SAFE = re.compile(r"[A-Za-z0-9_.~-]*")


def _url_quote(text: str) -> str:
    return text if _URL_SAFE.fullmatch(text) else quote(text, safe="")


@functools.lru_cache(maxsize=8192)
def _compile(template: str) -> str | tuple[Any, ...]:
    """Split a template once into literal text and ``(namespace, name, filter)`` placeholders; a
    template with no placeholder is its text (a ``str``, not a tuple)."""
    parts: list[Any] = []
    literal, last = "", 0
    for match in _PLACEHOLDER.finditer(template):
        literal += template[last:match.start()]
        last = match.end()
        whole = match.group(0)
        namespace, name, filt = match.groups()
        if whole in ("{{", "}}"):
            literal += whole[0]
        elif namespace not in REF_NAMESPACES or (filt and filt not in FILTERS):
            literal += whole
        else:
            if literal:
                parts.append(literal)
            literal = ""
            parts.append((namespace, name, FILTERS[filt] if filt else None))
    literal += template[last:]
    if not parts:
        return literal
    if literal:
        parts.append(literal)
    return tuple(parts)


# ----------------------------------------------------------------------------- routes

_SEGMENT = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(?::(int|str|slug))?\}")
_KINDS = {"int": r"-?\d{1,18}", "str": r"[^/]+", "slug": r"[A-Za-z0-9_-]+"}


@dataclass(frozen=True)
class Route:
    """A compiled route pattern such as ``/product/{id:int}``."""

    page_id: str
    pattern: str
    regex: re.Pattern[str]
    params: tuple[tuple[str, str], ...]

    @classmethod
    def compile(cls, page_id: str, pattern: str) -> Route:
        """Compile ``pattern``; parameters are ``{name}``, ``{name:int}``, ``{name:str}`` or ``{name:slug}``."""
        regex, last, params = "", 0, []
        for match in _SEGMENT.finditer(pattern):
            regex += re.escape(pattern[last:match.start()])
            name, kind = match.group(1), match.group(2) or "str"
            regex += f"(?P<{name}>{_KINDS[kind]})"
            params.append((name, kind))
            last = match.end()
        regex += re.escape(pattern[last:])
        return cls(page_id, pattern, re.compile(f"^{regex}/?$"), tuple(params))

    def match(self, path: str) -> dict[str, Any] | None:
        """The typed parameters if ``path`` matches, else ``None``."""
        found = self.regex.match(path)
        if found is None:
            return None
        values: dict[str, Any] = {}
        for name, kind in self.params:
            raw = found.group(name)
            values[name] = int(raw) if kind == "int" else unquote(raw)
        return values


@dataclass(frozen=True)
class Url:
    """A site URL: its path and query parameters (first value of each name wins)."""

    path: str
    query: tuple[tuple[str, str], ...] = ()

    @classmethod
    def parse(cls, text: str) -> Url:
        """Parse a URL or path; scheme and host are dropped (every site lives at its own root)."""
        if cls is Url:
            return _parse_url(text)  # URLs are immutable values: each distinct text is parsed once
        return cls._parse(text)

    @classmethod
    def _parse(cls, text: str) -> Url:
        parts = urlsplit(text.strip())
        path = parts.path or "/"
        if not path.startswith("/"):
            path = "/" + path
        seen: dict[str, str] = {}
        for key, value in parse_qsl(parts.query, keep_blank_values=True):
            seen.setdefault(key, value)
        return cls(path, tuple(sorted(seen.items())))

    @property
    def params(self) -> dict[str, str]:
        """Query parameters as a dict."""
        return dict(self.query)

    def with_params(self, **changes: Any) -> Url:
        """A copy with query parameters set (``None`` removes one)."""
        items = tuple((key, None if value is None else str(value)) for key, value in changes.items())
        if self.__class__ is Url:
            return _with_params(self, items)  # pages make the same links again and again
        return _set_params(self, items)

    def __str__(self) -> str:
        return _url_text(self.path, self.query) if self.query else self.path


def _set_params(url: Url, changes: tuple[tuple[str, str | None], ...]) -> Url:
    params = url.params
    for key, value in changes:
        if value is None:
            params.pop(key, None)
        else:
            params[key] = value
    return Url(url.path, tuple(sorted(params.items())))


@functools.lru_cache(maxsize=16_384)
def _with_params(url: Url, changes: tuple[tuple[str, str | None], ...]) -> Url:
    """:meth:`Url.with_params`, made once per URL and changes (URLs are immutable values)."""
    return _set_params(url, changes)


@functools.lru_cache(maxsize=16_384)
def _parse_url(text: str) -> Url:
    return Url._parse(text)


@functools.lru_cache(maxsize=16_384)
def _url_text(path: str, query: tuple[tuple[str, str], ...]) -> str:
    """A URL's text, made once per distinct URL (``urlencode`` is slow)."""
    return path + "?" + urlencode(query)

"""Form posts from the browser, checked against the page and turned into the engine's own action.

A post carries the form's bid (``_vw_form``), its field values by name, the button that sent
it (``_vw_click``) or a key pressed in a field (``_vw_press`` with ``_vw_focus``), and the
widget state of the page (``_vw_widgets``). Every value is checked against what the engine
could have reached by actions on that page: a drop-down's value must be one of its options, a
date a date, a widget key one of the page's. Anything else is a :class:`BadPost` (a 4xx) and
nothing changes. A valid post becomes field values, widget state and one action
(``click`` on the button, or ``press`` of the key), which the session then steps through as if
an agent had done it in process.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from typing import Any

from veriweb.engine import actions as A
from veriweb.engine.page import FormInfo, PageModel
from veriweb.server.wiring import Region

MAX_FIELD = 20_000
"""The longest value a field may carry, in characters."""

MAX_FIELDS = 400
"""The most name/value pairs one post may carry."""


class BadPost(Exception):
    """A post that does not fit the page; ``status`` is the HTTP status to answer with."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Post:
    """A checked post: the field values that differ from the page's, the widget state, the action."""

    form_key: str
    fields: dict[str, Any]
    widgets: dict[str, Any] | None
    action: A.Action


def check_post(page: PageModel, current: dict[str, Any], regions: dict[str, Region],
               pairs: list[tuple[str, str]]) -> Post:
    """Check a post against ``page`` and say what it does.

    Args:
        page: the page the form is on (the session's current page).
        current: the session's field edits (``UIState.fields``).
        regions: the page's widget regions (for the widget keys a post may set).
        pairs: the posted name/value pairs, in order.

    Raises:
        BadPost: the post does not fit the page.
    """
    if len(pairs) > MAX_FIELDS:
        raise BadPost(f"a form post carries at most {MAX_FIELDS} fields", 413)
    data: dict[str, str] = {}
    for name, value in pairs:
        if name in data:
            raise BadPost(f"field {name[:40]!r} is posted twice; post each field once")
        if len(value) > MAX_FIELD:
            raise BadPost(f"field {name[:40]!r} is longer than {MAX_FIELD} characters", 413)
        data[name] = value
    form_bid = data.pop("_vw_form", None)
    if form_bid is None:
        raise BadPost("not a form of this site: _vw_form is missing; submit a form from the page")
    node = page.by_bid.get(form_bid)
    info = page.forms.get(node.key) if node is not None and node.role == "form" else None
    if info is None:
        raise BadPost(f"there is no form [{form_bid[:20]}] on {page.url}; reload the page and submit again")
    widgets = _widgets(data.pop("_vw_widgets", ""), page, regions)
    press, focus, click = data.pop("_vw_press", ""), data.pop("_vw_focus", ""), data.pop("_vw_click", "")
    fields = _fields(info, current, data)
    if data:
        unknown = ", ".join(sorted(repr(k[:40]) for k in data)[:5])
        raise BadPost(f"unknown field(s) {unknown} for this form")
    return Post(info.key, fields, widgets, _action(page, info, press, focus, click))


def _fields(info: FormInfo, current: dict[str, Any], data: dict[str, str]) -> dict[str, Any]:
    changed: dict[str, Any] = {}
    for field_el in info.form.fields:
        key = info.fields[field_el.name]
        raw = data.pop(field_el.name, None)
        kind = field_el.type
        if kind == "checkbox":
            if raw not in (None, "on"):
                raise BadPost(f"checkbox {field_el.name!r} posts 'on' or nothing, not {raw[:20]!r}")
            value: Any = raw == "on"
        elif raw is None:
            continue  # an unchecked radio group, or a field the browser left out: as it was
        elif kind in ("select", "radio"):
            options = [v for v, _ in info.options.get(field_el.name, [])]
            if raw not in options:
                raise BadPost(f"{raw[:40]!r} is not an option of {field_el.name!r}")
            value = raw
        elif kind == "date":
            if raw and not _is_date(raw):
                raise BadPost(f"field {field_el.name!r} is a date: post YYYY-MM-DD, not {raw[:20]!r}")
            value = raw
        else:
            value = raw.replace("\r\n", "\n").replace("\r", "\n")
        before = current.get(key, info.defaults.get(field_el.name))
        if kind == "checkbox":
            before = bool(before)
        elif before is not None:
            before = str(before)
        if value != (before if before is not None else ("" if kind != "checkbox" else False)):
            changed[key] = value
    return changed


def _widgets(text: str, page: PageModel, regions: dict[str, Region]) -> dict[str, Any] | None:
    if not text:
        return None
    if len(text) > 16_000:
        raise BadPost("_vw_widgets is too long", 413)
    try:
        value = json.loads(text)
    except ValueError:
        raise BadPost("_vw_widgets is not JSON; it is the widget state the page's script posts") from None
    if not isinstance(value, dict):
        raise BadPost("_vw_widgets must be a JSON object of widget keys")
    known = {region.wkey for region in regions.values()}
    known.update(n.behaviour[1] for n in page.nodes if n.behaviour and n.behaviour[0] in ("widget", "tab"))
    for key, state in value.items():
        if key not in known:
            raise BadPost(f"there is no widget {key[:40]!r} on this page")
        if not isinstance(state, (bool, int)) or (isinstance(state, int) and not -1 <= state < 1000):
            raise BadPost(f"widget {key[:40]!r} takes true, false or a tab number")
    return value


def _action(page: PageModel, info: FormInfo, press: str, focus: str, click: str) -> A.Action:
    if press:
        node = page.by_bid.get(focus)
        if press not in ("Enter", "Escape") or node is None:
            raise BadPost("_vw_press takes Enter or Escape, with _vw_focus naming an element of the page")
        if press == "Enter" and not (node.behaviour and node.behaviour[0] == "field" and node.behaviour[1] == info.key
                                     and node.role in ("textbox", "date") and node.input_type != "textarea"):
            raise BadPost("Enter submits a form only from one of its one-line fields")
        return A.Press(focus, press)
    node = page.by_bid.get(click)
    behaviour = node.behaviour if node is not None else None
    if not behaviour or behaviour[0] not in ("submit", "confirm", "cancel") or behaviour[1] != info.key:
        raise BadPost("_vw_click must name this form's submit button (or its confirm or cancel button)")
    return A.Click(click)


def _is_date(text: str) -> bool:
    try:
        dt.date.fromisoformat(text)
    except ValueError:
        return False
    return len(text) == 10

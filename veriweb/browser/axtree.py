"""Chromium's accessibility tree and the engine's page model, in one comparable form.

Both sides become a list of :class:`AXNode`, one per engine element, in document order. The
engine side is :func:`engine_view` of a page model; the browser side is :func:`browser_view`,
read through CDP (``Accessibility.getFullAXTree`` and ``DOM.getDocument``) from the live page.
:func:`diff` lists every difference; parity means the list is empty.

How Chromium's nodes are normalised (each rule, and nothing else):

1. **Which nodes.** Only AX nodes whose DOM element carries ``data-bid`` count; every other node
   is transparent (label wrappers, a dialog's title heading, hidden inputs, and the nodes
   Chromium adds itself: ``LabelText``, ``MenuListPopup``, table row groups, ``generic``
   wrappers, ``StaticText`` and ``InlineTextBox``). Order is the AX tree's depth-first order;
   ``parent`` is the nearest ancestor that carries a bid.
2. **Hidden elements.** Chromium leaves ``display: none`` elements out of its tree. So the tree
   is read twice: as shown (an element is *visible* when it is in this tree and not ignored),
   and with every ``hidden`` attribute removed for a moment (closed dialogs also get ``open``)
   to read the roles, names and states of the hidden ones. The page is restored at once.
3. **Roles.** Chromium's role names, except ``Date`` (an ``<input type="date">``), which is
   the engine's ``date``.
4. **Names and text.** Whitespace is collapsed and trimmed on both sides. Chromium names cells
   and rows from their content; the engine does not (their content is their child elements),
   so those contents-derived names are dropped. An element's *text* is its own text: the
   ``StaticText`` directly under it, except for roles that take their name from their content
   in the engine's HTML (link, button, heading, tab, option, column header, menu item), whose
   content is their name.
5. **Values.** Text boxes, dates and drop-downs: the AX value. Options and radio buttons: the
   engine's value is the value they submit, which the AX tree does not expose, so it is read
   from the element's ``value`` attribute. Every other role: none.
6. **States.** ``checked`` (true/false) for checkboxes and radio buttons; ``selected`` for
   options and tabs; ``expanded`` where Chromium reports it; ``disabled``, ``required`` and
   ``focused`` as booleans (absent is false); heading ``level``. Chromium's tree has no
   required state for dates and drop-downs: theirs is read from the ``required`` attribute.
   Focus on a part of an element that has no bid (the month field of a date input) is focus
   on that element.
7. **Links.** The AX URL, less the server's origin and the site's path, parsed as the engine
   parses URLs (so query order and encoding do not matter).
8. **Focus on hidden elements.** The engine keeps focus on an element that an action hid
   (Escape closing the dialog that holds it); a browser cannot focus a hidden element, so the
   engine's view counts focus on visible elements only.
9. **Empty paragraphs.** A paragraph with no text and no children shows nothing; Chromium
   leaves it out of its tree, so the engine's view leaves it out too.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, fields
from typing import Any

from veriweb.engine.page import PageModel
from veriweb.engine.templates import Url

CONTENT_NAMED = frozenset({"link", "button", "heading", "tab", "option", "columnheader", "menuitem"})
"""Roles whose content is their name in the engine's HTML (so their own text is empty)."""

UNNAMED_BY_CONTENT = frozenset({"cell", "row", "gridcell", "rowheader"})
"""Roles Chromium names from their content and the engine does not name at all."""

VALUED = frozenset({"textbox", "date", "combobox"})
"""Roles whose value is the AX value."""

FORM_VALUED = frozenset({"option", "radio"})
"""Roles whose engine value is the value they submit (read from the DOM)."""

DOM_REQUIRED = frozenset({"date", "combobox"})
"""Roles whose required state Chromium's tree leaves out (read from the ``required`` attribute)."""

_ROLES = {"Date": "date", "DateTime": "date"}

_SPACE = re.compile(r"\s+")


def norm(text: str | None) -> str:
    """Whitespace collapsed and trimmed."""
    return _SPACE.sub(" ", text or "").strip()


@dataclass(frozen=True)
class AXNode:
    """One element as both sides can describe it."""

    bid: str
    role: str
    name: str
    text: str
    value: str
    checked: bool | None
    selected: bool | None
    expanded: bool | None
    disabled: bool
    required: bool
    focused: bool
    visible: bool
    level: int | None
    parent: str
    href: str | None


FIELDS = tuple(f.name for f in fields(AXNode) if f.name != "bid")


def _href(href: str | None) -> str | None:
    if href is None:
        return None
    if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", href) or href.startswith("//"):
        return href
    return str(Url.parse(href))


def engine_view(page: PageModel) -> list[AXNode]:
    """The engine's page model as :class:`AXNode` entries (every element, hidden ones included)."""
    out = []
    for node in page.nodes:
        if node.role == "paragraph" and not node.text.strip() and not node.children:
            continue  # nothing to show: Chromium leaves empty paragraphs out (rule 9)
        if node.role in VALUED or node.role in FORM_VALUED:
            value = node.value or ""
        else:
            value = ""
        out.append(AXNode(
            bid=node.bid, role=node.role, name=norm(node.name),
            text="" if node.role in CONTENT_NAMED else norm(node.text), value=value,
            checked=node.checked if node.role in ("checkbox", "radio") else None,
            selected=node.selected if node.role in ("option", "tab") else None,
            expanded=node.expanded, disabled=node.disabled, required=node.required,
            focused=node.focused and node.visible,
            visible=node.visible, level=node.level if node.role == "heading" else None,
            parent=node.parent.bid if node.parent is not None else "",
            href=_href(node.href) if node.role == "link" else None))
    return out


# ----------------------------------------------------------------------------- the browser side

_REVEAL = """() => {
  const found = document.querySelectorAll('[hidden]');
  for (const el of found) {
    el.setAttribute('data-vw-revealed', '');
    el.hidden = false;
    if (el.tagName === 'DIALOG' && !el.hasAttribute('open')) {
      el.setAttribute('data-vw-reopened', '');
      el.setAttribute('open', '');
    }
  }
  return found.length;
}"""

_RESTORE = """() => {
  for (const el of document.querySelectorAll('[data-vw-revealed]')) {
    el.removeAttribute('data-vw-revealed');
    el.hidden = true;
    if (el.hasAttribute('data-vw-reopened')) {
      el.removeAttribute('data-vw-reopened');
      el.removeAttribute('open');
    }
  }
}"""


def _dom_bids(cdp: Any) -> dict[int, dict[str, str]]:
    """Attributes of every element with a ``data-bid``, by backend node id."""
    root = cdp.send("DOM.getDocument", {"depth": -1})["root"]
    out: dict[int, dict[str, str]] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        attrs = node.get("attributes")
        if attrs and "data-bid" in attrs[::2]:
            out[node["backendNodeId"]] = dict(zip(attrs[::2], attrs[1::2]))
        stack.extend(node.get("children", ()))
    return out


def _props(node: dict[str, Any]) -> dict[str, Any]:
    return {p["name"]: p.get("value", {}).get("value") for p in node.get("properties", ())}


def _walk(tree: list[dict[str, Any]], dom: dict[int, dict[str, str]],
          focus: set[str] | None = None) -> list[tuple[dict[str, Any], str, str, str]]:
    """(AX node, bid, parent bid, own text) for every bid-carrying node, depth first.

    Focus on a node without a bid inside one with a bid (a date input's month field) is added
    to ``focus`` as the focus of that element.
    """
    by_id = {n["nodeId"]: n for n in tree}
    roots = [n for n in tree if not n.get("parentId") or n["parentId"] not in by_id]
    out: list[tuple[dict[str, Any], str, str, str]] = []
    seen: set[str] = set()
    stack: list[tuple[dict[str, Any], str]] = [(r, "") for r in reversed(roots)]
    while stack:
        node, parent_bid = stack.pop()
        attrs = dom.get(node.get("backendDOMNodeId", -1))
        bid = attrs.get("data-bid") if attrs is not None else None
        here = parent_bid
        if bid is not None and bid not in seen and not node.get("ignored"):
            seen.add(bid)
            own = [by_id[c] for c in node.get("childIds", ()) if c in by_id]
            text = "".join(c.get("name", {}).get("value", "") for c in own
                           if c.get("role", {}).get("value") == "StaticText")
            out.append((node, bid, parent_bid, text))
            here = bid
        elif focus is not None and parent_bid and _props(node).get("focused"):
            focus.add(parent_bid)
        children = [by_id[c] for c in node.get("childIds", ()) if c in by_id]
        stack.extend((child, here) for child in reversed(children))
    return out


def read_tree(cdp: Any) -> list[dict[str, Any]]:
    """Chromium's full accessibility tree of the page (its CDP nodes)."""
    return cdp.send("Accessibility.getFullAXTree")["nodes"]


def dom_bids(cdp: Any) -> dict[int, dict[str, str]]:
    """Attributes of every element with a ``data-bid``, by backend node id (valid for one document)."""
    return _dom_bids(cdp)


def browser_view(page: Any, cdp: Any, prefix: str, *, hidden: bool = True,
                 dom: dict[int, dict[str, str]] | None = None) -> list[AXNode]:
    """The live page's accessibility tree as :class:`AXNode` entries.

    Args:
        page: the Playwright page.
        cdp: a CDP session of that page.
        prefix: the server origin and site path to strip from link URLs (``http://127.0.0.1:8000/s/shop``).
        hidden: also read the hidden elements (rule 2); without, only what is shown.
        dom: :func:`dom_bids` of the current document, if already read (the widget script
            adds and removes no elements, so it holds until the next page load).
    """
    dom = dom if dom is not None else _dom_bids(cdp)
    focus: set[str] = set()
    shown = _walk(read_tree(cdp), dom, focus)
    visible = {bid for _, bid, _, _ in shown}
    entries = shown
    if hidden and len(visible) < len(dom) and page.evaluate(_REVEAL):
        try:
            entries = _walk(read_tree(cdp), dom)
        finally:
            page.evaluate(_RESTORE)
    out = []
    for node, bid, parent, own_text in entries:
        role = node.get("role", {}).get("value", "")
        role = _ROLES.get(role, role)
        props = _props(node)
        attrs = dom.get(node.get("backendDOMNodeId", -1), {})
        name = norm(node.get("name", {}).get("value", ""))
        if role in UNNAMED_BY_CONTENT:
            name = ""
        if role in VALUED:
            value = norm(str(node.get("value", {}).get("value", "") or "")) if role != "textbox" else str(
                node.get("value", {}).get("value", "") or "")
        elif role in FORM_VALUED:
            value = attrs.get("value", "")
        else:
            value = ""
        checked = props.get("checked")
        out.append(AXNode(
            bid=bid, role=role, name=name, text="" if role in CONTENT_NAMED else norm(own_text), value=value,
            checked=(checked == "true" or checked is True) if role in ("checkbox", "radio") else None,
            selected=bool(props.get("selected")) if role in ("option", "tab") else None,
            expanded=props.get("expanded") if "expanded" in props else None,
            disabled=bool(props.get("disabled")),
            required=bool(props.get("required")) or (role in DOM_REQUIRED and "required" in attrs),
            focused=bool(props.get("focused")) or bid in focus, visible=bid in visible,
            level=int(props["level"]) if role == "heading" and props.get("level") is not None else None,
            parent=parent, href=_browser_href(props.get("url"), prefix) if role == "link" else None))
    return out


def _browser_href(url: str | None, prefix: str) -> str | None:
    if url is None:
        return None
    if url.startswith(prefix):
        return _href(url[len(prefix):] or "/")
    return url


# ----------------------------------------------------------------------------- comparing


def diff(engine: list[AXNode], browser: list[AXNode], *, limit: int = 50) -> list[str]:
    """Every difference between the two views, one line each (at most ``limit``); empty means parity."""
    out: list[str] = []
    mine = {n.bid: n for n in engine}
    theirs = {n.bid: n for n in browser}
    order_engine = [n.bid for n in engine]
    order_browser = [n.bid for n in browser]
    for bid in order_engine:
        if bid not in theirs:
            node = mine[bid]
            out.append(f"[{bid}] {node.role} {node.name or node.text!r}: missing in Chromium's tree")
    for bid in order_browser:
        if bid not in mine:
            node = theirs[bid]
            out.append(f"[{bid}] {node.role} {node.name or node.text!r}: in Chromium's tree, not in the engine's")
    common_engine = [b for b in order_engine if b in theirs]
    common_browser = [b for b in order_browser if b in mine]
    if common_engine != common_browser:
        first = next(i for i, (a, b) in enumerate(zip(common_engine, common_browser)) if a != b)
        out.append(f"order differs from position {first}: engine {common_engine[first:first + 5]}, "
                   f"Chromium {common_browser[first:first + 5]}")
    for bid in common_engine:
        a, b = asdict(mine[bid]), asdict(theirs[bid])
        for name in FIELDS:
            if a[name] != b[name]:
                out.append(f"[{bid}] {a['role']} {a['name'] or a['text']!r}: {name} engine={a[name]!r} "
                           f"Chromium={b[name]!r}")
    return out[:limit]

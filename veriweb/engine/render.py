"""The three renderings of one page model: accessibility-tree text, element list, and HTML.

The accessibility tree follows BrowserGym's text style (``[12] link 'Cart'``), one node a line,
indented by depth; invisible nodes are left out of the text, as a browser leaves out what is
not displayed. The element list keeps every node (with ``visible``), and only fields that any
browser-like source can fill (a real browser's DOM, MiniWoB++'s ``dom_elements``): no engine
internals. The HTML carries each element's id in ``data-bid``.
"""

from __future__ import annotations

from html import escape
from typing import Any, Protocol

from veriweb.engine.page import Node, PageModel

ELEMENT_FIELDS = ("bid", "role", "name", "text", "value", "checked", "selected", "expanded", "disabled",
                  "required", "focused", "visible", "interactable", "editable", "parent", "depth")
"""The fields of each entry of :func:`element_list`, in order."""


def _quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n") + "'"


def node_line(node: Node) -> str:
    """One accessibility-tree line: ``[bid] role 'name'`` and its states."""
    label = node.name or node.text
    parts = [f"[{node.bid}] {node.role} {_quote(label)}"]
    if node.value is not None and node.role not in ("option", "radio"):
        parts.append(f"value={_quote(node.value)}")
    if node.level is not None:
        parts.append(f"level={node.level}")
    if node.checked is not None:
        parts.append(f"checked={'true' if node.checked else 'false'}")
    if node.selected is not None:
        parts.append(f"selected={node.selected}")
    if node.expanded is not None:
        parts.append(f"expanded={node.expanded}")
    if node.focused:
        parts.append("focused")
    if node.required:
        parts.append("required")
    if node.disabled:
        parts.append("disabled")
    if node.role == "link" and node.href:
        parts.append(f"url={_quote(node.href)}")
    return ", ".join(parts)


def axtree_text(page: PageModel) -> str:
    """The page as BrowserGym-style accessibility-tree text (visible nodes only)."""
    cached = page.renderings.get("axtree")
    if cached is None:
        cached = page.renderings["axtree"] = _axtree_text(page)
    return cached


def _axtree_text(page: PageModel) -> str:
    lines = [f"RootWebArea {_quote(page.title)}"]
    lines.extend("\t" * node.depth + node_line(node) for node in page.nodes if node.visible)
    return "\n".join(lines)


def element_list(page: PageModel) -> list[dict[str, Any]]:
    """Every node as a dict of :data:`ELEMENT_FIELDS` (``parent`` is the parent's bid or ``""``).

    The list is shared by every caller of the same page state: treat it as read-only.
    """
    cached = page.renderings.get("elements")
    if cached is None:
        cached = page.renderings["elements"] = _element_list(page)
    return cached


def _element_list(page: PageModel) -> list[dict[str, Any]]:
    out = []
    for node in page.nodes:
        out.append({
            "bid": node.bid, "role": node.role, "name": node.name, "text": node.text,
            "value": node.value if node.value is not None else "",
            "checked": node.checked, "selected": node.selected, "expanded": node.expanded,
            "disabled": node.disabled, "required": node.required, "focused": node.focused,
            "visible": node.visible, "interactable": node.interactable, "editable": node.editable,
            "parent": node.parent.bid if node.parent is not None else "", "depth": node.depth,
        })
    return out


# ----------------------------------------------------------------------------- HTML

_VOID = {"input"}


class HtmlWiring(Protocol):
    """What a server adds to :func:`html_page` to make the page work in a real browser.

    The default HTML (no wiring) is a static picture of the page model; ``veriweb.server``
    wires it: hrefs under the site's path, real forms, and hooks for the widget script.
    """

    def head(self, page: PageModel) -> str:
        """Markup for the end of ``<head>`` (a style sheet, the widget script)."""
        ...

    def attrs(self, node: Node, attrs: dict[str, str | None]) -> None:
        """Adjust ``node``'s attributes in place (``None`` values are bare attributes)."""
        ...

    def inner(self, node: Node) -> str:
        """Markup at the start of ``node``'s content (a form's hidden inputs), or ``""``."""
        ...


def _attrs(node: Node, wiring: HtmlWiring | None = None) -> str:
    attrs: dict[str, str | None] = {"data-bid": node.bid}
    if node.role not in _IMPLICIT.get(node.tag, ()):
        attrs["role"] = node.role
    if node.tag == "a" and node.href is not None:
        attrs["href"] = node.href
    if node.role in ("textbox", "date", "combobox", "checkbox", "radiogroup", "form", "dialog", "group",
                     "menu", "tabpanel", "table", "navigation", "region", "main", "banner", "contentinfo",
                     "complementary", "search") and node.name:
        attrs["aria-label"] = node.name
    if node.tag == "input":
        attrs["type"] = {"textbox": "text"}.get(node.input_type or "", node.input_type or "text")
        if node.input_type not in ("checkbox", "radio"):
            attrs["value"] = node.value or ""
        else:
            attrs["value"] = node.value if node.role == "radio" else "on"
    if node.tag == "option":
        attrs["value"] = node.value or ""
    if node.checked:
        attrs["checked"] = None
    if node.role == "option" and node.selected:
        attrs["selected"] = None
    if node.role == "tab":
        attrs["aria-selected"] = "true" if node.selected else "false"
    if node.expanded is not None and node.role != "combobox":
        attrs["aria-expanded"] = "true" if node.expanded else "false"
    if node.required:
        attrs["aria-required"] = "true"
    if node.disabled:
        attrs["disabled"] = None
    if not node.visible:
        attrs["hidden"] = None
    if node.role == "dialog" and node.visible:
        attrs["open"] = None
    if node.tag == "button":
        attrs["type"] = "submit" if node.behaviour and node.behaviour[0] in ("submit", "confirm") else "button"
    if node.focused:
        attrs["autofocus"] = None
    if wiring is not None:
        wiring.attrs(node, attrs)
    return "".join(f" {k}" if v is None else f' {k}="{escape(v, quote=True)}"' for k, v in attrs.items())


_IMPLICIT = {
    "a": ("link",), "button": ("button",), "h1": ("heading",), "h2": ("heading",), "h3": ("heading",),
    "h4": ("heading",), "h5": ("heading",), "h6": ("heading",), "p": ("paragraph",), "ul": ("list",),
    "li": ("listitem",), "table": ("table",), "tr": ("row",), "th": ("columnheader",), "td": ("cell",),
    "select": ("combobox",), "option": ("option",), "textarea": ("textbox",), "nav": ("navigation",),
    "main": ("main",), "header": ("banner",), "footer": ("contentinfo",), "aside": ("complementary",),
    "form": ("form",), "dialog": ("dialog",), "fieldset": ("group",), "search": ("search",),
}


def _html_node(node: Node, out: list[str], wiring: HtmlWiring | None = None) -> None:
    tag = node.tag if node.tag != "body" else "div"
    attrs = _attrs(node, wiring)
    if node.tag == "input":
        if node.input_type in ("checkbox", "radio"):
            out.append(f"<label><input{attrs}> {escape(node.name)}</label>")
        else:
            out.append(f"<label>{escape(node.name)} <input{attrs}></label>")
        return
    if node.tag == "textarea":
        out.append(f"<label>{escape(node.name)} <textarea{attrs}>{escape(node.value or '')}</textarea></label>")
        return
    if node.tag == "select":
        out.append(f"<label>{escape(node.name)} <select{attrs}>")
        for child in node.children:
            _html_node(child, out, wiring)
        out.append("</select></label>")
        return
    out.append(f"<{tag}{attrs}>")
    if wiring is not None:
        out.append(wiring.inner(node))
    if node.role in ("heading", "link", "button", "tab", "option", "columnheader"):
        out.append(escape(node.name))
    elif node.text:
        out.append(escape(node.text))
    if node.role == "dialog" and node.name:
        out.append(f"<h2>{escape(node.name)}</h2>")
    for child in node.children:
        _html_node(child, out, wiring)
    out.append(f"</{tag}>")


def html_page(page: PageModel, wiring: HtmlWiring | None = None) -> str:
    """The page as a complete HTML document; every element carries its ``data-bid``.

    With ``wiring`` (the HTTP server's), links, forms and widgets work in a real browser.
    """
    head = wiring.head(page) if wiring is not None else ""
    out = ["<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>{escape(page.title)}</title>{head}</head><body>"]
    for child in page.root.children:
        _html_node(child, out, wiring)
    out.append("</body></html>")
    return "".join(out)

"""Small builders for scaffold JSON: elements, queries, predicates, markers. Each returns plain data."""

from __future__ import annotations

from typing import Any

Data = dict[str, Any]

# ----------------------------------------------------------------------------- values and queries


def ref(name: str) -> Data:
    """A reference such as ``ref("row.id")``."""
    return {"ref": name}


def cond(column: str, value: Any, op: str = "=", *, skip_if_empty: bool = False) -> Data:
    """One condition of a query."""
    out: Data = {"column": column, "op": op, "value": value}
    if skip_if_empty:
        out["skip_if_empty"] = True
    return out


def query(table: str, *where: Data, order: list[tuple[str, str]] | None = None, limit: int | None = None) -> Data:
    """A row query; ``order`` is a list of ``(column, "asc"|"desc")``."""
    out: Data = {"table": table}
    if where:
        out["where"] = list(where)
    if order:
        out["order_by"] = [{"column": c, "dir": d} for c, d in order]
    if limit is not None:
        out["limit"] = limit
    return out


def scalar(table: str, select: str, *where: Data, order: list[tuple[str, str]] | None = None,
           agg: str | None = None) -> Data:
    """A scalar query value (``{"query": ...}``)."""
    out = query(table, *where, order=order)
    out["select"] = select
    if agg:
        out["agg"] = agg
    return {"query": out}


# ----------------------------------------------------------------------------- predicates


def exists(table: str, *where: Data, negate: bool = False) -> Data:
    """At least one row matches (or none, with ``negate``)."""
    out: Data = {"kind": "exists", "query": query(table, *where)}
    if negate:
        out["negate"] = True
    return out


def count(table: str, *where: Data, op: str = "=", value: Any) -> Data:
    """The number of matching rows compares to ``value``."""
    return {"kind": "count", "query": query(table, *where), "op": op, "value": value}


def compare(left: Any, op: str, right: Any) -> Data:
    """``left op right``."""
    return {"kind": "compare", "left": left, "op": op, "right": right}


def on_page(page: str, **params: Any) -> Data:
    """The browser is on page ``page`` with these route parameters."""
    return {"kind": "page", "page": page, "params": params}


def sql(text: str, **params: Any) -> Data:
    """Raw read-only SQL predicate (``:user_id`` and ``:today`` are bound automatically)."""
    out: Data = {"kind": "sql", "sql": text}
    if params:
        out["params"] = params
    return out


def all_of(*items: Data) -> Data:
    """Every item holds."""
    return {"kind": "all", "items": list(items)}


def any_of(*items: Data) -> Data:
    """Some item holds."""
    return {"kind": "any", "items": list(items)}


def negate(item: Data) -> Data:
    """The item does not hold."""
    return {"kind": "not", "item": item}


# ----------------------------------------------------------------------------- elements


def heading(text: str, level: int = 2) -> Data:
    return {"type": "heading", "text": text, "level": level}


def text(value: str) -> Data:
    return {"type": "text", "text": value}


def link(label: str, href: str) -> Data:
    return {"type": "link", "text": label, "href": href}


def button(label: str, target: str, action: str = "toggle") -> Data:
    return {"type": "button", "text": label, "target": target, "action": action}


def section(elements: list[Data], role: str = "group", label: str = "") -> Data:
    out: Data = {"type": "section", "role": role, "elements": elements}
    if label:
        out["label"] = label
    return out


def textbox(name: str, label: str, *, kind: str = "textbox", required: bool = False, value: Any = None,
            placeholder: str = "") -> Data:
    """A text, password, textarea or date field."""
    out: Data = {"type": kind, "name": name, "label": label}
    if required:
        out["required"] = True
    if value is not None:
        out["value"] = value
    if placeholder:
        out["placeholder"] = placeholder
    return out


def select(name: str, label: str, options: list[tuple[str, str]] | None = None, *,
           options_query: Data | None = None, value: Any = None, required: bool = False) -> Data:
    out: Data = {"type": "select", "name": name, "label": label,
                 "options": [{"value": v, "label": lab} for v, lab in (options or [])]}
    if options_query is not None:
        out["options_query"] = options_query
    if value is not None:
        out["value"] = value
    if required:
        out["required"] = True
    return out


def radio(name: str, label: str, options: list[tuple[str, str]], *, value: Any = None) -> Data:
    out: Data = {"type": "radio", "name": name, "label": label,
                 "options": [{"value": v, "label": lab} for v, lab in options]}
    if value is not None:
        out["value"] = value
    return out


def checkbox(name: str, label: str, *, checked: bool = False) -> Data:
    out: Data = {"type": "checkbox", "name": name, "label": label}
    if checked:
        out["checked"] = True
    return out


def form(submit: str, action: Data, fields: list[Data] | None = None, *, label: str = "",
         confirm: Data | None = None) -> Data:
    out: Data = {"type": "form", "submit": submit, "action": action, "fields": fields or []}
    if label:
        out["label"] = label
    if confirm is not None:
        out["confirm"] = confirm
    return out


def marker_action(marker: str, args: dict[str, Any], *, redirect: str | None = None,
                  message: str | None = None) -> Data:
    out: Data = {"kind": "marker", "marker": marker, "args": args}
    if redirect:
        out["redirect"] = redirect
    if message:
        out["success_message"] = message
    return out


def navigate_action(route: str) -> Data:
    return {"kind": "navigate", "route": route}


def confirm(title: str, yes: str, no: str = "Cancel", body: str = "") -> Data:
    out: Data = {"title": title, "confirm": yes, "cancel": no}
    if body:
        out["text"] = body
    return out


def listing(name: str, q: Data, item: list[Data], *, page_size: int | None = None,
            sorts: list[tuple[str, str, str, str]] | None = None, empty: str = "Nothing here yet.") -> Data:
    """A list; ``sorts`` are ``(key, label, column, dir)``."""
    out: Data = {"type": "list", "name": name, "query": q, "item": item, "empty_text": empty}
    if page_size:
        out["page_size"] = page_size
    if sorts:
        out["sorts"] = [{"key": k, "label": lab, "column": c, "dir": d} for k, lab, c, d in sorts]
    return out


def table(name: str, q: Data, columns: list[tuple[str, list[Data]]], *, label: str = "",
          page_size: int | None = None, sorts: list[tuple[str, str, str, str]] | None = None,
          empty: str = "Nothing here yet.") -> Data:
    """A table; ``columns`` are ``(header, cell elements)``."""
    out: Data = {"type": "table", "name": name, "query": q, "empty_text": empty,
                 "columns": [{"header": h, "cell": cell} for h, cell in columns]}
    if label:
        out["label"] = label
    if page_size:
        out["page_size"] = page_size
    if sorts:
        out["sorts"] = [{"key": k, "label": lab, "column": c, "dir": d} for k, lab, c, d in sorts]
    return out


def record(q: Data, elements: list[Data], missing: str = "Not found.") -> Data:
    return {"type": "record", "query": q, "elements": elements, "missing_text": missing}


def tabs(widget_id: str, panels: list[tuple[str, list[Data]]], selected: int = 0) -> Data:
    out: Data = {"type": "tabs", "id": widget_id, "tabs": [{"label": lab, "elements": els} for lab, els in panels]}
    if selected:
        out["selected"] = selected
    return out


def collapsible(widget_id: str, label: str, elements: list[Data], *, is_open: bool = False) -> Data:
    out: Data = {"type": "collapsible", "id": widget_id, "label": label, "elements": elements}
    if is_open:
        out["open"] = True
    return out


def dialog(widget_id: str, title: str, elements: list[Data]) -> Data:
    return {"type": "dialog", "id": widget_id, "title": title, "elements": elements}


def menu(widget_id: str, label: str, items: list[Data]) -> Data:
    return {"type": "menu", "id": widget_id, "label": label, "items": items}


def page(page_id: str, route: str, title: str, elements: list[Data], *, login: bool = False,
         layout: bool = True) -> Data:
    out: Data = {"id": page_id, "route": route, "title": title, "elements": elements}
    if login:
        out["requires_login"] = True
    if not layout:
        out["layout"] = False
    return out


# ----------------------------------------------------------------------------- database and markers


def column(name: str, kind: str, *, nullable: bool = False) -> Data:
    out: Data = {"name": name, "type": kind}
    if nullable:
        out["nullable"] = True
    return out


def table_def(name: str, columns: list[tuple[str, str]], rows: list[dict[str, Any]], *,
              foreign_keys: list[tuple[str, str]] | None = None, indexes: list[list[str]] | None = None) -> Data:
    """A table; ``columns`` are ``(name, type)`` with ``id`` first; ``foreign_keys`` are ``(column, table)``."""
    out: Data = {"name": name, "columns": [column(n, k) for n, k in columns], "rows": rows}
    if foreign_keys:
        out["foreign_keys"] = [{"column": c, "ref_table": t} for c, t in foreign_keys]
    if indexes:
        out["indexes"] = indexes
    return out


def param(name: str, kind: str, label: str = "", **checks: Any) -> Data:
    out: Data = {"name": name, "type": kind}
    if label:
        out["label"] = label
    out.update(checks)
    return out


def check(predicate: Data, message: str) -> Data:
    return {"predicate": predicate, "message": message}


def effect(op: str, table_name: str, statement: str) -> Data:
    return {"op": op, "table": table_name, "sql": statement}


def marker(name: str, params: list[Data], effects: list[Data], *, pre: list[Data] | None = None,
           inv: list[Data] | None = None, login: bool = True, message: str = "", label: str = "",
           irreversible: bool = False) -> Data:
    out: Data = {"name": name, "params": params, "effects": effects, "requires_login": login}
    if pre:
        out["preconditions"] = pre
    if inv:
        out["invariants"] = inv
    if message:
        out["message"] = message
    if label:
        out["label"] = label
    if irreversible:
        out["irreversible"] = True
    return out

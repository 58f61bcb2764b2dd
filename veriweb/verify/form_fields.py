"""The fields of a form that repair adds (M007): what each one is and what it starts from.

:func:`veriweb.verify.repair.add_control` gives a marker that no form posts to a form; this module
says, for each of the marker's parameters, how the form supplies it, read from the site only (its
tables, foreign keys, pages and links), never from the generator:

- a parameter naming a record of another table by its key (``assignee_id``, a foreign key of the
  data) is a drop-down of that table's rows (value: the key; label: the row's name or title),
  with a blank choice when the parameter is optional: nobody types an id; inside a record, only
  the rows that belong to it (a project's milestones, by their foreign key to projects);
- a parameter the page's own record holds for the purpose the page says (``reply_subject`` for
  ``subject`` on a reply page, ``forward_body`` for ``body`` on a forward page) starts from it;
  on a page about replying, the address to write to starts from the record's sender, and an
  integer parameter named for the page (``reply_to`` on ``/message/{id}/reply``) is the record
  itself (its key, sent without a field);
- a parameter that links or forms elsewhere pass to the page in its query string
  (``/compose?to=...``, a "From your contacts" drop-down that reloads the page with ``?to=``)
  starts from that query value;
- a parameter the logged-in user's account holds (``name``, ``email``) starts from it;
- an edit form on a record's page starts from the record's values (as before).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl

from veriweb.verify.repair_links import json_dicts
from veriweb.verify.wording import EMAIL_WORDS, words

FIELD_TYPES = {"date": "date", "boolean": "checkbox"}
"""The input type of a field for a parameter type (every other type is a text box)."""
_NAME_COLUMNS = ("name", "title", "label", "path", "username", "code", "number", "email")
_SLOT = re.compile(r"\{[^}]+\}")
_SENDER = re.compile(r"^(sender|from|author)(_email|_address)?$")


def _tables(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["name"]: t for t in data.get("database", {}).get("tables", [])}


def key_table(data: dict[str, Any], marker: dict[str, Any], param: str) -> dict[str, Any] | None:
    """The table whose rows an ``..._id`` parameter names: a foreign key of a column of that name
    (in a table the marker writes first), else the table named like it (``label_id``: ``labels``)."""
    if not param.endswith("_id"):
        return None
    tables = _tables(data)
    written = [e.get("table") for e in marker.get("effects", [])]
    order = [t for t in written if t in tables] + sorted(t for t in tables if t not in written)
    for name in order:
        for fk in tables[name].get("foreign_keys", []):
            if fk.get("column") == param and fk.get("ref_table") in tables:
                return tables[fk["ref_table"]]
    base = param[:-3]
    for name in sorted(tables):
        if name in (base, base + "s", base + "es") or (name.endswith("ies") and name[:-3] + "y" == base):
            return tables[name]
    return None


def name_column(table: dict[str, Any]) -> str:
    """The column that says what a row is called (a name or title), else the key."""
    texts = [c["name"] for c in table.get("columns", []) if c.get("type") == "text"]
    for wanted in _NAME_COLUMNS:
        if wanted in texts:
            return wanted
    return texts[0] if texts else table.get("primary_key", "id")


def query_params(data: dict[str, Any], page: dict[str, Any]) -> set[str]:
    """Query-string parameters that links and navigate forms of the site pass to ``page``."""
    route = re.compile("[^/?]+".join(re.escape(p) for p in _SLOT.split(page.get("route", ""))))
    found: set[str] = set()
    for node in json_dicts([p.get("elements", []) for p in data.get("pages", [])] + [data.get("layout", {})]):
        if node.get("type") == "link":
            href = str(node.get("href", ""))
            path, _, query = href.partition("?")
            if query and route.fullmatch(_SLOT.sub("x", path)):
                found |= {k for k, _ in parse_qsl(query, keep_blank_values=True)}
        elif node.get("type") == "form" and isinstance(node.get("action"), dict) \
                and node["action"].get("kind") == "navigate":
            target = str(node["action"].get("route", "")).split("?")[0]
            if route.fullmatch(_SLOT.sub("x", target)):
                found |= {str(f.get("name")) for f in node.get("fields", []) if isinstance(f, dict)}
    return found


def _account_columns(data: dict[str, Any]) -> set[str]:
    auth = data.get("auth")
    if not isinstance(auth, dict):
        return set()
    table = _tables(data).get(auth.get("table", "users"))
    hidden = {auth.get("password_column", "password"), auth.get("id_column", "id")}
    return {c["name"] for c in (table or {}).get("columns", [])} - hidden


def build_fields(data: dict[str, Any], page: dict[str, Any], marker: dict[str, Any], args: dict[str, Any],
                 columns: set[str], *, editing: bool, record_table: str | None) -> list[dict[str, Any]]:
    """The fields of a new form for ``marker`` on ``page``; fills ``args`` (parameter -> value ref).

    Args:
        data: the site's JSON data.
        page: the page the form goes on.
        marker: the marker (JSON).
        args: arguments the page already supplies (a record's key); completed in place.
        columns: the columns of the record the form sits in (empty when it is not in one).
        editing: the marker updates rows (its fields start from the record's values).
        record_table: the table the record reads (a view's top-level ``FROM``), if any.
    """
    purpose = words(" ".join([page.get("id", ""), _SLOT.sub(" ", page.get("route", "")).replace("/", " ")]))
    replying = "~reply" in purpose
    asked = query_params(data, page)
    account = _account_columns(data) if (page.get("requires_login") or marker.get("requires_login")) else set()
    written = {e.get("table") for e in marker.get("effects", [])}
    key = _tables(data).get(record_table or "", {}).get("primary_key", "id")
    fields: list[dict[str, Any]] = []
    for param in marker.get("params", []):
        name = param["name"]
        if name in args:
            continue
        kind = param.get("type", "text")
        if (columns and kind == "integer" and not name.endswith("_id") and record_table in written
                and words(name.replace("_", " ")) & purpose):
            args[name] = {"ref": f"row.{key}"}  # reply_to on a reply page: the record itself
            continue
        field_el: dict[str, Any] = {"name": name, "label": param.get("label") or humanise(name)}
        target = key_table(data, marker, name)
        if param.get("choices"):
            field_el.update(type="select", options=[{"value": c, "label": c} for c in param["choices"]])
        elif kind == "boolean":
            field_el["type"] = "checkbox"
        elif target is not None:
            blank = [] if param.get("required", True) else [{"value": "", "label": "-"}]
            query: dict[str, Any] = {"table": target["name"], "order_by": [{"column": name_column(target)}]}
            within = next((fk["column"] for fk in target.get("foreign_keys", [])
                           if columns and fk.get("ref_table") == record_table), None)
            if within is not None:  # a milestone of this project, not every project's "2026 Q1"
                query["where"] = [{"column": within, "value": {"ref": f"row.{key}"}}]
            field_el.update(type="select", options=blank, options_query={
                "query": query, "value": target.get("primary_key", "id"), "label": name_column(target)})
        else:
            field_el["type"] = FIELD_TYPES.get(kind, "textbox")
        start = _start(name, kind, columns, purpose, replying, asked, account, editing)
        if start is not None:
            field_el["value"] = {"ref": start}
        fields.append(field_el)
        args[name] = {"ref": f"field.{name}"}
    return fields


def _start(name: str, kind: str, columns: set[str], purpose: frozenset[str], replying: bool, asked: set[str],
           account: set[str], editing: bool) -> str | None:
    """What a field starts from (a value reference), or ``None`` for an empty field."""
    for word in sorted(w for w in purpose if not w.startswith("~")):
        if f"{word}_{name}" in columns:  # reply_subject on a reply page
            return f"row.{word}_{name}"
    if replying and name in EMAIL_WORDS:
        sender = next((c for c in sorted(columns) if _SENDER.match(c)), None)
        if sender is not None:
            return f"row.{sender}"  # a reply goes back to whoever sent the record
    if editing and f"{name}_input" in columns:
        return f"row.{name}_input"
    if editing and name in columns and kind != "money":
        return f"row.{name}"
    if name in asked:
        return f"query.{name}"
    if name in account:
        return f"user.{name}"
    return None


def humanise(name: str) -> str:
    """``reply_to`` -> ``Reply to``: a label for an identifier."""
    return name.replace("_", " ").strip().capitalize() or "Go"


__all__ = ["FIELD_TYPES", "build_fields", "humanise", "key_table", "name_column", "query_params"]

"""Where a missing form belongs (M007's repair): the page that says what the form does.

:func:`veriweb.verify.repair.add_control` gives a marker that no form posts to a form. Which page
it goes on is read from the site, never from the generator:

- a marker that takes a record's key (``issue_id``) goes on a page of one record of that table
  (``/issues/{id}``): a page whose record *reads* that table (a view's top-level ``FROM``), not
  one whose view merely mentions it (a project page counting its issues);
- among those (or among all pages, for a marker that takes no key), on the page whose words (id,
  route, title, headings, short texts, and the texts of links that lead to it; its id and route
  first: ``/message/{id}/reply`` for "send a reply", not ``/compose`` whose link says "send")
  share the most words with the instruction of the task that needs it (a forward's page, not the reply page that
  shares more words with the marker), then with the marker (its name and its parameters), with
  the common thesaurus of :mod:`veriweb.verify.wording` (``send``/``post``, ``email``/``message``);
  then a page without route parameters, a page with neither a form nor a
  list of its own (a bare ``/compose``), a page that lists the marker's table; the home page last.

A short text equal to what the control would be called (the marker's name) marks the very spot:
the form replaces it, unless the instruction shares more words with another page (the spot on
``/compose`` is not where a reply to a message goes).
"""

from __future__ import annotations

import re
from typing import Any

from veriweb.verify.repair_links import json_dicts
from veriweb.verify.wording import words

_SLOT = re.compile(r"\{[^}]+\}")
_FROM = re.compile(r"\bFROM\s+[\"`]?(\w+)", re.IGNORECASE)


def _record(page: dict[str, Any]) -> dict[str, Any] | None:
    return next((e for e in page.get("elements", []) if isinstance(e, dict) and e.get("type") == "record"), None)


def _key_match(key: str, table: str) -> bool:
    base = table.rstrip("s")
    return base.startswith(key) or key.startswith(base)


def record_source(data: dict[str, Any], page: dict[str, Any]) -> str | None:
    """The table the page's record reads: its table, or a view's top-level ``FROM`` (``None``
    when the page shows no record)."""
    record = _record(page)
    if record is None:
        return None
    source = record["query"]["table"]
    views = {v["name"]: v["sql"] for v in data.get("database", {}).get("views", [])}
    if source not in views:
        return source
    sql = views[source]
    while re.search(r"\([^()]*\)", sql):  # subqueries out: the view reads its top-level FROM
        sql = re.sub(r"\([^()]*\)", " ", sql)
    found = _FROM.search(sql)
    return found.group(1) if found else None


def record_args(data: dict[str, Any], page: dict[str, Any], params: list[str]) -> tuple[int, dict[str, Any]]:
    """The key parameter a record page supplies from its route (``issue_id`` on ``/issues/{id}``,
    whose record reads ``issues``: a view's top-level ``FROM``), and how much it matters (the
    marker's first key counts most: a new issue's project before its milestone), else ``(0, {})``.
    A route that names the record by another column (a forum's slug) supplies ``row.id``."""
    slots = _SLOT.findall(page.get("route", ""))
    record = _record(page)
    if len(slots) != 1 or record is None:
        return 0, {}
    name = slots[0].strip("{}").split(":")[0]
    source = record["query"]["table"]
    primary = record_source(data, page) or ""
    tables = {t["name"]: t for t in data.get("database", {}).get("tables", [])}
    key = tables[source].get("primary_key", "id") if source in tables else "id"
    looked_up = next((c.get("column") for c in record["query"].get("where", [])
                      if c.get("value") == {"ref": f"param.{name}"}), None)
    # the route names the record by its key (/issues/{id}), else by another column (/f/{slug}):
    # then the key comes from the row the record shows, and the form must sit inside the record
    ref = f"param.{name}" if looked_up == key else f"row.{key}"
    keys = [p for p in params if p.endswith("_id")]
    for number, param in enumerate(keys):  # a record page supplies one key: its own record's
        if primary and _key_match(param[:-3], primary):
            return len(keys) - number, {param: {"ref": ref}}
    return 0, {}


def page_words(data: dict[str, Any], page: dict[str, Any]) -> frozenset[str]:
    """What a page says it is for: id, route, title, headings, short texts, links that lead to it."""
    parts = [page.get("id", ""), _SLOT.sub(" ", page.get("route", "")), page.get("title") or ""]
    for node in json_dicts(page.get("elements", []), skip_bound=True):
        text = str(node.get("text", "")) if node.get("type") in ("heading", "text") else ""
        if text and "{" not in text and len(text.split()) <= 5:
            parts.append(text)
    route = re.compile("[^/]+".join(re.escape(p) for p in _SLOT.split(page.get("route", ""))))
    for node in json_dicts([p.get("elements", []) for p in data.get("pages", [])] + [data.get("layout", {})]):
        href = str(node.get("href", "")) if node.get("type") == "link" else ""
        if href and route.fullmatch(_SLOT.sub("x", href.split("?")[0])):
            parts.append(str(node.get("text", "")))
    return words(" ".join(parts).replace("_", " ").replace("/", " "))


def _busy(page: dict[str, Any]) -> bool:
    return any(n.get("type") == "form" or (n.get("type") in ("list", "table", "record") and n.get("query"))
               for n in json_dicts(page.get("elements", [])))


def _lists(page: dict[str, Any], table: str) -> bool:
    return any(n.get("type") in ("list", "table") and n.get("query", {}).get("table") == table
               for n in json_dicts(page.get("elements", [])))


def place_form(data: dict[str, Any], marker: dict[str, Any], table: str,
               instruction: str = "") -> tuple[dict[str, Any] | None, dict[str, Any], dict[str, Any] | None]:
    """The page a marker's new form goes on, the arguments the page supplies, and the text the form
    replaces (or ``None``).

    Args:
        data: the site's JSON data.
        marker: the marker (JSON) that needs a form.
        table: the table the task that needs it must change.
        instruction: that task's instruction (its words help find the page).
    """
    params = [p["name"] for p in marker.get("params", [])]
    keyed = any(p.endswith("_id") for p in params)
    named = {w.casefold() for w in (marker.get("label") or "", marker["name"].replace("_", " ")) if w}
    asked = words(instruction)
    want = words(" ".join([marker["name"].replace("_", " "), table.replace("_", " ")]
                          + [p.replace("_", " ") for p in params]
                          + [str(p.get("label") or "") for p in marker.get("params", [])]))
    best: tuple[Any, ...] | None = None
    chosen: tuple[dict[str, Any] | None, dict[str, Any], dict[str, Any] | None] = (None, {}, None)
    closest: tuple[Any, ...] | None = None
    nearest = chosen
    for index, page in enumerate(data.get("pages", [])):
        strength, args = record_args(data, page, params)
        if keyed and not args:
            continue
        spot = next((n for n in json_dicts(page.get("elements", []), skip_bound=True) if n.get("type") == "text"
                     and str(n.get("text", "")).strip().casefold() in named), None)
        free = not _SLOT.search(page.get("route", ""))
        said = page_words(data, page)
        named_by = words(" ".join([page.get("id", ""), _SLOT.sub(" ", page.get("route", ""))])
                         .replace("_", " ").replace("/", " "))
        score = (spot is not None, strength, len(named_by & asked), len(said & asked), len(said & want), keyed or free,
                 not _busy(page), _lists(page, table), page.get("route") == "/",
                 -page.get("route", "").count("/"), -index)
        if best is None or score > best:
            best, chosen = score, (page, args, spot)
        if asked and (closest is None or score[1:] > closest):
            closest, nearest = score[1:], (page, args, spot)
    if best is not None and best[0] and closest is not None and closest[1:3] > best[2:4]:
        return nearest  # the spot is another task's: this instruction says more about another page
    return chosen

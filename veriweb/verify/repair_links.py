"""Linking an orphan record page from the rows that name its record, found by the data.

When every link to a page of one record (``/u/{username}``, ``/projects/{id}``) was written as
plain text, :func:`veriweb.verify.repair.link_orphan` first looks for lists of the page's own
table. A page is often reached instead from rows of *other* tables that show its key: a post's
``{row.author}`` opens ``/u/{row.author}``. Which column of which list names the record is read
from the seed data, never from the text's wording: a text ``{row.X}`` bound to a source ``S``
names the page's record when every value of ``S.X`` is a key of the page's record, and

- the key is text (a username, a slug) with at least two distinct values, where a chance match
  of a whole column is negligible; or
- the key is a number and the column's name says it (``id`` of the same table, ``project_id``
  for projects), since small integers match any integer column.

Views are evaluated in a throwaway in-memory SQLite database built from the data.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from typing import Any

from veriweb.engine.database import days_between

_PLACEHOLDER = re.compile(r"^\{row\.(\w+)\}$")


def _database(data: dict[str, Any]) -> sqlite3.Connection:
    """The site's seed tables and views in memory (views that fail to build are left out)."""
    conn = sqlite3.connect(":memory:")
    conn.create_function("vw_today", 0, lambda: str(data.get("today", "")), deterministic=True)
    conn.create_function("vw_now", 0, lambda: str(data.get("today", "")))
    conn.create_function("vw_days", 2, days_between, deterministic=True)
    for table in data.get("database", {}).get("tables", []):
        key = table.get("primary_key", "id")
        names = [key] + [c["name"] for c in table.get("columns", []) if c["name"] != key]
        names = list(dict.fromkeys(names))
        quoted = ", ".join(f'"{n}"' for n in names)
        try:
            conn.execute(f'CREATE TABLE "{table["name"]}" ({quoted})')
        except sqlite3.Error:
            continue
        rows = [tuple(_cell(row.get(n)) for n in names) for row in table.get("rows", []) if isinstance(row, dict)]
        conn.executemany(f'INSERT INTO "{table["name"]}" VALUES ({", ".join("?" * len(names))})', rows)
    for view in data.get("database", {}).get("views", []):
        try:
            conn.execute(f'CREATE VIEW "{view["name"]}" AS {view["sql"]}')
        except sqlite3.Error:
            continue
    return conn


def _cell(value: Any) -> Any:
    return value if value is None or isinstance(value, (int, float, str)) else str(value)


def _values(conn: sqlite3.Connection, source: str, column: str) -> set[Any] | None:
    try:
        return {v for (v,) in conn.execute(f'SELECT "{column}" FROM "{source}"') if v is not None}
    except sqlite3.Error:
        return None


def _singular(name: str) -> str:
    return name[:-1] if name.endswith("s") else name


def _named_for(column: str, key: str, table: str, source: str) -> bool:
    """Whether a numeric column's name says it holds the record's key."""
    stem = _singular(re.sub(r"_view$", "", table))
    return (column == key and _singular(re.sub(r"_view$", "", source)) == stem) or column in (
        f"{stem}_{key}", f"{stem}{key}")


def _rows_texts(element: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The text elements a bound list, table or record repeats per row (not nested bound ones)."""
    stack = list(element.get("item", [])) + list(element.get("elements", []))
    stack += [c for column in element.get("columns", []) for c in column.get("cell", [])]
    while stack:
        node = stack.pop(0)
        if not isinstance(node, dict) or node.get("query"):
            continue
        if node.get("type") == "text":
            yield node
        for attr in ("elements", "item", "items"):
            stack += node.get(attr, [])
        for tab in node.get("tabs", []):
            stack += tab.get("elements", [])


def json_dicts(node: Any, skip_bound: bool = False) -> Iterator[dict[str, Any]]:
    """Every dict in a site's JSON data under ``node``, depth first; with ``skip_bound``, a list,
    table or record bound to a query is yielded but its insides (repeated per row) are not."""
    if isinstance(node, dict):
        yield node
        if skip_bound and node.get("type") in ("list", "table", "record") and node.get("query"):
            return
        for value in node.values():
            yield from json_dicts(value, skip_bound)
    elif isinstance(node, list):
        for value in node:
            yield from json_dicts(value, skip_bound)


def _bound_anywhere(node: Any) -> Iterator[dict[str, Any]]:
    return (n for n in json_dicts(node) if n.get("type") in ("list", "table", "record")
            and isinstance(n.get("query"), dict))


def _columns(conn: sqlite3.Connection, source: str) -> list[str]:
    try:
        return [d[0] for d in conn.execute(f'SELECT * FROM "{source}" LIMIT 0').description]
    except sqlite3.Error:
        return []


def _key_columns(conn: sqlite3.Connection, shown: str, keys: set[Any], column: str, source: str) -> list[str]:
    """The columns of ``shown`` whose every value is a key of the record page (see the module doc)."""
    textual = all(isinstance(k, str) for k in keys)
    found = []
    for name in _columns(conn, shown):
        values = _values(conn, shown, name)
        if values and values <= keys and ((textual and len(values) >= 2)
                                          or (not textual and _named_for(name, column, source, shown))):
            found.append(name)
    return found


def _shows_record(conn: sqlite3.Connection, shown: str, text_column: str, key_column: str,
                  source: str, column: str, names: set[str]) -> bool:
    """Whether ``shown.text_column`` is, on every row, the name (one of ``names``, the columns
    the record page's heading shows) of the record its key opens."""
    for other in sorted(names):
        try:
            rows, wrong = conn.execute(
                f'SELECT COUNT(*), SUM(s."{text_column}" IS NOT t."{other}") FROM "{shown}" s '
                f'JOIN "{source}" t ON s."{key_column}" = t."{column}"').fetchone()
        except sqlite3.Error:
            continue
        if rows and not wrong:
            return True
    return False


def heading_columns(page: dict[str, Any]) -> set[str]:
    """The columns the headings of a record page show: what the record is called."""
    found: set[str] = set()
    stack = list(page.get("elements", []))
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if node.get("type") == "heading":
                found |= set(re.findall(r"\{row\.(\w+)", str(node.get("text", ""))))
            stack += node.get("elements", [])
    return found


def link_by_values(data: dict[str, Any], page: dict[str, Any], source: str, column: str,
                   slot: str) -> tuple[int, set[str]]:
    """Turn every row text that names the orphan record page's record into a link to that page.

    A row text ``{row.X}`` of a list over ``S`` becomes a link to ``route`` with the key taken
    from a column ``Y`` of ``S`` that holds the record's keys (see the module doc), when ``X`` is
    ``Y`` itself or shows, on every row, what the record that ``Y`` opens is called (a column its
    page's heading shows: a project's path beside its ``project_id``). A count or a date of the
    row is never made a link.

    Args:
        data: the site's JSON data (edited in place).
        page: the orphan page, whose route has the one placeholder ``slot``.
        source: the table or view its record reads.
        column: the column of ``source`` its route parameter is looked up in.
        slot: the route's placeholder, as written (``{username:slug}``).

    Returns:
        How many texts became links, and the ids of the pages they are on.
    """
    conn = _database(data)
    try:
        keys = _values(conn, source, column)
        if not keys:
            return 0, set()
        count, touched = 0, set()
        names = heading_columns(page)
        key_cache: dict[str, list[str]] = {}
        shows: dict[tuple[str, str], str | None] = {}
        for other in data.get("pages", []):
            for bound in _bound_anywhere(other.get("elements", [])):
                if bound is page or (other is page and bound.get("type") == "record"):
                    continue
                shown = bound["query"].get("table", "")
                if shown not in key_cache:
                    key_cache[shown] = _key_columns(conn, shown, keys, column, source)
                if not key_cache[shown]:
                    continue
                found = []
                for text in _rows_texts(bound):
                    match = _PLACEHOLDER.match(str(text.get("text", "")).strip())
                    if match is None:
                        continue
                    name = match.group(1)
                    if (shown, name) not in shows:
                        shows[shown, name] = name if name in key_cache[shown] else next(
                            (y for y in key_cache[shown] if _shows_record(conn, shown, name, y, source, column, names)), None)
                    if shows[shown, name] is not None:
                        found.append((name != shows[shown, name], len(found), text, shows[shown, name]))
                if found:  # one link a row: the text that is the key itself, else the first that names it
                    _, _, text, key = min(found, key=lambda f: f[:2])
                    label = text["text"]
                    text.clear()
                    text.update(type="link", text=label, href=page["route"].replace(slot, "{row." + key + "}"))
                    touched.add(other["id"])
                    count += 1
        return count, touched
    finally:
        conn.close()

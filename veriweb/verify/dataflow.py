"""What markers can write and what predicates read: the static facts behind infeasibility proofs.

Markers are the only way anything persists, and a marker runs only when a form posts to it.
So the writes a site can ever make are the effects of the markers some form posts to. This
module parses those effects (``INSERT``, ``UPDATE``, ``DELETE`` as the scaffold writes them)
into :class:`Write` records: which table, which columns, and where each written value comes
from (a marker parameter, a literal, or an expression it does not try to understand). A
parse it cannot make is treated as "may write every column with any value", so every
conclusion drawn from these facts errs on the side of "could change".
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from veriweb.scaffold import Site
from veriweb.scaffold.elements import Form, Radio, Select

_INSERT = re.compile(r"^\s*INSERT\s+(?:OR\s+(\w+)\s+)?INTO\s+\"?(\w+)\"?\s*\(([^)]*)\)\s*(.*)$", re.I | re.S)
_UPDATE = re.compile(r"^\s*UPDATE\s+(?:OR\s+\w+\s+)?\"?(\w+)\"?\s+SET\s+(.*)$", re.I | re.S)
_PARAM = re.compile(r"^:(\w+)$")
_OWN_ROW = re.compile(r"^\s*FROM\s+\"?(\w+)\"?\s+(?:AS\s+)?(\w+)\s+WHERE\s+\2\.\"?id\"?\s*=\s*:user_id\s*$", re.I)
_LITERAL = re.compile(r"^(?:'((?:[^']|'')*)'|(-?\d+(?:\.\d+)?))$")
_TABLE_NAMES = re.compile(r"\b(?:FROM|JOIN)\s+\"?([A-Za-z_][A-Za-z0-9_]*)\"?(?:\s+(?:AS\s+)?([A-Za-z_][A-Za-z0-9_]*))?",
                          re.I)
_SQL_WORDS = {"where", "on", "join", "left", "inner", "outer", "cross", "group", "order", "limit", "union", "natural"}


@dataclass(frozen=True)
class Source:
    """Where a written value comes from: ``param`` (a marker parameter), ``literal``, ``user`` (a column
    ``(table, column)`` of the logged-in user's own row), or ``expr`` (anything else)."""

    kind: str
    value: Any = None


@dataclass
class Write:
    """One effect of one marker: ``op`` on ``table``; ``columns`` it sets (``None``: any column),
    and the source of each column's new value where the SQL says it plainly."""

    marker: str
    op: str
    table: str
    columns: frozenset[str] | None
    sources: dict[str, Source] = field(default_factory=dict)

    def describe(self) -> str:
        """``marker add_to_cart inserts into cart_items`` and the like."""
        verb = {"insert": "inserts into", "update": "updates", "delete": "deletes from"}[self.op]
        cols = "" if self.op != "update" or self.columns is None else f" ({', '.join(sorted(self.columns))})"
        return f"marker {self.marker} {verb} {self.table}{cols}"


def _scan(text: str, start: int = 0) -> Iterator[tuple[int, str, int]]:
    """``(index, char, depth)`` for each character of ``text`` from ``start`` that lies outside quotes
    (quote characters excluded); ``depth`` counts the parentheses open before it (a ``)`` is counted
    closed already)."""
    depth, quote = 0, False
    for index in range(start, len(text)):
        char = text[index]
        if char == "'":
            quote = not quote
            continue
        if quote:
            continue
        if char == ")":
            depth -= 1
        yield index, char, depth
        if char == "(":
            depth += 1


def _top_level(text: str) -> Iterator[int]:
    """Indexes of ``text`` that lie outside parentheses and quotes (quote and bracket characters excluded)."""
    return (index for index, char, depth in _scan(text) if depth == 0 and char not in "()")


def closing_paren(text: str, start: int) -> int | None:
    """Index of the ``)`` that closes the ``(`` at ``text[start]`` (quotes skipped), or ``None``."""
    return next((index for index, char, depth in _scan(text, start) if char == ")" and depth == 0), None)


def split_top(text: str, sep: str = ",") -> list[str]:
    """Split SQL text at ``sep`` outside parentheses and quotes."""
    return list(_split_top(text, sep))


@functools.lru_cache(maxsize=8192)  # the checks and the search read the same views and effects again and again
def _split_top(text: str, sep: str) -> tuple[str, ...]:
    parts, start = [], 0
    for index in _top_level(text):
        if text[index] == sep:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    return tuple(p.strip() for p in parts)


@functools.lru_cache(maxsize=8192)  # the checks and the search's form costs ask again for the same SQL
def _top_keyword(text: str, word: str) -> int:
    """Index of the first ``word`` (a SQL keyword) outside parentheses and quotes, or -1."""
    pattern = re.compile(rf"\b{word}\b", re.I)
    for index in _top_level(text):
        if pattern.match(text, index) and (index == 0 or not text[index - 1].isalnum()):
            return index
    return -1


def set_span(sql: str) -> tuple[int, int] | None:
    """Where an ``UPDATE``'s assignment list lies in ``sql``: from after ``SET`` to its top-level
    ``WHERE`` (or the end); ``None`` for any other statement."""
    found = re.match(r"\s*UPDATE\b.*?\bSET\b", sql, re.I | re.S)
    if found is None:
        return None
    cut = _top_keyword(sql, "WHERE")
    return found.end(), cut if cut >= found.end() else len(sql)


def source_of(expr: str) -> Source:
    """Classify one value expression of an effect."""
    expr = expr.strip()
    if match := _PARAM.match(expr):
        return Source("param", match.group(1))
    if match := _LITERAL.match(expr):
        if match.group(1) is not None:
            return Source("literal", match.group(1).replace("''", "'"))
        number = match.group(2)
        return Source("literal", float(number) if "." in number else int(number))
    return Source("expr", expr)


def parse_effect(marker: str, op: str, table: str, sql: str) -> Write:
    """Parse one effect into a :class:`Write` (conservatively, when the SQL is not plain)."""
    if op == "delete":
        return Write(marker, "delete", table, None)
    if op == "insert":
        match = _INSERT.match(sql)
        if match is None:
            return Write(marker, "insert", table, None)
        columns = [c.strip().strip('"') for c in match.group(3).split(",")]
        rest = match.group(4).strip()
        values: list[str] | None = None
        if rest.upper().startswith("VALUES"):
            inner = rest[len("VALUES"):].strip()
            if inner.startswith("(") and inner.endswith(")"):
                values = split_top(inner[1:-1])
        own_row: tuple[str, str] | None = None
        if rest.upper().startswith("SELECT"):
            body = rest[len("SELECT"):]
            cut = min([i for i in (_top_keyword(body, "FROM"), _top_keyword(body, "WHERE")) if i >= 0],
                      default=len(body))
            values = split_top(body[:cut])
            # "... FROM users u WHERE u.id = :user_id": u.* are the logged-in user's own columns
            own = _OWN_ROW.match(body[cut:])
            if own:
                own_row = (own.group(2), own.group(1))
        sources: dict[str, Source] = {}
        if values is not None and len(values) == len(columns):
            sources = {col: source_of(val) for col, val in zip(columns, values)}
            if own_row is not None:
                for col, val in zip(columns, values):
                    found = re.fullmatch(rf"{own_row[0]}\.(\w+)", val.strip())
                    if found:
                        sources[col] = Source("user", (own_row[1], found.group(1)))
        write = Write(marker, "insert", table, frozenset(columns), sources)
        if match.group(1):  # INSERT OR REPLACE / IGNORE may also remove rows: treat as any column
            write.columns = None
        return write
    match = _UPDATE.match(sql)
    if match is None:
        return Write(marker, "update", table, None)
    body = match.group(2)
    cut = _top_keyword(body, "WHERE")
    assignments = split_top(body[:cut] if cut >= 0 else body)
    sources = {}
    for assignment in assignments:
        column, eq, value = assignment.partition("=")
        column = column.strip().strip('"')
        if not eq or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", column):
            return Write(marker, "update", table, None)
        sources[column] = source_of(value)
    return Write(marker, "update", table, frozenset(sources), sources)


def posted_markers(site: Site) -> set[str]:
    """The markers some form posts to: the only ones that can ever run."""
    from veriweb.verify.checks import all_elements

    return {el.action.marker for el, _, _ in all_elements(site)
            if isinstance(el, Form) and el.action.kind == "marker"}


def site_writes(site: Site) -> list[Write]:
    """Every write the site can make: the effects of the markers some form posts to."""
    posted = posted_markers(site)
    return [parse_effect(m.name, e.op, e.table, e.sql) for m in site.markers if m.name in posted for e in m.effects]


def param_values(site: Site, marker_name: str, param: str) -> set[str] | None:
    """The values a marker parameter can take, as text, or ``None`` if it is open-ended.

    A parameter with ``choices`` takes only those. Otherwise, if every form posting to the
    marker passes it a literal, or a field with fixed options (a select without an options
    query), those are its values.
    """
    from veriweb.scaffold.values import Ref
    from veriweb.verify.checks import all_elements

    marker = site.marker(marker_name)
    spec = next((p for p in marker.params if p.name == param), None) if marker else None
    if spec is not None and spec.choices is not None:
        return set(spec.choices)
    values: set[str] = set()
    forms = [el for el, _, _ in all_elements(site)
             if isinstance(el, Form) and el.action.kind == "marker" and el.action.marker == marker_name]
    if not forms:
        return set()
    for form in forms:
        arg = form.action.args.get(param)
        if arg is None or isinstance(arg, bool) or (arg is not None and not isinstance(arg, (Ref, str, int, float))):
            return None
        if isinstance(arg, Ref):
            if arg.namespace != "field":
                return None
            element = next((f for f in form.fields if f.name == arg.name), None)
            if not isinstance(element, (Select, Radio)) or element.options_query is not None or not element.options:
                return None
            values.update(str(getattr(o, "value", o)) for o in element.options)
        else:
            values.add(str(arg))
    return values


def can_produce(site: Site, write: Write, column: str, value: Any) -> bool:
    """Could ``write`` set ``column`` to ``value``? (``True`` unless the SQL shows it cannot.)"""
    if write.columns is None:
        return True
    if column not in write.columns:  # an insert that leaves the column out stores NULL
        return write.op == "insert" and value is None
    if column not in write.sources:
        return True
    source = write.sources[column]
    if source.kind == "literal":
        return str(source.value) == str(value)
    if source.kind == "param":
        options = param_values(site, write.marker, source.value)
        return options is None or str(value) in options
    return True


def sql_tables(sql: str) -> set[str]:
    """Table and view names a piece of SQL reads (after ``FROM`` and ``JOIN``)."""
    return {m.group(1) for m in _TABLE_NAMES.finditer(sql) if m.group(1).lower() not in _SQL_WORDS}


def view_item(site: Site, view_name: str, column: str) -> tuple[str, str, str] | None:
    """Where a view column comes from, one level down, when the view passes it through unchanged
    (``c.name AS city``): the alias, the table or view behind it, and its column there."""
    view = next((v for v in site.database.views if v.name == view_name), None)
    if view is None:
        return None
    body = view.sql.strip()
    if not body.upper().startswith("SELECT"):
        return None
    cut = _top_keyword(body[6:], "FROM")
    if cut < 0:
        return None
    aliases = {}
    for match in _TABLE_NAMES.finditer(body[6 + cut:]):
        table, alias = match.group(1), match.group(2)
        if alias and alias.lower() not in _SQL_WORDS:
            aliases[alias] = table
        aliases.setdefault(table, table)
    for item in split_top(body[6:6 + cut]):
        found = re.fullmatch(r"(\w+)\.(\w+)(?:\s+AS\s+(\w+))?", item.strip(), re.I)
        if found and (found.group(3) or found.group(2)) == column and found.group(1) in aliases:
            return found.group(1), aliases[found.group(1)], found.group(2)
    return None


def view_base(site: Site, view_name: str, column: str, depth: int = 0) -> tuple[str, str] | None:
    """The base table and column a view column passes through unchanged, through nested views."""
    item = view_item(site, view_name, column)
    if item is None or depth > 8:
        return None
    _, source, source_column = item
    if site.database.table(source) is not None:
        return source, source_column
    return view_base(site, source, source_column, depth + 1)


def view_join_columns(site: Site, view_name: str, depth: int = 0) -> set[tuple[str, str]] | None:
    """The base ``(table, column)`` pairs a view's joins and filters read (which rows it has), through
    nested views; ``None`` if some reference cannot be placed."""
    view = next((v for v in site.database.views if v.name == view_name), None)
    if view is None or depth > 8:
        return set() if view is None else None
    body = view.sql.strip()
    cut = _top_keyword(body[6:], "FROM") if body.upper().startswith("SELECT") else -1
    if cut < 0:
        return None
    rest = body[6 + cut:]
    aliases: dict[str, str] = {}
    for match in _TABLE_NAMES.finditer(rest):
        table, alias = match.group(1), match.group(2)
        if alias and alias.lower() not in _SQL_WORDS:
            aliases[alias] = table
        aliases.setdefault(table, table)
    out: set[tuple[str, str]] = set()
    for alias, column in re.findall(r"\b(\w+)\.(\w+)\b", rest):
        source = aliases.get(alias)
        if source is None:
            return None
        if site.database.table(source) is not None:
            out.add((source, column))
            continue
        base = view_base(site, source, column)
        inner = view_join_columns(site, source, depth + 1)
        if base is None or inner is None:
            return None
        out |= inner | {base}
    for source in set(aliases.values()):
        if site.database.table(source) is None:
            inner = view_join_columns(site, source, depth + 1)
            if inner is None:
                return None
            out |= inner
    return out


def view_tables(site: Site, name: str) -> set[str]:
    """The base tables a view reads (a table reads itself)."""
    view = next((v for v in site.database.views if v.name == name), None)
    if view is None:
        return {name}
    out: set[str] = set()
    for table in sql_tables(view.sql):
        out |= {table} if table == name else view_tables(site, table)
    return out

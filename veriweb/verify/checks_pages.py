"""Checks of what pages show and offer: references, amounts, list against detail, fields, links, controls.

These static checks (S012-S014, M009-M011, C008) look for defect classes a hand-written or
LLM-written site shows and that single-element checks miss:

- S012: a template or reference reads a value that does not exist where it is used
  (``{row.cost}`` when the row has no ``cost``, ``{row.name}`` outside any list or record,
  ``{param.slug}`` on a page whose route has no ``slug``, ``user.nickname`` with no such column).
- S013: a form field whose type contradicts the marker parameter it fills (a date input for
  a number, a select whose options the marker refuses), or a parameter of one type written
  into a column of another (free text stored in an integer column).
- S014: a fixed link (not bound to a row) that opens a record that does not exist, or whose
  text names one record of the table while its address opens another.
- M009: a row's text with an amount typed in (``"$24.99"``) instead of read from the row.
- M010: a marker writes a column that no page shows, sorts or filters on: its effect is
  invisible to an agent.
- M011: two fields of one form share a name, or two controls of one page share a label but do
  different things: an agent cannot tell them apart.
- C008: a list and the detail page its links open show a different column for the same
  record under the same label (or disjoint amounts): the price on the list is not the price
  on the product page; and a table column headed with one stored column of its row that shows
  another of the same type ("Total" over the refunded amount).
- C006 in views: a view that words a yes-or-no column backwards (``CASE WHEN bag THEN 'No'``).

Every check is a pure function of the scaffold and silent on clean generated sites.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from veriweb.engine.markers import coerce
from veriweb.engine.templates import Route
from veriweb.scaffold import Site
from veriweb.scaffold.values import QueryValue, Ref
from veriweb.verify import checks as C
from veriweb.verify import dataflow
from veriweb.verify.intent import _page_keys, passes_key

_TEMPLATE = re.compile(r"\{([a-z]+)\.([A-Za-z_][A-Za-z0-9_]*)(?:\|([a-z_]+))?\}")
_AMOUNT = re.compile(r"(?:[$€£]\s?\d[\d,]*(?:\.\d{1,2})?|\b\d[\d,]*\.\d{2}\s?(?:USD|EUR|GBP)\b)")
_TEXT_ATTRS = ("text", "label", "submit", "title", "empty_text", "missing_text", "href")
_SHOWN_ATTRS = ("text", "label", "title")


# ----------------------------------------------------------------------------- shared helpers


def view_columns(site: Site, name: str) -> set[str] | None:
    """The column names a view's SELECT list gives (``None`` when it cannot be read plainly)."""
    view = next((v for v in site.database.views if v.name == name), None)
    if view is None:
        return None
    body = view.sql.strip()
    if not body.upper().startswith("SELECT"):
        return None
    cut = dataflow._top_keyword(body[6:], "FROM")
    if cut < 0:
        return None
    out = set()
    for item in dataflow.split_top(body[6:6 + cut]):
        found = re.search(r"(?:\bAS\s+\"?(\w+)\"?|(?:^|\.)\"?(\w+)\"?)\s*$", item.strip(), re.I)
        if found is None or item.strip() == "*" or item.strip().endswith(".*"):
            return None
        out.add(found.group(1) or found.group(2))
    return out


def source_columns(site: Site, name: str) -> set[str] | None:
    """Columns of a table (with its key) or view, ``None`` if unknown."""
    table = site.database.table(name)
    if table is not None:
        return {c.name for c in table.columns} | {table.primary_key}
    return view_columns(site, name)


def _passthrough(site: Site, name: str) -> dict[str, tuple[str, str]]:
    """Every column a view passes through unchanged (``c.name AS city``): the table or view and
    the column it comes from, one level down (read from the view's SQL once)."""
    view = next((v for v in site.database.views if v.name == name), None)
    body = view.sql.strip() if view is not None else ""
    if not body.upper().startswith("SELECT"):
        return {}
    cut = dataflow._top_keyword(body[6:], "FROM")
    if cut < 0:
        return {}
    aliases: dict[str, str] = {}
    for match in dataflow._TABLE_NAMES.finditer(body[6 + cut:]):
        table, alias = match.group(1), match.group(2)
        if alias and alias.lower() not in dataflow._SQL_WORDS:
            aliases[alias] = table
        aliases.setdefault(table, table)
    out: dict[str, tuple[str, str]] = {}
    for item in dataflow.split_top(body[6:6 + cut]):
        found = re.fullmatch(r"(\w+)\.(\w+)(?:\s+AS\s+(\w+))?", item.strip(), re.I)
        if found and found.group(1) in aliases:
            out.setdefault(found.group(3) or found.group(2), (aliases[found.group(1)], found.group(2)))
    return out


def base_column(site: Site, source: str, column: str,
                cache: dict[Any, Any] | None = None) -> tuple[str, str] | None:
    """The base ``(table, column)`` a table or view column shows unchanged, through nested views
    (``cache``: views already read on this site, since reading a view's SQL is the slow part)."""
    cache = {} if cache is None else cache
    for _ in range(9):
        if site.database.table(source) is not None:
            return source, column
        if source not in cache:
            cache[source] = _passthrough(site, source)
        step = cache[source].get(column)
        if step is None:
            return None
        source, column = step
    return None


def row_columns(site: Site, source: str) -> list[str]:
    """The columns a row of a table (its key first) or a view (those it shows unchanged) has to offer."""
    table = site.database.table(source)
    if table is not None:
        return [table.primary_key] + [c.name for c in table.columns]
    return sorted(_passthrough(site, source))


def money_columns(site: Site, source: str) -> set[str]:
    """Money columns of a table or view."""
    table = site.database.table(source)
    if table is not None:
        return {c.name for c in table.columns if c.type == "money"}
    view = next((v for v in site.database.views if v.name == source), None)
    return set(view.money_columns) if view is not None else set()


def _regions(site: Site) -> list[tuple[list[Any], str, str | None]]:
    regions: list[tuple[list[Any], str, str | None]] = [(site.layout.header, "$.layout.header", None),
                                                        (site.layout.footer, "$.layout.footer", None)]
    regions += [(page.elements, f"$.pages[{n}].elements", page.id) for n, page in enumerate(site.pages)]
    return regions


def bound_elements(site: Site) -> Iterator[tuple[Any, str, str | None, str | None]]:
    """Every element with its path, its page id (``None``: the layout) and the table or view its
    ``row.*`` references read (``None``: outside any list, table or record)."""
    for elements, path, page_id in _regions(site):
        for element, here, bound in C.walk_bound(elements, path, None):
            yield element, here, page_id, bound


def _refs_of(element: Any) -> Iterator[tuple[str, str, str, str]]:
    """``(attr, namespace, name, shown)`` for every reference an element makes in its own context."""
    for attr in _TEXT_ATTRS:
        text = C.field_of(element, attr)
        if isinstance(text, str):
            for match in _TEMPLATE.finditer(text):
                yield attr, match.group(1), match.group(2), match.group(0)
    if element.type == "form":
        if element.action.kind == "marker":
            for arg, value in element.action.args.items():
                if isinstance(value, Ref):
                    yield f"action.args.{arg}", value.namespace, value.name, value.ref
        for number, field_el in enumerate(element.fields):
            value = C.field_of(field_el, "value")
            if isinstance(value, Ref):
                yield f"fields[{number}].value", value.namespace, value.name, value.ref
    query = C.field_of(element, "query")
    if query is not None and element.type in ("list", "table", "record"):
        for number, cond in enumerate(query.where):
            if isinstance(cond.value, Ref):
                yield f"query.where[{number}].value", cond.value.namespace, cond.value.name, cond.value.ref


# ----------------------------------------------------------------------------- S012


def check_references(site: Site) -> list[C.Issue]:
    """S012: every ``row.*``, ``param.*`` and ``user.*`` a page reads exists where it is read."""
    routes: dict[str, set[str]] = {}
    for page in site.pages:  # pages sharing an id (S008) take the params of all: which one is meant is not known
        routes.setdefault(page.id, set()).update(name for name, _ in Route.compile(page.id, page.route).params)
    users = None
    if site.auth is not None:
        users = source_columns(site, site.auth.table)
    known_columns: dict[str, set[str] | None] = {}
    issues = []
    for element, path, page_id, bound in bound_elements(site):
        for attr, namespace, name, shown in _refs_of(element):
            where = f"{path}.{attr}"
            problem = None
            if namespace == "row":
                if bound is None:
                    problem = f"{shown} is read outside any list, table or record, so there is no row to read"
                else:
                    if bound not in known_columns:
                        known_columns[bound] = source_columns(site, bound)
                    known = known_columns[bound]
                    if known is not None and name not in known:
                        problem = f"{shown} reads column {name!r}, which {bound!r} does not have"
            elif namespace == "param" and page_id is not None and name not in routes[page_id]:
                problem = f"{shown} reads route parameter {name!r}, but page {page_id!r} has none of that name"
            elif namespace == "user":
                if site.auth is None:
                    problem = f"{shown} reads the logged-in user, but the site has no accounts"
                elif users is not None and name not in users:
                    problem = f"{shown} reads column {name!r} of the user, which {site.auth.table!r} does not have"
            if problem:
                issues.append(C.Issue("structural", C.UNBOUND_REFERENCE, where, problem))
    return issues


# ----------------------------------------------------------------------------- M009


def literal_amounts(site: Site) -> Iterator[tuple[str, str, str, str, set[str]]]:
    """Amounts typed into the text of a row (inside a list, table or record of a source with money
    columns): path, attribute, the text, the amount, and the source's money columns."""
    for element, path, _, bound in bound_elements(site):
        if bound is None:
            continue
        money = money_columns(site, bound)
        if not money:
            continue
        for attr in _SHOWN_ATTRS:
            text = C.field_of(element, attr)
            if not isinstance(text, str):
                continue
            bare = _TEMPLATE.sub(" ", text)
            found = _AMOUNT.search(bare)
            if found:
                yield path, attr, text, found.group(0).strip(), money


_LABELLED = re.compile(r"^\s*([A-Za-z][A-Za-z ]{1,30}):\s*([^{}:]{1,30}?)\s*$")


def literal_values(site: Site) -> Iterator[tuple[str, str, str, str, str]]:
    """Values of a status-like column typed into the text of a row under that column's name
    ("Status: Processing" in an order's record, whose ``status`` is one of 'pending', 'processing',
    ...): path, attribute, the text, the value, and the column."""
    from veriweb.verify.checks_guards import _domains

    domains = _domains(site)
    cache: dict[Any, Any] = {}
    for element, path, _, bound in bound_elements(site):
        if bound is None:
            continue
        columns = source_columns(site, bound) or set()
        for attr in _SHOWN_ATTRS:
            text = C.field_of(element, attr)
            found = _LABELLED.match(text) if isinstance(text, str) else None
            if found is None:
                continue
            label = found.group(1).strip().lower().replace(" ", "_")
            if label not in columns:
                continue
            base = base_column(site, bound, label, cache)
            domain = domains.get(base) if base is not None else None
            value = found.group(2).strip()
            if domain is not None and (value.casefold() in domain or len(value.split()) <= 2):
                yield path, attr, text, value, label  # one of its values, or a word in a value's place


@C.per_run
def _updated_columns(site: Site) -> frozenset[tuple[str, str]]:
    """Every ``(table, column)`` some marker's update sets."""
    out = set()
    for marker in site.markers:
        for effect in marker.effects:
            if effect.op == "update":
                head = re.split(r"\bWHERE\b", effect.sql, maxsplit=1, flags=re.I)[0]
                out |= {(effect.table, column) for column in re.findall(r"\b(\w+)\s*=", head)}
    return frozenset(out)


def literal_messages(site: Site) -> Iterator[tuple[str, str, str, str, str]]:
    """A value of a status-like column of the row a form acts on, written into the form's fixed words
    (its success message, or its confirmation), when the rows hold other values too and the form's
    marker does not write it ("Merged into main." for change requests into main and into develop):
    the words are wrong for every other row. Only a column of the row's own table that no marker
    updates, and no list or record around the form fixes (a message's "Moved to Trash." names where it
    goes, not its folder now; "Empty Trash" sits in the Trash folder's record). Path (of the action or the confirmation), attribute, the
    text, the value, and the column."""
    from veriweb.verify.checks_guards import _domains
    from veriweb.verify.checks_literals import literal_writes

    domains = _domains(site)
    cache: dict[Any, Any] = {}
    fixed: dict[str, set[str]] = {}  # path of a list or record -> the columns its query fixes to a value
    for element, path, _, bound in bound_elements(site):
        query = C.field_of(element, "query") if element.type in ("list", "table", "record") else None
        if query is not None:
            fixed[path] = {c.column: c.value for c in query.where or [] if isinstance(C.field_of(c, "value"), (str, int, bool))
                           and C.field_of(c, "op") in (None, "=", "eq")}
        action = C.field_of(element, "action")
        marker = site.marker(action.marker) if bound is not None and getattr(action, "kind", "") == "marker" else None
        if marker is None:
            continue
        written = {value.casefold() for effect in marker.effects for _, value in literal_writes(marker.name, effect)}
        confirm = C.field_of(element, "confirm")
        texts = [(f"{path}.action", "success_message", action.success_message)]
        texts += [(f"{path}.confirm", attr, C.field_of(confirm, attr)) for attr in ("title", "text")] if confirm else []
        for where, attr, text in texts:
            if not isinstance(text, str) or not text:
                continue
            bare = _TEMPLATE.sub(" ", text)
            own = base_column(site, bound, "id", cache)
            held = {c: v for outer, columns in fixed.items() if path.startswith(outer + ".") for c, v in columns.items()}
            table = site.database.table(own[0]) if own is not None else None
            for column in sorted((source_columns(site, bound) or set()) - set(held)):
                base = base_column(site, bound, column, cache)
                domain = domains.get(base) if base is not None and table is not None and base[0] == table.name else None
                if not domain or len(domain) < 2 or base in _updated_columns(site):
                    continue  # not the row's own figure, or one a marker changes (the words may name the new one)
                # the values of the rows the form can sit on (those the lists and records around it let through)
                rows = [r for r in table.rows if all(r.get(c, v) == v for c, v in held.items())]  # type: ignore[union-attr]
                there = {r[base[1]].casefold() for r in rows if isinstance(r.get(base[1]), str)}
                named = [v for k, v in domain.items() if len(k) >= 3 and k not in written and not k.isdigit()
                         and re.search(rf"(?<![\w-]){re.escape(v)}(?![\w-])", bare, re.I)]
                if len(named) == 1 and there - {named[0].casefold()}:
                    yield where, attr, text, named[0], column
                    break


def check_literal_amounts(site: Site) -> list[C.Issue]:
    """M009: a row's text shows a fixed amount, the same for every row, instead of the row's own; or
    a fixed value of the status-like column it names ("Status: Processing" on every order)."""
    issues = []
    for path, attr, text, amount, money in literal_amounts(site):
        hint = ", ".join(f"{{row.{c}|money}}" for c in sorted(money))
        issues.append(C.Issue("semantic", C.LITERAL_AMOUNT, f"{path}.{attr}",
                              f"{text!r} shows the fixed amount {amount} for every row; read it from the row "
                              f"instead ({hint})"))
    for path, attr, text, value, column in [*literal_values(site), *literal_messages(site)]:
        issues.append(C.Issue("semantic", C.LITERAL_AMOUNT, f"{path}.{attr}",
                              f"{text!r} shows the fixed {column} {value!r} for every row; read it from the row "
                              f"instead ({{row.{column}}})"))
    return issues


# ----------------------------------------------------------------------------- C008


def _label(text: str) -> str:
    head = text.split("{", 1)[0]
    return re.sub(r"[^a-z ]", "", head.casefold()).strip()


def _shown(site: Site, elements: list[Any], path: str, source: str, header: str = "",
           cache: dict[Any, Any] | None = None) -> Iterator[tuple[str, str, str, str]]:
    """``(label, base column, path, text)`` for each ``{row.X}`` shown directly (not in a nested list)."""
    stack = [(e, f"{path}[{n}]") for n, e in enumerate(elements)]
    while stack:
        element, here = stack.pop(0)
        if element.type in ("list", "table", "record"):
            continue
        for attr in _SHOWN_ATTRS:
            text = C.field_of(element, attr)
            if not isinstance(text, str):
                continue
            for match in _TEMPLATE.finditer(text):
                if match.group(1) != "row":
                    continue
                base = base_column(site, source, match.group(2), cache)
                if base is not None:
                    yield _label(text) or header, f"{base[0]}.{base[1]}", f"{here}.{attr}", text
        for attr in ("elements", "items"):
            for n, child in enumerate(C.field_of(element, attr) or []):
                stack.append((child, f"{here}.{attr}[{n}]"))
        for t, tab in enumerate(C.field_of(element, "tabs") or []):
            for n, child in enumerate(tab.elements):
                stack.append((child, f"{here}.tabs[{t}].elements[{n}]"))


def _list_side(site: Site, element: Any, path: str) -> list[tuple[str, str, str, str]]:
    source = element.query.table
    if element.type == "list":
        return list(_shown(site, element.item, f"{path}.item", source))
    out = []
    for number, column in enumerate(element.columns):
        header = re.sub(r"[^a-z ]", "", column.header.casefold()).strip()
        out += _shown(site, column.cell, f"{path}.columns[{number}].cell", source, header)
    return out


def _detail_side(site: Site, page_id: str, table: str) -> list[tuple[str, str, str, str]]:
    page = site.page(page_id)
    if page is None:
        return []
    number = site.pages.index(page)
    out = []
    for element, here in C.walk(page.elements, f"$.pages[{number}].elements"):
        if element.type == "record" and element.query.table == table:
            out += _shown(site, element.elements, f"{here}.elements", table)
    return out


def _columns_differ(site: Site, first: str, second: str) -> bool:
    table_name, a = first.split(".")
    _, b = second.split(".")
    table = site.database.table(table_name)
    if table is None:
        return False
    return any(row.get(a) != row.get(b) for row in table.rows)


def _row_links(element: Any) -> Iterator[Any]:
    items = element.item if element.type == "list" else [c for col in element.columns for c in col.cell]
    for found, _ in C.walk(items, "$"):
        if found.type == "link":
            yield found


def check_list_detail(site: Site) -> list[C.Issue]:
    """C008: what a list shows of a record agrees with what the record's own page shows.

    For a list (or table) whose rows link to a detail page that looks the record up by key: a
    label both show ("Price") must read the same column, and the amounts the list shows must
    include one the detail page shows. Columns are compared through views to their base table,
    and only when their stored values differ somewhere (two columns that always agree are one).
    """
    routes = C._routes(site)
    keys = _page_keys(site)
    money = {t.name: {c.name for c in t.columns if c.type == "money"} for t in site.database.tables}
    issues = []
    seen = set()
    for element, path, _, _ in bound_elements(site):
        if element.type not in ("list", "table"):
            continue
        source = element.query.table
        for link in _row_links(element):
            refs = [m.group(2) for m in _TEMPLATE.finditer(link.href) if m.group(1) == "row"]
            dest = C.resolve_href(routes, link.href)
            if len(refs) != 1 or dest not in keys:
                continue
            _, table, key = keys[dest]
            base = base_column(site, source, refs[0])
            if base is None or not passes_key(site, base[0], base[1], table, key):
                continue
            if base[0] != table and not (base[1] == key and base[0] == table):
                # the list shows another table's rows (a line of an order): only its own columns would count
                continue
            listed = [s for s in _list_side(site, element, path) if s[1].split(".")[0] == table]
            detail = _detail_side(site, dest, table)
            if not listed or not detail:
                continue
            by_label: dict[str, set[str]] = defaultdict(set)
            for label, column, _, _ in detail:
                if label:
                    by_label[label].add(column)
            for label, column, where, text in listed:
                others = by_label.get(label, set())
                if others and column not in others and all(_columns_differ(site, column, o) for o in others):
                    if where not in seen:
                        seen.add(where)
                        issues.append(C.Issue("consistency", C.LIST_DETAIL, where,
                                              f"{text!r} shows {column} under {label!r}, but page {dest!r} shows "
                                              f"{' and '.join(sorted(others))} under the same label"))
            list_money = {s for s in listed if s[1].split(".")[1] in money.get(table, set())}
            detail_money = {s[1] for s in detail if s[1].split(".")[1] in money.get(table, set())}
            if list_money and detail_money and not ({s[1] for s in list_money} & detail_money):
                for _, column, where, text in sorted(list_money, key=lambda s: s[2]):
                    if where not in seen and all(_columns_differ(site, column, o) for o in detail_money):
                        seen.add(where)
                        issues.append(C.Issue("consistency", C.LIST_DETAIL, where,
                                              f"{text!r} shows the amount {column}, but page {dest!r} shows "
                                              f"{' and '.join(sorted(detail_money))} for the same record"))
    return issues


_STRICT = {">=": ">", "<=": "<"}


def offered_refusals(site: Site) -> Iterator[tuple[str, str, str, str, str]]:
    """Each list condition that keeps rows against today inclusively (``date >= today``) whose rows link
    to a page whose form's marker refuses those very rows by a strict test of the same column
    (``date > :today``): the list offers today's rows, and every attempt to act on one is refused. The
    condition's path, the marker, the list's op, the guard's op and the column."""
    routes = C._routes(site)
    pages = {page.id: page for page in site.pages}
    for element, path, _, _ in bound_elements(site):
        if element.type not in ("list", "table"):
            continue
        for number, cond in enumerate(element.query.where):
            value = cond.value
            if cond.op not in _STRICT or not isinstance(value, Ref) or value.ref != "clock.today":
                continue
            base = base_column(site, element.query.table, cond.column)
            if base is None:
                continue
            table, column = base
            test = re.compile(rf"\bFROM\s+{re.escape(table)}\b[^()]*?(?:\w+\.)?\b{re.escape(column)}\s*({_STRICT[cond.op]})\s*:today\b",
                              re.I | re.S)
            marker = _refusing_marker(site, element, routes, pages, test)
            if marker is not None:
                yield f"{path}.query.where[{number}].op", marker, cond.op, _STRICT[cond.op], column


def _refusing_marker(site: Site, element: Any, routes: Any, pages: dict[str, Any], test: re.Pattern[str]) -> str | None:
    """The first marker that a form on a page the list's rows open runs, with a precondition ``test`` finds."""
    for link in _row_links(element):
        page = pages.get(C.resolve_href(routes, link.href) or "")
        names = {C.field_of(C.field_of(e, "action"), "marker") for e, _ in C.walk(page.elements, "$")
                 if e.type == "form"} if page is not None else set()
        for marker in filter(None, (site.marker(name) for name in sorted(filter(None, names)))):
            if any(test.search(getattr(g.predicate, "sql", "") or "") for g in marker.preconditions):
                return marker.name
    return None


def check_offered_refusals(site: Site) -> list[C.Issue]:
    """C008: see :func:`offered_refusals`. The repair makes the list's test as strict as the guard's."""
    return [C.Issue("consistency", C.LIST_DETAIL, location,
                    f"the list keeps rows with {column} {op} today, but marker {marker!r}, which its rows' page runs, "
                    f"refuses any row unless {column} {strict} today: the rows dated today are offered and every "
                    f"attempt on one is refused; it should keep {column} {strict} today")
            for location, marker, op, strict, column in offered_refusals(site)]


def hidden_states(site: Site) -> Iterator[tuple[str, str, str, str, Any]]:
    """Lists whose rows open a record's page and that leave out the records in one state by a fixed test
    (``status != 'cancelled'``) while no other list opening that page shows them: a cancelled order
    vanishes from its customer's history, and nothing leads to it any more. Yields the condition's path,
    the table, the column, the page, and the value left out (a value some row holds or a marker writes)."""
    from veriweb.verify.checks_views import column_values

    routes = C._routes(site)
    keys = _page_keys(site, through_views=True)
    by_page: dict[str, list[tuple[str, Any, str]]] = defaultdict(list)
    for element, path, _, _ in bound_elements(site):
        if element.type not in ("list", "table"):
            continue
        for link in _row_links(element):
            dest = C.resolve_href(routes, link.href)
            if dest in keys:
                by_page[dest].append((path, element, keys[dest][1]))
                break
    for dest, lists in by_page.items():
        left_out: dict[tuple[str, str], list[str]] = defaultdict(list)
        for path, element, table in lists:
            for number, cond in enumerate(element.query.where):
                values = cond.value if cond.op == "not_in" and isinstance(cond.value, list) else [cond.value]
                if cond.op not in ("!=", "not_in") or not all(isinstance(v, (str, int)) for v in values):
                    continue
                base = base_column(site, element.query.table, cond.column)
                if base is None or base[0] != table:
                    continue
                held = column_values(site).get(base, {})
                for value in values:
                    if str(value).lower() in held or any(r.get(base[1]) == value for r in site.database.table(table).rows):
                        left_out[(base[1], str(value))].append(f"{path}.query.where[{number}]")
        for (column, value), paths in left_out.items():
            if len(paths) == len(lists):
                yield paths[0], table, column, dest, value


def check_hidden_states(site: Site) -> list[C.Issue]:
    """M015: see :func:`hidden_states`. The repair lets the first such list show them."""
    return [C.Issue("semantic", C.EMPTY_FILTER, location,
                    f"the list leaves out every {table} row with {column} = {value!r}, and so does every other list "
                    f"that opens page {page!r}: those records are listed nowhere, as if they did not exist; it should "
                    f"show them")
            for location, table, column, page, value in hidden_states(site)]


# ----------------------------------------------------------------------------- S013


def _compatible(param_type: str, column_type: str) -> bool:
    numeric = {"integer", "money", "real", "boolean"}
    dated = {"date", "datetime"}
    if column_type in numeric:
        return param_type in numeric
    if column_type in dated:
        return param_type in dated
    return True


_DATE_NAME = re.compile(r"date|day|_on\b|_at\b|when|deadline|due|birth|expir|until|since|check.?(?:in|out)", re.I)
"""Names and labels of a text parameter that may hold a day (so a date input may fill it)."""


def _accepts(param: Any, value: Any) -> bool:
    try:
        coerce(param, "" if value is None else str(value))
    except ValueError:
        return False
    return True


def param_fields(site: Site) -> Iterator[tuple[Any, Any, Any, str]]:
    """Each form field that fills a parameter of its form's marker (the argument of the parameter's name
    reads ``field.X``): the marker, the parameter, the field and the field's path."""
    for element, path, _, _ in bound_elements(site):
        if element.type != "form" or element.action.kind != "marker":
            continue
        marker = site.marker(element.action.marker)
        if marker is None:
            continue
        fields = {f.name: (n, f) for n, f in enumerate(element.fields)}
        for arg, value in element.action.args.items():
            param = next((p for p in marker.params if p.name == arg), None)
            if param is None or not isinstance(value, Ref) or value.namespace != "field" or value.name not in fields:
                continue
            number, field_el = fields[value.name]
            yield marker, param, field_el, f"{path}.fields[{number}]"


def check_field_types(site: Site) -> list[C.Issue]:
    """S013: what a form field can send is what its marker parameter accepts, and what a
    parameter holds fits the column it is written to."""
    issues = []
    for marker, param, field_el, where in param_fields(site):
        if field_el.type == "date" and (param.type not in ("date", "datetime", "text") or param.type == "text"
                                        and not _DATE_NAME.search(f"{param.name} {param.label or ''}")):
            issues.append(C.Issue("structural", C.FIELD_TYPE, f"{where}.type",
                                  f"field {field_el.label!r} is a date input, but {marker.name}.{param.name} "
                                  f"takes {param.type}"))
        elif field_el.type == "checkbox" and param.type != "boolean":
            issues.append(C.Issue("structural", C.FIELD_TYPE, f"{where}.type",
                                  f"field {field_el.label!r} is a checkbox (it sends 'on' or nothing), but "
                                  f"{marker.name}.{param.name} takes {param.type}"))
        elif field_el.type in ("select", "radio"):
            refused = []
            for o_index, option in enumerate(field_el.options):
                if option.value.strip() == "":
                    continue
                try:
                    coerce(param, option.value)
                except ValueError as exc:
                    refused.append(C.Issue("structural", C.FIELD_TYPE, f"{where}.options[{o_index}].value",
                                           f"option {option.label!r} of {field_el.label!r} sends {option.value!r}, "
                                           f"which {marker.name} refuses: {exc}"))
            if refused and len(refused) == len([o for o in field_el.options if o.value.strip()]):
                refused = [C.Issue("structural", C.FIELD_TYPE, f"{where}.options",
                                   f"{marker.name} refuses every option of {field_el.label!r}: the field fills "
                                   f"{param.name} ({param.type}) with values of something else")]
            issues += refused
            oq = field_el.options_query
            if oq is not None:
                table = site.database.table(oq.query.table)
                column = table.column(oq.value) if table is not None else None
                kind = "integer" if table is not None and oq.value == table.primary_key else (
                    column.type if column is not None else None)
                sent = [row.get(oq.value) for row in table.rows] if table is not None else []
                names = kind == "text" and bool(sent) and param.type in ("integer", "money", "real", "boolean") \
                    and not any(_accepts(param, value) for value in sent)  # names where a key is taken
                if names:
                    kind = f"text such as {str(sent[0])!r}"
                if kind is not None and (names or not _compatible(kind, param.type)
                                         and not _compatible(param.type, kind)):
                    issues.append(C.Issue("structural", C.FIELD_TYPE, f"{where}.options_query.value",
                                          f"the options of {field_el.label!r} send {oq.query.table}.{oq.value} "
                                          f"({kind}), but {marker.name}.{param.name} takes {param.type}"))
    issues += _defaults_off_options(site) + _masked_fields(site) + _negated_checkboxes(site)
    posted = dataflow.posted_markers(site)
    for m_index, marker in enumerate(site.markers):
        for p_index, param in enumerate(marker.params):
            if param.choices == []:  # not None: a list that admits nothing
                issues.append(C.Issue("structural", C.FIELD_TYPE, f"$.markers[{m_index}].params[{p_index}].choices",
                                      f"{marker.name}.{param.name} has an empty list of choices: the marker "
                                      f"refuses every value"))
        if marker.name not in posted:
            continue
        params = {p.name: (n, p) for n, p in enumerate(marker.params)}
        for effect in marker.effects:
            write = dataflow.parse_effect(marker.name, effect.op, effect.table, effect.sql)
            table = site.database.table(effect.table)
            if table is None:
                continue
            for column_name, source in write.sources.items():
                column = table.column(column_name)
                if source.kind != "param" or source.value not in params or column is None:
                    continue
                p_index, param = params[source.value]
                if not _compatible(param.type, column.type):
                    issues.append(C.Issue("structural", C.FIELD_TYPE, f"$.markers[{m_index}].params[{p_index}].type",
                                          f"{marker.name}.{param.name} accepts {param.type} but is written to "
                                          f"{table.name}.{column.name}, which is {column.type}"))
    return issues


_SECRET = re.compile(r"pass(?:word|code|phrase)?|\bpin\b|secret|\bcvv\b|\bcvc\b", re.I)
_SECRET_NAME = re.compile(r"(?:^|_)(?:password|passcode|passphrase|pin|cvv|cvc|secret)(?:_|$)", re.I)
"""A field name that asks for a secret (``password``, ``card_cvc``; not ``passengers``)."""


def _masked_fields(site: Site) -> list[C.Issue]:
    """S013: a password box for something that is no secret (an e-mail address, a name): what is
    typed shows as dots, so nobody can check it before it is saved."""
    issues = []
    for element, path, _, _ in bound_elements(site):
        if element.type != "form":
            continue
        for number, field_el in enumerate(element.fields):
            if field_el.type == "password" and not _SECRET.search(f"{field_el.name} {field_el.label}"):
                issues.append(C.Issue("structural", C.FIELD_TYPE, f"{path}.fields[{number}].type",
                                      f"field {field_el.label!r} is a password box, but it asks for no secret: "
                                      "what is typed shows as dots, so nobody can check it; it should be a text box"))
            elif field_el.type == "textbox" and (_SECRET_NAME.search(field_el.name) or element.action.kind == "login"
                                                 and field_el.name == (element.action.password_field or "password")):
                issues.append(C.Issue("structural", C.FIELD_TYPE, f"{path}.fields[{number}].type",
                                      f"field {field_el.label!r} asks for a secret in a plain text box: what is typed "
                                      "shows in clear, on the screen and in the page's text; it should be a password box"))
    return issues


_NEGATION = re.compile(r"\b(without|no|don'?t|do not|skip|exclude|never)\s+", re.I)
_NEGATED_NAME = re.compile(r"(?:^|_)(?:no|not|without|skip|exclude|opt_out|never)(?:_|$)", re.I)


def _negated_checkboxes(site: Site) -> list[C.Issue]:
    """M003: a checkbox whose label says what ticking it leaves out ("Travel without hold luggage") while
    the field it sets is named for what it adds (``bag``): a reader ticks it to go without, and pays for
    the bag. The repair takes the negation out of the label."""
    issues = []
    for element, path, _, _ in bound_elements(site):
        if element.type != "form":
            continue
        for number, field_el in enumerate(element.fields):
            said = _NEGATION.search(field_el.label) if field_el.type == "checkbox" else None
            if said is None or _NEGATED_NAME.search(field_el.name):
                continue
            meant = "with " if said.group(1).lower() == "without" else ""
            issues.append(C.Issue("semantic", C.CONTRADICTORY_LABEL, f"{path}.fields[{number}].label",
                                  f"checkbox {field_el.label!r} sets {field_el.name} when ticked, which its label "
                                  f"says it leaves out; it should say {meant!r} for {said.group(0)!r}"))
    return issues


def _defaults_off_options(site: Site) -> list[C.Issue]:
    """S013: a drop-down or radio group whose fixed default is none of its fixed options ("Standard"
    among "standard" and "express"): no option shows as chosen, and a form sent untouched sends a
    value its own options never offer."""
    issues = []
    for element, path, _, _ in bound_elements(site):
        if element.type != "form":
            continue
        for number, field_el in enumerate(element.fields):
            if field_el.type not in ("select", "radio") or field_el.options_query is not None or not field_el.options:
                continue
            value = field_el.value
            if not isinstance(value, str | int | float) or isinstance(value, bool) or str(value) == "":
                continue
            offered = [option.value for option in field_el.options]
            if str(value) not in offered:
                issues.append(C.Issue("structural", C.FIELD_TYPE, f"{path}.fields[{number}].value",
                                      f"field {field_el.label!r} starts at {value!r}, which is none of its options "
                                      f"({', '.join(map(repr, offered))}): no option shows as chosen, and the "
                                      "form sent untouched sends a value it never offers"))
    return issues


# ----------------------------------------------------------------------------- S014


def _name_columns(table: Any) -> list[str]:
    return [c.name for c in table.columns if c.type == "text" and c.name in ("name", "title", "subject", "path",
                                                                             "code", "label", "number", "sku")]


def check_link_entities(site: Site) -> list[C.Issue]:
    """S014: a link with a fixed address to a record's page opens a record that exists, and the
    one its text names (not another record of the same table)."""
    routes = [Route.compile(p.id, p.route) for p in site.pages]
    keys = _page_keys(site, through_views=True)
    issues = []
    for element, path, _, bound in bound_elements(site):
        if element.type != "link" or "{" in element.href or not element.href.startswith("/"):
            continue
        address = element.href.split("?")[0].split("#")[0]
        match = next(((r, m) for r in routes if (m := r.match(address)) is not None), None)
        if match is None or match[0].page_id not in keys:
            continue
        route, params = match
        name, table_name, column = keys[route.page_id]
        table = site.database.table(table_name)
        if table is None or name not in params:
            continue
        value = params[name]
        row = next((r for r in table.rows if r.get(column) == value), None)
        alike = next((r.get(column) for r in table.rows if row is None and isinstance(r.get(column), str)
                      and isinstance(value, str) and r[column].casefold() == value.casefold()), None)
        if alike is not None:  # "/mail/inbox" where the folder is "Inbox": the lookup matches exactly
            issues.append(C.Issue("structural", C.LINK_ENTITY, f"{path}.href",
                                  f"link {element.text!r} names {table_name} '{alike}' but opens {table_name} "
                                  f"{value!r}, which does not exist (the lookup matches the case exactly)"))
            continue
        if row is None:
            issues.append(C.Issue("structural", C.LINK_ENTITY, f"{path}.href",
                                  f"link {element.text!r} opens {table_name} {column} {value}, which does not exist"))
            continue
        text = _TEMPLATE.sub("", element.text).strip().casefold()
        if not text:
            continue
        names = _name_columns(table)
        own = {str(row.get(c)).casefold() for c in names}
        if any(o and o in text for o in own):
            continue
        other = next((r for r in table.rows for c in names
                      if isinstance(r.get(c), str) and len(r[c]) > 2 and r[c].casefold() == text), None)
        if other is not None:
            issues.append(C.Issue("structural", C.LINK_ENTITY, f"{path}.href",
                                  f"link {element.text!r} names {table_name} {other.get(column)!r} but opens "
                                  f"{table_name} {value!r} ({', '.join(str(row.get(c)) for c in names)})"))
    return issues


def _filter_domains(site: Site) -> dict[str, set[str]]:
    """For each text column name, the few one-word values its seed rows hold (``state``: open, closed)."""
    out: dict[str, set[str]] = {}
    for table in site.database.tables:
        for column in table.columns:
            if column.type == "text":
                out.setdefault(column.name, set()).update(
                    str(r[column.name]) for r in table.rows if isinstance(r.get(column.name), str))
    return {k: v for k, v in out.items() if 2 <= len(v) <= 8 and all(re.fullmatch(r"[a-z][a-z_-]{1,19}", x) for x in v)}


def check_link_filters(site: Site) -> list[C.Issue]:
    """S014: a link whose words name one value of a column ("Closed") while its address filters on
    another (``?state=open``): the tab opens the other list."""
    from veriweb.verify.wording import stem

    domains: dict[str, set[str]] | None = None
    issues = []
    for element, path, _, _ in bound_elements(site):
        if element.type != "link" or "?" not in element.href:
            continue
        words = re.findall(r"[A-Za-z]+", _TEMPLATE.sub("", element.text))
        if len(words) != 1:
            continue
        said = stem(words[0])
        domains = _filter_domains(site) if domains is None else domains
        for name, value in re.findall(r"[?&](\w+)=([\w-]+)(?=&|#|$)", element.href):
            domain = domains.get(name)
            if domain is None or value not in domain or stem(value) == said:
                continue
            named = [v for v in sorted(domain) if stem(v) == said]
            if len(named) == 1:
                issues.append(C.Issue("structural", C.LINK_ENTITY, f"{path}.href",
                                      f"link {element.text!r} names {name} {named[0]!r} but filters {name}={value}: "
                                      f"it opens the other list"))
    return issues


# ----------------------------------------------------------------------------- M010


@C.per_run
def shown_columns(site: Site) -> set[tuple[str, str]]:
    """Every base ``(table, column)`` some page shows, sorts, filters or chooses by."""
    shown: set[tuple[str, str]] = set()
    views: dict[Any, Any] = {}
    views_read: set[str] = set()

    def add(source: str, column: str) -> None:
        shown.add((source, column))
        base = base_column(site, source, column, views)
        if base is not None:
            shown.add(base)

    def add_query(query: Any) -> None:
        for cond in query.where:
            add(query.table, cond.column)
            if isinstance(cond.value, QueryValue):
                add_query(cond.value.query)
        for order in query.order_by:
            add(query.table, order.column)
        select = C.field_of(query, "select")
        if select and select != "*":
            add(query.table, select)
        view = next((v for v in site.database.views if v.name == query.table), None)
        if view is not None and view.name not in views_read:
            views_read.add(view.name)
            words = set(re.findall(r"\b\w+\b", view.sql))
            for name in dataflow.view_tables(site, view.name):
                table = site.database.table(name)
                for column in table.columns if table is not None else []:
                    if column.name in words:  # the view reads it (shown as is or in an expression)
                        shown.add((name, column.name))
            for column in view_columns(site, view.name) or set():
                add(view.name, column)

    for element, _, _, bound in bound_elements(site):
        for attr, namespace, name, _ in _refs_of(element):
            if namespace == "row" and bound is not None:
                add(bound, name)
            elif namespace == "user" and site.auth is not None:
                add(site.auth.table, name)
        if element.type in ("list", "table", "record"):
            add_query(element.query)
            for sort in C.field_of(element, "sorts") or []:
                add(element.query.table, sort.column)
        for field_el in C.field_of(element, "fields") or []:
            oq = C.field_of(field_el, "options_query")
            if oq is not None:
                add_query(oq.query)
                add(oq.query.table, oq.value)
                add(oq.query.table, oq.label)
    return shown


def check_observable(site: Site) -> list[C.Issue]:
    """M010: every column a form's marker updates is shown, sorted or filtered on by some page
    (or read by a view a page shows), so an agent can see that the change happened."""
    shown = shown_columns(site)
    posted = dataflow.posted_markers(site)
    issues = []
    for m_index, marker in enumerate(site.markers):
        if marker.name not in posted:
            continue
        for e_index, effect in enumerate(marker.effects):
            write = dataflow.parse_effect(marker.name, effect.op, effect.table, effect.sql)
            if write.op != "update" or write.columns is None or site.database.table(effect.table) is None:
                continue
            hidden = sorted(c for c in write.columns if (effect.table, c) not in shown)
            if hidden and len(hidden) == len(write.columns):
                issues.append(C.Issue("semantic", C.UNOBSERVABLE, f"$.markers[{m_index}].effects[{e_index}]",
                                      f"marker {marker.name!r} changes {effect.table}.{', '.join(hidden)}, but no page "
                                      f"shows, sorts or filters on it: nobody can see the change"))
    return issues


# ----------------------------------------------------------------------------- M011


def check_controls_distinct(site: Site) -> list[C.Issue]:
    """M011: a form's fields have distinct names and labels, and controls outside lists that share
    a label on one page do the same thing (same address, or same marker)."""
    issues = []
    per_page: dict[str | None, dict[tuple[str, str], set[str]]] = defaultdict(lambda: defaultdict(set))
    first: dict[tuple[str | None, str, str], str] = {}
    for element, path, page_id, bound in bound_elements(site):
        seen_keys: dict[str, Any] = {}
        for number, sort in enumerate(C.field_of(element, "sorts") or []):
            earlier = seen_keys.setdefault(sort.key, sort)
            if earlier is not sort and (earlier.column, earlier.dir) != (sort.column, sort.dir):
                fresh = f"{sort.column}_{sort.dir}"
                taken = {s.key for s in C.field_of(element, "sorts")}
                issues.append(C.Issue("semantic", C.AMBIGUOUS_CONTROL, f"{path}.sorts[{number}].key",
                                      f"sort {sort.label!r} has the key {sort.key!r} of sort {earlier.label!r}, which "
                                      f"orders otherwise: its link selects the first, so it never sorts as it says"
                                      + (f"; its key should be {fresh!r}" if fresh not in taken else "")))
        tab_labels: dict[str, int] = {}
        for number, tab in enumerate(C.field_of(element, "tabs") or []):
            earlier = tab_labels.setdefault((tab.label or "").strip().casefold(), number)
            if earlier != number and tab.label.strip():
                issues.append(C.Issue("semantic", C.AMBIGUOUS_CONTROL, f"{path}.tabs[{number}].label",
                                      f"tabs {earlier + 1} and {number + 1} of {element.id!r} are both labelled "
                                      f"{tab.label!r}: nothing says which one holds what"))
        if element.type == "form":
            issues += _options_labelled_alike(element, path)
            dialog = element.confirm
            if dialog is not None and dialog.confirm.strip().casefold() == dialog.cancel.strip().casefold():
                issues.append(C.Issue("semantic", C.AMBIGUOUS_CONTROL, f"{path}.confirm.confirm",
                                      f"the dialog confirming {element.submit!r} labels both its buttons "
                                      f"{dialog.confirm!r}: nothing says which one goes ahead"))
            for attr in ("name", "label"):
                counts: dict[str, list[int]] = defaultdict(list)
                for number, field_el in enumerate(element.fields):
                    key = getattr(field_el, attr).strip().casefold()
                    if key:
                        counts[key].append(number)
                for key, numbers in counts.items():
                    for number in numbers[1:]:
                        issues.append(C.Issue("semantic", C.AMBIGUOUS_CONTROL, f"{path}.fields[{number}].{attr}",
                                              f"form {element.submit!r} has {len(numbers)} fields with the {attr} "
                                              f"{getattr(element.fields[number], attr)!r}"))
            issues += _labels_naming_other_fields(element, path)
        if bound is not None:
            continue
        if element.type == "link" and "{" not in element.href and element.text.strip():
            key = ("link", element.text.strip().casefold())
            target = element.href.split("#")[0]
        elif element.type == "form" and element.action.kind == "marker" and element.submit.strip():
            key = ("form", element.submit.strip().casefold())
            target = f"{element.action.marker}:{sorted((k, repr(v)) for k, v in element.action.args.items())}"
        else:
            continue
        per_page[page_id][key].add(target)
        first.setdefault((page_id, *key), path)
        if len(per_page[page_id][key]) == 2 and (page_id, *key, "reported") not in first:
            first[(page_id, *key, "reported")] = path
            issues.append(C.Issue("semantic", C.AMBIGUOUS_CONTROL, f"{path}.{'text' if key[0] == 'link' else 'submit'}",
                                  f"two {key[0]}s labelled {key[1]!r} on one page do different things "
                                  f"({' / '.join(sorted(per_page[page_id][key]))}); an agent cannot tell them apart"))
    return issues


def _options_labelled_alike(form: Any, path: str) -> list[C.Issue]:
    """M011: two options of one drop-down or radio group that send different values under one label
    ("Home delivery" for both ``standard`` and ``express``): a reader choosing by label picks blind.
    The repair labels the later one by its value."""
    issues = []
    for f_index, field_el in enumerate(form.fields):
        seen: dict[str, Any] = {}
        for number, option in enumerate(C.field_of(field_el, "options") or []):
            earlier = seen.setdefault(option.label.strip().casefold(), option)
            if earlier is not option and option.label.strip() and earlier.value != option.value:
                issues.append(C.Issue("semantic", C.AMBIGUOUS_CONTROL, f"{path}.fields[{f_index}].options[{number}].label",
                                      f"options {earlier.value!r} and {option.value!r} of {field_el.label!r} are both "
                                      f"labelled {option.label!r}: nothing says which one is which"))
    return issues


def _name_words(text: str) -> tuple[str, ...]:
    return tuple(w for w in re.split(r"[^a-z0-9]+", text.casefold()) if w)


def _labels_naming_other_fields(form: Any, path: str) -> list[C.Issue]:
    """M011: a field labelled with another field's name of the same form, not its own ("Check in" on the
    ``check_out`` field): the agent types each value into the other's field. The repair swaps the two labels."""
    issues = []
    names = {_name_words(f.name): number for number, f in enumerate(form.fields)}
    for number, field_el in enumerate(form.fields):
        said = _name_words(field_el.label)
        other = names.get(said)
        if other is None or other == number or said == _name_words(field_el.name):
            continue
        issues.append(C.Issue("semantic", C.AMBIGUOUS_CONTROL, f"{path}.fields[{number}].label",
                              f"form {form.submit!r} labels its field {field_el.name!r} {field_el.label!r}, the name "
                              f"of its field {form.fields[other].name!r}: values go into each other's field"))
    return issues


_ONE_ROW_REF = re.compile(r"\{row\.(\w+)(?:\|[a-z_]+)?\}")


def _stored_type(site: Site, source: str, column: str) -> str | None:
    """The declared type of the stored column ``source.column`` shows unchanged (``None``: computed)."""
    base = base_column(site, source, column)
    table = site.database.table(base[0]) if base is not None else None
    if base is None or table is None:
        return None
    found = table.column(base[1])
    if found is not None:
        return found.type
    return "integer" if base[1] == table.primary_key else None


def check_headers(site: Site) -> list[C.Issue]:
    """C008: a table column headed with the name of one of its row's stored columns shows another
    stored column of the same type ("Total" over ``{row.refunded}`` where the row has a ``total``)."""
    issues = []
    for element, path, _, _ in bound_elements(site):
        if element.type != "table":
            continue
        columns = source_columns(site, element.query.table) or set()
        for number, column in enumerate(element.columns):
            named = "_".join(column.header.lower().split())
            if named not in columns:
                continue
            shown = {m for e, _, _ in C.walk_bound(column.cell, "$", None) if e.type in ("text", "link")
                     for m in _ONE_ROW_REF.findall(e.text or "")}
            # a stored column under another's name; a column computed for the list (a line's total
            # under "Price") or named after the header (bounty_shown under "Bounty") may say the same
            kind = _stored_type(site, element.query.table, named)
            if shown and named not in shown and shown <= columns and kind is not None and all(
                    named not in m and _stored_type(site, element.query.table, m) == kind for m in shown):
                issues.append(C.Issue("consistency", C.LIST_DETAIL, f"{path}.columns[{number}].header",
                                      f"the column headed {column.header!r} shows {', '.join(sorted(shown))}, not the "
                                      f"row's own {named}"))
    return issues


_FIGURE_WORD = re.compile(r"\{row\.(\w+)(\|[a-z_]+)?\}(\s+)([A-Za-z]+)")


def figure_words(site: Site) -> Iterator[tuple[str, str, str, str]]:
    """Each text that follows a row's figure with the name of another of the row's columns ("{row.guests}
    nights" where the row has a ``nights``): its path, the text, the text with the named columns shown
    (the two figures swapped back when each names the other), and what is wrong."""
    from veriweb.verify.wording import singular

    for element, path, _, bound in bound_elements(site):
        text = C.field_of(element, "text")
        if bound is None or not isinstance(text, str) or "{row." not in text:
            continue
        columns = source_columns(site, bound) or set()
        wrong: dict[str, str] = {}
        for found in _FIGURE_WORD.finditer(text):
            shown, word = found.group(1), found.group(4).lower()
            named = next((c for c in sorted(columns) if c != shown and c.lower() in (word, singular(word))
                          and c.lower() not in shown.lower().split("_")), None)
            if named is not None and _stored_type(site, bound, named) is not None \
                    and _stored_type(site, bound, named) == _stored_type(site, bound, shown):
                wrong[shown] = named
        if not wrong:
            continue
        fixed = _FIGURE_WORD.sub(lambda m: "{row." + wrong.get(m.group(1), m.group(1)) + (m.group(2) or "") + "}"
                                 + m.group(3) + m.group(4) if m.group(1) in wrong and wrong[m.group(1)].lower() in (
                                     m.group(4).lower(), singular(m.group(4).lower())) else m.group(0), text)
        said = ", ".join(f"{{row.{a}}} under the name of {b}" for a, b in sorted(wrong.items()))
        yield f"{path}.text", text, fixed, f"the text {text!r} shows {said}: the figure is another column than its words say"


def check_self_tests(site: Site) -> list[C.Issue]:
    """C009: a record nested in a list that picks the list's own row (``id = row.id``) and tests one of its
    columns against the same column of that row (``author_id = row.author_id``): the test always holds,
    so what it was to show only to some (a Discard button on one's own comments) shows on every row. An
    owner column is meant to be the signed-in user's; the repair tests it against ``user.id``."""
    issues = []
    cache: dict[Any, Any] = {}
    accounts = site.auth.table if site.auth is not None else "users"
    for element, path, _, bound in bound_elements(site):
        query = C.field_of(element, "query")
        table = site.database.table(query.table) if element.type == "record" and query is not None else None
        if table is None or bound is None:
            continue

        def same(cond: Any) -> bool:
            ref = getattr(cond.value, "ref", None)
            return isinstance(ref, str) and ref.startswith("row.") and cond.op == "=" and \
                base_column(site, bound, ref[4:], cache) == (table.name, cond.column)

        if not any(c.column == table.primary_key and same(c) for c in query.where):
            continue  # not the list's own row
        for number, cond in enumerate(query.where):
            if cond.column == table.primary_key or not same(cond):
                continue
            owner = any(fk.column == cond.column and fk.ref_table == accounts for fk in table.foreign_keys)
            issues.append(C.Issue("consistency", C.VACUOUS_GUARD, f"{path}.query.where[{number}].value",
                                  f"a record of the list's own {table.name} row tests {cond.column} against the same "
                                  f"row's {cond.column}: it always holds, so what it shows shows on every row"
                                  + ("; it should test the signed-in user (user.id)" if owner else "")))
    return issues


def check_stated_today(site: Site) -> list[C.Issue]:
    """C010: a text saying what day it is today ("Today is Saturday, June 20, 2026.") with a fixed day
    that is not the site's today: every page that dates things against the clock contradicts it. The
    repair reads the clock (``{clock.today|date}``)."""
    from veriweb.verify.wording import _DATE_TEXT, month_day

    issues = []
    today = (site.clock.today.month, site.clock.today.day)
    for element, path, _, _ in bound_elements(site):
        text = C.field_of(element, "text")
        if not isinstance(text, str) or not re.search(r"\btoday\b", text, re.I):
            continue
        for sentence in re.split(r"(?<=[.!?])\s+", text):
            if not re.search(r"\btoday\b", sentence, re.I) or "{" in sentence:
                continue
            found = next((m for m in _DATE_TEXT.finditer(sentence) if month_day(m.group(0)) is not None), None)
            if found is not None and month_day(found.group(0)) != today:
                issues.append(C.Issue("consistency", C.STALE_DATE, f"{path}.text",
                                      f"{text!r} says today is {found.group(0)!r}, but the site's today is "
                                      f"{site.clock.today}: it should read the clock ({{clock.today|date}})"))
                break
    return issues


_NUMBERED = re.compile(r"#\{row\.(\w+)\}")


def check_numbered_by_other_keys(site: Site) -> list[C.Issue]:
    """C006: a record numbered by another record's key ("Cancel order #{row.customer_id}?" on an order):
    the number shown is the customer's, so on order #1207 it asks about order #48. The repair numbers
    it by the record's own number (its ``number`` column, else its key)."""
    issues = []
    cache: dict[Any, Any] = {}
    for element, path, _, bound in bound_elements(site):
        if bound is None:
            continue
        texts = [(attr, C.field_of(element, attr)) for attr in ("text", "label", "submit", "title")]
        dialog = C.field_of(element, "confirm")
        if dialog is not None and not isinstance(dialog, str):
            texts += [("confirm.title", dialog.title), ("confirm.text", dialog.text)]
        for attr, text in texts:
            if not isinstance(text, str):
                continue
            for found in _NUMBERED.finditer(text):
                base = base_column(site, bound, found.group(1), cache)
                table = site.database.table(base[0]) if base is not None else None
                key = next((fk for fk in table.foreign_keys if fk.column == base[1]), None) if table else None
                if key is None or key.ref_table == table.name:
                    continue
                own = "number" if "number" in row_columns(site, bound) else next(
                    (c for c in row_columns(site, bound) if base_column(site, bound, c, cache) == (table.name,
                                                                                                 table.primary_key)), None)
                if own is None:
                    continue
                issues.append(C.Issue("consistency", C.VALUE_DISAGREES, f"{path}.{attr}",
                                      f"{text!r} numbers the {table.name} row by {found.group(1)}, the key of its "
                                      f"{key.ref_table} row: it shows another record's number; it should show "
                                      f"#{{row.{own}}}"))
    return issues


def check_figure_words(site: Site) -> list[C.Issue]:
    """C008: a figure followed by the name of another column of its row ("({row.guests} nights,
    {row.nights} guests)"): the page shows one number under the other's name."""
    return [C.Issue("consistency", C.LIST_DETAIL, location, message) for location, _, _, message in figure_words(site)]


_FLAG_WORDS = re.compile(r"CASE\s+WHEN\s+(NOT\s+)?(?:\w+\.)?(\w+)\s*(=\s*[01]|<>\s*0|!=\s*0|IS\s+(?:NOT\s+)?TRUE)?\s+"
                         r"THEN\s+'([^']*)'\s+ELSE\s+'([^']*)'\s+END", re.I)
_YES = re.compile(r"^(?:yes|with\b.*|on|true|included|paid|active|enabled|open|available|in stock|read)$", re.I)
_NO = re.compile(r"^(?:no|none|without\b.*|off|false|not \w+|excluded|unpaid|inactive|disabled|closed|"
                 r"unavailable|out of stock|unread)$", re.I)


def check_flag_words(site: Site) -> list[C.Issue]:
    """C006: a view that words a yes-or-no column backwards (``CASE WHEN b.bag THEN 'No' ELSE 'Yes'``):
    every page showing it says the opposite of the data."""
    flags = {c.name for t in site.database.tables for c in t.columns if c.type == "boolean"}
    issues = []
    for number, view in enumerate(site.database.views):
        for match in _FLAG_WORDS.finditer(view.sql):
            negated, column, test, then, other = match.groups()
            if column not in flags:
                continue
            truth = not negated
            if test and re.match(r"=\s*0|IS\s+NOT", test, re.I):
                truth = not truth
            said, unsaid = (then, other) if truth else (other, then)  # the words for a true value, a false one
            if _NO.match(said.strip()) and _YES.match(unsaid.strip()):
                issues.append(C.Issue("consistency", C.VALUE_DISAGREES, f"$.database.views[{number}].sql",
                                      f"view {view.name!r} says {said!r} when {column} is true and {unsaid!r} when "
                                      f"it is false: the words are the wrong way round"))
    return issues


def check_open_private_pages(site: Site) -> list[C.Issue]:
    """S012: a page open to everyone whose list shows only the signed-in user's own rows (orders where
    ``user_id = user.id``) and that says nothing to a visitor who is signed out (no link to log in): a
    signed-out visitor is told the list is empty ("You have no orders yet.") instead of being asked to
    sign in. The repair makes the page require a login."""
    from veriweb.scaffold.values import Ref

    if site.auth is None:
        return []
    login_routes = {p.route for p in site.pages if any(e.type == "form" and e.action.kind == "login"
                                                        for e, _ in C.walk(p.elements, ""))}
    issues = []
    for number, page in enumerate(site.pages):
        if page.requires_login:
            continue
        elements = [e for e, _ in C.walk(page.elements, f"$.pages[{number}].elements")]
        own = [e for e in elements if e.type in ("list", "table") and any(
            isinstance(c.value, Ref) and c.value.ref.startswith("user.") for c in e.query.where)]
        if own and not any(e.type == "link" and e.href.split("?")[0] in login_routes for e in elements):
            issues.append(C.Issue("structural", C.UNBOUND_REFERENCE, f"$.pages[{number}].requires_login",
                                  f"page {page.id!r} lists the signed-in user's own {own[0].query.table} but is open "
                                  f"to everyone and says nothing to a visitor who is signed out: they see it empty "
                                  f"({(C.field_of(own[0], 'empty_text') or 'nothing')!r}); it should require a login"))
    return issues


def check_auth_columns(site: Site) -> list[C.Issue]:
    """S010: the login's password column is one that holds no secret (``email``) while the accounts table
    has a password column: every login with the password it gives is refused. The repair names that
    column."""
    auth = site.auth
    table = site.database.table(auth.table) if auth is not None else None
    if table is None or _SECRET_NAME.search(auth.password_column):
        return []
    secret = [c.name for c in table.columns if c.type == "text" and _SECRET_NAME.search(c.name)]
    if len(secret) != 1:
        return []
    return [C.Issue("structural", C.LOGIN_MISSING, "$.auth.password_column",
                    f"logins check the password against {auth.table}.{auth.password_column}, which holds no secret, "
                    f"while {auth.table}.{secret[0]} holds the passwords: every login with its password is refused; "
                    f"it should be {secret[0]!r}")]


def check_blank_passwords(site: Site) -> list[C.Issue]:
    """S010: an account whose stored password is blank. A login form requires a password, so nobody can
    sign in as that user (any task given to them cannot be done), and a login path that accepted a blank
    one would let anyone in. The repair gives the account a password."""
    auth = site.auth
    table = site.database.table(auth.table) if auth is not None else None
    if table is None or table.column(auth.password_column) is None:
        return []
    t_index = site.database.tables.index(table)
    issues = []
    for r_index, row in enumerate(table.rows):
        value = row.get(auth.password_column)
        who = row.get(auth.username_column, r_index)
        where = f"$.database.tables[{t_index}].rows[{r_index}].{auth.password_column}"
        if value is None or (isinstance(value, str) and not value.strip()):
            issues.append(C.Issue("structural", C.LOGIN_MISSING, where,
                                  f"account {who!r} has a blank password: nobody can sign in as them (and a login "
                                  f"that took a blank password would let anyone in); it should hold a password"))
        elif weak_password(str(who), str(value)):
            issues.append(C.Issue("structural", C.LOGIN_MISSING, where,
                                  f"account {who!r} has the password {value!r}, the first anyone would guess (a default "
                                  f"left in the data): anyone can sign in as them; it should hold a password of its own"))
    return issues


_DEFAULT_PASSWORDS = frozenset({"admin", "administrator", "password", "passw0rd", "pass", "123456", "12345678", "1234",
                                "12345", "0000", "letmein", "changeme", "default", "root", "toor", "guest", "test",
                                "qwerty", "secret", "welcome"})


def weak_password(username: str, password: str) -> bool:
    """Is ``password`` a default any visitor would try: the username itself, or a stock one ("admin", "1234")?"""
    folded = password.strip().casefold()
    return folded == username.strip().casefold() or folded in _DEFAULT_PASSWORDS


def check_prefilled_logins(site: Site) -> list[C.Issue]:
    """S010: a sign-in form whose username (or password) box starts with a real account's name (or any
    password): every visitor is shown someone's login, and a careless one signs in as them. The repair
    empties the box."""
    auth = site.auth
    table = site.database.table(auth.table) if auth is not None else None
    if table is None:
        return []
    names = {str(r.get(auth.username_column)).casefold() for r in table.rows if r.get(auth.username_column)}
    issues = []
    for element, path, _ in C.all_elements(site):
        action = C.field_of(element, "action") if element.type == "form" else None
        if getattr(action, "kind", "") != "login":
            continue
        for number, field_el in enumerate(element.fields):
            value = C.field_of(field_el, "value")
            if not isinstance(value, str) or not value.strip() or "{" in value:
                continue
            if field_el.name == action.username_field and value.strip().casefold() in names:
                said = f"the account name {value!r}"
            elif field_el.name == action.password_field:
                said = "a password"
            else:
                continue
            issues.append(C.Issue("structural", C.LOGIN_MISSING, f"{path}.fields[{number}].value",
                                  f"the sign-in form starts with {said} filled in for every visitor: a real account is "
                                  f"shown to all, and a careless visitor signs in as someone else; it should start empty"))
    return issues


def _own_route(page: Any, href: str) -> tuple[str, str] | None:
    """``href`` with the page's own route parameter where it writes a fixed key of the same record
    (``/projects/1/issues/new`` on ``/projects/{id:int}/issues``: ``/projects/{param.id}/issues/new``), and
    that key; or ``None``. Only an address that goes on past the key along the page's own path counts: one that stops
    at the key may mean that record."""
    route = [part for part in page.route.split("?")[0].split("/") if part]
    parts = [part for part in href.split("?")[0].split("/") if part]
    if len(parts) <= len(route) or "{" in href:
        return None
    out, key = [], ""
    for mine, theirs in zip(route, parts):
        param = re.fullmatch(r"\{(\w+)(?::\w+)?\}", mine)
        if param is not None and re.fullmatch(r"\d+", theirs):
            out.append(f"{{param.{param.group(1)}}}")
            key = theirs
        elif mine == theirs:
            out.append(theirs)
        else:
            return None
    return ("/" + "/".join(out + parts[len(route):]), key) if key else None


def check_fixed_record_links(site: Site) -> list[C.Issue]:
    """S011: on a record's page (``/projects/{id}/issues``), a link along that page's own path with a fixed key
    (``/projects/1/issues/new``): from every project, "Open an issue" opens project 1's form, and the issue is
    filed there. The repair reads the page's own key. A form that redirects to ``{result.id}`` while its
    marker inserts no row goes to an address without a key, which no page serves: it stays on the page."""
    issues = []
    for p_index, page in enumerate(site.pages):
        if "{" not in page.route:
            continue
        for element, path in C.walk(page.elements, f"$.pages[{p_index}].elements"):
            href = C.field_of(element, "href") if element.type == "link" else None
            own = _own_route(page, href) if isinstance(href, str) else None
            if own is not None:
                issues.append(C.Issue("structural", C.WRONG_TARGET, f"{path}.href",
                                      f"the link {href!r} on page {page.id!r} ({page.route}) opens record {own[1]}'s "
                                      f"page whatever record the page shows; it should open {own[0]!r}"))
    for element, path, _ in C.all_elements(site):
        action = C.field_of(element, "action") if element.type == "form" else None
        redirect = getattr(action, "redirect", None) if getattr(action, "kind", "") == "marker" else None
        marker = site.marker(action.marker) if redirect and "{result." in redirect else None
        if marker is not None and not any(e.op == "insert" for e in marker.effects):
            issues.append(C.Issue("structural", C.WRONG_TARGET, f"{path}.action.redirect",
                                  f"the form goes to {redirect!r} after {marker.name!r}, which inserts no row: the "
                                  f"address has no key and no page serves it; it should stay on the page"))
    return issues


def check_bare_pages(site: Site) -> list[C.Issue]:
    """S002: a page that opts out of the site's layout (no header, no footer) while linking to no page the
    layout links to and not home: a visitor there has no way on but the browser's Back button or a typed
    address. The repair gives it the layout again."""
    nav = {e.href.split("?")[0] for part in (site.layout.header, site.layout.footer) for e, _ in C.walk(part, "")
           if e.type == "link"}
    if not nav:
        return []
    issues = []
    for number, page in enumerate(site.pages):
        if page.layout or page.route == (site.auth.login_page if site.auth else None):
            continue
        links = {e.href.split("?")[0] for e, _ in C.walk(page.elements, "") if e.type == "link"}
        if not links & (nav | {"/"}):
            issues.append(C.Issue("structural", C.UNREACHABLE, f"$.pages[{number}].layout",
                                  f"page {page.id!r} opts out of the site's layout and links to none of its pages: "
                                  f"there is no way on from it but Back; it should keep the site's layout"))
    return issues


_INTERNALS = re.compile(r"\bsqlite3?\b|\b(?:Integrity|Operational|Programming|Value|Type|Key)Error\b|Traceback|"
                        r"\bINSERT\s+INTO\b|\bUPDATE\s+\w+\s+SET\b|\bDELETE\s+FROM\b|\bSELECT\b.*\bFROM\b|"
                        r"server log|stack trace|exception|\bconstraint failed\b", re.I | re.S)
_FOREIGN = frozenset("""pour cette les une avec votre vous nous être pas quantité insuffisant veuillez und der das
    ist nicht bitte ihre keine für para los las por usted una está puede disponible cantidad della questo sono è""".split())
"""Common words of French, German, Spanish and Italian that English text does not use."""


def check_messages(site: Site) -> list[C.Issue]:
    """M001: a message a marker shows when it refuses or fails that is raw program text (``sqlite3.IntegrityError:
    INSERT INTO issues ...``) or in another language than the site ("Stock insuffisant pour cette quantité."):
    the visitor learns nothing they can act on. The repair says in plain words what could not be done."""
    issues = []
    for m_index, marker in enumerate(site.markers):
        said = [(f"$.markers[{m_index}].message", marker.message)] + [
            (f"$.markers[{m_index}].{kind}[{k}].message", guard.message)
            for kind in ("preconditions", "invariants") for k, guard in enumerate(getattr(marker, kind))]
        for where, text in said:
            words = set(re.findall(r"[^\W\d_]+", (text or "").lower()))
            if text and (_INTERNALS.search(text) or len(words & _FOREIGN) >= 2):
                what = "raw program text" if _INTERNALS.search(text) else "in another language than the site"
                issues.append(C.Issue("semantic", C.PLACEHOLDER, where,
                                      f"marker {marker.name!r} tells the visitor {text!r}, {what}: they learn nothing "
                                      f"they can act on; it should say in plain words what could not be done"))
    return issues


def check_nameless_row_links(site: Site) -> list[C.Issue]:
    """M011: a list whose every row links to its record under one fixed word ("View") while the row's name
    stands beside it as plain text: a column of identical links, which a reader or an agent choosing a
    link by its name cannot tell apart. The repair makes the name the link."""
    issues = []
    for element, path, _, _ in bound_elements(site):
        if element.type != "list":
            continue
        items = list(enumerate(element.item))
        links = [(n, e) for n, e in items if e.type == "link" and "{row." in e.href and "{" not in e.text]
        names = [(n, e) for n, e in items if e.type == "text" and re.fullmatch(r"\{row\.(?:name|title|subject)\}",
                                                                             e.text.strip())]
        if len(links) == 1 and names:
            issues.append(C.Issue("semantic", C.AMBIGUOUS_CONTROL, f"{path}.item[{links[0][0]}].text",
                                  f"every row of list {element.name!r} links to its record as {links[0][1].text!r}, "
                                  f"its name plain text beside it: the links cannot be told apart; the name "
                                  f"{names[0][1].text!r} should be the link"))
    return issues


def check_preset_choices(site: Site) -> list[C.Issue]:
    """S004: a required drop-down of a form with no empty first choice and no default: it starts on its
    first real option, so a form sent without a choice goes to that one (a post filed under the first
    community by name) instead of being stopped for the missing field. The repair adds the empty first
    choice."""
    issues = []
    for element, path, _, _ in bound_elements(site):
        if element.type != "form" or element.action.kind != "marker":
            continue
        for number, field_el in enumerate(element.fields):
            if field_el.type != "select" or not field_el.required or C.field_of(field_el, "value") not in (None, ""):
                continue
            options = C.field_of(field_el, "options") or []
            if (options or C.field_of(field_el, "options_query") is not None) and not any(
                    o.value == "" for o in options):
                issues.append(C.Issue("structural", C.FIELD_MISMATCH, f"{path}.fields[{number}].options",
                                      f"required drop-down {field_el.label!r} of form {element.submit!r} starts on its "
                                      f"first option: sent untouched, it files under that one instead of asking; it "
                                      f"needs an empty first choice"))
    return issues


def check_key_filters(site: Site) -> list[C.Issue]:
    """M015: a list that filters a key column (an order's number) by a piece of it (``contains``,
    ``startswith``) with a value the visitor gives: looking up order 120 lists #1120, #1201 and more, so
    one record asked for shows as many. The repair matches the key exactly."""
    from veriweb.scaffold.values import Ref

    issues = []
    for element, path, _, _ in bound_elements(site):
        if element.type not in ("list", "table"):
            continue
        table = site.database.table(element.query.table)
        key = table.primary_key if table is not None else "id"
        for number, cond in enumerate(element.query.where):
            if cond.op in ("contains", "startswith") and cond.column == key and isinstance(cond.value, Ref) \
                    and cond.value.namespace in ("query", "param", "field"):
                issues.append(C.Issue("semantic", C.EMPTY_FILTER, f"{path}.query.where[{number}].op",
                                      f"the list matches its key {cond.column} by a piece of the number given "
                                      f"({cond.op} {cond.value.namespace}.{cond.value.name}): asking for one record "
                                      f"lists every one whose number holds those digits; it should match exactly"))
    return issues


def check_field_echoes(site: Site) -> list[C.Issue]:
    """S012: a search form (one that opens a page with its fields in the address) whose field shows the
    value of another address parameter than the one it sends (the "Hotel class" select sends ``stars``
    but shows ``query.star``): after a search the field shows nothing chosen, and the next search
    silently drops the filter. The repair shows the parameter the field sends."""
    issues = []
    for element, path, _ in C.all_elements(site):
        if element.type != "form" or element.action.kind != "navigate":
            continue
        fields = C.field_of(element, "fields") or []
        names = {f.name for f in fields}
        for number, field_el in enumerate(fields):
            value = C.field_of(field_el, "value")
            if isinstance(value, Ref) and value.namespace == "query" and value.name not in names:
                issues.append(C.Issue("structural", C.UNBOUND_REFERENCE, f"{path}.fields[{number}].value",
                                      f"field {field_el.label or field_el.name!r} sends {field_el.name!r} but shows "
                                      f"query.{value.name}, which its form never sends: after a search it shows "
                                      f"nothing chosen; it should read query.{field_el.name}"))
    return issues


def check_blank_edits(site: Site) -> list[C.Issue]:
    """S004: a form that rewrites a record and starts its fields with the record's values, but one field
    starts blank (the edit form's headline): to change only the text, the visitor must type the rest
    again exactly, and a slip rewrites it. The repair starts it with the record's value."""
    issues = []
    for element, path, bound in (found for number, page in enumerate(site.pages)
                                 for found in C.walk_bound(page.elements, f"$.pages[{number}].elements", None)):
        if element.type != "form" or element.action.kind != "marker" or bound is None:
            continue
        marker = site.marker(element.action.marker)
        if marker is None or not any(e.op == "update" for e in marker.effects):
            continue
        fields = C.field_of(element, "fields") or []
        kept = {f.name for f in fields if isinstance(C.field_of(f, "value"), Ref) and f.value.namespace == "row"}
        columns = source_columns(site, bound) or set()
        if not kept:
            continue
        for number, field_el in enumerate(fields):
            if field_el.name in kept or C.field_of(field_el, "value") not in (None, "") or field_el.name not in columns \
                    or field_el.type in ("password", "checkbox", "hidden"):
                continue
            sets = any(re.search(rf"\b{field_el.name}\s*=\s*:\w+", e.sql) for e in marker.effects if e.op == "update")
            if sets:
                issues.append(C.Issue("structural", C.FIELD_MISMATCH, f"{path}.fields[{number}]",
                                      f"field {field_el.label or field_el.name!r} of the form rewriting a {bound} row starts "
                                      f"blank while {', '.join(sorted(kept))} start with the row's values: to change the "
                                      f"rest, the visitor must type it again; it should start with row.{field_el.name}"))
    return issues


PAGE_CHECKS = [check_references, check_literal_amounts, check_list_detail, check_field_types, check_link_entities, check_link_filters,
               check_observable, check_controls_distinct, check_headers, check_flag_words, check_figure_words,
               check_numbered_by_other_keys, check_stated_today, check_self_tests, check_open_private_pages,
               check_key_filters, check_auth_columns, check_blank_passwords, check_bare_pages, check_messages,
               check_nameless_row_links, check_preset_choices, check_field_echoes,
               check_blank_edits, check_offered_refusals, check_hidden_states,
               check_prefilled_logins, check_fixed_record_links]

__all__ = ["PAGE_CHECKS", "base_column", "bound_elements", "check_controls_distinct", "check_field_types",
           "check_figure_words", "check_flag_words", "check_headers", "figure_words",
           "check_link_entities", "check_link_filters", "check_list_detail", "check_literal_amounts", "check_observable",
           "check_references", "literal_amounts", "money_columns", "source_columns", "view_columns"]

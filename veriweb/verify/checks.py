"""Checks: pure functions over a scaffold (and the engine, for dynamic ones) that return issues.

Every issue has a class (structural, semantic, consistency, feasibility), a code, a location
(the JSON path of what is wrong) and a message a person understands. Checks work on any
scaffold, hand-written or generated, and report nothing on a clean site. They look for defect
*classes* (a link that leads nowhere, a record that points at nothing), never for the
fingerprints of one way of making defects.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from veriweb.engine.templates import Route
from veriweb.scaffold import Site
from veriweb.scaffold.values import AllOf, AnyOf, Compare, Count, Exists, Not, PageIs, QueryValue, Ref, SqlPredicate
from veriweb.verify.wording import fold, singular

CLASSES = ("structural", "semantic", "consistency", "feasibility")


@dataclass(frozen=True)
class Issue:
    """One defect found by a check."""

    cls: str
    code: str
    location: str
    message: str

    def as_dict(self) -> dict[str, str]:
        return {"class": self.cls, "code": self.code, "location": self.location, "message": self.message}


CHECKS: dict[str, tuple[str, str]] = {}
"""Every check code: its class and what it finds."""


def _code(code: str, cls: str, what: str) -> str:
    CHECKS[code] = (cls, what)
    return code


BROKEN_LINK = _code("S001", "structural", "a link or redirect leads to no page")
UNREACHABLE = _code("S002", "structural", "a page no link, form or redirect leads to")
UNKNOWN_MARKER = _code("S003", "structural", "a form posts to a marker that does not exist")
FIELD_MISMATCH = _code("S004", "structural", "a form does not supply what its marker needs")
UNKNOWN_TABLE = _code("S005", "structural", "a query, effect or view names a table that does not exist")
UNKNOWN_COLUMN = _code("S006", "structural", "a query names a column its table does not have")
WIDGET_TARGET = _code("S007", "structural", "a button opens a widget that does not exist")
DUPLICATE_PAGE = _code("S008", "structural", "two pages share an id or a route, or two markers, tasks or "
                       "views a name")
NO_HOME = _code("S009", "structural", "the site has no page at /")
LOGIN_MISSING = _code("S010", "structural", "login is needed but the site has no login page or accounts table")
PLACEHOLDER = _code("M001", "semantic", "placeholder or template text shown to users")
EMPTY_LABEL = _code("M002", "semantic", "a link, button, heading or field with no label")
CONTRADICTORY_LABEL = _code("M003", "semantic", "a button whose label contradicts what its marker does")
WRONG_TYPE = _code("M004", "semantic", "a stored value of the wrong type")
MISSING_ENTITY = _code("M005", "semantic", "an instruction names something the site does not have")
UNKNOWN_SLOT = _code("M006", "semantic", "a predicate reads a slot the task does not have")
DANGLING_KEY = _code("C001", "consistency", "a record points at a row that does not exist")
DUPLICATE_KEY = _code("C002", "consistency", "two records share a key that must be unique")
NULL_VALUE = _code("C003", "consistency", "a required value is missing")
TOTAL_MISMATCH = _code("C004", "consistency", "a stored total disagrees with the lines it sums")
GOAL_AT_START = _code("F001", "feasibility", "the goal already holds before the agent does anything")
CERTIFICATE_FAILS = _code("F002", "feasibility", "the task's certificate does not replay to success")
NOOP_PASSES = _code("F003", "feasibility", "the judge passes an episode where the agent does nothing")
ANSWER_UNDEFINED = _code("F004", "feasibility", "the expected answer does not exist or is not unique")
CERTIFICATE_LONG = _code("F005", "feasibility", "the certificate needs more than half the step budget")
INFEASIBLE_UNPROVEN = _code("F006", "feasibility", "an infeasible task's goal could be made true by a marker")
CONSTRAINT_AT_START = _code("F007", "feasibility", "a constraint is already broken at the start")
WRONG_TARGET = _code("S011", "structural", "a link passes its target page the wrong record's key")
UNGUARDED_WRITE = _code("C005", "consistency", "a marker can break an invariant the data relies on")
VALUE_DISAGREES = _code("C006", "consistency", "a value shown on two pages disagrees")
CONSTRAINT_FORBIDS_GOAL = _code("C007", "consistency", "a constraint forbids what the goal requires")
MISSING_CONTROL = _code("M007", "semantic", "a control needed by a task is missing")
AMBIGUOUS_ENTITY = _code("M008", "semantic", "a task names an entity that matches several records")
NO_SOLUTION = _code("F008", "feasibility", "no action sequence within the depth bound reaches a feasible task's goal")
JUDGE_FOOLED = _code("F009", "feasibility", "a judge accepts a wrong trajectory (a decoy)")
GOAL_OUTSIDE_FOOTPRINT = _code("F011", "feasibility", "the goal needs a row changed that the footprint forbids "
                              "the task to write")
CREATES_EXISTING = _code("F010", "feasibility", "a task asks to create a record under a name its site already has "
                        "and keeps unique")
CREDENTIALS_UNSAID = _code("F012", "feasibility", "a task that starts signed out and leaves its credentials to "
                          "the instruction, which does not give them")
UNBOUND_REFERENCE = _code("S012", "structural", "text, a link or a form reads a value that does not exist there")
FIELD_TYPE = _code("S013", "structural", "a form field or marker parameter whose type contradicts what it writes")
LINK_ENTITY = _code("S014", "structural", "a fixed link opens a record that does not exist or is not the one it names")
LITERAL_AMOUNT = _code("M009", "semantic", "an amount typed into a row's text instead of read from the row")
UNOBSERVABLE = _code("M010", "semantic", "a marker writes a column that no page ever shows or filters on")
AMBIGUOUS_CONTROL = _code("M011", "semantic", "two controls on one page or form share a name or label but differ")
TIED_ANSWER = _code("M012", "semantic", "a task picks the first row of an ordering, but the first rows tie")
LIST_DETAIL = _code("C008", "consistency", "a list and the detail page of the same record show different columns")
VACUOUS_GUARD = _code("C009", "consistency", "a precondition or invariant that can never block what it guards")
STALE_DATE = _code("C010", "consistency", "a seed row's date is on the wrong side of today for its status")
BUDGET_TOO_LOW = _code("C011", "consistency", "a task's budget is below the price of the item it names")
KEY_NAMES_NOTHING = _code("S015", "structural",
                          "a form posts a key, or offers a choice, that names no row its marker accepts")
HIDDEN_ANSWER = _code("M013", "semantic", "a task's answer reads a column no page shows")
LINK_NAMES_OTHER_PAGE = _code("M014", "semantic", "a link's text names another page than the one it opens")
EMPTY_FILTER = _code("M015", "semantic", "a list filters on a fixed value no record has or can get, or "
                     "one its own words contradict")
START_NOWHERE = _code("S016", "structural", "a task starts at an address no page serves, waits for a missing page, "
                                         "or acts as a user with no account")
SLOT_CONTRADICTS_GOAL = _code("M016", "semantic", "the instruction names one value and the goal checks another")
ANSWER_ASKS_OTHER = _code("M017", "semantic", "a task's answer reads another figure than its instruction asks for")
ORDER_AGAINST_WORDS = _code("M018", "semantic", "a task picks the first row of an ordering that runs the other "
                            "way from its instruction's words")
SEED_BREAKS_INVARIANT = _code("C012", "consistency", "the seed data already breaks an invariant a marker keeps")
MISLABELLED_TASK = _code("M019", "semantic", "a task's difficulty contradicts the length of its certificate")

_FILLER = (r"^\W*lorem ipsum|lorem ipsum,? dolor|dolor sit amet|consectetur adipiscing|(?-i:\b(?:19|20)XX\b)|"
           r"\{\{|\}\}|\[object Object\]|"
           r"\b(?:title|heading|subtitle|text|content|description|name|message|label|caption|summary|body|copy) "
           r"(?:goes )?here\b|\binsert \w+(?: \w+)? here\b|"
           r"<\s*insert\b[^>]*>|\b(?:sample|dummy|example) (?:text|title|heading|content|category|product|item|"
           r"name|user|post|description|entry|record|page|message)\b|\bplaceholder text\b|"
           r"\[(?:(?:your|the|a|an|product|item|company|user|customer|first|last|full|page|post|short|long|founder|"
           r"business|brand|store|shop|contact|phone|street)\s+)*"
           r"(?:name|title|text|description|content|image|link|url|date|price|address|email|here|year|number|"
           r"amount|phone|city|country|quantity|size|colou?r)\]")
"""Filler an author leaves wherever it stands: lorem ipsum, template braces, "[product name]", "<Insert logo>"."""
_GENERIC_LABEL = (r"^\s*(?:(?:option|tab|choice|button|field|link|heading|title|section|menu) ?#?\d+|"
                  r"(?:page|site|section|card|button|link|field|menu|dialog|modal|popup) (?:title|heading|label|"
                  r"text|name)|"
                  r"some text|button)\s*$")
"""A label or value that is a widget's generic name, not its content ("Option 2", "Tab 3", "Page Title")."""
_CAPS_SLOT = r"(?-i:\[[A-Z][A-Z0-9]*(?:[ _/][A-Z0-9]+)*\])"
"""A slot left to fill in capitals, "[YEAR]", "[FOUNDER NAME]" (in prose; a stored title may start with a
tag: "[SOLD]")."""
_PLACEHOLDER_TEXT = re.compile(_FILLER + "|" + _GENERIC_LABEL + "|" + _CAPS_SLOT
                               + r"|\bTODO\b|\bTBD\b|\bFIXME\b|\bplaceholder\b|\bxxx+\b|\?\?\?|"
                               r"\bundefined\b|\bnull\b|\bNaN\b|\buntitled\b|%s\b|^\s*N/A\s*$", re.IGNORECASE)
"""Placeholder text in a page's own words (a template's literal text)."""
_PLACEHOLDER_VALUE = re.compile(_FILLER + "|" + _GENERIC_LABEL + r"|(?<=\S )" + _CAPS_SLOT
                                + r"|(?-i:^\s*None\s*$)|^\s*(?:TODO|TBD|FIXME)\b\s*(?:[:\-]|$)|"
                                r"^\s*(?:n/a|null|undefined|nan|none yet|untitled|placeholder|xxx+|\?{2,}|-+|\.{3}|"
                                r"\[[^\]]*\]|<[^>]*>)\s*$", re.IGNORECASE)
"""Placeholder text in a stored value: filler anywhere, a "TODO:" note, or a value that is nothing but a
placeholder ("N/A", "null", "Untitled", "[name]", Python's "None"). A word alone is not enough:
"Untitled Goose Plush Toy", "Parser throws on undefined variable" and "The TODO list widget" are
real titles."""
_BARE_TEMPLATE = re.compile(r"\{[A-Za-z_][A-Za-z0-9_.]*(?:\|[a-z_]+)?\}|\$\{[^}]*\}|\{%|%\}")
_REF_TEXT = re.compile(r"\{([a-z]+)\.([A-Za-z_][A-Za-z0-9_]*)(?:\|[a-z_]+)?\}")
_DESTRUCTIVE = re.compile(r"\b(delete|remove|cancel|trash|discard|refund|revoke|close|archive|unsubscribe)\b", re.I)
_CONSTRUCTIVE = re.compile(r"\b(save|add|create|post|publish|submit|update|apply|send|buy|book|place|confirm|"
                           r"subscribe|reopen|open|restore|star|vote)\b", re.I)


# ----------------------------------------------------------------------------- walking


def field_of(obj: Any, name: str, default: Any = None) -> Any:
    """``getattr(obj, name, default)`` for a field of a scaffold model, without its cost when absent.

    A pydantic model keeps its fields in ``__dict__``; asking it for an attribute it lacks goes
    through ``BaseModel.__getattr__`` and a raised ``AttributeError`` (about 8 µs, 70 times a
    present one), and the walks ask every element for children it mostly does not have. Only
    field names are asked this way; anything without a ``__dict__`` (``None``, a dict) falls
    back to :func:`getattr`.
    """
    try:
        return obj.__dict__.get(name, default)
    except AttributeError:
        return getattr(obj, name, default)


def walk(elements: list[Any], path: str) -> Iterator[tuple[Any, str]]:
    """Every element under ``elements`` with its JSON path."""
    for element, here, _ in walk_bound(elements, path, None):
        yield element, here


def walk_bound(elements: list[Any], path: str, bound: str | None) -> Iterator[tuple[Any, str, str | None]]:
    """Every element under ``elements`` with its JSON path and the table or view its ``{row.X}``
    references read (set by the nearest enclosing list, table or record; ``bound`` outside any)."""
    for index, element in enumerate(elements):
        here = f"{path}[{index}]"
        yield element, here, bound
        inner = element.query.table if element.type in ("list", "table", "record") else bound
        fields = element.__dict__
        for attr in ("elements", "item", "items"):
            children = fields.get(attr)
            if children:
                yield from walk_bound(children, f"{here}.{attr}", inner)
        for number, tab in enumerate(fields.get("tabs") or []):
            yield from walk_bound(tab.elements, f"{here}.tabs[{number}].elements", inner)
        for number, column in enumerate(fields.get("columns") or []):
            yield from walk_bound(column.cell, f"{here}.columns[{number}].cell", inner)


# ----------------------------------------------------------------------------- one run's lookups

reads_open: list[set[str]] = []
"""The read sets of the traced checks running now, innermost last (see :mod:`veriweb.verify.recheck`)."""

_memo: dict[tuple[Any, ...], tuple[Site, Any, frozenset[str]]] | None = None


@contextmanager
def one_run() -> Iterator[None]:
    """While open, lookups marked :func:`per_run` are made once per site object: one run of the
    checks over a site that nobody edits meanwhile (the checks are pure)."""
    global _memo
    outer = _memo
    if outer is None:
        _memo = {}
    try:
        yield
    finally:
        if outer is None:
            _memo = None


def per_run(lookup: Callable[..., Any]) -> Callable[..., Any]:
    """Make ``lookup(site, *args)`` (``args`` hashable) once per site and arguments inside
    :func:`one_run`. What it read of a traced site is counted as read by every check that asks for
    it, so re-checking stays sound. Its value is shared: callers must not change it."""
    name = f"{lookup.__module__}.{lookup.__qualname__}"

    @functools.wraps(lookup)
    def shared(site: Site, *args: Any) -> Any:
        memo = _memo
        if memo is None:
            return lookup(site, *args)
        key = (name, id(site), *args)
        hit = memo.get(key)
        if hit is None or hit[0] is not site:
            reads_open.append(set())
            try:
                value = lookup(site, *args)
            finally:
                reads = reads_open.pop()
            hit = memo[key] = (site, value, frozenset(reads))
        if reads_open:
            reads_open[-1].update(hit[2])
        return hit[1]

    return shared


@per_run
def _element_list(site: Site) -> list[tuple[Any, str, str | None]]:
    out = [(element, path, None) for element, path in walk(site.layout.header, "$.layout.header")]
    out += [(element, path, None) for element, path in walk(site.layout.footer, "$.layout.footer")]
    for number, page in enumerate(site.pages):
        out += [(element, path, page.id) for element, path in walk(page.elements, f"$.pages[{number}].elements")]
    return out


def all_elements(site: Site) -> Iterator[tuple[Any, str, str | None]]:
    """Every element of the layout and the pages, with its path and its page id (None: layout)."""
    return iter(_element_list(site))


@per_run
def _routes(site: Site) -> list[Route]:
    return [Route.compile(p.id, p.route) for p in site.pages]


def resolve_href(routes: list[Route], href: str) -> str | None:
    """The page id a URL template leads to (placeholders filled with a plausible value)."""
    path = re.sub(r"\{[^}]*\}", "1", href.split("?")[0].split("#")[0]) or "/"
    for route in routes:
        if route.match(path) is not None:
            return route.page_id
    return None


def searching_forms(site: Site) -> Iterator[tuple[Any, str, str]]:
    """Every searching form (one that opens a page with what it asks), its path and the id of the page
    it opens."""
    routes = _routes(site)
    for element, path, _ in all_elements(site):
        action = field_of(element, "action")
        if element.type == "form" and action is not None and action.kind == "navigate":
            page = resolve_href(routes, action.route)
            if page is not None:
                yield element, path, page


def _columns(site: Site) -> dict[str, set[str] | None]:
    """Known columns per table, and per view whose SELECT list names every column plainly (``None`` for
    another view: SQLite checks what it reads)."""
    from veriweb.verify.checks_pages import view_columns

    out: dict[str, set[str] | None] = {t.name: {c.name for c in t.columns} | {t.primary_key} for t in site.database.tables}
    for view in site.database.views:
        out.setdefault(view.name, view_columns(site, view.name))
    return out


def _queries(site: Site) -> Iterator[tuple[Any, str]]:
    """Every row query of the pages and layout (lists, tables, records, option lists)."""
    for element, path, _ in all_elements(site):
        query = field_of(element, "query")
        if query is not None and element.type in ("list", "table", "record"):
            yield query, f"{path}.query"
        for number, field_el in enumerate(field_of(element, "fields") or []):
            oq = field_of(field_el, "options_query")
            if oq is not None:
                yield oq.query, f"{path}.fields[{number}].options_query.query"


def _predicates(site: Site) -> Iterator[tuple[Any, str, Any]]:
    """Every predicate of tasks and markers, with its path and the task it belongs to (or None)."""
    def nested(predicate: Any, path: str, task: Any) -> Iterator[tuple[Any, str, Any]]:
        yield predicate, path, task
        if isinstance(predicate, (AllOf, AnyOf)):
            for number, item in enumerate(predicate.items):
                yield from nested(item, f"{path}.items[{number}]", task)
        elif isinstance(predicate, Not):
            yield from nested(predicate.item, f"{path}.item", task)

    for number, task in enumerate(site.tasks):
        base = f"$.tasks[{number}]"
        for index, predicate in enumerate(task.goal):
            yield from nested(predicate, f"{base}.goal[{index}]", task)
        for index, sub in enumerate(task.progress):
            yield from nested(sub.predicate, f"{base}.progress[{index}].predicate", task)
        for index, constraint in enumerate(task.constraints):
            yield from nested(constraint.predicate, f"{base}.constraints[{index}].predicate", task)
    for number, marker in enumerate(site.markers):
        for kind in ("preconditions", "invariants"):
            for index, check in enumerate(getattr(marker, kind)):
                yield from nested(check.predicate, f"$.markers[{number}].{kind}[{index}].predicate", None)


def _values(value: Any, path: str) -> Iterator[tuple[Any, str]]:
    """Every value expression nested in a value (scalar queries and their conditions)."""
    yield value, path
    if isinstance(value, QueryValue):
        for number, cond in enumerate(value.query.where):
            yield from _values(cond.value, f"{path}.query.where[{number}].value")


def _query_values(query: Any, path: str) -> Iterator[tuple[Any, str]]:
    for number, cond in enumerate(query.where):
        yield from _values(cond.value, f"{path}.where[{number}].value")


# ----------------------------------------------------------------------------- structural


def check_links(site: Site) -> list[Issue]:
    """S001: every link, GET form and redirect leads to a page of the site."""
    routes = _routes(site)
    issues = []
    for element, path, _ in all_elements(site):
        if element.type == "link":
            href = element.href
            if href.startswith(("http://", "https://", "mailto:")):
                continue
            if not href.startswith("/") or resolve_href(routes, href) is None:
                issues.append(Issue("structural", BROKEN_LINK, f"{path}.href",
                                    f"link {element.text!r} leads to {href!r}, which is no page of this site"))
        elif element.type == "form":
            target = field_of(element.action, "route") or field_of(element.action, "redirect")
            if target and resolve_href(routes, target) is None:
                issues.append(Issue("structural", BROKEN_LINK, f"{path}.action",
                                    f"form {element.label or element.submit!r} goes to {target!r}, which is no page"))
    return issues


def check_reachability(site: Site) -> list[Issue]:
    """S002: every page can be reached from the home page by links, forms or redirects (not through a
    dialog no button opens)."""
    routes = _routes(site)
    edges: dict[str | None, set[str]] = defaultdict(set)
    elements = list(all_elements(site))
    opened = {(page_id, e.target) for e, _, page_id in elements if e.type == "button" and e.action != "close"}
    shut = [f"{path}." for e, path, page_id in elements if e.type == "dialog"
            and (page_id, e.id) not in opened and (None, e.id) not in opened]  # (a layout button opens everywhere)
    for element, path, page_id in elements:
        if shut and any(path.startswith(prefix) for prefix in shut):
            continue  # its links cannot be clicked
        targets = []
        if element.type == "link":
            targets.append(element.href)
        elif element.type == "form":
            target = field_of(element.action, "route") or field_of(element.action, "redirect")
            if target:
                targets.append(target)
        for href in targets:
            dest = resolve_href(routes, href)
            if dest is not None:
                edges[page_id].add(dest)
    home = resolve_href(routes, "/")
    seen = set()
    if home is not None:
        stack = [home] + sorted(edges[None])  # layout links are on every page that shows the layout
        if site.auth is not None:
            login = resolve_href(routes, site.auth.login_page)
            if login:
                stack.append(login)  # the engine redirects to it
        while stack:
            page_id = stack.pop()
            if page_id in seen:
                continue
            seen.add(page_id)
            stack.extend(edges[page_id])
            page = site.page(page_id)
            if page is not None and page.layout:
                stack.extend(edges[None])
    issues = []
    for number, page in enumerate(site.pages):
        if home is not None and page.id not in seen:
            issues.append(Issue("structural", UNREACHABLE, f"$.pages[{number}]",
                                f"page {page.id!r} ({page.route}) is not linked from anywhere a visitor can reach"))
    return issues


def check_forms(site: Site) -> list[Issue]:
    """S003 and S004: forms post to existing markers and supply every parameter they need."""
    issues = []
    for element, path, _ in all_elements(site):
        if element.type == "form" and element.action.kind in ("login", "logout"):
            issues.extend(_session_label(element, path))
        elif element.type == "form" and _SIGN_OUT.search(element.submit) and not _SIGN_IN.search(element.submit):
            issues.append(Issue("semantic", CONTRADICTORY_LABEL, f"{path}.action",
                                f"button {element.submit!r} says it signs the user out, but its form "
                                f"{'runs ' + repr(element.action.marker) if element.action.kind == 'marker' else 'only opens a page'}: "
                                f"the visitor stays signed in; it should sign the visitor out"))
        if element.type == "form" and element.action.kind == "login":
            names = {f.name for f in element.fields}
            for attr in ("username_field", "password_field"):
                wanted = getattr(element.action, attr)
                if wanted not in names:
                    issues.append(Issue("structural", FIELD_MISMATCH, f"{path}.action.{attr}",
                                        f"login form {element.submit!r} reads field {wanted!r}, but has no such "
                                        f"field: no one can log in"))
        if element.type != "form" or element.action.kind != "marker":
            continue
        marker = site.marker(element.action.marker)
        if marker is None:
            issues.append(Issue("structural", UNKNOWN_MARKER, f"{path}.action.marker",
                                f"form {element.submit!r} posts to marker {element.action.marker!r}, which does not exist"))
            continue
        names = {f.name for f in element.fields}
        for arg, value in element.action.args.items():
            if isinstance(value, Ref) and value.namespace == "field" and value.name not in names:
                issues.append(Issue("structural", FIELD_MISMATCH, f"{path}.action.args.{arg}",
                                    f"form {element.submit!r} sends field {value.name!r} to {marker.name}, "
                                    f"but has no such field"))
        for param in marker.params:
            if param.required and param.type != "boolean" and param.name not in element.action.args:
                issues.append(Issue("structural", FIELD_MISMATCH, f"{path}.action.args",
                                    f"form {element.submit!r} never supplies {param.name!r}, which {marker.name} needs"))
    if site.auth is None or resolve_href(_routes(site), site.auth.login_page) is None:
        needs = [p for p in site.pages if p.requires_login] + [m for m in site.markers if m.requires_login]
        if needs:
            where = "$.auth" if site.auth is None else "$.auth.login_page"
            issues.append(Issue("structural", LOGIN_MISSING, where,
                                f"{len(needs)} pages or markers need a logged-in user, but there is no way to log in"))
    return issues


def check_tables(site: Site) -> list[Issue]:
    """S005 and S006: queries, effects and predicates name tables and columns that exist."""
    columns = _columns(site)
    issues = []

    def check_query(query: Any, path: str) -> None:
        if query.table not in columns:
            issues.append(Issue("structural", UNKNOWN_TABLE, f"{path}.table",
                                f"query reads table {query.table!r}, which does not exist"))
            return
        known = columns[query.table]
        if known is None:
            return
        names = [(c.column, f"{path}.where[{n}].column") for n, c in enumerate(query.where)]
        names += [(o.column, f"{path}.order_by[{n}].column") for n, o in enumerate(query.order_by)]
        select = field_of(query, "select")
        if select and select != "*":
            names.append((select, f"{path}.select"))
        for name, where in names:
            if name not in known:
                issues.append(Issue("structural", UNKNOWN_COLUMN, where,
                                    f"table {query.table!r} has no column {name!r}"))

    for element, path, _ in all_elements(site):  # a sort link orders the list by a column of its rows
        query = field_of(element, "query")
        known = columns.get(query.table) if query is not None else None
        for number, sort in enumerate(field_of(element, "sorts") or []):
            if known is not None and sort.column not in known:
                issues.append(Issue("structural", UNKNOWN_COLUMN, f"{path}.sorts[{number}].column",
                                    f"sort {sort.label!r} orders by {query.table}.{sort.column}, which does not exist"))
    for query, path in _queries(site):
        check_query(query, path)
        for value, where in _query_values(query, path):
            if isinstance(value, QueryValue):
                check_query(value.query, f"{where}.query")
    for predicate, path, _ in _predicates(site):
        queries = []
        if isinstance(predicate, (Exists, Count)):
            queries.append((predicate.query, f"{path}.query"))
        values = []
        if isinstance(predicate, Compare):
            values += [(predicate.left, f"{path}.left"), (predicate.right, f"{path}.right")]
        if isinstance(predicate, Count):
            values.append((predicate.value, f"{path}.value"))
        if isinstance(predicate, (SqlPredicate, PageIs)):
            values += [(v, f"{path}.params.{k}") for k, v in predicate.params.items()]
        for query, where in queries:
            check_query(query, where)
            values += list(_query_values(query, where))
        for value, where in values:
            for inner, inner_path in _values(value, where):
                if isinstance(inner, QueryValue):
                    check_query(inner.query, f"{inner_path}.query")
    for number, task in enumerate(site.tasks):  # what a task's answer reads
        answer = task.answer
        if answer is None:
            continue
        base = f"$.tasks[{number}].answer"
        values = [(answer.value, f"{base}.value")]
        for name in ("list_query", "candidates"):
            query = getattr(answer, name)
            if query is not None:
                check_query(query, f"{base}.{name}")
                values += list(_query_values(query, f"{base}.{name}"))
        for value, where in values:
            for inner, inner_path in _values(value, where):
                if isinstance(inner, QueryValue):
                    check_query(inner.query, f"{inner_path}.query")
    for number, marker in enumerate(site.markers):
        for index, effect in enumerate(marker.effects):
            if effect.table not in columns or columns[effect.table] is None:
                issues.append(Issue("structural", UNKNOWN_TABLE, f"$.markers[{number}].effects[{index}].table",
                                    f"marker {marker.name!r} writes table {effect.table!r}, which does not exist"))
    return issues


def check_widgets_and_pages(site: Site) -> list[Issue]:
    """S007, S008, S009: buttons open existing widgets, each dialog has a button that opens it and a
    modal one a button inside it that closes it; page ids and routes, and marker, task and view names,
    are unique; a home page."""
    issues = []
    widgets: dict[str | None, set[str]] = defaultdict(set)
    buttons = []
    dialogs = []
    for element, path, page_id in all_elements(site):
        if element.type in ("dialog", "collapsible", "menu", "tabs"):
            if element.id in widgets[page_id]:  # a button opens every widget of its id: a second one shadows the first
                issues.append(Issue("structural", DUPLICATE_PAGE, f"{path}.id",
                                    f"a second {element.type} has the id {element.id!r} on its page: a button that "
                                    f"opens {element.id!r} opens both, and the later one covers the first"))
            widgets[page_id].add(element.id)
        if element.type == "dialog":
            dialogs.append((element, path, page_id))
        if element.type == "button":
            buttons.append((element, path, page_id))
    for element, path, page_id in buttons:
        if element.target not in widgets[page_id] | widgets[None]:
            issues.append(Issue("structural", WIDGET_TARGET, f"{path}.target",
                                f"button {element.text!r} opens {element.target!r}, but no widget has that id"))
    for dialog, path, page_id in dialogs:
        mine = [(b, where) for b, where, at in buttons if b.target == dialog.id and at in (page_id, None)]
        if not any(b.action in ("open", "toggle") for b, _ in mine):
            issues.append(Issue("structural", WIDGET_TARGET, f"{path}.id",
                                f"dialog {dialog.id!r} ({dialog.title!r}) is never opened: no button on its page "
                                "opens it, so what it holds cannot be reached; it needs a button that opens it"))
        elif dialog.modal and not any(b.action in ("close", "toggle") and where.startswith(path + ".")
                                      for b, where in mine):  # while it is open, only what is inside it responds
            issues.append(Issue("structural", WIDGET_TARGET, f"{path}.elements",
                                f"modal dialog {dialog.id!r} ({dialog.title!r}) has no button that closes it: once "
                                "open, only it responds, so it cannot be left but by its forms; it needs a Close "
                                "button"))
    for attr in ("id", "route"):
        counts = Counter(getattr(p, attr) for p in site.pages)
        for number, page in enumerate(site.pages):
            if counts[getattr(page, attr)] > 1:
                issues.append(Issue("structural", DUPLICATE_PAGE, f"$.pages[{number}].{attr}",
                                    f"{attr} {getattr(page, attr)!r} is used by {counts[getattr(page, attr)]} pages"))
    for where, items, attr in (("markers", site.markers, "name"), ("tasks", site.tasks, "id"),
                               ("database.views", site.database.views, "name")):
        counts = Counter(getattr(item, attr) for item in items)
        seen: set[str] = set()
        for number, item in enumerate(items):
            name = getattr(item, attr)
            if counts[name] > 1 and name in seen:
                issues.append(Issue("structural", DUPLICATE_PAGE, f"$.{where}[{number}].{attr}",
                                    f"{where.split('.')[-1][:-1]} {name!r} is defined {counts[name]} times: which one "
                                    f"a form, a page or a grader gets depends on lookup order; this later one "
                                    f"shadows or is shadowed by the first"))
            seen.add(name)
    if resolve_href(_routes(site), "/") is None:
        issues.append(Issue("structural", NO_HOME, "$.pages", "no page answers at /, where every visit starts"))
    return issues


# ----------------------------------------------------------------------------- semantic


def _texts(element: Any) -> list[tuple[str, str]]:
    """Every text of an element a user reads, with its path below the element: its own words, its
    tabs' labels, its table's headers, its form's confirmation dialog and success message."""
    out = []
    for attr in ("text", "label", "submit", "title", "empty_text", "missing_text"):
        value = field_of(element, attr)
        if isinstance(value, str):
            out.append((attr, value))
    for number, tab in enumerate(field_of(element, "tabs") or []):
        out.append((f"tabs[{number}].label", tab.label))
    for number, column in enumerate(field_of(element, "columns") or []):
        out.append((f"columns[{number}].header", column.header))
    confirm = field_of(element, "confirm")
    if confirm is not None and not isinstance(confirm, str):
        out += [(f"confirm.{attr}", getattr(confirm, attr)) for attr in ("title", "text", "confirm", "cancel")]
    message = getattr(field_of(element, "action"), "success_message", None)
    if isinstance(message, str):
        out.append(("action.success_message", message))
    for number, field_el in enumerate(field_of(element, "fields") or []):
        out.append((f"fields[{number}].label", field_el.label))
        for o_index, option in enumerate(field_of(field_el, "options") or []):
            if isinstance(getattr(option, "label", None), str):
                out.append((f"fields[{number}].options[{o_index}].label", option.label))
    return out


_LABELLED = {"link": "text", "heading": "text", "button": "text", "collapsible": "label", "menu": "label"}
"""Elements that must say something, and the attribute that says it."""


_NAMESPACES = frozenset({"param", "query", "field", "row", "user", "slot", "clock", "result"})


@functools.lru_cache(maxsize=1 << 16)
def _placeholder_shown(value: str, href: bool) -> bool:
    """Whether a text (an ``href`` if ``href``) shows placeholder text once its references to known
    values (``{row.name}``) are filled in. Memoised: a site's texts recur from one check round to
    the next."""
    shown = _REF_TEXT.sub(lambda m: "x" if m.group(1) in _NAMESPACES else m.group(0), value)
    return bool(_PLACEHOLDER_TEXT.search(shown) or (not href and _BARE_TEMPLATE.search(shown)))


@functools.lru_cache(maxsize=1 << 16)
def _placeholder_value(value: str) -> bool:
    """Whether a stored text is placeholder text (:data:`_PLACEHOLDER_VALUE`; memoised, as
    :func:`_placeholder_shown`)."""
    return _PLACEHOLDER_VALUE.search(value) is not None


def check_content(site: Site) -> list[Issue]:
    """M001 and M002: no placeholder text, no unlabelled links, buttons, headings, fields or pages."""
    issues = []
    for element, path, _ in all_elements(site):
        for attr, value in _texts(element):
            if _placeholder_shown(value, attr == "href"):
                issues.append(Issue("semantic", PLACEHOLDER, f"{path}.{attr}", f"placeholder text shown: {value!r}"))
        attr = _LABELLED.get(element.type)
        if attr is not None and not getattr(element, attr).strip():
            issues.append(Issue("semantic", EMPTY_LABEL, f"{path}.{attr}", f"a {element.type} with no {attr}"))
        confirm = field_of(element, "confirm")
        if element.type == "form" and confirm is not None:
            for attr in ("title", "confirm", "cancel"):
                if not getattr(confirm, attr).strip():
                    issues.append(Issue("semantic", EMPTY_LABEL, f"{path}.confirm.{attr}",
                                        f"the dialog confirming {element.submit!r} has no {attr} text"))
        for number, tab in enumerate(field_of(element, "tabs") or []):
            if not tab.label.strip():
                issues.append(Issue("semantic", EMPTY_LABEL, f"{path}.tabs[{number}].label", "a tab with no label"))
        for number, column in enumerate(field_of(element, "columns") or []):
            if not column.header.strip() and _shows_data(column.cell):
                issues.append(Issue("semantic", EMPTY_LABEL, f"{path}.columns[{number}].header",
                                    "a table column that shows data has no header"))
        if element.type == "form" and not element.submit.strip():
            issues.append(Issue("semantic", EMPTY_LABEL, f"{path}.submit", "a form whose button has no label"))
        for number, field_el in enumerate(field_of(element, "fields") or []):
            if not field_el.label.strip():
                issues.append(Issue("semantic", EMPTY_LABEL, f"{path}.fields[{number}].label",
                                    f"field {field_el.name!r} has no label"))
            for o_index, option in enumerate(field_of(field_el, "options") or []):
                if isinstance(getattr(option, "label", None), str) and not option.label.strip() \
                        and str(option.value).strip():
                    issues.append(Issue("semantic", EMPTY_LABEL, f"{path}.fields[{number}].options[{o_index}].label",
                                        f"field {field_el.name!r} offers {option.value!r} with no words on it"))
    issues += _empty_row_labels(site)
    for p_index, page in enumerate(site.pages):
        if not page.title.strip():
            issues.append(Issue("semantic", EMPTY_LABEL, f"$.pages[{p_index}].title",
                                f"page {page.id!r} has no title (the tab and the page's root say nothing)"))
        elif _placeholder_shown(page.title, False):
            issues.append(Issue("semantic", PLACEHOLDER, f"$.pages[{p_index}].title",
                                f"page {page.id!r} is titled with placeholder text: {page.title!r}"))
    for t_index, table in enumerate(site.database.tables):
        texts = {c.name: _column_names(table.name, c.name) for c in table.columns if c.type == "text"}
        for r_index, row in enumerate(table.rows):
            for name, generic in texts.items():
                value = row.get(name)
                if isinstance(value, str) and (_placeholder_value(value) or fold(value) in generic):
                    issues.append(Issue("semantic", PLACEHOLDER, f"$.database.tables[{t_index}].rows[{r_index}].{name}",
                                        f"placeholder value in {table.name}.{name}: {value!r}"))
    return issues


def _column_names(table: str, column: str) -> frozenset[str]:
    """What a value that only names its own column says ("Airline Name" in ``airlines.name``)."""
    words = column.replace("_", " ").lower()
    kind = table.replace("_", " ").lower()
    one = singular(kind)
    return frozenset({words, f"{one} {words}", f"{kind} {words}", f"your {words}", f"{words} of {one}"})


def _shows_data(cells: list[Any]) -> bool:
    """Whether a table column's cells show a row's values (not only buttons or forms, whose own
    labels say what they do)."""
    for element, _, _ in walk_bound(cells, "$", None):
        if element.type in ("text", "link", "heading") and "{row." in (element.text or ""):
            return True
    return False


_ONE_REF = re.compile(r"\s*\{row\.([A-Za-z_][A-Za-z0-9_]*)\}\s*")


def _empty_row_labels(site: Site) -> list[Issue]:
    """M002 for a stored value that a list shows as all the text of a link or heading (``{row.name}``),
    or a drop-down as an option's words, and that is blank: that row's link or option says nothing.
    Only for rows of a table (a view's rows are not stored)."""
    issues: list[Issue] = []
    seen: set[str] = set()
    shown: list[tuple[str | None, str, str]] = []  # (table, column, what shows it as all its words)
    for element, _, bound in walk_bound([e for page in site.pages for e in page.elements], "$", None):
        if element.type in ("link", "heading") and bound is not None:
            match = _ONE_REF.fullmatch(element.text or "")
            if match is not None:
                shown.append((bound, match.group(1), f"a {element.type}"))
        for field_el in field_of(element, "fields") or []:
            source = field_of(field_el, "options_query")
            if source is not None:
                shown.append((source.query.table, source.label, f"the options of field {field_el.name!r}"))
    for bound, column, what in shown:
        table = site.database.table(bound) if bound else None
        if table is None or table.column(column) is None:
            continue
        t_index = site.database.tables.index(table)
        for r_index, row in enumerate(table.rows):
            value = row.get(column)
            where = f"$.database.tables[{t_index}].rows[{r_index}].{column}"
            if isinstance(value, str) and not value.strip() and where not in seen:
                seen.add(where)
                issues.append(Issue("semantic", EMPTY_LABEL, where,
                                    f"{table.name} row {r_index} has a blank {column}, which {what} shows as "
                                    f"all its words: it says nothing"))
    return issues


def check_labels(site: Site) -> list[Issue]:
    """M003: a submit button's words agree with what its marker does (no "Save" that deletes)."""
    issues = []
    for element, path, _ in all_elements(site):
        if element.type == "form" and element.action.kind in ("login", "logout"):
            issues.extend(_session_label(element, path))
        if element.type != "form" or element.action.kind != "marker":
            continue
        marker = site.marker(element.action.marker)
        if marker is None:
            continue
        ops = {e.op for e in marker.effects}
        label = element.submit
        destructive_label = bool(_DESTRUCTIVE.search(label))
        constructive_label = bool(_CONSTRUCTIVE.search(label)) and not destructive_label
        if constructive_label and ops == {"delete"}:
            issues.append(Issue("semantic", CONTRADICTORY_LABEL, f"{path}.submit",
                                f"button {label!r} deletes ({marker.name} only deletes rows)"))
        if destructive_label and ops == {"insert"}:
            issues.append(Issue("semantic", CONTRADICTORY_LABEL, f"{path}.submit",
                                f"button {label!r} sounds destructive but {marker.name} only adds rows"))
    return issues


_SIGN_IN = re.compile(r"\b(log\s*-?\s*in|sign\s*-?\s*in|signin)\b", re.I)
_SIGN_OUT = re.compile(r"\b(log\s*-?\s*(?:out|off)|sign\s*-?\s*(?:out|off)|signout|logoff)\b", re.I)


def _session_label(form: Any, path: str) -> list[Issue]:
    """M003 on a login or logout form: "Sign in" on a button that signs out, and the reverse."""
    says_in, says_out = bool(_SIGN_IN.search(form.submit)), bool(_SIGN_OUT.search(form.submit))
    if form.action.kind == "logout" and says_in and not says_out:
        return [Issue("semantic", CONTRADICTORY_LABEL, f"{path}.submit",
                      f"button {form.submit!r} signs the user out: its form logs out, not in")]
    if form.action.kind == "login" and says_out and not says_in:
        return [Issue("semantic", CONTRADICTORY_LABEL, f"{path}.submit",
                      f"button {form.submit!r} logs the user in: its form signs in, not out")]
    return []


def _type_ok(kind: str, value: Any) -> bool:
    if value is None:
        return True
    if kind in ("integer", "money"):
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "real":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "boolean":
        return isinstance(value, bool) or value in (0, 1)
    if kind == "date":
        try:
            dt.date.fromisoformat(str(value))
        except ValueError:
            return False
        return isinstance(value, str) and len(value) == 10
    if kind == "datetime":
        try:
            dt.datetime.fromisoformat(str(value))
        except ValueError:
            return False
        return isinstance(value, str)
    return isinstance(value, str)


_MONEY_NAMES = re.compile(r"(?:^|_)(?:price|cost|total|amount|fee|fare|refund|refunded|balance|budget|subtotal|"
                          r"paid|charge|bounty)(?:$|_)")
"""Column names that hold money (in cents, when the values are integers)."""


def _numbers_as_text(table: Any) -> dict[str, str]:
    """The text columns of ``table`` every row of which holds a number (at least two rows), each with
    the type it should have: money for whole numbers in a column named like money, integer for other
    whole numbers, real otherwise."""
    out = {}
    for column in table.columns:
        if column.type != "text" or column.name == table.primary_key:
            continue
        values = [r.get(column.name) for r in table.rows if r.get(column.name) is not None]
        if len(values) < 2 or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
            continue
        if all(isinstance(v, int) for v in values):
            out[column.name] = "money" if _MONEY_NAMES.search(column.name) else "integer"
        else:
            out[column.name] = "real"
    return out


def check_values(site: Site) -> list[Issue]:
    """M004 and C003: stored values have their column's type; non-nullable columns are filled."""
    issues = []
    for t_index, table in enumerate(site.database.tables):
        retyped = _numbers_as_text(table)
        for c_index, column in enumerate(table.columns):
            if column.name in retyped:
                sample = ", ".join(repr(r.get(column.name)) for r in table.rows[:3])
                issues.append(Issue("semantic", WRONG_TYPE, f"$.database.tables[{t_index}].columns[{c_index}].type",
                                    f"{table.name}.{column.name} is declared text, but every row holds a number "
                                    f"({sample}, ...): it sorts and compares as text ('120' before '22'); "
                                    f"its type should be {retyped[column.name]}"))
        for r_index, row in enumerate(table.rows):
            for column in table.columns:
                value = row.get(column.name)
                where = f"$.database.tables[{t_index}].rows[{r_index}].{column.name}"
                if column.name in retyped:
                    continue
                if not _type_ok(column.type, value):
                    issues.append(Issue("semantic", WRONG_TYPE, where,
                                        f"{table.name}.{column.name} is {column.type}, but holds {value!r}"))
                elif value is None and not column.nullable and column.name != table.primary_key:
                    issues.append(Issue("consistency", NULL_VALUE, where,
                                        f"{table.name}.{column.name} must have a value, row {r_index} has none"))
            if row.get(table.primary_key) is None:  # the engine would number it, but no link can know how
                issues.append(Issue("consistency", NULL_VALUE, f"$.database.tables[{t_index}].rows[{r_index}]."
                                    f"{table.primary_key}", f"{table.name} row {r_index} has no key "
                                    f"({table.primary_key}): nothing can point at it"))
    return issues


def _slot_refs(value: Any) -> Iterator[str]:
    if isinstance(value, Ref):
        if value.namespace == "slot":
            yield value.name
    elif isinstance(value, QueryValue):
        for cond in value.query.where:
            yield from _slot_refs(cond.value)
    elif isinstance(value, list):
        for item in value:
            yield from _slot_refs(item)


def check_slots(site: Site) -> list[Issue]:
    """M006: predicates read only slots their task has."""
    issues = []
    for predicate, path, task in _predicates(site):
        if task is None:
            continue
        values: list[Any] = []
        if isinstance(predicate, Compare):
            values = [predicate.left, predicate.right]
        elif isinstance(predicate, (Exists, Count)):
            values = [c.value for c in predicate.query.where] + ([predicate.value] if isinstance(predicate, Count) else [])
        elif isinstance(predicate, (SqlPredicate, PageIs)):
            values = list(predicate.params.values())
        for value in values:
            for name in _slot_refs(value):
                if name not in task.slots:
                    issues.append(Issue("semantic", UNKNOWN_SLOT, path,
                                        f"task {task.id!r} reads slot {name!r}, which it does not have"))
    return issues


def check_entities(site: Site) -> list[Issue]:
    """M005: a feasible task that looks something up by name finds it in the site's data.

    A slot counts as a lookup when a goal or progress condition matches it against a table
    that no marker inserts into: the task cannot create the thing, so it must already exist.
    """
    corpus: set[str] = set()
    for table in site.database.tables:
        for row in table.rows:
            for value in row.values():
                if isinstance(value, str):
                    corpus.add(value.casefold())
    written = {e.table for m in site.markers for e in m.effects if e.op == "insert"}
    issues = []
    for number, task in enumerate(site.tasks):
        if task.kind == "infeasible":
            continue
        tables = _slot_tables(task)
        partial = _partial_slots(task)
        lookups = _lookup_slots(task)
        issues += _missing_numbers(site, task, number)
        for name, value in task.slots.items():
            if not isinstance(value, str) or not value.strip() or not tables.get(name):
                continue
            if not (tables[name] - written):  # a marker may create it: only a near miss of what exists is wrong
                twin = None if (value.casefold() in corpus or name in partial or name not in lookups
                                or value[:1].isdigit()) else near_miss(value, corpus)  # no addresses, dates
                if twin is not None:
                    issues.append(Issue("semantic", MISSING_ENTITY, f"$.tasks[{number}].slots.{name}",
                                        f"task {task.id!r} names {value!r}, one slip from {twin!r}, which the "
                                        f"site has: a misspelt name"))
                continue
            if name in partial:  # a search term: it must occur in some value, not be one
                if not any(value.casefold() in text for text in corpus):
                    issues.append(Issue("semantic", MISSING_ENTITY, f"$.tasks[{number}].slots.{name}",
                                        f"task {task.id!r} searches for {value!r}, which occurs nowhere in the "
                                        f"site's data"))
                continue
            if value.casefold() not in corpus:
                issues.append(Issue("semantic", MISSING_ENTITY, f"$.tasks[{number}].slots.{name}",
                                    f"task {task.id!r} looks up {value!r}, which appears nowhere in the site's data"))
    return issues


def _missing_numbers(site: Site, task: Any, number: int) -> list[Issue]:
    """M005 for a number slot that a condition equates with a row's key ("refund a line of order 9329":
    ``refunds.order_id = :order``, a key of ``orders``) when no row of the keyed table has it. A key
    is the table's primary key or a foreign key (then the table it points at is the one looked in)."""
    issues = []
    for name, where in _slot_columns(task).items():
        value = task.slots.get(name)
        if not isinstance(value, int) or isinstance(value, bool):
            continue
        for table_name, column, op in sorted(where):
            table = site.database.table(table_name)
            if op != "=" or table is None:
                continue
            fk = next((f for f in table.foreign_keys if f.column == column), None)
            keyed = site.database.table(fk.ref_table) if fk is not None else table if column == table.primary_key \
                else None
            if keyed is None:
                continue
            key = fk.ref_column if fk is not None else keyed.primary_key
            if not any(row.get(key) == value for row in keyed.rows):
                issues.append(Issue("semantic", MISSING_ENTITY, f"$.tasks[{number}].slots.{name}",
                                    f"task {task.id!r} names {keyed.name} {value} ({table.name}.{column}), and "
                                    f"no {keyed.name} row has that {key}"))
                break
    return issues


_NUMBER = re.compile(r"\d+")


def near_miss(value: str, corpus: set[str]) -> str | None:
    """A value of ``corpus`` (casefolded) one or two letters from ``value`` (a swap, a slip, a
    letter dropped or added), for names of at least 8 letters; ``None`` if there is none.

    Two names that differ only in their numbers ("Taxes 2027" and "Taxes 2026", "Room 12" and
    "Room 112") are two names, not a slip: a digit is not a letter.
    """
    folded = value.casefold()
    if len(folded) < 8:
        return None
    pattern = _NUMBER.sub("#", folded)
    for other in sorted(corpus):
        if abs(len(other) - len(folded)) <= 2 and other[:1] == folded[:1] and other != folded \
                and _distance(folded, other, 2) <= 2 and _NUMBER.sub("#", other) != pattern:
            return other
    return None


def _distance(a: str, b: str, bound: int) -> int:
    """Edit distance of ``a`` and ``b`` (an adjacent swap counts one), stopping above ``bound``."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                current[j] = min(current[j], previous2[j - 2] + 1)
        if min(current) > bound:
            return bound + 1
        previous2, previous = previous, current
    return previous[-1]


def _lookup_slots(task: Any) -> set[str]:
    """Slots a scalar query looks a row up by (``product_id = (SELECT id FROM products WHERE
    name = :product)``): names of rows that must exist, unlike values the agent writes."""
    found: set[str] = set()

    def scan(node: Any, inside: bool) -> None:
        if isinstance(node, dict):
            ref = node.get("ref")
            if inside and isinstance(ref, str) and ref.startswith("slot."):
                found.add(ref[5:])
            for item in node.values():
                scan(item, inside or set(node) == {"query"})
        elif isinstance(node, list):
            for item in node:
                scan(item, inside)

    scan(task.model_dump(mode="json", exclude_defaults=True), False)
    return found


def _partial_slots(task: Any) -> set[str]:
    """Slots every query condition reading them matches as part of a value (``contains``,
    ``startswith``): search terms, not names."""
    ops: dict[str, set[str]] = defaultdict(set)

    def scan(node: Any) -> None:
        if isinstance(node, dict):
            value = node.get("value")
            if "column" in node and isinstance(value, dict) and str(value.get("ref", "")).startswith("slot."):
                ops[value["ref"][5:]].add(node.get("op", "="))
            for item in node.values():
                scan(item)
        elif isinstance(node, list):
            for item in node:
                scan(item)

    scan(task.model_dump(mode="json"))
    return {name for name, found in ops.items() if found and found <= {"contains", "startswith"}}


def _slot_tables(task: Any) -> dict[str, set[str]]:
    """For each slot, the tables whose rows goal and progress conditions match it against."""
    return {name: {table for table, _, _ in where} for name, where in _slot_columns(task).items()}


def _slot_columns(task: Any) -> dict[str, set[tuple[str, str, str]]]:
    """For each slot, the (table, column, operator) of each goal or progress condition that matches it."""
    found: dict[str, set[tuple[str, str, str]]] = defaultdict(set)

    def query(q: Any) -> None:
        for cond in q.where:
            value = cond.value
            if isinstance(value, Ref) and value.namespace == "slot":
                found[value.name].add((q.table, cond.column, cond.op))
            elif isinstance(value, QueryValue):
                query(value.query)

    def visit(predicate: Any) -> None:
        if isinstance(predicate, (AllOf, AnyOf)):
            for item in predicate.items:
                visit(item)
        elif isinstance(predicate, Not):
            visit(predicate.item)
        elif isinstance(predicate, (Exists, Count)):
            query(predicate.query)
        elif isinstance(predicate, Compare):
            for side in (predicate.left, predicate.right):
                if isinstance(side, QueryValue):
                    query(side.query)
        elif isinstance(predicate, (SqlPredicate, PageIs)):
            for value in predicate.params.values():
                if isinstance(value, QueryValue):
                    query(value.query)

    for predicate in task.goal:
        visit(predicate)
    for sub in task.progress:
        visit(sub.predicate)
    if task.answer is not None:
        for value in (task.answer.value,):
            if isinstance(value, QueryValue):
                query(value.query)
        if task.answer.list_query is not None:
            query(task.answer.list_query)
    return found


def _looks_like_a_name(value: str) -> bool:
    """A proper name (capitalised words), not free text, a number, an amount, a date or an address."""
    words = value.split()
    if not 1 <= len(words) <= 6 or any(ch.isdigit() for ch in value) or value.endswith((".", "!", "?")):
        return False
    return sum(w[:1].isupper() for w in words) >= max(1, len(words) - 1)


# ----------------------------------------------------------------------------- consistency


def check_keys(site: Site) -> list[Issue]:
    """C001 and C002: foreign keys point at existing rows; primary keys and unique columns are unique."""
    issues = []
    keys = {t.name: {row.get(t.primary_key) for row in t.rows} for t in site.database.tables}
    for t_index, table in enumerate(site.database.tables):
        for column in [table.primary_key] + [c.name for c in table.columns if c.unique]:
            counts = Counter(row.get(column) for row in table.rows if row.get(column) is not None)
            for r_index, row in enumerate(table.rows):
                value = row.get(column)
                if value is not None and counts[value] > 1:
                    issues.append(Issue("consistency", DUPLICATE_KEY, f"$.database.tables[{t_index}].rows[{r_index}].{column}",
                                        f"{table.name}.{column} {value!r} is used by {counts[value]} rows"))
        for fk in table.foreign_keys:
            targets = keys.get(fk.ref_table)
            if targets is None:
                continue
            for r_index, row in enumerate(table.rows):
                value = row.get(fk.column)
                if value is not None and value not in targets:
                    issues.append(Issue("consistency", DANGLING_KEY, f"$.database.tables[{t_index}].rows[{r_index}].{fk.column}",
                                        f"{table.name}.{fk.column} = {value!r} points at no row of {fk.ref_table}"))
    return issues


def check_totals(site: Site) -> list[Issue]:
    """C004: a money ``total`` agrees with the money lines that point at its row (plus a fixed fee).

    A table with a ``total`` money column and a line table with a foreign key to it, a quantity
    and a money price: every total must be the sum of its lines plus a fee the site charges
    consistently (the most common difference, or the one its rows of one kind share), give or take
    another amount of its own row (a discount, a tax). A total off by anything else is reported.
    """
    issues = []
    for t_index, table in enumerate(site.database.tables):
        total = table.column("total")
        if total is None or total.type != "money":
            continue
        for lines in site.database.tables:
            fk = next((f for f in lines.foreign_keys if f.ref_table == table.name), None)
            price = next((c for c in lines.columns if c.type == "money"), None)
            qty = next((c for c in lines.columns if c.name in ("qty", "quantity")), None)
            if fk is None or price is None or qty is None:
                continue
            sums: dict[Any, int] = defaultdict(int)
            for row in lines.rows:
                if isinstance(row.get(price.name), int) and isinstance(row.get(qty.name), int):
                    sums[row.get(fk.column)] += row[price.name] * row[qty.name]
            diffs: Counter[int] = Counter()
            for row in table.rows:
                if isinstance(row.get("total"), int) and row.get(table.primary_key) in sums:
                    diffs[row["total"] - sums[row[table.primary_key]]] += 1
            fees = {d for d, n in diffs.items() if n >= max(2, len(table.rows) // 20) and 0 <= d <= 10_000}
            by_group = _fee_groups(table, sums)
            # the row's own other amounts (a discount taken off, a tax added) explain a difference too
            amounts = [c.name for c in table.columns if c.type == "money" and c.name != "total"]
            deciding = deciding_columns([(c.name, c.type) for c in table.columns], table.rows, table.primary_key, sums)
            for r_index, row in enumerate(table.rows):
                key = row.get(table.primary_key)
                if not (isinstance(row.get("total"), int) and key in sums):
                    continue
                diff = row["total"] - sums[key]
                usual = fees | {f for c, _ in by_group for f in by_group.get((c, row.get(c)), ())}
                decided = [by_group[(c, row.get(c))] for c in deciding if len(by_group.get((c, row.get(c)), ())) == 1]
                if decided:  # a column that sets the fee (shipping: standard 500, express 1500): that fee only
                    usual = set.intersection(*decided)
                own = [row[c] for c in amounts if isinstance(row.get(c), int) and row[c]]
                if diff not in usual and not any(d in usual or d == 0 for v in own for d in (diff - v, diff + v)):
                    issues.append(Issue("consistency", TOTAL_MISMATCH, f"$.database.tables[{t_index}].rows[{r_index}].total",
                                        f"{table.name} {key}: total {row['total']} disagrees with its lines in "
                                        f"{lines.name} ({sums[key]} plus any usual fee)"))
    return issues


def deciding_columns(columns: list[tuple[str, str]], rows: list[dict[str, Any]], key: str,
                     sums: dict[Any, int]) -> list[str]:
    """Of a table's ``(name, type)`` columns, the categorical ones that set the fee (a shipping
    method): each of their values has rows, at least three of them charging one fee and nearly all
    of them (all but one in ten) charging it, with no other fee as common, and two values charge
    different fees."""
    rows = [r for r in rows if isinstance(r.get("total"), int) and r.get(key) in sums]
    out = []
    for name, kind in columns:
        values = {r.get(name) for r in rows}
        if kind != "text" or not 2 <= len(values) <= 6 or len(values) > len(rows) // 3:
            continue
        modes = set()
        for value in values:
            fees = Counter(r["total"] - sums[r[key]] for r in rows if r.get(name) == value)
            (fee, n), *rest = fees.most_common(2)
            if n < 3 or n < 0.9 * sum(fees.values()) - 1 or (rest and rest[0][1] == n):
                break  # too few rows to tell (two of three pending orders paying a fee charged at random), no clear fee, or a tie
            modes.add(fee)
        else:
            if len(modes) >= 2:
                out.append(name)
    return out


def _fee_groups(table: Any, sums: dict[Any, int]) -> dict[tuple[str, Any], set[int]]:
    """For each value of a categorical text column (a shipping method, say), the fees its rows
    charge: the one fee when they all agree, else those at least two of its rows share (so one
    stray row does not make the whole group suspect). Only columns with few distinct values
    count, so a unique name explains nothing."""
    groups: dict[tuple[str, Any], list[int]] = defaultdict(list)
    rows = [r for r in table.rows if isinstance(r.get("total"), int) and r.get(table.primary_key) in sums]
    for column in table.columns:
        values = {r.get(column.name) for r in rows}
        if column.type != "text" or len(values) > max(1, len(rows) // 2) or len(values) > 12:
            continue
        for row in rows:
            groups[(column.name, row.get(column.name))].append(row["total"] - sums[row[table.primary_key]])
    out = {}
    for key, fees in groups.items():
        counts = Counter(fees)
        out[key] = set(counts) if len(counts) == 1 else {fee for fee, n in counts.items() if n >= 2}
    return out


STATIC_CHECKS: list[Callable[[Site], list[Issue]]] = [
    check_links, check_reachability, check_forms, check_tables, check_widgets_and_pages, check_content,
    check_labels, check_values, check_slots, check_entities, check_keys, check_totals,
]


def all_checks() -> list[Callable[[Site], list[Issue]]]:
    """Every static check, in the order :func:`static_issues` runs them (this module's, then those of
    :mod:`veriweb.verify.intent`, :mod:`veriweb.verify.checks_pages`, :mod:`veriweb.verify.checks_data`,
    :mod:`veriweb.verify.checks_keys`, :mod:`veriweb.verify.checks_meaning`,
    :mod:`veriweb.verify.checks_tasks`, :mod:`veriweb.verify.checks_views`,
    :mod:`veriweb.verify.checks_guards`, :mod:`veriweb.verify.checks_figures`,
    :mod:`veriweb.verify.checks_words` and :mod:`veriweb.verify.checks_params`)."""
    from veriweb.verify.checks_data import DATA_CHECKS  # these build on this module's helpers
    from veriweb.verify.checks_figures import FIGURE_CHECKS
    from veriweb.verify.checks_guards import GUARD_CHECKS
    from veriweb.verify.checks_keys import KEY_CHECKS
    from veriweb.verify.checks_meaning import MEANING_CHECKS
    from veriweb.verify.checks_pages import PAGE_CHECKS
    from veriweb.verify.checks_params import PARAM_CHECKS
    from veriweb.verify.checks_tasks import TASK_CHECKS
    from veriweb.verify.checks_views import VIEW_CHECKS
    from veriweb.verify.checks_words import WORD_CHECKS
    from veriweb.verify.intent import INTENT_CHECKS

    return [*STATIC_CHECKS, *INTENT_CHECKS, *PAGE_CHECKS, *DATA_CHECKS, *KEY_CHECKS, *MEANING_CHECKS, *TASK_CHECKS,
            *VIEW_CHECKS, *GUARD_CHECKS, *FIGURE_CHECKS, *WORD_CHECKS, *PARAM_CHECKS]


def static_issues(site: Site) -> list[Issue]:
    """Every issue the static checks find, in a fixed order (see :func:`all_checks`; to check a site
    again after a change, :func:`veriweb.verify.recheck.recheck` re-runs only what the change can
    alter)."""
    issues = []
    with one_run():
        for check in all_checks():
            issues.extend(check(site))
    return issues

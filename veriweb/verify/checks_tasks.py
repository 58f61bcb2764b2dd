"""Checks that a task starts somewhere real, says what its goal checks, and that the seed data
keeps the rules the site's own markers enforce (S016, M016-M018, F010-F012, C012).

- S016: a task's start address is served by no page (the episode would open on "not found"),
  a goal or progress predicate waits for a page id the site does not have, or the task acts as
  a user who has no account.
- M016: the instruction names a value for something (``size``: "MX") and the goal compares the
  column of that name with a different fixed value (``i.size = 'M'``): instruction and
  predicates drifted apart, so an agent that follows the words fails and one that ignores
  them passes.
  Also: a value the instruction names ("{state}" = open, "still in the Inbox") that a count or
  list never filters on; a bound the words include ("one stop or none") that the judge excludes
  (``stops < 1``); an amount stated unlike the cents the goal reads; a choice the judge reads
  that the words do not say while they say another ("express shipping" judged on ``shipping =
  'standard'``); an instruction logging in as another account than the task acts as, or with a
  password that account does not have.
- M017: a retrieve task's answer takes another aggregate or reads another column than its
  instruction asks for (the largest bill for "what do they come to in total", the author for
  "who is the assignee", the day it was opened for "when was it merged"): the judge wants a
  figure the agent is never asked for.
- M018: a task picks the first row of an ordering that runs the other way from its words ("the
  latest order" sorted oldest first), or sorted by another column than the one named ("the most
  points" ranked by ``hot``), or an aggregate at the other end ("the highest total" read with min).
- F010: a task asks to create a record under a name the site already has and keeps unique.
- F011: a goal needs a row changed that the task's footprint forbids it to write.
- F012: a task starts signed out and leaves the credentials to its instruction, which does not give
  them.
- C012: a seed row already breaks an invariant that a marker checks after every write
  (``NOT EXISTS (SELECT 1 FROM products WHERE stock < 0)`` while a product has stock -4):
  every use of that marker fails, and the site shows values its own rules forbid.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from pydantic import BaseModel

from veriweb.engine.templates import Route
from veriweb.errors import VeriwebError
from veriweb.scaffold import Site, Task
from veriweb.scaffold.values import AllOf, AnyOf, Exists, Not, PageIs, QueryValue, Ref, SqlPredicate
from veriweb.verify import checks as C
from veriweb.verify.wording import flag_words, stem
from veriweb.verify.dataflow import parse_effect

START_NOWHERE = C.START_NOWHERE
SLOT_CONTRADICTS_GOAL = C.SLOT_CONTRADICTS_GOAL
SEED_BREAKS_INVARIANT = C.SEED_BREAKS_INVARIANT

_SQL_PARAM = re.compile(r":(\w+)")
_SQL_LITERAL_EQ = re.compile(r"(?<![\w.])(?:\w+\.)?\"?(\w+)\"?\s*=\s*'((?:[^']|'')*)'")
ROW_INVARIANT = re.compile(r"^\s*SELECT\s+NOT\s+EXISTS\s*\(\s*SELECT\s+1\s+FROM\s+\"?(\w+)\"?\s+WHERE\s+(.+)\)\s*$",
                           re.I | re.S)
"""An invariant about single rows: ``SELECT NOT EXISTS (SELECT 1 FROM T WHERE cond)`` (table, cond)."""
_GROUPING = re.compile(r"\b(GROUP\s+BY|HAVING|JOIN|SELECT)\b", re.I)


def _leaves(predicate: Any, path: str) -> Iterator[tuple[Any, str]]:
    """Every predicate that is not a combination, with its JSON path."""
    if isinstance(predicate, (AllOf, AnyOf)):
        for number, item in enumerate(predicate.items):
            yield from _leaves(item, f"{path}.items[{number}]")
    elif isinstance(predicate, Not):
        yield from _leaves(predicate.item, f"{path}.item")
    else:
        yield predicate, path


def _task_predicates(task: Any, number: int) -> Iterator[tuple[Any, str]]:
    """The goal's and the progress subgoals' leaf predicates of task ``number``, with paths."""
    for index, predicate in enumerate(task.goal):
        yield from _leaves(predicate, f"$.tasks[{number}].goal[{index}]")
    for index, subgoal in enumerate(task.progress):
        yield from _leaves(subgoal.predicate, f"$.tasks[{number}].progress[{index}].predicate")


# ----------------------------------------------------------------------------- S016


def _usernames(site: Site) -> set[str] | None:
    """The usernames of the accounts table, or ``None`` when the site has no accounts to check against."""
    auth = site.auth
    table = site.database.table(auth.table) if auth is not None else None
    if table is None or auth is None:
        return None
    return {str(row[auth.username_column]) for row in table.rows if row.get(auth.username_column) is not None}


def check_task_addresses(site: Site) -> list[C.Issue]:
    """S016: start addresses no route serves, page predicates naming no page, and a task's user
    that is no account."""
    routes = [Route.compile(page.id, page.route) for page in site.pages]
    page_ids = {page.id for page in site.pages}
    accounts = _usernames(site)
    issues = []
    for number, task in enumerate(site.tasks):
        path = task.start_url.split("?")[0].split("#")[0] or "/"
        if not any(route.match(path) is not None for route in routes):
            issues.append(C.Issue("structural", START_NOWHERE, f"$.tasks[{number}].start_url",
                                  f"task {task.id!r} starts at {task.start_url!r}, which no page's route serves: "
                                  f"the episode would open on a 'not found' page"))
        if task.user is not None and accounts is not None and task.user not in accounts:
            issues.append(C.Issue("structural", START_NOWHERE, f"$.tasks[{number}].user",
                                  f"task {task.id!r} acts as user {task.user!r}, but no row of "
                                  f"{site.auth.table if site.auth else 'users'!r} has that "
                                  f"{site.auth.username_column if site.auth else 'username'}"))
        for predicate, where in _task_predicates(task, number):
            if isinstance(predicate, PageIs) and predicate.page not in page_ids:
                issues.append(C.Issue("structural", START_NOWHERE, f"{where}.page",
                                      f"task {task.id!r} waits for page {predicate.page!r}, which the site does not "
                                      f"have (pages: {', '.join(sorted(page_ids))})"))
    return issues


# ----------------------------------------------------------------------------- M016


def _reads_slot(predicate: Any, name: str) -> bool:
    """Whether ``predicate`` reads slot ``name`` anywhere (a ``slot.NAME`` reference)."""
    found = False

    def walk(value: Any) -> None:
        nonlocal found
        if found:
            return
        if isinstance(value, Ref):
            found = value.namespace == "slot" and value.name == name
        elif isinstance(value, BaseModel):
            for key in type(value).model_fields:
                walk(getattr(value, key))
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, (list, tuple)):
            for item in value:
                walk(item)

    walk(predicate)
    return found


def _fixed_comparisons(predicate: Any, numbers: bool = False) -> Iterator[tuple[str, str]]:
    """(column, fixed value as text) pairs a predicate compares for equality: ``col = 'text'`` in SQL,
    or a structured query's ``where`` condition with a literal text; with ``numbers``, the literal
    numbers instead (``col = 2``)."""
    if isinstance(predicate, SqlPredicate):
        if not numbers:
            for column, literal in _SQL_LITERAL_EQ.findall(predicate.sql):
                yield column, literal.replace("''", "'")
        else:
            for column, literal in _SQL_NUMBER_EQ.findall(predicate.sql):
                yield column, _text(float(literal))
        return
    query = C.field_of(predicate, "query")
    for cond in C.field_of(query, "where") or []:
        if getattr(cond, "op", "=") in ("=", "eq") and isinstance(cond.value, str) != numbers \
                and (text := _text(cond.value)) is not None:
            yield cond.column, text


_SQL_NUMBER_EQ = re.compile(r"\b(\w+)\s*=\s*(-?\d+(?:\.\d+)?)(?![\w.'])")


def _text(value: Any) -> str | None:
    """A literal's text for comparing with a slot (``2`` and ``2.0`` alike), ``None`` for anything else."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return str(int(value)) if float(value).is_integer() else str(value)
    return value if isinstance(value, str) else None


def check_slot_agreement(site: Site) -> list[C.Issue]:
    """M016: a slot named like a column whose value (a text or a number) the goal fixes to something else."""
    issues = []
    for number, task in enumerate(site.tasks):
        leaves = list(_task_predicates(task, number))
        for name, raw in task.slots.items():
            value = _text(raw)
            if value is None or not value.strip():
                continue
            if any(_reads_slot(predicate, name) for predicate, _ in leaves):
                continue
            amount = re.fullmatch(r"\$(\d+(?:,\d{3})*)(?:\.(\d{2}))?", value.strip()) if isinstance(raw, str) else None
            if amount is not None:  # "$320.00" stated, a parameter of the same name fixed to other cents
                cents = int(amount.group(1).replace(",", "")) * 100 + int(amount.group(2) or 0)
                fixed = [(where, v) for predicate, where in leaves if isinstance(predicate, SqlPredicate)
                         for key, v in (predicate.params or {}).items()
                         if key.lower() == name.lower() and isinstance(v, (int, float)) and not isinstance(v, bool)]
                if fixed and all(v != cents for _, v in fixed):
                    where, v = fixed[0]
                    issues.append(C.Issue("semantic", SLOT_CONTRADICTS_GOAL, f"$.tasks[{number}].slots.{name}",
                                          f"task {task.id!r} states {name} {raw!r}, but its goal ({where}) reads "
                                          f"{name} = {v} cents (${v / 100:,.2f}): the instruction and the judge "
                                          f"disagree"))
                continue
            numbers = not isinstance(raw, str)  # a number slot against literal numbers, a text against texts
            for predicate, where in leaves:
                fixed = list(_fixed_comparisons(predicate, numbers))
                clashes = [literal for column, literal in fixed
                           if column.lower() == name.lower() and literal.strip().lower() != value.strip().lower()]
                if clashes and not any(literal.strip().lower() == value.strip().lower() for _, literal in fixed):
                    issues.append(C.Issue("semantic", SLOT_CONTRADICTS_GOAL, f"$.tasks[{number}].slots.{name}",
                                          f"task {task.id!r} asks for {name} {raw!r}, but its goal ({where}) checks "
                                          f"{name} = {clashes[0]!r}: the instruction and the judge disagree"))
                    break
    return issues


def crossed_slots(site: Site, task: Any, number: int) -> Iterator[tuple[str, str, str, str, str]]:
    """Each query of a task's model comparing two columns with each other's slots: ``address`` with the
    slot ``city`` while ``city`` is compared with the slot ``street`` (a slot named like a column of the
    table, judged against another column, whose own column reads a third slot). Yields the path of the
    query's conditions, the table, the crossed column, the slot it reads and the slot it should read."""
    for query, path in _queries_with(task, f"$.tasks[{number}]", "where"):
        table = site.database.table(query.table)
        if table is None:
            continue
        columns = {c.name for c in table.columns}
        by_column = {}
        for cond in query.where:
            value = cond.value
            if cond.op == "=" and isinstance(value, Ref) and value.namespace == "slot" and value.name in task.slots:
                by_column.setdefault(cond.column, value.name)
        for column, slot in by_column.items():
            other = by_column.get(slot)
            if slot != column and slot in columns and other is not None and other != slot and other not in columns:
                yield f"{path}.where", query.table, column, slot, other


def check_crossed_slots(site: Site) -> list[C.Issue]:
    """M016: a goal, progress or constraint query that compares two columns with each other's slots (see
    :func:`crossed_slots`): the order sent to the street and city the instruction names never counts. The
    repair gives each column the slot named like it, and the other column the slot it leaves."""
    issues = []
    for number, task in enumerate(site.tasks):
        for location, table, column, slot, other in crossed_slots(site, task, number):
            issues.append(C.Issue("semantic", SLOT_CONTRADICTS_GOAL, location,
                                  f"task {task.id!r} compares {table}.{column} with the slot {slot} and {table}.{slot} "
                                  f"with the slot {other}: the slots are crossed, so the work the instruction asks for "
                                  f"never counts; {column} should read {other} and {slot} should read {slot}"))
    return issues


_LOOKUP = re.compile(r"\(\s*SELECT\s+(?:lower\(\s*)?(\w+)\s*\)?\s+FROM\s+(\w+)\s+WHERE\s+([^()]*?)\)", re.I)
_EQUALS = re.compile(r"^\s*(?:\w+\.)?(\w+)\s*=\s*(?::(\w+)|'((?:[^']|'')*)'|(-?\d+))\s*$")


def ambiguous_lookups(site: Site, task: Any, number: int) -> Iterator[tuple[str, str, str, int, dict[str, Any], str]]:
    """Each lookup in a task's SQL predicates that picks one value by a name the task states (``(SELECT email
    FROM contacts WHERE user_id = :user_id AND name = :contact)``) while the seed rows hold several with that
    name and different values: the instruction says no more which one is meant, and the judge takes the
    first. Path of the predicate, the table, the column, how many rows match, what they match on and the
    column the task names them by."""
    user = task_user_row(site, task)
    for predicate, path in _task_predicates(task, number):
        if not isinstance(predicate, SqlPredicate):
            continue
        for found in _LOOKUP.finditer(predicate.sql):
            table = site.database.table(found.group(2))
            if table is None or table.column(found.group(1)) is None:
                continue
            wanted: dict[str, Any] = {}
            named, slot_column = False, ""
            for part in re.split(r"\s+AND\s+", found.group(3), flags=re.I):
                cond = _EQUALS.match(part)
                if cond is None or table.column(cond.group(1)) is None:
                    wanted = {}
                    break
                if cond.group(2) is not None:
                    name = cond.group(2)
                    ref = (predicate.params or {}).get(name)
                    if name == "user_id" and ref is None:
                        value = user.get(site.auth.id_column) if user is not None and site.auth is not None else None
                    elif isinstance(ref, Ref) and ref.namespace == "slot":
                        value, named, slot_column = task.slots.get(ref.name), True, cond.group(1)
                    else:
                        wanted = {}
                        break
                else:
                    value = cond.group(3).replace("''", "'") if cond.group(3) is not None else int(cond.group(4))
                wanted[cond.group(1)] = value
            if not wanted or not named or any(v is None for v in wanted.values()):
                continue
            rows = [r for r in table.rows if all(r.get(c) == v for c, v in wanted.items())]
            if len(rows) > 1 and len({str(r.get(found.group(1))) for r in rows}) > 1:
                yield path, table.name, found.group(1), len(rows), wanted, slot_column
                break


def check_ambiguous_lookups(site: Site) -> list[C.Issue]:
    """M008: see :func:`ambiguous_lookups`."""
    issues = []
    for number, task in enumerate(site.tasks):
        for path, table, column, count, wanted, named in ambiguous_lookups(site, task, number):
            issues.append(C.Issue("semantic", C.AMBIGUOUS_ENTITY, path,
                                  f"task {task.id!r} looks up one {table}.{column} by what it names, but {count} {table} "
                                  f"rows match with different {column}: the task names no single one, and the judge "
                                  f"takes the first; the rows matching {json.dumps(wanted, sort_keys=True)} in {table} "
                                  f"by {named}"))
            break
    return issues


def task_user_row(site: Site, task: Any) -> dict[str, Any] | None:
    """The accounts row of the user ``task`` acts as (by its username), or ``None``."""
    accounts = site.database.table(site.auth.table) if site.auth is not None else None
    if accounts is None or site.auth is None or task.user is None:
        return None
    return next((r for r in accounts.rows if r.get(site.auth.username_column) == task.user), None)


def unfiltered_slots(site: Site, task: Any) -> Iterator[tuple[str, str, dict[str, Any], str]]:
    """Values a count, a sum or a list names that its answer never filters on: ``{state}`` = "open" in
    "Count the {state} issues ..." over a count of every state; "f/{forum}" over the user's posts in
    every forum; "still in the Inbox" over the user's mail in every folder. Yields the slot (or the
    word), the column of the answer's table that holds the value (directly, or as the key of a row
    of another table that does), the condition that filters on it, and the answer query's path. A
    slot that names the task's own user ("I am {me}") or that the query states another way (a
    literal list) is no filter missing; nor is one beside a query that picks one row (a bill found by
    its subject). Words are the instruction's own capitalised ones, matched as written."""
    from veriweb.verify.checks_pages import base_column, source_columns

    answer = task.answer
    if task.kind != "retrieve" or answer is None:
        return
    if answer.list_query is not None:
        query, path = answer.list_query, "answer.list_query"
    elif isinstance(answer.value, QueryValue) and C.field_of(answer.value.query, "agg"):
        query, path = answer.value.query, "answer.value.query"
    else:
        return
    filtered = {c.column for c in query.where}
    stated = " ".join(str(c.value).lower() for c in query.where if not isinstance(c.value, (Ref, QueryValue)))
    row = task_user_row(site, task) or {}
    names = {str(row[k]).lower() for k in (site.auth.name_column, site.auth.username_column) if k in row} \
        if site.auth is not None else set()
    secret = site.auth.password_column if site.auth is not None else None
    columns = sorted(source_columns(site, query.table) or ())
    named: list[tuple[str, str, Any, bool]] = []  # (slot or word, value, what the condition compares with, exact)
    for slot in sorted(set(re.findall(r"\{(\w+)\}", task.template))):
        value = str(task.slots.get(slot, "")).strip()
        if not value or _reads_slot(answer, slot) or value.lower() in names or value.lower() in stated or slot in (
                "username", "password"):
            continue
        named.append((slot, value, {"ref": f"slot.{slot}"}, False))
    for word in sorted(set(re.findall(r"\b[A-Z][a-z]{3,}\b", _told(task.template)))):
        if word.lower() not in stated and word.lower() not in names:
            named.append((word, word, word, True))
    for label, value, compared, exact in named:
        same = (lambda v: str(v).strip() == value) if exact else (lambda v: str(v).strip().lower() == value.lower())
        for column in columns:
            base = base_column(site, query.table, column)
            table = site.database.table(base[0]) if base is not None else None
            if column in filtered or table is None:
                continue
            if any(same(row.get(base[1], "")) for row in table.rows):
                yield label, column, {"column": column, "value": compared}, path
                return
            pointer = next((fk for fk in table.foreign_keys if fk.column == base[1]), None)
            target = site.database.table(pointer.ref_table) if pointer is not None else None
            if target is None or pointer is None:
                continue
            held = [c.name for c in target.columns if c.type == "text" and not (
                site.auth is not None and target.name == site.auth.table and c.name == secret)
                and any(same(row.get(c.name, "")) for row in target.rows)]
            held = [c for c in held if any(str(row.get(c, "")).strip() == value for row in target.rows)] or held
            if held:
                where: list[dict[str, Any]] = [{"column": held[0], "value": compared}]
                if task.user is not None and target.column("user_id") is not None:
                    where.insert(0, {"column": "user_id", "value": {"ref": "user.id"}})  # the user's own (folders)
                yield label, column, {"column": column, "value": {"query": {
                    "select": pointer.ref_column, "table": target.name, "where": where}}}, path
                return


_INCLUSIVE_BELOW = re.compile(r"\bor (?:fewer|less|none|under|below|cheaper|lower)\b|\bat most\b|"
                              r"\bno more than\b|\bat or (?:under|below)\b|\bnot more than\b")
_INCLUSIVE_ABOVE = re.compile(r"\bor (?:more|higher|better|above|over|later)\b|\bat least\b|\bno (?:fewer|less) than\b|"
                              r"\bnot (?:fewer|less) than\b")


_STRICT = re.compile(r"(?<!or )\b(?:under|below|over|above)\b|\b(?:less|fewer|more|cheaper|higher|lower) than\b")


def strict_bounds(task: Any, number: int) -> Iterator[tuple[str, str, str]]:
    """Conditions of a task's goal or answer that compare strictly (``stops < 1``) where its words
    include the bound ("one stop or none", "at least 4 stars"): the condition's path, its operator
    and the inclusive one the words ask for. Found only where the words name one direction."""
    told = _told(task.template).lower()
    below, above = bool(_INCLUSIVE_BELOW.search(told)), bool(_INCLUSIVE_ABOVE.search(told))
    if below == above or _STRICT.search(_INCLUSIVE_BELOW.sub(" ", _INCLUSIVE_ABOVE.sub(" ", told))):
        return  # no bound said, both, or a strict one beside it: which condition each is, is not said
    wrong, right = ("<", "<=") if below else (">", ">=")
    judged = [(task.goal, f"$.tasks[{number}].goal"), (task.progress, f"$.tasks[{number}].progress"),
              (task.answer, f"$.tasks[{number}].answer")]  # a constraint states what breaks it: the other way
    for holder, path in (found for value, root in judged for found in _queries_with(value, root, "where")):
        for index, cond in enumerate(holder.where):
            if cond.op == wrong and not isinstance(cond.value, str):
                yield f"{path}.where[{index}].op", wrong, right


_STRICT_BEFORE = re.compile(r"\b(?:(fewer|less|cheaper|lower) than|(under|below)|(more|higher) than|(over|above))\s+"
                            r"(?:\$\s*)?\{(\w+)\}", re.I)


def inclusive_bounds(task: Any, number: int) -> Iterator[tuple[str, str, str]]:
    """The other way round from :func:`strict_bounds`: a bound the words exclude ("fewer than {limit}
    units", "under {budget}") that the judge compares with inclusively (``stock <= :limit``): the rows at
    exactly the bound are judged too. Only conditions on that very slot are read."""
    told = task.template
    if _INCLUSIVE_BELOW.search(told.lower()) or _INCLUSIVE_ABOVE.search(told.lower()):
        return
    wrong_ops = {}
    for found in _STRICT_BEFORE.finditer(told):
        if not re.fullmatch(r"\s*\$?\s*-?[\d,]*\.?\d+\s*", str(task.slots.get(found.group(5), ""))):
            continue  # "under {folder}": a place, not a bound
        below = bool(found.group(1) or found.group(2))
        wrong_ops[found.group(5)] = ("<=", "<") if below else (">=", ">")
    judged = [(task.goal, f"$.tasks[{number}].goal"), (task.progress, f"$.tasks[{number}].progress"),
              (task.answer, f"$.tasks[{number}].answer")]
    for holder, path in (found for value, root in judged for found in _queries_with(value, root, "where")):
        for index, cond in enumerate(holder.where):
            value = cond.value
            ops = wrong_ops.get(value.name) if isinstance(value, Ref) and value.namespace == "slot" else None
            if ops is not None and cond.op == ops[0]:
                yield f"{path}.where[{index}].op", ops[0], ops[1]


_RANKED = re.compile(r"\b(?:rank(?:ed|ing)?|in (?:that |the right |their )?order|in order of|from (?:first|highest|"
                     r"lowest|cheapest|most|least|best|worst|newest|oldest|largest|smallest|biggest) to|"
                     r"(?:ascending|descending) order|from the (?:first|top) to)\b", re.I)
_ANY_ORDER = re.compile(r"\b(?:in any order|any order|order does not matter|whatever order)\b", re.I)
_ROUNDED = re.compile(r"\b(?:rounded|round(?:ing)? it)\s+(?:off\s+|up\s+|down\s+)?to\s+the\s+nearest\s+"
                      r"(?:whole\s+)?(?:dollar|euro|pound|unit|number|integer|one)\b|\bin whole (?:dollars|euros|pounds)\b",
                      re.I)


def unsaid_answer_rules(task: Any, number: int) -> Iterator[tuple[str, Any, Any, str]]:
    """How an answer is judged against what its words ask: a list asked "ranked from first to third" judged
    in any order, or an amount asked "rounded to the nearest dollar" judged to the cent. Yields the
    path, the setting, the one the words ask for, and the words."""
    answer = task.answer
    if task.kind != "retrieve" or answer is None:
        return
    told = _told(task.template)
    ranked = _RANKED.search(told)
    if answer.type == "list" and answer.order == "any" and ranked and not _ANY_ORDER.search(told) \
            and answer.list_query is not None and answer.list_query.order_by:
        yield f"$.tasks[{number}].answer.order", "any", "exact", ranked.group(0)
    rounded = _ROUNDED.search(told)
    if answer.type in ("number", "currency") and rounded and answer.tolerance < 0.5:
        yield f"$.tasks[{number}].answer.tolerance", answer.tolerance, 0.5, rounded.group(0)


def check_answer_rules(site: Site) -> list[C.Issue]:
    """M017: see :func:`unsaid_answer_rules`. The repair judges as the words ask."""
    return [C.Issue("semantic", C.ANSWER_ASKS_OTHER, location,
                    f"task {task.id!r} asks for its answer {words!r}, but the answer is judged with {location.rsplit('.', 1)[1]} "
                    f"{setting!r}: the answer asked for is judged wrong, or a wrong one right; it should be {wanted!r}")
            for number, task in enumerate(site.tasks) for location, setting, wanted, words in unsaid_answer_rules(task, number)]


_TYPOGRAPHIC = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-",
                               "\u2026": "...", "\u00a0": " "})


def typographic_slots(site: Site, task: Any) -> Iterator[tuple[str, str, str]]:
    """Slots of a mutate task whose text an agent must type and the goal compares exactly, written with
    characters no keyboard types (``’``, ``“``, ``—``): the note typed as anyone types it ("Customer's") is
    judged a failure. Only values no row holds (a value naming a record is copied, not typed). Yields the
    slot, its value and the value in plain characters."""
    if task.kind != "mutate":
        return
    compared = {value.name for holder, _ in _queries_with(task.goal, "$", "where") for cond in holder.where
                if cond.op == "=" and isinstance(value := cond.value, Ref) and value.namespace == "slot"}
    for name in sorted(compared):
        value = task.slots.get(name)
        if not isinstance(value, str) or value.translate(_TYPOGRAPHIC) == value:
            continue
        if any(value in row.values() for table in site.database.tables for row in table.rows):
            continue
        yield name, value, value.translate(_TYPOGRAPHIC)


def check_typographic_slots(site: Site) -> list[C.Issue]:
    """M016: see :func:`typographic_slots`. The repair writes the value in plain characters."""
    return [C.Issue("semantic", SLOT_CONTRADICTS_GOAL, f"$.tasks[{number}].slots.{name}",
                    f"task {task.id!r} asks to type {value!r}, which holds characters no keyboard types, and its goal "
                    f"compares the text exactly: typed as anyone types it, the text is judged wrong; it should ask "
                    f"for {plain!r}")
            for number, task in enumerate(site.tasks) for name, value, plain in typographic_slots(site, task)]


_CREATE_WORDS = re.compile(r"\b(?:create|creating|new|set up|add|make|open an?|start an?)\b", re.I)
_UNIQUE = re.compile(r"NOT\s+EXISTS\s*\(\s*SELECT\s+1\s+FROM\s+\"?(\w+)\"?(?:\s+WHERE\s+(\w+)\s*=\s*:user_id)?\s+"
                     r"GROUP\s+BY\s+(?:lower\s*\(\s*)?(\w+)\s*\)?\s+HAVING\s+count\s*\(\s*\*\s*\)\s*>\s*1", re.I)


def creates_existing(site: Site, task: Any) -> tuple[str, str, str] | None:
    """For a task that asks to create something (``"set up a new discount code {code}"``) whose slot
    value a marker inserts into a column its invariant keeps unique (``GROUP BY code HAVING count(*)
    > 1``, for the user's own rows where it says so) while a row already holds it: the slot, the
    table and the column. The creation is refused, or the old record does the task's work."""
    if task.kind != "mutate" or not _CREATE_WORDS.search(_told(task.template)):
        return None
    row = task_user_row(site, task)
    uid = row.get(site.auth.id_column) if row is not None and site.auth is not None else None
    for marker in site.markers:
        for check in marker.invariants:
            sql = C.field_of(check.predicate, "sql") or ""
            found = _UNIQUE.search(sql)
            if found is None:
                continue
            table_name, scope, column = found.group(1), found.group(2), found.group(3)
            inserts = [e for e in marker.effects if e.op == "insert" and e.table == table_name]
            params = {src.value if src.kind == "param" else wrapped.group(1)
                      for e in inserts for col, src in parse_effect(marker.name, e.op, e.table, e.sql).sources.items()
                      if col == column
                      and (src.kind == "param" or src.kind == "expr" and (wrapped := re.fullmatch(
                          r"(?:(?:upper|lower|trim)\s*\(\s*)*:(\w+)\s*\)*", str(src.value), re.I)))}
            table = site.database.table(table_name)
            if not params or table is None:
                continue
            for slot in sorted(set(re.findall(r"\{(\w+)\}", task.template))):
                value = str(task.slots.get(slot, "")).strip().lower()
                if not value:
                    continue
                if any(str(row.get(column, "")).strip().lower() == value and (scope is None or row.get(scope) == uid)
                       for row in table.rows):
                    return slot, table_name, column
    return None


def check_creates_existing(site: Site) -> list[C.Issue]:
    """F010: a task that asks to create a record under a name the site already has and keeps unique
    (see :func:`creates_existing`)."""
    issues = []
    for number, task in enumerate(site.tasks):
        found = creates_existing(site, task)
        if found is not None:
            slot, table, column = found
            issues.append(C.Issue("feasibility", C.CREATES_EXISTING, f"$.tasks[{number}].slots.{slot}",
                                  f"task {task.id!r} asks to create {table} {task.slots[slot]!r}, but a {table} row "
                                  f"already has that {column}, which must be unique: the creation is refused"))
    return issues


def goal_keys_outside(site: Site, task: Any, number: int) -> Iterator[tuple[str, Any, Any]]:
    """Rows a mutate task's goal names by a fixed key (``orders.id = 43`` with ``status = 'cancelled'``)
    that its footprint, which names the rows it may write by fixed keys of the same table (``id =
    42``), does not let it write, while the goal's own condition on the row can only come from a
    write (it does not hold at the start). Yields the goal key's path, the key and the footprint's."""
    if task.kind != "mutate":
        return
    allowed: dict[str, set[Any]] = {}
    for entry in task.footprint:
        table = site.database.table(entry.table)
        keys = [c.value for c in entry.where if table is not None and c.column == table.primary_key
                and c.op == "=" and isinstance(c.value, (int, str))]
        if table is not None and entry.where and len(keys) == len(entry.where):
            allowed.setdefault(entry.table, set()).update(keys)
        elif table is not None:
            allowed[entry.table] = {None}  # rows picked otherwise: any key may be the one
    for index, predicate in enumerate(task.goal):
        query = C.field_of(predicate, "query")
        if C.field_of(predicate, "kind") != "exists" or C.field_of(predicate, "negate") or query is None:
            continue
        table = site.database.table(query.table)
        keys = allowed.get(query.table)
        if table is None or not keys or None in keys:
            continue
        for c_index, cond in enumerate(query.where):
            if cond.column == table.primary_key and cond.op == "=" and isinstance(cond.value, (int, str)) \
                    and cond.value not in keys and len(keys) == 1:
                row = next((r for r in table.rows if r.get(table.primary_key) == cond.value), None)
                if row is not None and all(row.get(c.column) == c.value for c in query.where
                                           if not isinstance(c.value, (Ref, QueryValue)) and c.op == "="):
                    continue  # it holds already: F001's, not this
                yield f"$.tasks[{number}].goal[{index}].query.where[{c_index}].value", cond.value, next(iter(keys))


def goal_ops_outside(task: Any, number: int) -> Iterator[tuple[str, str, list[str]]]:
    """Footprint entries that name exactly a goal's rows (the same conditions) but not the write that goal
    needs: ``NOT EXISTS`` wants the rows deleted (or changed), ``EXISTS`` wants one made (or changed); an
    entry for leaving a community that allows only inserts. Yields the entry's ops path, the op needed and
    the ops it allows."""
    if task.kind != "mutate":
        return
    for predicate in task.goal:
        query = C.field_of(predicate, "query")
        if C.field_of(predicate, "kind") != "exists" or query is None:
            continue
        wanted = json.dumps([c.model_dump(mode="json") for c in query.where], sort_keys=True)
        same = [(i, e) for i, e in enumerate(task.footprint) if e.table == query.table
                and json.dumps([c.model_dump(mode="json") for c in e.where], sort_keys=True) == wanted]
        needed = ("delete", "update") if C.field_of(predicate, "negate") else ("insert", "update")
        if same and not any(op in e.ops for _, e in same for op in needed):
            index, entry = same[0]
            yield f"$.tasks[{number}].footprint[{index}].ops", needed[0], list(entry.ops)


def check_goal_footprint(site: Site) -> list[C.Issue]:
    """F011: a goal that needs a row changed that the task's footprint forbids it to write (see
    :func:`goal_keys_outside`): no episode can succeed without breaking the footprint."""
    issues = []
    for number, task in enumerate(site.tasks):
        for location, op, allowed in goal_ops_outside(task, number):
            issues.append(C.Issue("feasibility", C.GOAL_OUTSIDE_FOOTPRINT, location,
                                  f"task {task.id!r}'s goal needs its rows {'removed' if op == 'delete' else 'made'}, "
                                  f"but the footprint entry for those very rows allows only {' and '.join(allowed)}: "
                                  f"no episode can succeed without breaking it; it should allow {op}"))
        for location, key, allowed in goal_keys_outside(site, task, number):
            issues.append(C.Issue("feasibility", C.GOAL_OUTSIDE_FOOTPRINT, location,
                                  f"task {task.id!r} needs row {key!r} changed, but its footprint lets it write "
                                  f"only row {allowed!r} of that table"))
    return issues


def check_strict_bounds(site: Site) -> list[C.Issue]:
    """M016: a bound the instruction includes ("one stop or none") that the goal or answer excludes
    (``stops < 1``): the judge leaves out the edge the instruction lets in."""
    issues = []
    for number, task in enumerate(site.tasks):
        if task.kind == "infeasible":
            continue
        for location, wrong, right in strict_bounds(task, number):
            issues.append(C.Issue("semantic", SLOT_CONTRADICTS_GOAL, location,
                                  f"task {task.id!r} says {task.instruction!r}, a bound it includes, but its judge "
                                  f"compares with {wrong} (not {right})"))
        for location, wrong, right in inclusive_bounds(task, number):
            issues.append(C.Issue("semantic", SLOT_CONTRADICTS_GOAL, location,
                                  f"task {task.id!r} says {task.instruction!r}, a bound it excludes, but its judge "
                                  f"compares with {wrong} (not {right})"))
    return issues


def check_unfiltered_slots(site: Site) -> list[C.Issue]:
    """M016: a count, sum or list whose instruction names a value its answer never filters on (see
    :func:`unfiltered_slots`): the answer counts what the instruction leaves out."""
    issues = []
    for number, task in enumerate(site.tasks):
        for slot, column, _, path in unfiltered_slots(site, task):
            said = f"{slot} {task.slots[slot]!r}" if slot in task.slots else repr(slot)
            issues.append(C.Issue("semantic", SLOT_CONTRADICTS_GOAL, f"$.tasks[{number}].{path}.where",
                                  f"task {task.id!r} names {said}, but its answer never filters on {column}: it "
                                  f"counts rows of every {column}"))
    return issues


# ----------------------------------------------------------------------------- C012


def _bindings(site: Site) -> list[dict[str, Any]]:
    """One binding of ``user_id`` per account (a single empty one when the site has none)."""
    table = site.database.table(site.auth.table) if site.auth is not None else None
    if table is None or site.auth is None:
        return [{}]
    column = site.auth.id_column
    rows = [row.get(column) for row in table.rows if row.get(column) is not None]
    return [{"user_id": value} for value in rows] or [{}]


def _offending_rows(site: Site, db: Any, sql: str, bind: dict[str, Any]) -> list[str]:
    """JSON paths of the seed rows an ``SELECT NOT EXISTS (SELECT 1 FROM T WHERE cond)`` invariant
    finds (empty when the invariant has another shape)."""
    match = ROW_INVARIANT.match(sql)
    if match is None or _GROUPING.search(match.group(2)):
        return []
    name, condition = match.groups()
    table = site.database.table(name)
    if table is None:
        return []
    key = table.primary_key
    try:
        found = {row[0] for row in db.guard.read(f'SELECT "{key}" FROM "{name}" WHERE {condition}', bind)}
    except VeriwebError:  # the invariant's own SQL ran; its WHERE alone may not
        return []
    index = next(i for i, t in enumerate(site.database.tables) if t.name == name)
    return [f"$.database.tables[{index}].rows[{r}]" for r, row in enumerate(table.rows) if row.get(key) in found]


def check_seed_invariants(site: Site) -> list[C.Issue]:
    """C012: seed rows that break a marker's invariant about single rows.

    Only invariants of the shape ``SELECT NOT EXISTS (SELECT 1 FROM T WHERE cond)`` that read no
    form parameter (``:user_id`` is bound to every account in turn): the issue then points at
    the rows ``cond`` finds. Rules about groups of rows (unique titles per forum) are left to the
    duplicate checks, which say which rows clash."""
    candidates = []
    for m_index, marker in enumerate(site.markers):
        params = {p.name for p in marker.params}
        for i_index, check in enumerate(marker.invariants):
            predicate = check.predicate
            if not isinstance(predicate, SqlPredicate) or predicate.params:
                continue
            used = set(_SQL_PARAM.findall(predicate.sql))
            if used - {"user_id", "today"} or used & params:
                continue
            shape = ROW_INVARIANT.match(predicate.sql)
            if shape is None or _GROUPING.search(shape.group(2)):
                continue  # only rules about single rows: a group rule (unique titles) is C002's and M008's
            candidates.append((m_index, i_index, marker, predicate, check.message))
    if not candidates:
        return []
    from veriweb.engine.session import Session

    session = Session(site)
    try:
        return _broken_invariants(site, session.db, candidates)
    finally:
        session.close()


def _broken_invariants(site: Site, db: Any, candidates: list[tuple[int, int, Any, SqlPredicate, str]]
                       ) -> list[C.Issue]:
    """C012 issues for the candidate invariants that a binding of the seed data breaks."""
    today = site.clock.today.isoformat()
    users = _bindings(site)
    issues = []
    for m_index, i_index, marker, predicate, message in candidates:
        needs_user = "user_id" in _SQL_PARAM.findall(predicate.sql)
        for bind in (users if needs_user else [{}]):
            bind = {**bind, "today": today}
            try:
                rows = db.guard.read(predicate.sql, bind)
            except VeriwebError:  # SQL that does not run is S005/S006's business
                break
            if rows and rows[0] and rows[0][0]:
                continue
            where = f"$.markers[{m_index}].invariants[{i_index}]"
            offending = _offending_rows(site, db, predicate.sql, bind)
            who = f" for user {bind['user_id']!r}" if "user_id" in bind and needs_user else ""
            for location in offending or [where]:
                issues.append(C.Issue("consistency", SEED_BREAKS_INVARIANT, location,
                                      f"the seed data already breaks marker {marker.name!r}'s invariant{who} "
                                      f"({predicate.sql.strip()[:120]!r}; its message: {message!r}): every use of "
                                      f"the marker will fail"))
            break
    return issues


_ISO_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _as_day(value: Any, today: Any) -> str | None:
    """The ISO day a slot value names ("2026-06-16", "16 June", "June 16"), or ``None``."""
    from veriweb.engine.answers import parse_date

    if not isinstance(value, str) or not re.search(r"\d", value) or len(value) > 24:
        return None
    day = parse_date(value, today)
    return day.isoformat() if day is not None else None


_DAY_FORMATS: tuple[Callable[[Any], str], ...] = (
    lambda d: d.isoformat(),
    lambda d: f"{d.day} {d:%B}", lambda d: f"{d:%B} {d.day}",
    lambda d: f"{d:%B} {d.day}, {d.year}", lambda d: f"{d.day} {d:%B} {d.year}", lambda d: f"{d:%B} {d.day} {d.year}",
    lambda d: f"{d:%b} {d.day}", lambda d: f"{d.day} {d:%b}", lambda d: f"{d:%b} {d.day}, {d.year}",
    lambda d: f"{d.day} {d:%b} {d.year}",
    lambda d: f"{d:%A}, {d:%B} {d.day}", lambda d: f"{d:%A}, {d:%B} {d.day}, {d.year}",
    lambda d: f"{d:%A} {d.day} {d:%B}", lambda d: f"{d:%a}, {d:%b} {d.day}", lambda d: f"{d:%a} {d.day} {d:%b}",
    lambda d: f"{d:%B} {d.day}{_ordinal(d.day)}", lambda d: f"{d.day}{_ordinal(d.day)} {d:%B}",
    lambda d: f"{d.month:02d}/{d.day:02d}/{d.year}", lambda d: f"{d.month}/{d.day}/{d.year}",
    lambda d: f"{d.day:02d}/{d.month:02d}/{d.year}", lambda d: f"{d.day}.{d.month}.{d.year}",
)
"""Ways a slot writes a day, tried in turn against the slot's own value (:func:`written_like`)."""


def _ordinal(day: int) -> str:
    return "th" if 10 <= day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")


def written_like(day: str, example: str, today: Any = None) -> str:
    """``day`` (ISO) written the way ``example`` writes a day ("2026-06-16", "16 June", "June 16",
    "December 8, 2025", "Tuesday, June 16", ...): the first of :data:`_DAY_FORMATS` that writes the
    day ``example`` names exactly as ``example`` does.

    Raises:
        ValueError: ``example`` names no day, or writes it some other way.
    """
    import datetime as dt

    from veriweb.engine.answers import parse_date

    date = dt.date.fromisoformat(day)
    named = parse_date(example, today or date)
    text = " ".join(example.split())
    for form in _DAY_FORMATS:
        if named is not None and form(named) == text:
            return form(date)
    raise ValueError(f"no known way of writing a day like {example!r}")


def check_stated_days(site: Site) -> list[C.Issue]:
    """M016: the instruction states one day (a date slot of its template) and the goal reads another
    date slot, not stated, holding a different day: the judge checks a day the agent is never told."""
    issues = []
    today = site.clock.today
    for number, task in enumerate(site.tasks):
        stated = set(re.findall(r"(?<!\{)\{(\w+)\}", task.template))
        leaves = list(_task_predicates(task, number))
        read = {n for n in task.slots if any(_reads_slot(p, n) for p, _ in leaves)}
        hidden = [n for n, v in task.slots.items() if n in read and n not in stated
                  and isinstance(v, str) and _ISO_DAY.match(v)]
        if len(hidden) != 1:
            continue
        goal_day = task.slots[hidden[0]]
        told = {n: day for n, v in task.slots.items() if n in stated and n not in read
                and (day := _as_day(v, today)) is not None}
        if not told or goal_day in told.values():
            continue  # the goal's day is stated (a round trip states two days: one of them is it)
        if len(told) == 1:
            name = next(iter(told))
            issues.append(C.Issue("semantic", SLOT_CONTRADICTS_GOAL, f"$.tasks[{number}].slots.{name}",
                                  f"task {task.id!r} states {name} {task.slots[name]!r}, but its goal reads "
                                  f"{hidden[0]} = {goal_day!r}, a day the instruction never states"))
    return issues


def _implied(site: Site, value: str, told: set[str]) -> bool:
    """Whether a seed row holding ``value`` is one the stated values already pick out: the row holds a
    stated value too (the airline of the flight at the stated time), or a row holding one points at it
    (the project of the stated ticket). A row that points at a stated one (a tag of the stated project)
    is not: the project has many tags."""
    wanted = value.strip().lower()
    holders: list[tuple[Any, dict[str, Any]]] = []
    for table in site.database.tables:
        for row in table.rows:
            if any(isinstance(v, str) and v.strip().lower() == wanted for v in row.values()):
                holders.append((table, row))
    if not holders:
        return False
    def said(row: dict[str, Any]) -> bool:
        return any(isinstance(v, str) and v.strip().lower() in told for v in row.values())

    for table, row in holders:
        if said(row):
            return True
        key = row.get(table.primary_key)
        for other in site.database.tables:
            for fk in other.foreign_keys:
                if fk.ref_table == table.name and any(r.get(fk.column) == key and said(r) for r in other.rows):
                    return True
    return False


def check_progress_beyond_goal(site: Site) -> list[C.Issue]:
    """M016: a progress step reads a slot the instruction states that no goal predicate (nor answer,
    nor constraint) reads: "put A, B and C in your cart" whose goal checks only A and B, while
    progress still counts C. The goal passes without what the step asks for. The repair adds the
    step's predicate to the goal."""
    issues = []
    for number, task in enumerate(site.tasks):
        goal = [json.dumps(p.model_dump(mode="json"), sort_keys=True) for p in task.goal]
        if task.kind == "retrieve" or not task.goal or len(set(goal)) < len(goal):
            continue  # a goal repeated where the instruction names another slot: check_twin_goals
        judged = json.dumps([p.model_dump(mode="json") for p in task.goal]
                            + [c.model_dump(mode="json") for c in task.constraints]
                            + ([task.answer.model_dump(mode="json")] if task.answer is not None else []))
        stated = set(re.findall(r"(?<!\{)\{(\w+)\}", task.template))
        for s_index, step in enumerate(task.progress):
            text = json.dumps(step.predicate.model_dump(mode="json"))
            missing = sorted(n for n in stated if f'"slot.{n}"' in text and f'"slot.{n}"' not in judged)
            if missing:
                issues.append(C.Issue("semantic", SLOT_CONTRADICTS_GOAL, f"$.tasks[{number}].progress[{s_index}]",
                                      f"task {task.id!r}: progress step {step.description!r} reads "
                                      f"{', '.join(missing)}, which the instruction states and no goal predicate "
                                      "reads: the goal passes without it; the step belongs in the goal"))
    return issues


def check_unstated_goal_slots(site: Site) -> list[C.Issue]:
    """M016: a slot the goal reads that the template never states, whose value neither the instruction
    nor the stated slots say, nor a seed row they pick out holds (:func:`_implied`): "create a ticket
    ... assignee Yara Rossi" judged on the tag ``backend`` it never mentions. The agent cannot know
    what is judged. The repair states the slot in the template."""
    issues = []
    today = site.clock.today
    for number, task in enumerate(site.tasks):
        if task.kind == "retrieve":
            continue  # what it asks for is the answer, not to be stated
        stated = set(re.findall(r"(?<!\{)\{(\w+)\}", task.template))
        leaves = list(_task_predicates(task, number))
        hidden = [n for n, v in task.slots.items() if n not in stated and isinstance(v, str) and v.strip()
                  and any(_reads_slot(p, n) for p, _ in leaves)]
        if not hidden:
            continue
        told = {str(task.slots[n]).strip().lower() for n in stated if n in task.slots}
        days = {_as_day(task.slots[n], today) for n in stated if isinstance(task.slots.get(n), str)} - {None}
        text = task.instruction.lower()
        for name in hidden:
            value = task.slots[name]
            if _as_day(value, today) is not None or _ISO_MONTH.match(value.strip()):
                continue  # a day or month the instruction states otherwise: check_stated_days and _months
            if value.lower() in text or _implied(site, value, told | days):
                continue
            issues.append(C.Issue("semantic", SLOT_CONTRADICTS_GOAL, f"$.tasks[{number}].template",
                                  f"task {task.id!r}: its goal reads {name} = {value!r}, which the instruction "
                                  f"never states"))
    return issues


_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


_ISO_MONTH = re.compile(r"^(\d{4})-(\d{2})(?:-\d{2})?$")


def _calendar_words(text: str) -> dict[str, set[str]]:
    """The month and weekday names ``text`` says, by kind, and the year it says ("September 2025");
    an ISO month or day ("2025-10", "2025-10-04") says its month's name and its year."""
    iso = _ISO_MONTH.match(text.strip())
    if iso is not None and 1 <= int(iso.group(2)) <= 12:
        return {"month": {_MONTHS[int(iso.group(2)) - 1]}, "year": {iso.group(1)}}
    words = set(re.findall(r"[a-z]+", text.lower()))
    out = {kind: words & set(names) for kind, names in (("month", _MONTHS), ("weekday", _WEEKDAYS))
           if words & set(names)}
    years = set(re.findall(r"\b(?:19|20)\d\d\b", text))
    if out and years:
        out["year"] = years
    return out


def check_stated_months(site: Site) -> list[C.Issue]:
    """M016: the instruction states a month or weekday (a slot of its template: "the May bill"), and a
    slot the goal reads but the instruction does not state names another one and not that one (the
    bill "for June 2026"): the judge wants a record the agent is never asked for."""
    issues = []
    for number, task in enumerate(site.tasks):
        stated = set(re.findall(r"(?<!\{)\{(\w+)\}", task.template))
        judged = task.model_dump_json(include={"goal", "answer", "constraints", "progress"})  # what reads slots
        for name, value in task.slots.items():
            if name not in stated or not isinstance(value, str):
                continue
            told = _calendar_words(value)
            if not told or len(value.split()) > 3 or _ISO_MONTH.match(value.strip()):
                continue
            for other, hidden in task.slots.items():
                if other in stated or not isinstance(hidden, str) or f'"slot.{other}"' not in judged:
                    continue
                said = _calendar_words(hidden)
                clash = [kind for kind in told if said.get(kind) and not said[kind] & told[kind]]
                if clash:
                    kind = clash[0]
                    issues.append(C.Issue("semantic", SLOT_CONTRADICTS_GOAL, f"$.tasks[{number}].slots.{name}",
                                          f"task {task.id!r} states {name} {value!r}, but its goal reads {other} "
                                          f"{hidden!r}, which names {', '.join(sorted(said[kind]))} and not "
                                          f"{', '.join(sorted(told[kind]))}"))
                    break
    return issues


def _near_miss(template: str, value: str) -> str | None:
    """The words of ``template`` that spell ``value`` (three words or more) but for one word ("Just got my
    first potting shed" for "... potting bench"), or ``None``."""
    want = value.split()
    spans = list(re.finditer(r"\S+", template))
    for start in range(len(spans) - len(want) + 1):
        window = spans[start:start + len(want)]
        words = [m.group(0).strip(".,;:!?'\"").lower() for m in window]
        differ = sum(a != b.lower() for a, b in zip(words, want))
        if differ == 1 and words[0] == want[0].lower() and "{" not in template[window[0].start():window[-1].end()]:
            return template[window[0].start():window[-1].end()].strip(".,;:!?'\"")
    return None


def check_literal_names(site: Site) -> list[C.Issue]:
    """M016: a template that writes out another record's name where its slot belongs ("comment on
    'Document the notification service'" while the slot ``title``, which the goal reads, names
    another issue), or a near miss of the slot's own value (one word off): the instruction sends the
    agent to the wrong record."""
    issues = []
    for number, task in enumerate(site.tasks):
        stated = set(re.findall(r"(?<!\{)\{(\w+)\}", task.template))
        folded = task.template.lower()
        for name, value in task.slots.items():
            if name in stated or not isinstance(value, str) or len(value.split()) < 3:
                continue
            for table in site.database.tables:
                if not any(c.name == name for c in table.columns):
                    continue
                written = next((r[name] for r in table.rows if isinstance(r.get(name), str)
                                and len(r[name].split()) >= 3 and r[name].lower() != value.lower()
                                and r[name].lower() in folded), None)
                if written is not None:
                    issues.append(C.Issue("semantic", SLOT_CONTRADICTS_GOAL, f"$.tasks[{number}].template",
                                          f"task {task.id!r} writes out {table.name} {name} {written!r} where its "
                                          f"slot {name} ({value!r}) belongs: the instruction names another record"))
                    break
            else:
                near = _near_miss(task.template, value)
                if near is not None:
                    issues.append(C.Issue("semantic", SLOT_CONTRADICTS_GOAL, f"$.tasks[{number}].template",
                                          f"task {task.id!r} writes out {near!r} where its slot {name} ({value!r}) "
                                          f"belongs, one word off it: the instruction names another record"))
        issues += _literal_figures(task, number, stated)
    return issues


_FIGURE_SHAPES = (re.compile(r"\d{1,2}:\d{2}"), re.compile(r"\d+"))
"""Shapes of a figure a template may write out in a slot's place: a time of day, a whole number."""


def _literal_figures(task: Any, number: int, stated: set[str]) -> list[C.Issue]:
    """M016: a slot the judge reads that the template never states, while the template writes out one
    other figure of the same shape ("I need 2 of" where ``qty`` is 3; "the 13:50 flight" where
    ``time`` is 13:15): the instruction asks for another quantity, or another record."""
    judged = None
    issues = []
    for name, value in task.slots.items():
        text = str(value).strip()
        shape = next((s for s in _FIGURE_SHAPES if s.fullmatch(text)), None)
        if name in stated or isinstance(value, bool) or shape is None or re.search(
                rf"(?<![\w.:$]){re.escape(text)}(?![\w:])", task.instruction):
            continue
        if judged is None:
            judged = task.model_dump_json(exclude={"template", "instruction", "slots", "certificate"})
        if f'"slot.{name}"' not in judged:
            continue
        literal = re.sub(r"(?<!\{)\{\w+\}", " ", task.template)
        written = [m.group(0) for m in re.finditer(rf"(?<![\w.:$]){shape.pattern}(?![\w.:%])", literal)]
        if len(written) == 1 and written[0] != text and task.template.count(written[0]) == 1:
            issues.append(C.Issue("semantic", SLOT_CONTRADICTS_GOAL, f"$.tasks[{number}].template",
                                  f"task {task.id!r} writes out {written[0]!r} where its slot {name} ({text!r}) "
                                  f"belongs: the instruction asks for another figure than its judge reads"))
    return issues


def check_task_literals(site: Site) -> list[C.Issue]:
    """M016: a task's goal, progress, constraint or answer compares a status-like column with a value no
    row holds and no marker writes, spelt like one the data has (``status = 'completed'`` where orders
    say ``'complete'``): SQLite compares exactly, so the test never matches, and the answer is always
    "none" or the goal never holds, whatever the instruction asks. The repair spells it as the data does."""
    from veriweb.verify.checks_guards import _domains, near_value

    domains = _domains(site)
    issues = []
    for number, task in enumerate(site.tasks):
        for query, path in _queries_with(task, f"$.tasks[{number}]", "where"):
            for index, cond in enumerate(query.where):
                domain = domains.get((query.table, cond.column))
                values = cond.value if isinstance(cond.value, list) else [cond.value]
                if domain is None or cond.op not in ("=", "!=", "in", "not in"):
                    continue
                written = set(domain.values())
                for value in values:
                    if not isinstance(value, str) or value in written:
                        continue
                    near = near_value(value, written)
                    if near is not None:
                        where = f"{path}.where[{index}].value"
                        issues.append(C.Issue(
                            "semantic", SLOT_CONTRADICTS_GOAL, where,
                            f"task {task.id!r} compares {query.table}.{cond.column} with {value!r}, a value no row "
                            f"holds or gets, spelt like {near!r}: the test never matches"))
    return issues


_LATER = {"in": "out", "start": "end", "begin": "end", "from": "to", "out": "back", "outbound": "return",
          "depart": "return", "departure": "return", "first": "last", "open": "close", "arrive": "leave"}
"""Pairs of words a slot's name may hold for the first and the second of two dates in order."""
_AFTER_WORDS = ("return", "back", "end", "until")
"""Words that make a slot the later of two when the other slot's name is the same without them
(``day`` and ``return_day``)."""


def _later_of(first: str, second: str) -> bool:
    """Whether slot ``second`` names the date that comes after slot ``first`` (``in_day``/``out_day``,
    ``day``/``return_day``, ``check_in``/``check_out``)."""
    a, b = first.lower().split("_"), second.lower().split("_")
    if len(a) == len(b):
        diff = [(x, y) for x, y in zip(a, b) if x != y]
        return len(diff) == 1 and _LATER.get(diff[0][0]) == diff[0][1]
    return len(b) == len(a) + 1 and b[0] in _AFTER_WORDS and b[1:] == a


def check_slot_dates_order(site: Site) -> list[C.Issue]:
    """M016: two date slots whose names put them in order (check-in and check-out, a day out and a return
    day) holding dates the other way round: a return flight before the outbound one, a stay that ends
    before it begins. No traveller asks for that; the instruction was written with one of them wrong."""
    import datetime as dt

    issues = []
    for number, task in enumerate(site.tasks):
        days = {}
        for name, value in task.slots.items():
            if isinstance(value, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
                try:
                    days[name] = dt.date.fromisoformat(value)
                except ValueError:
                    continue
        for first, second in itertools.permutations(days, 2):
            if _later_of(first, second) and days[second] < days[first]:
                issues.append(C.Issue("semantic", SLOT_CONTRADICTS_GOAL, f"$.tasks[{number}].slots.{second}",
                                      f"task {task.id!r} puts {second} ({task.slots[second]}) before {first} "
                                      f"({task.slots[first]}): the dates the instruction names are out of order"))
    return issues


def check_flag_words(site: Site) -> list[C.Issue]:
    """M016: a task's answer or goal tests a yes/no column against the value its instruction's words deny
    ("How many messages have I not read yet?" counted over ``read = true``): the judge wants the other
    half of the rows. The repair turns the test round."""
    issues = []
    for number, task in enumerate(site.tasks):
        parts = [("answer", task.answer)] if task.answer is not None else []
        parts += [(f"goal[{i}]", p) for i, p in enumerate(task.goal)]
        for name, part in parts:
            for query, path in _queries_with(part, f"$.tasks[{number}].{name}", "where"):
                for index, cond in enumerate(query.where):
                    if cond.op != "=" or not isinstance(cond.value, bool):
                        continue
                    said = flag_words(task.instruction, cond.column)
                    if said is not None and said != cond.value:
                        issues.append(C.Issue(
                            "semantic", SLOT_CONTRADICTS_GOAL, f"{path}.where[{index}].value",
                            f"task {task.id!r} says {'not ' if not said else ''}{cond.column} but reads "
                            f"{cond.column} = {cond.value}, the opposite of its words"))
    return issues


# ----------------------------------------------------------------------------- M017

_AGG_WORDS: dict[str, tuple[str, ...]] = {
    "sum": ("total", "altogether", "in all", "combined", "come to", "add up", "adds up", "sum", "overall"),
    "max": ("largest", "biggest", "highest", "most expensive", "maximum", "greatest", "longest", "top"),
    "min": ("smallest", "lowest", "cheapest", "least expensive", "minimum", "shortest", "fewest"),
    "avg": ("average", "mean", "on average", "typical"),
    "count": ("how many", "number of", "count"),
}
"""Words an instruction asks for each aggregate with."""


def _asked_aggs(text: str) -> set[str]:
    folded = " ".join(re.findall(r"[a-z]+", text.lower()))
    return {agg for agg, words in _AGG_WORDS.items() if any(re.search(rf"\b{w}\b", folded) for w in words)}


def _told(template: str) -> str:
    """A template's own words, its slots left out (a slot's value is a name, not what is asked)."""
    return re.sub(r"\{\w+\}", " ", template)


_COLUMN_SYNONYMS = {"email": {"address"}, "phone": {"telephone"}}
"""Words an instruction may ask for a column by other than its own (an email "address")."""


def _column_words(column: str) -> set[str]:
    words = {w for w in column.lower().split("_") if len(w) >= 4 and w not in ("name", "text")}
    return words | {s for w in column.lower().split("_") for s in _COLUMN_SYNONYMS.get(w, ())}


def _says(words: set[str], told: set[str]) -> bool:
    """Whether the instruction's words name one of a column's (the same word, or one sharing its first
    five letters: "assigned" for ``assignee``)."""
    return any(w == t or (len(w) >= 5 and len(t) >= 5 and w[:5] == t[:5]) for w in words for t in told)


def answer_asks_other(site: Site, task: Any) -> tuple[str, str, str] | None:
    """Why ``task``'s answer reads another figure than its instruction asks for, and the fix: ``("agg",
    wrong, right)`` (it asks for the total, the answer takes the largest) or ``("select", wrong,
    right)`` (it asks who is assigned, the answer reads the author); ``None`` when they agree."""
    from veriweb.verify.checks_pages import money_columns, source_columns

    answer = task.answer
    listed = C.field_of(answer, "list_query") if answer is not None and answer.type == "list" else None
    if task.kind == "retrieve" and listed is not None and listed.select:
        return _listed_keys(site, task, listed)
    if task.kind != "retrieve" or answer is None or not isinstance(answer.value, QueryValue):
        return None
    query = answer.value.query
    told = _told(task.template)
    agg = C.field_of(query, "agg")
    if agg:
        asked = _asked_aggs(told)
        if agg not in asked and len(asked) == 1 and not {agg} | asked == {"count", "sum"}:  # "how many, together"
            return "agg", agg, next(iter(asked))
        if agg == "sum" and asked == {"count"} and re.search(r"\b(?:different|distinct|separate|unique)\b",
                                                             told.lower()):
            return "agg", agg, "count"  # "how many different items": the lines, not their quantities
        return None
    columns = source_columns(site, query.table)
    select = query.select
    if not columns or not select or select not in columns:
        return None
    money = money_columns(site, query.table)
    words = set(re.findall(r"[a-z]+", told.lower()))
    if answer.type == "currency" and select not in money:
        named = [c for c in sorted(money) if _says(_column_words(c), words)]
        fit = named if len(named) == 1 else sorted(money) if len(money) == 1 else []
        return ("select", select, fit[0]) if fit else ("select", select, "")
    if answer.type == "date" and not _says(_column_words(select), words) and select not in ("date", "day", "time"):
        # "when was it merged" read off created (a column named only "date" is the one any "when" asks)
        dated = [c for c in sorted(columns) if c != select and _sort_kind(site, query.table, c) == "date"
                 and _column_words(c) and _says(_column_words(c), words)]
        return ("select", select, dated[0]) if len(dated) == 1 else None
    if answer.type != "text" or _says(_column_words(select), words) or _text_type(site, query.table, select) != "text":
        return None
    named = [c for c in sorted(columns) if c != select and _column_words(c) and _says(_column_words(c), words)
             and (_text_type(site, query.table, c) == "text" or _text_type(site, query.table, c) is None
                  and c.lower().split("_")[-1] not in _NOT_TEXT)]  # computed: coalesce(u.name, 'Unassigned')
    if len(named) == 1 and _column_words(select):
        return "select", select, named[0]
    return None


def _listed_keys(site: Site, task: Any, listed: Any) -> tuple[str, str, str] | None:
    """``("list", key, column)`` when a list answer lists the rows' keys (``id``) while its instruction asks for
    something else that one column holds ("name her two titles": ``title``); ``None`` otherwise."""
    from veriweb.verify.checks_pages import source_columns

    table = site.database.table(listed.table)
    key = table.primary_key if table is not None else "id"
    if listed.select != key and not listed.select.endswith("_id"):
        return None
    words = set(re.findall(r"[a-z]+", _told(task.template).lower()))
    if words & {"id", "ids", "number", "numbers", "key", "keys"}:
        return None
    columns = source_columns(site, listed.table) or set()
    named = [c for c in sorted(columns) if c != listed.select and _column_words(c) and _says(_column_words(c), words)
             and _text_type(site, listed.table, c) == "text"]
    return ("list", listed.select, named[0]) if len(named) == 1 else None


_NOT_TEXT = frozenset({"id", "on", "at", "date", "day", "count", "total", "number", "shown", "due", "score", "amount"})
"""Last words of column names that hold no name or text (a computed ``posted_on`` is a day)."""


def _text_type(site: Site, source: str, column: str) -> str | None:
    """The type of the base table column a table or view column shows unchanged (``None``: computed)."""
    from veriweb.verify.checks_pages import base_column

    found = base_column(site, source, column)
    table = site.database.table(found[0]) if found is not None else None
    kind = table.column(found[1]) if table is not None and found is not None else None
    return kind.type if kind is not None else None


def check_answer_asks(site: Site) -> list[C.Issue]:
    """M017: a retrieve task whose answer takes another aggregate than its instruction asks for ("what
    the bills come to in total" answered with the largest bill), or reads another column ("who is
    assigned" answered with the author; a price asked for, a score read)."""
    issues = []
    for number, task in enumerate(site.tasks):
        found = answer_asks_other(site, task)
        if found is None:
            continue
        what, wrong, right = found
        if what == "list":
            issues.append(C.Issue("semantic", C.ANSWER_ASKS_OTHER, f"$.tasks[{number}].answer.list_query.select",
                                  f"task {task.id!r} asks for {right} ({task.instruction!r}), but its answer lists the "
                                  f"rows' {wrong}"))
        elif what == "agg":
            issues.append(C.Issue("semantic", C.ANSWER_ASKS_OTHER, f"$.tasks[{number}].answer.value.query.agg",
                                  f"task {task.id!r} asks for the {right} ({task.instruction!r}), but its answer "
                                  f"takes the {wrong}"))
        else:
            said = f"names {right}" if right else "asks for an amount of money"
            issues.append(C.Issue("semantic", C.ANSWER_ASKS_OTHER, f"$.tasks[{number}].answer.value.query.select",
                                  f"task {task.id!r} {said}, but its answer reads {wrong}"))
    return issues


# ----------------------------------------------------------------------------- M018

_PERIODS = r"(?! (?:\d|few|two|three|four|five|six|seven|month|week|year|day|night|time|quarter|hour))"
_FIRST, _LAST = rf"(?<=the )first{_PERIODS}", rf"(?<=the )last{_PERIODS}"
"""Order words that are no period ("the last flight", not "the last month")."""

_DIRECTION_WORDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "money": (("cheapest", "least expensive", "lowest fare", "lowest price", "costs the least", "lowest"),
              ("most expensive", "priciest", "dearest", "highest price", "highest fare", "costs the most")),
    "date": (("oldest", "earliest", "waiting longest", "waited longest", "longest waiting", _FIRST),
             ("latest", "newest", "most recent", "youngest", _LAST)),
    "amount": (("fewest", "least", "lowest", "smallest", "worst", "bottom"),
               ("most", "highest", "largest", "biggest", "greatest", "top", "best", "top scoring", "highest rated")),
}
"""For each kind of sort column, the words that ask for its first row in ascending and in descending order."""
_DATE_COLUMN = re.compile(r"(?:^|_)(?:date|day|created|updated|sent|posted|opened|closed|booked|at|on|time|when|depart|"
                          r"departs|departure|arrive|arrives|arrival)$")
_MONEY_COLUMN = re.compile(r"(?:^|_)(?:price|fare|cost|total|amount|fee|balance|revenue|spent)$")


def _sort_kind(site: Site, table: str, column: str) -> str:
    kind = _text_type(site, table, column)
    if kind in ("date", "datetime") or _DATE_COLUMN.search(column):
        return "date"
    if kind == "money" or _MONEY_COLUMN.search(column):
        return "money"
    return "amount"


def _asked_words(task: Any) -> str:
    """A task's own words (its template) with the slots whose value is itself a word of order
    ("{what}" = "most expensive") filled in; other slot values (names) left out."""
    every = {w for pair in _DIRECTION_WORDS.values() for side in pair for w in side}
    def fill(found: re.Match[str]) -> str:
        value = str((task.slots or {}).get(found.group(1), "")).lower().strip()
        return value if value in every else " "
    told = re.sub(r"\{(\w+)\}", fill, task.template).lower().replace("-", " ")
    return re.sub(r"\bat (?:least|most)\b", " ", told)  # "at least 4 stars" asks for no end of any list


def _queries_with(value: Any, path: str, part: str) -> Iterator[tuple[Any, str]]:
    """Every query under ``value`` (a task's model) whose ``part`` (``order_by``, ``where``) is not
    empty, with its path."""
    if isinstance(value, BaseModel):
        if C.field_of(value, part) and isinstance(C.field_of(value, "table"), str):
            yield value, path
        for name in type(value).model_fields:
            yield from _queries_with(getattr(value, name), f"{path}.{name}", part)
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            yield from _queries_with(item, f"{path}[{index}]", part)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _queries_with(item, f"{path}.{key}", part)


def _picked_queries(value: Any, path: str) -> Iterator[tuple[Any, str]]:
    """Every query under ``value`` that sorts its rows, with its path."""
    return _queries_with(value, path, "order_by")


_SORT_SYNONYMS = {"score": ("points", "upvotes", "upvoted", "votes", "top", "best"), "price": ("fare", "costs"),
                  "rating": ("rated",)}
"""Words an instruction names a sort column by other than the column's own name ("the most points")."""


def _named_sort(site: Site, query: Any, told: str) -> str | None:
    """The number column an instruction's "the most points" (an extreme word before a column's name or
    one of :data:`_SORT_SYNONYMS`) names, when the query never sorts by it (it sorts by ``hot``)."""
    from veriweb.verify.checks_pages import source_columns

    sorted_by = {o.column for o in query.order_by}
    for column in sorted(source_columns(site, query.table) or ()):
        if column in sorted_by or _text_type(site, query.table, column) not in ("integer", "money", "real") \
                or column in ("id", "number", "position") or column.endswith("_id"):
            continue  # a key or a running number orders nothing an instruction asks for
        names = (column.replace("_", " "),) + _SORT_SYNONYMS.get(column, ())
        if any(re.search(rf"\b(?:most|highest|fewest|lowest|largest|top|best)[ -]{re.escape(n)}\b(?! of\b)", told)
               or (" " not in n and len(n) >= 4 and re.search(  # "top-scoring": the column's word as a verb
                   rf"\b(?:most|highest|lowest|top|best)[ -]{re.escape(n.removesuffix('e'))}(?:ing|ed)\b", told))
               for n in names):
            return column
    return None


def _said(words: Any, told: str) -> list[str]:
    """The words (patterns) of ``words`` that ``told`` says, as it says them."""
    return [found.group(0) for w in words if (found := re.search(rf"\b{w}\b", told))]


def orders_against_words(site: Site, task: Any, number: int) -> Iterator[tuple[str, str, str, str]]:
    """Each query of ``task`` that picks the first row of an ordering running the other way from what
    its instruction asks ("the latest order" sorted by date ascending; "the cheapest airline" by
    price descending): its ``order_by`` path, the column, the direction it sorts in, and the words."""
    told = _asked_words(task)
    for query, path in _queries_with(task, f"$.tasks[{number}]", "agg"):  # "the highest total" read with min()
        agg = C.field_of(query, "agg")
        if agg not in ("min", "max"):
            continue
        said_min = _said([w for side, _ in _DIRECTION_WORDS.values() for w in side], told)
        said_max = _said([w for _, side in _DIRECTION_WORDS.values() for w in side], told)
        if agg == "min" and said_max and not said_min:
            yield f"{path}.agg", query.select, "min", said_max[0]
        elif agg == "max" and said_min and not said_max:
            yield f"{path}.agg", query.select, "max", said_min[0]
    for query, path in _picked_queries(task, f"$.tasks[{number}]"):
        if C.field_of(query, "agg"):
            continue
        first = query.order_by[0]
        named = _named_sort(site, query, told)
        if named is not None:
            yield f"{path}.order_by", first.column, "named", named
            continue
        kind = _sort_kind(site, query.table, first.column)
        up, down = _DIRECTION_WORDS[kind]
        said_up, said_down = _said(up, told), _said(down, told)
        if said_up and not said_down and first.dir == "desc":
            yield f"{path}.order_by", first.column, "desc", said_up[0]
        elif said_down and not said_up and first.dir == "asc":
            yield f"{path}.order_by", first.column, "asc", said_down[0]


_ORDER_WORDS = re.compile(r"\b(?:order|ordered|sorted|sort|rank|ranked|first|last|newest|oldest|latest|earliest|"
                          r"highest|lowest|cheapest|dearest|most|least|top|bottom|chronological|alphabetical|"
                          r"ascending|descending|in turn|one by one|followed by|then)\b", re.I)
"""Words of an instruction that ask for a list in some order."""


def check_unasked_order(site: Site) -> list[C.Issue]:
    """M018: a list answer judged in one exact order while its instruction asks for none ("What are the
    titles of the posts you wrote?" judged newest first): the right titles listed otherwise are judged
    wrong. The repair judges the list in any order."""
    issues = []
    for number, task in enumerate(site.tasks):
        answer = task.answer
        if answer is None or answer.order != "exact" or _ORDER_WORDS.search(_asked_words(task)):
            continue
        issues.append(C.Issue("semantic", C.ORDER_AGAINST_WORDS, f"$.tasks[{number}].answer.order",
                              f"task {task.id!r} judges its list answer in one exact order, but its instruction "
                              f"({task.instruction!r}) asks for no order: the right list in another order is "
                              f"judged wrong"))
    return issues


def check_loose_footprints(site: Site) -> list[C.Issue]:
    """F009: a task whose goal changes the rows its instruction names (``exists booking_view WHERE dest_city =
    :city AND status = 'cancelled'``) while its footprint lets it change every one of the user's rows of that
    table (``bookings`` updated WHERE ``user_id`` = the user, nothing more): cancelling every trip passes too.
    The repair drops the task."""
    from veriweb.verify.dataflow import view_tables

    issues = []
    for number, task in enumerate(site.tasks):
        named: set[str] = set()
        for goal in task.goal:
            if isinstance(goal, Exists) and not goal.negate and any(
                    isinstance(c.value, Ref) and c.value.namespace == "slot" for c in goal.query.where):
                named |= view_tables(site, goal.query.table)
        for index, part in enumerate(task.footprint or []):
            ops = set(C.field_of(part, "ops") or [])
            where = C.field_of(part, "where") or []
            if part.table not in named or not ops or ops - {"update"} or not where:
                continue
            if all(isinstance(c.value, Ref) and c.value.namespace == "user" for c in where):
                issues.append(C.Issue("feasibility", C.JUDGE_FOOLED, f"$.tasks[{number}].footprint[{index}]",
                                      f"task {task.id!r} names which {part.table} rows to change, but its footprint "
                                      f"lets it change every one of the user's {part.table} rows: changing the "
                                      f"others too still passes"))
    return issues


def check_order_words(site: Site) -> list[C.Issue]:
    """M018: a task that picks the first row of an ordering running the other way from its words (see
    :func:`orders_against_words`): the goal or the answer is the opposite end of the list."""
    issues = []
    for number, task in enumerate(site.tasks):
        for location, column, direction, said in orders_against_words(site, task, number):
            if direction in ("min", "max"):
                issues.append(C.Issue("semantic", C.ORDER_AGAINST_WORDS, location,
                                      f"task {task.id!r} asks for the {said} ({task.instruction!r}), but reads "
                                      f"{direction}({column}): the other end"))
                continue
            if direction == "named":
                issues.append(C.Issue("semantic", C.ORDER_AGAINST_WORDS, location,
                                      f"task {task.id!r} asks by {said} ({task.instruction!r}), but picks the first "
                                      f"row by {column}, never by {said}"))
                continue
            issues.append(C.Issue("semantic", C.ORDER_AGAINST_WORDS, location,
                                  f"task {task.id!r} asks for the {said} ({task.instruction!r}), but picks the first "
                                  f"row by {column} {'descending' if direction == 'desc' else 'ascending'}: "
                                  f"the other end"))
    return issues


_VALUE_WORD = re.compile(r"^[a-z][a-z-]{2,19}$")


def _value_domains(site: Site) -> dict[str, set[str]]:
    """For each column a form lets the user choose (a parameter of that name with choices), the few
    one-word values offered: ``shipping`` {standard, express}, ``state`` {open, closed}. (Values only
    stored, like a folder's ``kind``, are named on pages in other words: "Bin" for ``trash``.)"""
    domains: dict[str, set[str]] = {}
    for marker in site.markers:
        for param in marker.params:
            if param.choices:
                domains.setdefault(param.name, set()).update(str(c) for c in param.choices)
    return {name: values for name, values in domains.items()
            if 2 <= len(values) <= 8 and all(_VALUE_WORD.match(v) for v in values)}


def stated_values(site: Site, task: Any, number: int,
                  domains: dict[str, set[str]] | None = None) -> Iterator[tuple[str, str, str, str]]:
    """Fixed values a task's goal or answer compares with that its instruction does not say, while it says
    another value of the same column ("with express shipping" judged on ``shipping = 'standard'``):
    the path of the value, the column, the value read and the value said."""
    domains = _value_domains(site) if domains is None else domains
    told = _told(task.template).lower()
    words = {stem(w) for w in re.findall(r"[a-z]+", told)}
    for query, path in _queries_with(task, f"$.tasks[{number}]", "where"):
        if ".constraints" in path or ".footprint" in path:
            continue
        for index, cond in enumerate(query.where):
            value = cond.value
            domain = domains.get(cond.column)
            if not isinstance(value, str) or getattr(cond, "op", "=") not in ("=", "eq") or domain is None \
                    or value not in domain:
                continue
            if any(stem(value) in w for w in words) or re.search(rf"\b{re.escape(value)}\b", told):
                continue  # said, in some form ("reopen" says open)
            said = [v for v in sorted(domain) if v != value and re.search(rf"\b{re.escape(v)}\b", told)
                    and not re.search(rf"(?:\bnot|n't|\bno|\bnever|\bwithout|\bnor)\W+(?:\w+\W+){{0,2}}{re.escape(v)}\b",
                                      told)]  # "has not shipped yet" says no status
            if len(said) == 1:
                yield f"{path}.where[{index}].value", cond.column, value, said[0]


def slots_against_literals(site: Site, task: Any, number: int) -> Iterator[tuple[str, str, str, str]]:
    """Fixed values a task's goal or answer compares a column with, where the instruction states a slot
    whose value is another value that column holds ("the cheapest {colour} pants" with colour "black",
    judged on ``color = 'grey'``): the path of the value, the column, the value read and the slot's."""
    from veriweb.verify.checks_pages import base_column

    stated = {str(task.slots[s]).strip() for s in set(re.findall(r"\{(\w+)\}", task.template))
              if s in task.slots and s not in ("username", "password") and isinstance(task.slots[s], str)}
    if not stated:
        return
    for query, path in _queries_with(task, f"$.tasks[{number}]", "where"):
        if ".constraints" in path or ".footprint" in path:
            continue
        for index, cond in enumerate(query.where):
            value = cond.value
            if not isinstance(value, str) or getattr(cond, "op", "=") not in ("=", "eq") or value in stated:
                continue
            base = base_column(site, query.table, cond.column)
            table = site.database.table(base[0]) if base is not None else None
            if table is None or base is None:
                continue
            held = {str(r.get(base[1])).strip().lower() for r in table.rows if isinstance(r.get(base[1]), str)}
            said = [v for v in sorted(stated) if v.lower() in held and v.lower() != value.lower()]
            if value.lower() in held and len(said) == 1 and not any(
                    v.lower() == value.lower() for v in stated):
                yield f"{path}.where[{index}].value", cond.column, value, said[0]


def check_stated_values(site: Site) -> list[C.Issue]:
    """M016: a goal or answer fixed to one value of a column while the instruction says another (see
    :func:`stated_values` and :func:`slots_against_literals`)."""
    domains = _value_domains(site)
    issues = []
    for number, task in enumerate(site.tasks):
        found = list(stated_values(site, task, number, domains))
        seen = {f[0] for f in found}
        found += [f for f in slots_against_literals(site, task, number) if f[0] not in seen]
        for path, column, value, said in found:
            issues.append(C.Issue("semantic", SLOT_CONTRADICTS_GOAL, path,
                                  f"task {task.id!r} says {said!r} ({task.instruction!r}), but its judge reads "
                                  f"{column} = {value!r}: the instruction and the judge disagree"))
    return issues


def check_task_logins(site: Site) -> list[C.Issue]:
    """M016: an instruction that signs in as one account ("Log in as moreau98") while the task acts as
    another (its goal reads that user's rows), or gives a password the account does not have; F012: a
    task that starts signed out and leaves the credentials to its instruction, which names neither the
    account nor its password (no agent can sign in)."""
    auth = site.auth
    accounts = site.database.table(auth.table) if auth is not None else None
    if auth is None or accounts is None:
        return []
    logins = {str(r.get(auth.username_column)): r for r in accounts.rows}
    issues = []
    for number, task in enumerate(site.tasks):
        row = logins.get(str(task.user)) if task.user is not None else None
        if row is not None and not task.start_logged_in and task.credentials == "none" and re.search(
                r"\buser\.|:user_id\b", json.dumps([p.model_dump(mode="json") for p in [*task.goal, *task.progress,
                                                                                          *task.constraints]])):
            issues.append(C.Issue("feasibility", C.CREDENTIALS_UNSAID, f"$.tasks[{number}].start_logged_in",
                                  f"task {task.id!r} acts as {task.user!r}, whose rows its judge reads, but starts "
                                  f"signed out and gives the agent no credentials at all: no agent can sign in; it "
                                  f"should start signed in"))
            continue
        if row is None or task.credentials != "instruction":
            continue
        said = str(task.slots.get("username", "")).strip()
        if said and said != task.user and said in logins:
            issues.append(C.Issue("semantic", SLOT_CONTRADICTS_GOAL, f"$.tasks[{number}].user",
                                  f"task {task.id!r} tells the agent to log in as {said!r}, but it acts as "
                                  f"{task.user!r}, whose rows its judge reads: the instruction and the judge "
                                  f"disagree"))
            continue
        password = str(row.get(auth.password_column, ""))
        typed = str(task.slots.get("password", "")).strip()
        if typed and password and typed != password and typed in task.instruction:
            issues.append(C.Issue("semantic", SLOT_CONTRADICTS_GOAL, f"$.tasks[{number}].slots.password",
                                  f"task {task.id!r} gives the password {typed!r}, but {task.user!r} signs in with "
                                  f"another: the instruction's login fails"))
        elif task.user not in task.instruction or (password and password not in task.instruction):
            issues.append(C.Issue("feasibility", C.CREDENTIALS_UNSAID, f"$.tasks[{number}].template",
                                  f"task {task.id!r} starts signed out and leaves the credentials to its "
                                  f"instruction, which does not give {task.user!r}'s "
                                  f"{'account' if task.user not in task.instruction else 'password'}: "
                                  f"no agent can sign in"))
    return issues


def twin_goals(task: Any, number: int) -> Iterator[tuple[str, str, str]]:
    """A goal that repeats an earlier one word for word while a slot the instruction states is read by
    no goal ("join c/{first} and c/{second}" judged on ``slot.first`` twice): the second half of
    the instruction is never judged; and a progress step repeating an earlier one while a slot the goal
    judges is read by no step (progress reads 2 of 2 after one issue is tagged). The path of the
    repeat, the slot it reads and the one it should."""
    told = set(re.findall(r"(?<!\{)\{(\w+)\}", task.template)) - {"username", "password"}
    judged = json.dumps([g.model_dump(mode="json") for g in task.goal])  # what success is judged on
    unread = sorted(s for s in told if f'"slot.{s}"' not in judged)
    seen: list[str] = []
    for index, goal in enumerate(task.goal):
        text = json.dumps(goal.model_dump(mode="json"), sort_keys=True)
        read = sorted(set(re.findall(r'"slot\.(\w+)"', text)))
        if text in seen and len(unread) == 1 and len(read) == 1:
            yield f"$.tasks[{number}].goal[{index}]", read[0], unread[0]
        seen.append(text)
    # the same of the progress steps: a step repeating an earlier one counts one subgoal twice
    steps = [json.dumps(p.predicate.model_dump(mode="json"), sort_keys=True) for p in task.progress]
    counted = sorted(s for s in told if not any(f'"slot.{s}"' in t for t in steps))
    goals = {json.dumps(g.model_dump(mode="json"), sort_keys=True) for g in task.goal}
    for index, text in enumerate(steps):
        if text not in steps[:index] or len(counted) != 1:
            continue
        # the slot whose place the step should give the unread one: so that it reads what a goal reads
        read = sorted(r for r in set(re.findall(r'"slot\.(\w+)"', text))
                      if text.replace(f'"slot.{r}"', f'"slot.{counted[0]}"') in goals)
        if len(read) == 1:
            yield f"$.tasks[{number}].progress[{index}]", read[0], counted[0]


def check_twin_goals(site: Site) -> list[C.Issue]:
    """M016: see :func:`twin_goals`. The repair has the repeat read the slot no predicate reads."""
    issues = []
    for number, task in enumerate(site.tasks):
        for location, read, unread in twin_goals(task, number):
            step = ".progress[" in location
            issues.append(C.Issue("semantic", SLOT_CONTRADICTS_GOAL, location,
                                  f"task {task.id!r} repeats a {'progress' if step else 'goal'} on slot {read}, while "
                                  f"its instruction states {{{unread}}}, which "
                                  f"{'no progress step counts' if step else 'nothing judges'}: the repeat should read "
                                  f"{unread}"))
    return issues


def check_either_goals(site: Site) -> list[C.Issue]:
    """M016: a goal that holds when any one of its parts does (``any``), each part reading another slot,
    while the instruction asks for them all ("join r/cycling, r/photography and r/woodworking"): joining one
    passes. The repair demands every part."""
    issues = []
    for number, task in enumerate(site.tasks):
        for index, goal in enumerate(task.goal):
            items = C.field_of(goal, "items") if C.field_of(goal, "kind") == "any" else None
            if not items or len(items) < 2:
                continue
            read = [set(re.findall(r"slot\.(\w+)", json.dumps(item.model_dump(mode="json")))) for item in items]
            named = [next(iter(r)) for r in read if len(r) == 1]
            if len(named) != len(items) or len(set(named)) != len(named):
                continue
            values = [str(task.slots.get(n, "")) for n in named]
            text = task.instruction
            spots = [text.find(v) for v in values]
            if any(v == "" or at < 0 for v, at in zip(values, spots)):
                continue
            first, last = min(spots), max(spots)
            between = text[first:last + len(values[spots.index(last)])]
            if re.search(r"\band\b|&|\bboth\b|\ball\b", between) and not re.search(r"\bor\b|\beither\b|\bone of\b", text):
                issues.append(C.Issue("semantic", C.SLOT_CONTRADICTS_GOAL, f"$.tasks[{number}].goal[{index}]",
                                      f"task {task.id!r} asks for {' and '.join(values)}, but its goal holds when any one "
                                      f"of them does: it should demand all of them"))
    return issues


def check_walled_goals(site: Site) -> list[C.Issue]:
    """S016: a task with no account whose goal is a page that requires a login, while that page shows
    nothing of the signed-in user (no ``user.*`` anywhere on it): the goal can never hold, and the wall
    guards nothing. The repair opens the page to everyone."""
    issues, seen = [], set()
    pages = {p.id: (n, p) for n, p in enumerate(site.pages)}
    for task in site.tasks:
        if task.user or task.kind == "infeasible":
            continue
        for goal in task.goal:
            found = pages.get(C.field_of(goal, "page") or "") if C.field_of(goal, "kind") == "page" else None
            if found is None or not found[1].requires_login or found[0] in seen:
                continue
            number, page = found
            if "user." in json.dumps(page.model_dump(mode="json")):
                continue  # it shows the user's own: the wall is meant
            seen.add(number)
            issues.append(C.Issue("structural", C.START_NOWHERE, f"$.pages[{number}].requires_login",
                                  f"page {page.id!r} requires a login but shows nothing of the user, and task {task.id!r}, "
                                  f"which has no account, waits for it: it should be open to everyone"))
    return issues


_QUESTION = re.compile(r"(?:^|[.!:;]\s+|,\s*then\s+|\bthen\s+)(?:how many|how much|what|which|when|who|whose|where|is there|"
                       r"are there)\b[^.!?]*\?\s*$", re.I)


def check_unanswered_questions(site: Site) -> list[C.Issue]:
    """F004: a task whose instruction asks a question ("How many members does r/homelab have?") but that
    is not a retrieve task: no answer is judged, so any answer, or none, passes once its goal holds. The
    task is dropped (nothing says what the right answer is)."""
    return [C.Issue("feasibility", C.ANSWER_UNDEFINED, f"$.tasks[{index}].kind",
                    f"task {task.id!r} asks {task.instruction!r}, but is a {task.kind} task: no answer is judged, so "
                    f"any answer passes")
            for index, task in enumerate(site.tasks)
            if task.kind in ("navigate", "mutate")
            and _QUESTION.search(re.sub(r'"[^"]*"|\u201c[^\u201d]*\u201d', '"x"', task.instruction))]  # not a quoted title


def check_loose_text_goals(site: Site) -> list[C.Issue]:
    """M016: a judge that matches a text by its first words or a piece of it (``body startswith 'Still
    happening'``) where the task dictates the whole text in a slot ("Still happening on 2.4.1"): any
    text that opens alike passes, though the instruction says what to write. The repair compares with
    the slot."""
    issues = []
    for number, task in enumerate(site.tasks):
        slots = {k: v for k, v in task.slots.items() if isinstance(v, str) and v in task.instruction}
        for attr in ("goal", "progress"):
            for query, path in _queries_with(getattr(task, attr), f"$.tasks[{number}].{attr}", "where"):
                for index, cond in enumerate(query.where):
                    value = cond.value
                    if cond.op not in ("startswith", "contains") or not isinstance(value, str) or len(value) < 4:
                        continue
                    whole = sorted(k for k, v in slots.items() if len(v) > len(value) and (
                        v.startswith(value) if cond.op == "startswith" else value in v))
                    if len(whole) == 1:
                        issues.append(C.Issue("semantic", C.SLOT_CONTRADICTS_GOAL, f"{path}.where[{index}].value",
                                              f"task {task.id!r} is judged on {cond.column} {cond.op} {value!r}, a "
                                              f"piece of the text its instruction dictates ({slots[whole[0]]!r}): any "
                                              f"text holding that piece passes; it should equal slot.{whole[0]}"))
    return issues


def contradicted_difficulty(label: str, steps: int) -> bool:
    """Whether a task labelled ``label`` plainly cannot take ``steps`` steps: "easy" is at most 4 steps,
    "hard" at least 10 (:func:`veriweb.generate.plan.difficulty`); a task labelled "easy" that takes 10 or
    more, or "hard" that takes 4 or fewer, is mislabelled whatever the pages it visits. (A label one
    band off is left alone: a search's certificate may be a step or two shorter than the author's.)"""
    return (label == "easy" and steps >= 10) or (label == "hard" and steps <= 4)


def check_difficulty(site: Site) -> list[C.Issue]:
    """M019: a task's difficulty that its certificate's length contradicts (a 16-step task over three
    pages labelled "easy"): curricula and reports that group tasks by difficulty put it in the wrong
    group. The repair labels it from its certificate (its steps and the pages they visit)."""
    issues = []
    for number, task in enumerate(site.tasks):
        steps = len(task.certificate)
        if task.kind != "infeasible" and steps and contradicted_difficulty(task.difficulty, steps):
            issues.append(C.Issue("semantic", C.MISLABELLED_TASK, f"$.tasks[{number}].difficulty",
                                  f"task {task.id!r} is labelled {task.difficulty!r}, but its certificate takes "
                                  f"{steps} steps: it should be labelled by its length"))
    return issues


def check_prefilled_starts(site: Site) -> list[C.Issue]:
    """M016: a task that starts on an address already filled in with a day its slots do not name (a flight
    search for June 17 when the task asks about June 16): what the first page shows is another day's, and
    invites a confident wrong answer. The repair starts the task on the address without its values."""
    issues = []
    for number, task in enumerate(site.tasks):
        path, _, query = task.start_url.partition("?")
        days = set(re.findall(r"\b\d{4}-\d{2}-\d{2}\b", query))
        named = {str(v) for v in task.slots.values() if re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(v))}
        if days and named and days - named:
            issues.append(C.Issue("semantic", C.SLOT_CONTRADICTS_GOAL, f"$.tasks[{number}].start_url",
                                  f"task {task.id!r} starts at {task.start_url!r}, filled in with "
                                  f"{', '.join(sorted(days - named))}, a day it does not ask about "
                                  f"({', '.join(sorted(named))}): it should start at {path!r}"))
    return issues


_SORT_NAMED = re.compile(r"\bsort(?:ed|ing)?\b[^.'\"]*?\bby\s+(['\"])([^'\"]{2,40})\1", re.I)


def check_named_sorts(site: Site) -> list[C.Issue]:
    """M005: an instruction that says to sort by a named order ("sort the hotels by 'Best value'") that no
    list on the site offers: the agent looks for a control that is not there, and the nearest one it
    finds ("Best rated") picks another row. The task is dropped."""
    sorts = {s.label.strip().casefold() for e, _, _ in C.all_elements(site) for s in (C.field_of(e, "sorts") or [])}
    sorts |= {o.label.strip().casefold() for e, _, _ in C.all_elements(site) if e.type == "form"
              for f in e.fields if re.search(r"sort|order", f"{f.name} {f.label}", re.I)
              for o in (C.field_of(f, "options") or [])}
    issues = []
    for number, task in enumerate(site.tasks):
        for found in _SORT_NAMED.finditer(task.instruction):
            if found.group(2).strip().casefold() not in sorts:
                issues.append(C.Issue("semantic", C.MISSING_ENTITY, f"$.tasks[{number}].instruction",
                                      f"task {task.id!r} says to sort by {found.group(2)!r}, an order no list on the "
                                      f"site offers: the control it names is not there"))
    return issues


_TOLERANT = re.compile(r"\b(?:around|roughly|approximately|about|near|close to)\s+\$|\$[\d,.]+\s+or so\b|give or take|"
                       r"\b(?:a (?:little|bit)|slightly|somewhat)\s+(?:over|more|above)\b|over is (?:fine|ok|okay|all right)",
                       re.I)


def check_tolerant_budgets(site: Site) -> list[C.Issue]:
    """M016: an instruction that lets an amount be passed ("stay around $258.00; going a little over is fine")
    while a constraint fails every episode above it: an agent following the words is judged a failure.
    The task is dropped (which of the two was meant is not said)."""
    issues = []
    for number, task in enumerate(site.tasks):
        capped = [c for c in task.constraints if any(
            cond.op in (">", ">=") and isinstance(cond.value, (int, float)) and not isinstance(cond.value, bool)
            for query, _ in _queries_with(c, "", "where") for cond in query.where)]
        said = _TOLERANT.search(task.instruction)
        if capped and said is not None:
            issues.append(C.Issue("semantic", C.SLOT_CONTRADICTS_GOAL, f"$.tasks[{number}].instruction",
                                  f"task {task.id!r} says {said.group(0).strip()!r} of its budget, but its constraint "
                                  f"({capped[0].description!r}) fails any amount above it: the words let through what "
                                  f"the judge fails"))
    return issues


def unnamed_answers(site: Site) -> Iterator[tuple[int, str, list[str]]]:
    """Each text answer whose candidates (the names an answer must not mention) do not hold the answer
    itself, at the start: the candidates list other things (display names where the answer is a
    username), so a right answer that also gives its owner's name is judged wrong, and a wrong one is
    not caught. The task's index, the answer, and the candidates."""
    from veriweb.engine import Episode, Session
    from veriweb.engine.answers import _normalise
    from veriweb.engine.judge import Judge

    wanted = [(n, t) for n, t in enumerate(site.tasks) if t.kind == "retrieve" and t.answer is not None
              and t.answer.candidates is not None and t.answer.type == "text"]
    if not wanted:
        return
    try:
        session = Session(site)
    except Exception:  # noqa: BLE001 - a site the engine cannot load: other checks say why
        return
    try:
        for number, task in wanted:
            try:
                Episode(site, task, session=session, end_on_success=False).reset()
                judge = Judge(session, task)
                expected, candidates = judge.expected_answer(), judge.candidates()
            except VeriwebError:
                continue
            if isinstance(expected, str) and expected and candidates and \
                    _normalise(expected) not in {_normalise(c) for c in candidates}:
                yield number, expected, candidates
    finally:
        session.close()


def check_answer_candidates(site: Site) -> list[C.Issue]:
    """M017: see :func:`unnamed_answers`. The repair lists the candidates by the column of their table that
    holds the answer."""
    return [C.Issue("semantic", C.ANSWER_ASKS_OTHER, f"$.tasks[{number}].answer.candidates.select",
                    f"task {site.tasks[number].id!r}'s answer is {expected!r}, but the names it must not mention "
                    f"({', '.join(map(repr, candidates[:3]))}, ...) are of another kind: the answer is not among "
                    f"them, so naming another one goes uncaught")
            for number, expected, candidates in unnamed_answers(site)]


def check_blank_profiles(site: Site) -> list[C.Issue]:
    """C003: a task whose user has no value in a column that a required field of a form it must send fills
    in from the signed-in user (an empty address for a checkout that fills the delivery address from the
    profile), while the task gives no such value: the form comes up blank, and it can be sent only by
    inventing one. The task is dropped."""
    from veriweb.scaffold.values import Ref

    auth = site.auth
    accounts = site.database.table(auth.table) if auth is not None else None
    if accounts is None:
        return []
    rows = {r.get(auth.username_column): r for r in accounts.rows}
    markers = {m.name: m for m in site.markers}
    needs: list[tuple[set[str], str, str]] = []  # (tables the form's marker writes, user column, field label)
    for element, _, _ in C.all_elements(site):
        if element.type != "form" or element.action.kind != "marker" or element.action.marker not in markers:
            continue
        written = {e.table for e in markers[element.action.marker].effects}
        for field_el in element.fields:
            value = C.field_of(field_el, "value")
            if field_el.required and isinstance(value, Ref) and value.namespace == "user":
                needs.append((written, value.name, field_el.label))
    issues = []
    for number, task in enumerate(site.tasks):
        row = rows.get(task.user) if task.user else None
        if row is None or task.kind != "mutate":
            continue
        tables = {f.table for f in task.footprint}
        stated = {str(v).casefold() for v in task.slots.values()}
        for written, column, label in needs:
            if written & tables and column in row and row.get(column) in (None, "") and column not in task.slots \
                    and label.casefold() not in stated:
                issues.append(C.Issue("consistency", C.NULL_VALUE, f"$.tasks[{number}].user",
                                      f"task {task.id!r} acts as {task.user}, who has no {column}, which the required "
                                      f"field {label!r} fills in from the profile, and the task gives none: the "
                                      f"form can be sent only with an invented one"))
                break
    return issues


_COUNT_QUESTION = re.compile(r"\bhow (?:many|much|long|old|far)\b", re.I)


def check_count_questions(site: Site) -> list[C.Issue]:
    """M017: a question asking how many, how much or how long ("How many days ago was it merged?") whose
    answer is a date or a name: the right answer to the question is judged wrong, and only one that
    does not answer it passes. The task is dropped (nothing says which of the two was meant)."""
    issues = []
    for number, task in enumerate(site.tasks):
        answer = task.answer
        kind = getattr(answer, "type", None) if answer is not None else None
        asked = _COUNT_QUESTION.search(task.instruction) if task.kind == "retrieve" else None
        if asked is not None and kind in ("date", "text"):
            issues.append(C.Issue("semantic", C.ANSWER_ASKS_OTHER, f"$.tasks[{number}].answer.type",
                                  f"task {task.id!r} asks {asked.group(0).lower()!r}, a quantity, but its answer is a "
                                  f"{kind}: the answer to the question is judged wrong"))
    return issues


def _weekday_dates(task: Task) -> Iterator[tuple[str, str, str]]:
    """Each date the task writes in words with a weekday ("Tuesday, June 29") and the ISO day of the same
    month and day its slots or judge name, when that weekday is not the day's: the path of the slot
    (else the instruction) holding it, the words, and the day."""
    import datetime

    from veriweb.verify.wording import _DATE_TEXT, _WEEKDAY, _WEEKDAYS, month_day

    if not re.search(_WEEKDAY, task.instruction, re.I):
        return  # no weekday written: nothing to contradict (and no need to read the whole task)
    days = set(re.findall(r"\b\d{4}-\d{2}-\d{2}\b", json.dumps(task.model_dump(mode="json", exclude={"instruction",
                                                                                                 "template"}))))
    texts = [(f"slots.{name}", str(v)) for name, v in task.slots.items() if isinstance(v, str)]
    texts.append(("instruction", task.instruction))
    seen = set()
    for where, text in texts:
        for found in _DATE_TEXT.finditer(text):
            words = found.group(0)
            weekday = re.match(r"[A-Za-z]+", words)
            named = weekday and next((n for n, w in enumerate(_WEEKDAYS) if w.startswith(weekday.group(0).casefold())
                                      and len(weekday.group(0)) >= 3), None)
            said = month_day(words)
            matching = sorted(d for d in days if said is not None and month_day(d) == said)
            if named is None or len(matching) != 1 or words in seen:
                continue
            try:
                day = datetime.date.fromisoformat(matching[0])
            except ValueError:
                continue
            seen.add(words)
            if day.weekday() != named:
                yield where, words, matching[0]


def check_weekdays(site: Site) -> list[C.Issue]:
    """M016: a date written with a weekday that is not that day's ("Tuesday, June 29" for 2026-06-29, a
    Monday): the instruction contradicts itself, and an agent trusting the weekday acts on another day.
    The repair writes the day's own weekday."""
    from veriweb.verify.wording import reworded

    issues = []
    for number, task in enumerate(site.tasks):
        for where, words, day in _weekday_dates(task):
            right = reworded(words, day)
            if right is not None and right != words:
                issues.append(C.Issue("semantic", C.SLOT_CONTRADICTS_GOAL, f"$.tasks[{number}].{where}",
                                      f"task {task.id!r} says {words!r}, but {day} is not a {words.split()[0].strip(',')}: "
                                      f"the weekday contradicts the date; it should read {right!r}"))
    return issues


_PER_UNIT = re.compile(r"\b(\w+)\s*/\s*(\w+)\s*(<=|<|>=|>)\s*:(\w+)")
_WHOLE = re.compile(r"\b(?:in total|total|whole|entire|altogether|in all|overall|all told)\b", re.I)
_EACH = re.compile(r"\b(?:per|a|each|every)\s+(?:night|day|unit|item|person|guest|seat|ticket|month|week)\b|\bnightly\b|"
                   r"\bdaily\b|\bapiece\b", re.I)


def check_per_unit_bounds(site: Site) -> list[C.Issue]:
    """M016: a goal that bounds a per-unit figure (``total / nights <= :budget``) by an amount the
    instruction sets for the whole ("my budget for the whole stay is $242.00"): a stay costing twice the
    budget is judged within it. The repair bounds the figure itself."""
    issues = []
    for number, task in enumerate(site.tasks):
        if not _WHOLE.search(task.instruction) or _EACH.search(task.instruction):
            continue
        for index, predicate in enumerate(task.goal):
            if not isinstance(predicate, SqlPredicate):
                continue
            for whole, unit, op, name in _PER_UNIT.findall(predicate.sql):
                if name in predicate.params:
                    issues.append(C.Issue("semantic", C.SLOT_CONTRADICTS_GOAL, f"$.tasks[{number}].goal[{index}].sql",
                                          f"task {task.id!r} sets :{name} for the whole (its words say "
                                          f"{_WHOLE.search(task.instruction).group(0)!r}) but its goal bounds "
                                          f"{whole} / {unit}, a figure per {unit}; it should bound {whole}"))
    return issues


def _flag_setters(site: Site) -> tuple[dict[str, set[str]], set[str]]:
    """Per column a marker sets, the stems of the words of the markers setting it (their names, labels and
    buttons); and the columns some marker exists to set (its only write), which a task may word any way."""
    submits: dict[str, list[str]] = {}
    for element, _, _ in C.all_elements(site):
        if element.type == "form" and element.action.kind == "marker":
            submits.setdefault(element.action.marker, []).append(element.submit)
    setters: dict[str, set[str]] = {}
    own: set[str] = set()
    for marker in site.markers:
        said = " ".join([marker.name.replace("_", " "), marker.label or "", *submits.get(marker.name, [])])
        for effect in marker.effects:
            for column in re.findall(r"\b(\w+)\s*=\s*(?::\w+|1|0|true|false|NOT\b)", effect.sql, re.I):
                setters.setdefault(column, set()).update(stem(w) for w in re.findall(r"[a-z]+", said.lower()) if len(w) >= 3)
        sets = [re.search(r"\bSET\s+(.*?)\s+WHERE\b", e.sql, re.I | re.S) for e in marker.effects]
        if marker.effects and all(e.op == "update" for e in marker.effects) and all(sets):
            written = {m.group(1) for found in sets for m in re.finditer(r"(\w+)\s*=", found.group(1))}
            if len(written) == 1:
                own |= written
    return setters, own


def unasked_flags(site: Site) -> Iterator[tuple[str, str, str, Any]]:
    """Each goal of a mutate task that also requires a yes/no column of the row it checks to be set one way
    (``bag = true``) while the instruction never names that column, by its own words or by those of a
    marker that sets it: doing exactly what it says fails when the other way is the default. A column some
    marker exists to set is left out. The path of the test, the task, the column and its value."""
    found = []
    for number, task in enumerate(site.tasks):
        if task.kind != "mutate":
            continue
        words = {stem(w) for w in re.findall(r"[a-z]+", task.instruction.lower())}
        for index, predicate in enumerate(task.goal):
            for query, path in _queries_with(predicate, f"$.tasks[{number}].goal[{index}]", "where"):
                table = site.database.table(query.table)
                for c_index, cond in enumerate(query.where):
                    column = table.column(cond.column) if table is not None else None
                    if column is not None and column.type == "boolean" and cond.op == "=" and isinstance(cond.value, bool) \
                            and flag_words(task.instruction, cond.column) is None \
                            and not {stem(w) for w in cond.column.split("_") if len(w) >= 3} & words:
                        found.append((f"{path}.where[{c_index}]", task.id, cond.column, cond.value, words))
    if not found:
        return
    setters, own = _flag_setters(site)  # only where some goal asks: it reads every form of the site
    for where, task_id, column_name, value, words in found:
        if column_name not in own and not setters.get(column_name, set()) & words:
            yield where, task_id, column_name, value


def check_unasked_flags(site: Site) -> list[C.Issue]:
    """M016: see :func:`unasked_flags`. The repair drops the test the instruction does not ask for."""
    return [C.Issue("semantic", C.SLOT_CONTRADICTS_GOAL, location,
                    f"task {task!r}: its goal also requires {column} = {value}, which the instruction never asks for: "
                    f"doing exactly what it says can fail; the goal should not test {column}")
            for location, task, column, value in unasked_flags(site)]


TASK_CHECKS = [check_task_addresses, check_task_logins, check_stated_values, check_slot_agreement, check_crossed_slots, check_ambiguous_lookups, check_seed_invariants, check_stated_days,
               check_unstated_goal_slots, check_progress_beyond_goal,
               check_stated_months, check_literal_names, check_task_literals, check_slot_dates_order, check_flag_words, check_answer_asks, check_order_words, check_unasked_order, check_loose_footprints,
               check_unfiltered_slots, check_strict_bounds, check_creates_existing, check_answer_rules, check_typographic_slots,
               check_goal_footprint, check_twin_goals, check_unanswered_questions,
               check_either_goals, check_walled_goals, check_weekdays,
               check_loose_text_goals, check_count_questions, check_difficulty,
               check_prefilled_starts, check_named_sorts, check_tolerant_budgets,
               check_answer_candidates, check_blank_profiles, check_per_unit_bounds,
               check_unasked_flags]
"""The checks of this module, in the order :func:`veriweb.verify.checks.static_issues` runs them."""

"""Whether a retrieve certificate's answer rests on what it saw: a metamorphic check.

The search certifies a retrieve task by trying the answers a page offers against the judge
(:func:`veriweb.verify.reading.candidate_answers`), so a certificate can answer before it has
seen the evidence: "which of these three listings is cheapest?" answered with a title the
home page lists, no price seen; a count answered with a "2" the page shows for another reason.
Such a certificate proves the task feasible, but it shows no way to know the answer.

:func:`grounded` changes the data the answer is computed from and replays the certificate:

1. The row the answer is read from is changed alone: the first row the answer query picks
   moves to the other end of its order (the cheapest becomes the dearest), or each of the next
   :data:`AHEAD` rows in turn moves just ahead of it; or, for a count,
   the first row counted is dropped, or, for a sum, the first row summed changes its amount.
   To know that this row is the answer a certificate must have seen it: opening one of three
   listings and answering with another one's title does not.
2. The numeric columns the task's answer query selects or orders by are rewritten in its table
   (or, for a view, in the base tables that have them): first each value ``v`` to ``2v + 7``
   (every amount changes), then to ``lo + hi - v`` (every order reverses); last, every second
   row of those tables is dropped (every count changes).
3. A rewrite that makes the judge reject the certificate's answer has changed the right answer.
   If every page the certificate showed before answering reads the same as before (the texts,
   values and states of its visible nodes), the answer did not come from anything it saw:
   the certificate is ungrounded, whichever rewrite shows it.

A rewrite that changes no answer (the answer is a name or a date the rewritten data does not
decide) says nothing: ``None``. The check errs towards "grounded": any change anywhere on a page
it showed counts as evidence seen (a dropped row another table points at may change pages no
answer reads). Where a row also states a rewritten value in one of its texts (a bill's body
saying "Amount due: $64.84" of the 6484 cents it stores), the text is rewritten with it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from veriweb.engine import Episode, Session
from veriweb.engine.query import fetch_rows
from veriweb.scaffold import Site, Task
from veriweb.verify.dataflow import view_item, view_tables

_Rewrite = Callable[[float, float, float], float]
REWRITES: tuple[_Rewrite, ...] = (lambda v, lo, hi: 2 * v + 7, lambda v, lo, hi: lo + hi - v)
"""How a numeric value ``v`` in ``[lo, hi]`` is rewritten: every amount changes, then every order reverses."""


def _columns(task: Task) -> tuple[str, set[str]] | None:
    """The answer query's table and the columns it selects or orders by (``None``: no scalar query)."""
    answer = task.answer
    query = getattr(getattr(answer, "value", None), "query", None) if answer is not None else None
    if query is None:
        query = getattr(answer, "list_query", None) if answer is not None else None
    if query is None:
        return None
    columns = {o.column for o in getattr(query, "order_by", []) or []}
    if getattr(query, "select", None):
        columns.add(query.select)
    return query.table, columns


def _numeric(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _rewritten(site: Site, tables: set[str], columns: set[str], rewrite: _Rewrite) -> Site | None:
    """``site`` with every numeric value of ``columns`` in ``tables`` rewritten (``None``: none is numeric)."""
    changed = False
    new_tables = []
    for table in site.database.tables:
        wanted = [c for c in columns if table.name in tables and c != "id" and any(_numeric(r.get(c)) for r in table.rows)]
        if not wanted:
            new_tables.append(table)
            continue
        rows = [dict(r) for r in table.rows]
        for column in wanted:
            values = [r[column] for r in rows if _numeric(r.get(column))]
            lo, hi = min(values), max(values)
            for row in rows:
                value = row.get(column)
                if _numeric(value):
                    new = rewrite(value, lo, hi)
                    row[column] = int(new) if isinstance(value, int) else round(new, 2)
                    _restate(row, column, value, row[column])
        new_tables.append(table.model_copy(update={"rows": rows}))
        changed = True
    if not changed:
        return None
    return site.model_copy(update={"database": site.database.model_copy(update={"tables": new_tables})})


AHEAD = 3
"""How many rows behind a pick's answer are each moved just ahead of it (one rewrite each)."""
_WORDS = r"(?<![\w.,])({})(?![\w]|[.,]\d)"


def _forms(value: int | float) -> list[str]:
    """How a stored number may be written in a text: an amount of money with two decimals (an integer
    read as cents too), a whole number of at least two digits."""
    forms = []
    for amount in ([value, value / 100] if isinstance(value, int) else [value]):
        forms += [f"{amount:,.2f}", f"{amount:.2f}"]
    if isinstance(value, int) and abs(value) >= 10:
        forms += [f"{value:,}", str(value)]
    return list(dict.fromkeys(forms))


def _restate(row: dict[str, Any], column: str, old: int | float, new: int | float) -> None:
    """Rewrite, in the other texts of ``row``, the places that state ``old`` as ``new`` (a bill's body
    saying "Amount due: $64.84" of the 6484 cents it stores), so evidence written as text moves
    with the value it states."""
    pairs = list(zip(_forms(old), _forms(new)))
    for key, text in row.items():
        if key == column or not isinstance(text, str):
            continue
        for before, after in pairs:
            if before in text:  # (most texts state no amount: no pattern to compile)
                text = re.sub(_WORDS.format(re.escape(before)), after, text)
        row[key] = text


def _thinned(site: Site, tables: set[str]) -> Site | None:
    """``site`` with every second row of ``tables`` dropped (``None``: none has two rows)."""
    new_tables = [t.model_copy(update={"rows": t.rows[::2]}) if t.name in tables and len(t.rows) > 1 else t
                  for t in site.database.tables]
    if all(a is b for a, b in zip(new_tables, site.database.tables)):
        return None
    return site.model_copy(update={"database": site.database.model_copy(update={"tables": new_tables})})


def _base(site: Site, name: str, column: str) -> tuple[str, str] | None:
    """The base table and column behind ``column`` of table or view ``name`` (``None``: computed)."""
    views = {v.name for v in site.database.views}
    for _ in range(8):  # views over views, a few levels at most
        if name not in views:
            return name, column
        item = view_item(site, name, column)
        if item is None:
            return None
        name, column = item[1], item[2]
    return None


def _picked(site: Site, task: Task) -> list[dict[str, Any]]:
    """The rows the answer query of ``task`` picks on ``site``, in its order."""
    session = Session(site)
    try:
        episode = Episode(site, task, session=session)
        episode.reset()
        return fetch_rows(session.db.guard, task.answer.value.query, episode.judge.context())  # type: ignore[union-attr]
    finally:
        session.close()


def _decider(site: Site, task: Task, ahead: int = 0, picked: list[dict[str, Any]] | None = None) -> Site | None:
    """``site`` with the row its answer is read from changed alone (``None``: no such row to change).

    A pick (a column of the first row in some order) moves that row past the other end of the order
    (or, with ``ahead`` k, moves the row k places behind it just ahead of it: to know the cheapest of
    three one must have seen the others' prices too); a count drops the first row it counts; a sum, an
    average, a least or a greatest rewrites the first row's amount to ``2v + 7``. A lookup with no
    order is left to the table-wide rewrites. ``picked``: :func:`_picked`, when already read.
    """
    query = getattr(getattr(task.answer, "value", None), "query", None)
    if query is None or (query.agg is None and not query.order_by):
        return None
    home = _base(site, query.table, "id")  # a view's row is its base table's row of the same id
    table = next((t for t in site.database.tables if home is not None and t.name == home[0]), None)
    if table is None or home is None or home[1] != "id":
        return None
    picked = _picked(site, task) if picked is None else picked
    if not picked or "id" not in picked[0] or (ahead and (query.agg is not None or len(picked) <= ahead)):
        return None
    first = picked[ahead]["id"]
    rows = [dict(r) for r in table.rows]
    if query.agg == "count":
        rows = [r for r in rows if r.get("id") != first]
    else:
        keys = [(o.column, o.dir) for o in query.order_by] if query.agg is None else [(query.select, "asc")]
        row = next((r for r in rows if r.get("id") == first), None)
        if row is None:
            return None
        for shown, direction in keys:
            found = _base(site, query.table, shown)
            if found is None or found[0] != table.name:
                continue
            column = found[1]
            values = [r[column] for r in rows if _numeric(r.get(column))]
            value = row.get(column)
            if not _numeric(value):
                continue
            if query.agg is not None:
                new = 2 * value + 7
            elif ahead and _numeric(picked[0].get(shown)):  # just ahead of the first
                new = picked[0][shown] - 1 if direction == "asc" else picked[0][shown] + 1
            else:  # past the other end: the first becomes the last
                new = max(values) + 1 if direction == "asc" else min(values) - 1
            row[column] = int(new) if isinstance(value, int) else round(new, 2)
            _restate(row, column, value, row[column])
    if rows == [dict(r) for r in table.rows]:
        return None
    new_tables = [t.model_copy(update={"rows": rows}) if t is table else t for t in site.database.tables]
    return site.model_copy(update={"database": site.database.model_copy(update={"tables": new_tables})})


def _views(episode: Episode, actions: list[str]) -> tuple[list[tuple[Any, ...]], bool]:
    """What each page showed before the last action, and whether the last action succeeded."""
    session = episode.session
    episode.reset()
    shown: list[tuple[Any, ...]] = []
    success = False
    for number, action in enumerate(actions):
        page = session.page()
        shown.append(tuple((n.role, n.name, n.text, n.value, n.checked, n.selected)
                           for n in page.nodes if n.visible))
        outcome = episode.step(action)
        if outcome.terminated or outcome.truncated:
            success = bool(outcome.success) and number == len(actions) - 1
            break
    return shown, success


class Grounding:
    """:func:`grounded` for many certificates of one task: the rewritten sites and their sessions are
    made once, on first use, and reset for each certificate (a search checks every solution it finds).

    Args:
        site: the site.
        task: the retrieve task.
    """

    def __init__(self, site: Site, task: Task) -> None:
        self.site, self.task = site, task
        self._found = _columns(task) if task.kind == "retrieve" else None
        self._variants: list[Site] | None = None
        self._episodes: dict[int, Episode] = {}

    def _sites(self) -> list[Site]:
        if self._variants is None:
            site, task = self.site, self.task
            table, columns = self._found  # type: ignore[misc]
            tables = view_tables(site, table)
            picked = _picked(site, task) if getattr(getattr(task.answer, "value", None), "query", None) else []
            made = [*(_decider(site, task, ahead, picked) for ahead in range(AHEAD + 1)),
                    *(_rewritten(site, tables, columns, rewrite) for rewrite in REWRITES), _thinned(site, tables)]
            self._variants = [other for other in made if other is not None]
        return self._variants

    def _episode(self, index: int, site: Site) -> Episode:
        if index not in self._episodes:
            self._episodes[index] = Episode(site, self.task, session=Session(site))
        return self._episodes[index]

    def check(self, certificate: list[str] | tuple[str, ...]) -> bool | None:
        """Whether ``certificate`` saw what its answer rests on (see :func:`grounded`)."""
        if self._found is None or not certificate:
            return None
        actions = list(certificate)
        before: list[tuple[Any, ...]] | None = None
        verdict: bool | None = None
        for index, other in enumerate(self._sites()):
            after, still = _views(self._episode(index, other), actions)
            if still:
                continue  # the same answer is right after this rewrite: it tells nothing
            if before is None:
                before, _ = _views(self._episode(-1, self.site), actions)
            if before == after:
                return False
            verdict = True
        return verdict

    def close(self) -> None:
        """Close the sessions."""
        for episode in self._episodes.values():
            episode.session.close()
        self._episodes.clear()


def grounded(site: Site, task: Task, certificate: list[str] | tuple[str, ...]) -> bool | None:
    """Whether ``certificate`` (which solves retrieve task ``task`` on ``site``) saw what its answer
    rests on: ``False`` when some rewrite of the data changes the right answer and no page it
    showed; ``None`` when no rewrite changes the answer (see the module docstring)."""
    check = Grounding(site, task)
    try:
        return check.check(certificate)
    finally:
        check.close()

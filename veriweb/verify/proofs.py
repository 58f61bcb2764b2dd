"""Infeasibility proofs: no entity satisfies the goal, and no reachable marker can create one.

The argument, for a task of kind ``infeasible``:

1. The goal is false at the start (checked in the engine).
2. Some goal predicate can never become true. Markers are the only writers, and only the
   markers some form posts to can run (:mod:`veriweb.verify.dataflow`). A predicate can
   never become true when

   - everything it reads is *frozen* (no marker writes those tables or columns) and it is
     false now; or
   - it needs a row that cannot exist: a condition compares a column to a frozen lookup
     that finds nothing (``product_id = (id of the product named X)``, and no product is
     named X or can be renamed or added); or no row satisfies the conditions on columns no
     marker updates, and no marker inserts a row that could (the value it would need is not
     among what the inserting marker's parameter accepts); or, through a view, the column
     passes an unwritten base table's column through and no base row has the value.

3. If no predicate yields, a bounded search (writes allowed anywhere, constraints ignored)
   looks for the goal. Reaching it refutes the claim; not reaching it proves nothing (the
   search types only the task's slot values), so the task stays undecided.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from veriweb.engine import Episode, Session
from veriweb.engine.query import Context, holds, scalar_value
from veriweb.errors import VeriwebError
from veriweb.scaffold import Site, Task
from veriweb.scaffold.site import FootprintEntry
from veriweb.scaffold.values import (
    AllOf, AnyOf, Compare, Cond, Count, Exists, Not, PageIs, Query, QueryValue, Ref, SqlPredicate,
)
from veriweb.verify.dataflow import (
    Source, Write, can_produce, posted_markers, site_writes, sql_tables, view_base, view_item, view_join_columns,
    view_tables,
)
from veriweb.verify.search import solve

_SQL_EXISTS = re.compile(r"^SELECT\s+EXISTS\s*\((\s*SELECT\b.*)\)$", re.I | re.S)
_NULL_OPS = ("=", "!=", "<", "<=", ">", ">=")
_COMPARE = {"=": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
            "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


@dataclass(frozen=True)
class Proof:
    """The outcome of trying to prove a task infeasible.

    Attributes:
        status: ``proven_infeasible``, ``refuted`` (the goal was reached) or ``undecided``.
        text: what was checked, one finding a line.
        witness: for ``refuted``, the actions that reach the goal.
        expanded: states the fallback search expanded.
    """

    status: str
    text: str
    witness: tuple[str, ...] = ()
    expanded: int = 0


class Frozen:
    """Static facts about what can change, evaluated against one session's current state."""

    def __init__(self, site: Site, session: Session, ctx: Context) -> None:
        self.site = site
        self.session = session
        self.ctx = ctx
        self.writes: dict[str, list[Write]] = defaultdict(list)
        for write in site_writes(site):
            self.writes[write.table].append(write)

    # ------------------------------------------------------------------ what can change

    def base(self, table: str) -> set[str]:
        """The tables behind a table or view."""
        return view_tables(self.site, table)

    def rows_change(self, table: str) -> list[Write]:
        """Writes that add or remove rows of ``table`` (or of a table behind the view)."""
        return [w for t in self.base(table) for w in self.writes.get(t, []) if w.op in ("insert", "delete")]

    def column_writers(self, table: str, column: str) -> list[Write]:
        """Updates that may set ``table.column`` (any write at all, for a view)."""
        if self.site.database.table(table) is None:
            return [w for t in self.base(table) for w in self.writes.get(t, [])]
        return [w for w in self.writes.get(table, [])
                if w.op == "update" and (w.columns is None or column in w.columns)]

    def value(self, expr: Any) -> bool:
        """Is a value expression frozen (the same in every reachable state)?"""
        if isinstance(expr, QueryValue):
            return self.query(expr.query, [expr.query.select] if expr.query.select != "*" else [])
        if isinstance(expr, Ref):
            if expr.namespace in ("slot", "clock"):
                return True
            if expr.namespace == "user":
                auth = self.site.auth
                return auth is not None and not self.column_writers(auth.table, expr.name) and not any(
                    w.op == "delete" for w in self.writes.get(auth.table, []))
            return False
        return True

    def query(self, query: Query, extra: list[str] = ()) -> bool:  # type: ignore[assignment]
        """Is a query's result frozen?"""
        if self.rows_change(query.table):
            return False
        columns = {c.column for c in query.where} | {o.column for o in query.order_by} | set(extra)
        if any(self.column_writers(query.table, c) for c in columns):
            return False
        return all(self.value(c.value) for c in query.where if not isinstance(c.value, list))

    def predicate(self, pred: Any) -> bool:
        """Does a predicate read only frozen things?"""
        if isinstance(pred, (AllOf, AnyOf)):
            return all(self.predicate(item) for item in pred.items)
        if isinstance(pred, Not):
            return self.predicate(pred.item)
        if isinstance(pred, Compare):
            return self.value(pred.left) and self.value(pred.right)
        if isinstance(pred, Exists):
            return self.query(pred.query)
        if isinstance(pred, Count):
            return self.query(pred.query) and self.value(pred.value)
        if isinstance(pred, SqlPredicate):
            tables = {b for t in sql_tables(pred.sql) for b in self.base(t)}
            return all(not self.writes.get(t) for t in tables) and all(self.value(v) for v in pred.params.values())
        return False  # page predicates change with navigation

    def now(self, expr: Any) -> Any:
        """A value expression's value in the current state."""
        return scalar_value(self.session.db.guard, expr, self.ctx)

    def holds(self, pred: Any) -> bool:
        """A predicate's truth in the current state."""
        return holds(self.session.db.guard, pred, self.ctx, self.session.on_page)

    # ------------------------------------------------------------------ can it ever be true

    def never(self, pred: Any) -> str | None:
        """Why ``pred`` can never hold in any reachable state, or ``None`` if it might."""
        try:
            if self.predicate(pred) and not self.holds(pred):
                return "it reads only tables and columns no marker writes, and it is false now"
            if isinstance(pred, AllOf):
                return next((f"item {i}: {r}" for i, item in enumerate(pred.items) if (r := self.never(item))), None)
            if isinstance(pred, AnyOf):
                reasons = [self.never(item) for item in pred.items]
                return "; ".join(f"item {i}: {r}" for i, r in enumerate(reasons)) if all(reasons) else None
            if isinstance(pred, Compare):
                for side in (pred.left, pred.right):
                    if isinstance(side, QueryValue) and self.value(side) and self.now(side) is None:
                        return f"it compares with a lookup in {side.query.table} that finds nothing and cannot change"
                return None
            if isinstance(pred, PageIs):
                if self.site.page(pred.page) is None:
                    return f"the site has no page {pred.page!r}"
                for name, value in pred.params.items():
                    if isinstance(value, QueryValue) and self.value(value) and self.now(value) is None:
                        return (f"the page's parameter {name} is a lookup in {value.query.table} that finds nothing "
                                "and cannot change")
                return None
            if isinstance(pred, SqlPredicate):
                return self.sql_no_row(pred)
            if isinstance(pred, Exists) and not pred.negate:
                return self.no_row(pred.query)
            if isinstance(pred, Count) and self.value(pred.value):
                reason = self.no_row(pred.query)
                target = self.now(pred.value)
                if reason and target is not None and not _COMPARE[pred.op](0, target):
                    return f"the count stays 0, and 0 {pred.op} {target} is false: {reason}"
        except (VeriwebError, TypeError):
            return None
        return None

    def no_row(self, query: Query) -> str | None:
        """Why no row can ever match ``query``, or ``None``."""
        for cond in query.where:
            if isinstance(cond.value, QueryValue) and cond.op in _NULL_OPS and self.value(cond.value) \
                    and self.now(cond.value) is None:
                return (f"the condition {cond.column} {cond.op} (a lookup in {cond.value.query.table}) compares "
                        f"with nothing: that lookup finds no row now, and no marker can change what it reads")
        if not all(self.value(c.value) for c in query.where if not isinstance(c.value, list)):
            return None
        if self.site.database.table(query.table) is None:
            return self._no_view_row(query)
        fixed = [c for c in query.where if not self.column_writers(query.table, c.column)]
        if not fixed:
            return None
        if self.holds(Exists(kind="exists", query=Query(table=query.table, where=fixed))):
            return None
        described = " and ".join(_cond_text(c, self.now(c.value) if not isinstance(c.value, list) else c.value)
                                 for c in fixed)
        inserts = [w for w in self.writes.get(query.table, []) if w.op == "insert"]
        blocked = []
        for write in inserts:
            why = next((f"it cannot set {c.column} to {self.now(c.value)!r}" for c in fixed
                        if c.op == "=" and not isinstance(c.value, list)
                        and not can_produce(self.site, write, c.column, self.now(c.value))), None)
            why = why or self._own_row_blocks(write, query, fixed)
            if why is None:
                return None
            blocked.append(f"{write.describe()}, but {why}")
        tail = "; ".join(blocked) if blocked else f"no marker inserts into {query.table}"
        return (f"no {query.table} row has {described}; no marker updates those columns; {tail}")

    def sql_no_row(self, pred: SqlPredicate) -> str | None:
        """For ``SELECT EXISTS (SELECT ... FROM a x JOIN b y ON ... WHERE c1 AND c2 ...)`` (inner joins,
        a plain conjunction): a conjunct ``alias.column = :name`` that no row of the alias's table can
        meet, when that table gains no rows and that column is never written."""
        found = _SQL_EXISTS.match(pred.sql.strip())
        if found is None:
            return None
        body = found.group(1)
        if re.search(r"\b(LEFT|RIGHT|FULL|OUTER|OR|NOT|UNION|EXCEPT|GROUP|HAVING)\b", body, re.I):
            return None
        where = re.search(r"\bWHERE\b(.*)$", body, re.I | re.S)
        if where is None:
            return None
        aliases = {}
        for match in re.finditer(r"\b(?:FROM|JOIN)\s+\"?(\w+)\"?(?:\s+(?:AS\s+)?(\w+))?", body[:where.start()], re.I):
            aliases[match.group(2) or match.group(1)] = match.group(1)
        for conjunct in re.split(r"\bAND\b", where.group(1), flags=re.I):
            eq = re.fullmatch(r"\s*(\w+)\.(\w+)\s*=\s*:(\w+)\s*", conjunct)
            if eq is None or eq.group(3) not in pred.params or eq.group(1) not in aliases:
                continue
            table, column, value = aliases[eq.group(1)], eq.group(2), pred.params[eq.group(3)]
            if self.site.database.table(table) is None or not self.value(value):
                continue
            if self.rows_change(table) or self.column_writers(table, column):
                continue
            wanted = self.now(value)
            if not self.holds(Exists(kind="exists", query=Query(table=table, where=[Cond(column=column,
                                                                                          value=wanted)]))):
                return (f"its SQL needs a {table} row with {column} = {wanted!r}; there is none, no marker adds "
                        f"{table} rows, and none writes {table}.{column}")
        return None

    def _own_row_blocks(self, write: Write, query: Query, fixed: list[Cond]) -> str | None:
        """Why an insert that copies the inserting user's own columns cannot match ``fixed``.

        It applies when the row is the task user's (a condition ``user_id = user.id`` on a column
        the insert fills from ``:user_id``), so the copied values are the task user's, and those
        columns of the accounts table are never written.
        """
        auth = self.site.auth
        if auth is None:
            return None
        mine = any(c.op == "=" and isinstance(c.value, Ref) and c.value.ref == f"user.{auth.id_column}"
                   and write.sources.get(c.column) == Source("param", "user_id") for c in fixed)
        if not mine:
            return None
        for cond in fixed:
            source = write.sources.get(cond.column)
            if source is None or source.kind != "user" or source.value[0] != auth.table or cond.op not in ("=", "!="):
                continue
            column = source.value[1]
            if self.column_writers(auth.table, column) or isinstance(cond.value, list):
                continue
            copied, wanted = self.ctx.user.get(column), self.now(cond.value)
            if (str(copied) == str(wanted)) != (cond.op == "="):
                return (f"it copies {cond.column} from the user's own {auth.table}.{column} ({copied!r}), "
                        f"which no marker changes, and the goal needs {cond.column} {cond.op} {wanted!r}")
        return None

    def _no_view_row(self, query: Query) -> str | None:
        """A view row needs rows behind it: group the conditions by the table or view each column
        passes through from; if one group matches no row there, and that source can gain no rows
        and none of those columns can change, no view row can match."""
        groups: dict[str, list[tuple[Cond, str, str]]] = defaultdict(list)
        for cond in query.where:
            if cond.op != "=" or isinstance(cond.value, list):
                continue
            item = view_item(self.site, query.table, cond.column)
            if item is not None:
                groups[item[0]].append((cond, item[1], item[2]))
        for members in groups.values():
            source = members[0][1]
            if self.rows_change(source):
                continue
            bases = [(c, col, (source, col) if self.site.database.table(source) is not None
                      else view_base(self.site, source, col)) for c, _, col in members]
            if any(base is None or self.column_writers(*base) for _, _, base in bases):
                continue
            joins = view_join_columns(self.site, source) if self.site.database.table(source) is None else set()
            if joins is None or any(self.column_writers(*pair) for pair in joins):
                continue  # a marker could change which rows the source view has
            inner = [Cond(column=col, value=self.now(c.value)) for c, col, _ in bases]
            if self.holds(Exists(kind="exists", query=Query(table=source, where=inner))):
                continue
            wanted = " and ".join(f"{c.column} = {self.now(c.value)!r}" for c, _, _ in bases)
            columns = ", ".join(sorted({f"{b[0]}.{b[1]}" for _, _, b in bases if b is not None}))
            return (f"a {query.table} row with {wanted} needs a {source} row with those values: there is none, "
                    f"no marker adds rows behind {source} or writes what its joins read, and none writes {columns}")
        return None


def _cond_text(cond: Cond, value: Any) -> str:
    return f"{cond.column} {cond.op} {value!r}"


def unreachable_goal(site: Site, task: Task, session: Session, ctx: Context) -> str | None:
    """The argument that a goal predicate (false now) can never hold whatever the agent does, from
    the markers' writes alone (step 2 of the module docstring), or ``None``: none is shown.

    It holds for any task kind: a feasible-kind task it applies to has no solution at all (a
    defect, such as an instruction naming a product the site does not have).
    """
    facts = Frozen(site, session, ctx)
    for number, predicate in enumerate(task.goal):
        reason = facts.never(predicate)
        if reason:
            runnable = sorted(posted_markers(site))
            return (f"goal[{number}] can never hold: {reason}.\nMarkers that can run (a form posts to them): "
                    f"{', '.join(runnable) or 'none'}; their {sum(len(v) for v in facts.writes.values())} effects "
                    "were checked.")
    return None


def runnable_markers(site: Site) -> set[str]:
    """The markers some form can run: it posts to a marker the site has, and passes every parameter
    the marker requires (a boolean aside) something other than a field the form does not have. A
    marker none can run never writes (its required parameter arrives empty, and it refuses)."""
    from veriweb.scaffold.elements import Form
    from veriweb.verify.checks import all_elements

    out: set[str] = set()
    for element, _, _ in all_elements(site):
        if not isinstance(element, Form) or element.action.kind != "marker":
            continue
        marker = site.marker(element.action.marker)
        if marker is None or marker.name in out:
            continue
        fields = {f.name for f in element.fields}
        args = element.action.args or {}
        if all(_passed(args.get(param.name), fields) for param in marker.params
               if param.required and param.type != "boolean"):
            out.add(marker.name)
    return out


def _passed(arg: Any, fields: set[str]) -> bool:
    if arg is None or (isinstance(arg, str) and not arg.strip()):
        return False
    return not (isinstance(arg, Ref) and arg.namespace == "field" and arg.name not in fields)


def no_success(site: Site, task: Task, session: Session, ctx: Context) -> str | None:
    """Why no action sequence can solve ``task`` from the session's state (its start), or ``None``.

    Each reason is an argument, not a guess, so a search may stop before it starts:

    - a constraint is one of the goal's own predicates: wherever the goal holds, it is broken;
    - a goal predicate false now reads only tables and columns that no marker some form can run
      (:func:`runnable_markers`) writes, and nothing that changes as steps go by;
    - a retrieve task's expected answer is empty now, and what it is computed from is frozen the
      same way, so no answer is ever judged right.
    """
    import json

    def text(pred: Any) -> str:
        return json.dumps(pred.model_dump(mode="json"), sort_keys=True)

    goal = {text(p): n for n, p in enumerate(task.goal)}
    for number, constraint in enumerate(task.constraints):
        if text(constraint.predicate) in goal:
            return (f"constraint {number} ({constraint.description!r}) is goal[{goal[text(constraint.predicate)]}] "
                    "itself: every state where the goal holds breaks it")
    if "clock.now" in task.model_dump_json():
        return None  # the virtual time moves with every step
    facts = Frozen(site, session, ctx)
    runnable = runnable_markers(site)
    facts.writes = defaultdict(list)
    for write in site_writes(site):
        if write.marker in runnable:
            facts.writes[write.table].append(write)
    try:
        for number, predicate in enumerate(task.goal):
            if facts.predicate(predicate) and not facts.holds(predicate):
                return (f"goal[{number}] is false and reads only what no runnable marker writes (runnable: "
                        f"{', '.join(sorted(runnable)) or 'none'})")
        spec = task.answer
        if task.kind == "retrieve" and spec is not None and (isinstance(spec.value, QueryValue)
                                                             or spec.list_query is not None):
            queries = [q for q in (spec.list_query, spec.candidates,
                                   spec.value.query if isinstance(spec.value, QueryValue) else None) if q is not None]
            if all(facts.query(q, [q.select] if q.select != "*" else []) for q in queries):
                from veriweb.engine.judge import Judge

                expected = Judge(session, task).expected_answer()
                if expected is None or expected == []:
                    return ("the expected answer is empty, and no runnable marker writes what it is computed "
                            "from: no answer is ever right")
    except (VeriwebError, TypeError):
        return None
    return None


def prove_infeasible(site: Site, task: Task, *, session: Session | None = None, budget: int = 2_000) -> Proof:
    """Prove that ``task``'s goal cannot be reached, refute it with a witness, or say undecided.

    Args:
        site: the site.
        task: a task (normally of kind ``infeasible``).
        session: a session of the site to reuse.
        budget: states the fallback search may expand.
    """
    session = session or Session(site)
    if not task.goal:
        return Proof("undecided", "the task has no goal predicates to reason about")
    episode = Episode(site, task, session=session)
    episode.reset()
    if all(episode.judge.holds(p) for p in task.goal):
        return Proof("refuted", "the goal already holds at the start", ("(no action: the goal holds at the start)",))
    lines = ["The goal is false at the start."]
    argument = unreachable_goal(site, task, session, episode.judge.context())
    if argument is not None:
        return Proof("proven_infeasible", "\n".join(lines + [argument]))
    lines.append("No goal predicate is shown unreachable from the markers' writes alone.")
    probe = task.model_copy(update={
        "kind": "mutate", "constraints": [], "certificate": [],
        "footprint": [FootprintEntry(table=t.name) for t in site.database.tables]})
    result = solve(site, probe, budget=budget, session=session, max_depth=task.max_steps)
    if result.status == "solved":
        lines.append(f"A search reached the goal in {len(result.actions)} steps.")
        return Proof("refuted", "\n".join(lines), tuple(result.actions), result.expanded)
    lines.append(f"A search did not reach the goal ({result.status}: {result.reason}); it types only the task's "
                 "slot values, so this proves nothing.")
    return Proof("undecided", "\n".join(lines), (), result.expanded)


__all__ = ["Frozen", "Proof", "no_success", "prove_infeasible", "runnable_markers", "unreachable_goal"]

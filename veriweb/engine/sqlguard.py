"""The SQL guard: every query runs under an authorizer that enforces what it may do.

Three modes:

- ``read``: predicates, lists, preconditions and invariants. Reads and an allow-list of
  deterministic functions only: no writes, no ``ATTACH``, no pragmas, no schema changes, no
  ``random()`` or ``date('now')``.
- ``write``: one marker effect. As ``read``, plus writes to the effect's declared table (and
  the engine's change log, which triggers fill).
- ``engine``: the engine's own statements (schema, transactions), never scaffold text.

SQLite consults the authorizer only when it prepares a statement, and prepared statements are
cached by their text; so every statement is prefixed with a comment naming its mode (and, for
writes, its table): the same text can never be prepared in one mode and run in another.
A progress handler aborts a statement after a budget of virtual-machine steps, so a runaway
recursive CTE fails fast instead of hanging the engine.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from veriweb.errors import QueryRefused, VeriwebError

SAFE_FUNCTIONS = frozenset(
    """abs avg char coalesce count glob group_concat hex ifnull iif instr json json_array
    json_extract json_object json_quote json_type json_valid length like lower ltrim max min nullif
    quote replace round rtrim sign substr substring sum total trim typeof unicode upper
    vw_today vw_now vw_days""".split()
)
"""Deterministic SQL functions a predicate may call. Anything else (``random``, ``date``,
``current_timestamp``, ``changes``, ``load_extension``, ...) is refused: use ``vw_today()`` and
``vw_now()`` for the virtual clock, and ``vw_days(later, earlier)`` for the days between two days."""

CHANGE_LOG = "_vw_changes"

_ALWAYS = {
    sqlite3.SQLITE_SELECT,
    sqlite3.SQLITE_READ,
    sqlite3.SQLITE_RECURSIVE,
}
_WRITES = {sqlite3.SQLITE_INSERT: "insert", sqlite3.SQLITE_UPDATE: "update", sqlite3.SQLITE_DELETE: "delete"}
_ACTIONS = """CREATE_INDEX CREATE_TABLE CREATE_TEMP_INDEX CREATE_TEMP_TABLE CREATE_TEMP_TRIGGER
CREATE_TEMP_VIEW CREATE_TRIGGER CREATE_VIEW DELETE DROP_INDEX DROP_TABLE DROP_TEMP_INDEX DROP_TEMP_TABLE
DROP_TEMP_TRIGGER DROP_TEMP_VIEW DROP_TRIGGER DROP_VIEW INSERT PRAGMA READ SELECT TRANSACTION UPDATE ATTACH
DETACH ALTER_TABLE REINDEX ANALYZE CREATE_VTABLE DROP_VTABLE FUNCTION SAVEPOINT RECURSIVE""".split()
_NAMES = {
    getattr(sqlite3, f"SQLITE_{name}"): name.lower().replace("_", " ")
    for name in _ACTIONS
    if hasattr(sqlite3, f"SQLITE_{name}")
}


class QueryFailed(VeriwebError):
    """A scaffold query failed for a reason other than the guard (missing table, bad SQL)."""


class Guard:
    """Runs SQL on one connection under the authorizer of a mode.

    Args:
        conn: the session's connection (autocommit mode, ``isolation_level=None``).
        step_budget: progress-handler calls (of 1,000 VM steps each) before a query is aborted.
    """

    def __init__(self, conn: sqlite3.Connection, *, step_budget: int = 500) -> None:
        self.conn = conn
        self.step_budget = step_budget
        self._budget = step_budget
        self.mode = "engine"
        self.write_table = ""
        self.refusal = ""
        self._ticks = 0
        conn.set_authorizer(self._authorize)
        conn.set_progress_handler(self._progress, 1_000)
        conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, 1_000_000)  # no value over 1 MB: no string-doubling bombs

    # ------------------------------------------------------------------ callbacks

    def _authorize(self, action: int, arg1: str | None, arg2: str | None, _db: str | None,
                   _source: str | None) -> int:
        if self.mode == "engine":
            return sqlite3.SQLITE_OK
        if action in _ALWAYS:
            return sqlite3.SQLITE_OK
        if action == sqlite3.SQLITE_FUNCTION:
            # Python passes the function's name as the third argument (arg2).
            if (arg2 or "").lower() in SAFE_FUNCTIONS:
                return sqlite3.SQLITE_OK
            self.refusal = f"function {arg2}() is not allowed (non-deterministic or unsafe)"
            return sqlite3.SQLITE_DENY
        if action in _WRITES and self.mode == "write":
            if (arg1 == CHANGE_LOG and _source) or (arg1 == self.write_table and not (arg1 or "").startswith("sqlite_")):
                return sqlite3.SQLITE_OK
            self.refusal = f"{_WRITES[action]} on table {arg1!r} is outside this effect's table {self.write_table!r}"
            return sqlite3.SQLITE_DENY
        what = _NAMES.get(action, f"action {action}")
        target = f" {arg1!r}" if arg1 else ""
        self.refusal = f"{what}{target} is not allowed in a read-only query" if self.mode == "read" else (
            f"{what}{target} is not allowed in a marker effect"
        )
        return sqlite3.SQLITE_DENY

    def _progress(self) -> int:
        if self.mode == "engine":
            return 0
        self._ticks += 1
        if self._ticks > self._budget:
            self.refusal = f"query exceeded its budget of {self._budget * 1000:,} steps and was aborted"
            return 1
        return 0

    # ------------------------------------------------------------------ running

    def _run(self, mode: str, sql: str, params: Mapping[str, Any] | Sequence[Any], table: str,
             fetch: bool, names: bool = False, budget: int | None = None) -> Any:
        self.mode, self.write_table, self.refusal, self._ticks = mode, table, "", 0
        self._budget = budget if budget is not None else self.step_budget
        try:
            cursor = self.conn.execute(f"/*vw:{mode}:{table}*/ {sql}", params)
            if not fetch:
                return cursor
            rows = cursor.fetchall()
            return ([d[0] for d in cursor.description or ()], rows) if names else rows
        except sqlite3.Error as exc:
            raise self._translate(exc, sql) from None
        except (ValueError, OverflowError, TypeError) as exc:
            # e.g. "You can only execute one statement at a time", an unsupported parameter type
            raise QueryRefused(f"refused: {exc}") from None
        finally:
            self.mode = "engine"

    def _translate(self, exc: sqlite3.Error, sql: str) -> VeriwebError:
        text = str(exc)
        short = " ".join(sql.split())[:120]
        if self.refusal:
            return QueryRefused(f"refused: {self.refusal} (in: {short})")
        if any(s in text for s in ("not authorized", "interrupted", "one statement at a time", "too big")):
            return QueryRefused(f"refused: {text} (in: {short})")
        return QueryFailed(f"query failed: {text} (in: {short})")

    def read(self, sql: str, params: Mapping[str, Any] | Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Run read-only SQL and fetch every row.

        Raises:
            QueryRefused: the SQL tried to write, attach, change the schema, call a
                non-deterministic function, or ran past its step budget.
            QueryFailed: the SQL is otherwise wrong (no such table or column, syntax).
        """
        return self._run("read", sql, params, "", True)

    def read_named(self, sql: str, params: Mapping[str, Any] | Sequence[Any] = (), *,
                   budget: int | None = None) -> tuple[list[str], list[tuple[Any, ...]]]:
        """As :meth:`read`, also returning the column names.

        ``budget`` overrides the step budget: the engine gives queries it compiled itself from
        declarative lists (no recursion, no raw SQL: at worst a scan of a table) a larger one, so a
        50,000-row table still lists, while raw SQL predicates keep the small default.
        """
        return self._run("read", sql, params, "", True, names=True, budget=budget)

    def write(self, table: str, sql: str, params: Mapping[str, Any]) -> sqlite3.Cursor:
        """Run one write that may touch only ``table`` (and the change log)."""
        return self._run("write", sql, params, table, False)

    def engine(self, sql: str, params: Mapping[str, Any] | Sequence[Any] = ()) -> sqlite3.Cursor:
        """Run one of the engine's own statements (never scaffold text)."""
        self.mode = "engine"
        return self.conn.execute(sql, params)

    def engine_many(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        """Run one of the engine's own statements for many rows."""
        self.mode = "engine"
        self.conn.executemany(sql, rows)

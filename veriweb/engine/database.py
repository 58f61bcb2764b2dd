"""A site's database in SQLite: schema, seed rows, the change log, snapshots and state hashes."""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import sqlite3
import weakref
from dataclasses import dataclass, field
from typing import Any

from veriweb.engine.sqlguard import CHANGE_LOG, Guard
from veriweb.scaffold.site import ColumnType, Site, Table, View

SQL_TYPES: dict[str, str] = {
    "integer": "INTEGER", "real": "REAL", "text": "TEXT", "boolean": "INTEGER",
    "date": "TEXT", "datetime": "TEXT", "money": "INTEGER",
}


def quote(name: str) -> str:
    """Quote an identifier for SQL (identifiers are validated by the scaffold, this is belt and braces)."""
    return '"' + name.replace('"', '""') + '"'


def days_between(later: object, earlier: object) -> int | None:
    """``vw_days(later, earlier)`` in SQL: the whole days from one ``YYYY-MM-DD`` day (or the day of a
    ``YYYY-MM-DDTHH:MM:SS`` time) to another, negative if ``later`` is earlier; NULL if either is not a
    day. SQLite's own ``julianday`` is refused by the guard, since ``julianday('now')`` reads the wall
    clock; this one reads only its arguments."""
    try:
        return (_dt.date.fromisoformat(str(later)[:10]) - _dt.date.fromisoformat(str(earlier)[:10])).days
    except ValueError:
        return None


@dataclass
class Change:
    """One logged write: table, operation, and the row before and after (``None`` if absent)."""

    table: str
    op: str
    old: dict[str, Any] | None
    new: dict[str, Any] | None


@dataclass
class Database:
    """A session's SQLite database, built from a site and restorable from its seeded snapshot.

    Attributes:
        conn: the in-memory connection (autocommit; the engine opens transactions itself).
        guard: the authorizer through which every scaffold query runs.
        snapshot: the serialized seeded database that :meth:`reset` restores.
        column_types: the declared type of every table (and typed view) column.
        load_warnings: seed rows that could not be loaded as written (duplicate keys, ...).
    """

    conn: sqlite3.Connection
    guard: Guard
    snapshot: bytes = b""
    column_types: dict[str, dict[str, ColumnType]] = field(default_factory=dict)
    primary_keys: dict[str, str] = field(default_factory=dict)
    load_warnings: list[str] = field(default_factory=list)

    @classmethod
    def build(cls, site: Site, *, today: str, now_fn: Any) -> Database:
        """Create the schema, load the seed rows, add the change log, and take the snapshot.

        The first build from a site's ``database`` model is remembered while that model lives: a
        further session of the same site (the search, the probes, an env's sub-envs), or of a copy
        that shares the model (a site whose tasks were rewritten), gets a copy of its snapshot,
        about 0.1 ms instead of 20. The site must not be edited in place after its first session
        (edit a copy), as for the sessions' shared cache (:mod:`veriweb.engine.cache`).

        Args:
            site: the scaffold.
            today: the virtual date (``YYYY-MM-DD``) that ``vw_today()`` returns.
            now_fn: a callable returning the virtual time for ``vw_now()``.
        """
        def connect() -> Database:
            conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
            conn.create_function("vw_today", 0, lambda: today, deterministic=True)
            conn.create_function("vw_now", 0, now_fn)
            conn.create_function("vw_days", 2, days_between, deterministic=True)
            return cls(conn=conn, guard=Guard(conn))

        db = connect()
        template = _TEMPLATES.get(id(site.database))
        if template is not None and template.fits(site, today):
            db._copy(template)  # a further session of the same site: a copy of the first build
            return db
        base = _base(site, today)
        if base is not None:
            template, changed = base
            if db._derive(template, changed):
                _remember(site, today, db)
                return db
            db.conn.close()
            db = connect()
        db._build(site)
        _remember(site, today, db)
        return db

    def _copy(self, template: _Template) -> None:
        self.load(template.snapshot)
        self.snapshot = template.snapshot
        self.column_types = {table: dict(types) for table, types in template.column_types.items()}
        self.primary_keys = dict(template.primary_keys)
        self.load_warnings = list(template.load_warnings)

    def _derive(self, template: _Template, changed: list[Table]) -> bool:
        """Build from another model's build that differs only in the seed rows of ``changed``: its
        snapshot with those tables' rows replaced (the change log emptied, statistics analysed
        again). The same rows as a build from scratch, a few times faster (a repair that edits one
        table, the grounding check's rewritten data). ``False`` when a row does not load as written
        (the build from scratch then reports it)."""
        self._copy(template)
        engine = self.guard.engine
        engine("BEGIN")
        try:
            for table in changed:
                columns = [table.primary_key] + [c.name for c in table.columns if c.name != table.primary_key]
                known = set(columns)
                if not all(known.issuperset(row) for row in table.rows):
                    raise ValueError(f"a row of {table.name!r} has an unknown column")
                engine(f"DELETE FROM {quote(table.name)}")
                self.guard.engine_many(
                    f"INSERT INTO {quote(table.name)} ({', '.join(map(quote, columns))}) "
                    f"VALUES ({', '.join('?' for _ in columns)})",
                    [[row.get(name) for name in columns] for row in table.rows])
            engine(f"DELETE FROM {CHANGE_LOG}")
        except (sqlite3.Error, OverflowError, TypeError, ValueError):
            engine("ROLLBACK")
            return False
        engine("COMMIT")
        engine("ANALYZE")
        self.snapshot = self.conn.serialize()
        return True

    def _build(self, site: Site) -> None:
        self.guard.engine("BEGIN")  # one transaction for the whole build, not one per row
        self.guard.engine(f"CREATE TABLE {CHANGE_LOG} (seq INTEGER PRIMARY KEY, tbl TEXT, op TEXT, old TEXT, new TEXT)")
        for table in site.database.tables:
            self._create_table(table)
        for view in site.database.views:
            self.guard.engine("SAVEPOINT vw_view")
            try:
                self.guard.engine(f"CREATE VIEW {quote(view.name)} AS {view.sql}")
            except sqlite3.Error as exc:
                self.guard.engine("ROLLBACK TO vw_view")
                self.load_warnings.append(f"view {view.name!r} could not be created: {exc}")
            self.guard.engine("RELEASE vw_view")
        self.guard.engine("COMMIT")
        self.guard.engine("ANALYZE")
        self.snapshot = self.conn.serialize()

    def _create_table(self, table: Table) -> None:
        if table.name in self.column_types or table.name.startswith(("sqlite_", "_vw")):
            self.load_warnings.append(f"table {table.name!r} is declared twice or uses a reserved name; skipped")
            return
        columns = [c for c in table.columns if c.name != table.primary_key]
        self.column_types[table.name] = {c.name: c.type for c in table.columns}
        self.column_types[table.name].setdefault(table.primary_key, "integer")
        self.primary_keys[table.name] = table.primary_key
        defs = [f"{quote(table.primary_key)} INTEGER PRIMARY KEY"]
        defs += [f"{quote(c.name)} {SQL_TYPES[c.type]}" for c in columns if c.name != table.primary_key]
        names = [table.primary_key] + [c.name for c in columns]
        seen: set[str] = set()
        unique = [n for n in names if not (n in seen or seen.add(n))]  # type: ignore[func-returns-value]
        if len(unique) != len(names):
            self.load_warnings.append(f"table {table.name!r} declares a column twice; the first one is used")
            defs = [f"{quote(table.primary_key)} INTEGER PRIMARY KEY"] + [
                f"{quote(n)} {SQL_TYPES[self.column_types[table.name][n]]}" for n in unique[1:]
            ]
        self.guard.engine(f"CREATE TABLE {quote(table.name)} ({', '.join(defs)})")
        indexed: set[tuple[str, ...]] = set()
        wanted = [tuple(ix) for ix in table.indexes] + [(fk.column,) for fk in table.foreign_keys]
        for index in wanted:
            if index in indexed or not index or any(c not in self.column_types[table.name] for c in index):
                continue
            indexed.add(index)
            name = quote(f"ix_{table.name}_{'_'.join(index)}")
            self.guard.engine(f"CREATE INDEX {name} ON {quote(table.name)} ({', '.join(map(quote, index))})")
        self._load_rows(table, unique)
        self._add_triggers(table.name, unique)

    def _load_rows(self, table: Table, columns: list[str]) -> None:
        """Insert the seed rows: all at once when every row loads as written (bools bind as
        integers), else row by row, so that each row that cannot load is named in a warning."""
        placeholders = ", ".join("?" for _ in columns)
        insert = f"INSERT INTO {quote(table.name)} ({', '.join(map(quote, columns))}) VALUES ({placeholders})"
        known = set(columns)
        if all(known.issuperset(row) for row in table.rows):
            self.guard.engine("SAVEPOINT vw_rows")
            try:
                self.guard.engine_many(insert, [[row.get(name) for name in columns] for row in table.rows])
            except (sqlite3.Error, OverflowError, TypeError, ValueError):
                self.guard.engine("ROLLBACK TO vw_rows")  # a row to report (or a value to convert): one by one
            else:
                self.guard.engine("RELEASE vw_rows")
                return
            self.guard.engine("RELEASE vw_rows")
        for number, row in enumerate(table.rows):
            unknown = set(row) - known
            if unknown:
                self.load_warnings.append(f"{table.name} row {number} has unknown column(s) {sorted(unknown)}")
            values = [_sql_value(row.get(name)) for name in columns]
            self.guard.engine("SAVEPOINT vw_row")
            try:
                self.guard.engine(insert, values)
            except sqlite3.Error as exc:
                self.guard.engine("ROLLBACK TO vw_row")
                self.load_warnings.append(f"{table.name} row {number} not loaded: {exc}")
            self.guard.engine("RELEASE vw_row")

    def _add_triggers(self, name: str, columns: list[str]) -> None:
        def obj(prefix: str) -> str:
            return "json_object(" + ", ".join(f"'{c}', {prefix}.{quote(c)}" for c in columns) + ")"

        q = quote(name)
        for op, old, new in (("insert", "NULL", obj("NEW")), ("update", obj("OLD"), obj("NEW")),
                             ("delete", obj("OLD"), "NULL")):
            self.guard.engine(
                f"CREATE TRIGGER {quote(f'_vw_{op}_{name}')} AFTER {op.upper()} ON {q} BEGIN "
                f"INSERT INTO {CHANGE_LOG} (tbl, op, old, new) VALUES ('{name}', '{op}', {old}, {new}); END"
            )

    # ------------------------------------------------------------------ state

    def reset(self, *, undo_limit: int | None = None) -> None:
        """Return to the seeded state.

        Every write since the last reset is in the change log. Undoing them in reverse costs
        about 20 us a write, whatever the size of the database; restoring the serialized
        snapshot costs about 20 us plus 0.2 us per kilobyte. So a few writes on a large
        database are undone, and anything else restores the snapshot (``undo_limit`` overrides
        the choice). Both give the same rows: :meth:`state_hash` cannot tell them apart.
        """
        if undo_limit is None:
            undo_limit = min(256, len(self.snapshot) // 100_000)
        rows = self.guard.engine(
            f"SELECT tbl, op, old, new FROM {CHANGE_LOG} ORDER BY seq DESC LIMIT ?", (undo_limit + 1,)).fetchall()
        if not rows:
            return
        if len(rows) > undo_limit:
            self.restore_snapshot()
            return
        self.guard.engine("SAVEPOINT vw_undo")
        for table, op, old_text, new_text in rows:
            pk = self.primary_keys[table]
            old = json.loads(old_text) if old_text else None
            new = json.loads(new_text) if new_text else None
            if op == "insert":
                self.guard.engine(f"DELETE FROM {quote(table)} WHERE {quote(pk)} = ?", (new[pk],))
            elif op == "delete":
                names = list(old)
                self.guard.engine(f"INSERT INTO {quote(table)} ({', '.join(map(quote, names))}) "
                                  f"VALUES ({', '.join('?' for _ in names)})", [old[n] for n in names])
            else:
                names = list(old)
                self.guard.engine(f"UPDATE {quote(table)} SET {', '.join(f'{quote(n)} = ?' for n in names)} "
                                  f"WHERE {quote(pk)} = ?", [old[n] for n in names] + [new[pk]])
        self.guard.engine(f"DELETE FROM {CHANGE_LOG}")
        self.guard.engine("RELEASE vw_undo")

    def restore_snapshot(self) -> None:
        """Restore the serialized seeded snapshot, whatever happened since."""
        self.load(self.snapshot)

    def load(self, data: bytes) -> None:
        """Replace the whole database with serialized ``data`` (from ``conn.serialize()``).

        The schema is read back at once, by an engine statement: left to the next query, the
        reload would run under that query's step budget, and a reload cut short leaves the
        connection with no tables at all.
        """
        self.conn.deserialize(data)
        self.guard.engine("SELECT count(*) FROM sqlite_master").fetchone()

    def changes(self) -> list[Change]:
        """Every write since the last reset, in order."""
        rows = self.guard.engine(f"SELECT tbl, op, old, new FROM {CHANGE_LOG} ORDER BY seq").fetchall()
        return [Change(t, op, json.loads(o) if o else None, json.loads(n) if n else None) for t, op, o, n in rows]

    def change_count(self) -> int:
        """How many writes were logged since the last reset."""
        return self.guard.engine(f"SELECT count(*) FROM {CHANGE_LOG}").fetchone()[0]

    def state_hash(self) -> str:
        """A hash of every table's rows in key order: equal data, equal hash, whatever the file layout."""
        digest = hashlib.sha256()
        for table in sorted(self.column_types):
            columns = sorted(self.column_types[table])
            digest.update(f"\x00{table}\x00{','.join(columns)}\x00".encode())
            sql = (f"SELECT {', '.join(map(quote, columns))} FROM {quote(table)} "
                   f"ORDER BY {quote(self.primary_keys[table])}")
            for row in self.guard.engine(sql):
                digest.update(json.dumps(row, separators=(",", ":"), default=str).encode())
                digest.update(b"\n")
        return digest.hexdigest()[:32]


@dataclass(frozen=True)
class _Template:
    """The first build of a site's database, for copies."""

    today: str
    rows: tuple[int, ...]  # rows per table: adding or removing seed rows builds afresh
    snapshot: bytes
    column_types: dict[str, dict[str, ColumnType]]
    primary_keys: dict[str, str]
    load_warnings: tuple[str, ...]
    tables: tuple[Table, ...]
    views: tuple[View, ...]

    def fits(self, site: Site, today: str) -> bool:
        """Was this built from ``site`` as it is now, for the same virtual date?"""
        return today == self.today and tuple(len(t.rows) for t in site.database.tables) == self.rows

    def changed(self, site: Site, today: str) -> list[Table] | None:
        """The tables of ``site`` whose seed rows differ from this build's, when nothing else does
        (same date, schema and views, no load warning here); ``None`` otherwise."""
        tables = site.database.tables
        if (today != self.today or self.load_warnings or len(tables) != len(self.tables)
                or tuple(site.database.views) != self.views):
            return None
        out: list[Table] = []
        for new, old, count in zip(tables, self.tables, self.rows):
            if new is not old and ((new.name, new.primary_key) != (old.name, old.primary_key)
                                   or new.columns != old.columns or new.foreign_keys != old.foreign_keys
                                   or new.indexes != old.indexes):
                return None
            if len(new.rows) != count or (new.rows is not old.rows and new.rows != old.rows):
                out.append(new)  # a count changed in place is seen too (as :meth:`fits` sees it)
        return out


_TEMPLATES: dict[int, _Template] = {}
"""The first build per ``database`` model (by identity), dropped when the model is."""


def _base(site: Site, today: str) -> tuple[_Template, list[Table]] | None:
    """The remembered build that ``site``'s database differs from in the fewest tables' seed rows
    (only in rows, and not in all of its tables), with those tables."""
    best: tuple[_Template, list[Table]] | None = None
    for template in list(_TEMPLATES.values()):
        changed = template.changed(site, today)
        if changed is not None and len(changed) < len(template.tables) and (best is None or len(changed) < len(best[1])):
            best = (template, changed)
    return best


def _remember(site: Site, today: str, db: Database) -> None:
    key = id(site.database)
    template = _Template(today, tuple(len(t.rows) for t in site.database.tables), db.snapshot,
                         {table: dict(types) for table, types in db.column_types.items()}, dict(db.primary_keys),
                         tuple(db.load_warnings), tuple(site.database.tables), tuple(site.database.views))
    if key not in _TEMPLATES:
        weakref.finalize(site.database, _TEMPLATES.pop, key, None)
    _TEMPLATES[key] = template


def _sql_value(value: Any) -> Any:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True)
    return value

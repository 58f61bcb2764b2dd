"""Building a site's database: seed rows loaded in bulk, and rows that cannot load named one by one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from veriweb.engine.database import Database
from veriweb.scaffold import Site
from veriweb.scaffold.site import View


def build(site: Site) -> Database:
    return Database.build(site, today="2026-06-15", now_fn=lambda: "2026-06-15T09:00:00")


def with_rows(site: Site, change: Callable[[list[dict[str, Any]]], None], number: int = 0) -> tuple[Site, str, str]:
    """A copy of ``site`` whose table ``number``'s rows went through ``change``; also that table and its key."""
    copy = site.model_copy(deep=True)
    table = copy.database.tables[number]
    change(table.rows)
    return copy, table.name, table.primary_key


def rows_of(db: Database, table: str, key: str) -> list[tuple[Any, ...]]:
    return db.conn.execute(f'SELECT * FROM "{table}" ORDER BY "{key}"').fetchall()


def test_every_seed_row_loads_with_its_values(shop: Site) -> None:
    db = build(shop)
    assert db.load_warnings == []
    for table in shop.database.tables:
        loaded = db.conn.execute(f'SELECT count(*) FROM "{table.name}"').fetchone()[0]
        assert loaded == len(table.rows), table.name
    table = shop.database.tables[0]
    first = table.rows[0]
    cursor = db.conn.execute(f'SELECT * FROM "{table.name}" WHERE "{table.primary_key}" = ?',
                             (first[table.primary_key],))
    row = dict(zip([d[0] for d in cursor.description], cursor.fetchone()))
    assert all(row[name] == (int(value) if isinstance(value, bool) else value) for name, value in first.items())
    assert db.change_count() == 0  # loading the seed rows logs no change


def test_the_build_is_deterministic(shop: Site) -> None:
    assert build(shop.model_copy(deep=True)).snapshot == build(shop.model_copy(deep=True)).snapshot


def schema(db: Database) -> list[tuple[Any, ...]]:
    return db.conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name").fetchall()


def test_a_further_session_of_the_same_site_gets_an_independent_copy_of_the_first_build(shop: Site) -> None:
    site = shop.model_copy(deep=True)
    first = Database.build(site, today="2026-06-15", now_fn=lambda: "first")
    second = Database.build(site, today="2026-06-15", now_fn=lambda: "second")
    fresh = build(shop.model_copy(deep=True))  # another object: built from the scaffold
    assert second.conn is not first.conn and second.snapshot == first.snapshot == fresh.snapshot
    assert second.conn.serialize() == fresh.conn.serialize()
    assert schema(second) == schema(fresh) and second.state_hash() == fresh.state_hash()
    assert (second.column_types, second.primary_keys, second.load_warnings) == (
        fresh.column_types, fresh.primary_keys, fresh.load_warnings)
    assert second.column_types is not first.column_types
    # each connection has its own clock functions and its own rows
    assert first.conn.execute("SELECT vw_now(), vw_today()").fetchone() == ("first", "2026-06-15")
    assert second.conn.execute("SELECT vw_now(), vw_today()").fetchone() == ("second", "2026-06-15")
    table = site.database.tables[0]
    first.conn.execute(f'DELETE FROM "{table.name}"')
    assert len(rows_of(second, table.name, table.primary_key)) == len(table.rows)
    assert first.change_count() == 1 * len(table.rows) and second.change_count() == 0
    second.reset()
    assert second.state_hash() == fresh.state_hash()


def test_another_date_or_added_rows_build_afresh(shop: Site) -> None:
    site = shop.model_copy(deep=True)
    build(site)
    later = Database.build(site, today="2027-01-01", now_fn=lambda: "x")
    assert later.conn.execute("SELECT vw_today()").fetchone() == ("2027-01-01",)
    table = site.database.tables[0]
    table.rows.append({**table.rows[0], table.primary_key: 99_999})
    grown = build(site)
    assert rows_of(grown, table.name, table.primary_key)[-1][0] == 99_999


def test_a_duplicate_key_drops_that_row_only_and_says_which(shop: Site) -> None:
    site, name, key = with_rows(shop, lambda rows: rows.insert(1, dict(rows[0])))
    db = build(site)
    assert db.load_warnings == [f"{name} row 1 not loaded: UNIQUE constraint failed: {name}.{key}"]
    # every other row is there, the first copy of the key among them
    assert len(rows_of(db, name, key)) == len(shop.database.tables[0].rows)
    assert db.state_hash() == build(shop).state_hash()


def test_an_unknown_column_is_named_and_the_row_still_loads(shop: Site) -> None:
    def add(rows: list[dict[str, Any]]) -> None:
        rows.append({**rows[0], "nosuch": 1, shop.database.tables[0].primary_key: 99_999})

    site, name, key = with_rows(shop, add)
    db = build(site)
    assert db.load_warnings == [f"{name} row {len(site.database.tables[0].rows) - 1} has unknown column(s) ['nosuch']"]
    assert rows_of(db, name, key)[-1][0] == 99_999


@pytest.mark.parametrize("kind, value, stored", [
    ("integer", True, 1), ("integer", False, 0),
    ("text", {"b": [1, True], "a": None}, '{"a": null, "b": [1, true]}'), ("text", [3, "x"], '[3, "x"]')])
def test_booleans_bind_as_integers_and_structures_as_sorted_json(shop: Site, kind: str, value: Any,
                                                                 stored: Any) -> None:
    number, table, column = next((n, t, c.name) for n, t in enumerate(shop.database.tables) for c in t.columns
                                 if c.name != t.primary_key and c.type == kind)

    def add(rows: list[dict[str, Any]]) -> None:
        rows.append({**rows[0], column: value, table.primary_key: 99_999})
        rows.append({**rows[0], table.primary_key: 99_998})  # after the odd value, rows keep loading

    site, name, key = with_rows(shop, add, number)
    db = build(site)
    assert db.load_warnings == []
    got = db.conn.execute(f'SELECT "{column}" FROM "{name}" WHERE "{key}" = 99999').fetchone()[0]
    assert got == stored and type(got) is type(stored)
    assert len(rows_of(db, name, key)) == len(table.rows) + 2


def test_a_view_that_cannot_be_created_is_named_and_the_rest_stands(shop: Site) -> None:
    site = shop.model_copy(deep=True)
    site.database.views.append(View(name="v_broken", sql="SELEC 1"))
    db = build(site)
    assert db.load_warnings == ["view 'v_broken' could not be created: near \"SELEC\": syntax error"]
    assert db.state_hash() == build(shop).state_hash()


def scratch(site: Site) -> Database:
    """A build from the scaffold alone, with no earlier build to start from."""
    from veriweb.engine import database

    saved = dict(database._TEMPLATES)
    database._TEMPLATES.clear()
    try:
        return build(site.model_copy(deep=True))
    finally:
        database._TEMPLATES.clear()
        database._TEMPLATES.update(saved)


def _same_data(derived: Database, fresh: Database) -> None:
    assert derived.state_hash() == fresh.state_hash() and schema(derived) == schema(fresh)
    assert (derived.column_types, derived.primary_keys, derived.load_warnings) == (
        fresh.column_types, fresh.primary_keys, fresh.load_warnings)
    stats = "SELECT tbl, idx, stat FROM sqlite_stat1 ORDER BY tbl, idx"
    assert derived.conn.execute(stats).fetchall() == fresh.conn.execute(stats).fetchall()
    assert derived.change_count() == 0


def test_a_copy_with_other_seed_rows_in_one_table_is_built_from_the_first_build(
        shop: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    derives: list[list[str]] = []
    real = Database._derive

    def spy(self: Database, template: Any, changed: list[Any]) -> bool:
        derives.append([t.name for t in changed])
        return real(self, template, changed)

    monkeypatch.setattr(Database, "_derive", spy)
    site = shop.model_copy(deep=True)
    first = build(site)
    number = next(n for n, t in enumerate(site.database.tables) if len(t.rows) >= 3)
    table = site.database.tables[number]
    rows = [dict(r) for r in table.rows[1:]]  # a row dropped and another one's values changed
    column = next(c.name for c in table.columns if c.name != table.primary_key and c.type == "text")
    rows[0][column] = "rewritten"
    tables = [t.model_copy(update={"rows": rows}) if t is table else t for t in site.database.tables]
    other = site.model_copy(update={"database": site.database.model_copy(update={"tables": tables})})
    derived = build(other)
    fresh = scratch(other)
    _same_data(derived, fresh)
    assert derives[-1] == [table.name]  # only that table was loaded again
    assert derived.state_hash() != first.state_hash()
    assert rows_of(derived, table.name, table.primary_key) == rows_of(fresh, table.name, table.primary_key)
    # the derived build is a template like any other: resetting it and copying it give its rows
    derived.conn.execute(f'DELETE FROM "{table.name}"')
    derived.reset()
    again = build(other)
    assert derived.state_hash() == again.state_hash() == fresh.state_hash()


def test_a_copy_whose_rows_do_not_load_is_built_from_scratch_and_says_why(shop: Site) -> None:
    site = shop.model_copy(deep=True)
    build(site)
    table = site.database.tables[0]
    rows = [*table.rows, {**table.rows[0], "nosuch": 1, table.primary_key: 99_999}, dict(table.rows[0])]
    tables = [table.model_copy(update={"rows": rows}), *site.database.tables[1:]]
    other = site.model_copy(update={"database": site.database.model_copy(update={"tables": tables})})
    db = build(other)
    fresh = scratch(other)
    assert db.load_warnings == fresh.load_warnings and len(db.load_warnings) == 2
    _same_data(db, fresh)


def test_a_copy_with_another_schema_or_view_is_built_from_scratch(shop: Site) -> None:
    site = shop.model_copy(deep=True)
    build(site)
    views = [*site.database.views, View(name="v_count", sql=f'SELECT count(*) AS n FROM "{site.database.tables[0].name}"')]
    other = site.model_copy(update={"database": site.database.model_copy(update={"views": views})})
    db = build(other)
    assert db.conn.execute("SELECT n FROM v_count").fetchone()[0] == len(site.database.tables[0].rows)
    _same_data(db, scratch(other))

"""What the sessions of one site share: rendered pages, query rows and judge results, by database version.

A session's ``version`` names its database content: ``"0"`` is the seeded snapshot, and every
committed marker moves it to a hash of the previous version, the marker, its arguments, the
logged-in user and the virtual time (code that writes to a database directly sets a fresh,
process-unique name). So two sessions of the same site object at the same version hold the
same rows, and a page state built by one is the page the other would build: the cache is kept
per site (by the parts of it that pages read: see :func:`site_cache`) and shared by all its
sessions (the episodes of an env, the sub-envs of a vector env, the search). So a site object
must not be edited in place once it has sessions (edit a copy; the database's build cache asks
the same); replacing its pages, layout, markers or database gives it another cache, and adding
seed rows is noticed when the next session starts, and empties the cache. Nothing may
depend on a hit: a session made with ``cache=False`` (or
while :data:`ENABLED` is false) builds everything afresh and gives the same bytes; the tests
compare the two.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from typing import Any

from veriweb.scaffold.site import Site

ENABLED = True
"""Default for new sessions: share the site's cache (``False``: every session computes everything)."""

ROWS_LIMIT = 20_000
"""Query results kept per site before the row cache is emptied."""


class SiteCache:
    """Pages (an LRU), query rows, and named memo tables for one site.

    Args:
        size: how many rendered page states to keep.
    """

    enabled = True

    def __init__(self, size: int = 512) -> None:
        self.size = size
        self.pages: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
        self.rows: dict[tuple[Any, ...], Any] = {}
        self.memos: dict[str, dict[Any, Any]] = {}
        self.shape: tuple[Any, ...] = ()
        self.pinned: tuple[Any, ...] = ()  # the site parts this cache belongs to (see site_cache)
        self._lock = threading.Lock()

    def page(self, key: tuple[Any, ...]) -> Any:
        """The page cached under ``key`` (marked recently used), or ``None``."""
        model = self.pages.get(key)
        if model is not None:
            try:  # one C call, atomic under the GIL: no lock needed on this hot path
                self.pages.move_to_end(key)
            except KeyError:  # another thread dropped it meanwhile
                pass
        return model

    def put_page(self, key: tuple[Any, ...], model: Any) -> Any:
        """Cache ``model`` under ``key`` (dropping the least recently used beyond ``size``); returns it."""
        with self._lock:
            self.pages[key] = model
            while len(self.pages) > self.size:
                self.pages.popitem(last=False)
        return model

    def row(self, key: tuple[Any, ...]) -> Any:
        """A cached query result, or ``None``."""
        return self.rows.get(key)

    def put_row(self, key: tuple[Any, ...], value: Any) -> Any:
        """Cache a query result (the table is emptied when it grows past :data:`ROWS_LIMIT`); returns it."""
        if len(self.rows) >= ROWS_LIMIT:
            self.rows.clear()
        self.rows[key] = value
        return value

    def memo(self, name: str) -> dict[Any, Any]:
        """The memo table ``name`` (its users keep it bounded and key it by version)."""
        table = self.memos.get(name)
        if table is None:
            table = self.memos[name] = {}
        return table

    def clear(self) -> None:
        """Forget everything."""
        with self._lock:
            self.pages.clear()
        self.rows.clear()
        for table in self.memos.values():
            table.clear()


class _Forgetful(dict):  # type: ignore[type-arg]
    """A dict that stores nothing (the memo tables of an uncached session)."""

    def __setitem__(self, key: Any, value: Any) -> None:
        return None


class NoCache(SiteCache):
    """A cache that keeps nothing: every page and query is computed afresh."""

    enabled = False

    def put_page(self, key: tuple[Any, ...], model: Any) -> Any:
        return model

    def put_row(self, key: tuple[Any, ...], value: Any) -> Any:
        return value

    def memo(self, name: str) -> dict[Any, Any]:
        return _Forgetful()


_SHARED: dict[tuple[int, ...], SiteCache] = {}
_SHARED_LOCK = threading.Lock()


def site_cache(site: Site, size: int = 512) -> SiteCache:
    """The cache shared by the sessions of ``site``, at least ``size`` pages.

    What a page, a query or a judge result can depend on is the site's pages, layout, markers,
    database, sign-in and clock, so the cache belongs to those parts (by identity), not to the
    site object: a copy that shares them (a site whose tasks were rewritten, as repair and
    retargeting make) shares the cache. An entry holds the parts it is keyed by, so no identity
    can be reused while it lives, and is dropped when the ``database`` model is.
    """
    parts = _parts(site)
    key = tuple(map(id, parts))
    shape = _shape(site)
    with _SHARED_LOCK:
        cache = _SHARED.get(key)
        if cache is None:
            cache = _SHARED[key] = SiteCache(size)
            cache.pinned = parts[:-1]  # all but the database, whose end ends the entry
            weakref.finalize(site.database, _SHARED.pop, key, None)
        elif cache.size < size:
            cache.size = size
        if cache.shape != shape:
            cache.clear()
            cache.shape = shape
    return cache


def _parts(site: Site) -> tuple[Any, ...]:
    """The parts of a site that pages, queries and judge results read (the database last)."""
    return (site.pages, site.layout, site.markers, site.auth, site.clock, site.database)


def _shape(site: Site) -> tuple[Any, ...]:
    """What a session sees change when a site's database is edited in place (rows added or removed)."""
    return tuple(len(table.rows) for table in site.database.tables)


__all__ = ["ENABLED", "NoCache", "SiteCache", "site_cache"]

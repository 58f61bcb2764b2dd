"""Keep an env's long-lived objects out of the cycle collector's passes, and still collect the rest.

A random walk on new states builds a page per step and keeps it in its site's cache (pages,
rows, renderings: :mod:`veriweb.engine.cache`), so every step promotes a few hundred objects to
the collector's oldest generation. CPython runs a full pass each time the promoted objects reach
a quarter of those already there, and each pass walks all of them again: the site, its
snapshot, and every cached page (100,000 to 400,000 objects for an env's pool). That was 25 to
55% of a new-state step (``python bench/env_bench.py --breakdown --no-gc-freeze``), for
nothing: a step leaves no cyclic garbage (page nodes point at their parents weakly; a test
checks), so these passes never free anything.

:func:`after_step` therefore calls :func:`gc.freeze` after every step: what is alive then (the
site, the cached pages) moves to the permanent generation, which the passes skip. That only
moves the collector's lists, whatever their length, and frozen objects are still freed by
reference counting the moment nothing holds them (the cache's LRU dropping a page frees it).

Freezing is process-wide, so the caller's objects alive at a step's end are frozen too, and a
reference cycle of the caller's that becomes garbage later would sit there uncollected. So the
freeze is bounded: at the first step (of any env in the process, and again after a thaw), and
whenever the frozen objects have doubled since the last full pass, everything is thawed,
collected once, and frozen again. Counting the
frozen objects walks them all, so it is done every ``CHECK_EVERY`` steps (a step's share of it is
about a microsecond). The cost of
that pass is then amortised over as many objects as it walks, as CPython's own rule does, but
with a quarter as many passes, and garbage cycles wait at most one doubling. :func:`thaw` (called by
``env.close()``) gives everything back to the collector. ``gc_freeze=False`` on the env leaves the
collector alone (the default: while objects are frozen, :func:`gc.get_objects` and
:func:`gc.get_referrers` do not see them). Nothing an agent sees depends on when garbage is collected (a test compares
the bytes of a walk either way).
"""

from __future__ import annotations

import gc

CHECK_EVERY = 4_096
"""How many steps (of all envs in the process) between counts of the frozen objects."""

_since_pass = [0]
"""How many objects were frozen right after the last full pass (0: none yet in this process)."""
_steps = [0]
"""Steps since the frozen objects were last counted."""


def after_step() -> None:
    """Freeze what is alive; thaw, collect and freeze again when the frozen set has doubled."""
    if not _since_pass[0]:
        full_pass()
        return
    gc.freeze()
    _steps[0] += 1
    if _steps[0] >= CHECK_EVERY:
        _steps[0] = 0
        if gc.get_freeze_count() > 2 * _since_pass[0]:
            full_pass()


def full_pass() -> None:
    """Thaw everything, run one full collection, and freeze what survives."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    _since_pass[0] = max(1, gc.get_freeze_count())


def thaw() -> None:
    """Give every frozen object back to the collector (``env.close()``)."""
    gc.unfreeze()
    _since_pass[0] = _steps[0] = 0

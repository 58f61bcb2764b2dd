"""Static checks run again after a change: only those that read a part of the site the change touched.

Every check is a pure function of the site, so what it returns depends only on what it reads.
:func:`check_site` runs each check with the site traced: for the run, the site object itself
records which of its top-level fields (``pages``, ``database``, ``tasks``...) the check reads;
:func:`recheck` then runs a check on a changed site only when one of the fields it read has
changed, and otherwise keeps its issues as they were. A check that reads the site as a whole
(dumps it, copies it, compares it: see :data:`_WHOLE_FREE`) is always run again.

The reads are traced per run, not declared: a check that reads ``tasks`` only when some page has a
form is re-run when ``tasks`` changes on a site where it read them, and its reuse elsewhere is
still sound, because an unchanged input gives an unchanged path through the check.

Which fields changed is the caller's word (:func:`veriweb.verify.repair.apply_repairs` knows it
byte for byte, see :class:`veriweb.verify.repair._Ledger`); a field whose value differs only as
``1`` differs from ``1.0`` or ``True`` counts as changed there, as it must for the type checks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from veriweb.errors import VeriwebError
from veriweb.scaffold import Site
from veriweb.verify.checks import Issue, all_checks, one_run, reads_open

FIELDS = frozenset(Site.model_fields)
"""The site's top-level fields: the unit of change and of reading."""

WHOLE = "*"
"""The read set entry of a check that read the site as a whole."""

_WHOLE_FREE = frozenset({"__class__", "page", "marker", "task", "model_fields", "model_computed_fields",
                         "model_config", "__pydantic_validator__", "__pydantic_serializer__",
                         "__pydantic_core_schema__", "__pydantic_fields__", "__pydantic_decorators__",
                         "__pydantic_generic_metadata__", "__pydantic_complete__", "__pydantic_custom_init__",
                         "__pydantic_post_init__", "__pydantic_root_model__", "__class_vars__",
                         "__private_attributes__", "__signature__", "__len__"})
"""Attributes of a site that read no field, or read fields only through attribute access (the
lookups ``page``, ``marker``, ``task``); any other name that is not a field (``model_dump``,
``model_copy``, ``__dict__``, ``__eq__``...) counts as reading the whole site."""

class _TracedSite(Site):
    """A site that records, in the innermost open read set, which fields are read."""

    def __getattribute__(self, name: str) -> Any:
        if reads_open:
            if name in FIELDS:
                reads_open[-1].add(name)
            elif name not in _WHOLE_FREE:
                reads_open[-1].add(WHOLE)
        return super().__getattribute__(name)


@contextmanager
def _traced(site: Site) -> Iterator[bool]:
    """While open, ``site`` itself records its reads (its class is swapped for :class:`_TracedSite`,
    so it stays the same object: the engine's per-site caches, keyed by the object, still serve
    the sessions made of it later). Yields whether reads are traced (a subclass of
    :class:`~veriweb.scaffold.Site` is not: its checks count as reading the whole site)."""
    if type(site) is not Site:
        yield False
        return
    object.__setattr__(site, "__class__", _TracedSite)
    try:
        yield True
    finally:
        object.__setattr__(site, "__class__", Site)


@dataclass(frozen=True)
class CheckRun:
    """What each static check returned on ``site``, and which fields it read doing so."""

    site: Site
    results: tuple[tuple[tuple[Issue, ...], frozenset[str]], ...]

    @property
    def issues(self) -> list[Issue]:
        """Every issue, in the order :func:`veriweb.verify.checks.static_issues` gives them."""
        return [issue for found, _ in self.results for issue in found]

    def rerun(self, changed: Iterable[str]) -> list[int]:
        """Indexes of the checks that must run again when the fields ``changed`` changed.

        Raises:
            VeriwebError: ``changed`` names something that is not a field of a site.
        """
        changed = set(changed)
        unknown = changed - FIELDS
        if unknown:
            raise VeriwebError(f"recheck: {sorted(unknown)} are not fields of a site (they are: {sorted(FIELDS)})")
        return [n for n, (_, reads) in enumerate(self.results) if WHOLE in reads or reads & changed]


def _run(check: Callable[[Site], list[Issue]], site: Site, traced: bool
         ) -> tuple[tuple[Issue, ...], frozenset[str]]:
    reads_open.append(set() if traced else {WHOLE})
    try:
        found = tuple(check(site))
    finally:
        reads = reads_open.pop()
    return found, frozenset(reads)


def check_site(site: Site) -> CheckRun:
    """Run every static check on ``site``, tracing what each reads.

    Returns:
        The run: its ``issues`` are :func:`veriweb.verify.checks.static_issues` of ``site``.
    """
    with _traced(site) as traced, one_run():
        return CheckRun(site, tuple(_run(check, site, traced) for check in all_checks()))


def replaced(before: Site, after: Site) -> set[str]:
    """The fields of ``after`` that do not hold the very objects ``before`` holds (what
    :meth:`Site.model_copy` with ``update`` replaced); sound as long as no model is edited in place."""
    return {name for name in FIELDS if before.__dict__.get(name) is not after.__dict__.get(name)}


def recheck(site: Site, before: CheckRun, changed: Iterable[str] | None = None) -> CheckRun:
    """The static checks of ``site``, a changed copy of the site ``before`` was run on.

    Args:
        site: the site now.
        before: the run on the site before the change.
        changed: the top-level fields whose values differ between the two sites (by type as well
            as by value: ``1`` and ``1.0`` differ); every other field must hold equal data.
            ``None``: the fields :func:`replaced` finds.

    Raises:
        VeriwebError: ``before`` holds another number of checks' results than there are checks.

    Returns:
        The run on ``site``: the checks that read a changed field are run again (traced), the
        others keep their issues.
    """
    checks = all_checks()
    if len(checks) != len(before.results):
        raise VeriwebError(f"recheck: the run before has {len(before.results)} checks' results, and there are "
                         f"{len(checks)} checks now; check the site afresh with check_site")
    again = set(before.rerun(replaced(before.site, site) if changed is None else changed))
    with _traced(site) as traced, one_run():
        return CheckRun(site, tuple(_run(check, site, traced) if n in again else before.results[n]
                                    for n, check in enumerate(checks)))


__all__ = ["FIELDS", "WHOLE", "CheckRun", "check_site", "recheck", "replaced"]

"""Shared fixtures: the bundled example site and fresh sessions on it."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

import pytest

from veriweb.cli import load_site
from veriweb.engine import Session
from veriweb.scaffold import Site

T = TypeVar("T")


@pytest.fixture(scope="session")
def shop() -> Site:
    """The bundled example storefront."""
    return load_site(None)


@pytest.fixture()
def session(shop: Site) -> Session:
    """A fresh session on the example storefront, at its home page, logged out."""
    return Session(shop)


def quickly(call: Callable[[], T], limit: float = 0.1, repeats: int = 3) -> T:
    """Run ``call`` and check it can finish within ``limit`` seconds.

    The issue asks for refusals "within 100 ms". A loaded two-core machine adds noise to any
    one measurement, so this keeps the fastest of up to ``repeats`` runs: noise only ever adds
    time, and an operation that is really slow is slow every time.
    """
    best = float("inf")
    result: T | None = None
    for attempt in range(repeats):
        start = time.perf_counter()
        value = call()
        best = min(best, time.perf_counter() - start)
        if attempt == 0:
            result = value
        if best < limit:
            break
    assert best < limit, f"took {best * 1000:.1f} ms at best, over the {limit * 1000:.0f} ms limit"
    return result  # type: ignore[return-value]


@pytest.fixture(scope="session")
def fast() -> Callable[..., object]:
    """:func:`quickly`, as a fixture."""
    return quickly

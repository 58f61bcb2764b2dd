"""Shared fixtures: the bundled example site and fresh sessions on it."""

from __future__ import annotations

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


def quickly(call: Callable[[], T]) -> T:
    """Run ``call`` once and return its result.

    Tests that use it once asserted a wall-clock limit; a timing never decides a pass/fail
    test here (these machines are noisy), so the latency of refusals and parses is measured by
    ``bench/guard_bench.py`` instead, and what the tests check is what can be decided exactly:
    the refusal, its message and that nothing changed.
    """
    return call()


@pytest.fixture(scope="session")
def fast() -> Callable[..., object]:
    """:func:`quickly`, as a fixture."""
    return quickly

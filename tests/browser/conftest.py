"""Fixtures for the browser tests: one server and one headless Chromium per test module."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from veriweb.errors import VeriwebError


def _chromium() -> str:
    pytest.importorskip("playwright.sync_api", reason="the browser tests need Playwright (pip install -e '.[test]')")
    from veriweb.browser.chromium import chromium_path

    try:
        return chromium_path()
    except VeriwebError as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="session")
def chromium_path() -> str:
    """Debian's Chromium (the test is skipped without one)."""
    return _chromium()


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """A headless Debian Chromium under Playwright, for the whole module."""
    _chromium()
    from veriweb.browser.chromium import launch, shared_playwright

    browser = launch(shared_playwright())  # one Playwright per process, shared with BrowserGym
    yield browser
    browser.close()


@pytest.fixture(scope="session")
def sample_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small corpus with one site of every domain the generator knows."""
    from veriweb.generate.corpus import plan_corpus, write_corpus
    from veriweb.generate.domains import BLUEPRINTS

    out = tmp_path_factory.mktemp("corpus")
    plan = plan_corpus(len(BLUEPRINTS), ["all"], seed=int(os.environ.get("VERIWEB_PARITY_SEED", "6")))
    write_corpus(plan, out, workers=1, progress=False)
    return out


@pytest.fixture(scope="package", autouse=True)
def _stop_playwright_after_the_browser_tests() -> Iterator[None]:
    """Leave no Playwright loop running for the test packages that come after this one."""
    yield
    from veriweb.browser.chromium import stop_shared_playwright

    stop_shared_playwright()

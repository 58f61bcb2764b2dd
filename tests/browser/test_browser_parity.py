"""Certificates replayed in Chromium give the in-process world: same state hash, same accessibility trees."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from veriweb.browser.driver import BrowserDriver
from veriweb.browser.parity import check_certificate
from veriweb.cli import load_site
from veriweb.client import Client
from veriweb.generate.corpus import load_sites
from veriweb.server import Catalog, create_app
from veriweb.server.loopback import LoopbackServer


def _replay(chromium: Any, catalog: Catalog, tasks_per_site: int | None) -> list[str]:
    failures, hashes = [], 0
    with LoopbackServer(create_app(catalog, task_picker=False)) as server, \
            Client(server.url, server.token) as api:
        context = chromium.new_context()
        try:
            driver = BrowserDriver(context, server.url, api)
            for slug, site in catalog.sites.items():
                for task in site.tasks[:tasks_per_site]:
                    result = check_certificate(driver, slug, site, task)
                    hashes += result.engine_hash == result.browser_hash
                    if not result.ok:
                        failures.append(result.report())
        finally:
            context.close()
    assert hashes, "no certificate was replayed"
    return failures


def test_the_example_site_certificates_in_chromium(chromium: Any) -> None:
    failures = _replay(chromium, Catalog.of([load_site(None)]), None)
    assert not failures, "\n".join(failures)


def test_a_sample_of_every_domain_in_chromium(chromium: Any, sample_corpus: Path) -> None:
    sites = list(load_sites(sample_corpus))
    one_each = {site.domain: site for site in reversed(sites)}
    failures = _replay(chromium, Catalog.of(one_each.values()), 2)
    assert not failures, "\n".join(failures)


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("VERIWEB_PARITY_SITES"),
                    reason="an hour or more on two cores: set VERIWEB_PARITY_SITES=60 to run it")
def test_every_certificate_of_sixty_sites_in_chromium(chromium: Any, tmp_path: Path) -> None:
    """The issue's bar: every certificate of 60 sites of every domain (``VERIWEB_PARITY_SITES=60``).

    The same run as ``python -m veriweb.browser.parity CORPUS`` on a 60-site corpus.
    """
    from veriweb.generate.corpus import plan_corpus, write_corpus

    count = int(os.environ.get("VERIWEB_PARITY_SITES", "60"))
    write_corpus(plan_corpus(count, ["all"], seed=11), tmp_path, progress=False)
    failures = _replay(chromium, Catalog.of(load_sites(tmp_path)), None)
    assert not failures, f"{len(failures)} certificates differ:\n" + "\n".join(failures)

"""Parity: a task's certificate replayed in process and in Chromium must give the same world.

For each action of the certificate, the in-process episode steps and the browser acts; then
Chromium's accessibility tree must equal the engine's page (:func:`veriweb.browser.axtree.diff`,
hidden elements included). At the end the server's database hash must equal the in-process
one, and both must agree on success.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from veriweb.browser.axtree import diff, engine_view
from veriweb.browser.driver import BrowserDriver
from veriweb.engine import Episode
from veriweb.scaffold import Site, Task


@dataclass
class Parity:
    """The outcome of one certificate replayed both ways.

    Attributes:
        site: the site's name on the server; ``task`` the task id.
        steps: actions replayed.
        pages: page states compared.
        engine_hash: the in-process database hash at the end; ``browser_hash`` the server's.
        engine_success: the in-process verdict; ``browser_success`` the state API's.
        differences: every accessibility-tree difference, as ``step N action: detail``.
        errors: actions that failed in the browser but not in process.
    """

    site: str
    task: str
    steps: int = 0
    pages: int = 0
    engine_hash: str = ""
    browser_hash: str = ""
    engine_success: bool = False
    browser_success: bool = False
    differences: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Same hash, same verdict, same trees, no browser-only errors."""
        return (self.engine_hash == self.browser_hash and self.engine_success == self.browser_success
                and not self.differences and not self.errors)

    def report(self) -> str:
        """A readable account of what differed."""
        lines = [f"{self.site}/{self.task}: {self.steps} steps, {self.pages} pages compared; hash engine "
                 f"{self.engine_hash} Chromium {self.browser_hash}; success engine {self.engine_success} "
                 f"Chromium {self.browser_success}"]
        lines += [f"  error: {e}" for e in self.errors]
        lines += [f"  tree: {d}" for d in self.differences]
        return "\n".join(lines)


def check_certificate(driver: BrowserDriver, slug: str, site: Site, task: Task, *, trees: bool = True,
                      max_differences: int = 40) -> Parity:
    """Replay ``task``'s certificate in process and through ``driver``; compare after every step."""
    result = Parity(slug, task.id)
    episode = Episode(site, task)
    page = episode.reset()
    driver.reset(slug, task.id)
    if trees:
        _compare(result, "start", engine_view(page), driver, max_differences)
    outcome = None
    for number, action in enumerate(task.certificate, 1):
        outcome = episode.step(action)
        acted = driver.act(action)
        result.steps += 1
        if acted.error and not outcome.error:
            result.errors.append(f"step {number} {action}: {acted.error}")
        if trees:
            _compare(result, f"step {number} {action}", engine_view(outcome.page), driver, max_differences)
        if outcome.terminated or outcome.truncated:
            break
    result.engine_hash = episode.session.db.state_hash()
    result.engine_success = bool(outcome and outcome.success)
    assert driver.sid is not None
    result.browser_hash = driver.client.state(driver.sid)["db_hash"]
    result.browser_success = bool(driver.client.progress(driver.sid)["success"])
    return result


def _compare(result: Parity, where: str, engine: list, driver: BrowserDriver, limit: int) -> None:
    result.pages += 1
    if len(result.differences) >= limit:
        return
    found = diff(engine, driver.tree())
    result.differences.extend(f"{where}: {line}" for line in found[:limit - len(result.differences)])


def main(argv: list[str] | None = None) -> int:
    """``python -m veriweb.browser.parity SITE_OR_CORPUS ...``: replay every certificate in Chromium.

    Prints one line per site and every difference; exit code 1 if any certificate differs.
    """
    import argparse
    import time

    from playwright.sync_api import sync_playwright

    from veriweb.browser.chromium import launch
    from veriweb.client import Client
    from veriweb.server import Catalog, create_app
    from veriweb.server.loopback import LoopbackServer

    parser = argparse.ArgumentParser(prog="python -m veriweb.browser.parity", description=main.__doc__)
    parser.add_argument("sites", nargs="*", help="site files, example names or corpus directories (default: shop)")
    parser.add_argument("--tasks", type=int, default=None, help="at most this many tasks per site")
    parser.add_argument("--no-trees", action="store_true", help="compare state hashes and verdicts only")
    args = parser.parse_args(argv)
    catalog = Catalog.load(args.sites or [None])
    started = time.perf_counter()
    total = bad = steps = pages = 0
    domains: dict[str, int] = {}
    with LoopbackServer(create_app(catalog, task_picker=False)) as server, Client(server.url, server.token) as api, \
            sync_playwright() as playwright:
        browser = launch(playwright)
        driver = BrowserDriver(browser.new_context(), server.url, api)
        for slug, site in catalog.sites.items():
            site_bad = 0
            for task in site.tasks[:args.tasks]:
                result = check_certificate(driver, slug, site, task, trees=not args.no_trees)
                total, steps, pages = total + 1, steps + result.steps, pages + result.pages
                if not result.ok:
                    bad, site_bad = bad + 1, site_bad + 1
                    print(result.report(), flush=True)
            domains[site.domain] = domains.get(site.domain, 0) + 1
            print(f"{slug} ({site.domain}): {len(site.tasks[:args.tasks])} certificates, {site_bad} differ", flush=True)
        browser.close()
    print(f"{total} certificates on {len(catalog.sites)} sites ({', '.join(f'{d} {n}' for d, n in domains.items())}): "
          f"{total - bad} identical in Chromium (state hash, verdict, {pages} accessibility trees), {bad} differ; "
          f"{steps} steps in {time.perf_counter() - started:.0f} s", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())

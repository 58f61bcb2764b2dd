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

"""The site cache: shared by a site's sessions, and nothing depends on a hit (same bytes with it off)."""

from __future__ import annotations

import hashlib
import random
from typing import Any

import numpy as np
import pytest

from veriweb.engine import Episode, Session, axtree_text, element_list, html_page
from veriweb.engine import cache as caching
from veriweb.envs import DiscreteActions, VeriwebEnv
from veriweb.generate.site import generate_site
from veriweb.scaffold import Site


def _walk(session: Session, seed: int, steps: int) -> list[str]:
    """A seeded random walk (resets every 25 steps); each step's page renderings, ids and state."""
    rng = random.Random(seed)
    log: list[str] = []
    session.reset("/", user="alice")
    for number in range(steps):
        if number % 25 == 24:
            session.reset("/", user=rng.choice(["alice", "bob"]))
        page = session.page()
        nodes = [n for n in page.nodes if n.interactable and not page.blocked(n)]
        node = rng.choice(nodes)
        if node.editable:
            action = f"fill('{node.bid}', '{rng.choice(['red', '2', 'alice', 'alice-pass-42', ''])}')"
        elif node.role == "combobox":
            action = f"select_option('{node.bid}', '{rng.choice(node.children).name}')"
        else:
            action = f"click('{node.bid}')"
        result = session.step(action)
        page = session.page()
        log.append("\n".join([action, str(result.error), page.page_id, page.url, axtree_text(page),
                              repr(element_list(page)), html_page(page), session.version,
                              session.db.state_hash()]))
    return log


def test_sessions_share_the_site_cache_and_an_uncached_session_gives_the_same_bytes(shop: Site) -> None:
    first, second = Session(shop), Session(shop)
    assert first.cache is second.cache and first.cache.enabled
    uncached = Session(shop, cache=False)
    assert uncached.cache is not first.cache and not uncached.cache.enabled
    cached_run = _walk(first, 11, 150)
    hits_before = len(first.cache.pages)
    assert _walk(second, 11, 150) == cached_run  # the second walk is served from the first one's pages
    assert len(first.cache.pages) == hits_before
    assert _walk(uncached, 11, 150) == cached_run
    assert len(uncached.cache.pages) == 0


def test_the_version_names_who_wrote(shop: Site) -> None:
    """A marker's effects bind the logged-in user, so the same form sent by two users is two states."""
    task = shop.task("add_to_cart")
    assert task is not None
    states = []
    for user in ("carol", "bob"):
        session = Session(shop)
        session.reset(task.start_url, user=user)
        committed = [session.step(action).marker is not None for action in task.certificate]
        assert any(committed)
        states.append((session.version, session.db.state_hash()))
    assert states[0][0] != states[1][0] and states[0][1] != states[1][1]


def test_judge_results_are_shared_by_episodes_and_equal_uncached(shop: Site) -> None:
    outcomes = []
    for cache in (True, True, False):
        session = Session(shop, cache=cache)
        run = []
        for task in shop.tasks:
            episode = Episode(shop, task, session=session)
            episode.reset()
            for action in task.certificate:
                outcome = episode.step(action)
                run.append((task.id, outcome.reward, outcome.terminated, outcome.truncated, outcome.success,
                            outcome.progress, outcome.error, outcome.info))
                if outcome.terminated or outcome.truncated:
                    break
        outcomes.append(run)
    assert outcomes[0] == outcomes[1] == outcomes[2]
    assert all(any(step[4] for step in outcomes[0] if step[0] == task.id) for task in shop.tasks)


def _digest(obs: dict[str, Any]) -> str:
    digest = hashlib.sha256()
    for key in sorted(obs):
        value = obs[key]
        if isinstance(value, dict):
            for sub in sorted(value):
                digest.update(np.ascontiguousarray(value[sub]).tobytes())
        elif isinstance(value, np.ndarray):
            digest.update(value.tobytes())
        else:
            digest.update(str(value).encode())
    return digest.hexdigest()


def _episodes(sites: list[Site], steps: int) -> list[tuple[Any, ...]]:
    env = DiscreteActions(VeriwebEnv(sites=sites, reward="dense"))
    rng = np.random.default_rng(5)
    obs, info = env.reset(seed=3)
    log: list[tuple[Any, ...]] = [(_digest(obs), info["task"])]
    for _ in range(steps):
        mask = obs["action_mask"]
        kind = int(rng.choice(np.flatnonzero(mask["type"])))
        rows, args = np.flatnonzero(mask["element"][kind]), np.flatnonzero(mask["argument"][kind])
        action = np.array([kind, int(rng.choice(rows)) if len(rows) else 0, int(rng.choice(args)) if len(args) else 0])
        obs, reward, terminated, truncated, info = env.step(action)
        log.append((_digest(obs), reward, terminated, truncated, info["success"], info["progress"],
                    info["violation"], info["last_action_error"], info["action_text"]))
        if terminated or truncated:
            obs, info = env.reset()
            log.append((_digest(obs), info["task"]))
    return log


@pytest.fixture(scope="module")
def mail() -> Site:
    return generate_site("mail", 3)


def test_env_episodes_are_identical_with_the_cache_off(shop: Site, mail: Site,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    sites = [shop, mail]
    cached = _episodes(sites, 400)
    assert _episodes(sites, 400) == cached  # now mostly hits
    monkeypatch.setattr(caching, "ENABLED", False)
    assert _episodes(sites, 400) == cached
    assert sum(1 for entry in cached if len(entry) > 2 and entry[2]) > 3  # several episodes ended


def test_a_site_edited_in_place_before_a_new_session_is_not_served_stale_pages(shop: Site) -> None:
    site = shop.model_copy(deep=True)
    before = Session(site)
    stale = before.page()
    assert Session(site).page() is stale  # unchanged: shared
    table = next(t for t in site.database.tables if t.name == "products")
    table.rows.append({**table.rows[0], "id": 99_999, "name": "Added Product"})
    after = Session(site)
    assert after.cache is before.cache and after.page() is not stale
    assert axtree_text(after.page()) == axtree_text(Session(site, cache=False).page())

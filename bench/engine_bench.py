"""Engine speed: steps per second (observation included) and reset latency, on the example shop
and on the same shop grown to 5,000 and 50,000 records.

Run: ``python bench/engine_bench.py`` (``--steps N`` to change the workload, ``--no-cache`` for
sessions that share no cache of pages, rows and judge results: the baseline). Prints ratios
against the aims of the foundation issue and against MiniWoB++ and BrowserGym measured on
this kind of machine (MiniWoB++ in headless Chromium: about 36 steps/s and 50 ms a reset;
BrowserGym: about 1 to 3 steps/s and 3 s a reset). Times are CPU seconds of this process.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from veriweb.cli import load_site
from veriweb.engine import Episode, Session, axtree_text, element_list
from veriweb.engine import cache as caching
from veriweb.scaffold import Site

MINIWOB_STEPS_PER_S = 36.0
MINIWOB_RESET_S = 0.050
BROWSERGYM_STEPS_PER_S = 2.0
BROWSERGYM_RESET_S = 3.0
clock = time.process_time
"""CPU seconds of this process: on a shared machine, wall-clock figures measure the neighbours."""

ADJECTIVES = "Classic Slim Relaxed Vintage Everyday Heavy Light Organic Merino Waxed Striped Washed".split()
NOUNS = "Shirt Tee Polo Chinos Jeans Sneakers Boots Cap Beanie Jacket Hoodie Scarf Socks Belt".split()
COLOURS = "red blue navy white black grey beige olive brown green".split()


def grown(site: Site, records: int) -> Site:
    """The example site with products added until the database holds ``records`` rows."""
    data = site.model_dump(mode="json")
    tables = {t["name"]: t for t in data["database"]["tables"]}
    products = tables["products"]["rows"]
    existing = sum(len(t["rows"]) for t in tables.values())
    rng = random.Random(records)
    next_id = max(p["id"] for p in products) + 1
    for number in range(max(0, records - existing)):
        products.append({
            "id": next_id + number, "name": f"{rng.choice(ADJECTIVES)} {rng.choice(NOUNS)} {number}",
            "category_id": rng.randint(1, 4), "color": rng.choice(COLOURS), "price": rng.randint(500, 20000),
            "stock": rng.randint(0, 50), "rating": round(rng.uniform(2.5, 5.0), 1), "description": "Made to last.",
        })
    data["id"] = ""
    return Site.model_validate(data)


def random_walk(session: Session, steps: int, seed: int) -> float:
    """Steps per second of a seeded random agent, observation (both text renderings) included."""
    rng = random.Random(seed)
    session.reset("/", user="alice")
    start = clock()
    for number in range(steps):
        page = session.page()
        nodes = [n for n in page.nodes if n.interactable and not page.blocked(n)]
        node = rng.choice(nodes)
        if node.editable:
            action = f"fill('{node.bid}', '{rng.choice(['red', 'shirt', '2', ''])}')"
        elif node.role == "combobox":
            action = f"select_option('{node.bid}', {rng.choice(node.children).name!r})"
        else:
            action = f"click('{node.bid}')"
        session.step(action)
        axtree_text(session.page())
        element_list(session.page())
        if number % 40 == 39:
            session.reset("/", user="alice")
    return steps / (clock() - start)


def certificate_replay(site: Site, rounds: int) -> tuple[float, float]:
    """Steps per second replaying every certificate (judging included), and episode resets per second."""
    session = Session(site)
    episodes = [Episode(site, task, session=session) for task in site.tasks]
    steps = resets = 0
    start = clock()
    for _ in range(rounds):
        for episode in episodes:
            page = episode.reset()
            axtree_text(page), element_list(page)
            resets += 1
            for action in episode.task.certificate:
                outcome = episode.step(action)
                axtree_text(outcome.page), element_list(outcome.page)
                steps += 1
    elapsed = clock() - start
    return steps / elapsed, resets / elapsed


def reset_latency(site: Site, repeats: int = 500) -> tuple[float, float]:
    """Median seconds to reset after an episode that placed an order (the undo path: 8 writes),
    and to restore the whole serialized snapshot (the path for episodes with many writes)."""
    task = site.task("buy_under_budget")
    assert task is not None
    session = Session(site)
    episode = Episode(site, task, session=session)
    undo, restore = [], []
    for _ in range(repeats):
        episode.reset()
        for action in task.certificate:
            episode.step(action)
        writes = session.db.change_count()
        start = clock()
        session.db.reset()
        undo.append(clock() - start)
        assert writes > 0 and session.db.change_count() == 0
        start = clock()
        session.db.restore_snapshot()
        restore.append(clock() - start)
    return statistics.median(undo), statistics.median(restore)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=20_000, help="random-walk steps per site")
    parser.add_argument("--no-cache", action="store_true", help="sessions share no cache (a baseline)")
    args = parser.parse_args()
    if args.no_cache:
        caching.ENABLED = False
    base = load_site(None)
    rows = sum(len(t.rows) for t in base.database.tables)
    sites = [(f"example ({rows} records)", base, 10_000, 100e-6), ("5,000 records", grown(base, 5_000), 10_000, 100e-6),
             ("50,000 records", grown(base, 50_000), 10_000, 500e-6)]
    print(f"{'site':<24}{'random walk':>14}{'certificates':>14}{'reset':>10}{'snapshot':>11}  ratios")
    for label, site, aim_steps, aim_reset in sites:
        session = Session(site)
        walk = random_walk(session, args.steps, seed=0)
        replay, episode_resets = certificate_replay(site, rounds=20)
        reset, restore = reset_latency(site, repeats=200)
        print(f"{label:<24}{walk:>10,.0f} st/s{replay:>10,.0f} st/s{reset * 1e6:>7.1f} us{restore * 1e6:>8.1f} us"
              f"  walk {walk / aim_steps:.2f}x aim, {walk / MINIWOB_STEPS_PER_S:,.0f}x MiniWoB++,"
              f" {walk / BROWSERGYM_STEPS_PER_S:,.0f}x BrowserGym; reset {aim_reset / reset:.1f}x under aim"
              f" (snapshot {aim_reset / restore:.1f}x),"
              f" {MINIWOB_RESET_S / reset:,.0f}x MiniWoB++, {BROWSERGYM_RESET_S / reset:,.0f}x BrowserGym;"
              f" {episode_resets:,.0f} episode resets/s")


if __name__ == "__main__":
    main()

"""Env speed: single-env and vector-env steps per second per core, and reset latency, per domain.

Run: ``python bench/env_bench.py [--steps N] [--domains shop,forum]``. A seeded random policy
picks masked discrete actions (observation and masks included in the timing). Steps are split
by the page size (element count) they landed on, to report the median and 95th-percentile
page sizes separately. Ratios against the issue's aim (10,000 steps/s on one core) and against
MiniWoB++ in headless Chromium on this kind of machine (about 36 steps/s).
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import time

import numpy as np

from veriweb.envs import DiscreteActions, VeriwebEnv, VeriwebVectorEnv
from veriweb.generate.domains import MODULES

MINIWOB_STEPS_PER_S = 36.0
AIM = 10_000.0


def random_masked(rng: np.random.Generator, mask: dict[str, np.ndarray]) -> np.ndarray:
    kinds = np.flatnonzero(mask["type"])
    kind = int(rng.choice(kinds))
    rows = np.flatnonzero(mask["element"][kind])
    args = np.flatnonzero(mask["argument"][kind])
    return np.array([kind, int(rng.choice(rows)) if len(rows) else 0, int(rng.choice(args)) if len(args) else 0])


def single(domain: str, steps: int) -> tuple[float, float, float, float]:
    env = DiscreteActions(VeriwebEnv(domain, num_sites=8))
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=0)
    for seed in range(8):  # generate (and cache) the pool's sites outside the timing
        env.reset(seed=seed)
    samples: list[tuple[int, float]] = []
    resets: list[float] = []
    obs, _ = env.reset(seed=0)
    for _ in range(steps):
        action = random_masked(rng, obs["action_mask"])
        start = time.perf_counter()
        obs, _, terminated, truncated, _ = env.step(action)
        samples.append((int(obs["elements"]["mask"].sum()), time.perf_counter() - start))
        if terminated or truncated:
            start = time.perf_counter()
            obs, _ = env.reset()
            resets.append(time.perf_counter() - start)
    sizes = sorted(size for size, _ in samples)
    median_size, p95_size = sizes[len(sizes) // 2], sizes[int(len(sizes) * 0.95)]
    at_median = [t for size, t in samples if size <= median_size]
    at_p95 = [t for size, t in samples if size >= p95_size]
    return (len(at_median) / sum(at_median), len(at_p95) / sum(at_p95), statistics.median(resets),
            len(samples) / sum(t for _, t in samples))


def vector(domain: str, steps: int, num_envs: int = 8) -> float:
    """Steps per second of the batched in-process vector env under a seeded random clicker."""
    envs = VeriwebVectorEnv(num_envs, domain=domain, num_sites=8)
    rng = np.random.default_rng(1)
    envs.reset(seed=0)
    start = time.perf_counter()
    for _ in range(steps // num_envs):
        actions = []
        for env in envs.envs:
            bids = [n.bid for n in env.page.nodes if n.interactable and n.visible]
            actions.append(f"click('{bids[int(rng.integers(len(bids)))]}')" if bids else "noop()")
        envs.step(actions)
    return (steps // num_envs) * num_envs / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=4_000)
    parser.add_argument("--domains", default="all")
    args = parser.parse_args()
    domains = [d for d in MODULES if importlib.util.find_spec(MODULES[d])] if args.domains == "all" else args.domains.split(",")
    print(f"{'domain':<8}{'median page':>14}{'p95 page':>12}{'all':>10}{'vector x8':>12}{'reset':>10}  ratios (single env, one core)")
    for domain in domains:
        at_median, at_p95, reset, overall = single(domain, args.steps)
        vec = vector(domain, args.steps)
        print(f"{domain:<8}{at_median:>9,.0f} st/s{at_p95:>7,.0f} st/s{overall:>7,.0f}/s{vec:>8,.0f} st/s{reset * 1e3:>7.2f} ms"
              f"  {overall / AIM:.2f}x aim, {overall / MINIWOB_STEPS_PER_S:,.0f}x MiniWoB++")


if __name__ == "__main__":
    main()

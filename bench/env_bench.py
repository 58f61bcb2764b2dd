"""Env speed: single-env and vector-env steps per second per core, and reset latency, per domain.

Run: ``python bench/env_bench.py [--steps N] [--domains shop,forum]``.

Two workloads per domain, on the 8 generated sites of the env's pool (generated outside the
timing):

- ``explore``: a seeded random policy over the masked discrete actions (observation and masks
  included), which sends an answer or reports infeasible only 5% of the time, so episodes run
  long. Steps are split by the page size (element rows) they landed on: steps on pages within
  10% of the median size, and steps on pages at or above the 95th-percentile size.
  ``again``: the same walk a second time, on states the site's cache already holds (what a
  policy revisiting a fixed pool of sites meets once it has been there).
- ``replay``: the tasks' certificates through the discrete actions (what a good policy does).
- ``random``: the realistic mix: :meth:`DiscreteActions.sample` (uniform over the masked types, then
  rows and arguments) with the final types (answer, infeasible) masked out, so every episode runs
  to its 40-step horizon; resets included in the time; a fresh env (its first states are new).

``--breakdown`` instead prints where an ``explore`` step's CPU goes, per domain: the page build
(``Session._build``), field overlays (the typed rows of a page typed into, and the whole overlaid tree when
something reads it: ``OverlaidPage.changed`` and ``_make``), the judge, the rest of the session's step, the observation
(full encodings and patches), the action masks, the cycle collector, and everything else (decoding,
info, copies), each as exclusive time (a part's time leaves out the parts timed inside it, and
the collector's passes leave out of whatever part they interrupted).

``--gc-freeze`` makes the envs with ``gc_freeze=True`` (what is alive after every step is frozen out
of the cycle collector's passes, with a full pass whenever that doubles: see
:mod:`veriweb.envs.freezing`).
``--no-cache`` turns off the cache a site's sessions share (pages, query rows, judge results by
database version; :mod:`veriweb.engine.cache`), for a baseline: the bytes are the same either way.

Times are CPU seconds of this process (``time.process_time``), so "per core" holds on a
shared machine; the load average is printed next to them. ``engine`` is the share of a step
spent in ``Episode.step`` (session, page build, judge); the rest is the env's own work
(decoding, observation, masks, info). Also the batched in-process vector env (8 sub-envs) and
the reset latency (median, CPU). Ratios against the issue's aim (10,000 steps/s on one core) and
against MiniWoB++ in headless Chromium on this kind of machine (about 36 steps/s).
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import os
import statistics
import time
from typing import Any

import numpy as np

from veriweb.engine import cache as caching
from veriweb.engine.episode import Episode
from veriweb.engine.judge import Judge
from veriweb.engine.page import OverlaidPage
from veriweb.engine.session import Session
from veriweb.envs import DiscreteActions, VeriwebEnv, VeriwebVectorEnv
from veriweb.envs import freezing
from veriweb.envs import observation as observation_module
from veriweb.envs.actions import ACTION_TYPES
from veriweb.generate.domains import MODULES

SEND, INFEASIBLE = ACTION_TYPES.index("send"), ACTION_TYPES.index("infeasible")
MINIWOB_STEPS_PER_S = 36.0
AIM = 10_000.0
GC_FREEZE = False
"""Make the envs with ``gc_freeze=True`` (``--gc-freeze``)."""
clock = time.process_time


class EngineTimer:
    """Adds up the CPU time spent inside ``Episode.step`` while installed."""

    def __init__(self) -> None:
        self.total = 0.0
        self._original = Episode.step

    def __enter__(self) -> EngineTimer:
        original, timer = self._original, self

        def step(episode: Episode, action: str) -> Any:
            start = clock()
            try:
                return original(episode, action)
            finally:
                timer.total += clock() - start

        Episode.step = step  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        Episode.step = self._original  # type: ignore[method-assign]


class Breakdown:
    """Exclusive CPU time per part of a step while installed (see ``--breakdown``)."""

    PARTS = ((Session, "_build", "build"), (OverlaidPage, "changed", "typed"), (OverlaidPage, "_make", "overlay"), (Judge, "progress", "judge"),
             (Session, "step", "session step"), (observation_module, "_encode", "encode"),
             (observation_module, "_patch", "patch"), (observation_module, "_patch_rows", "patch"), (DiscreteActions, "masks", "masks"))

    @classmethod
    def labels(cls) -> list[str]:
        """The parts' labels, each once (two functions may share one)."""
        return list(dict.fromkeys(label for _, _, label in cls.PARTS))

    def __init__(self) -> None:
        self.totals: dict[str, float] = {}
        self._stack: list[list[float]] = []
        self._saved: list[tuple[Any, str, Any]] = []
        self._gc_start = 0.0

    def _wrap(self, owner: Any, name: str, label: str) -> None:
        original = getattr(owner, name)
        stack, totals = self._stack, self.totals

        def timed(*args: Any, **kwargs: Any) -> Any:
            inner = [0.0]
            stack.append(inner)
            start = clock()
            try:
                return original(*args, **kwargs)
            finally:
                elapsed = clock() - start
                stack.pop()
                totals[label] = totals.get(label, 0.0) + elapsed - inner[0]
                if stack:
                    stack[-1][0] += elapsed

        self._saved.append((owner, name, original))
        setattr(owner, name, timed)

    def _collector(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._gc_start = clock()
            return
        elapsed = clock() - self._gc_start
        self.totals["collector"] = self.totals.get("collector", 0.0) + elapsed
        if self._stack:
            self._stack[-1][0] += elapsed

    def __enter__(self) -> Breakdown:
        for owner, name, label in self.PARTS:
            self._wrap(owner, name, label)
        gc.callbacks.append(self._collector)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self._collector)
        for owner, name, original in reversed(self._saved):
            setattr(owner, name, original)


def breakdown(domain: str, steps: int) -> tuple[float, dict[str, float]]:
    """Microseconds per ``explore`` step, and each part's share of it (see ``--breakdown``)."""
    env = make_env(domain)
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=0)
    total = 0.0
    with Breakdown() as parts:
        for _ in range(steps):
            action = explore_action(rng, obs["action_mask"])
            start = clock()
            obs, _, terminated, truncated, _ = env.step(action)
            total += clock() - start
            if terminated or truncated:  # what a reset does is no part of a step
                saved = dict(parts.totals)
                obs, _ = env.reset()
                parts.totals.clear()
                parts.totals.update(saved)
    shares = {label: parts.totals.get(label, 0.0) / total for label in Breakdown.labels()}
    shares["collector"] = parts.totals.get("collector", 0.0) / total
    shares["other"] = 1.0 - sum(shares.values())
    env.close()  # gives what it froze back to the collector (gc_freeze)
    return total / steps * 1e6, shares


def explore_action(rng: np.random.Generator, mask: dict[str, np.ndarray]) -> np.ndarray:
    """A masked random action that ends the episode (answer, infeasible) only 5% of the time."""
    kinds = np.flatnonzero(mask["type"])
    ongoing = [k for k in kinds if k not in (SEND, INFEASIBLE)]
    kind = int(rng.choice(ongoing if ongoing and rng.random() > 0.05 else kinds))
    rows = np.flatnonzero(mask["element"][kind])
    args = np.flatnonzero(mask["argument"][kind])
    return np.array([kind, int(rng.choice(rows)) if len(rows) else 0, int(rng.choice(args)) if len(args) else 0])


def make_env(domain: str) -> DiscreteActions:
    env = DiscreteActions(VeriwebEnv(domain, num_sites=8, gc_freeze=GC_FREEZE))
    for seed in range(8):  # generate (and cache) the pool's sites outside the timing
        env.reset(seed=seed)
    if GC_FREEZE:  # and the full pass a process's first step makes (veriweb.envs.freezing)
        freezing.full_pass()
    return env


def explore(domain: str, steps: int) -> dict[str, float]:
    """Steps/s of the random explorer, overall and at the median and p95 page sizes; reset latency."""
    env = make_env(domain)
    rng = np.random.default_rng(0)
    samples: list[tuple[int, float]] = []
    resets: list[float] = []
    actions: list[np.ndarray] = []
    obs, _ = env.reset(seed=0)
    with EngineTimer() as engine:
        for _ in range(steps):
            action = explore_action(rng, obs["action_mask"])
            actions.append(action)
            start = clock()
            obs, _, terminated, truncated, _ = env.step(action)
            samples.append((int(obs["elements"]["mask"].sum()), clock() - start))
            if terminated or truncated:
                start = clock()
                obs, _ = env.reset()
                resets.append(clock() - start)
    # The same walk again: every state was seen, so this is the speed on states the site's cache holds.
    again = 0.0
    env.reset(seed=0)
    for action in actions:
        start = clock()
        _, _, terminated, truncated, _ = env.step(action)
        again += clock() - start
        if terminated or truncated:
            env.reset()
    sizes = sorted(size for size, _ in samples)
    median_size, p95_size = sizes[len(sizes) // 2], sizes[int(len(sizes) * 0.95)]
    at_median = [t for size, t in samples if 0.9 * median_size <= size <= 1.1 * median_size]
    at_p95 = [t for size, t in samples if size >= p95_size]
    total = sum(t for _, t in samples)
    env.close()
    return {"median_size": median_size, "p95_size": p95_size, "at_median": len(at_median) / sum(at_median),
            "at_p95": len(at_p95) / sum(at_p95), "all": len(samples) / total, "engine": engine.total / total,
            "again": len(actions) / again,
            "reset": statistics.median(resets) if resets else float("nan")}


def replay(domain: str, rounds: int = 3) -> dict[str, float]:
    """Steps/s replaying every certificate of the pool's sites through the discrete actions."""
    env = make_env(domain)
    steps, total = 0, 0.0
    with EngineTimer() as engine:
        for _ in range(rounds):
            for index in range(8):
                for task in env.base.pool.site(index).tasks:
                    env.reset(options={"site": index, "task": task.id})
                    for action in task.certificate:
                        try:
                            discrete = env.encode(action)
                        except Exception:  # an unmapped certificate: replay its remaining steps elsewhere
                            break
                        start = clock()
                        env.step(discrete)
                        total += clock() - start
                        steps += 1
    env.close()
    return {"all": steps / total if total else float("nan"), "engine": engine.total / total if total else 0.0}


def random_mix(domain: str, steps: int) -> dict[str, float]:
    """Steps/s of a uniform masked random policy with resets (episodes of at most 40 steps), resets timed."""
    env = DiscreteActions(VeriwebEnv(domain, num_sites=8, max_steps=40, gc_freeze=GC_FREEZE))
    for seed in range(8):  # generate (and cache) the pool's sites outside the timing
        env.reset(seed=seed)
    if GC_FREEZE:  # the full pass a process's first step makes (veriweb.envs.freezing), outside the timing
        freezing.full_pass()
    env.action_space.seed(0)
    start = clock()
    obs, _ = env.reset(seed=100)
    episodes = 1
    for _ in range(steps):
        mask = dict(obs["action_mask"])
        mask["type"] = mask["type"].copy()
        mask["type"][[SEND, INFEASIBLE]] = 0
        obs, _, terminated, truncated, _ = env.step(env.sample(mask))
        if terminated or truncated:
            obs, _ = env.reset()
            episodes += 1
    rate = steps / (clock() - start)
    env.close()
    return {"all": rate, "length": steps / episodes}


def vector(domain: str, steps: int, num_envs: int = 8) -> float:
    """Steps/s of the batched in-process vector env under a seeded random clicker."""
    envs = VeriwebVectorEnv(num_envs, domain=domain, num_sites=8, gc_freeze=GC_FREEZE)
    rng = np.random.default_rng(1)
    for env in envs.envs:  # each sub-env builds its own database of each site once: outside the timing
        for seed in range(8):
            env.reset(seed=seed)
    envs.reset(seed=0)
    start = clock()
    for _ in range(steps // num_envs):
        actions = []
        for env in envs.envs:
            page = env.page
            bids = [b for b in env.element_bids if page.by_bid[b].interactable and page.by_bid[b].visible]
            actions.append(f"click('{bids[int(rng.integers(len(bids)))]}')" if bids else "noop()")
        envs.step(actions)
    rate = (steps // num_envs) * num_envs / (clock() - start)
    envs.close()
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=4_000)
    parser.add_argument("--domains", default="all")
    parser.add_argument("--gc-freeze", action="store_true", help="envs made with gc_freeze=True")
    parser.add_argument("--quick", action="store_true", help="explore and random only (no replay, no vector env)")
    parser.add_argument("--breakdown", action="store_true", help="where an explore step's CPU goes, per domain")
    parser.add_argument("--no-cache", action="store_true",
                        help="sessions share no cache (veriweb.engine.cache.ENABLED = False): every page, query and "
                             "judge result is computed afresh, as a baseline")
    args = parser.parse_args()
    if args.no_cache:
        caching.ENABLED = False
    global GC_FREEZE
    GC_FREEZE = args.gc_freeze
    domains = ([d for d in MODULES if importlib.util.find_spec(MODULES[d])] if args.domains == "all"
               else args.domains.split(","))
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores; "
          f"site cache {'on' if caching.ENABLED else 'off'}; gc_freeze {GC_FREEZE}")
    if args.breakdown:
        labels = Breakdown.labels() + ["collector", "other"]
        print(f"{'domain':<8}{'us/step':>9}" + "".join(f"{label:>14}" for label in labels) + "   (explore; exclusive CPU)")
        for domain in domains:
            micros, shares = breakdown(domain, args.steps)
            print(f"{domain:<8}{micros:>9.0f}" + "".join(f"{shares[label]:>14.0%}" for label in labels))
        return
    print(f"{'domain':<8}{'pages med/p95':>14}{'@median':>10}{'@p95':>9}{'explore':>10}{'engine':>8}{'again':>8}"
          f"{'replay':>9}{'engine':>8}{'vector x8':>11}{'reset':>9}{'random':>8}{'(len)':>6}   (steps per CPU-second)")
    for domain in domains:
        e = explore(domain, args.steps)
        mix = random_mix(domain, args.steps)
        r = replay(domain) if not args.quick else {"all": float("nan"), "engine": float("nan")}
        vec = vector(domain, args.steps) if not args.quick else float("nan")
        print(f"{domain:<8}{e['median_size']:>7.0f}/{e['p95_size']:<6.0f}{e['at_median']:>10,.0f}{e['at_p95']:>9,.0f}"
              f"{e['all']:>10,.0f}{e['engine']:>8.0%}{e['again']:>8,.0f}{r['all']:>9,.0f}{r['engine']:>8.0%}{vec:>11,.0f}"
              f"{e['reset'] * 1e3:>7.2f}ms{mix['all']:>8,.0f}{mix['length']:>6.1f}   {e['all'] / AIM:.2f}x aim, "
              f"{e['all'] / MINIWOB_STEPS_PER_S:,.0f}x MiniWoB++")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()

"""Compact-policy figures: parameters, forward latency per batch size, BC updates per second (prints, never asserts).

Usage::

    python bench/agents_bench.py --corpus DIR [--preset full] [--batches 1,8,64]

Runs on one torch thread (the machine is shared; more threads spin against other jobs). Forward and
update times are CPU seconds of this process (``time.process_time``), so neighbours on a loaded
machine do not inflate them; wall-clock time on a busy machine is a multiple of these.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace

import numpy as np
import torch

from veriweb.agents.bc import bc_loss, collect
from veriweb.agents.policy import Policy, parameter_count, to_tensors
from veriweb.agents.presets import get_preset
from veriweb.generate.corpus import load_sites


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--preset", default="full")
    parser.add_argument("--sites", type=int, default=4, help="sites whose certificates make the batches")
    parser.add_argument("--batches", default="1,8,64")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    torch.set_num_threads(1)
    sites = list(load_sites(args.corpus))[: args.sites]
    start = time.perf_counter()
    demos = collect(sites)
    collect_s = time.perf_counter() - start
    print(f"collect: {len(demos)} steps from {demos.used}/{demos.tasks} certificates in {collect_s:.1f}s "
          f"({len(demos) / collect_s:.0f} steps/s, env included)")
    policy = Policy(replace(demos.config, **get_preset(args.preset).policy))
    print(f"policy ({args.preset}): {parameter_count(policy):,} parameters")
    optimizer = torch.optim.AdamW(policy.parameters(), lr=1e-3)
    for size in (int(x) for x in args.batches.split(",")):
        index = np.arange(size) % len(demos)
        batch = {k: v[index] for k, v in demos.features.items()}
        times, updates = [], []
        for _ in range(args.repeats):
            t = time.process_time()
            with torch.no_grad():
                policy(to_tensors(batch))
            times.append(time.process_time() - t)
            t = time.process_time()
            loss, _ = bc_loss(policy, batch, demos.actions[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            updates.append(time.process_time() - t)
        print(f"batch {size:>4}: act {1000 * np.median(times):7.1f} CPU ms (median), "
              f"BC update {1000 * np.median(updates):7.1f} CPU ms, {size / np.median(updates):7.0f} samples per CPU s")


if __name__ == "__main__":
    main()

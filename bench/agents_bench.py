"""Compact-policy figures: parameters, forward latency per batch size, BC updates per second (prints, never asserts).

Usage::

    python bench/agents_bench.py --corpus DIR [--preset full] [--batches 1,8,32,64] [--against WORKTREE]

With ``--against``, the ``Policy`` of another checkout (``WORKTREE/veriweb/agents/policy.py``, e.g. a
``git worktree`` of an earlier commit) runs the same batches with the same weights, interleaved with this
one (so a neighbour's load hits both alike), and each line gives both figures and their ratio.

Runs on one torch thread (the machine is shared; more threads spin against other jobs). Forward and
update times are CPU seconds of this process (``time.process_time``), so neighbours on a loaded
machine do not inflate them; wall-clock time on a busy machine is a multiple of these.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from dataclasses import replace
from pathlib import Path

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
    parser.add_argument("--batches", default="1,8,32,64")
    parser.add_argument("--against", help="root of another veriweb checkout whose Policy to time alongside")
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
    policies = {"this": policy}
    if args.against:
        other = _reference(Path(args.against)).Policy(policy.config)
        other.load_state_dict(policy.state_dict())
        policies["against"] = other
    optimizers = {name: torch.optim.AdamW(p.parameters(), lr=1e-3) for name, p in policies.items()}
    for size in (int(x) for x in args.batches.split(",")):
        index = np.arange(size) % len(demos)
        batch = {k: v[index] for k, v in demos.features.items()}
        times: dict[str, list[float]] = {name: [] for name in policies}
        updates: dict[str, list[float]] = {name: [] for name in policies}
        for _ in range(args.repeats):
            for name, p in policies.items():
                t = time.process_time()
                with torch.no_grad():
                    p(to_tensors(batch))
                times[name].append(time.process_time() - t)
                t = time.process_time()
                loss, _ = bc_loss(p, batch, demos.actions[index])
                optimizers[name].zero_grad()
                loss.backward()
                optimizers[name].step()
                updates[name].append(time.process_time() - t)
        act, update = (np.median(times["this"]), np.median(updates["this"]))
        line = (f"batch {size:>4}: act {1000 * act:7.1f} CPU ms (median), BC update {1000 * update:7.1f} CPU ms, "
                f"{size / update:7.0f} samples per CPU s")
        if "against" in policies:
            act_o, update_o = np.median(times["against"]), np.median(updates["against"])
            line += (f" | against: act {1000 * act_o:7.1f} ms (x{act_o / act:.2f}), update {1000 * update_o:7.1f} ms, "
                     f"{size / update_o:7.0f} samples per CPU s (x{update_o / update:.2f})")
        print(line)


def _reference(worktree: Path):  # type: ignore[no-untyped-def]
    """The ``veriweb.agents.policy`` module of another checkout, imported under its own name."""
    path = worktree / "veriweb" / "agents" / "policy.py"
    if not path.is_file():
        raise SystemExit(f"--against {worktree}: no {path}; give the root of a veriweb checkout")
    spec = importlib.util.spec_from_file_location("against_policy", path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules[spec.name] = module  # type: ignore[union-attr]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module

if __name__ == "__main__":
    main()

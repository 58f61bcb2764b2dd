"""``veriweb train``, ``veriweb eval`` and ``veriweb ablation``: the command-line face of the compact policies.

Nothing here imports PyTorch until a command runs, so the other commands work without the
``[train]`` extra.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from veriweb.errors import VeriwebError


def _need_torch() -> None:
    try:
        import matplotlib  # noqa: F401
        import torch  # noqa: F401
    except ImportError as exc:
        raise VeriwebError(f"training needs the train extra ({exc.name} is missing): "
                           "pip install 'veriweb[train]'") from None


def _sites(directory: str, what: str) -> list[Any]:
    from veriweb.generate.corpus import load_sites

    if not Path(directory).is_dir():
        raise VeriwebError(f"{what}: no corpus directory {directory}; make one with `veriweb generate --out DIR`")
    return list(load_sites(directory))


def add_parsers(sub: Any) -> None:
    """Add ``train``, ``eval`` and ``ablation`` to the ``veriweb`` command's subparsers."""
    train = sub.add_parser("train", help="train a compact policy: behaviour cloning from certificates, then PPO")
    train.add_argument("--preset", default="smoke", help="smoke (a quick end-to-end run) or full (default smoke)")
    train.add_argument("--corpus", required=True, help="the training corpus (veriweb generate --split train)")
    train.add_argument("--val", help="a validation corpus (default: part of the training corpus)")
    train.add_argument("--out", required=True, help="the output directory (policy.pt, metrics, curve.png)")
    train.add_argument("--seed", type=int, default=0, help="the root seed (default 0)")
    train.add_argument("--time-budget", type=float, metavar="SECONDS",
                       help="stop cloning and PPO when this much wall-clock time has passed")
    train.set_defaults(func=cmd_train)

    ev = sub.add_parser("eval", help="evaluate a policy on a corpus, beside the random, no-op, infeasible "
                                     "and nearest-certificate floors")
    ev.add_argument("--policy", required=True, help="a checkpoint written by veriweb train (policy.pt)")
    ev.add_argument("--corpus", help="the test corpus")
    ev.add_argument("--miniwob", metavar="TASKS",
                    help="instead of a corpus, real MiniWoB++ tasks in Chromium (comma-separated names, or 'all' "
                         "for veriweb.envs.miniwob.TASKS): zero-shot transfer beside the random and no-op floors")
    ev.add_argument("--episodes", type=int, default=20, help="episodes per MiniWoB++ task (default 20)")
    ev.add_argument("--train-corpus", help="the corpus the nearest-certificate floor replays "
                                           "(default: the one recorded in the checkpoint)")
    ev.add_argument("--no-floors", dest="floors", action="store_false", help="evaluate the policy alone")
    ev.add_argument("--json", help="also write the summary and every episode to this JSON file")
    ev.add_argument("--seed", type=int, default=0, help="seed of the bootstrap and the random floor (default 0)")
    ev.add_argument("--max-steps", type=int, help="override every task's step budget")
    ev.add_argument("--sample", action="store_true",
                    help="sample the policy's actions (seeded by --seed) instead of taking the most likely")
    ev.add_argument("--agents", help="comma-separated subset of policy,random,noop,infeasible,nearest_certificate")
    ev.set_defaults(func=cmd_eval)

    ablation = sub.add_parser("ablation", help="train the same preset on raw (author's plans), raw "
                                               "(own judges), raw-filtered, verified and verified-subsampled corpora at several defect rates; evaluate on "
                                               "held-out verified sites; write report.md and plots")
    ablation.add_argument("--sites", type=int, help="make the corpora: training sites per defect rate")
    ablation.add_argument("--test-sites", type=int, default=12, help="held-out test sites (default 12)")
    ablation.add_argument("--defect-rates", default="6,12,18",
                          help="comma-separated mean defects per raw site (default 6,12,18)")
    ablation.add_argument("--budget", type=int, help="the verifier's search budget per task (default: verify's)")
    ablation.add_argument("--workers", type=int, default=2,
                          help="processes for generate/verify/repair and arms trained side by side (default 2)")
    ablation.add_argument("--max-steps", type=int, help="override every test task's step budget (quick runs)")
    for name in ("raw", "judged", "filtered", "verified", "subsampled"):
        ablation.add_argument(f"--{name}", help=f"instead of --sites: the {name} training corpus"
                              + (" (optional)" if name == "judged" else ""))
    ablation.add_argument("--eval", help="with the four corpora: the held-out verified test corpus")
    ablation.add_argument("--preset", default="ablation", help="the cloning preset (default ablation)")
    ablation.add_argument("--out", required=True, help="the output directory (report.md, plots, runs, cached corpora)")
    ablation.add_argument("--seed", type=int, default=0, help="the root seed (default 0)")
    ablation.add_argument("--defect-config", help="with the four corpora: a JSON file describing the defect model "
                                                  "(hashed into the report)")
    ablation.set_defaults(func=cmd_ablation)


def cmd_train(args: argparse.Namespace) -> int:
    """Train by preset; print progress and where the checkpoint went."""
    _need_torch()
    from veriweb.agents.presets import get_preset, train

    preset = get_preset(args.preset)
    sites = _sites(args.corpus, "--corpus")
    val = _sites(args.val, "--val") if args.val else None
    summary = train(preset, sites, args.out, val_sites=val, seed=args.seed, corpus=str(Path(args.corpus).resolve()),
                    log=lambda line: print(line, flush=True), time_budget=args.time_budget)
    timings = ", ".join(f"{k[:-2]} {v:.0f}s" for k, v in summary["timings"].items())
    print(f"wrote {Path(args.out) / 'policy.pt'} ({summary['parameters']:,} parameters; {timings})")
    return 0


def cmd_eval(args: argparse.Namespace) -> int:
    """Evaluate a checkpoint (and the floors) on a corpus; print the table, optionally write JSON."""
    _need_torch()
    import torch

    from veriweb.agents.evaluate import PolicyAgent, evaluate, format_table, write_results
    from veriweb.agents.floors import InfeasibleAgent, NearestCertificateAgent, NoopAgent, RandomAgent
    from veriweb.agents.policy import load_policy

    torch.set_num_threads(1)  # more threads spin against other jobs on a shared machine
    if (args.corpus is None) == (args.miniwob is None):
        raise VeriwebError("veriweb eval needs exactly one of --corpus DIR and --miniwob TASKS")
    policy, meta = load_policy(args.policy)
    if args.miniwob is not None:
        return _eval_miniwob(args, PolicyAgent(policy, greedy=not args.sample, seed=args.seed), meta)
    sites = _sites(args.corpus, "--corpus")
    agents: list[Any] = [PolicyAgent(policy, greedy=not args.sample, seed=args.seed)]
    train_corpus = args.train_corpus or meta.get("corpus")
    train_sites = _sites(train_corpus, "--train-corpus") if train_corpus and Path(train_corpus).is_dir() else None
    if args.floors:
        agents += [RandomAgent(args.seed), NoopAgent(), InfeasibleAgent()]
        if train_sites is not None:
            agents.append(NearestCertificateAgent(train_sites))
        else:
            print("veriweb: no training corpus for the nearest-certificate floor (give --train-corpus)",
                  file=sys.stderr)
    if args.agents:
        wanted = {name.strip() for name in args.agents.split(",")}
        unknown = wanted - {"policy", "random", "noop", "infeasible", "nearest_certificate"}
        if unknown:
            raise VeriwebError(f"--agents: unknown agent(s) {', '.join(sorted(unknown))}")
        agents = [a for a in agents if a.name in wanted]
    seen = {t.template for s in train_sites for t in s.tasks} if train_sites is not None else None
    summary, results = evaluate(agents, sites, seed=args.seed, max_steps=args.max_steps, seen_templates=seen)
    print(format_table(summary))
    if args.json:
        write_results(args.json, summary, results, {"policy": str(args.policy), "corpus": str(args.corpus),
                                                   "checkpoint": meta, "seed": args.seed})
        print(f"wrote {args.json}")
    return 0


def _eval_miniwob(args: argparse.Namespace, policy_agent: Any, meta: dict[str, Any]) -> int:
    """``veriweb eval --miniwob``: the policy and the random and no-op floors on the same MiniWoB++ episodes."""
    from veriweb.agents.evaluate import format_table, write_results
    from veriweb.agents.floors import NoopAgent, RandomAgent
    from veriweb.agents.transfer import evaluate_miniwob
    from veriweb.envs.miniwob import TASKS

    tasks = list(TASKS) if args.miniwob.strip() == "all" else [t.strip() for t in args.miniwob.split(",") if t.strip()]
    if not tasks:
        raise VeriwebError("--miniwob: no task names given")
    agents: list[Any] = [policy_agent] + ([RandomAgent(args.seed), NoopAgent()] if args.floors else [])
    summary, results = evaluate_miniwob(agents, tasks, episodes=args.episodes, seed=args.seed,
                                        max_steps=args.max_steps or 10)
    print(format_table(summary, groups=("all", "family")))
    if args.json:
        write_results(args.json, summary, results, {"policy": str(args.policy), "miniwob": tasks,
                                                   "episodes": args.episodes, "checkpoint": meta, "seed": args.seed})
        print(f"wrote {args.json}")
    return 0


def _rates(text: str) -> list[float]:
    try:
        rates = [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise VeriwebError(f"--defect-rates: expected numbers separated by commas (6,12,18), got {text!r}") from None
    if not rates or any(not 0 <= r <= 200 for r in rates) or len(set(rates)) != len(rates):
        raise VeriwebError(f"--defect-rates: give distinct rates between 0 and 200, got {text!r}")
    return rates


def cmd_ablation(args: argparse.Namespace) -> int:
    """Run the four-arm ablation (making the corpora with ``--sites``, or on four given ones) and write its report."""
    _need_torch()
    from veriweb.agents.ablation import run_ablation, run_rates
    from veriweb.agents.presets import get_preset

    given = [name for name in ("raw", "judged", "filtered", "verified", "subsampled", "eval") if getattr(args, name)]
    say = lambda line: print(line, flush=True)  # noqa: E731
    if args.sites is not None:
        if given:
            raise VeriwebError(f"veriweb ablation: --sites makes the corpora; drop --{', --'.join(given)}")
        report = run_rates(args.out, sites=args.sites, test_sites=args.test_sites, seed=args.seed,
                           rates=_rates(args.defect_rates), preset=get_preset(args.preset), budget=args.budget,
                           workers=args.workers, max_steps=args.max_steps, log=say)
        print(f"wrote {report}")
        return 0
    if any(name not in given for name in ("raw", "filtered", "verified", "subsampled", "eval")):
        raise VeriwebError("veriweb ablation needs --sites N (make the corpora) or all of --raw, --filtered, "
                           "--verified, --subsampled and --eval (--judged optional)")
    defect = None
    if args.defect_config:
        try:
            defect = json.loads(Path(args.defect_config).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise VeriwebError(f"--defect-config {args.defect_config}: {exc}") from None
    corpora = {name: getattr(args, name) for name in ("raw", "judged", "filtered", "verified", "subsampled")
               if getattr(args, name)}
    report = run_ablation(corpora, args.eval, args.out, preset=get_preset(args.preset),
                          seed=args.seed, defect_config=defect, max_steps=args.max_steps, log=say)
    print(f"wrote {report}")
    return 0

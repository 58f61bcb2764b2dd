"""The ``veriweb`` command: one command, a subcommand per job.

Exit codes: 0 success, 1 a replayed task failed, 2 bad input (a clear one-line error, no traceback).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import TextIO

from veriweb.engine import Episode, PageModel, axtree_text
from veriweb.engine.actions import action_prompt, parse_action
from veriweb.errors import VeriwebError
from veriweb.scaffold import Site, Task, dumps, json_schema, load

EXAMPLES = {"shop": "shop.json"}
"""Sites bundled with the package, by name."""


def example_path(name: str = "shop") -> Path:
    """The path of a bundled example site."""
    return Path(str(resources.files("veriweb.examples").joinpath(EXAMPLES[name])))


def load_site(ref: str | None) -> Site:
    """Load a site from a path, or a bundled example by name (the default: ``shop``)."""
    if ref is None or ref in EXAMPLES:
        return load(example_path(ref or "shop"))
    return load(ref)


def pick_task(site: Site, ref: str) -> Task:
    """A task by id, or by its 1-based number in the site's task list."""
    found = site.task(ref)
    if found is not None:
        return found
    if ref.isdigit() and 1 <= int(ref) <= len(site.tasks):
        return site.tasks[int(ref) - 1]
    known = ", ".join(f"{n}={t.id}" for n, t in enumerate(site.tasks, 1)) or "none"
    raise VeriwebError(f"site {site.name!r} has no task {ref!r}; give a number or an id: {known}")


# ----------------------------------------------------------------------------- replay


def replay_task(site: Site, task: Task, out: TextIO, *, verbose: bool = True) -> bool:
    """Replay a task's certificate, printing each step; return whether it succeeded."""
    episode = Episode(site, task)
    page = episode.reset()
    if verbose:
        print(f"task {task.id} ({task.kind}, {task.difficulty}): {task.instruction}", file=out)
        print(f"  start   {page.url}" + (f"  (logged in as {task.user})" if task.start_logged_in else ""), file=out)
    outcome = None
    for number, action in enumerate(task.certificate, 1):
        target = describe_target(episode.session.page(), action)
        outcome = episode.step(action)
        if verbose:
            status = f"error: {outcome.error}" if outcome.error else outcome.page.url
            print(f"  {number:>3}  {action:<40} {target:<30} -> {status}  progress {outcome.progress.done}/"
                  f"{outcome.progress.total}  reward {outcome.reward:.1f}", file=out)
        if outcome.terminated or outcome.truncated:
            break
    success = bool(outcome and outcome.success)
    if verbose:
        reason = outcome.info.get("reason") if outcome else (
            "no certificate; veriweb corpus FILE --out DIR && veriweb repair DIR --out DIR2 finds one by search")
        answer = outcome.info.get("answer") if outcome else None
        detail = f"{reason}" + (f"; {answer}" if answer else "")
        print(f"  => {'SUCCESS' if success else 'FAILED'} ({detail})\n", file=out)
    return success


def describe_target(page: PageModel, action: str) -> str:
    """``[link 'Cart']`` for an action on an element of ``page``, else ``""``."""
    try:
        bid = parse_action(action).bid
    except VeriwebError:
        return ""
    node = page.by_bid.get(bid) if bid is not None else None
    if node is None:
        return ""
    label = (node.name or node.text)[:20]
    return f"[{node.role} {label!r}]"


def cmd_replay(args: argparse.Namespace) -> int:
    site = load_site(args.site)
    tasks = [pick_task(site, args.task)] if args.task else site.tasks
    if not tasks:
        raise VeriwebError(f"site {site.name!r} has no tasks to replay")
    results = [replay_task(site, task, sys.stdout, verbose=not args.quiet) for task in tasks]
    print(f"{sum(results)}/{len(results)} certificates replayed to success on {site.name} ({site.id})")
    return 0 if all(results) else 1


def cmd_run(args: argparse.Namespace) -> int:
    """The main job on the embedded defaults: replay the bundled example's tasks, then generate a
    small corpus of every domain and show its statistics."""
    from veriweb.generate.corpus import plan_corpus, write_corpus
    from veriweb.generate.stats import corpus_stats, format_stats
    from veriweb.scaffold import load

    args.site, args.task = None, None
    status = cmd_replay(args)
    out = Path(args.out)
    plan = plan_corpus(args.sites, ["all"], 0)
    print(f"\ngenerating {args.sites} sites ({', '.join(plan.domains)}) into {out / 'corpus'} ...")
    manifest = write_corpus(plan, out / "corpus", progress=not args.quiet)
    sites = [load(out / "corpus" / entry["file"]) for entry in manifest["sites"]]
    tasks = sum(len(site.tasks) for site in sites)
    print(f"{len(sites)} sites, {tasks} tasks, every certificate replayed in the engine while generating\n")
    print(format_stats(corpus_stats(sites)))
    return status


# ----------------------------------------------------------------------------- play


PLAY_HELP = """Type an action (e.g. click('12'), fill('7', 'red shoes'), go_back()), or:
  :help     the action reference        :tree   show the page again
  :reset    start the task again        :quit   leave"""


def cmd_play(args: argparse.Namespace) -> int:
    site = load_site(args.site)
    task = pick_task(site, args.task) if args.task else (site.tasks[0] if site.tasks else None)
    if task is None:
        raise VeriwebError(f"site {site.name!r} has no tasks; add one to play")
    episode = Episode(site, task)
    page = episode.reset()
    interactive = sys.stdin.isatty()
    print(f"{site.name}: task {task.id}: {task.instruction}")
    print(PLAY_HELP)
    show = True
    total = 0.0
    while True:
        if show:
            print(f"\n--- {page.url} ---\n{axtree_text(page)}")
            show = False
        if interactive:
            print("action> ", end="", flush=True)
        line = sys.stdin.readline()
        if not line:
            break
        line = line.strip()
        if not line:
            continue
        if line in (":q", ":quit", ":exit"):
            break
        if line == ":help":
            print(action_prompt())
            continue
        if line == ":tree":
            show = True
            continue
        if line == ":reset":
            page, total, show = episode.reset(), 0.0, True
            print("(reset)")
            continue
        outcome = episode.step(line)
        total += outcome.reward
        page = outcome.page
        show = outcome.error is None
        if outcome.error:
            print(f"last_action_error: {outcome.error}")
        print(f"step {episode.steps}/{task.max_steps}  progress {outcome.progress.done}/{outcome.progress.total}"
              f"  reward {outcome.reward:.1f}  return {total:.1f}")
        if outcome.terminated or outcome.truncated:
            print(f"episode over: {'SUCCESS' if outcome.success else 'not a success'} ({outcome.info.get('reason')})")
            if outcome.info.get("answer"):
                print(f"answer: {outcome.info['answer']}")
            return 0
    return 0


# ----------------------------------------------------------------------------- small jobs


def cmd_schema(args: argparse.Namespace) -> int:
    print(json.dumps(json_schema(), indent=2, sort_keys=True))
    return 0


def cmd_fmt(args: argparse.Namespace) -> int:
    path = Path(args.file)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise VeriwebError(f"no such file: {path}") from None
    except json.JSONDecodeError as exc:
        raise VeriwebError(f"{path} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    if isinstance(data, dict):
        data.pop("id", None)
    from veriweb.scaffold import from_data, save

    site = from_data(data, source=str(path))
    text = dumps(site)
    if args.check:
        same = path.read_text(encoding="utf-8") == text
        print(f"{path}: {'canonical' if same else 'not canonical (run veriweb fmt to fix)'}")
        return 0 if same else 1
    save(site, path)
    print(f"{path}: {site.id}")
    return 0


def cmd_info(args: argparse.Namespace) -> int:
    site = load_site(args.site)
    rows = sum(len(t.rows) for t in site.database.tables)
    print(f"{site.name} ({site.id}), domain {site.domain}: {len(site.pages)} pages, "
          f"{len(site.database.tables)} tables ({rows} rows), {len(site.markers)} markers, {len(site.tasks)} tasks")
    for number, task in enumerate(site.tasks, 1):
        print(f"  {number:>2}. {task.id:<24} {task.kind:<10} {task.difficulty:<6} {len(task.certificate):>2} steps  "
              f"{task.instruction}")
    return 0


def cmd_generate(args: argparse.Namespace) -> int:
    from veriweb.generate.corpus import Holdout, plan_corpus, write_corpus

    domains = [d.strip() for d in args.domains.split(",") if d.strip()]
    holdouts = [Holdout.parse(text) for text in args.holdout or []]
    plan = plan_corpus(args.sites, domains, args.seed, split=args.split, holdouts=holdouts)
    model = None
    if args.raw or args.defect_rate is not None:
        from veriweb.verify.defects import DefectModel

        if not args.raw:
            raise VeriwebError("--defect-rate only applies to raw corpora; add --raw")
        model = DefectModel() if args.defect_rate is None else DefectModel.with_rate(args.defect_rate)
    manifest = write_corpus(plan, args.out, workers=args.workers, progress=not args.quiet, raw=model)
    if model is not None:
        defects = sum(entry["defects"] for entry in manifest["sites"])
        feasible = sum(entry["feasible_tasks"] for entry in manifest["sites"])
        total = sum(entry["tasks"] for entry in manifest["sites"]) or 1
        print(f"raw corpus (defect model {model.config_hash()[:12]}): {defects / len(manifest['sites']):.1f} "
              f"defects per site, {100 * feasible / total:.1f}% of tasks feasible; ground truth in sites/*.defects.json")
    if not getattr(args, "raw", False) and not args.no_verify:
        from veriweb.verify.pipeline import repair_corpus
        from veriweb.verify.report import format_table

        report = repair_corpus(args.out, args.out, budget=args.budget, workers=args.workers,
                               progress=not args.quiet)
        manifest = report["manifest"]
        print(format_table(report))
    tasks = sum(entry["tasks"] for entry in manifest["sites"])
    dropped = sum(len(entry.get("dropped", [])) for entry in manifest["sites"])
    print(f"wrote {len(manifest['sites'])} sites ({', '.join(plan.domains)}) with {tasks} tasks to {args.out}"
          + (f"; {dropped} tasks dropped (their plan failed; listed in the manifest)" if dropped else ""))
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    from veriweb.generate.stats import corpus_dir_stats, format_stats

    stats = corpus_dir_stats(args.dir, workers=args.workers, progress=not args.quiet)
    if args.json:
        print(json.dumps({d: s.as_dict() for d, s in stats.items()}, indent=1, sort_keys=True))
    else:
        print(format_stats(stats))
    return 0


def cmd_corpus(args: argparse.Namespace) -> int:
    from veriweb.generate.corpus import gather_corpus

    manifest = gather_corpus(args.paths, args.out)
    tasks = sum(entry["tasks"] for entry in manifest["sites"])
    print(f"wrote {len(manifest['sites'])} site(s), {tasks} task(s), to {args.out}; "
          f"next: veriweb verify {args.out}  (or veriweb repair {args.out} --out DIR)")
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from veriweb.verify.pipeline import verify_corpus
    from veriweb.verify.report import format_table

    report = verify_corpus(args.dir, budget=args.budget, workers=args.workers, progress=not args.quiet,
                           html=args.html)
    print(format_table(report))
    print(f"report written to {Path(args.dir) / 'report.json'}" + (" and report.html" if args.html else ""))
    return 0


def cmd_repair(args: argparse.Namespace) -> int:
    from veriweb.verify.pipeline import repair_corpus
    from veriweb.verify.report import format_table

    report = repair_corpus(args.dir, args.out, budget=args.budget, workers=args.workers, progress=not args.quiet,
                           html=args.html, search_raw=args.search_raw)
    print(format_table(report))
    print(f"certified corpus ({len(report['manifest']['sites'])} sites) and its report written to {args.out}")
    return 0


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    return value


def _rate(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of defects per site, got {text!r}") from None
    if not 0 <= value <= 200:
        raise argparse.ArgumentTypeError(f"--defect-rate must be between 0 and 200, got {text}")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``veriweb`` command."""
    parser = argparse.ArgumentParser(prog="veriweb", description="Verified, deterministic websites for web agents.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = sub.add_parser("run", help="the main job: replay the bundled example's tasks, then generate and "
                                     "describe a small corpus of every domain")
    run.add_argument("--quiet", action="store_true", help="print only the summaries")
    run.add_argument("--sites", type=_positive, default=12, help="sites to generate (default 12)")
    run.add_argument("--out", default="veriweb-run", help="where the corpus goes (default ./veriweb-run)")
    run.set_defaults(func=cmd_run)

    replay = sub.add_parser("replay", help="replay task certificates step by step")
    replay.add_argument("site", nargs="?", help="a site JSON file, or a bundled example name (default: shop)")
    replay.add_argument("--task", help="a task id or 1-based number (default: every task)")
    replay.add_argument("--quiet", action="store_true", help="print only the summary")
    replay.set_defaults(func=cmd_replay)

    play = sub.add_parser("play", help="play a task interactively in the terminal")
    play.add_argument("site", nargs="?", help="a site JSON file, or a bundled example name (default: shop)")
    play.add_argument("--task", help="a task id or 1-based number (default: the first)")
    play.set_defaults(func=cmd_play)

    info = sub.add_parser("info", help="summarise a site and list its tasks")
    info.add_argument("site", nargs="?", help="a site JSON file, or a bundled example name (default: shop)")
    info.set_defaults(func=cmd_info)

    generate = sub.add_parser("generate", help="generate a corpus of sites in parallel, with a manifest")
    generate.add_argument("--sites", type=_positive, default=12, help="how many sites (default 12)")
    generate.add_argument("--domains", default="all", help="'all' or a comma-separated list (shop,admin,forum,...)")
    generate.add_argument("--seed", type=_positive, default=0, help="the corpus seed (default 0)")
    generate.add_argument("--out", required=True, help="the corpus directory (created; a re-run completes it)")
    generate.add_argument("--split", default="train", help="train, val or test (different sites for each)")
    generate.add_argument("--holdout", action="append", metavar="KIND[:VALUES]",
                          help="hold out domain:NAMES, family:NAMES, template or vocab (repeatable)")
    generate.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    generate.add_argument("--quiet", action="store_true", help="no progress bar")
    generate.add_argument("--raw", action="store_true",
                          help="write raw sites, as a one-pass author makes them: defects injected, with a "
                               "ground-truth sidecar per site")
    generate.add_argument("--defect-rate", type=_rate, default=None, metavar="N",
                          help="with --raw: mean defects per site (default 12)")
    generate.add_argument("--budget", type=_positive, default=2000,
                          help="states the certifying search may expand per task (default 2000)")
    generate.add_argument("--no-verify", action="store_true",
                          help="skip verification and repair (the corpus is then not certified)")
    generate.set_defaults(func=cmd_generate)

    for name, helptext in (("verify", "verify a corpus: static checks, certificates by search, judge probes; "
                                      "prints a table and writes DIR/report.json"),
                           ("repair", "repair and certify a corpus into --out (same layout, manifest, report)")):
        job = sub.add_parser(name, help=helptext)
        job.add_argument("dir", help="a corpus directory (with manifest.json)")
        if name == "repair":
            job.add_argument("--out", required=True, help="where the certified corpus goes (may be DIR itself)")
            job.add_argument("--search-raw", action="store_true",
                             help="also search, on the raw site, the tasks a static repair changes, so the report's "
                                  "raw column is the search's own on every task (about twice the CPU; what is "
                                  "shipped is the same)")
        job.add_argument("--budget", type=_positive, default=2000, help="states the search may expand per task")
        job.add_argument("--html", action="store_true", help="also write report.html")
        job.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
        job.add_argument("--quiet", action="store_true", help="no progress bar")
        job.set_defaults(func=cmd_verify if name == "verify" else cmd_repair)

    stats = sub.add_parser("stats", help="per-domain statistics and diversity of a corpus")
    stats.add_argument("dir", help="a corpus directory")
    stats.add_argument("--json", action="store_true", help="print JSON")
    stats.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    stats.add_argument("--quiet", action="store_true", help="no progress bar")
    stats.set_defaults(func=cmd_stats)

    schema = sub.add_parser("schema", help="print the JSON Schema of a site scaffold")
    schema.set_defaults(func=cmd_schema)

    try:  # the server needs the [server] extra; without it, the other commands still work
        from veriweb.server.cli import add_parser as add_serve
    except ImportError:
        add_serve = None
    if add_serve is not None:
        add_serve(sub)

    from veriweb.agents.cli import add_parsers as add_agents  # imports no torch until a command runs

    add_agents(sub)

    fmt = sub.add_parser("fmt", help="rewrite a site file in canonical form with its content-hash id")
    fmt.add_argument("file")
    fmt.add_argument("--check", action="store_true", help="only report whether the file is canonical")
    fmt.set_defaults(func=cmd_fmt)

    corpus = sub.add_parser("corpus", help="gather hand-written site files into a corpus (manifest and "
                                           "sites/) for verify, repair, serve and the envs")
    corpus.add_argument("paths", nargs="+", help="site files, or directories of *.json site files")
    corpus.add_argument("--out", required=True, help="the corpus directory to write")
    corpus.set_defaults(func=cmd_corpus)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; bad input exits with code 2 and a one-line message."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except VeriwebError as exc:
        print(f"veriweb: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

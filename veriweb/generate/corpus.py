"""Corpora: many sites generated in parallel, written atomically, with a manifest; splits and holdouts.

Layout of a corpus directory::

    DIR/manifest.json         the corpus: generator version, seed, split, holdouts, and per site
                              its file, id, domain, seed, pages, records, markers and tasks
    DIR/sites/NNNNN-DOMAIN.json   one scaffold per site
    DIR/sites/NNNNN-DOMAIN.defects.json   raw corpora only: the defects injected into that site
                              and which tasks they break (ground truth; the verifier never reads it)

A raw corpus (``raw=`` a :class:`veriweb.verify.defects.DefectModel`) holds the same sites as a
one-pass author would have written them: defects injected, certificates cleared. Its manifest
says ``"raw": true`` and carries the defect model's configuration and hash.

Every file is written under a temporary name and renamed, so an interrupted run leaves only
complete files, and a re-run with the same arguments completes the corpus, keeping what is
there. Site seeds come from the corpus seed, the split and the site's number, so the train,
val and test splits never share a site.

Holdouts (``--holdout``) hold out more than seeds. Each is ``KIND`` or ``KIND:VALUES``:

- ``domain:mail,forum``: train and val have none of these domains; test has only them.
- ``family:retrieve_count``: train and val drop these task families; test keeps only them.
- ``template``: half of the instruction templates (by a hash of the template text) are train's,
  the other half test's.
- ``vocab``: every synonym list is split in two; train and val label their sites from one half,
  test from the other.
"""

from __future__ import annotations

import gc
import hashlib
import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from veriweb.errors import ScaffoldError, VeriwebError
from veriweb.generate.domains import BLUEPRINTS
from veriweb.generate.site import available_domains as known_domains
from veriweb.generate.site import draft_site
from veriweb.generate.streams import GENERATOR_VERSION, derive
from veriweb.scaffold import Site, load, save
from veriweb.scaffold.io import from_data, identify, save_text, with_id

T = TypeVar("T")

SPLITS = ("train", "val", "test")
HOLDOUT_KINDS = ("domain", "family", "template", "vocab")


@dataclass(frozen=True)
class Holdout:
    """One holdout rule: what kind of thing is held out, and which values (if any)."""

    kind: str
    values: tuple[str, ...] = ()

    @classmethod
    def parse(cls, text: str) -> Holdout:
        """Parse ``KIND`` or ``KIND:A,B``.

        Raises:
            VeriwebError: an unknown kind, or a kind that needs values given none.
        """
        kind, _, rest = text.partition(":")
        if kind not in HOLDOUT_KINDS:
            raise VeriwebError(f"unknown holdout {kind!r}; use one of {', '.join(HOLDOUT_KINDS)} (e.g. family:retrieve_count)")
        values = tuple(v for v in rest.split(",") if v)
        if kind in ("domain", "family") and not values:
            raise VeriwebError(f"holdout {kind} needs values, e.g. {kind}:{'mail' if kind == 'domain' else 'retrieve_count'}")
        return cls(kind, values)

    def __str__(self) -> str:
        return self.kind + (":" + ",".join(self.values) if self.values else "")


@dataclass(frozen=True)
class SiteSpec:
    """What to generate for one site of a corpus."""

    number: int
    domain: str
    seed: int
    split: str
    holdouts: tuple[Holdout, ...] = ()

    @property
    def filename(self) -> str:
        return f"{self.number:05d}-{self.domain}.json"


@dataclass
class CorpusPlan:
    """The whole corpus, decided before anything is generated."""

    seed: int
    split: str
    domains: list[str]
    holdouts: list[Holdout] = field(default_factory=list)
    sites: list[SiteSpec] = field(default_factory=list)


def template_bucket(template: str) -> int:
    """Which half of the templates a template belongs to (0: train and val, 1: test)."""
    return hashlib.sha256(template.encode()).digest()[0] & 1


def plan_corpus(n: int, domains: Sequence[str], seed: int, *, split: str = "train",
                holdouts: Sequence[Holdout] = ()) -> CorpusPlan:
    """Decide every site of a corpus: its number, domain and seed.

    Raises:
        VeriwebError: ``n`` is not positive, a domain is unknown, or the split is unknown.
    """
    if n <= 0:
        raise VeriwebError(f"--sites must be a positive number of sites, got {n}")
    if split not in SPLITS:
        raise VeriwebError(f"unknown split {split!r}; use one of {', '.join(SPLITS)}")
    available = known_domains()
    chosen = list(available) if list(domains) in (["all"], []) else list(domains)
    unknown = [d for d in chosen if d not in available]
    if unknown:
        raise VeriwebError(f"unknown domain(s) {', '.join(unknown)}; choose from {', '.join(available)} or 'all'")
    held_domains = {v for h in holdouts if h.kind == "domain" for v in h.values}
    bad = held_domains - set(available)
    if bad:
        raise VeriwebError(f"holdout names unknown domain(s) {', '.join(sorted(bad))}")
    if held_domains:
        chosen = [d for d in chosen if (d in held_domains) == (split == "test")]
        if not chosen:
            raise VeriwebError(f"the holdout leaves no domain for the {split} split")
    plan = CorpusPlan(seed=seed, split=split, domains=chosen, holdouts=list(holdouts))
    for number in range(n):
        domain = chosen[number % len(chosen)]
        plan.sites.append(SiteSpec(number, domain, derive("site", seed, split, number) % (2**31),
                                   split, tuple(holdouts)))
    return plan


def build_site(spec: SiteSpec) -> tuple[Site, list[str]]:
    """Generate one site of a corpus, applying its holdouts; also the tasks dropped as unsolvable
    by their own plan (a blueprint bug, counted in the manifest rather than shipped)."""
    site, dropped = _holdout_site(spec)
    return with_id(site), dropped


def build_site_file(spec: SiteSpec) -> tuple[Site, str, list[str]]:
    """As :func:`build_site`, with the site's file text (hashed and written from one model dump)."""
    site, dropped = _holdout_site(spec)
    site, text = identify(site)
    return site, text, dropped


def _holdout_site(spec: SiteSpec) -> tuple[Site, list[str]]:
    """The site of ``spec`` with its holdouts applied, not yet hashed."""
    vocab_part = None
    if any(h.kind == "vocab" for h in spec.holdouts):
        vocab_part = 1 if spec.split == "test" else 0
    site, dropped = draft_site(spec.domain, spec.seed, vocab_part=vocab_part)
    families = {v for h in spec.holdouts if h.kind == "family" for v in h.values}
    by_template = any(h.kind == "template" for h in spec.holdouts)
    test = spec.split == "test"
    tasks = site.tasks
    if families:
        tasks = [t for t in tasks if (t.family in families) == test]
    if by_template:
        tasks = [t for t in tasks if template_bucket(t.template) == int(test)]
    if len(tasks) != len(site.tasks):
        site = site.model_copy(update={"tasks": tasks})
    return site, dropped


def summary(site: Site, spec: SiteSpec, dropped: list[str] | None = None) -> dict[str, Any]:
    """The manifest entry of one site."""
    entry = {"file": f"sites/{spec.filename}", "id": site.id, "domain": site.domain, "seed": spec.seed,
             "name": site.name, "pages": len(site.pages), "records": sum(len(t.rows) for t in site.database.tables),
             "markers": len(site.markers), "tasks": len(site.tasks)}
    if dropped:
        entry["dropped"] = dropped
    return entry


def _work(spec: SiteSpec, out: str, raw: Any = None) -> dict[str, Any]:
    if raw is not None:
        return _work_raw(spec, out, raw)
    path = Path(out) / "sites" / spec.filename
    if path.exists():
        try:
            existing = load(path)
        except VeriwebError:
            existing = None  # a damaged file from an older run: make it again
        if existing is not None and existing.generator == GENERATOR_VERSION:
            return summary(existing, spec)
    site, text, dropped = build_site_file(spec)
    save_text(text, path)
    return summary(site, spec, dropped)


def _work_raw(spec: SiteSpec, out: str, model: Any) -> dict[str, Any]:
    """Generate one site, inject the model's defects, and write the raw site and its sidecar."""
    from veriweb.verify.defects import inject_site

    path = Path(out) / "sites" / spec.filename
    sidecar = path.with_name(path.name[: -len(".json")] + ".defects.json")
    if path.exists() and sidecar.exists():
        try:
            existing, truth = load(path), json.loads(sidecar.read_text(encoding="utf-8"))
        except (VeriwebError, json.JSONDecodeError):
            existing, truth = None, None
        if (existing is not None and isinstance(truth, dict) and truth.get("site_id") == existing.id
                and truth.get("model_hash") == model.config_hash()):
            return summary(existing, spec) | _raw_summary(truth)
    site, dropped = build_site(spec)
    found = inject_site(site, spec.seed, model)
    truth = {"file": f"sites/{spec.filename}", "clean_id": site.id, "seed": spec.seed,
             "model_hash": model.config_hash()} | found.manifest()
    _write_json(sidecar, truth)
    save(found.site, path)
    return summary(found.site, spec, dropped) | _raw_summary(truth)


def _raw_summary(truth: dict[str, Any]) -> dict[str, Any]:
    tasks = truth.get("tasks", {})
    return {"defects": len(truth.get("defects", [])), "feasible_tasks": sum(bool(t.get("feasible")) for t in tasks.values()),
            "truth": truth.get("file", "")[: -len(".json")] + ".defects.json"}


def _check_writable(out: Path) -> None:
    try:
        (out / "sites").mkdir(parents=True, exist_ok=True)
        probe = tempfile.NamedTemporaryFile(dir=out, prefix=".probe", delete=True)
        probe.close()
    except OSError as exc:
        raise VeriwebError(f"cannot write to {out}: {exc.strerror or exc}") from None


def run_jobs(jobs: Sequence[tuple[Any, ...]], func: Callable[..., T], *, workers: int | None, progress: bool,
             label: str) -> list[T]:
    """``func(*job)`` for every job, in processes (all cores by default), results in job order, with a
    progress bar; on an error or an interrupt the jobs not yet started are cancelled."""
    workers = workers or os.cpu_count() or 1
    results: list[Any] = [None] * len(jobs)
    bar = _bar(len(jobs), label, enabled=progress)
    # The objects alive now (modules, pydantic's schema validators, ...) outlive the jobs: frozen,
    # the cyclic collector stops walking them in every full collection (a full pass over pydantic's
    # validators alone costs about 0.1 s), and forked workers share their memory pages instead of
    # copying them on their first collection.
    gc.freeze()
    try:
        if workers <= 1 or len(jobs) <= 1:
            for index, job in enumerate(jobs):
                results[index] = func(*job)
                bar.update(1)
        else:
            with ProcessPoolExecutor(max_workers=workers) as pool:
                futures = [pool.submit(func, *job) for job in jobs]
                try:
                    for index, future in enumerate(futures):
                        results[index] = future.result()
                        bar.update(1)
                except BaseException:
                    for future in futures:
                        future.cancel()
                    raise
    finally:
        gc.unfreeze()
    bar.close()
    return results


def write_corpus(plan: CorpusPlan, out: str | os.PathLike[str], *, workers: int | None = None,
                 progress: bool = True, raw: Any = None) -> dict[str, Any]:
    """Generate every site of ``plan`` into ``out`` (in parallel) and write the manifest last.

    With ``raw`` (a :class:`veriweb.verify.defects.DefectModel`), write raw sites: the model's
    defects injected, each site's ground truth in a ``.defects.json`` sidecar.

    Returns:
        The manifest.
    """
    directory = Path(out)
    _check_writable(directory)
    for domain in plan.domains:  # imported once here, not once per worker process (they fork from here)
        BLUEPRINTS[domain]
    jobs = [(spec, str(directory), raw) for spec in plan.sites]
    entries = run_jobs(jobs, _work, workers=workers, progress=progress, label="generating")
    manifest = {"generator": GENERATOR_VERSION, "seed": plan.seed, "split": plan.split, "domains": plan.domains,
                "holdouts": [str(h) for h in plan.holdouts], "sites": entries}
    if raw is not None:
        manifest |= {"raw": True, "defect_model": raw.as_dict(), "defect_model_hash": raw.config_hash()}
    _write_json(directory / "manifest.json", manifest)
    return manifest


def _write_json(path: Path, data: Any) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=1, sort_keys=True)
            handle.write("\n")
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


HAND_WRITTEN = "hand-written"
"""The ``generator`` of a corpus gathered from site files by :func:`gather_corpus`."""


def _site_files(paths: Sequence[str | os.PathLike[str]]) -> list[Path]:
    """The site files named by ``paths``: files as given, directories by their ``*.json`` files
    (sorted; manifests, reports and defect sidecars left out)."""
    found: list[Path] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            found += sorted(p for p in path.glob("*.json") if p.name not in ("manifest.json", "report.json")
                            and not p.name.endswith(".defects.json"))
        elif path.is_file():
            found.append(path)
        else:
            raise VeriwebError(f"no such file or directory: {path}")
    if not found:
        raise VeriwebError(f"no site files (*.json) in {', '.join(str(p) for p in paths)}")
    return found


def gather_corpus(paths: Sequence[str | os.PathLike[str]], out: str | os.PathLike[str]) -> dict[str, Any]:
    """Make a corpus of site files written by hand (or by another tool), so that ``veriweb verify``,
    ``repair``, ``serve`` and the envs take them like a generated corpus.

    Every file is validated first (the first bad one raises, naming the file and the JSON path,
    and nothing is written); ids are recomputed from the content, as ``veriweb fmt`` does. Sites
    go to ``OUT/sites/NNNNN-DOMAIN.json`` in the order given and the manifest is written last.

    Args:
        paths: site files, or directories whose ``*.json`` files are sites.
        out: the corpus directory to write (new, or an earlier corpus to replace).

    Returns:
        The manifest.
    """
    files = _site_files(paths)
    sites = []
    for path in files:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise VeriwebError(f"{path} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
        try:
            sites.append(from_data(data, source=str(path), check_id=False))
        except ScaffoldError as exc:
            raise ScaffoldError(exc.detail, path=exc.path, source=str(path)) from None
    directory = Path(out)
    _check_writable(directory)
    (directory / "sites").mkdir(parents=True, exist_ok=True)
    entries = []
    for number, (path, site) in enumerate(zip(files, sites)):
        name = f"sites/{number:05d}-{site.domain}.json"
        save(site, directory / name)
        entries.append({"file": name, "id": site.id, "domain": site.domain, "name": site.name, "source": str(path),
                        "pages": len(site.pages), "records": sum(len(t.rows) for t in site.database.tables),
                        "markers": len(site.markers), "tasks": len(site.tasks)})
    manifest = {"generator": HAND_WRITTEN, "seed": None, "split": None, "holdouts": [],
                "domains": sorted({site.domain for site in sites}), "sites": entries}
    _write_json(directory / "manifest.json", manifest)
    return manifest


def read_corpus(directory: str | os.PathLike[str]) -> tuple[dict[str, Any], list[Path]]:
    """The manifest of a corpus and the paths of its site files, in order.

    Raises:
        VeriwebError: not a corpus directory (no manifest), or the manifest is damaged.
    """
    root = Path(directory)
    manifest_path = root / "manifest.json"
    if not manifest_path.is_file():
        if root.is_file() or (root.is_dir() and any(root.glob("*.json"))):
            raise VeriwebError(f"{root} holds site files but is not a corpus (it has no manifest.json): "
                               f"make one with `veriweb corpus {root} --out DIR`, then use DIR")
        raise VeriwebError(f"{root} is not a corpus: it has no manifest.json (make one with veriweb generate)")
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        files = [root / entry["file"] for entry in manifest["sites"]]
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise VeriwebError(f"{manifest_path} is damaged ({exc}); generate the corpus again") from None
    return manifest, files


def load_sites(directory: str | os.PathLike[str]) -> Iterable[Site]:
    """Every site of a corpus, in manifest order."""
    _, files = read_corpus(directory)
    for path in files:
        yield load(path)


class _Bar:
    """A minimal progress bar on standard error (tqdm when it is installed)."""

    def __init__(self, total: int, label: str, enabled: bool) -> None:
        self.total, self.label, self.done = total, label, 0
        self.enabled = enabled
        self._tqdm: Any = None
        if enabled:
            try:
                from tqdm import tqdm

                self._tqdm = tqdm(total=total, desc=label, unit="site", file=sys.stderr)
            except ImportError:
                self._tqdm = None

    def update(self, count: int) -> None:
        self.done += count
        if not self.enabled:
            return
        if self._tqdm is not None:
            self._tqdm.update(count)
        else:
            width = 30
            filled = width * self.done // max(self.total, 1)
            print(f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total}",
                  end="", file=sys.stderr, flush=True)

    def close(self) -> None:
        if not self.enabled:
            return
        if self._tqdm is not None:
            self._tqdm.close()
        else:
            print(file=sys.stderr)


def _bar(total: int, label: str, *, enabled: bool) -> _Bar:
    return _Bar(total, label, enabled)


__all__ = ["CorpusPlan", "Holdout", "SiteSpec", "build_site", "build_site_file", "load_sites", "plan_corpus", "read_corpus",
           "template_bucket", "write_corpus"]

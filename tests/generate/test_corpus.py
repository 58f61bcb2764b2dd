"""Corpora: files written by worker processes are the canonical bytes of the sites, re-runs complete them."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from veriweb.errors import VeriwebError
from veriweb.generate.corpus import (Holdout, build_site, build_site_file, load_sites, plan_corpus, read_corpus,
                                     write_corpus)
from veriweb.generate.site import draft_site, generate_site_checked
from veriweb.generate.stats import corpus_dir_stats, corpus_stats, format_stats, skeletons
from veriweb.generate.streams import GENERATOR_VERSION
from veriweb.scaffold import Site, dumps, load, site_id
from veriweb.scaffold.io import to_data


def stdlib_file(site: Site) -> str:
    """The file text of ``site`` as the standard library writes it (the definition of the format)."""
    data = to_data(site)
    data.pop("id", None)
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    data["id"] = "site-" + hashlib.sha256(canonical.encode()).hexdigest()[:16]
    return json.dumps(data, sort_keys=True, indent=1, ensure_ascii=False, allow_nan=False) + "\n"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("corpus")
    manifest = write_corpus(plan_corpus(6, ["all"], 5), out, workers=2, progress=False)
    return out, manifest


def test_worker_files_are_the_canonical_bytes_of_the_sites(corpus: tuple[Path, dict]) -> None:
    out, manifest = corpus
    _, files = read_corpus(out)
    assert [f.name.split("-", 1)[1] for f in files] == [f"{d}.json" for d in manifest["domains"]]
    for entry, path, spec in zip(manifest["sites"], files, plan_corpus(6, ["all"], 5).sites):
        site, _ = generate_site_checked(spec.domain, spec.seed)  # in this process, hashed the long way
        text = path.read_text(encoding="utf-8")
        assert text == stdlib_file(site) == dumps(site)
        assert entry["id"] == site.id == site_id(site) == load(path).id
        assert site.generator == GENERATOR_VERSION and entry["tasks"] == len(site.tasks) > 0
        assert entry["records"] == sum(len(t.rows) for t in site.database.tables)
    assert not list((out / "sites").glob(".*"))  # no temporary file left behind


def test_a_rerun_keeps_complete_files_and_remakes_missing_and_damaged_ones(corpus: tuple[Path, dict],
                                                                          tmp_path: Path) -> None:
    out, manifest = corpus
    copy = tmp_path / "copy"
    (copy / "sites").mkdir(parents=True)
    _, files = read_corpus(out)
    for path in files[:4]:
        (copy / "sites" / path.name).write_bytes(path.read_bytes())
    (copy / "sites" / files[1].name).write_text('{"truncated": ', encoding="utf-8")
    again = write_corpus(plan_corpus(6, ["all"], 5), copy, workers=1, progress=False)
    assert again == manifest
    for path in files:
        assert (copy / "sites" / path.name).read_bytes() == path.read_bytes()


def test_a_holdout_that_drops_tasks_hashes_what_is_left() -> None:
    spec = plan_corpus(1, ["forum"], 2, split="test").sites[0]
    full, _ = draft_site("forum", spec.seed)
    assert full.id == ""  # a draft is not hashed yet
    family = full.tasks[0].family
    spec = plan_corpus(1, ["forum"], 2, split="test", holdouts=[Holdout.parse(f"family:{family}")]).sites[0]
    site, text, dropped = build_site_file(spec)
    assert site.tasks and {t.family for t in site.tasks} == {family} and len(site.tasks) < len(full.tasks)
    assert text == stdlib_file(site) and site.id == site_id(site)
    assert build_site(spec) == (site, dropped)


def test_stats_of_a_directory_in_processes_equal_the_stats_of_its_sites(corpus: tuple[Path, dict]) -> None:
    out, _ = corpus
    sites = list(load_sites(out))
    expected = corpus_stats(sites)
    assert format_stats(corpus_dir_stats(out, workers=2)) == format_stats(expected)
    assert {d: s.as_dict() for d, s in corpus_dir_stats(out, workers=1).items()} == {
        d: s.as_dict() for d, s in expected.items()}
    # the skeletons come from replaying each certificate: one role and action per step
    shapes = skeletons(sites[0])
    lengths = sorted(len(shape) for family in shapes.values() for shape in family)
    assert lengths == sorted(len(task.certificate) for task in sites[0].tasks)
    assert any(role not in ("-",) for family in shapes.values() for shape in family for role, _ in shape)


def test_stats_refuse_a_directory_that_is_no_corpus(tmp_path: Path) -> None:
    with pytest.raises(VeriwebError, match="no manifest.json"):
        corpus_dir_stats(tmp_path)

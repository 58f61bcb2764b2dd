"""The verified-versus-raw ablation as one command: corpora per defect rate, cached; five arms; the report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
torch.set_num_threads(1)  # more threads spin against other jobs on a shared two-core machine

from veriweb.agents.ablation import ARMS, CONTRASTS, TRAINS_ON  # noqa: E402
from veriweb.agents.ablation_corpora import STAMP, cached  # noqa: E402
from veriweb.cli import main  # noqa: E402
from veriweb.errors import VeriwebError  # noqa: E402
from veriweb.generate.corpus import load_sites  # noqa: E402
from veriweb.verify.defects import DefectModel  # noqa: E402
from veriweb.verify.pipeline import replays  # noqa: E402


def test_cached_corpus_is_made_once_and_a_partial_one_never_counts(tmp_path: Path) -> None:
    target = tmp_path / "corpus"
    made: list[str] = []

    def broken(directory: Path) -> None:
        (directory / "half.json").write_text("{}", encoding="utf-8")
        raise RuntimeError("stopped halfway")

    with pytest.raises(RuntimeError):
        cached(target, {"n": 1}, broken, made.append)
    assert not target.exists() and (tmp_path / "corpus.partial" / "half.json").exists()

    def good(directory: Path) -> None:
        assert not (directory / "half.json").exists()  # the half-written copy was thrown away
        (directory / "site.json").write_text("{}", encoding="utf-8")

    assert cached(target, {"n": 1}, good, made.append) == target
    assert (target / "site.json").exists() and json.loads((target / STAMP).read_text()) == {"n": 1}
    assert not (tmp_path / "corpus.partial").exists()
    cached(target, {"n": 1}, broken, made.append)  # complete with the same stamp: not made again
    assert made[-1].strip().startswith("cached")
    with pytest.raises(VeriwebError, match="other settings"):
        cached(target, {"n": 2}, good, made.append)


@pytest.fixture(scope="module")
def one_command(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """``veriweb ablation --sites 1 --test-sites 1 --defect-rates 12`` with the smoke preset, quick settings."""
    out = tmp_path_factory.mktemp("ablation")
    args = ["ablation", "--sites", "1", "--test-sites", "1", "--defect-rates", "12", "--preset", "smoke",
            "--seed", "3", "--budget", "300", "--workers", "1", "--max-steps", "3", "--out", str(out)]
    assert main(args) == 0
    return out, " ".join(args)


def test_one_command_writes_the_report(one_command: tuple[Path, str]) -> None:
    out, _ = one_command
    report = (out / "report.md").read_text(encoding="utf-8")
    model = DefectModel.with_rate(12)
    assert model.config_hash() in report  # the defect model's hash, fixed before training
    fixed = json.loads((out / "defect_config.json").read_text(encoding="utf-8"))
    assert fixed["rate-12"]["sha256"] == model.config_hash() and fixed["rate-12"]["config"] == model.as_dict()
    for heading in ("## Defect model (fixed before any training)", "## What each arm trains on", "## rate-12"):
        assert heading in report
    for arm in ARMS:
        assert f"- **{arm}**: {TRAINS_ON[arm]}" in report
        assert f"\n| {arm} | " in report
    for a, b, meaning in CONTRASTS:
        assert f"| {a} - {b} | {meaning} | " in report
    assert report.count("Held-out per-step accuracy (teacher-forced)") == 2  # under both label sets
    for name in ("report.png", "gap.png", "rate-12/results.json"):
        assert (out / name).stat().st_size > 0
    results = json.loads((out / "rate-12" / "results.json").read_text(encoding="utf-8"))
    assert set(results["summary"]) == set(ARMS)
    episodes = {arm: [(e["site"], e["task"]) for e in results["episodes"] if e["agent"] == arm] for arm in ARMS}
    assert len({tuple(v) for v in episodes.values()}) == 1 and episodes["raw"]  # the same test episodes for all
    test_ids = {s.id for s in load_sites(out / "corpora" / "test")}
    train_ids = {s.id for arm in ARMS for s in load_sites(out / "corpora" / "rate-12" / arm)}
    assert not test_ids & train_ids and {e[0] for e in episodes["raw"]} <= test_ids


def test_arms_train_on_different_things(one_command: tuple[Path, str]) -> None:
    out, _ = one_command
    base = out / "corpora" / "rate-12"
    shipped = [s for s in load_sites(base / "raw-sites")]
    raw, judged, filtered, verified, subsampled = ([s for s in load_sites(base / arm)]
                                                   for arm in ("raw", "judged", "filtered", "verified", "subsampled"))
    # raw sites ship without certificates; the raw arm gets its author's plans for every task, nothing dropped
    assert all(not t.certificate for s in shipped for t in s.tasks)
    assert [[t.id for t in s.tasks] for s in raw] == [[t.id for t in s.tasks] for s in shipped]
    assert all(t.certificate for s in raw for t in s.tasks)
    assert [s.pages for s in raw] == [s.pages for s in shipped] and [s.database for s in raw] == [
        s.database for s in shipped]
    # filtered: the same unrepaired pages and records, only the tasks the verifier ships
    by_raw = {s.name: s for s in shipped}
    for site in filtered:
        assert site.pages == by_raw[site.name].pages and site.database == by_raw[site.name].database
        assert {t.id for t in site.tasks} <= {t.id for t in by_raw[site.name].tasks}
    # judged: the same unrepaired pages and records; every task kept has a trace its own raw judge accepts
    outcomes = json.loads((base / "judged" / "outcomes.json").read_text(encoding="utf-8"))
    assert sum(len(v) for v in outcomes.values()) == sum(len(s.tasks) for s in shipped)  # every task accounted for
    for site in judged:
        raw_site = by_raw[site.name]
        assert site.pages == raw_site.pages and site.database == raw_site.database
        assert {t.id for t in site.tasks} <= {t.id for t in raw_site.tasks}
        assert all(replays(raw_site, t, t.certificate) for t in site.tasks)
    assert sum(len(s.tasks) for s in judged) == sum(what in ("solved", "reported") for v in outcomes.values()
                                                    for what in v.values())
    verdicts = json.loads((base / "filtered" / "verdicts.json").read_text(encoding="utf-8"))
    shipped_ids = {t for v in verdicts.values() for t, status in v["statuses"].items()
                   if status in ("certified", "proven_infeasible") and t not in v["dropped"]}
    assert {t.id for s in filtered for t in s.tasks} == shipped_ids
    # verified: repaired (the pages or records changed); subsampled: verified tasks, as many as filtered
    assert any(v.pages != by_raw[v.name].pages or v.database != by_raw[v.name].database for v in verified)
    n_filtered, n_verified = (sum(len(s.tasks) for s in arm) for arm in (filtered, verified))
    assert sum(len(s.tasks) for s in subsampled) == min(n_filtered, n_verified)
    verified_tasks = {(s.name, t.id): t.certificate for s in verified for t in s.tasks}
    assert all(verified_tasks[(s.name, t.id)] == t.certificate for s in subsampled for t in s.tasks)
    # the arms clone different demonstrations, and the raw arm's are taken as given (failures kept, counted)
    summaries = {arm: json.loads((out / "rate-12" / arm / "summary.json").read_text()) for arm in ARMS}
    assert summaries["raw"]["outcomes"]["solved"] < sum(summaries["raw"]["outcomes"].values())
    assert all(summaries[arm]["outcomes"]["solved"] == summaries[arm]["demonstrations"]["tasks"]
               for arm in ("verified", "subsampled"))
    assert len({summaries[arm]["demonstrations"]["steps"] for arm in ("raw", "filtered", "verified")}) > 1


def test_rerun_reuses_everything_and_explicit_corpora_still_work(one_command: tuple[Path, str],
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    out, command = one_command
    capsys.readouterr()
    assert main(command.split()) == 0
    printed = capsys.readouterr().out
    assert "making" not in printed and printed.count("cached") >= 6 + len(ARMS)
    base = out / "corpora" / "rate-12"
    explicit = out / "explicit"
    args = ["ablation", *[x for arm in ARMS for x in (f"--{arm}", str(base / arm))], "--eval",
            str(out / "corpora" / "test"), "--preset", "smoke", "--seed", "3", "--max-steps", "3",
            "--out", str(explicit)]
    assert main(args) == 0
    report = (explicit / "report.md").read_text(encoding="utf-8")
    assert "## given corpora" in report and all(f"\n| {arm} | " in report for arm in ARMS)
    # the explicit run trains the same way on the same corpora: the same test results
    ours = json.loads((out / "rate-12" / "results.json").read_text())["episodes"]
    theirs = json.loads((explicit / "results.json").read_text())["episodes"]
    assert ours == theirs


def test_bad_arguments_say_what_to_do(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ablation", "--out", str(tmp_path)]) == 2  # neither --sites nor the four corpora
    assert "--sites N" in capsys.readouterr().err
    assert main(["ablation", "--sites", "2", "--defect-rates", "6,x", "--out", str(tmp_path)]) == 2
    assert "--defect-rates" in capsys.readouterr().err
    assert main(["ablation", "--sites", "2", "--raw", str(tmp_path), "--out", str(tmp_path)]) == 2
    assert "drop --raw" in capsys.readouterr().err

"""``veriweb corpus``: site files written by hand become a corpus that verify, repair and the
envs take; bad files are named with their JSON path and nothing is written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from veriweb.cli import main
from veriweb.errors import VeriwebError
from veriweb.generate.corpus import HAND_WRITTEN, gather_corpus, load_sites, read_corpus

HAND = Path(__file__).parent / "data" / "notes_by_hand.json"


def test_hand_written_site_verifies_clean(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from veriweb.verify.pipeline import verify_corpus

    assert main(["corpus", str(HAND), "--out", str(tmp_path / "c")]) == 0
    manifest, files = read_corpus(tmp_path / "c")
    assert manifest["generator"] == HAND_WRITTEN and len(files) == 1
    assert manifest["sites"][0]["source"] == str(HAND) and manifest["sites"][0]["tasks"] == 2
    site = next(iter(load_sites(tmp_path / "c")))
    assert site.id.startswith("site-")  # given no id, it gets its content hash
    report = verify_corpus(tmp_path / "c", workers=1, progress=False)
    raw = report["per_site"][0]["raw"]
    assert raw["issues"] == [] and raw["statuses"] == {"certified": 2}
    assert raw["probes_run"] > 0 and raw["probes_passed"] == 0


def test_directories_and_order(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    shutil.copy(HAND, folder / "b.json")
    data = json.loads(HAND.read_text())
    data["name"] = "Other Notes"
    (folder / "a.json").write_text(json.dumps(data))
    (folder / "a.defects.json").write_text("{}")  # sidecars and reports are not sites
    manifest = gather_corpus([folder], tmp_path / "c")
    assert [e["name"] for e in manifest["sites"]] == ["Other Notes", "Tiny Notes"]
    assert [e["file"] for e in manifest["sites"]] == ["sites/00000-forum.json", "sites/00001-forum.json"]


def test_bad_file_is_named_and_nothing_is_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads(HAND.read_text())
    data["pages"][0]["elements"][1]["item"][0]["hreff"] = "/x"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    assert main(["corpus", str(HAND), str(bad), "--out", str(tmp_path / "c")]) == 2
    err = capsys.readouterr().err
    assert "bad.json" in err and "$.pages[0].elements[1].item[0]" in err
    assert not (tmp_path / "c" / "manifest.json").exists()
    (tmp_path / "broken.json").write_text("{not json")
    with pytest.raises(VeriwebError, match=r"broken\.json is not valid JSON"):
        gather_corpus([tmp_path / "broken.json"], tmp_path / "c")
    with pytest.raises(VeriwebError, match="no such file"):
        gather_corpus([tmp_path / "missing.json"], tmp_path / "c")


def test_verify_on_a_site_file_says_how_to_make_a_corpus(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(HAND)]) == 2
    assert "veriweb corpus" in capsys.readouterr().err

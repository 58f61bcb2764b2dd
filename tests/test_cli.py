"""The ``veriweb`` command, run in-process through its ``main`` entry point."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from veriweb.cli import example_path, main


def test_run_replays_the_example_and_generates_a_corpus(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--quiet", "--sites", "6", "--out", str(tmp_path / "run")]) == 0
    out = capsys.readouterr().out
    assert "11/11 certificates replayed to success on Threadline" in out
    assert (tmp_path / "run" / "corpus" / "manifest.json").is_file()
    assert "6 sites" in out and "page-graph classes" in out


def test_replay_one_task_by_number_and_by_id(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "shop", "--task", "2"]) == 0
    by_number = capsys.readouterr().out
    assert main(["replay", str(example_path()), "--task", "cart_total"]) == 0
    assert capsys.readouterr().out == by_number
    assert "send_msg_to_user('The subtotal is $70.97.')" in by_number


def test_unknown_task_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "--task", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("veriweb: error: site 'Threadline' has no task 'nope'") and "Traceback" not in err


def test_play_reads_actions_and_reports_the_outcome(monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("click('6')\nclick('999')\n:tree\nsend_msg_to_user('2')\n"))
    assert main(["play", "--task", "count_orders"]) == 0
    out = capsys.readouterr().out
    assert "How many orders have you placed so far?" in out
    assert "last_action_error: no element with bid '999'" in out
    assert "episode over: SUCCESS" in out


def test_play_quits_on_request(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(":help\n:reset\n:quit\n"))
    assert main(["play"]) == 0
    out = capsys.readouterr().out
    assert "send_msg_to_user(" in out and "(reset)" in out


def test_info_lists_tasks(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    assert "11 tasks" in out and "add_missing_product" in out


def test_fmt_rewrites_a_hand_edited_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads(example_path().read_text(encoding="utf-8"))
    data["name"] = "Threadline Outlet"
    edited = tmp_path / "site.json"
    edited.write_text(json.dumps(data), encoding="utf-8")
    assert main(["replay", str(edited), "--quiet"]) == 2  # stale id: told to re-hash
    assert "veriweb fmt" in capsys.readouterr().err
    assert main(["fmt", "--check", str(edited)]) == 1
    assert main(["fmt", str(edited)]) == 0
    assert main(["fmt", "--check", str(edited)]) == 0
    assert main(["replay", str(edited), "--quiet"]) == 0

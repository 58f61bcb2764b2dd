"""Retention among the tasks the defect model leaves repairable (read from the sidecars by the report only)."""

from __future__ import annotations

import json
from pathlib import Path

from veriweb.verify.report import repairable_retention


def _corpus(root: Path) -> list[dict[str, object]]:
    (root / "sites").mkdir()
    (root / "sites" / "00000-shop.json").write_text(json.dumps({"tasks": [{"id": t} for t in "abcd"]}))
    (root / "sites" / "00000-shop.defects.json").write_text(json.dumps({"defects": [
        {"code": "F001", "repairable": False, "tasks": ["a"]}, {"code": "S001", "repairable": True, "tasks": ["b"]}]}))
    (root / "sites" / "00001-mail.json").write_text(json.dumps({"tasks": [{"id": t} for t in "xy"]}))
    (root / "sites" / "00001-mail.defects.json").write_text(json.dumps({"defects": []}))
    return [{"file": "sites/00000-shop.json", "dropped_tasks": {"a": "goal at start", "b": "undecided"}, "site_dropped": ""},
            {"file": "sites/00001-mail.json", "dropped_tasks": {}, "site_dropped": "1 defect no repair could fix"}]


def test_unrepairable_tasks_leave_both_counts(tmp_path: Path) -> None:
    out = repairable_retention(tmp_path, _corpus(tmp_path))
    # repairable: b, c, d (shop) and x, y (mail, whose whole site was dropped); kept: c, d
    assert out == {"unrepairable_tasks": 1, "repairable_tasks": 5, "retention": 0.4}


def test_no_sidecars_no_figure(tmp_path: Path) -> None:
    (tmp_path / "sites").mkdir()
    assert repairable_retention(tmp_path, [{"file": "sites/00000-shop.json", "dropped_tasks": {}}]) is None


def test_the_current_defect_model_says_which_kinds_have_a_repair(tmp_path: Path) -> None:
    """A sidecar written before a repair existed (goal_at_start marked unrepairable) counts by the
    model as it is now: the kind has a repair, so its task counts among the repairable ones; a
    kind the model does not know keeps the sidecar's word."""
    from veriweb.verify.injectors import INJECTORS

    assert INJECTORS["goal_at_start"][2] and INJECTORS["missing_control"][2] and INJECTORS["missing_value"][2]
    (tmp_path / "sites").mkdir()
    (tmp_path / "sites" / "00000-shop.json").write_text(json.dumps({"tasks": [{"id": t} for t in "abc"]}))
    (tmp_path / "sites" / "00000-shop.defects.json").write_text(json.dumps({"defects": [
        {"kind": "goal_at_start", "code": "F001", "repairable": False, "tasks": ["a"]},
        {"kind": "from_elsewhere", "code": "X001", "repairable": False, "tasks": ["b"]}]}))
    sites = [{"file": "sites/00000-shop.json", "dropped_tasks": {"a": "undecided"}, "site_dropped": ""}]
    assert repairable_retention(tmp_path, sites) == {"unrepairable_tasks": 1, "repairable_tasks": 2,
                                                     "retention": 0.5}

"""The verify/repair pipeline on one site, on a small corpus, and through the command line."""

from __future__ import annotations

import copy
import html
import json
from pathlib import Path
from typing import Any

import pytest

from veriweb.cli import main
from veriweb.generate.corpus import load_sites
from veriweb.generate.site import generate_site
from veriweb.scaffold import Site, save
from veriweb.scaffold.io import from_data, to_data
from veriweb.verify.checks import static_issues
from veriweb.verify.pipeline import repair_site, replays, verify_site
from veriweb.verify.report import format_table, render_html, score_checks, write_report

BUDGET = 400
AT_HOME = {"id": "at_home", "kind": "navigate", "template": "Go to the home page.",
           "instruction": "Go to the home page.", "goal": [{"kind": "page", "page": "home"}]}


@pytest.fixture(scope="module")
def small() -> Site:
    """A generated shop with three cheap tasks: a navigate, a retrieve and an infeasible one."""
    site = generate_site("shop", 1)
    keep = [t for t in site.tasks if t.id in ("cheapest_0", "price_lookup") or t.kind == "infeasible"]
    return from_data(to_data(site.model_copy(update={"tasks": keep})) | {"id": ""})


def defective(site: Site) -> Site:
    """The small shop with a broken list query on the home page (which cheapest_0 goes through), a
    task naming a product that does not exist, and a task whose goal holds at the start."""
    data = copy.deepcopy(to_data(site))
    data.pop("id", None)
    home = next(p for p in data["pages"] if p["id"] == "home")
    home_list = next(e for e in home["elements"] if e["type"] == "list")
    home_list["query"]["order_by"][0]["column"] = "nmae"
    lookup = next(t for t in data["tasks"] if t["id"] == "price_lookup")
    lookup["slots"]["product"] = lookup["slots"]["product"][:-1] + "z"
    lookup["instruction"] = lookup["template"].format(**lookup["slots"])
    data["tasks"].append(AT_HOME)
    return from_data(data, check_id=False)


@pytest.fixture(scope="module")
def repaired(small: Site) -> tuple[Site | None, Any]:
    return repair_site(defective(small), budget=BUDGET)


def test_clean_site_verifies_clean(small: Site) -> None:
    report = verify_site(small, budget=BUDGET)
    assert report.raw.issues == []
    assert report.raw.feasible == report.raw.tasks == 3
    assert report.raw.probes_run > 0 and report.raw.probes_passed == 0
    assert report.raw.false_feasible == 0


def test_repair_certifies_what_it_keeps(small: Site, repaired: tuple[Site | None, Any]) -> None:
    fixed, report = repaired
    assert fixed is not None and not report.site_dropped
    assert {i["code"] for i in report.raw.issues} >= {"S006", "M005", "F001"}
    assert static_issues(fixed) == []
    assert [t.id for t in fixed.tasks] == [t.id for t in small.tasks] + ["at_home"]
    # the task that starts where its goal holds is started elsewhere (F001 repaired, not dropped)
    assert fixed.task("at_home").start_url != "/"
    assert any(r["operator"] == "retarget_task" and "at_home" in r["change"] for r in report.repairs)
    assert report.dropped_tasks == {}
    for task in fixed.tasks:
        assert task.certificate
        assert replays(fixed, task, task.certificate)
    original = small.task("price_lookup").slots["product"]
    assert fixed.task("price_lookup").slots["product"] == original
    assert original in fixed.task("price_lookup").instruction
    assert {r["code"] for r in report.repairs} >= {"S006", "M005"}
    assert report.verified.issues == [] and report.verified.false_feasible == 0
    assert report.verified.probes_passed == 0
    assert report.verified.feasible == report.verified.tasks == 4


def test_touched_tasks_get_the_searchs_certificate(small: Site, repaired: tuple[Site | None, Any]) -> None:
    fixed, _ = repaired
    from veriweb.verify.search import solve

    for task_id in ("cheapest_0", "price_lookup"):  # both read what a repair touched
        task = fixed.task(task_id)
        assert task.certificate == solve(fixed, task, budget=BUDGET).actions


def test_tasks_a_repair_changes_are_searched_once(small: Site, repaired: tuple[Site | None, Any]) -> None:
    """By default a task that reads what a static repair changed is searched on the repaired site only;
    searching it on the raw site as well (``search_raw``) ships the same site with the same report of it."""
    from veriweb.verify import feasibility

    calls: list[tuple[str, bool]] = []
    original = feasibility.verify_task

    def spy(site: Site, task: Any, **kwargs: Any) -> Any:
        calls.append((task.id, kwargs.get("search", True)))
        return original(site, task, **kwargs)

    feasibility.verify_task = spy
    try:
        thorough, full = repair_site(defective(small), budget=BUDGET, search_raw=True)
        searched = list(calls)
        calls.clear()
        fast, report = repair_site(defective(small), budget=BUDGET)
    finally:
        feasibility.verify_task = original
    fixed, _ = repaired
    assert fast is not None and thorough is not None
    assert to_data(fast) == to_data(thorough) == to_data(fixed)
    assert report.verified == full.verified and report.repairs == full.repairs
    assert report.dropped_tasks == full.dropped_tasks
    # cheapest_0 goes through the repaired home page and price_lookup's slot is rewritten: the raw
    # site never searches them, the thorough run does
    assert ("cheapest_0", False) in calls and ("price_lookup", False) in calls
    assert ("cheapest_0", True) in searched and ("price_lookup", True) in searched
    assert sum(1 for _, search in calls if search) < sum(1 for _, search in searched if search)
    # the raw side names the same tasks and issues, but no raw status claims more than the raw site shows
    assert report.raw.tasks == full.raw.tasks
    assert sum(report.raw.statuses.values()) == sum(full.raw.statuses.values())
    assert {i["code"] for i in report.raw.issues} >= {"S006", "M005", "F001"}



def test_raw_status_search_gets_a_share_of_the_budget(small: Site) -> None:
    """A task certified only on the repaired site whose certificate fails on the raw site is searched
    on the raw site for the report's raw column, with ``budget // RAW_STATUS_SHARE``; a certificate
    that replays there is taken without a search."""
    from veriweb.verify import feasibility
    from veriweb.verify.feasibility import NOT_SEARCHED, TaskVerdict, certified
    from veriweb.verify.pipeline import RAW_STATUS_SHARE, _raw_statuses

    raw = defective(small)
    task = raw.task("price_lookup")
    unsearched = TaskVerdict(task.id, "undecided", (), NOT_SEARCHED, (), 0)
    verdicts = {t.id: TaskVerdict(t.id, "infeasible", (), "proof", (), 0) for t in raw.tasks} | {task.id: unsearched}
    calls: list[int] = []
    original = feasibility.verify_task

    def spy(site: Site, task: Any, **kwargs: Any) -> Any:
        calls.append(kwargs["budget"])
        return original(site, task, **kwargs)

    feasibility.verify_task = spy
    try:
        # a certificate that cannot replay anywhere (it clicks no element of the site): searched
        broken = certified(task, ["click('no-such-element')"], [], "$.tasks[1]")
        shown = _raw_statuses(raw, verdicts, {task.id: broken}, BUDGET)
        assert calls == [BUDGET // RAW_STATUS_SHARE]
        assert shown[task.id].proof != NOT_SEARCHED
        # an infeasible verdict after repair: no raw search at all
        calls.clear()
        gone = TaskVerdict(task.id, "infeasible", (), "proof", (), 0)
        assert _raw_statuses(raw, verdicts, {task.id: gone}, BUDGET)[task.id] is unsearched
        assert calls == []
    finally:
        feasibility.verify_task = original


def _corpus(root: Path, sites: list[tuple[str, Site]], truth: dict[str, list[dict[str, Any]]]) -> None:
    (root / "sites").mkdir(parents=True)
    entries = []
    for name, site in sites:
        save(site, root / "sites" / name)
        entries.append({"file": f"sites/{name}", "id": site.id, "domain": site.domain, "tasks": len(site.tasks)})
        if name in truth:
            (root / "sites" / name.replace(".json", ".defects.json")).write_text(json.dumps({"defects": truth[name]}))
    (root / "manifest.json").write_text(json.dumps({"generator": "test", "sites": entries}))


def test_cli_verify_and_repair(tmp_path: Path, small: Site, capsys: pytest.CaptureFixture[str]) -> None:
    raw = tmp_path / "raw"
    broken = defective(small)
    page = next(i for i, p in enumerate(small.pages) if p.id == "home")
    element = next(i for i, e in enumerate(small.pages[page].elements) if e.type == "list")
    truth = {"00001-shop.json": [
        {"code": "S006", "class": "structural",
         "location": f"$.pages[{page}].elements[{element}].query.order_by[0].column"},
        {"code": "M005", "class": "semantic", "location": "$.tasks[1].slots.product"},
        {"code": "C001", "class": "consistency", "location": "$.database.tables[6].rows[0].user_id"}]}
    _corpus(raw, [("00000-shop.json", small), ("00001-shop.json", broken)], truth)
    budget = str(BUDGET)
    assert main(["verify", str(raw), "--html", "--workers", "1", "--quiet", "--budget", budget]) == 0
    report = json.loads((raw / "report.json").read_text())
    assert report["raw"]["sites"] == 2 and report["raw"]["defects"] >= 3
    scores = report["scores"]
    assert scores["S006"]["recall"] == 1.0 and scores["C001"]["recall"] == 0.0
    assert scores["all"]["defects"] == 3
    assert "<table>" in (raw / "report.html").read_text() and "<script" not in (raw / "report.html").read_text()
    assert "feasible-task rate" in capsys.readouterr().out

    out = tmp_path / "certified"
    assert main(["repair", str(raw), "--out", str(out), "--workers", "1", "--quiet", "--budget", budget]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["certified"] is True and len(manifest["sites"]) == 2
    report = json.loads((out / "report.json").read_text())
    assert report["verified"]["defects"] == 0 and report["verified"]["false_feasible"] == 0
    assert report["verified"]["retention"] == 1.0  # the task whose goal held at the start is started elsewhere
    for site in load_sites(out):
        assert static_issues(site) == []
        assert all(replays(site, t, t.certificate) for t in site.tasks)
    assert not list(out.glob("sites/*.defects.json"))


def test_report_presentation_without_ground_truth(tmp_path: Path, small: Site) -> None:
    report = verify_site(small, budget=BUDGET).as_dict() | {"file": "sites/00000-shop.json"}
    assert score_checks(tmp_path, [report]) is None
    from veriweb.verify.report import build_report

    data = build_report([report], raw_dir=tmp_path, budget=BUDGET, mode="verify", seconds=1.0)
    assert "defects per site" in format_table(data)
    assert html.escape(small.name) in render_html(data)  # names are escaped ("Maple &amp; Co")
    # the same corpus and budget give the same report bytes: timings are printed, never written
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    write_report(data, tmp_path / "a", html=True)
    write_report(data | {"seconds": 99.0}, tmp_path / "b", html=True)
    for name in ("report.json", "report.html"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    assert "seconds" not in json.loads((tmp_path / "a" / "report.json").read_text())


def test_cli_errors_name_the_problem(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(tmp_path / "nothing")]) == 2
    assert "manifest.json" in capsys.readouterr().err


def test_plain_generate_certifies_its_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "corpus"
    # a budget of one state certifies nothing: every searched task is undecided and not shipped
    assert main(["generate", "--sites", "1", "--domains", "shop", "--out", str(out), "--budget", "1",
                 "--workers", "1", "--quiet"]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    report = json.loads((out / "report.json").read_text())
    assert manifest["certified"] is True and report["mode"] == "repair"
    assert report["raw"]["statuses"].get("undecided", 0) > 0
    assert report["verified"]["undecided"] == 0
    kept = sum(len(site.tasks) for site in load_sites(out))
    assert kept == report["verified"]["tasks"] < report["raw"]["tasks"]
    assert "task retention" in capsys.readouterr().out


def test_precision_counts_symptoms_of_a_broken_task_but_not_of_a_sound_one(tmp_path: Path) -> None:
    sites = tmp_path / "sites"
    sites.mkdir()
    (sites / "00000-shop.json").write_text(json.dumps({"tasks": [{"id": "a"}, {"id": "b"}]}))
    defect = {"code": "F001", "class": "feasibility", "location": "$.tasks[1].goal", "related": [], "knock_on": [],
              "tasks": ["b"]}
    (sites / "00000-shop.defects.json").write_text(json.dumps({"defects": [defect]}))
    issues = [{"class": "feasibility", "code": "F001", "location": "$.tasks[1].goal", "message": ""},
              {"class": "feasibility", "code": "F003", "location": "$.tasks[1].goal", "message": ""},  # symptom of b's defect
              {"class": "feasibility", "code": "F003", "location": "$.tasks[0].goal", "message": ""}]  # a is sound
    scores = score_checks(tmp_path, [{"file": "sites/00000-shop.json", "raw": {"issues": issues}}])
    assert scores is not None
    assert scores["F001"]["recall"] == 1.0 and scores["F001"]["precision"] == 1.0
    assert scores["F003"]["true_positives"] == 1 and scores["F003"]["precision"] == 0.5


def test_a_harmless_edit_that_renumbers_elements_keeps_every_task(small: Site) -> None:
    """A link added to the home page shifts the element numbers that the stored certificates click:
    they no longer replay (F002), but the search certifies each task anew and its certificate
    replaces the stale one, so repairing loses no task that the unedited site keeps."""
    data = copy.deepcopy(to_data(small))
    data.pop("id", None)
    home = next(p for p in data["pages"] if p["id"] == "home")
    home["elements"].insert(0, {"type": "link", "text": "About us", "href": "/"})
    edited = from_data(data, check_id=False)
    report = verify_site(edited, budget=BUDGET)
    stale = {i["location"] for i in report.raw.issues if i["code"] == "F002"}
    assert stale  # the edit did make stored certificates fail
    before, _ = repair_site(small, budget=BUDGET)
    after, log = repair_site(edited, budget=BUDGET)
    assert before is not None and after is not None
    assert [t.id for t in after.tasks] == [t.id for t in before.tasks]
    replaced = {r["location"] for r in log.repairs if r["operator"] == "replace_certificate"}
    assert replaced == stale
    assert all(replays(after, t, t.certificate) for t in after.tasks if t.kind != "infeasible")


def test_an_orphan_page_linked_from_the_navigation_keeps_every_task(small: Site) -> None:
    """Linking an unreachable page from the header's navigation (S002) renumbers every element after
    it on every page with the layout, so every task that visits one is certified again on the
    repaired site: none is dropped for a certificate that no longer replays."""
    data = copy.deepcopy(to_data(small))
    data.pop("id", None)
    data["pages"].append({"id": "moderators", "route": "/moderators", "title": "Moderators",
                          "elements": [{"type": "heading", "level": 1, "text": "Moderators"},
                                       {"type": "text", "text": "Our volunteer moderators keep every forum friendly."}]})
    edited = from_data(data, check_id=False)
    assert any(i.code == "S002" for i in static_issues(edited))
    before, _ = repair_site(small, budget=BUDGET)
    after, log = repair_site(edited, budget=BUDGET)
    assert before is not None and after is not None
    assert any(r["operator"] == "link_orphan" and "navigation" in r["change"] for r in log.repairs), log.repairs
    assert not log.dropped_tasks, log.dropped_tasks
    assert [t.id for t in after.tasks] == [t.id for t in before.tasks]
    assert all(replays(after, t, t.certificate) for t in after.tasks if t.kind != "infeasible")


def _admin_with_a_wrong_march_total() -> Site:
    """Admin site 0 cut to its ``month_revenue`` task ("the gross revenue for March 2026", read off the
    ``revenue_month`` view over ``orders``), one of whose March orders has a total 15.00 over its lines."""
    site = generate_site("admin", 0)
    data = to_data(site.model_copy(update={"tasks": [t for t in site.tasks if t.id == "month_revenue"]}))
    data.pop("id", None)
    orders = next(t for t in data["database"]["tables"] if t["name"] == "orders")
    row = next(r for r in orders["rows"] if r["created"].startswith("2026-03") and r["status"] != "canceled")
    row["total"] += 1500
    return from_data(data, check_id=False)


def test_a_total_recomputed_under_a_view_re_certifies_the_task_that_reads_the_view() -> None:
    """The repair recomputes the order's total (C004), which moves March's revenue in the view the task's
    answer reads: the task is searched again on the repaired site, so the figure it ships is the new one.
    (It used to keep the raw site's certificate, fail the final replay and be dropped.)"""
    raw = _admin_with_a_wrong_march_total()
    fixed, report = repair_site(raw)
    assert any(r["operator"] == "recompute_total" for r in report.repairs)
    assert fixed is not None and report.dropped_tasks == {}
    task = fixed.tasks[0]
    assert replays(fixed, task, task.certificate)
    assert not replays(raw, task, task.certificate)  # the raw site's revenue is another figure


def test_a_certificate_that_stops_replaying_is_searched_again_not_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    """The final replay in a fresh session is the safety net: with an invalidation that misses what a
    repair changed (here: none at all), the raw certificate fails there, and the task is searched
    again on the final site and kept with the new certificate, the change logged. The task carries no
    stored certificate: one that still runs would show the raw judge's answer moved (M017), and the raw
    search would certify nothing to fail later."""
    import veriweb.verify.pipeline as pipeline

    monkeypatch.setattr(pipeline, "invalidated", lambda site, touched, visits: set())
    raw = _admin_with_a_wrong_march_total()
    raw = raw.model_copy(update={"tasks": [t.model_copy(update={"certificate": []}) for t in raw.tasks]})
    fixed, report = pipeline.repair_site(raw)
    assert fixed is not None and report.dropped_tasks == {}
    assert any(r["operator"] == "replace_certificate" and "searched again" in r["change"] for r in report.repairs)
    assert replays(fixed, fixed.tasks[0], fixed.tasks[0].certificate)

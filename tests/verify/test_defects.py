"""The defect model: deterministic, real defects that load as scaffolds, reported by the checks, with ground truth."""

from __future__ import annotations

import json

import pytest

from veriweb.errors import VeriwebError
from veriweb.generate.corpus import plan_corpus, read_corpus, write_corpus
from veriweb.generate.site import available_domains, generate_site
from veriweb.scaffold import Site, dumps, loads
from veriweb.verify.checks import CHECKS, static_issues
from veriweb.verify.defects import DEFAULT_MODEL, Defect, DefectModel, inject, inject_site
from veriweb.verify.injectors import INJECTORS, Workbench

SEEDS = {"shop": 11, "admin": 12, "forum": 13, "travel": 15}
"""Enough domains for every kind to find something to break; clean-site silence over every
domain is measured in bench/defects_bench.py and tests/verify/test_checks.py."""


@pytest.fixture(scope="module")
def clean() -> dict[str, Site]:
    return {domain: generate_site(domain, seed) for domain, seed in SEEDS.items()}


@pytest.fixture(scope="module")
def raw(clean: dict[str, Site]) -> dict[str, object]:
    return {domain: inject_site(site, SEEDS[domain]) for domain, site in clean.items()}


def matches(defect: Defect, issues: list) -> bool:
    places = (defect.location, *defect.related)
    return any(i.code == defect.code and any(i.location.startswith(p) or p.startswith(i.location) for p in places)
               for i in issues)


def test_clean_generated_sites_have_no_static_issues(clean: dict[str, Site]) -> None:
    for domain, site in clean.items():
        assert static_issues(site) == [], domain


def test_raw_sites_round_trip_and_lose_their_certificates(clean: dict[str, Site], raw: dict[str, object]) -> None:
    for domain, found in raw.items():
        site = found.site
        assert loads(dumps(site)) == site
        assert site.id != clean[domain].id
        assert all(task.certificate == [] for task in site.tasks)
        assert [t.id for t in site.tasks] == [t.id for t in clean[domain].tasks]


def test_every_static_defect_is_reported_where_it_was_injected(raw: dict[str, object]) -> None:
    seen = set()
    for domain, found in raw.items():
        issues = static_issues(found.site)
        assert found.defects, domain
        for defect in found.defects:
            assert defect.code in CHECKS and defect.cls == CHECKS[defect.code][0]
            seen.add(defect.kind)
            if not defect.code.startswith("F"):
                assert matches(defect, issues), (domain, defect)
    assert len(seen) >= 12, seen


def test_each_kind_can_be_injected_and_is_detected(clean: dict[str, Site]) -> None:
    """Every injector, on its own, makes a defect the static checks (or, for F-codes, the start
    state) show, on at least one domain."""
    import random

    from veriweb.scaffold.io import from_data
    from veriweb.verify.retrace import trace

    for kind, (code, _, _, injector) in INJECTORS.items():
        hits = 0
        for domain, site in clean.items():
            wanted = [t for t in site.tasks if t.kind == "navigate"] if kind == "goal_at_start" else []
            traces = {t.id: trace(site, t) for t in wanted}
            wb = Workbench(site=site, data=site.model_dump(mode="json"), traces=traces)
            wb.data["id"] = ""
            hit = injector(wb, random.Random(f"test:{kind}"))
            if hit is None:
                continue
            broken = from_data(wb.data, check_id=False)
            if code.startswith("F"):
                hits += 1
                break
            defect = Defect(kind, code, CHECKS[code][0], hit.location, related=hit.related)
            assert matches(defect, static_issues(broken)), (kind, domain, hit)
            hits += 1
            break
        assert hits, f"{kind} found nothing to break on any domain"


def test_goal_at_start_really_holds_at_the_start(raw: dict[str, object]) -> None:
    from veriweb.engine import Episode

    checked = 0
    for found in raw.values():
        for defect in found.defects:
            if defect.kind == "goal_at_start":
                episode = Episode(found.site, defect.tasks[0])
                episode.reset()
                assert episode.judge.progress().goal, defect
                checked += 1
    assert checked


def test_injection_is_deterministic_and_seeded(clean: dict[str, Site], raw: dict[str, object]) -> None:
    again = inject_site(clean["travel"], SEEDS["travel"])
    assert again.site == raw["travel"].site and again.defects == raw["travel"].defects
    other, _ = inject(clean["travel"], SEEDS["travel"] + 1, DefectModel.with_rate(2))
    assert other.id != again.site.id


def test_ground_truth_feasibility(raw: dict[str, object]) -> None:
    for found in raw.values():
        broken = {t for d in found.defects if d.infeasible for t in d.tasks}
        assert {t for t, ok in found.feasible.items() if not ok} == broken | set(found.unattributed)
        assert all(d.infeasible == bool(d.tasks) for d in found.defects)
    rate = sum(sum(f.feasible.values()) for f in raw.values()) / sum(len(f.feasible) for f in raw.values())
    assert 0.2 < rate < 0.9


def test_model_config_and_hash() -> None:
    model = DefectModel()
    assert model.config_hash() == DEFAULT_MODEL.config_hash() and len(model.config_hash()) == 64
    assert DefectModel.with_rate(5).config_hash() != model.config_hash()
    assert set(dict(model.weights)) == set(INJECTORS)
    with pytest.raises(VeriwebError, match="unknown kind"):
        DefectModel(weights=(("gremlins", 1.0),))
    with pytest.raises(VeriwebError):
        DefectModel(rate=-1)


def test_defect_round_trips_as_json() -> None:
    defect = Defect("broken_link", "S001", "structural", "$.pages[1].elements[0].href", ("t1",), True, True, "x")
    assert Defect.from_dict(json.loads(json.dumps(defect.as_dict()))) == defect


def test_cli_generate_raw_writes_sidecars_and_a_raw_manifest(tmp_path, capsys) -> None:
    from veriweb.cli import main

    assert main(["generate", "--raw", "--defect-rate", "4", "--sites", "1", "--domains", "mail", "--seed", "5",
                 "--out", str(tmp_path), "--workers", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "defects per site" in out and "feasible" in out
    model = DefectModel.with_rate(4)
    manifest, files = read_corpus(tmp_path)
    assert manifest["raw"] is True and manifest["defect_model_hash"] == model.config_hash()
    assert manifest["defect_model"] == model.as_dict()
    for entry, path in zip(manifest["sites"], files):
        truth = json.loads((tmp_path / entry["truth"]).read_text())
        site = loads(path.read_text())
        assert truth["site_id"] == site.id == entry["id"]
        assert len(truth["defects"]) == entry["defects"] > 0
        assert set(truth["tasks"]) == {t.id for t in site.tasks}
        assert [Defect.from_dict(d).as_dict() for d in truth["defects"]] == truth["defects"]
    again = write_corpus(plan_corpus(1, ["mail"], 5), tmp_path, workers=1, progress=False, raw=model)
    assert again == manifest  # a re-run keeps what is there
    assert main(["generate", "--defect-rate", "3", "--out", str(tmp_path / "x")]) == 2
    assert "--raw" in capsys.readouterr().err


def test_fixture_domains_exist() -> None:
    assert set(SEEDS) <= set(available_domains())


def test_unchecked_date_write_is_reported(clean: dict[str, Site]) -> None:
    """C005's other half, on a hand edit the injector never makes: a date parameter stored with
    every check that mentions it removed (a coupon that may expire in the past)."""
    from veriweb.scaffold.io import from_data

    site, number = next((s, n) for s in clean.values() for n, m in enumerate(s.markers)
                        if any(p.type == "date" and f":{p.name}" in " ".join(e.sql for e in m.effects)
                               for p in m.params))
    marker = site.markers[number]
    param = next(n for n, p in enumerate(marker.params)
                 if p.type == "date" and f":{p.name}" in " ".join(e.sql for e in marker.effects))
    assert not [i for i in static_issues(site) if i.code == "C005"]
    data = site.model_dump(mode="json")
    data["id"] = ""
    for kind in ("preconditions", "invariants"):
        data["markers"][number][kind] = [
            c for c in data["markers"][number][kind] if marker.params[param].name not in json.dumps(c)]
    found = [i for i in static_issues(from_data(data, check_id=False)) if i.code == "C005"]
    # with the guards gone, two typed dates may also come out of the order the seed rows keep
    # (check-out before check-in): that is the other C005 at the marker, and only that
    assert [i.location for i in found if i.location != f"$.markers[{number}]"] == [
        f"$.markers[{number}].params[{param}]"]
    assert all("nothing keeps" in i.message for i in found if i.location == f"$.markers[{number}]")

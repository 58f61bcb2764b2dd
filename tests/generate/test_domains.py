"""Every domain blueprint, over many seeds: certificates replay, no-ops fail, infeasible stays infeasible."""

from __future__ import annotations

import importlib.util
from collections import Counter

import pytest

from veriweb.engine import Episode, Session
from veriweb.generate import generate_site
from veriweb.generate.domains import MODULES
from veriweb.scaffold import Site, dumps

DOMAINS = [d for d, module in MODULES.items() if importlib.util.find_spec(module) is not None]
SEEDS = range(20)
_CACHE: dict[tuple[str, int], Site] = {}


def site_for(domain: str, seed: int) -> Site:
    if (domain, seed) not in _CACHE:
        _CACHE[(domain, seed)] = generate_site(domain, seed)
    return _CACHE[(domain, seed)]


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_certificate_replays_and_no_op_never_succeeds(domain: str) -> None:
    for seed in SEEDS:
        site = site_for(domain, seed)
        session = Session(site)
        for task in site.tasks:
            episode = Episode(site, task, session=session)
            episode.reset()
            assert not episode.judge.progress().goal, f"{domain}/{seed}/{task.id}: goal true at the start"
            outcome = None
            for action in task.certificate:
                outcome = episode.step(action)
                assert outcome.error is None, (domain, seed, task.id, action, outcome.error)
            assert outcome is not None and outcome.success, (domain, seed, task.id, outcome and outcome.info)
            assert len(task.certificate) <= task.max_steps // 2
            episode.reset()
            for _ in range(task.max_steps):
                outcome = episode.step("noop()")
            assert outcome.truncated and not outcome.success


@pytest.mark.parametrize("domain", DOMAINS)
def test_infeasible_goals_stay_false_in_every_state_the_other_tasks_reach(domain: str) -> None:
    """Checked by the engine: replay every feasible certificate in one session (no episode ends)
    and evaluate each infeasible task's goal after every step."""
    for seed in SEEDS:
        site = site_for(domain, seed)
        infeasible = [t for t in site.tasks if t.kind == "infeasible"]
        assert infeasible, f"{domain}/{seed}: no infeasible task"
        session = Session(site)
        judges = [Episode(site, t, session=session).judge for t in infeasible]
        for task in site.tasks:
            if task.kind == "infeasible":
                continue
            session.reset(task.start_url, user=task.user if task.start_logged_in else None)
            for action in task.certificate:
                session.step(action)
                for judge in judges:
                    assert not any(judge.holds(p) for p in judge.task.goal), (domain, seed, judge.task.id, task.id)


@pytest.mark.parametrize("domain", DOMAINS)
def test_task_mix(domain: str) -> None:
    tasks = [t for seed in SEEDS for t in site_for(domain, seed).tasks]
    families = Counter(t.family for t in tasks)
    kinds = Counter(t.kind for t in tasks)
    assert len(families) >= 8, families
    assert set(kinds) == {"navigate", "retrieve", "mutate", "infeasible"}, kinds
    assert 0.05 <= kinds["infeasible"] / len(tasks) <= 0.10, kinds
    hard = [t for t in tasks if t.difficulty == "hard"]
    assert len(hard) >= len(tasks) / 4, Counter(t.difficulty for t in tasks)
    assert len(tasks) / len(SEEDS) >= 10
    assert any(t.credentials == "instruction" for t in tasks) and any(t.start_logged_in for t in tasks)


@pytest.mark.parametrize("domain", DOMAINS)
def test_routes_vary_with_the_site(domain: str) -> None:
    """Tasks start on several pages, and infeasible tasks look before they report, by more than one route."""
    tasks = [t for seed in SEEDS for t in site_for(domain, seed).tasks]
    starts = Counter(t.start_url for t in tasks)
    assert len(starts) >= 4 and starts["/"] < len(tasks), starts
    infeasible = [t for t in tasks if t.kind == "infeasible"]
    looked = [t for t in infeasible if len(t.certificate) > 1]
    assert len(looked) >= 0.8 * len(infeasible), [t.certificate for t in infeasible]
    assert len({tuple(a.split("(")[0] for a in t.certificate) for t in infeasible}) >= len(infeasible) / 3


@pytest.mark.parametrize("domain", DOMAINS)
def test_same_seed_same_bytes_and_seeds_differ(domain: str) -> None:
    assert dumps(generate_site(domain, 3)) == dumps(site_for(domain, 3))
    routes = {tuple(sorted(p.route for p in site_for(domain, seed).pages)) for seed in SEEDS}
    assert len(routes) > 1


@pytest.mark.parametrize("domain", DOMAINS)
def test_sites_have_realistic_sizes(domain: str) -> None:
    for seed in range(3):
        rows = sum(len(t.rows) for t in site_for(domain, seed).database.tables)
        assert rows >= 200, (domain, seed, rows)


VARIANTS = {
    "shop": {"retrieve_count": {"count_orders", "count_order_lines", "count_cart", "count_reviews", "count_search",
                                "count_category"},
             "retrieve_extreme": {"best_rated", "cheapest_match", "priciest"}, "login_write": {"login_add", "remove_item"}},
    "code": {"retrieve_count_profile": {"my_open_issues", "my_issues_in_project", "my_merge_requests_in_project"},
             "retrieve_list": {"labels_of", "open_mrs_of", "members_with_role", "active_milestones"},
             "retrieve_lookup": {"assignee_of", "mr_author", "mr_reviewer", "milestone_of"},
             "login_write": {"star_project", "unstar_project", "close_issue_login"}},
    "forum": {"retrieve_list": {"own_titles", "user_titles"}, "retrieve_sum": {"own_score", "user_score", "members_together"}},
    "mail": {"irreversible_write": {"empty_trash", "purge_trashed", "delete_for_good"},
             "settings_form": {"signature", "auto_reply", "display_name", "name_and_signature"},
             "retrieve_list": {"starred_subjects", "all_starred", "subjects_from"},
             "retrieve_contact": {"contact_address", "contact_phone", "contact_company"},
             "folder_multi_step": {"new_folder", "two_folders"}},
    "travel": {"retrieve_sum": {"stays_total", "flights_total"}, "login_write": {"cancel_stay", "cancel_flight_login"},
               "infeasible_missing": {"missing_city", "missing_hotel_city", "missing_hotel"}},
}
"""Task families that come in several variants (different goals, not only different routes)."""


@pytest.mark.parametrize("domain", [d for d in DOMAINS if d in VARIANTS])
def test_families_come_in_variants(domain: str) -> None:
    """Over 20 seeds, a family with variants shows at least two of them (most show all), and
    every family's certificates take several shapes (sequences of action types)."""
    tasks = [t for seed in SEEDS for t in site_for(domain, seed).tasks]
    for family, ids in VARIANTS[domain].items():
        seen = {t.id for t in tasks if t.family == family}
        assert seen <= ids and len(seen) >= min(len(ids), 2), (family, seen)
    shapes: dict[str, set[tuple[str, ...]]] = {}
    counts = Counter(t.family for t in tasks)
    for task in tasks:
        shapes.setdefault(task.family, set()).add(tuple(a.split("(")[0] for a in task.certificate))
    thin = {f: len(shapes[f]) for f in counts if counts[f] >= 8 and len(shapes[f]) < 3}
    assert not thin, thin

"""Soundness of infeasibility verdicts: no task the generator certified is ever proved infeasible.

A feasible task proved infeasible would be dropped from a corpus as broken (a false infeasible).
The generator's own certificate (which verification never reads) is the ground truth here: where
it replays to success, the task is feasible, so neither the proof from the markers' writes
(:func:`veriweb.verify.proofs.unreachable_goal`) nor an exhausted search may say otherwise.
"""

from __future__ import annotations

import pytest

from veriweb.engine import Episode, Session
from veriweb.generate.site import available_domains, generate_site
from veriweb.verify.feasibility import replay
from veriweb.verify.proofs import prove_infeasible, unreachable_goal
from veriweb.verify.search import solve

SEEDS = range(8)


@pytest.mark.parametrize("domain", available_domains())
def test_no_generator_certified_task_is_proved_infeasible(domain: str) -> None:
    checked = 0
    for seed in SEEDS:
        site = generate_site(domain, seed)
        session = Session(site)
        for task in site.tasks:
            if task.kind == "infeasible" or not task.certificate or not task.goal:
                continue
            ok, why = replay(site, task, task.certificate, session=session)
            assert ok, (domain, seed, task.id, why)  # the ground truth itself holds
            episode = Episode(site, task, session=session)
            episode.reset()
            argument = unreachable_goal(site, task, session, episode.judge.context())
            assert argument is None, (domain, seed, task.id, argument)
            checked += 1
    assert checked >= 20, checked  # the test looked at enough tasks to mean something


@pytest.mark.parametrize("domain", ["shop", "travel"])
def test_an_exhausted_search_never_declares_a_certified_task_unsolvable(domain: str) -> None:
    # "unsolved" means every state within the depth bound was tried; a task the generator solved
    # within that bound can never get it.
    site = generate_site(domain, 0)
    session = Session(site)
    for task in site.tasks:
        if task.kind == "infeasible" or not task.certificate:
            continue
        blind = task.model_copy(update={"certificate": []})
        result = solve(site, blind, session=session, budget=300, max_depth=task.max_steps)
        assert result.status != "unsolved", (task.id, result.reason)


def test_proofs_of_infeasibility_are_not_refuted_by_a_search_that_may_write_anywhere() -> None:
    proven = 0
    for domain in available_domains():
        site = generate_site(domain, 0)
        session = Session(site)
        for task in site.tasks:
            if task.kind != "infeasible":
                continue
            proof = prove_infeasible(site, task, session=session, budget=300)
            assert proof.status != "refuted", (domain, task.id, proof.text, proof.witness)
            proven += proof.status == "proven_infeasible"
    assert proven >= 3, proven

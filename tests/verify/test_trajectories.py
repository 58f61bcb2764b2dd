"""Shared prefixes: judging from a saved state says what replaying the whole trajectory says."""

from __future__ import annotations

import pytest

from veriweb.engine import Session
from veriweb.generate.site import generate_site
from veriweb.scaffold import Site
from veriweb.verify.trajectories import DONE, Completed, Prefixes, completed, judge_trajectory


@pytest.fixture(scope="module")
def sites() -> list[Site]:
    return [generate_site("shop", 1), generate_site("mail", 2)]


def _rests(certificate: list[str], cut: int) -> list[list[str]]:
    """Continuations to try after ``certificate[:cut]``: nothing, the rest, the rest without its first
    step, a detour to the home page, and an early "done"."""
    rest = certificate[cut:]
    return [[], rest, rest[1:], ["goto('/')", *rest], [DONE, *rest]]


def test_prefixes_judge_like_a_full_replay(sites: list[Site]) -> None:
    checked = passed = 0
    for site in sites:
        session = Session(site)
        for task in site.tasks:
            certificate = list(task.certificate)
            prefixes = Prefixes(site, task, certificate, session, range(len(certificate) + 1))
            for cut in range(len(certificate) + 1):
                for rest in _rests(certificate, cut):
                    want = judge_trajectory(site, task, [*certificate[:cut], *rest], session)
                    got = prefixes.judge(cut, rest)
                    assert got == want, (site.domain, task.id, cut, rest)
                    checked += 1
                    passed += want[0]
        session.close()
    assert checked > 300 and 0 < passed < checked  # both verdicts occur, so the comparison means something


def test_prefixes_with_a_subset_of_cuts(sites: list[Site]) -> None:
    site = sites[0]
    session = Session(site)
    task = max(site.tasks, key=lambda t: len(t.certificate))
    certificate = list(task.certificate)
    cuts = [1, len(certificate) - 1]
    prefixes = Prefixes(site, task, certificate, session, cuts)
    assert prefixes.has(1) and not prefixes.has(0)
    for cut in cuts:
        assert prefixes.judge(cut, certificate[cut:]) == judge_trajectory(site, task, certificate, session)
    with pytest.raises(KeyError):
        prefixes.judge(0, certificate)


def test_completed_restores_the_state_after_the_certificate(sites: list[Site]) -> None:
    site = sites[1]
    session = Session(site)
    mutating = [t for t in site.tasks if t.kind == "mutate"]
    assert mutating
    for task in mutating:
        after = Completed(site, task, list(task.certificate), session)
        fresh = completed(site, task, list(task.certificate), session)
        assert (after.episode() is None) == (fresh is None)
        if fresh is None:
            continue
        want = (session.db.state_hash(), str(session.ui.url), fresh.steps, fresh.finished)
        fresh.step(DONE)  # change the state, then ask again: it comes back
        episode = after.episode()
        assert episode is not None
        assert (session.db.state_hash(), str(session.ui.url), episode.steps, episode.finished) == want
        assert episode.step(DONE).success == completed(site, task, list(task.certificate), session).step(DONE).success

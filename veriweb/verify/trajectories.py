"""Decoy trajectories put to a task's judge: the probe record, certificate replays, direct marker writes."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from veriweb.engine import Episode, PageModel, Session
from veriweb.engine.actions import format_action, parse_action
from veriweb.engine.markers import run_marker
from veriweb.engine.query import Context
from veriweb.errors import MarkerFailed, VeriwebError
from veriweb.scaffold import Site, Task

DONE = "send_msg_to_user('Done.')"
"""What an agent says when it believes a navigate or mutate task is done."""

_versions = itertools.count(1)


def next_version() -> str:
    """A fresh database version name, for a session written to directly (caches key on it)."""
    return f"probe-{next(_versions)}"


@dataclass(frozen=True)
class Probe:
    """One question put to a task's judge.

    Attributes:
        kind: one of :data:`veriweb.verify.probes.KINDS`.
        name: unique within the task, e.g. ``other_entity:add_to_cart#0:product_id=7``.
        description: what the trajectory did, in words.
        passed_by_judge: whether the judge called it a success.
        applicable: ``False`` if the decoy could not be built (then it says why).
        expected: what a sound judge says (``True`` only for the certificate itself).
    """

    kind: str
    name: str
    description: str
    passed_by_judge: bool
    applicable: bool = True
    expected: bool = False

    @property
    def ok(self) -> bool:
        """The judge said what it should (not-applicable probes are neither ok nor wrong)."""
        return self.applicable and self.passed_by_judge == self.expected


@dataclass
class Call:
    """One marker the certificate ran: at which step, with which arguments, as whom, on which page."""

    step: int
    marker: str
    args: dict[str, Any]
    user: dict[str, Any]
    clock: dict[str, Any]
    page: PageModel


@dataclass
class Run:
    """The certificate replayed in a bare session: its marker calls and the final page."""

    calls: list[Call] = field(default_factory=list)
    final: PageModel | None = None


def not_applicable(kind: str, why: str) -> Probe:
    """A probe for a decoy that could not be built, saying why."""
    return Probe(kind, f"{kind}:n/a", why, False, applicable=False)


def as_action(text: str) -> str:
    """An action in its canonical spelling (checked by the grammar)."""
    return format_action(parse_action(text))


# ----------------------------------------------------------------------------- running


def record(site: Site, task: Task, certificate: list[str], session: Session) -> Run:
    """Replay the certificate in a bare session and note every marker it runs."""
    session.reset(task.start_url, user=task.user if task.start_logged_in else None)
    run = Run()
    for number, action in enumerate(certificate):
        page, user = session.page(), session.user_row()
        clock = {"today": session.today, "now": session.now}
        result = session.step(action)
        if result.marker is not None:
            run.calls.append(Call(number, result.marker.marker, dict(result.marker.args), user, clock, page))
    run.final = session.page()
    return run


def judge_trajectory(site: Site, task: Task, actions: list[str], session: Session, *,
                     end_on_success: bool = True) -> tuple[bool, int | None]:
    """Run ``actions`` (then "done", if the episode is still open) and return whether the judge
    passed it, and the index of the step where it did (``len(actions)`` for the final "done")."""
    episode = Episode(site, task, session=session, end_on_success=end_on_success)
    episode.reset()
    for number, action in enumerate([*actions, DONE]):
        if episode.finished:
            break
        outcome = episode.step(action)
        if outcome.success:
            return True, number
    return False, None


def end_state(site: Site, task: Task, actions: list[str], session: Session) -> tuple[str, str]:
    """The database hash and the page address after running ``actions`` from the task's start.

    Two trajectories with the same end state did the same work: a judge over the final state
    must give both the same verdict, so a decoy that ends where the certificate ends is no decoy.
    """
    episode = Episode(site, task, session=session, end_on_success=False)
    page = episode.reset()
    for action in actions:
        if episode.finished:
            break
        page = episode.step(action).page
    return episode.session.db.state_hash(), page.url


def judge_writes(site: Site, task: Task, session: Session, calls: list[tuple[Call, dict[str, Any]]],
                  optional: frozenset[int] = frozenset()) -> tuple[bool, int] | None:
    """Reset, apply markers directly (as the forms would), then say "done": did the judge pass it?

    Only for mutate tasks, whose "done" the episode judges by goal and violations alone.

    Returns whether the judge passed it and how many of the ``optional`` calls the site
    accepted, or ``None`` if it refused a call that is not optional (the decoy cannot be done).
    """
    episode = Episode(site, task, session=session)
    episode.reset()
    accepted = 0
    for number, (call, args) in enumerate(calls):
        marker = session.markers[call.marker]
        try:
            run_marker(session.db, marker, args, Context(user=call.user, clock=call.clock, slot=dict(task.slots)))
        except (MarkerFailed, VeriwebError):
            session.version = next_version()
            if number in optional:
                continue
            return None
        accepted += number in optional
        session.version = next_version()
    # what Episode.step does for "done" on a mutate task, without rendering the page it would show
    progress = episode.judge.progress()
    return progress.goal and progress.violation is None, accepted



def completed(site: Site, task: Task, certificate: list[str], session: Session) -> Episode | None:
    """An episode (not ended on success) after the whole certificate, or ``None`` if it ended early."""
    episode = Episode(site, task, session=session, end_on_success=False)
    episode.reset()
    for action in certificate:
        if episode.finished:
            return None
        episode.step(action)
    return None if episode.finished else episode


__all__ = ["DONE", "Call", "Probe", "Run", "as_action", "completed", "judge_trajectory", "judge_writes",
           "next_version", "not_applicable", "record"]

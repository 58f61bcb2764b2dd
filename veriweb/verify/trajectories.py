"""Decoy trajectories put to a task's judge: the probe record, certificate replays, direct marker writes."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterable
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



# ----------------------------------------------------------------------------- shared prefixes


@dataclass(frozen=True)
class _Saved:
    """A session's and an episode's whole state at one point of a replay."""

    ui: Any
    version: str
    steps: int
    database: bytes | None
    episode_steps: int
    finished: bool


def _save(episode: Episode, last: _Saved | None = None) -> _Saved:
    session = episode.session
    if session.version == "0":
        data = None
    elif last is not None and last.version == session.version:  # most steps write nothing
        data = last.database
    else:
        data = session.db.conn.serialize()
    return _Saved(_copy_ui(session.ui), session.version, session.steps, data, episode.steps, episode.finished)


def _load(episode: Episode, saved: _Saved) -> None:
    session = episode.session
    if session.version != saved.version:  # a version names the database's content
        if saved.database is None:
            session.db.restore_snapshot()
        else:
            session.db.load(saved.database)
        session.version = saved.version
    session.ui = _copy_ui(saved.ui)
    session.steps = saved.steps
    episode.steps, episode.finished = saved.episode_steps, saved.finished


def _copy_ui(ui: Any) -> Any:
    return dataclasses.replace(ui, fields=dict(ui.fields), widgets=dict(ui.widgets), history=list(ui.history))


class Prefixes:
    """One episode stepped through ``actions`` once, its state saved at each cut, so that many
    trajectories that start with ``actions[:cut]`` are judged without replaying that prefix.

    ``judge(cut, rest)`` is what :func:`judge_trajectory` says of ``[*actions[:cut], *rest]``:
    an episode is deterministic, so stepping ``rest`` from the saved state after the prefix is
    stepping the whole trajectory from a fresh reset. A prefix that already passes (or ends the
    episode) decides every trajectory that starts with it, as it does there.

    Args:
        site: the site.
        task: the task.
        actions: the common actions (usually the certificate).
        session: the session to run in (its state is overwritten).
        cuts: the prefix lengths to save (each at most ``len(actions)``).
    """

    def __init__(self, site: Site, task: Task, actions: list[str], session: Session, cuts: Iterable[int]) -> None:
        self.episode = Episode(site, task, session=session, end_on_success=True)
        self.marks: dict[int, _Saved | tuple[bool, int | None]] = {}
        wanted = set(cuts)
        episode = self.episode
        episode.reset()
        ended: tuple[bool, int | None] | None = None
        last: _Saved | None = None
        for number in range(max(wanted) + 1 if wanted else 0):
            if number in wanted:
                if ended is None:
                    self.marks[number] = last = _save(episode, last)
                else:
                    self.marks[number] = ended
            if number >= len(actions) or number == max(wanted):
                break
            if ended is None:
                if episode.finished:
                    ended = (False, None)
                    continue
                if episode.step(actions[number]).success:
                    ended = (True, number)

    def has(self, cut: int) -> bool:
        """Whether the state after ``actions[:cut]`` was saved."""
        return cut in self.marks

    def judge(self, cut: int, rest: list[str]) -> tuple[bool, int | None]:
        """Whether the judge passes ``[*actions[:cut], *rest]`` (then "done"), and at which step."""
        mark = self.marks[cut]
        if isinstance(mark, tuple):
            return mark
        episode = self.episode
        _load(episode, mark)
        for number, action in enumerate([*rest, DONE], start=cut):
            if episode.finished:
                break
            if episode.step(action).success:
                return True, number
        return False, None


class Completed:
    """:func:`completed` for many continuations: the certificate is stepped once, and each call of
    :meth:`episode` puts the session back where the certificate left it."""

    def __init__(self, site: Site, task: Task, certificate: list[str], session: Session) -> None:
        self._episode = completed(site, task, certificate, session)
        self._saved = _save(self._episode) if self._episode is not None else None

    def episode(self) -> Episode | None:
        """The episode after the whole certificate (as :func:`completed` returns it), or ``None``."""
        if self._episode is None or self._saved is None:
            return None
        _load(self._episode, self._saved)
        return self._episode


def completed(site: Site, task: Task, certificate: list[str], session: Session) -> Episode | None:
    """An episode (not ended on success) after the whole certificate, or ``None`` if it ended early."""
    episode = Episode(site, task, session=session, end_on_success=False)
    episode.reset()
    for action in certificate:
        if episode.finished:
            return None
        episode.step(action)
    return None if episode.finished else episode


__all__ = ["DONE", "Call", "Completed", "Prefixes", "Probe", "Run", "as_action", "completed", "judge_trajectory",
           "judge_writes", "next_version", "not_applicable", "record"]

"""Search in the engine: find an action sequence that solves a task, independently of any plan.

The search is a best-first search over engine states with lazy child evaluation. From each
state it lists every action the page offers (click each visible link, button, tab, checkbox
and radio; choose each option of each drop-down; fill each text field with each value it may
type; visit the address of links hidden in closed widgets; go back) and gives each a cost from
:mod:`veriweb.verify.relevance` (a link named like a slot value, a field filled with the slot of
the same name, the submit button of a filled form whose marker writes the task's tables are
cheap). Actions are queued, not stepped: the engine steps one only when it reaches the front
of the queue, ordered by

    cost so far + action cost + weight * (4 * subgoals not yet holding + links to a page that matters)

The budget is counted per subgoal: each time a state makes more of the task's ordered progress
subgoals hold than any state before it, the search gets its whole budget again for the next one
(a two-entity task is two searches of one entity each, not one search of twice the depth), so
only a search that stops making progress for ``budget`` steps gives up.

A goal state is one where the task's goal holds with no constraint or footprint broken (for a
retrieve task: where some answer drawn from the page, or a count of what it shows, is judged
correct). Every action of every state reached within the depth bound stays in the queue, so a
search that empties it proves there is no solution that short (``unsolved``); a search that
runs out of budget proves nothing and says so (``undecided``). A solution is replayed in a
fresh episode before it is returned, then shortened: actions whose removal still leaves a
replay that succeeds are dropped.

With ``grounded=True`` (how tasks are certified) a retrieve solution must also have seen what its
answer rests on: trying the answers a page offers against the judge can hit the right one before
the evidence is in sight ("which of these three listings is cheapest?" answered with a title the
home page lists, no price seen). Each solution is put to :func:`veriweb.verify.grounding.grounded`;
one it calls ungrounded is passed over and the search goes on, and shortening keeps the steps that
read the evidence. After ``MAX_UNGROUNDED`` such answers, or when the search ends with only those,
it says ``undecided``: the task can be done by guessing, which proves nothing an agent can learn.

A pick among records the task names ("which of A, B or C is cheapest?") tries no answer until each
one's figure has been read, and each record read counts as a subgoal. A search that finds no
solution says which constraints broke in goal states it reached (``Result.blocked``: the task's
verifier reports a constraint that broke in every one as forbidding the goal). A solution longer
than half the step budget is also shortened by jumps: a stretch that ends on an address seen
before it becomes one ``goto`` there.

With ``exact=True`` the search is A* with unit costs and the number of subgoals still to do as
its heuristic: slower, but what it finds is a shortest solution.

Values to type come only from the task's slots and the task user's login (from the accounts
table); answers only from what the pages show; ``goto`` only to addresses of links on the page.
The search never reads the generator's plan (``task.certificate``).

Started from any state (:func:`oracle`), the same search gives the next action of a solution
from there.
"""

from __future__ import annotations

import contextlib
import gc
import heapq
import itertools
from dataclasses import dataclass, field
from typing import Any

from veriweb.engine import Episode, PageModel, Session
from veriweb.engine.actions import format_action, parse_action
from veriweb.engine.answers import Verdict
from veriweb.engine.judge import Judge
from veriweb.engine.query import column_values
from veriweb.engine.session import UIState
from veriweb.scaffold import Site, Task
from veriweb.verify.grounding import Grounding
from veriweb.verify.reading import (
    RUN, Memory, candidate_answers, carry, collect_moves, picks_wanted, sums_wanted, titles_read,
)
from veriweb.verify.relevance import Hints

_SUBGOAL = 4
"""How many links one subgoal is worth in the heuristic."""
_STEP = 0.25
"""What one step costs on top of its relevance cost (a tie-break towards shorter paths)."""
_CROWD = 0.25
"""What each state already seen at the same address adds to the cost of staying there."""
_WASTE = 6.0
"""What a write that makes no subgoal hold costs (the search prefers not to spam forms)."""
MAX_UNGROUNDED = 40
"""How many ungrounded answers a grounded search passes over before it says ``undecided``. An answer
passed over is not put to the check again on a path that has seen no page its earlier path had not."""
_GC_THRESHOLD = (100_000, 50, 100)
"""The cycle collector's thresholds while a search runs (see :func:`fewer_collections`)."""


_collecting = [0]
"""How many :func:`fewer_collections` blocks are open (only the outermost one freezes and thaws)."""


@contextlib.contextmanager
def fewer_collections() -> Any:
    """Run the cycle collector less often while searching (or verifying a whole site, which searches
    most of the time: :mod:`veriweb.verify.pipeline`), and never over what was alive before.

    Every step of a search builds page trees whose nodes point at their parents, so each one
    it drops is cyclic garbage; with the default thresholds the collector runs every few steps
    and walks the long-lived objects again and again (a third of the CPU of a search, measured
    on admin and mail). The objects alive when the outermost block opens (the site, its page
    cache, the sessions) outlive it, so they are frozen (:func:`gc.freeze`): collections walk
    only what the search made. When the block closes they are thawed again, so a site that a
    caller drops later is collected as usual (objects someone else froze are thawed too, and
    are collected only if they are garbage). Nothing the search computes depends on when
    garbage is collected.
    """
    saved = gc.get_threshold()
    outer = _collecting[0] == 0
    _collecting[0] += 1
    if outer:
        gc.freeze()
    gc.set_threshold(*_GC_THRESHOLD)
    try:
        yield
    finally:
        gc.set_threshold(*saved)
        _collecting[0] -= 1
        if outer:
            gc.unfreeze()


@dataclass
class Result:
    """What a search found: ``solved`` (with ``actions``), ``unsolved`` (every reachable state within
    the depth limit tried: no solution that short), or ``undecided`` (the budget ran out).

    ``expanded`` counts the actions stepped in the engine; ``blocked`` (see below) says what stopped
    goal states from counting.
    """

    status: str
    actions: list[str] = field(default_factory=list)
    expanded: int = 0
    reason: str = ""
    blocked: dict[str, int] = field(default_factory=dict)
    """For a search that found no solution: each constraint (its description) broken in every state
    where the goal held, and how many such states it saw."""


@dataclass
class _State:
    ui: UIState
    version: str
    steps: int


def _copy_ui(ui: UIState) -> UIState:
    return UIState(url=ui.url, user_id=ui.user_id, fields=dict(ui.fields), widgets=dict(ui.widgets), focus=ui.focus,
                   hover=ui.hover, scroll=ui.scroll, flash=ui.flash, confirm=ui.confirm, history=list(ui.history),
                   position=ui.position)


class Snapshots:
    """Captures and restores a session's whole state; database states are kept once per version.

    UI states are copied field by field (URLs are immutable, field values are scalars), and a
    database is serialized only the first time a version is seen; at most ``keep`` of them are
    held, and :meth:`restore` returns ``False`` for a version it no longer holds.
    """

    def __init__(self, session: Session, *, keep: int = 256) -> None:
        self.session = session
        self.databases: dict[str, bytes] = {}
        self.keep = keep

    def capture(self) -> _State:
        """The session's state now."""
        session = self.session
        if session.version != "0" and session.version not in self.databases and len(self.databases) < self.keep:
            self.databases[session.version] = session.db.conn.serialize()
        return _State(_copy_ui(session.ui), session.version, session.steps)

    def restore(self, state: _State) -> bool:
        """Put the session back in ``state`` (``False``: its database was not kept)."""
        session = self.session
        if session.version != state.version:
            if state.version == "0":
                session.db.restore_snapshot()
            elif state.version in self.databases:
                session.db.load(self.databases[state.version])
            else:
                return False
            session.version = state.version
        session.ui = _copy_ui(state.ui)
        session.steps = state.steps
        return True


def state_key(session: Session) -> tuple[Any, ...]:
    """What makes two states the same for the search (focus, hover, scroll and messages aside)."""
    ui = session.ui
    return (str(ui.url), ui.user_id, session.version, tuple(sorted(ui.fields.items())),
            tuple(sorted(ui.widgets.items())), ui.confirm)


class _Answers:
    """Judges candidate answers the way :meth:`Judge.judge_answer` does, with the expected answer
    computed once per database state and verdicts remembered."""

    def __init__(self, judge: Judge) -> None:
        self.judge = judge
        self.expected: dict[str, tuple[Any, list[str]]] = {}
        self.verdicts: dict[tuple[str, str], bool] = {}

    def correct(self, text: str) -> bool:
        session, spec = self.judge.session, self.judge.task.answer
        if spec is None:
            return False
        key = (session.version, text)
        verdict = self.verdicts.get(key)
        if verdict is None:
            verdict = self._verdict(text, spec).correct
            self.verdicts[key] = verdict
        return verdict

    def _verdict(self, text: str, spec: Any) -> Verdict:
        session = self.judge.session
        if session.version not in self.expected:
            self.expected[session.version] = (self.judge.expected_answer(), self.judge.candidates())
        return self.judge.judge_against(text, *self.expected[session.version])


@dataclass
class _Node:
    state: _State
    parent: int
    action: tuple[str, ...]
    depth: int
    cost: float
    done: int = 0
    memory: Memory | None = None
    visited: frozenset[str] = frozenset()  # the addresses of the path (kept by a grounded search)


def solve(site: Site, task: Task, *, session: Session | None = None, budget: int = 2_000,
          max_depth: int | None = None, from_current: bool = False, exact: bool = False,
          weight: float = 2.0, shorten: bool = True, grounded: bool = False) -> Result:
    """Search for a solution of ``task`` (see the module docstring).

    Args:
        site: the site.
        task: the task (infeasible tasks are not searched: they need a proof, not a path).
        session: a session to search in (its state is restored afterwards).
        budget: how many actions may be stepped in the engine, counted afresh each time a state
            makes more progress subgoals hold than any before it.
        max_depth: the longest solution looked for (default: half the task's step budget).
        from_current: search from the session's current state instead of the task's start.
        exact: A* with unit costs: a solution found is a shortest one (slower).
        weight: how much the heuristic counts against the cost so far (ignored when ``exact``).
        shorten: drop actions from the solution while its replay still succeeds.
        grounded: a retrieve solution must have seen what its answer rests on (see the module
            docstring; not with ``from_current``, whose solutions do not start at the task's start).

    Returns:
        The :class:`Result`; a ``solved`` result's actions replay to success from the start state.
    """
    if task.kind == "infeasible":
        return Result("unsolved", reason="infeasible tasks are proved, not searched")
    with fewer_collections():
        return _solve(site, task, session=session, budget=budget, max_depth=max_depth, from_current=from_current,
                      exact=exact, weight=weight, shorten=shorten,
                      grounded=grounded and task.kind == "retrieve" and not from_current)


def _solve(site: Site, task: Task, *, session: Session | None, budget: int, max_depth: int | None,
           from_current: bool, exact: bool, weight: float, shorten: bool, grounded: bool) -> Result:
    session = session or Session(site)
    episode = Episode(site, task, session=session, end_on_success=False)
    snaps = Snapshots(session)
    saved = snaps.capture() if from_current else None
    if not from_current:
        episode.reset()
        from veriweb.verify.proofs import no_success

        hopeless = no_success(site, task, session, episode.judge.context())
        if hopeless is not None:  # not worth a step: say so at once (what a search out of budget says)
            return Result("undecided", reason=f"no search can succeed: {hopeless}")
    search = _Search(site, task, session, episode.judge, snaps, budget=budget,
                     max_depth=max_depth if max_depth is not None else task.max_steps // 2, exact=exact,
                     weight=weight, grounded=grounded)
    try:
        result = search.run()
        if result.status != "solved":  # the constraints that broke in every goal state reached
            result.blocked = {k: n for k, n in search.blocked.items() if n == search.spoiled}
        if result.status == "solved":
            start = search.nodes[0].state
            if not _replays(search, start, result.actions):
                result = Result("undecided", expanded=result.expanded,
                                reason="the solution found did not replay to success")
            elif shorten:
                result.actions = _shorten(search, start, result.actions)
                if len(result.actions) > task.max_steps // 2:
                    result.actions = _compress(search, start, result.actions)
        return result
    finally:
        search.close()
        if saved is not None:
            snaps.restore(saved)


class _Search:
    """One run of the search (see :func:`solve`)."""

    def __init__(self, site: Site, task: Task, session: Session, judge: Judge, snaps: Snapshots, *, budget: int,
                 max_depth: int, exact: bool, weight: float, grounded: bool = False) -> None:
        self.site, self.task, self.session, self.judge, self.snaps = site, task, session, judge, snaps
        self.budget, self.max_depth, self.exact, self.weight = budget, max_depth, exact, weight
        self.hints = Hints.build(site, task, session, judge.context())
        self.answers = _Answers(judge)
        self.answer_step = 1 if task.kind == "retrieve" else 0
        self.reading = task.kind == "retrieve"
        # a grounded search remembers the pages seen for a pick ("the cheapest of these three"): its
        # answer is then the title of the page that shows the least, read off every candidate's page
        self.picks = grounded and picks_wanted(task)
        self.sums = sums_wanted(task) or self.picks
        self.named: frozenset[str] = frozenset()  # a pick among named records: their titles (see run)
        self.nodes: list[_Node] = []
        self.frontier: list[tuple[float, int, int, str | tuple[str, ...], float]] = []
        self.counter = itertools.count()
        self.stepped = 0
        self.visits: dict[tuple[str, tuple[bool, ...]], int] = {}
        self.sent: set[tuple[Any, ...]] = set()
        self.grounded = grounded
        self.ungrounded = 0  # solutions passed over: their answers were not read off what they saw
        self._passed: dict[str, list[frozenset[str]]] = {}  # each answer passed over: the addresses its paths saw
        self._grounding: dict[tuple[str, ...], bool | None] = {}
        self._check: Grounding | None = None
        self.blocked: dict[str, int] = {}  # constraint broken -> goal states it spoiled
        self.spoiled = 0  # goal states reached with a constraint or the footprint broken

    def grounding(self, actions: list[str]) -> bool | None:
        """:func:`veriweb.verify.grounding.grounded` of a solution, memoised."""
        key = tuple(actions)
        if key not in self._grounding:
            if self._check is None:
                self._check = Grounding(self.site, self.task)
            self._grounding[key] = self._check.check(actions)
        return self._grounding[key]

    def close(self) -> None:
        """Close the sessions the grounding check opened."""
        if self._check is not None:
            self._check.close()

    def _read(self, index: int, answer: str, final: str) -> bool:
        """Whether the solution ending at node ``index`` with ``answer`` is not ungrounded; an answer
        passed over before, on a path that saw every address this one saw, is passed over unchecked."""
        node = self.nodes[index]
        if any(node.visited <= seen for seen in self._passed.get(answer, [])):
            return False
        if self.grounding(self._path(index, final)) is not False:
            return True
        self.ungrounded += 1
        self._passed.setdefault(answer, []).append(node.visited)
        return False

    def _guessed(self) -> Result:
        return Result("undecided", expanded=self.stepped,
                      reason=f"{self.ungrounded} answer(s) judged right were not read off the pages seen "
                             "(ungrounded: the task can be done by guessing)")

    # ------------------------------------------------------------------ the loop

    def run(self) -> Result:
        """Search from the session's current state."""
        session = self.session
        if self.picks:
            self.named = _named(self.judge)
        self.nodes.append(_Node(self.snaps.capture(), -1, (), 0, 0.0,
                                memory=carry(None, session.page(), picks=self.picks) if self.reading else None))
        seen: dict[tuple[Any, ...], int] = {state_key(session) + ((None,) if self.sums else ()): 0}
        found = self._evaluate(0)
        if found is not None:
            return Result("solved", found, 0)
        if self.ungrounded >= MAX_UNGROUNDED:
            return self._guessed()
        exhausted = True
        limit, best = self.budget, self.nodes[0].done
        while self.frontier:
            priority, _, parent, action, cost = heapq.heappop(self.frontier)
            if parent < 0:  # a solution queued by the exact search: nothing cheaper is left
                return Result("solved", self._path(-parent - 1, action or None), self.stepped)
            if self.stepped >= limit:
                exhausted = False
                break
            node = self.nodes[parent]
            if not self._restore(parent):
                continue
            moves = (action,) if isinstance(action, str) else action
            failed = False
            memory = node.memory
            for number, move in enumerate(moves, 1):
                self.stepped += 1
                result = session.step(move)
                if result.error is not None or result.message is not None or result.infeasible is not None:
                    failed = True
                    break
                if self.reading and number < len(moves) and move.startswith("goto("):
                    memory = carry(memory, session.page())  # a page on the way of a collecting move
            if failed:
                continue
            key = state_key(session)
            if self.reading:
                memory = carry(memory, session.page())
                if self.sums:
                    key = (*key, memory.run_key())  # remembering a run of pages is a different state
            depth = node.depth + len(moves)
            if seen.get(key, depth + 1) <= depth:
                continue
            seen[key] = depth
            self.nodes.append(_Node(self.snaps.capture(), parent, moves, depth, cost, memory=memory))
            found = self._evaluate(len(self.nodes) - 1)
            if found is not None:
                return Result("solved", found, self.stepped)
            if self.ungrounded >= MAX_UNGROUNDED:
                return self._guessed()
            if self.nodes[-1].done > best:
                # A subgoal reached for the first time: the budget starts afresh for the next one.
                best, limit = self.nodes[-1].done, self.stepped + self.budget
        if self.ungrounded:
            return self._guessed()  # not "unsolved": a guess solves it
        if exhausted:
            return Result("unsolved", expanded=self.stepped, reason=f"no solution within {self.max_depth} steps")
        return Result("undecided", expanded=self.stepped,
                      reason=f"the budget of {self.budget} actions (afresh after each new subgoal) ran out")

    def _restore(self, index: int) -> bool:
        node = self.nodes[index]
        if self.snaps.restore(node.state):
            return True
        # The database of this state was not kept: rebuild it by replaying the path from the start.
        path = self._path(index, None)
        self.snaps.restore(self.nodes[0].state)
        for move in path:
            self.session.step(move)
        if self.session.version != node.state.version:
            return False
        self.session.ui = _copy_ui(node.state.ui)
        return True

    def _path(self, index: int, last: str | None) -> list[str]:
        parts: list[tuple[str, ...]] = [] if last is None else [(last,)]
        while index > 0:
            node = self.nodes[index]
            parts.append(node.action)
            index = node.parent
        return [move for part in reversed(parts) for move in part]

    def _evaluate(self, index: int) -> list[str] | None:
        """Judge the state just reached: the solution if it is a goal, else queue its actions."""
        node = self.nodes[index]
        task, session = self.task, self.session
        progress = self.judge.progress()
        if progress.violation is not None:
            if progress.goal:
                self.spoiled += 1
                for broken in self.judge.broken_constraints():
                    self.blocked[broken] = self.blocked.get(broken, 0) + 1
            return None
        page = session.page()
        if self.grounded:
            node.visited = (self.nodes[node.parent].visited if node.parent >= 0 else frozenset()) | {page.url}
        self.hints.follow(session, progress.done, progress.subgoals)
        # A pick among named records ("the cheapest of A, B and C") is answered once each one's figure
        # has been read; until then a right answer is a guess, so none is tried, and each record read
        # counts as a subgoal (the budget starts afresh, the heuristic leads on to the others).
        unseen = len(self.named - titles_read(page, node.memory)) if self.named else 0
        if task.kind == "retrieve" and not unseen:
            if not task.goal or progress.goal:
                for answer in candidate_answers(page, task, node.memory):
                    if self.answers.correct(answer):
                        final = format_action(parse_action(f"send_msg_to_user({answer!r})"))
                        if self.grounded and not self._read(index, answer, final):
                            if self.ungrounded >= MAX_UNGROUNDED:
                                return None
                            continue
                        if not self.exact:
                            return self._path(index, final)
                        heapq.heappush(self.frontier, (node.depth + 1, next(self.counter), -index - 1, final, 0.0))
                        break
        elif progress.goal:
            if not self.exact:
                return self._path(index, None)
            # A goal state: queue it, so cheaper partial paths are looked at first.
            heapq.heappush(self.frontier, (node.depth, next(self.counter), -index - 1, "", 0.0))
            return None
        node.done = progress.done + len(self.named) - unseen
        if node.parent >= 0:
            parent = self.nodes[node.parent]
            if node.state.version != parent.state.version and node.done <= parent.done:
                node.cost += _WASTE  # a write that brought no subgoal closer: most likely a wrong one
        if node.depth + self.answer_step >= self.max_depth:
            return None
        remaining = progress.total - progress.done + (0 if progress.total or progress.goal else 1) + unseen
        if self.hints.login is not None and session.ui.user_id is None:
            remaining += 1  # a task with a user is most likely done as that user
        if self.exact:
            bound = node.depth + 1 + max(0, progress.total - progress.done - 1) + self.answer_step
            for _, action, _ in self.hints.actions(page, session):
                heapq.heappush(self.frontier, (bound, next(self.counter), index, action, 0.0))
            return None
        hints = self.hints
        logged_in = session.ui.user_id is not None
        here = hints.page_distance(page.page_id, logged_in=logged_in) + hints.off_entity(page)
        if session.ui.confirm is None:
            # Crowding counts per address and the subgoals that hold: after a subgoal, the pages
            # visited on the way to it (a list, a search box) are fresh ground for the next one, and
            # so are they for a branch that reached another subgoal first.
            place = (page.url, progress.subgoals)
            self.visits[place] = crowd = self.visits.get(place, 0) + 1
        else:
            crowd = 0  # a dialog asking to confirm a submission: answering it is no dithering
        base = node.cost + _CROWD * crowd
        for macro, dest, signature in hints.macros(page, session):
            if signature is not None:
                # A search or filter sent with the same values from another page leads to the
                # same place: one move is enough (its single actions stay queued).
                sent = (session.version, session.ui.user_id, signature)
                if sent in self.sent:
                    continue
                self.sent.add(sent)
            if node.depth + len(macro) + self.answer_step <= self.max_depth:
                distance = hints.page_distance(dest, logged_in=logged_in) if dest is not None else here
                total = base + _STEP * len(macro)
                priority = total + self.weight * (_SUBGOAL * remaining + distance) - 0.5
                heapq.heappush(self.frontier, (priority, next(self.counter), index, macro, total))
        if self.sums:
            # Visit a group of a list's items one after another: a sum over records on their own pages.
            for moves in collect_moves(page, task):
                sent = (session.version, session.ui.user_id, moves)
                if sent in self.sent or node.depth + len(moves) + self.answer_step > self.max_depth:
                    continue
                self.sent.add(sent)
                total = base + _STEP * len(moves)
                priority = total + self.weight * (_SUBGOAL * remaining + here) - 0.5
                heapq.heappush(self.frontier, (priority, next(self.counter), index, moves, total))
        for cost, action, dest in hints.actions(page, session):
            distance = hints.page_distance(dest, logged_in=logged_in) if dest is not None else here
            total = (node.cost if dest is not None else base) + _STEP + cost
            priority = total + self.weight * (_SUBGOAL * remaining + distance)
            heapq.heappush(self.frontier, (priority, next(self.counter), index, action, total))
        return None


def _named(judge: Judge) -> frozenset[str]:
    """The titles (folded) of the records a pick chooses among when its answer names them (the answer's
    ``candidates``: "which of A, B or C is cheapest?"), two to :data:`~veriweb.verify.reading.RUN` of
    them; else none (a pick over a whole category is read off a list)."""
    spec = judge.task.answer
    if spec is None or spec.candidates is None:
        return frozenset()
    values = {str(v).strip().casefold() for v, _ in column_values(judge.session.db.guard, spec.candidates,
                                                                   judge.context())}
    # Named: those the instruction says. Candidates that are every airline the site has, say, are
    # what an answer may be, not records the agent was asked to compare.
    asked = " ".join(judge.task.instruction.casefold().split())
    values = {v for v in values if v and v in asked}
    return frozenset(values) if 2 <= len(values) <= RUN else frozenset()


def _addresses(page: PageModel) -> frozenset[str]:
    """The page's address and every link address it holds (hidden ones too: a closed menu's)."""
    return frozenset({page.url, *(node.href for node in page.nodes if node.href)})


def _replays(search: _Search, start: _State, actions: list[str], *,
             resume: tuple[int, _State, Memory, frozenset[str]] | None = None) -> bool:
    """Do ``actions`` solve the task from ``start``, ending exactly when an episode would end, with
    each ``goto`` to an address some page on the way showed?

    ``resume`` is ``(k, state, memory, addresses)``: the first ``k`` actions are known to lead from
    ``start`` to ``state`` (having read ``memory`` and seen ``addresses``) without ending the
    replay, so it goes on from there.
    """
    session, judge, task = search.session, search.judge, search.task
    done = 0
    if resume is not None and resume[0] > 0 and search.snaps.restore(resume[1]):
        done, memory, seen = resume[0], resume[2], set(resume[3])
    else:
        search.snaps.restore(start)
        if task.kind != "retrieve" and judge.progress().goal:
            return not actions
        memory = carry(None, session.page(), picks=search.picks)
        seen = set(_addresses(session.page()))
    for number, action in enumerate(actions[done:], done + 1):
        if action.startswith("goto(") and getattr(parse_action(action), "url", None) not in seen:
            return False  # an address no page on the way showed (a shorter replay skipped the one that did)
        if number == len(actions) and task.kind == "retrieve":
            # An answer must be read off the pages on the way, not remembered from a page that a
            # shorter replay no longer visits.
            parsed = parse_action(action)
            if getattr(parsed, "text", None) not in candidate_answers(session.page(), task, memory):
                return False
        result = session.step(action)
        if result.error is not None or result.infeasible is not None:
            return False
        progress = judge.progress()
        if result.message is not None:
            return (number == len(actions) and task.kind == "retrieve" and progress.violation is None
                    and judge.judge_answer(result.message).correct and (not task.goal or progress.goal))
        if progress.violation is not None:
            return False
        if task.kind != "retrieve" and progress.goal:
            return number == len(actions)
        memory = carry(memory, session.page())
        seen |= _addresses(session.page())
    return False


def _shorten(search: _Search, start: _State, actions: list[str]) -> list[str]:
    """Drop actions, last to first, while the rest still replays to success (and, in a grounded
    search, still reads what its answer rests on: a shorter replay that skips the evidence is not kept).

    ``actions`` has just replayed to success, so each of its proper prefixes leads from ``start``
    to a state where the replay goes on; and while action ``i`` is tried, the actions before it
    are still those of ``actions``. So the states after each prefix are saved in one replay, and a
    candidate without action ``i`` is replayed from the state after the first ``i`` actions.
    """
    best = list(actions)
    index = len(best) - 2 if search.task.kind == "retrieve" else len(best) - 1
    prefixes = _prefixes(search, start, actions[:max(0, index)])
    while index >= 0:
        candidate = best[:index] + best[index + 1:]
        if (candidate and _replays(search, start, candidate, resume=(index, *prefixes[index]))
                and not (search.grounded and search.grounding(candidate) is False)):
            best = candidate
        index -= 1
    return best


def _compress(search: _Search, start: _State, actions: list[str]) -> list[str]:
    """Replace a stretch of two or more actions that ends on an address already seen before it (a
    search typed again, a list browsed back to) with one ``goto`` there, while the replay still
    succeeds (and, when grounded, still reads its evidence). For solutions longer than half the
    step budget: the search finds paths, not shortest ones, and dropping actions cannot shorten a
    path that should have jumped."""
    best = list(actions)
    improved = True
    while improved:
        improved = False
        prefixes = _prefixes(search, start, best[:-1])
        for end in range(len(best) - 1, 1, -1):
            url = str(prefixes[end][0].ui.url)
            jump = format_action(parse_action(f"goto({url!r})"))
            for begin in range(0, end - 1):
                if url not in prefixes[begin][2]:
                    continue
                candidate = [*best[:begin], jump, *best[end:]]
                if _replays(search, start, candidate, resume=(begin, *prefixes[begin])) and not (
                        search.grounded and search.grounding(candidate) is False):
                    best, improved = candidate, True
                    break
            if improved:
                break
    return best


def _prefixes(search: _Search, start: _State,
              actions: list[str]) -> list[tuple[_State, Memory, frozenset[str]]]:
    """The state after each prefix of ``actions`` (the empty one first), what had been read there,
    and the addresses seen on the way."""
    session = search.session
    search.snaps.restore(start)
    memory = carry(None, session.page(), picks=search.picks)
    seen = _addresses(session.page())
    out = [(start, memory, seen)]
    for action in actions:
        session.step(action)
        memory = carry(memory, session.page())
        seen = seen | _addresses(session.page())
        out.append((search.snaps.capture(), memory, seen))
    return out


def oracle(site: Site, task: Task, session: Session, *, budget: int = 2_000) -> str | None:
    """The next action of a solution from the session's current state, or ``None``."""
    result = solve(site, task, session=session, budget=budget, from_current=True)
    return result.actions[0] if result.status == "solved" and result.actions else None

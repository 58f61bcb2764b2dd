"""Search in the engine: find an action sequence that solves a task, independently of any plan.

The search is A* over engine states. From each state it tries the actions the page offers:
click every visible link, button, tab, option, checkbox and radio; fill every text field with
each of the task's slot values; visit the address of links hidden in closed widgets. A goal
state is one where the task's goal holds with no constraint or footprint broken (for a
retrieve task: where some answer drawn from the page, or a count of what it shows, is judged
correct). The heuristic, the number of subgoals that do not hold yet, never overestimates,
so a solution found within the budget is a shortest one; a search that runs out of budget
proves nothing and says so (``Result.status == "undecided"``).

Values to type come only from the task's slots; answers only from what the pages show;
``goto`` only to addresses of links on the page. The search never reads the generator's plan.

Started from any state (:func:`oracle`), the same search gives the next action of a shortest
solution from there.
"""

from __future__ import annotations

import copy
import heapq
import itertools
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from veriweb.engine import Episode, PageModel, Session
from veriweb.engine.actions import format_action, parse_action
from veriweb.engine.session import UIState
from veriweb.scaffold import Site, Task

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


@dataclass
class Result:
    """What a search found: ``solved`` (with ``actions``), ``unsolved`` (every reachable state within
    the depth limit tried: no solution that short), or ``undecided`` (the budget ran out)."""

    status: str
    actions: list[str] = field(default_factory=list)
    expanded: int = 0
    reason: str = ""


@dataclass
class _State:
    ui: UIState
    version: str
    steps: int


class Snapshots:
    """Captures and restores a session's whole state; database states are kept once per version."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.databases: dict[str, bytes] = {}

    def capture(self) -> _State:
        session = self.session
        if session.version != "0" and session.version not in self.databases:
            self.databases[session.version] = session.db.conn.serialize()
        return _State(copy.deepcopy(session.ui), session.version, session.steps)

    def restore(self, state: _State) -> None:
        session = self.session
        if session.version != state.version:
            if state.version == "0":
                session.db.restore_snapshot()
            else:
                session.db.conn.deserialize(self.databases[state.version])
            session.version = state.version
        session.ui = copy.deepcopy(state.ui)
        session.steps = state.steps


def state_key(session: Session) -> tuple[Any, ...]:
    """What makes two states the same for the search (focus, hover, scroll and messages aside)."""
    ui = session.ui
    return (str(ui.url), ui.user_id, session.version, tuple(sorted(ui.fields.items())),
            tuple(sorted(ui.widgets.items())), ui.confirm)


def candidate_actions(page: PageModel, task: Task) -> list[str]:
    """The actions a page offers for this task (see the module docstring)."""
    values = [str(v) for v in task.slots.values() if v not in (None, "")]
    out: list[str] = []
    seen_hrefs: set[str] = set()
    for node in page.nodes:
        if page.blocked(node):
            continue
        if not node.visible:
            if node.role == "link" and node.href and node.href.startswith("/") and node.href not in seen_hrefs:
                seen_hrefs.add(node.href)
                out.append(format_action(parse_action(f"goto({node.href!r})")))
            continue
        if node.role == "link":
            if node.href and node.href.startswith("/") and node.href not in seen_hrefs:
                seen_hrefs.add(node.href)
                out.append(f"click('{node.bid}')")
        elif node.role in ("button", "tab", "menuitem", "option", "checkbox", "radio"):
            out.append(f"click('{node.bid}')")
        elif node.editable:
            for value in values:
                if node.input_type == "date" and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
                    continue
                out.append(format_action(parse_action(f"fill('{node.bid}', {value!r})")))
    return out


def candidate_answers(page: PageModel, task: Task) -> list[str]:
    """Answers drawn from the page: texts, container contents, and counts of what it shows."""
    from veriweb.envs.actions import contents

    texts: list[str] = []
    counts: Counter[str] = Counter()
    for node in page.nodes:
        if not node.visible:
            continue
        label = node.name or node.text
        if label and node.role in ("paragraph", "StaticText", "heading", "link", "cell", "option", "listitem",
                                   "status", "columnheader"):
            texts.append(label)
            counts[label] += 1
        if node.role in ("list", "table"):
            rows = [c for c in node.children if c.role in ("listitem", "row")]
            counts[f"#{len(rows) - (1 if node.role == 'table' else 0)}"] += 1
            texts.append(contents(node))
    numbers = {str(n) for n in counts.values()} | {key[1:] for key in counts if key.startswith("#")}
    for text in texts:
        numbers.update(_NUMBER.findall(text))
    seen: set[str] = set()
    out = []
    for candidate in [*texts, *sorted(numbers, key=lambda x: (len(x), x)), *(str(v) for v in task.slots.values())]:
        if candidate and candidate not in seen:
            seen.add(candidate)
            out.append(candidate)
    return out


def solve(site: Site, task: Task, *, session: Session | None = None, budget: int = 2_000,
          max_depth: int | None = None, from_current: bool = False) -> Result:
    """Search for a shortest solution of ``task``.

    Args:
        site: the site.
        task: the task (infeasible tasks are not searched: they need a proof, not a path).
        session: a session to search in (its state is restored afterwards).
        budget: how many states may be expanded.
        max_depth: the longest solution looked for (default: half the task's step budget).
        from_current: search from the session's current state instead of the task's start.
    """
    if task.kind == "infeasible":
        return Result("unsolved", reason="infeasible tasks are proved, not searched")
    session = session or Session(site)
    episode = Episode(site, task, session=session, end_on_success=False)
    snaps = Snapshots(session)
    saved = snaps.capture() if from_current else None
    if not from_current:
        episode.reset()
    judge = episode.judge
    max_depth = max_depth if max_depth is not None else task.max_steps // 2
    counter = itertools.count()
    start = snaps.capture()
    frontier: list[tuple[int, int, int, _State, list[str]]] = []
    seen: set[tuple[Any, ...]] = set()
    expanded = 0
    answer_step = 1 if task.kind == "retrieve" else 0

    def heuristic() -> int:
        progress = judge.progress()
        return (progress.total - progress.done) + answer_step

    def finish(result: Result) -> Result:
        if saved is not None:
            snaps.restore(saved)
        return result

    heapq.heappush(frontier, (heuristic(), 0, next(counter), start, []))
    seen.add(state_key(session))
    exhausted = True
    while frontier:
        _, depth, _, state, path = heapq.heappop(frontier)
        snaps.restore(state)
        progress = judge.progress()
        if progress.violation is not None:
            continue
        if task.kind == "retrieve":
            for answer in candidate_answers(session.page(), task):
                if judge.judge_answer(answer).correct:
                    return finish(Result("solved", path + [format_action(parse_action(
                        f"send_msg_to_user({answer!r})"))], expanded))
        elif progress.goal:
            return finish(Result("solved", path, expanded))
        if depth + answer_step >= max_depth:
            continue
        if expanded >= budget:
            exhausted = False
            break
        expanded += 1
        for action in candidate_actions(session.page(), task):
            snaps.restore(state)
            result = session.step(action)
            if result.error is not None or result.message is not None or result.infeasible is not None:
                continue
            key = state_key(session)
            if key in seen:
                continue
            seen.add(key)
            child = snaps.capture()
            heapq.heappush(frontier, (depth + 1 + heuristic(), depth + 1, next(counter), child, path + [action]))
    if exhausted:
        return finish(Result("unsolved", expanded=expanded, reason=f"no solution within {max_depth} steps"))
    return finish(Result("undecided", expanded=expanded, reason=f"the budget of {budget} states ran out"))


def oracle(site: Site, task: Task, session: Session, *, budget: int = 2_000) -> str | None:
    """The next action of a shortest solution from the session's current state, or ``None``."""
    result = solve(site, task, session=session, budget=budget, from_current=True)
    return result.actions[0] if result.status == "solved" and result.actions else None

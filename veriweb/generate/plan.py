"""Plans: a generator's solution of a task in words ("click the link 'Orders'"), turned into a
certificate of concrete actions by running it in the engine."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from veriweb.engine import Episode, Node, PageModel, Session
from veriweb.engine.actions import format_action, parse_action
from veriweb.errors import VeriwebError
from veriweb.scaffold.site import Site, Task

Step = tuple[Any, ...]
"""One plan step:

- ``("goto", url)``
- ``("click", role, name)``: the first visible element with that role and name (or text)
- ``("click_near", anchor, role, name)``: the same, inside the row or list item holding ``anchor``
- ``("fill", role, name, value)``, ``("select", name, option)``, ``("check", role, name)``,
  ``("press", role, name, key)``
- ``("send", text)``, ``("infeasible", reason)``
"""

CONTAINERS = ("row", "listitem", "article", "group", "form", "dialog", "tabpanel")


class PlanError(VeriwebError):
    """A generator's plan does not solve its task (a bug in a blueprint)."""


@dataclass
class TaskDraft:
    """A task as a blueprint writes it: the task's fields, and a plan instead of a certificate."""

    fields: dict[str, Any]
    plan: list[Step] = field(default_factory=list)


class Hidden(Exception):
    """The target exists but sits in a closed widget; ``opener`` is what to click first."""

    def __init__(self, opener: Node) -> None:
        super().__init__(opener.bid)
        self.opener = opener


def _find(page: PageModel, role: str, name: str, within: Node | None = None) -> Node:
    hidden: Node | None = None
    for node in page.nodes:
        if node.role != role or name not in (node.name, node.text):
            continue
        if within is not None and not _inside(node, within):
            continue
        if node.visible and not page.blocked(node):
            return node
        hidden = hidden or node
    if hidden is not None:
        opener = _opener(page, hidden)
        if opener is not None:
            raise Hidden(opener)
    where = f" near {within.name or within.text or within.role!r}" if within else ""
    raise PlanError(f"no visible {role} {name!r}{where} on {page.url}")


def _opener(page: PageModel, node: Node) -> Node | None:
    """The visible control that reveals ``node``: a tab, a menu button or a collapsible's toggle."""
    closed = node
    while closed.parent is not None and not closed.parent.visible:
        closed = closed.parent
    if closed.role == "tabpanel" and closed.parent is not None:
        siblings = closed.parent.children
        tablists = [n for n in siblings if n.role == "tablist"]
        for tablist in tablists:
            for tab in tablist.children:
                if tab.name == closed.name and tab.visible:
                    return tab
    toggle = page.by_key.get(closed.key + ".t")
    if toggle is not None and toggle.visible and not page.blocked(toggle):
        return toggle
    return None


def _inside(node: Node, container: Node) -> bool:
    current: Node | None = node
    while current is not None:
        if current is container:
            return True
        current = current.parent
    return False


def _container(page: PageModel, anchor: str) -> Node:
    for node in page.nodes:
        if node.visible and anchor in (node.name, node.text):
            current = node.parent
            while current is not None and current.role not in CONTAINERS:
                current = current.parent
            if current is not None:
                return current
    raise PlanError(f"nothing holds {anchor!r} on {page.url}")


def step_action(page: PageModel, step: Step) -> str:
    """The concrete action of one plan step on the current page."""
    kind = step[0]
    if kind == "goto":
        action = f"goto({step[1]!r})"
    elif kind == "click":
        action = f"click('{_find(page, step[1], step[2]).bid}')"
    elif kind == "click_near":
        action = f"click('{_find(page, step[2], step[3], _container(page, step[1])).bid}')"
    elif kind == "fill":
        action = f"fill('{_find(page, step[1], step[2]).bid}', {str(step[3])!r})"
    elif kind == "select":
        action = f"select_option('{_find(page, 'combobox', step[1]).bid}', {str(step[2])!r})"
    elif kind == "check":
        action = f"check('{_find(page, step[1], step[2]).bid}')"
    elif kind == "press":
        action = f"press('{_find(page, step[1], step[2]).bid}', {step[3]!r})"
    elif kind == "send":
        action = f"send_msg_to_user({str(step[1])!r})"
    elif kind == "infeasible":
        action = f"report_infeasible({str(step[1])!r})"
    else:
        raise PlanError(f"unknown plan step {kind!r}")
    return format_action(parse_action(action))


def resolve(site: Site, task: Task, plan: list[Step], session: Session | None = None) -> tuple[list[str], int]:
    """Run ``plan`` for ``task`` and return its certificate and the number of pages it visits.

    Raises:
        PlanError: the goal holds at the start, a step finds nothing to act on, an action
            fails, or the plan does not end in success.
    """
    episode = Episode(site, task, session=session)
    page = episode.reset()
    if episode.judge.progress().goal:
        raise PlanError(f"task {task.id}: the goal holds before any step")
    certificate: list[str] = []
    pages = {page.page_id}
    outcome = None
    for step in plan:
        for _ in range(4):  # open at most three closed widgets on the way to the target
            try:
                action = step_action(page, step)
                break
            except Hidden as hidden:
                action = format_action(parse_action(f"click('{hidden.opener.bid}')"))
                outcome = episode.step(action)
                certificate.append(action)
                page = outcome.page
                if outcome.error or outcome.terminated or outcome.truncated:
                    raise PlanError(f"task {task.id}: opening a widget failed: {outcome.error or outcome.info}")
        else:
            raise PlanError(f"task {task.id}: {step} stays hidden")
        outcome = episode.step(action)
        certificate.append(action)
        if outcome.error:
            raise PlanError(f"task {task.id}: {action} failed: {outcome.error}")
        page = outcome.page
        pages.add(page.page_id)
        if outcome.terminated or outcome.truncated:
            break
    if outcome is None or not outcome.success:
        reason = outcome.info if outcome else "empty plan"
        raise PlanError(f"task {task.id}: the plan does not succeed ({reason})")
    return certificate, len(pages)


def difficulty(steps: int, pages: int) -> str:
    """easy: up to 4 steps; hard: 10 or more steps over 2 or more pages; medium: the rest."""
    if steps >= 10 and pages >= 2:
        return "hard"
    return "easy" if steps <= 4 else "medium"

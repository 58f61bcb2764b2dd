"""Retracing certificates: record what a certificate does in human terms, then follow it on an edited site.

A certificate names elements by ``bid``, which is a position on the rendered page: an edit
elsewhere on a page (a row dropped, a link turned into text) renumbers everything after it.
To ask "does the same sequence of human-level steps still do the task on the edited site?",
:func:`trace` replays a certificate on the site it was made for and records, for each step,
the target element's role, accessible name, structural key and rank among same-named
elements; :func:`follow` replays that trace on another site, finding each target again by
those traits. The defect model uses this to decide, as ground truth, which tasks an injected
defect breaks.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from veriweb.engine import Episode, Session
from veriweb.engine.actions import ElementAction, format_action, parse_action
from veriweb.engine.page import Node, PageModel
from veriweb.scaffold import Site, Task


@dataclass(frozen=True)
class Target:
    """An element of a page, by what a person would see: role, name, rank, and its structural key."""

    role: str
    name: str
    rank: int
    key: str


@dataclass
class Trace:
    """A certificate replayed on its own site: each action, its target, the pages it went through,
    and the writes it made (table, op, old row, new row)."""

    task_id: str
    steps: list[tuple[str, Target | None]] = field(default_factory=list)
    pages: list[str] = field(default_factory=list)
    changes: list[tuple[str, str, dict[str, Any] | None, dict[str, Any] | None]] = field(default_factory=list)
    final_url: str = "/"
    success: bool = False

    @property
    def markers_tables(self) -> set[str]:
        """The tables the certificate wrote to."""
        return {table for table, *_ in self.changes}


def _label(node: Node) -> str:
    return node.name or node.text


def _target(page: PageModel, node: Node) -> Target:
    same = [n for n in page.nodes if n.visible and n.role == node.role and _label(n) == _label(node)]
    rank = next((i for i, n in enumerate(same) if n is node), 0)
    return Target(node.role, _label(node), rank, node.key)


def _find(page: PageModel, target: Target) -> Node | None:
    visible = [n for n in page.nodes if n.visible]
    exact = [n for n in visible if n.key == target.key and n.role == target.role and _label(n) == target.name]
    if len(exact) == 1:
        return exact[0]
    named = [n for n in visible if n.role == target.role and _label(n) == target.name]
    if len(named) > target.rank:
        return named[target.rank]
    keyed = [n for n in visible if n.key == target.key and n.role == target.role]
    return keyed[0] if len(keyed) == 1 else None


def trace(site: Site, task: Task, *, session: Session | None = None) -> Trace:
    """Replay ``task``'s certificate on ``site``, recording each step's target by its traits."""
    episode = Episode(site, task, session=session)
    page = episode.reset()
    out = Trace(task.id, pages=[page.page_id])
    outcome = None
    for text in task.certificate:
        action = parse_action(text)
        target = None
        if isinstance(action, ElementAction):
            node = page.by_bid.get(action.bid)
            target = _target(page, node) if node is not None else None
        out.steps.append((text, target))
        outcome = episode.step(text)
        page = outcome.page
        out.pages.append(page.page_id)
        if outcome.terminated or outcome.truncated:
            break
    out.changes = [(c.table, c.op, c.old, c.new) for c in episode.session.db.changes()]
    out.final_url = page.url
    out.success = bool(outcome and outcome.success)
    return out


def follow(site: Site, task: Task, recorded: Trace, *, session: Session | None = None) -> bool:
    """Whether the steps of ``recorded`` still complete ``task`` on ``site``.

    Each element action is re-aimed at the element with the recorded traits; a step whose
    element cannot be found, or an episode that ends without success, means the task is broken.
    """
    episode = Episode(site, task, session=session)
    page = episode.reset()
    if task.kind in ("navigate", "mutate") and episode.judge.progress().goal:
        return False  # the goal holds before anything is done: the task tests nothing
    outcome = None
    for text, target in recorded.steps:
        action = parse_action(text)
        if isinstance(action, ElementAction):
            node = _find(page, target) if target is not None else None
            if node is None:
                return False
            text = format_action(dataclasses.replace(action, bid=node.bid))
        outcome = episode.step(text)
        page = outcome.page
        if outcome.terminated or outcome.truncated:
            break
    return bool(outcome and outcome.success)


__all__ = ["Target", "Trace", "follow", "trace"]

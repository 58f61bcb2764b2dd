"""An episode: one task on one session, under written rules, with a judged outcome.

Rules (the Gymnasium envs build on these):

- ``send_msg_to_user(text)`` and ``report_infeasible(reason)`` end the episode and are judged.
  An answer passes a retrieve task when it matches the expected answer computed now; a
  message ends a navigate or mutate task, judged by its goal. Reporting infeasibility is a
  success exactly when the task is infeasible.
- A navigate or mutate task also ends, as a success, as soon as its goal holds (unless
  ``end_on_success=False``: then the agent must say it is done, as WebArena judges the final
  state).
- Breaking a constraint, or writing outside the task's footprint, ends the episode as a failure.
- Reaching the task's ``max_steps`` truncates the episode (not a success).
- The sparse reward is 1.0 on the step that ends in success, else 0.0.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from veriweb.engine.judge import Judge, Progress
from veriweb.engine.page import PageModel
from veriweb.engine.session import Session
from veriweb.errors import ActionError
from veriweb.scaffold.site import Site, Task


@dataclass(frozen=True)
class Outcome:
    """The result of one step of an episode."""

    page: PageModel
    reward: float
    terminated: bool
    truncated: bool
    success: bool
    progress: Progress
    error: str | None
    info: dict[str, Any] = field(default_factory=dict)


class Episode:
    """Runs one task on a session, judging every step.

    Args:
        site: the scaffold.
        task: the task (or its id).
        session: an existing session of the same site to reuse (resets are cheap).
        end_on_success: end navigate and mutate tasks as soon as their goal holds.
    """

    def __init__(self, site: Site, task: Task | str, *, session: Session | None = None,
                 end_on_success: bool = True) -> None:
        found = site.task(task) if isinstance(task, str) else task
        if found is None:
            known = ", ".join(t.id for t in site.tasks) or "none"
            raise ActionError(f"site {site.name!r} has no task {task!r}; its tasks are: {known}")
        self.site = site
        self.task = found
        self.session = session or Session(site)
        self.judge = Judge(self.session, self.task)
        self.end_on_success = end_on_success
        self.steps = 0
        self.finished = False

    def reset(self) -> PageModel:
        """Start the task: seeded database, start URL, logged in if the task says so."""
        self.session.reset(self.task.start_url, user=self.task.user if self.task.start_logged_in else None)
        self.steps = 0
        self.finished = False
        return self.session.page()

    def step(self, action: str) -> Outcome:
        """Take one action and judge the new state."""
        if self.finished:
            raise ActionError("the episode is over; call reset() to start again")
        self.steps += 1
        result = self.session.step(action)
        page = self.session.page()
        progress = self.judge.progress()
        kind = self.task.kind
        info: dict[str, Any] = {"action": _action_text(result.action) if result.action else None}
        success = terminated = False
        if result.infeasible is not None:
            terminated, success = True, kind == "infeasible"
            info["reason"] = "reported infeasible"
        elif result.message is not None:
            terminated = True
            if kind == "retrieve":
                verdict = self.judge.judge_answer(result.message)
                info["answer"] = verdict.reason
                success = verdict.correct and progress.violation is None and (
                    not self.task.goal or progress.goal)
            elif kind in ("navigate", "mutate"):
                success = progress.goal and progress.violation is None
            info["reason"] = "message sent"
        elif progress.violation is not None:
            terminated = True
            info["reason"] = progress.violation
        elif kind in ("navigate", "mutate") and self.end_on_success and progress.goal:
            terminated, success = True, True
            info["reason"] = "goal reached"
        truncated = not terminated and self.steps >= self.task.max_steps
        if truncated:
            info["reason"] = "step budget exhausted"
        self.finished = terminated or truncated
        info["violation"] = progress.violation
        return Outcome(page=page, reward=1.0 if success else 0.0, terminated=terminated, truncated=truncated,
                       success=success, progress=progress, error=result.error, info=info)


_ACTION_TEXTS: dict[Any, str] = {}


def _action_text(action: Any) -> str:
    """``str(action)``, memoised by the (frozen, hashable) action's value: agents repeat actions."""
    try:
        text = _ACTION_TEXTS.get(action)
    except TypeError:  # an action holding something unhashable
        return str(action)
    if text is None:
        if len(_ACTION_TEXTS) > 50_000:
            _ACTION_TEXTS.clear()
        text = _ACTION_TEXTS[action] = str(action)
    return text

"""Task-writing helpers every domain blueprint shares: drafts, who does a task, and paging plans."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from veriweb.generate.layout import login_plan
from veriweb.generate.plan import Step, TaskDraft
from veriweb.generate.vocab import Labels

LOGIN_PREFIXES: list[tuple[str, bool]] = [
    ("Log in as {username} (password: {password}), then ", True),
    ("Log in as {username} (password: {password}), then: ", True),
    ("Sign in with {username} / {password}. ", False),
    ("Use the account {username}, password {password}. ", False),
    ("As {username} (password {password}): ", True),
]
"""How an instruction hands over credentials: the prefix, and whether the task's phrasing that
follows it starts in lower case."""

Who = dict[str, Any]
"""The task fields that say who does a task: ``user``, ``credentials`` and ``start_logged_in``."""


class TaskContext(Protocol):
    """What the helpers need of a blueprint's task context: the tasks stream and the site's labels."""

    rng: random.Random
    labels: Labels


def make_task(ctx: TaskContext, task_id: str, family: str, kind: str, phrasings: Sequence[str],
              slots: dict[str, Any], plan: list[Step], **fields: Any) -> TaskDraft:
    """A task draft whose template is one of ``phrasings``, drawn from the tasks stream.

    Args:
        ctx: the blueprint's task context.
        task_id: the task's id on its site.
        family: the task family (e.g. ``retrieve_count``).
        kind: ``navigate``, ``retrieve``, ``mutate`` or ``infeasible``.
        phrasings: the instruction templates to choose from.
        slots: the values the template names.
        plan: the generator's plan (see :mod:`veriweb.generate.plan`).
        **fields: any other task field (goal, progress, answer, footprint, user ...).
    """
    return TaskDraft(dict(id=task_id, family=family, kind=kind, template=ctx.rng.choice(list(phrasings)), slots=slots,
                          **fields), plan)


def phrase_with_login(prefix: str, lower: bool, phrasings: Sequence[str]) -> list[str]:
    """Each phrasing behind a credentials prefix (lower-cased after it unless it starts with "I ")."""
    return [prefix + (p[0].lower() + p[1:] if lower and not p.startswith("I ") else p) for p in phrasings]


def as_user(ctx: TaskContext, user: dict[str, Any], phrasings: Sequence[str],
            slots: dict[str, Any], plan: list[Step], *, chance: float = 0.5,
            prefixes: Sequence[tuple[str, bool]] = LOGIN_PREFIXES,
            fits: Callable[[list[Step]], bool] | None = None,
            login: list[Step] | None = None) -> tuple[list[str], dict[str, Any], list[Step], Who]:
    """Who does a task: with probability ``chance`` the credentials are in the instruction and the
    plan logs in first; otherwise the task starts logged in from the user's profile.

    Args:
        ctx: the blueprint's task context (its stream and labels).
        user: the user row (``username`` and ``password``).
        phrasings: the task's instruction templates.
        slots: the task's slots (``username`` and ``password`` are added for an instruction log-in).
        plan: the plan once logged in.
        chance: how often the credentials come in the instruction.
        prefixes: the credentials prefixes to choose from.
        fits: whether a plan fits the certificate budget; a log-in that would not fit is skipped.
        login: the log-in steps to use (default: through the log-in link or the URL, by ``rng``).

    Returns:
        The phrasings, the slots, the plan and the task fields that say who does the task.
    """
    if ctx.rng.random() < chance:
        steps = login if login is not None else login_plan(ctx.labels, user["username"], user["password"],
                                                           via_link=ctx.rng.random() < 0.5)
        if fits is None or fits(steps + plan):
            prefix, lower = ctx.rng.choice(list(prefixes))
            return (phrase_with_login(prefix, lower, phrasings),
                    {**slots, "username": user["username"], "password": user["password"]}, steps + plan,
                    {"user": user["username"], "credentials": "instruction"})
    return list(phrasings), slots, plan, {"user": user["username"], "start_logged_in": True, "credentials": "profile"}


def next_pages(position: int, size: int) -> list[Step]:
    """Plan steps that page forward to the page of a list holding row ``position`` (0-based)."""
    return [("click", "link", "Next")] * (position // size)


def all_pages(total: int, size: int) -> list[Step]:
    """Plan steps that look at every page of a list of ``total`` rows."""
    return [("click", "link", "Next")] * ((max(total, 1) - 1) // size)


def start_somewhere(ctx: TaskContext, pages: Sequence[str], *, home_label: str,
                    stay: float = 0.4) -> tuple[str, list[Step]]:
    """Where a task whose plan begins on the home page starts: the home page itself (with
    probability ``stay``), or one of ``pages``, from which the plan first goes home by the home
    link or by URL.

    Returns:
        The start URL and the plan steps that lead from it to the home page.
    """
    if not pages or ctx.rng.random() < stay:
        return "/", []
    start = ctx.rng.choice(list(pages))
    return start, [ctx.rng.choice([("click", "link", home_label), ("goto", "/")])]


def with_login(ctx: TaskContext, drafts: list[TaskDraft], users: Sequence[dict[str, Any]], *, chance: float,
               fits: Callable[[list[Step]], bool] | None = None) -> list[TaskDraft]:
    """Some public tasks (no user, starting on the home page) asked of a named user: the
    instruction gives the credentials and the plan logs in first (the log-in lands on the home
    page, where the plan began).

    Args:
        ctx: the blueprint's task context.
        drafts: the site's task drafts; tasks with a user or another start page are kept as they are.
        users: the user rows to draw from.
        chance: how often a public task is given a log-in.
        fits: whether a plan fits the certificate budget; a log-in that would not fit is skipped.
    """
    out = []
    for draft in drafts:
        fields = draft.fields
        if "user" in fields or fields.get("start_url", "/") != "/" or not users or ctx.rng.random() >= chance:
            out.append(draft)
            continue
        user = ctx.rng.choice(list(users))
        steps = login_plan(ctx.labels, user["username"], user["password"], via_link=ctx.rng.random() < 0.5)
        if fits is not None and not fits(steps + draft.plan):
            out.append(draft)
            continue
        prefix, lower = ctx.rng.choice(LOGIN_PREFIXES)
        out.append(TaskDraft({**fields, "template": phrase_with_login(prefix, lower, [fields["template"]])[0],
                              "slots": {**fields.get("slots", {}), "username": user["username"],
                                        "password": user["password"]},
                              "user": user["username"], "credentials": "instruction"}, steps + draft.plan))
    return out


def start_elsewhere(ctx: TaskContext, drafts: list[TaskDraft], pages: Sequence[str], home: Sequence[Step], *,
                    chance: float, fits: Callable[[list[Step]], bool] | None = None,
                    avoid: Callable[[TaskDraft, str], bool] | None = None) -> list[TaskDraft]:
    """Some tasks that begin on the home page start on another page instead (an information page,
    a listing, a search page): the plan first goes home by one of ``home`` (a link or the URL),
    or, when it starts with a log-in or a ``goto``, goes from there directly.

    Args:
        ctx: the blueprint's task context.
        drafts: the site's task drafts; a task that already starts elsewhere is kept as it is.
        pages: public start pages to draw from (none of them may be a task's goal page).
        home: the plan steps that lead home from any page with the site's layout.
        chance: how often a task starts elsewhere.
        fits: whether a plan fits the certificate budget; a start that would not fit is skipped
            (a click may need one more step to open the menu that holds its link).
        avoid: ``avoid(draft, page)`` is true when ``page`` must not start that task.
    """
    out = []
    for draft in drafts:
        fields = draft.fields
        if fields.get("start_url", "/") != "/" or not pages or not home or ctx.rng.random() >= chance:
            out.append(draft)
            continue
        start = ctx.rng.choice(list(pages))
        step = ctx.rng.choice(list(home))
        first = draft.plan[0] if draft.plan else None
        direct = first is not None and (first[0] == "goto" or first[:3] == ("click", "link", ctx.labels["login"]))
        plan = list(draft.plan) if direct else [step, *draft.plan]
        if (avoid is not None and avoid(draft, start)) or (fits is not None and not fits(plan + [step])):
            out.append(draft)
            continue
        out.append(TaskDraft({**fields, "start_url": start}, plan))
    return out

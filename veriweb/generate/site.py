"""Generate one site: a domain blueprint and a seed in, a validated scaffold with certified tasks out."""

from __future__ import annotations

import gc
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from veriweb.engine import Session
from veriweb.errors import VeriwebError
from veriweb.generate.plan import PlanError, TaskDraft, difficulty, resolve
from veriweb.generate.streams import GENERATOR_VERSION, Streams
from veriweb.scaffold.io import with_id
from veriweb.scaffold.site import Site, Task, render_instruction


@dataclass
class Draft:
    """What a blueprint returns: the site's data (without tasks) and its task drafts."""

    site: dict[str, Any]
    tasks: list[TaskDraft] = field(default_factory=list)


Blueprint = Callable[[Streams], Draft]


def _registry() -> dict[str, Blueprint]:
    from veriweb.generate.domains import BLUEPRINTS

    return BLUEPRINTS


def available_domains() -> list[str]:
    """The domains that have a blueprint, in a fixed order."""
    return list(_registry())


def generate_site(domain: str, seed: int, *, vocab_part: int | None = None) -> Site:
    """Generate the site of ``domain`` for ``seed`` (see :func:`generate_site_checked`); a task
    whose plan fails is a blueprint bug and raises."""
    site, dropped = generate_site_checked(domain, seed, vocab_part=vocab_part, strict=True)
    return site


def generate_site_checked(domain: str, seed: int, *, vocab_part: int | None = None,
                          strict: bool = False) -> tuple[Site, list[str]]:
    """Generate the site of ``domain`` for ``seed``: same inputs, same bytes.

    ``vocab_part`` (0 or 1) labels the site from one half of every synonym list (a vocabulary
    holdout between splits).

    Returns:
        The site, with its content-hash id, and the tasks dropped because their plan failed.

    Raises:
        VeriwebError: an unknown domain, or a blueprint bug (a plan that does not solve its task).
    """
    site, dropped = draft_site(domain, seed, vocab_part=vocab_part, strict=strict)
    return with_id(site), dropped


def draft_site(domain: str, seed: int, *, vocab_part: int | None = None,
               strict: bool = False) -> tuple[Site, list[str]]:
    """As :func:`generate_site_checked`, but the site's ``id`` is left empty: for callers that
    change the site further (a holdout drops tasks) and then hash it once, with
    :func:`veriweb.scaffold.io.identify` (the hash is a model dump of the whole site).

    Raises:
        VeriwebError: an unknown domain, or a blueprint bug (a plan that does not solve its task).
    """
    registry = _registry()
    if domain not in registry:
        raise VeriwebError(f"unknown domain {domain!r}; choose from {', '.join(registry)}")
    # A site is a large tree of long-lived objects built in one go, and resolving plans renders
    # many page models (reference cycles: nodes know their parents). The cyclic collector's full
    # passes over all of it cost a fifth of the time and find nothing to free until the site is
    # done, so it is paused for the whole site; the garbage goes in one pass afterwards.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _generate(registry[domain], domain, seed, vocab_part, strict)
    finally:
        if collecting:
            gc.enable()


def _generate(blueprint: Blueprint, domain: str, seed: int, vocab_part: int | None,
              strict: bool) -> tuple[Site, list[str]]:
    draft = blueprint(Streams(seed, domain, vocab_part=vocab_part))
    data = dict(draft.site)
    data.update(generator=GENERATOR_VERSION, domain=domain, tasks=[])
    data.setdefault("description", f"A generated {domain} site (seed {seed}).")
    base = Site.model_validate(data)
    session = Session(base)
    tasks: list[Task] = []
    dropped: list[str] = []
    try:
        _resolve_all(draft, base, session, tasks, dropped, strict)
    finally:
        session.close()
    return base.model_copy(update={"tasks": tasks}), dropped


def _resolve_all(draft: Draft, base: Site, session: Session, tasks: list[Task], dropped: list[str],
                 strict: bool) -> None:
    for task_draft in draft.tasks:
        fields = dict(task_draft.fields)
        fields["instruction"] = render_instruction(fields["template"], fields.get("slots", {}))
        task = Task.model_validate(fields)
        try:
            certificate, pages = resolve(base, task, task_draft.plan, session=session)
            if len(certificate) > task.max_steps // 2:
                raise PlanError(f"task {task.id}: the certificate takes {len(certificate)} steps, more than half "
                                f"of the {task.max_steps}-step budget")
        except PlanError as exc:
            if strict:
                raise
            dropped.append(f"{task.id}: {exc}")
            continue
        tasks.append(task.model_copy(update={"certificate": certificate,
                                             "difficulty": difficulty(len(certificate), pages)}))

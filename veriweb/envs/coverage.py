"""Certificate coverage: does every certificate map into :class:`DiscreteActions`, step by step?

For each task the check resets the env on it, then for each certificate action: encodes it as a
discrete action, requires the masks to allow it and its target row to be in the truncated
element table, decodes and steps it, and at the end requires the episode to be a success. A
step with no discrete equivalent as it is (a value read on an earlier page, a total or a list
over several pages) gets the ``note`` actions :func:`veriweb.envs.certificates.plan_notes`
plans, and the certificate is replayed with them, each note checked the same way. The first
failure of a task is reported with the step, the action and why.

Run over generated sites: ``python -m veriweb.envs.coverage --domains shop,forum --seeds 0-99``
(prints a table per domain and family and exits non-zero when anything does not map).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from veriweb.envs.actions import GO_BACK, INFEASIBLE, NOOP, NOTE, SEND, DiscreteActions
from veriweb.envs.certificates import Notes, note_action, note_label, plan_notes
from veriweb.envs.env import VeriwebEnv
from veriweb.envs.observation import ObservationConfig
from veriweb.errors import VeriwebError
from veriweb.scaffold import Site, Task


@dataclass(frozen=True)
class Miss:
    """A certificate that does not map (or does not succeed) through the discrete actions.

    Attributes:
        site: the site's id.
        task: the task's id.
        family: the task's family.
        step: the index of the failing certificate action (``len(certificate)``: the end).
        action: the certificate action (``""`` at the end).
        reason: why, in words.
    """

    site: str
    task: str
    family: str
    step: int
    action: str
    reason: str

    def __str__(self) -> str:
        return f"{self.site} {self.task} ({self.family}) step {self.step} {self.action}: {self.reason}"


def check_task(env: DiscreteActions, task: Task, site_index: int = 0) -> Miss | None:
    """Replay ``task``'s certificate through ``env``'s discrete actions; ``None`` if it all maps.

    A step that does not map as it is gets the notes :func:`~veriweb.envs.certificates.plan_notes`
    plans, and the certificate is replayed again with them (each note checked like any action).
    """
    if task.kind == "infeasible" and not task.certificate:
        return None
    first = _replay(env, task, site_index, {})
    if first is None or not first.reason.startswith(_UNMAPPED):
        return first
    try:
        notes = plan_notes(env, task, site_index)
    except VeriwebError as exc:
        return Miss(first.site, first.task, first.family, first.step, first.action, str(exc))
    return _replay(env, task, site_index, notes)


_UNMAPPED = "no discrete action: "


def _replay(env: DiscreteActions, task: Task, site_index: int, notes: Notes) -> Miss | None:
    """One replay of the certificate, with ``notes`` taken before the steps they are planned at."""
    obs, _ = env.reset(options={"site": site_index, "task": task.id})
    site_id = env.base.site.id

    def miss(step: int, action: str, reason: str) -> Miss:
        return Miss(site_id, task.id, task.family, step, action, reason)

    info: dict[str, object] = {}
    for step, action in enumerate(task.certificate):
        planned = [(note_label(bid, pointer), bid, pointer) for bid, pointer in notes.get(step, [])]
        for label, bid, pointer in [*planned, (action, "", -1)]:
            try:
                discrete = env.encode(action) if pointer < 0 else note_action(env, bid, pointer)
            except VeriwebError as exc:
                return miss(step, label, (_UNMAPPED if pointer < 0 else "") + str(exc))
            kind, row, arg = (int(x) for x in discrete)
            mask = obs["action_mask"]
            if not (mask["type"][kind] and mask["element"][kind, row] and mask["argument"][kind, arg]):
                return miss(step, label, f"the masks forbid {discrete.tolist()}")
            if row >= int(obs["elements"]["mask"].sum()) and kind not in (NOOP, GO_BACK, SEND, INFEASIBLE):
                return miss(step, label, f"row {row} is outside the truncated element table")
            obs, _, terminated, truncated, info = env.step(discrete)
            if kind == NOTE and not info.get("note"):
                return miss(step, label, "the note is empty")
            if info.get("last_action_error"):
                return miss(step, label, f"{info.get('action_text')} failed: {info['last_action_error']}")
            if (terminated or truncated) and (step < len(task.certificate) - 1 or pointer >= 0):
                return miss(step, label, f"the episode ended early ({info.get('reason')})")
    if not info.get("success"):
        return miss(len(task.certificate), "", f"no success at the end ({info.get('reason')}, {info.get('answer', '')})")
    return None


def certificate_coverage(site: Site, tasks: Iterable[Task] | None = None, *, config: ObservationConfig | None = None,
                         noted: list[tuple[str, int]] | None = None, **wrapper: int) -> tuple[int, list[Miss]]:
    """Check every certificate of ``site`` (or of ``tasks``) through :class:`DiscreteActions`.

    Args:
        site: the site.
        tasks: the tasks to check (default: all of the site's).
        config: observation sizes (the truncation that the targets must survive).
        noted: if given, gets (family, notes) for each mapped certificate that took notes.
        **wrapper: arguments of :class:`DiscreteActions` (``max_task_strings=``, ...).

    Returns:
        How many tasks were checked, and the misses (empty when every certificate maps).
    """
    env = DiscreteActions(VeriwebEnv(sites=[site], config=config), **wrapper)
    checked, misses = 0, []
    for task in site.tasks if tasks is None else tasks:
        checked += 1
        found = check_task(env, task)
        if found is not None:
            misses.append(found)
        elif noted is not None and env.notes():
            noted.append((task.family, len(env.notes())))
    env.close()
    return checked, misses


def _seeds(text: str) -> list[int]:
    seeds: list[int] = []
    for part in text.split(","):
        low, _, high = part.partition("-")
        seeds += list(range(int(low), int(high or low) + 1))
    return seeds


def main(argv: Sequence[str] | None = None) -> int:
    """Check generated sites of some domains and seeds; print the misses by domain and family."""
    from veriweb.generate import available_domains, generate_site

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--domains", default=",".join(available_domains()))
    parser.add_argument("--seeds", default="0-19", help="e.g. 0-99 or 1,5,9")
    parser.add_argument("--show", type=int, default=3, help="misses to print per domain and family")
    args = parser.parse_args(argv)
    total = 0
    failed: Counter[tuple[str, str]] = Counter()
    shown: Counter[tuple[str, str]] = Counter()
    noted: list[tuple[str, int]] = []
    for domain in args.domains.split(","):
        for seed in _seeds(args.seeds):
            try:
                site = generate_site(domain, seed)
            except Exception as exc:  # a generator failure is not a coverage result; say so and go on
                print(f"{domain} seed {seed}: not generated ({type(exc).__name__}: {exc})")
                continue
            checked, misses = certificate_coverage(site, noted=noted)
            total += checked
            for found in misses:
                key = (domain, found.family)
                failed[key] += 1
                if shown[key] < args.show:
                    shown[key] += 1
                    print(f"{domain} seed {seed}: {found}")
    print(f"{total} certificates checked, {sum(failed.values())} do not map")
    for (domain, family), count in sorted(failed.items()):
        print(f"  {domain:<8}{family:<28}{count}")
    if noted:
        families = Counter(family for family, _ in noted)
        print(f"{len(noted)} of them map with notes (at most {max(n for _, n in noted)} in one): "
              + ", ".join(f"{family} {count}" for family, count in sorted(families.items())))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

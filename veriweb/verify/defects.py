"""The defect model: how a one-pass author (an LLM writing a whole site) gets a site wrong.

Raw authoring mode (``veriweb generate --raw``) takes clean generated sites and injects the
defects such authors show, obvious and subtle, so that the verifier can be measured against
ground truth. Published figures for LLM-written sites are 12.4 defects per site and 48.6% of
tasks feasible; :data:`DEFAULT_MODEL` is calibrated to land near them (see
``bench/defects_bench.py``).

Kinds (each with the check code that should report it; see
:data:`veriweb.verify.injectors.INJECTORS`):

- structural: a link to a page that does not exist (S001), a page nothing links to (S002), a
  form posting to a marker that does not exist (S003), a form that does not send a field its
  marker needs (S004), a link that opens the wrong record (S011);
- semantic: placeholder text (M001), an empty label (M002), a button whose words contradict
  its marker (M003), a value of the wrong type (M004), a task naming something the site does
  not have (M005), a task needing a form the site lacks (M007), a lookup matching two records
  with different answers (M008);
- consistency: a record pointing at a missing row (C001), a duplicate key (C002), a required
  value left out (C003), a stored total disagreeing with its lines (C004), a marker that lost
  the guard keeping a counter non-negative or a date in the future (C005), an amount shown as
  raw cents on one page and as money on another (C006), a constraint that forbids the goal (C007);
- feasibility: a goal already true at the start (F001).

Ground truth for feasibility: a task is broken when a task-level defect targets it, or when the
steps of its generator certificate, re-aimed at the same elements by role, name and position
(:mod:`veriweb.verify.retrace`), no longer complete it on the raw site; such a task is charged to
the site-level defects that touch what its certificate went through. That is an upper bound on
infeasibility: an agent might still find another way round a broken link.

Raw sites ship without certificates (an author does not ship proofs) and with a new content-hash id.

Which kinds have a repair (the third field of each :data:`~veriweb.verify.injectors.INJECTORS`
entry, which the report reads by kind for its retention over repairable tasks): every kind now.
A goal already true at the start is retargeted (:mod:`veriweb.verify.retarget`: a navigate task
starts from the home page, a mutate task is re-pointed at another entity of the same table for
which the goal is false, with its slots rewritten and its instruction re-rendered); a missing
control gets a form (:func:`veriweb.verify.repair.add_control`, its fields from
:mod:`veriweb.verify.form_fields`); a missing value is restored from the options that still pair
it with its row, else the column's usual value. Each can still fail on a given task (a goal
written as SQL names no entity to re-point; a frozen count in a constraint forbids any other
write), and then the task is dropped and counted.
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from veriweb.engine import Session
from veriweb.errors import VeriwebError
from veriweb.scaffold import Site
from veriweb.scaffold.io import canonical_json, from_data, with_id
from veriweb.verify import checks as C
from veriweb.verify.injectors import INJECTORS, Hit, Workbench, put
from veriweb.verify.knockon import joint_knock_on, knock_on
from veriweb.verify.retrace import Trace, follow, trace

DEFAULT_WEIGHTS: dict[str, float] = {
    "broken_link": 0.8, "wrong_link": 0.4, "orphan_page": 0.6, "unknown_marker": 0.4, "missing_field": 0.5,
    "placeholder": 1.2, "empty_content": 0.6, "contradictory_label": 0.4, "wrong_type": 1.0,
    "missing_entity": 2.2, "missing_control": 0.6, "dangling_key": 0.9, "duplicate_key": 0.5,
    "missing_value": 0.6, "total_mismatch": 0.5, "invariant_break": 0.4, "price_display": 0.5,
    "contradictory_constraint": 1.2, "answer_not_unique": 0.8, "goal_at_start": 1.2,
}
"""Relative frequency of each defect kind."""


@dataclass(frozen=True)
class DefectModel:
    """How many defects a raw site gets, and of which kinds.

    Args:
        rate: mean defects per site; each site draws its count from a normal distribution
            around it (``spread``), at least 1.
        spread: standard deviation of the per-site count.
        weights: relative frequency of each kind (kinds left out are never injected).
    """

    rate: float = 12.0
    spread: float = 3.0
    weights: tuple[tuple[str, float], ...] = tuple(sorted(DEFAULT_WEIGHTS.items()))

    def __post_init__(self) -> None:
        # numbers are floats, so a rate of 4 and of 4.0 hash the same
        object.__setattr__(self, "rate", float(self.rate))
        object.__setattr__(self, "spread", float(self.spread))
        object.__setattr__(self, "weights", tuple(sorted((str(k), float(w)) for k, w in dict(self.weights).items())))
        unknown = [k for k, _ in self.weights if k not in INJECTORS]
        if unknown:
            raise VeriwebError(f"defect model names unknown kind(s) {', '.join(unknown)}; "
                               f"known kinds: {', '.join(INJECTORS)}")
        if self.rate < 0 or self.spread < 0 or any(w < 0 for _, w in self.weights):
            raise VeriwebError("defect model: rate, spread and weights must not be negative")
        if not any(w > 0 for _, w in self.weights):
            raise VeriwebError("defect model: at least one kind needs a positive weight")

    @classmethod
    def with_rate(cls, rate: float) -> DefectModel:
        """The default model with another mean number of defects per site."""
        return cls(rate=rate)

    def as_dict(self) -> dict[str, Any]:
        """The configuration as JSON data."""
        return {"rate": self.rate, "spread": self.spread, "weights": dict(self.weights)}

    def config_hash(self) -> str:
        """sha256 of the canonical JSON configuration (printed in reports)."""
        return hashlib.sha256(canonical_json(self.as_dict()).encode()).hexdigest()


DEFAULT_MODEL = DefectModel()


@dataclass(frozen=True)
class Defect:
    """One injected defect (ground truth; the verifier never reads it).

    Attributes:
        kind: the defect kind (a key of :data:`veriweb.verify.injectors.INJECTORS`).
        code: the check code the verifier should report.
        cls: structural, semantic, consistency or feasibility.
        location: JSON path of what was broken in the raw site.
        tasks: ids of the tasks this defect breaks (or targets).
        infeasible: whether it makes at least one task infeasible.
        repairable: whether a repair should exist.
        message: what was done, in words.
        related: other paths the same defect shows at (the other row of a duplicate key).
        knock_on: (code, path) where it also shows under another check: pages it leaves
            unreachable (S002), task writes it leaves without a form (M007), totals its line
            edits upset (C004). Knock-on effects count for precision, not recall.
    """

    kind: str
    code: str
    cls: str
    location: str
    tasks: tuple[str, ...] = ()
    infeasible: bool = False
    repairable: bool = True
    message: str = ""
    related: tuple[str, ...] = ()
    knock_on: tuple[tuple[str, str], ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """JSON data of the defect (``class`` for ``cls``)."""
        data = asdict(self)
        data["class"] = data.pop("cls")
        data["tasks"] = list(self.tasks)
        data["related"] = list(self.related)
        data["knock_on"] = [list(pair) for pair in self.knock_on]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Defect:
        """Read a defect written by :meth:`as_dict`."""
        fields = dict(data)
        fields["cls"] = fields.pop("class")
        fields["tasks"] = tuple(fields.get("tasks", ()))
        fields["related"] = tuple(fields.get("related", ()))
        fields["knock_on"] = tuple(tuple(pair) for pair in fields.get("knock_on", ()))
        return cls(**fields)


@dataclass
class Injection:
    """The result of :func:`inject_site`: the raw site, its defects, and feasibility per task."""

    site: Site
    defects: list[Defect]
    feasible: dict[str, bool] = field(default_factory=dict)
    unattributed: list[str] = field(default_factory=list)
    """Tasks broken on replay that no defect's scope explains (should stay empty)."""

    def manifest(self) -> dict[str, Any]:
        """The sidecar manifest of the raw site."""
        return {"site_id": self.site.id, "defects": [d.as_dict() for d in self.defects],
                "tasks": {tid: {"feasible": ok} for tid, ok in self.feasible.items()},
                "unattributed": self.unattributed}


def _draw(rng: random.Random, model: DefectModel) -> list[str]:
    kinds = [k for k, w in model.weights if w > 0]
    weights = [w for _, w in model.weights if w > 0]
    count = max(1, round(rng.gauss(model.rate, model.spread))) if model.rate > 0 else 0
    return rng.choices(kinds, weights=weights, k=count)


def _page_tables(site: Site) -> dict[str | None, set[str]]:
    """Tables each page (None: the layout) reads, views expanded to the tables they name."""
    views = {v.name: {t.name for t in site.database.tables if f" {t.name}" in v.sql} for v in site.database.views}
    out: dict[str | None, set[str]] = {}
    for element, _, page_id in C.all_elements(site):
        query = getattr(element, "query", None)
        if query is not None and element.type in ("list", "table", "record"):
            out.setdefault(page_id, set()).update(views.get(query.table, {query.table}))
    return out


def _touches(hit: Hit, recorded: Trace, site: Site, task_text: str, page_tables: dict[str | None, set[str]]) -> bool:
    kind, name = hit.scope
    if kind == "page":
        return name is None or name in recorded.pages
    if kind == "table":
        read = set().union(*(page_tables.get(p, set()) for p in [None, *recorded.pages]))
        return name in read or name in recorded.markers_tables or f'"{name}"' in task_text
    if kind == "marker":
        return False  # a dropped guard never stops a certificate
    return kind == "task" and name == recorded.task_id


def _culprits(site: Site, hits: list[tuple[str, Hit]], traces: dict[str, Trace],
              suspects: dict[str, list[int]]) -> dict[str, list[int]]:
    """For each broken task, the suspects that break it on their own (replayed one defect at a
    time); all of its suspects when none does alone (it takes them together)."""
    out = {task_id: list(owners) for task_id, owners in suspects.items()}
    candidates = sorted({n for owners in suspects.values() if len(owners) > 1 for n in owners})
    if not candidates:
        return out
    alone: dict[str, list[int]] = {task_id: [] for task_id in suspects}
    clean = json.dumps(site.model_dump(mode="json"))
    for n in candidates:
        data = json.loads(clean)
        data["id"] = ""
        for path, value in hits[n][1].edits:
            put(data, path, copy.deepcopy(value))
        variant = from_data(data, source="one defect", check_id=False)
        session = Session(variant)
        try:
            for task_id, owners in suspects.items():
                if len(owners) > 1 and n in owners and not follow(variant, variant.task(task_id), traces[task_id],
                                                                  session=session):
                    alone[task_id].append(n)
        finally:
            session.close()
    for task_id, owners in alone.items():
        if owners:
            out[task_id] = owners
    return out


def inject_site(site: Site, seed: int, model: DefectModel = DEFAULT_MODEL) -> Injection:
    """Inject defects into a clean site; see :func:`inject`. Also returns feasibility per task."""
    rng = random.Random(f"defects:{seed}")
    session = Session(site)
    try:
        traces = {t.id: trace(site, t, session=session) for t in site.tasks}
    finally:
        session.close()
    wb = Workbench(site=site, data=site.model_dump(mode="json"), traces=traces)
    wb.data["id"] = ""
    hits: list[tuple[str, Hit]] = []
    kinds = [k for k, w in model.weights if w > 0]
    for kind in _draw(rng, model):
        for attempt in range(4):
            start = len(wb.log)
            hit = INJECTORS[kind][3](wb, rng)
            if hit is not None:
                hit.edits = wb.log[start:]
                hits.append((kind, hit))
                break
            kind = rng.choice(kinds)
    clean = site.model_dump(mode="json")
    for kind, hit in hits:
        if hit.edits:
            hit.knock_on = knock_on(site, clean, hit)
    for n, extra in joint_knock_on(site, clean, wb.data, [hit for _, hit in hits]).items():
        hits[n][1].knock_on = tuple(sorted(set(hits[n][1].knock_on) | extra))
    raw = from_data(wb.data, source=f"raw {site.name}", check_id=False)
    broken: dict[str, bool] = {}
    session = Session(raw)
    try:
        for task in raw.tasks:
            recorded = traces.get(task.id)
            broken[task.id] = recorded is not None and recorded.success and not follow(raw, task, recorded,
                                                                                          session=session)
    finally:
        session.close()
    targeted = {tid for _, hit in hits for tid in hit.tasks}
    charged: dict[int, set[str]] = {n: set(hit.tasks) for n, (_, hit) in enumerate(hits)}
    unattributed = []
    page_tables = _page_tables(site)
    suspects: dict[str, list[int]] = {}
    for task in site.tasks:
        if not broken[task.id] or task.id in targeted:
            continue
        text = task.model_dump_json()
        suspects[task.id] = [n for n, (_, hit) in enumerate(hits) if hit.scope[0] != "task" and hit.edits
                             and _touches(hit, traces[task.id], site, text, page_tables)]
        if not suspects[task.id]:
            unattributed.append(task.id)
    for task_id, owners in _culprits(site, hits, traces, suspects).items():
        for n in owners:
            charged[n].add(task_id)
    defects = []
    for n, (kind, hit) in enumerate(hits):
        code, cls, repairable, _ = INJECTORS[kind]
        tasks = tuple(t.id for t in site.tasks if t.id in charged[n])
        defects.append(Defect(kind=kind, code=code, cls=cls, location=hit.location, tasks=tasks,
                              infeasible=bool(tasks), repairable=repairable, message=hit.message,
                              related=hit.related, knock_on=hit.knock_on))
    bad = targeted | {t for n in charged for t in charged[n]} | set(unattributed)
    final = with_id(raw.model_copy(update={"tasks": [t.model_copy(update={"certificate": []}) for t in raw.tasks]}))
    return Injection(final, defects, {t.id: t.id not in bad for t in site.tasks}, unattributed)


def inject(site: Site, seed: int, model: DefectModel = DEFAULT_MODEL) -> tuple[Site, list[Defect]]:
    """Turn a clean generated site into a raw one, as a one-pass author would have written it.

    Args:
        site: a clean site whose tasks carry certificates (as generated).
        seed: the seed of the defect stream (``random.Random(f"defects:{seed}")``).
        model: how many defects, of which kinds.

    Returns:
        The raw site (certificates cleared, a new content-hash id) and the injected defects.
    """
    found = inject_site(site, seed, model)
    return found.site, found.defects


def summarise(defects: Iterable[Defect]) -> dict[str, int]:
    """Defects by class."""
    out = {cls: 0 for cls in C.CLASSES}
    for defect in defects:
        out[defect.cls] += 1
    return out


__all__ = ["DEFAULT_MODEL", "DEFAULT_WEIGHTS", "Defect", "DefectModel", "Injection", "inject", "inject_site",
           "summarise"]

"""Audit of what instructions state against what goals check: a stated value no judge reads passes any value.

Two findings per task, over many generated sites::

    python -m veriweb.generate.slot_audit --seeds 0:50 --domains all

- ``unread slot``: a slot rendered into the instruction that no goal predicate, constraint or
  answer spec reads (neither as ``slot.NAME`` nor as the slot's value written out as a literal).
- ``unread write``: a value the certificate types into the site (``fill`` / ``select_option``)
  that the certificate's writes store in a column which no goal predicate, constraint or answer
  spec reads: the judge would pass any other value there ("refund as a damaged item" with any
  reason).

Some unread slots are stated on purpose and read in another form (``day`` is how ``date`` is
shown; ``what`` = "cheapest" is the goal's ``order_by``): the report lists them all, by family,
for a person to judge; :data:`EXPECTED` names the ones judged fine.
"""

from __future__ import annotations

import re
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from veriweb.engine import Session
from veriweb.scaffold import Site, Task

EXPECTED: dict[str, str] = {
    "*.username": "credentials: checked by the log-in, not by the goal",
    "*.password": "credentials: checked by the log-in, not by the goal",
    "open_extreme_product.what": "'priciest' / 'scarcest' is the goal query's order_by",
    "open_sorted.what": "'most commented' is the goal query's order_by",
    "empty_trash.trash": "the site's label for the trash folder, read as folders.kind = 'trash'",
    "purge_trashed.trash": "the site's label for the trash folder: where the message is, not what is checked",
    "delete_for_good.trash": "the site's label for the trash folder: where the message is, not what is checked",
    "auto_reply.feature": "the site's name for the vacation setting, read as users.vacation",
    "hotel_budget.stays.nights": "the stay's nights are read as its check-out date (stay_view.check_out)",
}
"""Stated values the goal need not read, as ``task.slot`` or ``task.table.column`` (``*`` for any
task), and why: each was judged by hand. Retrieve and infeasible tasks are listed but not held to
this (their answer or proof is computed from the data the slots picked)."""

_PLACEHOLDER = re.compile(r"(?<!\{)\{(\w+)\}")
_TYPED = re.compile(r"^(?:fill|select_option)\('[^']*',\s*(['\"])(.*)\1\)$")
_SQL_COLUMN = re.compile(r"\b(\w+)\.(\w+)\b")


@dataclass(frozen=True)
class Finding:
    """One stated-but-unchecked value of one task."""

    family: str
    task: str
    kind: str  # "unread slot" or "unread write"
    name: str  # the slot, or table.column
    value: str
    judged: bool = True  # on a navigate or mutate task (judged on state), not an answer or a proof


def _expected(task: Task, name: str) -> bool:
    base = task.id.rstrip("_0123456789") or task.id
    return f"*.{name}" in EXPECTED or f"{base}.{name}" in EXPECTED


def stated_slots(task: Task) -> list[str]:
    """The slots the task's template renders into its instruction."""
    return [name for name in dict.fromkeys(_PLACEHOLDER.findall(task.template)) if name in task.slots]


def _judged(task: Task) -> list[Any]:
    parts: list[Any] = [p.model_dump(mode="json") for p in task.goal]
    parts += [c.predicate.model_dump(mode="json") for c in task.constraints]
    if task.answer is not None:
        parts.append(task.answer.model_dump(mode="json"))
    return parts


def _walk(node: Any) -> Iterable[Any]:
    yield node
    if isinstance(node, dict):
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value)


def judged_reads(task: Task) -> tuple[set[str], set[str], set[tuple[str, str]], bool]:
    """What the task's judge reads: slot names, literal values (as text), ``(table, column)`` pairs,
    and whether it holds raw SQL (whose columns are matched by name only)."""
    slots: set[str] = set()
    literals: set[str] = set()
    columns: set[tuple[str, str]] = set()
    raw = False
    for part in _judged(task):
        for node in _walk(part):
            if isinstance(node, dict):
                ref = node.get("ref")
                if isinstance(ref, str) and ref.startswith("slot."):
                    slots.add(ref[5:])
                query = node.get("query") if isinstance(node.get("query"), dict) else node
                table = query.get("table") if isinstance(query, dict) else None
                if isinstance(table, str):
                    for cond in query.get("where") or []:
                        columns.add((table, cond.get("column")))
                    for order in query.get("order_by") or []:
                        columns.add((table, order.get("column")))
                    if isinstance(query.get("select"), str) and query["select"] != "*":
                        columns.add((table, query["select"]))
                if isinstance(node.get("sql"), str):
                    raw = True
                    literals.update(v.lower() for v in re.findall(r"'([^']*)'", node["sql"]))
                    for _, column in _SQL_COLUMN.findall(node["sql"]):
                        columns.add(("*", column))
                    for word in re.findall(r"\w+", node["sql"]):
                        columns.add(("*", word))
                    for value in (node.get("params") or {}).values():
                        if isinstance(value, dict) and str(value.get("ref", "")).startswith("slot."):
                            slots.add(value["ref"][5:])
            elif isinstance(node, (str, int, float)) and not isinstance(node, bool):
                literals.add(str(node).lower())
    return slots, literals, columns, raw


def _same(a: Any, b: str) -> bool:
    if str(a).lower() == b.lower():
        return True
    try:
        return isinstance(a, (int, float)) and not isinstance(a, bool) and (
            float(b.replace(",", "").lstrip("$")) in (float(a), float(a) / 100))
    except ValueError:
        return False


def _dates(text: str) -> set[str]:
    """The ISO dates a shown date may stand for ("24 June", "June 24", "June 24, 2026", "2026-06-24")."""
    months = ["january", "february", "march", "april", "may", "june", "july", "august", "september",
              "october", "november", "december"]
    low = text.lower().replace(",", "")
    if re.fullmatch(r"\d{4}-\d\d-\d\d", low):
        return {low}
    words = low.split()
    month = next((months.index(w) + 1 for w in words if w in months), None)
    day = next((int(w) for w in words if w.isdigit() and int(w) <= 31), None)
    year = next((w for w in words if w.isdigit() and len(w) == 4), None)
    if month is None:
        return set()
    if day is None:  # a month: "March 2026", "March"
        return {f"{year or ''}-{month:02d}"} if year else {f"-{month:02d}"}
    return {f"{year}-{month:02d}-{day:02d}"} if year else {f"-{month:02d}-{day:02d}"}


def read_in_another_form(site: Site, task: Task, name: str, slots: set[str], literals: set[str]) -> bool:
    """Is stated slot ``name`` read in another form: money as cents, a shown date as an ISO slot or
    literal, "2 guests" as the count slot, a name as its row's key?"""
    value = str(task.slots[name])
    low = value.lower()
    if low in literals:
        return True
    money = re.fullmatch(r"\$?([\d,]+(?:\.\d\d)?)", value.strip())
    if money:
        amount = float(money.group(1).replace(",", ""))
        if any(lit in (str(round(amount * 100)), str(amount), str(int(amount))) for lit in literals):
            return True
    shown = _dates(value)
    known = [str(task.slots[s]).lower() for s in slots if s in task.slots] + sorted(literals)
    if shown and any(k.endswith(d) or d in k for d in shown for k in known):
        return True
    count = re.fullmatch(r"(\d+) \w+", low)
    if count and any(str(task.slots[s]) == count.group(1) for s in slots if s in task.slots):
        return True
    for table in site.database.tables:
        cols = {c.name for c in table.columns}
        if "name" not in cols:
            continue
        for row in table.rows:
            if str(row.get("name", "")).lower() == low and str(row.get(table.primary_key)) in literals:
                return True
    return False


def audit_task(site: Site, task: Task, session: Session) -> list[Finding]:
    """The stated values of ``task`` that its judge does not read (see the module docstring)."""
    slots, literals, columns, _ = judged_reads(task)
    found: list[Finding] = []
    for name in stated_slots(task):
        if name in slots or _expected(task, name) or read_in_another_form(site, task, name, slots, literals):
            continue
        found.append(Finding(task.family, task.id, "unread slot", name, str(task.slots[name]),
                             task.kind in ("navigate", "mutate")))
    if task.kind != "mutate":
        return found
    typed = [m.group(2) for a in task.certificate if (m := _TYPED.match(a))]
    secret = {str(task.slots.get("username", "")), str(task.slots.get("password", ""))}
    typed = [t for t in typed if t and t not in secret]
    if not typed:
        return found
    session.reset(task.start_url, user=task.user if task.start_logged_in else None)
    for action in task.certificate:
        session.step(action)
    seen: set[tuple[str, str]] = set()
    for change in session.db.changes():
        for column, value in (change.new or {}).items():
            if (change.old or {}).get(column) == value or (change.table, column) in seen:
                continue
            if (change.table, column) in columns or ("*", column) in columns:
                continue
            if column == session.db.primary_keys.get(change.table):
                continue  # a new row's key: a typed number that happens to equal it is no stated value
            hit = next((t for t in typed if _same(value, t)), None)
            if hit is not None and not _expected(task, f"{change.table}.{column}"):
                seen.add((change.table, column))
                found.append(Finding(task.family, task.id, "unread write", f"{change.table}.{column}", hit))
    return found


def audit_site(site: Site) -> list[Finding]:
    """Every finding over the tasks of ``site``."""
    session = Session(site)
    try:
        return [f for task in site.tasks for f in audit_task(site, task, session)]
    finally:
        session.close()


def _one(args: tuple[str, int]) -> list[Finding]:
    from veriweb.generate.site import generate_site

    return audit_site(generate_site(*args))


def main(argv: list[str] | None = None) -> int:
    """Command-line entry (see the module docstring); exits 1 if anything is found."""
    from concurrent.futures import ProcessPoolExecutor

    from veriweb.generate.audit import audit_arguments

    args, domains, seeds = audit_arguments(__doc__.splitlines()[0], argv, seeds="0:50", jobs=1)
    jobs = [(d, s) for d in domains for s in seeds]
    with ProcessPoolExecutor(args.jobs) as pool:
        results = list(pool.map(_one, jobs, chunksize=4))
    tasks: Counter[str] = Counter()
    hits: dict[tuple[str, str, str], list[Finding]] = defaultdict(list)
    for (domain, _), findings in zip(jobs, results):
        for f in findings:
            hits[(domain, f.family + "/" + f.task.rstrip("_0123456789"), f"{f.kind} {f.name}")].append(f)
        tasks[domain] += 1
    print(f"{len(jobs)} sites audited; {len(hits)} (family, stated value) pairs unread")
    for (domain, family, what), found in sorted(hits.items()):
        tag = "" if found[0].judged else "  (answer/proof task)"
        print(f"  {domain:7} {family:44} {what:28} x{len(found):<4} e.g. {found[0].value!r}{tag}")
    judged = [k for k, found in hits.items() if found[0].judged]
    print(f"{len(judged)} of them on navigate or mutate tasks (a judge that passes a wrong state)")
    return 1 if judged else 0


if __name__ == "__main__":
    sys.exit(main())

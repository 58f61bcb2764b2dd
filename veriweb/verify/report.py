"""The verification report: ``report.json``, a terminal table, and a self-contained ``report.html``.

The report puts raw and verified figures side by side: defects per site by class, the
feasible-task rate, task retention, false-feasible tasks (a certificate that fails on replay),
undecided tasks and judge probes passed. When the corpus has ground-truth sidecars
(``sites/*.defects.json``, written by ``veriweb generate --raw``), :func:`score_checks` scores
each check code's recall and precision against them; that is the only place they are read.
"""

from __future__ import annotations

import html as html_lib
import json
import re
import os
from collections import Counter
from pathlib import Path
from typing import Any

from veriweb.verify.checks import CHECKS, CLASSES

# ----------------------------------------------------------------------------- scoring


def _tokens(path: str) -> str:
    return path.replace("[", ".[")


def _overlaps(a: str, b: str) -> bool:
    """The same place, or one inside the other (``$.pages[3]`` holds ``$.pages[3].elements[0]``)."""
    ta, tb = _tokens(a), _tokens(b)
    return ta == tb or ta.startswith(tb + ".") or tb.startswith(ta + ".")


_TASK_PATH = re.compile(r"^\$\.tasks\[(\d+)\]")


def _explains(defect: dict[str, Any], issue: dict[str, Any], task_ids: list[str]) -> bool:
    """Whether an injected defect accounts for a reported issue.

    Same code at its place (or a related one); one of its recorded knock-on effects (a page it
    left unreachable shows as S002); or a feasibility finding on a task the defect breaks (a
    goal made true at the start also lets a no-op pass, F003; a lookup of a missing entity has
    no answer, F004): the dynamic checks see a broken task by its symptoms, not its cause.
    """
    places = [defect.get("location", "")] + list(defect.get("related", []))
    if defect.get("code") == issue["code"] and any(_overlaps(issue["location"], p) for p in places):
        return True
    if any(code == issue["code"] and _overlaps(issue["location"], path) for code, path in defect.get("knock_on", [])):
        return True
    match = _TASK_PATH.match(issue["location"])
    if issue.get("class") == "feasibility" and match and int(match.group(1)) < len(task_ids):
        return task_ids[int(match.group(1))] in defect.get("tasks", [])
    return False


def _task_ids(path: Path) -> list[str]:
    """The task ids of a raw site file, in order (issue locations name tasks by index)."""
    try:
        return [task.get("id", "") for task in json.loads(path.read_text(encoding="utf-8")).get("tasks", [])]
    except (OSError, json.JSONDecodeError, AttributeError):
        return []


def _sidecars(raw_dir: str | os.PathLike[str],
              sites: list[dict[str, Any]]) -> list[tuple[dict[str, Any], list[dict[str, Any]], list[str]]] | None:
    """(site report, its injected defects, its raw task ids) for every site with a readable
    sidecar; ``None`` when the corpus has no sidecar at all (a sidecar that does not parse still
    says the corpus is raw, and its site is left out)."""
    root = Path(raw_dir)
    found: list[tuple[dict[str, Any], list[dict[str, Any]], list[str]]] = []
    any_sidecar = False
    for site in sites:
        rel = site.get("file", "")
        sidecar = root / (rel[: -len(".json")] + ".defects.json") if rel.endswith(".json") else None
        if sidecar is None or not sidecar.is_file():
            continue
        any_sidecar = True
        try:
            defects = json.loads(sidecar.read_text(encoding="utf-8")).get("defects", [])
        except (json.JSONDecodeError, AttributeError):
            continue
        found.append((site, defects, _task_ids(root / rel)))
    return found if any_sidecar else None


def score_checks(raw_dir: str | os.PathLike[str], sites: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Recall and precision of each check code against the raw corpus's defect sidecars.

    A defect counts as found when an issue of the same code is reported where it was injected
    (or at one of its related paths, or inside or around it). An issue is a true positive when
    it matches a defect that way, is one of a defect's recorded knock-on effects, or is a
    feasibility finding on a task a defect breaks (see :func:`_explains`). Returns ``None`` when
    the corpus has no sidecars.
    """
    loaded = _sidecars(raw_dir, sites)
    if loaded is None:
        return None
    per_code: dict[str, Counter[str]] = {}
    for site, defects, task_ids in loaded:
        issues = site["raw"]["issues"]
        for defect in defects:
            code = defect.get("code", "?")
            places = [defect.get("location", "")] + list(defect.get("related", []))
            found = any(i["code"] == code and any(_overlaps(i["location"], p) for p in places) for i in issues)
            counter = per_code.setdefault(code, Counter())
            counter["defects"] += 1
            counter["found"] += found
        for issue in issues:
            counter = per_code.setdefault(issue["code"], Counter())
            counter["issues"] += 1
            counter["true"] += any(_explains(d, issue, task_ids) for d in defects)
    out: dict[str, Any] = {}
    totals: Counter[str] = Counter()
    for code in sorted(per_code):
        c = per_code[code]
        totals.update(c)
        out[code] = {"defects": c["defects"], "found": c["found"], "issues": c["issues"], "true_positives": c["true"],
                     "recall": round(c["found"] / c["defects"], 4) if c["defects"] else None,
                     "precision": round(c["true"] / c["issues"], 4) if c["issues"] else None}
    out["all"] = {"defects": totals["defects"], "found": totals["found"], "issues": totals["issues"],
                  "true_positives": totals["true"],
                  "recall": round(totals["found"] / totals["defects"], 4) if totals["defects"] else None,
                  "precision": round(totals["true"] / totals["issues"], 4) if totals["issues"] else None}
    return out


def _repairable(defect: dict[str, Any]) -> bool | None:
    """Whether a repair exists for a recorded defect: the current defect model's word for its kind
    (repairs are added after a corpus is written), else what the sidecar recorded."""
    from veriweb.verify.injectors import INJECTORS

    known = INJECTORS.get(str(defect.get("kind")))
    return known[2] if known is not None else defect.get("repairable")


def repairable_retention(raw_dir: str | os.PathLike[str], sites: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Task retention among the tasks the defect model says a repair can save.

    The defect model marks some kinds as having no repair (by kind, as the model says now, not as
    the sidecar recorded when the corpus was written: see :func:`_repairable`). Their tasks can only be
    dropped, so retention over all raw tasks is capped below 100% by the defect model itself; this
    figure leaves those tasks out of both counts. ``None`` without sidecars. Only the report reads
    the sidecars; the verifier never does.
    """
    loaded = _sidecars(raw_dir, sites)
    if loaded is None:
        return None
    doomed = total = kept = 0
    for site, defects, task_ids in loaded:
        ids = set(task_ids)
        lost = {t for d in defects if _repairable(d) is False for t in d.get("tasks", [])} & ids
        dropped = ids if site.get("site_dropped") else set(site.get("dropped_tasks", {}))
        doomed += len(lost)
        total += len(ids - lost)
        kept += len(ids - lost - dropped)
    return {"unrepairable_tasks": doomed, "repairable_tasks": total,
            "retention": round(kept / total, 4) if total else None}


# ----------------------------------------------------------------------------- aggregation


def _aggregate(sides: list[dict[str, Any]], n_sites: int) -> dict[str, Any]:
    tasks = sum(s["tasks"] for s in sides)
    feasible = sum(s["feasible"] for s in sides)
    by_class = {cls: round(sum(s["by_class"].get(cls, 0) for s in sides) / max(n_sites, 1), 3) for cls in CLASSES}
    statuses: Counter[str] = Counter()
    for side in sides:
        statuses.update(side["statuses"])
    return {"sites": len(sides), "defects": sum(s["defects"] for s in sides),
            "defects_per_site": round(sum(s["defects"] for s in sides) / max(n_sites, 1), 3),
            "defects_per_site_by_class": by_class, "tasks": tasks, "feasible": feasible,
            "feasible_rate": round(feasible / tasks, 4) if tasks else None, "statuses": dict(sorted(statuses.items())),
            "undecided": sum(s["undecided"] for s in sides), "false_feasible": sum(s["false_feasible"] for s in sides),
            "probes_run": sum(s["probes_run"] for s in sides), "probes_passed": sum(s["probes_passed"] for s in sides)}


def build_report(sites: list[dict[str, Any]], *, raw_dir: str | os.PathLike[str], budget: int, mode: str,
                 seconds: float) -> dict[str, Any]:
    """The corpus report from the per-site reports (:meth:`SiteReport.as_dict`).

    Args:
        sites: per-site reports, in manifest order.
        raw_dir: the corpus that was verified (its sidecars, if any, score the checks).
        budget: the search budget used.
        mode: ``verify`` (raw figures only) or ``repair`` (raw and verified).
        seconds: how long the whole run took.
    """
    n = len(sites)
    raw = _aggregate([s["raw"] for s in sites], n)
    report: dict[str, Any] = {"mode": mode, "budget": budget, "sites": n, "raw": raw, "verified": None,
                              "checks": {code: {"class": cls, "finds": what} for code, (cls, what) in sorted(CHECKS.items())},
                              "scores": score_checks(raw_dir, sites), "seconds": round(seconds, 2), "per_site": sites}
    if mode == "repair":
        kept = [s for s in sites if not s["site_dropped"] and s["verified"] is not None]
        verified = _aggregate([s["verified"] for s in kept], len(kept))
        verified["sites_dropped"] = n - len(kept)
        verified["tasks_dropped"] = raw["tasks"] - verified["tasks"]
        verified["retention"] = round(verified["tasks"] / raw["tasks"], 4) if raw["tasks"] else None
        verified["repairable"] = repairable_retention(raw_dir, sites)
        verified["repairs"] = sum(len(s["repairs"]) for s in sites)
        verified["repairs_by_code"] = dict(sorted(Counter(r["code"] for s in sites for r in s["repairs"]).items()))
        verified["drop_reasons"] = dict(Counter(_reason(r) for s in sites for r in s["dropped_tasks"].values())
                                        .most_common())
        report["verified"] = verified
    return report


def _reason(text: str) -> str:
    return text.split(":")[0].split(" (")[0] if not text.startswith("the ") else text.split(":")[0]


def reproducible(report: dict[str, Any]) -> dict[str, Any]:
    """The report without its timings, so the same corpus and budget give the same bytes.

    How long a run took is printed with the terminal table (and measured by ``bench/``), never
    written into a file that should replay.
    """
    out = {k: v for k, v in report.items() if k != "seconds"}
    if isinstance(out.get("per_site"), list):
        out["per_site"] = [{k: v for k, v in site.items() if k != "seconds"} if isinstance(site, dict) else site
                           for site in out["per_site"]]
    return out


def write_report(report: dict[str, Any], directory: str | os.PathLike[str], *, html: bool = False) -> Path:
    """Write ``report.json`` (and ``report.html`` with ``html``) into ``directory``, atomically."""
    from veriweb.generate.corpus import _write_json

    root = Path(directory)
    report = reproducible(report)
    _write_json(root / "report.json", report)
    if html:
        import tempfile

        target = root / "report.html"
        fd, tmp = tempfile.mkstemp(dir=root, prefix=".report.html.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(render_html(report))
            os.chmod(tmp, 0o644)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    return root / "report.json"


# ----------------------------------------------------------------------------- presentation


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def summary_rows(report: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(figure, raw, verified) rows for the table and the page."""
    raw, ver = report["raw"], report["verified"] or {}
    show = bool(ver)

    def both(key: str, fmt: Any = str) -> tuple[str, str]:
        return fmt(raw.get(key)), (fmt(ver.get(key)) if show else "")

    rows = [("sites", *both("sites")), ("defects per site", *both("defects_per_site", lambda v: f"{v:.2f}"))]
    for cls in CLASSES:
        rows.append((f"  {cls}", f"{raw['defects_per_site_by_class'][cls]:.2f}",
                     f"{ver['defects_per_site_by_class'][cls]:.2f}" if show else ""))
    rows += [("tasks", *both("tasks")), ("feasible-task rate", *both("feasible_rate", _pct)),
             ("undecided tasks", *both("undecided")), ("false-feasible tasks", *both("false_feasible")),
             ("judge probes run", *both("probes_run")), ("judge probes passed (wrong)", *both("probes_passed"))]
    if show:
        rows += [("task retention", "", _pct(ver["retention"]))]
        if ver.get("repairable"):
            rows += [("  of repairable tasks", "", _pct(ver["repairable"]["retention"])),
                     ("  unrepairable (defect model)", "", str(ver["repairable"]["unrepairable_tasks"]))]
        rows += [("tasks dropped", "", str(ver["tasks_dropped"])),
                 ("sites dropped", "", str(ver["sites_dropped"])), ("repairs", "", str(ver["repairs"]))]
    return rows


def format_table(report: dict[str, Any]) -> str:
    """The report as a plain-text table for the terminal."""
    rows = summary_rows(report)
    lines = [f"{'':<30} {'raw':>12} {'verified':>12}"]
    lines += [f"{name:<30} {raw:>12} {ver:>12}" for name, raw, ver in rows]
    scores = report.get("scores")
    if scores:
        lines.append("")
        lines.append(f"{'check':<8} {'defects':>8} {'found':>6} {'recall':>8} {'issues':>7} {'precision':>10}")
        for code, s in scores.items():
            lines.append(f"{code:<8} {s['defects']:>8} {s['found']:>6} {_pct(s['recall']):>8} {s['issues']:>7} "
                         f"{_pct(s['precision']):>10}")
    seconds = f" in {report['seconds']:.1f} s" if "seconds" in report else ""
    lines.append(f"\n{report['sites']} sites{seconds} (search budget {report['budget']} states)")
    return "\n".join(lines)


_STYLE = """body{font:15px/1.45 system-ui,sans-serif;margin:2em auto;max-width:70em;color:#222;padding:0 1em}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.25em .6em;text-align:right}
th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}.bad{color:#a00;font-weight:600}
details{margin:.3em 0}summary{cursor:pointer}code{font-size:90%}"""


def render_html(report: dict[str, Any]) -> str:
    """A self-contained page (inline CSS, no scripts) a person can read."""
    e = html_lib.escape
    title = "veriweb verification report"
    parts = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{title}</title>"
             f"<style>{_STYLE}</style></head><body><h1>{title}</h1>",
             f"<p>{report['sites']} sites, mode <b>{e(report['mode'])}</b>, search budget {report['budget']} states."
             f"</p><h2>Raw and verified</h2><table><tr><th></th><th>raw</th><th>verified</th></tr>"]
    for name, raw, ver in summary_rows(report):
        parts.append(f"<tr><td>{e(name)}</td><td>{e(raw)}</td><td>{e(ver)}</td></tr>")
    parts.append("</table>")
    scores = report.get("scores")
    if scores:
        parts.append("<h2>Checks against the ground truth</h2><table><tr><th>check</th><th>finds</th><th>defects</th>"
                     "<th>found</th><th>recall</th><th>issues</th><th>precision</th></tr>")
        for code, s in scores.items():
            finds = report["checks"].get(code, {}).get("finds", "")
            parts.append(f"<tr><td>{e(code)}</td><td>{e(finds)}</td><td>{s['defects']}</td><td>{s['found']}</td>"
                         f"<td>{_pct(s['recall'])}</td><td>{s['issues']}</td><td>{_pct(s['precision'])}</td></tr>")
        parts.append("</table>")
    parts.append("<h2>Sites</h2>")
    for site in report["per_site"]:
        raw, ver = site["raw"], site.get("verified")
        status = f"<span class='bad'>dropped: {e(site['site_dropped'])}</span>" if site["site_dropped"] else (
            f"{ver['tasks']}/{raw['tasks']} tasks kept" if ver else f"{raw['feasible']}/{raw['tasks']} tasks feasible")
        parts.append(f"<details><summary><code>{e(site['file'])}</code> {e(site['name'])}: {raw['defects']} defects; "
                     f"{status}</summary><ul>")
        for issue in raw["issues"]:
            parts.append(f"<li>{e(issue['code'])} <code>{e(issue['location'])}</code>: {e(issue['message'])}</li>")
        parts.append("</ul>")
        if site["repairs"]:
            parts.append("<p>Repairs:</p><ul>")
            parts += [f"<li>{e(r['code'])} {e(r['operator'])} <code>{e(r['location'])}</code>: {e(r['change'])}</li>"
                      for r in site["repairs"]]
            parts.append("</ul>")
        if site["dropped_tasks"]:
            parts.append("<p>Tasks dropped:</p><ul>")
            parts += [f"<li><code>{e(t)}</code>: {e(why)}</li>" for t, why in site["dropped_tasks"].items()]
            parts.append("</ul>")
        parts.append("</details>")
    parts.append("</body></html>\n")
    return "".join(parts)


__all__ = ["build_report", "format_table", "render_html", "score_checks", "summary_rows", "write_report"]

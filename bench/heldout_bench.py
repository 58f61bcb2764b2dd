"""A second held-out set of defect edits, written apart from :mod:`veriweb.verify.mutations`.

Each edit breaks a clean generated site in a way neither the raw-mode injector nor the
out-of-model bench makes; the script reports, per edit, on how many sites it applied and how
many the static checks (or, with ``--dynamic``, the search on the edited task) caught.

    python bench/heldout_bench.py 5,6 --dynamic
"""

from __future__ import annotations

import copy
import re
import sys
from collections import Counter, defaultdict

from veriweb.errors import VeriwebError
from veriweb.generate.site import generate_site
from veriweb.scaffold.io import from_data, to_data
from veriweb.verify.checks import static_issues
from veriweb.verify.mutation_walk import elements, marker_forms, pk, record_pages, table


def _page(data, pid):
    return next(p for p in data["pages"] if p["id"] == pid)


def link_missing_row(d):
    rp = record_pages(d)
    for pid, (tname, col) in rp.items():
        t, _ = table(d, tname)
        if t is None or col != pk(t):
            continue
        page = _page(d, pid)
        route = re.sub(r"\{[^}]*\}", "987654", page["route"])
        home = d["pages"][0]
        home["elements"].append({"type": "link", "text": "Featured pick", "href": route})
        return f"$.pages[0].elements[{len(home['elements']) - 1}].href"


def negative_count(d):
    for ti, t in enumerate(d["database"]["tables"]):
        for c in t["columns"]:
            if c["name"] in ("stock", "seats", "seats_left", "quantity", "qty", "inventory", "balance") and t["rows"]:
                t["rows"][len(t["rows"]) // 2][c["name"]] = -4
                return f"$.database.tables[{ti}].rows[{len(t['rows']) // 2}].{c['name']}"


def duplicate_route(d):
    for i, p in enumerate(d["pages"]):
        if "{" not in p["route"] and p["route"] != "/" and not p.get("requires_login"):
            q = copy.deepcopy(p)
            q["id"] = p["id"] + "_copy"
            q["title"] = "Copy"
            d["pages"].append(q)
            return f"$.pages[{len(d['pages']) - 1}].route"


def start_url_missing(d):
    for i, t in enumerate(d["tasks"]):
        t["start_url"] = "/wlecome"
        return f"$.tasks[{i}].start_url"


def list_unknown_table(d):
    for node, path, _, _ in elements(d):
        if node.get("type") == "list" and path.startswith("$.pages"):
            node["query"]["table"] = node["query"]["table"].rstrip("s") + "_list"
            return path + ".query.table"


def goal_page_unknown(d):
    for i, t in enumerate(d["tasks"]):
        for j, g in enumerate(t.get("goal", [])):
            if g.get("kind") == "page":
                g["page"] = g["page"] + "_view"
                return f"$.tasks[{i}].goal[{j}].page"


def template_unknown_column(d):
    rp = record_pages(d)
    for pid in rp:
        pi = next(i for i, p in enumerate(d["pages"]) if p["id"] == pid)
        for node, path, _, bound in elements({"pages": d["pages"], "layout": {}}):
            if path.startswith(f"$.pages[{pi}].") and node.get("type") == "heading" and "{row." in node.get("text", ""):
                node["text"] = re.sub(r"\{row\.(\w+)", lambda m: "{row." + m.group(1) + "_name", node["text"], count=1)
                return path + ".text"


def empty_link_text(d):
    for node, path, _, _ in elements(d):
        if node.get("type") == "link" and path.startswith("$.layout") and node.get("text") and "{" not in node["text"]:
            if node["href"] == "/":
                continue
            node["text"] = ""
            return path + ".text"


def choice_not_offered(d):
    """A mutate task's slot value is not among the choices of the parameter it fills."""
    for i, t in enumerate(d["tasks"]):
        if t["kind"] != "mutate":
            continue
        for m in d["markers"]:
            for p in m.get("params", []):
                if p.get("choices") and any(v in p["choices"] for v in t["slots"].values() if isinstance(v, str)):
                    for k, v in t["slots"].items():
                        if v in p["choices"] and t["instruction"].count(v) == 1:
                            new = v + "X" if len(v) < 3 else v + " (special)"
                            t["slots"][k] = new
                            t["instruction"] = t["instruction"].replace(v, new)
                            _replace(t, v, new)
                            return f"$.tasks[{i}].slots.{k}"


def _replace(obj, old, new):
    """Every value equal to ``old`` anywhere in ``obj`` becomes ``new``."""
    pairs = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, list) else ()
    for key, value in list(pairs):
        if value == old:
            obj[key] = new
        else:
            _replace(value, old, new)


def qty_over_max(d):
    """A task asks for a quantity above the form parameter's max."""
    for i, t in enumerate(d["tasks"]):
        if t["kind"] != "mutate":
            continue
        for m in d["markers"]:
            for p in m.get("params", []):
                if p.get("max") is not None and p["type"] in ("integer", "number"):
                    for k, v in t["slots"].items():
                        if (
                            isinstance(v, int)
                            and not isinstance(v, bool)
                            and k in (p["name"], p["name"].replace("_id", ""))
                            or (isinstance(v, int) and k in ("qty", "quantity", "count", "guests", "nights"))
                        ):
                            new = int(p["max"]) + 5
                            t["slots"][k] = new
                            t["instruction"] = re.sub(rf"\b{v}\b", str(new), t["instruction"], count=1)
                            _replace(t.get("goal"), v, new)
                            return f"$.tasks[{i}].slots.{k}"


def login_form_removed(d):
    """The login page's form is gone while tasks need an account."""
    if not any(t.get("start_logged_in") is False for t in d["tasks"]) and not any(
        p.get("requires_login") for p in d["pages"]
    ):
        return None
    for node, path, _, _ in elements(d):
        if node.get("type") == "form" and node.get("action", {}).get("kind") == "login":
            node["action"] = {"kind": "logout"}
            node["submit"] = "Sign in"
            return path


def submit_empty(d):
    for form, path, _, m in marker_forms(d):
        form["submit"] = ""
        return path + ".submit"


def select_no_options(d):
    for m in d["markers"]:
        for p in m.get("params", []):
            if p.get("choices"):
                p["choices"] = []
                return "$.markers"


VARIANTS = [
    ("link_missing_row", link_missing_row, False),
    ("negative_count", negative_count, False),
    ("duplicate_route", duplicate_route, False),
    ("start_url_missing", start_url_missing, False),
    ("list_unknown_table", list_unknown_table, False),
    ("goal_page_unknown", goal_page_unknown, False),
    ("template_unknown_column", template_unknown_column, False),
    ("empty_link_text", empty_link_text, False),
    ("choice_not_offered", choice_not_offered, True),
    ("qty_over_max", qty_over_max, True),
    ("login_form_removed", login_form_removed, True),
    ("submit_empty", submit_empty, False),
    ("select_no_options", select_no_options, True),
]


def option_removed(d):
    """A static select option the instruction names is removed (the control offers no such value)."""
    nodes = [node for node, _, _, _ in elements(d)]
    controls = nodes + [f for node in nodes for f in node.get("fields", []) or []]  # widgets first, then fields
    for control in controls:
        if control.get("type") not in ("select", "radio") or not control.get("options"):
            continue
        for t_i, t in enumerate(d["tasks"]):
            vals = {str(v) for v in t.get("slots", {}).values()}
            for o_i, o in enumerate(control["options"]):
                if str(o.get("value")) in vals or str(o.get("label")) in vals:
                    del control["options"][o_i]
                    return f"$.tasks[{t_i}]"


def answer_null(d):
    """The row a retrieve task reads has its answer column emptied."""
    for t_i, t in enumerate(d["tasks"]):
        a = t.get("answer")
        if not a or not isinstance(a.get("value"), dict) or "query" not in a["value"]:
            continue
        q = a["value"]["query"]
        tbl, ti = table(d, q["table"])
        if tbl is None or not q.get("select"):
            continue
        conds = [
            (c, (t.get("slots", {}).get(v["ref"][5:]) if isinstance(v, dict) and "ref" in v else v))
            for c, v in [(c["column"], c.get("value")) for c in q.get("where", [])]
        ]
        for r_i, row in enumerate(tbl["rows"]):
            if conds and all(row.get(c) == v for c, v in conds) and row.get(q["select"]) not in (None, ""):
                nullable = next((col.get("nullable") for col in tbl["columns"] if col["name"] == q["select"]), False)
                row[q["select"]] = None if nullable else ""
                return f"$.tasks[{t_i}]"


def effect_noop(d):
    """A mutate task's marker effect can never touch a row (WHERE 0 = 1 appended)."""
    for t_i, t in enumerate(d["tasks"]):
        if t["kind"] != "mutate":
            continue
        tables = {g.get("query", {}).get("table") for g in t["goal"] if isinstance(g, dict)}
        for m in d["markers"]:
            for e in m.get("effects", []):
                if (
                    e["table"] in tables
                    and e["op"] == "update"
                    and " WHERE " in e["sql"].upper()
                    and len(m["effects"]) == 1
                ):
                    e["sql"] = e["sql"] + " AND 0 = 1"
                    return f"$.tasks[{t_i}]"


def task_user_missing(d):
    for t_i, t in enumerate(d["tasks"]):
        if t.get("user"):
            t["user"] = t["user"] + "_old"
            return f"$.tasks[{t_i}].user"


def href_hash(d):
    for node, path, _, _ in elements(d):
        if (
            node.get("type") == "link"
            and path.startswith("$.layout")
            and node.get("href", "").startswith("/")
            and node["href"] != "/"
        ):
            node["href"] = "#"
            return path + ".href"


def title_empty(d):
    for i, p in enumerate(d["pages"]):
        if p.get("title"):
            p["title"] = " "
            return f"$.pages[{i}].title"


VARIANTS += [
    ("option_removed", option_removed, True),
    ("answer_null", answer_null, True),
    ("effect_noop", effect_noop, True),
    ("task_user_missing", task_user_missing, True),
    ("href_hash", href_hash, False),
    ("title_empty", title_empty, False),
]


def main() -> None:
    """Apply every edit to seeds (first argument, comma-separated) of every domain; print the table."""
    seeds = [int(s) for s in sys.argv[1].split(",")] if len(sys.argv) > 1 else [5]
    dyn = "--dynamic" in sys.argv
    stats = defaultdict(lambda: {"applied": 0, "found": 0, "codes": Counter()})
    for domain in ("shop", "admin", "forum", "code", "travel", "mail"):
        for seed in seeds:
            site = generate_site(domain, seed)
            base = {(i.code, i.location) for i in static_issues(site)}
            if base:
                print("CLEAN ISSUES", domain, seed, base)
            data = to_data(site)
            for name, edit, dynamic in VARIANTS:
                m = copy.deepcopy(data)
                where = edit(m)
                if where is None:
                    continue
                st = stats[name]
                st["applied"] += 1
                try:
                    broken = from_data(m, check_id=False)
                except VeriwebError as exc:
                    st["found"] += 1
                    st["codes"]["load"] += 1
                    print(f"  {name} {domain}: load error {str(exc)[:100]}")
                    continue
                new = [i for i in static_issues(broken) if (i.code, i.location) not in base]
                if new:
                    st["found"] += 1
                    for c in {i.code for i in new}:
                        st["codes"][c] += 1
                    continue
                if dyn and where.startswith("$.tasks["):
                    from veriweb.verify.feasibility import verify_task

                    idx = int(re.match(r"\$\.tasks\[(\d+)\]", where).group(1))
                    v = verify_task(broken, broken.tasks[idx], budget=2000)
                    if v.status != "certified" or v.issues:
                        st["found"] += 1
                        st["codes"]["dyn:" + v.status] += 1
                        continue
                    print(f"  certified after the edit: {name} {domain}/{seed} {where}")
                print(f"  MISS {name} {domain}/{seed} {where}")
    tot_a = tot_f = 0
    for name, _, _ in VARIANTS:
        st = stats.get(name)
        if not st:
            print(f"{name:26} applies nowhere")
            continue
        tot_a += st["applied"]
        tot_f += st["found"]
        print(f"{name:26} {st['applied']:>3} {st['found']:>3}  {dict(st['codes'])}")
    print(f"total {tot_f}/{tot_a}")


if __name__ == "__main__":
    main()

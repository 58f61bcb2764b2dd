"""Out-of-model mutations of pages, forms, values, headings and tasks (see :mod:`veriweb.verify.mutations`).

Each edit breaks a clean site's JSON data in place and returns the JSON path of what it broke,
or ``None`` when the site offers nothing to break that way.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from veriweb.verify.mutation_walk import (
    Data,
    elements,
    marker_forms,
    parent_list,
    pk,
    record_pages,
    resolve,
    table,
    typo,
)

# ----------------------------------------------------------------------------- structural


def route_typo_fixed(data: Data) -> str | None:
    """A fixed link whose route has a typo in its static segment (``/cart`` -> ``/crat``)."""
    for node, path, _, _ in elements(data):
        href = node.get("href", "") if node.get("type") == "link" else ""
        segs = href.strip("/").split("/")
        if href.startswith("/") and "{" not in href and len(segs[0]) >= 4 and resolve(data, href):
            new = "/" + "/".join([typo(segs[0])] + segs[1:])
            if resolve(data, new) is None:
                node["href"] = new
                return f"{path}.href"
    return None


def route_typo_row(data: Data) -> str | None:
    """A row's link whose route has a typo in its static segment (``/product/{row.id}`` -> ``/prodcut/...``)."""
    for node, path, _, bound in elements(data):
        href = node.get("href", "") if node.get("type") == "link" else ""
        segs = href.strip("/").split("/")
        if bound and "{row." in href and len(segs) > 1 and len(segs[0]) >= 4 and resolve(data, href):
            new = "/" + "/".join([typo(segs[0])] + segs[1:])
            if resolve(data, new) is None:
                node["href"] = new
                return f"{path}.href"
    return None


def link_param_other_table(data: Data) -> str | None:
    """A row's link to a record page passing a foreign key of another table (``/orders/{row.user_id}``)."""
    pages = record_pages(data)
    for node, path, _, bound in elements(data):
        href = node.get("href", "") if node.get("type") == "link" else ""
        refs = re.findall(r"\{row\.(\w+)\}", href)
        dest = resolve(data, href) if refs else None
        if dest not in pages or bound is None:
            continue
        tbl, _ = table(data, bound)
        if tbl is None:
            continue
        target_table = pages[dest][0]
        for fk in tbl.get("foreign_keys", []):
            if fk["ref_table"] != target_table and fk["column"] != refs[0]:
                node["href"] = href.replace(f"{{row.{refs[0]}}}", f"{{row.{fk['column']}}}")
                return f"{path}.href"
    return None


def nav_label_other_page(data: Data) -> str | None:
    """A layout link named like another page (a link reading "Privacy" that opens the cart)."""
    titles = {p["id"]: p.get("title", "") for p in data["pages"]}
    layout_texts = {n.get("text") for n, _, page, _ in elements(data) if page is None and n.get("type") == "link"}

    def words(text: str) -> set[str]:
        return {w.rstrip("s") for w in re.findall(r"[a-z]+", text.casefold()) if len(w) > 2}

    for node, path, page, _ in elements(data):
        if page is not None or node.get("type") != "link" or "{" in node.get("href", "{"):
            continue
        dest = resolve(data, node["href"])
        if dest is None or node["href"] == "/":
            continue
        mine = words(titles.get(dest, "")) | words(node["href"]) | words(node.get("text", ""))
        for other in sorted(data["pages"], key=lambda p: p.get("title", "") in layout_texts):
            title = titles[other["id"]]
            if other["id"] != dest and title and "{" not in title and other["route"] != "/" \
                    and not words(title) & mine:
                node["text"] = title
                return f"{path}.text"
    return None


def self_linked_orphan(data: Data) -> str | None:
    """A page whose only link is on itself: every other link to it removed, one added on it."""
    for number, page in enumerate(data["pages"]):
        if "{" in page["route"] or page["route"] in ("/", "/login"):
            continue
        pointing = [(n, p) for n, p, _, _ in elements(data)
                    if n.get("type") == "link" and resolve(data, n.get("href", "")) == page["id"]]
        forms = [n for n, _, _, _ in elements(data) if n.get("type") == "form"
                 and page["id"] in (resolve(data, n.get("action", {}).get("route") or "//"),
                                    resolve(data, n.get("action", {}).get("redirect") or "//"))]
        if not pointing or forms:
            continue
        for _, path in sorted(pointing, key=lambda item: item[1], reverse=True):
            items, index = parent_list(data, path)
            items.pop(index)
        page["elements"].append({"type": "link", "text": page.get("title") or page["id"], "href": page["route"]})
        return f"$.pages[{number}]"
    return None


def field_renamed(data: Data) -> str | None:
    """A form field renamed with its argument (``body`` -> ``message``): the name matches no marker
    parameter and the required parameter gets no value."""
    for form, path, _, found in marker_forms(data):
        params = {p["name"]: p for p in found.get("params", [])}
        for arg, value in list(form["action"].get("args", {}).items()):
            param = params.get(arg)
            ref = value.get("ref", "") if isinstance(value, dict) else ""
            if param is None or not param.get("required", True) or not ref.startswith("field."):
                continue
            name = ref[6:]
            new = "message" if "message" not in params else "content_text"
            for field_el in form.get("fields", []):
                if field_el["name"] == name:
                    field_el["name"] = new
            form["action"]["args"].pop(arg)
            form["action"]["args"][new] = {"ref": f"field.{new}"}
            return f"{path}.action.args"
    return None


def _key_table(data: Data, found: Data, param: str) -> str | None:
    """The table a marker parameter names a row of: a precondition or effect comparing ``id`` with it."""
    sqls = [e["sql"] for e in found.get("effects", [])]
    for pre in found.get("preconditions", []):
        pred = pre.get("predicate", {})
        if pred.get("kind") == "sql":
            local = {k for k, v in pred.get("params", {}).items() if isinstance(v, dict)
                     and v.get("ref") == f"param.{param}"}
            sql = pred["sql"]
            for name in local:
                sql = sql.replace(f":{name}", f":{param}")
            sqls.append(sql)
    for sql in sqls:
        match = re.search(rf"FROM\s+(\w+)(?:\s+\w+)?\s+WHERE\s+(?:\w+\.)?id\s*=\s*:{param}\b", sql, re.I)
        if match:
            return match.group(1)
    stem = param[:-3] if param.endswith("_id") else ""
    for tbl in data["database"]["tables"]:
        if stem and tbl["name"].rstrip("s").startswith(stem.rstrip("s")) and tbl["name"].startswith(stem[:3]):
            return tbl["name"]
    return None


def select_missing_rows(data: Data) -> str | None:
    """A select whose options are ids missing from the table its marker looks them up in."""
    for form, path, _, found in marker_forms(data):
        for number, field_el in enumerate(form.get("fields", [])):
            if field_el.get("type") not in ("select", "radio"):
                continue
            arg = next((a for a, v in form["action"].get("args", {}).items()
                        if isinstance(v, dict) and v.get("ref") == f"field.{field_el['name']}"), None)
            target = _key_table(data, found, arg) if arg else None
            tbl = table(data, target)[0] if target else None
            if tbl is None or not tbl.get("rows"):
                continue
            top = max(r.get(pk(tbl)) or 0 for r in tbl["rows"])
            field_el.pop("options_query", None)
            field_el["options"] = [{"value": str(top + n), "label": f"Choice {n}"} for n in (11, 12, 13)]
            field_el.pop("value", None)
            return f"{path}.fields[{number}].options"
    return None


def hidden_stale_id(data: Data) -> str | None:
    """A form posting a fixed id (as a hidden input would) of a row that no longer exists."""
    for form, path, bound, found in marker_forms(data):
        for arg, value in list(form["action"].get("args", {}).items()):
            if not (isinstance(value, dict) and value.get("ref") == "row.id" and bound):
                continue
            tbl = table(data, bound)[0]
            if tbl is None or not tbl.get("rows"):
                continue
            form["action"]["args"][arg] = max(r.get(pk(tbl)) or 0 for r in tbl["rows"]) + 7
            return f"{path}.action.args.{arg}"
    return None


def form_arg_other_table(data: Data) -> str | None:
    """A form in a record posting a foreign key of another table where its marker wants the record's
    key (``order_id: row.user_id``)."""
    for form, path, bound, found in marker_forms(data):
        tbl = table(data, bound)[0] if bound else None
        if tbl is None:
            continue
        for arg, value in form["action"].get("args", {}).items():
            if not (isinstance(value, dict) and value.get("ref") == "row.id"):
                continue
            fks = [fk for fk in tbl.get("foreign_keys", []) if fk["ref_table"] != bound]
            if fks and _key_table(data, found, arg) == bound:
                form["action"]["args"][arg] = {"ref": f"row.{fks[0]['column']}"}
                return f"{path}.action.args.{arg}"
    return None


# ----------------------------------------------------------------------------- semantic


def _typed_cell(data: Data, kind: str, change: Callable[[Any], Any]) -> str | None:
    for t_index, tbl in enumerate(data["database"]["tables"]):
        for column in tbl["columns"]:
            if column["type"] != kind:
                continue
            for r_index, row in enumerate(tbl.get("rows", [])):
                if row.get(column["name"]) is not None:
                    row[column["name"]] = change(row[column["name"]])
                    return f"$.database.tables[{t_index}].rows[{r_index}].{column['name']}"
    return None


def money_with_unit(data: Data) -> str | None:
    """A money column holding text with a unit (``"12.50 USD"``)."""
    return _typed_cell(data, "money", lambda v: f"{v / 100:.2f} USD")


def real_as_text(data: Data) -> str | None:
    """A number column holding a number written as text with a unit (``"4.5 stars"``)."""
    return (_typed_cell(data, "real", lambda v: f"{v} stars")
            or _typed_cell(data, "integer", lambda v: f"{v} pcs"))


def date_other_format(data: Data) -> str | None:
    """A date written day first (``"09/03/2026"``)."""
    def swap(value: Any) -> Any:
        y, m, d = str(value)[:10].split("-")
        return f"{d}/{m}/{y}"
    return _typed_cell(data, "date", swap)


def _heading(data: Data, text: str) -> str | None:
    for node, path, page, _ in elements(data):
        if page is not None and node.get("type") == "heading" and "{" not in node.get("text", "{"):
            node["text"] = text
            return f"{path}.text"
    return None


def heading_lorem(data: Data) -> str | None:
    """A heading left as "Lorem ipsum"."""
    return _heading(data, "Lorem ipsum dolor")


def heading_todo(data: Data) -> str | None:
    """A heading left as "TODO: heading"."""
    return _heading(data, "TODO: write heading")


def heading_mustache(data: Data) -> str | None:
    """A heading left as an unrendered template ``{{title}}``."""
    return _heading(data, "{{title}}")


def heading_bare_template(data: Data) -> str | None:
    """A heading left as a one-brace template no renderer fills (``{page_title}``)."""
    return _heading(data, "{page_title}")


def heading_stub(data: Data) -> str | None:
    """A heading left as the authoring stub "Page title here"."""
    return _heading(data, "Page title here")


def empty_list_filter(data: Data) -> str | None:
    """A list filtered on a fixed value no row has (a status or colour misspelt: ``'actve'``)."""
    for node, path, _, _ in elements(data):
        if node.get("type") not in ("list", "table"):
            continue
        tbl = table(data, node["query"]["table"])[0]
        if tbl is None or len(tbl.get("rows", [])) < 5:
            continue
        where = node["query"].setdefault("where", [])
        for number, cond in enumerate(where):
            value = cond.get("value")
            if isinstance(value, str) and cond.get("op", "=") == "=":
                cond["value"] = typo(value)
                if all(r.get(cond["column"]) != cond["value"] for r in tbl["rows"]):
                    return f"{path}.query.where[{number}].value"
                cond["value"] = value
        for column in tbl["columns"]:
            values = sorted({r.get(column["name"]) for r in tbl["rows"] if isinstance(r.get(column["name"]), str)})
            if column["type"] == "text" and 2 <= len(values) <= 8 and len(values[0]) >= 4:
                where.append({"column": column["name"], "value": typo(values[0])})
                return f"{path}.query.where[{len(where) - 1}].value"
        if not where:
            node["query"].pop("where")
    return None


def task_slot_near_miss(data: Data) -> str | None:
    """A task's slot one typo away from the record it names (``Red Light Backpak``), preferring a
    record of a table some marker inserts into."""
    inserted = {e["table"] for m in data["markers"] for e in m.get("effects", []) if e["op"] == "insert"}
    corpus: dict[str, str] = {}
    for tbl in data["database"]["tables"]:
        for row in tbl.get("rows", []):
            for value in row.values():
                if isinstance(value, str) and len(value) >= 6:
                    corpus.setdefault(value, tbl["name"])
    best = None
    for number, task in enumerate(data["tasks"]):
        if task.get("kind") == "infeasible":
            continue
        for name, value in (task.get("slots") or {}).items():
            if isinstance(value, str) and value in corpus and " " in value and f"slot.{name}" in str(task):
                rank = 0 if corpus[value] in inserted else 1
                if best is None or rank < best[0]:
                    best = (rank, number, name, value)
    if best is None:
        return None
    _, number, name, value = best
    task = data["tasks"][number]
    words = value.split(" ")
    longest = max(range(len(words)), key=lambda i: len(words[i]))
    words[longest] = typo(words[longest])
    task["slots"][name] = " ".join(words)
    task["instruction"] = task["instruction"].replace(value, task["slots"][name])
    return f"$.tasks[{number}].slots.{name}"


def answer_unshown_column(data: Data) -> str | None:
    """A retrieve task whose answer reads a column no page shows (``users.password``)."""
    shown = set()
    for node, _, _, _ in elements(data):
        for key in ("text", "label", "title", "href"):
            shown.update(re.findall(r"\{row\.(\w+)", str(node.get(key, ""))))
        shown.update(re.findall(r"'ref': 'row\.(\w+)'", str(node)))  # a field filled from the row shows it
    for view in data["database"].get("views", []):
        shown.update(re.findall(r"\b\w+\.(\w+)", view["sql"]))  # a view may show it under its name
    for number, task in enumerate(data["tasks"]):
        answer = task.get("answer") or {}
        query = (answer.get("value") or {}).get("query") if isinstance(answer.get("value"), dict) else None
        if task.get("kind") != "retrieve" or not query or query.get("agg"):
            continue
        tbl = table(data, query["table"])[0]
        if tbl is None:
            continue
        hidden = [c["name"] for c in tbl["columns"] if c["name"] not in shown and c["name"] != query.get("select")
                  and c["type"] in ("text", "integer", "money") and not c["name"].endswith("_id")
                  and c["name"] != pk(tbl) and c["name"] != "password"]
        if hidden:
            query["select"] = hidden[0]
            return f"$.tasks[{number}].answer.value.query.select"
    return None


def goal_unknown_column(data: Data) -> str | None:
    """A goal condition on a column its table does not have (``colour`` for ``color``)."""
    for number, task in enumerate(data["tasks"]):
        for g_index, goal in enumerate(task.get("goal", [])):
            where = (goal.get("query") or {}).get("where") or []
            for c_index, cond in enumerate(where):
                if cond["column"] != "user_id":
                    cond["column"] = cond["column"] + "_name"
                    return f"$.tasks[{number}].goal[{g_index}].query.where[{c_index}].column"
    return None


def goal_sql_unknown_column(data: Data) -> str | None:
    """A goal written in SQL that names a column its table does not have."""
    for number, task in enumerate(data["tasks"]):
        for g_index, goal in enumerate(task.get("goal", [])):
            if goal.get("kind") == "sql":
                match = re.search(r"\b([a-z])\.(name|title|status|subject|created|date)\b", goal["sql"])
                if match:
                    goal["sql"] = goal["sql"].replace(match.group(0), match.group(0) + "_text", 1)
                    return f"$.tasks[{number}].goal[{g_index}].sql"
    return None


"""Out-of-model mutations: hand-written defect variants, independent of the raw-mode injector.

Each :class:`Variant` edits a clean site's JSON data in place the way a person or a one-pass
author might break it, differently from :mod:`veriweb.verify.injectors` (a typo in a route's
fixed segment rather than a made-up page, a foreign key left dangling by deleting the parent
row rather than by rewriting the child, a guard on the wrong parameter rather than no guard).
An edit returns the JSON path of what it broke, or ``None`` when the site offers nothing to
break that way. ``bench/outmodel_bench.py`` applies every variant to clean sites and reports
which check code finds it, and where; the checks never see this module.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from veriweb.engine.templates import Route

Data = dict[str, Any]
Edit = Callable[[Data], "str | None"]

_CHILD_KEYS = ("elements", "item", "items")


@dataclass(frozen=True)
class Variant:
    """One way of breaking a site.

    Attributes:
        name: short id of the variant.
        cls: the defect class it belongs to (structural, semantic, consistency, feasibility).
        what: what the edit does, for the report.
        edit: edits the data in place; returns the JSON path of the defect, or ``None``.
        dynamic: whether only the engine (a search) can be expected to find it.
    """

    name: str
    cls: str
    what: str
    edit: Edit
    dynamic: bool = False


# ----------------------------------------------------------------------------- walking the data


def elements(data: Data) -> Iterator[tuple[Data, str, int | None, str | None]]:
    """Every element of the layout and the pages: (node, JSON path, page index or None, bound table)."""
    def walk(items: list[Any], path: str, page: int | None, bound: str | None) -> Iterator[Any]:
        for index, node in enumerate(items):
            here = f"{path}[{index}]"
            yield node, here, page, bound
            inner = node["query"]["table"] if node.get("type") in ("list", "table", "record") else bound
            for key in _CHILD_KEYS:
                if isinstance(node.get(key), list):
                    yield from walk(node[key], f"{here}.{key}", page, inner)
            for number, tab in enumerate(node.get("tabs") or []):
                yield from walk(tab.get("elements", []), f"{here}.tabs[{number}].elements", page, inner)
            for number, column in enumerate(node.get("columns") or []):
                yield from walk(column.get("cell", []), f"{here}.columns[{number}].cell", page, inner)

    layout = data.get("layout", {})
    for part in ("header", "footer"):
        yield from walk(layout.get(part, []), f"$.layout.{part}", None, None)
    for number, page in enumerate(data["pages"]):
        yield from walk(page.get("elements", []), f"$.pages[{number}].elements", number, None)


def parent_list(data: Data, path: str) -> tuple[list[Any], int]:
    """The list holding the element at ``path`` and its index there."""
    steps = re.findall(r"\.([A-Za-z_]\w*)|\[(\d+)\]", path[1:])
    node: Any = data
    for key, index in steps[:-1]:
        node = node[key] if key else node[int(index)]
    return node, int(steps[-1][1])


def table(data: Data, name: str) -> tuple[Data, int] | tuple[None, None]:
    for index, item in enumerate(data["database"]["tables"]):
        if item["name"] == name:
            return item, index
    return None, None


def pk(tbl: Data) -> str:
    return tbl.get("primary_key", "id")


def routes(data: Data) -> list[Route]:
    return [Route.compile(p["id"], p["route"]) for p in data["pages"]]


def resolve(data: Data, href: str) -> str | None:
    path = re.sub(r"\{[^}]*\}", "1", href.split("?")[0]) or "/"
    for route in routes(data):
        if route.match(path) is not None:
            return route.page_id
    return None


def record_pages(data: Data) -> dict[str, tuple[str, str]]:
    """Page id -> (table, column) its record looks up by its one route parameter."""
    out = {}
    for page in data["pages"]:
        route = Route.compile(page["id"], page["route"])
        if len(route.params) != 1:
            continue
        ref = f"param.{route.params[0][0]}"
        for node, _, _, _ in elements({"pages": [page], "layout": {}}):
            if node.get("type") == "record":
                for cond in node["query"].get("where", []):
                    if isinstance(cond.get("value"), dict) and cond["value"].get("ref") == ref:
                        out.setdefault(page["id"], (node["query"]["table"], cond["column"]))
    return out


def marker(data: Data, name: str) -> Data | None:
    return next((m for m in data["markers"] if m["name"] == name), None)


def marker_forms(data: Data) -> Iterator[tuple[Data, str, str | None, Data]]:
    """Every form posting to an existing marker: (form, path, bound table, marker)."""
    for node, path, _, bound in elements(data):
        if node.get("type") == "form" and node.get("action", {}).get("kind") == "marker":
            found = marker(data, node["action"].get("marker", ""))
            if found is not None:
                yield node, path, bound, found


def typo(word: str) -> str:
    """Swap two letters in the middle of ``word`` (or drop one when they are the same)."""
    if len(word) < 4:
        return word + word[-1]
    middle = len(word) // 2
    a, b = word[middle - 1], word[middle]
    if a == b:
        return word[:middle] + word[middle + 1:]
    return word[:middle - 1] + b + a + word[middle + 1:]


def _ops(m: Data) -> set[str]:
    return {e["op"] for e in m.get("effects", [])}


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


# ----------------------------------------------------------------------------- labels


_DESTRUCTIVE_NAME = re.compile(r"delete|remove|cancel|trash|purge|archive|unsave|unstar|leave|close|refund", re.I)


def delete_label_on_update(data: Data) -> str | None:
    """A "Delete" button on a form whose marker only updates and does nothing destructive."""
    for form, path, _, found in marker_forms(data):
        if _ops(found) == {"update"} and not _DESTRUCTIVE_NAME.search(found["name"] + " ".join(
                e["sql"] for e in found["effects"])):
            form["submit"] = "Delete"
            return f"{path}.submit"
    return None


def opposite_label(data: Data) -> str | None:
    """A form labelled with the words of the marker that undoes its own (a "Remove" button that adds)."""
    forms = list(marker_forms(data))
    for form, path, _, found in forms:
        for other, _, _, other_marker in forms:
            if (other_marker["name"] != found["name"] and _ops(found) == {"insert"}
                    and "delete" in _ops(other_marker) and other["submit"] != form["submit"]):
                form["submit"] = other["submit"]
                return f"{path}.submit"
    return None


# ----------------------------------------------------------------------------- consistency


def delete_parent_row(data: Data) -> str | None:
    """Delete a referenced row of a parent table (the children now point at nothing), choosing the
    smallest parent table with children."""
    options = []
    for child in data["database"]["tables"]:
        for fk in child.get("foreign_keys", []):
            parent = table(data, fk["ref_table"])[0]
            if parent is not None and parent.get("rows") and child.get("rows"):
                options.append((len(parent["rows"]), parent["name"], child["name"], fk["column"]))
    for _, parent_name, child_name, column in sorted(options):
        parent, _ = table(data, parent_name)
        child, c_index = table(data, child_name)
        used = [(n, r[column]) for n, r in enumerate(child["rows"]) if r.get(column) is not None]
        if not used:
            continue
        r_index, value = used[-1]
        parent["rows"] = [r for r in parent["rows"] if r.get(pk(parent)) != value]
        return f"$.database.tables[{c_index}].rows[{r_index}].{column}"
    return None


def undeclared_dangling(data: Data) -> str | None:
    """A ``NAME_id`` column with its foreign key left undeclared, pointing at no row."""
    for c_index, child in enumerate(data["database"]["tables"]):
        for fk in list(child.get("foreign_keys", [])):
            parent = table(data, fk["ref_table"])[0]
            rows = [n for n, r in enumerate(child.get("rows", [])) if r.get(fk["column"]) is not None]
            if parent is None or not rows or not fk["column"].endswith("_id"):
                continue
            child["foreign_keys"] = [f for f in child["foreign_keys"] if f is not fk]
            if not child["foreign_keys"]:
                child.pop("foreign_keys")
            top = max(r.get(pk(parent)) or 0 for r in parent["rows"])
            child["rows"][rows[0]][fk["column"]] = top + 40
            return f"$.database.tables[{c_index}].rows[{rows[0]}].{fk['column']}"
    return None


_NATURAL = ("username", "sku", "email", "slug", "reference", "path", "code", "name")


def duplicate_natural_key(data: Data) -> str | None:
    """Two rows sharing a natural key nothing declares unique (a username, sku, email, slug)."""
    for wanted in _NATURAL:
        for t_index, tbl in enumerate(data["database"]["tables"]):
            column = next((c for c in tbl["columns"] if c["name"] == wanted and not c.get("unique")), None)
            rows = tbl.get("rows", [])
            if column is None or len(rows) < 3 or any("user_id" == c["name"] for c in tbl["columns"]):
                continue
            values = [r.get(wanted) for r in rows]
            if len(set(values)) != len(values):
                continue
            rows[2][wanted] = rows[1][wanted]
            return f"$.database.tables[{t_index}].rows[2].{wanted}"
    return None


def missing_primary_key(data: Data) -> str | None:
    """A seed row with no primary key value."""
    for t_index, tbl in enumerate(data["database"]["tables"]):
        if len(tbl.get("rows", [])) >= 3:
            tbl["rows"][1].pop(pk(tbl), None)
            return f"$.database.tables[{t_index}].rows[1].{pk(tbl)}"
    return None


def line_changed_not_total(data: Data) -> str | None:
    """An order line's quantity changed while its order's stored total stays (a total that disagrees
    with its lines, made from the line side)."""
    for tbl in data["database"]["tables"]:
        if not any(c["name"] == "total" and c["type"] == "money" for c in tbl["columns"]):
            continue
        for l_index, lines in enumerate(data["database"]["tables"]):
            fk = next((f for f in lines.get("foreign_keys", []) if f["ref_table"] == tbl["name"]), None)
            qty = next((c["name"] for c in lines["columns"] if c["name"] in ("qty", "quantity")), None)
            if fk is None or qty is None or not lines.get("rows"):
                continue
            row = lines["rows"][0]
            row[qty] = row[qty] + 2
            return f"$.database.tables[{l_index}].rows[0].{qty}"
    return None


def line_price_differs(data: Data) -> str | None:
    """An order line charged at another price than its product's page shows, its order's total made
    to agree with the line (so only the price shown on two pages disagrees)."""
    for l_index, lines in enumerate(data["database"]["tables"]):
        price = next((c["name"] for c in lines["columns"] if c["type"] == "money"), None)
        qty = next((c["name"] for c in lines["columns"] if c["name"] in ("qty", "quantity")), None)
        item_fk = next((f for f in lines.get("foreign_keys", []) if any(
            c["name"] == price for c in (table(data, f["ref_table"])[0] or {"columns": []})["columns"])), None)
        order_fk = next((f for f in lines.get("foreign_keys", []) if f is not item_fk), None)
        if not (price and qty and item_fk and order_fk and lines.get("rows")):
            continue
        row = lines["rows"][0]
        row[price] += 1000
        order_tbl = table(data, order_fk["ref_table"])[0]
        for order in order_tbl.get("rows", []):
            if order.get(pk(order_tbl)) == row[order_fk["column"]] and isinstance(order.get("total"), int):
                order["total"] += 1000 * row[qty]
        return f"$.database.tables[{l_index}].rows[0].{price}"
    return None


def total_ignores_quantity(data: Data) -> str | None:
    """A stored booking total that charges one unit where the row books several (``total`` =
    price, not passengers x price), on a table whose row points at a priced row."""
    for t_index, tbl in enumerate(data["database"]["tables"]):
        if not any(c["name"] == "total" for c in tbl["columns"]):
            continue
        counts = [c["name"] for c in tbl["columns"] if c["type"] == "integer" and c["name"] != pk(tbl)
                  and not c["name"].endswith("_id")]
        for fk in tbl.get("foreign_keys", []):
            parent = table(data, fk["ref_table"])[0]
            if parent is None or not any(c["name"] == "price" for c in parent["columns"]):
                continue
            prices = {r.get(pk(parent)): r.get("price") for r in parent["rows"]}
            for r_index, row in enumerate(tbl.get("rows", [])):
                for count in counts:
                    unit = prices.get(row.get(fk["column"]))
                    if isinstance(unit, int) and row.get(count, 0) >= 2 and row.get("total") == row[count] * unit:
                        row["total"] = unit
                        return f"$.database.tables[{t_index}].rows[{r_index}].total"
    return None


def counter_guard_other_column(data: Data) -> str | None:
    """A marker decrementing a counter whose check guards another column of the table (``price < 0``
    where ``seats`` is what goes down)."""
    for m_index, found in enumerate(data["markers"]):
        for effect in found.get("effects", []):
            match = re.search(r"\b(\w+)\s*=\s*\1\s*-", effect["sql"])
            tbl = table(data, effect["table"])[0]
            if not match or tbl is None:
                continue
            column = match.group(1)
            others = [c["name"] for c in tbl["columns"] if c["type"] in ("integer", "money", "real")
                      and c["name"] not in (column, pk(tbl)) and not c["name"].endswith("_id")]
            for kind in ("preconditions", "invariants"):
                for number, check in enumerate(found.get(kind, [])):
                    pred = check.get("predicate", {})
                    sql = pred.get("sql", "")
                    if others and re.search(rf"\b{column}\b", sql):
                        pred["sql"] = re.sub(rf"\b{column}\b", others[0], sql)
                        return f"$.markers[{m_index}].{kind}[{number}]"
    return None


def param_set_unbounded(data: Data) -> str | None:
    """A marker setting a count from a parameter with no lower bound and no check on it (stock
    set to whatever is typed, ``-5`` included)."""
    for m_index, found in enumerate(data["markers"]):
        for effect in found.get("effects", []):
            for column, param in re.findall(r"\b(\w+)\s*=\s*:(\w+)", effect["sql"]):
                tbl = table(data, effect["table"])[0]
                spec = next((p for p in found.get("params", []) if p["name"] == param), None)
                col = next((c for c in (tbl or {"columns": []})["columns"] if c["name"] == column), None)
                if spec is None or col is None or col["type"] not in ("integer", "money") or column == pk(tbl) \
                        or column.endswith("_id") or spec.get("choices"):
                    continue
                if not all(isinstance(r.get(column), int) and r[column] >= 0 for r in tbl.get("rows", [])):
                    continue
                spec.pop("min", None)
                for kind in ("preconditions", "invariants"):
                    for check in found.get(kind, []):
                        pred = check.get("predicate", {})
                        if "sql" in pred:
                            pred["sql"] = re.sub(rf"\b{column}\s*<\s*0\s*OR\s*|\s*OR\s*{column}\s*<\s*0", "",
                                                 pred["sql"])
                    found[kind] = [c for c in found.get(kind, []) if not re.search(
                        rf"\b{column}\b|:{param}\b|param\.{param}\b", str(c))]
                return f"$.markers[{m_index}].params[{found['params'].index(spec)}]"
    return None


def date_guard_wrong_param(data: Data) -> str | None:
    """A booking marker whose only check on its first date orders it before the second (check-out
    after check-in) and never against today: a stay can start in the past."""
    for m_index, found in enumerate(data["markers"]):
        dates = [p["name"] for p in found.get("params", []) if p["type"] in ("date", "datetime")]
        if len(dates) < 2:
            continue
        first = dates[0]
        for kind in ("preconditions", "invariants"):
            found[kind] = [c for c in found.get(kind, []) if f"param.{first}" not in str(c)
                           and f":{first}" not in str(c)]
        found.setdefault("preconditions", []).append({
            "predicate": {"kind": "sql", "sql": f"SELECT :{dates[1]} > :{first}"},
            "message": "Check-out must be after check-in."})
        return f"$.markers[{m_index}]"
    return None


def no_date_guard(data: Data) -> str | None:
    """A booking marker with every date guard dropped (the injector's kind, for comparison)."""
    for m_index, found in enumerate(data["markers"]):
        dates = [p["name"] for p in found.get("params", []) if p["type"] in ("date", "datetime")]
        if not dates:
            continue
        for kind in ("preconditions", "invariants"):
            found[kind] = [c for c in found.get(kind, []) if not any(d in str(c) for d in dates)]
        return f"$.markers[{m_index}]"
    return None


# ----------------------------------------------------------------------------- tasks


def constraint_weaker_goal(data: Data) -> str | None:
    """A mutate task forbidding any row like the one its goal asks for (the goal's query with
    fewer conditions): the goal implies the constraint."""
    for number, task in enumerate(data["tasks"]):
        if task.get("kind") != "mutate":
            continue
        for goal in task.get("goal", []):
            query = goal.get("query")
            if goal.get("kind") == "exists" and not goal.get("negate") and query and len(query.get("where", [])) >= 2:
                weaker = {"table": query["table"], "where": query["where"][:1]}
                task.setdefault("constraints", []).append(
                    {"description": "nothing new is written", "predicate": {"kind": "exists", "query": weaker}})
                return f"$.tasks[{number}].constraints[{len(task['constraints']) - 1}]"
    return None


def constraint_forbids_page(data: Data) -> str | None:
    """A mutate task forbidding the only page whose form can make its goal true."""
    forms: dict[str, set[int]] = {}
    for node, path, page, _ in elements(data):
        if node.get("type") == "form" and node.get("action", {}).get("kind") == "marker" and page is not None:
            forms.setdefault(node["action"]["marker"], set()).add(page)
    for number, task in enumerate(data["tasks"]):
        if task.get("kind") != "mutate":
            continue
        goals = [g["query"] for g in task.get("goal", []) if g.get("kind") == "exists" and not g.get("negate")]

        def may_make(effect: Data) -> bool:  # an insert into a goal's table, or an update of a column it names
            return any(effect["table"] == q["table"] and (effect["op"] == "insert" or effect["op"] == "update" and any(
                re.search(rf"\b{c['column']}\s*=", effect["sql"].split("WHERE")[0]) for c in q.get("where", [])))
                for q in goals)
        writers = [m["name"] for m in data["markers"] if any(may_make(e) for e in m.get("effects", []))]
        pages = {p for name in writers for p in forms.get(name, set())}
        if len(pages) == 1:
            (page,) = pages
            if "{" in data["pages"][page]["route"]:
                continue
            task.setdefault("constraints", []).append(
                {"description": "stay away from that page",
                 "predicate": {"kind": "page", "page": data["pages"][page]["id"]}})
            return f"$.tasks[{number}].constraints[{len(task['constraints']) - 1}]"
    return None


VARIANTS: list[Variant] = [
    Variant("route_typo_fixed", "structural", "fixed link, typo in a static route segment", route_typo_fixed),
    Variant("route_typo_row", "structural", "row link, typo in a static route segment", route_typo_row),
    Variant("link_param_other_table", "structural", "row link passes another table's foreign key",
            link_param_other_table),
    Variant("nav_label_other_page", "semantic", "layout link named like another page", nav_label_other_page),
    Variant("self_linked_orphan", "structural", "page linked only from itself", self_linked_orphan),
    Variant("field_renamed", "structural", "field and argument renamed: no parameter, required one unfilled",
            field_renamed),
    Variant("select_missing_rows", "structural", "select offering ids missing from the marker's table",
            select_missing_rows),
    Variant("hidden_stale_id", "structural", "form posts a fixed id of a row that does not exist", hidden_stale_id),
    Variant("form_arg_other_table", "structural", "form posts another table's key where its marker wants "
            "the record's", form_arg_other_table),
    Variant("money_with_unit", "semantic", "money value '12.50 USD'", money_with_unit),
    Variant("number_as_text", "semantic", "number with a unit as text ('4.5 stars')", real_as_text),
    Variant("date_other_format", "semantic", "date as DD/MM/YYYY", date_other_format),
    Variant("heading_lorem", "semantic", "heading 'Lorem ipsum dolor'", heading_lorem),
    Variant("heading_todo", "semantic", "heading 'TODO: write heading'", heading_todo),
    Variant("heading_mustache", "semantic", "heading '{{title}}'", heading_mustache),
    Variant("heading_bare_template", "semantic", "heading '{page_title}'", heading_bare_template),
    Variant("heading_stub", "semantic", "heading 'Page title here'", heading_stub),
    Variant("empty_list_filter", "semantic", "list filtered on a misspelt fixed value no row has",
            empty_list_filter),
    Variant("slot_near_miss", "semantic", "task slot one typo from the record it names", task_slot_near_miss),
    Variant("answer_unshown_column", "semantic", "retrieve answer from a column no page shows",
            answer_unshown_column),
    Variant("goal_unknown_column", "structural", "goal condition on a column that does not exist",
            goal_unknown_column),
    Variant("goal_sql_unknown_column", "structural", "SQL goal naming a column that does not exist",
            goal_sql_unknown_column),
    Variant("delete_label_on_update", "semantic", "'Delete' on an update-only, non-destructive marker",
            delete_label_on_update),
    Variant("opposite_label", "semantic", "an adding form labelled like the removing one", opposite_label),
    Variant("delete_parent_row", "consistency", "parent row deleted, children dangle", delete_parent_row),
    Variant("undeclared_dangling", "consistency", "undeclared NAME_id points at no row", undeclared_dangling),
    Variant("duplicate_natural_key", "consistency", "two rows share a username/sku/email/... not declared unique",
            duplicate_natural_key),
    Variant("missing_primary_key", "consistency", "seed row without a primary key", missing_primary_key),
    Variant("line_changed_not_total", "consistency", "a line's quantity changed, its order total not",
            line_changed_not_total),
    Variant("line_price_differs", "consistency", "a line's price differs from its product's, total agrees",
            line_price_differs),
    Variant("total_ignores_quantity", "consistency", "booking total = one unit's price for several",
            total_ignores_quantity),
    Variant("counter_guard_other_column", "consistency", "decrement guarded by a check on another column",
            counter_guard_other_column),
    Variant("param_set_unbounded", "consistency", "count set from a parameter with no lower bound or check",
            param_set_unbounded),
    Variant("date_guard_wrong_param", "consistency", "date guard orders the dates, never compares with today",
            date_guard_wrong_param),
    Variant("no_date_guard", "consistency", "booking marker with no date guard", no_date_guard),
    Variant("constraint_weaker_goal", "feasibility", "constraint forbids any row like the goal's",
            constraint_weaker_goal),
    Variant("constraint_forbids_page", "feasibility", "constraint forbids the only page with the goal's form",
            constraint_forbids_page, dynamic=True),
]
"""Every variant, in report order."""

EXPECTED: dict[str, str] = {
    "route_typo_fixed": "S001", "route_typo_row": "S001", "link_param_other_table": "S011",
    "nav_label_other_page": "M014", "self_linked_orphan": "S002", "field_renamed": "S004",
    "select_missing_rows": "S015", "hidden_stale_id": "S015", "form_arg_other_table": "S011",
    "money_with_unit": "M004", "number_as_text": "M004", "date_other_format": "M004", "heading_lorem": "M001",
    "heading_todo": "M001", "heading_mustache": "M001", "heading_bare_template": "M001", "heading_stub": "M001",
    "empty_list_filter": "M015", "slot_near_miss": "M005", "answer_unshown_column": "M013",
    "goal_unknown_column": "S006", "goal_sql_unknown_column": "S006", "delete_label_on_update": "M003",
    "opposite_label": "M003", "delete_parent_row": "C001", "undeclared_dangling": "C001",
    "duplicate_natural_key": "C002", "missing_primary_key": "C003", "line_changed_not_total": "C004",
    "line_price_differs": "C006", "total_ignores_quantity": "C004", "counter_guard_other_column": "C005",
    "param_set_unbounded": "C005", "date_guard_wrong_param": "C005", "no_date_guard": "C005",
    "constraint_weaker_goal": "C007", "constraint_forbids_page": "C007",
}
"""The check code each variant belongs to (the one that should report it)."""


__all__ = ["EXPECTED", "VARIANTS", "Variant", "elements", "typo"]

"""Out-of-model mutations of labels, keys, totals, marker guards and constraints (see :mod:`veriweb.verify.mutations`).

Each edit breaks a clean site's JSON data in place and returns the JSON path of what it broke,
or ``None`` when the site offers nothing to break that way.
"""

from __future__ import annotations

import re

from veriweb.verify.mutation_walk import (
    Data,
    elements,
    marker_forms,
    ops,
    pk,
    table,
)

# ----------------------------------------------------------------------------- labels


_DESTRUCTIVE_NAME = re.compile(r"delete|remove|cancel|trash|purge|archive|unsave|unstar|leave|close|refund", re.I)


def delete_label_on_update(data: Data) -> str | None:
    """A "Delete" button on a form whose marker only updates and does nothing destructive."""
    for form, path, _, found in marker_forms(data):
        if ops(found) == {"update"} and not _DESTRUCTIVE_NAME.search(found["name"] + " ".join(
                e["sql"] for e in found["effects"])):
            form["submit"] = "Delete"
            return f"{path}.submit"
    return None


def opposite_label(data: Data) -> str | None:
    """A form labelled with the words of the marker that undoes its own (a "Remove" button that adds)."""
    forms = list(marker_forms(data))
    for form, path, _, found in forms:
        for other, _, _, other_marker in forms:
            if (other_marker["name"] != found["name"] and ops(found) == {"insert"}
                    and "delete" in ops(other_marker) and other["submit"] != form["submit"]):
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


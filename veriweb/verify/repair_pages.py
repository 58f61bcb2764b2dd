"""Repair operators for the page and data checks (S012-S014, M009-M012, M015, C008-C010).

Same contract as :mod:`veriweb.verify.repair`: an operator takes the site's JSON data (a
private copy), the issue and the :class:`~veriweb.verify.repair.Context`, edits the data in
place and returns ``(change, touch)``, or ``None`` when no safe fix exists. Issues with no safe
fix (two controls with one label, an unobservable write no record page can show) are left for a
person: :func:`leave` says so, rather than letting a fallback remove a whole form.
"""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Iterator
from typing import Any

from veriweb.verify import dataflow
from veriweb.verify import repair as R
from veriweb.verify.checks import Issue
from veriweb.verify.form_fields import humanise
from veriweb.verify.repair_links import json_dicts


def leave(data: dict[str, Any], issue: Issue, ctx: R.Context) -> R.Outcome | None:
    """M011: a field labelled with another field's name swaps labels with that field, as do two tabs each
    named for the other's content; a confirmation dialog whose two buttons share a label gets the
    form's own verb on its go-ahead button; a sort sharing another sort's key gets a key of its own;
    otherwise no edit of the data is safe (what to rename is a design choice)."""
    named = re.search(r"labels its field '(\w+)' .*, the name of its field '(\w+)'", issue.message)
    tokens = R.parse_path(issue.location)
    keyed = re.search(r"never sorts as it says; its key should be '(\w+)'$", issue.message)
    if keyed is not None and tokens[-1] == "key":  # a sort sharing another's key: a key of its own
        sort = R.get_at(data, tokens[:-1])
        if not isinstance(sort, dict):
            return None
        old, sort["key"] = sort.get("key"), keyed.group(1)
        return f"sort {sort.get('label', '')!r}: key {old!r} -> {keyed.group(1)!r}", R.Touch(pages=R._page_of(tokens, data))
    if tokens[-2:] == ["confirm", "confirm"]:  # a dialog's two buttons labelled alike: go-ahead says the form's verb
        form = R.get_at(data, tokens[:-2])
        dialog = form.get("confirm") if isinstance(form, dict) else None
        if not isinstance(dialog, dict):
            return None
        cancel = str(dialog.get("cancel", "Cancel")).strip().casefold()
        old = dialog.get("confirm", "Confirm")
        dialog["confirm"] = next(label for label in (form.get("submit", ""), "Confirm", "Yes")
                                 if label.strip() and label.strip().casefold() != cancel)
        return f"dialog's go-ahead button {old!r} -> {dialog['confirm']!r}", R.Touch(pages=R._page_of(tokens, data))
    tabbed = re.search(r"while tab '([^']*)' holds what '([^']*)' names: the two labels", issue.message)
    if tabbed is not None and tokens[-3:-2] == ["tabs"]:  # two tabs named for each other's content: swapped back
        tabs = R.get_at(data, tokens[:-2])
        other = next((t for t in tabs if t.get("label") == tabbed.group(1)), None) if isinstance(tabs, list) else None
        mine = tabs[tokens[-2]] if other is not None else None
        if mine is None or mine.get("label") != tabbed.group(2):
            return None
        mine["label"], other["label"] = other["label"], mine["label"]
        return f"tabs {other['label']!r} and {mine['label']!r}: labels swapped", R.Touch(pages=R._page_of(tokens, data))
    linked = re.search(r"the links cannot be told apart; the name ('.*'|\".*\") should be the link$", issue.message)
    if linked is not None and tokens[-3:-2] == ["item"]:  # a fixed word linking every row: the name is the link
        import ast

        items, name = R.get_at(data, tokens[:-2]), ast.literal_eval(linked.group(1))
        link = items[tokens[-2]] if isinstance(items, list) else None
        text = next((e for e in items if e.get("type") == "text" and e.get("text", "").strip() == name), None) \
            if isinstance(items, list) else None
        if not isinstance(link, dict) or text is None:
            return None
        old, link["text"] = link.get("text"), name
        items.remove(text)
        return f"the rows link by {name!r}, not {old!r}", R.Touch(pages=R._page_of(tokens, data))
    if issue.message.endswith("nothing says which one holds what") and tokens[-3:-2] == ["tabs"]:
        return _relabel_tab(data, tokens)
    if issue.message.endswith("nothing says which one is which") and tokens[-3:-2] == ["options"]:
        option, options = R.get_at(data, tokens[:-1]), R.get_at(data, tokens[:-2])
        if not isinstance(option, dict) or not isinstance(options, list):
            return None
        label = humanise(str(option.get("value", "")))
        if any(str(o.get("label", "")).strip().casefold() == label.casefold() for o in options):
            label = f"{option.get('label', '')} ({option.get('value', '')})"  # its value beside the shared label
        old, option["label"] = option.get("label"), label
        return f"option {option.get('value')!r}: label {old!r} -> {label!r}", R.Touch(pages=R._page_of(tokens, data))
    if named is None or tokens[-1] != "label":
        return None
    fields = R.get_at(data, tokens[:-2])
    mine = fields[tokens[-2]]
    other = next((f for f in fields if f.get("name") == named.group(2)), None)
    if other is None or mine.get("name") != named.group(1):
        return None
    mine["label"], other["label"] = other.get("label", ""), mine.get("label", "")
    return (f"fields {named.group(1)!r} and {named.group(2)!r}: labels swapped ({mine['label']!r}, {other['label']!r})",
            R.Touch(pages=R._page_of(tokens, data)))


def _relabel_tab(data: dict[str, Any], tokens: list[str | int]) -> R.Outcome | None:
    """A tab labelled like an earlier tab of its widget takes the name of what it holds: its first
    heading, else the button of its first form."""
    tabs, tab = R.get_at(data, tokens[:-2]), R.get_at(data, tokens[:-1])
    if not isinstance(tabs, list) or not isinstance(tab, dict):
        return None
    said = next((d.get("text", "") for d in json_dicts(tab.get("elements", [])) if d.get("type") == "heading"), "") or \
        next((d.get("submit", "") for d in json_dicts(tab.get("elements", [])) if d.get("type") == "form"), "")
    taken = {str(t.get("label", "")).strip().casefold() for t in tabs}
    if "{" in said or not said.strip() or said.strip().casefold() in taken:  # nothing that names it: its number
        said = f"{tab.get('label', 'Tab')} ({tokens[-2] + 1})"
    old, tab["label"] = tab.get("label"), said.strip()
    return f"tab {old!r} -> {tab['label']!r}, what it holds", R.Touch(pages=R._page_of(tokens, data))


def _records(elements: list[Any], table: str) -> Iterator[dict[str, Any]]:
    """Records (one row shown) bound to ``table`` itself, anywhere in ``elements``, in page order."""
    for element in elements:
        if not isinstance(element, dict):
            continue
        if element.get("type") == "record" and element.get("query", {}).get("table") == table:
            yield element
        for attr in ("elements", "item", "items"):
            yield from _records(element.get(attr) or [], table)
        for tab in element.get("tabs") or []:
            yield from _records(tab.get("elements") or [], table)


def show_column(data: dict[str, Any], issue: Issue, ctx: R.Context) -> R.Outcome | None:
    """M010: a column a marker changes and no page shows is shown where one row of its table is,
    as ``Stock: {row.stock}``: in the first record bound to the table, one looked up by its key from
    the route (a detail page) first, after the texts it opens with, so the agent can see the change
    the marker makes.

    The value shown is the row's own (a money column through the money filter), read when the
    page is built, so the page stays true after every write. A table no record shows (only lists,
    or views) gets nothing: which list should grow a column is a design choice, so the issue stays.
    """
    from veriweb.verify.checks_pages import shown_columns

    tokens = R.parse_path(issue.location)
    if len(tokens) != 4 or tokens[0] != "markers" or tokens[2] != "effects":
        return None
    try:
        marker = data["markers"][tokens[1]]
        effect = marker["effects"][tokens[3]]
    except (IndexError, KeyError, TypeError):
        return None
    table = R._table(data, effect.get("table", ""))
    write = dataflow.parse_effect(marker["name"], effect["op"], effect["table"], effect.get("sql", ""))
    if table is None or write.op != "update" or not write.columns:
        return None
    shown = shown_columns(R.site_of(data))
    kinds = {c["name"]: c.get("type") for c in table["columns"]}
    hidden = sorted(c for c in write.columns if c in kinds and (table["name"], c) not in shown)
    if not hidden:
        return None
    key = table.get("primary_key", "id")

    def by_key(record: dict[str, Any]) -> bool:  # a detail page: the record is looked up by its key
        return any(c.get("column") == key and str((c.get("value") or {}).get("ref", "")).startswith("param.")
                   for c in record["query"].get("where", []) if isinstance(c.get("value"), dict))

    places = [(page, record) for page in data["pages"] for record in _records(page.get("elements", []), table["name"])]
    for page, record in sorted(places, key=lambda place: not by_key(place[1]))[:1]:
        elements = record.setdefault("elements", [])
        at = 0  # after the heading and texts the record opens with (name, price, ...)
        while at < len(elements) and isinstance(elements[at], dict) and elements[at].get("type") in ("heading", "text"):
            at += 1
        texts = [{"type": "text", "text": f"{humanise(c)}: {{row.{c}{'|money' if kinds[c] == 'money' else ''}}}"}
                 for c in hidden]
        elements[at:at] = texts
        shown_as = ", ".join(repr(t["text"]) for t in texts)
        return f"page {page['id']!r} shows {shown_as}", R.Touch(pages={page["id"]})
    return None


def _text_at(data: dict[str, Any], issue: Issue) -> tuple[list[str | int], dict[str, Any], str] | None:
    tokens = R.parse_path(issue.location)
    parent = R.get_at(data, tokens[:-1])
    attr = tokens[-1]
    if not isinstance(parent, dict) or not isinstance(attr, str) or not isinstance(parent.get(attr), str):
        return None
    return tokens, parent, attr


def bind_amount(data: dict[str, Any], issue: Issue, ctx: R.Context) -> R.Outcome | None:
    """M009: the typed-in amount is replaced by the row's money column (the only one, or the one the
    text's label names); a typed-in value of the column the text names, by that column."""
    from veriweb.verify.checks_pages import literal_amounts

    found = _text_at(data, issue)
    if found is None:
        return None
    tokens, parent, attr = found
    site = R.site_of(data)
    fixed_value = re.search(r"shows the fixed (\w+) '([^']*)' for every row", issue.message)
    if fixed_value is not None:  # "Status: Processing": the row's own status
        column, value = fixed_value.groups()
        text = parent[attr]
        parent[attr] = text.replace(value, f"{{row.{column}}}", 1)
        return f"{attr} {text!r} -> {parent[attr]!r}", R.Touch(pages=R._page_of(tokens, data))
    for path, ref_attr, text, amount, money in literal_amounts(site):
        if f"{path}.{ref_attr}" != issue.location:
            continue
        label = text.split(amount, 1)[0].casefold()
        named = [c for c in sorted(money) if c.replace("_", " ") in label]
        column = next(iter(money)) if len(money) == 1 else (named[0] if len(named) == 1 else None)
        if column is None:
            return None
        parent[attr] = text.replace(amount, f"{{row.{column}|money}}", 1)
        return f"{attr} {text!r} -> {parent[attr]!r}", R.Touch(pages=R._page_of(tokens, data))
    return None


def rebind_reference(data: dict[str, Any], issue: Issue, ctx: R.Context) -> R.Outcome | None:
    """S012: a ``{row.X}`` naming a column its row lacks is renamed to the closest column it has; a guard
    reading a parameter its marker does not take reads the closest one it takes; a reference with nothing
    to read (no row, no such route parameter) loses its element."""
    from veriweb.verify.checks_pages import bound_elements, source_columns

    if issue.message.endswith("it should require a login"):  # a page of the user's own rows, open to everyone
        page = R.get_at(data, R.parse_path(issue.location)[:2])
        if not isinstance(page, dict) or page.get("requires_login"):
            return None
        page["requires_login"] = True
        return f"page {page['id']!r} requires a login", R.Touch(pages={page["id"]})
    sent = re.search(r"; it should read query\.(\w+)$", issue.message)
    if sent is not None and issue.location.endswith(".value"):  # a field showing a parameter its form never sends
        tokens = R.parse_path(issue.location)
        holder = R.get_at(data, tokens[:-1])
        if not isinstance(holder, dict) or not isinstance(holder.get("value"), dict):
            return None
        old, holder["value"] = holder["value"].get("ref"), {"ref": f"query.{sent.group(1)}"}
        return f"field {holder.get('name')!r} shows query.{sent.group(1)}, not {old}", R.Touch(pages=R._page_of(tokens, data))
    meant = re.search(r"; it should read param\.(\w+)$", issue.message)
    if meant is not None and issue.location.startswith("$.markers"):  # a guard reading a parameter its marker lacks,
        tokens = R.parse_path(issue.location)  # or the user's id where it means a key the marker takes
        holder, marker = R.get_at(data, tokens[:-1]), R.get_at(data, tokens[:2])
        old = holder.get(tokens[-1]) if isinstance(holder, dict) else None
        if not isinstance(old, dict) or old == {"ref": f"param.{meant.group(1)}"}:
            return None
        holder[tokens[-1]] = {"ref": f"param.{meant.group(1)}"}
        return (f"marker {marker['name']!r}: a check reads param.{meant.group(1)}, not {old.get('ref')}",
                R.Touch(markers={marker["name"]}))
    unbound = re.search(r"reads :(\w+), which nothing binds .*; it should bind \w+ to param\.(\w+)$", issue.message)
    if unbound is not None and issue.location.endswith(".predicate.sql"):  # a name the guard's SQL reads, bound
        tokens = R.parse_path(issue.location)
        predicate, marker = R.get_at(data, tokens[:-1]), R.get_at(data, tokens[:2])
        if not isinstance(predicate, dict) or unbound.group(1) in (predicate.get("params") or {}):
            return None
        predicate.setdefault("params", {})[unbound.group(1)] = {"ref": f"param.{unbound.group(2)}"}
        return (f"marker {marker['name']!r}: a check binds :{unbound.group(1)} to param.{unbound.group(2)}",
                R.Touch(markers={marker["name"]}))
    found = _text_at(data, issue)
    wrong = re.search(r"reads column '(\w+)', which '(\w+)' does not have", issue.message)
    if found is not None and wrong is not None and "{row." in found[1][found[2]]:
        tokens, parent, attr = found
        site = R.site_of(data)
        element = issue.location.rsplit(".", 1)[0]
        bound = next((b for _, path, _, b in bound_elements(site) if path == element), None)
        columns = sorted(source_columns(site, bound) or ()) if bound else []
        column = R._closest(wrong.group(1), columns)
        if column is not None:
            old = parent[attr]
            parent[attr] = re.sub(r"\{row\." + re.escape(wrong.group(1)) + r"(\|[a-z_]+)?\}",
                                  lambda m: "{row." + column + (m.group(1) or "") + "}", old)
            return f"{attr} {old!r} -> {parent[attr]!r}", R.Touch(pages=R._page_of(tokens, data))
    if ".action.args." in issue.location and wrong is not None:
        # a form's argument reading a column its row lacks: the closest column it has (a key that
        # names no column, ``message_id``, most likely means the row's own key)
        tokens = R.parse_path(issue.location)
        arg = R.get_at(data, tokens)
        form_path = issue.location.split(".action.args.")[0]
        site = R.site_of(data)
        bound = next((b for _, path, _, b in bound_elements(site) if path == form_path), None)
        columns = sorted(source_columns(site, bound) or ()) if bound else []
        column = R._closest(wrong.group(1), columns) or (
            "id" if wrong.group(1).endswith("_id") and "id" in columns else None)
        if isinstance(arg, dict) and arg.get("ref") == f"row.{wrong.group(1)}" and column is not None:
            arg["ref"] = f"row.{column}"
            return (f"argument {tokens[-1]}: row.{wrong.group(1)} -> row.{column}",
                    R.Touch(pages=R._page_of(tokens, data)))
    if ".action.args." in issue.location or ".fields[" in issue.location:
        return None  # a form's argument: removing the form would lose a control
    return R.remove_element(data, issue, ctx)


def match_detail(data: dict[str, Any], issue: Issue, ctx: R.Context) -> R.Outcome | None:
    """C008: the list shows the column its detail page shows under the same label (when the list
    reads the detail page's own table, so the column can be named directly); a table column shows
    the column its header names; a text shows the figure its words name
    (:func:`veriweb.verify.checks_words.text_fixes`)."""
    strict = re.search(r"; it should keep \w+ ([<>]) today$", issue.message)
    if strict is not None and issue.location.endswith(".op"):
        tokens = R.parse_path(issue.location)
        cond = R.get_at(data, tokens[:-1])
        if not isinstance(cond, dict) or cond.get("op") not in (">=", "<="):
            return None
        old, cond["op"] = cond["op"], strict.group(1)
        return (f"the list keeps {cond.get('column')} {strict.group(1)} today (was {old}), as the marker its rows lead "
                f"to asks", R.Touch(pages=R._page_of(tokens, data)))
    headed = re.search(r"the column headed '[^']*' shows ([\w, ]+), not the row's own (\w+)", issue.message)
    if headed is not None and issue.location.endswith(".header"):
        tokens = R.parse_path(issue.location)
        column = R.get_at(data, tokens[:-1])
        if not isinstance(column, dict):
            return None
        wrong, right = headed.group(1).split(", "), headed.group(2)
        for node in R.json_dicts(column.get("cell", [])):
            for attr in ("text", "href"):
                if isinstance(node.get(attr), str):
                    for name in wrong:
                        node[attr] = re.sub(r"\{row\." + re.escape(name) + r"(\|[a-z_]+)?\}",
                                            lambda m: "{row." + right + (m.group(1) or "") + "}", node[attr])
        return (f"column {column.get('header')!r} shows {right} instead of {', '.join(wrong)}",
                R.Touch(pages=R._page_of(tokens, data)))
    if any(said in issue.message for said in ("the figure is another column than its words say",
                                              "the scale its words state is too small",
                                              "it is a percentage, not an amount of money")):
        from veriweb.verify.checks_words import text_fixes

        tokens = R.parse_path(issue.location)
        parent = R.get_at(data, tokens[:-1])
        fix = next((f for f in text_fixes(R.site_of(data)) if f[0] == issue.location), None)
        if fix is None or not isinstance(parent, dict) or parent.get(tokens[-1]) != fix[1]:
            return None
        parent[tokens[-1]] = fix[2]
        return f"text {fix[1]!r} -> {fix[2]!r}", R.Touch(pages=R._page_of(tokens, data))
    found = _text_at(data, issue)
    names = re.search(r"shows (?:the amount )?(\w+)\.(\w+)(?: under '[^']*')?, but page '\w+' shows (\w+)\.(\w+)",
                      issue.message)
    if found is None or names is None or names.group(1) != names.group(3):
        return None
    tokens, parent, attr = found
    old = parent[attr]
    new = re.sub(r"\{row\." + re.escape(names.group(2)) + r"(\|[a-z_]+)?\}",
                 lambda m: "{row." + names.group(4) + (m.group(1) or "") + "}", old)
    if new == old:
        return None  # the list reads a view: its column has another name there
    parent[attr] = new
    return f"{attr} {old!r} -> {new!r}", R.Touch(pages=R._page_of(tokens, data))


_NEGATIVE = re.compile(r"((?:\w+\.)?\w+\s*(?:>=|>|<=|<)\s*)-\s*\d+(?:\.\d+)?|-\s*\d+(?:\.\d+)?(\s*(?:>=|>|<=|<)\s*(?:\w+\.)?\w+)")


def _ceiling(data: dict[str, Any], sql: str, column: str) -> tuple[str | None, str | None]:
    """The table a guard reads that has ``column``, and the other column of it that every seed row
    keeps ``column`` at or under (a refund under its order's total), or ``(None, None)``."""
    for name in re.findall(r"\bFROM\s+\"?(\w+)", sql, re.I):
        table = R._table(data, name)
        if table is None or not any(c["name"] == column for c in table["columns"]):
            continue
        rows = [r for r in table.get("rows", []) if isinstance(r.get(column), (int, float))]
        for other in table["columns"]:
            if other["name"] == column or other["type"] not in ("integer", "money", "real"):
                continue
            pairs = [(r[column], r.get(other["name"])) for r in rows]
            if len(pairs) >= 5 and all(isinstance(b, (int, float)) and a <= b for a, b in pairs) \
                    and any(a > 0 for a, _ in pairs):
                return name, other["name"]
    return None, None


def _pick_named_row(data: dict[str, Any], tokens: list[Any], issue: Issue) -> R.Outcome | None:
    """C009 on a guard's message that names one row ("already in Archived") while its test picks another
    by a fixed value (``kind = 'trash'``): the test picks, by the same column, the row the message names."""
    found = re.search(r"names '([^']*)', but its test reads the (\w+) row whose (\w+) is '([^']*)'$", issue.message)
    guard, marker = R.get_at(data, tokens[:-1]), R.get_at(data, tokens[:2])
    if found is None or not isinstance(guard, dict) or not isinstance(marker, dict):
        return None
    name, table_name, column, value = found.groups()
    table = next((t for t in data["database"]["tables"] if t["name"] == table_name), None)
    named = {r.get(column) for r in (table or {}).get("rows", []) if name in (str(v) for v in r.values())}
    named.discard(None)
    sql = guard.get("predicate", {}).get("sql", "")
    test = re.compile(rf"\b{re.escape(column)}\s*=\s*'{re.escape(value)}'")
    if len(named) != 1 or len(test.findall(sql)) != 1:
        return None
    new = str(next(iter(named)))
    guard["predicate"]["sql"] = test.sub(f"{column} = '{new}'", sql)
    return (f"marker {marker['name']!r}: the guard saying {name!r} tests {column} = {new!r}, not {value!r}",
            R.Touch(markers={marker["name"]}))


def restore_guard(data: dict[str, Any], issue: Issue, ctx: R.Context) -> R.Outcome | None:
    """C009: a record testing its row's owner against the same row tests it against the signed-in user;
    a guard that lets through what its message rules out admits what the message admits
    (:mod:`veriweb.verify.checks_guards`); a negative bound on a counter becomes zero; a date bound
    long before today becomes today; a zero floor on a counter the marker only raises becomes the ceiling the seed rows keep
    (refunded at most total). A guard that reads nothing has no safe fix."""
    tokens = R.parse_path(issue.location)
    if issue.message.endswith("the later one should be removed") and tokens[-2:-1] == ["preconditions"]:
        marker = R.get_at(data, tokens[:2])  # a second rule given another rule's message: it explains nothing
        guard = R._remove_at(data, tokens) if isinstance(marker, dict) else None
        if guard is None:
            return None
        return f"marker {marker['name']!r}: a check repeating another's message removed", R.Touch(markers={marker["name"]})
    if issue.message.endswith("it should run after the write, as an invariant") and tokens[-2:-1] == ["preconditions"]:
        marker = R.get_at(data, tokens[:2])  # a duplicate test run before the row exists: after the write
        guard = R._remove_at(data, tokens) if isinstance(marker, dict) else None
        if guard is None:
            return None
        marker.setdefault("invariants", []).insert(0, guard)
        return f"marker {marker['name']!r}: {guard.get('message', '')!r} runs after the write", \
            R.Touch(markers={marker["name"]})
    if issue.message.endswith("it should test the signed-in user (user.id)") and tokens[-1] == "value":
        cond = R.get_at(data, tokens[:-1])  # a record testing its row against itself: against the user
        if not isinstance(cond, dict):
            return None
        old, cond["value"] = cond.get("value"), {"ref": "user.id"}
        return f"{cond.get('column')}: {old!r} -> user.id", R.Touch(pages=R._page_of(tokens, data))
    if tokens[-1] == "message":  # a message naming another row than the test picks: the test picks that row
        return _pick_named_row(data, tokens, issue)
    day = re.search(r"statements of the same cut-off test .*: it should be (\d{4}-\d{2}-\d{2})$", issue.message)
    if day is not None and tokens[-2:-1] == ["params"]:  # the parameter that holds a cut-off day
        params, marker = R.get_at(data, tokens[:-1]), R.get_at(data, tokens[:2])
        if not isinstance(params, dict) or not isinstance(marker, dict) or params.get(tokens[-1]) == day.group(1):
            return None
        old, params[tokens[-1]] = params.get(tokens[-1]), day.group(1)
        return f"marker {marker['name']!r}: the cut-off {old!r} -> {day.group(1)!r}", R.Touch(markers={marker["name"]})
    predicate = R.get_at(data, tokens)
    marker = R.get_at(data, tokens[:2])
    if not isinstance(predicate, dict) or not isinstance(marker, dict):
        return None
    from veriweb.verify.checks_guards import guard_fixes

    fix = next((f for f in guard_fixes(R.site_of(data)) if f.location == issue.location and f.sql
                and predicate.get("sql") != f.sql), None)
    if fix is not None:  # a guard its message or the seed dates contradict: the test they call for
        old, predicate["sql"] = predicate["sql"], fix.sql
        return f"marker {marker['name']!r}: {old!r} -> {fix.sql!r}", R.Touch(markers={marker["name"]})
    misread = re.search(r"but it tests (\w+), not (\w+)$", issue.message)
    if misread is not None:  # the parameter its message names, bound where the other one was
        got, wanted = misread.groups()
        bound = [n for n, ref in (predicate.get("params") or {}).items() if ref == {"ref": f"param.{got}"}]
        if len(bound) != 1:
            return None
        predicate["params"][bound[0]] = {"ref": f"param.{wanted}"}
        return f"marker {marker['name']!r}: a check of {got} tests {wanted}", R.Touch(markers={marker["name"]})
    raised = re.search(r"only keeps (\w+) from going below zero, but \w+ only raises", issue.message)
    if predicate.get("kind") == "sql" and raised is not None:
        # a counter the marker only raises: bounded from above by the column every seed row keeps it under
        table, ceiling = _ceiling(data, predicate["sql"], raised.group(1))
        if ceiling is None:
            return None
        old = predicate["sql"]
        predicate["sql"] = f"SELECT NOT EXISTS (SELECT 1 FROM {table} WHERE {raised.group(1)} > {ceiling})"
        predicate.pop("params", None)
        return f"marker {marker['name']!r}: {old!r} -> {predicate['sql']!r}", R.Touch(markers={marker["name"]})
    if predicate.get("kind") == "sql":
        old = predicate["sql"]
        column = re.search(r"bounds (\w+) by", issue.message)
        if column:
            new = _NEGATIVE.sub(lambda m: (m.group(1) + "0") if m.group(1) else ("0" + m.group(2)), old, count=1)
        else:
            date = re.search(r"after (\d{4}-\d{2}-\d{2})", issue.message)
            if date is None:
                return None
            new = old.replace(f"'{date.group(1)}'", ":today")
            bound = [k for k, v in predicate.get("params", {}).items() if v == date.group(1)]
            for name in bound:  # the bound comes from a parameter: it now comes from the clock
                predicate["params"][name] = {"ref": "clock.today"}
            if bound:
                return (f"marker {marker['name']!r}: {', '.join(bound)} {date.group(1)!r} -> today",
                        R.Touch(markers={marker["name"]}))
        if new == old:
            return None
        predicate["sql"] = new
        return f"marker {marker['name']!r}: {old!r} -> {predicate['sql']!r}", R.Touch(markers={marker["name"]})
    if predicate.get("kind") == "exists":
        for cond in predicate["query"].get("where", []):
            value = cond.get("value")
            if isinstance(value, (int, float)) and not isinstance(value, bool) and value < 0:
                cond["value"] = 0
                return f"marker {marker['name']!r}: bound {value} -> 0", R.Touch(markers={marker["name"]})
    return None


def _first_use(data: dict[str, Any], table: dict[str, Any], row: dict[str, Any], column: str) -> str | None:
    """The day of the first row made under ``row`` (its first comment, for a post), when ``column`` says
    when the row began (:data:`veriweb.verify.checks_data._BEGUN`): a date moved back to today goes no
    later than that."""
    from veriweb.verify.checks_data import _BEGUN, _DONE

    if not _BEGUN.match(column):
        return None
    key = row.get(table.get("primary_key", "id"))
    days = []
    for child in data.get("database", {}).get("tables", []):
        keys = [fk["column"] for fk in child.get("foreign_keys", []) if fk.get("ref_table") == table.get("name")]
        made = [c["name"] for c in child.get("columns", []) if c["type"] in ("date", "datetime") and _DONE.match(c["name"])]
        if child is not table and len(keys) == 1 and len(made) == 1:
            days += [r[made[0]][:10] for r in child.get("rows", []) if r.get(keys[0]) == key
                     and isinstance(r.get(made[0]), str) and len(r[made[0]]) >= 10]
    return min(days) if days else None


def fix_seed_date(data: dict[str, Any], issue: Issue, ctx: R.Context) -> R.Outcome | None:
    """C010: a text that says a fixed day is today reads the clock; a clock that leaves its day within a
    task's budget gets the default pace (or start); a
    seed date on the wrong side of today is set to today (keeping a datetime's time), or to the day
    of the first row made under its row if that is earlier (a post's first comment); a date
    before the one it follows is set to that day; a date its status leaves empty is emptied, and one
    its status fills takes the row's latest other date."""
    tokens = R.parse_path(issue.location)
    epoch = re.search(r"is a program's 'no date', .*; it should be '([^']+)'$", issue.message)
    found = R._table_row(data, tokens) if epoch is not None else None
    if found is not None:  # the epoch: the day of the row it belongs to
        table, row = found
        old, row[tokens[-1]] = row.get(tokens[-1]), epoch.group(1)
        return f"{table['name']}.{tokens[-1]} {old!r} -> {epoch.group(1)!r}", R.Touch(tables={table["name"]})
    active = re.search(r"is before rows made under it since .*: it should be '(\d{4}-\d{2}-\d{2})'$", issue.message)
    found = R._table_row(data, tokens) if active is not None else None
    if found is not None and isinstance(found[1].get(tokens[-1]), str):  # a stale last activity: the latest
        table, row = found
        old = row[tokens[-1]]
        row[tokens[-1]] = active.group(1) + old[10:]
        return f"{table['name']}.{tokens[-1]} {old!r} -> {row[tokens[-1]]!r}", R.Touch(tables={table["name"]})
    stated = re.search(r"^'.*' says today is '([^']*)', but the site's today is .*\(\{clock\.today\|date\}\)$",
                       issue.message, re.S)
    if stated is not None and tokens[-1] == "text":  # a fixed day said to be today: the clock's day
        element = R.get_at(data, tokens[:-1])
        if not isinstance(element, dict) or stated.group(1) not in element.get("text", ""):
            return None
        old = element["text"]
        element["text"] = old.replace(stated.group(1), "{clock.today|date}", 1)
        return f"text {old!r} -> {element['text']!r}", R.Touch(pages=R._page_of(tokens, data))
    if tokens[:1] == ["clock"] and isinstance(data.get("clock"), dict):  # a clock leaving its day: the default pace
        from veriweb.scaffold.site import Clock

        clock = data["clock"]
        old = clock.get(tokens[-1])
        clock[tokens[-1]] = Clock.model_fields[tokens[-1]].get_default()
        if tokens[-1] == "start_time":
            clock[tokens[-1]] = clock[tokens[-1]].isoformat()
        return f"clock.{tokens[-1]}: {old!r} -> {clock[tokens[-1]]!r}", R.Touch(tasks={t["id"] for t in data["tasks"]})
    found = R._table_row(data, tokens)
    if found is None or len(tokens) != 6 or not isinstance(tokens[5], str):
        return None
    table, row = found
    column = tokens[5]
    old = row.get(column)
    state = re.search(r"the rows that ended are '([^']*)': its (\w+) should be '[^']*'$", issue.message)
    if state is not None and column == state.group(2):  # a status its passed end date no longer allows
        row[column] = state.group(1)
        return f"{table.get('name')}.{column}: {old!r} -> {row[column]!r}", R.Touch(tables={table.get("name", "")})
    latest = re.search(r"it should be (\d{4}-\d{2}-\d{2}) at the latest$", issue.message)
    if latest is not None and isinstance(old, str):  # a beginning after the first use: the day of that use
        row[column] = latest.group(1) + old[10:]
        return f"{table.get('name')}.{column}: {old!r} -> {row[column]!r}", R.Touch(tables={table.get("name", "")})
    before = re.search(r" is before (\w+) ", issue.message)
    if before is not None and isinstance(row.get(before.group(1)), str) and isinstance(old, str):
        # a date before the one it follows (closed before created): the day it follows
        row[column] = row[before.group(1)][:10] + old[10:]
    elif re.search(r" is filled, unlike", issue.message):
        row[column] = None  # a date its status leaves empty
    elif re.search(r" is empty, unlike", issue.message):
        # a date its status fills (merged with no merge date): the row's latest other date
        days = [v for c in table.get("columns", []) if c["type"] in ("date", "datetime") and c["name"] != column
                and isinstance(v := row.get(c["name"]), str) and len(v) >= 10]
        if not days:
            return None
        kind = next((c["type"] for c in table.get("columns", []) if c["name"] == column), "date")
        latest = max(days)[:10]
        row[column] = latest if kind == "date" else latest + "T12:00:00"
    elif isinstance(old, str) and len(old) >= 10:
        today = str(data.get("clock", {}).get("today", "2026-06-15"))
        row[column] = min(today, _first_use(data, table, row, column) or today) + old[10:]
    else:
        return None
    return f"{table['name']}.{column} {old!r} -> {row[column]!r}", R.Touch(tables={table["name"]})


def _written_values(data: dict[str, Any], marker: dict[str, Any], name: str) -> list[str]:
    """The distinct text values (at most 12) of the column a marker writes parameter ``name`` to, in
    the seed data, sorted; empty when it writes the parameter nowhere or the column holds more."""
    for effect in marker.get("effects", []):
        write = dataflow.parse_effect(marker["name"], effect["op"], effect["table"], effect["sql"])
        column = next((c for c, source in write.sources.items() if source.kind == "param" and source.value == name),
                      None)
        table = R._table(data, effect["table"])
        if column is None or table is None:
            continue
        values = sorted({str(row[column]) for row in table.get("rows", []) if row.get(column) not in (None, "")})
        return values if 0 < len(values) <= 12 else []
    return []


def _reword_field(data: dict[str, Any], tokens: list[Any], field_el: dict[str, Any], issue: Issue) -> R.Outcome | None:
    """S013 (:func:`veriweb.verify.checks_words.misworded_fields`): a box ticked by default for a paid extra
    starts unticked; a field asking for cents asks for dollars; one asking for a number of days for a
    date becomes a date input named for its parameter."""
    from veriweb.verify.checks_words import _A_COUNT_OF_DAYS, _IN_CENTS
    from veriweb.verify.form_fields import humanise

    touch = R.Touch(pages=R._page_of(tokens, data))
    label = field_el.get("label", "")
    if tokens[-1] == "checked" and field_el.get("checked"):
        field_el["checked"] = False
        return f"field {label!r} starts unticked", touch
    if "in cents" in issue.message:
        field_el["label"] = _IN_CENTS.sub("", label).strip() or humanise(field_el.get("name", "amount"))
        if re.search(r"cent|\b\d{3,}\b(?!\.)", field_el.get("placeholder", "")):
            field_el["placeholder"] = ""
        return f"field {label!r} -> {field_el['label']!r} (an amount in dollars)", touch
    if "it counts packs" in issue.message:
        from veriweb.verify.checks_words import _IN_PACKS

        field_el["label"] = _IN_PACKS.sub("", label).strip() or humanise(field_el.get("name", "quantity"))
        if _IN_PACKS.search(field_el.get("placeholder", "")):
            field_el["placeholder"] = ""
        return f"field {label!r} -> {field_el['label']!r} (single items)", touch
    if "number of days" in issue.message and _A_COUNT_OF_DAYS.search(f"{label} {field_el.get('placeholder', '')}"):
        field_el["type"], field_el["label"] = "date", humanise(field_el.get("name", "date"))
        field_el["placeholder"] = ""
        return f"field {label!r} -> a date input {field_el['label']!r}", touch
    return None


def fix_field_type(data: dict[str, Any], issue: Issue, ctx: R.Context) -> R.Outcome | None:
    """S013: a password box asking no secret becomes a text box; a field's default that is none of its
    options becomes the option it names (by value or
    label, whatever the case), else no default; an option the marker refuses is removed; a date input or checkbox for another type
    becomes a text box; a parameter written to a column of another type takes the column's type;
    an empty list of choices becomes the values the parameter's column holds (else any value); a link
    that fills a field with the wrong kind of value passes the row's one column of the right kind (else
    it is removed), and so does a picker."""
    tokens = R.parse_path(issue.location)
    if issue.message.endswith("it should be a text box") and tokens[-1] == "type":  # a masked field asking no secret
        field_el = R.get_at(data, tokens[:-1])
        if not isinstance(field_el, dict) or field_el.get("type") != "password":
            return None
        field_el["type"] = "textbox"
        return f"field {field_el.get('label', '')!r}: a text box, not a password box", R.Touch(pages=R._page_of(tokens, data))
    numbers = re.search(r"compares with (\w+)\.(\w+), a number: ticking it filters nothing; it should offer the "
                        r"column's values$", issue.message)
    if numbers is not None and tokens[-1] == "type":  # a checkbox sending "on" to a number test: the numbers
        field_el, table = R.get_at(data, tokens[:-1]), R._table(data, numbers.group(1))
        if not isinstance(field_el, dict) or field_el.get("type") != "checkbox" or table is None:
            return None
        values = sorted({r.get(numbers.group(2)) for r in table.get("rows", [])
                         if isinstance(r.get(numbers.group(2)), (int, float))})
        field_el.update(type="select", options=[{"value": "", "label": "Any"}, *(
            {"value": str(v), "label": str(v)} for v in values)], value={"ref": f"query.{field_el['name']}"})
        return f"field {field_el.get('label', '')!r}: a drop-down of {len(values)} values, not a checkbox", \
            R.Touch(pages=R._page_of(tokens, data))
    if issue.message.endswith("it should be a password box") and tokens[-1] == "type":  # a secret shown in clear
        field_el = R.get_at(data, tokens[:-1])
        if not isinstance(field_el, dict) or field_el.get("type") != "textbox":
            return None
        field_el["type"] = "password"
        return f"field {field_el.get('label', '')!r}: a password box, not a text box", R.Touch(pages=R._page_of(tokens, data))
    field_el = R.get_at(data, tokens[:-1]) if tokens[-1] == "value" else None
    if isinstance(field_el, dict) and field_el.get("options"):  # a default none of the options: the one it means
        old = field_el.get("value")
        fold = str(old).strip().casefold()
        meant = [o["value"] for o in field_el["options"]
                 if fold in (str(o.get("value", "")).strip().casefold(), str(o.get("label", "")).strip().casefold())]
        if len(meant) == 1:
            field_el["value"] = meant[0]
        else:
            field_el.pop("value", None)
        return (f"field {field_el.get('label', '')!r} starts at {field_el.get('value', 'no option')!r}, not {old!r}",
                R.Touch(pages=R._page_of(tokens, data)))
    sent = re.search(r"which the marker refuses \(.*\); it should send (.+)$", issue.message)
    if sent is not None and tokens[-2:-1] == ["args"]:  # a fixed argument the marker refuses: the nearest it takes
        import ast

        args = R.get_at(data, tokens[:-1])
        if not isinstance(args, dict) or tokens[-1] not in args:
            return None
        old, args[tokens[-1]] = args[tokens[-1]], ast.literal_eval(sent.group(1))
        return f"argument {tokens[-1]}: {old!r} -> {args[tokens[-1]]!r}", R.Touch(pages=R._page_of(tokens, data))
    field_el = R.get_at(data, tokens[:-1]) if tokens[-1] in ("label", "checked") else None
    if isinstance(field_el, dict) and issue.message.startswith("form field "):
        return _reword_field(data, tokens, field_el, issue)
    if tokens[-1] == "href":  # a link filling a field with the wrong kind of value: the row's right column
        from veriweb.verify.checks_meaning import passed_shapes

        found = next((f for f in passed_shapes(R.site_of(data)) if f[0] == issue.location), None)
        link = R.get_at(data, tokens[:-1])
        if found is None or not found[2] or not isinstance(link, dict):
            return R.remove_element(data, issue, ctx)
        old = link["href"]
        link["href"] = re.sub(r"\{row\." + re.escape(found[1]) + r"((?:\|[a-z_]+)?)\}", "{row." + found[2] + r"\1}", old)
        return f"link {old!r} -> {link['href']!r}", R.Touch(pages=R._page_of(tokens, data))
    if tokens[-2:] == ["options_query", "value"]:  # a picker sending the wrong kind of value: the right column
        from veriweb.verify.checks_meaning import passed_shapes

        found = next((f for f in passed_shapes(R.site_of(data)) if f[0] == issue.location), None)
        chosen = R.get_at(data, tokens[:-1])
        if found is not None and found[2] and isinstance(chosen, dict):
            old, chosen["value"] = chosen["value"], found[2]
            return f"picker sends {found[2]}, not {old}", R.Touch(pages=R._page_of(tokens, data))
    if tokens[:1] == ["markers"] and tokens[-1] == "choices":  # an empty list: the values its column holds
        param, marker = R.get_at(data, tokens[:-1]), R.get_at(data, tokens[:2])
        if not isinstance(param, dict) or not isinstance(marker, dict):
            return None
        values = _written_values(data, marker, param["name"])
        if values:
            param["choices"] = values
        else:
            param.pop("choices", None)
        return (f"{marker['name']}.{param['name']}: choices [] -> {values or 'any value'}",
                R.Touch(markers={marker["name"]}))
    if tokens[:1] == ["markers"] and tokens[-1] == "type":
        param = R.get_at(data, tokens[:-1])
        kind = re.search(r"which is (\w+)$", issue.message)
        if not isinstance(param, dict) or kind is None:
            return None
        old, param["type"] = param["type"], kind.group(1)
        marker = R.get_at(data, tokens[:2])
        return (f"{marker['name']}.{param['name']}: {old} -> {param['type']}",
                R.Touch(markers={marker["name"]}))
    if tokens[-1] == "options" and re.search(r"\((?:integer|money|real)\) with values", issue.message):
        options = R.get_at(data, tokens)  # every option writes its number out ("one", "2 passengers")
        numbers = [_number_in(o.get("value")) if str(o.get("value", "")).strip() else "" for o in options or []]
        if options and all(n is not None for n in numbers):
            for option, number in zip(options, numbers):
                option["value"] = str(number)
            return (f"options of field {tokens[-2]}: values -> {[o['value'] for o in options]}",
                    R.Touch(pages=R._page_of(tokens, data)))
    if len(tokens) >= 3 and tokens[-3] == "options" and tokens[-1] == "value":
        option = R.get_at(data, tokens[:-1])
        number = _number_in(option.get("value")) if isinstance(option, dict) else None
        if number is not None and re.search(r"\b(?:integer|number|real|money)\b", issue.message):
            # a number written out ("five", "2 passengers"): the number itself
            old, option["value"] = option["value"], str(number)
            return f"option {option.get('label')!r}: {old!r} -> {option['value']!r}", R.Touch(
                pages=R._page_of(tokens, data))
        removed = R._remove_at(data, tokens[:-1])
        if removed is None:
            return None
        return f"removed option {removed.get('label')!r}", R.Touch(pages=R._page_of(tokens, data))
    if tokens[-2:] == ["options_query", "value"] and re.search(r"takes (?:integer|money|real)$", issue.message):
        query = R.get_at(data, tokens[:-1])  # names sent where a key is taken: the options send the row's key
        table = next((t for t in data.get("database", {}).get("tables", [])
                      if isinstance(query, dict) and t.get("name") == query.get("query", {}).get("table")), None)
        key = table.get("primary_key", "id") if table is not None else None
        if key is None or query.get("value") == key:
            return None
        old, query["value"] = query["value"], key
        return f"options of field {tokens[-3]}: send {key} instead of {old}", R.Touch(pages=R._page_of(tokens, data))
    if tokens[-1] == "type":
        field = R.get_at(data, tokens[:-1])
        if not isinstance(field, dict) or field.get("type") not in ("date", "checkbox"):
            return None
        old = field.pop("type")
        field.pop("checked", None)
        field["type"] = "textbox"
        return f"field {field.get('label')!r}: {old} -> textbox", R.Touch(pages=R._page_of(tokens, data))
    return None


_NUMBER_WORDS = {w: n for n, w in enumerate(("zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
                                             "nine", "ten", "eleven", "twelve"))}


def _number_in(value: Any) -> int | None:
    """The whole number a value writes out: "5", "five", "2 passengers", "Four stars"; else ``None``."""
    text = str(value).strip().lower()
    digits = re.fullmatch(r"(\d+)(?:\s+[a-z]+){0,2}", text)
    if digits:
        return int(digits.group(1))
    words = re.fullmatch(r"([a-z]+)(?:\s+[a-z]+){0,2}", text)
    return _NUMBER_WORDS.get(words.group(1)) if words else None


def retarget_entity_link(data: dict[str, Any], issue: Issue, ctx: R.Context) -> R.Outcome | None:
    """S014: a link that names a record but opens another is pointed at the record it names, and one
    whose words name another value than its address filters on ("Closed" to ``?state=open``) filters on
    the value named; a link to a record that does not exist is removed."""
    names = re.search(r"names (\w+) (\d+|'[^']*') but opens", issue.message)
    found = _text_at(data, issue)
    filtered = re.search(r"names (\w+) '([^']*)' but filters \1=([\w-]+):", issue.message)
    if filtered is not None and found is not None:  # the list its words name
        tokens, parent, attr = found
        name, wanted, value = filtered.groups()
        old = parent[attr]
        new = re.sub(rf"([?&]{name}=){re.escape(value)}(?=&|#|$)", rf"\g<1>{wanted}", old)
        if new != old:
            parent[attr] = new
            return f"link {old!r} -> {new!r}", R.Touch(pages=R._page_of(tokens, data))
        return None
    if names is not None and found is not None:
        tokens, parent, attr = found
        key = names.group(2).strip("'")
        old = parent[attr]
        new = re.sub(r"/[^/]+$", "/" + key, old.split("?")[0])
        if new != old:
            parent[attr] = new
            return f"link {old!r} -> {new!r}", R.Touch(pages=R._page_of(tokens, data))
    return R.remove_element(data, issue, ctx)


def fix_view(data: dict[str, Any], issue: Issue, ctx: R.Context) -> R.Outcome | None:
    """C013: the SQL the check computed for the view (or effect) at the issue's place: the quantity
    put back into a sum, the subquery tied to its row, the value the figure is named for, the
    words of a ``CASE`` swapped (:func:`veriweb.verify.checks_views.view_fixes`)."""
    from veriweb.verify.checks_views import view_fixes

    tokens = R.parse_path(issue.location)
    parent = R.get_at(data, tokens[:-1])
    if issue.message.endswith("it should update it in place") and isinstance(parent, dict):
        from veriweb.verify.checks_views import recreating_updates

        found = next((f for f in recreating_updates(R.site_of(data)) if f[0] == tokens[1]), None)
        if found is None:
            return None
        parent["effects"] = [{"op": "update", "table": found[1], "sql": found[2]}]
        return f"marker {parent['name']!r} updates its {found[1]} row in place", R.Touch(markers={parent["name"]})
    if " never empties " in issue.message and isinstance(parent, dict) and isinstance(parent.get("effects"), list):
        from veriweb.verify.checks_views import kept_baskets

        found = next((f for f in kept_baskets(R.site_of(data)) if f[0] == tokens[1]), None)
        if found is None:
            return None
        parent["effects"].append({"op": "delete", "table": found[1], "sql": found[2]})
        return f"marker {parent['name']!r} empties {found[1]} after copying it", R.Touch(markers={parent["name"]})
    if tokens[-1] == "effects" and isinstance(parent, dict) and isinstance(parent.get("effects"), list):
        return _reorder_effects(data, issue, parent)
    if not isinstance(parent, dict) or not isinstance(parent.get(tokens[-1]), str):
        return None
    fix = next((f for f in view_fixes(R.site_of(data)) if f.location == issue.location
                and f.old == parent[tokens[-1]]), None)
    if fix is None or fix.new == fix.old:
        return None
    parent[tokens[-1]] = fix.new
    if tokens[0] == "markers":
        name = data["markers"][tokens[1]]["name"]
        said = fix.message.split(": ")[0]
        return (said if said.startswith("marker ") else f"marker {name!r}: {said}") + "; rewritten", \
            R.Touch(markers={name})
    name = parent.get("name", "")
    return f"view {name!r}: {fix.message.split(': ')[0]}; rewritten", R.Touch(tables={name})


def _reorder_effects(data: dict[str, Any], issue: Issue, marker: dict[str, Any]) -> R.Outcome | None:
    """C013: a marker's effect that ran too late to do anything runs before the effect that undid what it
    reads (:func:`veriweb.verify.checks_views._misordered_effects` gives the order)."""
    from veriweb.verify.checks_views import view_fixes

    fix = next((f for f in view_fixes(R.site_of(data)) if f.location == issue.location), None)
    if fix is None:
        return None
    order = json.loads(fix.new)
    effects = marker["effects"]
    if sorted(order) != list(range(len(effects))) or order == sorted(order):
        return None
    marker["effects"] = [effects[i] for i in order]
    return f"marker {marker['name']!r}: effects run in the order {order}", R.Touch(markers={marker["name"]})


def _read_field(data: dict[str, Any], issue: Issue, tokens: list[str | int]) -> R.Outcome | None:
    """M015: a field the page it searches never reads: the one list there with a column of its name
    tests it (:func:`veriweb.verify.checks_words.ignored_fields`)."""
    from veriweb.verify.checks_words import ignored_fields

    found = next((f for f in ignored_fields(R.site_of(data)) if f[0] == issue.location), None)
    if found is None:
        return None
    _, name, page, listed, test = found
    query = R.get_at(data, R.parse_path(listed) + ["query"])
    query.setdefault("where", []).append(test)
    return (f"the list on page {page!r} filters on {name} {test['op']} the form's choice",
            R.Touch(pages={page} | R._page_of(tokens, data)))


def restate_period(data: dict[str, Any], issue: Issue, ctx: R.Context) -> R.Outcome | None:
    """M015: a list whose words name a period relative to today ("This month so far") filters on the
    period its words name (:func:`veriweb.verify.checks_meaning.calendar_filters`), one on a page named
    for a yes/no column filters on the value its name says (:func:`veriweb.verify.checks_meaning.inverted_flags`); a
    searching form's field the page it opens never reads is read there (:func:`_read_field`); a list that is
    always empty is removed, as any element no repair can fix."""
    from veriweb.verify.checks_meaning import calendar_filters, inverted_flags

    tokens = R.parse_path(issue.location)
    if issue.message.endswith("as if they did not exist; it should show them") and tokens[-2] == "where":
        where = R.get_at(data, tokens[:-1])
        if not isinstance(where, list) or not 0 <= tokens[-1] < len(where):
            return None
        gone = where.pop(tokens[-1])
        return (f"the list shows the rows it left out ({gone.get('column')} {gone.get('op')} {gone.get('value')!r})",
                R.Touch(pages=R._page_of(tokens, data)))
    routed = re.search(r"while its own page reads all of it: it should open '([^']+)'$", issue.message)
    if routed is not None and tokens[-2:] == ["action", "route"]:  # a search sent elsewhere: to its own page
        action = R.get_at(data, tokens[:-1])
        if not isinstance(action, dict):
            return None
        old, action["route"] = action.get("route"), routed.group(1)
        return f"the search form opens {routed.group(1)!r}, not {old!r}", R.Touch(pages=R._page_of(tokens, data))
    if issue.message.endswith("it should match exactly") and tokens[-1] == "op":  # a key matched by a piece
        cond = R.get_at(data, tokens[:-1])
        if not isinstance(cond, dict) or cond.get("op") not in ("contains", "startswith"):
            return None
        old = cond.pop("op")
        return f"the list matches {cond.get('column')} exactly, not by {old}", R.Touch(pages=R._page_of(tokens, data))
    parent = R.get_at(data, tokens[:-1])
    if "which never reads it" in issue.message:
        return _read_field(data, issue, tokens)
    sends = re.search(r"the link sends (\w+)=\{row\.(\w+)\}.*it should send \{row\.(\w+)\}$", issue.message)
    if sends is not None and tokens[-1] == "href" and isinstance(parent, dict):  # the column holding the values
        name, old, new = sends.groups()
        href = parent.get("href", "")
        fixed = re.sub(rf"([?&]{name}=)\{{row\.{old}\}}", rf"\g<1>{{row.{new}}}", href)
        if fixed == href:
            return None
        parent["href"] = fixed
        return f"link {href!r} -> {fixed!r}", R.Touch(pages=R._page_of(tokens, data))
    if "the test should be left out when the value is empty" in issue.message and tokens[-1] == "skip_if_empty":
        if not isinstance(parent, dict) or parent.get("skip_if_empty"):
            return None
        parent["skip_if_empty"] = True
        return f"the test on {parent.get('column')} is left out when its value is empty", R.Touch(pages=R._page_of(tokens, data))
    if "starts with the words typed" in issue.message and tokens[-1] == "op" and isinstance(parent, dict):
        if parent.get("op") != "startswith":
            return None
        parent["op"] = "contains"  # the words anywhere in the text
        return f"search on {parent.get('column')} startswith -> contains", R.Touch(pages=R._page_of(tokens, data))
    if "one with exactly enough is hidden" in issue.message and tokens[-1] == "op" and isinstance(parent, dict):
        if parent.get("op") != ">":
            return None
        parent["op"] = ">="  # at least as much room as asked for
        return f"filter on {parent.get('column')} > -> >=", R.Touch(pages=R._page_of(tokens, data))
    if "with no further pages, while" in issue.message and tokens[-2:] == ["query", "limit"]:
        listed = R.get_at(data, tokens[:-2])
        if not isinstance(listed, dict) or not isinstance(parent, dict) or parent.get("limit") is None:
            return None
        listed["page_size"], parent["limit"] = parent["limit"], None  # as many a page, every row reachable
        return f"the list pages through its rows ({listed['page_size']} a page)", R.Touch(pages=R._page_of(tokens, data))
    passed = re.search(r"the link passes '(\w+)' to page '[\w-]*', which does not read it but reads '(\w+)', .*"
                       r"it should be passed as", issue.message)
    if passed is not None and tokens[-1] == "href" and isinstance(parent, dict):
        href = parent.get("href", "")
        fixed = re.sub(rf"([?&]){passed.group(1)}=", rf"\g<1>{passed.group(2)}=", href, count=1)
        if fixed == href:
            return None
        parent["href"] = fixed
        return f"link {href!r} -> {fixed!r}", R.Touch(pages=R._page_of(tokens, data))
    renamed = re.search(r"which does not read it but filters on '(\w+)', .*the field should be named '\w+'$", issue.message)
    if renamed is not None and tokens[-1] == "name" and isinstance(parent, dict):
        old, parent["name"] = parent.get("name"), renamed.group(1)
        return f"field {old!r} -> {renamed.group(1)!r}, what the page it opens reads", R.Touch(pages=R._page_of(tokens, data))
    keyed = re.search(r"the list keeps the rows whose (\w+) \(a key of \w+\).*it should compare (\w+)$", issue.message)
    if keyed is not None and tokens[-1] == "column" and isinstance(parent, dict) and parent.get("column") == keyed.group(1):
        parent["column"] = keyed.group(2)
        return (f"filter on {keyed.group(1)} -> {keyed.group(2)}, the key of the record it sits in",
                R.Touch(pages=R._page_of(tokens, data)))
    misread = re.search(r"is compared with (\w+), which holds none of the values it offers \((\w+) holds", issue.message)
    if misread is not None and tokens[-1] == "column" and isinstance(parent, dict) and parent.get("column") == misread.group(1):
        parent["column"] = misread.group(2)
        return f"filter on {misread.group(1)} -> {misread.group(2)}, which holds its choices", R.Touch(pages=R._page_of(tokens, data))
    flag = next((f for f in inverted_flags(R.site_of(data)) if f[0] == issue.location), None)
    if flag is not None and isinstance(parent, dict):
        old = parent.get(tokens[-1])
        parent[tokens[-1]] = flag[1] if isinstance(old, bool) else int(flag[1])
        return f"filter {old!r} -> {parent[tokens[-1]]!r}, as {flag[2]!r} says", R.Touch(pages=R._page_of(tokens, data))
    found = next((f for f in calendar_filters(R.site_of(data)) if f[0] == issue.location), None)
    if found is None or not isinstance(parent, dict) or parent.get(tokens[-1]) != found[1]:
        return R.remove_element(data, issue, ctx)
    _, old, new, said = found
    parent[tokens[-1]] = new
    return f"filter {old!r} -> {new!r}, the period {said!r} names", R.Touch(pages=R._page_of(tokens, data))


def own_choices(data: dict[str, Any], issue: Issue, ctx: R.Context) -> R.Outcome | None:
    """S015: a choice list offering every user's rows where the marker accepts only the signed-in user's
    own offers those (:func:`veriweb.verify.checks_meaning.check_owned_choices`); any other S015 is
    repaired by where it is (the element removed)."""
    tokens = R.parse_path(issue.location)
    owner = re.search(r"it should offer those whose (\w+) is the user's$", issue.message)  # a record too
    choices = R.get_at(data, tokens) if owner is not None else None
    if not isinstance(choices, dict) or not isinstance(choices.get("query"), dict):
        return R.remove_element(data, issue, ctx) if R._element_path(tokens) is not None else None
    where = choices["query"].setdefault("where", [])
    if any(c.get("column") == owner.group(1) for c in where):  # type: ignore[union-attr]
        return None
    where.append({"column": owner.group(1), "value": {"ref": "user.id"}})  # type: ignore[union-attr]
    return f"the choices are the signed-in user's own (by {owner.group(1)})", R.Touch(pages=R._page_of(tokens, data))


def reopen_link(data: dict[str, Any], issue: Issue, ctx: R.Context) -> R.Outcome | None:
    """M014: a link whose words name the page next to the one it opens opens that page
    (:func:`veriweb.verify.checks_meaning.sibling_links`); any other M014 link is removed."""
    tokens = R.parse_path(issue.location)
    parent = R.get_at(data, tokens[:-1])
    fixed = re.search(r"it should open (/\S*)$", issue.message)
    if fixed is not None and tokens[-1] == "href" and isinstance(parent, dict):
        old, parent["href"] = parent.get("href"), fixed.group(1)
        return f"link {old!r} -> {fixed.group(1)!r}", R.Touch(pages=R._page_of(tokens, data))
    return R.remove_element(data, issue, ctx)


def fix_auth(data: dict[str, Any], issue: Issue, ctx: R.Context) -> R.Outcome | None:
    """S010: a login checking passwords against a column that holds none checks the one that does; an
    account with a blank password gets one."""
    auth = data.get("auth")
    if issue.message.endswith("signs in as someone else; it should start empty") and issue.location.endswith(".value"):
        tokens = R.parse_path(issue.location)
        field_el = R.get_at(data, tokens[:-1])
        if not isinstance(field_el, dict) or not field_el.get("value"):
            return None
        field_el.pop("value")
        return f"the sign-in form's {field_el.get('name')!r} box starts empty", R.Touch(pages=R._page_of(tokens, data))
    blank = re.fullmatch(r"\$\.database\.tables\[(\d+)\]\.rows\[(\d+)\]\.(\w+)", issue.location)
    if blank is not None:
        return _give_password(data, auth if isinstance(auth, dict) else {}, *blank.groups())
    named = re.search(r"it should be '(\w+)'$", issue.message)
    if named is None or not isinstance(auth, dict) or not issue.location.endswith(".password_column"):
        return None
    old, auth["password_column"] = auth.get("password_column", "password"), named.group(1)
    return f"logins check {named.group(1)!r}, not {old!r}", R.Touch(tables={auth.get("table", "users")})


def _give_password(data: dict[str, Any], auth: dict[str, Any], t_index: str, r_index: str, column: str) -> R.Outcome | None:
    """A blank (or default) password becomes one made from the account's name (the same account, the same password)."""
    try:
        table = data["database"]["tables"][int(t_index)]
        row = table["rows"][int(r_index)]
    except (KeyError, IndexError, TypeError):
        return None
    from veriweb.verify.checks_pages import weak_password

    name = str(row.get(auth.get("username_column", "username")) or r_index)
    if column != auth.get("password_column", "password") or (
            str(row.get(column) or "").strip() and not weak_password(name, str(row.get(column)))):
        return None
    row[column] = f"{name}-{zlib.crc32(name.encode()) % 90 + 10}"
    return f"{table.get('name')} row {r_index} ({name}) has a password of its own", R.Touch(tables={table.get("name", "users")})


OPERATORS: dict[str, R.Operator] = {
    "M014": reopen_link, "S015": own_choices, "S012": rebind_reference, "S013": fix_field_type, "S014": retarget_entity_link,
    "M009": bind_amount, "M010": show_column, "M011": leave, "M015": restate_period,
    "C008": match_detail, "C009": restore_guard, "C010": fix_seed_date, "C013": fix_view, "S010": fix_auth,
}
"""The operators of this module, by code (M012 falls back to dropping its task)."""

__all__ = ["OPERATORS", "fix_auth", "bind_amount", "own_choices", "reopen_link", "fix_field_type", "fix_seed_date", "fix_view", "leave", "match_detail", "rebind_reference",
           "restate_period", "restore_guard", "retarget_entity_link", "show_column"]

"""Repair operators for the checks of :mod:`veriweb.verify.checks_tasks` (S016, C012).

- S016 at a task's ``start_url``: the task starts from the home page instead (the episode used
  to open on "not found"); the task is re-certified like every task a repair touches. A page
  predicate naming no page, or a user with no account, has no safe fix: the task is dropped.
- C012: a seed row that breaks a marker's invariant ``NOT EXISTS (SELECT 1 FROM T WHERE cond)``
  gets the nearest value that keeps it: a column compared with a number (``stock < 0``) takes
  that bound, a column compared with another column of the row (``refunded > total``) takes that
  column's value; of a condition that ANDs parts (one user's rows: ``user_id = :user_id AND qty >
  10``), the first comparison with a number is kept false, else a flag is turned off. A condition
  of any other shape is left alone (the site is then dropped, as before, rather than guessed at).
  A seed value outside the range every marker writing its column keeps moves to the nearest bound.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

from veriweb.scaffold.site import render_instruction
from veriweb.verify import repair as R
from veriweb.verify.checks import Issue
from veriweb.verify.checks_tasks import ROW_INVARIANT

_COMPARISON = re.compile(r"^\s*\(?\s*\"?(\w+)\"?\s*(<=|>=|<|>)\s*(?:(-?\d+(?:\.\d+)?)|\"?([A-Za-z_]\w*)\"?)\s*\)?\s*$")


def restart_task(data: dict[str, Any], issue: Issue, ctx: R.Context) -> R.Outcome | None:
    """S016: a start address no page serves becomes ``/``; a login wall before a goal page that shows nothing
    of the user opens; other S016 issues drop the task."""
    tokens = R.parse_path(issue.location)
    if tokens[-1] == "requires_login" and issue.message.endswith("it should be open to everyone"):
        page = R.get_at(data, tokens[:-1])
        if not isinstance(page, dict) or not page.get("requires_login"):
            return None
        page["requires_login"] = False  # a wall in front of a page that shows nothing of the user
        return f"page {page.get('id')!r} is open to everyone", R.Touch(pages={page.get("id", "")})
    index = R._task_index(data, tokens)
    if index is None:
        return None
    task = data["tasks"][index]
    served = any(page.get("route") == "/" for page in data.get("pages", []))
    if tokens[-1] == "start_url" and served and task.get("start_url") != "/":
        old, task["start_url"] = task.get("start_url"), "/"
        return f"task {task['id']!r} starts at / instead of {old!r}, which no page serves", R.Touch(tasks={task["id"]})
    return R._drop_task(data, index, ctx, issue.message)


def _fixes(condition: str) -> list[tuple[str, str, Any]]:
    """(column, operator, bound) for each comparison the condition ORs together, or [] when any
    part has another shape. ``bound`` is a number, or ``("column", name)``. A condition that ANDs
    parts (``user_id = :user_id AND qty > 10``) is kept once one of its comparisons is: the first
    that compares a column with a number (``qty > 10``), else a flag (``vacation = 1``)."""
    parts = re.split(r"\s+OR\s+", condition.strip(), flags=re.I)
    if len(parts) == 1 and re.search(r"\s+AND\s+", parts[0], flags=re.I):
        conjuncts = re.split(r"\s+AND\s+", parts[0].strip(), flags=re.I)
        for conjunct in conjuncts:
            match = _COMPARISON.match(conjunct)
            if match is not None and match.group(3) is not None:
                return [(match.group(1), match.group(2), float(match.group(3)))]
        for conjunct in conjuncts:
            flag = _FLAG.match(conjunct)
            if flag is not None:  # keeping a flag off keeps the whole condition false
                return [(flag.group(1), "flag", float(flag.group(2)))]
        return []
    out = []
    for part in parts:
        match = _COMPARISON.match(part)
        if match is None:
            return []
        column, op, number, other = match.groups()
        out.append((column, op, float(number) if number is not None else ("column", other)))
    return out


_FLAG = re.compile(r"^\s*\(?\s*\"?(\w+)\"?\s*=\s*([01])\s*\)?\s*$")


def keep_invariant(data: dict[str, Any], issue: Issue, ctx: R.Context) -> R.Outcome | None:
    """C012: move a seed row's values back inside the invariant it breaks (see the module doc), or, for a
    rule about groups that lost its scope, group by the key it holds per
    (:func:`veriweb.verify.checks_guards._unscoped_groups`)."""
    tokens = R.parse_path(issue.location)
    stray = re.search(r"who never sees it; it belongs to account (\S+), in folder (\S+)$", issue.message)
    if stray is not None and len(tokens) == 6 and tokens[:2] == ["database", "tables"]:
        found = R._table_row(data, tokens)
        if found is None:
            return None
        table, row = found
        row["user_id"], row[tokens[-1]] = ast.literal_eval(stray.group(1)), ast.literal_eval(stray.group(2))
        return f"{table['name']} row {row.get('id')!r} moved to its addressee's Inbox", R.Touch(tables={table["name"]})
    filed = re.search(r"(?:is missing from its own list and shown in another|\(the marker that makes it '[^']*'\) "
                      r"refuses: .*|carries its owner's own address as its sender: .*); its (\w+) should be (.+)$",
                      issue.message)
    if filed is not None and len(tokens) == 6 and tokens[:2] == ["database", "tables"]:  # a row filed elsewhere
        found = R._table_row(data, tokens)
        if found is None or tokens[-1] != filed.group(1):
            return None
        table, row = found
        old, row[filed.group(1)] = row.get(filed.group(1)), ast.literal_eval(filed.group(2))
        return f"{table['name']}.{filed.group(1)} {old!r} -> {row[filed.group(1)]!r}", R.Touch(tables={table["name"]})
    tally = re.search(r"rows, which it counts one by one: .*; its (\w+) should be (\d+)$", issue.message)
    found = R._table_row(data, tokens) if tally is not None and tokens[-1] == tally.group(1) else None
    if found is not None:  # a counter below the rows it counts: the count
        table, row = found
        old, row[tokens[-1]] = row.get(tokens[-1]), int(tally.group(2))
        return f"{table['name']}.{tokens[-1]} {old!r} -> {row[tokens[-1]]!r}", R.Touch(tables={table["name"]})
    length = re.search(r"could not have been written through it; it should be (-?\d+(?:\.\d+)?)$", issue.message)
    if length is not None and tokens[-1] in ("min_length", "max_length", "min", "max"):  # a bound the seed values break
        param, marker = R.get_at(data, tokens[:-1]), R.get_at(data, tokens[:2])
        if not isinstance(param, dict) or not isinstance(marker, dict):
            return None
        value = float(length.group(1))
        old, param[tokens[-1]] = param.get(tokens[-1]), int(value) if "length" in tokens[-1] or value == int(value) else value
        return (f"{marker['name']}.{param.get('name')}: {tokens[-1]} {old} -> {param[tokens[-1]]}",
                R.Touch(markers={marker["name"]}))
    if tokens[-1] == "predicate":
        from veriweb.verify.checks_guards import guard_fixes

        predicate, marker = R.get_at(data, tokens), R.get_at(data, tokens[:2])
        fix = next((f for f in guard_fixes(R.site_of(data)) if f.location == issue.location and f.sql), None)
        if fix is None or not isinstance(predicate, dict) or predicate.get("sql") == fix.sql:
            return None
        old, predicate["sql"] = predicate.get("sql"), fix.sql
        return f"marker {marker['name']!r}: {old!r} -> {fix.sql!r}", R.Touch(markers={marker["name"]})
    if issue.message.endswith("a line of nothing: the row should go") and len(tokens) == 5:
        table = R.get_at(data, tokens[:3])
        if not isinstance(table, dict) or not isinstance(tokens[4], int) or tokens[4] >= len(table.get("rows", [])):
            return None
        gone = table["rows"].pop(tokens[4])
        return f"{table['name']}: row {gone!r} removed (a line of nothing)", R.Touch(tables={table["name"]})
    found = R._table_row(data, tokens)
    if found is None:
        return None
    table, row = found
    apart = re.search(r"while every other row keeps them apart: (\w+) should be (.+)$", issue.message)
    if apart is not None and apart.group(1) == tokens[-1]:  # the value it most often has beside the other
        old, row[tokens[-1]] = row.get(tokens[-1]), json.loads(apart.group(2))
        return f"{table['name']}.{tokens[-1]} {old!r} -> {row[tokens[-1]]!r}", R.Touch(tables={table["name"]})
    ranged = re.search(r"is outside \S+ to \S+, the range every marker writing it keeps .*: it should be (-?[\d.]+)$",
                       issue.message)
    if ranged is not None and isinstance(tokens[-1], str) and isinstance(row.get(tokens[-1]), (int, float)):
        old, new = row[tokens[-1]], float(ranged.group(1))
        row[tokens[-1]] = int(new) if new.is_integer() and isinstance(old, int) else new
        return (f"{table['name']}.{tokens[-1]} {old!r} -> {row[tokens[-1]]!r}, inside the range its markers keep",
                R.Touch(tables={table["name"]}))
    prefixed = re.search(r"begins with its own \w+'s \w+: (\w+) should be (.+)$", issue.message)
    if prefixed is not None and prefixed.group(1) == tokens[-1]:  # the key of the parent the text names
        old, row[tokens[-1]] = row.get(tokens[-1]), json.loads(prefixed.group(2))
        return f"{table['name']}.{tokens[-1]} {old!r} -> {row[tokens[-1]]!r}, the row its text names", R.Touch(tables={table["name"]})
    chosen = re.search(r"is none of .*, the choices every marker writing it takes .*: it should be (\"[^\"]*\")$",
                       issue.message)
    if chosen is not None and isinstance(tokens[-1], str) and isinstance(row.get(tokens[-1]), str):
        old, row[tokens[-1]] = row[tokens[-1]], json.loads(chosen.group(1))
        return (f"{table['name']}.{tokens[-1]} {old!r} -> {row[tokens[-1]]!r}, one of the choices its markers take",
                R.Touch(tables={table["name"]}))
    for marker in data.get("markers", []):
        for check in marker.get("invariants", []):
            predicate = check.get("predicate", {})
            match = ROW_INVARIANT.match(predicate.get("sql", "")) if predicate.get("kind") == "sql" else None
            if match is None or match.group(1) != table.get("name"):
                continue
            fixes = _fixes(match.group(2))
            changed = []
            for column, op, bound in fixes:
                value = row.get(column)
                if op == "flag":
                    if value in (0, 1) and float(value) == bound:  # True == 1: a boolean counts
                        row[column] = (not value) if isinstance(value, bool) else 1 - int(value)
                        changed.append(f"{column} {value!r} -> {row[column]!r}")
                    continue
                if not isinstance(value, (int, float)) or isinstance(value, bool):
                    continue
                target = row.get(bound[1]) if isinstance(bound, tuple) else bound
                if not isinstance(target, (int, float)) or isinstance(target, bool):
                    continue
                broken = {"<": value < target, "<=": value <= target, ">": value > target, ">=": value >= target}[op]
                if not broken or op in ("<=", ">="):  # a strict bound is kept by the bound itself
                    continue
                new = int(target) if isinstance(value, int) and float(target).is_integer() else target
                row[column] = new
                changed.append(f"{column} {value!r} -> {new!r}")
            if changed:
                return (f"{table['name']} row {row.get(table.get('primary_key', 'id'))!r}: {', '.join(changed)} "
                        f"(marker {marker['name']!r} keeps {match.group(2).strip()!r} false)",
                        R.Touch(tables={table["name"]}))
    return None


def _retyped(step: str, old: str, new: str) -> str:
    """A certificate step with the text ``old`` it types (or sends) written ``new``, quoted again as actions are."""
    import dataclasses

    from veriweb.engine.actions import format_action, parse_action
    from veriweb.errors import ActionSyntaxError

    try:
        action = parse_action(step)
    except ActionSyntaxError:  # a step that does not parse is left to the replay to report
        return step
    changed = {f.name: getattr(action, f.name).replace(old, new) for f in dataclasses.fields(action)
               if isinstance(getattr(action, f.name), str) and old in getattr(action, f.name)}
    return format_action(dataclasses.replace(action, **changed)) if changed else step


def restate_slot(data: dict[str, Any], issue: Issue, ctx: R.Context) -> R.Outcome | None:
    """M016: a progress step the goal lost goes back into the goal; the instruction states the day,
    month or amount the goal reads (the stated slot takes the
    goal's value, written as it writes one, and the instruction is rendered again), or the slot goes back
    where the template wrote another record's name; any other M016 drops its task."""
    tokens = R.parse_path(issue.location)
    plain = re.search(r"which holds characters no keyboard types, .*; it should ask for (.+)$", issue.message)
    if plain is not None and len(tokens) == 4 and tokens[2] == "slots":
        task = R.get_at(data, tokens[:2])
        old, new = task["slots"].get(tokens[3]), ast.literal_eval(plain.group(1))
        if not isinstance(old, str):
            return None
        task["slots"][tokens[3]] = new
        task["instruction"] = render_instruction(task["template"], task["slots"])
        task["certificate"] = [_retyped(step, old, new) for step in task.get("certificate", [])]
        return f"task {task['id']!r}: slot {tokens[3]!r} written in plain characters", R.Touch(tasks={task["id"]})
    unasked = re.search(r"which the instruction never asks for: doing exactly what it says can fail; the goal should not "
                        r"test (\w+)$", issue.message)
    if unasked is not None and len(tokens) >= 2 and tokens[-2] == "where":  # a flag the words never ask for: untested
        where, task = R.get_at(data, tokens[:-1]), R.get_at(data, tokens[:2])
        if not isinstance(where, list) or not isinstance(where[tokens[-1]], dict) \
                or where[tokens[-1]].get("column") != unasked.group(1):
            return None
        where.pop(tokens[-1])
        return f"task {task['id']!r}: its goal no longer tests {unasked.group(1)}", R.Touch(tasks={task["id"]})
    per_unit = re.search(r"but its goal bounds (\w+) / (\w+), a figure per \2; it should bound \1$", issue.message)
    if per_unit is not None and tokens[-1] == "sql":  # the whole figure, as the words bound it
        predicate, task = R.get_at(data, tokens[:-1]), R.get_at(data, tokens[:2])
        whole, unit = per_unit.groups()
        pattern = re.compile(rf"\b{whole}\s*/\s*{unit}\b")
        if not isinstance(predicate, dict) or not pattern.search(predicate.get("sql", "")):
            return None
        predicate["sql"] = pattern.sub(whole, predicate["sql"])
        return f"task {task['id']!r}: its goal bounds {whole}, not {whole} / {unit}", R.Touch(tasks={task["id"]})
    started = re.search(r"a day it does not ask about .*: it should start at '([^']*)'$", issue.message)
    if started is not None and tokens[-1] == "start_url":  # a start filled in with another day: the bare address
        task = R.get_at(data, tokens[:2])
        old, task["start_url"] = task.get("start_url"), started.group(1)
        return f"task {task['id']!r} starts at {started.group(1)!r}, not {old!r}", R.Touch(tasks={task["id"]})
    weekday = re.search(r"says ('.*'|\".*\"), but \S+ is not a \w+: the weekday contradicts the date; it should read "
                        r"('.*'|\".*\")$", issue.message)
    if weekday is not None:  # the day's own weekday, in the slot and the instruction alike
        task = R.get_at(data, tokens[:2])
        wrong, right = ast.literal_eval(weekday.group(1)), ast.literal_eval(weekday.group(2))
        if not isinstance(task, dict) or wrong not in task.get("instruction", ""):
            return None
        for name, value in task.get("slots", {}).items():
            if isinstance(value, str) and wrong in value:
                task["slots"][name] = value.replace(wrong, right)
        task["instruction"] = task["instruction"].replace(wrong, right)
        if task.get("template"):
            task["template"] = task["template"].replace(wrong, right)
        return f"task {task['id']!r}: {wrong!r} -> {right!r}", R.Touch(tasks={task["id"]})
    loose = re.search(r"any text holding that piece passes; it should equal slot\.(\w+)$", issue.message)
    if loose is not None and tokens[-1] == "value":  # a piece of the dictated text: the whole of it
        cond, task = R.get_at(data, tokens[:-1]), R.get_at(data, tokens[:2])
        if not isinstance(cond, dict) or not isinstance(task, dict):
            return None
        old = (cond.get("op"), cond.get("value"))
        cond["op"], cond["value"] = "=", {"ref": f"slot.{loose.group(1)}"}
        return f"task {task['id']!r}: {cond.get('column')} {old[0]} {old[1]!r} -> = slot.{loose.group(1)}", \
            R.Touch(tasks={task["id"]})
    if issue.message.endswith("the step belongs in the goal") and tokens[-2:-1] == ["progress"]:
        task, step = R.get_at(data, tokens[:2]), R.get_at(data, tokens)
        if not isinstance(task, dict) or not isinstance(step, dict):
            return None
        task["goal"].append(step["predicate"])
        return f"task {task['id']!r}: its goal also demands {step.get('description', '')!r}", R.Touch(tasks={task["id"]})
    if issue.message.endswith("but its goal holds when any one of them does: it should demand all of them") \
            and tokens[-2:-1] == ["goal"]:  # an "any" of the parts the instruction asks for all of: each one
        task, goal = R.get_at(data, tokens[:2]), R.get_at(data, tokens)
        if not isinstance(goal, dict) or goal.get("kind") != "any" or not isinstance(task, dict):
            return None
        index = tokens[-1]
        task["goal"][index:index + 1] = goal["items"]
        return f"task {task['id']!r}: its goal demands every one of {len(goal['items'])} parts", R.Touch(tasks={task["id"]})
    crossed = re.search(r"the slots are crossed, .*; (\w+) should read (\w+) and (\w+) should read (\w+)$", issue.message)
    if crossed is not None and tokens[-1:] == ["where"]:  # each column its own slot again
        conds, task = R.get_at(data, tokens), R.get_at(data, tokens[:2])
        wanted = {crossed.group(1): crossed.group(2), crossed.group(3): crossed.group(4)}
        if not isinstance(conds, list) or not isinstance(task, dict):
            return None
        changed = 0
        for cond in conds:
            value = cond.get("value") if isinstance(cond, dict) else None
            if cond.get("column") in wanted and cond.get("op", "=") == "=" and isinstance(value, dict) \
                    and str(value.get("ref", "")).startswith("slot."):
                value["ref"] = f"slot.{wanted.pop(cond['column'])}"
                changed += 1
        if changed != 2:
            return None
        return (f"task {task['id']!r}: {crossed.group(1)} reads slot {crossed.group(2)}, {crossed.group(3)} reads slot "
                f"{crossed.group(4)}", R.Touch(tasks={task["id"]}))
    twin = re.search(r"repeats a (?:goal|progress) on slot (\w+), .*: the repeat should read (\w+)$", issue.message)
    if twin is not None and tokens[-2] in ("goal", "progress"):  # the repeat reads the slot nothing judged
        goal = R.get_at(data, tokens)
        if not isinstance(goal, dict):
            return None
        task = R.get_at(data, tokens[:2])
        fixed = json.loads(json.dumps(goal).replace(f'"slot.{twin.group(1)}"', f'"slot.{twin.group(2)}"'))
        R.get_at(data, tokens[:-1])[tokens[-1]] = fixed
        return f"task {task['id']!r}: the repeated goal reads {twin.group(2)}", R.Touch(tasks={task["id"]})
    hidden = re.search(r"its goal reads (\w+) = .*, which the instruction never states$", issue.message)
    if hidden is not None and tokens[-1:] == ["template"]:  # the slot stated at the end
        task = R.get_at(data, tokens[:-1])
        name = hidden.group(1)
        doubled = [slot for slot in task.get("slots", {}) if f"{{{{{slot}}}}}" in task["template"]]
        if doubled:  # slots written with doubled braces, which render as their names: written as slots
            for slot in doubled:
                task["template"] = task["template"].replace(f"{{{{{slot}}}}}", f"{{{slot}}}")
            task["instruction"] = render_instruction(task["template"], task["slots"])
            return (f"task {task['id']!r}: {', '.join(f'{{{{{slot}}}}}' for slot in doubled)} written as slots in the "
                    f"template", R.Touch(tasks={task["id"]}))
        task["template"] = f"{task['template'].rstrip()} ({name.replace('_', ' ')}: {{{name}}})"
        task["instruction"] = render_instruction(task["template"], task["slots"])
        return f"task {task['id']!r}: {{{name}}} stated in the template", R.Touch(tasks={task["id"]})
    named = re.search(r"writes out (?:\w+ \w+ )?(['\"])(.*?)\1 where its slot (\w+)", issue.message)
    if named is not None and tokens[-1:] == ["template"]:  # the slot back where the other record's name is
        task = R.get_at(data, tokens[:-1])
        name, written = named.group(3), named.group(2)
        at = task["template"].lower().find(written.lower())
        if at < 0:
            return None
        task["template"] = task["template"][:at] + "{" + name + "}" + task["template"][at + len(written):]
        task["instruction"] = render_instruction(task["template"], task["slots"])
        return f"task {task['id']!r}: {written!r} in the template -> {{{name}}}", R.Touch(tasks={task["id"]})
    month = re.search(r"but its goal reads (\w+) '(\d{4}-\d{2}(?:-\d{2})?)', which names", issue.message)
    if month is not None and tokens[-2:-1] == ["slots"]:  # "September 2025" stated, "2025-10" read
        task = R.get_at(data, tokens[:2])
        old = task["slots"][tokens[-1]]
        task["slots"][tokens[-1]] = _month_like(month.group(2), str(old))
        task["instruction"] = render_instruction(task["template"], task["slots"])
        return (f"task {task['id']!r}: {tokens[-1]} {old!r} -> {task['slots'][tokens[-1]]!r} (the month its goal "
                f"reads)", R.Touch(tasks={task["id"]}))
    said = re.search(r"says '([^']+)' \(.*\), but its judge reads (\w+) = '([^']+)': the instruction", issue.message)
    if said is not None and tokens[-1] == "value":  # the value the instruction says
        task = _reset_condition(data, tokens, said.group(3), said.group(1))
        return None if task is None else (f"task {task['id']!r}: {said.group(2)} {said.group(3)!r} -> "
                                          f"{said.group(1)!r}, as its instruction says", R.Touch(tasks={task["id"]}))
    flag = re.search(r"but reads (\w+) = (True|False), the opposite of its words", issue.message)
    if flag is not None and tokens[-1] == "value":  # the test turned round to what the words say
        old = flag.group(2) == "True"
        task = _reset_condition(data, tokens, old, not old)
        return None if task is None else (f"task {task['id']!r}: {flag.group(1)} = {old} -> {not old}, as its "
                                          "instruction says", R.Touch(tasks={task["id"]}))
    spelt = re.search(r"compares \S+ with '([^']+)', a value no row holds or gets, spelt like '([^']+)'", issue.message)
    if spelt is not None and tokens[-1] == "value":  # spelt as the data spells it
        task = _respell(data, tokens, spelt.group(1), spelt.group(2))
        return None if task is None else (f"task {task['id']!r}: {spelt.group(1)!r} -> {spelt.group(2)!r}, as "
                                          "the data spells it", R.Touch(tasks={task["id"]}))
    login = re.search(r"tells the agent to log in as '([^']+)', but it acts as", issue.message)
    if login is not None and tokens[-1] == "user":  # the account the instruction signs in with
        task = R.get_at(data, tokens[:2])
        old, task["user"] = task["user"], login.group(1)
        return f"task {task['id']!r}: acts as {login.group(1)!r} (not {old!r}), as its instruction logs in", \
            R.Touch(tasks={task["id"]})
    if "signs in with another: the instruction's login fails" in issue.message and tokens[-2:] == ["slots", "password"]:
        task = R.get_at(data, tokens[:2])
        password = _password(data, tokens[1])
        if password is None:
            return R.drop_task(data, issue, ctx)
        task["slots"]["password"] = password
        task["instruction"] = render_instruction(task["template"], task["slots"])
        return f"task {task['id']!r}: the password {task['user']!r} signs in with", R.Touch(tasks={task["id"]})
    bound = re.search(r"a bound it (includes|excludes), but its judge compares with (\S+) \(not (\S+)\)$", issue.message)
    if bound is not None and tokens[-1] == "op":  # "one stop or none" judged with stops < 1: <= 1
        task = _reset_condition(data, tokens, bound.group(2), bound.group(3))
        column = R.get_at(data, tokens[:-1]).get("column") if task is not None else None
        return None if task is None else (f"task {task['id']!r}: {column} {bound.group(2)} -> {bound.group(3)}, the "
                                          f"bound its instruction {bound.group(1)}", R.Touch(tasks={task["id"]}))
    if "but its answer never filters on" in issue.message:  # the condition the instruction names, added
        from veriweb.scaffold.io import from_data
        from veriweb.verify.checks_tasks import unfiltered_slots

        site = from_data(data, check_id=False)
        task = R.get_at(data, tokens[:2])
        found = next(iter(unfiltered_slots(site, site.tasks[tokens[1]])), None)
        if found is None:
            return None
        slot, column, condition, path = found
        query = R.get_at(data, tokens[:2] + R.parse_path("$." + path))
        query.setdefault("where", []).append(condition)
        return (f"task {task['id']!r}: its answer filters on {column} by the {slot} its instruction names",
                R.Touch(tasks={task["id"]}))
    cents = re.search(r"but its goal \([^)]*\) reads \w+ = (\d+) cents \((\$[\d,]+\.\d{2})\)", issue.message)
    if cents is not None and tokens[-2:-1] == ["slots"]:  # "$320.00" stated, 23000 cents read: state $230.00
        task = R.get_at(data, tokens[:2])
        old = task["slots"][tokens[-1]]
        task["slots"][tokens[-1]] = cents.group(2) if "." in str(old) else cents.group(2)[:-3]
        task["instruction"] = render_instruction(task["template"], task["slots"])
        return (f"task {task['id']!r}: {tokens[-1]} {old!r} -> {task['slots'][tokens[-1]]!r} (the amount its goal "
                f"reads)", R.Touch(tasks={task["id"]}))
    found = re.search(r"but its goal reads (\w+) = '([^']*)', a day the instruction never states", issue.message)
    if found is None or tokens[-2:-1] != ["slots"]:
        return R.drop_task(data, issue, ctx)
    from veriweb.verify.checks_tasks import written_like

    task = R.get_at(data, tokens[:2])
    old = task["slots"][tokens[-1]]
    today = _today(data)
    task["slots"][tokens[-1]] = written_like(found.group(2), str(old), today)
    task["instruction"] = render_instruction(task["template"], task["slots"])
    return (f"task {task['id']!r}: {tokens[-1]} {old!r} -> {task['slots'][tokens[-1]]!r} (the day its goal reads)",
            R.Touch(tasks={task["id"]}))


def _month_like(iso: str, example: str) -> str:
    """The month of ``iso`` ("2025-10" or a day of it) written as ``example`` writes one ("September
    2025" -> "October 2025", "Sep" -> "Oct"): its month name and year replaced.

    Raises:
        ValueError: ``example`` names no month.
    """
    import calendar

    year, number = iso.split("-")[:2]
    names = [(calendar.month_name[n], calendar.month_name[int(number)]) for n in range(1, 13)]
    names += [(calendar.month_abbr[n], calendar.month_abbr[int(number)]) for n in range(1, 13)]
    for old, new in names:
        found = re.search(rf"\b{old}\b", example, re.IGNORECASE)
        if found is not None:
            word = new if found.group(0)[:1].isupper() else new.lower()
            out = example[:found.start()] + word + example[found.end():]
            return re.sub(r"\b(?:19|20)\d\d\b", year, out)
    raise ValueError(f"{example!r} names no month")


def _today(data: dict[str, Any]) -> Any:
    """The site's virtual today (a date; the default clock's when its data names none)."""
    from veriweb.scaffold.site import Clock

    return Clock.model_validate(data.get("clock") or {}).today


restate_slot.gives_up = True  # type: ignore[attr-defined]  # else it drops a task: after the other fixes

def _candidates_by_answer(data: dict[str, Any], issue: Issue, answer: str) -> R.Outcome | None:
    """The candidates' query selects the one text column of its table holding ``answer``."""
    tokens = R.parse_path(issue.location)
    query, task = R.get_at(data, tokens[:-1]), R.get_at(data, tokens[:2])
    table = R._table(data, query.get("table", "")) if isinstance(query, dict) else None
    if table is None:
        return None
    holding = sorted({c for row in table.get("rows", []) for c, v in row.items() if v == answer})
    if len(holding) != 1 or holding[0] == query.get("select"):
        return None
    old, query["select"] = query.get("select"), holding[0]
    return (f"task {task['id']!r}: its answer's candidates are {table['name']}.{holding[0]}, not {old}",
            R.Touch(tasks={task["id"]}))


def reread_answer(data: dict[str, Any], issue: Issue, ctx: R.Context) -> R.Outcome | None:
    """M017: the answer takes the aggregate, or reads the column, its instruction asks for
    (:func:`veriweb.verify.checks_tasks.answer_asks_other`); when no one column is asked for (an
    amount asked, several money columns, none named), the task is dropped."""
    from veriweb.scaffold.io import from_data
    from veriweb.verify.checks_tasks import answer_asks_other

    if issue.message.endswith("the answer to the question is judged wrong"):  # a quantity asked, a date judged
        return R.drop_task(data, issue, ctx)
    rule = re.search(r"it should be ('\w+'|[\d.]+)$", issue.message)
    if rule is not None and issue.location.rsplit(".", 1)[-1] in ("order", "tolerance"):
        tokens = R.parse_path(issue.location)
        answer, name = R.get_at(data, tokens[:-1]), tokens[-1]
        if not isinstance(answer, dict):
            return None
        answer[name] = ast.literal_eval(rule.group(1))
        task = R.get_at(data, tokens[:2])
        return f"task {task['id']!r}: its answer is judged with {name} {answer[name]!r}, as its words ask", \
            R.Touch(tasks={task["id"]})
    tested = re.search(r"but its answer never tests (\w+), .*: it should test \1 (=|>) (.+)$", issue.message)
    if tested is not None:  # rows in any state read where the instruction names one
        return _test_state(data, issue, tested.group(1), tested.group(2), ast.literal_eval(tested.group(3)))
    named = re.search(r"'s answer is ('.*'|\".*\"), but the names it must not mention", issue.message)
    if named is not None:  # candidates of another kind: the column of their table that holds the answer
        return _candidates_by_answer(data, issue, ast.literal_eval(named.group(1)))
    tokens = R.parse_path(issue.location)
    task_path = tokens[:2]
    task = R.get_at(data, task_path)
    site = from_data(data, check_id=False)
    found = answer_asks_other(site, site.tasks[tokens[1]])
    if found is None:
        return None
    what, wrong, right = found
    if not right:
        return R.drop_task(data, issue, ctx)
    if what == "list":  # a list of the rows' keys: the column asked for
        task["answer"]["list_query"]["select"] = right
        return (f"task {task['id']!r}: its answer lists {right!r}, not {wrong!r} (what its instruction asks for)",
                R.Touch(tasks={task["id"]}))
    task["answer"]["value"]["query"][what] = right
    if what == "agg" and right == "count":
        task["answer"]["value"]["query"]["select"] = "*"  # the rows, not a column of them
    return (f"task {task['id']!r}: its answer's {what} {wrong!r} -> {right!r} (what its instruction asks for)",
            R.Touch(tasks={task["id"]}))


def _test_state(data: dict[str, Any], issue: Issue, column: str, op: str, value: Any) -> R.Outcome | None:
    """The answer's query keeps only the rows in the state its instruction names (``M017`` of
    :func:`veriweb.verify.checks_words.unasked_states`)."""
    tokens = R.parse_path(issue.location)
    query = R.get_at(data, tokens[:-1])
    where = query.setdefault("where", []) if isinstance(query, dict) and tokens[-1] == "where" else None
    if not isinstance(where, list) or any(isinstance(c, dict) and c.get("column") == column for c in where):
        return None
    where.append({"column": column, "value": value} if op == "=" else {"column": column, "op": op, "value": value})
    task = data["tasks"][tokens[1]]
    return (f"task {task['id']!r}: its answer reads only rows with {column} {op} {value!r} (the state its "
            f"instruction names)", R.Touch(tasks={task["id"]}))


reread_answer.gives_up = True  # type: ignore[attr-defined]  # it may drop its task

def turn_order(data: dict[str, Any], issue: Issue, ctx: R.Context) -> R.Outcome | None:
    """M018: the ordering's first key sorted the way the instruction's words ask
    (:func:`veriweb.verify.checks_tasks.orders_against_words`); a list answer whose instruction asks for no
    order judged in any order."""
    from veriweb.scaffold.io import from_data
    from veriweb.verify.checks_tasks import orders_against_words

    tokens = R.parse_path(issue.location)
    if tokens[-2:] == ["answer", "order"] and "asks for no order" in issue.message:
        answer = R.get_at(data, tokens[:-1])
        if not isinstance(answer, dict) or answer.get("order") != "exact":
            return None
        answer["order"] = "any"  # the instruction asks for no order: any order of the right list is right
        task = data["tasks"][tokens[1]]
        return f"task {task['id']!r}: its list answer judged in any order", R.Touch(tasks={task["id"]})
    site = from_data(data, check_id=False)
    found = next((f for f in orders_against_words(site, site.tasks[tokens[1]], tokens[1]) if f[0] == issue.location),
                 None)
    order = R.get_at(data, tokens)
    if found is not None and found[2] in ("min", "max") and order == found[2]:  # the aggregate its words ask
        R.get_at(data, tokens[:-1])["agg"] = "max" if order == "min" else "min"
        task = data["tasks"][tokens[1]]
        return (f"task {task['id']!r}: {found[2]}({found[1]}) -> {'max' if order == 'min' else 'min'}, as "
                f"{found[3]!r} asks", R.Touch(tasks={task["id"]}))
    if found is None or not isinstance(order, list) or not order:
        return None
    _, column, direction, said = found
    if direction == "named":  # sorted by another column than the one named: by it first, its words' way
        from veriweb.verify.checks_tasks import _DIRECTION_WORDS

        told = re.sub(r"\{\w+\}", " ", data["tasks"][tokens[1]]["template"]).lower()
        down = any(re.search(rf"\b{w}\b", told) for w in _DIRECTION_WORDS["amount"][1])
        order.insert(0, {"column": said, "dir": "desc" if down else "asc"})
        task = data["tasks"][tokens[1]]
        return (f"task {task['id']!r}: sorted by {said} first, as its words ask", R.Touch(tasks={task["id"]}))
    order[0]["dir"] = "asc" if direction == "desc" else "desc"
    task = data["tasks"][tokens[1]]
    return (f"task {task['id']!r}: {column} sorted {order[0]['dir']}ending, as {said!r} asks",
            R.Touch(tasks={task["id"]}))


def fresh_name(data: dict[str, Any], issue: Issue, ctx: R.Context) -> R.Outcome | None:
    """F010: the task asks to create its record under a name no row has yet (the slot's own code with
    the next free number, "SMOOTH30" -> "SMOOTH31", or its name with a word more, "Travel" -> "Travel
    notes"), and the instruction is rendered again; the goal reads the slot, so it follows."""
    from veriweb.scaffold.io import from_data
    from veriweb.verify.checks_tasks import creates_existing

    tokens = R.parse_path(issue.location)
    site = from_data(data, check_id=False)
    found = creates_existing(site, site.tasks[tokens[1]])
    if found is None or tokens[-2:-1] != ["slots"] or found[0] != tokens[-1]:
        return None
    slot, table, column = found
    from veriweb.verify.checks import near_miss

    taken = {str(r.get(column, "")).strip().lower() for r in site.database.table(table).rows}
    corpus = {v.casefold() for t in site.database.tables for r in t.rows for v in r.values() if isinstance(v, str)}
    task = data["tasks"][tokens[1]]
    old = str(task["slots"][slot])
    number = re.search(r"(\d+)$", old)
    numbered = [f"{old[:number.start()]}{n}" for n in range(int(number.group(1)) + 1, int(number.group(1)) + 100)
                ] if number else []
    worded = [f"{old} {word}" for word in ("notes", "archive", "extra", "misc", "later")]
    # a name one slip from a name the site has reads as a misspelling of it (M005): not one of those
    new = next((c for c in numbered + worded if c.lower() not in taken and c.casefold() not in corpus
                and near_miss(c, corpus) is None), None)
    if new is None:
        return None
    task["slots"][slot] = new
    task["instruction"] = render_instruction(task["template"], task["slots"])
    return (f"task {task['id']!r}: {slot} {old!r} -> {new!r}, a {column} no {table} row has yet",
            R.Touch(tasks={task["id"]}))


def _reset_condition(data: dict[str, Any], tokens: list[Any], old: Any, new: Any) -> dict[str, Any] | None:
    """The part at ``tokens`` (a condition's ``value`` or ``op``) set from ``old`` to ``new``; the task, or
    ``None`` when the part is not ``old``."""
    condition = R.get_at(data, tokens[:-1])
    if not isinstance(condition, dict) or condition.get(tokens[-1]) != old:
        return None
    condition[tokens[-1]] = new
    return R.get_at(data, tokens[:2])


def _respell(data: dict[str, Any], tokens: list[Any], old: str, new: str) -> dict[str, Any] | None:
    """The condition value at ``tokens`` (a value or a list of values) with ``old`` spelt ``new``; the task,
    or ``None`` when it does not hold ``old``."""
    condition = R.get_at(data, tokens[:-1])
    value = condition.get(tokens[-1]) if isinstance(condition, dict) else None
    if isinstance(value, list) and old in value:
        condition[tokens[-1]] = [new if v == old else v for v in value]
        return R.get_at(data, tokens[:2])
    return _reset_condition(data, tokens, old, new)


def _password(data: dict[str, Any], index: int) -> str | None:
    """The password of the account task ``index`` acts as, or ``None``."""
    from veriweb.scaffold.io import from_data
    from veriweb.verify.checks_tasks import task_user_row

    site = from_data(data, check_id=False)
    row = task_user_row(site, site.tasks[index])
    value = row.get(site.auth.password_column) if row is not None and site.auth is not None else None
    return str(value) if value is not None else None


def give_login(data: dict[str, Any], issue: Issue, ctx: R.Context) -> R.Outcome | None:
    """F012: the instruction opens with the account and password of the user the task acts as
    ("Log in as {username} (password: {password}). "), and is rendered again; a task that gives no
    credentials at all starts signed in."""
    tokens = R.parse_path(issue.location)
    task = R.get_at(data, tokens[:2])
    if tokens[-1] == "start_logged_in" and isinstance(task, dict):  # no credentials anywhere: it starts signed in
        task["start_logged_in"] = True
        return f"task {task['id']!r} starts signed in as {task.get('user')!r}", R.Touch(tasks={task["id"]})
    password = _password(data, tokens[1])
    if password is None:
        return R.drop_task(data, issue, ctx)
    task["slots"]["username"] = task["user"]
    task["slots"]["password"] = password
    template = task["template"]
    if "{username}" not in template or "{password}" not in template:  # a login said by halves is said whole
        template = "Log in as {username} (password: {password}). " + re.sub(r"\{(?:username|password)\}", "", template)
    task["template"] = template
    task["instruction"] = render_instruction(template, task["slots"])
    return f"task {task['id']!r}: the instruction gives {task['user']!r}'s login", R.Touch(tasks={task["id"]})


give_login.gives_up = True  # type: ignore[attr-defined]  # it may drop its task


def align_goal_key(data: dict[str, Any], issue: Issue, ctx: R.Context) -> R.Outcome | None:
    """F011: the goal's fixed key becomes the footprint's when the footprint's row is the task user's
    own and the goal's is not (the order "of yours" the instruction means); otherwise which one the
    task means is not said, and the task is dropped."""
    from veriweb.scaffold.io import from_data
    from veriweb.verify.checks_tasks import goal_keys_outside, task_user_row

    tokens = R.parse_path(issue.location)
    needed = re.search(r"; it should allow (\w+)$", issue.message)
    if needed is not None and tokens[-1] == "ops":
        ops = R.get_at(data, tokens)
        if not isinstance(ops, list) or needed.group(1) in ops:
            return None
        ops.append(needed.group(1))
        task_id = data["tasks"][tokens[1]]["id"]
        return f"task {task_id!r}: its footprint entry allows {needed.group(1)} too, as its goal needs", R.Touch(tasks={task_id})
    site = from_data(data, check_id=False)
    task = site.tasks[tokens[1]]
    found = next((f for f in goal_keys_outside(site, task, tokens[1]) if f[0] == issue.location), None)
    if found is None:
        return None
    _, key, allowed = found
    query = site.tasks[tokens[1]].goal[tokens[3]].query
    table = site.database.table(query.table)
    user = task_user_row(site, task)
    uid = user.get(site.auth.id_column) if user is not None and site.auth is not None else None
    owner = {r.get(table.primary_key): r.get("user_id") for r in table.rows} if table is not None else {}
    if uid is None or owner.get(allowed) != uid or owner.get(key) == uid:
        return R.drop_task(data, issue, ctx)
    R.get_at(data, tokens[:-1])["value"] = allowed
    return (f"task {task.id!r}: its goal's {query.table} row {key!r} -> {allowed!r}, the user's own that its "
            f"footprint lets it write", R.Touch(tasks={task.id}))


align_goal_key.gives_up = True  # type: ignore[attr-defined]  # it may drop its task

def certified_difficulty(site: Any, task: Any, certificate: list[str]) -> str:
    """The difficulty a certificate gives its task (:func:`veriweb.generate.plan.difficulty`): its steps,
    and the pages a replay of it visits."""
    from veriweb.generate.plan import difficulty
    from veriweb.verify.pipeline import _visits

    pages = _visits(site.model_copy(update={"tasks": [task]}), {task.id: certificate}).get(task.id, set())
    return difficulty(len(certificate), len(pages))


def relabel_task(data: dict[str, Any], issue: Issue, ctx: R.Context) -> R.Outcome | None:
    """M019: a task labelled against its certificate's length gets the label the certificate gives it."""
    tokens = R.parse_path(issue.location)
    task = R.get_at(data, tokens[:2])
    if not isinstance(task, dict) or tokens[-1] != "difficulty":
        return None
    site = R.site_of(data)
    model = site.tasks[tokens[1]]
    old, task["difficulty"] = task.get("difficulty"), certified_difficulty(site, model, list(model.certificate))
    if task["difficulty"] == old:
        return None
    return f"task {task['id']!r}: difficulty {old!r} -> {task['difficulty']!r}", R.Touch(tasks={task["id"]})


OPERATORS: dict[str, R.Operator] = {"S016": restart_task, "M016": restate_slot, "C012": keep_invariant,
                                    "M017": reread_answer, "M018": turn_order, "F010": fresh_name,
                                    "F011": align_goal_key, "F012": give_login, "M019": relabel_task}
"""The operators of this module, by code."""

__all__ = ["OPERATORS", "certified_difficulty", "relabel_task", "align_goal_key", "fresh_name", "give_login", "keep_invariant", "reread_answer", "restart_task", "restate_slot", "turn_order"]

"""How the search fills forms: the value each field gets and the option each drop-down, as costs, and form-filling moves.

A mixin of :class:`veriweb.verify.relevance.Hints`. A field's value comes from the task's slots
(the slot named like the field, or the one the next progress subgoal wants in the column the
field is named like), the user's login, or what the page shows (an address, an amount, the value
the goal computes); an option is the slot's value or the literal the goal wants. :meth:`macros`
turns the clear choices into one move per form: fill every field, then submit.
"""

from __future__ import annotations

import re
from typing import Any

from veriweb.engine.actions import Fill, SelectOption, format_action
from veriweb.engine.page import Node, PageModel
from veriweb.engine.session import Session
from veriweb.engine.templates import Route
from veriweb.verify.pagegraph import resolve_template
from veriweb.verify.wording import (
    AMOUNT, AMOUNT_WORDS, DATE_WORDS, EMAIL, EMAIL_WORDS, ISO, NUMBER_WORDS, NUMERIC, PERSON, PERSON_SLOTS,
    TEXT_WORDS, fold, looks_like_date, words,
)

MACRO_VARIANTS = 4
"""How many ways to fill one form a page's moves include."""
_BID = re.compile(r"\('([^']*)'")


class FormFilling:
    """Form-filling costs and moves; the attributes are :class:`veriweb.verify.relevance.Hints`'s."""

    task: Any
    values: list[str]
    slot_names: list[str]
    instruction: frozenset[str] | set[str]
    good_markers: set[str]
    login: tuple[str, str] | None
    routes: list[Route]
    aliases: dict[str, list[str]]
    goal_slots: dict[str, set[str]]
    goal_literals: dict[str, set[str]]
    frozen: dict[str, set[str]]
    focus: dict[str, set[str]]
    level: int
    levels: list[dict[str, set[str]]]
    computed: dict[str, set[str]]
    _named: dict[tuple[str, str, str], bool]
    _fill_costs: dict[tuple[Any, ...], int]
    iso_count: int
    _fills: dict[tuple[str, str], str]
    _options: dict[tuple[Any, ...], int]
    _macros: dict[tuple[int, int], tuple[PageModel, list[tuple[tuple[str, ...], str | None, Any]]]]
    needed: dict[str, set[str]]

    _shown_text: dict[int, tuple[PageModel, str]]

    def _shown(self, page: PageModel) -> str:
        """The page's visible text (headings, paragraphs, cells, links), folded, for substring tests."""
        cached = self._shown_text.get(id(page))
        if cached is None or cached[0] is not page:
            if len(self._shown_text) > 4096:
                self._shown_text.clear()
            text = " | ".join(fold(n.name or n.text) for n in page.nodes
                              if n.visible and n.role in ("heading", "paragraph", "cell", "StaticText", "link"))
            cached = self._shown_text[id(page)] = (page, text)
        return cached[1]

    def _fill_cost(self, node: Node, form: Any, field_name: str, value_index: int, shown: str = "") -> int:
        """0: the field is named like the value's slot (or is the login's field, or a date field and
        the task's only date); more: less likely (2 more if the page already shows the value)."""
        # What the cost depends on: the field, the value, the subgoal in focus, and whether the
        # goal computes the field's column in this state.
        key = (field_name, node.name, node.input_type, id(form), value_index, self.level,
               fold(field_name) in self.computed)
        cost = self._fill_costs.get(key)
        if cost is None:
            if len(self._fill_costs) > 65_536:
                self._fill_costs.clear()
            cost = self._fill_costs[key] = self._fill_cost_of(node, form, field_name, value_index)
        value = self.values[value_index]
        if node.input_type == "date" and self.iso_count == 1:
            return 0
        if (cost > 0 and self.slot_names[value_index] and shown and re.search(r"[^\W\d_]", value)
                and fold(value) in shown):
            cost += 2  # the page already shows it: context, not something to type
        return cost

    def _fill_cost_of(self, node: Node, form: Any, field_name: str, value_index: int) -> int:
        value, slot = self.values[value_index], self.slot_names[value_index]
        action = getattr(form, "action", None) if form is not None else None
        if action is not None and getattr(action, "kind", "") == "login":
            if self.login is None:
                return 3
            wanted = self.login[0] if field_name == action.username_field else (
                self.login[1] if field_name == action.password_field else None)
            return 0 if wanted == value else 4
        if self.login is not None and value in self.login:
            return 4
        column = fold(field_name)
        if form is not None and column in self.frozen.get(getattr(action, "marker", None) or "", ()):
            return 4  # a column the task may not change
        wanted = self._focused(field_name, node.name, form) or self.goal_slots.get(column)
        if wanted:  # the goal sets this column to that slot's value (another slot may hold the same)
            return 0 if value in self._slot_texts(wanted) else 3
        if column in self.computed:
            return 3  # the goal computes this column's value: see _goal_shown
        mine = [slot, *self.aliases.get(value, ())] if slot else []
        exact = [name for name in self.slot_names if name and fold(name) == fold(field_name)]
        if exact:  # a slot named exactly like the field: only its value (check_in, not check_out)
            mine = [name for name in mine if name in exact]
        elif form is not None:  # a slot named exactly like another field is that field's (guests, not name)
            others = {fold(f.name) for f in form.fields if f.name != field_name}
            mine = [name for name in mine if fold(name) not in others]
        if any(self._names(name, field_name, node.name) for name in mine):
            return 0
        if words(f"{field_name} {node.name}") & TEXT_WORDS and NUMERIC.fullmatch(value.strip()):
            return 4  # a bare number in a free-text field (a refund's reason): not what it takes
        if (slot and "name" in words(f"{field_name} {node.name}") and PERSON.fullmatch(value.strip())
                and words(slot.replace("_", " ")) & PERSON_SLOTS):
            return 0  # a person's name (the traveller, the sender) in a name field
        label = words(f"{field_name} {node.name}")
        if (label & NUMBER_WORDS or "%" in node.name) and not NUMERIC.fullmatch(value.strip().lstrip("$")):
            return 4  # words in a number field
        if ((field_name.casefold() in ("to", "cc", "bcc", "email") or node.input_type == "email"
             or label & {"email", "recipient"}) and "@" not in value and "search" not in label):
            return 4  # an address field takes addresses
        if looks_like_date(value) and node.input_type != "date" and not label & DATE_WORDS:
            return 4  # a date in a field whose label says nothing of dates
        if field_name in ("q", "query", "search") or "search" in label:
            return 1 if (" " in value.strip() or len(value) >= 6) and not ISO.fullmatch(value) else 3
        if not slot:
            return 4
        if form is not None and getattr(action, "marker", None) in self.good_markers:
            # A form that writes the task's tables: a slot that names none of its fields is
            # likely typed into a field whose name the task does not use.
            others = [f for f in form.fields if f.name != field_name]
            if not any(self._names(slot, f.name, f.label) for f in others):
                return 1
        return 2

    def _slot_texts(self, names: Any) -> set[str]:
        """The values (as typed) of the named slots."""
        return {str(self.task.slots[n]) for n in names if self.task.slots.get(n) not in (None, "")}

    def _focused(self, field_name: str, label: str, form: Any = None) -> set[str]:
        """The slots the next subgoal wants in the columns a field is named like (empty: none); a
        column another field of the same form is named exactly like is that field's, not this one's
        (the guest count, not the guest's name)."""
        if not self.focus:
            return set()
        exact = self.focus.get(fold(field_name))
        if exact:  # a column named exactly like the field (check_out, not check_in, which shares "check")
            return set(exact)
        label_words = words(f"{field_name} {label}")
        taken = {fold(f.name) for f in getattr(form, "fields", ())} if form is not None else set()
        out: set[str] = set()
        for column, slots in self.focus.items():
            if column not in taken and _fits(column, label_words):
                out |= slots
        return out

    def _claimed_elsewhere(self, slot: str, field: Node | None) -> bool:
        """Does the goal or a subgoal want this slot's value in some column, none of which the
        field is named like (a trip's city, wanted as the destination, offered in the origin's
        drop-down)?"""
        if field is None or len(field.behaviour or ()) < 3:
            return False
        columns = {column for level in self.levels for column, slots in level.items() if slot in slots}
        if not columns:
            return False
        label_words = words(f"{field.behaviour[2]} {field.name}")
        return not any(_fits(column, label_words) for column in columns)

    def _names(self, slot: str, field_name: str, label: str) -> bool:
        """Is a form field named like a slot?"""
        key = (slot, field_name, label)
        found = self._named.get(key)
        if found is None:
            found = bool(words(slot.replace("_", " ")) & words(f"{field_name} {label}")) or (
                fold(slot) == fold(field_name))
            self._named[key] = found
        return found

    def _goal_shown(self, node: Node, name: str) -> list[str]:
        """The values the goal computes for the column a field is named like, where the page shows
        them (hidden tabs and closed widgets included: an agent may have looked)."""
        values = self.computed.get(fold(name))
        if not values:
            return []
        text = " ".join(n.name or n.text or "" for n in self._all_nodes(node))
        return sorted(v for v in values if re.search(rf"(?<![\d.]){re.escape(v)}(?![\d])", text))

    def _page_values(self, node: Node, form: Any, name: str, shown: str) -> list[str]:
        """Values the page shows that fit a field of a form that writes the task's tables: e-mail
        addresses for an e-mail field, amounts of money for an amount field."""
        if form is None or getattr(form.action, "marker", None) not in self.good_markers:
            return []
        label = words(f"{name} {node.name}")
        if not label & (EMAIL_WORDS | AMOUNT_WORDS):
            return []
        # Every text of the page, hidden tabs and closed widgets included: an agent may have looked.
        text = " ".join(n.name or n.text or "" for n in self._all_nodes(node))
        if label & EMAIL_WORDS:
            return sorted(set(EMAIL.findall(text)))[:6]
        return sorted({m.replace(",", "") for m in AMOUNT.findall(text)})[:8]

    def _required(self, form: Any, name: str) -> bool:
        """Is the form's field ``name`` required, by the form or by the marker parameter it fills?

        A form added to a page by a repair may mark no field required while its marker refuses
        a submission without them (an order's name): the marker decides.
        """
        if _required(form, name):
            return True
        if not runs_marker(form):
            return False
        needed = self.needed.get(form.action.marker, set())
        return any(param in needed and _field_ref(arg) == name for param, arg in (form.action.args or {}).items())

    @staticmethod
    def _all_nodes(node: Node) -> list[Node]:
        root = node
        while root.parent is not None:
            root = root.parent
        out, stack = [], [root]
        while stack:
            current = stack.pop()
            out.append(current)
            stack.extend(current.children)
        return out

    def _out_of_order(self, form: Any, form_key: str, name: str, session: Session) -> bool:
        """Has a later field of the same form been typed into already? (fields are filled in order,
        so the same values typed in another order are not searched again and again)"""
        if form is None:
            return False
        names = [f.name for f in form.fields]
        if name not in names:
            return False
        position = names.index(name)
        prefix = f"{form_key}:"
        return any(key.startswith(prefix) and key[len(prefix):] in names
                   and names.index(key[len(prefix):]) > position for key in session.ui.fields)

    def _fill(self, bid: str, value: str) -> str:
        key = (bid, value)
        text = self._fills.get(key)
        if text is None:
            text = self._fills[key] = format_action(Fill(bid, value))
        return text

    def _option_cost(self, option: Node, field: Node | None = None, *, writes: bool = False) -> int:
        """0: the option is a slot's value (the slot named like the field, if one is); 2: another
        slot's value; 1: shares a word with the instruction; 3: none of these."""
        behaviour = field.behaviour if field is not None else None
        key = (option.name, option.value, field.name if field is not None else None,
               behaviour[2] if behaviour and len(behaviour) >= 3 else None, writes, self.level)
        cost = self._options.get(key)
        if cost is None:
            cost = self._options[key] = self._option_cost_of(option, field, writes)
        return cost

    def _option_cost_of(self, option: Node, field: Node | None, writes: bool) -> int:
        label = fold(option.name)
        raw = fold(option.value or "")
        column = fold(field.behaviour[2]) if field is not None and len(field.behaviour or ()) >= 3 else ""
        if writes and column in self.goal_literals:  # a form that writes: set the column as the goal wants
            return 0 if (label in self.goal_literals[column] or raw in self.goal_literals[column]) else 3
        named = list(self._focused(field.behaviour[2], field.name)) if column else []
        # Every slot, those whose value another slot holds too (guests and stars both 3) included.
        named = named or [n for n in self.task.slots if n and field is not None and len(field.behaviour or ()) >= 3
                          and self._names(n, field.behaviour[2], field.name)]
        named_values = self._slot_texts(named)
        matched = False
        for value, name in zip(self.values, self.slot_names):
            if not name:
                continue
            v = fold(value)
            if v and (v in (label, raw) or (len(v) >= 3 and v in label)
                      or (label and len(label) >= 3 and label in v)):
                if (not named and not self._claimed_elsewhere(name, field)) or value in named_values:
                    return 0
                matched = True  # another slot's value: look on for the slot named like the field
            elif (v and len(v) < 3 and value in named_values
                  and re.match(rf"{re.escape(v)}(?![\w.])", label)):
                return 0  # a short number the field's slot holds, as the option starts ("3 stars or more")
        if matched:
            return 2
        return 1 if words(option.name) & self.instruction else 3

    def _as_asked(self, page: PageModel, form_key: str, info: Any) -> bool:
        """Does every field that a slot names hold that slot's value (as far as the page tells)?"""
        for form_field in info.form.fields:
            node = page.by_key.get(f"{form_key}:{form_field.name}")
            if node is None:
                continue
            if node.role in ("combobox", "radiogroup"):
                wanted = [c for c in node.children
                          if c.role in ("option", "radio") and self._option_cost(c, node, writes=runs_marker(info.form)) == 0]
                if wanted and not any(c.selected or c.checked for c in wanted):
                    return False
            elif node.role in ("textbox", "date"):
                current = "" if node.value is None else str(node.value)
                goal_shown = self._goal_shown(node, form_field.name)
                if goal_shown:
                    if current not in goal_shown:
                        return False
                    continue
                wanted_values = [v for i, v in enumerate(self.values)
                                 if self._fill_cost(node, info.form, form_field.name, i) == 0
                                 and not (node.input_type == "date" and not ISO.fullmatch(v))]
                if wanted_values and current not in wanted_values:
                    return False
        return True

    def macros(self, page: PageModel, session: Session) -> list[tuple[tuple[str, ...], str | None, Any]]:
        """For each visible form worth submitting, its fields filled with their best values, then
        its submit button: several actions the search tries as one move (before the single ones),
        with the page id a search or filter form leads to (``None``: this page, or unknown), and
        for a search or filter form, what its submission depends on (its address and the values
        it sends: the same from another page leads to the same place), else ``None``.

        A form is worth submitting when it logs the task's user in, searches or filters, or (for a
        mutate task) runs a marker that writes the task's tables. A field gets a value only where
        the choice is clear: a slot named like the field, the one option that is a slot's value,
        a checkbox the instruction mentions.
        """
        cached = self._macros.get((id(page), self.level))
        if cached is not None and cached[0] is page:
            return cached[1]
        out: list[tuple[tuple[str, ...], str | None, Any]] = []
        logged_in = session.ui.user_id is not None
        shown = self._shown(page)
        params = tuple(sorted((k, str(v)) for k, v in page.params.items()))
        for key, info in page.forms.items():
            submit = page.by_key.get(f"{key}:submit")
            if submit is None or not submit.visible or page.blocked(submit):
                continue
            kind = info.form.action.kind
            if kind == "login" and (self.login is None or logged_in):
                continue
            if kind == "logout" or (kind == "marker" and (self.task.kind != "mutate"
                                                         or info.form.action.marker not in self.good_markers)):
                continue
            choices: list[list[str]] = []
            names: dict[str, str] = {}
            current: list[tuple[str, str]] = []
            for form_field in info.form.fields:
                node = page.by_key.get(f"{key}:{form_field.name}")
                if node is None:
                    continue
                names[node.bid] = form_field.name
                current.append((form_field.name, "" if node.value is None else str(node.value)))
                if not node.visible or node.disabled:
                    continue
                options = self._macro_choices(node, info.form, form_field.name, shown)
                if options:
                    choices.append(options)
            dest = resolve_template(self.routes, info.form.action.route) if kind == "navigate" else None
            for steps in _combinations(choices, limit=MACRO_VARIANTS):
                signature = None
                if kind == "navigate":
                    signature = (info.form.action.route, params, tuple(current),
                                 tuple(_BID.sub(lambda m: "(" + names.get(m.group(1), m.group(1)), step, count=1)
                                       for step in steps))
                out.append(((*steps, f"click('{submit.bid}')"), dest, signature))
        if len(self._macros) > 4096:
            self._macros.clear()
        self._macros[(id(page), self.level)] = (page, out)
        return out

    def _macro_choices(self, node: Node, form: Any, name: str, shown: str) -> list[str]:
        """The actions worth trying on one field of a form, best first (empty: leave it alone)."""
        if node.role in ("textbox", "date"):
            current = "" if node.value is None else str(node.value)
            ranked: list[tuple[int, int, str]] = []
            for index, value in enumerate(self.values):
                if node.input_type == "date" and not ISO.fullmatch(value):
                    continue
                cost = self._fill_cost(node, form, name, index, shown)
                if cost <= 1:
                    ranked.append((cost, index, value))
            goal_shown = self._goal_shown(node, name)
            if goal_shown:  # the value the goal wants, as the page shows it
                return [self._fill(node.bid, goal_shown[0])] if current not in goal_shown else []
            ranked.sort()
            if ranked and ranked[0][0] == 0:
                ranked = ranked[:1]  # a slot named like the field: no need to try others
            elif current:
                return []  # filled in by the page (the user's name on a booking): no guess replaces it
            elif not ranked:
                shown_values = self._page_values(node, form, name, shown)
                if len(shown_values) == 1:  # the one address or amount the page shows
                    ranked = [(1, -1, shown_values[0])]
            if not ranked and not current and self._required(form, name):
                # A required field nothing names (a free-text reason): the least unlikely slot
                # value, so the form can be submitted at all.
                address = node.input_type == "email" or bool(words(f"{name} {node.name}") & EMAIL_WORDS)
                guesses = [(self._fill_cost(node, form, name, index, shown), index, value)
                           for index, value in enumerate(self.values) if self.slot_names[index]
                           and not (node.input_type == "date" and not ISO.fullmatch(value))
                           and not (address and "@" not in value)  # an address field takes addresses
                           and not (self.login is not None and value == self.login[1])]  # nor a password
                # Words before numbers: a free-text field (a reason) is no quantity, and a number
                # typed there would look like one to the judge's probes.
                # Two guesses: the best one may be typed into another field of the same move already.
                ranked = sorted((g for g in guesses if g[0] <= 4),
                                key=lambda g: (NUMERIC.fullmatch(g[2].strip()) is not None, g))[:2]
            return [self._fill(node.bid, value) for _, _, value in ranked[:3] if value != current]
        if node.role in ("combobox", "radiogroup"):
            options = [c for c in node.children if c.role in ("option", "radio")]
            writes = runs_marker(form)
            wanted = [c for c in options if self._option_cost(c, node, writes=writes) == 0]
            sure = bool(wanted)
            if not wanted:
                wanted = [c for c in options if self._option_cost(c, node, writes=writes) == 1]
            if len(wanted) != 1 or wanted[0].selected or wanted[0].checked:
                return []
            if node.role == "combobox":
                chosen = format_action(SelectOption(node.bid, (wanted[0].name,)))
            else:
                chosen = f"click('{wanted[0].bid}')"
            if sure:
                return [chosen]
            # An option the instruction only mentions: a form that writes likely wants it, a search
            # or filter form may do better without it.
            return [chosen, ""] if getattr(form.action, "kind", "") == "marker" else ["", chosen]
        if node.role == "checkbox" and not node.checked and (words(node.name) & self.instruction
                                                             or self.goal_checks(node)):
            return [f"click('{node.bid}')"]
        return []

    def goal_checks(self, node: Node) -> bool:
        """Does the goal want the yes/no column a checkbox writes set (``bag`` true: "Include hold
        luggage", whatever the instruction calls it)?"""
        behaviour = node.behaviour or ()
        column = fold(behaviour[2]) if len(behaviour) >= 3 else ""
        return bool(column) and bool(self.goal_literals.get(column, set()) & _TRUE)


_TRUE = frozenset({"1", "true", "yes", "on"})
"""How a goal says a yes/no column is set."""

_KEY_WORDS = frozenset({"id", "ids"})
"""Words every key column has: naming no field."""


def _fits(column: str, label_words: frozenset[str] | set[str]) -> bool:
    """Is a field (its name's and label's words) named like a column (origin_city: Flying from /
    origin; dest_city: Destination)?"""
    column_words = words(column.replace("_", " ")) - _KEY_WORDS  # project_id is no assignee_id
    label_words = set(label_words) - _KEY_WORDS
    return bool(column_words & label_words) or any(
        len(a) >= 4 and len(b) >= 4 and (a.startswith(b) or b.startswith(a)) for a in column_words for b in label_words)


def _required(form: Any, name: str) -> bool:
    """Is the form's field ``name`` required?"""
    return form is not None and any(f.name == name and f.required for f in form.fields)


def _field_ref(arg: Any) -> str | None:
    """The form field a marker argument takes its value from (``field.name``), if it is one."""
    ref = getattr(arg, "ref", None)
    if ref is None and isinstance(arg, dict):
        ref = arg.get("ref")
    return ref[len("field."):] if isinstance(ref, str) and ref.startswith("field.") else None


def runs_marker(form: Any) -> bool:
    """Does submitting this form run a marker (rather than search, filter or log in)?"""
    return form is not None and getattr(form.action, "kind", "") == "marker"


def _combinations(choices: list[list[str]], *, limit: int) -> list[tuple[str, ...]]:
    """Up to ``limit`` ways to fill a form, one action per field, best choices first, never typing
    the same value into two fields."""
    out: list[tuple[str, ...]] = []

    def typed(action: str) -> str | None:
        return action.split(", ", 1)[1] if action.startswith("fill(") else None

    def walk(index: int, picked: list[str], used: set[str]) -> None:
        if len(out) >= limit:
            return
        if index == len(choices):
            if picked:
                out.append(tuple(picked))
            return
        for action in choices[index]:
            if not action:
                walk(index + 1, picked, used)
                continue
            value = typed(action)
            if value is not None and value in used:
                continue
            walk(index + 1, picked + [action], used | ({value} if value is not None else set()))
        if choices[index] and all(typed(a) is not None and typed(a) in used for a in choices[index]):
            walk(index + 1, picked, used)  # every value it could take is typed elsewhere: leave it

    walk(0, [], set())
    return out


def field_values(page: PageModel, form_key: str, info: Any) -> list[Any]:
    """The current values of a form's required fields, as the page shows them."""
    values = []
    for form_field in info.form.fields:
        if not form_field.required:
            continue
        key = f"{form_key}:{form_field.name}"
        node = page.by_key.get(key)
        values.append(node.value if node is not None else info.defaults.get(form_field.name))
    return values


__all__ = ["MACRO_VARIANTS", "FormFilling", "field_values", "runs_marker"]

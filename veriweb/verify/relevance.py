"""How relevant each action a page offers is to a task: the search's ordering, never its pruning.

A :class:`Hints` is computed once per (site, task) from what the task says and what the site's
scaffold shows: the slot values and the instruction's words, the user's login from the accounts
table, the markers whose writes fall inside the task's footprint, and, on the static page graph,
how many links each page is from a page that matters (a form writing the footprint's tables, the
page the goal names, a list of the table the answer comes from). It never reads the task's
certificate.

:meth:`Hints.actions` lists every action a page offers with a cost: 0 for what the task points
at (a link named like a slot value, a field filled with the slot of the same name, the submit
button of a filled form that writes the footprint), more for the rest. The search steps cheap
actions first, but keeps every action, so an exhausted search still proves something.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from veriweb.engine.actions import Goto, SelectOption, format_action
from veriweb.engine.page import Node, PageModel
from veriweb.engine.session import Session
from veriweb.engine.templates import Route, Url
from veriweb.scaffold import Site, Task
from veriweb.engine.query import Context
from veriweb.verify.forms import FormFilling, field_values, runs_marker
from veriweb.verify.pagegraph import FAR, distances, targets
from veriweb.verify.wording import ISO, date_aliases, fold, words
from veriweb.verify.targets import (
    caps_from_above, effect_allowed, frozen_columns, goal_computed, goal_values, rival_names, subgoal_slots,
    target_names,
)

_CHEAP_WORDS = frozenset({"cheap", "low"})
"""Words of a link that orders a list cheapest first ("Cheapest first", "Price: low to high")."""
_OFF_ENTITY = 3
"""Links' worth of distance added to a page that matters but names none of the task's entities."""
"""The page distance given to pages from which no page that matters can be reached."""


@dataclass
class Hints(FormFilling):
    """What the search knows about a task before it takes a step (see the module docstring).

    Attributes:
        values: values the search may type: the slots, then the user's login.
        slot_names: the slot each value came from (``""`` for the profile's).
        instruction: the instruction's content words.
        distance: links from each page id to the nearest page that matters.
        good_markers: markers whose every write lands in a footprint table.
        login: the user's ``(username, password)`` from the accounts table, if the task has a user.
    """

    task: Task
    values: list[str]
    slot_names: list[str]
    instruction: set[str]
    distance: dict[str, int]
    good_markers: set[str]
    bad_markers: set[str]
    login: tuple[str, str] | None
    routes: list[Route] = field(default_factory=list)
    login_page: str | None = None
    login_markers: set[str] = field(default_factory=set)
    entities: list[str] = field(default_factory=list)
    """The task's entities (folded slot values that name things), less those of :attr:`spent` slots."""
    named: list[tuple[str, str]] = field(default_factory=list)
    """Every entity with the slot it comes from."""
    spent: frozenset[str] = frozenset()
    _holding: tuple[bool, ...] | None = None
    """Slots that only progress subgoals already reached use."""
    aliases: dict[str, list[str]] = field(default_factory=dict)
    """Other slots that hold the same value written another way (an ISO date and "20 June")."""
    off_entity_cost: int = _OFF_ENTITY
    targets: list[str] = field(default_factory=list)
    """Texts naming the rows the task's footprint lets it update or delete (:func:`target_names`)."""
    goal_slots: dict[str, set[str]] = field(default_factory=dict)
    """For each column the goal sets equal to a slot, the slots' names (:func:`goal_values`)."""
    goal_literals: dict[str, set[str]] = field(default_factory=dict)
    """For each column the goal sets equal to a literal, the literals."""
    frozen: dict[str, set[str]] = field(default_factory=dict)
    """For each marker, the columns of the tables it writes that the footprint does not let change."""
    focus: dict[str, set[str]] = field(default_factory=dict)
    """``column -> slots`` that the next progress subgoal wants equal (:func:`subgoal_slots`)."""
    level: int = 0
    """How many progress subgoals hold in the state the search looks at."""
    levels: list[dict[str, set[str]]] = field(default_factory=list)
    computed: dict[str, set[str]] = field(default_factory=dict)
    rivals: frozenset[str] = frozenset()
    """Other values of the columns the task's entities live in (:func:`rival_names`), for tasks
    that insert rows: a page headed by one is about another entity of the same kind."""
    """For each column the goal sets equal to a value computed from the database, that value now
    (:func:`goal_computed`): typed where the page shows it."""
    """For each marker, the columns of the tables it writes that the footprint does not let change."""
    _dest: dict[str, str | None] = field(default_factory=dict)
    _formats: dict[Any, str] = field(default_factory=dict)
    """Action strings by what they are made of (:meth:`_goto`, :meth:`_choose`)."""
    _actions: dict[tuple[int, int], tuple[PageModel, list[tuple[int, str, str | None]]]] = field(default_factory=dict)
    _texts: dict[str, int] = field(default_factory=dict)
    _rival_heads: dict[tuple[str, ...], bool | None] = field(default_factory=dict)
    needed: dict[str, set[str]] = field(default_factory=dict)
    """For each marker, the names of its required parameters."""
    capped: bool = False
    """Does the goal keep a value under a bound the task gives (:func:`caps_from_above`)?"""
    _site: Site | None = None
    _context: Context | None = None
    _version: str | None = None
    _by_version: dict[str, tuple[list[str], dict[str, int], dict[str, set[str]]]] = field(default_factory=dict)
    _named: dict[tuple[str, str, str], bool] = field(default_factory=dict)
    _fill_costs: dict[tuple[Any, ...], int] = field(default_factory=dict)
    iso_count: int = 0
    """How many of the values are ISO dates (a date field and a task with one date: that one)."""
    _shown_text: dict[int, tuple[PageModel, str]] = field(default_factory=dict)
    _fills: dict[tuple[str, str], str] = field(default_factory=dict)
    _options: dict[tuple[Any, ...], int] = field(default_factory=dict)
    _macros: dict[tuple[int, int], tuple[PageModel, list[tuple[tuple[str, ...], str | None]]]] = field(
        default_factory=dict)

    @classmethod
    def build(cls, site: Site, task: Task, session: Session, context: Context | None = None) -> Hints:
        """Hints for ``task``; ``session`` is used read-only, to look up the task user's account and
        the rows the footprint allows writing (``context``: what the task's references resolve
        against, as the judge's; default: its slots and the clock)."""
        values: list[str] = []
        names: list[str] = []
        for name, value in task.slots.items():
            text = "" if value is None else str(value)
            if text and text not in values:
                values.append(text)
                names.append(name)
        login = _login_of(site, task, session)
        if login is not None:
            for text in login:
                if text and text not in values:
                    values.append(text)
                    names.append("")
        good, bad = set(), set()
        for marker in site.markers:
            fits = bool(marker.effects) and all(effect_allowed(effect, task.footprint) for effect in marker.effects)
            (good if fits else bad).add(marker.name)
        routes = [Route.compile(page.id, page.route) for page in site.pages]
        # The slots' names say what kinds of things the task is about (a contact, an order, a forum).
        kinds = words(" ".join(n.replace("_", " ") for n in task.slots if n not in ("username", "password", "text")))
        hints = cls(task=task, values=values, slot_names=names, instruction=words(task.instruction) | kinds,
                    distance={}, good_markers=good, bad_markers=bad, login=login, routes=routes)
        wanted = frozenset(targets(site, task, good))
        memo = session.memo("hints.distances")  # a function of the scaffold and the pages that matter
        found = memo.get(wanted)
        if found is None:
            found = memo[wanted] = distances(site, routes, set(wanted))
        hints.distance = dict(found)
        hints.named = [(fold(v), n) for v, n in zip(values, names)
                       if n and n not in ("username", "password") and (login is None or v not in login)
                       and len(v) >= 4 and re.search(r"[A-Za-z]", v) and not ISO.fullmatch(v)]
        hints.entities = [entity for entity, _ in hints.named]
        if any(effect.op == "insert" for marker in site.markers if marker.name in good for effect in marker.effects):
            hints.off_entity_cost = 1
            hints.rivals = rival_names(site, session, hints.entities)
        elif task.kind != "mutate":
            # What a retrieve or navigate task names is found among things of its kind (a project
            # among projects, paged): their other names tell the way. (An update's do not: measured,
            # admin restock_low then wanders among other categories.)
            hints.rivals = rival_names(site, session, hints.entities)
        hints.aliases = date_aliases(task.slots)
        hints.iso_count = sum(1 for v in values if ISO.fullmatch(v))
        if context is None:
            context = Context(slot=dict(task.slots), clock={"today": session.today, "now": session.now})
        hints._site, hints._context = site, context
        hints.levels = subgoal_slots(task)
        hints.follow(session)
        hints.goal_slots, hints.goal_literals = goal_values(task)
        frozen = frozen_columns(site, task)
        hints.frozen = {marker.name: set().union(*(frozen.get(e.table, set()) for e in marker.effects))
                        for marker in site.markers if marker.name in good}
        hints.login_markers = {marker.name for marker in site.markers if marker.requires_login}
        hints.capped = task.kind == "mutate" and caps_from_above(task)
        hints.needed = {marker.name: {param.name for param in marker.params if param.required}
                        for marker in site.markers}
        if site.auth is not None:
            hints.login_page = hints.dest(site.auth.login_page)
        return hints

    def follow(self, session: Session, done: int = 0, holding: tuple[bool, ...] | None = None) -> None:
        """Bring what depends on the state (the rows still to write, the subgoal to reach next, of
        which ``done`` hold; ``holding``: which ones) up to the session's."""
        if self.levels:
            last = len(self.levels) - 1
            if holding is not None and len(holding) == last:
                level = next((i for i, holds in enumerate(holding) if not holds), last)
            else:
                level, holding = min(done, last), tuple(i < done for i in range(last))
            if level != self.level or holding != self._holding or not self.focus:
                self.level, self._holding = level, holding
                self.focus = self.levels[level]
                # A slot a subgoal already reached wants in a column that a subgoal still ahead wants
                # another slot in names a thing done with (the first issue, once it is labelled, when
                # the next wants the second; the old date, once cancelled): it no longer points the way.
                pending = [wanted for i, wanted in enumerate(self.levels[:last]) if not holding[i]]
                ahead = {n for wanted in pending for names in wanted.values() for n in names}
                replaced = {n for i, wanted in enumerate(self.levels[:last]) if holding[i]
                            for column, names in wanted.items()
                            if any(other.get(column, names) - names for other in pending) for n in names}
                self.spent = frozenset(replaced - ahead)
                self.entities = [entity for entity, name in self.named if name not in self.spent]
        version = session.version
        if version == self._version or self._site is None or self._context is None:
            return
        found = self._by_version.get(version)
        if found is None:
            names = target_names(self._site, self.task, session, self._context)
            # States with the same rows left share their text costs.
            same = next((texts for other, texts, _ in self._by_version.values() if other == names), {})
            if len(self._by_version) > 1024:
                self._by_version.clear()
            computed = goal_computed(self._site, self.task, session, self._context) if self.task.kind == "mutate" else {}
            found = self._by_version[version] = (names, same, computed)
        self._version = version
        self.targets, self._texts, self.computed = found

    # ------------------------------------------------------------------ pages

    def dest(self, href: str) -> str | None:
        """The page id a concrete URL leads to (``None``: no page)."""
        if href not in self._dest:
            path = Url.parse(href).path
            self._dest[href] = next((r.page_id for r in self.routes if r.match(path) is not None), None)
        return self._dest[href]

    def off_entity(self, page: PageModel) -> int:
        """``off_entity_cost`` if ``page`` is a page that matters but its title and headings name none
        of the task's entities (a product page, but not the product asked for), else 0. The cost is 1
        when a marker the task may use inserts rows: what it names may not exist yet."""
        if not (self.entities or self.targets):
            return 0
        if self.page_distance(page.page_id) != 0:
            return _OFF_ENTITY if self.rivals and self._rival_headed(page) else 0
        shown = [fold(page.title)] + [fold(n.name) for n in page.nodes if n.role == "heading" and n.visible] + [
            fold(n.value) for n in page.nodes if n.role == "textbox" and n.visible and n.value]
        names = self.targets or self.entities
        if any(name in text for name in names for text in shown):
            return 0
        # A row still to write is also named by the page's own paragraphs (a message's body, when its
        # subject is one many messages share); not cells or links, which may list others. Only such
        # rows: a slot value ("open") is said in passing by the paragraphs of many pages.
        if self.targets and any(name in fold(n.text or n.name) for n in page.nodes
                                if n.role == "paragraph" and n.visible for name in self.targets):
            return 0
        if self.rivals and self._rival_headed(page):
            return _OFF_ENTITY  # headed by another thing of the same kind as the task's
        if self.rivals:
            # The heading names nothing of the task's (a hotel's name): what the page says of it does
            # (a hotel in the task's city, or in another).
            told = self._told(page)
            if told is not None:
                return 0 if told else _OFF_ENTITY
        return self.off_entity_cost

    def _told(self, page: PageModel) -> bool | None:
        """Do the page's paragraphs (outside lists) name one of the task's entities (``True``), or
        only rivals of them (``False``), or neither (``None``)?"""
        texts = tuple(fold(n.name or n.text) for n in page.nodes if n.visible and n.role == "paragraph"
                      and "[" not in n.key and (n.name or n.text))
        key = ("told", *texts)
        found = self._rival_heads.get(key)  # type: ignore[arg-type]
        if found is None:
            if len(self._rival_heads) > 4096:
                self._rival_heads.clear()
            if any(name in text for name in self.entities for text in texts):
                verdict: bool | None = True
            elif any(rival in text for text in texts for rival in self.rivals if len(rival) <= len(text)):
                verdict = False
            else:
                verdict = None
            self._rival_heads[key] = verdict  # type: ignore[index]
            return verdict
        return found

    def _rival_headed(self, page: PageModel) -> bool:
        """Does the page's title or a heading name a rival (:func:`rival_names`) and none of the
        task's entities?"""
        heads = tuple([fold(page.title)] + [fold(n.name) for n in page.nodes if n.role == "heading" and n.visible])
        found = self._rival_heads.get(heads)
        if found is None:
            if len(self._rival_heads) > 4096:
                self._rival_heads.clear()
            mine = any(name in text for name in self.entities for text in heads)
            found = self._rival_heads[heads] = not mine and any(
                rival in text for text in heads for rival in self.rivals if len(rival) <= len(text))
        return found

    def page_distance(self, page_id: str | None, *, logged_in: bool = True) -> int:
        """Links from a page to the nearest page that matters (the login page matters while the
        task's user is not logged in)."""
        if not self.distance or (not logged_in and self.login is not None and page_id == self.login_page):
            return 0
        return self.distance.get(page_id or "", FAR)

    # ------------------------------------------------------------------ text relevance

    def _text_cost(self, text: str) -> int:
        """0: names a slot value; 1: shares a word with the instruction; 2: neither."""
        key = f"{self.level}\x00{text}" if self.spent else text
        cost = self._texts.get(key)
        if cost is None:
            cost = self._texts[key] = self._text_cost_of(text)
        return cost

    def _text_cost_of(self, text: str) -> int:
        folded = fold(text)
        if not folded:
            return 2
        if any(name in folded for name in self.targets):
            return 0
        for value, name in zip(self.values, self.slot_names):
            if not name or name in self.spent:
                continue
            v = fold(value)
            if v and (v == folded or (len(v) >= 3 and (v in folded or (len(folded) >= 4 and folded in v)))):
                return 0
        return 1 if words(text) & self.instruction else 2

    # ------------------------------------------------------------------ actions

    def actions(self, page: PageModel, session: Session) -> list[tuple[int, str, str | None]]:
        """Every action the page offers, as ``(cost, action, page id it leads to or None)``.

        A page model stands for one UI state (address, user, widgets, field edits), so the list
        is computed once per model; going back, which depends on the history, is added each time.
        """
        cached = self._actions.get((id(page), self.level))
        if cached is None or cached[0] is not page:
            if len(self._actions) > 4096:
                self._actions.clear()
            cached = (page, self._page_actions(page, session))
            self._actions[(id(page), self.level)] = cached
        out = list(cached[1])
        if session.ui.position > 0:
            out.append((3, "go_back()", self.dest(session.ui.history[session.ui.position - 1])))
        return out

    def _page_actions(self, page: PageModel, session: Session) -> list[tuple[int, str, str | None]]:
        out: list[tuple[int, str, str | None]] = []
        seen_hrefs: set[str] = set()
        here = page.page_id
        logged_in = session.ui.user_id is not None
        reveal = self._hidden_good_form(page)
        shown = self._shown(page)
        modal = page.modal is not None  # without a dialog nothing is blocked: no check per node
        for node in page.nodes:
            if modal and page.blocked(node):
                continue
            role = node.role
            if role == "link":
                href = node.href
                if not href or not href.startswith("/") or href in seen_hrefs:
                    continue
                seen_hrefs.add(href)
                dest = self.dest(href)
                if href == page.url:
                    cost = 6  # a reload: it only clears what was typed
                    out.append((cost, f"click('{node.bid}')" if node.visible else self._goto(href), dest))
                    continue
                elif dest is not None and dest == self.login_page:
                    cost = 0 if (self.login is not None and not logged_in) else 5
                elif dest == here and self.rivals and _turns_page(page.url, href):
                    # Another page of a list that names other things of the kind the task names,
                    # but not the task's (another contact, not the one to write to): read on.
                    if any(name in shown for name in self.entities):
                        cost = 3
                    else:
                        cost = 1 if any(rival in shown for rival in self.rivals) else 3
                elif (dest == here and self.task.kind == "mutate" and self.targets and _turns_page(page.url, href)
                      and not any(name in shown for name in self.targets)):
                    cost = 1  # rows still to write that this page of the list does not show: read on
                else:
                    cost = self._text_cost(node.name or node.text) + self._move_cost(here, dest)
                    if self.capped and dest == here and words(node.name or "") & _CHEAP_WORDS:
                        cost = 0  # a bound to stay under: the cheapest first
                cost += 2 if session.ui.fields else 0  # leaving typed values behind
                if node.visible:
                    out.append((cost, f"click('{node.bid}')", dest))
                else:
                    out.append((cost + 1, self._goto(href), dest))
                continue
            if not node.visible or node.disabled:
                continue
            behaviour = node.behaviour or ()
            kind = behaviour[0] if behaviour else None
            if role in ("button", "menuitem", "tab"):
                out.append((self._button_cost(node, kind, behaviour, page, session, reveal), f"click('{node.bid}')",
                            None))
            elif role == "combobox":
                form = page.forms.get(behaviour[1]).form if len(behaviour) > 1 and behaviour[1] in page.forms else None
                for child in node.children:
                    if child.role != "option" or child.selected:
                        continue
                    cost = self._option_cost(child, node, writes=runs_marker(form)) + self._futile(form)
                    out.append((cost, self._choose(node.bid, child.name), None))
            elif role == "radio":
                if not node.checked:
                    group = (node.parent.behaviour or ()) if node.parent is not None else ()
                    info = page.forms.get(group[1]) if len(group) > 1 else None
                    out.append((self._option_cost(node, node.parent, writes=runs_marker(info.form if info else None)),
                                f"click('{node.bid}')", None))
            elif role == "checkbox":
                cost = 1 if words(node.name) & self.instruction or self.goal_checks(node) else 3
                out.append((cost, f"click('{node.bid}')", None))
            elif node.editable and len(behaviour) >= 3:
                form_info = page.forms.get(behaviour[1])
                form = form_info.form if form_info is not None else None
                current = "" if node.value is None else str(node.value)
                edited = 2 if f"{behaviour[1]}:{behaviour[2]}" in session.ui.fields else 0
                typed = repr([v for k, v in session.ui.fields.items() if k != f"{behaviour[1]}:{behaviour[2]}"])
                edited += 2 if self._out_of_order(form, behaviour[1], behaviour[2], session) else 0
                edited += self._futile(form)
                for index, value in enumerate(self.values):
                    if value == current:
                        continue
                    if node.input_type == "date" and not ISO.fullmatch(value):
                        continue
                    cost = self._fill_cost(node, form, behaviour[2], index, shown)
                    if cost > 0:
                        cost += 1  # a guess: the form-filling move has tried the best guesses already
                    if f"'{value}'" in typed or f'"{value}"' in typed:
                        cost += 3  # already typed into another field of this page
                    out.append((cost + edited, self._fill(node.bid, value), None))
                goal_shown = self._goal_shown(node, behaviour[2])
                for value in goal_shown:
                    if value != current:
                        out.append((edited, self._fill(node.bid, value), None))
                for value in self._page_values(node, form, behaviour[2], shown):
                    if value != current and value not in goal_shown:
                        out.append((2 + edited, self._fill(node.bid, value), None))
        return out

    def _goto(self, href: str) -> str:
        """``goto(href)`` as an action string (made once per address)."""
        text = self._formats.get(href)
        if text is None:
            if len(self._formats) > 65_536:
                self._formats.clear()
            text = self._formats[href] = format_action(Goto(href))
        return text

    def _choose(self, bid: str, option: str) -> str:
        """``select_option(bid, option)`` as an action string (made once per pair)."""
        key = (bid, option)
        text = self._formats.get(key)
        if text is None:
            if len(self._formats) > 65_536:
                self._formats.clear()
            text = self._formats[key] = format_action(SelectOption(bid, (option,)))
        return text

    def _futile(self, form: Any) -> int:
        """What filling in a field of ``form`` costs on top: 3 when the form runs a marker that writes
        outside the task's footprint (submitting it can only break the task), else 0."""
        return 3 if form is not None and getattr(form.action, "marker", None) in self.bad_markers else 0

    def _move_cost(self, here: str, dest: str | None) -> int:
        if not self.distance or dest is None:
            return 1
        now, then = self.page_distance(here), self.page_distance(dest)
        return 0 if then < now else (1 if then == now else 2)

    def _hidden_good_form(self, page: PageModel) -> list[str]:
        """The forms the page hides (in a closed widget or another tab) that write the task's tables."""
        if self.task.kind != "mutate":
            return []
        hidden = []
        for key, info in page.forms.items():
            if getattr(info.form.action, "marker", None) not in self.good_markers:
                continue
            node = page.by_key.get(f"{key}:submit")
            if node is not None and not node.visible:
                hidden.append(key)
        return hidden

    def _button_cost(self, node: Node, kind: str | None, behaviour: tuple[Any, ...], page: PageModel,
                     session: Session, reveal: list[str]) -> int:
        if kind == "confirm":
            return 0
        if kind == "cancel":
            return 6
        if kind in ("widget", "tab"):
            closing = 2 if kind == "widget" and node.expanded else 0
            opens = _reveals(node, kind, reveal)
            if opens is True:
                return closing
            base = 1 if (opens is None and reveal) or words(node.name) & self.instruction else 2
            return base + closing
        if kind != "submit":
            return 3
        info = page.forms.get(behaviour[1])
        if info is None:
            return 3
        action = info.form.action
        filled = all(node_value not in ("", None) for node_value in field_values(page, behaviour[1], info))
        if action.kind == "login":
            return 0 if (self.login is not None and session.ui.user_id is None and filled) else 5
        if action.kind == "logout":
            return 8
        if action.kind == "navigate":
            touched = any(key.startswith(f"{behaviour[1]}:") for key in session.ui.fields)
            return (0 if self._as_asked(page, behaviour[1], info) else 2) if touched else 3
        marker = getattr(action, "marker", "")
        if marker in self.bad_markers:
            return 6
        if marker in self.login_markers and session.ui.user_id is None:
            return 5
        if self.task.kind != "mutate":
            return 5
        return 0 if filled and self._as_asked(page, behaviour[1], info) else 3


def _turns_page(url: str, href: str) -> bool:
    """Does ``href`` show another page of the same list (the same address but for a ``*_page``
    parameter)?"""
    here, there = Url.parse(url), Url.parse(href)
    if here.path != there.path:
        return False
    mine = {(k, v) for k, v in here.query if not k.endswith("_page")}
    theirs = {(k, v) for k, v in there.query if not k.endswith("_page")}
    return mine == theirs and any(k.endswith("_page") for k, _ in there.query)


def _reveals(node: Node, kind: str, hidden: list[str]) -> bool | None:
    """Does clicking this tab or widget button show one of the ``hidden`` forms? (``None``: cannot tell)"""
    if not hidden:
        return False
    key = node.key
    if kind == "tab" and ".tab" in key:
        prefix, _, last = key.rpartition(".")
        region = f"{prefix}.panel{last[3:]}"
    elif key.endswith(".t"):
        region = key[:-2]
    else:
        return None
    return any(form == region or form.startswith(region + ".") for form in hidden)


def _login_of(site: Site, task: Task, session: Session) -> tuple[str, str] | None:
    auth = site.auth
    if task.user is None or auth is None:
        return None
    from veriweb.engine.database import quote

    row = session.db.guard.engine(
        f"SELECT {quote(auth.username_column)}, {quote(auth.password_column)} FROM {quote(auth.table)} "
        f"WHERE {quote(auth.username_column)} = ?", (task.user,)).fetchone()
    return (str(row[0]), str(row[1])) if row else None


__all__ = ["FAR", "Hints", "words"]

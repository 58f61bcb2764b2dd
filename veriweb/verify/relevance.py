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

from veriweb.engine.actions import Fill, Goto, SelectOption, format_action
from veriweb.engine.page import Node, PageModel
from veriweb.engine.session import Session
from veriweb.engine.templates import Route, Url
from veriweb.scaffold import Site, Task
from veriweb.engine.query import Context
from veriweb.verify.pagegraph import FAR, distances, resolve_template, targets
from veriweb.verify.targets import (
    frozen_columns, goal_computed, goal_values, rival_names, subgoal_slots, target_names,
)

_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    "the a an and or of to in on for with from into at by as is are be it its this that then my me i you your "
    "please find show open set all every any one each which what who how many much need want give tell".split())
_ISO = re.compile(r"\d{4}-\d{2}-\d{2}")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_AMOUNT = re.compile(r"\$\s?(\d[\d,]*\.\d{2})")
_NUMERIC = re.compile(r"-?\d[\d,]*(?:\.\d+)?")
_NUMBER_WORDS = frozenset({"amount", "refund", "price", "total", "qty", "quantity", "stock", "count", "number",
                           "level", "limit", "discount", "percent", "percentage"})
_EMAIL_WORDS = frozenset({"email", "mail", "to", "recipient", "address"})
_AMOUNT_WORDS = frozenset({"amount", "refund", "price", "total", "sum", "pay", "payment"})
_MONTHS = ("jan(?:uary)?", "feb(?:ruary)?", "mar(?:ch)?", "apr(?:il)?", "may", "june?", "july?", "aug(?:ust)?",
           "sep(?:t|tember)?", "oct(?:ober)?", "nov(?:ember)?", "dec(?:ember)?")
_DATE_TEXT = re.compile(r"(?:\d{1,2}\s+)?(" + "|".join(_MONTHS) + r")\.?\s+\d{1,2}(?:st|nd|rd|th)?(?:,?\s+\d{4})?"
                        r"|\d{1,2}\s+(" + "|".join(_MONTHS) + r")(?:\s+\d{4})?", re.IGNORECASE)
_PERSON = re.compile(r"[A-Z][a-z'\-]+(?: [A-Z][a-z'\-]+){1,2}")
_MACRO_VARIANTS = 4
_BID = re.compile(r"\('([^']*)'")
_OFF_ENTITY = 3
"""Links' worth of distance added to a page that matters but names none of the task's entities."""
"""The page distance given to pages from which no page that matters can be reached."""


def _month_day(value: str) -> tuple[int, int] | None:
    """(month, day) of a date written as 2026-06-20, June 20, 20 June or Jun 20, 2026."""
    text = value.strip()
    if _ISO.fullmatch(text):
        return int(text[5:7]), int(text[8:10])
    match = _DATE_TEXT.fullmatch(text)
    if match is None:
        return None
    month_word = re.search(r"[A-Za-z]{3,}", text)
    day = re.search(r"\b(\d{1,2})(?:st|nd|rd|th)?\b(?!\d)", text)
    if month_word is None or day is None:
        return None
    month = next((i + 1 for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep",
                                                  "oct", "nov", "dec")) if month_word.group(0).casefold().startswith(m)),
                 None)
    return (month, int(day.group(1))) if month is not None else None


def _date_aliases(slots: dict[str, Any]) -> dict[str, list[str]]:
    """For each ISO date among the slots, the other slots naming the same day in words."""
    out: dict[str, list[str]] = {}
    for name, value in slots.items():
        text = "" if value is None else str(value)
        if not _ISO.fullmatch(text):
            continue
        same = [other for other, v in slots.items() if other != name and v is not None
                and not _ISO.fullmatch(str(v)) and _month_day(str(v)) == _month_day(text)]
        if same:
            out.setdefault(text, []).extend(same)
    return out


def _looks_like_date(value: str) -> bool:
    """Is ``value`` a date (2026-06-26, June 26, Jun 26, 2026, 26 June)?"""
    text = value.strip()
    return bool(_ISO.fullmatch(text) or _DATE_TEXT.fullmatch(text))


def _stem(word: str) -> str:
    for suffix in ("est", "ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            word = word[: -len(suffix)]
            break
    return word[:-1] if len(word) > 4 and word.endswith("e") else word


_THESAURUS = (
    "reply respond answer", "delete remove trash discard", "search find lookup", "home start front",
    "contact people", "send submit post publish", "save update apply", "refund reimburse", "edit change modify",
    "buy purchase checkout", "cart basket bag trolley", "email mail message letter", "book reserve booking",
    "reservation booking", "customer client", "product item", "report insight", "stock inventory",
    "setting preference", "compose write", "address street", "city town", "phone telephone mobile",
    "quantity qty", "traveller passenger guest", "note comment remark", "body text content",
)
"""Common English words for the same action or thing on a web page (a site may label a reply link
"Respond" or its contacts "People"); a general list, not the generator's."""


def _thesaurus() -> dict[str, str]:
    out: dict[str, str] = {}
    for group in _THESAURUS:
        stems = [_stem(word) for word in group.split()]
        for stem in stems:
            out.setdefault(stem, f"~{stems[0]}")
    return out


def words(text: str) -> frozenset[str]:
    """The content words of a text (lower case, stop words dropped, crude suffixes cut: newest -> new),
    with ``~reply`` and the like added for words the thesaurus groups (respond -> ~reply).

    Memoised per text (a search asks about the same labels thousands of times)."""
    found = _WORDS.get(text)
    if found is None:
        stems = {_stem(w) for w in _WORD.findall(text.casefold()) if w not in _STOP and len(w) > 1}
        found = frozenset(stems | {_CANONICAL[w] for w in stems if w in _CANONICAL})
        if len(_WORDS) >= _WORDS_KEEP:
            _WORDS.clear()
        _WORDS[text] = found
    return found


_WORDS: dict[str, frozenset[str]] = {}
_WORDS_KEEP = 100_000
"""How many texts :func:`words` remembers (then it starts afresh)."""


_CANONICAL = _thesaurus()
# Number and amount label words, stemmed as :func:`words` stems a label (price -> pric).
_NUMBER_WORDS = frozenset(words(" ".join(_NUMBER_WORDS))) | _NUMBER_WORDS
_AMOUNT_WORDS = frozenset(words(" ".join(_AMOUNT_WORDS))) | _AMOUNT_WORDS
_PERSON_SLOTS = frozenset(words("traveller sender recipient contact customer guest passenger person author member "
                                "friend owner attendee"))
_DATE_WORDS = frozenset(words("date day when expires expiry departure depart arrival arrive birth deadline due until "
                              "check end return scheduled time"))


def _fold(value: Any) -> str:
    return " ".join(str(value).casefold().split())


@dataclass
class Hints:
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
    _actions: dict[tuple[int, int], tuple[PageModel, list[tuple[int, str, str | None]]]] = field(default_factory=dict)
    _texts: dict[str, int] = field(default_factory=dict)
    _rival_heads: dict[tuple[str, ...], bool] = field(default_factory=dict)
    _site: Site | None = None
    _context: Context | None = None
    _version: str | None = None
    _by_version: dict[str, tuple[list[str], dict[str, int], dict[str, set[str]]]] = field(default_factory=dict)
    _named: dict[tuple[str, str, str], bool] = field(default_factory=dict)
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
            fits = bool(marker.effects) and all(_allowed(effect, task.footprint) for effect in marker.effects)
            (good if fits else bad).add(marker.name)
        routes = [Route.compile(page.id, page.route) for page in site.pages]
        # The slots' names say what kinds of things the task is about (a contact, an order, a forum).
        kinds = words(" ".join(n.replace("_", " ") for n in task.slots if n not in ("username", "password", "text")))
        hints = cls(task=task, values=values, slot_names=names, instruction=words(task.instruction) | kinds,
                    distance={}, good_markers=good, bad_markers=bad, login=login, routes=routes)
        hints.distance = distances(site, routes, targets(site, task, good))
        hints.entities = [_fold(v) for v, n in zip(values, names)
                          if n and n not in ("username", "password") and (login is None or v not in login)
                          and len(v) >= 4 and re.search(r"[A-Za-z]", v) and not _ISO.fullmatch(v)]
        if any(effect.op == "insert" for marker in site.markers if marker.name in good for effect in marker.effects):
            hints.off_entity_cost = 1
            hints.rivals = rival_names(site, session, hints.entities)
        hints.aliases = _date_aliases(task.slots)
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
        if site.auth is not None:
            hints.login_page = hints.dest(site.auth.login_page)
        return hints

    def follow(self, session: Session, done: int = 0) -> None:
        """Bring what depends on the state (the rows still to write, the subgoal to reach next, of
        which ``done`` hold) up to the session's."""
        if self.levels:
            self.level = min(done, len(self.levels) - 1)
            self.focus = self.levels[self.level]
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
        shown = [_fold(page.title)] + [_fold(n.name) for n in page.nodes if n.role == "heading" and n.visible] + [
            _fold(n.value) for n in page.nodes if n.role == "textbox" and n.visible and n.value]
        names = self.targets or self.entities
        if any(name in text for name in names for text in shown):
            return 0
        if self.rivals and self._rival_headed(page):
            return _OFF_ENTITY  # headed by another thing of the same kind as the task's
        return self.off_entity_cost

    def _rival_headed(self, page: PageModel) -> bool:
        """Does the page's title or a heading name a rival (:func:`rival_names`) and none of the
        task's entities?"""
        heads = tuple([_fold(page.title)] + [_fold(n.name) for n in page.nodes if n.role == "heading" and n.visible])
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
        cost = self._texts.get(text)
        if cost is None:
            cost = self._texts[text] = self._text_cost_of(text)
        return cost

    def _text_cost_of(self, text: str) -> int:
        folded = _fold(text)
        if not folded:
            return 2
        if any(name in folded for name in self.targets):
            return 0
        for value, name in zip(self.values, self.slot_names):
            if not name:
                continue
            v = _fold(value)
            if v and (v == folded or (len(v) >= 3 and (v in folded or (len(folded) >= 4 and folded in v)))):
                return 0
        return 1 if words(text) & self.instruction else 2

    def _fill_cost(self, node: Node, form: Any, field_name: str, value_index: int, shown: str = "") -> int:
        """0: the field is named like the value's slot (or is the login's field, or a date field and
        the task's only date); more: less likely (2 more if the page already shows the value)."""
        cost = self._fill_cost_of(node, form, field_name, value_index)
        value = self.values[value_index]
        if node.input_type == "date" and sum(1 for v in self.values if _ISO.fullmatch(v)) == 1:
            return 0
        if (cost > 0 and self.slot_names[value_index] and shown and re.search(r"[^\W\d_]", value)
                and _fold(value) in shown):
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
        column = _fold(field_name)
        if form is not None and column in self.frozen.get(getattr(action, "marker", None) or "", ()):
            return 4  # a column the task may not change
        wanted = self.goal_slots.get(column) or self._focused(field_name, node.name)
        if wanted:
            return 0 if slot in wanted else 3  # the goal sets this column to that slot's value
        if column in self.computed:
            return 3  # the goal computes this column's value: see _goal_shown
        mine = [slot, *self.aliases.get(value, ())] if slot else []
        exact = [name for name in self.slot_names if name and _fold(name) == _fold(field_name)]
        if exact:  # a slot named exactly like the field: only its value (check_in, not check_out)
            mine = [name for name in mine if name in exact]
        if any(self._names(name, field_name, node.name) for name in mine):
            return 0
        if (slot and "name" in words(f"{field_name} {node.name}") and _PERSON.fullmatch(value.strip())
                and words(slot.replace("_", " ")) & _PERSON_SLOTS):
            return 0  # a person's name (the traveller, the sender) in a name field
        label = words(f"{field_name} {node.name}")
        if (label & _NUMBER_WORDS or "%" in node.name) and not _NUMERIC.fullmatch(value.strip().lstrip("$")):
            return 4  # words in a number field
        if ((field_name.casefold() in ("to", "cc", "bcc", "email") or node.input_type == "email"
             or label & {"email", "recipient"}) and "@" not in value and "search" not in label):
            return 4  # an address field takes addresses
        if _looks_like_date(value) and node.input_type != "date" and not label & _DATE_WORDS:
            return 4  # a date in a field whose label says nothing of dates
        if field_name in ("q", "query", "search") or "search" in label:
            return 1 if (" " in value.strip() or len(value) >= 6) and not _ISO.fullmatch(value) else 3
        if not slot:
            return 4
        if form is not None and getattr(action, "marker", None) in self.good_markers:
            # A form that writes the task's tables: a slot that names none of its fields is
            # likely typed into a field whose name the task does not use.
            others = [f for f in form.fields if f.name != field_name]
            if not any(self._names(slot, f.name, f.label) for f in others):
                return 1
        return 2

    def _focused(self, field_name: str, label: str) -> set[str]:
        """The slots the next subgoal wants in the columns a field is named like (empty: none)."""
        if not self.focus:
            return set()
        label_words = words(f"{field_name} {label}")
        out: set[str] = set()
        for column, slots in self.focus.items():
            column_words = words(column.replace("_", " "))
            if column_words & label_words or any(
                    len(a) >= 4 and len(b) >= 4 and (a.startswith(b) or b.startswith(a))
                    for a in column_words for b in label_words):
                out |= slots
        return out

    def _names(self, slot: str, field_name: str, label: str) -> bool:
        """Is a form field named like a slot?"""
        key = (slot, field_name, label)
        found = self._named.get(key)
        if found is None:
            found = bool(words(slot.replace("_", " ")) & words(f"{field_name} {label}")) or (
                _fold(slot) == _fold(field_name))
            self._named[key] = found
        return found

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
        for node in page.nodes:
            if page.blocked(node):
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
                    out.append((cost, f"click('{node.bid}')" if node.visible else format_action(Goto(href)), dest))
                    continue
                elif dest is not None and dest == self.login_page:
                    cost = 0 if (self.login is not None and not logged_in) else 5
                else:
                    cost = self._text_cost(node.name or node.text) + self._move_cost(here, dest)
                cost += 2 if session.ui.fields else 0  # leaving typed values behind
                if node.visible:
                    out.append((cost, f"click('{node.bid}')", dest))
                else:
                    out.append((cost + 1, format_action(Goto(href)), dest))
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
                    cost = self._option_cost(child, node, writes=_writes(form))
                    out.append((cost, format_action(SelectOption(node.bid, (child.name,))), None))
            elif role == "radio":
                if not node.checked:
                    group = (node.parent.behaviour or ()) if node.parent is not None else ()
                    info = page.forms.get(group[1]) if len(group) > 1 else None
                    out.append((self._option_cost(node, node.parent, writes=_writes(info.form if info else None)),
                                f"click('{node.bid}')", None))
            elif role == "checkbox":
                cost = 1 if words(node.name) & self.instruction else 3
                out.append((cost, f"click('{node.bid}')", None))
            elif node.editable and len(behaviour) >= 3:
                form_info = page.forms.get(behaviour[1])
                form = form_info.form if form_info is not None else None
                current = "" if node.value is None else str(node.value)
                edited = 2 if f"{behaviour[1]}:{behaviour[2]}" in session.ui.fields else 0
                typed = repr([v for k, v in session.ui.fields.items() if k != f"{behaviour[1]}:{behaviour[2]}"])
                edited += 2 if self._out_of_order(form, behaviour[1], behaviour[2], session) else 0
                for index, value in enumerate(self.values):
                    if value == current:
                        continue
                    if node.input_type == "date" and not _ISO.fullmatch(value):
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

    def _goal_shown(self, node: Node, name: str) -> list[str]:
        """The values the goal computes for the column a field is named like, where the page shows
        them (hidden tabs and closed widgets included: an agent may have looked)."""
        values = self.computed.get(_fold(name))
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
        if not label & (_EMAIL_WORDS | _AMOUNT_WORDS):
            return []
        # Every text of the page, hidden tabs and closed widgets included: an agent may have looked.
        text = " ".join(n.name or n.text or "" for n in self._all_nodes(node))
        if label & _EMAIL_WORDS:
            return sorted(set(_EMAIL.findall(text)))[:6]
        return sorted({m.replace(",", "") for m in _AMOUNT.findall(text)})[:8]

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

    def _move_cost(self, here: str, dest: str | None) -> int:
        if not self.distance or dest is None:
            return 1
        now, then = self.page_distance(here), self.page_distance(dest)
        return 0 if then < now else (1 if then == now else 2)

    def _shown(self, page: PageModel) -> str:
        cached = self._shown_text.get(id(page))
        if cached is None or cached[0] is not page:
            if len(self._shown_text) > 4096:
                self._shown_text.clear()
            cached = self._shown_text[id(page)] = (page, _shown(page))
        return cached[1]

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
        label = _fold(option.name)
        raw = _fold(option.value or "")
        column = _fold(field.behaviour[2]) if field is not None and len(field.behaviour or ()) >= 3 else ""
        if writes and column in self.goal_literals:  # a form that writes: set the column as the goal wants
            return 0 if (label in self.goal_literals[column] or raw in self.goal_literals[column]) else 3
        named = list(self._focused(field.behaviour[2], field.name)) if column else []
        named = named or [n for n in self.slot_names if n and field is not None and len(field.behaviour or ()) >= 3
                          and self._names(n, field.behaviour[2], field.name)]
        matched = False
        for value, name in zip(self.values, self.slot_names):
            if not name:
                continue
            v = _fold(value)
            if v and (v in (label, raw) or (len(v) >= 3 and v in label)
                      or (label and len(label) >= 3 and label in v)):
                if not named or name in named:
                    return 0
                matched = True  # another slot's value: look on for the slot named like the field
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
                          if c.role in ("option", "radio") and self._option_cost(c, node, writes=_writes(info.form)) == 0]
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
                                 and not (node.input_type == "date" and not _ISO.fullmatch(v))]
                if wanted_values and current not in wanted_values:
                    return False
        return True

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
            for steps in _combinations(choices, limit=_MACRO_VARIANTS):
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
                if node.input_type == "date" and not _ISO.fullmatch(value):
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
            elif not ranked:
                shown_values = self._page_values(node, form, name, shown)
                if len(shown_values) == 1:  # the one address or amount the page shows
                    ranked = [(1, -1, shown_values[0])]
            if not ranked and not current and _required(form, name):
                # A required field nothing names (a free-text reason): the least unlikely slot
                # value, so the form can be submitted at all.
                guesses = [(self._fill_cost(node, form, name, index, shown), index, value)
                           for index, value in enumerate(self.values) if self.slot_names[index]
                           and not (node.input_type == "date" and not _ISO.fullmatch(value))]
                ranked = sorted(g for g in guesses if g[0] <= 4)[:1]
            return [self._fill(node.bid, value) for _, _, value in ranked[:3] if value != current]
        if node.role in ("combobox", "radiogroup"):
            options = [c for c in node.children if c.role in ("option", "radio")]
            writes = _writes(form)
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
        if node.role == "checkbox" and not node.checked and words(node.name) & self.instruction:
            return [f"click('{node.bid}')"]
        return []

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
        filled = all(node_value not in ("", None) for node_value in _field_values(page, behaviour[1], info))
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


def _required(form: Any, name: str) -> bool:
    """Is the form's field ``name`` required?"""
    return form is not None and any(f.name == name and f.required for f in form.fields)


def _writes(form: Any) -> bool:
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


def _shown(page: PageModel) -> str:
    """The page's visible text (headings, paragraphs, cells, links), folded, for substring tests."""
    return " | ".join(_fold(n.name or n.text) for n in page.nodes
                      if n.visible and n.role in ("heading", "paragraph", "cell", "StaticText", "link"))


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


def _field_values(page: PageModel, form_key: str, info: Any) -> list[Any]:
    """The current values of a form's required fields, as the page shows them."""
    values = []
    for form_field in info.form.fields:
        if not form_field.required:
            continue
        key = f"{form_key}:{form_field.name}"
        node = page.by_key.get(key)
        values.append(node.value if node is not None else info.defaults.get(form_field.name))
    return values


_SET = re.compile(r"\bSET\b(.*?)(?:\bWHERE\b|$)", re.IGNORECASE | re.DOTALL)
_ASSIGNED = re.compile(r"[\"`]?(\w+)[\"`]?\s*=")


def _allowed(effect: Any, footprint: list[Any]) -> bool:
    """Could this write fall inside the footprint: an entry of its table allows its operation and,
    for an update, one of the columns it sets (as far as its SQL's ``SET`` clause tells: a form may
    write back the values it did not change)?"""
    for entry in footprint:
        if entry.table != effect.table or effect.op not in entry.ops:
            continue
        if effect.op != "update" or entry.columns is None:
            return True
        clause = _SET.search(effect.sql)
        if clause is None:
            return True
        depth, parts, start = 0, [], 0
        text = clause.group(1)
        for index, char in enumerate(text):  # split on top-level commas only
            depth += char == "("
            depth -= char == ")"
            if char == "," and depth == 0:
                parts.append(text[start:index])
                start = index + 1
        parts.append(text[start:])
        columns = {m.group(1) for part in parts if (m := _ASSIGNED.match(part.strip()))}
        if not columns or columns & set(entry.columns):
            return True
    return False


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

"""Discrete actions for compact policies: (action type, element row, argument), with action masks.

Action Space:
    ``MultiDiscrete([len(ACTION_TYPES), max_elements, n_args])``. The element is a row of the
    observation's element table. The argument is a pointer, never generated text
    (:mod:`veriweb.envs.arguments` says where the strings come from). In order:

    - thirteen pointers into the chosen row, for answers: ``<element>`` (its own text; for ``goto``,
      its link's address), ``<contents>`` (the texts inside it, comma-separated), ``<number>``
      (the first number or amount in its text), ``<links>`` (the link texts inside it: a list),
      then ``<part 0>`` to ``<part 5>`` (the parts of its text between separators such as ``·``),
      ``<up to>`` (the first texts of the rows of its table or list down to its own: a top-k
      list), ``<same>`` and ``<same total>`` (the rows whose cell in its column shows the same
      text, as a list of their first texts, and the total of the number each starts a later
      cell with: "the scores of my posts in c/hiking");
    - ``max_task_strings`` task strings: slot values, their other forms, runs of their words;
    - ``max_elements`` page strings: the text of each row of the element table (to type or
      select what the page shows);
    - ``max_history`` earlier addresses of this episode, most recent first (for ``goto``, as a
      browser's history menu does; ``goto`` with a link's row and a task string or a note visits
      the link's address with its last part edited to that text, as a person edits the address
      bar: ``/mail/Inbox`` and ``"Bin"`` give ``/mail/Bin``, see
      :func:`veriweb.envs.arguments.edited_address`);
    - ``max_notes`` notes, most recent first, then ``<notes list>`` and ``<notes total>`` (see
      Notes below; none of these when ``max_notes`` is 0);
    - the numbers 0 to ``max_number``.

    So retrieve tasks are answered by pointing at page text, a note or a count, and forms are
    filled with what the instruction, the page or an earlier page says.

Notes:
    The ``note`` type takes a row and one of the thirteen pointers above and remembers that text
    (``"Brussels"``, part 0 of a row ``"Brussels → Nice"``; ``"$44.81"``, the number of a bill's
    text). It costs one step of the budget and changes nothing on the site (the env sees
    ``noop()``). The wrapper keeps the last ``max_notes`` notes of the episode (the oldest is
    dropped first; a reset forgets them all). A note can be typed, selected or sent later, on
    any page; ``<notes list>`` sends them all as one list, in the order they were taken, and
    ``<notes total>`` the total of the first number or amount in each (``"$101.80"``). So a value
    read on one page is typed on another, and a total or a list that no one page shows (bills
    in separate messages, results over two pages) is answered without free text. This is the
    only memory: it holds what the policy chose to note, at most ``max_notes`` strings.

Observation Space:
    The wrapped env's, plus ``action_mask``: ``type`` (which types make sense now), ``element``
    (for each type, which rows it may target) and ``argument`` (for each type, which arguments
    it may take), and ``notes``: the token ids of the notes kept (``max_notes`` x
    ``NOTE_TOKENS``, most recent first, zeros where there is none). The masks are memoised on
    the encoded page and the number of notes; each observation gets its own copy.

Every certificate maps into these actions (:meth:`DiscreteActions.encode`, with the notes that
:func:`veriweb.envs.certificates.plan_notes` says to take on the way), with its target in the
truncated element table: :func:`veriweb.envs.coverage.certificate_coverage` checks it, and the
tests run it over generated sites of every domain.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from veriweb.engine import actions as A
from veriweb.engine.page import acting_page
from veriweb.envs.arguments import (CONTENTS, ELEMENT, LINKS, MAX_PARTS, NUMBER, PART, POINTER_NAMES, POINTERS, SAME,
                                    SAME_TOTAL, TEXT_ROLES, UP_TO, contents, node_text, notes_list, notes_total,
                                    edited_address, pointer_text, pointer_texts, same_address, same_amount, slot_order,
                                    task_strings)
from veriweb.envs.env import VeriwebEnv
from veriweb.envs.miniwob import MiniWoBEnv
from veriweb.envs.observation import AFFORDANCES, ROLE_IDS
from veriweb.envs.tokenizer import VOCAB_SIZE, encode_row
from veriweb.errors import VeriwebError

__all__ = ["ACTION_TYPES", "CONTENTS", "ELEMENT", "LINKS", "MAX_NOTES", "MAX_PARTS", "NOTE", "NOTE_ARGUMENTS",
           "NOTE_TOKENS", "NUMBER", "PART", "POINTERS", "POINTER_NAMES", "SAME", "SAME_TOTAL", "UP_TO",
           "DiscreteActions", "contents", "slot_order"]

ACTION_TYPES = ("noop", "click", "fill", "select", "check", "enter", "goto", "go_back", "send", "infeasible", "note")
NOOP, CLICK, FILL, SELECT, CHECK, ENTER, GOTO, GO_BACK, SEND, INFEASIBLE, NOTE = range(len(ACTION_TYPES))
NOTE_TOKENS = 16
"""Token ids kept per note in the ``notes`` observation."""
MAX_NOTES = 8
"""Notes kept by default."""
NOTE_ARGUMENTS = MAX_NOTES + 2
"""Note arguments in the default layout: the notes, ``<notes list>`` and ``<notes total>``."""


_COMBOBOX = ROLE_IDS["combobox"]
_CHECKABLE = np.isin(np.arange(len(ROLE_IDS)), [ROLE_IDS["checkbox"], ROLE_IDS["radio"]])
_TEXT_ROLE_IDS = np.isin(np.arange(len(ROLE_IDS)), [ROLE_IDS[role] for role in TEXT_ROLES])


def _types_by_affordance() -> np.ndarray:
    """Per affordance bits (:data:`veriweb.envs.observation.AFFORDANCES`), which types may target the row."""
    table = np.zeros((1 << len(AFFORDANCES), len(ACTION_TYPES)), np.int8)
    for bits in range(len(table)):
        can = {name: bool(bits >> index & 1) for index, name in enumerate(AFFORDANCES)}
        table[bits, CLICK] = can["click"]
        table[bits, FILL] = table[bits, ENTER] = can["type"]
        table[bits, SELECT] = can["select"]
        table[bits, CHECK] = can["check"]
        table[bits, GOTO] = can["visit"]
        table[bits, SEND] = table[bits, NOTE] = can["read"]
    table.setflags(write=False)
    return table


_BY_AFFORDANCE = _types_by_affordance()
_ROW_ZERO = np.isin(np.arange(len(ACTION_TYPES)), [NOOP, GO_BACK, SEND, INFEASIBLE])
"""Types that may always target row 0 (their element does not matter)."""


def _triple(action: Any) -> tuple[int, int, int]:
    """A discrete action's type, row and argument as Python ints."""
    if action.__class__ is np.ndarray and action.ndim == 1 and action.dtype.kind in "iu":
        kind, row, arg = action[:3].tolist()  # Python ints already (the usual case: a policy's array)
        return kind, row, arg
    kind, row, arg = (int(x) for x in np.asarray(action).reshape(-1)[:3].tolist())
    return kind, row, arg


def _frozen(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


class DiscreteActions(gym.Wrapper[dict[str, Any], np.ndarray, dict[str, Any], str], gym.utils.RecordConstructorArgs):
    """Expose a :class:`VeriwebEnv` to policies as (type, element, argument) with masks.

    Args:
        env: the env to wrap (possibly already wrapped).
        max_task_strings: task-string arguments (slot values, their forms and word runs).
        max_history: earlier-address arguments.
        max_notes: notes kept (and note arguments); 0 turns the ``note`` type off.
        max_number: number arguments 0..max_number.
    """

    def __init__(self, env: gym.Env[Any, Any], *, max_task_strings: int = 96, max_history: int = 8,
                 max_notes: int = MAX_NOTES, max_number: int = 30) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, max_task_strings=max_task_strings, max_history=max_history,
                                                 max_notes=max_notes, max_number=max_number)
        gym.Wrapper.__init__(self, env)
        base = env.unwrapped
        if not isinstance(base, (VeriwebEnv, MiniWoBEnv)):
            raise VeriwebError("DiscreteActions wraps a VeriwebEnv or a MiniWoBEnv; got " + type(base).__name__)
        if min(max_task_strings, max_history, max_notes, max_number) < 0:
            raise VeriwebError("max_task_strings, max_history, max_notes and max_number must not be negative")
        self.base: VeriwebEnv = base
        self.max_task_strings, self.max_history, self.max_number = max_task_strings, max_history, max_number
        self.max_notes = max_notes
        self.n_elements = E = base.config.max_elements
        self.task_start = POINTERS
        self.page_start = self.task_start + max_task_strings
        self.history_start = self.page_start + E
        self.note_start = self.history_start + max_history
        self.notes_list_arg = self.note_start + max_notes
        self.notes_total_arg = self.notes_list_arg + 1
        self.number_start = self.note_start + (max_notes + 2 if max_notes else 0)
        self.n_args = self.number_start + max_number + 1
        T, N = len(ACTION_TYPES), self.n_args
        self._layout = ("action_mask", E, self.page_start, self.history_start, self.note_start, self.number_start,
                        N, max_notes)
        """Names this wrapper's argument layout in the masks memoised on a page's view (which other
        wrappers of the same site's pages share)."""
        self.action_space = spaces.MultiDiscrete([T, E, N])
        self.observation_space = spaces.Dict({
            **base.observation_space.spaces,
            "action_mask": spaces.Dict({
                "type": spaces.Box(0, 1, (T,), np.int8),
                "element": spaces.Box(0, 1, (T, E), np.int8),
                "argument": spaces.Box(0, 1, (T, N), np.int8),
            }),
            "notes": spaces.Box(0, VOCAB_SIZE - 1, (max_notes, NOTE_TOKENS), np.int32),
        })
        self._task_for: Any = None
        self._task_strings: list[str] = []
        self._notes: list[str] = []
        self._templates: dict[tuple[int, int, int, bool], tuple[np.ndarray, np.ndarray, tuple[bool, ...]]] = {}
        self._arguments: dict[tuple[Any, ...], np.ndarray] = {}
        self._total_for: tuple[tuple[str, ...], str] = ((), "")
        self._notes_rows: tuple[tuple[str, ...], np.ndarray] = ((), np.zeros((max_notes, NOTE_TOKENS), np.int32))

    # ------------------------------------------------------------------ arguments

    def task_strings(self) -> list[str]:
        """The task strings of the current task (memoised per task)."""
        if isinstance(self.base, MiniWoBEnv):  # its own strings: MiniWoB++'s fields and the quoted goal
            self._task_strings = self.base.task_strings(self.max_task_strings)
            return self._task_strings
        task = self.base.task
        if self._task_for is not task:
            today = dt.date.fromisoformat(self.base.site.clock.today.isoformat())
            self._task_strings = task_strings(task, today, self.max_task_strings)
            self._task_for = task
        return self._task_strings

    def history(self) -> list[str]:
        """Earlier addresses of this episode, distinct, most recent first, not the current one."""
        episode = self.base.episode
        if episode is None:
            return []
        ui = episode.session.ui
        current = ui.history[ui.position] if 0 <= ui.position < len(ui.history) else None
        seen: list[str] = []
        for url in reversed(ui.history[:max(ui.position, 0)]):
            if url != current and url not in seen:
                seen.append(url)
                if len(seen) == self.max_history:
                    break
        return seen

    def notes(self) -> list[str]:
        """The notes kept, in the order they were taken (at most ``max_notes``)."""
        return list(self._notes)

    def argument_text(self, arg: int, row: int = 0) -> str | None:
        """The string an argument stands for (``None`` for an empty or pointer argument)."""
        if self.task_start <= arg < self.page_start:
            strings = self.task_strings()
            index = arg - self.task_start
            return strings[index] if index < len(strings) else None
        if self.page_start <= arg < self.history_start:
            bids = self.base.element_bids
            index = arg - self.page_start
            return node_text(acting_page(self.base.page).by_bid[bids[index]]) or None if index < len(bids) else None
        if self.history_start <= arg < self.note_start:
            history = self.history()
            index = arg - self.history_start
            return history[index] if index < len(history) else None
        if self.note_start <= arg < self.number_start:
            if arg == self.notes_list_arg:
                return notes_list(self._notes) or None
            if arg == self.notes_total_arg:
                return notes_total(self._notes) or None
            index = arg - self.note_start
            return self._notes[-1 - index] if index < len(self._notes) else None
        if self.number_start <= arg < self.n_args:
            return str(arg - self.number_start)
        return None

    # ------------------------------------------------------------------ masks

    def masks(self) -> dict[str, np.ndarray]:
        """The action masks of the current state (read-only arrays, memoised on the page)."""
        base = self.base
        memo = base.view.memo
        episode = base.episode
        back = int(episode is not None and episode.session.ui.position > 0)
        history = len(self.history()) if back else 0
        noted = len(self._notes)
        total = bool(noted and self._notes_total())
        key = (self._layout, len(self.task_strings()), history, back, noted, total)
        cached = memo.get(key)
        if cached is not None:
            return cached
        tasks_count = len(self._task_strings)
        targets = self._targets_of_view()
        linked = targets[GOTO]  # some row is a link to visit
        argument = self._argument_mask(tasks_count, history, noted, total, linked)
        takes = list(self._argument_template(tasks_count, history, noted, total)[2])
        if targets[-1]:  # some row has a text to type or select
            takes[FILL] = takes[SELECT] = True
        if linked:
            takes[GOTO] = True
        element = self._element_mask()
        if history and not linked:
            element = self._element_mask(with_history=True)
            targets = (*targets[:GOTO], True, *targets[GOTO + 1:])
        types = np.array([target and take for target, take in zip(targets, takes)], np.int8)
        types[GO_BACK] = back
        masks = {"type": _frozen(types), "element": element, "argument": argument}
        memo[key] = masks
        return masks

    def _argument_mask(self, tasks_count: int, history: int, noted: int, total: bool, linked: bool) -> np.ndarray:
        """The argument mask (read-only): the template's, with the page strings of ``fill`` and ``select``
        (the rows that have a text) and, when a row is a link, the link arguments of ``goto``. Memoised
        by those inputs, so views with the same rows with text share one."""
        rows = self._page_rows()
        key = (tasks_count, history, noted, total, linked, rows.tobytes())
        cached = self._arguments.get(key)
        if cached is not None:
            return cached
        argument = self._argument_template(tasks_count, history, noted, total)[0].copy()
        argument[FILL, self.page_start:self.history_start] = argument[SELECT, self.page_start:self.history_start] = rows
        if linked:
            argument[GOTO, ELEMENT] = 1
            argument[GOTO, self.task_start:self.task_start + tasks_count] = 1  # a link's address, edited to a task string
            argument[GOTO, self.note_start:self.note_start + noted] = 1  # ... or to a note
        if len(self._arguments) > 4_096:
            self._arguments.clear()
        self._arguments[key] = cached = _frozen(argument)
        return cached

    def _argument_template(self, tasks_count: int, history: int, noted: int,
                           total: bool) -> tuple[np.ndarray, np.ndarray, tuple[bool, ...]]:
        """The argument mask's rows that do not depend on the page, and per type whether it allows an
        argument (as an array and as a tuple; memoised, read-only): all of it but the page strings of
        ``fill`` and ``select`` and the link arguments of ``goto``."""
        key = (tasks_count, history, noted, total)
        cached = self._templates.get(key)
        if cached is not None:
            return cached
        T, N = len(ACTION_TYPES), self.n_args
        argument = np.zeros((T, N), np.int8)
        for kind in (NOOP, CLICK, CHECK, ENTER, GO_BACK, INFEASIBLE):
            argument[kind, ELEMENT] = 1
        tasks = slice(self.task_start, self.task_start + tasks_count)
        numbers = slice(self.number_start, self.n_args)
        for kind in (FILL, SELECT):
            argument[kind, tasks] = 1
            argument[kind, numbers] = 1
        argument[SEND, :POINTERS] = 1
        argument[SEND, tasks] = 1
        argument[SEND, numbers] = 1
        if noted:
            for kind in (FILL, SELECT, SEND):
                argument[kind, self.note_start:self.note_start + noted] = 1
                argument[kind, self.notes_list_arg] = 1
                argument[kind, self.notes_total_arg] = int(total)
        if self.max_notes:
            argument[NOTE, :POINTERS] = 1
        argument[GOTO, self.history_start:self.history_start + history] = 1
        if len(self._templates) > 4_096:
            self._templates.clear()
        takes = argument.any(axis=1)
        self._templates[key] = cached = (_frozen(argument), _frozen(takes), tuple(bool(t) for t in takes))
        return cached

    def _targets_of_view(self) -> tuple[bool, ...]:
        """Per type, whether the element mask allows some row; then whether some row has a page string
        (memoised on the page's view)."""
        view = self.base.view
        key = ("element_targets", self.n_elements)
        cached = view.memo.get(key)
        if cached is None:
            if len(view.affordances) == self.n_elements:  # the union of the rows' affordances
                some = _BY_AFFORDANCE[int(np.bitwise_or.reduce(view.affordances))] | _ROW_ZERO
            else:
                some = self._element_mask().any(axis=1)
            cached = view.memo[key] = (*(bool(x) for x in some.tolist()), bool(view.has_text.any()))
        return cached

    def _notes_total(self) -> str:
        """:func:`notes_total` of the notes kept (memoised until they change)."""
        notes = tuple(self._notes)
        if self._total_for[0] != notes:
            self._total_for = (notes, notes_total(self._notes))
        return self._total_for[1]

    def _element_mask(self, *, with_history: bool = False) -> np.ndarray:
        """Which rows each type may target: a function of the page's rows, memoised on its view. With
        ``with_history``, ``goto`` may also target row 0 (to visit an earlier address of the episode)."""
        view = self.base.view
        if with_history:
            key = ("element_mask_history", self.n_elements)
            cached = view.memo.get(key)
            if cached is None:
                cached = self._element_mask().copy()
                cached[GOTO, 0] = 1
                cached = view.memo[key] = _frozen(cached)
            return cached
        key = ("element_mask", self.n_elements)
        cached = view.memo.get(key)
        if cached is not None:
            return cached
        if len(view.affordances) == self.n_elements:  # the encoder's affordance bits, one lookup
            element = np.ascontiguousarray(_BY_AFFORDANCE[view.affordances].T)
        else:
            flags, role = view.arrays["flags"], view.arrays["role"]
            usable = view.usable
            element = np.zeros((len(ACTION_TYPES), self.n_elements), np.int8)
            element[CLICK] = usable & (flags[:, 1] > 0)
            element[FILL] = element[ENTER] = usable & (flags[:, 2] > 0)
            element[SELECT] = usable & (role == _COMBOBOX)
            element[CHECK] = usable & _CHECKABLE[role]
            element[GOTO] = view.linked
            element[SEND] = element[NOTE] = (flags[:, 0] > 0) & _TEXT_ROLE_IDS[role]
        element[[NOOP, GO_BACK, SEND, INFEASIBLE], 0] = 1  # types whose element may not matter
        view.memo[key] = _frozen(element)
        return element

    def _page_rows(self) -> np.ndarray:
        """Which rows have a text to type or select (hidden ones too: a closed tab the agent read)."""
        return self.base.view.has_text

    def _with_mask(self, obs: dict[str, Any]) -> dict[str, Any]:
        obs["action_mask"] = {name: mask.copy() for name, mask in self.masks().items()}  # the caller's own
        kept, notes = self._notes_rows
        if kept != tuple(self._notes):  # the notes' token rows change only when a note is taken or a reset
            notes = np.zeros((self.max_notes, NOTE_TOKENS), np.int32)
            for index, note in enumerate(reversed(self._notes)):
                notes[index] = np.frombuffer(encode_row(note, NOTE_TOKENS), np.int32)
            self._notes_rows = (tuple(self._notes), notes)
        obs["notes"] = notes.copy()
        return obs

    # ------------------------------------------------------------------ stepping

    def decode(self, action: Any) -> str:
        """The action string of a discrete action (invalid choices become actions that fail visibly)."""
        kind, row, arg = _triple(action)
        name = ACTION_TYPES[kind] if 0 <= kind < len(ACTION_TYPES) else "noop"
        bids = self.base.element_bids
        bid = bids[row] if 0 <= row < len(bids) else "-1"
        if name == "click":
            return f"click('{bid}')"
        if name in ("fill", "select"):
            value = self.argument_text(arg) or ""
            return A.format_action(A.Fill(bid, value) if name == "fill" else A.SelectOption(bid, (value,)))
        if name == "check":
            return f"check('{bid}')"
        if name == "enter":
            return f"press('{bid}', 'Enter')"
        if name == "goto":
            node = acting_page(self.base.page).by_bid.get(bid)
            url = node.href if node is not None and node.href else "/"
            if self.history_start <= arg < self.note_start:
                url = self.argument_text(arg) or "/"
            elif arg >= POINTERS:
                url = edited_address(url, self.argument_text(arg) or "")
            return A.format_action(A.Goto(url))
        if name == "go_back":
            return "go_back()"
        if name == "send":
            return A.format_action(A.SendMsgToUser(self._answer_text(bid, arg)))
        if name == "infeasible":
            return "report_infeasible('This cannot be done on this site.')"
        return "noop()"  # noop, and note: the site sees nothing

    def note_text(self, action: Any) -> str:
        """The text a ``note`` action would remember in the current state (``""`` for nothing)."""
        kind, row, arg = _triple(action)
        bids = self.base.element_bids
        if kind != NOTE or not 0 <= arg < POINTERS or not 0 <= row < len(bids):
            return ""
        return self._answer_text(bids[row], arg)

    def _answer_text(self, bid: str, arg: int) -> str:
        # pointers read names, texts, roles and visibility, which typing never changes: a typed page's own tree
        # need not be made for them (veriweb.engine.page.acting_page)
        node = acting_page(self.base.page).by_bid.get(bid)
        if arg < POINTERS:
            return "" if node is None else pointer_text(node, arg)
        return self.argument_text(arg) or ""

    def sample(self, mask: dict[str, np.ndarray]) -> np.ndarray:
        """A random action that the masks allow (a type, then a row and an argument for it)."""
        rng = self.np_random  # a[rng.integers(len(a))] draws what rng.choice(a) does, in a fifth of the time
        kinds = mask["type"].nonzero()[0]
        kind = int(kinds[rng.integers(len(kinds))])
        rows = mask["element"][kind].nonzero()[0]
        args = mask["argument"][kind].nonzero()[0]
        return np.array([kind, int(rows[rng.integers(len(rows))]) if len(rows) else 0,
                         int(args[rng.integers(len(args))]) if len(args) else 0])

    def reset(self, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        self._notes = []
        obs, info = self.env.reset(**kwargs)
        return self._with_mask(obs), info

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """Take a discrete action; a ``note`` remembers its text (``info["note"]``) and steps ``noop()``."""
        text = self.decode(action)
        is_note = _triple(action)[0] == NOTE
        note = self.note_text(action) if self.max_notes and is_note else ""  # (only a note has a text)
        if note:
            self._notes = [*self._notes, note][-self.max_notes:]
        obs, reward, terminated, truncated, info = self.env.step(text)
        info["action_text"] = text
        if is_note:
            info["note"] = note
        return self._with_mask(obs), reward, terminated, truncated, info

    # ------------------------------------------------------------------ certificates

    def encode(self, action: str) -> np.ndarray:
        """The discrete action that does what ``action`` does in the current state.

        Raises:
            VeriwebError: the action has no discrete equivalent here (its target is not in the
                element table, or it types a value that is no argument).
        """
        parsed = A.parse_action(action)
        bids = list(self.base.element_bids)
        page = self.base.page

        def row(bid: str) -> int:
            if bid not in bids:
                raise VeriwebError(f"{action}: element [{bid}] is not in the observation's element table")
            return bids.index(bid)

        def make(kind: int, element: int = 0, arg: int = 0) -> np.ndarray:
            return np.array([kind, element, arg], dtype=np.int64)

        if isinstance(parsed, A.Click):
            return make(CLICK, row(parsed.bid))
        if isinstance(parsed, A.Fill):
            return make(FILL, row(parsed.bid), self._typed(action, parsed.value))
        if isinstance(parsed, A.SelectOption):
            wanted = parsed.options[0]
            try:
                return make(SELECT, row(parsed.bid), self._typed(action, wanted))
            except VeriwebError:
                node = page.by_bid.get(parsed.bid)
                for child in node.children if node is not None else []:
                    if wanted in (child.value, child.name) and child.bid in bids:
                        return make(CLICK, row(child.bid))
                raise
        if isinstance(parsed, A.Check):
            return make(CHECK, row(parsed.bid))
        if isinstance(parsed, A.Press) and parsed.key == "Enter":
            return make(ENTER, row(parsed.bid))
        if isinstance(parsed, A.Goto):
            return self._encode_goto(action, parsed.url, bids, make)
        if isinstance(parsed, A.GoBack):
            return make(GO_BACK)
        if isinstance(parsed, A.ReportInfeasible):
            return make(INFEASIBLE)
        if isinstance(parsed, A.Noop):
            return make(NOOP)
        if isinstance(parsed, A.SendMsgToUser):
            return self._encode_answer(parsed.text, make)
        raise VeriwebError(f"{action}: no discrete equivalent for {parsed.name}()")

    def _typed(self, action: str, value: str) -> int:
        """The argument that types ``value``: a task string, a number, a page string, a page string
        writing the same amount, or a task string with the same words in another case."""
        for index, candidate in enumerate(self.task_strings()):
            if candidate == value:
                return self.task_start + index
        if value.isdigit() and int(value) <= self.max_number and str(int(value)) == value:
            return self.number_start + int(value)
        page = self.base.page
        texts = [node_text(page.by_bid[bid]) for bid in self.base.element_bids]
        for index, text in enumerate(texts):
            if text and text == value:
                return self.page_start + index
        for index, text in enumerate(texts):
            if text and same_amount(value, text):
                return self.page_start + index
        for arg in range(self.note_start, self.number_start):  # a note, most recent first, or an aggregate
            noted = self.argument_text(arg)
            if noted and (noted == value or same_amount(value, noted)):
                return arg
        folded = value.casefold()
        for index, candidate in enumerate(self.task_strings()):  # the same words, written in another case
            if candidate.casefold() == folded:
                return self.task_start + index
        raise VeriwebError(f"{action}: {value!r} is not one of the arguments (the task's strings, the page's "
                           f"texts, the notes and the numbers 0-{self.max_number})")

    def _encode_goto(self, action: str, url: str, bids: list[str], make: Any) -> np.ndarray:
        """A visit: back to the previous page, a link with that address, or an earlier address."""
        episode = self.base.episode
        ui = episode.session.ui if episode is not None else None
        if ui is not None and ui.position > 0 and ui.history[ui.position - 1] == url:
            return make(GO_BACK)  # back to the page the agent just came from
        page = self.base.page
        for index, candidate in enumerate(bids):
            node = page.by_bid[candidate]
            if node.role == "link" and node.href == url:
                return make(GOTO, index, ELEMENT)
        history = self.history()
        if url in history:
            element = self._element_mask()[GOTO]
            return make(GOTO, int(np.flatnonzero(element)[0]) if element.any() else 0,
                        self.history_start + history.index(url))
        texts = [(self.task_start + index, text) for index, text in enumerate(self.task_strings())]
        noted = range(self.note_start, self.note_start + len(self._notes))
        texts += [(arg, self.argument_text(arg) or "") for arg in noted]
        for index in np.flatnonzero(self._element_mask()[GOTO]):  # a link's address, its last part edited
            href = page.by_bid[bids[index]].href or ""
            for arg, text in texts:
                if text and same_address(edited_address(href, text), url):
                    return make(GOTO, int(index), arg)
        raise VeriwebError(f"{action}: no link to {url!r} in the element table, not an earlier address of this "
                           "episode, and no link's address with its last part edited to a task string or a note")

    def _encode_answer(self, text: str, make: Any) -> np.ndarray:
        """An answer as a pointer: to a task string, a number, or a row's text the judge accepts."""
        episode = self.base.episode
        if episode is None:
            raise VeriwebError("call reset() before encode()")
        strings = self.task_strings()
        stripped = text.strip()
        if stripped in strings:
            return make(SEND, 0, self.task_start + strings.index(stripped))
        if stripped.isdigit() and int(stripped) <= self.max_number and str(int(stripped)) == stripped:
            return make(SEND, 0, self.number_start + int(stripped))
        if self.base.task.kind != "retrieve":
            return make(SEND, 0, self.number_start)  # any message: the judge looks at the state
        judge = episode.judge
        page = self.base.page
        for index, bid in enumerate(self.base.element_bids):
            node = page.by_bid[bid]
            if not node.visible or node.role not in TEXT_ROLES:
                continue
            for arg, candidate in pointer_texts(node):
                if judge.judge_answer(candidate).correct:
                    return make(SEND, index, arg)
        for arg in range(self.note_start, self.number_start):  # a note, most recent first, or an aggregate
            noted = self.argument_text(arg)
            if noted and judge.judge_answer(noted).correct:
                return make(SEND, 0, arg)
        for index, candidate in enumerate(strings):
            if judge.judge_answer(candidate).correct:
                return make(SEND, 0, self.task_start + index)
        for number in range(self.max_number + 1):
            if judge.judge_answer(str(number)).correct:
                return make(SEND, 0, self.number_start + number)
        raise VeriwebError(f"send_msg_to_user({text!r}): no row's text, number, contents or links, no note, no task "
                           "string and no number is a correct answer")


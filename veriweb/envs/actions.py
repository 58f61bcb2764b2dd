"""Discrete actions for compact policies: (action type, element row, argument), with action masks.

Action Space:
    ``MultiDiscrete([len(ACTION_TYPES), max_elements, n_args])``. The element is a row of the
    observation's element table. Arguments are, in order: ``<element>`` (the element's own text),
    ``<contents>`` (the texts inside the element, comma-separated: a list answer), the task's slot
    values (up to ``max_slots``, in the order the template names them), and the numbers 0 to
    ``max_number``. So retrieve tasks are answered by pointing at page text or a count, never by
    generating free text.

Observation Space:
    The wrapped env's, plus ``action_mask``: ``type`` (which types make sense now), ``element``
    (for each type, which rows it may target) and ``argument`` (for each type, which arguments
    it may take).

Every certificate maps into these actions (:func:`DiscreteActions.encode`), with its target in
the truncated element table; the tests check it over whole corpora.
"""

from __future__ import annotations

import datetime as dt
import string
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from veriweb.engine import actions as A
from veriweb.engine.answers import parse_date
from veriweb.engine.page import Node
from veriweb.envs.env import VeriwebEnv
from veriweb.errors import VeriwebError

ACTION_TYPES = ("noop", "click", "fill", "select", "check", "enter", "goto", "go_back", "send", "infeasible")
ELEMENT, CONTENTS = 0, 1
_CONTAINERS = ("list", "listitem", "row", "table")
_TEXT_ROLES = ("paragraph", "StaticText", "heading", "link", "cell", "option", "listitem", "status", "alert",
               "columnheader", "button", "list", "table", "row")


def slot_order(template: str) -> list[str]:
    """The slot names in the order the template uses them (first use)."""
    names: list[str] = []
    for _, name, _, _ in string.Formatter().parse(template):
        if name and name not in names:
            names.append(name)
    return names


def contents(node: Node) -> str:
    """The texts inside a node, comma-separated (links, text and cells, in order)."""
    parts: list[str] = []
    stack = list(reversed(node.children))
    while stack:
        child = stack.pop()
        label = child.name or child.text
        if child.visible and label and child.role in ("link", "paragraph", "StaticText", "cell", "heading"):
            parts.append(label)
        elif child.visible:
            stack.extend(reversed(child.children))
    return ", ".join(parts)


class DiscreteActions(gym.Wrapper[dict[str, Any], np.ndarray, dict[str, Any], str], gym.utils.RecordConstructorArgs):
    """Expose a :class:`VeriwebEnv` to policies as (type, element, argument) with masks.

    Args:
        env: the env to wrap (possibly already wrapped).
        max_slots: slot-value arguments.
        max_number: number arguments 0..max_number.
    """

    def __init__(self, env: gym.Env[Any, Any], *, max_slots: int = 8, max_number: int = 30) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, max_slots=max_slots, max_number=max_number)
        gym.Wrapper.__init__(self, env)
        base = env.unwrapped
        if not isinstance(base, VeriwebEnv):
            raise VeriwebError("DiscreteActions wraps a VeriwebEnv")
        self.base: VeriwebEnv = base
        self.max_slots, self.max_number = max_slots, max_number
        self.n_elements = base.config.max_elements
        self.n_args = 2 + max_slots + max_number + 1
        self.action_space = spaces.MultiDiscrete([len(ACTION_TYPES), self.n_elements, self.n_args])
        T, E, N = len(ACTION_TYPES), self.n_elements, self.n_args
        self.observation_space = spaces.Dict({
            **base.observation_space.spaces,
            "action_mask": spaces.Dict({
                "type": spaces.Box(0, 1, (T,), np.int8),
                "element": spaces.Box(0, 1, (T, E), np.int8),
                "argument": spaces.Box(0, 1, (T, N), np.int8),
            }),
        })

    # ------------------------------------------------------------------ arguments

    def arguments(self) -> list[str | None]:
        """The argument list of the current task (``None`` for the two element-derived ones)."""
        task = self.base.task
        if getattr(self, "_args_for", None) is task:
            return self._args
        self._args_for = task
        slots = [str(task.slots[name]) for name in slot_order(task.template) if name in task.slots]
        # a date slot ("June 28") also as the ISO form a date field takes ("2026-06-28")
        today = dt.date.fromisoformat(self.base.site.clock.today.isoformat())
        for value in list(slots):
            day = parse_date(value, today)
            if day is not None and day.isoformat() not in slots:
                slots.append(day.isoformat())
        slots = (slots + [""] * self.max_slots)[: self.max_slots]
        self._args: list[str | None] = [None, None, *slots, *(str(n) for n in range(self.max_number + 1))]
        return self._args

    # ------------------------------------------------------------------ masks

    def masks(self) -> dict[str, np.ndarray]:
        """The action masks of the current state."""
        base = self.base
        element = self._element_mask()
        args = self.arguments()
        T, N = len(ACTION_TYPES), self.n_args
        argument = np.zeros((T, N), np.int8)
        argument[:, ELEMENT] = 1
        filled = np.array([a not in (None, "") for a in args], np.int8)
        argument[2] = argument[3] = filled
        argument[8] = filled
        argument[8, ELEMENT] = argument[8, CONTENTS] = 1
        for kind in (2, 3):
            argument[kind, ELEMENT] = 0
        types = (element.sum(axis=1) > 0).astype(np.int8)
        element = element.copy()
        types[7] = int(base.episode is not None and base.episode.session.ui.position > 0)
        types[2] &= int(filled[2:2 + self.max_slots].any())
        types[3] &= int(filled[2:2 + self.max_slots].any())
        return {"type": types, "element": element, "argument": argument}

    def _element_mask(self) -> np.ndarray:
        """Which rows each type may target: a function of the page alone, memoised on it."""
        page = self.base.page
        key = ("element_mask", self.base.config)
        cached = page.renderings.get(key)
        if cached is not None:
            return cached
        element = np.zeros((len(ACTION_TYPES), self.n_elements), np.int8)
        for row, bid in enumerate(self.base.element_bids):
            node = page.by_bid[bid]
            usable = node.visible and not page.blocked(node)
            if usable and node.interactable:
                element[1, row] = 1
            if usable and node.editable:
                element[2, row] = element[5, row] = 1
            if usable and node.role == "combobox":
                element[3, row] = 1
            if usable and node.role in ("checkbox", "radio"):
                element[4, row] = 1
            if node.role == "link" and node.href and node.href.startswith("/"):
                element[6, row] = 1
            if node.visible and node.role in _TEXT_ROLES:
                element[8, row] = 1
        for kind in (0, 7, 8, 9):  # types whose element may not matter (an answer from the arguments)
            element[kind, 0] = 1
        page.renderings[key] = element
        return element

    def _with_mask(self, obs: dict[str, Any]) -> dict[str, Any]:
        return {**obs, "action_mask": self.masks()}

    # ------------------------------------------------------------------ stepping

    def decode(self, action: Any) -> str:
        """The action string of a discrete action (invalid choices become actions that fail visibly)."""
        kind, row, arg = (int(x) for x in np.asarray(action).reshape(-1)[:3])
        name = ACTION_TYPES[kind] if 0 <= kind < len(ACTION_TYPES) else "noop"
        bids = self.base.element_bids
        bid = bids[row] if 0 <= row < len(bids) else "-1"
        args = self.arguments()
        value = args[arg] if 0 <= arg < len(args) else None
        if name == "click":
            return f"click('{bid}')"
        if name == "fill":
            return A.format_action(A.Fill(bid, value or ""))
        if name == "select":
            return A.format_action(A.SelectOption(bid, (value or "",)))
        if name == "check":
            return f"check('{bid}')"
        if name == "enter":
            return f"press('{bid}', 'Enter')"
        if name == "goto":
            node = self.base.page.by_bid.get(bid)
            return A.format_action(A.Goto(node.href if node is not None and node.href else "/"))
        if name == "go_back":
            return "go_back()"
        if name == "send":
            node = self.base.page.by_bid.get(bid)
            if arg == ELEMENT:
                text = (node.name or node.text) if node is not None else ""
            elif arg == CONTENTS:
                text = contents(node) if node is not None else ""
            else:
                text = value or ""
            return A.format_action(A.SendMsgToUser(text))
        if name == "infeasible":
            return "report_infeasible('This cannot be done on this site.')"
        return "noop()"

    def sample(self, mask: dict[str, np.ndarray]) -> np.ndarray:
        """A random action that the masks allow (a type, then a row and an argument for it)."""
        rng = self.np_random
        kind = int(rng.choice(np.flatnonzero(mask["type"])))
        rows = np.flatnonzero(mask["element"][kind])
        args = np.flatnonzero(mask["argument"][kind])
        return np.array([kind, int(rng.choice(rows)) if len(rows) else 0, int(rng.choice(args)) if len(args) else 0])

    def reset(self, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        obs, info = self.env.reset(**kwargs)
        return self._with_mask(obs), info

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        text = self.decode(action)
        obs, reward, terminated, truncated, info = self.env.step(text)
        info["action_text"] = text
        return self._with_mask(obs), reward, terminated, truncated, info

    # ------------------------------------------------------------------ certificates

    def encode(self, action: str) -> np.ndarray:
        """The discrete action that does what ``action`` does in the current state.

        Raises:
            VeriwebError: the action has no discrete equivalent here (its target is not in the
                element table, or it types a value that is not an argument).
        """
        parsed = A.parse_action(action)
        bids = list(self.base.element_bids)
        page = self.base.page
        args = self.arguments()

        def row(bid: str) -> int:
            if bid not in bids:
                raise VeriwebError(f"{action}: element [{bid}] is not in the observation's element table")
            return bids.index(bid)

        def argument(value: str) -> int:
            for index, candidate in enumerate(args):
                if index >= 2 and candidate not in (None, "") and candidate == value:
                    return index
            raise VeriwebError(f"{action}: {value!r} is not one of the arguments (slot values and numbers)")

        def make(kind: str, element: int = 0, arg: int = 0) -> np.ndarray:
            return np.array([ACTION_TYPES.index(kind), element, arg], dtype=np.int64)

        if isinstance(parsed, A.Click):
            return make("click", row(parsed.bid))
        if isinstance(parsed, A.Fill):
            return make("fill", row(parsed.bid), argument(parsed.value))
        if isinstance(parsed, A.SelectOption):
            wanted = parsed.options[0]
            try:
                return make("select", row(parsed.bid), argument(wanted))
            except VeriwebError:
                node = page.by_bid.get(parsed.bid)
                for child in node.children if node is not None else []:
                    if wanted in (child.value, child.name) and child.bid in bids:
                        return make("click", row(child.bid))
                raise
        if isinstance(parsed, A.Check):
            return make("check", row(parsed.bid))
        if isinstance(parsed, A.Press) and parsed.key == "Enter":
            return make("enter", row(parsed.bid))
        if isinstance(parsed, A.Goto):
            ui = self.base.episode.session.ui if self.base.episode is not None else None
            if ui is not None and ui.position > 0 and ui.history[ui.position - 1] == parsed.url:
                return make("go_back")  # back to the page the agent just came from
            for candidate in bids:
                node = page.by_bid[candidate]
                if node.role == "link" and node.href == parsed.url:
                    return make("goto", row(candidate))
            raise VeriwebError(f"{action}: no link to {parsed.url!r} in the element table")
        if isinstance(parsed, A.GoBack):
            return make("go_back")
        if isinstance(parsed, A.ReportInfeasible):
            return make("infeasible")
        if isinstance(parsed, A.Noop):
            return make("noop")
        if isinstance(parsed, A.SendMsgToUser):
            return self._encode_answer(parsed.text, make)
        raise VeriwebError(f"{action}: no discrete equivalent for {parsed.name}()")

    def _encode_answer(self, text: str, make: Any) -> np.ndarray:
        """An answer as a pointer: to an argument, an element's text or contents the judge accepts."""
        episode = self.base.episode
        assert episode is not None
        args = self.arguments()
        judge = episode.judge
        exact = next((a for a in range(2, len(args)) if args[a] == text.strip()), None)
        if exact is not None:
            return make("send", 0, exact)
        if self.base.task.kind != "retrieve":
            return make("send", 0, 2 + self.max_slots)  # any message: the judge looks at the state
        page = self.base.page
        for index, bid in enumerate(self.base.element_bids):
            node = page.by_bid[bid]
            if not node.visible or node.role not in _TEXT_ROLES:
                continue
            options = [(ELEMENT, node.name or node.text)]
            if node.role in _CONTAINERS:
                options.append((CONTENTS, contents(node)))
            for arg, candidate in options:
                if candidate and judge.judge_answer(candidate).correct:
                    return make("send", index, arg)
        for arg in range(2, len(args)):
            if args[arg] not in (None, "") and judge.judge_answer(str(args[arg])).correct:
                return make("send", 0, arg)
        raise VeriwebError(f"send_msg_to_user({text!r}): no element text, contents or argument is a correct answer")

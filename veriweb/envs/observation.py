"""Observations: a page model as a bounded Gymnasium ``Dict`` of text and fixed-size arrays.

The element table holds only what any browser-like source can give (a real browser's DOM or
accessibility tree, MiniWoB++'s ``dom_elements``): role, name/text, value, states, depth and
parent. Nothing engine-internal.

Truncation rule (pages with more than ``max_elements`` nodes): nodes are ranked, and the best
``max_elements`` are kept, then shown in document order:

1. visible nodes an agent can act on (links, buttons, fields, options, tabs);
2. visible headings, alerts and text;
3. hidden nodes an agent can act on (inside closed menus, tabs or collapsibles: their opener
   is in rank 1, and a hidden link's address can still be visited);
4. visible structure (lists, rows, cells, sections), then everything else.

So whatever a task needs to act on stays in the observation before anything decorative does.
A kept node's ``parent`` is its nearest kept ancestor. The accessibility-tree text shows the
same kept, visible nodes, so the two views agree; ``info["truncated"]`` says how many were cut.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces

from veriweb.engine.page import Node, PageModel
from veriweb.engine.render import node_line
from veriweb.envs.tokenizer import VOCAB_SIZE, encode

ROLES = ("other", "link", "button", "textbox", "date", "combobox", "option", "checkbox", "radio", "radiogroup",
         "tab", "tablist", "tabpanel", "heading", "paragraph", "StaticText", "list", "listitem", "table", "row",
         "cell", "columnheader", "form", "dialog", "menu", "menuitem", "group", "navigation", "main", "banner",
         "contentinfo", "complementary", "region", "search", "alert", "status", "img", "generic", "LabelText",
         "searchbox", "spinbutton", "slider", "switch", "listbox", "article", "separator")
ROLE_IDS = {role: index for index, role in enumerate(ROLES)}
FLAGS = ("visible", "interactable", "editable", "checked", "selected", "expanded", "focused", "disabled")

CHARSET = "\t\n" + "".join(chr(c) for c in range(32, 0x250)) + "".join(chr(c) for c in range(0x2000, 0x2070)) + "•€£¥"
"""Characters of every text in an observation; any other character is shown as ``?``."""
_ALLOWED = frozenset(CHARSET)

_TEXT_RANK = {"heading", "alert", "status", "paragraph", "StaticText", "columnheader"}


def clean(text: str, limit: int) -> str:
    """``text`` in :data:`CHARSET`, at most ``limit`` characters."""
    if len(text) > limit:
        text = text[:limit]
    if all(c in _ALLOWED for c in text):
        return text
    return "".join(c if c in _ALLOWED else "?" for c in text)


@dataclass(frozen=True)
class ObservationConfig:
    """Sizes of an observation.

    Attributes:
        max_elements: rows of the element table.
        name_tokens: tokens of each element's name or text.
        value_tokens: tokens of each element's value.
        goal_tokens: tokens of the goal.
        max_text: characters of the accessibility-tree text.
    """

    max_elements: int = 160
    name_tokens: int = 12
    value_tokens: int = 6
    goal_tokens: int = 48
    max_text: int = 24_000
    max_goal: int = 1_000

    def space(self) -> spaces.Dict:
        """The observation space."""
        E = self.max_elements
        text = lambda n: spaces.Text(max_length=n, min_length=0, charset=CHARSET)  # noqa: E731
        return spaces.Dict({
            "goal": text(self.max_goal),
            "goal_tokens": spaces.Box(0, VOCAB_SIZE - 1, (self.goal_tokens,), np.int32),
            "axtree": text(self.max_text),
            "url": text(2_000),
            "last_action_error": text(2_000),
            "progress": spaces.Box(0.0, 1_000.0, (2,), np.float32),
            "elements": spaces.Dict({
                "role": spaces.Box(0, len(ROLES) - 1, (E,), np.int32),
                "tokens": spaces.Box(0, VOCAB_SIZE - 1, (E, self.name_tokens), np.int32),
                "value_tokens": spaces.Box(0, VOCAB_SIZE - 1, (E, self.value_tokens), np.int32),
                "flags": spaces.Box(0, 1, (E, len(FLAGS)), np.int8),
                "depth": spaces.Box(0, 255, (E,), np.int32),
                "parent": spaces.Box(-1, E - 1, (E,), np.int32),
                "mask": spaces.Box(0, 1, (E,), np.int8),
            }),
        })


def _rank(node: Node) -> int:
    if node.visible and node.interactable:
        return 0
    if node.visible and node.role in _TEXT_RANK:
        return 1
    if node.role in ("link", "button", "textbox", "date", "combobox", "option", "checkbox", "radio", "tab"):
        return 2
    return 3 if node.visible else 4


def kept_nodes(page: PageModel, limit: int) -> list[Node]:
    """The nodes of ``page`` an observation keeps, in document order (see the module docstring)."""
    if len(page.nodes) <= limit:
        return list(page.nodes)
    ranked = sorted(range(len(page.nodes)), key=lambda i: (_rank(page.nodes[i]), i))[:limit]
    return [page.nodes[i] for i in sorted(ranked)]


@dataclass(frozen=True)
class PageView:
    """The encoded page: arrays, the text, and the bids of the element rows (for actions)."""

    arrays: dict[str, np.ndarray]
    axtree: str
    bids: tuple[str, ...]
    truncated: int


def encode_page(page: PageModel, config: ObservationConfig) -> PageView:
    """Encode a page (memoised on the page model: a revisited state costs nothing)."""
    key = ("observation", config)
    cached = page.renderings.get(key)
    if cached is not None:
        return cached
    E = config.max_elements
    nodes = kept_nodes(page, E)
    row = {id(node): index for index, node in enumerate(nodes)}
    role = np.zeros(E, np.int32)
    tokens = np.zeros((E, config.name_tokens), np.int32)
    values = np.zeros((E, config.value_tokens), np.int32)
    flags = np.zeros((E, len(FLAGS)), np.int8)
    depth = np.zeros(E, np.int32)
    parent = np.full(E, -1, np.int32)
    mask = np.zeros(E, np.int8)
    for index, node in enumerate(nodes):
        role[index] = ROLE_IDS.get(node.role, 0)
        tokens[index] = encode(node.name or node.text, config.name_tokens)
        if node.value:
            values[index] = encode(node.value, config.value_tokens)
        flags[index] = (node.visible, node.interactable, node.editable, bool(node.checked), bool(node.selected),
                        bool(node.expanded), node.focused, node.disabled)
        depth[index] = min(node.depth, 255)
        up = node.parent
        while up is not None and id(up) not in row:
            up = up.parent
        parent[index] = row[id(up)] if up is not None else -1
        mask[index] = 1
    lines = [f"RootWebArea '{page.title}'"] + ["\t" * n.depth + node_line(n) for n in nodes if n.visible]
    view = PageView(
        arrays={"role": role, "tokens": tokens, "value_tokens": values, "flags": flags, "depth": depth,
                "parent": parent, "mask": mask},
        axtree=clean("\n".join(lines), config.max_text), bids=tuple(n.bid for n in nodes),
        truncated=len(page.nodes) - len(nodes))
    page.renderings[key] = view
    return view


def observation(page: PageModel, goal: str, error: str | None, progress: tuple[int, int],
                config: ObservationConfig, goal_tokens: np.ndarray | None = None) -> tuple[dict[str, Any], PageView]:
    """The full observation dict for a page and a task."""
    view = encode_page(page, config)
    obs = {
        "goal": clean(goal, config.max_goal),
        "goal_tokens": goal_tokens.copy() if goal_tokens is not None else encode(goal, config.goal_tokens),
        "axtree": view.axtree,
        "url": clean(page.url, 2_000),
        "last_action_error": clean(error or "", 2_000),
        "progress": np.array(progress, dtype=np.float32),
        "elements": {name: array.copy() for name, array in view.arrays.items()},  # callers keep what they get
    }
    return obs, view

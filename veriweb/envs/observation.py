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

import functools
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from gymnasium import spaces

from veriweb.engine.page import Node, OverlaidPage, PageModel
from veriweb.engine.render import node_line
from veriweb.envs.arguments import TEXT_ROLES
from veriweb.envs.tokenizer import VOCAB_SIZE, encode, encode_row

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

AFFORDANCES = ("click", "type", "select", "check", "visit", "read")
"""What an agent may do with a row, one bit each (lowest first): click it (usable and interactable),
type into it (usable and editable), select in it (a usable drop-down list), check it (a usable
checkbox or radio button), visit its address (a link to a page of the site), read it (a visible
text, in :data:`veriweb.envs.arguments.TEXT_ROLES`). Usable: visible and not behind an open modal
dialog."""
_USABLE_ONLY = 0b1111
_READ_ROLES = frozenset(TEXT_ROLES)


_OUTSIDE = re.compile("[^" + re.escape(CHARSET) + "]")


def clean(text: str, limit: int) -> str:
    """``text`` in :data:`CHARSET`, at most ``limit`` characters."""
    if len(text) > limit:
        text = text[:limit]
    return _OUTSIDE.sub("?", text) if _OUTSIDE.search(text) else text


_clean_short = functools.lru_cache(maxsize=8192)(clean)
""":func:`clean` memoised, for the short texts that repeat from step to step (goal, URL, error)."""


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
    """The encoded page: arrays, the text, and the bids of the element rows (for actions).

    Attributes:
        arrays: the element table (read-only arrays of the observation space).
        axtree: the accessibility-tree text.
        bids: the bid of each row.
        truncated: how many nodes the truncation rule cut.
        usable: per row, visible and not behind an open modal dialog (what actions may target).
        linked: per row, a link to an address on the site.
        has_text: per row, a name or text to show, type or select.
        kept: per row, the index of its node in the page's nodes.
        lines: the accessibility-tree lines (the title line, then one per visible row).
        line_of: per row, its line in ``lines`` (-1: a hidden row has none).
        memo: what callers derive from the rows' roles, visibility, links and texts (action
            masks), shared with the views patched from this one, which keep all of those.
        affordances: per row, the :data:`AFFORDANCES` bits of what an agent may do with it (``0`` for
            no row).
    """

    arrays: dict[str, np.ndarray]
    axtree: str
    bids: tuple[str, ...]
    truncated: int
    usable: np.ndarray
    linked: np.ndarray
    has_text: np.ndarray
    kept: tuple[int, ...] = ()
    lines: tuple[str, ...] = ()
    line_of: tuple[int, ...] = ()
    memo: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)
    affordances: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint8), compare=False, repr=False)


_BITS = ((np.arange(256)[:, None] >> np.arange(8)) & 1).astype(np.int8)
"""Row ``b``: the eight bits of ``b``, lowest first (flags packed into one int per node)."""


def _subtree(node: Node) -> set[int]:
    """The ids of ``node`` and everything inside it."""
    found: set[int] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        found.add(id(current))
        stack.extend(current.children)
    return found


def _flags(node: Node) -> int:
    return (node.visible | node.interactable << 1 | node.editable << 2 | bool(node.checked) << 3
            | bool(node.selected) << 4 | bool(node.expanded) << 5 | node.focused << 6 | node.disabled << 7)


def _title_line(page: PageModel) -> str:
    return "RootWebArea '" + page.title.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n") + "'"


Relatives = dict[int, tuple[Any, PageModel, PageView]]
"""Encoded pages by the identity of their forms table: the engine's field overlays of one built
page share it, so a page typed into is encoded as a patch of its relative (see :func:`encode_page`)."""


def encode_page(page: PageModel, config: ObservationConfig, relatives: Relatives | None = None) -> PageView:
    """Encode a page (memoised on the page model: a revisited state costs nothing).

    With ``relatives`` (a dict the caller keeps), a page that differs from an already encoded
    one only in field values, checks, selections, focus, expansion or disabled states (what
    typing into a form changes) is encoded by patching those rows; anything else is encoded
    in full. Either way the result is the same (the tests compare them).
    """
    key = ("observation", config)
    cached = page.renderings.get(key)
    if cached is not None:
        return cached
    view = None
    if page.__class__ is OverlaidPage and not page.made:  # typed into: the base's encoding, patched
        base = page.base
        view = _patch_rows(encode_page(base, config, relatives), page.changed(), base.nodes, config)
    elif relatives is not None:
        entry = relatives.get(id(page.forms))
        if entry is not None and entry[0] is page.forms:
            view = _patch(page, entry[1], entry[2], config)
    if view is None:
        view = _encode(page, config)
        if relatives is not None:
            if len(relatives) >= 256:
                relatives.pop(next(iter(relatives)))
            relatives[id(page.forms)] = (page.forms, page, view)  # holds the forms, so the id stays unique
    page.renderings[key] = view
    return view


def _patch(page: PageModel, ref_page: PageModel, ref: PageView, config: ObservationConfig) -> PageView | None:
    """``page`` encoded as ``ref`` with the rows that changed re-encoded, or ``None`` if more changed."""
    nodes, old = page.nodes, ref_page.nodes
    if (len(nodes) != len(old) or page.url != ref_page.url or page.title != ref_page.title
            or (page.modal is None) != (ref_page.modal is None)):
        return None
    changed: list[int] = []
    for row, index in enumerate(ref.kept):
        a, b = nodes[index], old[index]
        if a.value != b.value or a.checked != b.checked or a.selected != b.selected or a.focused != b.focused \
                or a.expanded != b.expanded or a.disabled != b.disabled:
            if a.bid != b.bid or a.role != b.role or a.name != b.name or a.text != b.text or a.visible != b.visible \
                    or a.interactable != b.interactable or a.editable != b.editable:
                return None
            changed.append(row)
    return _patch_rows(ref, {ref.kept[row]: nodes[ref.kept[row]] for row in changed}, nodes, config)


def _patch_rows(ref: PageView, changed: dict[int, Node], nodes: list[Node], config: ObservationConfig) -> PageView:
    """``ref`` with the rows of the nodes in ``changed`` (new nodes, by index in ``nodes``) re-encoded: the
    nodes differ from those ``ref`` encoded only in values, checks, selections, focus, expansion or
    disabled states."""
    arrays = {name: array.copy() for name, array in ref.arrays.items()}
    lines = list(ref.lines)
    empty_value = encode_row("", config.value_tokens)
    kept = ref.kept
    if len(kept) == len(nodes):  # every node kept: a node's row is its index
        rows = sorted(changed)
    else:
        rows = [row for row, index in enumerate(kept) if index in changed]
    for row in rows:
        node = changed[kept[row]]
        arrays["value_tokens"][row] = np.frombuffer(
            encode_row(node.value, config.value_tokens) if node.value else empty_value, np.int32)
        arrays["flags"][row] = _BITS[_flags(node)]
        if ref.line_of[row] >= 0:
            lines[ref.line_of[row]] = "\t" * node.depth + node_line(node)
    for array in arrays.values():
        array.setflags(write=False)
    return PageView(arrays=arrays, axtree=clean("\n".join(lines), config.max_text), bids=ref.bids,
                    truncated=ref.truncated, usable=ref.usable, linked=ref.linked, has_text=ref.has_text,
                    kept=ref.kept, lines=tuple(lines), line_of=ref.line_of, memo=ref.memo,
                    affordances=ref.affordances)


_ROWS: dict[tuple[int, int], dict[tuple[Any, ...], tuple[Any, ...]]] = {}
"""Encoded rows by token sizes, then by everything a row's encoding reads of its node but its bid and
depth: a node seen on an earlier page (the layout, a listed record, at another position) is not
encoded again."""
_ROWS_LIMIT = 50_000


def _row(node: Node, name_tokens: int, value_tokens: int) -> tuple[Any, ...]:
    """What a node's row holds, apart from its bid, depth, parent and whether a modal dialog covers it:
    role id (as int32 bytes), name and value token bytes, flag bits, its accessibility-tree line after ``[bid] ``
    (``None``: hidden), fact bits (a link to an address on the site, has a name or text), those fact
    bits with the visible bit (what they are when no modal dialog is open), and whether its line is
    all in :data:`CHARSET` (so a text made of such lines needs no cleaning)."""
    label = node.name or node.text
    href = node.href
    tail = node_line(node)[len(node.bid) + 3:] if node.visible else None
    facts = (node.role == "link" and bool(href) and href.startswith("/")) << 1 | bool(label) << 2
    role = ROLES[ROLE_IDS.get(node.role, 0)]
    affords = (node.interactable | node.editable << 1 | (role == "combobox") << 2
               | (role in ("checkbox", "radio")) << 3 | (facts & 2) << 3 | (node.visible and role in _READ_ROLES) << 5)
    return (_ROLE_BYTES[ROLE_IDS.get(node.role, 0)], encode_row(label, name_tokens),
            encode_row(node.value, value_tokens) if node.value else encode_row("", value_tokens), _flags(node),
            tail, facts, facts | node.visible, tail is None or _OUTSIDE.search(tail) is None,
            affords if node.visible else affords & ~_USABLE_ONLY, affords & ~_USABLE_ONLY)


_ROLE_BYTES = tuple(np.array([role], np.int32).tobytes() for role in range(len(ROLES)))
_BIT_BYTES = tuple(_BITS[bits].tobytes() for bits in range(256))
"""Per flag byte, its eight bits as the int8 bytes of a row of the ``flags`` array."""
_FACT_BYTES = tuple(_BITS[bits, :3].astype(bool).tobytes() for bits in range(8))
"""Per fact bits (usable, linked, has text), the bool bytes of a row of the facts table."""
_TABS = tuple("\t" * depth for depth in range(64))
_RANGES: list[tuple[int, ...]] = []


def _range(n: int) -> tuple[int, ...]:
    """``tuple(range(n))``, made once."""
    while len(_RANGES) <= n:
        _RANGES.append(tuple(range(len(_RANGES))))
    return _RANGES[n]


def _parent_indices(page: PageModel) -> list[int]:
    """Per node, its parent's index in ``page.nodes`` (-1: outside them): the builder's list when it
    made one, else found from each node's parent."""
    nodes = page.nodes
    if len(page.parents) == len(nodes):
        return page.parents
    position = {id(node): index for index, node in enumerate(nodes)}
    found = []
    for node in nodes:
        up = node.parent
        while up is not None and id(up) not in position:
            up = up.parent
        found.append(-1 if up is None else position[id(up)])
    return found


def _encode(page: PageModel, config: ObservationConfig) -> PageView:
    """``page`` encoded from scratch."""
    E = config.max_elements
    all_nodes = page.nodes
    up_all = _parent_indices(page)
    if len(all_nodes) <= E:
        nodes, n = all_nodes, len(all_nodes)
        kept = _range(n)
        parents = up_all
    else:
        kept = tuple(sorted(sorted(range(len(all_nodes)), key=lambda i: (_rank(all_nodes[i]), i))[:E]))
        nodes, n = [all_nodes[i] for i in kept], E
        row_of = {index: row for row, index in enumerate(kept)}
        parents = []
        for index in kept:  # the nearest kept ancestor
            up = up_all[index]
            while up >= 0 and up not in row_of:
                up = up_all[up]
            parents.append(row_of[up] if up >= 0 else -1)
    inside_modal = _subtree(page.modal) if page.modal is not None else None
    line_of: list[int] = []
    depths: list[int] = []
    title = _title_line(page)
    lines = [title]
    clean_text = _OUTSIDE.search(title) is None
    roles, names, values, flags, facts = bytearray(), bytearray(), bytearray(), bytearray(), bytearray()
    bit_bytes, fact_bytes = _BIT_BYTES, _FACT_BYTES
    affordances = bytearray()
    name_tokens, value_tokens = config.name_tokens, config.value_tokens
    memo = _ROWS.get((name_tokens, value_tokens))
    if memo is None or len(memo) > _ROWS_LIMIT:
        memo = _ROWS[(name_tokens, value_tokens)] = {}
    memo_get, tabs = memo.get, _TABS
    for node in nodes:
        key = (node.role, node.name, node.text, node.value, node.checked, node.selected, node.expanded,
               node.disabled, node.required, node.focused, node.visible, node.level, node.href)
        encoded = memo_get(key)
        if encoded is None:
            encoded = memo[key] = _row(node, name_tokens, value_tokens)
        (role_bytes, name_bytes, value_bytes, flag_bits, tail, fact_bits, open_facts, clean_line, open_affords,
         covered_affords) = encoded
        roles += role_bytes
        names += name_bytes
        values += value_bytes
        flags += bit_bytes[flag_bits]
        depth = node.depth
        depths.append(depth if depth < 255 else 255)
        if inside_modal is None:
            facts += fact_bytes[open_facts]
            affordances.append(open_affords)
        elif node.visible and id(node) in inside_modal:
            facts += fact_bytes[fact_bits | 1]
            affordances.append(open_affords)
        else:
            facts += fact_bytes[fact_bits]
            affordances.append(covered_affords)
        if tail is not None:
            line_of.append(len(lines))
            lines.append(f"{tabs[depth] if depth < 64 else chr(9) * depth}[{node.bid}] {tail}")
            clean_text = clean_text and clean_line
        else:
            line_of.append(-1)
    arrays = {
        "role": np.zeros(E, np.int32), "tokens": np.zeros((E, config.name_tokens), np.int32),
        "value_tokens": np.zeros((E, config.value_tokens), np.int32), "flags": np.zeros((E, len(FLAGS)), np.int8),
        "depth": np.zeros(E, np.int32), "parent": np.full(E, -1, np.int32), "mask": np.zeros(E, np.int8),
    }
    facts_table = np.zeros((E, 3), bool)
    afford_table = np.zeros(E, np.uint8)
    if n:
        afford_table[:n] = np.frombuffer(affordances, np.uint8)
        arrays["role"][:n] = np.frombuffer(roles, np.int32)
        arrays["tokens"][:n] = np.frombuffer(names, np.int32).reshape(n, name_tokens)
        arrays["value_tokens"][:n] = np.frombuffer(values, np.int32).reshape(n, value_tokens)
        arrays["flags"][:n] = np.frombuffer(flags, np.int8).reshape(n, len(FLAGS))
        arrays["depth"][:n] = depths
        arrays["parent"][:n] = parents
        arrays["mask"][:n] = 1
        facts_table[:n] = np.frombuffer(facts, bool).reshape(n, 3)
    for array in (*arrays.values(), facts_table, afford_table):
        array.setflags(write=False)
    text = "\n".join(lines)
    if clean_text:  # every line is in the charset: only the length limit applies (as clean() would)
        axtree = text[:config.max_text] if len(text) > config.max_text else text
    else:
        axtree = clean(text, config.max_text)
    return PageView(arrays=arrays, axtree=axtree, bids=tuple([v.bid for v in nodes]),
                    truncated=len(all_nodes) - n, usable=facts_table[:, 0], linked=facts_table[:, 1],
                    has_text=facts_table[:, 2], kept=kept, lines=tuple(lines), line_of=tuple(line_of),
                    affordances=afford_table)


def observation(page: PageModel, goal: str, error: str | None, progress: tuple[int, int],
                config: ObservationConfig, goal_tokens: np.ndarray | None = None,
                relatives: Relatives | None = None) -> tuple[dict[str, Any], PageView]:
    """The full observation dict for a page and a task (``relatives``: see :func:`encode_page`).

    Its arrays are the caller's own (copies of the memoised, read-only page encoding).
    """
    view = encode_page(page, config, relatives)
    obs = {
        "goal": _clean_short(goal, config.max_goal),
        "goal_tokens": goal_tokens.copy() if goal_tokens is not None else encode(goal, config.goal_tokens),
        "axtree": view.axtree,
        "url": _clean_short(page.url, 2_000),
        "last_action_error": _clean_short(error or "", 2_000),
        "progress": np.array(progress, dtype=np.float32),
        "elements": {name: array.copy() for name, array in view.arrays.items()},  # callers keep what they get
    }
    return obs, view

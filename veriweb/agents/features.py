"""Policy features: a :class:`DiscreteActions` observation as fixed-size integer and float arrays.

The policy reads only what any browser-like source gives (the element table of
:mod:`veriweb.envs.observation`), the goal's token ids, the texts of the discrete arguments
(the task's slot values and the numbers), the action masks, and four scalars (progress,
whether the task has subgoals, whether the last action failed, and the fraction of the step
budget used), and the agent's own memory of its last actions and the current address
(:mod:`veriweb.agents.memory`). Strings are dropped, so a batch of observations stacks without copies of page
text.

Match features say outright what a pointer head would otherwise have to learn from hashed
tokens: per element (``el_match``), how much of its text occurs in the goal, how much of the
best-matching slot value (a task string the instruction names) it covers, whether it is that
value exactly, and the same for the value typed into it; ``el_slot`` names that task string.
Per task-string argument (``arg_match``), whether it is a whole slot value, where in the goal
it is written, whether a field on the page already holds it; ``arg_context`` holds the goal
tokens written just before it ("password: ..."), so a field's label can be matched to the
value the instruction attaches to it.

:class:`PolicyObservation` is the same thing as a Gymnasium observation wrapper, so Gymnasium's
``SyncVectorEnv`` / ``AsyncVectorEnv`` batch the features directly.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from veriweb.agents import memory
from veriweb.envs.actions import ACTION_TYPES, DiscreteActions
from veriweb.envs.arguments import other_forms, slot_order, word_runs
from veriweb.envs.miniwob import MiniWoBEnv
from veriweb.envs.observation import FLAGS, ROLE_IDS, ROLES
from veriweb.envs.tokenizer import VOCAB_SIZE, encode

ARG_TOKENS = 8
"""Token ids kept per argument text."""
N_EXTRA = 4
"""Scalars per step: progress done/total, whether the task has subgoals, last-action error, budget used."""
N_EL_MATCH = 8
"""Match features per element (see :func:`element_match`)."""
N_ARG_MATCH = 5
"""Match features per task-string argument (see :func:`argument_match`)."""
ARG_CONTEXT = 4
"""Goal tokens kept from just before each task string's first occurrence in the goal."""
KEY_TOKENS = 3
"""Tokens kept of the name of the slot a task string comes from (``return_date``: "return date")."""
KEYS_FROM_FIELDS = False
"""Whether MiniWoB++'s field names ("target", "by") are a task string's slot name (``arg_key``). Off:
names no training site uses send the policy off its track. The 2,560-site ``slot_keys`` policy solved
30.0% of 60 MiniWoB++ episodes with them and 50.0% without (random: 28.3%)."""


def feature_space(n_elements: int, n_args: int, name_tokens: int = 12, value_tokens: int = 6,
                  goal_tokens: int = 48) -> spaces.Dict:
    """The space of :func:`featurize`'s output."""
    T, E, A = len(ACTION_TYPES), n_elements, n_args
    box = lambda low, high, shape, dtype: spaces.Box(low, high, shape, dtype)  # noqa: E731
    return spaces.Dict({
        "goal": box(0, VOCAB_SIZE - 1, (goal_tokens,), np.int32),
        "el_tokens": box(0, VOCAB_SIZE - 1, (E, name_tokens), np.int32),
        "el_value": box(0, VOCAB_SIZE - 1, (E, value_tokens), np.int32),
        "el_role": box(0, len(ROLES) - 1, (E,), np.int32),
        "el_flags": box(0, 1, (E, len(FLAGS)), np.int8),
        "el_depth": box(0, 255, (E,), np.int32),
        "el_mask": box(0, 1, (E,), np.int8),
        "el_overlap": box(0.0, 1.0, (E,), np.float32),
        "el_match": box(0.0, 1.0, (E, N_EL_MATCH), np.float32),
        "el_slot": box(0, A - 1, (E,), np.int32),
        "el_group": box(-1, E - 1, (E,), np.int32),
        "el_numeric": box(0, 1, (E, N_NUMERIC), np.int8),
        "el_group_match": box(0.0, 1.0, (E, N_GROUP_MATCH), np.float32),
        "arg_tokens": box(0, VOCAB_SIZE - 1, (A, ARG_TOKENS), np.int32),
        "arg_match": box(0.0, 1.0, (A, N_ARG_MATCH), np.float32),
        "arg_context": box(0, VOCAB_SIZE - 1, (A, ARG_CONTEXT), np.int32),
        "arg_key": box(0, VOCAB_SIZE - 1, (A, KEY_TOKENS), np.int32),
        "arg_count": box(0, 1, (A, N_COUNTS), np.int8),
        "mask_type": box(0, 1, (T,), np.int8),
        "mask_element": box(0, 1, (T, E), np.int8),
        "mask_argument": box(0, 1, (T, A), np.int8),
        "extra": box(-1.0, 1_000.0, (N_EXTRA,), np.float32),
        "mem_kind": box(0, T, (memory.MEMORY,), np.int32),
        "mem_row": box(0, VOCAB_SIZE - 1, (memory.MEMORY, memory.MEMORY_TOKENS), np.int32),
        "mem_arg": box(0, VOCAB_SIZE - 1, (memory.MEMORY, memory.MEMORY_ARG_TOKENS), np.int32),
        "mem_flags": box(0.0, 1.0, (memory.MEMORY, memory.N_MEMORY_FLAGS), np.float32),
        "url": box(0, VOCAB_SIZE - 1, (memory.URL_TOKENS,), np.int32),
        "el_recent": box(0.0, 1.0, (E, memory.N_RECENT), np.float32),
    })


GROUP_ROLES = ("row", "listitem", "article", "form", "dialog", "tabpanel")
"""Roles whose rows group their descendants: a table row, a list item, a card, a form, a dialog, a tab's panel."""
_IS_GROUP = np.isin(np.arange(len(ROLES)), [ROLE_IDS[role] for role in GROUP_ROLES])


def element_groups(elements: dict[str, np.ndarray]) -> np.ndarray:
    """Per element row, the row of its nearest grouping ancestor (itself if it groups; -1: none).

    Rows in one table row, list item, card, form or dialog share a group, so the policy can read
    an "Edit" button together with the name in the same row (see :data:`GROUP_ROLES`).
    """
    parent, role, mask = elements["parent"], elements["role"], elements["mask"].astype(bool)
    groups = _IS_GROUP[role] & mask
    found, _ = _nearest(parent, np.where(mask & ~groups, parent, -1), groups)
    return np.where(groups, np.arange(len(role)), found).astype(np.int32)


def _nearest(parent: np.ndarray, start: np.ndarray, target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row, walking up the kept tree from ``start`` (a row index, -1: none), the first row in
    ``target`` and the row just below it on the way (-1 and -1 where there is none)."""
    found = np.full(len(parent), -1, np.int32)
    below = np.full(len(parent), -1, np.int32)
    node = np.arange(len(parent))
    up = start.copy()
    for _ in range(64):  # depth-bounded
        live = up >= 0
        if not live.any():
            break
        safe = np.where(live, up, 0)
        hit = live & target[safe]
        found[hit], below[hit] = up[hit], node[hit]
        climb = live & ~hit
        node = np.where(climb, up, node)
        up = np.where(climb, parent[safe], -1)
    return found, below


def _overlap(tokens: np.ndarray, goal: np.ndarray) -> np.ndarray:
    """For each element row, the fraction of its (non-pad) name tokens that occur in the goal."""
    present = (tokens > 0)
    hits = np.isin(tokens, goal[goal > 0]) & present
    return (hits.sum(axis=1) / np.maximum(present.sum(axis=1), 1)).astype(np.float32)


def argument_tokens(env: DiscreteActions) -> np.ndarray:
    """Token ids of each argument's text, zeros for pointers, empty slots and page strings.

    Page strings (arguments ``page_start + row``) are left out: the policy represents them by the
    state of their element row. Task strings and numbers are fixed for a task and memoised;
    earlier addresses and notes are the episode's own.
    """
    strings = env.task_strings()
    cached = getattr(env, "_policy_arg_tokens", None)
    if cached is None or cached[0] is not strings:
        out = np.zeros((env.n_args, ARG_TOKENS), np.int32)
        for index, text in enumerate(strings[: env.page_start - env.task_start]):
            out[env.task_start + index] = encode(text, ARG_TOKENS)
        for arg in range(env.number_start, env.n_args):
            out[arg] = encode(str(arg - env.number_start), ARG_TOKENS)
        cached = (strings, out)
        env._policy_arg_tokens = cached  # type: ignore[attr-defined]
    history = env.history() if env.max_history else []
    notes = env.notes() if getattr(env, "max_notes", 0) else []
    if not history and not notes:
        return cached[1]
    out = cached[1].copy()
    for index, url in enumerate(history[: env.max_history]):
        out[env.history_start + index] = encode(url, ARG_TOKENS)
    for index, text in enumerate(reversed(notes)):  # most recent first, as the note arguments are
        out[env.note_start + index] = encode(text, ARG_TOKENS)
    return out


class _TaskMatch:
    """What the match features need of a task, computed once per task.

    Attributes:
        strings: the task strings it was computed for (identity is the memo key).
        primary: (P, L) token ids of the slot values and their other forms (0-padded).
        primary_index: (P,) their argument indices.
        arg_match: (A, N_ARG_MATCH) the static columns (the "already typed" column is filled per step).
        arg_context: (A, ARG_CONTEXT) goal tokens before each task string.
        arg_key: (A, KEY_TOKENS) the tokens of the name of the slot each task string comes from
            (its value, another form of it, or a run of its words; zeros for the instruction's own
            words): "origin" and "destination" tell the two cities of "the Oslo-Nice flight" apart
            where no "from" or "to" is written. MiniWoB++'s field names are left out
            (:data:`KEYS_FROM_FIELDS`).
        typed: (K, value_tokens) each task string as a field value's tokens would read.
        goal_set: distinct non-pad goal tokens.
    """

    def __init__(self, env: DiscreteActions, strings: list[str], goal: np.ndarray, value_tokens: int) -> None:
        self.strings = strings
        keys: dict[str, str] = {}  # task string -> the name of the slot it comes from (the first that gives it)
        if isinstance(env.base, MiniWoBEnv):  # an outside benchmark: its own parse of the goal is the slots
            values = list(strings)
            primary = set(values)
            if KEYS_FROM_FIELDS:
                for name, value in env.base.fields:
                    keys.setdefault(value, name)
        else:
            task = env.base.task
            today = dt.date.fromisoformat(env.base.site.clock.today.isoformat())
            names = [name for name in slot_order(task.template) if name in task.slots]
            values = [str(task.slots[name]) for name in names]
            primary = set(values)
            for name, value in zip(names, values):
                forms = other_forms(value, today)
                primary.update(forms)
                for form in (value, *forms):
                    keys.setdefault(form, name)
            for name, value in zip(names, values):  # after every value and form: a run never takes their name
                for run in word_runs(value):
                    keys.setdefault(run, name)
        goal_ids = goal[goal > 0]
        self.goal_set = np.unique(goal_ids)
        A = env.n_args
        self.arg_match = np.zeros((A, N_ARG_MATCH), np.float32)
        self.arg_context = np.zeros((A, ARG_CONTEXT), np.int32)
        self.arg_key = np.zeros((A, KEY_TOKENS), np.int32)
        rows, index = [], []
        self.typed = np.zeros((len(strings), value_tokens), np.int32)
        for k, text in enumerate(strings):
            arg = env.task_start + k
            ids = encode(text, MATCH_TOKENS)
            ids = ids[ids > 0]
            self.typed[k] = encode(text, value_tokens)
            at = _find(goal_ids, ids)
            self.arg_match[arg, 0] = float(text in primary)
            self.arg_match[arg, 1] = float(at >= 0)
            self.arg_match[arg, 2] = at / max(len(goal), 1) if at >= 0 else 0.0
            self.arg_match[arg, 4] = min(len(text.split()) / 8.0, 1.0)
            if text in keys:
                self.arg_key[arg] = encode(keys[text].replace("_", " "), KEY_TOKENS)
            if at > 0:
                before = goal_ids[max(0, at - ARG_CONTEXT):at]
                self.arg_context[arg, ARG_CONTEXT - len(before):] = before
            if text in primary and len(ids):
                rows.append(np.pad(ids, (0, MATCH_TOKENS - len(ids))))
                index.append(arg)
        self.primary = np.array(rows, np.int32).reshape(-1, MATCH_TOKENS)
        self.primary_index = np.array(index, np.int32)


MATCH_TOKENS = 16
"""Tokens of a task string compared with element texts."""


def _find(haystack: np.ndarray, needle: np.ndarray) -> int:
    """The first index where ``needle`` occurs contiguously in ``haystack`` (-1: nowhere, or empty)."""
    n = len(needle)
    if n == 0 or n > len(haystack):
        return -1
    starts = np.flatnonzero(haystack[: len(haystack) - n + 1] == needle[0])
    for start in starts:
        if np.array_equal(haystack[start:start + n], needle):
            return int(start)
    return -1


def _task_match(env: DiscreteActions, goal: np.ndarray) -> _TaskMatch:
    strings = env.task_strings()
    cached: _TaskMatch | None = getattr(env, "_policy_task_match", None)
    if cached is None or cached.strings is not strings:
        cached = _TaskMatch(env, strings, goal, env.base.config.value_tokens)
        env._policy_task_match = cached  # type: ignore[attr-defined]
    return cached


def _name_match(tokens: np.ndarray, match: _TaskMatch) -> tuple[np.ndarray, np.ndarray]:
    """The name columns of :func:`element_match` and the best slot argument per row."""
    E = tokens.shape[0]
    out = np.zeros((E, N_EL_MATCH), np.float32)
    slot = np.zeros(E, np.int32)
    present = tokens > 0
    size = np.maximum(present.sum(1), 1)
    in_goal = np.isin(tokens, match.goal_set) & present
    out[:, 0] = in_goal.sum(1) / size
    distinct_goal = max(len(match.goal_set), 1)
    hits = np.sort(np.where(in_goal, tokens, 0), axis=1)  # each row's distinct goal tokens, counted sorted
    distinct = (hits[:, :1] > 0).sum(1) + ((hits[:, 1:] != hits[:, :-1]) & (hits[:, 1:] > 0)).sum(1)
    out[:, 4] = distinct.astype(np.float32) / distinct_goal
    best = np.zeros(E, np.float32)
    for ids, arg in zip(match.primary, match.primary_index):
        ids = ids[ids > 0]
        seen = (tokens[:, :, None] == ids[None, None, :]).any(1)  # (E, L): which of its tokens each row has
        coverage = seen.mean(1)
        precision = np.isin(tokens, ids).sum(1) / size
        exact = (coverage == 1.0) & (precision == 1.0)
        better = coverage + 0.5 * precision > best
        best = np.where(better, coverage + 0.5 * precision, best)
        out[:, 1] = np.where(better, coverage, out[:, 1])
        out[:, 2] = np.where(better, precision, out[:, 2])
        out[:, 3] = np.maximum(out[:, 3], exact)
        slot = np.where(better & (coverage > 0), arg, slot)
    out[~present.any(1)] = 0.0
    slot[~present.any(1)] = 0
    return out, slot


def element_match(elements: dict[str, np.ndarray], goal: np.ndarray, env: DiscreteActions) -> tuple[np.ndarray, np.ndarray]:
    """Per element row, how its text and value match the goal and the slot values.

    Columns: 0 the fraction of its name tokens in the goal; 1 the fraction of the best-matching
    slot value's tokens it has; 2 the fraction of its tokens in that value; 3 it is exactly a
    slot value; 4 the fraction of the goal's distinct tokens it has; 5 the fraction of its value's
    tokens in the goal; 6 its value is exactly a slot value; 7 it has a value.

    Returns:
        The (E, N_EL_MATCH) features and the (E,) argument index of the best-matching slot
        value (0 where none matches). The name columns are memoised on the page's view.
    """
    match = _task_match(env, goal)
    memo = env.base.view.memo if env.base.episode is not None else {}
    key = ("policy_name_match", id(match), elements["tokens"].shape)
    cached = memo.get(key)
    if cached is None or cached[0] is not match:
        cached = (match, *_name_match(elements["tokens"], match))
        memo[key] = cached
    out = cached[1].copy()
    values = elements["value_tokens"]
    has = (values > 0).any(1)
    if has.any():
        present = values > 0
        out[:, 5] = (np.isin(values, match.goal_set) & present).sum(1) / np.maximum(present.sum(1), 1)
        if len(match.typed):
            out[:, 6] = (values[:, None, :] == match.typed[None, :, :]).all(2).any(1) & has
        out[:, 7] = has
    return out, cached[2]


def argument_match(elements: dict[str, np.ndarray], goal: np.ndarray, env: DiscreteActions) -> tuple[np.ndarray, np.ndarray]:
    """Per argument, the match features and goal-context tokens (zeros except for task strings).

    Columns: 0 a whole slot value (or its other form); 1 written in the goal; 2 where in the goal
    (first token / goal length); 3 some field on the page holds it already; 4 its words / 8.
    """
    match = _task_match(env, goal)
    out = match.arg_match
    values = elements["value_tokens"]
    if len(match.typed) and (values > 0).any():
        held = (match.typed[:, None, :] == values[None, :, :]).all(2).any(1) & (match.typed > 0).any(1)
        if held.any():
            out = out.copy()
            out[env.task_start:env.task_start + len(held), 3] = held
    return out, match.arg_context


N_NUMERIC = 5
"""Number features per element (see :func:`element_numbers`)."""
N_GROUP_MATCH = 3
"""Group match features per element (see :func:`group_match`)."""
N_COUNTS = 3
"""Count features per number argument (see :func:`row_counts`)."""
_AMOUNT = re.compile(r"([-\u2212]?)(US\$|\$|€|£)?(\d[\d,]*(?:\.\d+)?)")


def element_numbers(env: DiscreteActions, elements: dict[str, np.ndarray], groups: np.ndarray) -> np.ndarray:
    """Per element row, where the first number it shows stands among its peers' (E, N_NUMERIC).

    Hashed tokens cannot say that $41 is less than $57, so "the cheapest", "the best-rated" and
    "the most commented" would have to be learnt from digits. Columns: 0 it shows a number; 1 it
    is the largest of its peers; 2 the smallest; 3 its group (table row, list item, card:
    :func:`element_groups`) holds a largest; 4 a smallest. Peers are the rows of the same role
    and depth whose number is written alike (the same currency sign, the same word after it:
    "52 points", "$41.00"); a largest or smallest is marked only where the peers show at least
    two different values. Read off the page's row texts (what any browser shows), memoised on
    the page's view.
    """
    base = env.base
    bids = base.element_bids
    view = getattr(base, "view", None)
    memo = view.memo if view is not None and getattr(base, "episode", None) is not None else {}
    key = ("policy_numbers", len(bids))
    cached = memo.get(key)
    if cached is not None:
        return cached.copy()
    E = len(elements["mask"])
    out = np.zeros((E, N_NUMERIC), np.int8)  # flags: a byte each, not a float (every step stores them)
    page = base.page
    peers: dict[tuple[Any, ...], list[tuple[float, int]]] = {}
    for row, bid in enumerate(bids[:E]):
        node = page.by_bid.get(bid)
        text = (node.name or node.text or "") if node is not None else ""
        found = _AMOUNT.search(text) if text else None
        if found is None:
            continue
        try:
            value = float(found.group(3).replace(",", "")) * (-1 if found.group(1) else 1)
        except ValueError:
            continue
        out[row, 0] = 1
        after = text[found.end():].split(maxsplit=1)
        unit = "".join(ch for ch in after[0].casefold() if ch.isalpha())[:12] if after else ""
        peer = (int(elements["role"][row]), int(elements["depth"][row]), found.group(2) or "", unit)
        peers.setdefault(peer, []).append((value, row))
    for members in peers.values():
        values = [v for v, _ in members]
        if len(members) < 2 or min(values) == max(values):
            continue
        high, low = max(values), min(values)
        for value, row in members:
            out[row, 1] = value == high
            out[row, 2] = value == low
    for column, flag in ((3, 1), (4, 2)):
        marked = groups[(out[:, flag] > 0) & (groups >= 0)]
        if len(marked):
            out[:, column] = np.isin(groups, marked) & (groups >= 0)
    memo[key] = out
    return out.copy()


def group_match(match: np.ndarray, slot: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Per element row, how well the group it sits in names the task's slot values (E, N_GROUP_MATCH).

    "Cancel my flight to Budapest" means the booking link in the table row that says Budapest;
    the link's own text (a booking code) matches nothing in the goal. Columns, over the rows of
    its group (:func:`element_groups`: its table row, list item, card, form, dialog): 0 the best
    coverage of a slot value (``match`` column 1); 1 whether one of them is exactly a slot value
    (column 3); 2 how many distinct slot values the group writes in full, as a fraction of the
    most any group on the page writes (so the row that names both the destination and the date
    is 1). Rows outside any group get zeros.

    Args:
        match: :func:`element_match`'s columns.
        slot: :func:`element_match`'s best slot argument per row (0: none).
        groups: :func:`element_groups`.
    """
    E = len(groups)
    out = np.zeros((E, N_GROUP_MATCH), np.float32)
    inside = groups >= 0
    if not inside.any():
        return out
    ids = groups[inside]
    for column, source in ((0, match[:, 1]), (1, match[:, 3])):
        best = np.zeros(E, np.float32)
        np.maximum.at(best, ids, source[inside])
        out[inside, column] = best[ids]
    full = inside & (match[:, 1] >= 1.0) & (slot > 0)
    if full.any():
        pairs = np.unique(np.stack([groups[full], slot[full]], 1), axis=0)
        counts = np.bincount(pairs[:, 0], minlength=E).astype(np.float32)
        out[inside, 2] = counts[ids] / counts.max()
    return out


_LISTED = np.isin(np.arange(len(ROLES)), [ROLE_IDS["row"], ROLE_IDS["listitem"]])


def _cells(parent: np.ndarray, mask: np.ndarray, is_data: np.ndarray) -> np.ndarray:
    """Per element row, the child of a data row that holds it (itself if it is one; -1: none)."""
    return _nearest(parent, np.where(mask, parent, -1), is_data)[1]


def row_counts(elements: dict[str, np.ndarray], match: np.ndarray, env: DiscreteActions) -> np.ndarray:
    """Per argument, whether it is a number that counts rows the page shows (A, N_COUNTS).

    "How many of my orders are shipped?" is answered by counting: the rows of a filtered list, or
    the rows whose status cell says "Shipped". Attention can average but not count, so a policy
    reading the numbers 0..N as embeddings answers 3 for 4. Columns, set on the number arguments
    only: 0 it is the number of data rows of the page's longest table or list (rows or list items
    under one parent, a header row of column headers left out; 0 when the page lists nothing);
    1 it is the number of data rows of some table or list; 2 it is the number of data rows whose
    cell in some column shows the same text as a cell whose text is all in the goal ("Shipped"
    for "... that are shipped"). Read off the element table alone (rows, parents, name tokens), so
    a real browser's or MiniWoB++'s elements give the same features.

    Args:
        elements: the observation's element table.
        match: :func:`element_match`'s columns (column 0: the fraction of a row's tokens in the goal).
        env: the discrete-action env (for where the numbers start and how many there are).
    """
    out = np.zeros((env.n_args, N_COUNTS), np.int8)
    role, parent, tokens = elements["role"], elements["parent"], elements["tokens"]
    mask = elements["mask"].astype(bool)
    listed = mask & _LISTED[role]
    numbers = env.max_number + 1
    if numbers <= 0:
        return out
    header = np.zeros(len(role), bool)
    heads = mask & (role == ROLE_IDS["columnheader"]) & (parent >= 0)
    header[parent[heads]] = True
    data = np.flatnonzero(listed & ~header)
    sizes: dict[int, int] = {}
    for row in data:
        sizes[int(parent[row])] = sizes.get(int(parent[row]), 0) + 1
    same: set[int] = set()
    if len(data):
        is_data = np.zeros(len(role), bool)
        is_data[data] = True
        cell_of = _cells(parent, mask, is_data)
        texts: dict[int, list[bytes]] = {}
        named: dict[int, bool] = {}
        for row in np.flatnonzero(cell_of >= 0):  # a cell's text: the tokens of the rows inside it, in order
            cell = int(cell_of[row])
            texts.setdefault(cell, [])
            if (tokens[row] > 0).any():
                texts[cell].append(tokens[row].tobytes())
                named[cell] = named.get(cell, True) and bool(match[row, 0] >= 1.0)
        column: dict[int, int] = {}
        keys: dict[int, tuple[int, int, bytes]] = {}
        seen: dict[tuple[int, int, bytes], int] = {}
        for cell in sorted(texts):  # document order: a row's cells come in column order
            owner = int(parent[cell])
            index = column.get(owner, 0)
            column[owner] = index + 1
            keys[cell] = key = (int(parent[owner]), index, b"|".join(texts[cell]))
            seen[key] = seen.get(key, 0) + 1
        same = {seen[keys[cell]] for cell, yes in named.items() if yes}
    start = env.number_start
    if sizes:
        longest = max(sizes.values())
        if longest < numbers:
            out[start + longest, 0] = 1
    else:
        out[start, 0] = 1
    for size in {*sizes.values()}:
        if size < numbers:
            out[start + size, 1] = 1
    for size in same:
        if size < numbers:
            out[start + size, 2] = 1
    return out


def featurize(obs: dict[str, Any], env: DiscreteActions) -> dict[str, np.ndarray]:
    """The policy features of a :class:`DiscreteActions` observation taken in ``env``'s current state.

    Args:
        obs: the observation ``env`` just returned (with ``action_mask``).
        env: the env it came from (for the argument texts and the step count).
    """
    elements = obs["elements"]
    mask = obs["action_mask"]
    done, total = (float(x) for x in obs["progress"])
    base = env.base
    steps = base.episode.steps if base.episode is not None else 0
    budget = base.task.max_steps if base.episode is not None else 40
    extra = np.array([done / total if total else 0.0, float(total > 0), float(bool(obs["last_action_error"])),
                      steps / max(budget, 1)], np.float32)
    el_match, el_slot = element_match(elements, obs["goal_tokens"], env)
    arg_match, arg_context = argument_match(elements, obs["goal_tokens"], env)
    arg_key = _task_match(env, obs["goal_tokens"]).arg_key
    arg_tokens = argument_tokens(env)
    groups = element_groups(elements)
    return {
        "goal": obs["goal_tokens"].astype(np.int32),
        "el_tokens": elements["tokens"], "el_value": elements["value_tokens"], "el_role": elements["role"],
        "el_flags": elements["flags"], "el_depth": elements["depth"], "el_mask": elements["mask"],
        "el_overlap": _overlap(elements["tokens"], obs["goal_tokens"]),
        "el_match": el_match, "el_slot": el_slot, "el_group": groups,
        "el_numeric": element_numbers(env, elements, groups),
        "el_group_match": group_match(el_match, el_slot, groups),
        "arg_count": row_counts(elements, el_match, env),
        "arg_tokens": arg_tokens, "arg_match": arg_match, "arg_context": arg_context, "arg_key": arg_key,
        "mask_type": mask["type"], "mask_element": mask["element"], "mask_argument": mask["argument"],
        "extra": extra, **memory.features(env, obs, elements["tokens"], arg_tokens),
    }


class PolicyObservation(gym.ObservationWrapper[dict[str, np.ndarray], np.ndarray, dict[str, Any]]):
    """Wrap a :class:`DiscreteActions` env so observations are :func:`featurize`'s arrays.

    Args:
        env: a :class:`DiscreteActions` env (the outermost wrapper).
    """

    def __init__(self, env: DiscreteActions) -> None:
        super().__init__(env)
        if not isinstance(env, DiscreteActions):
            raise TypeError(f"PolicyObservation wraps a DiscreteActions env, got {type(env).__name__}")
        self.discrete = env
        config = env.base.config
        self.observation_space = feature_space(env.n_elements, env.n_args, config.name_tokens,
                                               config.value_tokens, config.goal_tokens)

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], Any, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        memory.remember(self.discrete, action, obs)  # the policy's own memory of what it just did
        return self.observation(obs), reward, terminated, truncated, info

    def observation(self, observation: dict[str, Any]) -> dict[str, np.ndarray]:
        return featurize(observation, self.discrete)


def stack(features: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Stack per-step features into a batch (one leading axis)."""
    return {key: np.stack([f[key] for f in features]) for key in features[0]}


_NARROW = ("goal", "el_tokens", "el_value", "el_role", "el_depth", "el_slot", "el_group", "arg_tokens",
           "arg_context", "arg_key", "mem_kind", "mem_row", "mem_arg", "url")
"""Integer features whose values all fit in int16 (token ids below ``VOCAB_SIZE``, row and
argument indices, depths, roles): stored as int16, read as int32."""
_BITS = ("mask_element", "mask_argument", "el_flags", "el_numeric", "arg_count")
"""0/1 byte features stored eight to a byte along their last axis."""


def pack(batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """``batch`` (from :func:`stack`) in the compact form demonstrations are held in, losslessly.

    A certificate step's features take about 51 kB as :func:`featurize` makes them and about 30
    kB packed, so a training run holds about 1.7 times as many steps in the same memory (they all
    stay in memory: every epoch reads every one). Integer features are narrowed to int16 and the
    0/1 masks and flags are packed into bits; :func:`unpack` gives back the arrays the policy reads.
    """
    out = dict(batch)
    for key in _NARROW:
        if key in out and out[key].dtype == np.int32:
            value = out[key]
            if value.size and (value.min() < np.iinfo(np.int16).min or value.max() > np.iinfo(np.int16).max):
                raise ValueError(f"pack: feature {key!r} holds {value.min()}..{value.max()}, outside int16")
            out[key] = value.astype(np.int16)
    for key in _BITS:
        if key in out and out[key].dtype == np.int8:
            out[key] = np.packbits(out[key].astype(np.uint8), axis=-1)
    return out


def unpack(batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The arrays :func:`featurize` made, from a batch :func:`pack` made (an unpacked batch is returned as it is).

    Bit-packed features are recognised by their dtype (uint8); their lengths are read off the
    batch: the element masks' rows (``el_mask``), the arguments (``arg_tokens``), and the fixed
    numbers of flags.
    """
    out = dict(batch)
    lengths = {"mask_element": batch["el_mask"].shape[-1], "mask_argument": batch["arg_tokens"].shape[-2],
               "el_flags": len(FLAGS), "el_numeric": N_NUMERIC, "arg_count": N_COUNTS}
    for key in _NARROW:
        if key in out and out[key].dtype == np.int16:
            out[key] = out[key].astype(np.int32)
    for key in _BITS:
        if key in out and out[key].dtype == np.uint8:
            out[key] = np.unpackbits(out[key], axis=-1, count=lengths[key]).view(np.int8)
    return out

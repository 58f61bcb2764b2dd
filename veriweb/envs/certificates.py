"""Certificates as discrete actions: which notes a certificate needs, taken where, so every step maps.

A certificate is a list of BrowserGym action strings. Most of its steps map one to one into
:class:`~veriweb.envs.actions.DiscreteActions` (:meth:`~veriweb.envs.actions.DiscreteActions.encode`).
A few need something the page in front of the agent does not show: a value read on an earlier
page (a contact's address typed into a forward form), a total over figures on several pages
(bills in separate messages), a list over two result pages. Those steps map once the right
``note`` actions are taken earlier; :func:`plan_notes` finds them.

The plan, by need (the certificate's own value or answer says what is needed; the judge has the
last word on answers):

- **a value to type or select**: the latest page, up to the one it is typed on, with a row whose
  pointer text (:func:`~veriweb.envs.arguments.pointer_texts`) is that value (or writes the same
  amount): one note there (an element's own text before its number, parts or contents).
- **an address to visit** that no link here has: the latest page with a text (a folder's name)
  that edits the address of a link here into it (:func:`~veriweb.envs.arguments.edited_address`):
  one note there.
- **an answer**, by the task's answer type: for a number or an amount, the fewest pointer
  texts on the pages visited whose first numbers add up to it (an element's own text, its
  number or one of its parts; one per element and value; amounts only if the answer is one;
  ties go to the latest pages), then ``<notes total>``; for a list, pointer texts on the pages
  visited, page by page, the largest first, whose items together are the answer's, then
  ``<notes list>``; else (or if those fail) one pointer text the judge accepts.

Everything is bounded: at most ``max_notes`` notes per certificate, at most
:data:`MAX_CANDIDATES` numbers and :data:`MAX_SUMS` partial sums searched. A certificate that
needs more, or a value no visited page shows, is reported with a :class:`VeriwebError` naming
the step, never mapped by guessing.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

import numpy as np

from veriweb.engine import actions as A
from veriweb.engine.page import PageModel
from veriweb.envs.actions import NOTE, DiscreteActions
from veriweb.envs.arguments import (ELEMENT, MAX_PARTS, NUMBER, PART, POINTER_NAMES, can_note, edited_address,
                                    notes_list, notes_total, number_value, pointer_texts, same_address, same_amount)
from veriweb.errors import VeriwebError
from veriweb.scaffold import Task

MAX_CANDIDATES = 400
"""Numbers considered when looking for notes that add up to a total."""
MAX_SUMS = 200_000
"""Partial sums kept while looking for them."""

_FIGURES = (NUMBER, ELEMENT, *range(PART, PART + MAX_PARTS))
"""The pointers whose text can be one figure of a total (not the row pointers, which are aggregates)."""

_SPECIFIC = {ELEMENT: 0, NUMBER: 1, **{PART + k: 2 for k in range(MAX_PARTS)}}
"""Which pointer a note of a value prefers: an element's own text, then its number, then a part."""

Notes = dict[int, list[tuple[str, int]]]
"""Notes to take: certificate step -> [(element bid, pointer)], taken before that step's action."""


@dataclass(frozen=True)
class _Frame:
    """The page in front of the agent before a certificate step."""

    url: str
    page: PageModel
    bids: tuple[str, ...]


def note_action(env: DiscreteActions, bid: str, pointer: int) -> np.ndarray:
    """The discrete ``note`` action for element ``bid`` and ``pointer`` in the current state.

    Raises:
        VeriwebError: ``bid`` is not in the observation's element table.
    """
    bids = env.base.element_bids
    if bid not in bids:
        raise VeriwebError(f"note('{bid}', {POINTER_NAMES[pointer]}): element [{bid}] is not in the observation's "
                           "element table")
    return np.array([NOTE, bids.index(bid), pointer], dtype=np.int64)


def note_label(bid: str, pointer: int) -> str:
    """How a note is written in plans and reports: ``note('43', part 0)``."""
    return f"note('{bid}', {POINTER_NAMES[pointer]})"


def plan_notes(env: DiscreteActions, task: Task, site_index: int = 0) -> Notes:
    """The notes ``task``'s certificate needs to map into ``env``'s discrete actions.

    Replays the certificate (resetting ``env`` to the task first; it is left at the end of the
    certificate), and for each step that does not map, finds notes on the pages before it.

    Args:
        env: the discrete-action env (its ``max_notes`` bounds the plan).
        task: the task whose certificate to plan for.
        site_index: the site of ``env``'s pool the task belongs to.

    Returns:
        Step -> notes to take before it (empty when every step maps as it is).

    Raises:
        VeriwebError: a step does not map and no notes make it map; the message names the step.
    """
    env.reset(options={"site": site_index, "task": task.id})
    frames: list[_Frame] = []
    notes: Notes = {}
    taken = 0
    for step, action in enumerate(task.certificate):
        base = env.base
        frames.append(_Frame(base.page.url, base.page, base.element_bids))
        try:
            env.encode(action)
        except VeriwebError as exc:
            if not env.max_notes:
                raise VeriwebError(f"step {step} {action}: {exc}; and notes are off (max_notes=0)") from None
            picks = _resolve(env, frames, action)
            if picks is None:
                raise VeriwebError(f"step {step} {action}: {exc}; and no notes taken on the pages before it "
                                   f"give it{_unknowable(frames, action)}") from None
            taken += len(picks)
            if taken > env.max_notes:
                raise VeriwebError(f"step {step} {action}: needs {taken} notes, more than max_notes="
                                   f"{env.max_notes}") from None
            for frame, bid, pointer in picks:
                notes.setdefault(frame, []).append((bid, pointer))
        _, _, terminated, truncated, _ = base.step(action)
        if (terminated or truncated) and step < len(task.certificate) - 1:
            break
    return notes


def certificate_actions(env: DiscreteActions, task: Task, site_index: int = 0) -> list[np.ndarray]:
    """``task``'s certificate as discrete actions, with the notes it needs (for behaviour cloning).

    Replay the result from ``env.reset(options={"site": site_index, "task": task.id})``; ``env``
    is left at the end of a replay.

    Raises:
        VeriwebError: a step does not map even with notes (the message names the step).
    """
    try:
        return _encode_all(env, task, site_index, {})
    except VeriwebError:
        return _encode_all(env, task, site_index, plan_notes(env, task, site_index))


def _encode_all(env: DiscreteActions, task: Task, site_index: int, notes: Notes) -> list[np.ndarray]:
    env.reset(options={"site": site_index, "task": task.id})
    out: list[np.ndarray] = []
    for step, action in enumerate(task.certificate):
        for bid, pointer in notes.get(step, []):
            out.append(note_action(env, bid, pointer))
            env.step(out[-1])
        out.append(env.encode(action))
        _, _, terminated, truncated, _ = env.step(out[-1])
        if (terminated or truncated) and step < len(task.certificate) - 1:
            raise VeriwebError(f"step {step} {action}: the episode ended early")
    return out


# ---------------------------------------------------------------------- what a step needs

_Pick = tuple[int, str, int]  # (frame, bid, pointer)


def _resolve(env: DiscreteActions, frames: list[_Frame], action: str) -> list[_Pick] | None:
    """Notes that make ``action`` map at the last frame, or ``None``."""
    parsed = A.parse_action(action)
    if isinstance(parsed, A.Fill):
        return _value(frames, parsed.value)
    if isinstance(parsed, A.SelectOption):
        return _value(frames, parsed.options[0])
    if isinstance(parsed, A.Goto):
        return _address(frames, parsed.url)
    if not isinstance(parsed, A.SendMsgToUser):
        return None
    episode = env.base.episode
    if episode is None:
        return None
    judge = episode.judge
    answer = env.base.task.answer
    kind = answer.type if answer is not None else "text"
    tries = []
    if kind in ("number", "currency"):
        tries.append(lambda: _total(frames, parsed.text, env.max_notes))
    if kind == "list":
        tries.append(lambda: _list(frames, parsed.text))
    tries.append(lambda: _single(frames, judge.judge_answer))
    for attempt in tries:
        picks = attempt()
        if picks is None:
            continue
        texts = [_text(frames, pick) for pick in picks]
        answers = [*texts[:1 if len(texts) == 1 else 0], notes_total(texts), notes_list(texts)]
        if any(text and judge.judge_answer(text).correct for text in answers):
            return picks
    return None


def _options(frame: _Frame) -> list[tuple[str, int, str]]:
    """(bid, pointer, text) of every pointer text a ``note`` could take on ``frame``'s page."""
    out = []
    for bid in frame.bids:
        node = frame.page.by_bid[bid]
        if can_note(node):
            out += [(bid, pointer, text) for pointer, text in pointer_texts(node)]
    return out


def _text(frames: list[_Frame], pick: _Pick) -> str:
    frame, bid, pointer = pick
    return next(text for b, p, text in _options(frames[frame]) if b == bid and p == pointer)


def _value(frames: list[_Frame], value: str) -> list[_Pick] | None:
    """One note of ``value``, on the latest page that shows it."""
    for index in range(len(frames) - 1, -1, -1):
        options = sorted(_options(frames[index]), key=lambda o: _SPECIFIC.get(o[1], len(_SPECIFIC)))
        for bid, pointer, text in options:
            if text == value or same_amount(value, text):
                return [(index, bid, pointer)]
    return None


def _unknowable(frames: list[_Frame], action: str) -> str:
    """For a visit: a note that the address's last part is shown nowhere the agent has been."""
    parsed = A.parse_action(action)
    if not isinstance(parsed, A.Goto):
        return ""
    last = unquote(urlsplit(parsed.url).path.rstrip("/").rsplit("/", 1)[-1])
    if not last:
        return ""
    for frame in frames:
        if any(last in text for _, _, text in _options(frame)):
            return ""
    return (f" (the address names {last!r}, which no page visited so far shows: the certificate knows more than "
            "the agent can)")


def _address(frames: list[_Frame], url: str) -> list[_Pick] | None:
    """One note of a text that edits the address of a link on the last page into ``url``, on the
    latest page that shows it (a folder's name, noted from its link, to type its address later)."""
    last = frames[-1]
    hrefs = [href for href in (last.page.by_bid[bid].href for bid in last.bids) if href]
    for index in range(len(frames) - 1, -1, -1):
        options = sorted(_options(frames[index]), key=lambda o: _SPECIFIC.get(o[1], len(_SPECIFIC)))
        for bid, pointer, text in options:
            if any(same_address(edited_address(href, text), url) for href in hrefs):
                return [(index, bid, pointer)]
    return None


def _single(frames: list[_Frame], judge: object) -> list[_Pick] | None:
    """One note the judge accepts as the answer, on the latest page that shows one."""
    for index in range(len(frames) - 1, -1, -1):
        for bid, pointer, text in _options(frames[index]):
            if judge(text).correct:  # type: ignore[operator]
                return [(index, bid, pointer)]
    return None


def _total(frames: list[_Frame], answer: str, limit: int) -> list[_Pick] | None:
    """The fewest notes (one per element and value) whose first numbers add up to ``answer``'s number."""
    wanted = number_value(answer)
    if wanted is None:
        return None
    target, money = round(wanted[0] * 100), wanted[1]
    if target <= 0:
        return None
    seen: set[tuple[str, str, int]] = set()
    candidates: list[tuple[int, _Pick]] = []
    for index in range(len(frames) - 1, -1, -1):  # the latest pages first, an element's bare number first
        frame = frames[index]
        for bid, pointer, text in sorted(_options(frame), key=lambda o: (frame.bids.index(o[0]), o[1] != NUMBER)):
            if pointer not in _FIGURES:
                continue
            found = number_value(text)
            if found is None or found[1] != money:
                continue
            cents = round(found[0] * 100)
            key = (frame.url, bid, cents)
            if 0 < cents <= target and key not in seen:
                seen.add(key)
                candidates.append((cents, (index, bid, pointer)))
    candidates = candidates[:MAX_CANDIDATES]
    best: dict[int, tuple[int, ...]] = {0: ()}
    for position, (cents, _) in enumerate(candidates):
        for total, chosen in list(best.items()):
            reached = total + cents
            fewer = reached not in best or len(best[reached]) > len(chosen) + 1
            if reached <= target and len(chosen) < limit and fewer:
                best[reached] = (*chosen, position)
        if len(best) > MAX_SUMS:
            return None
    chosen = best.get(target)
    return [candidates[position][1] for position in chosen] if chosen else None


_ITEMS = re.compile(r"\s*(?:;|(?<!\d),|,(?!\d{3}(?!\d)))\s*")


def _items(text: str) -> list[str]:
    return [item.strip().casefold() for item in _ITEMS.split(text) if item.strip()]


def _list(frames: list[_Frame], answer: str) -> list[_Pick] | None:
    """Notes whose items together are ``answer``'s, page by page, the largest first on each page."""
    remaining = Counter(_items(answer))
    order = {item: position for position, item in reversed(list(enumerate(_items(answer))))}
    picks: list[tuple[int, _Pick]] = []
    seen: set[str] = set()
    for index, frame in enumerate(frames):
        if frame.url in seen:
            continue
        seen.add(frame.url)
        options = [(bid, pointer, _items(text)) for bid, pointer, text in _options(frame)]
        while remaining:
            fitting = [(len(items), -n, bid, pointer, items) for n, (bid, pointer, items) in enumerate(options)
                       if items and not Counter(items) - remaining]
            if not fitting:
                break
            _, _, bid, pointer, items = max(fitting)
            remaining -= Counter(items)
            picks.append((order.get(items[0], 0), (index, bid, pointer)))
    if remaining or not picks:
        return None
    return [pick for _, pick in sorted(picks, key=lambda p: (p[1][0], p[0]))]

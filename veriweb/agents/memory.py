"""The policy's own short memory: its last few actions in this episode and where it is, kept on the agent side.

The observation says what the page shows now; it does not say what the agent did a moment ago,
so a policy that clicked "Next" and landed on a page like the last one cannot tell it should not
click "Next" again, nor that it already typed the name into the search box and pressed Enter.
The memory here supplies that, without changing the env's observation:

- :func:`featurize <veriweb.agents.features.featurize>` stores the element table's name tokens
  and the argument tokens of the state it encodes (``pending``);
- after the env has taken the action, :func:`remember` turns that state's tokens and the action
  into one entry: its type, the name tokens of the row it targeted, the tokens of its argument,
  whether it raised an error and whether it changed the address;
- the next :func:`features` reads the last :data:`MEMORY` entries (most recent first), the
  current address's tokens, and per element row whether a remembered action targeted a row with
  the same text (``el_recent``: any of them, the last one).

Every rollout that featurizes a state and then steps must call :func:`remember` after the step
(cloning's replay, DAgger, evaluation and :class:`~veriweb.agents.features.PolicyObservation`
do). A new episode (the base env's step count back to 0) clears the memory.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from veriweb.envs.tokenizer import encode

MEMORY = 4
"""Actions remembered (most recent first)."""
MEMORY_TOKENS = 12
"""Name tokens kept of the row an action targeted."""
MEMORY_ARG_TOKENS = 8
"""Tokens kept of an action's argument."""
URL_TOKENS = 12
"""Tokens kept of the current address."""
N_MEMORY_FLAGS = 3
"""Flags per remembered action: it raised an error, it changed the address, it targeted a row."""
N_RECENT = 2
"""Per element row: a remembered action targeted a row with its text; the last one did."""


@dataclass
class ActionMemory:
    """The memory of one env (stored on it as ``_policy_memory``).

    Attributes:
        kinds: action types, most recent last.
        rows: (MEMORY_TOKENS,) name tokens of each action's target row (zeros: none).
        args: (MEMORY_ARG_TOKENS,) tokens of each action's argument (zeros: none).
        flags: (N_MEMORY_FLAGS,) per action.
        pending: the last featurized state's (name tokens, argument tokens, url), for :func:`remember`.
    """

    kinds: list[int] = field(default_factory=list)
    rows: list[np.ndarray] = field(default_factory=list)
    args: list[np.ndarray] = field(default_factory=list)
    flags: list[np.ndarray] = field(default_factory=list)
    pending: tuple[np.ndarray, np.ndarray, str] | None = None

    def clear(self) -> None:
        """Forget everything (a new episode)."""
        self.kinds.clear()
        self.rows.clear()
        self.args.clear()
        self.flags.clear()
        self.pending = None


def env_steps(env: Any) -> int:
    """Steps taken in the current episode of ``env``'s base env (0 when none has started)."""
    base = env.base
    episode = getattr(base, "episode", None)
    if episode is not None:
        return int(episode.steps)
    return int(getattr(base, "_steps", 0))


def memory_of(env: Any) -> ActionMemory:
    """``env``'s memory, cleared when its episode has taken no step yet."""
    memory: ActionMemory | None = getattr(env, "_policy_memory", None)
    if memory is None:
        memory = ActionMemory()
        env._policy_memory = memory
    if env_steps(env) == 0 and memory.kinds:
        memory.clear()
    return memory


def remember(env: Any, action: Any, obs_after: dict[str, Any] | None = None) -> None:
    """Record that ``env`` just took the discrete ``action`` from the last featurized state.

    Args:
        env: the :class:`~veriweb.envs.actions.DiscreteActions` env that stepped.
        action: the (type, row, argument) it took.
        obs_after: the observation the step returned (for its error and address), if any.
    """
    from veriweb.agents.policy import USES_ARGUMENT, USES_ELEMENT

    memory = memory_of(env)
    kind, row, arg = (int(x) for x in np.asarray(action).reshape(-1)[:3].tolist())
    names, arg_tokens, url = memory.pending if memory.pending is not None else (None, None, "")
    target = np.zeros(MEMORY_TOKENS, np.int32)
    argument = np.zeros(MEMORY_ARG_TOKENS, np.int32)
    if names is not None and bool(USES_ELEMENT[kind]) and 0 <= row < len(names):
        target[:min(MEMORY_TOKENS, names.shape[1])] = names[row, :MEMORY_TOKENS]
    if arg_tokens is not None and bool(USES_ARGUMENT[kind]):
        page_start = getattr(env, "page_start", -1)
        if page_start <= arg < page_start + len(names if names is not None else ()):
            argument[:] = names[arg - page_start, :MEMORY_ARG_TOKENS]  # a page string: its row's text
        elif 0 <= arg < len(arg_tokens):
            argument[:] = arg_tokens[arg, :MEMORY_ARG_TOKENS]
    error = bool(obs_after.get("last_action_error")) if obs_after is not None else False
    moved = obs_after is not None and str(obs_after.get("url", "")) != url
    memory.kinds.append(kind)
    memory.rows.append(target)
    memory.args.append(argument)
    memory.flags.append(np.array([error, moved, target.any()], np.float32))
    if len(memory.kinds) > MEMORY:
        del memory.kinds[0], memory.rows[0], memory.args[0], memory.flags[0]
    memory.pending = None


def features(env: Any, obs: dict[str, Any], names: np.ndarray, arg_tokens: np.ndarray) -> dict[str, np.ndarray]:
    """The memory features of the state ``obs`` (and note it as pending for :func:`remember`).

    Returns:
        ``mem_kind`` (MEMORY,) action type + 1 (0: no action), ``mem_row`` (MEMORY, MEMORY_TOKENS),
        ``mem_arg`` (MEMORY, MEMORY_ARG_TOKENS), ``mem_flags`` (MEMORY, N_MEMORY_FLAGS), ``url``
        (URL_TOKENS,) and ``el_recent`` (E, N_RECENT); most recent action first.
    """
    memory = memory_of(env)
    url = str(obs.get("url", ""))
    memory.pending = (names, arg_tokens, url)
    kind = np.zeros(MEMORY, np.int32)
    rows = np.zeros((MEMORY, MEMORY_TOKENS), np.int32)
    args = np.zeros((MEMORY, MEMORY_ARG_TOKENS), np.int32)
    flags = np.zeros((MEMORY, N_MEMORY_FLAGS), np.float32)
    recent = np.zeros((len(names), N_RECENT), np.float32)
    width = min(MEMORY_TOKENS, names.shape[1])
    present = (names[:, :width] > 0).any(1)
    for slot, index in enumerate(range(len(memory.kinds) - 1, -1, -1)):
        kind[slot] = memory.kinds[index] + 1
        rows[slot] = memory.rows[index]
        args[slot] = memory.args[index]
        flags[slot] = memory.flags[index]
        if memory.rows[index].any():
            same = (names[:, :width] == memory.rows[index][:width]).all(1) & present
            recent[:, 0] = np.maximum(recent[:, 0], same)
            if slot == 0:
                recent[:, 1] = same
    return {"mem_kind": kind, "mem_row": rows, "mem_arg": args, "mem_flags": flags,
            "url": encode(url, URL_TOKENS).astype(np.int32), "el_recent": recent}

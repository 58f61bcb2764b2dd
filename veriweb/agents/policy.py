"""The compact policy: goal and page elements attend to each other; heads for type, element pointer and argument.

Architecture (``PolicyConfig`` defaults: about 1.7M parameters, CPU):

- Tokens share one embedding table (the hashed vocabulary of :mod:`veriweb.envs.tokenizer`).
- The goal is its token embeddings plus positions. Each element is the mean of its name tokens,
  plus a projection of the mean of its value tokens, its role, state flags, depth, row, the
  fraction of its name tokens that occur in the goal, its match features
  (:func:`veriweb.agents.features.element_match`) and, weighted by how much of it the element
  covers, the words of the slot value it matches best. Each discrete argument is the mean of its
  text's tokens plus an embedding of its index (so ``<element>``, ``<contents>`` and empty slots
  are still told apart); a task string also gets its match features and the goal words written
  just before it. A summary token carries progress, last-action error and budget used.
- Memory (``memory``, :mod:`veriweb.agents.memory`): the agent's last actions (type, target row's
  text, argument, error, moved) are items of the sequence too; the current address is added to the
  summary; each element gets whether a recent action targeted a row with its text.
- A pre-norm transformer encoder runs over [summary; goal; elements; arguments] with padding
  masked out.
- Heads, autoregressive and masked by the env's action masks: the element by a pointer (query
  from the summary and the type, keys from the elements, plus a per-type weighting of the
  element's match features); the action type from the summary plus, for each type that targets
  a row, the log-sum-exp of its pointer logits (a type is as likely as its best target is
  good); the argument by a pointer (query from the summary, the type and the chosen element,
  keys from the arguments, plus per-type weightings of the arguments' match features and of
  the goal words before a task string that the chosen element's text shares). The value head
  reads the summary.

Heads that do not matter for a type (the element of ``noop``, the argument of ``click``) are
fixed to index 0 and contribute nothing to log-probabilities, entropies or losses.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from veriweb.agents.features import N_ARG_MATCH, N_EL_MATCH, N_EXTRA
from veriweb.agents.memory import MEMORY, N_MEMORY_FLAGS, N_RECENT
from veriweb.envs.actions import ACTION_TYPES, NOTE_ARGUMENTS, DiscreteActions
from veriweb.envs.observation import FLAGS, ROLES
from veriweb.envs.tokenizer import VOCAB_SIZE
from veriweb.errors import VeriwebError

T = len(ACTION_TYPES)
USES_ELEMENT = torch.tensor([name in ("click", "fill", "select", "check", "enter", "goto", "send", "note")
                             for name in ACTION_TYPES])
USES_ARGUMENT = torch.tensor([name in ("fill", "select", "send", "note") for name in ACTION_TYPES])
NEG = -1e9


@dataclass(frozen=True)
class PolicyConfig:
    """Sizes of the policy.

    Attributes:
        d_model: width of every embedding and of the transformer.
        layers: transformer layers.
        heads: attention heads.
        ff: feed-forward width.
        n_elements: element rows (the env's ``max_elements``).
        n_args: discrete arguments (the env's ``n_args``).
        task_start: the first task-string argument (the ones before it point into the chosen row).
        max_history: earlier-address arguments (after the page strings; then the notes, then the numbers).
        page_start: the first page-string argument (argument ``page_start + row`` types the text of
            element ``row``; it is represented by that row's state, not by tokens).
        goal_tokens: goal length in tokens.
        dropout: dropout in the transformer (0 for PPO).
        group_context: add to each element the mean of the texts of the rows in its group (its
            table row, list item, card, form or dialog: ``el_group``).
        element_scorer: add to each type's pointer logits a score read off each element's own state
            (an MLP per element, one output per type), beside the summary's query.
        memory: read the agent's own memory (:mod:`veriweb.agents.memory`): its last actions as
            items of the sequence, the current address in the summary, and per element whether a
            recent action targeted a row with its text (in its state and, per type, in its pointer
            logit). Checkpoints from before it load with it off.
    """

    d_model: int = 64
    layers: int = 2
    heads: int = 4
    ff: int = 128
    n_elements: int = 160
    n_args: int = 273
    task_start: int = 10
    page_start: int = 74
    max_history: int = 8
    goal_tokens: int = 48
    dropout: float = 0.0
    group_context: bool = True
    element_scorer: bool = True
    memory: bool = True


def config_for(env: DiscreteActions, **sizes: Any) -> PolicyConfig:
    """The policy config whose element rows and argument layout match ``env``; ``sizes`` override the rest."""
    return PolicyConfig(n_elements=env.n_elements, n_args=env.n_args, task_start=env.task_start,
                        page_start=env.page_start, max_history=env.max_history,
                        goal_tokens=env.base.config.goal_tokens, **sizes)


def discrete_for(env: Any, config: PolicyConfig) -> DiscreteActions:
    """Wrap ``env`` (a :class:`VeriwebEnv`) in the :class:`DiscreteActions` layout a policy was trained with.

    Raises:
        VeriwebError: this version of :class:`DiscreteActions` cannot give that layout (its
            pointer arguments differ, or the element table has another size): retrain the policy.
    """
    numbers = config.n_args - config.page_start - config.n_elements - config.max_history - NOTE_ARGUMENTS - 1
    task_strings = config.page_start - config.task_start
    if min(numbers, task_strings) < 0:
        raise VeriwebError(f"the policy's argument layout is inconsistent: {config}")
    discrete = DiscreteActions(env, max_task_strings=task_strings, max_history=config.max_history, max_number=numbers)
    mine = (config.n_elements, config.task_start, config.page_start, config.n_args)
    theirs = (discrete.n_elements, discrete.task_start, discrete.page_start, discrete.n_args)
    if mine != theirs:
        raise VeriwebError(f"the policy was trained on discrete actions laid out as (rows, first task string, first "
                           f"page string, arguments) = {mine}, but this env gives {theirs}: the action wrapper "
                           "has changed since; retrain the policy (veriweb train)")
    return discrete


def _mean_pool(embedded: Tensor, ids: Tensor) -> Tensor:
    present = (ids > 0).unsqueeze(-1).to(embedded.dtype)
    return (embedded * present).sum(-2) / present.sum(-2).clamp(min=1.0)


def _pack(parts: list[tuple[Tensor, Tensor]]) -> tuple[Tensor, Tensor, list[tuple[Tensor, Tensor]]]:
    """Concatenate each sample's kept items of every part, with no padding between parts.

    Args:
        parts: (states (B, n, d), keep (B, n)) per part, in order.

    Returns:
        The packed sequence (B, L, d) (L: the longest sample), its keep mask (B, L), and per part
        each item's position in the sequence and whether it is kept (for :func:`_unpack`). A batch
        costs what its samples' real lengths cost, not the sum of every part's longest.
    """
    B, device = parts[0][0].shape[0], parts[0][0].device
    counts = torch.stack([keep.sum(1) for _, keep in parts], 1)
    starts = torch.cumsum(counts, 1) - counts
    total = counts.sum(1)
    L = max(int(total.max()), 1)
    sequence = parts[0][0].new_zeros(B, L, parts[0][0].shape[-1])
    places = []
    for k, (states, keep) in enumerate(parts):
        position = starts[:, k:k + 1] + torch.cumsum(keep.long(), 1) - 1
        rows, items = keep.nonzero(as_tuple=True)
        sequence = sequence.index_put((rows, position[rows, items]), states[rows, items])
        places.append((position.clamp(0, L - 1), keep))
    return sequence, torch.arange(L, device=device).unsqueeze(0) < total.unsqueeze(1), places


def _unpack(hidden: Tensor, place: tuple[Tensor, Tensor]) -> Tensor:
    """One part's states back from a packed sequence (zeros where an item was not kept)."""
    position, keep = place
    out = hidden.gather(1, position.unsqueeze(-1).expand(-1, -1, hidden.shape[-1]))
    return out * keep.unsqueeze(-1).to(out.dtype)


def _masked(logits: Tensor, mask: Tensor) -> Tensor:
    mask = mask.bool()
    empty = ~mask.any(-1, keepdim=True)  # nothing allowed: fall back to index 0, never NaN
    mask = mask | (empty & (torch.arange(mask.shape[-1], device=mask.device) == 0))
    return logits.masked_fill(~mask, NEG)


def _choose(dist: torch.distributions.Categorical, given: torch.Tensor | None, greedy: bool) -> torch.Tensor:
    """The given choice (when scoring a stored action), else the most likely or a sampled one."""
    if given is not None:
        return given.long()
    return dist.logits.argmax(-1) if greedy else dist.sample()


class Policy(nn.Module):
    """Actor-critic over :mod:`veriweb.agents.features` batches (see the module docstring).

    Args:
        config: sizes.
    """

    def __init__(self, config: PolicyConfig = PolicyConfig()) -> None:
        super().__init__()
        self.config = config
        d = config.d_model
        self.tokens = nn.Embedding(VOCAB_SIZE, d, padding_idx=0)
        self.goal_pos = nn.Embedding(config.goal_tokens, d)
        self.value_proj = nn.Linear(d, d)
        self.role = nn.Embedding(len(ROLES), d)
        self.flags = nn.Linear(len(FLAGS), d)
        self.depth = nn.Embedding(64, d)
        self.row = nn.Embedding(config.n_elements, d)
        self.overlap = nn.Linear(1, d)
        self.el_match = nn.Linear(N_EL_MATCH, d)
        self.slot_proj = nn.Linear(d, d)
        self.arg_match = nn.Linear(N_ARG_MATCH, d)
        self.context_proj = nn.Linear(d, d)
        self.el_bias = nn.Embedding(T, N_EL_MATCH)
        self.arg_bias = nn.Embedding(T, N_ARG_MATCH)
        self.page_bias = nn.Embedding(T, N_EL_MATCH)
        self.context_bias = nn.Embedding(T, 1)
        for table in (self.el_bias, self.arg_bias, self.page_bias, self.context_bias):
            nn.init.zeros_(table.weight)
        self.arg_index = nn.Embedding(config.n_args, d)
        self.static_arg = nn.Sequential(nn.Linear(d, d), nn.GELU(), nn.Linear(d, d))
        self.summary = nn.Parameter(torch.zeros(d))
        self.extra = nn.Linear(N_EXTRA, d)
        self.segment = nn.Embedding(4, d)
        self.group_proj = nn.Linear(d, d) if config.group_context else None
        layer = nn.TransformerEncoderLayer(d, config.heads, config.ff, config.dropout, batch_first=True,
                                           norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, config.layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d)
        self.type_head = nn.Sequential(nn.Linear(d, d), nn.GELU(), nn.Linear(d, T))
        self.type_embed = nn.Embedding(T, d)
        self.el_query = nn.Sequential(nn.Linear(d, d), nn.GELU(), nn.Linear(d, d))
        self.el_key = nn.Linear(d, d)
        self.el_score = nn.Sequential(nn.Linear(d, d), nn.GELU(), nn.Linear(d, T)) if config.element_scorer else None
        self.arg_query = nn.Sequential(nn.Linear(d, d), nn.GELU(), nn.Linear(d, d))
        self.arg_key = nn.Linear(d, d)
        self.value_head = nn.Sequential(nn.Linear(d, d), nn.GELU(), nn.Linear(d, 1))
        if config.memory:
            self.mem_kind = nn.Embedding(T + 1, d, padding_idx=0)
            self.mem_arg = nn.Linear(d, d)
            self.mem_flags = nn.Linear(N_MEMORY_FLAGS, d)
            self.mem_pos = nn.Embedding(MEMORY, d)
            self.mem_segment = nn.Parameter(torch.zeros(d))
            self.url_proj = nn.Linear(d, d)
            self.recent = nn.Linear(N_RECENT, d)
            self.recent_bias = nn.Embedding(T, N_RECENT)
            nn.init.zeros_(self.recent_bias.weight)

    # ------------------------------------------------------------------ encoding

    def encode(self, batch: dict[str, Tensor]) -> tuple[Tensor, Tensor, Tensor]:
        """The summary (B, d), element (B, E, d) and argument (B, A, d) states.

        Only the summary, the goal, the element rows and the task strings go through the
        transformer, packed per sample with no padding between them (:func:`_pack`), so a batch
        costs about what its samples' real lengths cost. Pointers,
        earlier addresses and numbers need no context: their states are their embeddings. A
        page-string argument's state is its element row's.
        """
        c = self.config
        goal = batch["goal"].long()
        B, E, P = goal.shape[0], c.n_elements, c.page_start
        device = goal.device
        G = max(int((goal > 0).sum(1).max()), 1)
        goal = goal[:, :G]
        g = self.tokens(goal) + self.goal_pos.weight[:G] + self.segment.weight[1]
        R = max(int(batch["el_mask"].sum(1).max()), 1)
        names = batch["el_tokens"][:, :R].long()
        values = batch["el_value"][:, :R].long()
        pooled = _mean_pool(self.tokens(names), names)
        e = (pooled + self.value_proj(_mean_pool(self.tokens(values), values))
             + self.role(batch["el_role"][:, :R].long()) + self.flags(batch["el_flags"][:, :R].float())
             + self.depth(batch["el_depth"][:, :R].long().clamp(0, 63)) + self.row.weight[:R]
             + self.overlap(batch["el_overlap"][:, :R].float().unsqueeze(-1)) + self.segment.weight[2])
        arg_ids = batch["arg_tokens"].long()
        K = max(int((arg_ids[:, c.task_start:P, 0] > 0).sum(1).max()), 1)
        task_ids = arg_ids[:, c.task_start:c.task_start + K]
        task_words = _mean_pool(self.tokens(task_ids), task_ids)
        context = batch["arg_context"][:, c.task_start:c.task_start + K].long()
        t = (task_words + self.arg_index.weight[c.task_start:c.task_start + K] + self.segment.weight[3]
             + self.arg_match(batch["arg_match"][:, c.task_start:c.task_start + K].float())
             + self.context_proj(_mean_pool(self.tokens(context), context)))
        if self.group_proj is not None:
            group = batch["el_group"][:, :R].long()
            same = ((group.unsqueeze(2) == group.unsqueeze(1)) & (group >= 0).unsqueeze(2)).to(pooled.dtype)
            e = e + self.group_proj(same @ pooled / same.sum(-1, keepdim=True).clamp(min=1.0))
        match = batch["el_match"][:, :R].float()
        slot = (batch["el_slot"][:, :R].long() - c.task_start)
        weight = match[..., 1:2] * (slot >= 0).unsqueeze(-1).to(match.dtype)
        slot_words = task_words.gather(1, slot.clamp(0, K - 1).unsqueeze(-1).expand(-1, -1, task_words.shape[-1]))
        e = e + self.el_match(match) + weight * self.slot_proj(slot_words)
        s = (self.summary + self.extra(batch["extra"].float()) + self.segment.weight[0]).unsqueeze(1)
        parts = [(s, torch.ones(B, 1, dtype=torch.bool, device=device)), (g, goal > 0),
                 (e, batch["el_mask"][:, :R].bool()), (t, task_ids[:, :, 0] > 0)]
        if c.memory:  # the agent's own last actions, where it is, and which rows it just acted on
            kinds = batch["mem_kind"].long()
            rows, margs, url = batch["mem_row"].long(), batch["mem_arg"].long(), batch["url"].long()
            m = (self.mem_kind(kinds) + _mean_pool(self.tokens(rows), rows)
                 + self.mem_arg(_mean_pool(self.tokens(margs), margs)) + self.mem_flags(batch["mem_flags"].float())
                 + self.mem_pos.weight[:kinds.shape[1]] + self.mem_segment)
            parts[0] = (s + self.url_proj(_mean_pool(self.tokens(url), url)).unsqueeze(1), parts[0][1])
            parts[2] = (e + self.recent(batch["el_recent"][:, :R].float()), parts[2][1])
            parts.append((m, kinds > 0))
        sequence, keep, places = _pack(parts)
        hidden = self.norm(self.encoder(sequence, src_key_padding_mask=~keep))
        el_h = torch.zeros(B, E, hidden.shape[-1], dtype=hidden.dtype, device=device)
        el_h[:, :R] = _unpack(hidden, places[2])
        task_h = torch.zeros(B, P - c.task_start, hidden.shape[-1], dtype=hidden.dtype, device=device)
        task_h[:, :K] = _unpack(hidden, places[3])
        rest = arg_ids[:, P + E:]
        static = self.static_arg(_mean_pool(self.tokens(rest), rest) + self.arg_index.weight[P + E:])
        pointers = self.arg_index.weight[:c.task_start].expand(B, -1, -1)
        args = torch.cat([pointers, task_h, el_h + self.arg_index.weight[P: P + E], static], 1)
        return hidden[:, 0], el_h, args

    # ------------------------------------------------------------------ heads

    def all_element_logits(self, summary: Tensor, elements: Tensor, batch: dict[str, Tensor]) -> Tensor:
        """Pointer logits of every row for every action type (B, T, E), masked per type."""
        query = self.el_query(summary.unsqueeze(1) + self.type_embed.weight.unsqueeze(0))
        logits = torch.einsum("btd,bed->bte", query, self.el_key(elements)) / math.sqrt(self.config.d_model)
        logits = logits + torch.einsum("tm,bem->bte", self.el_bias.weight, batch["el_match"].float())
        if self.config.memory:
            logits = logits + torch.einsum("tm,bem->bte", self.recent_bias.weight, batch["el_recent"].float())
        if self.el_score is not None:
            logits = logits + self.el_score(elements).transpose(1, 2)
        return _masked(logits, batch["mask_element"])

    def type_logits(self, summary: Tensor, all_elements: Tensor, batch: dict[str, Tensor]) -> Tensor:
        """The type head plus, for types that target a row, the evidence of their best rows
        (log-sum-exp of the type's pointer logits): "fill" is likely when a field fits it."""
        evidence = torch.logsumexp(all_elements, -1)
        evidence = torch.where(USES_ELEMENT.to(evidence.device).unsqueeze(0), evidence, torch.zeros_like(evidence))
        return _masked(self.type_head(summary) + evidence, batch["mask_type"])

    def element_logits(self, all_elements: Tensor, kind: Tensor) -> Tensor:
        """The pointer logits of the chosen type (B, E)."""
        return all_elements.gather(1, kind.view(-1, 1, 1).expand(-1, 1, all_elements.shape[-1])).squeeze(1)

    def argument_logits(self, summary: Tensor, elements: Tensor, args: Tensor, kind: Tensor, row: Tensor,
                        batch: dict[str, Tensor]) -> Tensor:
        chosen = elements.gather(1, row.view(-1, 1, 1).expand(-1, 1, elements.shape[-1])).squeeze(1)
        query = self.arg_query(summary + self.type_embed(kind) + chosen)
        logits = torch.einsum("bd,bad->ba", query, self.arg_key(args)) / math.sqrt(self.config.d_model)
        logits = logits + self._argument_bias(kind, row, batch)
        allowed = batch["mask_argument"].gather(1, kind.view(-1, 1, 1).expand(-1, 1, args.shape[1])).squeeze(1)
        return _masked(logits, allowed)

    def _argument_bias(self, kind: Tensor, row: Tensor, batch: dict[str, Tensor]) -> Tensor:
        """Direct evidence per argument: its match features, a page string's row match features, and
        how many of the goal words just before a task string the chosen element's text has."""
        c = self.config
        P, E = c.page_start, c.n_elements
        bias = torch.einsum("bm,bam->ba", self.arg_bias(kind), batch["arg_match"].float())
        page = torch.einsum("bm,bem->be", self.page_bias(kind), batch["el_match"].float())
        names = batch["el_tokens"].long()
        label = names.gather(1, row.view(-1, 1, 1).expand(-1, 1, names.shape[-1])).squeeze(1)  # (B, L)
        context = batch["arg_context"].long()  # (B, A, C)
        hits = ((context.unsqueeze(-1) == label[:, None, None, :]) & (context > 0).unsqueeze(-1)).any(-1)
        shared = hits.float().sum(-1) / (context > 0).float().sum(-1).clamp(min=1.0)
        bias = bias + self.context_bias(kind) * shared
        return torch.cat([bias[:, :P], bias[:, P:P + E] + page, bias[:, P + E:]], 1)

    def forward(self, batch: dict[str, Tensor], action: Tensor | None = None, *,
                greedy: bool = False) -> dict[str, Tensor]:
        """Act (``action=None``: sample, or argmax with ``greedy``) or score a given action.

        Returns:
            ``action`` (B, 3), ``log_prob`` (B,), ``entropy`` (B,), ``value`` (B,), and the
            per-head logits ``type_logits``, ``element_logits``, ``argument_logits``.
        """
        summary, elements, args = self.encode(batch)
        all_elements = self.all_element_logits(summary, elements, batch)
        type_logits = self.type_logits(summary, all_elements, batch)
        type_dist = torch.distributions.Categorical(logits=type_logits)
        kind = _choose(type_dist, None if action is None else action[:, 0], greedy)
        uses_el = USES_ELEMENT.to(kind.device)[kind]
        uses_arg = USES_ARGUMENT.to(kind.device)[kind]
        el_logits = self.element_logits(all_elements, kind)
        el_dist = torch.distributions.Categorical(logits=el_logits)
        row = _choose(el_dist, None if action is None else action[:, 1], greedy)
        row = torch.where(uses_el, row, torch.zeros_like(row))
        arg_logits = self.argument_logits(summary, elements, args, kind, row, batch)
        arg_dist = torch.distributions.Categorical(logits=arg_logits)
        arg = _choose(arg_dist, None if action is None else action[:, 2], greedy)
        arg = torch.where(uses_arg, arg, torch.zeros_like(arg))
        log_prob = (type_dist.log_prob(kind) + torch.where(uses_el, el_dist.log_prob(row), 0.0)
                    + torch.where(uses_arg, arg_dist.log_prob(arg), 0.0))
        entropy = (type_dist.entropy() + torch.where(uses_el, el_dist.entropy(), 0.0)
                   + torch.where(uses_arg, arg_dist.entropy(), 0.0))
        return {"action": torch.stack([kind, row, arg], 1), "log_prob": log_prob, "entropy": entropy,
                "value": self.value_head(summary).squeeze(-1), "type_logits": type_logits,
                "element_logits": el_logits, "argument_logits": arg_logits, "uses_element": uses_el,
                "uses_argument": uses_arg}

    def act(self, features: dict[str, np.ndarray], *, greedy: bool = True) -> np.ndarray:
        """One action per row of a numpy feature batch (no gradients)."""
        with torch.no_grad():
            out = self(to_tensors(features), greedy=greedy)
        return out["action"].numpy()


def to_tensors(batch: dict[str, np.ndarray]) -> dict[str, Tensor]:
    """A numpy feature batch as tensors (copies only of read-only or non-contiguous arrays)."""
    return {key: torch.from_numpy(value if value.flags.writeable and value.flags.c_contiguous else np.array(value))
            for key, value in batch.items()}


def parameter_count(policy: nn.Module) -> int:
    """Trainable parameters."""
    return sum(p.numel() for p in policy.parameters() if p.requires_grad)


def save_policy(policy: Policy, path: str | Path, meta: dict[str, Any] | None = None) -> Path:
    """Write a checkpoint: the config, the weights and ``meta`` (JSON-like: corpus, preset, metrics)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    torch.save({"format": "veriweb-policy-1", "config": asdict(policy.config), "state_dict": policy.state_dict(),
                "meta": meta or {}}, tmp)
    tmp.replace(path)
    return path


def load_policy(path: str | Path) -> tuple[Policy, dict[str, Any]]:
    """Load a checkpoint written by :func:`save_policy`.

    Raises:
        VeriwebError: no such file, or not a veriweb policy checkpoint.
    """
    path = Path(path)
    if not path.is_file():
        raise VeriwebError(f"no policy checkpoint at {path}; train one with `veriweb train --out DIR`")
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:
        raise VeriwebError(f"{path} is not a readable policy checkpoint: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != "veriweb-policy-1":
        raise VeriwebError(f"{path} is not a veriweb policy checkpoint (format veriweb-policy-1)")
    policy = Policy(PolicyConfig(**{"memory": False, **data["config"]}))  # older checkpoints: no memory
    policy.load_state_dict(data["state_dict"])
    policy.eval()
    return policy, dict(data.get("meta") or {})

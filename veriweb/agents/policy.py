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
  the goal words before a task string, or before the slot value an option row is, that the
  chosen element's text shares). The value head reads the summary.

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
import torch.nn.functional as F
from torch import Tensor, nn

from veriweb.agents.features import N_ARG_MATCH, N_COUNTS, N_EL_MATCH, N_EXTRA, N_GROUP_MATCH, N_NUMERIC, unpack
from veriweb.agents.memory import MEMORY, N_MEMORY_FLAGS, N_RECENT
from veriweb.agents.sequence import Bags, Layout, encoder_layer, ranks
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
        page_context: a page string that is a slot value (an option "Copenhagen (CPH)" of a
            list) gets the evidence its task string gets: how many of the goal words just before
            that value ("flight from") the chosen field's label ("Flying from") has; and those
            words count by nearness (the nearest most), so in "from Barcelona to Madrid" the
            "from" before Barcelona outweighs the one before Madrid. Without it the policy
            picked the destination for the origin list in 6 of the 16 wrong arguments of the
            52% policy's failed held-out episodes. Checkpoints from before it load with it off.
        numeric: read where each row's number stands among its peers'
            (:func:`veriweb.agents.features.element_numbers`: the largest, the smallest, in a
            row that holds one), in its state and, per type, in its pointer logit.
        group_match: read how well each row's group (its table row, list item, card) names the
            task's slot values (:func:`veriweb.agents.features.group_match`), in its state and,
            per type, in its pointer logit: the booking link in the row that says "Budapest".
            Checkpoints from before it load with it off.
        slot_keys: read the name of the slot each task string comes from (``arg_key``: "origin",
            "destination", "guests"), in the task string's item and in every row whose text is
            that slot's value: "the Oslo-Nice flight" says which city is the origin only through
            the slot's name. Checkpoints from before it load with it off.
        counts: read which number arguments count rows the page shows
            (:func:`veriweb.agents.features.row_counts`: the data rows of the longest list, of any
            list, the rows that share a cell the goal names), in each number's state and, per
            type, in its argument logit: attention can average but not count. Checkpoints from
            before it load with it off.
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
    page_context: bool = True
    numeric: bool = False
    group_match: bool = False
    slot_keys: bool = False
    counts: bool = False


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


def _last(allowed: Tensor, at_least: int) -> int:
    """One past the last set entry of a 1-D mask, or ``at_least`` if that is more."""
    hits = allowed.nonzero()
    return max(at_least, int(hits[-1]) + 1) if len(hits) else at_least


def _group_means(names: Tensor, group: Tensor, sample: Tensor, row: Tensor, n_groups: int) -> Tensor:
    """For rows (``sample``, ``row``), the mean name of the rows (B, R) sharing their group (zeros: no group).

    The same as averaging over a (B, R, R) same-group matrix, at the cost of one scatter and one gather.
    """
    B, _, d = names.shape
    valid = group >= 0
    key = torch.arange(B, device=group.device).unsqueeze(1) * n_groups + group.clamp(min=0)
    sums = names.new_zeros(B * n_groups, d).index_add(0, key[valid], names[valid])
    count = torch.bincount(key[valid], minlength=B * n_groups).clamp(min=1).to(names.dtype)
    mine = key[sample, row]
    return torch.where(valid[sample, row].unsqueeze(-1), sums[mine] / count[mine].unsqueeze(-1), 0.0)


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


@dataclass
class Encoded:
    """What :meth:`Policy.encode` gives the heads.

    Attributes:
        summary: (B, d) the summary token's state.
        elements: (B, R, d) the first R element rows' states (R: past the batch's last kept or
            allowed row; later rows are padding, masked out of every pointer).
        arguments: (B, A', d) the states of the arguments ``columns`` lists.
        columns: (A',) argument indices: the pointers and the first task strings, the page strings
            of the R rows, the earlier addresses, notes and numbers (the rest are padding).
    """

    summary: Tensor
    elements: Tensor
    arguments: Tensor
    columns: Tensor


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
        self.page_context_bias = nn.Embedding(T, 1) if config.page_context else None
        self.numeric = nn.Linear(N_NUMERIC, d) if config.numeric else None
        self.numeric_bias = nn.Embedding(T, N_NUMERIC) if config.numeric else None
        self.group_match = nn.Linear(N_GROUP_MATCH, d) if config.group_match else None
        self.group_match_bias = nn.Embedding(T, N_GROUP_MATCH) if config.group_match else None
        self.key_proj = nn.Linear(d, d) if config.slot_keys else None
        self.slot_key_proj = nn.Linear(d, d) if config.slot_keys else None
        self.count_proj = nn.Linear(N_COUNTS, d) if config.counts else None
        self.count_bias = nn.Embedding(T, N_COUNTS) if config.counts else None
        for table in (self.el_bias, self.arg_bias, self.page_bias, self.context_bias, self.page_context_bias,
                      self.numeric_bias, self.group_match_bias, self.count_bias):
            if table is not None:
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

    def encode(self, batch: dict[str, Tensor], action: Tensor | None = None) -> Encoded:
        """The summary, element-row and argument states (see :class:`Encoded`).

        Only the summary, the goal, the element rows, the task strings and the memory go through
        the transformer, as one flat array of the batch's real tokens (:mod:`veriweb.agents.sequence`),
        so a batch costs about what its samples' real lengths cost. Pointers, earlier addresses,
        notes and numbers need no context: their states are their embeddings. A page-string
        argument's state is its element row's. Rows and task strings past the batch's last kept or
        allowed one (or ``action``'s row) are padding: their states are not computed.
        """
        c = self.config
        d, E, P, S = c.d_model, c.n_elements, c.page_start, c.task_start
        goal = batch["goal"]
        B, device = goal.shape[0], goal.device
        el_mask, arg_ids = batch["el_mask"].bool(), batch["arg_tokens"]
        G = max(int((goal > 0).sum(1).max()), 1)
        R = max(int(el_mask.sum(1).max()), 1)
        K = max(int((arg_ids[:, S:P, 0] > 0).sum(1).max()), 1)
        allowed_args = batch["mask_argument"].any(1).any(0)
        rows = _last(batch["mask_element"].any(1).any(0), R)
        rows = _last(allowed_args[P:P + E], rows)
        if action is not None and len(action):
            rows = max(rows, int(action[:, 1].max()) + 1)
        rows, strings = min(rows, E), min(_last(allowed_args[S:P], K), P - S)
        # ---- every token pool in one lookup
        gb, gj, g_rank = ranks(goal[:, :G] > 0)
        eb, er, e_rank = ranks(el_mask[:, :R])
        task_ids = arg_ids[:, S:S + K]
        tb, tk, t_rank = ranks(task_ids[:, :, 0] > 0)
        el_at, arg_at = eb * E + er, tb * c.n_args + S + tk  # kept items' flat indices in (B, E) and (B, A)

        def at(key: str, index: Tensor) -> Tensor:  # batch[key][b, j] for flat indices b * n + j
            value = batch[key]
            return value.reshape(-1, *value.shape[2:]).index_select(0, index)

        bags = Bags()
        h_goal = bags.add(at("goal", gb * goal.shape[1] + gj).unsqueeze(-1))
        h_names = bags.add(batch["el_tokens"][:, :R])
        h_values = bags.add(at("el_value", el_at))
        h_task = bags.add(task_ids)
        h_context = bags.add(at("arg_context", arg_at))
        h_keys = bags.add(batch["arg_key"][:, S:S + K]) if c.slot_keys else None
        h_static = bags.add(arg_ids[:, P + E:])
        if c.memory:
            kinds = batch["mem_kind"]
            mb, mj, m_rank = ranks(kinds > 0)
            mem_at = mb * kinds.shape[1] + mj
            h_mem_row = bags.add(at("mem_row", mem_at))
            h_mem_arg = bags.add(at("mem_arg", mem_at))
            h_url = bags.add(batch["url"])
        pools = bags.run(self.tokens.weight)
        # ---- the sequence's items
        g = pools[h_goal] + self.goal_pos.weight[gj] + self.segment.weight[1]
        names = pools[h_names]
        match = at("el_match", el_at).float()
        slot = at("el_slot", el_at).long() - S
        task_words = pools[h_task]
        slot_words = task_words.reshape(-1, d).index_select(0, eb * K + slot.clamp(0, K - 1))
        e = (names.reshape(-1, d).index_select(0, eb * R + er) + self.value_proj(pools[h_values])
             + self.role(at("el_role", el_at).long()) + self.flags(at("el_flags", el_at).float())
             + self.depth(at("el_depth", el_at).long().clamp(0, 63)) + self.row.weight[er]
             + self.overlap(at("el_overlap", el_at).float().unsqueeze(-1)) + self.segment.weight[2]
             + self.el_match(match)
             + (match[:, 1:2] * (slot >= 0).unsqueeze(-1).to(match.dtype)) * self.slot_proj(slot_words))
        if self.group_proj is not None:
            e = e + self.group_proj(_group_means(names, batch["el_group"][:, :R].long(), eb, er, E))
        if self.numeric is not None:
            e = e + self.numeric(at("el_numeric", el_at).float())
        if self.group_match is not None:
            e = e + self.group_match(at("el_group_match", el_at).float())
        t = (task_words.reshape(-1, d).index_select(0, tb * K + tk) + self.arg_index.weight[S + tk]
             + self.segment.weight[3] + self.arg_match(at("arg_match", arg_at).float())
             + self.context_proj(pools[h_context]))
        if self.key_proj is not None and self.slot_key_proj is not None:  # the slot each task string comes from
            keys = pools[h_keys].reshape(-1, d)
            t = t + self.key_proj(keys.index_select(0, tb * K + tk))
            e = e + (match[:, 1:2] * (slot >= 0).unsqueeze(-1).to(match.dtype)) * self.slot_key_proj(
                keys.index_select(0, eb * K + slot.clamp(0, K - 1)))
        s = self.summary + self.extra(batch["extra"].float()) + self.segment.weight[0]
        items = [s, g, e, t]
        samples = [torch.arange(B, device=device), gb, eb, tb]
        places = [torch.zeros(B, dtype=torch.long, device=device), g_rank, e_rank, t_rank]
        if c.memory:  # the agent's own last actions, where it is, and which rows it just acted on
            items[0] = s + self.url_proj(pools[h_url])
            items[2] = e + self.recent(at("el_recent", el_at).float())
            items.append(self.mem_kind(at("mem_kind", mem_at).long()) + pools[h_mem_row] + self.mem_arg(pools[h_mem_arg])
                         + self.mem_flags(at("mem_flags", mem_at).float()) + self.mem_pos.weight[mj]
                         + self.mem_segment)
            samples.append(mb)
            places.append(m_rank)
        # ---- the transformer over the batch's real tokens
        counts = torch.stack([torch.bincount(sample, minlength=B) for sample in samples], 1)
        starts = torch.cumsum(counts, 1) - counts
        position = torch.cat([starts[sample, k] + place for k, (sample, place) in enumerate(zip(samples, places))])
        layout = Layout.build(torch.cat(samples), position, counts.sum(1))
        hidden = torch.cat(items)
        for layer in self.encoder.layers:
            hidden = encoder_layer(layer, hidden, layout)
        hidden = self.norm(hidden)
        ends = torch.tensor([len(x) for x in items]).cumsum(0).tolist()
        el_h = hidden.new_zeros(B, rows, d).index_put((eb, er), hidden[ends[1]:ends[2]])
        task_h = hidden.new_zeros(B, strings, d).index_put((tb, tk), hidden[ends[2]:ends[3]])
        static = pools[h_static] + self.arg_index.weight[P + E:]
        if self.count_proj is not None:  # which numbers count rows the page shows
            static = static + self.count_proj(batch["arg_count"][:, P + E:].float())
        static = self.static_arg(static)
        args = torch.cat([self.arg_index.weight[:S].expand(B, -1, -1), task_h,
                          el_h + self.arg_index.weight[P:P + rows], static], 1)
        columns = torch.cat([torch.arange(S + strings), torch.arange(P, P + rows), torch.arange(P + E, c.n_args)])
        return Encoded(hidden[:B], el_h, args, columns.to(device))

    # ------------------------------------------------------------------ heads

    def all_element_logits(self, summary: Tensor, elements: Tensor, batch: dict[str, Tensor]) -> Tensor:
        """Pointer logits of every row for every action type (B, T, E), masked per type.

        ``elements`` holds the first R rows' states (:class:`Encoded`); later rows are masked out.
        """
        rows = elements.shape[1]
        query = self.el_query(summary.unsqueeze(1) + self.type_embed.weight.unsqueeze(0))
        logits = torch.bmm(query, self.el_key(elements).transpose(1, 2)) / math.sqrt(self.config.d_model)
        logits = logits + torch.einsum("tm,bem->bte", self.el_bias.weight, batch["el_match"][:, :rows].float())
        if self.config.memory:
            logits = logits + torch.einsum("tm,bem->bte", self.recent_bias.weight, batch["el_recent"][:, :rows].float())
        if self.el_score is not None:
            logits = logits + self.el_score(elements).transpose(1, 2)
        if self.numeric_bias is not None:
            logits = logits + torch.einsum("tm,bem->bte", self.numeric_bias.weight, batch["el_numeric"][:, :rows].float())
        if self.group_match_bias is not None:
            logits = logits + torch.einsum("tm,bem->bte", self.group_match_bias.weight,
                                           batch["el_group_match"][:, :rows].float())
        return _masked(F.pad(logits, (0, self.config.n_elements - rows), value=NEG), batch["mask_element"])

    def type_logits(self, summary: Tensor, all_elements: Tensor, batch: dict[str, Tensor]) -> Tensor:
        """The type head plus, for types that target a row, the evidence of their best rows
        (log-sum-exp of the type's pointer logits): "fill" is likely when a field fits it."""
        evidence = torch.logsumexp(all_elements, -1)
        evidence = torch.where(USES_ELEMENT.to(evidence.device).unsqueeze(0), evidence, torch.zeros_like(evidence))
        return _masked(self.type_head(summary) + evidence, batch["mask_type"])

    def element_logits(self, all_elements: Tensor, kind: Tensor) -> Tensor:
        """The pointer logits of the chosen type (B, E)."""
        return all_elements.gather(1, kind.view(-1, 1, 1).expand(-1, 1, all_elements.shape[-1])).squeeze(1)

    def argument_logits(self, encoded: Encoded, kind: Tensor, row: Tensor, batch: dict[str, Tensor]) -> Tensor:
        """The argument pointer's logits (B, A) given the type and the row (which must be below R), masked."""
        elements, args = encoded.elements, encoded.arguments
        chosen = elements.gather(1, row.view(-1, 1, 1).expand(-1, 1, elements.shape[-1])).squeeze(1)
        query = self.arg_query(encoded.summary + self.type_embed(kind) + chosen)
        logits = torch.bmm(self.arg_key(args), query.unsqueeze(-1)).squeeze(-1) / math.sqrt(self.config.d_model)
        logits = logits + self._argument_bias(kind, row, encoded.columns, elements.shape[1], batch)
        full = logits.new_full((logits.shape[0], self.config.n_args), NEG).index_copy(1, encoded.columns, logits)
        allowed = batch["mask_argument"].gather(1, kind.view(-1, 1, 1).expand(-1, 1, full.shape[1])).squeeze(1)
        return _masked(full, allowed)

    def _argument_bias(self, kind: Tensor, row: Tensor, columns: Tensor, rows: int,
                       batch: dict[str, Tensor]) -> Tensor:
        """Direct evidence per argument of ``columns``: its match features, a page string's row match
        features, and how many of the goal words just before a task string the chosen element's text has."""
        page_at = int((columns < self.config.page_start).sum())
        bias = torch.einsum("bm,bam->ba", self.arg_bias(kind), batch["arg_match"].index_select(1, columns).float())
        page = torch.einsum("bm,bem->be", self.page_bias(kind), batch["el_match"][:, :rows].float())
        names = batch["el_tokens"]
        label = names.gather(1, row.view(-1, 1, 1).expand(-1, 1, names.shape[-1])).squeeze(1)  # (B, L)
        context = batch["arg_context"].index_select(1, columns)  # (B, A', C)
        hits = ((context.unsqueeze(-1) == label[:, None, None, :]) & (context > 0).unsqueeze(-1)).any(-1)
        width = context.shape[-1]  # with page_context the nearest word weighs most: "from Barcelona to Madrid"
        near = (torch.arange(1, width + 1) if self.page_context_bias is not None else torch.ones(width)).to(
            device=context.device, dtype=torch.float32)
        shared = (hits.float() * near).sum(-1) / ((context > 0).float() * near).sum(-1).clamp(min=1.0)
        bias = bias + self.context_bias(kind) * shared
        if self.count_bias is not None:
            bias = bias + torch.einsum("bm,bam->ba", self.count_bias(kind),
                                       batch["arg_count"].index_select(1, columns).float())
        if self.page_context_bias is not None:  # an option row that is a slot value: that value's goal context
            start = self.config.task_start
            slot = batch["el_slot"][:, :rows].long()
            names_value = (slot >= start) & (slot < page_at)
            page_shared = shared.gather(1, slot.clamp(start, page_at - 1)) * names_value.to(shared.dtype)
            page = page + self.page_context_bias(kind) * page_shared
        return torch.cat([bias[:, :page_at], bias[:, page_at:page_at + rows] + page, bias[:, page_at + rows:]], 1)

    def forward(self, batch: dict[str, Tensor], action: Tensor | None = None, *,
                greedy: bool = False) -> dict[str, Tensor]:
        """Act (``action=None``: sample, or argmax with ``greedy``) or score a given action.

        Returns:
            ``action`` (B, 3), ``log_prob`` (B,), ``entropy`` (B,), ``value`` (B,), and the
            per-head logits ``type_logits``, ``element_logits``, ``argument_logits``.
        """
        encoded = self.encode(batch, action)
        summary = encoded.summary
        all_elements = self.all_element_logits(summary, encoded.elements, batch)
        type_logits = self.type_logits(summary, all_elements, batch)
        type_dist = torch.distributions.Categorical(logits=type_logits, validate_args=False)
        kind = _choose(type_dist, None if action is None else action[:, 0], greedy)
        uses_el = USES_ELEMENT.to(kind.device)[kind]
        uses_arg = USES_ARGUMENT.to(kind.device)[kind]
        el_logits = self.element_logits(all_elements, kind)
        el_dist = torch.distributions.Categorical(logits=el_logits, validate_args=False)
        row = _choose(el_dist, None if action is None else action[:, 1], greedy)
        row = torch.where(uses_el, row, torch.zeros_like(row))
        arg_logits = self.argument_logits(encoded, kind, row, batch)
        arg_dist = torch.distributions.Categorical(logits=arg_logits, validate_args=False)
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
    """A numpy feature batch (as :func:`~veriweb.agents.features.featurize` makes them, or packed as
    demonstrations are held: :func:`~veriweb.agents.features.unpack`) as tensors (copies only of
    read-only or non-contiguous arrays)."""
    return {key: torch.from_numpy(value if value.flags.writeable and value.flags.c_contiguous else np.array(value))
            for key, value in unpack(batch).items()}


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
    policy = Policy(PolicyConfig(**{"memory": False, "page_context": False, **data["config"]}))  # older: neither
    policy.load_state_dict(data["state_dict"])
    policy.eval()
    return policy, dict(data.get("meta") or {})

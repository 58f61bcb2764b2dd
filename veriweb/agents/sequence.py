"""Packed token sequences for the policy's encoder: one embedding-bag lookup, flat tokens, length-bucketed attention.

A batch's samples hold very different numbers of tokens (a login page and its goal: 45; a long
table with a long instruction: 220), so padding every sample to the longest one wastes a third
of the per-token work and over half of the attention's. Here the tokens of a batch are one flat
(N, d) array: layer norms, projections and the feed-forward run on real tokens only, and only
attention sees a padded layout, in blocks of samples of similar length (:class:`Layout`), each
block padded to its own longest sample. Padded keys are masked out, so every sample's result is
what it would be alone.

:class:`Bags` mean-pools many token-id arrays (element names, values, task strings, memory, the
address, the goal's single tokens) in one ``F.embedding_bag`` call over their non-pad ids only,
so the embedding table's gradient is built once per batch instead of once per array.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor, nn

BLOCK = 8
"""Samples per attention block (sorted by length; each block is padded to its longest sample)."""


class Bags:
    """Collect token-id arrays, mean-pool them all in one lookup.

    Each array's last axis is a bag of ids; id 0 is padding and left out (an all-padding bag
    pools to zeros), exactly as a masked mean over the embeddings would.
    """

    def __init__(self) -> None:
        self._ids: list[Tensor] = []
        self._counts: list[Tensor] = []
        self._shapes: list[tuple[int, ...]] = []

    def add(self, ids: Tensor) -> int:
        """Queue ``ids`` (..., n); returns the handle whose pools :meth:`run` returns at that index."""
        flat = ids.reshape(-1, ids.shape[-1]) if ids.dim() else ids.reshape(1, 1)
        keep = flat > 0
        self._ids.append(flat[keep])
        self._counts.append(keep.sum(1))
        self._shapes.append(tuple(ids.shape[:-1]))
        return len(self._shapes) - 1

    def run(self, weight: Tensor) -> list[Tensor]:
        """The mean embeddings (..., d) of every queued array, in the order added."""
        ids = torch.cat(self._ids).long()
        counts = torch.cat(self._counts)
        offsets = torch.cumsum(counts, 0) - counts
        pooled = F.embedding_bag(ids, weight, offsets, mode="mean")
        sizes = [int(torch.Size(shape).numel()) for shape in self._shapes]
        return [part.reshape(*shape, weight.shape[1]) for part, shape in zip(pooled.split(sizes), self._shapes)]


def ranks(keep: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """The kept items of a (B, n) mask: their sample, their column, and their rank among their sample's kept items."""
    sample, column = keep.nonzero(as_tuple=True)
    rank = (torch.cumsum(keep.long(), 1) - 1)[sample, column]
    return sample, column, rank


@dataclass
class Layout:
    """Where each flat token goes in the padded attention blocks, and back.

    Attributes:
        gather: (M,) the flat token at each slot of the blocks laid end to end (padding slots
            repeat token 0; they are masked as keys and dropped as queries).
        back: (N,) each flat token's slot in that buffer.
        blocks: (samples, length) per block.
        masks: per block, the (samples, 1, 1, length) key mask, or None when no slot is padding.
    """

    gather: Tensor
    back: Tensor
    blocks: list[tuple[int, int]]
    masks: list[Tensor | None]

    @classmethod
    def build(cls, sample: Tensor, position: Tensor, lengths: Tensor, block: int = BLOCK) -> Layout:
        """The layout of N flat tokens, token ``i`` being at ``position[i]`` of sample ``sample[i]``.

        Args:
            sample: (N,) each token's sample.
            position: (N,) its place in its sample's sequence (0 .. length - 1, each once).
            lengths: (B,) tokens per sample (at least one each).
            block: samples per block.
        """
        n, batch = sample.shape[0], lengths.shape[0]
        order = torch.argsort(lengths, descending=True, stable=True)
        longest = int(lengths.max())
        grid = torch.full((batch, longest), n, dtype=torch.long, device=sample.device)
        grid[sample, position] = torch.arange(n, device=sample.device)
        grid = grid[order]
        sorted_lengths = lengths[order].tolist()
        pieces, blocks, masks = [], [], []
        for start in range(0, batch, block):
            stop = min(start + block, batch)
            length = int(sorted_lengths[start])
            piece = grid[start:stop, :length]
            pieces.append(piece.reshape(-1))
            blocks.append((stop - start, length))
            real = piece < n
            masks.append(None if sorted_lengths[stop - 1] == length else real[:, None, None, :])
        slots = torch.cat(pieces)
        real = slots < n
        back = torch.empty(n, dtype=torch.long, device=sample.device)
        back[slots[real]] = real.nonzero().squeeze(1)
        return cls(slots.masked_fill(~real, 0), back, blocks, masks)


def encoder_layer(layer: nn.TransformerEncoderLayer, x: Tensor, layout: Layout) -> Tensor:
    """One pre-norm ``nn.TransformerEncoderLayer`` over flat tokens (N, d), with its own weights.

    The same computation as the layer's ``forward`` on the padded batch with a key padding mask
    (``norm_first=True``): x + attention(norm1(x)), then x + feed-forward(norm2(x)), dropout
    where the layer has it.
    """
    if not layer.norm_first:
        raise ValueError("encoder_layer computes pre-norm layers (norm_first=True) only")
    attn = layer.self_attn
    d, heads = x.shape[1], attn.num_heads
    training = layer.training
    qkv = F.linear(layer.norm1(x), attn.in_proj_weight, attn.in_proj_bias).index_select(0, layout.gather)
    outs = []
    for (samples, length), mask, part in zip(layout.blocks, layout.masks,
                                             qkv.split([s * n for s, n in layout.blocks])):
        q, k, v = part.view(samples, length, 3, heads, d // heads).permute(2, 0, 3, 1, 4).unbind(0)
        o = F.scaled_dot_product_attention(q, k, v, attn_mask=mask,
                                           dropout_p=attn.dropout if training else 0.0)
        outs.append(o.transpose(1, 2).reshape(samples * length, d))
    mixed = torch.cat(outs).index_select(0, layout.back)
    x = x + layer.dropout1(F.linear(mixed, attn.out_proj.weight, attn.out_proj.bias))
    return x + layer.dropout2(layer.linear2(layer.dropout(layer.activation(layer.linear1(layer.norm2(x))))))

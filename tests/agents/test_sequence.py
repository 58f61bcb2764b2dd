"""The policy's packed encoder: flat tokens and blocked attention give what the padded computation gives."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
torch.set_num_threads(1)  # more threads spin against other jobs on a shared two-core machine

from torch import nn  # noqa: E402

from veriweb.agents.policy import _group_means  # noqa: E402
from veriweb.agents.sequence import Bags, Layout, encoder_layer, ranks  # noqa: E402


def _padded_batch(lengths: list[int], d: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(len(lengths), max(lengths), d, generator=generator)
    keep = torch.arange(max(lengths)).unsqueeze(0) < torch.tensor(lengths).unsqueeze(1)
    return x, keep


@pytest.mark.parametrize("block", [1, 3, 8])
def test_flat_layers_match_the_padded_transformer_with_gradients(block: int) -> None:
    torch.manual_seed(0)
    d, lengths = 32, [7, 1, 12, 12, 3, 9, 5]
    layer = nn.TransformerEncoderLayer(d, 4, 64, 0.0, batch_first=True, norm_first=True)
    encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False).train()
    x, keep = _padded_batch(lengths, d, seed=1)
    padded_in = x.clone().requires_grad_(True)
    expected = encoder(padded_in, src_key_padding_mask=~keep)[keep]
    sample, column, rank = ranks(keep)
    assert torch.equal(rank, column)
    flat_in = x[keep].clone().requires_grad_(True)
    layout = Layout.build(sample, rank, keep.sum(1), block=block)
    assert len(layout.blocks) == -(-len(lengths) // block)
    hidden = flat_in
    for each in encoder.layers:
        hidden = encoder_layer(each, hidden, layout)
    assert torch.allclose(hidden, expected, atol=1e-5)
    weights = torch.randn(hidden.shape, generator=torch.Generator().manual_seed(2))
    (expected * weights).sum().backward()
    grads_padded = [p.grad.clone() for p in encoder.parameters()]
    encoder.zero_grad()
    (hidden * weights).sum().backward()
    for p, g in zip(encoder.parameters(), grads_padded):
        assert torch.allclose(p.grad, g, atol=1e-4)
    assert torch.allclose(flat_in.grad, padded_in.grad[keep], atol=1e-5)


def test_layout_sends_every_token_to_one_slot_and_back() -> None:
    lengths = torch.tensor([3, 5, 1, 5, 2])
    keep = torch.arange(5).unsqueeze(0) < lengths.unsqueeze(1)
    sample, _, rank = ranks(keep)
    layout = Layout.build(sample, rank, lengths, block=2)
    assert [n for _, n in layout.blocks] == [5, 3, 1]  # sorted longest first, each block as long as its longest
    assert torch.equal(layout.gather[layout.back], torch.arange(len(sample)))
    assert layout.masks[0] is None and layout.masks[1] is not None


def test_bags_are_masked_means_over_non_pad_ids() -> None:
    table = torch.randn(50, 6)
    table[0] = 3.0  # a pad row that is not zero must still be left out
    rng = np.random.default_rng(0)
    a = torch.from_numpy(rng.integers(0, 50, (4, 5, 7)) * (rng.random((4, 5, 7)) > 0.4))
    b = torch.from_numpy(rng.integers(0, 50, (3, 2)))
    a[0, 0] = 0  # an empty bag pools to zeros
    bags = Bags()
    ha, hb = bags.add(a), bags.add(b)
    pools = bags.run(table)
    for ids, got in ((a, pools[ha]), (b, pools[hb])):
        present = (ids > 0).unsqueeze(-1).float()
        want = (table[ids] * present).sum(-2) / present.sum(-2).clamp(min=1.0)
        assert got.shape == want.shape
        assert torch.allclose(got, want, atol=1e-6)
    assert torch.equal(pools[ha][0, 0], torch.zeros(6))


def test_group_means_match_the_same_group_average() -> None:
    torch.manual_seed(0)
    names = torch.randn(3, 6, 4)
    group = torch.tensor([[0, 0, 2, 2, 2, -1], [-1, -1, -1, -1, -1, -1], [5, 1, 1, 5, 9, 1]])
    same = ((group.unsqueeze(2) == group.unsqueeze(1)) & (group >= 0).unsqueeze(2)).float()
    want = same @ names / same.sum(-1, keepdim=True).clamp(min=1.0)
    sample, row = torch.ones(3, 6, dtype=torch.bool).nonzero(as_tuple=True)
    got = _group_means(names, group, sample, row, n_groups=10)
    assert torch.allclose(got, want.reshape(-1, 4), atol=1e-6)

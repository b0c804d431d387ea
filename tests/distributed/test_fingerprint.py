"""The input checksum the ranks compare before taking their parts of their own arrays (dist/collectives.py): equal
for equal bytes, different for a changed element, a reordering, a changed tail byte or another length."""

from __future__ import annotations

import torch

from flowtorch._src.dist.collectives import fingerprint


def test_equal_bytes_give_equal_checksums_and_any_change_another():
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(32, 13, generator=gen)
    labels = torch.randint(0, 10, (32,), dtype=torch.int32, generator=gen)
    base = fingerprint([x, labels])
    assert fingerprint([x.clone(), labels.clone()]) == base
    nudged = x.clone()
    nudged[17, 5] = torch.nextafter(nudged[17, 5], torch.tensor(float("inf")))  # one ulp of one element
    assert fingerprint([nudged, labels]) != base
    assert fingerprint([x[torch.randperm(32, generator=gen)], labels]) != base  # the batch reordered
    assert fingerprint([x, labels.roll(1)]) != base
    assert fingerprint([labels, x]) != base  # the inputs' order counts
    odd = torch.arange(11, dtype=torch.uint8)  # 11 bytes: one 64-bit word and a 3-byte tail
    tail = odd.clone()
    tail[-1] += 1
    assert fingerprint([odd]) != fingerprint([tail])
    assert fingerprint([odd[:10]]) != fingerprint([odd])
    assert 0 <= base < 1 << 62


def test_a_view_is_checksummed_by_its_values():
    x = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    assert fingerprint([x.t()]) == fingerprint([x.t().contiguous()])
    assert fingerprint([x.t()]) != fingerprint([x])

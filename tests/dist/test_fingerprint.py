"""The input checksum the ranks compare before taking their parts of their own arrays (dist/collectives.py): equal
for equal bytes, different for a changed element (its sign included), a reordering, a changed tail byte or another
length."""

from __future__ import annotations

import pytest
import torch

from flowtorch._src.dist.collectives import _device_sum, fingerprint


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
    assert 0 <= base < 1 << 61
    signed = x.clone()
    signed[3, 2] = -signed[3, 2]  # (element 41) a sign bit: the top bit of a 64-bit word
    assert fingerprint([signed, labels]) != base


def test_a_view_is_checksummed_by_its_values():
    x = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    assert fingerprint([x.t()]) == fingerprint([x.t().contiguous()])
    assert fingerprint([x.t()]) != fingerprint([x])


def test_large_inputs_see_swaps_far_apart_and_top_bit_changes():
    # 5000 x 8 float32 = 20000 words of 64 bits
    x = torch.randn(5000, 8, generator=torch.Generator().manual_seed(1))
    base = fingerprint([x])
    words = x.reshape(-1).view(torch.int64)  # a view: edits below change x's bytes word by word
    for a, b in ((3, 4096 + 3), (100, 19_999), (0, 1)):  # far apart, first and last, neighbours
        swapped = x.clone()
        w = swapped.reshape(-1).view(torch.int64)
        w[a], w[b] = words[b].clone(), words[a].clone()
        assert fingerprint([swapped]) != base, (a, b)
    flipped = x.clone()
    flipped.reshape(-1).view(torch.int64)[12_345] ^= 1 << 63  # the top bit of one word (a float's sign)
    assert fingerprint([flipped]) != base
    assert fingerprint([x[torch.arange(4999, -1, -1)]]) != base  # the rows reversed
    assert fingerprint([x.clone()]) == base


def test_a_type_numpy_lacks_is_checksummed_by_its_bytes():
    x = torch.linspace(-3, 3, 15).reshape(5, 3).to(torch.bfloat16)
    changed = x.clone()
    changed[2, 1] = -changed[2, 1]
    assert fingerprint([x]) == fingerprint([x.clone()])
    assert fingerprint([changed]) != fingerprint([x])
    assert fingerprint([x.t()]) == fingerprint([x.t().contiguous()])


def test_the_device_sum_sees_swaps_at_any_distance():
    # The sum a GPU input's checksum uses, run here on CPU: its weights do not repeat (they once did every 65,521
    # words, so that swapping two words exactly that far apart went unseen).
    words = torch.arange(70_000, dtype=torch.int32)
    base = _device_sum(words)
    assert _device_sum(words.clone()) == base
    for distance in (1, 4096, 65_521, 65_536):
        swapped = words.clone()
        swapped[[10, 10 + distance]] = swapped[[10 + distance, 10]]
        assert _device_sum(swapped) != base, distance
    odd = torch.arange(11, dtype=torch.uint8)  # not a whole number of 32-bit words: summed by bytes
    assert _device_sum(odd) != _device_sum(odd.flip(0))


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_a_gpu_input_is_checksummed_where_it_lives_as_on_the_cpu():
    # nccl ranks checksum their inputs on the GPU: the int64 products and their sum wrap mod 2**64 there as here,
    # so the device sum of a GPU tensor equals the same sum on the CPU, word for word and byte for byte.
    words = torch.randint(-2**31, 2**31 - 1, (70_001,), dtype=torch.int32)
    for t in (words, words.view(torch.float32), words.view(torch.uint8)[:-1]):
        assert _device_sum(t.cuda()) == _device_sum(t)
    x = words.view(torch.float32)[:64].reshape(8, 8).cuda()
    changed = x.clone()
    changed[3, 5] = -changed[3, 5]
    assert fingerprint([x]) == fingerprint([x.clone()])
    assert fingerprint([changed]) != fingerprint([x])
    assert fingerprint([x.t()]) == fingerprint([x.t().contiguous()])

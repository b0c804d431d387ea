"""A rank's part of a whole tensor (dist/collectives.py ``local_part``): torch.chunk's parts, along any axis,
the last one shorter when the length does not divide, and a view of the whole (no copy)."""

from __future__ import annotations

import pytest
import torch

from flowtorch._src.dist.collectives import local_part


@pytest.mark.parametrize("length", [4, 7, 9, 12])
@pytest.mark.parametrize("parts", [1, 2, 3, 4])
@pytest.mark.parametrize("axis", [0, 1])
def test_parts_are_torch_chunks(length, parts, axis):
    whole = torch.arange(3 * length).reshape(length, 3)
    whole = whole if axis == 0 else whole.t().contiguous()
    expected = torch.chunk(whole, parts, dim=axis)
    for index, chunk in enumerate(expected):
        part = local_part(whole, axis, parts, index)
        assert torch.equal(part, chunk)
        assert part.data_ptr() == chunk.data_ptr()  # a view of the whole

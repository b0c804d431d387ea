"""Names OneFlow exported whose ops mean nothing on PyTorch: each exists and raises a NotImplementedError saying
why and what to use."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from flowtorch._src.capture.blob import Blob

__all__ = ["dynamic_binary_concat", "dynamic_binary_split"]


_BINARY = ("flow.experimental.{}: OneFlow's dynamic_binary_{} ops cut a dynamic blob's raw bytes, its shape "
           "header included, into pieces for OneFlow's boxing between devices and glued them back; a PyTorch "
           "tensor has no such header and flowtorch moves tensors between devices with torch.distributed")


def dynamic_binary_split(x: Blob, base_shift: int = 2, out_num: int = 2, name: str | None = None) -> Any:
    """``flow.experimental.dynamic_binary_split`` (v0.3.4): refused."""
    raise NotImplementedError(_BINARY.format("dynamic_binary_split", "split"))


def dynamic_binary_concat(input_blob_list: Sequence[Blob], source_blob: Blob | None = None, source_sbp: str = "S:0",
                          name: str | None = None) -> Any:
    """``flow.experimental.dynamic_binary_concat`` (v0.3.4): refused."""
    raise NotImplementedError(_BINARY.format("dynamic_binary_concat", "concat"))

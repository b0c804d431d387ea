"""The lazy blob a job body works with: a ``torch.fx`` node plus what OneFlow knows at build time.

A blob has a static shape and dtype (computed on meta tensors when the op is recorded) and OneFlow's
logical blob name ``op_name/blob_name``. Its arithmetic operators record ops with OneFlow's names
(``AddN``, ``ScalarAdd``, ``broadcast_add`` …, spec §4).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch
import torch.fx

from flowtorch._src import dtypes

if TYPE_CHECKING:
    from flowtorch._src.job.builder import JobBuilder


class Blob:
    """A lazy (remote) blob: ``.shape``, ``.dtype`` and names are known at build; values only at run."""

    __slots__ = ("node", "meta", "op_name", "blob_name", "batch_axis", "is_dynamic", "builder", "is_variable",
                 "location")

    def __init__(self, builder: JobBuilder, node: torch.fx.Node, meta: torch.Tensor, op_name: str,
                 blob_name: str, *, batch_axis: int | None = None, is_dynamic: bool = False,
                 is_variable: bool = False, location: str = "") -> None:
        self.builder = builder
        self.node = node
        self.meta = meta
        self.op_name = op_name
        self.blob_name = blob_name
        self.batch_axis = batch_axis if batch_axis is not None or meta.dim() == 0 else 0
        self.is_dynamic = is_dynamic
        self.is_variable = is_variable
        self.location = location

    # --- OneFlow's build-time attributes -------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.meta.shape)

    @property
    def dtype(self) -> dtypes.DType:
        return dtypes.from_torch(self.meta.dtype)

    @property
    def logical_blob_name(self) -> str:
        return f"{self.op_name}/{self.blob_name}"

    @property
    def unique_name(self) -> str:
        return self.logical_blob_name

    @property
    def lbn(self) -> str:
        return self.logical_blob_name

    @property
    def ndim(self) -> int:
        return self.meta.dim()

    @property
    def is_tensor_list(self) -> bool:
        return False

    @property
    def is_tensor_buffer(self) -> bool:
        """True for a data op's per-sample, variable-shaped values (OneFlow's TensorBuffer/OFRecord blobs)."""
        return False

    def __repr__(self) -> str:
        return (f"LazyBlob(lbn={self.logical_blob_name!r}, shape={self.shape}, dtype={self.dtype}, "
                f"is_dynamic={self.is_dynamic})")

    def __bool__(self) -> bool:
        raise TypeError(
            f"blob {self.logical_blob_name} has no value while the job is built; "
            "a job body cannot branch on blob values")

    # --- operators ------------------------------------------------------------------------------
    def __add__(self, other: Any) -> Blob:
        from flowtorch._src.ops import math_ops
        return math_ops.add(self, other)

    def __radd__(self, other: Any) -> Blob:
        from flowtorch._src.ops import math_ops
        return math_ops.add(other, self)

    def __sub__(self, other: Any) -> Blob:
        from flowtorch._src.ops import math_ops
        return math_ops.subtract(self, other)

    def __rsub__(self, other: Any) -> Blob:
        from flowtorch._src.ops import math_ops
        return math_ops.subtract(other, self)

    def __mul__(self, other: Any) -> Blob:
        from flowtorch._src.ops import math_ops
        return math_ops.multiply(self, other)

    def __rmul__(self, other: Any) -> Blob:
        from flowtorch._src.ops import math_ops
        return math_ops.multiply(other, self)

    def __truediv__(self, other: Any) -> Blob:
        from flowtorch._src.ops import math_ops
        return math_ops.divide(self, other)

    def __rtruediv__(self, other: Any) -> Blob:
        from flowtorch._src.ops import math_ops
        return math_ops.divide(other, self)

    def __eq__(self, other: Any) -> Blob:  # type: ignore[override]
        from flowtorch._src.ops import math_ops
        return math_ops.equal(self, other)

    def __ne__(self, other: Any) -> Blob:  # type: ignore[override]
        from flowtorch._src.ops import math_ops
        return math_ops.not_equal(self, other)

    def __lt__(self, other: Any) -> Blob:
        from flowtorch._src.ops import math_ops
        return math_ops.less(self, other)

    def __le__(self, other: Any) -> Blob:
        from flowtorch._src.ops import math_ops
        return math_ops.less_equal(self, other)

    def __gt__(self, other: Any) -> Blob:
        from flowtorch._src.ops import math_ops
        return math_ops.greater(self, other)

    def __ge__(self, other: Any) -> Blob:
        from flowtorch._src.ops import math_ops
        return math_ops.greater_equal(self, other)

    __hash__ = object.__hash__

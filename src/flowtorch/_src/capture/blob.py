"""The lazy blob a job body works with: a ``torch.fx`` node plus what OneFlow knows at build time.

A blob has a static shape and dtype (computed on meta tensors when the op is recorded) and OneFlow's
logical blob name ``op_name/blob_name``. Its arithmetic operators record ops with OneFlow's names
(``AddN``, ``ScalarAdd``, ``broadcast_add`` …, spec §4).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, Protocol

import torch
import torch.fx

from flowtorch._src import dtypes, placement

if TYPE_CHECKING:
    from flowtorch._src.capture.builder import JobBuilder


class Blob:
    """A lazy (remote) blob: ``.shape``, ``.dtype`` and names are known at build; values only at run."""

    __slots__ = ("node", "meta", "op_name", "blob_name", "batch_axis", "is_dynamic", "builder", "is_variable",
                 "location", "device_tag", "tensor_list", "device_ids", "distribution", "time_shape")

    def __init__(self, builder: JobBuilder, node: torch.fx.Node, meta: torch.Tensor, op_name: str,
                 blob_name: str, *, batch_axis: int | None = None, is_dynamic: bool = False,
                 is_variable: bool = False, location: str = "") -> None:
        self.builder = builder
        self.node = node
        self.meta = meta
        self.op_name = op_name
        self.blob_name = blob_name
        # OneFlow's batch axis: the inputs' own (None: none), an op's by its rule (ops/batch_axes.py)
        self.batch_axis = fit_axis(batch_axis, meta.dim())
        self.is_dynamic = is_dynamic
        self.is_variable = is_variable
        self.location = location
        self.device_tag = _default_tag()  # the placement scope's device when the op was recorded
        self.device_ids = placement.scope_ids()  # its machine:device ids; None outside any placement scope
        self.distribution = _AUTO  # what with_distribute asked of this blob object (OneFlow's distribute)
        # OneFlow's time dims past the job's own: (n,) after flow.unpack/repeat(…, n); the blob's tensor then
        # carries the step's prod(time_shape) pieces along a leading axis (ops/time_shape.py)
        self.time_shape: tuple[int, ...] = ()
        self.tensor_list = False  # a tp.ListListNumpy input: its value is a TensorList, not a tensor

    # --- OneFlow's build-time attributes -------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.meta.shape)

    @property
    def static_shape(self) -> tuple[int, ...]:
        """The shape of the master of January 2020 (``remote_blob.py``: ``shape`` returned ``static_shape``, the
        job's inferred static shape; a dynamic blob's upper bound)."""
        return self.shape

    @property
    def dtype(self) -> dtypes.DType:
        return dtypes.from_torch(self.meta.dtype)

    @property
    def logical_blob_name(self) -> str:
        return f"{self.op_name}/{self.blob_name}"

    @property
    def unique_name(self) -> str:
        """The lbn with its distribute hint, as OneFlow's ``BlobDesc::unique_name``: ``"op/out:S0"``,
        ``"op/out:B"``, or the lbn alone for ``auto()``."""
        hint = self.distribution.sbp
        return self.logical_blob_name + ("" if hint is None else ":" + hint.replace("(", "").replace(")", ""))

    @property
    def lbn(self) -> str:
        return self.logical_blob_name

    @property
    def ndim(self) -> int:
        return self.meta.dim()

    @property
    def is_tensor_list(self) -> bool:
        return self.tensor_list

    @property
    def is_tensor_buffer(self) -> bool:
        """True for a data op's per-sample, variable-shaped values (OneFlow's TensorBuffer/OFRecord blobs)."""
        return False

    # --- placement and distribution: what OneFlow's job build and inference reported ----------------------
    # The step layer, which plans where a job's blobs live, answers these (set_view_source, step/distributed.py):
    # on one device every blob lies whole on it, split along axis 0 (OneFlow's InferSbpSignatureIf).
    @property
    def parallel_conf(self) -> ParallelConf:
        """OneFlow's ``ParallelConf`` of the blob from its producer's view: the device tag and the
        ``machine:device`` ids of the placement its op was built in (the devices the program asked for
        outside any placement scope: ``"0:0-3"`` after ``config.gpu_device_num(4)``)."""
        ids = _VIEW_SOURCE[0].device_ids(self) if _VIEW_SOURCE else (self.device_ids or ("0:0",))
        return ParallelConf(self.device_tag, ids)

    @property
    def parallel_size(self) -> int:
        """How many devices ``parallel_conf`` names."""
        return placement.count_devices(self.parallel_conf.device_name())

    @property
    def distribute(self) -> placement.Distribute:
        """The distribute hint of this blob object: ``auto()`` unless it came from ``with_distribute``
        (``blob_desc.py``: a new blob object of the same lbn carries the hint; the original keeps ``auto()``)."""
        return self.distribution

    @property
    def split_axis(self) -> int | None:
        """The axis the blob's parts are split along over the job's devices, as OneFlow reported it from the
        producing op's view (``GetSplitAxisFromProducerView``); :data:`INVALID_SPLIT_AXIS` (None) when every
        device holds it whole or a partial sum."""
        return _VIEW_SOURCE[0].split_axis(self) if _VIEW_SOURCE else 0

    @property
    def disable_boxing(self) -> bool:
        """OneFlow's ``disable_boxing`` of the blob: True for a mirrored view's blob (each device keeps its own
        part, ``remote_blob.py``'s ``MirroredBlob``), False for a consistent one (no op here sets the hint)."""
        return _VIEW_SOURCE[0].mirrored(self) if _VIEW_SOURCE else False

    def with_distribute(self, distribute: Any) -> Blob:
        """``blob.with_distribute(flow.distribute.split(0))``: a blob object of the same lbn that carries the
        hint (``distribute``, ``unique_name`` ``"…/out:S0"``); ``self`` keeps its own, as OneFlow's
        ``with_distribute`` made a new blob object. Where values go is the step layer's plan."""
        if not isinstance(distribute, placement.Distribute):
            raise TypeError(f"{self.logical_blob_name}.with_distribute: expected flow.distribute.split(axis), "
                            f"broadcast() or auto(); received {distribute!r}")
        if distribute == self.distribution:
            return self
        copy = self._same_lbn()
        copy.distribution = distribute
        return copy

    def with_split_distribute(self, axis: int) -> Blob:
        return self.with_distribute(placement.split(axis))

    def with_broadcast_distribute(self) -> Blob:
        return self.with_distribute(placement.broadcast())

    def with_gradient_distribute(self, distribute: Any) -> Blob:
        return self.with_distribute(distribute)

    def _same_lbn(self) -> Blob:
        """A new blob object with this one's attributes (each class's own slots, read past any property)."""
        new = object.__new__(type(self))
        for cls in type(self).__mro__:
            for name in cls.__dict__.get("__slots__", ()):
                slot = cls.__dict__[name]
                try:
                    slot.__set__(new, slot.__get__(self, cls))
                except AttributeError:  # a slot not set on self
                    continue
        return new

    def __repr__(self) -> str:
        return (f"LazyBlob(lbn={self.logical_blob_name!r}, shape={self.shape}, dtype={self.dtype}, "
                f"is_dynamic={self.is_dynamic})")

    def __bool__(self) -> bool:
        # OneFlow's blobs defined no __bool__, so ``if blob:`` was always true (programs test ``if logits:``
        # for "was it built"); a blob has no value while the body runs, so nothing else could be meant.
        return True

    # --- operators: the ops layer installs their kernels (math_ops: set_operators) -----------------
    def __add__(self, other: Any) -> Blob:
        return _operator("add")(self, other)

    def __radd__(self, other: Any) -> Blob:
        return _operator("add")(other, self)

    def __sub__(self, other: Any) -> Blob:
        return _operator("subtract")(self, other)

    def __rsub__(self, other: Any) -> Blob:
        return _operator("subtract")(other, self)

    def __mul__(self, other: Any) -> Blob:
        return _operator("multiply")(self, other)

    def __rmul__(self, other: Any) -> Blob:
        return _operator("multiply")(other, self)

    def __truediv__(self, other: Any) -> Blob:
        return _operator("divide")(self, other)

    def __rtruediv__(self, other: Any) -> Blob:
        return _operator("divide")(other, self)

    def __mod__(self, other: Any) -> Blob:
        return _operator("mod")(self, other)

    def __rmod__(self, other: Any) -> Blob:
        return _operator("mod")(other, self)

    def __eq__(self, other: Any) -> Blob:  # type: ignore[override]
        return _operator("equal")(self, other)

    def __ne__(self, other: Any) -> Blob:  # type: ignore[override]
        return _operator("not_equal")(self, other)

    def __lt__(self, other: Any) -> Blob:
        return _operator("less")(self, other)

    def __le__(self, other: Any) -> Blob:
        return _operator("less_equal")(self, other)

    def __gt__(self, other: Any) -> Blob:
        return _operator("greater")(self, other)

    def __ge__(self, other: Any) -> Blob:
        return _operator("greater_equal")(self, other)

    __hash__ = object.__hash__


_AUTO: Final = placement.auto()  # (a frozen dataclass: one object serves every blob)

# what blob.parallel_conf gives: device_tag() and device_name, as v0.1.2's field and v0.3.4's method at once
ParallelConf = placement.ParallelConf


def _default_tag() -> str:
    return placement.current_scope().device_parallel_desc_symbol.device_tag


INVALID_BATCH_AXIS: Final = None
"""A blob without a batch axis has ``batch_axis`` None: v0.1.2 gave None, v0.3.4 ``oneflow_api``'s
INVALID_BATCH_AXIS (-22). flowtorch's constant is None, so both ``blob.batch_axis is None`` and
``blob.batch_axis == flow.INVALID_BATCH_AXIS`` hold, as each version's programs test it."""
INVALID_SPLIT_AXIS: Final = None
"""A blob that is not split (whole on every device, or a partial sum) has ``split_axis`` None (v0.1.2's
value; v0.3.4's INVALID_SPLIT_AXIS was -22), for the same reason."""


def fit_axis(axis: int | None, ndim: int) -> int | None:
    """``axis`` as an axis of a blob of rank ``ndim`` (a negative one counted from the end), None when the
    blob has no such axis."""
    if axis is None or not -ndim <= axis < ndim:
        return None
    return axis % ndim


class BlobView(Protocol):
    """What the step layer answers about a blob being built: OneFlow's inference of its placement."""

    def split_axis(self, blob: Blob) -> int | None: ...

    def device_ids(self, blob: Blob) -> tuple[str, ...]: ...

    def mirrored(self, blob: Blob) -> bool: ...


_VIEW_SOURCE: list[BlobView] = []


def set_view_source(source: BlobView) -> None:
    """Install what gives ``blob.split_axis``, ``parallel_conf`` and ``disable_boxing`` (the step layer, which
    plans where a job's blobs live)."""
    _VIEW_SOURCE[:] = [source]


BinaryOp = Callable[[Any, Any], Blob]
_OPERATORS: dict[str, BinaryOp] = {}
OPERATOR_NAMES = ("add", "subtract", "multiply", "divide", "mod", "equal", "not_equal", "less", "less_equal",
                  "greater", "greater_equal")


def set_operators(ops: dict[str, BinaryOp]) -> None:
    """Install the kernels behind a blob's ``+ - * / % == != < <= > >=`` (the ops layer calls this once)."""
    missing = set(OPERATOR_NAMES) - set(ops)
    if missing:
        raise ValueError(f"set_operators: no kernel for {', '.join(sorted(missing))}")
    _OPERATORS.update(ops)


def _operator(name: str) -> BinaryOp:
    try:
        return _OPERATORS[name]
    except KeyError:
        raise RuntimeError(f"blob operator {name!r} is not installed: import flowtorch (its ops layer installs "
                           "the blob operators)") from None

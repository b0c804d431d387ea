"""The test ops OneFlow registers for its own op tests (v0.3.4 ``user/ops/test_ops.cpp``, kernels in
``user/kernels/test_kernels.cpp``), reached through ``flow.user_op_builder``.

Where OneFlow's kernel leaves an output unwritten (``TestDataTypeAttr``,
``TestListDataTypeAndListShapeAndListStringAttr``, ``test_user_op_attr_auto_type``, the GPU
``TestSource``), flowtorch writes zeros (``arange`` for ``TestSource``), so results are repeatable.
"""

from __future__ import annotations

import itertools
import weakref
from typing import Any

import numpy as np
import torch

from flowtorch._src import placement
from flowtorch._src.ops._checks import Desc
from flowtorch._src.ops.op_registry import Arg, AttrSpec, invalid, register


def _blob_desc(b: Any) -> Desc:
    return Desc(f"{b.lbn} {b.shape} {b.dtype}")


# --- ccrelu: relu with its own grad op ---------------------------------------------------------------------
def ccrelu_grad_kernel(y: torch.Tensor, dy: torch.Tensor) -> torch.Tensor:
    return torch.where(y > 0, dy, torch.zeros_like(dy))


register("ccrelu", inputs=("in",), outputs=("out",), kernel=torch.relu,
         doc="relu; its gradient (``ccrelu_grad``) passes dy where y > 0, as torch's relu does")
register("ccrelu_grad", inputs=("y", "dy"), outputs=("dx",), kernel=ccrelu_grad_kernel)


# --- reshapes --------------------------------------------------------------------------------------------
def _check_test_reshape(same_rank: bool) -> Any:
    def check(inputs: dict[str, Any], attrs: dict[str, Any], outputs: dict[str, int]) -> None:
        x, shape = inputs["in"][0], attrs["shape"]
        numel = int(np.prod(shape, dtype=np.int64))
        if (same_rank and len(shape) != x.ndim) or numel != x.meta.numel():
            want = f"rank {x.ndim} and {x.meta.numel()} elements" if same_rank else f"{x.meta.numel()} elements"
            raise invalid("attr 'shape'", f"a shape of {want} (input {x.lbn} {x.shape})", shape)
    return check


def test_reshape_kernel(x: torch.Tensor, shape: Any) -> torch.Tensor:
    """``TestReshapeKernel`` copies the input's run-time elements into the front of the (static) output
    buffer: a dynamic input smaller than its static shape leaves the rest unwritten (zeros here)."""
    size = int(np.prod(shape, dtype=np.int64))
    flat = x.reshape(-1)
    if flat.numel() < size:
        flat = torch.cat([flat, flat.new_zeros(size - flat.numel())])
    return flat.reshape(tuple(shape))


register("TestReshape", inputs=("in",), outputs=("out",), attrs=[AttrSpec("shape", "shape")],
         kernel=test_reshape_kernel, check=_check_test_reshape(same_rank=True))
register("TestReshape4KeepHeaderOnly", inputs=("in",), outputs=("out",), attrs=[AttrSpec("shape", "shape")],
         kernel=torch.reshape, check=_check_test_reshape(same_rank=False))


def reshape_like_kernel(x: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    return torch.reshape(x, like.shape)


register("TestReshapeLike4KeepHeaderOnly", inputs=("in", "like"), outputs=("out",), kernel=reshape_like_kernel)


# --- sources ---------------------------------------------------------------------------------------------
def test_source_kernel(device: str) -> torch.Tensor:
    return torch.arange(5, dtype=torch.float32, device=device)


def dynamic_source_kernel(device: str) -> torch.Tensor:
    # static shape (5,), dynamic: the kernel fills 3 elements (``TestDynamicSourceKernel``)
    return torch.arange(3, dtype=torch.float32, device=device)


def dynamic_source_infer(device: str) -> torch.Tensor:
    return torch.empty(5, dtype=torch.float32, device="meta")


register("TestSource", outputs=("out",), kernel=test_source_kernel)
register("TestDynamicSource", outputs=("out",), kernel=dynamic_source_kernel, infer=dynamic_source_infer,
         dynamic=True)


def _balanced(total: int, parts: int) -> list[int]:
    """OneFlow's ``BalancedSplitter``: the first ``total % parts`` parts get one more."""
    base, rest = divmod(total, parts)
    return [base + (1 if i < rest else 0) for i in range(parts)]


def make_fixed_out_num_kernel(out_num: int) -> Any:
    """Each of the placement's devices fills its balanced share of ``out_num`` with 0, 1, …; the logical
    blob is their concatenation (split on axis 0)."""
    sizes = _balanced(out_num, placement.placement_devices())

    def test_source_multi_gpu_fixed_out_num(device: str, out_num: int) -> torch.Tensor:
        return torch.cat([torch.arange(n, dtype=torch.float32, device=device) for n in sizes])
    return test_source_multi_gpu_fixed_out_num


register("TestSourceMultiGpuFixedOutNum", outputs=("out",), attrs=[AttrSpec("out_num", "int64")],
         kernel=make_fixed_out_num_kernel, stateful=True)


# --- TestRandomSource: OneFlow's CPU RandomGenerator (std::mt19937) ----------------------------------------
class _Mt19937Uniform:
    """``std::uniform_real_distribution<float>(0, nextafter(1))`` over ``std::mt19937(seed)``: one 32-bit draw
    per float (``generate_canonical<float, 24>``), the same stream numpy's legacy ``RandomState(seed)``
    draws its raw 32-bit words from."""

    __slots__ = ("__weakref__", "key", "state")

    def __init__(self, seed: int) -> None:
        self.state = np.random.RandomState(seed & 0xFFFF_FFFF)
        self.key = next(_stream_ids)
        _STREAMS[self.key] = self

    def draw(self, n: int) -> np.ndarray:
        words = self.state.randint(0, 2 ** 32, size=n, dtype=np.uint32).astype(np.float32)
        canonical = np.minimum(words / np.float32(2 ** 32), np.nextafter(np.float32(1), np.float32(0)))
        return canonical * np.nextafter(np.float32(1), np.float32(2))


_STREAMS: weakref.WeakValueDictionary[int, _Mt19937Uniform] = weakref.WeakValueDictionary()
_stream_ids = itertools.count()


@torch.library.custom_op("flowtorch::test_random_source", mutates_args=())
def _random_source_op(key: int, n: int, device: torch.device) -> torch.Tensor:
    return torch.from_numpy(_STREAMS[key].draw(n)).to(device)


@_random_source_op.register_fake
def _random_source_fake(key: int, n: int, device: torch.device) -> torch.Tensor:
    return torch.empty(n, dtype=torch.float32, device=device)


def make_random_source_kernel(seed: int) -> Any:
    stream = _Mt19937Uniform(seed)

    def test_random_source(device: str, seed: int) -> torch.Tensor:
        if str(device) == "meta":
            return torch.empty(5, dtype=torch.float32, device="meta")
        # an opaque op, so a compiled step draws at run time; the closure keeps the stream alive
        return torch.ops.flowtorch.test_random_source(stream.key, 5, torch.device(device))
    return test_random_source


register("TestRandomSource", outputs=("out",), attrs=[AttrSpec("seed", "int64")], kernel=make_random_source_kernel,
         stateful=True)


# --- multi-input / multi-output --------------------------------------------------------------------------
def multi_output_order_kernel(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    shape = list(x.shape)
    shape[-1] *= 2
    return x.clone(), torch.zeros(shape, dtype=x.dtype, device=x.device)


register("TestMultiOutputOrder", inputs=("in",), outputs=("out1", "out2"), kernel=multi_output_order_kernel)


def multi_input_kernel(x1: torch.Tensor, x2: torch.Tensor) -> torch.Tensor:
    return x1.clone()


def multi_input_grad_kernel(x1: torch.Tensor, x2: torch.Tensor,
                            y_diff: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    # ``TestMultiInputBwKernel`` ignores y_diff: dx1 is all 1, dx2 all 2
    return torch.ones_like(x1), torch.full_like(x2, 2.0)


def _multi_input_grad(inputs: tuple[Any, ...], outputs: tuple[Any, ...], dys: tuple[Any, ...]) -> Any:
    return multi_input_grad_kernel(inputs[0], inputs[1], dys[0])


def _check_multi_input(inputs: dict[str, Any], attrs: dict[str, Any], outputs: dict[str, int]) -> None:
    x1, x2 = inputs["x1"][0], inputs["x2"][0]
    if x1.shape != x2.shape:
        raise invalid("input 'x2'", f"of the shape of x1 {x1.shape}", _blob_desc(x2))


register("TestMultiInput", inputs=("x1", "x2"), outputs=("y",), kernel=multi_input_kernel, grad=_multi_input_grad,
         check=_check_multi_input)
register("TestMultiInputGrad", inputs=("x1", "x2", "y_diff"), outputs=("x1_diff", "x2_diff"),
         kernel=multi_input_grad_kernel)


# --- attr types ------------------------------------------------------------------------------------------
def data_type_attr_kernel(x: torch.Tensor, output_type: torch.dtype) -> torch.Tensor:
    return torch.zeros(x.shape, dtype=output_type, device=x.device)


register("TestDataTypeAttr", inputs=("in",), outputs=("out",), attrs=[AttrSpec("output_type", "dtype")],
         kernel=data_type_attr_kernel)


def list_attrs_kernel(x: torch.Tensor, out_shapes: list[tuple[int, ...]],
                      out_types: list[torch.dtype]) -> tuple[torch.Tensor, ...]:
    return tuple(torch.zeros(s, dtype=t, device=x.device) for s, t in zip(out_shapes[:3], out_types[:3]))


def _check_list_attrs(inputs: dict[str, Any], attrs: dict[str, Any], outputs: dict[str, int]) -> None:
    for name in ("out_shapes", "out_types"):
        if len(attrs[name]) < outputs["out"]:
            raise invalid(f"attr {name!r}", f"a list of at least {outputs['out']} entries (one per output)",
                          attrs[name])
    if not attrs["string_list"]:
        raise invalid("attr 'string_list'", "a non-empty list of strs", attrs["string_list"])


register("TestListDataTypeAndListShapeAndListStringAttr", inputs=("in",), outputs=(Arg("out", 3),),
         attrs=[AttrSpec("out_shapes", "list_shape"), AttrSpec("out_types", "list_dtype"),
                AttrSpec("string_list", "list_string")],
         kernel=list_attrs_kernel, kernel_attrs=("out_shapes", "out_types"), check=_check_list_attrs)


def zeros_like_kernel(x: torch.Tensor) -> torch.Tensor:
    return torch.zeros_like(x)


register("test_user_op_attr_auto_type", inputs=("in",), outputs=("out",),
         attrs=[AttrSpec("int1", "int32"), AttrSpec("int2", "int32")], kernel=zeros_like_kernel, kernel_attrs=())


# --- a CPU-only op ---------------------------------------------------------------------------------------
def _check_float_in(inputs: dict[str, Any], attrs: dict[str, Any], outputs: dict[str, int]) -> None:
    x = inputs["in"][0]
    if x.meta.dtype != torch.float32:
        raise invalid("input 'in'", "a float32 blob (its only kernel)", _blob_desc(x))


register("cpu_only_relu_test", inputs=("in",), outputs=("out",), kernel=torch.relu, check=_check_float_in,
         device_tag="cpu")

"""``flow.nn.InstanceNorm1d/2d/3d`` and ``flow.nn.GroupNorm`` of OneFlow v0.3.4 (``ops/nn_ops.py``): layers,
since they make variables.

OneFlow built them from other ops, and so does flowtorch: ``InstanceNorm1d`` normalises each (n, c) row
of an (N, C, L) blob with ``nn.moments`` over axis 2 — (x − mean) / sqrt(var + eps), the biased
variance — then, with ``affine``, multiplies by a variable ``<name>_gamma`` (ones) and adds
``<name>_beta`` (zeros), both of shape (1, C, 1). The 2d/3d forms and ``GroupNorm`` reshape to 3-D, call
``InstanceNorm1d`` with their name, and reshape back. So ``GroupNorm``'s affine parameters are per group
(shape (1, num_groups, 1)), not per channel as in PyTorch: that is OneFlow's behaviour.
"""

from __future__ import annotations

from typing import Any

from flowtorch._src import naming
from flowtorch._src.capture.blob import Blob
from flowtorch._src.initializers import ones_initializer, zeros_initializer
from flowtorch._src.ops._checks import Desc, arg_error, check_float_blob, check_number, is_int
from flowtorch._src.ops.array_ops import reshape
from flowtorch._src.ops.reduce_ops import moments
from flowtorch._src.ops.unary_ops import sqrt
from flowtorch._src.variables import get_variable


def _eps(eps: Any, op: str) -> float:
    value = check_number(eps, op, "eps")
    if value < 0:
        raise arg_error(op, "eps", "a non-negative number", eps)
    return value


def _affine(affine: Any, op: str) -> bool:
    if not isinstance(affine, bool):
        raise arg_error(op, "affine", "a bool", affine)
    return affine


def _input(x: Any, op: str, ranks: tuple[int, ...]) -> Blob:
    x = check_float_blob(x, op, "x")
    if x.ndim not in ranks:
        expected = f"a {ranks[0]}-D blob" if len(ranks) == 1 else f"a blob of rank {ranks[0]} to {ranks[-1]}"
        raise arg_error(op, "x", expected, Desc(f"{x.lbn} {x.shape}"))
    return x


def _instance_norm_1d(x: Blob, eps: float, affine: bool, name: str) -> Blob:
    mean, variance = moments(x, [2], keepdims=True)
    normalized = (x - mean) / sqrt(variance + eps)
    if not affine:
        return normalized
    shape = (1, x.shape[1], 1)
    gamma = get_variable(name + "_gamma", shape=shape, dtype=x.dtype, initializer=ones_initializer(), trainable=True)
    beta = get_variable(name + "_beta", shape=shape, dtype=x.dtype, initializer=zeros_initializer(), trainable=True)
    return gamma * normalized + beta


def InstanceNorm1d(x: Blob, eps: float = 1e-05, affine: bool = True, name: str | None = None) -> Blob:
    """``flow.nn.InstanceNorm1d``: instance normalisation of an (N, C, L) blob (name defaults to
    ``InstanceNorm1D_<n>``; see the module docstring)."""
    op = "nn.InstanceNorm1d"
    x = _input(x, op, (3,))
    return _instance_norm_1d(x, _eps(eps, op), _affine(affine, op),
                             name if name is not None else naming.unique_str("InstanceNorm1D_"))


def _via_1d(x: Blob, rows: int, eps: float, affine: bool, name: str) -> Blob:
    """Normalise x as an (N, rows, -1) blob and reshape back, as OneFlow's 2d/3d/group forms did."""
    flat = reshape(x, [x.shape[0], rows, -1])
    return reshape(_instance_norm_1d(flat, eps, affine, name), list(x.shape))


def InstanceNorm2d(x: Blob, eps: float = 1e-05, affine: bool = True, name: str | None = None) -> Blob:
    """``flow.nn.InstanceNorm2d``: instance normalisation of an NCHW blob (``InstanceNorm2D_<n>``)."""
    op = "nn.InstanceNorm2d"
    x = _input(x, op, (4,))
    return _via_1d(x, x.shape[1], _eps(eps, op), _affine(affine, op),
                   name if name is not None else naming.unique_str("InstanceNorm2D_"))


def InstanceNorm3d(x: Blob, eps: float = 1e-05, affine: bool = True, name: str | None = None) -> Blob:
    """``flow.nn.InstanceNorm3d``: instance normalisation of an NCDHW blob (``InstanceNorm3D_<n>``)."""
    op = "nn.InstanceNorm3d"
    x = _input(x, op, (5,))
    return _via_1d(x, x.shape[1], _eps(eps, op), _affine(affine, op),
                   name if name is not None else naming.unique_str("InstanceNorm3D_"))


def GroupNorm(x: Blob, num_groups: int = 32, eps: float = 1e-05, affine: bool = True,
              name: str | None = None) -> Blob:
    """``flow.nn.GroupNorm``: normalise each group of ``C / num_groups`` channels of an (N, C, …) blob
    over its channels and positions (``GroupNorm_<n>``); affine parameters are per group (see the module
    docstring)."""
    op = "nn.GroupNorm"
    x = check_float_blob(x, op, "x")
    if x.ndim < 3:
        raise arg_error(op, "x", "a blob of rank >= 3 (N, C, ...)", Desc(f"{x.lbn} {x.shape}"))
    if not is_int(num_groups) or num_groups <= 0 or x.shape[1] % num_groups:
        raise arg_error(op, "num_groups", f"a positive divisor of the {x.shape[1]} channels of {x.lbn}", num_groups)
    return _via_1d(x, int(num_groups), _eps(eps, op), _affine(affine, op),
                   name if name is not None else naming.unique_str("GroupNorm_"))


__all__ = ["GroupNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]

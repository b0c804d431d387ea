"""``flow.nn`` ops: relu, softmax, bias_add, dropout, the cross-entropy losses and batch_normalization.

Names and semantics follow OneFlow (v0.1.x names where the op existed: ``Softmax_<n>/out_0``,
``BiasAdd_<n>/out_0``, ``RandomMaskLike_<n>/out_0`` + ``Dropout_<n>/out_0``,
``SparseSoftmaxCrossEntropy_<n>/{prob_0,out_0}``, ``SigmoidCrossEntropy_<n>/loss``;
``DistributedSparseSoftmaxCrossEntropy_<n>/{prob_0,out_0}`` is v0.4's name for the class-split form, the
same computation on one device).

Out-of-range labels (spec §10). OneFlow's CPU kernels abort on a label outside ``[0, num_classes)``
(``CHECK_GE/CHECK_LT`` in ``user/kernels/sparse_cross_entropy_kernel_util.cpp``) and its GPU kernels read
out of bounds. flowtorch lets such programs run: in ``sparse_softmax_cross_entropy_with_logits`` and
``sparse_cross_entropy`` a row whose label is out of range contributes loss 0 and gradient 0, and the
first step that meets such labels emits ONE :class:`LabelRangeWarning` per op per job naming the op,
the offending values and the valid range. Strict mode raises ``ValueError`` instead: set the
environment variable ``FLOWTORCH_STRICT_LABELS=1`` before the job is built (it is read when the op is
recorded). The check is one fused ``aminmax`` reduction and one host sync per step (on CPU, eager steps of
the softmax form run torch's kernel first, which checks the range itself, and check only when it refuses a
label); it is skipped while shapes are inferred on meta tensors, and compiled steps
(``FLOWTORCH_CAPTURE=compile``) run it as the opaque custom op ``flowtorch::sparse_ce_labels`` so the graph
does not break.

Loss values: OneFlow clamps probabilities at 1e-20 before the log (``SafeLog``), so a row's loss is at
most -log(1e-20) ≈ 46.05; flowtorch caps the same way (the gradient stays softmax − onehot, as OneFlow's
backward kernel computes it). ``softmax_cross_entropy_with_logits`` back-propagates OneFlow's
``dy·(prob − label)``, which differs from the analytic gradient when a label row does not sum to 1.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
import warnings
import weakref
from typing import Any

import torch
import torch.nn.functional as F

from flowtorch._src import naming, releases
from flowtorch._src.capture.blob import Blob
from flowtorch._src.capture.context import current_builder
from flowtorch._src.envvars import env_flag
from flowtorch._src.errors import ArgumentError
from flowtorch._src.ops._checks import Desc, arg_error, check_blob, check_float_blob, check_like, check_rate, norm_axis
from flowtorch._src.ops._record import apply
from flowtorch._src.ops.array_ops import squeeze, transpose
from flowtorch._src.ops.random_ops import random_mask_like
from flowtorch._src.ops.unary_ops import log
from flowtorch._src.runtime import graph_capture

STRICT_LABELS_ENV = "FLOWTORCH_STRICT_LABELS"
_LOG_THRESHOLD = -math.log(1e-20)  # OneFlow's SafeLog cap on -log(prob)
_UNCHECKED_IGNORE = -(2**63)


class LabelRangeWarning(UserWarning):
    """Labels outside ``[0, num_classes)`` met by a sparse cross-entropy op (rows get loss 0, grad 0)."""


def relu(x: Blob, name: str | None = None) -> Blob:
    return apply(torch.relu, check_blob(x, "nn.relu", "x"), op_type="relu", prefix="Relu", name=name)


# --- softmax ---------------------------------------------------------------------------------------------
def softmax_kernel(x: torch.Tensor) -> torch.Tensor:
    return torch.softmax(x, dim=-1)


def _swap_last(ndim: int, axis: int) -> list[int]:
    perm = list(range(ndim))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    return perm


def softmax(logits: Blob, axis: int | None = None, name: str | None = None) -> Blob:
    """``flow.nn.softmax`` (``Softmax_<n>/out_0``); a non-last ``axis`` is swapped to the end and back
    with two ``Transpose`` ops, as OneFlow did."""
    x = check_float_blob(logits, "nn.softmax", "logits")
    if x.ndim < 1:
        raise arg_error("nn.softmax", "logits", "a blob of rank >= 1", x)
    ax = norm_axis(-1 if axis is None else axis, x.ndim, "nn.softmax")
    if ax == 0 and releases.before(releases.SOFTMAX_TAKES_AXIS_0):
        raise arg_error("nn.softmax", "axis", f"an axis >= 1 under {releases.describe()} ({releases.ENV}): its "
                        "_softmax_need_transpose asserted axis >= 1 until v0.3.3", axis)
    if ax == x.ndim - 1:
        return apply(softmax_kernel, x, op_type="softmax", prefix="Softmax", name=name)
    perm = _swap_last(x.ndim, ax)
    t = transpose(x, perm)
    t = apply(softmax_kernel, t, op_type="softmax", prefix="Softmax", name=name)
    return transpose(t, perm)


def logsoftmax(logits: Blob, axis: int | None = None, name: str | None = None) -> Blob:
    """``flow.nn.logsoftmax``: log(softmax(x)) built as two ops named ``logsoftmax<n>_softmax`` and
    ``logsoftmax<n>_log`` (v0.3.4; note OneFlow's prefix has no underscore)."""
    check_float_blob(logits, "nn.logsoftmax", "logits")
    prefix = name if name is not None else naming.unique_str("logsoftmax")
    return log(softmax(logits, axis, name=prefix + "_softmax"), name=prefix + "_log")


# --- bias_add ---------------------------------------------------------------------------------------------
def bias_add_kernel(x: torch.Tensor, b: torch.Tensor, axis: int) -> torch.Tensor:
    if axis == x.dim() - 1:
        return torch.add(x, b)
    return torch.add(x, b.reshape((-1,) + (1,) * (x.dim() - axis - 1)))


def bias_args(value: Any, bias: Any, data_format: str | None, api: str) -> tuple[Blob, Blob, int]:
    """Checked (value, bias, axis) of a bias-add op: a 1-D bias along axis 1 (``data_format`` None or
    "NC…") or the last axis ("N…C"), as OneFlow's ``bias_add`` and its fused forms take it."""
    x = check_blob(value, api, "value")
    b = check_blob(bias, api, "bias")
    if data_format is None or (isinstance(data_format, str) and data_format.startswith("NC")):
        axis = 1
    elif isinstance(data_format, str) and data_format.startswith("N") and data_format.endswith("C"):
        axis = x.ndim - 1
    else:
        raise arg_error(api, "data_format", "None or of the form 'N...C' or 'NC...'", data_format)
    if x.ndim < 2:
        raise arg_error(api, "value", "a blob of rank >= 2", Desc(f"{x.lbn} {x.shape}"))
    if b.shape != (x.shape[axis],):
        raise arg_error(api, "bias", f"shape ({x.shape[axis]},) (axis {axis} of {x.lbn} {x.shape})",
                        Desc(f"{b.lbn} {b.shape}"))
    if b.meta.dtype != x.meta.dtype:
        raise TypeError(f"flow.{api}: bias dtype {b.dtype} differs from value dtype {x.dtype}")
    return x, b, axis


def bias_add(value: Blob, bias: Blob, data_format: str | None = None, name: str | None = None) -> Blob:
    """``flow.nn.bias_add``: add a 1-D bias along axis 1 (``data_format`` None or "NC…") or the last
    axis ("N…C") (``BiasAdd_<n>/out_0``)."""
    x, b, axis = bias_args(value, bias, data_format, "nn.bias_add")
    return apply(bias_add_kernel, x, b, axis, op_type="bias_add", prefix="BiasAdd", name=name, attrs={"axis": axis})


# --- dropout ----------------------------------------------------------------------------------------------
def dropout_kernel(x: torch.Tensor, mask: torch.Tensor, scale: float) -> torch.Tensor:
    return torch.mul(x, mask).mul_(scale)


def dropout(x: Blob, rate: float, noise_shape: Any = None, seed: int | None = None, name: str | None = None) -> Blob:
    """``flow.nn.dropout``: identity in predict jobs (and for rate 0), decided when the job is built;
    in train jobs a ``RandomMaskLike`` op (keep with probability 1 − rate) and a ``Dropout`` op scaling by
    1/(1 − rate)."""
    x = check_float_blob(x, "nn.dropout", "x")
    rate = check_rate(rate, "nn.dropout")
    if noise_shape is not None:
        raise NotImplementedError("flow.nn.dropout: noise_shape is not supported (OneFlow: 'will be supported "
                                  "later')")
    builder = current_builder("nn.dropout")
    if not builder.is_train or rate == 0.0:
        return x
    mask = random_mask_like(x, rate, seed)
    return apply(dropout_kernel, x, mask, float(1.0 / (1.0 - rate)), op_type="dropout", prefix="Dropout", name=name)


# --- cross entropies --------------------------------------------------------------------------------------
def _strict_labels() -> bool:
    return env_flag(STRICT_LABELS_ENV)


def _split_location(location: str) -> tuple[str, int]:
    m = re.match(r'File "(.*)", line (\d+)', location or "")
    return (m.group(1), int(m.group(2))) if m else ("<flowtorch>", 0)


class _LabelGuard:
    """Per op and job: checks labels each step, warns once (or raises in strict mode)."""

    __slots__ = ("api", "op_name", "job", "strict", "warned", "location", "key", "__weakref__")

    def __init__(self, api: str, op_name: str, job: str, strict: bool) -> None:
        self.api, self.op_name, self.job, self.strict = api, op_name, job, strict
        self.warned = False
        self.location = ""
        self.key = next(_guard_ids)
        _GUARDS[self.key] = self

    def labels(self, labels: torch.Tensor, num_classes: int) -> torch.Tensor:
        """:meth:`fix`, as an opaque custom op when the step is being compiled (no graph break)."""
        if torch.compiler.is_compiling():
            return torch.ops.flowtorch.sparse_ce_labels(labels, num_classes, self.key)
        return self.fix(labels, num_classes)

    def fix(self, labels: torch.Tensor, num_classes: int) -> torch.Tensor:
        """int64 labels with out-of-range entries replaced by -100 (torch's ignore_index)."""
        if graph_capture.capturing():
            return self._fix_deferred(labels, num_classes)
        if labels.device.type != "meta" and labels.numel():
            lo, hi = torch.aminmax(labels)  # one fused reduction, then a (cheap) host sync
            if lo.item() < 0 or hi.item() >= num_classes:
                bad = (labels < 0) | (labels >= num_classes)
                self.report(labels[bad], num_classes)
                labels = labels.masked_fill(bad, -100)
        return labels if labels.dtype == torch.int64 else labels.long()

    def nll(self, logp: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        """``-logp[row, label]`` per row; rows whose label is out of range give 0 and no gradient (reported).

        On CPU in eager mode torch's kernel checks the range itself, so the step first runs it unchecked and
        falls back to :meth:`labels` only when it refuses a label: no extra reduction and host sync per step.
        (Its ignore_index is a value no int32 label can take; -100, torch's default, is out of range here.)"""
        if labels.device.type == "cpu" and not torch.compiler.is_compiling() and not graph_capture.capturing():
            try:
                return F.nll_loss(logp, labels.long(), reduction="none", ignore_index=_UNCHECKED_IGNORE)
            except IndexError:  # "Target k is out of bounds."
                pass
        # rows labelled -100 (torch's ignore_index) give 0 and no gradient
        return F.nll_loss(logp, self.labels(labels, logp.shape[-1]), reduction="none")

    def _fix_deferred(self, labels: torch.Tensor, num_classes: int) -> torch.Tensor:
        """:meth:`fix` without a host sync, for a CUDA graph: the range check runs after each replay."""
        bad = (labels < 0) | (labels >= num_classes)
        if self.strict:  # may reject the step: checked on the host after each replay, before the update
            graph_capture.defer(functools.partial(self._check_deferred, labels, bad, num_classes), labels, bad)
        else:  # only reported: when the step's results reach the host, with no sync in the step
            graph_capture.defer(functools.partial(self._report_late, num_classes), flag=bad.any())
        return labels.masked_fill(bad, -100).long()

    def _report_late(self, num_classes: int) -> None:
        if not self.warned:
            self.warned = True
            filename, lineno = _split_location(self.location)
            warnings.warn_explicit(
                f"flow.{self.api} (op {self.op_name!r} in job {self.job!r}): label(s) outside the valid range "
                f"[0, {num_classes}) in a step replayed from a CUDA graph; these rows contribute loss 0 and "
                f"gradient 0 (OneFlow's CPU kernel aborts here). Set {STRICT_LABELS_ENV}=1 to raise instead (with "
                "the values). This warning is shown once per job.", LabelRangeWarning, filename, lineno)

    def _check_deferred(self, labels: torch.Tensor, bad: torch.Tensor, num_classes: int) -> None:
        if bool(bad.any()):
            self.report(labels[bad], num_classes)

    def report(self, values: torch.Tensor, num_classes: int) -> None:
        shown = sorted(set(values.tolist()))
        listed = ", ".join(str(v) for v in shown[:10]) + (", …" if len(shown) > 10 else "")
        msg = (f"flow.{self.api} (op {self.op_name!r} in job {self.job!r}): {values.numel()} label(s) outside the "
               f"valid range [0, {num_classes}): values [{listed}]")
        if self.strict:
            raise ValueError(msg + f" ({STRICT_LABELS_ENV} is set; unset it to give such rows loss 0 and "
                             "gradient 0 instead)")
        if not self.warned:
            self.warned = True
            filename, lineno = _split_location(self.location)
            warnings.warn_explicit(msg + "; these rows contribute loss 0 and gradient 0 (OneFlow's CPU kernel "
                                   f"aborts here). Set {STRICT_LABELS_ENV}=1 to raise instead. This warning is "
                                   "shown once per job.", LabelRangeWarning, filename, lineno)


_GUARDS: weakref.WeakValueDictionary[int, _LabelGuard] = weakref.WeakValueDictionary()
_guard_ids = itertools.count()


@torch.library.custom_op("flowtorch::sparse_ce_labels", mutates_args=())
def _sparse_ce_labels_op(labels: torch.Tensor, num_classes: int, key: int) -> torch.Tensor:
    out = _GUARDS[key].fix(labels, num_classes)
    return out.clone() if out is labels else out  # a custom op may not return an alias of its input


@_sparse_ce_labels_op.register_fake
def _sparse_ce_labels_fake(labels: torch.Tensor, num_classes: int, key: int) -> torch.Tensor:
    return torch.empty_like(labels, dtype=torch.int64)


def _cap(loss: torch.Tensor) -> torch.Tensor:
    """OneFlow's SafeLog: -log(max(p, 1e-20)) ≤ 46.05. The capped loss keeps the uncapped gradient
    softmax − onehot, as OneFlow's backward kernel has it. No host sync (the label check is the only one)."""
    over = torch.sub(loss.detach(), _LOG_THRESHOLD).clamp_min_(0.0)
    return loss - over


def _make_sparse_softmax_ce(guard: _LabelGuard, with_prob: bool = True) -> Any:
    """The op's kernel: ``(prob, loss)``. Its ``without_prob`` form returns ``(None, loss)``, for a graph where
    nothing reads ``prob_0`` (:func:`flowtorch._src.step.fuse.drop_unread_outputs`)."""
    def sparse_softmax_cross_entropy(labels: torch.Tensor, logits: torch.Tensor) -> tuple[torch.Tensor | None,
                                                                                         torch.Tensor]:
        num_classes = logits.shape[-1]
        flat = logits if logits.dim() == 2 else logits.reshape(-1, num_classes)
        logp = F.log_softmax(flat, dim=-1)
        loss = _cap(guard.nll(logp, labels if labels.dim() == 1 else labels.reshape(-1)))
        prob = logp.detach().exp() if with_prob else None  # OneFlow's prob output carries no gradient
        if flat is not logits:
            prob = None if prob is None else prob.reshape(logits.shape)
            loss = loss.reshape(labels.shape)
        return prob, loss
    if with_prob:
        sparse_softmax_cross_entropy.without_prob = _make_sparse_softmax_ce(guard, with_prob=False)  # type: ignore[attr-defined]
    return sparse_softmax_cross_entropy


def _make_sparse_ce(guard: _LabelGuard) -> Any:
    def sparse_cross_entropy(labels: torch.Tensor, prediction: torch.Tensor) -> torch.Tensor:
        depth = prediction.shape[-1]
        flat = prediction.reshape(-1, depth)
        target = guard.labels(labels.reshape(-1), depth)
        valid = target >= 0
        picked = flat.gather(1, torch.where(valid, target, 0).unsqueeze(1)).squeeze(1)
        loss = -torch.log(torch.clamp_min(picked, 1e-20))
        return torch.where(valid, loss, torch.zeros_like(loss)).reshape(labels.shape)
    return sparse_cross_entropy


def _sparse_ce_args(labels: Any, logits: Any, api: str, logits_arg: str) -> tuple[Blob, Blob]:
    lab = check_blob(labels, api, "labels")
    lg = check_float_blob(logits, api, logits_arg)
    if lab.meta.dtype.is_floating_point or lab.meta.dtype == torch.bool:
        raise TypeError(f"flow.{api}: labels must be an integer blob (int32/int64); received {lab.lbn} of dtype "
                        f"{lab.dtype}")
    if lg.ndim < 1:
        raise arg_error(api, logits_arg, "a blob of rank >= 1", Desc(f"{lg.lbn} {lg.shape}"))
    if lab.ndim == lg.ndim:
        if lab.shape[-1] != 1 or lab.shape[:-1] != lg.shape[:-1]:
            raise arg_error(api, "labels", f"shape {lg.shape[:-1]} or {lg.shape[:-1] + (1,)} for {logits_arg} "
                            f"{lg.shape}", Desc(f"{lab.lbn} {lab.shape}"))
        lab = squeeze(lab, axis=[-1])
    elif lab.shape != lg.shape[:-1]:
        raise arg_error(api, "labels", f"shape {lg.shape[:-1]} or {lg.shape[:-1] + (1,)} for {logits_arg} "
                        f"{lg.shape}", Desc(f"{lab.lbn} {lab.shape}"))
    return lab, lg


def sparse_softmax_cross_entropy_with_logits(labels: Blob, logits: Blob, name: str | None = None) -> Blob:
    """``flow.nn.sparse_softmax_cross_entropy_with_logits(labels, logits)`` — labels first. Per-example
    loss of shape ``labels`` (a (B, 1) label blob is squeezed by a ``Squeeze`` op first). Records
    ``SparseSoftmaxCrossEntropy_<n>/prob_0`` and ``/out_0``; returns ``out_0``. See the module
    docstring for out-of-range labels."""
    return _sparse_softmax_ce(labels, logits, name, "nn.sparse_softmax_cross_entropy_with_logits",
                              "sparse_softmax_cross_entropy", "SparseSoftmaxCrossEntropy")


def distributed_sparse_softmax_cross_entropy_with_logits(labels: Blob, logits: Blob, name: str | None = None) -> Blob:
    """``flow.nn.distributed_sparse_softmax_cross_entropy_with_logits(labels, logits)``: OneFlow's form for
    logits split over devices along the class axis (op ``sparse_softmax_cross_entropy_ms``); on one device
    the same values and gradients as :func:`sparse_softmax_cross_entropy_with_logits`, recorded as
    ``DistributedSparseSoftmaxCrossEntropy_<n>/{prob_0,out_0}``."""
    return _sparse_softmax_ce(labels, logits, name, "nn.distributed_sparse_softmax_cross_entropy_with_logits",
                              "sparse_softmax_cross_entropy_ms", "DistributedSparseSoftmaxCrossEntropy")


def _sparse_softmax_ce(labels: Any, logits: Any, name: str | None, api: str, op_type: str, prefix: str) -> Blob:
    lab, lg = _sparse_ce_args(labels, logits, api, "logits")
    builder = current_builder(api)
    op_name = naming.op_name(f"{prefix}_", name)
    guard = _LabelGuard(api, op_name, builder.job_name, _strict_labels())
    _, out = apply(_make_sparse_softmax_ce(guard), lab, lg, op_type=op_type, op_name=op_name,
                   outputs=("prob_0", "out_0"))
    guard.location = out.location
    return out


def sparse_cross_entropy(labels: Blob, prediction: Blob, name: str | None = None) -> Blob:
    """``flow.nn.sparse_cross_entropy(labels, prediction)``: -log(max(prediction[label], 1e-20)) of
    probabilities (``SparseCrossEntropy_<n>/out_0``); out-of-range labels as for the softmax variant."""
    api = "nn.sparse_cross_entropy"
    lab, pred = _sparse_ce_args(labels, prediction, api, "prediction")
    builder = current_builder(api)
    op_name = naming.op_name("SparseCrossEntropy_", name)
    guard = _LabelGuard(api, op_name, builder.job_name, _strict_labels())
    out = apply(_make_sparse_ce(guard), lab, pred, op_type="sparse_cross_entropy", op_name=op_name)
    guard.location = out.location
    return out


class _SoftmaxCrossEntropy(torch.autograd.Function):
    """OneFlow's softmax_cross_entropy: loss = -Σ label·log(max(prob, 1e-20)); d logits = dy·(prob − label)."""

    @staticmethod
    def forward(ctx: Any, logits: torch.Tensor, labels: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        prob = torch.softmax(logits, dim=-1)
        loss = -(labels * torch.log(torch.clamp_min(prob, 1e-20))).sum(dim=-1)
        ctx.save_for_backward(prob, labels)
        ctx.mark_non_differentiable(prob)
        return prob, loss

    @staticmethod
    def backward(ctx: Any, dprob: torch.Tensor, dloss: torch.Tensor) -> tuple[torch.Tensor, None]:
        prob, labels = ctx.saved_tensors
        return dloss.unsqueeze(-1) * (prob - labels), None


def softmax_cross_entropy_kernel(labels: torch.Tensor, logits: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return _SoftmaxCrossEntropy.apply(logits, labels)


def softmax_cross_entropy_with_logits(labels: Blob, logits: Blob, name: str | None = None) -> Blob:
    """``flow.nn.softmax_cross_entropy_with_logits(labels, logits)``: labels are distributions of the
    logits' shape and dtype; records ``SoftmaxCrossEntropy_<n>/prob_0`` and ``/out_0``, returns ``out_0``."""
    api = "nn.softmax_cross_entropy_with_logits"
    lab = check_float_blob(labels, api, "labels")
    lg = check_float_blob(logits, api, "logits")
    check_like(lab, lg, api, "labels", "logits")
    _, out = apply(softmax_cross_entropy_kernel, lab, lg, op_type="softmax_cross_entropy", prefix="SoftmaxCrossEntropy",
                   name=name, outputs=("prob_0", "out_0"))
    return out


def sigmoid_cross_entropy_kernel(labels: torch.Tensor, logits: torch.Tensor) -> torch.Tensor:
    return F.binary_cross_entropy_with_logits(logits, labels.to(logits.dtype), reduction="none")


def sigmoid_cross_entropy_with_logits(labels: Blob, logits: Blob, name: str | None = None) -> Blob:
    """``flow.nn.sigmoid_cross_entropy_with_logits(labels, logits)``: max(x,0) − x·z + log(1+exp(−|x|)),
    element-wise; a system op whose blob is ``SigmoidCrossEntropy_<n>/loss``."""
    api = "nn.sigmoid_cross_entropy_with_logits"
    lab = check_blob(labels, api, "labels")
    lg = check_float_blob(logits, api, "logits")
    if lab.shape != lg.shape:
        raise arg_error(api, "labels", f"the shape of logits {lg.shape}", Desc(f"{lab.lbn} {lab.shape}"))
    return apply(sigmoid_cross_entropy_kernel, lab, lg, op_type="sigmoid_cross_entropy", prefix="SigmoidCrossEntropy",
                 name=name, outputs=("loss",))


# --- batch_normalization (the op; layers.batch_normalization owns variables) -------------------------------
def batch_normalization_kernel(x: torch.Tensor, mean: torch.Tensor, variance: torch.Tensor,
                               offset: torch.Tensor | None, scale: torch.Tensor | None, eps: float,
                               one_d: tuple[int, ...]) -> torch.Tensor:
    def shaped(t: torch.Tensor) -> torch.Tensor:
        return t.reshape(one_d) if t.dim() == 1 and x.dim() != 1 else t
    out = (x - shaped(mean)) * torch.rsqrt(shaped(variance) + eps)
    if scale is not None:
        out = out * shaped(scale)
    if offset is not None:
        out = out + shaped(offset)
    return out


def batch_normalization(x: Blob, mean: Blob, variance: Blob, offset: Blob | None = None, scale: Blob | None = None,
                        variance_epsilon: float = 1e-5, axis: int = 1, name: str | None = None) -> Blob:
    """``flow.nn.batch_normalization``: (x − mean)·rsqrt(variance + ε)·scale + offset with given
    statistics. 1-D parameters apply along ``axis``; parameters of x's rank broadcast
    (``BatchNorm_<n>/y_0``)."""
    api = "nn.batch_normalization"
    x = check_float_blob(x, api, "x")
    ax = norm_axis(axis, x.ndim, api)
    checked: dict[str, Blob | None] = {}
    for arg, p in (("mean", mean), ("variance", variance), ("offset", offset), ("scale", scale)):
        if p is None and arg in ("offset", "scale"):
            checked[arg] = None
            continue
        b = check_blob(p, api, arg)
        if b.shape != (x.shape[ax],) and not (
                b.ndim == x.ndim and all(d in (1, xd) for d, xd in zip(b.shape, x.shape))):
            raise arg_error(api, arg, f"shape ({x.shape[ax]},) or a shape of rank {x.ndim} broadcastable to "
                            f"{x.shape}", Desc(f"{b.lbn} {b.shape}"))
        checked[arg] = b
    if not isinstance(variance_epsilon, (int, float)) or isinstance(variance_epsilon, bool):
        raise arg_error(api, "variance_epsilon", "a number", variance_epsilon)
    one_d = tuple(x.shape[ax] if i == ax else 1 for i in range(x.ndim))
    named = {name: [b] for name, b in (("x", x), ("moving_mean", checked["mean"]),
                                       ("moving_variance", checked["variance"]), ("gamma", checked["scale"]),
                                       ("beta", checked["offset"])) if b is not None}
    return apply(batch_normalization_kernel, x, checked["mean"], checked["variance"], checked["offset"],
                 checked["scale"], float(variance_epsilon), one_d, op_type="normalization", prefix="BatchNorm",
                 name=name, outputs=("y_0",), inputs=named,  # (OneFlow's nn.batch_normalization: inference)
                 attrs={"axis": ax, "epsilon": float(variance_epsilon), "training": False, "momentum": 0.0})


__all__ = ["LabelRangeWarning", "ArgumentError", "STRICT_LABELS_ENV", "batch_normalization", "bias_add", "bias_args",
           "distributed_sparse_softmax_cross_entropy_with_logits", "dropout",
           "logsoftmax", "relu", "sigmoid_cross_entropy_with_logits", "softmax", "softmax_cross_entropy_with_logits",
           "sparse_cross_entropy", "sparse_softmax_cross_entropy_with_logits"]

"""``flow.user_op_builder(op_name)``: build any registered op by its OneFlow type name (v0.3.4
``python/ops/user_op_builder.py``)::

    y = (flow.user_op_builder("my_relu").Op("relu").Input("in", [x]).Output("out")
         .Build().InferAndTryRun().RemoteBlobList()[0])          # blob my_relu/out_0

Call tree: :class:`UserOpConfBuilder` collects the op type, inputs, outputs and attrs, checking each against
the op's :class:`~flowtorch._src.ops.op_registry.OpDef` as soon as the type is known; ``Build()`` checks
that the op is complete and returns a :class:`UserOp`; ``InferAndTryRun()`` records the op's kernel with
:func:`flowtorch._src.ops._record.apply` under its op name, so its blobs are ``<op_name>/<arg>_<i>``, can be
watched and get gradients like any op's. The module builders (``flow.user_op_module_builder(op_type)``) are
builders whose op type is fixed and whose ``OpName``/``Input`` are set again for every call.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from flowtorch._src import naming
from flowtorch._src.capture.blob import Blob
from flowtorch._src.capture.context import current_builder
from flowtorch._src.errors import ArgumentError
from flowtorch._src.ops import op_registry
from flowtorch._src.ops._record import apply
from flowtorch._src.ops.op_registry import REQUIRED, OpDef

log = logging.getLogger("flowtorch")

__all__ = ["UserOp", "UserOpConfBuilder", "UserOpModuleBuilder", "consistent_user_op_builder",
           "consistent_user_op_module_builder", "user_op_builder", "user_op_module_builder"]


def _check_name(name: Any, api: str, what: str) -> str:
    if not isinstance(name, str) or not name:
        raise ArgumentError(f"flow.{api}: {what} must be a non-empty str; received {name!r}")
    return name


def _asked_outputs(kernel: Callable[..., Any], asked: list[bool]) -> Callable[..., Any]:
    """The kernel, returning only the outputs the builder asked for (an optional output left out is dropped;
    the kernel of an op with optional outputs returns every one of them)."""
    if all(asked):
        return kernel

    def asked_outputs(*args: Any) -> Any:
        out = kernel(*args)
        kept = tuple(t for t, keep in zip(out if isinstance(out, tuple) else (out,), asked) if keep)
        return kept[0] if len(kept) == 1 else kept
    return asked_outputs


class UserOp:
    """A built op: ``InferAndTryRun()`` adds it to the job; ``RemoteBlobList()`` gives its output blobs in
    the order their ``Output`` calls came, each arg's blobs by index."""

    def __init__(self, op_def: OpDef, op_name: str, inputs: dict[str, list[Blob] | None], attrs: dict[str, Any],
                 outputs: dict[str, int]) -> None:
        self.op_def = op_def
        self.op_name = op_name
        self.inputs = inputs
        self.attrs = attrs
        self.outputs = outputs  # arg name -> count, in Output() call order
        self._blobs: dict[str, list[Blob]] | None = None

    @property
    def op_type_name(self) -> str:
        return self.op_def.op_type_name

    def __repr__(self) -> str:
        return f"UserOp(op_name={self.op_name!r}, op_type_name={self.op_type_name!r})"

    def InferAndTryRun(self) -> UserOp:
        """Record the op in the job being built (once); returns itself."""
        where = f"user_op_builder({self.op_name!r})"
        job = current_builder(where)
        if self._blobs is not None:
            raise RuntimeError(f"flow.{where}: InferAndTryRun() was already called; build the op again to add "
                               "another one")
        if any(b.op_name == self.op_name for b in job.all_blobs):
            raise ArgumentError(f"flow.{where}: an op named {self.op_name!r} already exists in job "
                                  f"{job.job_name!r}; op names must be unique")
        od = self.op_def
        args: list[Any] = []
        for arg in od.inputs:
            blobs = self.inputs.get(arg.name)
            args.append(None if blobs is None else list(blobs) if arg.repeated else blobs[0])
        attr_values = [self.attrs[name] for name in od.kernel_attrs]
        asked = [arg.name in self.outputs for arg in od.outputs]
        kernel = _asked_outputs(od.make_kernel(attr_values), asked)
        if not od.inputs:
            args = [job.device]
        names = [f"{arg.name}_{i}" for arg in od.outputs for i in range(self.outputs.get(arg.name, 0))]
        meta: Any = None
        if not names:
            meta = ()  # an op without outputs (it updates its inputs): nothing to infer
        elif od.infer is not None:
            meta = _asked_outputs(od.infer, asked)(*(["meta"] if not od.inputs else [_meta(a) for a in args]),
                                                   *attr_values)
        elif not od.inputs:
            meta = kernel("meta", *attr_values)
        # recorded under its op type, as the flow.* op of that type is: one identity for the split rules
        out = apply(kernel, *args, *attr_values, op_type=od.op_type_name, op_name=self.op_name, outputs=tuple(names),
                    meta=meta, dynamic=True if od.dynamic else None, attrs=dict(self.attrs),
                    inputs={name: list(blobs) for name, blobs in self.inputs.items() if blobs is not None})
        flat = list(out) if isinstance(out, tuple) else [out]
        if od.device_tag is not None:
            for blob in flat:
                blob.device_tag = od.device_tag
        produced: dict[str, list[Blob]] = {}
        for arg in od.outputs:
            n = self.outputs.get(arg.name, 0)
            produced[arg.name], flat = flat[:n], flat[n:]
        self._blobs = {name: produced[name] for name in self.outputs}
        return self

    def _outputs(self) -> dict[str, list[Blob]]:
        if self._blobs is None:
            raise RuntimeError(f"flow.user_op_builder({self.op_name!r}): call InferAndTryRun() before asking for "
                               "the op's output blobs")
        return self._blobs

    def RemoteBlobList(self) -> tuple[Blob, ...]:
        return tuple(b for blobs in self._outputs().values() for b in blobs)

    def RemoteBlobDict(self) -> dict[str, list[Blob]]:
        return {name: list(blobs) for name, blobs in self._outputs().items()}

    def SoleOutputBlob(self) -> Blob:
        blobs = self.RemoteBlobList()
        if len(blobs) != 1:
            raise ArgumentError(f"flow.user_op_builder({self.op_name!r}): SoleOutputBlob() needs exactly one "
                                  f"output blob; op type {self.op_type_name!r} built {len(blobs)}")
        return blobs[0]

    def InitOpKernel(self) -> None:
        """A module op's kernel needs no set-up (lazy mode, as OneFlow's ``LazyUserOpModule``)."""


def _meta(arg: Any) -> Any:
    if isinstance(arg, Blob):
        return arg.meta
    if isinstance(arg, list):
        return [_meta(a) for a in arg]
    return arg


class UserOpConfBuilder:
    """The chain ``.Op(type).Input(name, blobs).Output(name, n).Attr(name, value).Build()``."""

    _api = "user_op_builder"

    def __init__(self, op_name: str, op_type_name: str | None = None) -> None:
        current_builder(f"{self._api}({op_name!r})")
        self._op_name = naming.scoped(_check_name(op_name, self._api, "the op name"))
        self._op_def: OpDef | None = None
        self._inputs: dict[str, list[Blob] | int] = {}  # an int: InputSize's count, blobs to come
        self._outputs: dict[str, int] = {}
        self._raw_attrs: dict[str, Any] = {}
        if op_type_name is not None:
            self._set_op(op_type_name)

    @property
    def _where(self) -> str:
        return f"{self._api}({self._op_name!r})"

    def _set_op(self, op_type_name: str) -> None:
        self._op_def = op_registry.lookup(_check_name(op_type_name, self._where, "the op type name"), self._where)
        for name, blobs in self._inputs.items():
            self._check_input(name, blobs)
        for name, n in self._outputs.items():
            self._check_output(name, n)
        for name, value in self._raw_attrs.items():
            op_registry.convert_attr(self._op_def, name, value, self._where)

    # --- the chain ------------------------------------------------------------------------------------
    def Op(self, op_type_name: str) -> UserOpConfBuilder:
        """Set the op type (a registered OneFlow op type name such as ``"relu"``)."""
        self._set_op(op_type_name)
        return self

    def OpName(self, op_name: str) -> UserOpConfBuilder:
        """Rename the op (under the current ``scope.namespace``)."""
        self._op_name = naming.scoped(_check_name(op_name, self._api, "the op name"))
        return self

    def Input(self, input_name: str, input_blob_list: Sequence[Blob]) -> UserOpConfBuilder:
        """Set input arg ``input_name`` to a list of blobs (one list per arg; a second call replaces it)."""
        _check_name(input_name, self._where, "the input name")
        if isinstance(input_blob_list, Blob) or not isinstance(input_blob_list, (list, tuple)):
            raise ArgumentError(f"flow.{self._where}: Input({input_name!r}, ...) takes a list of blobs; "
                                  f"received {input_blob_list!r}" + (" (wrap it: [blob])" if isinstance(
                                      input_blob_list, Blob) else ""))
        for i, b in enumerate(input_blob_list):
            if not isinstance(b, Blob):
                raise ArgumentError(f"flow.{self._where}: Input({input_name!r}, ...)[{i}] must be a blob; "
                                      f"received {type(b).__name__} {b!r}")
        self._check_input(input_name, list(input_blob_list))
        self._inputs[input_name] = list(input_blob_list)
        return self

    def InputSize(self, input_name: str, input_blob_size: int) -> UserOpConfBuilder:
        """Declare that input ``input_name`` will take ``input_blob_size`` blobs (module builders)."""
        _check_name(input_name, self._where, "the input name")
        if not isinstance(input_blob_size, int) or isinstance(input_blob_size, bool) or input_blob_size < 0:
            raise ArgumentError(f"flow.{self._where}: InputSize({input_name!r}, n) needs an int n >= 0; "
                                  f"received {input_blob_size!r}")
        if input_name in self._inputs:
            raise ArgumentError(f"flow.{self._where}: input {input_name!r} is already set")
        self._check_input(input_name, input_blob_size)
        self._inputs[input_name] = input_blob_size
        return self

    def Output(self, output_name: str, num: int = 1) -> UserOpConfBuilder:
        """Ask for ``num`` blobs of output arg ``output_name`` (``<op_name>/<output_name>_<i>``)."""
        _check_name(output_name, self._where, "the output name")
        if not isinstance(num, int) or isinstance(num, bool) or num < 1:
            raise ArgumentError(f"flow.{self._where}: Output({output_name!r}, num) needs an int num >= 1; "
                                  f"received {num!r}")
        self._check_output(output_name, num)
        self._outputs.pop(output_name, None)
        self._outputs[output_name] = num
        return self

    def Attr(self, attr_name: str, attr_value: Any, attr_type_name: str | None = None) -> UserOpConfBuilder:
        """Set an attr; its type comes from the op's definition (``attr_type_name``, OneFlow's older explicit
        type such as ``"AttrTypeInt64"``, is accepted with OneFlow's deprecation warning)."""
        _check_name(attr_name, self._where, "the attr name")
        if attr_type_name is not None:
            if attr_type_name not in op_registry.LEGACY_ATTR_TYPE_NAMES:
                raise ArgumentError(f"flow.{self._where}: unknown attr type name {attr_type_name!r} for attr "
                                      f"{attr_name!r}; one of {', '.join(op_registry.LEGACY_ATTR_TYPE_NAMES)}")
            log.warning("flow.%s: argument 'attr_type_name' of Attr is deprecated (OneFlow v0.3); the type of attr "
                        "%r comes from the op's definition. Remove it: .Attr(%r, value)", self._where, attr_name,
                        attr_name, stacklevel=2)
        if self._op_def is not None:
            op_registry.convert_attr(self._op_def, attr_name, attr_value, self._where)
        self._raw_attrs[attr_name] = attr_value
        return self

    def CheckAndComplete(self) -> UserOpConfBuilder:
        self._complete()
        return self

    def Build(self) -> UserOp:
        """Check the op is complete (type, inputs, outputs, required attrs) and return it."""
        return self._complete()

    # --- checks ---------------------------------------------------------------------------------------
    def _check_input(self, name: str, blobs: list[Blob] | int) -> None:
        n = blobs if isinstance(blobs, int) else len(blobs)
        self._check_arg("input", name, n, lambda arg: f"takes {arg.describe()}; received {n}")

    def _check_output(self, name: str, n: int) -> None:
        self._check_arg("output", name, n, lambda arg: f"gives {arg.describe()}; Output({name!r}, {n}) asked for {n}")

    def _check_arg(self, kind: str, name: str, n: int, mismatch: Callable[[Any], str]) -> None:
        """``kind`` ("input" or "output") ``name`` exists in the op's definition and accepts ``n`` blobs."""
        od = self._op_def
        if od is None:
            return
        arg = od.input(name) if kind == "input" else od.output(name)
        if arg is None:
            known = ", ".join(repr(a.name) for a in (od.inputs if kind == "input" else od.outputs)) or "none"
            raise ArgumentError(f"flow.{self._where}: op type {od.op_type_name!r} has no {kind} {name!r}; its "
                                  f"{kind}s: {known}")
        if not arg.accepts(n):
            raise ArgumentError(f"flow.{self._where}: {kind} {name!r} of op type {od.op_type_name!r} "
                                  f"{mismatch(arg)}")

    def _complete(self) -> UserOp:
        od = self._op_def
        if od is None:
            raise ArgumentError(f"flow.{self._where}: no op type; call .Op(op_type_name) before Build()")
        inputs: dict[str, list[Blob] | None] = {}
        for arg in od.inputs:
            blobs = self._inputs.get(arg.name)
            if isinstance(blobs, int):
                raise ArgumentError(f"flow.{self._where}: input {arg.name!r} was declared by InputSize but no "
                                      f"blobs were given; call .Input({arg.name!r}, blobs)")
            if blobs is None and not arg.optional:
                raise ArgumentError(f"flow.{self._where}: op type {od.op_type_name!r} needs input {arg.name!r} "
                                      f"({arg.describe()}); call .Input({arg.name!r}, [blob])")
            inputs[arg.name] = blobs
        missing = [arg.name for arg in od.outputs if arg.name not in self._outputs and not arg.optional]
        if missing:
            raise ArgumentError(f"flow.{self._where}: output(s) {', '.join(map(repr, missing))} of op type "
                                  f"{od.op_type_name!r} are not set; call .Output({missing[0]!r})")
        attrs: dict[str, Any] = {}
        for spec in od.attrs:
            if spec.name in self._raw_attrs:
                attrs[spec.name] = op_registry.convert_attr(od, spec.name, self._raw_attrs[spec.name], self._where)
            elif spec.default is REQUIRED:
                raise ArgumentError(f"flow.{self._where}: attr {spec.name!r} ({spec.type}) of op type "
                                      f"{od.op_type_name!r} has no default; call .Attr({spec.name!r}, value)")
            else:
                attrs[spec.name] = op_registry.convert_attr(od, spec.name, spec.default, self._where)
        outputs = dict(self._outputs)
        if od.check is not None:
            try:
                od.check(inputs, attrs, outputs)
            except ArgumentError as bad:
                raise ArgumentError(f"flow.{self._where}: op type {od.op_type_name!r}: {bad}") from None
        return self._make_op(od, inputs, attrs, outputs)

    def _make_op(self, od: OpDef, inputs: dict[str, list[Blob] | None], attrs: dict[str, Any],
                 outputs: dict[str, int]) -> UserOp:
        return UserOp(od, self._op_name, inputs, attrs, outputs)


class UserOpModuleBuilder(UserOpConfBuilder):
    """A builder for one op type, kept by a ``flow.nn.Module`` and built again on every call with a new
    ``OpName`` and ``Input``; its ``user_op_module.InitOpKernel()`` is a no-op in lazy mode."""

    _api = "user_op_module_builder"

    def __init__(self, op_type_name: str) -> None:
        super().__init__(_check_name(op_type_name, self._api, "the op type name"), op_type_name)
        self._module_op = UserOp(self._op_def, self._op_name, {}, {}, {})  # type: ignore[arg-type]

    @property
    def user_op_module(self) -> UserOp:
        return self._module_op

    def Op(self, op_type_name: str) -> UserOpConfBuilder:
        raise ArgumentError(f"flow.{self._where}: a module builder's op type is fixed; it cannot call "
                              f".Op({op_type_name!r})")


def user_op_builder(op_name: str) -> UserOpConfBuilder:
    """``flow.user_op_builder(op_name)``: a builder for one op named ``op_name`` (under the current
    ``scope.namespace``); set its type with ``.Op(op_type_name)``."""
    return UserOpConfBuilder(op_name)


def consistent_user_op_builder(op_name: str) -> UserOpConfBuilder:
    """``flow.consistent_user_op_builder``: on one device, :func:`user_op_builder`."""
    return UserOpConfBuilder(op_name)


def user_op_module_builder(op_type_name: str) -> UserOpModuleBuilder:
    """``flow.user_op_module_builder(op_type_name)``: a reusable builder of ``op_type_name`` ops (its first
    op name is the op type; set each call's with ``.OpName``)."""
    return UserOpModuleBuilder(op_type_name)


def consistent_user_op_module_builder(op_type_name: str) -> UserOpModuleBuilder:
    """``flow.consistent_user_op_module_builder``: on one device, :func:`user_op_module_builder`."""
    return UserOpModuleBuilder(op_type_name)

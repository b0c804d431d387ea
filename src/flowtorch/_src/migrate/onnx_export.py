"""``flow.onnx.export(job_func, model_save_dir, onnx_filename, ...)``: a job's graph as an ONNX model whose
weights are the variables of a OneFlow snapshot directory.

OneFlow translated its job proto op by op (``oneflow/python/onnx/flow2onnx.py``). Here the job's captured
graph is rewritten into plain torch calls as :func:`flowtorch.export` does (``export_codegen.GraphConverter``),
its variables are read from ``model_save_dir`` (not from the session), and torch's TorchScript-based exporter
(``torch.onnx.export(dynamo=False)``, which needs no onnxscript) writes the file; the ``onnx`` package then
applies what torch has no argument for (declared input shapes, extra opsets, external data).
"""

from __future__ import annotations

import logging
import os
import warnings
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Any

import numpy as np
import torch
import torch.fx

from flowtorch._src import dtypes
from flowtorch._src.errors import SnapshotError, add_note
from flowtorch._src.io.snapshot import read_entry
from flowtorch._src.migrate import export_codegen as codegen
from flowtorch._src.migrate.export import RESERVED, single_process_reasons, step_for_graph
from flowtorch._src.package import extra_hint
from flowtorch._src.session import Job, default_session
from flowtorch._src.step.compile import StepFunction
from flowtorch._src.watch import taps

log = logging.getLogger("flowtorch")

WHAT = "flow.onnx.export"
ONNX_EXTRA = extra_hint("onnx")
PREFERRED_OPSET = 10  # OneFlow's default (oneflow/python/onnx/constants.py: PREFERRED_OPSET)
EXTERNAL_THRESHOLD = 1024  # bytes: smaller tensors stay in the .onnx file, as OneFlow (and torch) kept them
_DIFF_TAPS = (taps.diff_tap, taps.compiled_diff_tap)


def require_onnx() -> ModuleType:
    """The ``onnx`` package, or an ImportError that names the extra which installs it."""
    try:
        import onnx  # noqa: PLC0415 - an optional package (flowtorch[onnx])
        import onnx.external_data_helper  # noqa: PLC0415 - the submodule, for external data
    except ImportError as exc:
        raise ImportError(f"{WHAT} needs 'onnx', which is not installed: {ONNX_EXTRA}") from exc
    return onnx


def export(job_func: Any, model_save_dir: str | os.PathLike[str], onnx_filename: str | os.PathLike[str],
           continue_on_error: bool = False, opset: int | None = None, extra_opset: Sequence[Any] | None = None,
           shape_override: Mapping[str, Sequence[int | None]] | None = None, external_data: bool = False) -> None:
    """Write job ``job_func`` as an ONNX model to ``onnx_filename``, its weights read from ``model_save_dir``.

    ``model_save_dir``: a snapshot directory (``flow.checkpoint.save(dir)``) holding every variable the job
    reads. The ONNX inputs are the job's placeholders, named after its parameters, with their static shapes;
    ``shape_override`` ({parameter name: shape}, ``-1``/``None`` for a free dimension) declares other ones
    (the graph itself keeps the shapes OneFlow inferred, as OneFlow's export did). The outputs are the job's
    returns (a train job returning nothing: its losses), named by their logical blob names.
    ``opset``: the ONNX opset (``None``: OneFlow's 10, or torch's default where an op needs a newer one).
    ``extra_opset``: opset ids (``onnx.helper.make_opsetid``) added to the model's imports.
    ``external_data``: tensors of 1 KiB or more go to ``<onnx_filename>.data`` (models over 2 GB always do).
    ``continue_on_error`` has no effect: torch's exporter stops at the first op it cannot convert.
    """
    onnx = require_onnx()
    job = _find_job(job_func)
    snapshot_dir = os.fspath(model_save_dir)
    if not os.path.isdir(snapshot_dir):
        what = "is not a directory" if os.path.exists(snapshot_dir) else "doesn't exist"
        raise SnapshotError(f"{WHAT}: model_save_dir {snapshot_dir!r} {what}: pass the directory that "
                            "flow.checkpoint.save(dir) wrote")
    path = os.fspath(onnx_filename)
    opset = _check_opset(opset)
    extra = _extra_opsets(extra_opset)
    if continue_on_error:
        log.info("%s: continue_on_error has no effect: torch's exporter stops at the first op it cannot convert",
                 WHAT)
    step = _built_step(job)
    module, inputs, input_names, output_names = _module(job, step, snapshot_dir)
    declared = _declared_shapes(job.name, input_names, inputs, shape_override or {})
    dynamic_axes = {name: {i: f"{name}_dim{i}" for i, (dim, job_dim) in enumerate(zip(shape, inp.shape))
                           if dim != job_dim}
                    for name, shape, inp in zip(input_names, declared, inputs) if shape is not None}
    dynamic_axes = {name: axes for name, axes in dynamic_axes.items() if axes}
    _torch_export(job.name, module, tuple(inputs), path, input_names, output_names, opset, dynamic_axes)
    _finish(onnx, path, dict(zip(input_names, declared)), extra, external_data)
    log.info("%s: wrote job %r to %s", WHAT, job.name, path)


def _find_job(job_func: Any) -> Job:
    """The default session's job ``job_func`` (found by name, as OneFlow looked it up in its job set)."""
    name = getattr(job_func, "__name__", None)
    if not isinstance(name, str):
        raise TypeError(f"{WHAT}: job_func must be a job function (@flow.global_function); received "
                        f"{type(job_func).__name__} {job_func!r}")
    jobs = default_session().jobs
    if isinstance(job_func, Job) and jobs.get(job_func.key) is job_func:
        return job_func
    found = jobs.get(name)
    if found is not None:
        return found
    hint = ""
    if isinstance(job_func, Job) and job_func.eager:
        hint = " (it runs eagerly: flow.enable_eager_execution jobs keep no graph; define it in lazy mode)"
    elif isinstance(job_func, Job):
        hint = " (it belongs to a session that flow.clear_default_session() closed; decorate it again)"
    raise ValueError(f'Cannot find job "{name}" in jobset{hint}')


def _check_opset(opset: Any) -> int | None:
    if opset is None or opset == 0:
        return None
    if not isinstance(opset, int) or isinstance(opset, bool) or opset < 0:
        raise ValueError(f"{WHAT}: opset must be a positive int or None; received {opset!r}")
    return opset


def _extra_opsets(extra_opset: Any) -> list[tuple[str, int]]:
    """(domain, version) of each of OneFlow's extra opset ids (``OperatorSetIdProto``s, in a list)."""
    if extra_opset is None:
        return []
    if not isinstance(extra_opset, (list, tuple)):
        raise ValueError(f"{WHAT}: invalid extra_opset: expected a list of opset ids (onnx.helper.make_opsetid); "
                         f"received {type(extra_opset).__name__}")
    out = []
    for ident in extra_opset:
        domain, version = getattr(ident, "domain", None), getattr(ident, "version", None)
        if not isinstance(domain, str) or not isinstance(version, int):
            raise ValueError(f"{WHAT}: invalid extra_opset entry {ident!r}: expected an opset id with a domain and "
                             "a version (onnx.helper.make_opsetid(domain, version))")
        out.append((domain, version))
    return out


def _built_step(job: Job) -> StepFunction:
    """The job's step, built now if the session has not started; refuses what has no single-process graph."""
    step = step_for_graph(job, WHAT)
    reasons = single_process_reasons(job, step, "export", "exported")
    if reasons:
        raise NotImplementedError(f"{WHAT}: job {job.name!r} cannot be exported: " + "; ".join(reasons))
    return step


def _module(job: Job, step: StepFunction, snapshot_dir: str
            ) -> tuple[torch.fx.GraphModule, list[torch.Tensor], list[str], list[str]]:
    """The job's graph in plain torch on the CPU with the snapshot's variables, sample inputs (zeros of the
    job's shapes) and the ONNX names of its inputs and outputs."""
    store = job.session.variables
    by_tensor = {id(var.tensor): name for name, var in store.items()}
    var_names = [by_tensor[id(t)] for t in step.var_tensors]
    taken: set[str] = set()
    attrs = [codegen.python_name(n, taken, RESERVED) for n in var_names]
    old_inputs = [n for n in step.module.graph.nodes if n.op == "placeholder" and not n.name.startswith("var_")]
    metas = [node.meta["flowtorch_placeholder_meta"] for node in old_inputs]
    fx_names = [codegen.python_name(leaf.name, taken, RESERVED) for leaf in job.leaves]
    converted = codegen.GraphConverter(step.module, fx_names, attrs, step.var_tensors, [False] * len(attrs),
                                       job.session.device, job.name).convert()
    old_output = next(n for n in reversed(step.module.graph.nodes) if n.op == "output")
    old_returns, old_losses = old_output.args[0][0], old_output.args[0][1]
    outputs, old_outputs = converted.returns, old_returns
    if not outputs:
        outputs, old_outputs = converted.losses, old_losses
    if not outputs:
        raise ValueError(f"{WHAT}: job {job.name!r} returns nothing: an ONNX model needs at least one output")
    root = torch.nn.Module()
    for attr, name in zip(attrs, var_names):
        root.register_buffer(attr, _snapshot_value(snapshot_dir, name, store[name].tensor, job.name))
    for attr, tensor in converted.constants.items():
        root.register_buffer(attr, tensor.detach().cpu())
    graph = torch.fx.Graph()
    mapping: dict[torch.fx.Node, torch.fx.Node] = {}
    graph.graph_copy(converted.graph, mapping)
    graph.output(tuple(mapping[n] for n in outputs))
    graph.eliminate_dead_code(is_impure_node=lambda n: n.is_impure() or bool(n.meta.get("export_impure")))
    module = torch.fx.GraphModule(root, graph, class_name=f"OnnxExportOf_{codegen.python_name(job.name)}").eval()
    inputs = [torch.zeros(tuple(m.shape), dtype=m.dtype) for m in metas]
    input_names = [leaf.name for leaf in job.leaves]
    var_of = {node: name for node, name in zip(
        [n for n in step.module.graph.nodes if n.op == "placeholder" and n.name.startswith("var_")], var_names)}
    names_of = dict(zip(old_inputs, input_names)) | var_of
    output_names = _unique([_blob_name(node, names_of) or f"output_{i}" for i, node in enumerate(old_outputs)],
                           set(input_names))
    return module, inputs, input_names, output_names


def _snapshot_value(snapshot_dir: str, name: str, current: torch.Tensor, job_name: str) -> torch.Tensor:
    """Variable ``name`` as saved in ``snapshot_dir`` (OneFlow's export read each variable's ``out`` file)."""
    entry = read_entry(snapshot_dir, name)
    where = f"{WHAT}: job {job_name!r}, variable {name!r}"
    if entry is None:
        raise SnapshotError(f"{where} is not in snapshot directory {snapshot_dir} (no {name}/out): pass the "
                            "directory flow.checkpoint.save wrote after the job's variables were made")
    shape, dtype = tuple(current.shape), dtypes.from_torch(current.dtype).numpy_dtype
    if entry.shape is None:  # a legacy snapshot (no meta): the variable says what its bytes are
        entry = entry.with_expected(shape, dtype)
    if entry.shape != shape or entry.dtype != dtype:
        raise SnapshotError(f"{where}: the job's variable has shape {shape} and dtype {dtype}; the snapshot's "
                            f"({entry.data_path}) has shape {entry.shape} and dtype {entry.dtype}")
    return torch.from_numpy(entry.numpy())


def _blob_name(node: torch.fx.Node, names_of: dict[torch.fx.Node, str]) -> str | None:
    """The logical blob name OneFlow gave a returned blob (its ONNX output name there)."""
    while node.op == "call_function" and node.target in _DIFF_TAPS and isinstance(node.args[0], torch.fx.Node):
        node = node.args[0]  # a diff tap passes on the blob it watches
    if node in names_of:
        return names_of[node]
    lbn = node.meta.get("flowtorch_lbn")
    return lbn if isinstance(lbn, str) and lbn else None


def _unique(names: list[str], taken: set[str]) -> list[str]:
    out = []
    for name in names:
        unique, n = name, 1
        while unique in taken:
            n += 1
            unique = f"{name}_{n}"
        taken.add(unique)
        out.append(unique)
    return out


def _declared_shapes(job_name: str, names: list[str], inputs: list[torch.Tensor],
                     shape_override: Mapping[str, Sequence[int | None]]) -> list[list[int | None] | None]:
    """Each input's shape_override (``None``: keep the job's), checked; ``-1`` read as ``None`` (free)."""
    if not isinstance(shape_override, Mapping):
        raise TypeError(f"{WHAT}: shape_override must be a dict {{input name: shape}}; "
                        f"received {type(shape_override).__name__}")
    unknown = [key for key in shape_override if key not in names]
    if unknown:
        log.warning("%s: job %r: shape_override names %s, which are not its inputs (%s); ignored", WHAT, job_name,
                    ", ".join(map(repr, unknown)), ", ".join(map(repr, names)) or "none")
    declared: list[list[int | None] | None] = []
    for name, sample in zip(names, inputs):
        if name not in shape_override:
            declared.append(None)
            continue
        shape = list(shape_override[name])
        bad = [d for d in shape if not (d is None or (isinstance(d, (int, np.integer)) and int(d) >= -1))]
        if bad or len(shape) != sample.dim():
            raise ValueError(f"{WHAT}: shape_override[{name!r}] = {shape!r}: expected {sample.dim()} dimensions "
                             f"(the job's input has shape {tuple(sample.shape)}), each an int >= 0, or -1 or None "
                             "for a free one")
        declared.append([None if d is None or int(d) == -1 else int(d) for d in shape])
    return declared


def _torch_export(job_name: str, module: torch.nn.Module, inputs: tuple[torch.Tensor, ...], path: str,
                  input_names: list[str], output_names: list[str], opset: int | None,
                  dynamic_axes: dict[str, dict[int, str]]) -> None:
    def run(version: int | None) -> None:
        with warnings.catch_warnings():
            # torch announces that its TorchScript-based exporter is the legacy one; it is chosen on purpose
            warnings.filterwarnings("ignore", message=".*legacy TorchScript-based ONNX export",
                                    category=DeprecationWarning)
            warnings.filterwarnings("ignore", message="No input args", category=UserWarning)  # a job without inputs
            torch.onnx.export(module, inputs, path, dynamo=False, opset_version=version, input_names=input_names,
                              output_names=output_names, dynamic_axes=dynamic_axes or None)

    try:
        if opset is not None:
            run(opset)
            return
        try:
            run(PREFERRED_OPSET)
        except torch.onnx.errors.UnsupportedOperatorError as exc:
            log.info("%s: job %r needs an opset newer than OneFlow's default %d (%s); using torch's default", WHAT,
                     job_name, PREFERRED_OPSET, exc)
            run(None)
    except Exception as exc:
        why = (" (a train job's batch normalization, on batch statistics, has no ONNX form there: OneFlow's "
               "export refused it too)" if "batch_norm" in str(exc) else "")
        add_note(exc, f"{WHAT}: job {job_name!r}: torch.onnx.export (its TorchScript-based exporter) failed on the "
                      f"job's graph{why}")
        raise


def _finish(onnx: ModuleType, path: str, declared: dict[str, list[int | None] | None],
            extra_opset: list[tuple[str, int]], external_data: bool) -> None:
    """What torch.onnx.export has no argument for: declared input shapes, extra opsets, external data; and
    Transpose perms made non-negative (torch writes ``x.permute(0, -1, 1, 2)`` as is, which ONNX refuses)."""
    model = onnx.load(path, load_external_data=False)
    for node in model.graph.node:
        if node.op_type == "Transpose":
            for attr in node.attribute:
                if attr.name == "perm" and any(p < 0 for p in attr.ints):
                    attr.ints[:] = [p % len(attr.ints) for p in attr.ints]
    for value in model.graph.input:
        shape = declared.get(value.name)
        if shape is None:
            continue
        for i, (dim, size) in enumerate(zip(value.type.tensor_type.shape.dim, shape)):
            if size is None:
                dim.dim_param = dim.dim_param or f"{value.name}_dim{i}"
            else:
                dim.dim_value = size
    imported = {o.domain for o in model.opset_import}
    for domain, version in extra_opset:
        if domain not in imported:
            model.opset_import.append(onnx.helper.make_opsetid(domain, version))
            imported.add(domain)
    already_external = any(t.data_location == onnx.TensorProto.EXTERNAL for t in model.graph.initializer)
    if external_data and not already_external:  # (over 2 GB, torch wrote external data itself)
        location = os.path.basename(path) + ".data"
        stale = os.path.join(os.path.dirname(path), location)
        if os.path.isfile(stale):  # a former export's: onnx appends to the file
            os.remove(stale)
        onnx.external_data_helper.convert_model_to_external_data(
            model, all_tensors_to_one_file=True, location=location,
            size_threshold=EXTERNAL_THRESHOLD)
    onnx.save_model(model, path)

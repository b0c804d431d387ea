"""A job's graph as a saved model serves it: cut to a signature's inputs and outputs, written as plain PyTorch
source, and turned back into a module over a OneFlow snapshot.

OneFlow saved a job's operator confs and rebuilt the job from them (``serving/inference_session.py``); with a
signature, its ``AddInputOutputOpsPass`` made each signature input an input op (replacing the blob's producer)
and each output a return op, and dropped what the outputs do not need. Here the job's captured fx graph is cut
the same way and rewritten into torch calls by :class:`export_codegen.GraphConverter` (as ``flowtorch.export``
does); the result is saved as the source of a ``torch.nn.Module`` whose buffers are the job's variables, named
after their OneFlow names. Source, unlike a pickle or a ``torch.export`` program, needs only torch to read,
runs on any device (the graph takes its device from its inputs) and shows what it computes; loading it runs it,
so a saved model is trusted code, as any model file that holds a program is.

Blobs are found by their logical blob names, which the builder records on each node (``flowtorch_lbn``): an
op's outputs, a variable as ``<variable name>/out`` and the job's inputs as OneFlow's ``Input_<n>/out``.
"""

from __future__ import annotations

import json
import linecache
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import torch
import torch.fx

from flowtorch._src import dtypes
from flowtorch._src.errors import ArgumentError, ExportError, SnapshotError
from flowtorch._src.io.snapshot import read_entry
from flowtorch._src.migrate import export_codegen as codegen
from flowtorch._src.migrate import export_methods
from flowtorch._src.migrate import saved_model_proto as pb
from flowtorch._src.migrate.export import RESERVED, single_process_reasons, step_for_graph
from flowtorch._src.session import Job
from flowtorch._src.step.compile import StepFunction
from flowtorch._src.watch import taps

CLASS_NAME = "ServedGraph"
_VALUE_TAPS = (taps.value_tap, taps.compiled_value_tap)
_DIFF_TAPS = (taps.diff_tap, taps.compiled_diff_tap)


@dataclass
class Interface:
    """One input or output of a served graph: its signature name, the blob it is and what it holds."""

    name: str
    lbn: str
    shape: tuple[int, ...]
    dtype: dtypes.DType
    is_dynamic: bool = False
    split_axis: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "lbn": self.lbn, "shape": list(self.shape), "dtype": self.dtype.name,
                "is_dynamic": self.is_dynamic, "split_axis": self.split_axis}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Interface:
        return cls(str(data["name"]), str(data["lbn"]), tuple(int(d) for d in data["shape"]),
                   dtypes.to_dtype(np.dtype(str(data["dtype"]))), bool(data.get("is_dynamic", False)),
                   data.get("split_axis"))

    def blob_conf(self, conf: Any) -> None:
        """Fill an ``InterfaceBlobConf`` (OneFlow ``GetInterfaceBlobConf``)."""
        conf.shape.dim.extend(self.shape)
        conf.data_type = self.dtype.oneflow_proto_dtype
        conf.is_dynamic = self.is_dynamic
        if self.split_axis is not None:
            conf.parallel_distribution.sbp_parallel.add().split_parallel.axis = self.split_axis


@dataclass
class ServedGraph:
    """A job's graph between a signature's inputs and outputs, as module source and its closed-over constants."""

    job_name: str
    inputs: list[Interface]
    outputs: list[Interface]
    source: str
    constants: dict[str, torch.Tensor] = field(default_factory=dict)


def built_step(job: Job, what: str) -> StepFunction:
    """The job's step, built now if the session has not started; refuses what a saved model cannot serve."""
    job.session.check_open(f"job {job.name!r}")
    if job.eager:
        raise ExportError(f"{what}: job {job.name!r} runs eagerly (flow.enable_eager_execution) and keeps no graph "
                          "to save; define it in lazy mode")
    step = step_for_graph(job, what)
    reasons = ["it is a train job (serve a predict job over the same variables)"] if step.is_train else []
    reasons += single_process_reasons(job, step, "save", "served")
    if reasons:
        raise ExportError(f"{what}: job {job.name!r} cannot be saved: " + "; ".join(reasons))
    return step


class _JobGraph:
    """The job's graph with what names its blobs: lbn → node, the input and variable placeholders."""

    def __init__(self, job: Job, step: StepFunction) -> None:
        self.job = job
        self.graph = step.module.graph
        placeholders = [n for n in self.graph.nodes if n.op == "placeholder"]
        self.inputs = [n for n in placeholders if not n.name.startswith("var_")]
        self.variables = [n for n in placeholders if n.name.startswith("var_")]
        by_tensor = {id(var.tensor): name for name, var in job.session.variables.items()}
        self.var_names = [by_tensor[id(t)] for t in step.var_tensors]
        self.var_tensors = list(step.var_tensors)
        self.by_lbn: dict[str, torch.fx.Node] = {}
        for node, name in zip(self.variables, self.var_names):
            self.by_lbn[f"{name}/out"] = node
        for node in self.graph.nodes:
            lbn = node.meta.get("flowtorch_lbn")
            if isinstance(lbn, str) and "/" in lbn:
                self.by_lbn.setdefault(lbn, node)
        self.output = next(n for n in reversed(self.graph.nodes) if n.op == "output")

    def find(self, lbn: str, what: str) -> torch.fx.Node:
        node = self.by_lbn.get(lbn)
        if node is None:
            known = list(self.by_lbn)
            shown = ", ".join(known[:8]) + (" …" if len(known) > 8 else "")
            raise ArgumentError(f"{what}: job {self.job.name!r} has no blob {lbn!r}; its blobs include {shown}. (An "
                                "op merged into a fused op when the job was compiled, such as a dense layer's matmul, "
                                "has no node of its own)")
        return node

    def input_op_names(self) -> dict[torch.fx.Node, str]:
        """Each input placeholder's OneFlow op name where known, else the job parameter's name."""
        known = {node: lbn.split("/", 1)[0] for lbn, node in self.by_lbn.items() if node in self.inputs}
        return {node: known.get(node, leaf.name) for node, leaf in zip(self.inputs, self.job.leaves)}


def _untapped(node: Any) -> Any:
    while isinstance(node, torch.fx.Node) and node.op == "call_function" and node.target in _DIFF_TAPS:
        node = node.args[0]
    return node


def _meta(node: torch.fx.Node) -> torch.Tensor:
    value = node.meta.get("flowtorch_placeholder_meta", node.meta.get("flowtorch_meta"))
    if not isinstance(value, torch.Tensor):
        raise ExportError(f"graph node {node.name!r} holds no single tensor (it has no static shape)")
    return value


def serve(job: Job, inputs: Sequence[tuple[str, str]] | None, outputs: Sequence[tuple[str, str]] | None,
          what: str) -> ServedGraph:
    """The job's graph from ``inputs`` to ``outputs`` ((signature name, lbn) pairs); ``None`` for both: the job
    as it is, its inputs named after its parameters and its outputs after the returned blobs' ops."""
    step = built_step(job, what)
    jg = _JobGraph(job, step)
    pinned: dict[str, torch.fx.Node] = {}  # the unsigned job's inputs, which need no lbn
    if inputs is None or outputs is None:
        ops = jg.input_op_names()
        inputs = [(leaf.name, f"{ops[node]}/out") for leaf, node in zip(job.leaves, jg.inputs)]
        pinned = {lbn: node for (_, lbn), node in zip(inputs, jg.inputs)}
        outputs = _return_names(jg)
    graph = torch.fx.Graph()
    env: dict[torch.fx.Node, torch.fx.Node] = {}
    graph.graph_copy(jg.graph, env)
    for node in list(graph.nodes):  # watches are no part of what is served
        if node.op == "call_function" and node.target in _VALUE_TAPS:
            graph.erase_node(node)
        elif node.op == "call_function" and node.target in _DIFF_TAPS:
            node.replace_all_uses_with(node.args[0])
            graph.erase_node(node)
    job_inputs = [env[n] for n in jg.inputs]
    var_index = {env[n]: i for i, n in enumerate(jg.variables)}
    served: list[torch.fx.Node] = []
    in_faces: list[Interface] = []
    for k, (name, lbn) in enumerate(inputs):
        old = _untapped(pinned.get(lbn) or jg.find(lbn, what))
        node = env[old]
        meta = _meta(old)
        if node not in job_inputs:  # a blob made inside the job (or a variable) becomes an input: its producer goes
            with graph.inserting_before(next(iter(graph.nodes))):
                placeholder = graph.placeholder(f"served_{k}")
            placeholder.meta["flowtorch_placeholder_meta"] = meta
            node.replace_all_uses_with(placeholder)
            node = placeholder
        served.append(node)
        split = None if old in jg.variables or meta.dim() == 0 else 0  # OneFlow fed its inputs split on axis 0
        in_faces.append(Interface(name, lbn, tuple(meta.shape), dtypes.from_torch(meta.dtype), False, split))
    for node in reversed(served):  # the module's arguments, in signature order
        head = next(iter(graph.nodes))
        if head is not node:
            head.prepend(node)
    out_nodes, out_faces = [], []
    for name, lbn in outputs:
        old = _untapped(pinned.get(lbn) or jg.find(lbn, what))
        meta = _meta(old)
        out_nodes.append(env[old])
        out_faces.append(Interface(name, lbn, tuple(meta.shape), dtypes.from_torch(meta.dtype)))
    graph.output((tuple(out_nodes), ()))
    graph.eliminate_dead_code()
    for node, leaf in zip(job_inputs, job.leaves):
        if node in served:
            continue
        if node.users:
            raise ArgumentError(f"{what}: job {job.name!r}: the signature's outputs depend on the job's input "
                                f"{leaf.name!r}, which the signature does not name as an input")
        graph.erase_node(node)
    kept_vars = []
    for node, i in var_index.items():
        if node.users:
            kept_vars.append(i)
        else:  # unused, or fed as a signature input
            graph.erase_node(node)
    graph.lint()
    return _convert(job, graph, in_faces, out_faces, [jg.var_names[i] for i in kept_vars],
                    [jg.var_tensors[i] for i in kept_vars])


def _return_names(jg: _JobGraph) -> list[tuple[str, str]]:
    """(name, lbn) of each returned blob: its op's name (its lbn where two come from one op)."""
    inputs = jg.input_op_names()
    lbns = []
    for node in jg.output.args[0][0]:
        node = _untapped(node)
        lbn = f"{inputs[node]}/out" if node in inputs else next((k for k, v in jg.by_lbn.items() if v is node), None)
        if lbn is None:
            raise ExportError(f"job {jg.job.name!r} returns a blob without a name of its own ({node.name!r})")
        lbns.append(lbn)
    ops = [lbn.split("/", 1)[0] for lbn in lbns]
    return [(op if ops.count(op) == 1 else lbn, lbn) for op, lbn in zip(ops, lbns)]


def _convert(job: Job, graph: torch.fx.Graph, inputs: list[Interface], outputs: list[Interface],
             var_names: list[str], var_tensors: list[torch.Tensor]) -> ServedGraph:
    taken: set[str] = set()
    attrs = [codegen.python_name(n, taken, RESERVED) for n in var_names]
    arg_names = [codegen.python_name(i.name, taken, RESERVED) for i in inputs]
    module = torch.fx.GraphModule(torch.nn.Module(), graph, class_name=f"Served_{codegen.python_name(job.name)}")
    converted = codegen.GraphConverter(module, arg_names, attrs, var_tensors, [False] * len(attrs),
                                       job.session.device, job.name).convert()
    names = ", ".join(o.name for o in outputs)
    doc = f"The outputs {names}." if len(outputs) > 1 else f"The output {names}."
    method = export_methods.method_source(converted, converted.returns, "forward", doc)
    slots = [(a, tuple(t.shape), t.dtype) for a, t in zip(attrs, var_tensors)]
    slots += [(a, tuple(t.shape), t.dtype) for a, t in converted.constants.items()]
    source = _module_source(job.name, inputs, arg_names, outputs, slots, dict(zip(attrs, var_names)), method)
    constants = {a: t.detach().cpu().contiguous() for a, t in converted.constants.items()}
    return ServedGraph(job.name, inputs, outputs, source, constants)


def _module_source(job_name: str, inputs: list[Interface], arg_names: list[str], outputs: list[Interface],
                   slots: list[tuple[str, tuple[int, ...], torch.dtype]], oneflow_names: dict[str, str],
                   method: str) -> str:
    def line(face: Interface, arg: str | None = None) -> str:
        shown = f"{face.name!r}" + (f" (argument {arg})" if arg is not None and arg != face.name else "")
        return f"    {shown}: {face.dtype.name} {face.shape}, blob {face.lbn}"

    head = [f'"""The graph of OneFlow job {job_name!r} as a saved model serves it: plain PyTorch (needs only torch).',
            "", "Written by flowtorch's flow.saved_model.ModelBuilder. Its buffers are the job's variables, named",
            "after their OneFlow names (`oneflow_names`: attribute -> variable); their values are the saved model's",
            "OneFlow snapshot, which flow.serving.InferenceSession loads into it.", "", "Inputs, in argument order:"]
    head += [line(f, a) for f, a in zip(inputs, arg_names)] or ["    (none)"]
    head += ["Outputs, in return order:", *[line(f) for f in outputs], '"""', "", "import torch", ""]
    head += [f"{name} = float({name!r})" for name in ("inf", "nan") if re.search(rf"\b{name}\b", method)]
    body = [f"class {CLASS_NAME}(torch.nn.Module):"]
    if oneflow_names:
        body += ["    oneflow_names = {", *[f"        {a!r}: {n!r}," for a, n in oneflow_names.items()], "    }"]
    else:
        body.append("    oneflow_names = {}")
    body += ["", "    def __init__(self):", "        super().__init__()"]
    body += [f"        self.register_buffer({attr!r}, torch.empty({shape!r}, dtype={dtype}))"
             for attr, shape, dtype in slots]
    return "\n".join(head) + "\n\n" + "\n".join(body) + "\n\n" + method


def describe_ops(job: Job, lbns: Sequence[str], device: str, what: str) -> list[Any]:
    """The job's ops as OneFlow ``OperatorConf``s, for a saved model's ``op_list``: input ops (their blob
    confs; named ``Input_<n>`` as the job named them),
    variable ops (shape, data type, trainable) and one user op per recorded op (its type, and the logical blob
    names it reads under ``in`` and writes under ``out``; OneFlow's argument names and attributes are not
    recorded). Informational: flowtorch runs the saved module, not this list."""
    step = built_step(job, what)
    jg = _JobGraph(job, step)
    tag = "gpu" if str(device).startswith("cuda") else "cpu"
    names = jg.input_op_names()
    lbn_of: dict[torch.fx.Node, str] = {node: f"{name}/out" for node, name in names.items()}
    lbn_of.update({node: f"{name}/out" for node, name in zip(jg.variables, jg.var_names)})
    ops = []
    for node, leaf in zip(jg.inputs, job.leaves):
        op = pb.OperatorConf(name=names[node], device_tag=tag)
        op.input_conf.out = "out"
        meta = _meta(node)
        Interface(leaf.name, lbn_of[node], tuple(meta.shape), dtypes.from_torch(meta.dtype), False,
                  0 if meta.dim() else None).blob_conf(op.input_conf.blob_conf)
        ops.append(op)
    store = job.session.variables
    for node, name in zip(jg.variables, jg.var_names):
        op = pb.OperatorConf(name=name, device_tag=tag)
        conf = op.variable_conf
        conf.out = "out"
        conf.shape.dim.extend(tuple(_meta(node).shape))
        conf.data_type = cast(pb.DataType, dtypes.from_torch(_meta(node).dtype).oneflow_proto_dtype)  # an enum value
        conf.trainable = bool(store[name].trainable)
        ops.append(op)
    for node in jg.graph.nodes:
        op_name, op_type = node.meta.get("flowtorch_op"), node.meta.get("flowtorch_op_type")
        if node.op != "call_function" or not isinstance(op_name, str) or not isinstance(op_type, str):
            continue
        op = pb.OperatorConf(name=op_name, device_tag=tag)
        op.user_conf.op_type_name = op_type
        reads = [lbn_of.get(_untapped(a)) or _untapped(a).meta.get("flowtorch_lbn")
                 for a in node.all_input_nodes]
        op.user_conf.input["in"].s.extend([r for r in reads if isinstance(r, str) and "/" in r])
        lbn = node.meta.get("flowtorch_lbn")
        if isinstance(lbn, str) and "/" in lbn:
            op.user_conf.output["out"].s.append(lbn)
        ops.append(op)
    return ops


def instantiate(source: str, filename: str, constants: dict[str, torch.Tensor], checkpoint: str,
                device: str | torch.device, what: str) -> torch.nn.Module:
    """The served module of ``source`` on ``device``, its variables read from the snapshot directory
    ``checkpoint`` (OneFlow's model load job read each variable's ``<checkpoint>/<name>/out``)."""
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)  # tracebacks show it
    namespace: dict[str, Any] = {"__name__": "flowtorch_saved_model", "__file__": filename}
    exec(compile(source, filename, "exec"), namespace)  # a saved model's graph: trusted code (module docstring)
    cls = namespace.get(CLASS_NAME)
    if not (isinstance(cls, type) and issubclass(cls, torch.nn.Module)):
        raise ExportError(f"{what}: {filename} defines no torch.nn.Module class {CLASS_NAME!r}")
    module = cls()
    state = dict(constants)
    for attr, name in getattr(cls, "oneflow_names", {}).items():
        want = getattr(module, attr)
        entry = read_entry(checkpoint, name)
        if entry is None:
            raise SnapshotError(f"{what}: variable {name!r} is not in the checkpoint {checkpoint} (no {name}/out)")
        shape, np_dtype = tuple(want.shape), dtypes.from_torch(want.dtype).numpy_dtype
        if entry.shape is None:  # a legacy snapshot (no meta): the graph says what its bytes are
            entry = entry.with_expected(shape, np_dtype)
        if entry.shape != shape or entry.dtype != np.dtype(np_dtype):
            raise SnapshotError(f"{what}: variable {name!r} has shape {shape} and dtype {np.dtype(np_dtype)} in the "
                                f"saved graph; the checkpoint's ({entry.data_path}) has shape {entry.shape} and "
                                f"dtype {entry.dtype}")
        state[attr] = torch.from_numpy(entry.numpy())
    module.load_state_dict(state)
    return module.to(device).eval()


# --- the files of a saved model's graphs ------------------------------------------------------------------------
SIDECAR = "flowtorch"  # <version>/flowtorch/: graphs.json and one module source per served form
INDEX = "graphs.json"
FORMAT = "flowtorch.saved_model/1"


@dataclass
class Form:
    """One served form of a saved graph: a signature's (``None``: the job as it is), as written."""

    signature: str | None
    file: str
    constants: str | None
    inputs: list[Interface]
    outputs: list[Interface]


@dataclass
class SavedGraph:
    job: str
    ops: list[str]  # the names of the graph's op_list
    forms: list[Form]


def write_graphs(version_dir: str, graphs: dict[str, tuple[list[str], dict[str | None, ServedGraph]]]) -> None:
    """Write ``<version_dir>/flowtorch/``: each graph's forms ({signature: served graph}) and the index."""
    root = os.path.join(version_dir, SIDECAR)
    os.makedirs(root)
    index: dict[str, Any] = {"format": FORMAT, "graphs": {}}
    taken: set[str] = set()
    for name, (ops, forms) in graphs.items():
        entries = []
        job = next(iter(forms.values())).job_name if forms else name
        for signature, served in forms.items():
            stem = codegen.python_name(f"{name}__{signature or 'job'}", taken)
            constants = None
            if served.constants:
                constants = f"{stem}.constants.pt"
                torch.save(served.constants, os.path.join(root, constants))
            with open(os.path.join(root, f"{stem}.py"), "w", encoding="utf-8") as f:
                f.write(served.source)
            entries.append({"signature": signature, "file": f"{stem}.py", "constants": constants,
                            "inputs": [i.to_json() for i in served.inputs],
                            "outputs": [o.to_json() for o in served.outputs]})
        index["graphs"][name] = {"job": job, "ops": ops, "forms": entries}
    with open(os.path.join(root, INDEX), "w", encoding="utf-8") as f:
        json.dump(index, f, indent=1)


def read_graphs(version_dir: str, what: str) -> dict[str, SavedGraph] | None:
    """The graphs flowtorch saved in ``version_dir``; ``None`` when it saved none there (OneFlow wrote it)."""
    path = os.path.join(version_dir, SIDECAR, INDEX)
    if not os.path.isfile(path):
        return None
    try:
        with open(path, encoding="utf-8") as f:
            index = json.load(f)
        if index.get("format") != FORMAT:
            raise ValueError(f"format {index.get('format')!r}, expected {FORMAT!r}")
        return {name: SavedGraph(str(g["job"]), [str(o) for o in g["ops"]],
                                 [Form(f["signature"], str(f["file"]), f.get("constants"),
                                       [Interface.from_json(i) for i in f["inputs"]],
                                       [Interface.from_json(o) for o in f["outputs"]]) for f in g["forms"]])
                for name, g in index["graphs"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ExportError(f"{what}: {path} is not an index of flowtorch's saved graphs ({type(exc).__name__}: "
                          f"{exc})") from exc


def load_form(version_dir: str, form: Form, checkpoint: str, device: str | torch.device,
              what: str) -> torch.nn.Module:
    """The module of a saved form on ``device``, its variables from the snapshot directory ``checkpoint``."""
    root = os.path.join(version_dir, SIDECAR)
    path = os.path.join(root, os.path.basename(form.file))
    with open(path, encoding="utf-8") as f:
        source = f.read()
    constants: dict[str, torch.Tensor] = {}
    if form.constants:
        constants = torch.load(os.path.join(root, os.path.basename(form.constants)), map_location="cpu",
                               weights_only=True)
    return instantiate(source, os.path.abspath(path), constants, checkpoint, device, what)

"""``flow.summary.Graph(logdir).write_structure_graph()`` (OneFlow v0.3.4 ``python/summary/summary_graph.py``):
the structure of the session's built jobs as JSON in ``<logdir>/graph/structure_graph.json``.

The layout is OneFlow's (``JobBuildAndInferCtxMgr::structure_graph``, a Keras-like model list): one
``{"class_name": "Model", "config": {"name", "layers", "input_layers", "output_layers"}, "backend"}`` per job,
each layer ``{"name", "class_name", "config", "inbound_nodes"}``. flowtorch's layers are the ops the job
recorded (``class_name`` their OneFlow op type, ``config`` their output's blob name, shape and dtype), its inputs
(named by the job's parameters) and its variables; OneFlow's ``config`` was the op's whole protobuf conf. Only
jobs already built are listed (the session builds every job at its first job call), as OneFlow listed the jobs
it had compiled.
"""

from __future__ import annotations

import json
import os
from typing import Any

import torch.fx

from flowtorch._src import session
from flowtorch._src.ops import op_registry

__all__ = ["Graph", "structure_graph"]


def _tensor_config(meta: Any) -> dict[str, Any]:
    if not isinstance(meta, torch.Tensor):
        return {}
    return {"shape": list(meta.shape), "dtype": str(meta.dtype).removeprefix("torch.")}


def _job_structure(job: session.Job) -> dict[str, Any]:
    step = job.step
    if step is None:
        raise RuntimeError(f"flow.summary.Graph: job {job.name!r} is not built")
    by_tensor = {id(var.tensor): name for name, var in step.variables.items()}
    var_names = [by_tensor.get(id(t), f"var_{i}") for i, t in enumerate(step.var_tensors)]
    input_names = [leaf.name for leaf in job.leaves]
    # an op without outputs carries no op type on its node: the registered type whose kernel it ran
    kernel_types = {op_registry.lookup(t).kernel: t for t in op_registry.registered_names()}
    names: dict[torch.fx.Node, str] = {}
    layers: list[dict[str, Any]] = []
    outputs: list[str] = []
    for node in step.module.graph.nodes:
        if node.op == "placeholder":
            kind, index = node.name.rsplit("_", 1)
            pool = {"input": input_names, "var": var_names}.get(kind, [])
            name = pool[int(index)] if int(index) < len(pool) else node.name
            names[node] = name
            layers.append({"name": name, "class_name": {"var": "variable"}.get(kind, kind),
                           "config": _tensor_config(node.meta.get("flowtorch_placeholder_meta")), "inbound_nodes": []})
        elif node.op == "call_function":
            inbound = list(dict.fromkeys(names[n] for n in node.all_input_nodes if n in names))
            op = node.meta.get("flowtorch_op")
            if op is None:  # a getitem, detach or watch tap: part of the op it reads
                if inbound:
                    names[node] = inbound[0]
                continue
            names[node] = op
            config = {"op_type_name": node.meta.get("flowtorch_op_type") or kernel_types.get(node.target)
                      or getattr(node.target, "__name__", str(node.target)),
                      "lbn": node.meta.get("flowtorch_lbn", op), **_tensor_config(node.meta.get("flowtorch_meta"))}
            layers.append({"name": op, "class_name": config["op_type_name"], "config": config,
                           "inbound_nodes": inbound})
        elif node.op == "output":
            outputs = list(dict.fromkeys(names[n] for n in node.all_input_nodes if n in names))
    return {"name": job.name, "layers": layers, "input_layers": input_names, "output_layers": outputs}


def structure_graph() -> list[dict[str, Any]]:
    """The structure of every built job of the default session (OneFlow's ``GetSerializedStructureGraph``)."""
    jobs = [job for job in session.default_session().jobs.values() if job.step is not None]
    return [{"class_name": "Model", "config": _job_structure(job), "backend": "oneflow"} for job in jobs]


class Graph:
    """``flow.summary.Graph(logdir)``: writes into ``<logdir>/graph`` (made at once)."""

    def __init__(self, logdir: str | os.PathLike[str] | None = None) -> None:
        if logdir is None:
            raise ValueError("flow.summary.Graph: logdir must be a directory path; received None")
        self._logdir = os.path.join(os.fspath(logdir), "graph")
        os.makedirs(self._logdir, exist_ok=True)
        self._structure_graph_filename: str | None = None

    @property
    def logdir(self) -> str:
        return self._logdir

    @property
    def structure_graph_filename(self) -> str | None:
        return self._structure_graph_filename

    def write_structure_graph(self) -> None:
        """Write ``structure_graph.json`` once; an OSError if this Graph already wrote it."""
        if self._structure_graph_filename is not None and os.path.exists(self._structure_graph_filename):
            raise OSError(f"flow.summary.Graph: {self._structure_graph_filename} was already written; write only "
                          "one structure graph per Graph")
        filename = os.path.join(self._logdir, "structure_graph.json")
        with open(filename, "w", encoding="utf-8") as f:
            json.dump(structure_graph(), f)
        self._structure_graph_filename = filename

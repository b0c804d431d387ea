"""``flowtorch.export(job)``: a job as a plain ``torch.nn.Module`` (and, with ``outdir``, as files).

The module is made from generated Python source that imports only torch (``export_source``): its
``forward(*inputs)`` is the job's captured graph without watches, with flowtorch's kernels rewritten into
torch calls (``export_codegen``); its parameters and buffers are the job's variables. A train job also gets
``loss(*inputs)``, ``objective(*inputs)`` (the scalar whose gradient OneFlow's optimizer applied) and its
optimizer as a ``torch.optim.Optimizer`` subclass with OneFlow's rule and its slots as the state, plus the
learning-rate schedule (``export_optim``). See docs/migration/export.md.
"""

from __future__ import annotations

import json
import linecache
import logging
import os
import re
from collections.abc import Callable
from typing import Any

import torch

from flowtorch._src.migrate import export_codegen as codegen
from flowtorch._src.migrate import export_data, export_optim, export_optim_rules, export_source
from flowtorch._src.migrate.atomic_write import write_into_folder
from flowtorch._src.migrate.export_methods import Method, job_methods
from flowtorch._src.migrate.export_source import InputDesc, Slot
from flowtorch._src.migrate.export_target import (
    DATA_PACKAGE,
    EXPORT_FILES,
    WEIGHT_FORMATS,
    check_outdir,
    is_previous_export,
)
from flowtorch._src.migrate.file_writes import save_safetensors, save_torch
from flowtorch._src.package import extra_hint
from flowtorch._src.session import Job
from flowtorch._src.step.compile import StepFunction

log = logging.getLogger("flowtorch")

# Attributes the exported module (or nn.Module) already has: a variable never takes one of these names.
RESERVED = frozenset(dir(torch.nn.Module)) | {"forward", "loss", "objective", "objective_from", "oneflow_names",
                                              "_graph", "optimizer", "lr_scheduler", "source", "self", "device"}


def export(job: Job, outdir: str | os.PathLike[str] | None = None, *, weights: str = "safetensors",
           exact_optimizer: bool = True, force: bool = False) -> torch.nn.Module:
    """The job as a ``torch.nn.Module`` on the session's device (built first if it was not yet).

    ``outdir``: also write ``model.py`` (the module's source, torch only), the weights (``weights`` =
    ``"safetensors"``: ``model.safetensors``, or ``"torch"``: ``model.pt``), ``oneflow_names.json``
    (attribute → OneFlow variable name) and, for a train job, ``optimizer.pt``. ``exact_optimizer=False``
    accepts an optimizer that updates the rows of an embedding whose gradient is not all zero where OneFlow
    updates the gathered ones (``indexed_slices_optimizer_conf``), instead of raising ``NotImplementedError``.

    ``outdir`` is checked first (:func:`check_outdir`; ``force`` writes into a folder that holds other files)
    and written only once every file is complete: a failure, Ctrl-C included, leaves it as it was.

    A train job's module also has ``loss(*inputs)``, ``objective(*inputs)``, ``objective_from(loss)``,
    ``optimizer`` and ``lr_scheduler``: ``optimizer.zero_grad(); module.objective(*batch).backward();
    optimizer.step(); lr_scheduler.step()`` continues the job's training.
    """
    if weights not in WEIGHT_FORMATS:
        raise ValueError(f"flowtorch.export: weights must be one of {', '.join(map(repr, WEIGHT_FORMATS))}; "
                         f"received {weights!r}")
    folder = check_outdir(outdir, force=force) if outdir is not None else None
    step = _built_step(job)
    store = job.session.variables
    by_tensor = {id(var.tensor): name for name, var in store.items()}
    var_names = [by_tensor[id(t)] for t in step.var_tensors]
    taken: set[str] = set()
    attrs = [codegen.python_name(n, taken, RESERVED) for n in var_names]
    params = [store[n].trainable and store[n].tensor.is_floating_point() for n in var_names]
    placeholders = [n for n in step.module.graph.nodes if n.op == "placeholder" and not n.name.startswith("var_")]
    names: set[str] = set(taken)
    inputs = [InputDesc(codegen.python_name(leaf.name, names, RESERVED),
                        tuple(node.meta["flowtorch_placeholder_meta"].shape),
                        node.meta["flowtorch_placeholder_meta"].dtype)
              for leaf, node in zip(job.leaves, placeholders)]
    fed = (export_data.data_inputs(job.feed.runner, names, lambda n, t: codegen.python_name(n, t, RESERVED))
           if job.feed is not None else [])
    inputs += [InputDesc(d.name, d.shape, d.dtype) for d in fed]
    converted = codegen.GraphConverter(step.module, [i.name for i in inputs], attrs, step.var_tensors,
                                       [p and step.is_train for p in params], job.session.device, job.name,
                                       free_batch=True).convert()
    methods, plan = _methods(job, step, converted, inputs, dict(zip(var_names, attrs)), exact_optimizer)
    slots = [Slot(a, tuple(t.shape), t.dtype, p) for a, t, p in zip(attrs, step.var_tensors, params)]
    slots += [Slot(a, tuple(t.shape), t.dtype, False) for a, t in converted.constants.items()]
    class_name = _class_name(job.name)
    oneflow_names = dict(zip(attrs, var_names))
    source = export_source.module_source(
        job_name=job.name, job_type=job.job_type, class_name=class_name, inputs=inputs, slots=slots,
        oneflow_names=oneflow_names, methods=methods, batch_size=converted.batch_size,
        weights_file=WEIGHT_FORMATS[weights],
        optimizer_source=plan.source if plan is not None else None,
        start_step=plan.start_step if plan is not None else None,
        data_usage=export_data.usage_lines({m.name: m.inputs for m in methods}, [d.name for d in fed], step.is_train)
        if fed else None)
    state = {a: t.detach().clone() for a, t in zip(attrs, step.var_tensors)}
    state.update(converted.constants)
    module, namespace = _instantiate(source, class_name, state, job, folder)
    module.to(job.session.device)
    # nn.Module.__setattr__ is typed for tensors and modules only; it keeps any other value as a plain attribute
    module.source = source  # type: ignore[assignment]
    if plan is not None:
        module.optimizer, module.lr_scheduler = _optimizer(module, plan, namespace)
    if folder is not None:
        data_spec = (export_data.pipeline_spec(job.name, job.feed.runner, fed, job.feed.batches_served)
                     if job.feed is not None else None)
        _write(module, folder, source, weights, oneflow_names, data_spec)
    return module


def step_for_graph(job: Job, what: str) -> StepFunction:
    """The job's step, built now if its session has not started, once every pending step has updated the
    variables (for the tools that read a job's graph: export, onnx.export, saved_model)."""
    session = job.session
    session.check_open(f"job {job.name!r}")
    with session.lock:
        if job.step is None:
            session.start()
            if job.step is None:
                job.build()
    session.sync()
    if job.step is None:
        raise RuntimeError(f"{what}: job {job.name!r} has no step after it was built")
    return job.step


def single_process_reasons(job: Job, step: StepFunction, action: str, done: str, data: bool = False) -> list[str]:
    """Why ``step`` is no single-process graph over fed arrays (each a clause for the caller's error):
    ``action``/``done`` name what the tool does ("export"/"exported"); ``data``: the tool exports the job's data
    pipeline too (``export_data``), so only what it cannot write out of it is a reason."""
    reasons = []
    if step.plan is not None:
        reasons.append(f"it runs on several processes ({action} from a single-process run)")
    if job.feed is not None and data:
        reasons += export_data.unexportable_reasons(job.feed.runner)
    elif job.feed is not None:
        reasons.append("it reads its data inside the body (flow.data.*); feed the data as inputs instead")
    kinds = sorted({leaf.leaf_arg.kind for leaf in job.leaves} - {"numpy"})
    if kinds:
        reasons.append(f"its inputs include {', '.join(kinds)} placeholders; only tp.Numpy ones are {done}")
    return reasons


def _built_step(job: Job) -> StepFunction:

    if not isinstance(job, Job):
        raise TypeError("flowtorch.export: job must be a job made by @flow.global_function; received "
                        f"{type(job).__name__} {job!r}")
    job.session.check_open(f"job {job.name!r}")
    if job.eager:
        raise NotImplementedError(f"flowtorch.export: job {job.name!r} runs eagerly (flow.enable_eager_execution); "
                                  "it keeps no graph to export. Define it in lazy mode")
    step = step_for_graph(job, "flowtorch.export")
    reasons = single_process_reasons(job, step, "export", "exported", data=True)
    if step.is_train:
        if step.accumulation > 1:
            reasons.append(f"it accumulates gradients over {step.accumulation} micro-steps")
        if step.int_grads is not None:
            reasons.append("it differentiates through integer blobs")
    if reasons:
        raise NotImplementedError(f"flowtorch.export: job {job.name!r} cannot be exported: " + "; ".join(reasons))
    if step.amp:
        log.warning("flowtorch.export: job %r runs under automatic mixed precision; its export computes in the "
                    "variables' own precision (float32), so results differ by float16/bfloat16 rounding", job.name)
    return step


def _methods(job: Job, step: StepFunction, converted: codegen.Converted, inputs: list[InputDesc],
             attr_of: dict[str, str], exact: bool) -> tuple[list[Method], export_optim.OptimizerPlan | None]:
    what = "the job's returns" if converted.returns else "the job's losses (it returns nothing)"
    methods = job_methods(converted, [i.name for i in inputs], step.is_train, f"{what.capitalize()}.")
    if not step.is_train:
        return methods, None
    loss_inputs = next(m.inputs for m in methods if m.name == "loss")
    methods.append(Method("objective", loss_inputs,
                          _objective_source(step, loss_inputs, attr_of, len(converted.losses))))
    if step.optimizer is None:
        log.warning("flowtorch.export: train job %r has no optimizer; only its objective is exported", job.name)
        return methods, None
    store = job.session.variables
    slots = {name: var.tensor for name, var in store.items()}
    plan = export_optim.plan_optimizer(step.optimizer, [n for n, _ in step.trainable], attr_of, slots,
                                       int(step.step_var[0]), exact, [v.name for v in step.sparse])
    return methods, plan


def _objective_source(step: StepFunction, inputs: list[str], attr_of: dict[str, str], n_losses: int) -> str:
    args = ", ".join(inputs)
    total = ("loss.sum() / loss.numel()" if n_losses == 1
             else "sum(one.sum() for one in loss) / loss[0].numel()")
    lines = [f"def objective(self{', ' if args else ''}{args}):",
             '    """objective_from(loss(...)): one run of the graph (batch norm updates its statistics once)."""',
             f"    return self.objective_from(self.loss({args}))", "",
             "def objective_from(self, loss):",
             '    """The scalar whose gradient OneFlow\'s optimizer applied, from the loss(es) loss() returned: summed',
             "    and divided by the element count of one loss (OneFlow seeds backward with ones and scales by 1/n),",
             '    plus the variables\' regularizers (l1 * |w| + l2 / 2 * w**2)."""',
             f"    total = {total}"]
    for name, (l1, l2) in step.regularizers.items():
        if l1:
            lines.append(f"    total = total + {l1!r} * self.{attr_of[name]}.abs().sum()")
        if l2:
            lines.append(f"    total = total + {l2 / 2!r} * self.{attr_of[name]}.square().sum()")
    lines.append("    return total")
    return "\n".join("    " + line if line else "" for line in lines) + "\n"


def _class_name(job_name: str) -> str:
    name = "".join(part[:1].upper() + part[1:] for part in re.split(r"\W|_", job_name) if part)
    return codegen.python_name(name or "Job", reserved=("load", "load_training", "read_weights", "torch",
                                                        "OneFlowOptimizer", *export_optim_rules.CLASSES))


def _instantiate(source: str, class_name: str, state: dict[str, torch.Tensor], job: Job,
                 outdir: str | os.PathLike[str] | None) -> tuple[torch.nn.Module, dict[str, Any]]:
    filename = (os.path.join(os.path.abspath(outdir), "model.py") if outdir is not None
                else f"<flowtorch export of job {job.key}>")
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)  # tracebacks show it
    namespace: dict[str, Any] = {"__name__": f"flowtorch_export_{codegen.python_name(job.key)}", "__file__": filename}
    exec(compile(source, filename, "exec"), namespace)  # our own generated code
    module = namespace[class_name]()
    module.load_state_dict(state)
    return module, namespace


def _optimizer(module: torch.nn.Module, plan: export_optim.OptimizerPlan, namespace: dict[str, Any]) -> tuple[Any, Any]:
    optimizer = namespace["make_optimizer"](module)
    for attr, entry in plan.state.items():
        p = getattr(module, attr)
        optimizer.state[p] = {k: v.detach().clone().to(p.device) if isinstance(v, torch.Tensor) and k != "step"
                              else v for k, v in entry.items()}
    return optimizer, namespace["make_scheduler"](optimizer)


def _write(module: torch.nn.Module, folder: str, source: str, weights: str, oneflow_names: dict[str, str],
           data_spec: dict[str, Any] | None) -> None:
    """The export's files, written beside ``folder`` and moved in once complete (``atomic_write``): the files
    of a previous export there are replaced, or removed when this export has none of that name. ``data_spec``:
    the job's data pipeline, written as the ``data/`` package (``export_data``)."""
    optimizer = getattr(module, "optimizer", None)
    names = ["model.py", WEIGHT_FORMATS[weights], "oneflow_names.json"] + (["optimizer.pt"] if optimizer else [])
    names += [DATA_PACKAGE] if data_spec is not None else []
    stale = [n for n in EXPORT_FILES if n not in names] if is_previous_export(folder) else []
    tensors = {k: v.detach().cpu().contiguous() for k, v in module.state_dict().items()}
    write_weights = _weights_writer(weights)

    def build(tmp: str) -> None:
        with open(os.path.join(tmp, "model.py"), "w", encoding="utf-8") as f:
            f.write(source)
        write_weights(tensors, os.path.join(tmp, WEIGHT_FORMATS[weights]))
        with open(os.path.join(tmp, "oneflow_names.json"), "w", encoding="utf-8") as f:
            json.dump(oneflow_names, f, indent=1)
        if optimizer is not None:
            save_torch(optimizer.state_dict(), os.path.join(tmp, "optimizer.pt"))
        if data_spec is not None:
            export_data.write_package(os.path.join(tmp, DATA_PACKAGE), data_spec)

    write_into_folder(folder, build, names, stale, appeared=lambda: FileExistsError(
        f"OUTDIR {folder!r} was created by another process during the export; nothing was replaced"))


def _weights_writer(weights: str) -> Callable[[dict[str, torch.Tensor], str], None]:
    if weights == "torch":
        return save_torch
    try:
        from safetensors.torch import save_file  # noqa: PLC0415 - an optional package (flowtorch[export])
    except ImportError as exc:
        raise ImportError("flowtorch.export: writing model.safetensors needs the safetensors package: "
                          f"{extra_hint('export')} (or pass weights='torch')") from exc

    def write(tensors: dict[str, torch.Tensor], path: str) -> None:
        save_safetensors(save_file, tensors, path)

    return write

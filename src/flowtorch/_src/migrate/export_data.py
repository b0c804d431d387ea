"""The data pipeline of a job that reads its data inside the body (``flow.data.*``), for ``flowtorch.export``.

The data ops' outputs that the job graph took (its fed placeholders) become the exported module's last inputs.
With an OUTDIR, the export also writes ``data/``: a package that imports only numpy, torch and Pillow, made of
verbatim copies of flowtorch's own data modules (``record_kernels``, ``record_plan``, ``resize``, ``imdecode``,
``portable_loader``: the kernels the job's loader ran) and ``pipeline.json``, the pipeline as data (folders,
part files, batch size, shuffling, seeds, each op's kernel and parameters). ``data.make_loader()`` is a
``torch.utils.data.DataLoader`` yielding the job's batches, a tuple in the order of the module's data inputs.

Only the OFRecord ops whose kernels ``portable_loader.KERNELS`` holds are exported
(``job_scan.EXPORTABLE_DATA_OPS``, the list ``flowtorch check`` reports from too); any other data op makes the
export fail with its name.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from flowtorch._src.data import blobs as db
from flowtorch._src.data import imdecode, portable_loader, readers, record_kernels, record_plan, resize
from flowtorch._src.data.pipeline import BatchRunner
from flowtorch._src.migrate.job_scan import EXPORTABLE_DATA_OPS

# The flow.* data ops an export reads again (check's names; image.Resize only to a fixed size).
_SHOWN = sorted(EXPORTABLE_DATA_OPS)
# Each supported kernel (as the job's pipeline holds it) → its name in portable_loader.KERNELS.
_KERNELS: dict[Callable[..., Any], str] = {readers.parse_records: "parse_records"}
_KERNELS.update({fn: name for name, fn in portable_loader.KERNELS.items() if name != "parse_records"})
# The modules data/ holds, copied verbatim (each imports only numpy, torch, Pillow and its siblings).
_COPIED = (record_kernels, record_plan, resize, imdecode, portable_loader)

_INIT = '''"""The data pipeline of job {job!r}, exported by flowtorch: numpy, torch and Pillow only.

    import data
    loader = data.make_loader()  # the job's next batches; make_loader(start=0) from its first one
    for {names} in loader:
        ...

Each item is a tuple of tensors in the order of the module's data inputs ({names}); pipeline.json holds the
readers' folders (make_loader(data_dir=...) reads another), part files, batch sizes, shuffling and seeds, and
each data op's kernel and parameters.
"""

import json
import os

from . import portable_loader

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "pipeline.json"), encoding="utf-8") as _f:
    SPEC = json.load(_f)

INPUTS = tuple(fed["name"] for fed in SPEC["fed"])


def make_loader(data_dir=None, start=None, num_batches=None, num_workers=0, **loader_args):
    """The job's batches as a torch DataLoader (see portable_loader.make_loader)."""
    return portable_loader.make_loader(SPEC, data_dir, start, num_batches, num_workers, **loader_args)
'''


@dataclass
class DataInput:
    """One fed placeholder of the job graph: an input of the exported module."""

    name: str
    shape: tuple[int, ...]
    dtype: torch.dtype
    slot: int


def exportable_data_ops() -> tuple[str, ...]:
    """The ``flow.*`` data ops (without ``flow.``, as ``flowtorch check`` names them) whose pipelines
    ``flowtorch.export`` writes out: ``job_scan``'s list, the one both commands consult."""
    return tuple(_SHOWN)


def _kernel(op: db.DataOp) -> tuple[Callable[..., Any], dict[str, Any]]:
    kernel = op.kernel
    if isinstance(kernel, functools.partial) and not kernel.args:
        return kernel.func, dict(kernel.keywords)
    return kernel, {}


def unexportable_reasons(runner: BatchRunner) -> list[str]:
    """Why the job's pipeline cannot be exported (each a clause naming the op); empty when it can."""
    reasons = []
    for op in runner.ops:
        fn, _ = _kernel(op)
        if fn not in _KERNELS:
            reasons.append(f"its data op {op.name!r} ({getattr(fn, '__qualname__', fn)}) has no exported form "
                           f"(exported: {', '.join(_SHOWN)}; image.Resize to a fixed size only)")
        elif op.source is not None and type(runner.sources[op.source]) is not readers.RecordSource:
            reasons.append(f"its data op {op.name!r} reads {type(runner.sources[op.source]).__name__} records")
    for spec in runner.specs:
        if spec.kind != db.TENSOR or spec.dynamic:
            reasons.append(f"its graph takes data blob {spec.lbn} as a {'dynamic ' if spec.dynamic else ''}"
                           f"{spec.kind}; only static tensors are exported")
    return reasons


def data_inputs(runner: BatchRunner, taken: set[str], reserved: Callable[[str, set[str]], str]) -> list[DataInput]:
    """The module's data inputs, named after the ops' blobs (``OFRecordRawDecoder_2/out_0`` →
    ``of_record_raw_decoder_2``) by ``reserved(name, taken)``."""
    out = []
    for slot, spec in zip(runner.fed, runner.specs):
        op, _, blob = spec.lbn.partition("/")
        base = op if blob in ("out", "out_0") else f"{op}_{blob}"
        name = re.sub(r"(?<=[a-z])(?=[A-Z])", "_", base).lower()
        out.append(DataInput(reserved(name, taken), tuple(spec.shape), spec.dtype, slot))
    return out


def pipeline_spec(job_name: str, runner: BatchRunner, inputs: list[DataInput], next_batch: int) -> dict[str, Any]:
    """``pipeline.json``: what ``portable_loader.make_loader`` needs to make the job's batches."""
    sources = []
    for source in runner.sources:
        paths = [ix.path for ix in source.indexes]
        folder = os.path.dirname(paths[0])
        sources.append({"data_dir": folder, "parts": [os.path.relpath(p, folder) for p in paths],
                        "batch_size": source.batch_size, "random_shuffle": source.random_shuffle,
                        "shuffle_buffer_size": source.shuffle_buffer_size,
                        "shuffle_after_epoch": source.shuffle_after_epoch, "seed": source.seed,
                        "shards": source.shards})
    ops = []
    for op in runner.ops:
        fn, params = _kernel(op)
        encoded = {k: portable_loader.encode_value(v) for k, v in params.items()}
        ops.append({"name": op.name, "kernel": _KERNELS[fn], "params": encoded,
                    "inputs": list(op.inputs), "outputs": list(op.outputs), "seed": op.seed, "source": op.source})
    fed = [{"name": i.name, "slot": i.slot, "shape": list(i.shape), "dtype": str(i.dtype).replace("torch.", "")}
           for i in inputs]
    return {"job": job_name, "next_batch": next_batch, "sources": sources, "ops": ops, "fed": fed}


def write_package(folder: str, spec: dict[str, Any]) -> None:
    """``folder`` (a new directory): the copied modules, ``pipeline.json`` and ``__init__.py``; each file synced."""
    os.mkdir(folder)
    files = []
    for module in _COPIED:
        source = module.__file__
        if source is None:  # (every module here is a file)
            raise RuntimeError(f"flowtorch.export: module {module.__name__} has no file to copy")
        files.append(shutil.copyfile(source, os.path.join(folder, os.path.basename(source))))
    names = ", ".join(f["name"] for f in spec["fed"])
    for name, text in (("pipeline.json", json.dumps(spec, indent=1) + "\n"),
                       ("__init__.py", _INIT.format(job=spec["job"], names=names or "batch"))):
        files.append(os.path.join(folder, name))
        with open(files[-1], "w", encoding="utf-8") as f:
            f.write(text)
    for path in files:
        with open(path, "rb") as synced:
            os.fsync(synced.fileno())


def usage_lines(takes: dict[str, list[str]], data_names: list[str], train: bool) -> list[str]:
    """The lines of model.py's usage docstring that read the job's batches with ``data.make_loader()``;
    ``takes``: each method's inputs (forward's may be fewer than a batch holds)."""
    batch = ", ".join(data_names)
    one = "," if len(data_names) == 1 else ""
    lines = ["The job's data pipeline is in data/ (numpy, torch and Pillow only): data.make_loader() yields its",
             f"batches, each ({batch}{one}), from the batch the job would have read next (start=0: from",
             "its first).", "", "Usage::", "", "    import data, model",
             "    net = model.load()  # the weights next to this file",
             f"    {batch}{one} = next(iter(data.make_loader()))",
             f"    out = net({', '.join(takes.get('forward', []))})"]
    if train:
        lines += ["", "    net, optimizer, scheduler = model.load_training()  # continue where the job stopped",
                  f"    for {batch}{one} in data.make_loader(num_batches=100):",
                  "        optimizer.zero_grad()",
                  f"        loss = net.loss({', '.join(takes.get('loss', []))})  # the job's loss blob, unreduced",
                  "        net.objective_from(loss).backward()  # reduced as OneFlow's optimizer saw it",
                  "        optimizer.step()", "        scheduler.step()"]
    return lines

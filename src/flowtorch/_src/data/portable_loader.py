"""A job's OFRecord data pipeline as a ``torch.utils.data.DataLoader``, run from its description alone, with
numpy, torch and Pillow (no flowtorch import: ``flowtorch.export`` copies this file verbatim, with
``record_kernels``, ``record_plan``, ``resize`` and ``imdecode``, into an export's ``data/`` package, next to
the ``pipeline.json`` that describes the job's pipeline).

The description (:func:`make_loader`'s ``spec``) is plain JSON: ``sources`` (each reader's folder, part files,
batch size, shuffling and seed), ``ops`` (each data op's kernel by name, its parameters, the value slots it reads
and writes, its seed and source) and ``fed`` (the slots the job graph took, in the order of the exported
module's data inputs, with their shapes and dtypes). Each batch is made by the same kernels, in the same order,
with the same random streams (a function of the op's seed and the batch number) as the job's own loader, so the
batches are the job's.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import torch
import torch.utils.data

from . import record_kernels as rk
from . import record_plan

KERNELS: dict[str, Callable[..., Any]] = {
           "parse_records": rk.parse_records, "decode_raw": rk.decode_raw, "decode_bytes": rk.decode_bytes,
           "decode_records": rk.decode_records, "resize_to_fixed": rk.resize_to_fixed,
           "crop_mirror_normalize": rk.crop_mirror_normalize, "decode_crop_resize": rk.decode_crop_resize,
           "flip": rk.flip, "to_tensor": rk.to_tensor}


def encode_value(value: Any) -> Any:
    """A kernel parameter as JSON: tuples, numpy dtypes and arrays tagged so :func:`decode_value` restores them."""
    if isinstance(value, tuple):
        return {"tuple": [encode_value(v) for v in value]}
    if isinstance(value, list):
        return [encode_value(v) for v in value]
    if isinstance(value, np.ndarray):
        return {"array": value.tolist(), "dtype": value.dtype.name}
    if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
        return {"dtype": np.dtype(value).name}
    if isinstance(value, np.generic):
        return value.item()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"a data op parameter of type {type(value).__name__} cannot be written as JSON: {value!r}")


def decode_value(value: Any) -> Any:
    """:func:`encode_value`'s inverse; a plain dict (an op's parameters) decodes each value."""
    if isinstance(value, list):
        return [decode_value(v) for v in value]
    if isinstance(value, dict):
        if set(value) not in ({"tuple"}, {"array", "dtype"}, {"dtype"}):
            return {k: decode_value(v) for k, v in value.items()}
        if "tuple" in value:
            return tuple(decode_value(v) for v in value["tuple"])
        if "array" in value:
            return np.asarray(value["array"], dtype=value["dtype"])
        return np.dtype(value["dtype"])
    return value


class Pipeline:
    """The described pipeline: :meth:`run` makes batch ``step`` from the records its sources' plans chose."""

    def __init__(self, spec: dict[str, Any], data_dirs: Sequence[str]) -> None:
        self.sources = []
        for source, folder in zip(spec["sources"], data_dirs):
            indexes = [record_plan.scan(os.path.join(folder, part)) for part in source["parts"]]
            self.sources.append(record_plan.RecordPlan(
                indexes, source["batch_size"], source["random_shuffle"], source["shuffle_buffer_size"],
                source["shuffle_after_epoch"], source["seed"], source["shards"]))
        for op in spec["ops"]:
            if op["kernel"] not in KERNELS:
                raise ValueError(f"pipeline.json: data op {op['name']!r} names kernel {op['kernel']!r}, which this "
                                 f"loader does not have; its kernels are {', '.join(sorted(KERNELS))}")
        self.ops = [(op["name"], functools.partial(KERNELS[op["kernel"]], **decode_value(op["params"])),
                     op["inputs"], op["outputs"], op["seed"], op["source"]) for op in spec["ops"]]
        self.fed = spec["fed"]

    def run(self, step: int, locations: Sequence[Any]) -> tuple[torch.Tensor, ...]:
        values: dict[int, Any] = {}
        for name, kernel, inputs, outputs, seed, source in self.ops:
            records = None if source is None else self.sources[source].fetch(locations[source])
            out = kernel(rk.OpContext(name, step, seed, records), *(values[i] for i in inputs))
            values.update(zip(outputs, out if isinstance(out, tuple) else (out,)))
        batch = []
        for fed in self.fed:
            tensor = torch.from_numpy(np.array(values[fed["slot"]], copy=True))
            if list(tensor.shape) != fed["shape"] or str(tensor.dtype) != "torch." + fed["dtype"]:
                raise RuntimeError(f"data input {fed['name']!r} of batch {step} is {tuple(tensor.shape)} "
                                   f"{tensor.dtype}; the job's graph took {tuple(fed['shape'])} {fed['dtype']}")
            batch.append(tensor)
        return tuple(batch)


class _Batches(torch.utils.data.Dataset):
    def __init__(self, pipeline: Pipeline) -> None:
        self.pipeline = pipeline

    def __getitem__(self, key: tuple[int, tuple[Any, ...]]) -> tuple[torch.Tensor, ...]:
        return self.pipeline.run(*key)


class _Plan(torch.utils.data.Sampler):
    """``(batch number, each source's records)`` from batch ``start`` on, ``count`` of them (None: forever)."""

    def __init__(self, sources: Sequence[record_plan.RecordPlan], start: int, count: int | None) -> None:
        self.sources, self.start, self.count = sources, start, count

    def __iter__(self) -> Iterator[tuple[int, tuple[Any, ...]]]:
        plans = [source.batches(self.start) for source in self.sources]
        step = self.start
        while self.count is None or step < self.start + self.count:
            yield step, tuple(next(p) for p in plans)
            step += 1

    def __len__(self) -> int:
        if self.count is None:
            raise TypeError("the loader has no length: it runs forever (pass num_batches)")
        return self.count


def _count(name: str, value: Any) -> int | None:
    """``value`` of make_loader's argument ``name``: None, or an int >= 0."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"make_loader: {name} must be an int >= 0 or None; received {value!r} "
                        f"({type(value).__name__})")
    if value < 0:
        raise ValueError(f"make_loader: {name} must be an int >= 0 or None; received {value}")
    return int(value)


def _folders(data_dir: Any, count: int) -> list[str] | None:
    """make_loader's ``data_dir``: None, one folder for every reader, or one per reader."""
    if data_dir is None:
        return None
    if isinstance(data_dir, (str, os.PathLike)):
        return [os.fspath(data_dir)] * count
    if not isinstance(data_dir, (list, tuple)) or not all(isinstance(d, (str, os.PathLike)) for d in data_dir):
        raise TypeError(f"make_loader: data_dir must be a folder (str or path) or a list of {count}; received "
                        f"{data_dir!r}")
    if len(data_dir) != count:
        raise ValueError(f"make_loader: data_dir: the pipeline has {count} reader(s); received {len(data_dir)} "
                         "folders")
    return [os.fspath(d) for d in data_dir]


def make_loader(spec: dict[str, Any], data_dir: str | Sequence[str] | None = None, start: int | None = None,
                num_batches: int | None = None, num_workers: int = 0,
                **loader_args: Any) -> torch.utils.data.DataLoader:
    """A DataLoader whose items are the job's batches, each a tuple of tensors in the order of the module's
    data inputs: from batch ``start`` (default: the batch the job would have read next), ``num_batches`` of them
    (default: forever, as the job's readers cycle their files). ``data_dir`` replaces the readers' folders (one
    for all, or one per reader). ``loader_args`` go to ``torch.utils.data.DataLoader`` (``pin_memory`` …).
    Each argument is checked first (TypeError or ValueError naming it). A reader that does not shuffle is
    entered at ``start`` at once, however far; a shuffled one replays its order up to it
    (``record_plan.RecordPlan.batches``)."""
    first, count, workers = _count("start", start), _count("num_batches", num_batches), _count("num_workers",
                                                                                              num_workers)
    dirs = _folders(data_dir, len(spec["sources"])) or [s["data_dir"] for s in spec["sources"]]
    pipeline = Pipeline(spec, dirs)
    first = spec["next_batch"] if first is None else first
    for source in pipeline.sources:  # a start too far for a shuffled reader is refused here, not in a worker
        source.batches(first)
    return torch.utils.data.DataLoader(_Batches(pipeline), sampler=_Plan(pipeline.sources, first, count),
                                       batch_size=None, num_workers=workers or 0, **loader_args)

"""The text of an exported job's ``model.py``: a torch-only module class, its loaders and (train jobs) its
optimizer. :func:`flowtorch.export` executes this same text to make the module it returns, so the file and the
in-memory module cannot drift apart."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from flowtorch._src.migrate.export_methods import Method


@dataclass
class Slot:
    """One module attribute: a job variable (or a constant a kernel closed over)."""

    attr: str
    shape: tuple[int, ...]
    dtype: torch.dtype
    parameter: bool  # a trainable variable: torch.nn.Parameter; else a buffer


@dataclass
class InputDesc:
    name: str
    shape: tuple[int, ...]
    dtype: torch.dtype


def _shown_shape(shape: tuple[int, ...], batch_size: int | None) -> str:
    if batch_size is None or not shape or shape[0] != batch_size:
        return str(tuple(shape))
    return "(" + ", ".join(["N", *map(str, shape[1:])]) + ("," if len(shape) == 1 else "") + ")"


_READER = '''

_SAFETENSORS_DTYPES = {
    "F64": torch.float64, "F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16, "I64": torch.int64,
    "I32": torch.int32, "I16": torch.int16, "I8": torch.int8, "U8": torch.uint8, "BOOL": torch.bool,
}


_MAX_HEADER = 100_000_000  # the largest header safetensors reads (its HeaderTooLarge)


def read_weights(path):
    """The state dict in `path`: a .safetensors file (read by the safetensors package when it is installed,
    else here with torch alone, within safetensors' limits) or a torch.save file."""
    if not path.endswith(".safetensors"):
        return torch.load(path, map_location="cpu", weights_only=True)
    try:
        from safetensors.torch import load_file
    except ImportError:
        return read_safetensors(path)
    return load_file(path)


def read_safetensors(path):
    """A .safetensors file's tensors, checked as safetensors checks them: ValueError naming the file for a
    header longer than its limit or the file, and for offsets outside the data or not covering it."""
    with open(path, "rb") as f:
        head = f.read(8)
        if len(head) < 8:
            raise ValueError(f"{path}: not a safetensors file: {len(head)} bytes, fewer than its header's length")
        size = int.from_bytes(head, "little")
        if size > _MAX_HEADER:
            raise ValueError(f"{path}: not a safetensors file: header of {size} bytes (at most {_MAX_HEADER})")
        raw = f.read(size)
        data = f.read()
    try:
        header = json.loads(raw) if len(raw) == size else None
    except ValueError:
        header = None
    if not isinstance(header, dict):
        raise ValueError(f"{path}: not a safetensors file: its {size}-byte header is no JSON object")
    state, spans = {}, []
    for name, info in header.items():
        if name == "__metadata__":
            continue
        try:
            dtype, shape, (begin, end) = _SAFETENSORS_DTYPES[info["dtype"]], info["shape"], info["data_offsets"]
            count = math.prod(shape)
            ok = all(type(v) is int and v >= 0 for v in (*shape, begin, end))
        except (KeyError, TypeError, ValueError):
            ok = False
        if not ok or not begin <= end <= len(data) or end - begin != count * dtype.itemsize:
            raise ValueError(f"{path}: tensor {name!r}: {info!r} does not describe {len(data)} bytes of data")
        spans.append((begin, end))
        flat = torch.frombuffer(bytearray(data[begin:end]), dtype=dtype) if count else torch.empty(0, dtype=dtype)
        state[name] = flat.reshape(shape)
    covered = 0
    for begin, end in sorted(spans):
        covered = end if begin == covered else -1
    if covered != len(data):
        raise ValueError(f"{path}: the tensors' data offsets do not cover its {len(data)} bytes of data once")
    return state


def load(directory=None, device="cpu"):
    """The model with its weights (from `directory`, by default this file's own)."""
    directory = directory or os.path.dirname(os.path.abspath(__file__))
    model = {cls}()
    model.load_state_dict(read_weights(os.path.join(directory, WEIGHTS)))
    return model.to(device)
'''

_TRAINING = '''

def load_training(directory=None, device="cpu"):
    """(model, optimizer, scheduler) as the job left them: the next optimizer.step() is OneFlow's step START_STEP."""
    directory = directory or os.path.dirname(os.path.abspath(__file__))
    model = load(directory, device)
    optimizer = make_optimizer(model)
    # load_state_dict moves the state's tensors (OneFlow's slots) to the parameters' device
    optimizer.load_state_dict(torch.load(os.path.join(directory, "optimizer.pt"), map_location="cpu",
                                         weights_only=True))
    return model, optimizer, make_scheduler(optimizer)
'''


def module_source(*, job_name: str, job_type: str, class_name: str, inputs: Sequence[InputDesc],
                  slots: Sequence[Slot], oneflow_names: dict[str, str], methods: Sequence[Method],
                  batch_size: int | None, weights_file: str, optimizer_source: str | None,
                  start_step: int | None, data_usage: Sequence[str] | None = None) -> str:
    """The whole file (see the module docstring). ``data_usage``: the docstring's usage lines for a job whose
    data the export's ``data/`` package reads (``export_data.usage_lines``), in place of the default ones."""
    takes = {m.name: m.inputs for m in methods}
    call = ", ".join(takes.get("forward", []))
    shapes = "\n".join(f"    {i.name}: {str(i.dtype).replace('torch.', '')} {_shown_shape(i.shape, batch_size)}"
                       for i in inputs)
    if batch_size is None:
        shape_note = "Inputs (OneFlow's static shapes; the graph is specialised to them):"
    else:
        shape_note = (f"Inputs (the job ran batches of {batch_size}; N, their first dimension, is any batch size "
                      "here):")
    usage = [f'"""Job {job_name!r} ({job_type}) exported from flowtorch to plain PyTorch: needs only torch.',
             "", shape_note, shapes or "    (none)", "", "Methods and the inputs each takes:", "",
             *[f"    {m.name}({', '.join(m.inputs)})" for m in methods if not m.name.startswith("_")], "",
             "Usage::", "", "    import model", "    net = model.load()  # the weights next to this file",
             f"    out = net({call})"]
    if job_type == "train":
        usage += ["", "    net, optimizer, scheduler = model.load_training()  # continue where the job stopped",
                  "    for batch in data:", "        optimizer.zero_grad()",
                  f"        loss = net.loss({', '.join(takes.get('loss', []))})  # the job's loss blob, unreduced",
                  "        net.objective_from(loss).backward()  # reduced as OneFlow's optimizer saw it",
                  "        optimizer.step()", "        scheduler.step()"]
    if data_usage is not None:  # the inputs and methods as above, then the usage over data.make_loader()
        usage = usage[:usage.index("Usage::")] + list(data_usage)
    usage += ['"""', "", "import json", "import math", "import os", "", "import torch", ""]
    code = "".join(m.source for m in methods)
    usage += [f"{name} = float({name!r})" for name in ("inf", "nan") if re.search(rf"\b{name}\b", code)]
    usage.append(f"WEIGHTS = {weights_file!r}")
    if start_step is not None:
        usage.append(f"START_STEP = {start_step}  # the job's next train step (0-based)")
    body = [f"class {class_name}(torch.nn.Module):",
            f'    """The graph of job {job_name!r} without its watches; variables are parameters (trainable) or',
            '    buffers, named after their OneFlow names (`oneflow_names`: attribute → OneFlow variable)."""', "",
            "    oneflow_names = {"]
    body += [f"        {attr!r}: {name!r}," for attr, name in oneflow_names.items()]
    body += ["    }", "", "    def __init__(self):", "        super().__init__()"]
    for s in slots:
        empty = f"torch.empty({tuple(s.shape)!r}, dtype={s.dtype})"
        if s.parameter:
            body.append(f"        self.{s.attr} = torch.nn.Parameter({empty})")
        else:
            body.append(f"        self.register_buffer({s.attr!r}, {empty})")
    text = "\n".join(usage) + "\n\n\n" + "\n".join(body) + "\n"
    for method in methods:
        text += "\n" + method.source
    if optimizer_source is not None:
        text += optimizer_source
    text += _READER.replace("{cls}", class_name)
    if optimizer_source is not None:
        text += _TRAINING
    return text

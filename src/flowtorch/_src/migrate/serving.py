"""``flow.serving``: InferenceSession, SessionOption, ModelVersionPolicy (OneFlow
``serving/inference_session.py``, v0.4.0).

``InferenceSession(option)`` loads saved models (``load_saved_model(dir, model_version)``, or OneFlow's
manual ``set_checkpoint_path`` / ``open(job, signature, batch_size)`` / ``compile(op_list)``), ``launch()``
reads the variables from the checkpoint and ``run(job, **inputs)`` returns the job's outputs as numpy arrays.

OneFlow compiled the saved ``op_list`` into a job of its own runtime. flowtorch serves the graph that
``flow.saved_model.ModelBuilder`` saved next to it (``<version>/flowtorch/``: a plain PyTorch module per
signature, :mod:`.saved_model_graph`), on the device flowtorch's jobs use (the CPU for ``device_tag="cpu"``).
The ``op_list`` is kept and checked against that graph; a saved model written by OneFlow itself has only the
op list, which flowtorch cannot run: loading it raises :class:`~flowtorch._src.errors.ExportError`.
The session is flowtorch's own: it neither needs nor changes the default session of ``@flow.global_function``
jobs.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from google.protobuf import message as pb_message
from google.protobuf import text_format

from flowtorch._src.errors import ArgumentError, ExportError
from flowtorch._src.migrate import saved_model_graph as graphs
from flowtorch._src.migrate import saved_model_proto as pb
from flowtorch._src.migrate.saved_model import lbn_of
from flowtorch._src.session import default_session

log = logging.getLogger("flowtorch")


def _is_int(val: str) -> bool:
    try:
        int(val)
    except ValueError:
        return False
    return True


def _latest_version(saved_model_dir: str) -> str:
    versions = [f for f in os.listdir(saved_model_dir)
                if _is_int(f) and os.path.isdir(os.path.join(saved_model_dir, f))]
    if not versions:
        raise ValueError(f"no model version in {saved_model_dir} (a sub-directory named by an integer, as "
                         "ModelBuilder.Version(v).Save() writes)")
    return max(versions, key=int)


class ModelVersionPolicy(enum.Enum):
    LATEST = 1


class SessionOption:
    """``device_tag`` ("gpu" or "cpu"), ``device_num`` and ``is_mirrored_view`` of an inference session."""

    def __init__(self) -> None:
        self.device_tag = "gpu"
        self.device_num = 1
        self.is_mirrored_view = False


@dataclass
class _Job:
    """One job of the session: what open() and compile() were given, and, once found, the graph it serves."""

    name: str
    signature: Any = None  # a JobSignatureDef, or None: the job as saved without a signature
    batch_size: int | None = None
    op_list: list[Any] | None = None
    version_dir: str | None = None  # where its saved model is (else: the checkpoint path's parent)
    form: graphs.Form | None = None
    inputs: list[graphs.Interface] = field(default_factory=list)
    outputs: list[graphs.Interface] = field(default_factory=list)
    module: torch.nn.Module | None = None


class InferenceSession:
    """Loads saved models and runs their jobs on numpy inputs (see the module docstring)."""

    class SessionStatus(enum.Enum):
        OPEN = 1
        RUNNING = 2
        CLOSED = 3

    def __init__(self, option: SessionOption | None = None) -> None:
        if option is not None and not isinstance(option, SessionOption):
            raise ArgumentError(f"InferenceSession: option must be a flow.serving.SessionOption or None; received "
                                f"{type(option).__name__}")
        self.option_ = option if option is not None else SessionOption()
        self.is_mirrored_ = self.option_.is_mirrored_view
        self.checkpoint_path_: str | None = None
        self.jobs_: dict[str, _Job] = {}
        self.cur_job_name_: str | None = None
        self.status_: InferenceSession.SessionStatus | None = None
        self.device_ = "cpu"
        self.init()

    def init(self) -> None:
        tag = self.option_.device_tag
        if tag not in ("gpu", "cpu"):
            raise NotImplementedError(f"not supported device tag {tag}")
        if not isinstance(self.option_.device_num, int) or self.option_.device_num < 1:
            raise ArgumentError(f"SessionOption.device_num must be an int >= 1; received {self.option_.device_num!r}")
        self.device_ = "cpu" if tag == "cpu" else default_session().device
        if tag == "gpu" and not self.device_.startswith("cuda"):
            log.info("flow.serving.InferenceSession: device_tag 'gpu', but flowtorch runs on %s here", self.device_)
        if self.option_.device_num > 1:
            log.info("flow.serving.InferenceSession: device_num=%d: the session runs its jobs on one device (%s)",
                     self.option_.device_num, self.device_)
        self.status_ = self.SessionStatus.OPEN

    def close(self) -> None:
        """Drop the loaded graphs; the session can no longer run."""
        for job in self.jobs_.values():
            job.module = None
        self.status_ = self.SessionStatus.CLOSED

    def _check_status(self, what: str, *status: InferenceSession.SessionStatus) -> None:
        if self.status_ not in status:
            allowed = ", ".join(s.name for s in status)
            current = self.status_.name if self.status_ is not None else None
            raise ValueError(f"The calling to {what} is only allowed when status is {allowed}, current status is "
                             f"{current}")

    def _job(self, job_name: Any, what: str) -> _Job:
        job = self.jobs_.get(job_name) if isinstance(job_name, str) else None
        if job is None:
            known = ", ".join(map(repr, self.jobs_)) or "none"
            raise ValueError(f"InferenceSession.{what}: no job {job_name!r} in this session (its jobs: {known})")
        return job

    # --- building the session ------------------------------------------------------------------------------
    def set_checkpoint_path(self, checkpoint_path: str) -> None:
        """The snapshot directory launch() reads the variables from."""
        self._check_status("set_checkpoint_path", self.SessionStatus.OPEN)
        if not isinstance(checkpoint_path, (str, os.PathLike)):
            raise ArgumentError(f"InferenceSession.set_checkpoint_path: expected a path; received {checkpoint_path!r}")
        self.checkpoint_path_ = os.fspath(checkpoint_path)

    def _get_job(self, job_name: str) -> _Job:
        if not isinstance(job_name, str):
            raise ArgumentError(f"InferenceSession: job_name must be a str; received {job_name!r}")
        return self.jobs_.setdefault(job_name, _Job(job_name))

    def set_job_signature(self, job_name: str, signature: Any) -> None:
        """Serve job ``job_name`` through ``signature`` (a ``JobSignatureDef`` of its saved model)."""
        if not (isinstance(signature, pb_message.Message)
                and signature.DESCRIPTOR.full_name == "oneflow.JobSignatureDef"):
            raise ArgumentError(f"InferenceSession.set_job_signature: signature must be a JobSignatureDef (a value of "
                                f"a saved model's graphs[name].signatures); received {type(signature).__name__}")
        job = self._get_job(job_name)
        job.signature = pb.JobSignatureDef.FromString(signature.SerializeToString())

    def set_job_batch_size(self, job_name: str, batch_size: int) -> None:
        """Feed ``batch_size`` rows to every input of the job (the first dimension of its saved shapes)."""
        self._check_status("set_job_batch_size", self.SessionStatus.OPEN)
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
            raise ArgumentError(f"InferenceSession.set_job_batch_size: batch_size must be an int >= 1; received "
                                f"{batch_size!r}")
        self._get_job(job_name).batch_size = batch_size

    @contextlib.contextmanager
    def open(self, job_name: str, signature: Any = None, batch_size: int | None = None) -> Iterator[InferenceSession]:
        """``with sess.open(job_name, signature, batch_size): sess.compile(op_list)``: add job ``job_name``."""
        self._check_status("open", self.SessionStatus.OPEN)
        if job_name in self.jobs_ and self.jobs_[job_name].op_list is not None:
            raise ValueError(f"InferenceSession.open: job {job_name!r} is already compiled in this session")
        job = self._get_job(job_name)
        if signature is not None:
            self.set_job_signature(job_name, signature)
        if isinstance(batch_size, int):
            self.set_job_batch_size(job_name, batch_size)
        self.cur_job_name_ = job.name
        try:
            yield self
        finally:
            self.cur_job_name_ = None

    def compile(self, op_list: Any) -> None:
        """Take the saved graph's ``op_list`` for the job being opened (it is checked against the graph that
        flowtorch serves at launch())."""
        self._check_status("compile", self.SessionStatus.OPEN)
        if self.cur_job_name_ is None:
            raise ValueError("InferenceSession.compile: call it inside `with session.open(job_name, ...)`")
        ops = list(op_list)
        if not all(isinstance(op, pb_message.Message) and op.DESCRIPTOR.full_name == "oneflow.OperatorConf"
                   for op in ops):
            raise ArgumentError("InferenceSession.compile: op_list must be OperatorConf messages (a saved model's "
                                "graphs[name].op_list)")
        job = self.jobs_[self.cur_job_name_]
        job.op_list = ops
        if job.version_dir is not None:
            self._resolve(job)

    def load_saved_model(self, saved_model_dir: str, model_version: Any = ModelVersionPolicy.LATEST,
                         saved_model_meta_file_basename: str = "saved_model", graph_name: str | None = None,
                         signature_name: str | None = None) -> None:
        """Open a saved model's graph (by default its default graph and signature) and set the checkpoint to
        its variables; ``model_version``: an int, or ``ModelVersionPolicy.LATEST`` (the largest)."""
        self._check_status("load_saved_model", self.SessionStatus.OPEN)
        if not isinstance(saved_model_dir, (str, os.PathLike)) or not os.path.isdir(saved_model_dir):
            raise ValueError(f"{saved_model_dir} is not a valid directory")
        saved_model_dir = os.fspath(saved_model_dir)
        if isinstance(model_version, int) and not isinstance(model_version, bool):
            version = str(model_version)
        elif model_version == ModelVersionPolicy.LATEST:
            version = _latest_version(saved_model_dir)
        else:
            raise NotImplementedError(f"InferenceSession.load_saved_model: model_version must be an int or "
                                      f"ModelVersionPolicy.LATEST; received {model_version!r}")
        version_dir = os.path.join(saved_model_dir, version)
        if not os.path.isdir(version_dir):
            raise ValueError(f"version {version} of saved model in dir {saved_model_dir} do not exist")
        proto = read_saved_model(version_dir, saved_model_meta_file_basename)
        if graphs.read_graphs(version_dir, "InferenceSession.load_saved_model") is None:
            raise _oneflow_made(version_dir, proto)
        self.set_checkpoint_path(os.path.join(version_dir, proto.checkpoint_dir))
        if graph_name is None:
            graph_name = proto.default_graph_name
        elif graph_name not in proto.graphs:
            raise ValueError(f"graph {graph_name} do not exist")
        if graph_name not in proto.graphs:
            raise ValueError(f"the saved model in {version_dir} has no graph {graph_name!r} (its default)")
        graph_def = proto.graphs[graph_name]
        signature = None
        if signature_name is None and graph_def.HasField("default_signature_name"):
            signature_name = graph_def.default_signature_name
        if signature_name is not None:
            if signature_name not in graph_def.signatures:
                raise ValueError(f"signature {signature_name} do not exist")
            signature = graph_def.signatures[signature_name]
        self._get_job(graph_name).version_dir = version_dir
        with self.open(graph_name, signature):
            self.compile(graph_def.op_list)

    # --- the graphs flowtorch serves --------------------------------------------------------------------------
    def _resolve(self, job: _Job) -> None:
        """Find the saved form that serves ``job`` and its inputs' and outputs' names and shapes."""
        what = f"InferenceSession: job {job.name!r}"
        version_dir = job.version_dir
        if version_dir is None:
            if self.checkpoint_path_ is None:
                raise ValueError("checkpoint path not set")
            version_dir = os.path.dirname(os.path.abspath(self.checkpoint_path_))
        saved = graphs.read_graphs(version_dir, what)
        if saved is None:
            raise _oneflow_made(version_dir, None, job.op_list)
        graph = saved.get(job.name)
        if graph is None:
            raise ValueError(f"{what}: the saved model in {version_dir} has no graph {job.name!r} (it has "
                             f"{', '.join(map(repr, saved)) or 'none'})")
        if job.op_list is not None and [op.name for op in job.op_list] != graph.ops:
            raise ValueError(f"{what}: the op_list given to compile() is not the one saved with graph {job.name!r} in "
                             f"{version_dir}")
        job.form = _matching_form(graph, job.signature, what)
        job.version_dir = version_dir
        job.inputs = [dataclasses.replace(face) for face in job.form.inputs]
        if job.signature is not None:  # its blob confs may have been edited (OneFlow fed the shapes they give)
            for face in job.inputs:
                dims = tuple(job.signature.inputs[face.name].blob_conf.shape.dim)
                if dims and len(dims) == len(face.shape):
                    face.shape = dims
        if job.batch_size is not None:
            for face in job.inputs:
                if face.shape:
                    face.shape = (job.batch_size, *face.shape[1:])
        job.outputs = [dataclasses.replace(face) for face in job.form.outputs]

    def launch(self) -> None:
        """Load every job's graph and its variables from the checkpoint; the session then runs."""
        self._check_status("launch", self.SessionStatus.OPEN)
        if self.checkpoint_path_ is None:
            raise ValueError("checkpoint path not set")
        for job in self.jobs_.values():
            self._resolve(job)
            if job.form is None or job.version_dir is None:
                raise RuntimeError(f"InferenceSession.launch: job {job.name!r} was not resolved")
            job.module = graphs.load_form(job.version_dir, job.form, self.checkpoint_path_, self.device_,
                                          f"InferenceSession.launch: job {job.name!r}")
            if [f.shape for f in job.inputs] != [f.shape for f in job.form.inputs]:
                job.outputs = _output_shapes(job)
        self.status_ = self.SessionStatus.RUNNING

    # --- what the session holds -------------------------------------------------------------------------------
    def print_job_set(self) -> None:
        """Log (INFO) each job and the ops of its saved op list."""
        self._check_status("print_job_set", self.SessionStatus.OPEN, self.SessionStatus.RUNNING)
        for job in self.jobs_.values():
            log.info("job_name: %s", job.name)
            for op in job.op_list or []:
                log.info("\top_name: %s", op.name)

    def list_jobs(self) -> list[str]:
        self._check_status("list_jobs", self.SessionStatus.RUNNING)
        return list(self.jobs_)

    def list_inputs(self) -> tuple[str, ...]:
        """The input names of every job (each job's in its signature's order)."""
        self._check_status("list_inputs", self.SessionStatus.RUNNING)
        return tuple(dict.fromkeys(f.name for job in self.jobs_.values() for f in job.inputs))

    def list_outputs(self) -> tuple[str, ...]:
        """The output names of every job, in the order run() returns them."""
        self._check_status("list_outputs", self.SessionStatus.RUNNING)
        return tuple(dict.fromkeys(f.name for job in self.jobs_.values() for f in job.outputs))

    def input_info(self, input_name: str, job_name: str | None = None) -> dict[str, Any]:
        """``{"shape": (...), "dtype": flow dtype}`` of an input."""
        return self._info(input_name, job_name, "inputs")

    def output_info(self, output_name: str, job_name: str | None = None) -> dict[str, Any]:
        """``{"shape": (...), "dtype": flow dtype}`` of an output."""
        return self._info(output_name, job_name, "outputs")

    def _info(self, name: str, job_name: str | None, kind: str) -> dict[str, Any]:
        what = "input_info" if kind == "inputs" else "output_info"
        self._check_status(what, self.SessionStatus.OPEN, self.SessionStatus.RUNNING)
        job_name = job_name or self.cur_job_name_
        jobs = [self._job(job_name, what)] if job_name is not None else list(self.jobs_.values())
        for job in jobs:
            if job.form is None:
                if job.version_dir is None and self.checkpoint_path_ is None:
                    raise ValueError(f"InferenceSession.{what}: job {job.name!r} is not found yet: set the "
                                     "checkpoint path or launch() first")
                self._resolve(job)
            for face in getattr(job, kind):
                if face.name == name:
                    return {"shape": face.shape, "dtype": face.dtype}
        where = f"job {job_name!r}" if job_name is not None else "any job of the session"
        raise ValueError(f"InferenceSession.{what}: {where} has no {kind[:-1]} {name!r}")

    # --- running ------------------------------------------------------------------------------------------
    def run(self, job_name: str, **kwargs: Any) -> list[np.ndarray]:
        """Run job ``job_name`` on its inputs (numpy arrays, by input name); its outputs, in list_outputs() order."""
        self._check_status("run", self.SessionStatus.RUNNING)
        job = self._job(job_name, "run")
        if job.module is None:
            raise RuntimeError(f"InferenceSession.run: job {job_name!r} has no loaded graph")
        tensors = []
        for face in job.inputs:
            if face.name not in kwargs:
                raise ValueError(f'input "{face.name}" is absent (job {job_name!r} takes '
                                 f"{', '.join(f.name for f in job.inputs)})")
            tensors.append(_input_tensor(kwargs[face.name], face, job_name, self.device_))
        extra = sorted(set(kwargs) - {f.name for f in job.inputs})
        if extra:
            log.warning("InferenceSession.run: job %r has no input(s) %s; ignored", job_name, ", ".join(extra))
        with torch.inference_mode():
            out = job.module(*tensors)
        values = list(out) if isinstance(out, (tuple, list)) else [out]
        return [v.detach().to("cpu", copy=True).numpy() for v in values]

    async def async_run(self, job_name: str, **kwargs: Any) -> list[np.ndarray]:
        """:meth:`run` as a coroutine (OneFlow awaited its push, job and pull instances)."""
        return self.run(job_name, **kwargs)


def read_saved_model(version_dir: str, basename: str = "saved_model") -> Any:
    """The ``SavedModel`` message of a version directory: ``<basename>.pb``, else ``<basename>.prototxt``."""
    proto = pb.SavedModel()
    binary, text = os.path.join(version_dir, f"{basename}.pb"), os.path.join(version_dir, f"{basename}.prototxt")
    try:
        if os.path.isfile(binary):
            with open(binary, "rb") as f:
                proto.ParseFromString(f.read())
        elif os.path.isfile(text):
            with open(text, encoding="utf-8") as f:  # OneFlow's other op confs are not declared here
                text_format.Merge(f.read(), proto, allow_unknown_field=True)
        else:
            raise ValueError(f"saved model meta file {basename} do not exist in {version_dir}")
    except (pb_message.DecodeError, text_format.ParseError) as exc:
        raise ValueError(f"saved model meta file {basename} in {version_dir} is not a SavedModel message "
                         f"({exc})") from exc
    return proto


def _oneflow_made(version_dir: str, proto: Any, op_list: list[Any] | None = None) -> ExportError:
    if op_list is None and proto is not None:
        op_list = [op for g in proto.graphs.values() for op in g.op_list]
    kinds = sorted({op.user_conf.op_type_name if op.HasField("user_conf") else op.WhichOneof("op_type") or "?"
                    for op in op_list or []})
    shown = f" ({len(op_list or [])} ops: {', '.join(kinds[:8])}{' …' if len(kinds) > 8 else ''})" if kinds else ""
    return ExportError(f"the saved model in {version_dir} has no graph flowtorch can run: it holds its jobs as OneFlow "
                       f"operator confs{shown}, which only OneFlow's runtime executes (flowtorch serves the graphs "
                       f"its own ModelBuilder.Save() writes in {graphs.SIDECAR}/). Define the job in flowtorch, load "
                       "the variables (flow.load_variables(flow.checkpoint.get(...))) and save it again with "
                       "flow.saved_model.ModelBuilder")


def _matching_form(graph: graphs.SavedGraph, signature: Any, what: str) -> graphs.Form:
    """The saved form serving ``signature`` (the same input and output names and blobs)."""
    if signature is None:
        found = [f for f in graph.forms if f.signature is None]
        if not found:
            names = ", ".join(repr(f.signature) for f in graph.forms)
            raise ValueError(f"{what}: the graph was saved with signatures ({names}); open it with one of them "
                             "(graph_def.signatures[name])")
        return found[0]
    want = ({n: lbn_of(d.lbi) for n, d in signature.inputs.items()},
            {n: lbn_of(d.lbi) for n, d in signature.outputs.items()})
    for form in graph.forms:
        if ({f.name: f.lbn for f in form.inputs}, {f.name: f.lbn for f in form.outputs}) == want:
            return form
    raise ValueError(f"{what}: the signature given is none of the graph's saved signatures "
                     f"({', '.join(repr(f.signature) for f in graph.forms)})")


def _input_tensor(value: Any, face: graphs.Interface, job_name: str, device: str) -> torch.Tensor:
    where = f"InferenceSession.run: job {job_name!r}, input {face.name!r}"
    if not isinstance(value, np.ndarray):
        raise ValueError(f'input "{face.name}" requires numpy.ndarray; received {type(value).__name__}')
    if value.dtype != np.dtype(face.dtype.numpy_dtype):
        raise ArgumentError(f"{where}: expected dtype {np.dtype(face.dtype.numpy_dtype)}; received {value.dtype}")
    fits = value.shape == face.shape or (face.is_dynamic and value.ndim == len(face.shape)
                                         and all(a <= b for a, b in zip(value.shape, face.shape)))
    if not fits:
        bound = "at most " if face.is_dynamic else ""
        raise ArgumentError(f"{where}: expected shape {bound}{face.shape}; received {value.shape}")
    tensor = torch.from_numpy(np.ascontiguousarray(value))
    return tensor.to(device) if device != "cpu" else tensor


def _output_shapes(job: _Job) -> list[graphs.Interface]:
    """The job's output shapes for input shapes other than the saved ones (a new batch size), from a run on
    meta tensors; a graph whose saved shapes do not allow them fails here rather than at run()."""
    module = job.module
    if module is None:
        return job.outputs
    params = {k: torch.empty_like(v, device="meta") for k, v in [*module.named_parameters(), *module.named_buffers()]}
    args = [torch.empty(f.shape, dtype=f.dtype.torch_dtype, device="meta") for f in job.inputs]
    try:
        out = torch.func.functional_call(module, params, tuple(args))
    except Exception as exc:  # a shape the graph baked in
        shapes = ", ".join(f"{f.name} {f.shape}" for f in job.inputs)
        raise ArgumentError(f"InferenceSession.launch: job {job.name!r} cannot take inputs of shapes {shapes}: its "
                            f"graph was saved for the shapes {[f.shape for f in job.form.inputs] if job.form else '?'} "
                            f"and fixes some of them ({type(exc).__name__}: {exc})") from exc
    values = list(out) if isinstance(out, (tuple, list)) else [out]
    return [graphs.Interface(f.name, f.lbn, tuple(v.shape), f.dtype, f.is_dynamic, f.split_axis)
            for f, v in zip(job.outputs, values)]


__all__ = ["InferenceSession", "ModelVersionPolicy", "SessionOption", "read_saved_model"]

"""``flow.saved_model``: ModelBuilder, GraphBuilder and SignatureBuilder (OneFlow
``serving/saved_model_builder.py``, v0.4.0).

``ModelBuilder(path).ModelName(name).Version(v).AddFunction(job).AddSignature(sig).Input(...).Output(...)``
then ``Save()`` writes, as OneFlow did, ``<path>/<v>/saved_model.pb`` and ``saved_model.prototxt`` (the
``SavedModel`` message, :mod:`.saved_model_proto`) and ``<path>/<v>/variables/`` (a OneFlow snapshot of the
session's variables). OneFlow rebuilt the job from the operator confs in each graph's ``op_list``; flowtorch
writes them for inspection (:func:`.saved_model_graph.describe_ops`) and serves each graph from what it adds in
``<path>/<v>/flowtorch/``: per signature, the job's graph between the signature's inputs and outputs as plain
PyTorch source, and an index (``graphs.json``) of their inputs and outputs. ``flow.serving.InferenceSession``
loads it.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from google.protobuf import text_format

from flowtorch._src.errors import ArgumentError
from flowtorch._src.io import checkpoint
from flowtorch._src.migrate import saved_model_graph as graphs
from flowtorch._src.migrate import saved_model_proto as pb
from flowtorch._src.session import Job, default_session

log = logging.getLogger("flowtorch")


def _job_named(name: str, what: str) -> Job:
    job = default_session().jobs.get(name)
    if job is None:
        raise ValueError(f"{what}: the default session has no job {name!r} (a @flow.global_function of that name, "
                         "defined since the last flow.clear_default_session())")
    return job


def _lbi(lbn: Any, what: str, lbi: Any) -> None:
    """Fill the ``LogicalBlobId`` ``lbi`` from ``op_name/blob_name`` (OneFlow ``Lbn2Lbi``)."""
    if not isinstance(lbn, str) or lbn.count("/") != 1 or lbn.startswith("/") or lbn.endswith("/"):
        raise ArgumentError(f"{what}: lbn must be a logical blob name 'op_name/blob_name' (blob.logical_blob_name); "
                            f"received {lbn!r}")
    lbi.op_name, lbi.blob_name = lbn.split("/")


def lbn_of(lbi: Any) -> str:
    """``op_name/blob_name`` of a ``LogicalBlobId`` (OneFlow ``Lbi2Lbn``)."""
    return f"{lbi.op_name}/{lbi.blob_name}"


class ModelBuilder:
    """Collects a model's graphs (jobs) and their signatures; :meth:`Save` writes them with the variables."""

    DEFAULT_CHECKPOINT_DIR = "variables"
    DEFAULT_SAVED_MODEL_FILE_BASENAME = "saved_model"

    def __init__(self, save_path: str) -> None:
        if not isinstance(save_path, str):
            raise ArgumentError(f"param 'save_path' must be str, but got {save_path!r}")
        self.saved_model_dir_ = save_path
        self.version_: int | None = None
        self.checkpoint_dir_ = self.DEFAULT_CHECKPOINT_DIR
        self.saved_model_pb_filename_ = f"{self.DEFAULT_SAVED_MODEL_FILE_BASENAME}.pb"
        self.saved_model_pbtxt_filename_ = f"{self.DEFAULT_SAVED_MODEL_FILE_BASENAME}.prototxt"
        self.saved_model_proto_ = pb.SavedModel()
        self.graph_builders_: dict[str, GraphBuilder] = {}

    @property
    def proto(self) -> Any:
        """The ``SavedModel`` message being built."""
        return self.saved_model_proto_

    def ModelName(self, model_name: str) -> ModelBuilder:
        if not isinstance(model_name, str):
            raise ArgumentError(f"ModelBuilder.ModelName: model_name must be a str; received {model_name!r}")
        self.proto.name = model_name
        return self

    def Version(self, version: int) -> ModelBuilder:
        if not isinstance(version, int) or isinstance(version, bool):
            raise ArgumentError(f"ModelBuilder.Version: version must be an int; received {version!r}")
        self.version_ = version
        return self

    def AddFunction(self, func: Any) -> GraphBuilder:
        """A graph for job ``func`` (a ``@flow.global_function``), named after it; the first is the default."""
        func_name = getattr(func, "__name__", None)
        if not isinstance(func_name, str):
            raise ArgumentError("ModelBuilder.AddFunction: func must be a job (@flow.global_function); received "
                                f"{type(func).__name__} {func!r}")
        if func_name in self.graph_builders_:
            raise ValueError(f"function with name {func_name} already exists")
        builder = GraphBuilder(func_name, self)
        builder.job_ = func if isinstance(func, Job) else None
        self.graph_builders_[func_name] = builder
        if not self.proto.HasField("default_graph_name"):
            self.proto.default_graph_name = func_name
        return builder

    def _check_input_output_name_conflict(self) -> None:
        """OneFlow's rule: no two inputs or outputs of the model share a name or a blob, over every graph and
        signature (an input and an output on one blob included)."""
        names: set[str] = set()
        lbns: set[str] = set()
        for graph_def in self.proto.graphs.values():
            for signature_def in graph_def.signatures.values():
                for name, interface in [*signature_def.inputs.items(), *signature_def.outputs.items()]:
                    if name in names:
                        raise ValueError(f"input conflict, {name} already exist")
                    names.add(name)
                    lbn = lbn_of(interface.lbi)
                    if lbn in lbns:
                        raise ValueError(f"input conflict, {lbn} already bind to other input")
                    lbns.add(lbn)

    def Save(self, save_model_before_graph_complete: bool = True) -> None:
        """Write ``<save_path>/<version>/``: ``saved_model.pb``, ``saved_model.prototxt``, ``variables/`` (a
        snapshot of every variable of the session) and ``flowtorch/`` (the graphs flowtorch serves)."""
        what = "ModelBuilder.Save"
        self._check_input_output_name_conflict()
        if not self.proto.name:
            raise ValueError("model name is not set (ModelBuilder.ModelName(name))")
        if self.version_ is None:
            raise ValueError("model version is not set")
        if not save_model_before_graph_complete:
            log.info("%s: save_model_before_graph_complete=False: flowtorch saves the one form of each job's graph "
                     "it has (OneFlow's optimized job is not kept)", what)
        for builder in self.graph_builders_.values():
            if not builder.finished:
                builder.Finish()
        sidecar: dict[str, tuple[list[str], dict[str | None, graphs.ServedGraph]]] = {}
        for name, graph_def in self.proto.graphs.items():
            found = self.graph_builders_.get(name)
            if found is None:  # a graph added to the proto by hand
                found = GraphBuilder(name)
                found.proto_ = graph_def
                found.Finish()
            builder = found
            job = builder.job()
            lbns = [lbn_of(d.lbi) for s in graph_def.signatures.values()
                    for d in [*s.inputs.values(), *s.outputs.values()]]
            ops = graphs.describe_ops(job, lbns, job.session.device, what)
            del graph_def.op_list[:]
            graph_def.op_list.extend(ops)
            sidecar[name] = ([op.name for op in ops], builder.served_)
        version_dir = os.path.join(self.saved_model_dir_, str(self.version_))
        if os.path.exists(version_dir):
            raise ValueError(f'Directory of model "{self.saved_model_dir_}" version "{self.version_}" already exist.')
        os.makedirs(version_dir)
        self.proto.version = self.version_
        checkpoint.save(os.path.join(version_dir, self.checkpoint_dir_))
        self.proto.checkpoint_dir = self.checkpoint_dir_
        graphs.write_graphs(version_dir, sidecar)
        with open(os.path.join(version_dir, self.saved_model_pb_filename_), "wb") as f:
            f.write(self.proto.SerializeToString())
        with open(os.path.join(version_dir, self.saved_model_pbtxt_filename_), "w", encoding="utf-8") as f:
            f.write(text_format.MessageToString(self.proto))
        log.info("%s: saved model %r version %d in %s", what, self.proto.name, self.version_, version_dir)


class GraphBuilder:
    """One graph (job) of a model and its signatures."""

    def __init__(self, name: str, model_builder: ModelBuilder | None = None) -> None:
        if not isinstance(name, str):
            raise ArgumentError(f"param 'name' must be str, but got {name!r}")
        if model_builder is not None and not isinstance(model_builder, ModelBuilder):
            raise ArgumentError("param 'model_builder' must be a type of ModelBuilder or None")
        if model_builder is not None:
            if name in model_builder.proto.graphs:
                raise ValueError(f"graph function ({name}) is already added to model ({model_builder.proto.name})")
            self.proto_ = model_builder.proto.graphs[name]
        else:
            self.proto_ = pb.GraphDef()
        self.owner_ = model_builder
        self.name_ = name
        self.finished_ = False
        self.signature_builders_: dict[str, SignatureBuilder] = {}
        self.job_: Job | None = None
        # what Finish made of each signature (None: the job as it is, for a graph without signatures)
        self.served_: dict[str | None, graphs.ServedGraph] = {}

    @property
    def name(self) -> str:
        return self.name_

    @property
    def proto(self) -> Any:
        """The ``GraphDef`` message being built."""
        return self.proto_

    @property
    def finished(self) -> bool:
        return self.finished_

    def job(self) -> Job:
        """The job this graph saves: the one given to AddFunction, else the default session's job of its name."""
        if self.job_ is not None and self.job_.session.status != "CLOSED":
            return self.job_
        return _job_named(self.name, f"graph {self.name!r}")

    def AddSignature(self, signature_name: str) -> SignatureBuilder:
        """A signature of this graph; the first is the default."""
        if not isinstance(signature_name, str):
            raise ArgumentError(f"GraphBuilder.AddSignature: signature_name must be a str; received {signature_name!r}")
        if signature_name in self.signature_builders_:
            raise ValueError(f"signature name {signature_name} already exists")
        builder = SignatureBuilder(signature_name, self)
        self.signature_builders_[signature_name] = builder
        if not self.proto.HasField("default_signature_name"):
            self.proto.default_signature_name = signature_name
        return builder

    def Finish(self) -> None:
        """Check every signature's blobs against the job (built now if needed), fill its inputs' blob confs and
        make the graph each signature serves."""
        if self.finished:
            raise ArgumentError(f"GraphBuilder.Finish: graph {self.name!r} is already finished")
        what = f"graph {self.name!r}"
        job = self.job()
        served: dict[str | None, graphs.ServedGraph] = {}
        for sig_name, signature_def in self.proto.signatures.items():
            builder = self.signature_builders_.get(sig_name)
            order_in = builder.input_names_ if builder is not None else []
            order_out = builder.output_names_ if builder is not None else []
            inputs = _ordered(signature_def.inputs, order_in)
            outputs = _ordered(signature_def.outputs, order_out)
            served[sig_name] = graphs.serve(job, inputs, outputs, f"{what}, signature {sig_name!r}")
            for face in served[sig_name].inputs:
                conf = signature_def.inputs[face.name].blob_conf
                conf.Clear()
                face.blob_conf(conf)
        if not served:
            served[None] = graphs.serve(job, None, None, what)
        self.served_ = served
        self.finished_ = True

    def OwnerModelBuilder(self) -> ModelBuilder | None:
        return self.owner_

    def AsDefault(self) -> GraphBuilder:
        """Make this graph its model's default."""
        if self.owner_ is not None:
            self.owner_.proto.default_graph_name = self.name
        return self


def _ordered(interfaces: Any, order: list[str]) -> list[tuple[str, str]]:
    """(name, lbn) of a signature's inputs or outputs, in the order they were added (``order``), the rest after."""
    names = [n for n in order if n in interfaces] + sorted(n for n in interfaces if n not in order)
    return [(n, lbn_of(interfaces[n].lbi)) for n in names]


class SignatureBuilder:
    """One signature of a graph: its named inputs and outputs, each a logical blob name of the job."""

    def __init__(self, name: str, graph_builder: GraphBuilder | None = None) -> None:
        if not isinstance(name, str):
            raise ArgumentError(f"param 'name' must be str, but got {name!r}")
        if graph_builder is not None and not isinstance(graph_builder, GraphBuilder):
            raise ArgumentError("param 'graph_builder' must be a type of GraphBuilder or None")
        if graph_builder is not None:
            if name in graph_builder.proto.signatures:
                raise ValueError(f"signature ({name}) already exist in graph ({graph_builder.name})")
            self.proto_ = graph_builder.proto.signatures[name]
        else:
            self.proto_ = pb.JobSignatureDef()
        self.owner_ = graph_builder
        self.name_ = name
        self.input_names_: list[str] = []
        self.output_names_: list[str] = []

    @property
    def name(self) -> str:
        return self.name_

    @property
    def proto(self) -> Any:
        """The ``JobSignatureDef`` message being built."""
        return self.proto_

    def _where(self) -> str:
        graph = f" of graph ({self.owner_.name})" if self.owner_ is not None else ""
        return f"signature ({self.name}){graph}"

    def Input(self, input_name: str, lbn: str) -> SignatureBuilder:
        """Input ``input_name`` feeds blob ``lbn`` (``InferenceSession.run(job, input_name=array)``)."""
        if not isinstance(input_name, str):
            raise ArgumentError(f"SignatureBuilder.Input: input_name must be a str; received {input_name!r}")
        if input_name in self.proto.inputs:
            raise ValueError(f"input_name ({input_name}) already exist in {self._where()}")
        _lbi(lbn, f"SignatureBuilder.Input({input_name!r})", pb.LogicalBlobId())  # checked before it is added
        _lbi(lbn, "", self.proto.inputs[input_name].lbi)
        self.input_names_.append(input_name)
        return self

    def Output(self, output_name: str, lbn: str) -> SignatureBuilder:
        """Output ``output_name`` is blob ``lbn``."""
        if not isinstance(output_name, str):
            raise ArgumentError(f"SignatureBuilder.Output: output_name must be a str; received {output_name!r}")
        if output_name in self.proto.outputs:
            raise ValueError(f"output_name ({output_name}) already exist in {self._where()}")
        _lbi(lbn, f"SignatureBuilder.Output({output_name!r})", pb.LogicalBlobId())
        _lbi(lbn, "", self.proto.outputs[output_name].lbi)
        self.output_names_.append(output_name)
        return self

    def OwnerGraphBuilder(self) -> GraphBuilder | None:
        return self.owner_

    def AsDefault(self) -> SignatureBuilder:
        """Make this signature its graph's default."""
        if self.owner_ is not None:
            self.owner_.proto.default_signature_name = self.name
        return self

"""``flow.summary``: jobs write TensorBoard event files, read back here and checked against what was fed
(numpy); the host-side records (text, hparams, Graph, Projector) and the refusals."""

from __future__ import annotations

import hashlib
import io
import json
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("tensorboard")

from helpers.ops import expect_error
from PIL import Image
from tensorboard.backend.event_processing.event_file_loader import LegacyEventFileLoader
from tensorboard.plugins.hparams import plugin_data_pb2

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src import session
from flowtorch._src.ops import summary_ops
from flowtorch._src.ops.summary_projector import SummaryProjector

rng = np.random.default_rng(31)


@pytest.fixture(autouse=True)
def closed_writer() -> Any:
    """The writer is the process's (OneFlow's was the runtime's): each test starts and ends without one."""
    summary_ops.EVENT_LOG.close()
    yield
    summary_ops.EVENT_LOG.close()


def _tag(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-8"), dtype=np.int8)


def _step(i: int) -> np.ndarray:
    return np.array([i], dtype=np.int64)


def _events(logdir: Path) -> list[tuple[int, Any]]:
    """Every summary value written under ``logdir/event``, as (step, value), in file order."""
    files = sorted((logdir / "event").glob("events.out.tfevents.*"))
    assert files, f"no event file in {logdir / 'event'}"
    out = []
    for path in files:
        for event in LegacyEventFileLoader(str(path)).Load():  # the events as written
            out.extend((event.step, value) for value in event.summary.value)
    return out


def _writer_jobs(logdir: Path) -> tuple[Any, Any]:
    @flow.global_function()
    def create() -> None:
        flow.summary.create_summary_writer(str(logdir))

    @flow.global_function()
    def flush() -> None:
        flow.summary.flush_summary_writer()
    return create, flush


def _tensorboard_bins() -> np.ndarray:
    # TensorBoard's default buckets (the family OneFlow's histogram.cpp took its limits from)
    v, positive = 1e-12, []
    while v < 1e20:
        positive.append(v)
        v *= 1.1
    return np.array([-x for x in positive[::-1]] + [0.0] + positive)


def test_scalars_histograms_images_and_pb_round_trip(tmp_path: Path) -> None:
    create, flush = _writer_jobs(tmp_path)

    @flow.global_function()
    def scalar_job(v: tp.Numpy.Placeholder((1,)), step: tp.Numpy.Placeholder((1,), dtype=flow.int64),
                   tag: tp.Numpy.Placeholder((4,), dtype=flow.int8)) -> None:
        flow.summary.scalar(v, step, tag)

    @flow.global_function()
    def histogram_job(v: tp.Numpy.Placeholder((6, 50), dtype=flow.double),
                      step: tp.Numpy.Placeholder((1,), dtype=flow.int64)) -> None:
        flow.summary.histogram(v, step, "weights")

    @flow.global_function()
    def image_job(grey: tp.Numpy.Placeholder((1, 5, 7, 1), dtype=flow.uint8),
                  rgba: tp.Numpy.Placeholder((2, 4, 3, 4), dtype=flow.uint8),
                  step: tp.Numpy.Placeholder((1,), dtype=flow.int64)) -> None:
        flow.summary.image(grey, step=step, tag="grey")
        flow.summary.image(rgba, step=step)  # OneFlow's default tag: "image"

    create()
    values = rng.standard_normal(5).astype(np.float32)
    for i, v in enumerate(values):
        scalar_job(np.array([v]), _step(10 + i), _tag("loss"))
    weights = rng.standard_normal((6, 50)) * 3.0
    histogram_job(weights, _step(3))
    grey = rng.integers(0, 256, (1, 5, 7, 1), dtype=np.uint8)
    rgba = rng.integers(0, 256, (2, 4, 3, 4), dtype=np.uint8)
    image_job(grey, rgba, _step(7))
    flush()

    events = _events(tmp_path)
    scalars = [(step, v.simple_value) for step, v in events if v.tag == "loss"]
    assert [s for s, _ in scalars] == [10, 11, 12, 13, 14]
    np.testing.assert_allclose([x for _, x in scalars], values, rtol=1e-6)

    (step, hist), = [(s, v.histo) for s, v in events if v.tag == "weights"]
    assert step == 3
    flat = weights.ravel()
    assert hist.num == flat.size
    np.testing.assert_allclose([hist.min, hist.max, hist.sum, hist.sum_squares],
                               [flat.min(), flat.max(), flat.sum(), (flat * flat).sum()], rtol=1e-12)
    limits, counts = np.array(hist.bucket_limit), np.array(hist.bucket)
    assert counts.sum() == flat.size and counts[0] == 0  # the empty leftmost bucket holds the lowest limit
    assert np.isin(limits, _tensorboard_bins()).all()
    for lo, hi, n in zip(limits[:-1], limits[1:], counts[1:]):
        assert n == np.count_nonzero((flat >= lo) & ((flat < hi) | (hi == limits[-1]) & (flat == hi)))

    images = {v.tag: (s, v.image) for s, v in events if v.HasField("image")}
    assert sorted(images) == ["grey", "image0", "image1"]  # one image: the tag alone; several: tag0, tag1 …
    for tag, want in (("grey", grey[0, ..., 0]), ("image0", rgba[0]), ("image1", rgba[1])):
        step, img = images[tag]
        assert step == 7 and (img.height, img.width) == want.shape[:2]
        assert img.colorspace == (1 if want.ndim == 2 else want.shape[-1])
        np.testing.assert_array_equal(np.asarray(Image.open(io.BytesIO(img.encoded_image_string))), want)


def test_pb_writes_text_and_hparams_records_fed_as_their_text_format(tmp_path: Path) -> None:
    create, flush = _writer_jobs(tmp_path)

    @flow.global_function(function_config=_mirrored())
    def pb_job(value: tp.ListNumpy.Placeholder((4000,), dtype=flow.int8),
               step: tp.ListNumpy.Placeholder((1,), dtype=flow.int64)) -> None:
        flow.summary.pb(value, step=step)

    create()
    words = ["vgg16", "resnet50", "ünïcode"]
    record = flow.summary.text(words, tag="models")
    pb_job([np.frombuffer(str(record).encode("utf-8"), np.int8)], [_step(1)])
    params = {flow.summary.Hparam("lr", flow.summary.RealRange(1e-3, 1e-1)): np.float32(0.5),
              flow.summary.HParam("layers", flow.summary.IntegerRange(2, 7)): 5,
              flow.summary.Hparam("opt", flow.summary.ValueSet(["sgd", "adam"])): "adam",
              "bn": True, flow.summary.Metric("accuracy"): 0.75}
    serialized = flow.summary.hparams(params).SerializeToString()  # its serialization is taken too
    pb_job([np.frombuffer(serialized, np.int8)], [_step(2)])
    flush()

    events = _events(tmp_path)
    (step, text), = [(s, v) for s, v in events if v.tag == "models"]
    assert step == 1 and text.metadata.plugin_data.plugin_name == "text"
    assert [b.decode("utf-8") for b in text.tensor.string_val] == words
    assert [d.size for d in text.tensor.tensor_shape.dim] == [3]

    (step, start), = [(s, v) for s, v in events if v.tag == "_hparams_/session_start_info"]
    assert step == 2 and start.metadata.plugin_data.plugin_name == "hparams"
    info = plugin_data_pb2.HParamsPluginData.FromString(start.metadata.plugin_data.content).session_start_info
    assert info.hparams["lr"].number_value == 0.5
    assert info.hparams["layers"].number_value == 5 and info.hparams["opt"].string_value == "adam"
    assert info.hparams["bn"].bool_value is True and "accuracy" not in info.hparams
    plain = {"bn": True, "layers": 5, "lr": 0.5, "opt": "adam"}
    assert info.group_name == hashlib.sha256(json.dumps(plain, sort_keys=True, separators=(",", ":"))
                                             .encode()).hexdigest()
    assert [(s, v.simple_value) for s, v in events if v.tag == "accuracy"] == [(2, 0.75)]


def _mirrored() -> Any:
    config = flow.FunctionConfig()
    config.default_logical_view(flow.scope.mirrored_view())
    return config


@pytest.mark.parametrize("kind", ["predict", "train", "eager", "cuda_graph", "compile"])
def test_summary_ops_run_every_step_in_call_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  kind: str) -> None:
    """Nothing reads a summary op's output: it still runs every call, once, in the order the body called it,
    also when the step would be a CUDA graph or a compiled graph (such steps run eagerly)."""
    if kind == "cuda_graph":
        from flowtorch._src.step import graphed
        monkeypatch.setattr(graphed, "EMULATE_WITHOUT_CUDA", True)
        monkeypatch.setenv("FLOWTORCH_CAPTURE", "cuda_graph")
    elif kind == "compile":
        monkeypatch.setenv("FLOWTORCH_CAPTURE", "compile")
        monkeypatch.setenv("FLOWTORCH_COMPILE_BACKEND", "eager")
    if kind == "eager":
        flow.enable_eager_execution(True)
    try:
        _run_every_step(tmp_path, "train" if kind == "train" else "predict")
    finally:
        flow.clear_default_session()
        flow.enable_eager_execution(False)


def _run_every_step(logdir: Path, job_type: str) -> None:
    create, flush = _writer_jobs(logdir)

    @flow.global_function(type=job_type)
    def job(x: tp.Numpy.Placeholder((3,)), step: tp.Numpy.Placeholder((1,), dtype=flow.int64)) -> tp.Numpy:
        w = flow.get_variable("w", shape=(3,), initializer=flow.constant_initializer(0.5))
        loss = flow.math.reduce_sum(x * w)
        flow.summary.scalar(flow.math.reduce_max(x), step, "first")
        flow.summary.scalar(loss, step, "second")
        flow.summary.histogram(x, step, "third")
        if job_type == "train":
            flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1]), momentum=0).minimize(loss)
        return loss

    create()
    xs = rng.standard_normal((5, 3)).astype(np.float32)
    losses = [job(x, _step(i)) for i, x in enumerate(xs)]
    flush()
    events = _events(logdir)
    assert [(s, v.tag) for s, v in events] == [(i, t) for i in range(5) for t in ("first", "second", "third")]
    np.testing.assert_allclose([v.simple_value for _, v in events if v.tag == "first"], xs.max(axis=1), rtol=1e-6)
    # the value written is the loss the step computed (before its update)
    np.testing.assert_allclose([v.simple_value for _, v in events if v.tag == "second"],
                               np.ravel(losses), rtol=1e-6)
    if job_type == "predict":
        np.testing.assert_allclose(np.ravel(losses), xs.sum(axis=1) * 0.5, rtol=1e-6)


def test_the_summary_ops_survive_dead_code_elimination(tmp_path: Path) -> None:
    create, _ = _writer_jobs(tmp_path)

    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2,))) -> None:
        flow.summary.histogram(flow.math.exp(x), 0, "unused")

    create()
    job(np.zeros(2, np.float32))
    module = session.default_session().jobs["job"].step.module
    before = [n.target for n in module.graph.nodes]
    module.graph.eliminate_dead_code()
    assert [n.target for n in module.graph.nodes] == before
    assert summary_ops.write_histogram_kernel in before


def test_user_op_builder_builds_the_summary_ops_as_oneflow_python_did(tmp_path: Path) -> None:
    @flow.global_function()
    def job(v: tp.Numpy.Placeholder((1,)), step: tp.Numpy.Placeholder((1,), dtype=flow.int64),
            tag: tp.Numpy.Placeholder((3,), dtype=flow.int8)) -> None:
        flow.user_op_builder("make").Op("create_summary_writer").Attr("logdir", str(tmp_path)).Build() \
            .InferAndTryRun()
        flow.user_op_builder("write").Op("summary_write_scalar").Input("in", [v]).Input("step", [step]) \
            .Input("tag", [tag]).Build().InferAndTryRun()
        flow.user_op_builder("flush").Op("flush_summary_writer").Build().InferAndTryRun()

    job(np.array([2.5], np.float32), _step(4), _tag("acc"))
    job(np.array([-1.0], np.float32), _step(5), _tag("acc"))
    assert [(s, v.tag, v.simple_value) for s, v in _events(tmp_path)] == [(4, "acc", 2.5), (5, "acc", -1.0)]


@pytest.mark.parametrize("body, match", [
    (lambda x, s, t: flow.summary.scalar(x, s, t), "one element"),  # a value of two elements
    (lambda x, s, t: flow.summary.histogram(x, x, t), "step"),  # a float step
    (lambda x, s, t: flow.summary.histogram(x, s, x), "tag"),  # a float tag
    (lambda x, s, t: flow.summary.image(x, s, t), "uint8"),
    (lambda x, s, t: flow.summary.pb(x, s), "int8"),
    (lambda x, s, t: flow.summary.pb(t), "step"),  # no step
])
def test_bad_arguments_are_refused_while_building(body: Any, match: str) -> None:
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2,)), s: tp.Numpy.Placeholder((1,), dtype=flow.int64),
            t: tp.Numpy.Placeholder((2,), dtype=flow.int8)) -> None:
        body(x, s, t)
    with expect_error(ValueError, match=match):
        job(np.zeros(2, np.float32), _step(0), _tag("ab"))


def test_images_of_two_channels_and_ops_outside_a_job_are_refused() -> None:
    @flow.global_function()
    def rgb2(x: tp.Numpy.Placeholder((1, 2, 2, 2), dtype=flow.uint8)) -> None:
        flow.summary.image(x, 0, "two channels")
    with expect_error(ValueError, match="C 1, 3 or 4"):
        rgb2(np.zeros((1, 2, 2, 2), np.uint8))
    with pytest.raises(RuntimeError, match="job"):
        flow.summary.scalar(1.0, 0, "outside a job")


def test_writing_without_a_writer_and_a_bad_pb_fail_the_call(tmp_path: Path) -> None:
    @flow.global_function()
    def orphan(x: tp.Numpy.Placeholder((1,))) -> None:
        flow.summary.scalar(x, 0, "x")
    with pytest.raises(RuntimeError, match="create_summary_writer"):
        orphan(np.ones(1, np.float32))

    create, _ = _writer_jobs(tmp_path)

    @flow.global_function()
    def garbage(x: tp.Numpy.Placeholder((5,), dtype=flow.int8)) -> None:
        flow.summary.pb(x, 0)
    create()
    with pytest.raises(ValueError, match="Summary message"):
        garbage(_tag("value"))


def test_a_missing_tensorboard_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    for module in ("torch.utils.tensorboard.writer", "tensorboard.compat.proto.summary_pb2"):
        monkeypatch.setitem(sys.modules, module, None)  # import raises ImportError
    with pytest.raises(ImportError, match=r"flowtorch-oneflow\[viz\]"):
        flow.summary.text(["a"])

    @flow.global_function()
    def job() -> None:
        flow.summary.create_summary_writer("unused")
    with expect_error(ImportError, match=r"pip install \"flowtorch-oneflow\[viz\]\""):
        job()


def test_text_and_hparams_refusals() -> None:
    for bad in ("one string", [], [1, 2]):
        with pytest.raises(TypeError, match="text"):
            flow.summary.text(bad)
    assert flow.summary.text(["a"]).value[0].tag == "text"  # OneFlow's tag when none is given
    with pytest.raises(TypeError, match="metric 'loss'"):
        flow.summary.hparams({flow.summary.Metric("loss"): "low"})
    with pytest.raises(TypeError, match="hyperparameter 'x'"):
        flow.summary.hparams({"x": [1]})
    with pytest.raises(ValueError, match="twice"):
        flow.summary.hparams({flow.summary.Hparam("x"): 1, "x": 2})


def test_hparam_domains_check_their_values() -> None:
    assert (flow.summary.IntegerRange(2, 7).min_value, flow.summary.IntegerRange(2, 7).max_value) == (2, 7)
    assert flow.summary.RealRange(0.5, 1.5).max_value == 1.5
    values = flow.summary.ValueSet(["sgd", "adam", "lamb"])
    assert values.values == ["adam", "lamb", "sgd"] and values.dtype is str
    assert flow.summary.Metric("m").dtype is float and flow.summary.Metric("m", int).dtype is int
    assert flow.summary.Hparam("h", values).dtype is values
    for make, exc in ((lambda: flow.summary.IntegerRange(1.0, 2), TypeError),
                      (lambda: flow.summary.IntegerRange(3, 2), ValueError),
                      (lambda: flow.summary.RealRange(1, 2.0), TypeError),
                      (lambda: flow.summary.RealRange(2.0, 1.0), ValueError),
                      (lambda: flow.summary.ValueSet([1, "a"]), TypeError),
                      (lambda: flow.summary.ValueSet([None]), ValueError),
                      (lambda: flow.summary.Metric("m", str), ValueError),
                      (lambda: flow.summary.Hparam("h", (1, 2)), ValueError)):
        with pytest.raises(exc):
            make()


def test_graph_writes_the_built_jobs_structure_once(tmp_path: Path) -> None:
    @flow.global_function()
    def net(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
        w = flow.get_variable("w", shape=(3, 4), initializer=flow.ones_initializer())
        return flow.nn.relu(flow.matmul(x, w, name="mm"), name="act")

    net(np.ones((2, 3), np.float32))
    graph = flow.summary.Graph(str(tmp_path))
    graph.write_structure_graph()
    assert graph.logdir == os.path.join(str(tmp_path), "graph")
    (model,) = json.loads(Path(graph.structure_graph_filename).read_text())
    assert model["class_name"] == "Model" and model["config"]["name"] == "net"
    layers = {layer["name"]: layer for layer in model["config"]["layers"]}
    assert layers["x"]["class_name"] == "input" and layers["x"]["config"]["shape"] == [2, 3]
    assert layers["w"]["class_name"] == "variable"
    assert layers["mm"]["class_name"] == "matmul" and sorted(layers["mm"]["inbound_nodes"]) == ["w", "x"]
    assert layers["act"]["inbound_nodes"] == ["mm"] and layers["act"]["config"]["shape"] == [2, 4]
    assert model["config"]["input_layers"] == ["x"] and model["config"]["output_layers"] == ["act"]
    with pytest.raises(OSError, match="already"):
        graph.write_structure_graph()


def test_projector_writes_oneflows_projector_messages(tmp_path: Path) -> None:
    projector = flow.summary.Projector(str(tmp_path))
    with pytest.raises(RuntimeError, match="create_embedding_projector"):
        projector.embedding_projector(value=np.zeros((2, 2)))
    projector.create_embedding_projector()
    projector.create_exception_projector()
    assert Path(projector.embedding_filename).parent == tmp_path / "projector"
    assert Path(projector.exception_filename).name.startswith("projector.gradit.")
    value = rng.standard_normal((4, 3))
    label = np.arange(4, dtype=np.int64)
    x = rng.integers(0, 256, (4, 2, 2), dtype=np.uint8)
    projector.embedding_projector(value=value, label=label, tag="emb", step=3, sample_name="s", sample_type="IMAGE",
                                  x=x)
    projector.exception_projector(value=value[:2], step=1)
    with pytest.raises(OSError, match="already exists"):
        projector.create_embedding_projector()

    emb = SummaryProjector.FromString(Path(projector.embedding_filename).read_bytes())
    assert emb.metadata.type == 0 and emb.sample.name == "s" and emb.sample.type == 0
    (pro,) = emb.projector
    assert (pro.tag, pro.step) == ("emb", 3)
    for tensor, want in ((pro.value, value), (pro.label, label), (emb.sample.X, x)):
        assert [d.size for d in tensor.shape.dim] == list(want.shape) and tensor.dtype == str(want.dtype)
        np.testing.assert_array_equal(np.frombuffer(tensor.content, tensor.dtype).reshape(want.shape), want)
    exc = SummaryProjector.FromString(Path(projector.exception_filename).read_bytes())
    assert exc.metadata.type == 1 and exc.projector[0].tag == "exception_projector"
    assert not exc.HasField("sample") and not exc.projector[0].HasField("label")
    with pytest.raises(NotImplementedError, match="sample_type"):
        projector.embedding_projector(value=value, sample_name="s", sample_type="video", x=x)

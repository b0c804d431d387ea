"""flow.saved_model / flow.serving: a trained predict job saved as OneFlow's saved-model layout and served again by
an InferenceSession, in this process after clear_default_session() and in a fresh one, compared with the job's own
outputs and with a numpy reference computed from the saved snapshot."""

from __future__ import annotations

import asyncio
import logging
import os

import numpy as np
import pytest
from google.protobuf import text_format

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src.errors import ExportError
from flowtorch._src.session import default_session
from flowtorch.core.serving import saved_model_pb2

BATCH, IN, OUT = 8, 3, 4
RNG = np.random.default_rng(5)
_HALF = RNG.random((BATCH // 2, IN), dtype=np.float32) * 4 - 2
X = np.concatenate([_HALF, -_HALF])  # rows x and -x: relu zeroes one of w.x + b and -w.x + b
Y = RNG.random((BATCH, OUT), dtype=np.float32)


def dense(x):
    # weights of both signs, so that relu keeps some values and zeroes others
    return flow.layers.dense(x, OUT, activation=flow.math.relu, name="fc",
                             kernel_initializer=flow.random_uniform_initializer(-1.0, 1.0),
                             bias_initializer=flow.constant_initializer(0.1))


def define_jobs(lbns: dict[str, str], batch: int = BATCH):
    """A train job and a predict job over the same dense layer (dense + relu, then a second output)."""

    @flow.global_function(type="train")
    def train(x: tp.Numpy.Placeholder((BATCH, IN)), y: tp.Numpy.Placeholder((BATCH, OUT))) -> tp.Numpy:
        h = dense(x)
        loss = flow.math.reduce_mean(flow.math.square(h - y))
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.05]), momentum=0).minimize(loss)
        return loss

    @flow.global_function(type="predict")
    def infer(x: tp.Numpy.Placeholder((batch, IN))) -> tp.Numpy:
        lbns["x"] = x.logical_blob_name
        h = dense(x)
        lbns["h"] = h.logical_blob_name
        doubled = h * 2.0
        lbns["doubled"] = doubled.logical_blob_name
        return h

    return train, infer


def train_and_save(path: str, version: int = 1, steps: int = 4, *, signature: bool = True,
                   extra_output: bool = False) -> tuple[np.ndarray, dict[str, str]]:
    """Train a few steps, save version ``version`` of the predict job; the job's own outputs on X."""
    lbns: dict[str, str] = {}
    train, infer = define_jobs(lbns)
    for _ in range(steps):
        train(X, Y)
    reference = infer(X)
    assert (reference > 0).any() and (reference == 0).any()  # relu at work
    builder = flow.saved_model.ModelBuilder(path).ModelName("dense_relu").Version(version)
    graph = builder.AddFunction(infer)
    if signature:
        sig = graph.AddSignature("regress").Input("features", lbns["x"]).Output("score", lbns["h"])
        if extra_output:
            sig.Output("doubled", lbns["doubled"])
    builder.Save()
    return reference, lbns


def numpy_reference(checkpoint: str, x: np.ndarray) -> np.ndarray:
    """relu(x Wᵀ + b) with W and b read back from the saved snapshot (OneFlow's dense keeps W as (out, in))."""
    variables = flow.checkpoint.get(checkpoint)
    w, b = variables["fc-weight"].numpy(), variables["fc-bias"].numpy()
    return np.maximum(x @ w.T + b, 0)


def served(path: str, **kwargs) -> flow.serving.InferenceSession:
    sess = flow.serving.InferenceSession()
    sess.load_saved_model(path, **kwargs)
    sess.launch()
    return sess


# --- the files ------------------------------------------------------------------------------------------------
def _varint(n: int) -> bytes:
    out = b""
    while True:
        low, n = n & 0x7F, n >> 7
        out += bytes([low | (0x80 if n else 0)])
        if not n:
            return out


def _field(number: int, payload: bytes | int) -> bytes:
    """One protobuf field: a varint, or a length-delimited payload."""
    if isinstance(payload, int):
        return _varint(number << 3) + _varint(payload)
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def test_save_writes_oneflow_layout(tmp_path):
    path = str(tmp_path / "models")
    train_and_save(path, version=2)
    version_dir = os.path.join(path, "2")
    assert sorted(os.listdir(version_dir)) == ["flowtorch", "saved_model.pb", "saved_model.prototxt", "variables"]
    with open(os.path.join(version_dir, "saved_model.pb"), "rb") as f:
        binary = saved_model_pb2.SavedModel.FromString(f.read())
    text = saved_model_pb2.SavedModel()
    with open(os.path.join(version_dir, "saved_model.prototxt")) as f:
        text_format.Parse(f.read(), text)  # strict: every field is one of OneFlow's
    assert binary == text
    assert (text.name, text.version, text.checkpoint_dir, text.default_graph_name) == ("dense_relu", 2, "variables",
                                                                                      "infer")
    graph = text.graphs["infer"]
    assert graph.default_signature_name == "regress"
    signature = graph.signatures["regress"]
    assert list(signature.inputs) == ["features"] and list(signature.outputs) == ["score"]
    assert signature.outputs["score"].lbi.op_name == "fc_activation"
    # OneFlow's field numbers, checked on the wire: the blob conf of an (8, 3) float input split on axis 0
    split0 = _field(1, _field(1, _field(1, 0)))  # ParallelDistribution{sbp_parallel{split_parallel{axis: 0}}}
    conf = (_field(1, _field(1, BATCH) + _field(1, IN)) + _field(2, 2) + _field(3, 0) + _field(4, split0))
    assert signature.inputs["features"].blob_conf.SerializeToString() == conf
    op_name = signature.inputs["features"].lbi.op_name
    tag = b"cpu" if default_session().device == "cpu" else b"gpu"
    expected = _field(1, op_name.encode()) + _field(4, tag) + _field(137, _field(2, b"out") + _field(3, conf))
    assert graph.op_list[0].SerializeToString() == expected
    head = _field(1, b"dense_relu") + _field(2, 2) + _field(3, b"variables")
    assert text.SerializeToString().startswith(head)
    assert text.SerializeToString().endswith(_field(5, b"infer"))
    ops = {op.name: op for op in graph.op_list}
    assert list(ops["fc-weight"].variable_conf.shape.dim) == [OUT, IN]
    assert ops["fc_activation"].user_conf.op_type_name == "relu"
    # the variables: a OneFlow snapshot of the trained values
    saved = flow.checkpoint.get(os.path.join(version_dir, "variables"))
    np.testing.assert_array_equal(saved["fc-weight"].numpy(), flow.get_all_variables()["fc-weight"].numpy())


def test_proto_parses_like_oneflow_wire_format():
    signature = saved_model_pb2.GraphDef.FromString(_field(3, b"sig") + _field(2, _field(1, b"sig")))
    assert signature.default_signature_name == "sig" and "sig" in signature.signatures
    model = saved_model_pb2.SavedModel.FromString(_field(1, b"m") + _field(2, 7) + _field(3, b"v"))
    assert (model.name, model.version, model.checkpoint_dir) == ("m", 7, "v")


# --- serving --------------------------------------------------------------------------------------------------
def test_serve_in_process_after_clear(tmp_path):
    path = str(tmp_path / "models")
    reference, _ = train_and_save(path)
    flow.clear_default_session()
    sess = served(path)
    out = sess.run("infer", features=X)
    assert len(out) == 1
    np.testing.assert_allclose(out[0], reference, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out[0], numpy_reference(os.path.join(path, "1", "variables"), X), rtol=1e-5,
                               atol=1e-6)
    assert asyncio.run(sess.async_run("infer", features=X))[0].shape == (BATCH, OUT)
    sess.close()
    with pytest.raises(ValueError, match="only allowed when status is RUNNING"):
        sess.run("infer", features=X)


def test_serve_in_fresh_process(tmp_path, run_py):
    path = str(tmp_path / "models")
    reference, _ = train_and_save(path)
    np.save(tmp_path / "x.npy", X)
    script = tmp_path / "serve.py"
    script.write_text(
        "import sys\nimport numpy as np\nimport flowtorch as flow\n"
        "sess = flow.serving.InferenceSession()\n"
        "sess.load_saved_model(sys.argv[1], model_version=flow.serving.ModelVersionPolicy.LATEST)\n"
        "sess.launch()\n"
        "assert sess.list_inputs() == ('features',), sess.list_inputs()\n"
        "np.save(sys.argv[3], sess.run('infer', features=np.load(sys.argv[2]))[0])\n")
    done = run_py(str(script), path, str(tmp_path / "x.npy"), str(tmp_path / "out.npy"))
    assert done.returncode == 0, done.stderr
    np.testing.assert_allclose(np.load(tmp_path / "out.npy"), reference, rtol=1e-5, atol=1e-6)


def test_lists_and_infos(tmp_path):
    path = str(tmp_path / "models")
    reference, _ = train_and_save(path, extra_output=True)
    sess = served(path)
    assert sess.list_jobs() == ["infer"]
    assert sess.list_inputs() == ("features",)
    assert sess.list_outputs() == ("score", "doubled")  # the order they were added: run() returns them so
    assert sess.input_info("features") == {"shape": (BATCH, IN), "dtype": flow.float32}
    assert sess.output_info("doubled", "infer") == {"shape": (BATCH, OUT), "dtype": flow.float32}
    score, doubled = sess.run("infer", features=X)
    np.testing.assert_allclose(score, reference, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(doubled, 2 * reference, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="no input 'nope'"):
        sess.input_info("nope")


def test_manual_open_compile_with_new_batch_size(tmp_path):
    """OneFlow's test pattern: read the prototxt, set the checkpoint, open the graph with its signature and a
    new batch size, compile its op list, launch."""
    path = str(tmp_path / "models")
    reference, _ = train_and_save(path)
    proto = saved_model_pb2.SavedModel()
    with open(os.path.join(path, "1", "saved_model.prototxt")) as f:
        text_format.Merge(f.read(), proto)
    sess = flow.serving.InferenceSession()
    sess.set_checkpoint_path(os.path.join(path, "1", proto.checkpoint_dir))
    graph_def = proto.graphs[proto.default_graph_name]
    with sess.open(proto.default_graph_name, graph_def.signatures[graph_def.default_signature_name], BATCH // 2):
        sess.compile(graph_def.op_list)
    sess.launch()
    assert sess.input_info("features", "infer")["shape"] == (BATCH // 2, IN)
    assert sess.output_info("score", "infer")["shape"] == (BATCH // 2, OUT)
    out = sess.run(sess.list_jobs()[0], features=X[: BATCH // 2])
    np.testing.assert_allclose(out[0], reference[: BATCH // 2], rtol=1e-5, atol=1e-6)


def test_signature_input_inside_the_job(tmp_path):
    """A signature input on an inner blob cuts the graph there (OneFlow's AddInputOutputOpsPass)."""
    path = str(tmp_path / "models")
    lbns: dict[str, str] = {}
    _, infer = define_jobs(lbns)
    infer(X)
    builder = flow.saved_model.ModelBuilder(path).ModelName("cut").Version(1)
    builder.AddFunction(infer).AddSignature("tail").Input("hidden", lbns["h"]).Output("twice", lbns["doubled"])
    builder.Save()
    flow.clear_default_session()
    sess = served(path)
    hidden = RNG.random((BATCH, OUT), dtype=np.float32)
    np.testing.assert_allclose(sess.run("infer", hidden=hidden)[0], 2 * hidden, rtol=1e-6)


def test_graph_without_signature(tmp_path):
    path = str(tmp_path / "models")
    reference, _ = train_and_save(path, signature=False)
    sess = served(path)
    assert sess.list_inputs() == ("x",)  # the job's parameter
    assert sess.list_outputs() == ("fc_activation",)  # the returned blob's op
    np.testing.assert_allclose(sess.run("infer", x=X)[0], reference, rtol=1e-5, atol=1e-6)


def test_version_policy(tmp_path):
    path = str(tmp_path / "models")
    first, _ = train_and_save(path, version=1, steps=1)
    flow.clear_default_session()
    later, _ = train_and_save(path, version=10, steps=6)  # 10 > 9 > 2: versions compare as numbers
    assert not np.allclose(first, later)
    os.makedirs(os.path.join(path, "9_not_a_version"))
    flow.clear_default_session()
    np.testing.assert_allclose(served(path).run("infer", features=X)[0], later, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(served(path, model_version=1).run("infer", features=X)[0], first, rtol=1e-5,
                               atol=1e-6)
    latest = served(path, model_version=flow.serving.ModelVersionPolicy.LATEST)
    np.testing.assert_allclose(latest.run("infer", features=X)[0], later, rtol=1e-5, atol=1e-6)


# --- errors ---------------------------------------------------------------------------------------------------
def test_load_errors(tmp_path):
    path = str(tmp_path / "models")
    train_and_save(path)
    with pytest.raises(ValueError, match="is not a valid directory"):
        flow.serving.InferenceSession().load_saved_model(str(tmp_path / "missing"))
    with pytest.raises(ValueError, match="version 3 of saved model .* do not exist"):
        flow.serving.InferenceSession().load_saved_model(path, model_version=3)
    with pytest.raises(ValueError, match="no model version"):
        flow.serving.InferenceSession().load_saved_model(str(tmp_path))
    with pytest.raises(ValueError, match="signature other do not exist"):
        flow.serving.InferenceSession().load_saved_model(path, signature_name="other")
    with pytest.raises(ValueError, match="graph other do not exist"):
        flow.serving.InferenceSession().load_saved_model(path, graph_name="other")
    sess = flow.serving.InferenceSession()
    with pytest.raises(ValueError, match="checkpoint path not set"):
        sess.launch()
    with pytest.raises(NotImplementedError, match="not supported device tag"):
        option = flow.serving.SessionOption()
        option.device_tag = "tpu"
        flow.serving.InferenceSession(option)


def test_run_errors(tmp_path, caplog):
    path = str(tmp_path / "models")
    train_and_save(path)
    sess = flow.serving.InferenceSession()
    sess.load_saved_model(path)
    with pytest.raises(ValueError, match="only allowed when status is RUNNING, current status is OPEN"):
        sess.run("infer", features=X)
    sess.launch()
    with pytest.raises(ValueError, match="no job 'predict' in this session .*'infer'"):
        sess.run("predict", features=X)
    with pytest.raises(ValueError, match="expected shape \\(8, 3\\); received \\(4, 3\\)"):
        sess.run("infer", features=X[:4])
    with pytest.raises(ValueError, match="expected dtype float32; received float64"):
        sess.run("infer", features=X.astype(np.float64))
    with pytest.raises(ValueError, match='input "features" is absent'):
        sess.run("infer", x=X)
    with pytest.raises(ValueError, match="requires numpy.ndarray"):
        sess.run("infer", features=X.tolist())
    with caplog.at_level(logging.WARNING, logger="flowtorch"):
        assert sess.run("infer", features=X, labels=X)[0].shape == (BATCH, OUT)  # OneFlow ignored other names
    assert "has no input(s) labels; ignored" in caplog.text
    with pytest.raises(ValueError, match="only allowed when status is OPEN"):
        sess.set_checkpoint_path(path)


def test_save_errors(tmp_path):
    lbns: dict[str, str] = {}
    _, infer = define_jobs(lbns)
    infer(X)
    path = str(tmp_path / "models")
    with pytest.raises(ValueError, match="model version is not set"):
        flow.saved_model.ModelBuilder(path).ModelName("m").Save()
    with pytest.raises(ValueError, match="model name is not set"):
        flow.saved_model.ModelBuilder(path).Version(1).Save()
    with pytest.raises(ValueError, match="'op_name/blob_name'"):
        flow.saved_model.ModelBuilder(path).AddFunction(infer).AddSignature("s").Input("features", "no_slash")
    builder = flow.saved_model.ModelBuilder(path).ModelName("m").Version(1)
    builder.AddFunction(infer).AddSignature("s").Input("features", lbns["x"]).Output("score", "NoSuchOp/out_0")
    with pytest.raises(ValueError, match="has no blob 'NoSuchOp/out_0'"):
        builder.Save()
    with pytest.raises(ValueError, match="function with name infer already exists"):
        builder.AddFunction(infer)
    conflict = flow.saved_model.ModelBuilder(path).ModelName("m").Version(1)
    conflict.AddFunction(infer).AddSignature("s").Input("a", lbns["x"]).Output("a", lbns["h"])
    with pytest.raises(ValueError, match="input conflict, a already exist"):
        conflict.Save()
    assert not os.path.exists(path)
    flow.clear_default_session()
    train_and_save(path)
    again = flow.saved_model.ModelBuilder(path).ModelName("m").Version(1)
    again.AddFunction(default_session().jobs["infer"])
    with pytest.raises(ValueError, match='version "1" already exist'):
        again.Save()


def test_job_with_two_inputs(tmp_path):
    """The job's input blobs are placed by their names, in any order; a signature whose outputs need an input it
    does not name is refused."""
    lbns: dict[str, str] = {}

    @flow.global_function(type="predict")
    def two(a: tp.Numpy.Placeholder((2, 3)), b: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
        lbns["a"], lbns["b"] = a.logical_blob_name, b.logical_blob_name
        out = a - b
        lbns["out"] = out.logical_blob_name
        return out

    a, b = RNG.random((2, 3), dtype=np.float32), RNG.random((2, 3), dtype=np.float32)
    np.testing.assert_allclose(two(a, b), a - b, rtol=1e-6)
    path = str(tmp_path / "m")
    partial = flow.saved_model.ModelBuilder(path).ModelName("m").Version(1)
    partial.AddFunction(two).AddSignature("s").Input("b", lbns["b"]).Output("diff", lbns["out"])
    with pytest.raises(ValueError, match="input 'a', which the signature does not name"):
        partial.Save()
    builder = flow.saved_model.ModelBuilder(path).ModelName("m").Version(1)
    builder.AddFunction(two).AddSignature("s").Input("second", lbns["b"]).Input("first", lbns["a"]).Output(
        "diff", lbns["out"])
    builder.Save()
    sess = served(path)
    assert sess.list_inputs() == ("second", "first")
    np.testing.assert_allclose(sess.run("two", first=a, second=b)[0], a - b, rtol=1e-6)


def test_train_job_is_refused(tmp_path):
    train, _ = define_jobs({})
    train(X, Y)
    builder = flow.saved_model.ModelBuilder(str(tmp_path / "m")).ModelName("m").Version(1)
    builder.AddFunction(train)
    with pytest.raises(ExportError, match="it is a train job"):
        builder.Save()


def test_model_saved_by_oneflow_is_refused(tmp_path):
    """A saved model OneFlow wrote holds only operator confs: flowtorch says it cannot run them."""
    version_dir = tmp_path / "models" / "1"
    version_dir.mkdir(parents=True)
    (version_dir / "saved_model.prototxt").write_text(
        'name: "alexnet"\nversion: 1\ncheckpoint_dir: "variables"\n'
        'graphs { key: "infer" value {\n'
        '  op_list { name: "conv1" device_tag: "gpu" user_conf { op_type_name: "conv2d" '
        'attr { key: "padding_before" value { at_list_int32 { val: 0 val: 0 } } } } }\n'
        '  op_list { name: "conv1-weight" variable_conf { out: "out" shape { dim: 1 } '
        'initializer { constant_conf { value: 0 } } } }\n'
        '  signatures { key: "s" value { outputs { key: "y" value { lbi { op_name: "conv1" blob_name: "out_0" } } } '
        '} }\n'
        '} }\ndefault_graph_name: "infer"\n')
    with pytest.raises(ExportError, match="OneFlow operator confs \\(2 ops: conv2d, variable_conf\\)"):
        flow.serving.InferenceSession().load_saved_model(str(tmp_path / "models"))
    assert issubclass(ExportError, NotImplementedError)

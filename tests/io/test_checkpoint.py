"""Model IO as a OneFlow program uses it: ``flow.checkpoint.save/get``, ``flow.load_variables``,
``flow.get_all_variables``, ``flow.train.CheckPoint`` (v2 and legacy) and ``SimpleCheckPointManager``."""

from __future__ import annotations

import logging
import os

import numpy as np
import pytest
from helpers.snapshots import assert_unchanged, hand_write, values

import flowtorch as flow
import flowtorch.checkpoint  # makes flow.checkpoint available, as `import oneflow` does
import flowtorch.data
import flowtorch.train
import flowtorch.typing as tp
from flowtorch._src import mnist
from flowtorch._src.initializers import constant_initializer, random_normal_initializer
from flowtorch._src.io import checkpoint as ckpt
from flowtorch._src.optim import schedulers
from flowtorch._src.optim.sgd import SGD

# Top-level names (re-exported by flowtorch/__init__.py once wired; the module's functions until then).
load_variables = getattr(flow, "load_variables", ckpt.load_variables)
get_all_variables = getattr(flow, "get_all_variables", ckpt.get_all_variables)

X = np.arange(12, dtype=np.float32).reshape(4, 3) / 10


def _declare_add_model():
    """test_checkpoint.py's get_simple_model: x (random) + y (constant 5) + z (random)."""

    @flow.global_function()
    def add() -> tp.Numpy:
        x = flow.get_variable("x", shape=(9, 3), dtype=flow.float32,
                              initializer=random_normal_initializer(mean=10, stddev=1))
        y = flow.get_variable("y", shape=(9, 3), dtype=flow.float32, initializer=constant_initializer(5))
        z = flow.get_variable("z", shape=(9, 3), dtype=flow.float32, initializer=random_normal_initializer())
        return x + y + z

    return add


def _declare_affine():
    """x @ weight + bias, with weight/bias initialised to values no snapshot below contains."""

    @flow.global_function()
    def affine(x: tp.Numpy.Placeholder((4, 3))) -> tp.Numpy:
        w = flow.get_variable("weight", shape=(3, 2), dtype=flow.float32, initializer=constant_initializer(-1))
        b = flow.get_variable("bias", shape=(2,), dtype=flow.float32, initializer=constant_initializer(-2))
        return flow.matmul(x, w) + b

    return affine


def _done(root: str) -> None:
    open(os.path.join(root, "snapshot_done"), "w").close()


# ------------------------------------------------------------------------------------------- round trips


def test_save_then_load_in_a_new_session_gives_identical_predictions(tmp_path) -> None:
    path = str(tmp_path / "snap")
    add = _declare_add_model()
    res1 = add()
    flow.checkpoint.save(path)

    assert sorted(os.listdir(path)) == ["snapshot_done", "x", "y", "z"]
    assert os.path.getsize(os.path.join(path, "snapshot_done")) == 0
    for name in "xyz":
        assert sorted(os.listdir(os.path.join(path, name))) == ["meta", "out"]
        with open(os.path.join(path, name, "meta")) as f:
            assert f.read() == "shape {\n  dim: 9\n  dim: 3\n}\ndata_type: kFloat\n"
    x_file = np.fromfile(os.path.join(path, "x", "out"), dtype=np.float32).reshape(9, 3)
    np.testing.assert_array_equal(x_file, get_all_variables()["x"].numpy())

    flow.clear_default_session()
    add = _declare_add_model()
    vars_in_file = flow.checkpoint.get(path)
    assert sorted(vars_in_file) == ["x", "y", "z"]
    assert vars_in_file["x"].shape == (9, 3) and vars_in_file["x"].dtype is flow.float32
    load_variables(vars_in_file)
    res2 = add()
    np.testing.assert_array_equal(res2, res1)
    np.testing.assert_array_equal(get_all_variables()["x"].numpy(), x_file)


def test_checkpoint_object_save_and_load_follow_test_model_io(tmp_path, caplog) -> None:
    shape, lr = (2, 2), 1e-2

    @flow.global_function(type="train")
    def gen_var(x: tp.Numpy.Placeholder(shape=(2, 2))) -> tp.Numpy:
        var = flow.get_variable("var", shape=shape, dtype=flow.float32, initializer=random_normal_initializer())
        SGD(schedulers.PiecewiseConstantScheduler([], [lr]), momentum=0).minimize(var + x)
        return var

    with caplog.at_level(logging.WARNING, logger="flowtorch"):
        checkpoint = flow.train.CheckPoint()
    [banner] = [r.getMessage() for r in caplog.records]
    assert banner.startswith("'flow.train.CheckPoint' is deprecated. Please use the new API:\n")
    assert banner.endswith("\nflow.train.CheckPoint().init() is not needed any more.")
    checkpoint.init()
    assert "var" in get_all_variables()  # init() started the session: the job body ran

    previous = None
    rng = np.random.default_rng(0)
    for i in range(3):
        var = gen_var(rng.random(shape, dtype=np.float32))
        if previous is not None:
            np.testing.assert_allclose(var, previous - lr / var.size, rtol=1e-6)
        previous = var
        checkpoint.save(str(tmp_path / f"snapshot-{i}"))
    assert os.path.isdir(tmp_path / "snapshot-2" / "System-Train-TrainStep-gen_var")

    flow.clear_default_session()

    @flow.global_function()
    def get_var() -> tp.Numpy:
        return flow.get_variable("var", shape=shape, dtype=flow.float32, initializer=random_normal_initializer())

    # The snapshot's train-step counter names no variable of this session: ignored.
    flow.train.CheckPoint().load(str(tmp_path / "snapshot-2"))
    from_file = np.fromfile(tmp_path / "snapshot-2" / "var" / "out", dtype=np.float32).reshape(shape)
    np.testing.assert_array_equal(get_var(), from_file)


def test_resume_training_with_momentum_matches_uninterrupted_training(tmp_path) -> None:
    def model_getter():
        @flow.global_function(type="train")
        def model() -> tp.Numpy:
            x = flow.get_variable("x", shape=(4, 5), dtype=flow.float32,
                                  initializer=random_normal_initializer(mean=10, stddev=1))
            w = flow.get_variable("w", shape=(5, 6), dtype=flow.float32,
                                  initializer=random_normal_initializer(mean=10, stddev=1))
            y = flow.matmul(x, w)
            SGD(schedulers.PiecewiseConstantScheduler([0], [0.01, 0.001]), momentum=0.9).minimize(y)
            return y

        return model

    model = model_getter()
    model()
    flow.checkpoint.save(str(tmp_path / "snap"))
    model()
    w1 = get_all_variables()["w"].numpy()

    flow.clear_default_session()
    model = model_getter()
    load_variables(flow.checkpoint.get(str(tmp_path / "snap")))
    model()
    all_vars = get_all_variables()
    np.testing.assert_array_equal(all_vars["System-Train-TrainStep-model"].numpy(), [2])
    np.testing.assert_array_equal(all_vars["w"].numpy(), w1)


def test_snapshot_written_byte_by_byte_in_oneflow_format(tmp_path) -> None:
    root = str(tmp_path / "from_oneflow")
    weight = np.array([[1.0, -2.0], [0.5, 3.0], [-1.5, 0.25]], np.float32)
    bias = np.array([0.125, -4.0], np.float32)
    hand_write(root, "weight", weight, "shape {\n  dim: 3\n  dim: 2\n}\ndata_type: kFloat\n")
    hand_write(root, "bias", bias, "shape { dim: 2 } data_type: kFloat")  # one-line text proto
    hand_write(root, "step", np.array([7], np.int64), "shape {\n  dim: 1\n}\ndata_type: kInt64\n")
    os.makedirs(os.path.join(root, "not_a_variable"))  # no `out`: ignored
    _done(root)

    affine = _declare_affine()
    blobs = flow.checkpoint.get(root)
    assert sorted(blobs) == ["bias", "step", "weight"]
    assert blobs["weight"].shape == (3, 2) and blobs["weight"].dtype is flow.float32
    assert blobs["step"].dtype is flow.int64
    np.testing.assert_array_equal(blobs["step"].numpy(), [7])

    load_variables(blobs)  # "step" names no variable: ignored by default
    np.testing.assert_allclose(affine(X), X @ weight + bias, rtol=1e-6)

    single = flow.checkpoint.get(os.path.join(root, "bias"))  # a variable's own directory: one blob
    assert isinstance(single, ckpt.FileBackendVariableBlob)
    assert single.shape == (2,)
    np.testing.assert_array_equal(single.numpy(), bias)
    with pytest.raises(TypeError, match="single variable's directory"):
        load_variables(single)


def test_legacy_dir_without_meta_loaded_by_checkpoint_object(tmp_path, caplog) -> None:
    root = str(tmp_path / "legacy")
    weight = np.array([[2.0, 0.0], [0.0, 3.0], [1.0, 1.0]], np.float32)
    hand_write(root, "weight", weight, meta=None)
    _done(root)

    flow.config.enable_legacy_model_io(True)
    affine = _declare_affine()
    with caplog.at_level(logging.WARNING, logger="flowtorch"):
        checkpoint = flow.train.CheckPoint()
        assert not caplog.records  # no deprecation banner in legacy mode
        checkpoint.init()
        checkpoint.load(root)
    missing = os.path.join(root, "bias", "out")
    assert [r.getMessage() for r in caplog.records] == [
        f"CANNOT find variable path in : {missing}. It will be initialized."]
    # weight comes from the file; bias keeps its initial value (constant -2).
    np.testing.assert_allclose(affine(X), X @ weight - 2, rtol=1e-6)


def test_legacy_dir_without_meta_through_the_v2_api(tmp_path) -> None:
    root = str(tmp_path / "legacy")
    weight = np.linspace(-1, 1, 6, dtype=np.float32).reshape(3, 2)
    hand_write(root, "weight", weight, meta=None)

    affine = _declare_affine()
    blob = flow.checkpoint.get(root)["weight"]
    assert blob.shape is None and blob.dtype is None
    with pytest.raises(RuntimeError, match="weight"):
        blob.numpy()
    typed = ckpt.FileBackendVariableBlob(os.path.join(root, "weight"), flow.float32, (3, 2))
    np.testing.assert_array_equal(typed.numpy(), weight)
    with pytest.raises(AssertionError, match=r"'weight'.*larger than expected"):
        ckpt.FileBackendVariableBlob(os.path.join(root, "weight"), flow.float32, (2, 2))
    load_variables({"weight": blob})  # the variable supplies shape and dtype
    np.testing.assert_allclose(affine(X), X @ weight - 2, rtol=1e-6)


def test_legacy_save_writes_out_files_only_and_refuses_non_empty_dir(tmp_path) -> None:
    flow.config.enable_legacy_model_io(True)
    add = _declare_add_model()
    res = add()
    empty = tmp_path / "empty"
    empty.mkdir()
    flow.train.CheckPoint().save(str(empty))  # an empty directory is accepted
    assert sorted(os.listdir(empty)) == ["snapshot_done", "x", "y", "z"]
    assert os.listdir(empty / "x") == ["out"]
    with pytest.raises(AssertionError, match="Non-empty directory .* already exists!"):
        flow.train.CheckPoint().save(str(empty))

    flow.clear_default_session()
    flow.config.enable_legacy_model_io(True)
    add = _declare_add_model()
    flow.train.CheckPoint().load(str(empty))
    np.testing.assert_array_equal(add(), res)


def test_simple_checkpoint_manager_saves_then_restores_latest(tmp_path) -> None:
    root = str(tmp_path / "ckpts")
    add = _declare_add_model()
    manager = flow.train.SimpleCheckPointManager(root)
    assert manager.latest_checkpoint() is None
    manager.initialize_or_restore()  # nothing yet: saves one
    names = manager.list_checkpoints()
    assert len(names) == 1 and names[0].startswith("snapshot_")
    res = add()

    load_variables({"x": np.zeros((9, 3), np.float32)})
    assert not np.array_equal(add(), res)
    os.makedirs(os.path.join(root, "snapshot_zz_unfinished"))  # no snapshot_done: not a checkpoint
    manager.initialize_or_restore()
    np.testing.assert_array_equal(add(), res)


def test_save_of_a_var_dict_mixes_models(tmp_path) -> None:
    """test_checkpoint.py's _TestMixedModel: rename saved variables, save a subset, load into a new model."""
    first, second = str(tmp_path / "a"), str(tmp_path / "b")
    _declare_add_model()
    all_vars = get_all_variables()
    flow.checkpoint.save(first, {"x_from_model1": all_vars["x"], "extra": np.arange(3, dtype=np.int32)})
    assert sorted(os.listdir(first)) == ["extra", "snapshot_done", "x_from_model1"]
    file_blobs = flow.checkpoint.get(first)
    flow.checkpoint.save(second, {"x_from_model2": file_blobs["x_from_model1"]})  # file blob → new snapshot

    flow.clear_default_session()

    @flow.global_function()
    def mixed() -> tp.Numpy:
        x1 = flow.get_variable("x_from_model1", shape=(9, 3), dtype=flow.float32,
                               initializer=constant_initializer(0))
        x2 = flow.get_variable("x_from_model2", shape=(9, 3), dtype=flow.float32,
                               initializer=constant_initializer(0))
        return x1 + x2

    load_variables({**flow.checkpoint.get(first), **flow.checkpoint.get(second)})
    expected = file_blobs["x_from_model1"].numpy() * 2
    np.testing.assert_allclose(mixed(), expected, rtol=1e-6)


# ------------------------------------------------------------------------------------------- variables


def test_get_all_variables_includes_optimizer_state_and_train_step() -> None:
    @flow.global_function(type="train")
    def train(x: tp.Numpy.Placeholder((4, 3))) -> tp.Numpy:
        w = flow.get_variable("w", shape=(3, 2), dtype=flow.float32, initializer=constant_initializer(0.5))
        loss = flow.math.reduce_mean(flow.matmul(x, w))
        SGD(schedulers.PiecewiseConstantScheduler([], [0.1]), momentum=0.9).minimize(loss)
        return loss

    train(X)
    all_vars = get_all_variables()
    assert {"w", "w-momentum", "System-Train-TrainStep-train"} <= set(all_vars)
    momentum = all_vars["w-momentum"]
    assert momentum.shape == (3, 2) and momentum.dtype is flow.float32
    assert np.any(momentum.numpy() != 0)
    step = all_vars["System-Train-TrainStep-train"]
    assert step.dtype is flow.int64
    np.testing.assert_array_equal(step.numpy(), [1])

    w_blob = all_vars["w"]
    copy = w_blob.numpy()
    copy[...] = 123.0  # a fresh copy: the variable is not touched
    assert not np.any(w_blob.numpy() == 123.0)
    before = w_blob.numpy()
    train(X)
    assert not np.array_equal(w_blob.numpy(), before)  # the blob reads the current value
    np.testing.assert_array_equal(step.numpy(), [2])


def test_variable_api_starts_the_session_and_builds_every_job() -> None:
    add = _declare_add_model()
    assert add.body_calls == 0
    assert sorted(get_all_variables()) == ["x", "y", "z"]
    assert add.body_calls == 1
    np.testing.assert_array_equal(get_all_variables()["y"].numpy(), np.full((9, 3), 5, np.float32))
    add()
    assert add.body_calls == 1


def test_partially_load_numpy_and_assign_between_variables() -> None:
    add = _declare_add_model()
    all_vars = get_all_variables()
    y_before = all_vars["y"].numpy()
    new_x = np.random.default_rng(1).random((9, 3)).astype(np.float32)
    load_variables({"x": new_x})
    np.testing.assert_array_equal(all_vars["y"].numpy(), y_before)
    np.testing.assert_allclose(add(), new_x + y_before + all_vars["z"].numpy(), rtol=1e-6)

    load_variables({"x": all_vars["z"]})  # test_checkpoint.py's _TestAssignmentBetweenMemory
    np.testing.assert_allclose(add(), all_vars["z"].numpy() * 2 + all_vars["y"].numpy(), rtol=1e-6)

    y, z = all_vars["y"].numpy(), all_vars["z"].numpy()
    load_variables({"y": all_vars["z"], "z": all_vars["y"]})  # values are taken before any assignment
    np.testing.assert_array_equal(all_vars["y"].numpy(), z)
    np.testing.assert_array_equal(all_vars["z"].numpy(), y)


def test_load_mnist_is_exported_from_flow_data() -> None:
    assert flow.data.load_mnist is mnist.load_mnist
    assert "make_synthetic_mnist" not in flow.data.__all__ and not hasattr(flow.data, "make_synthetic_mnist")


# ------------------------------------------------------------------------------------------- errors


def test_save_refuses_a_non_empty_directory_or_a_file(tmp_path) -> None:
    _declare_add_model()
    target = tmp_path / "taken"
    target.mkdir()
    (target / "keep.txt").write_text("mine")
    with pytest.raises(AssertionError, match=f"Non-empty directory {target} already exists!"):
        flow.checkpoint.save(str(target))
    assert os.listdir(target) == ["keep.txt"]
    a_file = tmp_path / "file"
    a_file.write_text("x")
    with pytest.raises(AssertionError, match="already exists"):
        flow.checkpoint.save(str(a_file))
    assert a_file.read_text() == "x"


def test_truncated_out_names_the_variable(tmp_path) -> None:
    root = str(tmp_path / "snap")
    hand_write(root, "weight", np.zeros(5, np.float32), "shape {\n  dim: 3\n  dim: 2\n}\ndata_type: kFloat\n")
    _declare_affine()
    with pytest.raises(AssertionError, match=r"'weight'.*truncated: 20 bytes, expected 24"):
        flow.checkpoint.get(root)

    legacy = str(tmp_path / "legacy")
    hand_write(legacy, "weight", np.zeros(5, np.float32), meta=None)
    hand_write(legacy, "bias", np.array([9.0, 9.0], np.float32), meta=None)
    before = values()
    with pytest.raises(AssertionError, match=r"'weight'.*truncated"):
        load_variables(flow.checkpoint.get(legacy))
    assert_unchanged(before)  # bias was valid, but nothing was assigned


def test_corrupt_meta_names_the_variable_and_file(tmp_path) -> None:
    root = str(tmp_path / "snap")
    var_dir = hand_write(root, "weight", np.zeros((3, 2), np.float32), "shape {\n  dim: 3\n  dim: 2\ndata_type kFloat")
    _declare_affine()
    with pytest.raises(ValueError, match="'weight'.*" + os.path.join(var_dir, "meta")):
        flow.checkpoint.get(root)
    with pytest.raises(AssertionError, match=f"Directory {tmp_path / 'nowhere'} doesn't exist!"):
        flow.checkpoint.get(str(tmp_path / "nowhere"))


def test_shape_mismatch_is_rejected_and_leaves_every_variable_untouched(tmp_path) -> None:
    root = str(tmp_path / "snap")
    hand_write(root, "bias", np.array([1.0, 2.0], np.float32), "shape { dim: 2 } data_type: kFloat")
    hand_write(root, "weight", np.zeros((2, 3), np.float32), "shape { dim: 2 dim: 3 } data_type: kFloat")
    _declare_affine()
    before = values()
    with pytest.raises(AssertionError, match=r"^\(3, 2\) vs \(2, 3\): .*'weight'.*" + os.path.join(root, "weight")):
        load_variables(flow.checkpoint.get(root))  # "bias" comes first and is valid
    assert_unchanged(before)
    with pytest.raises(AssertionError, match=r"^\(3, 2\) vs \(6,\): .*'weight'"):
        load_variables({"bias": np.ones(2, np.float32), "weight": np.ones(6, np.float32)})
    assert_unchanged(before)


def test_dtype_mismatch_is_rejected_and_leaves_every_variable_untouched(tmp_path) -> None:
    root = str(tmp_path / "snap")
    hand_write(root, "weight", np.zeros((3, 2), np.float64), "shape { dim: 3 dim: 2 } data_type: kDouble")
    _declare_affine()
    before = values()
    assert flow.checkpoint.get(root)["weight"].dtype is flow.float64
    with pytest.raises(AssertionError, match=r"^oneflow\.float32 vs oneflow\.float64: .*'weight'"):
        load_variables(flow.checkpoint.get(root))
    with pytest.raises(AssertionError, match=r"^oneflow\.float32 vs oneflow\.float64: .*'bias'"):
        load_variables({"weight": np.ones((3, 2), np.float32), "bias": np.ones(2, np.float64)})
    with pytest.raises(AssertionError, match=r"Unknown value type: list .*'bias'"):
        load_variables({"bias": [1.0, 2.0]})
    assert_unchanged(before)


def test_unknown_names_ignored_by_default_else_runtime_error() -> None:
    _declare_affine()
    before = values()
    with pytest.raises(RuntimeError, match=r'^"nope" is not a variable name \(nor are \'also_nope\'\).*bias'):
        load_variables({"bias": np.full(2, 7, np.float32), "nope": np.zeros(1, np.float32),
                        "also_nope": np.zeros(1, np.float32)}, ignore_mismatch=False)
    assert_unchanged(before)

    load_variables({"bias": np.full(2, 7, np.float32), "nope": np.zeros(1, np.float32)})
    np.testing.assert_array_equal(get_all_variables()["bias"].numpy(), [7, 7])

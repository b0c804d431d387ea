"""convert-checkpoint takes an export's weights back to OneFlow's variable names (its oneflow_names.json), so a
OneFlow program loads them; names that do not match the map are logged."""

from __future__ import annotations

import json
import logging

import numpy as np
import pytest
import torch
from safetensors.torch import load_file

import flowtorch as flow
import flowtorch.checkpoint  # flow.checkpoint, as `import oneflow` gives it
import flowtorch.train  # flow.train.CheckPoint
import flowtorch.typing as tp
from flowtorch._src.errors import ConversionError
from flowtorch._src.migrate.convert import convert
from flowtorch._src.migrate.convert_cli import main

RNG = np.random.default_rng(5)
X = RNG.standard_normal((8, 1, 8, 8)).astype(np.float32)
Y = RNG.integers(0, 4, 8).astype(np.int32)


def _net(images):
    init = flow.random_normal_initializer(stddev=0.3)
    c = flow.layers.conv2d(images, 3, 3, padding="SAME", activation=flow.nn.relu, kernel_initializer=init,
                           name="conv1")
    c = flow.layers.batch_normalization(c, axis=1, name="bn1")
    flat = flow.reshape(c, (c.shape[0], -1))
    return flow.layers.dense(flat, 4, kernel_initializer=init, name="dense1")


def _train_job():
    @flow.global_function(type="train")
    def train(images: tp.Numpy.Placeholder((8, 1, 8, 8)), labels: tp.Numpy.Placeholder((8,), dtype=flow.int32)
              ) -> tp.Numpy:
        loss = flow.nn.sparse_softmax_cross_entropy_with_logits(labels, _net(images))
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1]), momentum=0).minimize(loss)
        return loss
    return train


def _eval_job():
    @flow.global_function(type="predict")
    def lenet_eval(images: tp.Numpy.Placeholder((8, 1, 8, 8))) -> tp.Numpy:
        return flow.nn.softmax(_net(images))
    return lenet_eval


@pytest.fixture
def exported(tmp_path):
    """A job trained three steps, exported; the outputs of its eval job with the trained variables."""
    train = _train_job()
    for _ in range(3):
        train(X, Y)
    flow.export(train, tmp_path / "exported")
    expected = _eval_job()(X)
    flow.clear_default_session()
    return tmp_path, expected


def test_converted_export_loads_in_oneflow_names_and_gives_the_same_outputs(exported):
    tmp_path, expected = exported
    result = convert(tmp_path / "exported" / "model.safetensors", tmp_path / "snap")
    assert result.names == str(tmp_path / "exported" / "oneflow_names.json")
    names = json.loads((tmp_path / "exported" / "oneflow_names.json").read_text())
    assert sorted(p.name for p in (tmp_path / "snap").iterdir() if p.is_dir()) == sorted(names.values())
    assert "conv1-weight" in names.values() and "bn1-moving_mean" in names.values()

    job = _eval_job()  # a fresh session: its variables are initialised anew
    assert not np.allclose(job(X), expected)
    flow.load_variables(flow.checkpoint.get(str(tmp_path / "snap")))
    np.testing.assert_array_equal(job(X), expected)

    flow.clear_default_session()
    job = _eval_job()
    check_point = flow.train.CheckPoint()
    check_point.load(str(tmp_path / "snap"))
    np.testing.assert_array_equal(job(X), expected)


def test_the_cli_applies_the_map_and_can_be_told_not_to(exported, capsys):
    tmp_path, _ = exported
    weights = str(tmp_path / "exported" / "model.safetensors")
    assert main([weights, str(tmp_path / "snap")]) == 0
    assert "keys renamed by" in capsys.readouterr().out
    assert (tmp_path / "snap" / "conv1-weight").is_dir()
    assert main(["--no-names", weights, str(tmp_path / "plain")]) == 0
    assert (tmp_path / "plain" / "conv1_weight").is_dir()
    # backwards: a OneFlow snapshot into the export's attribute names, which its model.py loads
    assert main(["--names", str(tmp_path / "exported" / "oneflow_names.json"), str(tmp_path / "snap"),
                 str(tmp_path / "again.pt")]) == 0
    again = torch.load(tmp_path / "again.pt", weights_only=True)
    original = load_file(weights)
    assert set(again) == set(original)
    for key in original:
        torch.testing.assert_close(again[key], original[key], rtol=0, atol=0)


def test_names_that_do_not_match_the_map_are_logged(exported, caplog):
    tmp_path, _ = exported
    map_path = tmp_path / "exported" / "oneflow_names.json"
    names = json.loads(map_path.read_text())
    del names["conv1_weight"]
    names["dense9_weight"] = "dense9-weight"
    map_path.write_text(json.dumps(names))
    with caplog.at_level(logging.WARNING, logger="flowtorch"):
        convert(tmp_path / "exported" / "model.safetensors", tmp_path / "snap")
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING and r.name == "flowtorch"]
    assert any("has no entry for 1 of" in w and "conv1_weight" in w for w in warnings), warnings
    assert any("does not hold" in w and "dense9_weight" in w for w in warnings), warnings
    assert (tmp_path / "snap" / "conv1_weight").is_dir()  # kept under its own name
    assert (tmp_path / "snap" / "conv1-bias").is_dir()


def test_a_map_that_would_write_two_tensors_under_one_name_is_refused(exported):
    tmp_path, _ = exported
    map_path = tmp_path / "exported" / "oneflow_names.json"
    names = json.loads(map_path.read_text())
    names["conv1_bias"] = "conv1-weight"
    map_path.write_text(json.dumps(names))
    with pytest.raises(ConversionError, match="would both be written as 'conv1-weight'"):
        convert(tmp_path / "exported" / "model.safetensors", tmp_path / "snap")
    assert not (tmp_path / "snap").exists()
    with pytest.raises(ConversionError, match="both rename the keys"):
        convert(tmp_path / "exported" / "model.safetensors", tmp_path / "x.pt", names=map_path,
                rename_for_torch=True)

"""flowtorch.export of train jobs that read OFRecords inside the body: the data ops' outputs become the module's
inputs, and data/ (numpy, torch and Pillow only) makes the job's batches again, batch for batch."""

from __future__ import annotations

import ast
import importlib
import json
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch
from tests.helpers.data import (
    bytes_feature,
    float_feature,
    gradient_image,
    int_feature,
    jpeg_bytes,
    numbered_dataset,
    write_dataset,
)

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src.migrate import export_data
from flowtorch.core.record import record_pb2

pytestmark = pytest.mark.usefixtures("in_process")  # the job's loader runs in this process: quick and seedable
BATCH = 4
STEPS = 3
TRAIN_STEPS = 12


def _raw_job(data_dir, shuffle=False, name="train_raw"):
    seen = []

    def body():
        records = flow.data.ofrecord_reader(str(data_dir), batch_size=BATCH, data_part_num=2,
                                            random_shuffle=shuffle, shuffle_buffer_size=5, seed=11)
        x = flow.data.OFRecordRawDecoder(records, "x", shape=(2,), dtype=flow.float)
        ids = flow.data.OFRecordRawDecoder(records, "id", shape=(1,), dtype=flow.int32)
        flow.watch(x, lambda v: seen.append(("x", v.numpy().copy())))
        flow.watch(ids, lambda v: seen.append(("id", v.numpy().copy())))
        init = flow.random_normal_initializer(stddev=0.3)
        h = flow.layers.dense(x / 10.0, 8, activation=flow.nn.relu, kernel_initializer=init, name="h")
        pred = flow.layers.dense(h, 1, kernel_initializer=init, name="out")
        loss = flow.math.square(pred - flow.cast(ids, flow.float) / 10.0)
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.05]), momentum=0.0).minimize(loss)
        return loss

    body.__name__ = name
    job = flow.global_function(type="train")(body)
    job.__annotations__ = {"return": tp.Numpy}
    return job, seen


def _batches(out, **kwargs):
    """The export's data.make_loader(**kwargs) batches as numpy arrays (data/ imported from ``out``), and the
    package's INPUTS."""
    sys.modules.pop("data", None)
    sys.path.insert(0, str(out))
    try:
        data = importlib.import_module("data")
        return [tuple(t.numpy() for t in b) for b in data.make_loader(**kwargs)], data.INPUTS
    finally:
        sys.path.remove(str(out))
        sys.modules.pop("data", None)


def _pairs(seen):
    xs = [v for k, v in seen if k == "x"]
    ids = [v for k, v in seen if k == "id"]
    return list(zip(xs, ids))


@pytest.mark.parametrize("shuffle", [False, True])
def test_loader_gives_the_jobs_batches(tmp_path, shuffle):
    numbered_dataset(tmp_path / "ds", [5, 6])
    job, seen = _raw_job(tmp_path / "ds", shuffle)
    for _ in range(STEPS):
        job()
    flow.export(job, tmp_path / "out")
    batches, inputs = _batches(tmp_path / "out", start=0, num_batches=STEPS)
    assert [name.rstrip("0123456789") for name in inputs] == ["ofrecord_raw_decoder_"] * 2
    follows = _batches(tmp_path / "out", num_batches=1)[0][0]  # by default: the batch the job reads next
    expected = _pairs(seen)
    assert len(batches) == len(expected) == STEPS
    for (x, ids), (ex, eids) in zip(batches, expected):
        np.testing.assert_array_equal(x, ex)
        np.testing.assert_array_equal(ids, eids)
    job()
    flow.sync_default_session()  # (an unannotated job: its watch handlers run on the delivery thread)
    np.testing.assert_array_equal(follows[0], _pairs(seen)[-1][0])
    if not shuffle:  # 11 records, read in order and round again
        assert [int(i) for b in batches for i in b[1].ravel()] == [*range(11), 0]


def test_model_takes_the_data_ops_outputs_and_its_header_shows_the_loop(tmp_path):
    numbered_dataset(tmp_path / "ds", [5, 6])
    job, _ = _raw_job(tmp_path / "ds")
    job()
    module = flow.export(job, tmp_path / "out")
    device = next(module.parameters()).device  # the session's (CUDA where there is one)
    x = torch.arange(8, dtype=torch.float32, device=device).view(BATCH, 2)
    ids = torch.arange(4, dtype=torch.int32, device=device).view(BATCH, 1)
    assert module.loss(x, ids).shape == (BATCH, 1)
    source = (tmp_path / "out" / "model.py").read_text()
    assert "data.make_loader(" in source
    assert re.search(r"net.loss\(ofrecord_raw_decoder_\d+, ofrecord_raw_decoder_\d+\)", source)
    spec = json.loads((tmp_path / "out" / "data" / "pipeline.json").read_text())
    assert spec["next_batch"] == 1 and [op["kernel"] for op in spec["ops"]] == ["parse_records", "decode_raw",
                                                                               "decode_raw"]
    imported = set()
    for path in (tmp_path / "out" / "data").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and not node.level:
                imported.add(node.module.split(".")[0])
    assert imported <= {"__future__", "collections", "dataclasses", "functools", "io", "json", "math", "numpy", "os",
                        "PIL", "struct", "torch", "typing"}, imported


def _image_job(data_dir, lr=0.05):
    seen = []

    @flow.global_function(type="train")
    def train_images() -> tp.Numpy:
        records = flow.data.ofrecord_reader(str(data_dir), batch_size=BATCH, data_part_num=1)
        image = flow.data.OFRecordImageDecoderRandomCrop(records, "encoded", color_space="RGB", seed=5)
        label = flow.data.OFRecordRawDecoder(records, "class/label", shape=(), dtype=flow.int32)
        image, _, _ = flow.image.Resize(image, target_size=[12, 12])
        flips = flow.random.CoinFlip(batch_size=BATCH, seed=3)
        image = flow.image.CropMirrorNormalize(image, mirror_blob=flips, color_space="RGB", crop_h=10, crop_w=10,
                                               mean=[120.0, 110.0, 100.0], std=[60.0, 50.0, 40.0])
        flow.watch(image, lambda v: seen.append(v.numpy().copy()))
        init = flow.random_normal_initializer(stddev=0.1)
        c = flow.layers.conv2d(image, 4, 3, padding="SAME", activation=flow.nn.relu, kernel_initializer=init,
                               name="conv")
        logits = flow.layers.dense(flow.reshape(c, (BATCH, -1)), 3, kernel_initializer=init, name="fc")
        loss = flow.nn.sparse_softmax_cross_entropy_with_logits(label, logits)
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [lr]), momentum=0.9).minimize(loss)
        return loss

    return train_images, seen


def _image(k):
    """Sample k of class k % 3: a smooth image whose channel k % 3 is bright (what random crops and flips keep)."""
    image = gradient_image(16 + k % 3, 18, k) // 2
    image[:, :, k % 3] += 120
    return image


def _image_dataset(directory):
    records = [record_pb2.OFRecord(feature={"encoded": bytes_feature(jpeg_bytes(_image(k))),
                                            "class/label": int_feature(k % 3), "w": float_feature(k)})
               for k in range(10)]
    return write_dataset(directory, [records])


def assert_export_replays(job, seen, tmp_path) -> None:
    """The export's make_loader(start=0) gives, batch for batch, the images the job's watch saw."""
    flow.export(job, tmp_path / "out")
    images = [b[0] for b in _batches(tmp_path / "out", start=0, num_batches=STEPS)[0]]
    for got, want in zip(images, seen, strict=True):
        np.testing.assert_array_equal(got, want)


def test_image_pipeline_with_random_crop_and_flips_is_reproduced(tmp_path):
    _image_dataset(tmp_path / "img")
    job, seen = _image_job(tmp_path / "img")
    for _ in range(STEPS):
        job()
    assert_export_replays(job, seen, tmp_path)


def test_bytes_decoder_and_random_crop_resize_are_reproduced(tmp_path):
    _image_dataset(tmp_path / "img")
    seen = []

    @flow.global_function(type="predict")
    def decode() -> tp.Numpy:
        records = flow.data.ofrecord_reader(str(tmp_path / "img"), batch_size=BATCH, random_shuffle=True, seed=2)
        encoded = flow.data.OFRecordBytesDecoder(records, "encoded")
        image = flow.data.ImageDecoderRandomCropResize(encoded, target_width=8, target_height=6, seed=4)
        flow.watch(image, lambda v: seen.append(v.numpy().copy()))
        return flow.cast(image, flow.float) * 2.0

    for _ in range(STEPS):
        decode()
    assert_export_replays(decode, seen, tmp_path)


def test_an_unexported_data_op_is_named(tmp_path):
    numbered_dataset(tmp_path / "ds", [4])

    @flow.global_function(type="predict")
    def gen() -> tp.Numpy:
        records = flow.data.ofrecord_reader(str(tmp_path / "ds"), batch_size=2)
        x = flow.data.OFRecordRawDecoder(records, "x", shape=(2,), dtype=flow.float)
        buf = flow.tensor_to_tensor_buffer(x, instance_dims=1)
        return flow.tensor_buffer_to_tensor(buf, dtype=flow.float, instance_shape=[2]) * 2.0

    with pytest.raises(NotImplementedError, match=r"TensorToTensorBuffer_\d+.*no exported form"):
        flow.export(gen)
    assert "data.OFRecordRawDecoder" in export_data.exportable_data_ops()


def test_export_trains_without_flowtorch_or_protobuf(tmp_path):
    _image_dataset(tmp_path / "img")
    torch.manual_seed(0)  # the initial weights
    job, _ = _image_job(tmp_path / "img", lr=0.01)
    job()  # built and one step taken: the export continues at the second batch
    flow.export(job, tmp_path / "out")
    expected = [float(job().mean()) for _ in range(TRAIN_STEPS)]
    runner = tmp_path / "runner.py"
    runner.write_text(textwrap.dedent(f"""
        import sys
        sys.modules["flowtorch"] = None
        sys.modules["google"] = None  # data/ parses OFRecords without protobuf
        sys.path.insert(0, {str(tmp_path / 'out')!r})
        import json
        import torch
        import data, model
        net, optimizer, scheduler = model.load_training()
        before = net.fc_weight.detach().clone()
        losses = []
        for image, label in data.make_loader(num_batches={TRAIN_STEPS}):
            optimizer.zero_grad()
            loss = net.loss(image, label)
            losses.append(float(loss.mean()))
            net.objective_from(loss).backward()
            optimizer.step()
            scheduler.step()
        print(json.dumps({{"losses": losses, "moved": float((net.fc_weight - before).abs().max())}}))
    """))
    done = subprocess.run([sys.executable, "-I", str(runner)], check=False, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    losses = result["losses"]
    assert np.all(np.isfinite(losses)) and result["moved"] > 0
    np.testing.assert_allclose(losses, expected, rtol=1e-4, atol=1e-5)  # flowtorch's own next steps
    assert np.mean(losses[-3:]) < np.mean(losses[:3])


def _ids(batch):
    return [int(i) for i in batch[1].ravel()]


def test_make_loader_enters_an_unshuffled_order_at_any_start_at_once(tmp_path):
    numbered_dataset(tmp_path / "ds", [5, 6])  # 11 records, ids 0..10 in reading order
    job, seen = _raw_job(tmp_path / "ds", shuffle=False)
    for _ in range(8):  # three rounds of the files
        job()
    flow.export(job, tmp_path / "out")
    for start in (0, 3, 7):
        (batch,), _ = _batches(tmp_path / "out", start=start, num_batches=1)
        np.testing.assert_array_equal(batch[1], _pairs(seen)[start][1])
    far = 10**12
    (batch,), _ = _batches(tmp_path / "out", start=far, num_batches=1)  # arithmetic, not a replay of 4e12 records
    assert _ids(batch) == [(far * BATCH + i) % 11 for i in range(BATCH)]


def test_make_loader_replays_a_shuffled_order_and_refuses_a_start_too_far(tmp_path):
    numbered_dataset(tmp_path / "ds", [5, 6])
    job, seen = _raw_job(tmp_path / "ds", shuffle=True)
    for _ in range(6):
        job()
    flow.export(job, tmp_path / "out")
    (batch,), _ = _batches(tmp_path / "out", start=5, num_batches=1)
    np.testing.assert_array_equal(batch[1], _pairs(seen)[5][1])
    with pytest.raises(ValueError, match=r"^start=1000000000000: this reader shuffles .* start must be at most \d+"):
        _batches(tmp_path / "out", start=10**12, num_batches=1)


@pytest.mark.parametrize(("kwargs", "error", "message"), [
    ({"start": -1}, ValueError, "make_loader: start must be an int >= 0 or None; received -1"),
    ({"num_batches": -1}, ValueError, "make_loader: num_batches must be an int >= 0 or None; received -1"),
    ({"num_batches": "3"}, TypeError, "make_loader: num_batches must be an int >= 0 or None; received '3' (str)"),
    ({"start": 1.5}, TypeError, "make_loader: start must be an int >= 0 or None; received 1.5 (float)"),
    ({"start": True}, TypeError, "make_loader: start must be an int >= 0 or None; received True (bool)"),
    ({"num_workers": -2}, ValueError, "make_loader: num_workers must be an int >= 0 or None; received -2"),
    ({"data_dir": 3}, TypeError, "make_loader: data_dir must be a folder (str or path) or a list of 1; received 3"),
    ({"data_dir": ["a", "b"]}, ValueError, "make_loader: data_dir: the pipeline has 1 reader(s); received 2 folders"),
])
def test_make_loader_checks_every_argument_by_name(kwargs, error, message, tmp_path):
    numbered_dataset(tmp_path / "ds", [5, 6])
    job, _ = _raw_job(tmp_path / "ds")
    job()
    flow.export(job, tmp_path / "out")
    with pytest.raises(error) as exc:
        _batches(tmp_path / "out", **kwargs)
    assert str(exc.value) == message


def test_an_unknown_kernel_in_pipeline_json_is_named_with_the_known_ones(tmp_path):
    numbered_dataset(tmp_path / "ds", [5, 6])
    job, _ = _raw_job(tmp_path / "ds")
    job()
    flow.export(job, tmp_path / "out")
    spec_path = tmp_path / "out" / "data" / "pipeline.json"
    spec = json.loads(spec_path.read_text())
    op = spec["ops"][0]
    op["kernel"] = "eval"
    spec_path.write_text(json.dumps(spec))
    with pytest.raises(ValueError) as exc:
        _batches(tmp_path / "out", num_batches=1)
    known = ", ".join(sorted(export_data.portable_loader.KERNELS))
    assert str(exc.value) == (f"pipeline.json: data op {op['name']!r} names kernel 'eval', which this loader does "
                              f"not have; its kernels are {known}")

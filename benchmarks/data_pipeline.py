"""The OFRecord image pipeline against the same pipeline hand-written on torch.utils.data, and a ResNet-style
train step fed by the reader against the same step fed from memory; measured in the same run.

    python benchmarks/data_pipeline.py [--quick]

1. ``pipeline_images_per_s``: ``ofrecord_reader`` → ``OFRecordImageDecoderRandomCrop`` → ``image.Resize`` →
   ``image.CropMirrorNormalize`` (with ``random.CoinFlip``) in a flowtorch job, against a hand-written
   ``Dataset`` + ``DataLoader`` doing the same work (record index, protobuf parse, Pillow decode, the same
   random-crop rule, ``F.interpolate`` bilinear resize, mirror, normalize) with the same worker count.
   Goal: flowtorch images/s ≥ 0.95 × hand-written.
2. ``train_step_reader_vs_memory``: a ResNet-18-style train job (batch 16, 112 px, one loader worker) whose
   images come from the reader pipeline,
   against the same model trained from decoded batches already in memory (a ``tp.Numpy`` placeholder).
   Goal: ≤ 1.05 × (the data pipeline is not the bottleneck).

The JPEG dataset is generated into a temporary directory. Results go to stdout and
``benchmarks/results/data_pipeline.json``.
"""

from __future__ import annotations

import argparse
import io
import math
import os
import struct
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
import torch.utils.data
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import measure, summarize, write_results

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch.core.record import record_pb2

RESULTS = Path(__file__).resolve().parent / "results" / "data_pipeline.json"
MEAN, STD = [123.68, 116.78, 103.94], [58.4, 57.1, 57.4]


def make_dataset(directory: Path, n: int, parts: int, size: tuple[int, int], seed: int = 0) -> None:
    """``n`` JPEG images (smooth gradients plus noise, like photos for the codec) in ``parts`` part files."""
    rng = np.random.default_rng(seed)
    directory.mkdir(parents=True, exist_ok=True)
    per = math.ceil(n / parts)
    for p in range(parts):
        with open(directory / f"part-{p:05d}", "wb") as f:
            for _ in range(per):
                h, w = size
                y, x = np.mgrid[0:h, 0:w]
                img = np.stack([x * 255 / w, y * 255 / h, (x + y) * 127 / (h + w)], -1) + rng.normal(0, 12, (h, w, 3))
                buf = io.BytesIO()
                Image.fromarray(np.clip(img, 0, 255).astype(np.uint8)).save(buf, format="JPEG", quality=90)
                data = record_pb2.OFRecord(feature={
                    "encoded": record_pb2.Feature(bytes_list=record_pb2.BytesList(value=[buf.getvalue()])),
                    "class/label": record_pb2.Feature(int32_list=record_pb2.Int32List(value=[int(rng.integers(10))])),
                }).SerializeToString()
                f.write(struct.pack("<q", len(data)) + data)


# --- flowtorch ------------------------------------------------------------------------------------------
def flow_images(data_dir: str, parts: int, batch: int, side: int) -> tuple[Any, Any]:
    """The OneFlow-Benchmark training pipeline (ofrecord_util.load_imagenet_for_training)."""
    r = flow.data.ofrecord_reader(data_dir, batch_size=batch, data_part_num=parts, part_name_suffix_length=5,
                                  random_shuffle=True, shuffle_after_epoch=True, seed=0)
    label = flow.data.OFRecordRawDecoder(r, "class/label", shape=(), dtype=flow.int32)
    image = flow.data.OFRecordImageDecoderRandomCrop(r, "encoded", color_space="RGB", seed=1)
    image = flow.image.Resize(image, target_size=[side, side])[0]
    mirror = flow.random.CoinFlip(batch_size=batch, seed=2)
    image = flow.image.CropMirrorNormalize(image, mirror_blob=mirror, color_space="RGB", output_layout="NCHW",
                                           mean=MEAN, std=STD, output_dtype=flow.float)
    return image, label


# --- hand-written torch.utils.data ----------------------------------------------------------------------
class HandWritten(torch.utils.data.Dataset):
    """The same work as flow_images, written the way a PyTorch user would."""

    def __init__(self, data_dir: str, side: int) -> None:
        self.side = side
        self.index: list[tuple[str, int, int]] = []
        for name in sorted(os.listdir(data_dir)):
            path = os.path.join(data_dir, name)
            with open(path, "rb") as f:
                pos, size = 0, os.path.getsize(path)
                while pos < size:
                    f.seek(pos)
                    (n,) = struct.unpack("<q", f.read(8))
                    self.index.append((path, pos + 8, n))
                    pos += 8 + n
        self.mean = torch.tensor(MEAN).view(3, 1, 1)
        self.inv_std = 1.0 / torch.tensor(STD).view(3, 1, 1)

    def __len__(self) -> int:
        return len(self.index)

    def __getitem__(self, i: int) -> tuple[torch.Tensor, int]:
        path, offset, n = self.index[i]
        with open(path, "rb") as f:
            f.seek(offset)
            record = record_pb2.OFRecord.FromString(f.read(n))
        img = Image.open(io.BytesIO(record.feature["encoded"].bytes_list.value[0])).convert("RGB")
        rng = np.random.default_rng()
        w, h = img.size
        for _ in range(10):  # Inception-style crop: area 8-100 %, aspect 3/4-4/3
            area = rng.uniform(0.08, 1.0) * w * h
            ratio = math.exp(rng.uniform(math.log(0.75), math.log(4 / 3)))
            cw, ch = round(math.sqrt(area * ratio)), round(math.sqrt(area / ratio))
            if 0 < cw <= w and 0 < ch <= h:
                break
        else:
            cw, ch = w, h
        x, y = int(rng.integers(0, w - cw + 1)), int(rng.integers(0, h - ch + 1))
        t = torch.from_numpy(np.array(img.crop((x, y, x + cw, y + ch)))).permute(2, 0, 1)[None].float()
        t = F.interpolate(t, size=(self.side, self.side), mode="bilinear", align_corners=False)[0]
        if rng.random() < 0.5:
            t = t.flip(-1)
        label = record.feature["class/label"].int32_list.value[0]
        return (t.round().clamp(0, 255) - self.mean) * self.inv_std, label


def hand_written_loader(data_dir: str, batch: int, side: int, workers: int) -> Any:
    loader = torch.utils.data.DataLoader(HandWritten(data_dir, side), batch_size=batch, shuffle=True,
                                         num_workers=workers, prefetch_factor=2 if workers else None,
                                         persistent_workers=workers > 0, drop_last=True)

    def forever() -> Any:
        while True:
            yield from loader
    return forever()


# --- cases ----------------------------------------------------------------------------------------------
def case_pipeline(data_dir: str, parts: int, batch: int, side: int, workers: int, steps: int, rounds: int
                  ) -> dict[str, float]:
    os.environ["FLOWTORCH_DATA_WORKERS"] = str(workers)
    flow.clear_default_session()

    @flow.global_function()
    def images_job() -> tp.Numpy:
        image, label = flow_images(data_dir, parts, batch, side)
        return flow.math.reduce_sum(image) + flow.cast(flow.math.reduce_sum(label), flow.float)

    batches = hand_written_loader(data_dir, batch, side, workers)

    def torch_step() -> float:
        images, labels = next(batches)
        return float(images.sum() + labels.sum())

    per_round = measure({"flowtorch": images_job, "torch": torch_step}, steps=steps, rounds=rounds, warmup=3)
    out = summarize(per_round, "flowtorch", "torch")
    # images/s: higher is better, so the goal ratio is reference time / flowtorch time
    return {"flowtorch_images_per_s": batch / out["subject_ms"] * 1e3,
            "torch_images_per_s": batch / out["reference_ms"] * 1e3, "ratio": 1.0 / out["ratio"],
            "workers": workers, "batch": batch, "side": side}


def resnet(images: Any) -> Any:
    """A ResNet-18-style network: stem, four stages of two basic blocks, global pool, dense."""
    def conv(x: Any, filters: int, stride: int, name: str, relu: bool = True, k: int = 3) -> Any:
        y = flow.layers.conv2d(x, filters, k, strides=stride, padding="SAME", use_bias=False, name=name,
                               kernel_initializer=flow.variance_scaling_initializer(2.0, "fan_in", "random_normal"))
        y = flow.layers.batch_normalization(y, axis=1, name=f"{name}_bn")
        return flow.nn.relu(y) if relu else y

    x = conv(images, 64, 2, "stem", k=7)
    x = flow.nn.max_pool2d(x, ksize=3, strides=2, padding="SAME")
    for stage, filters in enumerate([64, 128, 256, 512]):
        for block in range(2):
            stride = 2 if stage and not block else 1
            name = f"res{stage}{block}"
            y = conv(conv(x, filters, stride, f"{name}a"), filters, 1, f"{name}b", relu=False)
            shortcut = x if stride == 1 and filters == x.shape[1] else conv(x, filters, stride, f"{name}s", relu=False,
                                                                            k=1)
            x = flow.nn.relu(y + shortcut)
    x = flow.nn.avg_pool2d(x, ksize=x.shape[2], strides=1, padding="VALID")
    return flow.layers.dense(flow.reshape(x, [x.shape[0], -1]), 10, name="fc")


def case_train(data_dir: str, parts: int, batch: int, side: int, workers: int, steps: int, rounds: int
               ) -> dict[str, float]:
    os.environ["FLOWTORCH_DATA_WORKERS"] = str(workers)
    flow.clear_default_session()

    def train(images: Any, labels: Any) -> Any:
        loss = flow.math.reduce_mean(flow.nn.sparse_softmax_cross_entropy_with_logits(labels, resnet(images)))
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.01]), momentum=0.9).minimize(loss)
        return loss

    @flow.global_function(type="train")
    def train_from_reader() -> tp.Numpy:
        image, label = flow_images(data_dir, parts, batch, side)
        return train(image, label)

    @flow.global_function(type="train")
    def train_from_memory(image: tp.Numpy.Placeholder((batch, 3, side, side)),
                          label: tp.Numpy.Placeholder((batch,), dtype=flow.int32)) -> tp.Numpy:
        return train(image, label)

    # decoded batches held in memory, made by the same pipeline beforehand
    @flow.global_function()
    def decode_only() -> tuple[tp.Numpy, tp.Numpy]:
        return flow_images(data_dir, parts, batch, side)

    held = [decode_only() for _ in range(4)]
    it = iter(range(10**9))

    def from_memory() -> Any:
        return train_from_memory(*held[next(it) % len(held)])

    per_round = measure({"reader": train_from_reader, "memory": from_memory}, steps=steps, rounds=rounds, warmup=3)
    out = summarize(per_round, "reader", "memory")
    out.update(workers=workers, batch=batch, side=side)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer images, steps and rounds")
    parser.add_argument("--workers", type=int, default=max(1, min(4, (os.cpu_count() or 2) // 2)))
    args = parser.parse_args()
    n_images, steps, rounds = (128, 4, 3) if args.quick else (512, 12, 7)
    device = torch.cuda.get_device_name() if torch.cuda.is_available() else "cpu"
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp) / "train"
        make_dataset(data_dir, n_images, 4, (240, 320))
        results = {"pipeline_images_per_s": case_pipeline(str(data_dir), 4, 32, 224, args.workers, steps, rounds)}
        print("pipeline:", results["pipeline_images_per_s"])
        small = Path(tmp) / "small"
        make_dataset(small, n_images, 4, (144, 192), seed=1)
        results["train_step_reader_vs_memory"] = case_train(str(small), 4, 16, 112, 1, steps, rounds)
        print("train:", results["train_step_reader_vs_memory"])
    flow.clear_default_session()
    write_results(RESULTS, results, device=device, goals={"pipeline_images_per_s": ">= 0.95",
                                                          "train_step_reader_vs_memory": "<= 1.05"})


if __name__ == "__main__":
    main()

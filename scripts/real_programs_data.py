"""Small generated inputs for the real-program corpus (``scripts/real_programs.py``).

A manifest entry names its data as ``{"kind": KIND, "to": PATH, ...options}``; :func:`generate` writes it under the
program's throwaway working directory. Nothing is downloaded and nothing third-party is copied: every file is made
here, seeded, small.

Kinds:

* ``mnist``: a synthetic ``mnist.npz`` (``flowtorch make-mnist``'s writer), what ``flow.data.load_mnist`` reads.
* ``mnist_idx``: the four MNIST idx files (``train-images-idx3-ubyte`` ...) in a folder, of the same data.
* ``image_ofrecord``: ``part-00000..`` OFRecord files of JPEG-encoded pictures under ``image_key`` (``encoded``)
  and an int32 label under ``label_key`` (``class/label``), as OneFlow-Benchmark's ImageNet OFRecords hold them.
* ``int_ofrecord``: OFRecord files whose features are int32/int64/float lists of fixed lengths
  (``features: {name: [dtype, length, high]}``), what BERT pre-training / GLUE / SQuAD readers take.
* ``images``: a folder of JPEG (or PNG) pictures (``count``, ``size``, ``ext``); ``names`` gives exact names.
* ``npy``: one ``.npy`` array of ``shape`` and ``dtype`` (uniform in [0, ``high``)).
* ``text``: a text file with ``lines`` (a list of strings) as its content.
* ``mkdir``: an empty folder the program expects to exist.
"""

from __future__ import annotations

import io
import os
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

Spec = dict[str, Any]


def _record_class() -> Any:
    from flowtorch.core.record import record_pb2  # the OFRecord message, OneFlow's record.proto

    return record_pb2


def _write_records(path: Path, records: list[bytes]) -> None:
    """OneFlow's OFRecord framing: an int64 little-endian length, then the serialized message."""
    with open(path, "wb") as f:
        for data in records:
            f.write(struct.pack("<q", len(data)))
            f.write(data)


def _jpeg(rng: np.random.Generator, width: int, height: int, fmt: str = "JPEG") -> bytes:
    from PIL import Image

    y, x = np.mgrid[0:height, 0:width].astype(np.float64)
    base = rng.uniform(20, 140, 3)
    pixels = np.stack([base[0] + 100 * x / width, base[1] + 100 * y / height,
                       base[2] + 50 * (x + y) / (width + height)], axis=-1)
    buffer = io.BytesIO()
    Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8)).save(buffer, format=fmt)
    return buffer.getvalue()


def _parts(root: Path, spec: Spec, make: Callable[[np.random.Generator], bytes]) -> None:
    root.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(spec.get("seed", 0))
    per_part = int(spec.get("records", 16))
    for part in range(int(spec.get("parts", 1))):
        name = spec.get("part_name", "part-{:05d}").format(part)
        _write_records(root / name, [make(rng) for _ in range(per_part)])


def image_ofrecord(root: Path, spec: Spec) -> None:
    pb = _record_class()
    size = spec.get("size", [32, 32])
    classes = int(spec.get("classes", 10))

    def make(rng: np.random.Generator) -> bytes:
        record = pb.OFRecord()
        record.feature[spec.get("image_key", "encoded")].bytes_list.value.append(_jpeg(rng, size[0], size[1]))
        record.feature[spec.get("label_key", "class/label")].int32_list.value.append(int(rng.integers(classes)))
        return record.SerializeToString()

    _parts(root, spec, make)


def int_ofrecord(root: Path, spec: Spec) -> None:
    pb = _record_class()
    features: dict[str, list[Any]] = spec["features"]

    def make(rng: np.random.Generator) -> bytes:
        record = pb.OFRecord()
        for name, (dtype, length, high) in features.items():
            feature = record.feature[name]
            if dtype == "float":
                feature.float_list.value.extend(rng.uniform(0, high, length).astype(np.float32).tolist())
            else:
                values = rng.integers(0, max(1, high), length).tolist()
                (feature.int64_list if dtype == "int64" else feature.int32_list).value.extend(values)
        return record.SerializeToString()

    _parts(root, spec, make)


def images(root: Path, spec: Spec) -> None:
    root.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(spec.get("seed", 0))
    width, height = spec.get("size", [64, 64])
    ext = spec.get("ext", "jpg")
    names = spec.get("names") or [f"{i:06d}.{ext}" for i in range(int(spec.get("count", 4)))]
    for name in names:
        fmt = "PNG" if name.lower().endswith(".png") else "JPEG"
        (root / name).write_bytes(_jpeg(rng, width, height, fmt))


def mnist(path: Path, spec: Spec) -> None:
    from flowtorch._src.mnist import make_synthetic_mnist

    path.parent.mkdir(parents=True, exist_ok=True)
    make_synthetic_mnist(str(path), n_train=int(spec.get("train", 200)), n_test=int(spec.get("test", 100)))


def mnist_idx(root: Path, spec: Spec) -> None:
    """The four MNIST idx files (``train-images-idx3-ubyte`` ...) from the synthetic mnist.npz's arrays."""
    from flowtorch._src.mnist import make_synthetic_mnist

    root.mkdir(parents=True, exist_ok=True)
    npz = root / ".synthetic.npz"
    make_synthetic_mnist(str(npz), n_train=int(spec.get("train", 200)), n_test=int(spec.get("test", 100)))
    with np.load(npz) as arrays:
        for split, prefix in (("train", "train"), ("test", "t10k")):
            images, labels = arrays[f"x_{split}"], arrays[f"y_{split}"]
            (root / f"{prefix}-images-idx3-ubyte").write_bytes(
                struct.pack(">iiii", 2051, len(images), 28, 28) + images.astype(np.uint8).tobytes())
            (root / f"{prefix}-labels-idx1-ubyte").write_bytes(
                struct.pack(">ii", 2049, len(labels)) + labels.astype(np.uint8).tobytes())
    npz.unlink()


def npy(path: Path, spec: Spec) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(spec.get("seed", 0))
    array = rng.uniform(0, spec.get("high", 1.0), spec["shape"]).astype(spec.get("dtype", "float32"))
    np.save(path, array)


def text(path: Path, spec: Spec) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{line}\n" for line in spec.get("lines", [])), encoding="utf-8")


def mkdir(path: Path, spec: Spec) -> None:
    path.mkdir(parents=True, exist_ok=True)


KINDS: dict[str, Callable[[Path, Spec], None]] = {
    "mnist": mnist, "mnist_idx": mnist_idx, "image_ofrecord": image_ofrecord, "int_ofrecord": int_ofrecord,
    "images": images, "npy": npy, "text": text, "mkdir": mkdir,
}


def generate(cwd: Path, spec: Spec, top: Path | None = None) -> None:
    """Write one data item of a manifest entry: ``spec["to"]`` is relative to ``cwd`` and must stay inside ``top``
    (the throwaway copy; default ``cwd``)."""
    target = (cwd / spec["to"]).resolve()
    fence = (top or cwd).resolve()
    if os.path.commonpath([target, fence]) != str(fence):
        raise ValueError(f"data path {spec['to']!r} leaves the program's throwaway directory")
    if spec["kind"] not in KINDS:
        raise ValueError(f"unknown data kind {spec['kind']!r}; known: {sorted(KINDS)}")
    KINDS[spec["kind"]](target, spec)

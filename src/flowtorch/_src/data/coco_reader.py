"""``flow.data.coco_reader``: images and detection targets of a COCO dataset, in OneFlow's order
(OneFlow ``python/ops/user_data_ops.py``: ``COCOReader``; ``user/ops/coco_reader_op.cpp``,
``user/data/coco_data_reader.{h,cpp}``, ``coco_dataset.cpp``, ``coco_parser.cpp``,
``distributed_training_dataset.h``, ``group_batch_dataset.h``).

**Images.** The annotation file's images, without those whose annotations are all crowd or tiny
(``remove_images_without_annotations``: no annotation, every box 1 pixel wide or high at most, or too few
keypoints), sorted by id. Crowd annotations are ignored.

**Order.** The batch is split evenly over the devices of the current placement (``"0:0-3"``: 4), each
reading its own shard, as OneFlow's ``parallel_num`` readers did; the logical batch is theirs one after
the other. A shard walks the image sequence from its start: with ``stride_partition`` it takes every
``parallel_num``-th image from its rank, else ``ceil(size / parallel_num)`` consecutive images then jumps
over the other shards. Past the end it wraps around, and with ``shuffle`` each new epoch reshuffles the
sequence with ``std::mt19937(random_seed + epoch)`` and libstdc++'s ``std::shuffle`` (reproduced), so a
seeded order is OneFlow's exactly. With ``group_by_aspect_ratio`` a shard's batch holds images of one
group (``height // width``), the others waiting, a batch-size chunk at a time, until the earliest waiting
chunk starts a batch.

**Outputs**, per image: the encoded file (int8 tensor buffer, for ``flow.image.decode``), the id (int64),
``(height, width)`` (int32), the non-empty boxes clipped to the image as ``x1, y1, x2, y2`` (float32
``(n, 4)``), every annotation's label (int32 ``(n,)``; categories numbered from 1 in id order), and its
polygon points (float32 ``(n, 2)``) with ``(point, polygon, annotation)`` indices (int32 ``(n, 3)``).
"""

from __future__ import annotations

import functools
import json
import math
import os
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from flowtorch._src import naming
from flowtorch._src.data import blobs as db
from flowtorch._src.data import pipeline as pl
from flowtorch._src.data.rng import MT19937, cxx_shuffle
from flowtorch._src.ops._checks import arg_error, check_int, is_int
from flowtorch._src.placement import placement_devices

_MIN_KEYPOINTS = 10  # coco_data_reader.h: kMinKeypointsPerImage


@dataclass
class CocoImage:
    id: int
    height: int
    width: int
    path: str
    annotations: list[dict[str, Any]]  # not crowd, in file order

    @property
    def group(self) -> int:
        return self.height // self.width  # coco_data_reader.cpp: GetGroupId (int32 division)


def _valid(annotations: list[dict[str, Any]]) -> bool:
    """``COCOMeta::ImageHasValidAnnotations``."""
    if not annotations:
        return False
    if all(a["bbox"][2] <= 1 or a["bbox"][3] <= 1 for a in annotations):
        return False
    if "keypoints" not in annotations[0]:
        return True
    visible = sum(sum(1 for v in a.get("keypoints", [])[2::3] if v > 0) for a in annotations)
    return visible >= _MIN_KEYPOINTS


def load_annotations(path: str, image_dir: str, remove_images_without_annotations: bool, op: str
                     ) -> tuple[list[CocoImage], dict[int, int]]:
    """The readable images (sorted by id) and category id → contiguous label (from 1, in id order)."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except FileNotFoundError:
        raise FileNotFoundError(f"flow.{op}: annotation_file {path!r} does not exist") from None
    except (OSError, ValueError) as exc:
        raise ValueError(f"flow.{op}: annotation_file {path!r} is not a readable COCO json: {exc}") from exc
    try:
        images = {int(im["id"]): CocoImage(int(im["id"]), int(im["height"]), int(im["width"]),
                                           os.path.join(image_dir, im["file_name"]), [])
                  for im in data["images"]}
        for anno in data["annotations"]:
            if anno["iscrowd"] == 1:
                continue
            segm = anno.get("segmentation")
            if isinstance(segm, list) and any(len(poly) <= 6 for poly in segm):
                # coco_data_reader.cpp: CHECK_GT(poly.size(), 6)
                raise ValueError(f"annotation {anno['id']} has a polygon of {min(len(p) for p in segm)} values; "
                                 "OneFlow's reader needs more than 6 (at least 4 points)")
            images[int(anno["image_id"])].annotations.append(anno)
        categories = sorted(int(c["id"]) for c in data["categories"])
    except (KeyError, TypeError) as exc:
        raise ValueError(f"flow.{op}: annotation_file {path!r} is not in COCO's instances format: missing or bad "
                         f"{exc}") from exc
    kept = [images[i] for i in sorted(images)
            if not remove_images_without_annotations or _valid(images[i].annotations)]
    if not kept:
        raise ValueError(f"flow.{op}: annotation_file {path!r} has no image with valid annotations")
    return kept, {c: k + 1 for k, c in enumerate(categories)}


class ShardStream:
    """One device's walk over the image sequence (``DistributedTrainingDataset``)."""

    def __init__(self, size: int, shards: int, rank: int, stride: bool, shuffle: bool, seed: int) -> None:
        self.size, self.shards, self.stride, self.shuffle, self.seed = size, shards, stride, shuffle, seed
        self.shard_size = math.ceil(np.float32(size) / np.float32(shards))  # std::ceil of a float quotient
        self.pos = rank if stride else rank * self.shard_size
        self.pos_in_shard = 0
        self.epoch = 0
        self.order = np.arange(size, dtype=np.int64)
        self._new_epoch()

    def _new_epoch(self) -> None:
        if self.shuffle:  # each epoch reshuffles the previous epoch's order
            self.order = cxx_shuffle(self.order, MT19937(self.seed + self.epoch))
        self.epoch += 1

    def next(self) -> int:
        index = int(self.order[self.pos])
        if self.stride:
            self.pos += self.shards
        else:
            self.pos += 1
            self.pos_in_shard += 1
            if self.pos_in_shard == self.shard_size:
                self.pos += (self.shards - 1) * self.shard_size
                self.pos_in_shard = 0
        if self.pos >= self.size:
            self._new_epoch()
            self.pos %= self.size
        return index


class GroupBatcher:
    """``GroupBatchDataset``: batches of one aspect group; other groups' images wait in chunks of at most
    ``batch_size``, and the earliest started chunk opens the next batch."""

    def __init__(self, stream: ShardStream, batch_size: int, groups: Sequence[int]) -> None:
        self.stream, self.batch_size, self.groups = stream, batch_size, groups
        self.waiting: dict[int, deque[tuple[int, list[int]]]] = {}  # group -> (order, images) chunks
        self.chunks = 0

    def next(self) -> list[int]:
        batch: list[int] = []
        group = -1
        fronts = [(chunks[0][0], g) for g, chunks in self.waiting.items() if chunks]
        if fronts:
            group = min(fronts)[1]
            batch = self.waiting[group].popleft()[1]
        while len(batch) < self.batch_size:
            index = self.stream.next()
            g = self.groups[index]
            if group == -1:
                group = g
            if g == group:
                batch.append(index)
                continue
            chunks = self.waiting.setdefault(g, deque())
            if not chunks or len(chunks[-1][1]) == self.batch_size:
                chunks.append((self.chunks, [index]))
                self.chunks += 1
            else:
                chunks[-1][1].append(index)
        return batch


class CocoSource:
    """The reader's plan (which images each batch reads, in the job's process) and its ``fetch`` (in a
    loader worker: the image files and the targets)."""

    def __init__(self, images: list[CocoImage], labels: dict[int, int], batch_size: int, shards: int,
                 stride: bool, shuffle: bool, seed: int, group: bool) -> None:
        self.images, self.labels = images, labels
        self.batch_size, self.shards, self.stride, self.shuffle, self.seed = batch_size, shards, stride, shuffle, seed
        self.group = group

    def batches(self) -> Iterator[list[int]]:
        per_device = self.batch_size // self.shards
        groups = [im.group for im in self.images]
        readers: list[Any] = []
        for rank in range(self.shards):
            stream = ShardStream(len(self.images), self.shards, rank, self.stride, self.shuffle, self.seed)
            readers.append(GroupBatcher(stream, per_device, groups) if self.group else stream)
        while True:
            batch: list[int] = []
            for reader in readers:
                if isinstance(reader, GroupBatcher):
                    batch += reader.next()
                else:
                    batch += [reader.next() for _ in range(per_device)]
            yield batch

    def fetch(self, indices: Sequence[int]) -> list[tuple[CocoImage, bytes]]:
        out = []
        for i in indices:
            image = self.images[i]
            with open(image.path, "rb") as f:
                out.append((image, f.read()))
        return out


def boxes(image: CocoImage) -> np.ndarray:
    """``GetBboxVec<float>``: ``[x, y, w, h]`` → ``[x1, y1, x2, y2]`` with ``x2 = x + max(w - 1, 0)``, clipped
    to ``[0, width - 1]`` × ``[0, height - 1]``, empty boxes dropped; in float32 arithmetic."""
    f32 = np.float32
    out = []
    one, zero = f32(1), f32(0)
    for anno in image.annotations:
        left, top, w, h = (f32(v) for v in anno["bbox"])
        right = left + max(w - one, zero)
        bottom = top + max(h - one, zero)
        xmax, ymax = f32(image.width) - one, f32(image.height) - one
        left, right = (min(max(v, zero), xmax) for v in (left, right))
        top, bottom = (min(max(v, zero), ymax) for v in (top, bottom))
        if right > left and bottom > top:
            out.append([left, top, right, bottom])
    return np.array(out, np.float32).reshape(-1, 4)


def polygons(image: CocoImage) -> tuple[np.ndarray, np.ndarray]:
    """``ReadSegmentationsToTensorBuffer``: every polygon point and its (point, polygon, annotation) index."""
    points: list[float] = []
    index: list[tuple[int, int, int]] = []
    for a, anno in enumerate(image.annotations):
        segm = anno.get("segmentation")
        if not isinstance(segm, list):
            raise ValueError(f"COCO image {image.id}: annotation {anno.get('id')} has a non-polygon segmentation "
                             "(RLE) and is not crowd; OneFlow's reader takes polygons only")
        for p, poly in enumerate(segm):
            points += poly
            index += [(k, p, a) for k in range(len(poly) // 2)]
    return np.array(points, np.float32).reshape(-1, 2), np.array(index, np.int32).reshape(-1, 3)


def read_batch(ctx: db.OpContext, labels: dict[int, int]) -> tuple[Any, ...]:
    """The reader's kernel: this batch's files and targets (``coco_parser.cpp``)."""
    files, ids, sizes, bbox, label, segm, segm_index = [], [], [], [], [], [], []
    for image, data in ctx.records:
        files.append(np.frombuffer(bytearray(data), np.int8))  # writable: torch refuses read-only memory
        ids.append(image.id)
        sizes.append((image.height, image.width))
        bbox.append(boxes(image))
        label.append(np.array([labels[int(a["category_id"])] for a in image.annotations], np.int32))
        points, index = polygons(image)
        segm.append(points)
        segm_index.append(index)
    return (files, np.array(ids, np.int64), np.array(sizes, np.int32).reshape(-1, 2), bbox, label, segm,
            segm_index)


def coco_reader(annotation_file: str, image_dir: str, batch_size: int, shuffle: bool = True,
                random_seed: int | None = None, group_by_aspect_ratio: bool = True, stride_partition: bool = True,
                name: str | None = None) -> tuple[db.DataBlob, ...]:
    """``flow.data.coco_reader``: ``(image, image_id, image_size, gt_bbox, gt_label, gt_segm,
    gt_segm_index)`` of ``batch_size`` images (``<name>/image_0`` …; the first reader of a job takes
    ``name``, later ones ``COCOReader<n>``). ``image``, ``gt_*`` are tensor buffers; ``image_id`` int64
    ``(N,)``; ``image_size`` int32 ``(N, 2)`` of ``(height, width)``. Without ``name`` (OneFlow v0.1.2's
    default; v0.2.0 on required it), the reader is named ``COCOReader_<n>`` as v0.1.2 named it, and the object
    ops read its ``image_size`` as ``(h, w)``, as v0.1.2's kernels did (from v0.2.0 they read ``(w, h)``)."""
    op = "data.coco_reader"
    pipe = pl.pipeline(op)
    v01 = name is None
    if v01:  # v0.1.2's api_coco_reader: id_util.UniqueStr("COCOReader_")
        name = naming.unique_str("COCOReader_")
    if not isinstance(name, str) or not name:
        raise arg_error(op, "name", "a non-empty str, or None for an automatic one", name)
    for arg, value in (("annotation_file", annotation_file), ("image_dir", image_dir)):
        if not isinstance(value, (str, os.PathLike)):
            raise arg_error(op, arg, "a path (str)", value)
    batch_size = check_int(batch_size, op, "batch_size")
    if random_seed is not None and not is_int(random_seed):
        raise arg_error(op, "random_seed", "an int or None", random_seed)
    shards = placement_devices()
    if batch_size % shards:
        raise arg_error(op, "batch_size", f"a multiple of the placement's {shards} devices (each reads an equal "
                                          "share)", batch_size)
    images, labels = load_annotations(os.fspath(annotation_file), os.fspath(image_dir), True, op)
    shard_size = math.ceil(np.float32(len(images)) / np.float32(shards))
    if not stride_partition and (shards - 1) * shard_size >= len(images):
        raise ValueError(f"flow.{op}: {len(images)} images cannot be cut into {shards} contiguous shards of "
                         f"{shard_size} (the last would be empty; OneFlow read out of range); use stride_partition")
    seed = int(random_seed) if random_seed is not None else db.draw_seed(None, op)
    source = CocoSource(images, labels, batch_size, shards, bool(stride_partition), bool(shuffle), seed,
                        bool(group_by_aspect_ratio))
    wanted = naming.scoped(name)
    op_name = naming.op_name("COCOReader", None) if wanted in {b.op_name for b in pipe.builder.all_blobs} else wanted
    n = (batch_size,)
    buffer = db.meta(n, np.uint8)
    outputs = [("image_0", buffer, db.BUFFER), ("image_id_0", db.meta(n, np.int64), db.TENSOR),
               ("image_size_0", db.meta(n + (2,), np.int32), db.TENSOR), ("gt_bbox_0", buffer, db.BUFFER),
               ("gt_label_0", buffer, db.BUFFER), ("gt_segm_0", buffer, db.BUFFER),
               ("gt_segm_index_0", buffer, db.BUFFER)]
    kernel = functools.partial(read_batch, labels=labels)
    blobs = tuple(pipe.add(op_name, kernel, (), outputs, source=source))
    # the size is (h, w) in every version; only v0.1.2's object ops read it so, and only v0.1.2 took no name
    blobs[2].height_first = v01
    return blobs


"""Write a tiny COCO-format dataset: small synthetic JPEGs and an instances json.

OneFlow's v0.3.4 op tests (image, detection and ``coco_reader`` tests) read COCO from hard-coded paths:
``/dataset/mscoco_2017/val2017/<id>.jpg`` and ``/dataset/mscoco_2017/annotations/instances_val2017.json``.
To run them, generate this fixture there (it is not downloaded and not committed)::

    python scripts/make_coco_fixture.py /dataset/mscoco_2017

``<root>/val2017`` gets 16 JPEGs, among them the four file names the tests name (139, 632, 785, 1000); the
json has landscape and portrait images (aspect groups 0 and 1), non-contiguous category ids, polygons
of several parts, a crowd annotation, images without annotations and one with only tiny boxes. Output is
the same on every run (seeded). Needs numpy and Pillow.

For the OneFlow suite, add ``--extra-images 2000``: ``test_object_segm_poly_to_mask`` draws its batch
with replacement and scales its reference polygons in place, so an image drawn twice is scaled twice in
the reference (the test's own artifact, rare among real COCO's 5000 images, common among 16).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

# (image id, width, height, number of annotated objects); -1: only a degenerate (tiny) box
IMAGES = [(139, 64, 43, 3), (285, 56, 72, 2), (632, 64, 48, 4), (724, 40, 60, 1), (776, 70, 47, 2),
          (785, 64, 42, 2), (802, 48, 80, 3), (872, 52, 39, 0), (885, 66, 44, 5), (1000, 64, 48, 3),
          (1268, 45, 64, 2), (1296, 72, 50, 1), (1353, 36, 70, -1), (1425, 60, 45, 2), (1490, 42, 63, 0),
          (1503, 62, 47, 3)]
CATEGORIES = [(1, "person"), (3, "car"), (7, "train"), (18, "dog"), (44, "bottle")]


def _picture(width: int, height: int, rng: np.random.Generator) -> Image.Image:
    """A smooth colour gradient with a few flat shapes (JPEG keeps such pictures close to their pixels)."""
    y, x = np.mgrid[0:height, 0:width].astype(np.float64)
    base = rng.uniform(30, 120, 3)
    pixels = np.stack([base[0] + 120 * x / width, base[1] + 120 * y / height,
                       base[2] + 60 * (x + y) / (width + height)], axis=-1)
    image = Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))
    draw = ImageDraw.Draw(image)
    for _ in range(3):
        x0, y0 = int(rng.integers(0, width - 8)), int(rng.integers(0, height - 8))
        box = [x0, y0, x0 + int(rng.integers(6, 20)), y0 + int(rng.integers(6, 20))]
        draw.ellipse(box, fill=tuple(int(c) for c in rng.integers(0, 256, 3)))
    return image


def _polygon(cx: float, cy: float, radius: float, width: int, height: int, rng: np.random.Generator) -> list[float]:
    """A star-shaped polygon of 4 to 9 points around ``(cx, cy)``, inside ``[0, width] x [0, height]``."""
    n = int(rng.integers(4, 10))
    angles = np.sort(rng.uniform(0, 2 * np.pi, n))
    r = radius * rng.uniform(0.5, 1.0, n)
    xs = np.clip(cx + r * np.cos(angles), 0, width)
    ys = np.clip(cy + r * np.sin(angles), 0, height)
    return [round(float(v), 2) for pt in zip(xs, ys) for v in pt]


def _annotations(image_id: int, width: int, height: int, count: int, next_id: int,
                 rng: np.random.Generator) -> list[dict]:
    if count == -1:
        return [{"id": next_id, "image_id": image_id, "category_id": 1, "iscrowd": 0, "area": 0.5,
                 "bbox": [3.0, 4.0, 1.0, 0.75], "segmentation": [[3.0, 4.0, 4.0, 4.0, 4.0, 4.75, 3.0, 4.75]]}]
    annos = []
    for k in range(count):
        parts = 2 if k % 3 == 1 else 1
        segm = []
        for _ in range(parts):
            radius = float(rng.uniform(5, min(width, height) / 2))
            # one polygon in five touches the right edge (x == width), as real COCO polygons can
            cx = width - radius / 2 if rng.random() < 0.2 else float(rng.uniform(radius / 2, width - radius / 2))
            segm.append(_polygon(cx, float(rng.uniform(radius / 2, height - radius / 2)), radius, width, height, rng))
        pts = np.array([v for poly in segm for v in poly]).reshape(-1, 2)
        x0, y0 = pts.min(axis=0)
        x1, y1 = pts.max(axis=0)
        annos.append({"id": next_id + k, "image_id": image_id, "category_id": CATEGORIES[(image_id + k) % 5][0],
                      "iscrowd": 0, "area": round(float((x1 - x0) * (y1 - y0)), 2),
                      "bbox": [round(float(v), 2) for v in (x0, y0, x1 - x0, y1 - y0)], "segmentation": segm})
    if image_id == 885:  # a crowd annotation (RLE): readers skip it
        annos.append({"id": next_id + count, "image_id": image_id, "category_id": 1, "iscrowd": 1, "area": 40.0,
                      "bbox": [2.0, 2.0, 8.0, 5.0],
                      "segmentation": {"counts": [90, 5, 39, 5], "size": [height, width]}})
    return annos


def _extra_images(count: int, rng: np.random.Generator) -> list[tuple[int, int, int, int]]:
    """``count`` more annotated images (ids from 2000), landscape and portrait (less than twice as tall as
    wide), 36 to 80 pixels a side."""
    out = []
    for i in range(count):
        width, height = (int(v) for v in rng.integers(36, 81, 2))
        height = min(height, 2 * width - 1)  # int(h / w) stays 0 or 1: the suite samples a batch within one
        out.append((2000 + i, width, height, int(rng.integers(1, 4))))  # such group, so a sparse group repeats
    return out


def make_fixture(root: Path, seed: int = 0, extra_images: int = 0) -> None:
    """Write ``<root>/val2017/*.jpg`` and ``<root>/annotations/instances_val2017.json``: the 16 images of
    ``IMAGES`` and ``extra_images`` more."""
    rng = np.random.default_rng(seed)
    images_dir = root / "val2017"
    images_dir.mkdir(parents=True, exist_ok=True)
    (root / "annotations").mkdir(parents=True, exist_ok=True)
    images, annotations = [], []
    # the extra images' sizes come from their own stream, so the 16 base images are the same with or without them
    for image_id, width, height, count in IMAGES + _extra_images(extra_images, np.random.default_rng(seed + 1)):
        file_name = f"{image_id:012d}.jpg"
        _picture(width, height, rng).save(images_dir / file_name, format="JPEG", quality=92)
        images.append({"id": image_id, "file_name": file_name, "width": width, "height": height})
        annotations += _annotations(image_id, width, height, count, 1000 * image_id, rng)
    instances = {"info": {"description": "flowtorch synthetic COCO fixture"}, "licenses": [], "images": images,
                 "annotations": annotations, "categories": [{"id": i, "name": n, "supercategory": n}
                                                            for i, n in CATEGORIES]}
    (root / "annotations" / "instances_val2017.json").write_text(json.dumps(instances))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path, help="where to write (OneFlow's tests expect /dataset/mscoco_2017)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--extra-images", type=int, default=0,
                        help="more annotated images; the OneFlow suite wants several hundred (see the docstring)")
    args = parser.parse_args()
    make_fixture(args.root, args.seed, args.extra_images)
    print(f"wrote {len(IMAGES) + args.extra_images} images and their annotations under {args.root}")


if __name__ == "__main__":
    main()

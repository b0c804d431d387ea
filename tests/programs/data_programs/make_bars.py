"""Writes a small image-classification dataset in OneFlow's OFRecord layout: class k is a bright bar at
row 2k of a dark 24x24 grayscale or RGB PNG/JPEG, with a little noise; 4 part files ``part-00000``…"""

import io
import struct
import sys

import numpy as np
import oneflow.core.record.record_pb2 as of_record
from PIL import Image


def bar_image(label: int, rng: np.random.Generator, rgb: bool) -> np.ndarray:
    img = rng.integers(0, 40, (24, 24)).astype(np.uint8)
    img[label * 2:label * 2 + 4, 3:21] = 220
    return np.stack([img, img // 2, 255 - img], -1) if rgb else img


def main(out_dir: str, n: int, fmt: str, rgb: bool) -> None:
    rng = np.random.default_rng(0)
    per_part = n // 4
    for part in range(4):
        with open(f"{out_dir}/part-{part:05d}", "wb") as f:
            for _ in range(per_part):
                label = int(rng.integers(10))
                buf = io.BytesIO()
                Image.fromarray(bar_image(label, rng, rgb)).save(buf, format=fmt)
                record = of_record.OFRecord(feature={
                    "encoded": of_record.Feature(bytes_list=of_record.BytesList(value=[buf.getvalue()])),
                    "class/label": of_record.Feature(int32_list=of_record.Int32List(value=[label])),
                })
                data = record.SerializeToString()
                f.write(struct.pack("q", len(data)))
                f.write(data)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4] == "rgb")

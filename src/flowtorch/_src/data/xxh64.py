"""XXH64, the checksum of OneRec frames (OneFlow ``user/data/onerec_dataset.h`` hashes each frame's header and
payload with seed 0).

:func:`xxh64_py` is the algorithm in plain Python (the reference); :func:`xxh64` uses the ``xxhash`` package
(the xxHash project's C code) when it is installed, being some hundred times faster on large payloads, and
falls back to the Python version otherwise.
"""

from __future__ import annotations

import logging
import struct
from collections.abc import Callable

log = logging.getLogger("flowtorch")

_P1 = 0x9E3779B185EBCA87
_P2 = 0xC2B2AE3D27D4EB4F
_P3 = 0x165667B19E3779F9
_P4 = 0x85EBCA77C2B2AE63
_P5 = 0x27D4EB2F165667C5
_MASK = (1 << 64) - 1


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (64 - r))) & _MASK


def _round(acc: int, lane: int) -> int:
    return (_rotl((acc + lane * _P2) & _MASK, 31) * _P1) & _MASK


def _merge(h: int, v: int) -> int:
    return ((h ^ _round(0, v)) * _P1 + _P4) & _MASK


def xxh64_py(data: bytes, seed: int = 0) -> int:
    """XXH64 of ``data`` (unsigned 64-bit), in Python."""
    n = len(data)
    pos = 0
    if n >= 32:
        v1 = (seed + _P1 + _P2) & _MASK
        v2 = (seed + _P2) & _MASK
        v3 = seed & _MASK
        v4 = (seed - _P1) & _MASK
        stripes = n // 32
        lanes = struct.unpack_from(f"<{4 * stripes}Q", data)
        for i in range(0, 4 * stripes, 4):
            v1 = _round(v1, lanes[i])
            v2 = _round(v2, lanes[i + 1])
            v3 = _round(v3, lanes[i + 2])
            v4 = _round(v4, lanes[i + 3])
        pos = 32 * stripes
        h = (_rotl(v1, 1) + _rotl(v2, 7) + _rotl(v3, 12) + _rotl(v4, 18)) & _MASK
        for v in (v1, v2, v3, v4):
            h = _merge(h, v)
    else:
        h = (seed + _P5) & _MASK
    h = (h + n) & _MASK
    while pos + 8 <= n:
        (lane,) = struct.unpack_from("<Q", data, pos)
        h = (_rotl(h ^ _round(0, lane), 27) * _P1 + _P4) & _MASK
        pos += 8
    if pos + 4 <= n:
        (word,) = struct.unpack_from("<I", data, pos)
        h = (_rotl(h ^ ((word * _P1) & _MASK), 23) * _P2 + _P3) & _MASK
        pos += 4
    while pos < n:
        h = (_rotl(h ^ ((data[pos] * _P5) & _MASK), 11) * _P1) & _MASK
        pos += 1
    h ^= h >> 33
    h = (h * _P2) & _MASK
    h ^= h >> 29
    h = (h * _P3) & _MASK
    return h ^ (h >> 32)


_accelerated: Callable[[bytes, int], int] | None
try:  # an optional accelerator: pip install xxhash
    from xxhash import xxh64_intdigest as _accelerated
except ImportError:
    _accelerated = None
    log.debug("flowtorch: the xxhash package is not installed; OneRec checksums use the Python XXH64")


def accelerated() -> Callable[[bytes, int], int] | None:
    """The ``xxhash`` package's XXH64 (``xxh64_intdigest``), or None when it is not installed."""
    return _accelerated


def xxh64(data: bytes, seed: int = 0) -> int:
    """XXH64 of ``data``: the ``xxhash`` package's when installed, else :func:`xxh64_py`."""
    if _accelerated is None:
        return xxh64_py(data, seed)
    return int(_accelerated(bytes(data), seed))

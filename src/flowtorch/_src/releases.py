"""Which OneFlow release flowtorch imitates where OneFlow's releases behaved differently:
``FLOWTORCH_ONEFLOW_VERSION`` ("0.1", "0.2", "0.3.4", "v0.4.0" …), read here and nowhere else.

Unset, empty or ``auto``, flowtorch keeps the behaviour it has without the variable: the newest release's where the
releases differ, and flowtorch's own where it accepts more than any one release did. A set version makes the
places that differ behave as that release's Python API did; docs/releases.md lists them, with the OneFlow
source each follows. The value is read on every question (a build-time question: no call path asks), so
a test or a program may change it between jobs.
"""

from __future__ import annotations

import os
import re
from typing import Final

ENV: Final = "FLOWTORCH_ONEFLOW_VERSION"
Version = tuple[int, int, int]
OLDEST: Final[Version] = (0, 1, 0)
NEWEST: Final[Version] = (0, 4, 0)

CONCAT_TAKES_ONE: Final[Version] = (0, 1, 3)  # array_ops.py concat: one blob returned; before, len(values) >= 2
SAME_PADS_BEFORE: Final[Version] = (0, 1, 8)  # nn_ops.py: "SAME" → "SAME_LOWER"; before, the kernels' "same" (after)
V02: Final[Version] = (0, 2, 0)  # object ops read fed image_size rows as (w, h), not v0.1.2's (h, w)
# the release that changed each behaviour (docs/releases.md): a version before it behaves the old way
CONV_TRANSPOSE_CHECKS_CHANNELS: Final[Version] = (0, 3, 1)  # nn_ops.py conv2d_transpose: assert output_shape[1]
IDENTITY_N_TAKES_ONE: Final[Version] = (0, 3, 1)  # array_ops.py identity_n: assert len(inputs) > 1 dropped
SOFTMAX_TAKES_AXIS_0: Final[Version] = (0, 3, 3)  # nn_ops.py _softmax_need_transpose: assert axis >= 1 dropped
MATMUL_BROADCASTS_B: Final[Version] = (0, 4, 0)  # linalg.py matmul: assert len(a.shape) == len(b.shape) dropped
INPUTS_ALWAYS_SPLIT_0: Final[Version] = (0, 4, 0)  # input_blob_def.py: batch_axis gone, split_axis always 0

_FORM = re.compile(r"v?(\d+)\.(\d+)(?:\.(\d+))?")


def parse(text: str) -> Version | None:
    """``"0.2"`` → (0, 2, 0), ``"v0.3.4"`` → (0, 3, 4), ``"auto"`` (or nothing) → None: flowtorch's default;
    ValueError naming the variable, the versions it takes and the value received otherwise (another form, or a
    release outside v0.1.0 … v0.4.0)."""
    if text.strip().lower() in ("", "auto"):
        return None
    match = _FORM.fullmatch(text.strip())
    version = None if match is None else (int(match[1]), int(match[2]), int(match[3] or 0))
    if version is None or not OLDEST <= version <= NEWEST:
        raise ValueError(f"{ENV} must be auto or name a OneFlow release from 0.1.0 to 0.4.0, as MAJOR.MINOR or "
                         f"MAJOR.MINOR.PATCH (e.g. 0.2, 0.3.4, v0.4.0); received {text!r}")
    return version


def selected() -> Version | None:
    """The release ``FLOWTORCH_ONEFLOW_VERSION`` names, None when it is unset, empty or ``auto``."""
    return parse(os.environ.get(ENV, ""))


def before(release: Version) -> bool:
    """True when the selected release is older than ``release`` (so it keeps the behaviour ``release``
    changed); False when no release is selected: flowtorch's default is the newer behaviour."""
    version = selected()
    return version is not None and version < release


def selected_at_least(release: Version) -> bool:
    """True only when a release is selected and it is ``release`` or newer: for the changes flowtorch does not
    make by default (it keeps the older behaviour that programs of every release accept)."""
    version = selected()
    return version is not None and version >= release


def describe() -> str:
    """The selected release as text, for error messages (``OneFlow 0.2.0``, or flowtorch's default)."""
    version = selected()
    return "flowtorch's default" if version is None else "OneFlow " + ".".join(map(str, version))

"""``flow.nn`` ops (the foundation set; the full op set extends this module)."""

from __future__ import annotations

import torch

from flowtorch._src.job.blob import Blob
from flowtorch._src.ops._record import apply, check_blob


def relu(x: Blob, name: str | None = None) -> Blob:
    return apply(torch.relu, check_blob(x, "nn.relu", "x"), op_type="Relu", name=name)

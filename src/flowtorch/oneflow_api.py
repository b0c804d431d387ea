"""``oneflow_api``: the names OneFlow 0.3's C++ extension module gave Python code, as far as programs use
them (blob classes in annotations and ``isinstance`` checks, the eager switch, the name of the job being
built, ``distribute``'s hints and ``deprecated.GetProtoDtype4OfDtype``). Under the alias,
``oneflow._oneflow_internal`` (v0.4.0's name for the module) gives these too.

OneFlow's blob classes (``BlobDesc`` and its consistent/mirrored, lazy/eager subclasses) are one class
here: a single device has no distinction between the views.
"""

from flowtorch._src.capture.blob import INVALID_BATCH_AXIS as INVALID_BATCH_AXIS
from flowtorch._src.capture.blob import INVALID_SPLIT_AXIS as INVALID_SPLIT_AXIS
from flowtorch._src.capture.blob import Blob as BlobDesc
from flowtorch._src.capture.blob import Blob as ConsistentBlob
from flowtorch._src.capture.blob import Blob as LazyConsistentBlob
from flowtorch._src.capture.blob import Blob as LazyMirroredBlob
from flowtorch._src.capture.blob import Blob as MirroredBlob
from flowtorch._src.modes import eager_execution_enabled as EagerExecutionEnabled
from flowtorch._src.oneflow_modules import (
    JobBuildAndInferCtx_GetCurrentJobName as JobBuildAndInferCtx_GetCurrentJobName,
)
from flowtorch._src.oneflow_modules import deprecated as deprecated
from flowtorch._src.oneflow_modules import distribute as distribute

__all__ = ["INVALID_BATCH_AXIS", "INVALID_SPLIT_AXIS", "BlobDesc", "ConsistentBlob", "EagerExecutionEnabled",
           "JobBuildAndInferCtx_GetCurrentJobName", "LazyConsistentBlob", "LazyMirroredBlob", "MirroredBlob",
           "deprecated", "distribute"]

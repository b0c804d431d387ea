"""``oneflow.model``: v0.4.0's high-level training API (``Model.fit`` over global_function jobs)."""

from flowtorch._src.model_api import Callback as Callback
from flowtorch._src.model_api import CheckpointConfig as CheckpointConfig
from flowtorch._src.model_api import DataModule as DataModule
from flowtorch._src.model_api import Model as Model
from flowtorch._src.model_api import NumpyDataModule as NumpyDataModule
from flowtorch._src.model_api import TrainingConfig as TrainingConfig
from flowtorch._src.model_api import ValidationConfig as ValidationConfig

__all__ = ["Callback", "CheckpointConfig", "DataModule", "Model", "NumpyDataModule", "TrainingConfig",
           "ValidationConfig"]

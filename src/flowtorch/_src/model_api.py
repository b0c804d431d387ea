"""``flow.model.*`` and ``flow.Model``: v0.4.0's high-level training API (``framework/model.py``), lazy path.

A :class:`Model` subclass defines ``training_step``, ``validation_step`` and ``configure_optimizers`` with
OneFlow ops; :meth:`Model.fit` clears the default session, builds ``global_function`` jobs from them (one
train job per optimizer, one predict job for validation), feeds them from a :class:`DataModule` (data ops in
the job body) or a :class:`NumpyDataModule` (arrays fed each step), hands each step's results to the
:class:`Callback` s and saves snapshots with ``flow.checkpoint``.

OneFlow 0.4 ran this lazy path for ``Model(is_deprecated_function_style=True)`` only; its default style was
the eager, object-oriented ``flow.experimental`` one (``nn.Module`` parameters, ``flow.optim``), which
flowtorch does not have: :meth:`Model.fit` raises ``NotImplementedError`` for it.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from flowtorch._src import dtypes
from flowtorch._src.capture.typing_defs import Numpy
from flowtorch._src.errors import ArgumentError, add_note
from flowtorch._src.function_config import FunctionConfig
from flowtorch._src.io.checkpoint import get as get_checkpoint
from flowtorch._src.io.checkpoint import load_variables, save
from flowtorch._src.optim.base import Optimizer
from flowtorch._src.session import Job, clear_default_session, global_function

__all__ = [
    "Callback", "CheckpointConfig", "DataModule", "ExecutionConfig", "Model", "NumpyDataModule",
    "TrainingConfig", "ValidationConfig",
]  # fmt: skip

log = logging.getLogger("flowtorch")

#: v0.4.0's name for a job's FunctionConfig (``framework/function_util.py`` exports it as both)
ExecutionConfig = FunctionConfig

_M = TypeVar("_M", bound="_Module")


class _Module:
    """What the lazy path uses of v0.4's ``nn.Module``: calling the object runs ``forward``, and the
    ``training`` flag with ``train()``/``eval()``."""

    training: bool

    def __init__(self) -> None:
        self.training = True

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__}: define forward()")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    def train(self: _M, mode: bool = True) -> _M:
        self.training = mode
        return self

    def eval(self: _M) -> _M:
        return self.train(False)


class DataModule(_Module):
    """``flow.model.DataModule``: ``forward(step_idx, optimizer_idx)`` returns a job's batch, built with data
    ops (``flow.data.*``) inside the job; it is called once, when the job is built."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, step_idx: int = 0, optimizer_idx: int = 0) -> Any:
        return None

    def infer_oneflow_data_placeholder(self, batch: Any = None, optimizer_idx: int = 0) -> list[Any] | None:
        return None


class NumpyDataModule(DataModule):
    """``flow.model.NumpyDataModule``: ``forward(step_idx, optimizer_idx)`` returns a tuple of numpy arrays,
    fed to the job at every step; the first batch fixes the job's placeholders (shape and dtype)."""

    def infer_oneflow_data_placeholder(self, batch: Any = None, optimizer_idx: int = 0) -> list[Any]:
        if not isinstance(batch, tuple):
            raise ArgumentError(f"model.NumpyDataModule must return a tuple of numpy arrays; "
                                f"{type(self).__name__}.forward(0, {optimizer_idx}) returned {type(batch).__name__}")
        placeholders = []
        for i, item in enumerate(batch):
            if not isinstance(item, np.ndarray):
                raise ArgumentError(f"model.NumpyDataModule must return a tuple of numpy arrays; item {i} of "
                                    f"{type(self).__name__}.forward(0, {optimizer_idx}) is {type(item).__name__}")
            dtype = dtypes.to_dtype(item.dtype, what=f"model.NumpyDataModule: item {i}'s dtype")
            placeholders.append(Numpy.Placeholder(shape=item.shape, dtype=dtype))
        return placeholders


class _JobConfig:
    """An ExecutionConfig and a DataModule for jobs."""

    def __init__(self) -> None:
        self.exe_cfg: Any = ExecutionConfig()
        self.data: Any = None
        self.error_msg = ""

    def config_execution(self, exe_cfg: ExecutionConfig | None = None) -> None:
        self.exe_cfg = exe_cfg

    def config_data(self, data: DataModule | None = None) -> None:
        self.data = data

    def _data_errors(self) -> str:
        what = f"model.{type(self).__name__}"
        if self.data is None:  # (both messages, as v0.4 gave)
            return f"{what} data is None;{what} data is not DataModule;"
        return "" if isinstance(self.data, DataModule) else f"{what} data is not DataModule;"


class TrainingConfig(_JobConfig):
    """``flow.model.TrainingConfig``: the train jobs' ExecutionConfig and their DataModule."""

    def check_valid(self) -> bool:
        """Whether the config can build jobs; ``error_msg`` says what is wrong (v0.4's messages)."""
        self.error_msg = "" if isinstance(self.exe_cfg, ExecutionConfig) else \
            "model.TrainingConfig exe_cfg is not ExecutionConfig;"
        self.error_msg += self._data_errors()
        return not self.error_msg


class ValidationConfig(_JobConfig):
    """``flow.model.ValidationConfig``: the validation job's ExecutionConfig (None: the default one), its
    DataModule, and how often it runs: after every ``step_interval``-th step (10 unless configured)."""

    def __init__(self) -> None:
        super().__init__()
        self.step_interval: Any = 10

    def config_step_interval(self, step_interval: int = 1) -> None:
        self.step_interval = step_interval

    def check_valid(self) -> bool:
        self.error_msg = self._data_errors()
        interval = self.step_interval
        if not isinstance(interval, int) or isinstance(interval, bool) or interval <= 0:
            self.error_msg += "model.ValidationConfig step_interval is <= 0 or is not int;"
        return not self.error_msg


class CheckpointConfig:
    """``flow.model.CheckpointConfig``: a snapshot to load before training, and where and how often to save
    (``<dirpath>-<step_idx>`` after every ``step_interval``-th step)."""

    def __init__(self) -> None:
        self.need_load = False
        self.load_dirpath: str | None = None
        self.need_save = False
        self.save_dirpath: str | None = None
        self.save_step_interval = 1
        self.error_msg = ""

    def config_load(self, dirpath: str | None = None) -> None:
        if dirpath is None:
            raise ArgumentError("model.CheckpointConfig.config_load: dirpath should not be None")
        self.need_load = True
        self.load_dirpath = dirpath

    def config_save(self, dirpath: str | None = None, step_interval: int = 1) -> None:
        if dirpath is None:
            raise ArgumentError("model.CheckpointConfig.config_save: dirpath should not be None")
        if not isinstance(step_interval, int) or isinstance(step_interval, bool) or step_interval <= 0:
            raise ArgumentError("model.CheckpointConfig.config_save: step_interval must be an int > 0; "
                                f"received {step_interval!r}")
        self.need_save = True
        self.save_dirpath = dirpath
        self.save_step_interval = step_interval

    def check_valid(self) -> bool:
        self.error_msg = ""  # (its setters check their arguments)
        return True


class Callback:
    """``flow.model.Callback``: override the hooks to see each step's results (``LocalBlob`` s, or a tuple
    of them when the step returned a tuple). They are called with keyword arguments."""

    def on_training_step_end(self, outputs: Any, step_idx: int = 0, optimizer_idx: int = 0) -> None:
        pass  # to be overridden

    def on_validation_step_end(self, outputs: Any, step_idx: int = 0) -> None:
        pass  # to be overridden


class Model(_Module):
    """``flow.Model`` / ``flow.model.Model``: subclass it with ``forward``, ``training_step(batch,
    optimizer_idx)``, ``validation_step(batch)`` and ``configure_optimizers()``, then call :meth:`fit`.
    Pass ``is_deprecated_function_style=True``: flowtorch runs v0.4's lazy (job) style only."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()
        self._is_deprecated_function_style = bool(kwargs.get("is_deprecated_function_style", False))

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """The operations used for prediction."""
        raise NotImplementedError(f"{type(self).__name__}.forward() is not defined")

    def training_step(self, *args: Any, **kwargs: Any) -> Any:
        """One training batch → its loss (or a tuple whose first item is the loss)."""
        raise NotImplementedError(f"{type(self).__name__}.training_step() is not defined")

    def validation_step(self, *args: Any, **kwargs: Any) -> Any:
        """One validation batch → the blobs handed to ``on_validation_step_end``."""
        raise NotImplementedError(f"{type(self).__name__}.validation_step() is not defined")

    def configure_optimizers(self) -> Any:
        """An optimizer (``flow.optimizer.*``), or a list/tuple of them: one train job each."""
        raise NotImplementedError(f"{type(self).__name__}.configure_optimizers() is not defined")

    def method_overrided(self, method_name: str) -> bool:  # (OneFlow's spelling)
        return getattr(type(self), method_name) is not getattr(Model, method_name)

    def fit(self, training_config: TrainingConfig | None = None,
            validation_config: ValidationConfig | None = None,
            checkpoint_config: CheckpointConfig | None = None,
            callbacks: Callback | list[Callback] | None = None, max_steps: int = 100) -> None:
        """Clear the default session, build the jobs and run ``max_steps`` steps: at each, every train job
        (in optimizer order), then validation and saving when their intervals divide ``step_idx + 1``."""
        if not self._is_deprecated_function_style:
            raise NotImplementedError(
                f"{type(self).__name__}.fit(): flowtorch runs flow.model.Model in OneFlow 0.4's lazy style only "
                f"(global_function jobs and flow.optimizer); v0.4's default is its eager flow.experimental style "
                f"(nn.Module parameters, flow.optim), which flowtorch does not have. Construct the model with "
                f"{type(self).__name__}(..., is_deprecated_function_style=True) and build it from OneFlow ops")
        if not isinstance(max_steps, int) or isinstance(max_steps, bool) or max_steps < 0:
            raise ArgumentError(f"{type(self).__name__}.fit: max_steps must be an int >= 0; received {max_steps!r}")
        cbs = _callbacks(callbacks)
        train = _checked(training_config, TrainingConfig, "training_config")
        val = _checked(validation_config, ValidationConfig, "validation_config")
        ckpt = _checked(checkpoint_config, CheckpointConfig, "checkpoint_config")
        if train is not None:
            _overridden(self, "training_step", "training_config")
            _overridden(self, "configure_optimizers", "training_config")
        if val is not None:
            _overridden(self, "validation_step", "validation_config")
        clear_default_session()  # (v0.4 did: fit builds its jobs in a fresh session)
        runners: list[_Trainer | _Validator | _Checkpointer] = []
        if train is not None:
            runners.append(_Trainer(self, train, cbs))
        if val is not None:
            runners.append(_Validator(self, val, cbs))
        if not runners:
            log.warning("%s.fit() will do nothing: neither a training_config nor a validation_config was given",
                        type(self).__name__)
            return
        if ckpt is not None:
            saver = _Checkpointer(ckpt)
            runners.append(saver)
            saver.load()
        log.info("%s.fit(): %s for %d step(s)", type(self).__name__,
                 ", ".join(r.describe() for r in runners), max_steps)
        for step_idx in range(max_steps):
            for runner in runners:
                try:
                    runner.step(step_idx)
                except BaseException as exc:
                    add_note(exc, f"{type(self).__name__}.fit(): step_idx {step_idx}, {runner.name} failed")
                    raise


# ------------------------------------------------------------------------------------------- internals


def _callbacks(callbacks: Any) -> list[Callback]:
    if callbacks is None:
        return []
    listed = [callbacks] if isinstance(callbacks, Callback) else callbacks
    if not isinstance(listed, list) or not all(isinstance(cb, Callback) for cb in listed):
        raise ArgumentError("Model.fit: callbacks must be a model.Callback or a list of model.Callback; "
                            f"received {callbacks!r}")
    return listed


_C = TypeVar("_C", TrainingConfig, ValidationConfig, CheckpointConfig)


def _checked(config: Any, kind: type[_C], arg: str) -> _C | None:
    if config is None:
        return None
    if not isinstance(config, kind):
        raise ArgumentError(f"Model.fit: {arg} must be a model.{kind.__name__}; received {type(config).__name__}")
    if not config.check_valid():
        raise ArgumentError(f"Model.fit: {arg} is not valid: {config.error_msg}")
    return config


def _overridden(model: Model, method: str, arg: str) -> None:
    if not model.method_overrided(method):
        raise ArgumentError(f"Model.fit: {arg} given, but {type(model).__name__}.{method}() is not defined "
                            f"(model.{method}() is empty)")


def _job(func: Callable[..., Any], name: str, job_type: str, exe_cfg: FunctionConfig | None,
         data: DataModule, batch: Any, optimizer_idx: int) -> Job:
    """``func(*batch)`` as a global function: with no parameter for a DataModule (its data ops are in the
    body), else one placeholder per array of the NumpyDataModule's first ``batch``, named as v0.4 named them
    (``_infer_job_signature``)."""
    params = []
    if isinstance(data, NumpyDataModule):
        placeholders = data.infer_oneflow_data_placeholder(batch, optimizer_idx)
        prefix = f"{type(data).__name__}_opt_{optimizer_idx}_para_"
        params = [inspect.Parameter(f"{prefix}{i}", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=p)
                  for i, p in enumerate(placeholders)]
    func.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]  # functions take attributes
    func.__name__ = func.__qualname__ = name
    return global_function(type=job_type, function_config=exe_cfg)(func)


def _loss(outputs: Any) -> Any:
    return outputs[0] if isinstance(outputs, tuple) and outputs else outputs


class _Trainer:
    """One train job per optimizer, run in optimizer order each step (v0.4's ``TrainModel``)."""

    name = "training"

    def __init__(self, model: Model, cfg: TrainingConfig, callbacks: list[Callback]) -> None:
        opts = model.configure_optimizers()
        listed = [opts] if isinstance(opts, Optimizer) else opts
        if not isinstance(listed, (list, tuple)) or not listed or not all(isinstance(o, Optimizer) for o in listed):
            raise ArgumentError(f"{type(model).__name__}.configure_optimizers() must return a flow.optimizer "
                                f"Optimizer or a non-empty list/tuple of them; returned {opts!r}")
        self._model, self._cfg, self._cbs = model, cfg, callbacks
        self._opts: list[Optimizer] = list(listed)
        self._numpy = isinstance(cfg.data, NumpyDataModule)
        self._first: list[Any] = []
        self._jobs = [self._build(i) for i in range(len(self._opts))]

    def describe(self) -> str:
        return f"training with {len(self._opts)} optimizer(s)"

    def _build(self, optimizer_idx: int) -> Job:
        model, data, opt = self._model, self._cfg.data, self._opts[optimizer_idx]

        def train(*batch: Any) -> Any:
            if not self._numpy:  # the DataModule's data ops become part of the job
                batch = data(0, optimizer_idx)
            outputs = model.training_step(batch=batch, optimizer_idx=optimizer_idx)
            opt.minimize(_loss(outputs))
            return outputs

        kind = "train_numpy_job" if self._numpy else "train_job"
        self._first.append(data(0, optimizer_idx) if self._numpy else None)
        return _job(train, f"{type(model).__name__}_Model_{kind}_{optimizer_idx}", "train", self._cfg.exe_cfg,
                    data, self._first[optimizer_idx], optimizer_idx)

    def step(self, step_idx: int) -> None:
        for optimizer_idx, job in enumerate(self._jobs):
            if self._numpy:
                batch = self._first[optimizer_idx] if step_idx == 0 else self._cfg.data(step_idx, optimizer_idx)
                outputs = job(*batch).get()
            else:
                outputs = job().get()
            for cb in self._cbs:
                cb.on_training_step_end(outputs=outputs, step_idx=step_idx, optimizer_idx=optimizer_idx)


class _Validator:
    """The predict job, run after every ``step_interval``-th step (v0.4's ``ValidateModel``)."""

    name = "validation"

    def __init__(self, model: Model, cfg: ValidationConfig, callbacks: list[Callback]) -> None:
        self._cfg, self._cbs = cfg, callbacks
        self._numpy = isinstance(cfg.data, NumpyDataModule)
        data = cfg.data

        def validate(*batch: Any) -> Any:
            if not self._numpy:
                return model.validation_step(data(0, 0))
            return model.validation_step(batch=batch)

        kind = "eval_numpy_job" if self._numpy else "eval_job"
        self._first: Any = data(0, 0) if self._numpy else None
        self._job = _job(validate, f"{type(model).__name__}_Model_{kind}", "predict", cfg.exe_cfg, data,
                         self._first, 0)

    def describe(self) -> str:
        return f"validation every {self._cfg.step_interval} step(s)"

    def step(self, step_idx: int) -> None:
        if (step_idx + 1) % self._cfg.step_interval:
            return
        if self._numpy:
            batch = self._first if step_idx == 0 else self._cfg.data(step_idx, 0)
            outputs = self._job(*batch).get()
        else:
            outputs = self._job().get()
        for cb in self._cbs:
            cb.on_validation_step_end(outputs=outputs, step_idx=step_idx)


class _Checkpointer:
    """Loads the configured snapshot before the first step and saves ``<dirpath>-<step_idx>`` snapshots
    (v0.4's ``CheckpointModel``: ``flow.load_variables(flow.checkpoint.get(…))``, ``flow.checkpoint.save``)."""

    name = "checkpointing"

    def __init__(self, cfg: CheckpointConfig) -> None:
        self._cfg = cfg

    def describe(self) -> str:
        cfg = self._cfg
        parts = [f"loading {cfg.load_dirpath}"] if cfg.need_load else []
        if cfg.need_save:
            parts.append(f"saving to {cfg.save_dirpath}-<step> every {cfg.save_step_interval} step(s)")
        return ", ".join(parts) or "no checkpointing"

    def load(self) -> None:
        path = self._cfg.load_dirpath
        if self._cfg.need_load and path is not None:  # (config_load refuses None)
            load_variables(get_checkpoint(path))
            log.info("Model.fit: loaded the snapshot %s", path)

    def step(self, step_idx: int) -> None:
        cfg = self._cfg
        if cfg.need_save and (step_idx + 1) % cfg.save_step_interval == 0:
            path = f"{cfg.save_dirpath}-{step_idx}"
            save(path)
            log.info("Model.fit: step %d saved to %s", step_idx, path)

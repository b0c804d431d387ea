"""The API of OneFlow's master before its first release (late 2019 to June 2020) that no release kept.

* ``@flow.function`` (``framework/function_util.py`` of the 2020 master): ``flow.function(function_config)``
  made a job of a function as ``global_function`` later did; the job was a train job when its config set
  ``train.primary_lr`` / ``train.model_update_conf`` (``_TryCompleteDefaultJobConfigProto`` made any other a
  predict job). Programs of OneFlow-Benchmark in the first half of 2020 also wrote it bare, ``@flow.function``,
  with the job's conf set inside the body (late 2019's ``framework/config_util.py``):
  ``flow.config.train.primary_lr(lr)``, ``flow.config.train.model_update_conf({...})``,
  ``flow.config.default_data_type(flow.float)``. Inside a body such a call sets the job's conf (a
  ``train.*`` one makes it a train job); outside any body it sets the default of the bare ``@flow.function``
  jobs built afterwards. Such a job is late 2019's, and its ``clip_conf`` clips each variable by its own norm
  (``optim/legacy.py``).
* ``flow.Box`` (``lib/core/box.py``): a holder of one value that may be set later.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from flowtorch._src import session
from flowtorch._src.capture.context import maybe_builder
from flowtorch._src.function_config import FunctionConfig

__all__ = ["Box", "JobConfGroup", "function", "job_conf_setter"]

# the job conf set outside any body, for the bare @flow.function jobs (late 2019's default job conf)
_bare_defaults = FunctionConfig()


def job_conf_setter(path: str) -> Callable[..., None]:
    """``flow.config.<path>(value)`` of late 2019: the current job's conf, else the bare jobs' default."""
    _bare_defaults._setter(path)  # an unknown option is refused at once (OneFlow asserted the name)

    def set_conf(value: Any = None) -> None:
        builder = maybe_builder()
        if builder is None:
            _bare_defaults._setter(path)(value)
            return
        if path.startswith("train."):
            builder.make_train(f"flow.config.{path}(...)")
        builder.config._setter(path)(value)
        if path == "default_data_type":
            builder.default_dtype = builder.config.default_dtype
    set_conf.__name__ = path.rsplit(".", 1)[-1]
    set_conf.__qualname__ = f"config.{path}"
    return set_conf


class JobConfGroup:
    """``flow.config.train``: ``flow.config.train.primary_lr(0.1)`` (see :func:`job_conf_setter`)."""

    def __init__(self, prefix: str) -> None:
        self._prefix = prefix

    def __getattr__(self, name: str) -> Callable[..., None]:
        if name.startswith("_"):
            raise AttributeError(name)
        return job_conf_setter(f"{self._prefix}.{name}")

    def __repr__(self) -> str:
        return f"<oneflow.config.{self._prefix}>"


def _is_train(config: FunctionConfig) -> bool:
    return any(config.is_set(k) for k in ("train.primary_lr", "train.model_update_conf"))


def _bare_job(func: Callable[..., Any]) -> Any:
    @functools.wraps(func)
    def body(*args: Any) -> Any:
        builder = maybe_builder()
        if builder is not None:  # the defaults set outside any body, then the body's own calls
            builder.config.era = "late-2019"
            for path, value in _bare_defaults._values.items():
                job_conf_setter(path)(value)
        return func(*args)
    return session.global_function("train" if _is_train(_bare_defaults) else "predict")(body)


def function(function_config: Any = None) -> Any:
    """``@flow.function(function_config)`` or bare ``@flow.function`` (see the module's docstring)."""
    if callable(function_config) and not isinstance(function_config, FunctionConfig):
        return _bare_job(function_config)
    config = FunctionConfig() if function_config is None else function_config
    if not isinstance(config, FunctionConfig):
        raise TypeError(f"flow.function takes a flow.function_config(); received {type(config).__name__} "
                        f"{config!r}")
    return session.global_function("train" if _is_train(config) else "predict", config)


class Box:
    """``flow.Box(*value)``: ``value`` (asserting it was set), ``set_value``, ``value_setter``, ``has_value``."""

    def __init__(self, *arg: Any) -> None:
        if len(arg) > 1:
            raise AssertionError(f"flow.Box takes at most one value; received {len(arg)}")
        self.has_value_ = len(arg) > 0
        self.value_ = arg[0] if arg else None

    @property
    def value(self) -> Any:
        if not self.has_value_:
            raise AssertionError("flow.Box: no value was set")
        return self.value_

    @property
    def value_setter(self) -> Callable[[Any], None]:
        return self.set_value

    def set_value(self, val: Any) -> None:
        self.value_ = val
        self.has_value_ = True

    def has_value(self) -> bool:
        return self.has_value_

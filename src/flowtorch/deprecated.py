"""``oneflow.deprecated``: ``variable_scope`` (``flow.name_scope``), ``nn.Module`` (v0.4.0's name for the lazy
``flow.nn.Module``) and the ssh worker helpers of OneFlow's multi-machine set-up, which have no counterpart here
(``python -m flowtorch --nproc N`` starts processes)."""

from __future__ import annotations

from types import SimpleNamespace as _NS

from flowtorch._src.naming import name_scope as variable_scope
from flowtorch._src.ops.user_op_module import Module as _Module

__all__ = ["delete_worker", "delete_worker_by_bootstrap", "delete_worker_of_multi_process", "init_worker", "nn",
           "variable_scope"]

nn = _NS(Module=_Module)  # v0.4.0 moved the lazy user-op Module here, when flow.nn.Module became the eager one

_WORKERS = ("flow.deprecated.{}: OneFlow copied its binary to the machines of env.machine() over ssh and "
            "started workers there; flowtorch starts one process per device itself "
            "(python -m flowtorch --nproc N script.py, or torchrun for several machines)")


def init_worker(scp_binary: bool = True, use_uuid: bool = True, ssh_port: int = 22) -> None:
    """OneFlow's ssh worker start-up; refused with what to use instead."""
    raise NotImplementedError(_WORKERS.format("init_worker"))


def delete_worker(ssh_port: int = 22) -> None:
    """OneFlow's ssh worker clean-up; refused with what to use instead."""
    raise NotImplementedError(_WORKERS.format("delete_worker"))


def delete_worker_by_bootstrap(ssh_port: int = 22) -> None:
    """v0.4.0's ssh worker clean-up after ``env.init_bootstrap_confs``; refused with what to use instead."""
    raise NotImplementedError(_WORKERS.format("delete_worker_by_bootstrap"))


def delete_worker_of_multi_process(run_dir: str) -> None:
    """v0.4.0's clean-up of a multi-process run directory; refused with what to use instead."""
    raise NotImplementedError(_WORKERS.format("delete_worker_of_multi_process"))

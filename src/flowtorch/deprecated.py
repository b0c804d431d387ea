"""``oneflow.deprecated``: ``variable_scope`` (``flow.name_scope``) and the ssh worker helpers of OneFlow's
multi-machine set-up, which have no counterpart here (``python -m flowtorch --nproc N`` starts processes)."""

from __future__ import annotations

from flowtorch._src.naming import namespace as variable_scope

__all__ = ["delete_worker", "init_worker", "variable_scope"]

_WORKERS = ("flow.deprecated.{}: OneFlow copied its binary to the machines of env.machine() over ssh and "
            "started workers there; flowtorch starts one process per device itself "
            "(python -m flowtorch --nproc N script.py, or torchrun for several machines)")


def init_worker(scp_binary: bool = True, use_uuid: bool = True, ssh_port: int = 22) -> None:
    """OneFlow's ssh worker start-up; refused with what to use instead."""
    raise NotImplementedError(_WORKERS.format("init_worker"))


def delete_worker(ssh_port: int = 22) -> None:
    """OneFlow's ssh worker clean-up; refused with what to use instead."""
    raise NotImplementedError(_WORKERS.format("delete_worker"))

"""``flow.config.*`` and ``flow.env.*``: session flags, settable only before the session starts."""

from __future__ import annotations

import logging
import os
from typing import Any

from flowtorch._src import session
from flowtorch._src.deprecation import deprecated_alias
from flowtorch._src.dist import group

log = logging.getLogger("flowtorch")


def _set(name: str, value: Any, kind: type, minimum: int | None = None) -> bool:
    # OneFlow (framework/config_util.py) asserts ``type(val) is int``; the resource proto then rejects what
    # no machine has, so flowtorch refuses a count below its minimum here, where the call names it.
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise TypeError(f"flow.config.{name}: expected {kind.__name__}; received {type(value).__name__} {value!r}")
    if minimum is not None and isinstance(value, int) and value < minimum:
        raise ValueError(f"flow.config.{name}: expected an int >= {minimum}; received {value}")
    return session.default_session().set_config(name, value)


def _set_device_num(name: str, val: int, minimum: int) -> bool:
    if not _set(name, val, int, minimum=minimum):
        return False
    # OneFlow's jobs ran on gpu_device_num devices, or on cpu_device_num after gpu_device_num(0)
    # (placement_util.py: GetDefaultMachineDeviceIds); one process per device here (dist/group.py).
    config = session.default_session().config
    gpus = config["gpu_device_num"]
    group.ask_devices(gpus if gpus > 0 else config["cpu_device_num"], f"flow.config.{name}({val})")
    return True


def gpu_device_num(val: int) -> bool:
    """``flow.config.gpu_device_num(n)``, n ≥ 0 (0: no GPU, as in OneFlow's CPU-only runs). Outside the
    launcher, n > 1 is :func:`group.ask_devices`: the runner starts n processes, else one warning."""
    return _set_device_num("gpu_device_num", val, 0)


def cpu_device_num(val: int) -> bool:
    """``flow.config.cpu_device_num(n)``, n ≥ 1 (the device count after ``gpu_device_num(0)``)."""
    return _set_device_num("cpu_device_num", val, 1)


def machine_num(val: int) -> bool:
    """``flow.config.machine_num(n)``, n ≥ 1."""
    return _set("machine_num", val, int, minimum=1)


def enable_legacy_model_io(val: bool = True) -> bool:
    return _set("enable_legacy_model_io", val, bool)


def enable_model_io_v2(val: bool) -> bool:
    return _set("enable_model_io_v2", val, bool)


def enable_debug_mode(val: bool) -> bool:
    return _set("enable_debug_mode", val, bool)


def get(name: str) -> Any:
    return session.default_session().config.get(name)


def _accept(name: str) -> Any:
    def setter(*args: Any, **kwargs: Any) -> bool:
        return session.default_session().set_config(name, args[0] if args else True)
    setter.__name__ = name.rsplit(".", 1)[-1]
    setter.__doc__ = f"``flow.{name}``: accepted and recorded; no effect on the torch backend."
    return setter


# Flags that tune OneFlow's runtime (threads, memory, RDMA, collective boxing): recorded, no effect.
for _n in ("cpu_thread_num", "comm_net_worker_num", "max_mdsave_worker_num", "enable_mem_chain_merge",
           "rdma_mem_block_mbyte", "rdma_recv_msg_buf_mbyte", "reserved_host_mem_mbyte",
           "reserved_device_mem_mbyte", "use_rdma", "thread_enable_local_message_queue",
           "persistence_buf_byte", "enable_fusion", "nccl_use_compute_stream", "disable_group_boxing_by_dst_parallel",
           "enable_tensor_float_32_compute", "enable_debug_mode_extra",
           # v0.1.2–v0.3.4 (config_util.py): profiling, thread-pool, NUMA and file-system knobs
           "collect_act_event", "compute_thread_pool_size", "enable_numa_aware_cuda_malloc_host",
           "save_downloaded_file_to_local_fs"):
    globals()[_n] = _accept(f"config.{_n}")


def legacy_model_io_enabled() -> bool:
    """``flow.config.legacy_model_io_enabled()``: whether ``enable_legacy_model_io`` was set."""
    return bool(get("enable_legacy_model_io"))


class _Namespace:
    def __init__(self, prefix: str, names: tuple[str, ...]) -> None:
        for n in names:
            setattr(self, n, _accept(f"{prefix}.{n}"))


collective_boxing = _Namespace("config.collective_boxing", (
    "enable_fusion", "num_callback_threads", "nccl_num_streams", "nccl_fusion_threshold_mb",
    "nccl_fusion_all_reduce_use_buffer", "nccl_fusion_all_reduce", "nccl_fusion_reduce_scatter",
    "nccl_fusion_all_gather", "nccl_fusion_reduce", "nccl_fusion_broadcast", "nccl_fusion_max_ops",
    "nccl_enable_all_to_all", "nccl_enable_mixed_fusion"))



_env_frozen = False  # flow.env.disable_setting() of the 2020 master: the process's env settings are final


def disable_setting() -> None:
    """``flow.env.disable_setting()`` (OneFlow's master, January–April 2020, ``framework/env_util.py``): later
    ``flow.env.*`` settings fail their assertion (``env_proto_mutable == True``), for the rest of the process."""
    global _env_frozen
    _env_frozen = True


def _env_set(name: str, value: Any) -> bool:
    if _env_frozen:
        raise AssertionError(f"flow.env.{name}: the env settings were frozen by flow.env.disable_setting()")
    sess = session.default_session()
    if sess.is_running:
        log.warning("Nothing happened because environment has been initialized")  # OneFlow's message
        return False
    return sess.set_config(f"env.{name}", value)


def _port(name: str, val: Any) -> int:
    if type(val) is not int:
        raise TypeError(f"flow.env.{name}: expected an int port in 1..65535; received {type(val).__name__} {val!r}")
    if not 0 < val < 65536:
        raise ValueError(f"flow.env.{name}: expected a port in 1..65535; received {val}")
    return val


def _machines(val: tuple[Any, ...]) -> list[dict[str, Any]]:
    # OneFlow (env_util._MakeMachine): a str, or a list of addresses / {"addr": ..., "ctrl_port_agent": ...}.
    entries = val[0] if len(val) == 1 and isinstance(val[0], (list, tuple)) else val
    entries = [entries] if isinstance(entries, str) else list(entries)
    machines: list[dict[str, Any]] = []
    for i, entry in enumerate(entries):
        m = {"addr": entry} if isinstance(entry, str) else entry
        if not isinstance(m, dict) or not isinstance(m.get("addr"), str) or not m["addr"]:
            raise TypeError(f"flow.env.machine: entry {i} must be a dict with an \"addr\" string (or an address); "
                            f"received {entry!r}")
        machines.append({k: m[k] for k in ("addr", "ctrl_port_agent", "data_port_agent") if k in m})
    addrs = [m["addr"] for m in machines]
    if not machines:
        raise ValueError("flow.env.machine: expected at least one machine")
    if len(set(addrs)) != len(addrs):
        raise ValueError(f"flow.env.machine: expected distinct machine addresses; received {addrs}")
    return machines


class _Env:
    """``flow.env.*``: recorded (``session.config["env.<name>"]``) before the session starts. Processes and
    machines come from the launcher (``python -m flowtorch --nnodes M --nproc N``), not from these."""

    def machine(self, *val: Any) -> bool:
        machines = _machines(val)
        if len(machines) > 1 and not os.environ.get("WORLD_SIZE"):
            log.warning("flowtorch: flow.env.machine lists %d machines, but this program was not launched on them; "
                        "multi-machine runs are launched with `python -m flowtorch --nnodes %d --nproc N "
                        "--rdzv-endpoint host:port script.py` on each machine (this run uses this machine only)",
                        len(machines), len(machines))
        return _env_set("machine", machines)

    def ctrl_port(self, val: int) -> bool:
        return _env_set("ctrl_port", _port("ctrl_port", val))

    def data_port(self, val: int) -> bool:
        return _env_set("data_port", _port("data_port", val))

    def log_dir(self, val: str) -> bool:
        if not isinstance(val, str):
            raise TypeError(f"flow.env.log_dir: expected str; received {type(val).__name__} {val!r}")
        return _env_set("log_dir", val)

    def logtostderr(self, val: int) -> bool:
        return _env_set("logtostderr", _typed("logtostderr", val, int))

    def logbuflevel(self, val: int) -> bool:
        return _env_set("logbuflevel", _typed("logbuflevel", val, int))

    def grpc_use_no_signal(self, val: bool = True) -> bool:
        return _env_set("grpc_use_no_signal", _typed("grpc_use_no_signal", val, bool))

    init = staticmethod(_accept("env.init"))
    current_resource = staticmethod(_accept("env.current_resource"))
    # v0.4.0: the machines' bootstrap list of OneFlow's own multi-process start; the launcher's here
    init_bootstrap_confs = staticmethod(_accept("env.init_bootstrap_confs"))


def _typed(name: str, val: Any, kind: type) -> Any:
    if type(val) is not kind:
        raise TypeError(f"flow.env.{name}: expected {kind.__name__}; received {type(val).__name__} {val!r}")
    return val


env = _Env()
# deprecated in OneFlow v0.3.4 (env_util.py): its own name for flow.is_deprecated
grpc_use_no_signal = deprecated_alias(env.grpc_use_no_signal, "env.grpc_use_no_signal", "nothing (gRPC is OneFlow's)")


def load_library(path: str) -> None:
    raise NotImplementedError(
        f"flow.config.load_library({path!r}): flowtorch cannot load OneFlow custom-op libraries (.so built "
        "against OneFlow's C++ runtime); rewrite the op with torch (see docs/compat.md)")


def load_library_now(path: str) -> None:
    """``flow.config.load_library_now``: refused as :func:`load_library` is."""
    load_library(path)


_MEM_STRATEGIES = ("reuse_mem_priority", "parallelism_priority", "custom_parallelism")


def inter_job_reuse_mem_strategy(strategy_str: str, job_set: Any = None, **kwargs: Any) -> None:
    """``flow.inter_job_reuse_mem_strategy``: how OneFlow's jobs shared memory; checked as OneFlow did
    (``job_set_util.py``), no effect (torch's caching allocator shares memory between steps)."""
    if strategy_str not in _MEM_STRATEGIES:
        raise ValueError(f"flow.inter_job_reuse_mem_strategy: strategy_str must be one of {', '.join(_MEM_STRATEGIES)};"
                         f" received {strategy_str!r}")
    if strategy_str == "custom_parallelism":
        groups = kwargs.get("job_name_groups")
        if groups is None or not all(isinstance(n, str) for g in groups for n in g):
            raise ValueError("flow.inter_job_reuse_mem_strategy(\"custom_parallelism\"): job_name_groups must be "
                             f"a list of lists of job names; received {groups!r}")

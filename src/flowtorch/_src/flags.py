"""``flow.config.*`` and ``flow.env.*``: session flags, settable only before the session starts."""

from __future__ import annotations

from typing import Any

from flowtorch._src import session


def _set(name: str, value: Any, kind: type, minimum: int | None = None) -> bool:
    # OneFlow (framework/config_util.py) asserts ``type(val) is int``; the resource proto then rejects what
    # no machine has, so flowtorch refuses a count below its minimum here, where the call names it.
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise TypeError(f"flow.config.{name}: expected {kind.__name__}; received {type(value).__name__} {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"flow.config.{name}: expected an int >= {minimum}; received {value}")
    return session.default_session().set_config(name, value)


def gpu_device_num(val: int) -> bool:
    """``flow.config.gpu_device_num(n)``, n ≥ 0 (0: no GPU, as in OneFlow's CPU-only runs)."""
    if isinstance(val, int) and not isinstance(val, bool) and val > 1:
        print(f"WARNING: flowtorch runs on one device; gpu_device_num({val}) is recorded, jobs use one device")
    return _set("gpu_device_num", val, int, minimum=0)


def cpu_device_num(val: int) -> bool:
    """``flow.config.cpu_device_num(n)``, n ≥ 1."""
    return _set("cpu_device_num", val, int, minimum=1)


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
           "enable_tensor_float_32_compute", "enable_debug_mode_extra"):
    globals()[_n] = _accept(f"config.{_n}")


class _Namespace:
    def __init__(self, prefix: str, names: tuple[str, ...]) -> None:
        for n in names:
            setattr(self, n, _accept(f"{prefix}.{n}"))


collective_boxing = _Namespace("config.collective_boxing", (
    "enable_fusion", "num_callback_threads", "nccl_num_streams", "nccl_fusion_threshold_mb",
    "nccl_fusion_all_reduce_use_buffer", "nccl_fusion_all_reduce", "nccl_fusion_reduce_scatter",
    "nccl_fusion_all_gather", "nccl_fusion_reduce", "nccl_fusion_broadcast", "nccl_fusion_max_ops",
    "nccl_enable_all_to_all", "nccl_enable_mixed_fusion"))

env = _Namespace("env", ("ctrl_port", "data_port", "machine", "log_dir", "logtostderr", "logbuflevel",
                         "grpc_use_no_signal", "init", "current_resource"))


def load_library(path: str) -> None:
    raise NotImplementedError(
        f"flow.config.load_library({path!r}): flowtorch cannot load OneFlow custom-op libraries (.so built "
        "against OneFlow's C++ runtime); rewrite the op with torch (see docs/compat.md)")

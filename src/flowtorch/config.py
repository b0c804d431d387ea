"""``oneflow.config``: session flags (set them before the first job call)."""

from flowtorch._src import flags
from flowtorch._src.flags import collective_boxing as collective_boxing
from flowtorch._src.flags import cpu_device_num as cpu_device_num
from flowtorch._src.flags import enable_debug_mode as enable_debug_mode
from flowtorch._src.flags import enable_legacy_model_io as enable_legacy_model_io
from flowtorch._src.flags import enable_model_io_v2 as enable_model_io_v2
from flowtorch._src.flags import gpu_device_num as gpu_device_num
from flowtorch._src.flags import legacy_model_io_enabled as legacy_model_io_enabled
from flowtorch._src.flags import load_library as load_library
from flowtorch._src.flags import load_library_now as load_library_now
from flowtorch._src.flags import machine_num as machine_num
from flowtorch._src.function_config import job_conf_groups, job_conf_options
from flowtorch._src.master_2020 import JobConfGroup, job_conf_setter

# late 2019's flow.config held the cluster settings that flow.env holds from 2020 on (config_util.py of the master)
ctrl_port = flags.env.ctrl_port
data_port = flags.env.data_port
machine = flags.env.machine
log_dir = flags.env.log_dir
logtostderr = flags.env.logtostderr
logbuflevel = flags.env.logbuflevel

__all__ = ["ctrl_port", "data_port", "log_dir", "logbuflevel", "logtostderr", "machine",
           "collective_boxing", "cpu_device_num", "enable_debug_mode", "enable_legacy_model_io",
           "enable_model_io_v2", "gpu_device_num", "legacy_model_io_enabled", "load_library", "load_library_now",
           "machine_num"]


def __getattr__(name: str) -> object:
    # Runtime-tuning flags (cpu_thread_num, rdma_*, …) are accepted and recorded.
    if hasattr(flags, name) and not name.startswith("_"):
        return getattr(flags, name)
    # late 2019's job conf, set inside (or, as the default, before) a bare @flow.function body
    if name in job_conf_groups():
        return JobConfGroup(name)
    if name in job_conf_options():
        return job_conf_setter(name)
    raise AttributeError(f"oneflow.config has no attribute {name!r} (see docs/compat.md)")

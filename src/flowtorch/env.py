"""``oneflow.env``: cluster settings, checked and recorded; machines and ports are the launcher's
(``python -m flowtorch --nnodes M --nproc N --rdzv-endpoint host:port script.py``)."""

from flowtorch._src.flags import disable_setting as disable_setting  # (the 2020 master's)
from flowtorch._src.flags import env as _env
from flowtorch._src.flags import grpc_use_no_signal as grpc_use_no_signal
from flowtorch._src.session import enable_eager_execution as enable_eager_environment

ctrl_port = _env.ctrl_port
data_port = _env.data_port
machine = _env.machine
log_dir = _env.log_dir
logtostderr = _env.logtostderr
logbuflevel = _env.logbuflevel
init = _env.init
current_resource = _env.current_resource
init_bootstrap_confs = _env.init_bootstrap_confs

__all__ = ["ctrl_port", "current_resource", "data_port", "disable_setting", "enable_eager_environment",
           "grpc_use_no_signal", "init", "init_bootstrap_confs", "log_dir", "logbuflevel", "logtostderr", "machine"]

"""flowtorch's migration tools from Python (no OneFlow namespace): a job exported as plain PyTorch, checkpoints
converted between OneFlow and torch, watched runs plotted, programs checked. docs/migration/ describes each; the
command line runs the same functions (``flowtorch export|convert-checkpoint|plot|check``)."""

from flowtorch._src.migrate.check import check_paths as check_paths
from flowtorch._src.migrate.check import check_source as check_source
from flowtorch._src.migrate.convert import convert as convert
from flowtorch._src.migrate.convert import load_checkpoint as load_checkpoint
from flowtorch._src.migrate.convert import read_layout as read_layout
from flowtorch._src.migrate.export import export as export
from flowtorch._src.migrate.names import torch_name as torch_name
from flowtorch._src.migrate.names import unique_torch_names as unique_torch_names
from flowtorch._src.migrate.plot import load_run as load_run
from flowtorch._src.migrate.plot import plot_run as plot_run

__all__ = ["check_paths", "check_source", "convert", "export", "load_checkpoint", "load_run", "plot_run",
           "read_layout", "torch_name", "unique_torch_names"]

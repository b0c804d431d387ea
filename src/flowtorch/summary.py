"""``oneflow.summary``: TensorBoard summaries written by job ops (scalar, histogram, image, pb), and the host-side
records and files they go with (text, hparams, Graph, Projector)."""

from flowtorch._src.migrate.summary_graph import Graph as Graph
from flowtorch._src.ops.summary_hparams import HParam as HParam
from flowtorch._src.ops.summary_hparams import HParam as Hparam
from flowtorch._src.ops.summary_hparams import IntegerRange as IntegerRange
from flowtorch._src.ops.summary_hparams import Metric as Metric
from flowtorch._src.ops.summary_hparams import RealRange as RealRange
from flowtorch._src.ops.summary_hparams import ValueSet as ValueSet
from flowtorch._src.ops.summary_hparams import hparams as hparams
from flowtorch._src.ops.summary_hparams import text as text
from flowtorch._src.ops.summary_ops import create_summary_writer as create_summary_writer
from flowtorch._src.ops.summary_ops import flush_summary_writer as flush_summary_writer
from flowtorch._src.ops.summary_ops import histogram as histogram
from flowtorch._src.ops.summary_ops import image as image
from flowtorch._src.ops.summary_ops import pb as pb
from flowtorch._src.ops.summary_ops import scalar as scalar
from flowtorch._src.ops.summary_projector import Projector as Projector

__all__ = ["Graph", "HParam", "Hparam", "IntegerRange", "Metric", "Projector", "RealRange", "ValueSet",
           "create_summary_writer", "flush_summary_writer", "histogram", "hparams", "image", "pb", "scalar", "text"]

"""``oneflow.onnx``: a job's graph as an ONNX model, its weights read from a snapshot directory."""

from flowtorch._src.migrate.onnx_export import export as export

__all__ = ["export"]

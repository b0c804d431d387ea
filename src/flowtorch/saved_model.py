"""``oneflow.saved_model``: build and save a model for serving (``flow.serving.InferenceSession`` loads it)."""

from flowtorch._src.migrate.saved_model import GraphBuilder as GraphBuilder
from flowtorch._src.migrate.saved_model import ModelBuilder as ModelBuilder
from flowtorch._src.migrate.saved_model import SignatureBuilder as SignatureBuilder

__all__ = ["GraphBuilder", "ModelBuilder", "SignatureBuilder"]

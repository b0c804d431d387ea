"""``oneflow.core.serving.saved_model_pb2``: OneFlow's ``SavedModel`` and ``GraphDef`` messages, which programs
read a saved model's ``saved_model.prototxt`` into."""

from flowtorch._src.migrate.saved_model_proto import GraphDef as GraphDef
from flowtorch._src.migrate.saved_model_proto import SavedModel as SavedModel

__all__ = ["GraphDef", "SavedModel"]

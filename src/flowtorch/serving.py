"""``oneflow.serving``: run the jobs of a saved model (``flow.saved_model.ModelBuilder``) on numpy inputs."""

from flowtorch._src.migrate.serving import InferenceSession as InferenceSession
from flowtorch._src.migrate.serving import ModelVersionPolicy as ModelVersionPolicy
from flowtorch._src.migrate.serving import SessionOption as SessionOption

__all__ = ["InferenceSession", "ModelVersionPolicy", "SessionOption"]

"""``oneflow.losses``: the v0.1 way to mark a train job's loss."""

from flowtorch._src.capture.losses import add_loss as add_loss

__all__ = ["add_loss"]

"""``oneflow.data``: ``load_mnist``."""

from flowtorch._src.mnist import load_mnist as load_mnist

__all__ = ["load_mnist"]

"""``oneflow.util``: ``unique_str(prefix)``, the op-name generator OneFlow's ops use (``Relu_3``)."""

from flowtorch._src.naming import unique_str as unique_str

__all__ = ["unique_str"]

"""``oneflow.core.operator``."""

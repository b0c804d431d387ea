"""``oneflow.core``: the protobuf modules OneFlow programs import (``oneflow.core.record.record_pb2`` …)."""

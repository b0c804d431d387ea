from flowtorch.core.job import job_conf_pb2 as _job_conf_pb2
from flowtorch.core.job import placement_pb2 as _placement_pb2
from flowtorch.core.job import scope_pb2 as _scope_pb2
from flowtorch.core.operator import op_conf_pb2 as _op_conf_pb2
from flowtorch.core.operator import op_node_signature_pb2 as _op_node_signature_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class EagerSymbol(_message.Message):
    __slots__ = ("symbol_id", "string_symbol", "scope_symbol", "job_conf_symbol", "parallel_conf_symbol", "op_conf_symbol", "op_node_signature_symbol")
    SYMBOL_ID_FIELD_NUMBER: _ClassVar[int]
    STRING_SYMBOL_FIELD_NUMBER: _ClassVar[int]
    SCOPE_SYMBOL_FIELD_NUMBER: _ClassVar[int]
    JOB_CONF_SYMBOL_FIELD_NUMBER: _ClassVar[int]
    PARALLEL_CONF_SYMBOL_FIELD_NUMBER: _ClassVar[int]
    OP_CONF_SYMBOL_FIELD_NUMBER: _ClassVar[int]
    OP_NODE_SIGNATURE_SYMBOL_FIELD_NUMBER: _ClassVar[int]
    symbol_id: int
    string_symbol: str
    scope_symbol: _scope_pb2.ScopeProto
    job_conf_symbol: _job_conf_pb2.JobConfigProto
    parallel_conf_symbol: _placement_pb2.ParallelConf
    op_conf_symbol: _op_conf_pb2.OperatorConf
    op_node_signature_symbol: _op_node_signature_pb2.OpNodeSignature
    def __init__(self, symbol_id: _Optional[int] = ..., string_symbol: _Optional[str] = ..., scope_symbol: _Optional[_Union[_scope_pb2.ScopeProto, _Mapping]] = ..., job_conf_symbol: _Optional[_Union[_job_conf_pb2.JobConfigProto, _Mapping]] = ..., parallel_conf_symbol: _Optional[_Union[_placement_pb2.ParallelConf, _Mapping]] = ..., op_conf_symbol: _Optional[_Union[_op_conf_pb2.OperatorConf, _Mapping]] = ..., op_node_signature_symbol: _Optional[_Union[_op_node_signature_pb2.OpNodeSignature, _Mapping]] = ...) -> None: ...

class EagerSymbolList(_message.Message):
    __slots__ = ("eager_symbol",)
    EAGER_SYMBOL_FIELD_NUMBER: _ClassVar[int]
    eager_symbol: _containers.RepeatedCompositeFieldContainer[EagerSymbol]
    def __init__(self, eager_symbol: _Optional[_Iterable[_Union[EagerSymbol, _Mapping]]] = ...) -> None: ...

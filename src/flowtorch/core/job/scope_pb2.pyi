from flowtorch.core.job import mirrored_parallel_pb2 as _mirrored_parallel_pb2
from flowtorch.core.framework import user_op_attr_pb2 as _user_op_attr_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ScopeProto(_message.Message):
    __slots__ = ("job_desc_symbol_id", "device_parallel_desc_symbol_id", "host_parallel_desc_symbol_id", "enable_cpu_alternative_op", "opt_mirrored_parallel_conf", "scope_op_name_prefixes", "parent_scope_symbol_id", "session_id", "attr_name2attr_value", "calculation_pass_name")
    class AttrName2attrValueEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _user_op_attr_pb2.AttrValue
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[_user_op_attr_pb2.AttrValue, _Mapping]] = ...) -> None: ...
    JOB_DESC_SYMBOL_ID_FIELD_NUMBER: _ClassVar[int]
    DEVICE_PARALLEL_DESC_SYMBOL_ID_FIELD_NUMBER: _ClassVar[int]
    HOST_PARALLEL_DESC_SYMBOL_ID_FIELD_NUMBER: _ClassVar[int]
    ENABLE_CPU_ALTERNATIVE_OP_FIELD_NUMBER: _ClassVar[int]
    OPT_MIRRORED_PARALLEL_CONF_FIELD_NUMBER: _ClassVar[int]
    SCOPE_OP_NAME_PREFIXES_FIELD_NUMBER: _ClassVar[int]
    PARENT_SCOPE_SYMBOL_ID_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    ATTR_NAME2ATTR_VALUE_FIELD_NUMBER: _ClassVar[int]
    CALCULATION_PASS_NAME_FIELD_NUMBER: _ClassVar[int]
    job_desc_symbol_id: int
    device_parallel_desc_symbol_id: int
    host_parallel_desc_symbol_id: int
    enable_cpu_alternative_op: bool
    opt_mirrored_parallel_conf: _mirrored_parallel_pb2.OptMirroredParallel
    scope_op_name_prefixes: _containers.RepeatedScalarFieldContainer[str]
    parent_scope_symbol_id: int
    session_id: int
    attr_name2attr_value: _containers.MessageMap[str, _user_op_attr_pb2.AttrValue]
    calculation_pass_name: str
    def __init__(self, job_desc_symbol_id: _Optional[int] = ..., device_parallel_desc_symbol_id: _Optional[int] = ..., host_parallel_desc_symbol_id: _Optional[int] = ..., enable_cpu_alternative_op: bool = ..., opt_mirrored_parallel_conf: _Optional[_Union[_mirrored_parallel_pb2.OptMirroredParallel, _Mapping]] = ..., scope_op_name_prefixes: _Optional[_Iterable[str]] = ..., parent_scope_symbol_id: _Optional[int] = ..., session_id: _Optional[int] = ..., attr_name2attr_value: _Optional[_Mapping[str, _user_op_attr_pb2.AttrValue]] = ..., calculation_pass_name: _Optional[str] = ...) -> None: ...

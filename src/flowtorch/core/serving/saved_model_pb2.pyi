from flowtorch.core.operator import op_conf_pb2 as _op_conf_pb2
from flowtorch.core.job import job_conf_pb2 as _job_conf_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SavedModel(_message.Message):
    __slots__ = ("name", "version", "checkpoint_dir", "graphs", "default_graph_name")
    class GraphsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: GraphDef
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[GraphDef, _Mapping]] = ...) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    CHECKPOINT_DIR_FIELD_NUMBER: _ClassVar[int]
    GRAPHS_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_GRAPH_NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: int
    checkpoint_dir: str
    graphs: _containers.MessageMap[str, GraphDef]
    default_graph_name: str
    def __init__(self, name: _Optional[str] = ..., version: _Optional[int] = ..., checkpoint_dir: _Optional[str] = ..., graphs: _Optional[_Mapping[str, GraphDef]] = ..., default_graph_name: _Optional[str] = ...) -> None: ...

class GraphDef(_message.Message):
    __slots__ = ("op_list", "signatures", "default_signature_name")
    class SignaturesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _job_conf_pb2.JobSignatureDef
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[_job_conf_pb2.JobSignatureDef, _Mapping]] = ...) -> None: ...
    OP_LIST_FIELD_NUMBER: _ClassVar[int]
    SIGNATURES_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_SIGNATURE_NAME_FIELD_NUMBER: _ClassVar[int]
    op_list: _containers.RepeatedCompositeFieldContainer[_op_conf_pb2.OperatorConf]
    signatures: _containers.MessageMap[str, _job_conf_pb2.JobSignatureDef]
    default_signature_name: str
    def __init__(self, op_list: _Optional[_Iterable[_Union[_op_conf_pb2.OperatorConf, _Mapping]]] = ..., signatures: _Optional[_Mapping[str, _job_conf_pb2.JobSignatureDef]] = ..., default_signature_name: _Optional[str] = ...) -> None: ...

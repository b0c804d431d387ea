from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class IBVerbsMemDescProto(_message.Message):
    __slots__ = ("mem_ptr", "mr_rkey")
    MEM_PTR_FIELD_NUMBER: _ClassVar[int]
    MR_RKEY_FIELD_NUMBER: _ClassVar[int]
    mem_ptr: _containers.RepeatedScalarFieldContainer[int]
    mr_rkey: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, mem_ptr: _Optional[_Iterable[int]] = ..., mr_rkey: _Optional[_Iterable[int]] = ...) -> None: ...

class IBVerbsConnectionInfo(_message.Message):
    __slots__ = ("lid", "qp_num", "subnet_prefix", "interface_id")
    LID_FIELD_NUMBER: _ClassVar[int]
    QP_NUM_FIELD_NUMBER: _ClassVar[int]
    SUBNET_PREFIX_FIELD_NUMBER: _ClassVar[int]
    INTERFACE_ID_FIELD_NUMBER: _ClassVar[int]
    lid: int
    qp_num: int
    subnet_prefix: int
    interface_id: int
    def __init__(self, lid: _Optional[int] = ..., qp_num: _Optional[int] = ..., subnet_prefix: _Optional[int] = ..., interface_id: _Optional[int] = ...) -> None: ...

class IBVerbsTokensMsg(_message.Message):
    __slots__ = ("token2mem_desc",)
    class Token2memDescEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: int
        value: IBVerbsMemDescProto
        def __init__(self, key: _Optional[int] = ..., value: _Optional[_Union[IBVerbsMemDescProto, _Mapping]] = ...) -> None: ...
    TOKEN2MEM_DESC_FIELD_NUMBER: _ClassVar[int]
    token2mem_desc: _containers.MessageMap[int, IBVerbsMemDescProto]
    def __init__(self, token2mem_desc: _Optional[_Mapping[int, IBVerbsMemDescProto]] = ...) -> None: ...

from flowtorch.core.vm import instruction_pb2 as _instruction_pb2
from flowtorch.core.eager import eager_symbol_pb2 as _eager_symbol_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class EagerInstruction(_message.Message):
    __slots__ = ("instruction_list", "eager_symbol_list")
    INSTRUCTION_LIST_FIELD_NUMBER: _ClassVar[int]
    EAGER_SYMBOL_LIST_FIELD_NUMBER: _ClassVar[int]
    instruction_list: _instruction_pb2.InstructionListProto
    eager_symbol_list: _eager_symbol_pb2.EagerSymbolList
    def __init__(self, instruction_list: _Optional[_Union[_instruction_pb2.InstructionListProto, _Mapping]] = ..., eager_symbol_list: _Optional[_Union[_eager_symbol_pb2.EagerSymbolList, _Mapping]] = ...) -> None: ...

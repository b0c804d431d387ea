from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CurrentGlobalDeviceIdProto(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SoleMirroredObjectProto(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class AllMirroredObjectProto(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class OperandProto(_message.Message):
    __slots__ = ("logical_object_id", "current_global_device_id", "sole_mirrored_object", "all_mirrored_object")
    LOGICAL_OBJECT_ID_FIELD_NUMBER: _ClassVar[int]
    CURRENT_GLOBAL_DEVICE_ID_FIELD_NUMBER: _ClassVar[int]
    SOLE_MIRRORED_OBJECT_FIELD_NUMBER: _ClassVar[int]
    ALL_MIRRORED_OBJECT_FIELD_NUMBER: _ClassVar[int]
    logical_object_id: int
    current_global_device_id: CurrentGlobalDeviceIdProto
    sole_mirrored_object: SoleMirroredObjectProto
    all_mirrored_object: AllMirroredObjectProto
    def __init__(self, logical_object_id: _Optional[int] = ..., current_global_device_id: _Optional[_Union[CurrentGlobalDeviceIdProto, _Mapping]] = ..., sole_mirrored_object: _Optional[_Union[SoleMirroredObjectProto, _Mapping]] = ..., all_mirrored_object: _Optional[_Union[AllMirroredObjectProto, _Mapping]] = ...) -> None: ...

class OperandSeparatorProto(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class InstructionOperandProto(_message.Message):
    __slots__ = ("const_operand", "mut_operand", "mut2_operand", "del_operand", "symbol_operand", "init_symbol_operand", "separator", "double_operand", "int64_operand", "uint64_operand", "bool_operand")
    CONST_OPERAND_FIELD_NUMBER: _ClassVar[int]
    MUT_OPERAND_FIELD_NUMBER: _ClassVar[int]
    MUT2_OPERAND_FIELD_NUMBER: _ClassVar[int]
    DEL_OPERAND_FIELD_NUMBER: _ClassVar[int]
    SYMBOL_OPERAND_FIELD_NUMBER: _ClassVar[int]
    INIT_SYMBOL_OPERAND_FIELD_NUMBER: _ClassVar[int]
    SEPARATOR_FIELD_NUMBER: _ClassVar[int]
    DOUBLE_OPERAND_FIELD_NUMBER: _ClassVar[int]
    INT64_OPERAND_FIELD_NUMBER: _ClassVar[int]
    UINT64_OPERAND_FIELD_NUMBER: _ClassVar[int]
    BOOL_OPERAND_FIELD_NUMBER: _ClassVar[int]
    const_operand: OperandProto
    mut_operand: OperandProto
    mut2_operand: OperandProto
    del_operand: OperandProto
    symbol_operand: OperandProto
    init_symbol_operand: OperandProto
    separator: OperandSeparatorProto
    double_operand: float
    int64_operand: int
    uint64_operand: int
    bool_operand: bool
    def __init__(self, const_operand: _Optional[_Union[OperandProto, _Mapping]] = ..., mut_operand: _Optional[_Union[OperandProto, _Mapping]] = ..., mut2_operand: _Optional[_Union[OperandProto, _Mapping]] = ..., del_operand: _Optional[_Union[OperandProto, _Mapping]] = ..., symbol_operand: _Optional[_Union[OperandProto, _Mapping]] = ..., init_symbol_operand: _Optional[_Union[OperandProto, _Mapping]] = ..., separator: _Optional[_Union[OperandSeparatorProto, _Mapping]] = ..., double_operand: _Optional[float] = ..., int64_operand: _Optional[int] = ..., uint64_operand: _Optional[int] = ..., bool_operand: bool = ...) -> None: ...

class InstructionProto(_message.Message):
    __slots__ = ("instr_type_name", "parallel_desc_symbol_id", "operand")
    INSTR_TYPE_NAME_FIELD_NUMBER: _ClassVar[int]
    PARALLEL_DESC_SYMBOL_ID_FIELD_NUMBER: _ClassVar[int]
    OPERAND_FIELD_NUMBER: _ClassVar[int]
    instr_type_name: str
    parallel_desc_symbol_id: int
    operand: _containers.RepeatedCompositeFieldContainer[InstructionOperandProto]
    def __init__(self, instr_type_name: _Optional[str] = ..., parallel_desc_symbol_id: _Optional[int] = ..., operand: _Optional[_Iterable[_Union[InstructionOperandProto, _Mapping]]] = ...) -> None: ...

class InstructionListProto(_message.Message):
    __slots__ = ("instruction",)
    INSTRUCTION_FIELD_NUMBER: _ClassVar[int]
    instruction: _containers.RepeatedCompositeFieldContainer[InstructionProto]
    def __init__(self, instruction: _Optional[_Iterable[_Union[InstructionProto, _Mapping]]] = ...) -> None: ...

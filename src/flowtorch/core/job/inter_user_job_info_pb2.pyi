from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Mapping as _Mapping, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class InterUserJobInfo(_message.Message):
    __slots__ = ("input_or_var_op_name2push_job_name", "output_or_var_op_name2pull_job_name", "global_model_init_job_name", "global_model_load_job_name", "global_model_save_job_name")
    class InputOrVarOpName2pushJobNameEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    class OutputOrVarOpName2pullJobNameEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    INPUT_OR_VAR_OP_NAME2PUSH_JOB_NAME_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_OR_VAR_OP_NAME2PULL_JOB_NAME_FIELD_NUMBER: _ClassVar[int]
    GLOBAL_MODEL_INIT_JOB_NAME_FIELD_NUMBER: _ClassVar[int]
    GLOBAL_MODEL_LOAD_JOB_NAME_FIELD_NUMBER: _ClassVar[int]
    GLOBAL_MODEL_SAVE_JOB_NAME_FIELD_NUMBER: _ClassVar[int]
    input_or_var_op_name2push_job_name: _containers.ScalarMap[str, str]
    output_or_var_op_name2pull_job_name: _containers.ScalarMap[str, str]
    global_model_init_job_name: str
    global_model_load_job_name: str
    global_model_save_job_name: str
    def __init__(self, input_or_var_op_name2push_job_name: _Optional[_Mapping[str, str]] = ..., output_or_var_op_name2pull_job_name: _Optional[_Mapping[str, str]] = ..., global_model_init_job_name: _Optional[str] = ..., global_model_load_job_name: _Optional[str] = ..., global_model_save_job_name: _Optional[str] = ...) -> None: ...

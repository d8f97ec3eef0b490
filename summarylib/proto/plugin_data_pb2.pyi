from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class AudioPluginData(_message.Message):
    __slots__ = ("version", "encoding", "converted_to_tensor")
    class Encoding(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        UNKNOWN: _ClassVar[AudioPluginData.Encoding]
        WAV: _ClassVar[AudioPluginData.Encoding]
    UNKNOWN: AudioPluginData.Encoding
    WAV: AudioPluginData.Encoding
    VERSION_FIELD_NUMBER: _ClassVar[int]
    ENCODING_FIELD_NUMBER: _ClassVar[int]
    CONVERTED_TO_TENSOR_FIELD_NUMBER: _ClassVar[int]
    version: int
    encoding: AudioPluginData.Encoding
    converted_to_tensor: bool
    def __init__(self, version: _Optional[int] = ..., encoding: _Optional[_Union[AudioPluginData.Encoding, str]] = ..., converted_to_tensor: bool = ...) -> None: ...

class TextPluginData(_message.Message):
    __slots__ = ("version",)
    VERSION_FIELD_NUMBER: _ClassVar[int]
    version: int
    def __init__(self, version: _Optional[int] = ...) -> None: ...

class PrCurvePluginData(_message.Message):
    __slots__ = ("version", "num_thresholds")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    NUM_THRESHOLDS_FIELD_NUMBER: _ClassVar[int]
    version: int
    num_thresholds: int
    def __init__(self, version: _Optional[int] = ..., num_thresholds: _Optional[int] = ...) -> None: ...

from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class MeshPluginData(_message.Message):
    __slots__ = ("version", "name", "content_type", "json_config", "shape", "components")
    class ContentType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        UNDEFINED: _ClassVar[MeshPluginData.ContentType]
        VERTEX: _ClassVar[MeshPluginData.ContentType]
        FACE: _ClassVar[MeshPluginData.ContentType]
        COLOR: _ClassVar[MeshPluginData.ContentType]
    UNDEFINED: MeshPluginData.ContentType
    VERTEX: MeshPluginData.ContentType
    FACE: MeshPluginData.ContentType
    COLOR: MeshPluginData.ContentType
    VERSION_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    CONTENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    JSON_CONFIG_FIELD_NUMBER: _ClassVar[int]
    SHAPE_FIELD_NUMBER: _ClassVar[int]
    COMPONENTS_FIELD_NUMBER: _ClassVar[int]
    version: int
    name: str
    content_type: MeshPluginData.ContentType
    json_config: str
    shape: _containers.RepeatedScalarFieldContainer[int]
    components: int
    def __init__(self, version: _Optional[int] = ..., name: _Optional[str] = ..., content_type: _Optional[_Union[MeshPluginData.ContentType, str]] = ..., json_config: _Optional[str] = ..., shape: _Optional[_Iterable[int]] = ..., components: _Optional[int] = ...) -> None: ...

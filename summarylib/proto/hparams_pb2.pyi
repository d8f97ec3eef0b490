from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class HParamDataType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DATA_TYPE_UNSET: _ClassVar[HParamDataType]
    DATA_TYPE_STRING: _ClassVar[HParamDataType]
    DATA_TYPE_BOOL: _ClassVar[HParamDataType]
    DATA_TYPE_FLOAT64: _ClassVar[HParamDataType]

class DatasetType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DATASET_UNKNOWN: _ClassVar[DatasetType]
    DATASET_TRAINING: _ClassVar[DatasetType]
    DATASET_VALIDATION: _ClassVar[DatasetType]

class Status(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    STATUS_UNKNOWN: _ClassVar[Status]
    STATUS_SUCCESS: _ClassVar[Status]
    STATUS_FAILURE: _ClassVar[Status]
    STATUS_RUNNING: _ClassVar[Status]
DATA_TYPE_UNSET: HParamDataType
DATA_TYPE_STRING: HParamDataType
DATA_TYPE_BOOL: HParamDataType
DATA_TYPE_FLOAT64: HParamDataType
DATASET_UNKNOWN: DatasetType
DATASET_TRAINING: DatasetType
DATASET_VALIDATION: DatasetType
STATUS_UNKNOWN: Status
STATUS_SUCCESS: Status
STATUS_FAILURE: Status
STATUS_RUNNING: Status

class HParamValue(_message.Message):
    __slots__ = ("number_value", "string_value", "bool_value")
    NUMBER_VALUE_FIELD_NUMBER: _ClassVar[int]
    STRING_VALUE_FIELD_NUMBER: _ClassVar[int]
    BOOL_VALUE_FIELD_NUMBER: _ClassVar[int]
    number_value: float
    string_value: str
    bool_value: bool
    def __init__(self, number_value: _Optional[float] = ..., string_value: _Optional[str] = ..., bool_value: bool = ...) -> None: ...

class HParamValueList(_message.Message):
    __slots__ = ("values",)
    VALUES_FIELD_NUMBER: _ClassVar[int]
    values: _containers.RepeatedCompositeFieldContainer[HParamValue]
    def __init__(self, values: _Optional[_Iterable[_Union[HParamValue, _Mapping]]] = ...) -> None: ...

class Experiment(_message.Message):
    __slots__ = ("name", "description", "user", "time_created_secs", "hparam_infos", "metric_infos")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    USER_FIELD_NUMBER: _ClassVar[int]
    TIME_CREATED_SECS_FIELD_NUMBER: _ClassVar[int]
    HPARAM_INFOS_FIELD_NUMBER: _ClassVar[int]
    METRIC_INFOS_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    user: str
    time_created_secs: float
    hparam_infos: _containers.RepeatedCompositeFieldContainer[HParamInfo]
    metric_infos: _containers.RepeatedCompositeFieldContainer[MetricInfo]
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., user: _Optional[str] = ..., time_created_secs: _Optional[float] = ..., hparam_infos: _Optional[_Iterable[_Union[HParamInfo, _Mapping]]] = ..., metric_infos: _Optional[_Iterable[_Union[MetricInfo, _Mapping]]] = ...) -> None: ...

class HParamInfo(_message.Message):
    __slots__ = ("name", "display_name", "description", "type", "domain_discrete", "domain_interval", "differs")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    DOMAIN_DISCRETE_FIELD_NUMBER: _ClassVar[int]
    DOMAIN_INTERVAL_FIELD_NUMBER: _ClassVar[int]
    DIFFERS_FIELD_NUMBER: _ClassVar[int]
    name: str
    display_name: str
    description: str
    type: HParamDataType
    domain_discrete: HParamValueList
    domain_interval: Interval
    differs: bool
    def __init__(self, name: _Optional[str] = ..., display_name: _Optional[str] = ..., description: _Optional[str] = ..., type: _Optional[_Union[HParamDataType, str]] = ..., domain_discrete: _Optional[_Union[HParamValueList, _Mapping]] = ..., domain_interval: _Optional[_Union[Interval, _Mapping]] = ..., differs: bool = ...) -> None: ...

class Interval(_message.Message):
    __slots__ = ("min_value", "max_value")
    MIN_VALUE_FIELD_NUMBER: _ClassVar[int]
    MAX_VALUE_FIELD_NUMBER: _ClassVar[int]
    min_value: float
    max_value: float
    def __init__(self, min_value: _Optional[float] = ..., max_value: _Optional[float] = ...) -> None: ...

class MetricName(_message.Message):
    __slots__ = ("group", "tag")
    GROUP_FIELD_NUMBER: _ClassVar[int]
    TAG_FIELD_NUMBER: _ClassVar[int]
    group: str
    tag: str
    def __init__(self, group: _Optional[str] = ..., tag: _Optional[str] = ...) -> None: ...

class MetricInfo(_message.Message):
    __slots__ = ("name", "display_name", "description", "dataset_type")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    DATASET_TYPE_FIELD_NUMBER: _ClassVar[int]
    name: MetricName
    display_name: str
    description: str
    dataset_type: DatasetType
    def __init__(self, name: _Optional[_Union[MetricName, _Mapping]] = ..., display_name: _Optional[str] = ..., description: _Optional[str] = ..., dataset_type: _Optional[_Union[DatasetType, str]] = ...) -> None: ...

class HParamsPluginData(_message.Message):
    __slots__ = ("version", "experiment", "session_start_info", "session_end_info")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    EXPERIMENT_FIELD_NUMBER: _ClassVar[int]
    SESSION_START_INFO_FIELD_NUMBER: _ClassVar[int]
    SESSION_END_INFO_FIELD_NUMBER: _ClassVar[int]
    version: int
    experiment: Experiment
    session_start_info: SessionStartInfo
    session_end_info: SessionEndInfo
    def __init__(self, version: _Optional[int] = ..., experiment: _Optional[_Union[Experiment, _Mapping]] = ..., session_start_info: _Optional[_Union[SessionStartInfo, _Mapping]] = ..., session_end_info: _Optional[_Union[SessionEndInfo, _Mapping]] = ...) -> None: ...

class SessionStartInfo(_message.Message):
    __slots__ = ("hparams", "model_uri", "monitor_url", "group_name", "start_time_secs")
    class HparamsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: HParamValue
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[HParamValue, _Mapping]] = ...) -> None: ...
    HPARAMS_FIELD_NUMBER: _ClassVar[int]
    MODEL_URI_FIELD_NUMBER: _ClassVar[int]
    MONITOR_URL_FIELD_NUMBER: _ClassVar[int]
    GROUP_NAME_FIELD_NUMBER: _ClassVar[int]
    START_TIME_SECS_FIELD_NUMBER: _ClassVar[int]
    hparams: _containers.MessageMap[str, HParamValue]
    model_uri: str
    monitor_url: str
    group_name: str
    start_time_secs: float
    def __init__(self, hparams: _Optional[_Mapping[str, HParamValue]] = ..., model_uri: _Optional[str] = ..., monitor_url: _Optional[str] = ..., group_name: _Optional[str] = ..., start_time_secs: _Optional[float] = ...) -> None: ...

class SessionEndInfo(_message.Message):
    __slots__ = ("status", "end_time_secs")
    STATUS_FIELD_NUMBER: _ClassVar[int]
    END_TIME_SECS_FIELD_NUMBER: _ClassVar[int]
    status: Status
    end_time_secs: float
    def __init__(self, status: _Optional[_Union[Status, str]] = ..., end_time_secs: _Optional[float] = ...) -> None: ...

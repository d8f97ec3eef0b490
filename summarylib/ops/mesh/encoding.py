"""The mesh op's encoding: tensors for TensorBoard's mesh (3D) dashboard.

As TensorBoard's `mesh` summary writes a mesh: one summary per component the mesh has,
vertices (`[b, n, 3]` float32 coordinates), faces (`[b, f, 3]` int32 vertex indices of
triangles) and colors (`[b, n, 3]` uint8 RGB, one a vertex), tagged `<name>_VERTEX`,
`<name>_FACE` and `<name>_COLOR`, each with metadata naming the `mesh` plugin whose
content, a MeshPluginData, holds the mesh's name, the component's type and shape, the
bitmask of the components present (`1 << content type` each) and the three.js scene
configuration as JSON (`json.dumps(config_dict, sort_keys=True)`, `{}` without one). The
dashboard regroups the components by that name; `b` is the number of samples.

Components are cast to float32, int32 and uint8 as `mesh_pb` casts them (TensorBoard's
graph-mode `mesh` writes the tensors in the dtype they come in, which the dashboard then
casts when it serves them). Where summarylib checks more than TensorBoard: faces and
colors must have the vertices' number of samples, colors one a vertex, face indices
must name vertices (0 to n - 1) and colors must be integers 0 to 255, since the
dashboard would otherwise draw nothing or garbage.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from summarylib.format.tensor import make_tensor_proto
from summarylib.ops.convert import as_real_array
from summarylib.ops.errors import check_description, op_error
from summarylib.ops.summary import summary_bytes
from summarylib.proto import mesh_pb2, summary_pb2, tensor_pb2

PLUGIN_NAME = "mesh"
VERSION = 0

ContentType = mesh_pb2.MeshPluginData.ContentType
VERTEX = mesh_pb2.MeshPluginData.VERTEX
FACE = mesh_pb2.MeshPluginData.FACE
COLOR = mesh_pb2.MeshPluginData.COLOR

_OP = "mesh"
_DTYPES = {VERTEX: np.float32, FACE: np.int32, COLOR: np.uint8}


def components_bitmask(content_types: list[int]) -> int:
    """The MeshPluginData `components` of a mesh with these components: `1 << type` each."""
    mask = 0
    for content_type in content_types:
        mask |= 1 << content_type
    return mask


def instance_tag(name: str, content_type: int) -> str:
    """The tag of one component's summary: `<name>_<VERTEX|FACE|COLOR>`."""
    return f"{name}_{ContentType.Name(content_type)}"


def json_config(config_dict: Any, tag: str = "") -> str:
    """The scene configuration as TensorBoard stores it: sorted-key JSON, `{}` for None."""
    if config_dict is None:
        return "{}"
    if not isinstance(config_dict, dict):
        raise op_error(
            TypeError, _OP, tag, "config_dict", f"expected a dict or None, got {type(config_dict).__name__}"
        )
    try:
        return json.dumps(config_dict, sort_keys=True)
    except (TypeError, ValueError) as error:
        raise op_error(TypeError, _OP, tag, "config_dict", f"cannot be written as JSON ({error})") from None


def create_metadata(
    name: str,
    content_type: mesh_pb2.MeshPluginData.ContentType,
    components: int,
    shape: tuple[int, ...] | list[int],
    description: str | None = None,
    config: str = "{}",
) -> summary_pb2.SummaryMetadata:
    """The mesh plugin's metadata of one component's summary (`config`: JSON text)."""
    content = mesh_pb2.MeshPluginData(
        version=VERSION,
        name=name,
        content_type=content_type,
        components=components,
        shape=list(shape),
        json_config=config,
    )
    metadata = summary_pb2.SummaryMetadata(summary_description=description or "")
    metadata.plugin_data.plugin_name = PLUGIN_NAME
    metadata.plugin_data.content = content.SerializeToString()
    return metadata


def prepare(
    tag: str, vertices: Any, faces: Any, colors: Any, config_dict: Any, description: str | None
) -> list[tuple[str, np.ndarray, bytes]]:
    """Validate on the caller's thread; cast each component to its dtype (a private copy).

    Returns one `(instance_tag, array, serialized metadata)` a component, in the order
    vertices, faces, colors, each the arguments of `summary`.
    """
    check_description(_OP, tag, description)
    config = json_config(config_dict, tag)
    points = _component(tag, "vertices", vertices, "fiu", ("b", "n"))
    samples, count = points.shape[:2]
    parts = {VERTEX: points.astype(np.float32)}
    if faces is not None:
        triangles = _component(tag, "faces", faces, "iu", (samples, "f"))
        if triangles.size and (triangles.min() < 0 or triangles.max() >= count):
            raise op_error(
                ValueError,
                _OP,
                tag,
                "faces",
                f"expected vertex indices 0 to {count - 1}, got {triangles.min()} to {triangles.max()}",
            )
        parts[FACE] = triangles.astype(np.int32)
    if colors is not None:
        rgb = _component(tag, "colors", colors, "iu", (samples, count))
        if rgb.size and (rgb.min() < 0 or rgb.max() > 255):
            raise op_error(
                ValueError, _OP, tag, "colors", f"expected values 0 to 255, got {rgb.min()} to {rgb.max()}"
            )
        parts[COLOR] = rgb.astype(np.uint8)
    components = components_bitmask(list(parts))
    return [
        (
            instance_tag(tag, content_type),
            array,
            create_metadata(
                tag, content_type, components, array.shape, description, config
            ).SerializeToString(),
        )
        for content_type, array in parts.items()
    ]


def _component(
    tag: str, argument: str, data: Any, kinds: str, expected: tuple[int | str, int | str]
) -> np.ndarray:
    """`data` as a `[b, m, 3]` array of a dtype kind in `kinds`; `expected` names `b` and
    `m`, or gives them where they must match the vertices'."""
    array = as_real_array(_OP, tag, argument, data)
    if array.dtype.kind not in kinds:
        wanted = "real numbers" if "f" in kinds else "integers"
        raise op_error(TypeError, _OP, tag, argument, f"expected {wanted}, got dtype {array.dtype}")
    shape = list(array.shape)
    if (
        array.ndim != 3
        or shape[2] != 3
        or any(isinstance(want, int) and got != want for want, got in zip(expected, shape[:2], strict=True))
    ):
        raise op_error(
            ValueError,
            _OP,
            tag,
            argument,
            f"expected shape [{expected[0]}, {expected[1]}, 3], got shape {shape}",
        )
    return array


def summary(tag: str, array: np.ndarray, metadata: bytes) -> bytes:
    """The serialized Summary of one prepared component (on the writer's thread)."""
    return summary_bytes(tag, make_tensor_proto(array), summary_pb2.SummaryMetadata.FromString(metadata))


def encode(
    tag: str,
    vertices: Any,
    faces: Any = None,
    colors: Any = None,
    config_dict: Any = None,
    description: str | None = None,
) -> list[tuple[str, tensor_pb2.TensorProto, summary_pb2.SummaryMetadata]]:
    """The `(tag, tensor, metadata)` of each component TensorBoard's `mesh_pb(tag, ...)`
    writes, without I/O."""
    return [
        (name, make_tensor_proto(array), summary_pb2.SummaryMetadata.FromString(metadata))
        for name, array, metadata in prepare(tag, vertices, faces, colors, config_dict, description)
    ]

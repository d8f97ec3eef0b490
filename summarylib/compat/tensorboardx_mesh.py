"""tensorboardX's `add_mesh` record: the mesh plugin's components as tensorboardX writes
them, where torch's writer (and TensorBoard's own `mesh` summary) differ.

tensorboardX writes one event whose Summary holds the vertices, faces and colors given,
in that order, each under `<tag>_<content type number>` (`_1`, `_2`, `_3`, where torch
writes `_VERTEX`, `_FACE`, `_COLOR`), each a `DT_FLOAT` tensor in `float_val` (faces and
colors too), with the plugin data's version, name, content type, JSON config and shape
but no `components` bitmask. TensorBoard's mesh dashboard reads both.
"""

from __future__ import annotations

import numpy as np

from summarylib.proto import mesh_pb2, summary_pb2, tensor_pb2, tensor_shape_pb2, types_pb2


def mesh_summary(tag: str, parts: list[tuple[str, np.ndarray, bytes]], configured: bool) -> bytes:
    """The serialized Summary tensorboardX writes of the components `parts` (as
    `ops.mesh.encoding.prepare` makes them: instance tag, array, serialized metadata);
    without a config dict (`configured` false) its JSON config is `null`, as tensorboardX
    dumps None. Made on the writer's thread."""
    values = []
    for _, array, serialized_metadata in parts:
        metadata = summary_pb2.SummaryMetadata.FromString(serialized_metadata)
        plugin_data = mesh_pb2.MeshPluginData.FromString(metadata.plugin_data.content)
        plugin_data.ClearField("components")
        if not configured:
            plugin_data.json_config = "null"
        metadata.plugin_data.content = plugin_data.SerializeToString()
        tensor = tensor_pb2.TensorProto(
            dtype=types_pb2.DT_FLOAT,
            tensor_shape=tensor_shape_pb2.TensorShapeProto(
                dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=size) for size in array.shape]
            ),
            float_val=array.astype(np.float32).reshape(-1).tolist(),
        )
        values.append(
            summary_pb2.Summary.Value(
                tag=f"{tag}_{plugin_data.content_type}", tensor=tensor, metadata=metadata
            )
        )
    return summary_pb2.Summary(value=values).SerializeToString()

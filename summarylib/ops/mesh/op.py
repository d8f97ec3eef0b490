"""The mesh op bound to the default writer: a 3D mesh or point cloud for TensorBoard's
mesh dashboard."""

from __future__ import annotations

from typing import Any

from summarylib.ops.errors import check_name
from summarylib.ops.mesh import encoding as mesh_encoding
from summarylib.writer.context import resolve_step
from summarylib.writer.queue import queue_summary, recording_writer


def mesh(
    name: str,
    vertices: Any,
    faces: Any = None,
    colors: Any = None,
    config_dict: dict | None = None,
    step: Any = None,
    description: str | None = None,
) -> bool:
    """Write a mesh (or, without faces, a point cloud), as TensorBoard's `mesh` summary does.

    `vertices` are `[b, n, 3]` coordinates (b samples of n points), `faces` `[b, f, 3]`
    vertex indices of triangles, `colors` `[b, n, 3]` RGB values 0 to 255, one a vertex;
    `config_dict` configures the three.js scene (camera, lights, material). Each
    component is one summary, tagged `<name>_VERTEX`, `<name>_FACE`, `<name>_COLOR`, at
    the same step (see summarylib.ops.mesh.encoding). Returns False, without looking at the data,
    when there is no default writer or recording is off.
    """
    writer = recording_writer()
    if writer is None:
        return False
    tag = check_name("mesh", name)
    parts = mesh_encoding.prepare(tag, vertices, faces, colors, config_dict, description)
    step = resolve_step("mesh", tag, step)
    for part in parts:
        queue_summary(writer, "mesh", tag, step, mesh_encoding.summary, part)
    return True

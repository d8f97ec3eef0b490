"""What the records of an event file mean: summary values as plain Python and numpy.

Two halves. `decode_value` turns one `Summary.Value` into plain data, whatever wrote it: the
v2 tensor encodings of TensorBoard's plugins and the legacy v1 fields (`simple_value`,
`histo`, `image`, `audio`), which TensorBoard migrates to the same plugins; `value_problem`
says why a forged or damaged one cannot be decoded, without decoding it.

`decode_records` turns the records of a stretch of a file into `Rows`, one per summary value,
and is the reader's hot path. A protobuf message per event costs microseconds, so scalar
events are recognized at the byte level instead: records of one length whose bytes agree
everywhere except in the wall time, step and value of one parsed example (a "scalar shape")
have the example's structure, so those three fields are read for all of them at once with
numpy. Every other record is parsed with protobuf; both paths give the same values.

This module is the public face of decoding: the code lives in the `summarylib.reading`
package (plugins, tensors, values; scalar_shapes, scalar_matching; rows, row_assembly).
"""

from __future__ import annotations

from summarylib.reading.plugins import (
    DATA_KINDS,
    LEGACY_PLUGINS,
    TENSORBOARD_PLUGINS,
    layout_problem,
    plugin_claim,
    plugin_problem,
)
from summarylib.reading.row_assembly import decode_records
from summarylib.reading.rows import Filters, Names, Rows, RunState
from summarylib.reading.scalar_matching import match_scalars
from summarylib.reading.scalar_shapes import ScalarShape, scalar_shape
from summarylib.reading.tensors import dtype_name, tensor_array, tensor_problem, tensor_shape
from summarylib.reading.values import (
    PR_CURVE_ROWS,
    Audio,
    Images,
    PrCurve,
    decode_tensor,
    decode_value,
    legacy_histogram,
    value_problem,
    value_type,
)

__all__ = [
    "DATA_KINDS",
    "LEGACY_PLUGINS",
    "PR_CURVE_ROWS",
    "TENSORBOARD_PLUGINS",
    "Audio",
    "Filters",
    "Images",
    "Names",
    "PrCurve",
    "Rows",
    "RunState",
    "ScalarShape",
    "decode_records",
    "decode_tensor",
    "decode_value",
    "dtype_name",
    "layout_problem",
    "legacy_histogram",
    "match_scalars",
    "plugin_claim",
    "plugin_problem",
    "scalar_shape",
    "tensor_array",
    "tensor_problem",
    "tensor_shape",
    "value_problem",
    "value_type",
]

"""What a summary value means, as plain Python and numpy, whatever wrote it:

    from summarylib.decoding import decode_value, plugin_claim
    for event in summarylib.reader.iter_events(path):
        for value in event.summary.value:
            print(value.tag, decode_value(value, plugin_claim(value) or ""))

`decode_value` turns one `Summary.Value` into plain data: the v2 tensor encodings of
TensorBoard's plugins and the legacy v1 fields (`simple_value`, `histo`, `image`, `audio`),
which TensorBoard migrates to the same plugins; `value_problem` says why a forged or damaged
one cannot be decoded, without decoding it. `plugin_claim` is the plugin a value names for
its tag (TensorBoard keeps the first claim of a tag, which `summarylib.reader` does for you).
`decode_tensor`, `tensor_array` and `legacy_histogram` decode the protos inside a value;
`tensor_problem` says why `tensor_array` cannot.

This module is the public face of decoding: the code lives in the `summarylib.reading`
package (plugins, tensors, values), which also holds the reader's byte-level scalar path
(scalar_shapes, scalar_matching, row_assembly).
"""

from __future__ import annotations

from summarylib.reading.plugins import plugin_claim
from summarylib.reading.tensors import tensor_array, tensor_problem
from summarylib.reading.values import (
    PR_CURVE_ROWS,
    Audio,
    Images,
    PrCurve,
    decode_tensor,
    decode_value,
    legacy_histogram,
    value_problem,
)

__all__ = [
    "PR_CURVE_ROWS",
    "Audio",
    "Images",
    "PrCurve",
    "decode_tensor",
    "decode_value",
    "legacy_histogram",
    "plugin_claim",
    "tensor_array",
    "tensor_problem",
    "value_problem",
]

"""The ops: one folder per kind of summary (`scalar/`, `image/`, `audio/`, `histogram/`,
`text/`, `pr_curve/`, `tensor/`, `hparams/`, `custom_scalars/`, `embedding/`, `graph/`,
`mesh/`), each with the public op bound to the default writer (`op.py`) and what makes its
bytes (`encoding.py`); beside them the helpers they share (`convert.py`, `errors.py`,
`summary.py`, `batch.py`, `prepared.py`) and the watch's image layout (`tensor_grid.py`).

The ops' layer sits on the writer: ops may import the writer, format, checks and the
protos, never the reader's side (reading, reader, decoding) or the surfaces above them
(compat, integrations, inspect, migrate). Inside it, a kind imports no other kind's folder
(embedding's sprite and tensor_grid use image's PNG encoder), and the shared helpers no
kind: pyproject's import-linter contracts check both (tests/test_layers.py)."""

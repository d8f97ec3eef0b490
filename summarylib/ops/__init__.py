"""The ops: one folder per kind of summary (`scalar/`, `image/`, `audio/`, `histogram/`,
`text/`, `pr_curve/`, `tensor/`, `hparams/`, `custom_scalars/`, `embedding/`, `graph/`,
`mesh/`), each with the public op bound to the default writer (`op.py`) and what makes its
bytes (`encoding.py`); beside them the helpers they share (`convert.py`, `errors.py`,
`summary.py`, `batch.py`, `prepared.py`) and the watch's image layout (`tensor_grid.py`).
Ops may import the format layer, the writer and the protos, never the reader or the
surfaces above them (compat, integrations)."""

"""Other libraries' summary APIs on summarylib, each a drop-in: `compat.v1` (TF 1.x: ops
returning Summary protos, merge_all, FileWriter; v1.py, v1_file_writer.py), `compat.contrib`
(tf.contrib.summary: global step, recording off by default), `compat.torch`
(torch.utils.tensorboard's SummaryWriter) and `compat.tensorboardX`. They write the legacy
value encodings TF 1.x wrote (legacy_values.py, legacy_scalar.py, legacy_histogram.py),
through the same input conversion, PNG/WAV encoders and writer as the v2 ops.

A surface, on top of the layers: it may import the ops, the writer, the reader, format,
checks and the protos, and integrations.torch (add_graph's tracer); nothing below it
imports it."""

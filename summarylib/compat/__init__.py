"""Older summary APIs on summarylib: `compat.v1` (TF 1.x: ops returning Summary protos,
merge_all, FileWriter) and `compat.contrib` (tf.contrib.summary: global step, recording
off by default). Both write the legacy value encodings TF 1.x wrote, through the same
input conversion, PNG/WAV encoders and writer as the v2 ops."""

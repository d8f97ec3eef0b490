"""The facts of TensorBoard's files that both the writer and the reader use.

The TFRecord framing and its checksums, the protobuf wire format of events and
summaries, the dtypes of TensorProto and where the files live. This layer belongs to
neither side: it imports nothing of summarylib but `summarylib.proto`, and the writer,
the ops and the reader all import it.
"""

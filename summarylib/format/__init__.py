"""The facts of TensorBoard's files that both the writer and the reader use.

records (TFRecord framing and its masked CRC32C), batch_crc (the CRC32C of many records
of one length at once, with numpy), wire (the protobuf wire format of events and
summaries, as the hand-laid bytes need it), tensor (numpy dtypes <-> TensorProto) and
storage (where runs live: local paths and fsspec URLs), and live_control (the Live
dashboard's control file, which a dashboard writes and a watch reads). This layer belongs to neither
side: it imports nothing of summarylib but `summarylib.proto`, and the writer, the ops
and the reader all import it.
"""

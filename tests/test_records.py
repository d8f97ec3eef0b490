"""TFRecord framing: the published test vectors, and the layout every reader expects."""

from __future__ import annotations

import struct

from hypothesis import given
from hypothesis import strategies as st

from summarylib.format import records


def test_crc32c_test_vector():
    assert records.crc32c(b"123456789") == 0xE3069283


def test_masked_crc_of_empty_payload():
    assert records.masked_crc32c(b"") == 0xA282EAD8


@given(st.binary(max_size=5000))
def test_frame_layout(payload):
    record = records.frame(payload)
    assert len(record) == records.HEADER_SIZE + len(payload) + records.FOOTER_SIZE
    length, header_ok = records.parse_header(record[: records.HEADER_SIZE])
    assert header_ok and length == len(payload)
    assert struct.unpack("<Q", record[:8])[0] == len(payload)
    assert record[records.HEADER_SIZE : -records.FOOTER_SIZE] == payload
    assert records.footer_matches(payload, record[-records.FOOTER_SIZE :])


@given(st.binary(min_size=1, max_size=200), st.data())
def test_any_flipped_bit_is_detected(payload, data):
    record = bytearray(records.frame(payload))
    bit = data.draw(st.integers(0, len(record) * 8 - 1))
    record[bit // 8] ^= 1 << (bit % 8)
    length, header_ok = records.parse_header(bytes(record[: records.HEADER_SIZE]))
    body_ok = records.footer_matches(
        bytes(record[records.HEADER_SIZE : -records.FOOTER_SIZE]), bytes(record[-records.FOOTER_SIZE :])
    )
    assert not (header_ok and body_ok and length == len(payload))


def test_tensorboard_reads_our_records(tmp_path):
    from tensorboard.compat.tensorflow_stub import errors
    from tensorboard.compat.tensorflow_stub.pywrap_tensorflow import PyRecordReader_New

    path = tmp_path / "records"
    payloads = [b"", b"a", b"x" * 100_000]
    path.write_bytes(b"".join(records.frame(p) for p in payloads))
    reader = PyRecordReader_New(str(path).encode())
    seen = []
    while True:
        try:
            reader.GetNext()
        except errors.OutOfRangeError:
            break
        seen.append(reader.record())
    assert seen == payloads

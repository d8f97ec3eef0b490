"""Forged event files for the reader, by hypothesis: valid records interleaved with damage (bad
CRCs, forged lengths up to 2**64 - 1, truncated records, zero runs, random bytes), CRC-valid
records that are no Event, and Events whose values are hostile (negative, huge and overflowing
shapes, unknown dtypes, wrong-size tensor_content, contents that do not fit their plugin, NaN,
wall times that are no time).

The contract, for each forged file:
- `iter_values(..., tolerant=True)` returns every value of every valid record and every
  decodable value of a hostile Event, in file order, and reports one problem at the start of
  each run of adjacent damage (a run is skipped whole: reading resyncs at the next record whose
  length and payload both pass their CRCs), one per record that is no Event and one per value
  that cannot be decoded;
- it allocates no more than a small multiple of the file's size (tracemalloc: 64 times the
  file, plus 2 MiB for the interpreter's own);
- without CRC checks (`check_crc=False`), damage reads as whatever it parses as, and reading
  still never raises;
- `load_table` returns the same rows, and `inspect` reports the same problems without raising;
- strict reading raises only `CorruptRecordError`, and a strict `Reader` raises once per
  corruption and then hands out exactly what tolerant reading does;
- a tolerant `Reader` following the file as it grows (cut anywhere: in a record, in damage, in
  the record written right after damage) hands out exactly what one-shot reading does: past
  damage with no valid record after it yet, reading resumes at the first record header whose
  record runs past the end (one being written), else within the last 11 bytes.
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import struct
import tracemalloc
from dataclasses import dataclass, field

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from summarylib import inspect
from summarylib.format import records
from summarylib.proto import event_pb2, histogram_pb2, summary_pb2, tensor_pb2, types_pb2
from summarylib.reader import CORRUPT, CorruptRecordError, Reader, iter_values, load_table
from tests.event_files import metadata

# Examples in proportion to the profile's (tests/conftest.py: "long" by SUMMARYLIB_HYPOTHESIS=long
# gets 20 times more): about 12-15 s of CI for the two properties.
EXAMPLES = settings(max_examples=settings.default.max_examples * 4)
FOLLOWING_EXAMPLES = settings(max_examples=settings.default.max_examples * 3)
UNKNOWN_DTYPES = [0, 11, 12, 13, 15, 16, 20, 21, 24, 100, 999]


@dataclass
class Segment:
    """Bytes of a forged file, and what reading them must give: `values` as (tag, step),
    `problems` reported at the segment's offset, and whether it is framing damage."""

    data: bytes
    values: list[tuple[str, int]] = field(default_factory=list)
    problems: int = 0
    damage: bool = False
    missing: bytes = b""  # of a record cut short: the bytes that would make it whole


def tensor(dtype: int, shape: list[int], **fields) -> tensor_pb2.TensorProto:
    return tensor_pb2.TensorProto(dtype=dtype, tensor_shape={"dim": [{"size": s} for s in shape]}, **fields)


def value(tag: str, plugin: str | None, proto: tensor_pb2.TensorProto) -> summary_pb2.Summary.Value:
    meta = metadata(plugin) if plugin is not None else None
    return summary_pb2.Summary.Value(tag=tag, metadata=meta, tensor=proto)


def strings(*items: bytes) -> list[bytes]:
    return list(items)


floats = st.floats(width=32, allow_nan=True, allow_infinity=True)


@st.composite
def good_values(draw) -> summary_pb2.Summary.Value:
    """A summary value that any reader can decode, of one of TensorBoard's plugins."""
    kind = draw(
        st.sampled_from(["scalar", "simple", "histogram", "legacy", "text", "image", "audio", "pr", "filled"])
    )
    if kind == "scalar":
        content = struct.pack("<f", draw(floats))
        return value(
            f"scalar/{draw(st.integers(0, 2))}",
            "scalars",
            tensor(types_pb2.DT_FLOAT, [], tensor_content=content),
        )
    if kind == "simple":
        return summary_pb2.Summary.Value(tag="simple", simple_value=draw(floats))
    if kind == "histogram":
        k = draw(st.integers(0, 4))
        content = struct.pack(f"<{3 * k}d", *draw(st.lists(st.floats(), min_size=3 * k, max_size=3 * k)))
        return value("histogram", "histograms", tensor(types_pb2.DT_DOUBLE, [k, 3], tensor_content=content))
    if kind == "legacy":
        counts = draw(st.lists(st.floats(0, 100), max_size=5))
        histo = histogram_pb2.HistogramProto(
            min=0, max=10, num=len(counts), bucket_limit=[float(i) for i in range(len(counts))], bucket=counts
        )
        return summary_pb2.Summary.Value(tag="legacy", histo=histo)
    if kind == "text":
        text = draw(st.text(max_size=20)).encode()
        return value("text", "text", tensor(types_pb2.DT_STRING, [], string_val=[text]))
    if kind == "image":
        return value(
            "image", "images", tensor(types_pb2.DT_STRING, [3], string_val=strings(b"4", b"3", b"\x89PNG"))
        )
    if kind == "audio":
        return value(
            "audio", "audio", tensor(types_pb2.DT_STRING, [1, 2], string_val=strings(b"RIFF", b"label"))
        )
    if kind == "pr":
        n = draw(st.integers(1, 3))
        return value("pr", "pr_curves", tensor(types_pb2.DT_FLOAT, [6, n], float_val=[0.5] * (6 * n)))
    shape = draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))  # filled with its last value
    return value(
        "filled",
        None,
        tensor(
            types_pb2.DT_INT64,
            shape,
            int64_val=draw(st.lists(st.integers(-9, 9), max_size=min(2, math.prod(shape)))),
        ),
    )


@st.composite
def hostile_values(draw) -> tuple[summary_pb2.Summary.Value, bool]:
    """A summary value of a forged file, and whether it cannot be decoded (else it is returned:
    as the plugin's data, or as a plain array when it does not fit the plugin's layout)."""
    kind = draw(
        st.sampled_from(
            [
                "negative", "huge", "overflow", "dimensions", "dtype", "content", "many", "complex",
                "image sizes", "histo limits", "misfit", "long text", "nan",
            ]
        )
    )  # fmt: skip
    tag = f"bad/{kind}"
    if kind == "negative":
        shape = draw(st.lists(st.integers(-(2**62), 4), min_size=1, max_size=3).filter(lambda s: min(s) < 0))
        return value(tag, "scalars", tensor(types_pb2.DT_FLOAT, shape, float_val=[1.0])), True
    if kind == "huge":
        shape = [draw(st.integers(10**6, 2**40)), draw(st.integers(1, 10**4))]
        return value(tag, "histograms", tensor(types_pb2.DT_FLOAT, shape, float_val=[1.0])), True
    if kind == "overflow":
        shape = draw(st.lists(st.integers(2**31, 2**62), min_size=2, max_size=4))
        return value(tag, None, tensor(types_pb2.DT_DOUBLE, [*shape, draw(st.integers(0, 1))])), True
    if kind == "dimensions":
        return value(
            tag, None, tensor(types_pb2.DT_FLOAT, [1] * draw(st.integers(33, 80)), float_val=[1])
        ), True
    if kind == "dtype":
        dtype = draw(st.sampled_from(UNKNOWN_DTYPES))
        return value(tag, None, tensor(dtype, [2], tensor_content=draw(st.binary(max_size=16)))), True
    if kind == "content":
        count = draw(st.integers(0, 8))
        size = draw(st.integers(1, 40).filter(lambda n: n != 4 * count))
        return value(
            tag, "histograms", tensor(types_pb2.DT_FLOAT, [count], tensor_content=b"\1" * size)
        ), True
    if kind == "many":
        return value(tag, None, tensor(types_pb2.DT_INT32, [2], int_val=[1, 2, 3, 4])), True
    if kind == "complex":
        return value(tag, "scalars", tensor(types_pb2.DT_COMPLEX64, [], float_val=[1.0])), True
    if kind == "image sizes":
        sizes = draw(st.sampled_from([[b"w", b"3"], [b"4", b""], [b"1" * 5000, b"1"], [b"\xff", b"2"]]))
        return value(tag, "images", tensor(types_pb2.DT_STRING, [3], string_val=[*sizes, b"png"])), True
    if kind == "histo limits":
        histo = histogram_pb2.HistogramProto(min=0, max=1, bucket_limit=[1.0], bucket=[1.0, 2.0, 3.0])
        return summary_pb2.Summary.Value(tag=tag, histo=histo), True
    if kind == "misfit":
        plugin, proto = draw(
            st.sampled_from(
                [
                    ("scalars", tensor(types_pb2.DT_STRING, [], string_val=[b"x"])),
                    ("scalars", tensor(types_pb2.DT_FLOAT, [3], float_val=[1, 2, 3])),
                    ("histograms", tensor(types_pb2.DT_FLOAT, [4], float_val=[1])),
                    ("images", tensor(types_pb2.DT_FLOAT, [3], float_val=[1])),
                    ("images", tensor(types_pb2.DT_STRING, [1], string_val=[b"4"])),
                    ("audio", tensor(types_pb2.DT_STRING, [3], string_val=[b"a"])),
                    ("text", tensor(types_pb2.DT_INT8, [2], int_val=[300, -300])),
                    ("pr_curves", tensor(types_pb2.DT_FLOAT, [5, 2])),
                    ("pr_curves", tensor(types_pb2.DT_COMPLEX128, [6, 1], tensor_content=bytes(96))),
                ]
            )
        )
        return value(f"{tag}/{plugin}", plugin, proto), False
    if kind == "long text":  # one long string among many short ones
        texts = [b"x" * draw(st.integers(1000, 20_000)), *[b""] * draw(st.integers(100, 2000))]
        return value(tag, "text", tensor(types_pb2.DT_STRING, [len(texts)], string_val=texts)), False
    content = struct.pack("<3f", math.nan, math.inf, -math.inf)
    return value(tag, "histograms", tensor(types_pb2.DT_FLOAT, [1, 3], tensor_content=content)), False


class Steps:
    """Unique steps, so that each value is known by (tag, step)."""

    def __init__(self) -> None:
        self.next = 0

    def take(self) -> int:
        self.next += 1
        return self.next


def summary_event(step: int, values: list, wall_time: float = 1.7e9) -> event_pb2.Event:
    return event_pb2.Event(step=step, wall_time=wall_time, summary=summary_pb2.Summary(value=values))


@st.composite
def valid_segment(draw, steps: Steps) -> Segment:
    """One record of a good event (sometimes a run of scalars of one tag, read at the byte level)."""
    if draw(st.integers(0, 4)) == 0:
        count = draw(st.integers(16, 40))
        template = value("dense", "scalars", tensor(types_pb2.DT_FLOAT, [], tensor_content=b"\0\0\0\0"))
        events = [summary_event(steps.take(), [template]) for _ in range(count)]
        return Segment(
            b"".join(records.frame(e.SerializeToString()) for e in events),
            [("dense", e.step) for e in events],
        )
    step = steps.take()
    if draw(st.booleans()):
        return Segment(
            records.frame(event_pb2.Event(step=step, file_version="brain.Event:2").SerializeToString())
        )
    values = draw(st.lists(good_values(), min_size=1, max_size=3))
    return Segment(
        records.frame(summary_event(step, values).SerializeToString()), [(v.tag, step) for v in values]
    )


@st.composite
def hostile_segment(draw, steps: Steps) -> Segment:
    """A CRC-valid record of an Event with hostile values (and good ones beside them) or hostile
    fields, or one that is no Event at all."""
    step = steps.take()
    kind = draw(st.sampled_from(["values", "fields", "not an event"]))
    if kind == "not an event":
        return Segment(records.frame(b"\x07" + draw(st.binary(max_size=30))), problems=1)
    if kind == "fields":
        wall_time = draw(st.sampled_from([math.nan, math.inf, -math.inf, 1e300, -1e300, 0.0]))
        step = draw(st.sampled_from([-(2**63), -1, 2**63 - 1]))
        good = summary_pb2.Summary.Value(tag="fields", simple_value=1.0)
        return Segment(
            records.frame(summary_event(step, [good], wall_time).SerializeToString()), [("fields", step)]
        )
    mixed = draw(
        st.lists(st.one_of(hostile_values(), good_values().map(lambda v: (v, False))), min_size=1, max_size=3)
    )
    payload = summary_event(step, [v for v, _ in mixed]).SerializeToString()
    returned = [(v.tag, step) for v, bad in mixed if not bad]
    return Segment(records.frame(payload), returned, problems=sum(bad for _, bad in mixed))


@st.composite
def damage_segment(draw, steps: Steps) -> Segment:
    """Bytes that are no record: a record with a flipped byte, a forged length with a matching
    CRC, a record cut short, zeros, random bytes."""
    kind = draw(st.sampled_from(["flip", "length", "cut", "zeros", "random"]))
    if kind in ("flip", "cut"):
        whole = records.frame(summary_event(steps.take(), [draw(good_values())]).SerializeToString())
        if kind == "cut":
            cut = draw(st.integers(1, len(whole) - 1))
            return Segment(whole[:cut], damage=True, missing=whole[cut:])
        at = draw(st.integers(0, len(whole) - 1))
        flipped = bytes([whole[at] ^ draw(st.integers(1, 255))])
        return Segment(whole[:at] + flipped + whole[at + 1 :], damage=True)
    if kind == "length":
        length = draw(st.one_of(st.sampled_from([2**63, 2**64 - 1, 2**32]), st.integers(0, 2**40)))
        packed = struct.pack("<Q", length)
        header = packed + struct.pack("<I", records.masked_crc32c(packed))
        return Segment(header + draw(st.binary(max_size=40)), damage=True)
    if kind == "zeros":
        return Segment(bytes(draw(st.integers(1, 64))), damage=True)
    return Segment(draw(st.binary(min_size=1, max_size=64)), damage=True)


@st.composite
def forged_files(draw) -> list[Segment]:
    steps = Steps()
    segment = st.one_of(
        valid_segment(steps), valid_segment(steps), hostile_segment(steps), damage_segment(steps)
    )
    segments = draw(st.lists(segment, min_size=1, max_size=12))
    for index, cut in enumerate(segments):  # no record cut short that what follows makes whole
        after = b"".join(later.data for later in segments[index + 1 :])
        assume(not (cut.missing and after.startswith(cut.missing)))
    return segments


def expected(segments: list[Segment]) -> tuple[list[tuple[str, int]], list[int]]:
    """The values of a forged file in order, and the offsets of its problems: one for each run
    of damage, at its start, and those of its CRC-valid records."""
    values, problems = [], []
    offset, previous = 0, False
    for segment in segments:
        values += segment.values
        problems += [offset] * segment.problems
        if segment.damage and not previous:
            problems.append(offset)
        offset += len(segment.data)
        previous = segment.damage
    return values, sorted(problems)


def read_tolerantly(path: str) -> tuple[list, list, int]:
    """Values and problems of tolerant `iter_values`, and the peak of memory it took."""
    problems = []
    tracemalloc.start()
    try:
        values = [(v.tag, v.step) for v in iter_values(path, tolerant=True, problems=problems)]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return values, problems, peak


def read_strictly(path: str) -> tuple[list, int]:
    """What a strict Reader hands out over passes until one raises nothing, and how often it
    raised (only CorruptRecordError may come out of it)."""
    reader, values, raised = Reader(path), [], 0
    for _ in range(100):
        try:
            values.extend((v.tag, v.step) for v in reader)
        except CorruptRecordError:
            raised += 1
            continue
        return values, raised
    raise AssertionError("a strict Reader raised 100 times")


@EXAMPLES
@given(forged_files())
def test_forged_files_lose_no_valid_neighbour_and_report_each_forgery(tmp_path_factory, segments):
    directory = tmp_path_factory.mktemp("forged")
    path = os.path.join(directory, "events.out.tfevents.1700000000.forged")
    data = b"".join(segment.data for segment in segments)
    with open(path, "wb") as file:
        file.write(data)
    want_values, want_problems = expected(segments)

    values, problems, peak = read_tolerantly(path)
    assert values == want_values
    assert sorted(p.offset for p in problems) == want_problems
    assert all(p.kind == CORRUPT for p in problems if p.offset + p.size < len(data))
    assert peak < 64 * len(data) + (2 << 20)

    table = load_table(path, tolerant=True, plugins=None, as_dataframe=False)
    assert list(zip(table["tag"].tolist(), table["step"].tolist(), strict=True)) == want_values

    unchecked = list(iter_values(path, tolerant=True, check_crc=False))  # garbage in, but no crash
    assert len(unchecked) <= len(data)

    strict_values, raised = read_strictly(path)
    assert strict_values == want_values
    assert raised == sum(p.kind == CORRUPT for p in problems)

    for argv in (["--event_file", path], ["--event_file", path, "--json"]):
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            assert inspect.main(argv) == (1 if want_problems else 0)
    assert sorted(p.offset for p in inspect.inspect(path).problems) == want_problems


@FOLLOWING_EXAMPLES
@given(forged_files(), st.lists(st.floats(0, 1), min_size=1, max_size=3))
def test_a_reader_following_a_forged_file_as_it_grows_hands_out_what_one_read_does(
    tmp_path_factory, segments, cuts
):
    directory = tmp_path_factory.mktemp("following")
    path = os.path.join(directory, "events.out.tfevents.1700000000.forged")
    data = b"".join(segment.data for segment in segments)
    want_values, _ = expected(segments)
    follow, seen, written = Reader(path, tolerant=True), [], 0
    for end in [*sorted(int(cut * len(data)) for cut in cuts), len(data)]:
        with open(path, "ab") as file:
            file.write(data[written:end])
        written = max(written, end)
        seen += [(v.tag, v.step) for v in follow]
    assert seen == want_values

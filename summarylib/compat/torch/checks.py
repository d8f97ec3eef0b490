"""The checks torch's writer makes at the call on what is not data: strings, wall times
and the names it turns into directories.

Everything a method accepts must be writable later on the writer's thread, so these run
on the caller's thread, in the one error shape of `summarylib.checks` (whose checks of
flags and numbers the methods use too):

- strings (tags, text, hparams keys and values, layout titles): a `str` encodable as
  UTF-8, since protobuf writes strings as UTF-8 (a lone surrogate is not);
- `walltime`: None (now) or a finite real number (int, float, numpy number), since the
  event's `wall_time` is a double and TensorBoard sorts by it;
- the run directories torch makes of `add_scalars`' `main_tag` and keys and of
  `add_hparams`' `run_name`: relative paths that stay inside the log dir, each component
  a name a file system holds (no `..`, no NUL, at most 255 bytes), so nothing is written
  outside the log dir and TensorBoard can list the runs;
- protobufs handed to `add_event`/`add_summary`/`file_writer`: any library's message of
  that name, or its bytes, checked to parse.
"""

from __future__ import annotations

import math
import os
from typing import Any

from google.protobuf.message import Message

from summarylib.checks import as_real, real_number
from summarylib.ops.convert import as_array, as_float
from summarylib.ops.errors import check_serialized, op_error
from summarylib.ops.errors import check_text as check_utf8

MAX_NAME_BYTES = 255  # a file name's limit on Linux, macOS and Windows file systems


def check_text(op: str, tag: Any, argument: str, text: Any) -> str:
    """`text`, a str that UTF-8 can encode; a TypeError or ValueError otherwise."""
    if not isinstance(text, str):
        raise op_error(
            TypeError, op, tag, argument, f"expected a str, got {type(text).__name__} {text!r:.80}"
        )
    return check_utf8(op, tag, argument, text)


def check_tag(op: str, tag: Any) -> str:
    """A method's tag: a non-empty str that UTF-8 can encode."""
    if isinstance(tag, str) and not tag:
        raise op_error(ValueError, op, tag, "tag", "expected a non-empty str, got ''")
    return check_text(op, tag, "tag", tag)


def check_wall_time(op: str, tag: Any, walltime: Any) -> float | None:
    """`walltime` as the event's wall time: None (now) or a finite real number."""
    if walltime is None or (type(walltime) is float and walltime - walltime == 0.0):
        return walltime  # the common cases, cheaply (inf - inf and NaN - NaN are NaN)
    seconds = as_real(walltime)
    if seconds is not None and math.isfinite(seconds):
        return seconds
    raise op_error(
        TypeError if seconds is None else ValueError,
        op,
        tag,
        "walltime",
        f"expected None or a finite number of seconds since the epoch, got {type(walltime).__name__} "
        f"{walltime!r:.80}",
    )


def check_seconds(op: str, argument: str, seconds: Any) -> float:
    """`seconds` as a finite real number of seconds (`flush_secs`): any sign, as torch
    takes it (nought or less flushes as often as the writer can)."""
    value = real_number(op, None, argument, seconds)
    if math.isfinite(value):
        return value
    raise op_error(
        ValueError, op, None, argument, f"expected a finite number of seconds, got {seconds!r:.80}"
    )


def check_run_name(op: str, tag: Any, argument: str, name: str) -> str:
    """`name`, a directory path made relative to the log dir, checked to stay inside it:
    not absolute, no `..` component, no NUL, every component at most 255 bytes."""
    check_text(op, tag, argument, name)
    if "\0" in name:
        raise op_error(ValueError, op, tag, argument, f"expected a file name without NUL, got {name!r:.80}")
    if os.path.isabs(name) or name.startswith(("/", os.sep)):
        raise op_error(
            ValueError, op, tag, argument, f"expected a path relative to the log dir, got {name!r:.80}"
        )
    separators = "/" + (os.altsep or "") + os.sep
    for component in name.translate({ord(c): "/" for c in separators}).split("/"):
        if component == "..":
            raise op_error(
                ValueError,
                op,
                tag,
                argument,
                f"expected a path inside the log dir (no '..'), got {name!r:.80}",
            )
        if len(component.encode("utf-8")) > MAX_NAME_BYTES:
            raise op_error(
                ValueError,
                op,
                tag,
                argument,
                f"expected directory names of at most {MAX_NAME_BYTES} bytes, got {name!r:.80} with one "
                f"of {len(component.encode('utf-8'))} bytes",
            )
    return name


def serialized_proto(op: str, argument: str, message: Any, kind: type[Message] | None) -> bytes:
    """A protobuf message (summarylib's, TensorBoard's, TensorFlow's or torch's) or its
    bytes, serialized and checked to parse as `kind` (any bytes when `kind` is None: a
    message summarylib has no schema of, such as a graph's RunMetadata)."""
    name = kind.__name__ if kind is not None else "protobuf"
    serialize = getattr(message, "SerializeToString", None)
    data = serialize() if callable(serialize) else message
    if not isinstance(data, bytes):
        raise op_error(
            TypeError,
            op,
            None,
            argument,
            f"expected a {name} protobuf or its bytes, got {type(message).__name__}",
        )
    return data if kind is None else check_serialized(kind, data, op, None, argument)


def scalar_float(op: str, tag: str, value: Any) -> float:
    """A real number from anything with one element (torch squeezes `[1]` to `[]`)."""
    if type(value) is float:
        return value
    try:
        return as_float(op, tag, "scalar_value", value)
    except ValueError:
        array = as_array(op, tag, "scalar_value", value)
        if array.size != 1:
            raise op_error(
                ValueError,
                op,
                tag,
                "scalar_value",
                f"expected one value (shape [] or [1, ...]), got shape {list(array.shape)}",
            ) from None
        return as_float(op, tag, "scalar_value", array.reshape(()))

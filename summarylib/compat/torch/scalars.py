"""torch's scalar methods: `add_scalar`, `add_scalars` and `add_tensor`.

`add_scalar` writes TF 1.x `simple_value` events as torch does (unless `new_style=True`),
so third-party readers that only know `simple_value` (TensorBoard's `EventAccumulator.
Scalars()`, older tbparse) read them; TensorBoard shows them as it shows the v2 op's.
`new_style=True` writes torch's float32 tensor (`double_precision=True`: a float64 one),
its value in `float_val` (`double_val`), as torch does (see `tensor_fields`).

`add_scalars(main_tag, {name: value})` writes each series into the run
`log_dir/<main_tag with '/' as '_'>_<name>` under the tag `main_tag`, as torch does, so
TensorBoard draws them on one chart; but every series is a file of one `SeriesFiles`
pool written by this writer's background thread: no thread or queue per series, and at
most `SeriesFiles.max_open` descriptors open however many series there are. A name
that would leave the log dir or cannot be a directory (a `..` component, NUL, a lone
surrogate, a component over 255 bytes: see `checks.check_run_name`) is a ValueError at
the call, before any series of the call is written.
"""

from __future__ import annotations

import functools
import time
from typing import Any, cast

from summarylib.checks import check_flag
from summarylib.compat.legacy_scalar import SIMPLE_VALUE_COLUMNS, simple_value_event
from summarylib.compat.torch.checks import check_run_name, check_wall_time
from summarylib.compat.torch.core import WriterCore
from summarylib.compat.torch.tensor_fields import scalar_tensor_summary, torch_layout
from summarylib.format.wire import INT64_MAX, INT64_MIN
from summarylib.ops.errors import op_error
from summarylib.ops.tensor import encoding as tensor_encoding
from summarylib.proto import summary_pb2
from summarylib.writer.series_files import series_event


@functools.lru_cache(maxsize=1 << 12, typed=True)
def series_run(main_tag: str, name: Any, joiner: str) -> str:
    """The run directory of `add_scalars` series `name`, relative to the log dir: `main_tag`
    and `name` joined by `joiner` (torch's writer joins them with '_' after writing '/' in
    `main_tag` as '_'; tensorboardX's nests them with '/'), checked once per series (an
    `add_scalars` call of four series checked four paths at every step)."""
    run = f"{main_tag.replace('/', '_')}_{name}" if joiner == "_" else f"{main_tag}{joiner}{name}"
    return check_run_name("add_scalars", main_tag, "tag_scalar_dict", run)


def checked_series_run(main_tag: str, name: Any, joiner: str) -> str:
    """`series_run`, also for a name that cannot be a cache key (a key of a mapping-like
    object that is not hashable): checked then without the cache."""
    try:
        return series_run(main_tag, name, joiner)
    except TypeError:
        return series_run.__wrapped__(main_tag, name, joiner)


_TENSOR_METADATA = summary_pb2.SummaryMetadata(
    plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="tensor")
).SerializeToString()
_now = time.time


class ScalarMethods(WriterCore):
    """The scalar methods of torch's writer (see the module docstring)."""

    def add_scalar(
        self,
        tag: str,
        scalar_value: Any,
        global_step: int | None = None,
        walltime: float | None = None,
        new_style: bool = False,
        double_precision: bool = False,
    ) -> None:
        """Write one scalar: a number, numpy scalar, or one-element array or tensor."""
        # The common case (a str tag seen before, a float, an int64 step) costs no calls.
        if type(tag) is not str or tag not in self._checked_tags:
            tag = self._tag("add_scalar", tag)
        value = scalar_value if type(scalar_value) is float else self._scalar("add_scalar", tag, scalar_value)
        if type(global_step) is int and INT64_MIN <= global_step <= INT64_MAX:
            step = global_step
        else:
            step = self._step("add_scalar", tag, global_step)
        if walltime is None:
            wall_time = _now()
        elif type(walltime) is float and walltime - walltime == 0.0:  # finite
            wall_time = walltime
        else:
            wall_time = cast(float, check_wall_time("add_scalar", tag, walltime))  # not None here
        if new_style is not False:
            new_style = check_flag("add_scalar", tag, "new_style", new_style)
            double_precision = check_flag("add_scalar", tag, "double_precision", double_precision)
        if not new_style:
            engine = self._writer.scalar_engine
            if engine is None:
                self._writer.submit(simple_value_event, (tag, value), wall_time, step)
            else:  # the scalar lane: no tuple kept per event, no call (see writer/scalar_stream.py)
                scalars = engine.scalars
                scalars += (SIMPLE_VALUE_COLUMNS, tag, value, wall_time, step)
                if len(scalars) >= engine.scalar_limit:
                    engine.scalars_full()
        else:
            args = (tag, value, double_precision)
            self._queue("add_scalar", tag, step, scalar_tensor_summary, args, wall_time)

    def add_scalars(
        self,
        main_tag: str,
        tag_scalar_dict: dict[str, Any],
        global_step: int | None = None,
        walltime: float | None = None,
    ) -> None:
        """Write one scalar per series, each to its own run beside this one (see the module
        docstring); all of them at the same `walltime` (default now)."""
        main_tag = self._tag("add_scalars", main_tag)
        if not hasattr(tag_scalar_dict, "items"):
            raise op_error(
                TypeError,
                "add_scalars",
                main_tag,
                "tag_scalar_dict",
                f"expected a dict of series name to value, got {type(tag_scalar_dict).__name__}",
            )
        step = self._step("add_scalars", main_tag, global_step)
        wall_time = self._wall_time("add_scalars", main_tag, walltime)
        runs = [
            (self._series_logdir(main_tag, name), self._scalar("add_scalars", main_tag, value))
            for name, value in tag_scalar_dict.items()
        ]
        if self._series is None:  # closed: reopen, as torch does
            self._open()
        submit, series = self._writer.submit, self._series
        for run, value in runs:
            submit(series_event, (series, run, simple_value_event, (main_tag, value)), wall_time, step)

    def _series_logdir(self, main_tag: str, name: Any) -> str:
        """The run of `add_scalars` series `name` of `main_tag`, as torch names it:
        `<log_dir>/<main_tag with '/' as '_'>_<name>`, checked to stay inside the log dir."""
        return f"{self.log_dir}/{checked_series_run(main_tag, name, '_')}"

    def add_tensor(
        self, tag: str, tensor: Any, global_step: int | None = None, walltime: float | None = None
    ) -> None:
        """Write a whole tensor (any array-like) with the `tensor` plugin name, as torch does."""
        tag = self._tag("add_tensor", tag)
        args = tensor_encoding.prepare("add_tensor", tag, tensor, _TENSOR_METADATA)
        self._queue("add_tensor", tag, global_step, torch_layout, (tensor_encoding.summary, args), walltime)

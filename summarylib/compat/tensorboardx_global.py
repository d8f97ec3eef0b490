"""tensorboardX's `GlobalSummaryWriter`: one writer shared by the modules of a program,
counting each tag's steps itself, so callers give no `global_step`.

`add_scalar`, `add_image` and `add_text` write at step 0, 1, 2, ... of their tag (one
counter per kind and tag, as tensorboardX keeps them); `getSummaryWriter()` returns the
process's writer, creating it (in `runs/<time>_<host>`) on the first call.

Unlike tensorboardX, the counters are guarded by a thread lock and live in this process:
tensorboardX shares them between processes through a `multiprocessing.Manager` (a server
process per counter dict, started by every instance); a forked child here counts on from
the parent's values in its own copy. `coalesce_process` is accepted and, as in
tensorboardX 2.6, does nothing.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from summarylib.compat.tensorboardx_writer import SummaryWriter

_writer: GlobalSummaryWriter | None = None
_writer_lock = threading.Lock()


class GlobalSummaryWriter:
    """A writer whose steps count themselves per tag (see the module docstring)."""

    def __init__(
        self,
        logdir: str | os.PathLike | None = None,
        comment: str = "",
        purge_step: int | None = None,
        max_queue: int = 10,
        flush_secs: float = 120,
        filename_suffix: str = "",
        write_to_disk: bool = True,
        log_dir: str | os.PathLike | None = None,
        coalesce_process: bool = True,
        **kwargs: Any,
    ) -> None:
        self.smw: SummaryWriter | None = SummaryWriter(
            logdir=logdir,
            comment=comment,
            purge_step=purge_step,
            max_queue=max_queue,
            flush_secs=flush_secs,
            filename_suffix=filename_suffix,
            write_to_disk=write_to_disk,
            log_dir=log_dir,
            **kwargs,
        )
        self.lock = threading.Lock()
        self._steps: dict[tuple[str, str], int] = {}

    def _next_step(self, kind: str, tag: Any) -> int:
        """The next step of `tag` among this kind's calls: 0 on the first."""
        key = (kind, tag if isinstance(tag, str) else repr(tag))
        step = self._steps.get(key, -1) + 1
        self._steps[key] = step
        return step

    def add_scalar(self, tag: str, scalar_value: Any, walltime: float | None = None) -> None:
        """Write a scalar at the tag's next step."""
        with self.lock:
            self._writer().add_scalar(tag, scalar_value, self._next_step("scalar", tag), walltime)

    def add_image(
        self, tag: str, img_tensor: Any, walltime: float | None = None, dataformats: str = "CHW"
    ) -> None:
        """Write an image at the tag's next step."""
        with self.lock:
            step = self._next_step("image", tag)
            self._writer().add_image(tag, img_tensor, step, walltime=walltime, dataformats=dataformats)

    def add_text(self, tag: str, text_string: str, walltime: float | None = None) -> None:
        """Write a text at the tag's next step."""
        with self.lock:
            step = self._next_step("text", tag)
            self._writer().add_text(tag, text_string, global_step=step, walltime=walltime)

    def _writer(self) -> SummaryWriter:
        if self.smw is None:
            raise ValueError("summarylib.GlobalSummaryWriter: the writer is closed")
        return self.smw

    @staticmethod
    def getSummaryWriter() -> GlobalSummaryWriter:
        """The process's shared writer, created on the first call."""
        global _writer
        with _writer_lock:
            if _writer is None or _writer.smw is None:
                _writer = GlobalSummaryWriter()
            return _writer

    @property
    def file_writer(self) -> Any:
        """The shared writer's `file_writer`, reopened if closed (tensorboardX's attribute)."""
        return self._writer()._get_file_writer()

    def close(self) -> None:
        """Write everything and close the files."""
        writer, self.smw = self.smw, None
        if writer is not None:
            writer.flush()
            writer.close()

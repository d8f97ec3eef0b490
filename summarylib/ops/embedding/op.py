"""The embedding op bound to the default writer: files for TensorBoard's Embedding Projector
in the writer's logdir, written so that a reader never sees a half-written one."""

from __future__ import annotations

import threading
from typing import Any

from summarylib.format.storage import join, read_text, replace_atomically
from summarylib.ops.embedding import encoding as embedding_encoding
from summarylib.ops.errors import check_name
from summarylib.writer.context import resolve_step
from summarylib.writer.queue import queue_task, recording_writer

# Adding to a config is read-modify-write: one at a time in this process.
_config_lock = threading.Lock()


def embedding(
    name: str,
    data: Any,
    metadata: Any = None,
    metadata_header: Any = None,
    label_images: Any = None,
    step: Any = None,
) -> bool:
    """Write an embedding for TensorBoard's projector, as torch's `add_embedding` does.

    `data` is an `[n, d]` matrix of real numbers, one point a row. `metadata` gives each
    point a label (str or number), or with `metadata_header` (two or more column names)
    a sequence of values, one a column. `label_images` are the points' images, `[n, h, w,
    c]` or `[n, h, w]` as `summarylib.image` takes them. The files go to `<logdir>/<step,
    5 digits>/<name>/` and the embedding is added to `<logdir>/projector_config.pbtxt`
    (see summarylib.ops.embedding.encoding for the layout).

    The files are written on the writer's thread, like events, in queue order (a
    `flush()` returns once they are on disk; a failure to write them is reported as a
    background write error). Each file is written to a temporary name and renamed, the
    config last, so a reader sees the old config or the new one and every file it
    names. A running TensorBoard lists embeddings added after it first read a run only
    once it restarts (its projector rereads configs only when the runs change). Returns
    False, without looking at the data, when there is no default writer or recording is
    off.
    """
    writer = recording_writer()
    if writer is None:
        return False
    tag = check_name("embedding", name)
    prepared = embedding_encoding.prepare(tag, data, metadata, metadata_header, label_images)
    step = resolve_step("embedding", tag, step)
    options = writer.settings.storage_options
    queue_task(writer, step, write_files, (writer.logdir, *prepared, options))
    return True


def write_files(
    step: int,
    logdir: str,
    tag: str,
    matrix: Any,
    lines: Any,
    images: Any,
    storage_options: dict[str, Any] | None = None,
) -> None:
    """Encode a prepared embedding at `step` and write its files under `logdir` (the task
    the op queues for the writer's thread)."""
    encoded = embedding_encoding.encode_files(tag, step, matrix, lines, images)
    write_embedding(logdir, encoded, storage_options)


def write_embedding(
    logdir: str, encoded: embedding_encoding.Embedding, storage_options: dict[str, Any] | None = None
) -> None:
    """Write an encoded embedding's files under `logdir` (a local path, or a URL opened
    with `storage_options`), then add it to the config there."""
    for relative, content in encoded.files.items():
        replace_atomically(join(logdir, *relative.split("/")), content, storage_options)
    config_path = join(logdir, embedding_encoding.CONFIG_FILENAME)
    with _config_lock:
        try:
            existing = read_text(config_path, storage_options)
            text = embedding_encoding.merge_config(existing, encoded.info)
        except ValueError as error:
            raise ValueError(f"summarylib.embedding: cannot add to {config_path}: {error}") from None
        replace_atomically(config_path, text.encode("utf-8"), storage_options)

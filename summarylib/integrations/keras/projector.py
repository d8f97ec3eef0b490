"""The metadata files Keras's callback names in `embeddings_metadata`, read for
`summarylib.embedding`.

Keras's callback only writes a file's path into the projector's config; summarylib writes
the labels beside the embedding, so it reads the file. The file is the projector's
metadata TSV: one label a line, or a header line of two or more tab-separated column
names and then one tab-separated row a point. A relative path is taken, as the projector
takes the path in Keras's config, relative to the callback's `log_dir`. A file that
cannot be read (not written yet, say) leaves that epoch's embedding unlabeled: Keras never
reads the file, so its `fit` does not fail on it, and neither does ours.
"""

from __future__ import annotations

import logging
import os

from summarylib.integrations.keras.arguments import NAME

log = logging.getLogger("summarylib")


def metadata_for(layer_name: str, embeddings_metadata: str | dict | None) -> str | None:
    """The metadata file of the Embedding layer `layer_name`: the one file given for all
    layers, its entry in the dict, or None."""
    if embeddings_metadata is None or isinstance(embeddings_metadata, str):
        return embeddings_metadata
    return embeddings_metadata.get(layer_name)


def check_layer_names(embeddings_metadata: str | dict | None, layer_names: list[str]) -> None:
    """A ValueError, as Keras raises it, when the dict names a layer that is not one of the
    model's Embedding layers."""
    if embeddings_metadata is None or isinstance(embeddings_metadata, str):
        return
    unknown = sorted(set(embeddings_metadata) - set(layer_names))
    if unknown:
        raise ValueError(
            "summarylib.integrations.keras.TensorBoard: argument 'embeddings_metadata': "
            f"names no Embedding layer of the model: {unknown} (its Embedding layers: {layer_names})"
        )


def read_metadata(path: str, log_dir: str) -> tuple[list, list[str] | None]:
    """`(metadata, metadata_header)` for `summarylib.embedding` from the TSV at `path`."""
    full_path = path if os.path.isabs(path) else os.path.join(log_dir, path)
    with open(full_path, encoding="utf-8") as file:
        lines = file.read().splitlines()
    while lines and not lines[-1]:
        lines.pop()
    if lines and "\t" in lines[0]:
        return [line.split("\t") for line in lines[1:]], lines[0].split("\t")
    return lines, None


def labels_for(
    path: str | None, log_dir: str, layer_name: str, warned: set[str]
) -> tuple[list | None, list[str] | None]:
    """`(metadata, metadata_header)` for the embedding of `layer_name` from the file at
    `path`, or `(None, None)` without a file or when it cannot be read (missing, not
    UTF-8). An unreadable file is one warning per path (added to `warned`), not one an
    epoch, and is read again each time, so a file written during `fit` labels the
    embeddings after it."""
    if path is None:
        return None, None
    try:
        return read_metadata(path, log_dir)
    except (OSError, UnicodeDecodeError) as error:
        warn_unusable(path, layer_name, error, warned)
        return None, None


def warn_unusable(path: str, layer_name: str, error: Exception, warned: set[str]) -> None:
    """Warn, once per path (kept in `warned`), that the metadata file at `path` cannot
    label the embedding of `layer_name` (unreadable, or not one label a point)."""
    if path not in warned:
        warned.add(path)
        log.warning(
            "%s: embeddings_metadata %r unusable, %r written without labels until it can be used: %s",
            NAME,
            path,
            layer_name,
            error,
        )

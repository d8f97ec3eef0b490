"""The metadata files Keras's callback names in `embeddings_metadata`, read for
`summarylib.embedding`.

Keras's callback only writes a file's path into the projector's config; summarylib writes
the labels beside the embedding, so it reads the file. The file is the projector's
metadata TSV: one label a line, or a header line of two or more tab-separated column
names and then one tab-separated row a point. A relative path is taken, as the projector
takes the path in Keras's config, relative to the callback's `log_dir`.
"""

from __future__ import annotations

import os


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

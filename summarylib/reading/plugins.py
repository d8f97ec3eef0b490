"""What TensorBoard's plugins expect: the plugin a value claims for its tag, the plugins that
ship with TensorBoard, and the tensor layouts their dashboards show.

Knowledge of TensorBoard rather than decoding, shared by `decode_value`, the byte-level
scalar path, row assembly and `inspect`.
"""

from __future__ import annotations

import math

from summarylib.proto import summary_pb2

# Plugins of the legacy value fields, as TensorBoard's data_compat migrates them.
LEGACY_PLUGINS = {"simple_value": "scalars", "histo": "histograms", "image": "images", "audio": "audio"}
# The value fields that carry data (the obsolete old-style histogram is ignored, as by TensorBoard).
DATA_KINDS = ("simple_value", "histo", "image", "audio", "tensor")

# Plugins that ship with TensorBoard 2.x.
TENSORBOARD_PLUGINS = frozenset(
    {
        "audio",
        "custom_scalars",
        "graph_keras_model",
        "graph_run_metadata",
        "graph_run_metadata_graph",
        "graph_tagged_run_metadata",
        "graphs",
        "histograms",
        "hparams",
        "images",
        "mesh",
        "pr_curves",
        "projector",
        "scalars",
        "text",
    }
)


def layout_problem(plugin: str, dtype: str, shape: tuple[int, ...]) -> str | None:
    """Why TensorBoard's `plugin` cannot show a tensor of `dtype` and `shape`, or None.

    Tensors that fail are decoded as plain numpy arrays rather than as the plugin's data.
    """
    string = dtype == "string"
    real = not string and not dtype.startswith("complex")
    checks = {
        "scalars": (real and math.prod(shape) == 1, "a real tensor of one element"),
        "histograms": (real and len(shape) == 2 and shape[1] == 3, "a real [k, 3] tensor"),
        "images": (string and len(shape) == 1 and shape[0] >= 2, "a string [2 + k] tensor"),
        "audio": (string and len(shape) == 2 and shape[1] == 2, "a string [k, 2] tensor"),
        "text": (string, "a string tensor"),
        "pr_curves": (real and len(shape) == 2 and shape[0] == 6, "a real [6, n] tensor"),
    }
    if plugin not in checks:
        return None
    fits, expected = checks[plugin]
    return None if fits else f"the {plugin} plugin expects {expected}, not {dtype} {list(shape)}"


def plugin_problem(plugin: str) -> str | None:
    """Why TensorBoard shows a tensor summary of `plugin` on no dashboard, or None."""
    if not plugin:
        return "no plugin named in its metadata: TensorBoard shows it on no dashboard"
    if plugin not in TENSORBOARD_PLUGINS:
        return f"plugin {plugin!r} is not one TensorBoard ships: no built-in dashboard shows it"
    return None


def plugin_claim(value: summary_pb2.Summary.Value) -> str | None:
    """The plugin a value assigns its tag when its tag has none yet (legacy fields migrate to
    their plugin's metadata, as in TensorBoard), or None when it carries no metadata."""
    kind = value.WhichOneof("value")
    if kind in LEGACY_PLUGINS:
        return LEGACY_PLUGINS[kind]
    if value.HasField("metadata"):
        return value.metadata.plugin_data.plugin_name
    return None

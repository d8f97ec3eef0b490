"""Read a logdir back the way TensorBoard's dashboards do: its multiplexer and data provider."""

from __future__ import annotations

from tensorboard import context as tb_context
from tensorboard.backend.event_processing import data_provider, plugin_event_multiplexer


def provider_for(logdir: str) -> data_provider.MultiplexerDataProvider:
    """TensorBoard's data provider over `logdir`, loaded."""
    multiplexer = plugin_event_multiplexer.EventMultiplexer(
        tensor_size_guidance={
            "scalars": 0,
            "histograms": 0,
            "images": 0,
            "audio": 0,
            "text": 0,
            "pr_curves": 0,
        }
    )
    multiplexer.AddRunsFromDirectory(logdir)
    multiplexer.Reload()
    return data_provider.MultiplexerDataProvider(multiplexer, logdir)


def read_scalars(logdir: str, plugin: str = "scalars") -> dict:
    """{run: {tag: [(step, value), ...]}} as the scalars dashboard gets them."""
    result = provider_for(logdir).read_scalars(
        tb_context.RequestContext(), experiment_id="", plugin_name=plugin, downsample=10**9
    )
    return {
        run: {tag: [(d.step, d.value) for d in data] for tag, data in tags.items()}
        for run, tags in result.items()
    }


def read_tensors(logdir: str, plugin: str) -> dict:
    """{run: {tag: [(step, numpy array), ...]}} for a tensor-class plugin."""
    result = provider_for(logdir).read_tensors(
        tb_context.RequestContext(), experiment_id="", plugin_name=plugin, downsample=10**9
    )
    return {
        run: {tag: [(d.step, d.numpy) for d in data] for tag, data in tags.items()}
        for run, tags in result.items()
    }


def read_blob_sequences(logdir: str, plugin: str) -> dict:
    """{run: {tag: [(step, [blob bytes, ...]), ...]}} for a blob-sequence plugin (images,
    audio, graphs), the blobs fetched as the dashboards fetch them."""
    provider = provider_for(logdir)
    context = tb_context.RequestContext()
    result = provider.read_blob_sequences(context, experiment_id="", plugin_name=plugin, downsample=10**9)
    return {
        run: {
            tag: [
                (d.step, [provider.read_blob(context, blob_key=ref.blob_key) for ref in d.values])
                for d in data
            ]
            for tag, data in tags.items()
        }
        for run, tags in result.items()
    }


def read_wall_times(logdir: str, plugin: str = "scalars") -> dict:
    """{run: {tag: [wall_time, ...]}} of a scalar plugin's points."""
    result = provider_for(logdir).read_scalars(
        tb_context.RequestContext(), experiment_id="", plugin_name=plugin, downsample=10**9
    )
    return {
        run: {tag: [d.wall_time for d in data] for tag, data in tags.items()} for run, tags in result.items()
    }

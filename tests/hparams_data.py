"""Read the HParams dashboard's records of a logdir back through TensorBoard's data provider."""

from __future__ import annotations

from tensorboard import context as tb_context
from tensorboard.plugins.hparams import plugin_data_pb2 as tb_hparams_pb2

from tests.tensorboard_data import provider_for


def hparams_records(logdir: str) -> dict:
    """{run: {tag: HParamsPluginData}} as TensorBoard's hparams plugin lists them."""
    provider = provider_for(logdir)
    listed = provider.list_tensors(tb_context.RequestContext(), experiment_id="", plugin_name="hparams")
    return {
        run: {
            tag: tb_hparams_pb2.HParamsPluginData.FromString(series.plugin_content)
            for tag, series in tags.items()
        }
        for run, tags in listed.items()
    }

"""`SummaryWriter.file_writer`, `all_writers`, `default_bins` and `_get_file_writer()`, as
torch 2.13's writer has them: the same program through both writers, read back through
TensorBoard's data provider (what its dashboards get)."""

from __future__ import annotations

import glob

import pytest

pytest.importorskip("torch", reason="torch is not installed (the frameworks extra)")

import torch
from tensorboard.compat.proto import event_pb2 as tb_event_pb2
from tensorboard.compat.proto import summary_pb2 as tb_summary_pb2
from tensorboard.plugins.graph.metadata import PLUGIN_NAME_TAGGED_RUN_METADATA as TAGGED_RUN_METADATA
from torch.utils.tensorboard import SummaryWriter as TorchWriter
from torch.utils.tensorboard._pytorch_graph import graph as torch_graph
from torch.utils.tensorboard.summary import hparams as torch_hparams
from torch.utils.tensorboard.writer import FileWriter as TorchFileWriter

from summarylib.compat.torch import FileWriter, SummaryWriter
from tests.hparams_data import hparams_records
from tests.tensorboard_data import read_blob_sequences, read_scalars

WRITERS = (("torch", TorchWriter), ("ours", SummaryWriter))


def test_hparams_recipe_through_file_writer_shows_in_the_same_run_as_torchs(tmp_path):
    """The common recipe: torch's own hparams protos, written with file_writer.add_summary
    into the run of the training curves."""
    hparam_dict = {"lr": 0.01, "layers": 4, "optimizer": "adam"}
    metric_dict = {"hparam/accuracy": 0.75}
    records, scalars = {}, {}
    for name, writer_class in WRITERS:
        logdir = str(tmp_path / name)
        with writer_class(logdir) as writer:
            writer.add_scalar("loss", 0.5, 3)
            exp, ssi, sei = torch_hparams(hparam_dict, metric_dict)
            writer.file_writer.add_summary(exp)
            writer.file_writer.add_summary(ssi, 3)
            writer.file_writer.add_summary(sei, 3, walltime=1.7e9)
            writer.add_scalar("hparam/accuracy", 0.75, 3)
        records[name], scalars[name] = hparams_records(logdir), read_scalars(logdir)
    assert set(records["ours"]) == set(records["torch"]) == {"."}
    assert records["ours"] == records["torch"]
    assert scalars["ours"] == scalars["torch"] == {".": {"loss": [(3, 0.5)], "hparam/accuracy": [(3, 0.75)]}}
    assert len(glob.glob(str(tmp_path / "ours" / "events.out.tfevents.*"))) == 1  # one file, one run


def test_file_writer_and_all_writers_follow_the_writers_life_as_torchs(tmp_path):
    for name, writer_class in WRITERS:
        logdir = str(tmp_path / name)
        writer = writer_class(logdir)
        file_writer = writer.file_writer
        assert file_writer.get_logdir() == writer.get_logdir() == logdir
        assert writer.all_writers == {logdir: file_writer}
        assert writer._get_file_writer() is file_writer
        writer.close()
        assert writer.file_writer is None and writer.all_writers is None
        writer.close()  # a second close is nothing
        writer.add_scalar("after", 1.0, 2)  # logging again opens the run again
        assert writer.file_writer is not None and writer.all_writers == {logdir: writer.file_writer}
        writer.close()
        reopened = writer._get_file_writer()
        assert reopened is writer.file_writer and reopened.get_logdir() == logdir
        reopened.add_summary(
            tb_summary_pb2.Summary(value=[tb_summary_pb2.Summary.Value(tag="raw", simple_value=2.0)]), 4
        )
        reopened.flush()
        reopened.close()
    assert read_scalars(str(tmp_path / "ours")) == read_scalars(str(tmp_path / "torch"))
    assert read_scalars(str(tmp_path / "ours"))["."] == {"after": [(2, 1.0)], "raw": [(4, 2.0)]}


class Net(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(3, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x).relu()


def test_file_writer_add_graph_and_add_event_write_what_torchs_do(tmp_path):
    profile = torch_graph(Net(), torch.randn(1, 3))  # (GraphDef, RunMetadata) of torch's protos
    for name, writer_class in WRITERS:
        with writer_class(str(tmp_path / name)) as writer:
            writer.file_writer.add_graph(profile, walltime=1.7e9)
            scalar = tb_summary_pb2.Summary(value=[tb_summary_pb2.Summary.Value(tag="e", simple_value=3.0)])
            writer.file_writer.add_event(tb_event_pb2.Event(summary=scalar), step=7)
    ours, theirs = (read_blob_sequences(str(tmp_path / name), "graphs") for name in ("ours", "torch"))
    assert ours == theirs
    assert ours["."]["__run_graph__"][0][1][0] == profile[0].SerializeToString()
    ours, theirs = (
        read_blob_sequences(str(tmp_path / name), TAGGED_RUN_METADATA) for name in ("ours", "torch")
    )
    assert ours == theirs == {".": {"step1": [(0, [profile[1].SerializeToString()])]}}
    assert (
        read_scalars(str(tmp_path / "ours"))
        == read_scalars(str(tmp_path / "torch"))
        == {".": {"e": [(7, 3.0)]}}
    )


def test_default_bins_are_torchs(tmp_path):
    with TorchWriter(str(tmp_path / "torch")) as theirs, SummaryWriter(str(tmp_path / "ours")) as ours:
        assert ours.default_bins == theirs.default_bins


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda fw: fw.add_graph(42), "graph_profile"),
        (lambda fw: fw.add_graph((b"\xff\xff", b"")), "graph_profile"),
        (lambda fw: fw.add_summary("loss"), "summary"),
        (lambda fw: fw.add_event(3.5), "event"),
        (lambda fw: fw.add_summary(tb_summary_pb2.Summary(), walltime="now"), "walltime"),
    ],
)
def test_file_writer_rejects_what_is_not_a_protobuf_at_the_call(tmp_path, call, argument):
    with SummaryWriter(str(tmp_path)) as writer:
        writer.add_scalar("before", 1.0, 1)
        with pytest.raises(
            (TypeError, ValueError), match=rf"^summarylib\.add_\w+: .*argument '{argument}': "
        ):
            call(writer.file_writer)
        writer.add_scalar("after", 2.0, 2)
    assert read_scalars(str(tmp_path)) == {".": {"before": [(1, 1.0)], "after": [(2, 2.0)]}}


def test_a_file_writer_of_its_own_writes_what_torchs_does(tmp_path):
    """torch.utils.tensorboard.writer.FileWriter(log_dir, ...) constructed directly, and its
    add_onnx_graph (a GraphDef, as torch's ONNX import makes it)."""
    graph_def = torch_graph(Net(), torch.randn(1, 3))[0]
    for name, writer_class in (("torch", TorchFileWriter), ("ours", FileWriter)):
        file_writer = writer_class(tmp_path / name, 5, 1, ".x")
        assert file_writer.get_logdir() == str(tmp_path / name)
        file_writer.add_onnx_graph(graph_def, walltime=1.7e9)
        value = tb_summary_pb2.Summary.Value(tag="loss", simple_value=0.25)
        file_writer.add_summary(tb_summary_pb2.Summary(value=[value]), 2)
        file_writer.close()
        assert glob.glob(str(tmp_path / name / "events.out.tfevents.*.x"))
    ours, theirs = (read_blob_sequences(str(tmp_path / name), "graphs") for name in ("ours", "torch"))
    assert ours == theirs == {".": {"__run_graph__": [(0, [graph_def.SerializeToString()])]}}
    assert (
        read_scalars(str(tmp_path / "ours"))
        == read_scalars(str(tmp_path / "torch"))
        == {".": {"loss": [(2, 0.25)]}}
    )

"""`summarylib.compat.tensorboardX.SummaryWriter` follows tensorboardX 2.6 where its API
differs from torch's (issue 20): checked against tensorboardX's own writer through
TensorBoard's data provider, and its signatures against tensorboardX's."""

from __future__ import annotations

import inspect
import json
import os
import warnings

import numpy as np
import pytest

pytest.importorskip("tensorboardX", reason="tensorboardX is not installed (the frameworks extra)")

import tensorboardX
from tensorboard import context as tb_context
from tensorboard.compat.proto import summary_pb2 as tb_summary_pb2
from tensorboard.plugins.hparams import plugin_data_pb2 as tb_hparams_pb2

from summarylib.compat import torch as compat_torch
from summarylib.compat.tensorboardX import GlobalSummaryWriter, SummaryWriter
from tests.tensorboard_data import provider_for, read_blob_sequences, read_scalars, read_tensors

# tensorboardX's public methods ours leaves out or spells differently, each with its reason.
NOT_FOLLOWED = {
    "add_onnx_graph": "needs onnx; raises NotImplementedError naming itself",
}


def public_methods(cls: type) -> dict[str, inspect.Signature]:
    return {
        name: inspect.signature(method)
        for name, method in inspect.getmembers(cls, callable)
        if not name.startswith("_") or name == "__init__"
    }


def parameters(signature: inspect.Signature) -> list[tuple]:
    return [(p.name, p.kind, p.default) for p in signature.parameters.values()]


def test_every_public_method_of_tensorboardx_has_tensorboardx_parameters():
    theirs, ours = public_methods(tensorboardX.SummaryWriter), public_methods(SummaryWriter)
    missing = sorted(set(theirs) - set(ours))
    assert missing == [], f"methods of tensorboardX's SummaryWriter missing: {missing}"
    for name, signature in theirs.items():
        if name in NOT_FOLLOWED:
            continue
        assert parameters(ours[name]) == parameters(signature), name


# tensorboardX's public instance attributes ours does not have, each with its reason.
ATTRIBUTES_LEFT_OUT = {
    "scalar_dict": "tensorboardX keeps add_scalars values in memory; export_scalars_to_json reads them back",
    "kwargs": "tensorboardX's extra FileWriter arguments: its FileWriter takes none; ours raises TypeError",
}


def test_every_public_attribute_of_tensorboardx_is_there(tmp_path):
    theirs = tensorboardX.SummaryWriter(str(tmp_path / "theirs"))
    ours = SummaryWriter(str(tmp_path / "ours"))
    names = {name for name in vars(theirs) if not name.startswith("_")} - set(ATTRIBUTES_LEFT_OUT)
    assert {name for name in names if not hasattr(ours, name)} == set()
    assert ours.default_bins == pytest.approx(theirs.default_bins)
    assert ours.file_writer.get_logdir() == ours.logdir == str(tmp_path / "ours")
    assert list(ours.all_writers) == [ours.logdir]
    theirs.close()
    ours.close()
    assert ours.file_writer is theirs.file_writer is None


def test_the_signature_check_fails_when_a_method_differs():
    # torch's class differs from tensorboardX's (add_hparams, add_scalar, ...): the check sees it.
    theirs, torch_ones = (
        public_methods(tensorboardX.SummaryWriter),
        public_methods(compat_torch.SummaryWriter),
    )
    differing = {
        name
        for name in theirs
        if name not in torch_ones or parameters(theirs[name]) != parameters(torch_ones[name])
    }
    assert {"__init__", "add_hparams", "add_scalar", "use_metadata"} <= differing


def test_global_writer_has_tensorboardx_parameters():
    theirs, ours = public_methods(tensorboardX.GlobalSummaryWriter), public_methods(GlobalSummaryWriter)
    for name, signature in theirs.items():
        assert name in ours and parameters(ours[name]) == parameters(signature), name


def hparams_runs(logdir: str) -> dict:
    """{run: (hparams, metric tags)} of the runs holding an HParams session."""
    provider = provider_for(logdir)
    context = tb_context.RequestContext()
    mapping = provider.list_tensors(context, experiment_id="", plugin_name="hparams")
    sessions = {}
    for run, tags in mapping.items():
        if "_hparams_/session_start_info" not in tags:
            continue
        content = tags["_hparams_/session_start_info"].plugin_content
        start = tb_hparams_pb2.HParamsPluginData.FromString(content).session_start_info
        sessions[run] = {
            name: getattr(value, value.WhichOneof("kind")) for name, value in start.hparams.items()
        }
    return sessions


def test_add_hparams_takes_name_and_writes_where_tensorboardx_does(tmp_path):
    for library, root in ((tensorboardX, tmp_path / "theirs"), (None, tmp_path / "ours")):
        writer = (library.SummaryWriter if library else SummaryWriter)(str(root))
        writer.add_hparams({"lr": 0.1, "opt": "adam"}, {"hparam/acc": 0.5}, "trial_a", 3)
        writer.add_hparams({"lr": 0.2, "opt": "sgd"}, {"hparam/acc": 0.7}, name="trial_b", global_step=4)
        writer.close()
    theirs, ours = hparams_runs(str(tmp_path / "theirs")), hparams_runs(str(tmp_path / "ours"))
    assert set(ours) == set(theirs) == {"trial_a", "trial_b"}
    assert ours == theirs
    theirs_scalars = read_scalars(str(tmp_path / "theirs"))
    ours_scalars = read_scalars(str(tmp_path / "ours"))
    assert (
        ours_scalars
        == theirs_scalars
        == {"trial_a": {"hparam/acc": [(3, 0.5)]}, "trial_b": {"hparam/acc": [(4, pytest.approx(0.7))]}}
    )


def test_add_hparams_without_a_name_goes_to_a_new_run_as_in_tensorboardx(tmp_path):
    with SummaryWriter(str(tmp_path)) as writer:
        writer.add_hparams({"lr": 0.1}, {"hparam/acc": 0.5})
    (run,) = hparams_runs(str(tmp_path))
    assert run != "." and float(run) > 0  # tensorboardX names it by time.time()


def test_write_to_disk_false_creates_nothing_and_still_checks(tmp_path):
    logdir = tmp_path / "dry"
    writer = SummaryWriter(str(logdir), write_to_disk=False)
    writer.add_scalar("loss", 1.0, 0)
    writer.add_scalars("pair", {"a": 1.0, "b": 2.0}, 0)
    writer.add_image("img", np.zeros((3, 4, 4), np.float32), 0)
    writer.add_histogram("h", np.arange(10.0), 0)
    writer.add_text("t", "hello", 0)
    writer.add_hparams({"lr": 0.1}, {"hparam/acc": 0.5}, name="trial")
    writer.add_embedding(np.zeros((3, 2)), global_step=0)
    writer.file_writer.add_summary(tb_summary_pb2.Summary(value=[{"tag": "raw", "simple_value": 1.0}]), 0)
    with pytest.raises(ValueError, match=r"^summarylib\.add_scalar: tag 'loss': argument 'scalar_value'"):
        writer.add_scalar("loss", [1.0, 2.0])
    writer.flush()
    writer.close()
    writer.add_scalar("loss", 2.0, 1)  # after close, as tensorboardX allows
    writer.close()
    assert not logdir.exists()
    assert writer.logdir == str(logdir)


def test_constructor_follows_tensorboardx(tmp_path):
    writer = SummaryWriter(log_dir=str(tmp_path / "a"))
    assert writer.logdir == str(tmp_path / "a") == writer.get_logdir()
    writer.close()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        SummaryWriter(str(tmp_path / "b"), comet_config={"disabled": True}).close()
    with pytest.warns(UserWarning, match="comet_config") as caught:
        SummaryWriter(str(tmp_path / "c"), comet_config={"api_key": "x"}).close()
    assert len(caught) == 1 and caught[0].filename == __file__
    with pytest.raises(TypeError, match="unexpected"):
        SummaryWriter(str(tmp_path / "d"), no_such_option=1)


def scalar_metadata(logdir: str) -> dict:
    provider = provider_for(logdir)
    mapping = provider.list_scalars(tb_context.RequestContext(), experiment_id="", plugin_name="scalars")
    return {
        (run, tag): (meta.display_name, meta.description)
        for run, tags in mapping.items()
        for tag, meta in tags.items()
    }


def test_add_scalar_display_name_and_description_as_tensorboardx_writes_them(tmp_path):
    for cls, root in ((tensorboardX.SummaryWriter, tmp_path / "theirs"), (SummaryWriter, tmp_path / "ours")):
        with cls(str(root)) as writer:
            writer.add_scalar("loss", 1.5, 2, None, "Training loss", "the mean over a batch")
            writer.add_scalar("loss", 1.25, 3)
            writer.add_scalar("acc", 0.5, 1, display_name="Accuracy")
    assert read_scalars(str(tmp_path / "ours")) == read_scalars(str(tmp_path / "theirs"))
    assert scalar_metadata(str(tmp_path / "ours")) == scalar_metadata(str(tmp_path / "theirs"))
    assert scalar_metadata(str(tmp_path / "ours"))[(".", "loss")] == (
        "Training loss",
        "the mean over a batch",
    )
    with (
        SummaryWriter(str(tmp_path / "bad")) as writer,
        pytest.raises(TypeError, match=r"^summarylib\.add_scalar: tag 'loss': argument 'display_name'"),
    ):
        writer.add_scalar("loss", 1.0, 0, display_name=3)


def test_media_arguments_follow_tensorboardx(tmp_path):
    rng = np.random.default_rng(0)
    images = [rng.integers(0, 256, (3, 6, 5)).astype(np.uint8) for _ in range(3)]
    video = rng.integers(0, 256, (2, 3, 8, 6, 3)).astype(np.uint8)  # N T H W C
    boxes = np.array([[1, 1, 4, 4]])
    for cls, root in ((tensorboardX.SummaryWriter, tmp_path / "theirs"), (SummaryWriter, tmp_path / "ours")):
        with cls(str(root)) as writer:
            writer.add_images("list", images, 1, dataformats="CHW")
            writer.add_images(
                "hwc_list", [image.transpose(1, 2, 0) for image in images], 1, dataformats="HWC"
            )
            writer.add_image_with_boxes("boxed", images[0].transpose(1, 2, 0), boxes, 2, None, "HWC")
    theirs = read_blob_sequences(str(tmp_path / "theirs"), "images")["."]
    ours = read_blob_sequences(str(tmp_path / "ours"), "images")["."]
    for tag in ("list", "hwc_list", "boxed"):
        assert [(step, blobs[:2]) for step, blobs in ours[tag]] == [
            (step, blobs[:2]) for step, blobs in theirs[tag]
        ], tag
    with SummaryWriter(str(tmp_path / "default")) as writer:  # tensorboardX writes nothing here
        writer.add_images("list", images, 1)
    assert read_blob_sequences(str(tmp_path / "default"), "images")["."]["list"] == ours["list"]
    with SummaryWriter(str(tmp_path / "video")) as writer:
        writer.add_video("clip", video, 3, fps=5, dataformats="NTHWC")
        writer.add_video("same", video.transpose(0, 1, 4, 2, 3), 3, fps=5)
        with pytest.raises(ValueError, match=r"^summarylib\.add_video: tag 'clip': argument 'dataformats'"):
            writer.add_video("clip", video, 3, dataformats="NTHW")
    blobs = read_blob_sequences(str(tmp_path / "video"), "images")["."]
    assert blobs["clip"] == blobs["same"] and blobs["clip"][0][1][:2] == [
        b"12",
        b"8",
    ]  # two 6x8 videos side by side


def test_use_metadata_sets_the_step_and_walltime_of_enclosed_calls(tmp_path):
    from summarylib.reader import iter_values

    with SummaryWriter(str(tmp_path)) as writer:
        with writer.use_metadata(global_step=7, walltime=1000.5):
            writer.add_scalar("loss", 1.0)
            writer.add_text("note", "hi")
            writer.add_scalar("acc", 0.5, 9)
        writer.add_scalar("after", 2.0)
        with pytest.raises(ValueError, match="global_step or walltime"), writer.use_metadata():
            pass
        bad_step = pytest.raises(TypeError, match=r"^summarylib\.use_metadata: argument 'global_step'")
        with bad_step, writer.use_metadata(global_step="x"):
            pass
        nested = pytest.raises(ValueError, match="enclosing")
        with writer.use_metadata(global_step=1), nested, writer.use_metadata(walltime=5.0):
            pass
    values = {value.tag: (value.step, value.wall_time) for value in iter_values(str(tmp_path))}
    assert values["loss"] == (7, 1000.5) and values["note/text_summary"] == (7, 1000.5)
    assert values["acc"] == (9, 1000.5) and values["after"][0] == 0 and values["after"][1] > 1000.5


def test_export_scalars_to_json_reads_the_add_scalars_series_back(tmp_path):
    for cls, root in ((tensorboardX.SummaryWriter, tmp_path / "theirs"), (SummaryWriter, tmp_path / "ours")):
        with cls(str(root)) as writer:
            writer.add_scalar("plain", 1.0, 0)
            for step in range(3):
                writer.add_scalars(
                    "loss", {"train": step * 1.5, "val": step + 0.25}, step, walltime=100.0 + step
                )
            writer.export_scalars_to_json(str(root / "first.json"))
            writer.add_scalars("loss", {"train": 9.0}, 3, walltime=200.0)
            writer.export_scalars_to_json(str(root / "second.json"))
    for name in ("first.json", "second.json"):
        theirs = json.loads((tmp_path / "theirs" / name).read_text())
        ours = json.loads((tmp_path / "ours" / name).read_text())
        # Keyed by each series' run directory, as tensorboardX names it (<logdir>/<main_tag>/<name>).
        theirs = {os.path.relpath(key, tmp_path / "theirs"): sorted(value) for key, value in theirs.items()}
        ours = {os.path.relpath(key, tmp_path / "ours"): sorted(value) for key, value in ours.items()}
        assert ours == theirs, name
    first = json.loads((tmp_path / "ours" / "first.json").read_text())
    assert first[os.path.join(str(tmp_path / "ours"), "loss", "train")] == [
        [100.0, 0, 0.0],
        [101.0, 1, 1.5],
        [102.0, 2, 3.0],
    ]


def test_export_scalars_to_json_without_add_scalars_writes_an_empty_dict(tmp_path):
    with SummaryWriter(str(tmp_path)) as writer:
        writer.add_scalar("plain", 1.0, 0)
        writer.export_scalars_to_json(str(tmp_path / "out.json"))
    assert json.loads((tmp_path / "out.json").read_text()) == {}


def test_add_onnx_graph_raises_not_implemented_naming_itself(tmp_path):
    with SummaryWriter(str(tmp_path)) as writer, pytest.raises(NotImplementedError, match="add_onnx_graph"):
        writer.add_onnx_graph("model.file")


def test_global_writer_counts_steps_per_tag_as_tensorboardx_and_is_shared(tmp_path, monkeypatch):
    import summarylib.compat.tensorboardx_global as global_module

    for cls, root in (
        (tensorboardX.GlobalSummaryWriter, tmp_path / "theirs"),
        (GlobalSummaryWriter, tmp_path / "run"),
    ):
        writer = cls(str(root))
        for value in (1.0, 2.0, 3.0):
            writer.add_scalar("loss", value)
        writer.add_scalar("acc", 0.5)
        writer.add_text("note", "hi")
        writer.add_text("note", "again")
        writer.add_image("img", np.zeros((3, 2, 2), np.float32))
        assert writer.file_writer.get_logdir() == str(root)
        writer.close()
    assert read_scalars(str(tmp_path / "run")) == read_scalars(str(tmp_path / "theirs"))
    assert read_scalars(str(tmp_path / "run")) == {
        ".": {"loss": [(0, 1.0), (1, 2.0), (2, 3.0)], "acc": [(0, 0.5)]}
    }
    ours_text, theirs_text = (read_tensors(str(tmp_path / name), "text") for name in ("run", "theirs"))
    assert [(step, text.tolist()) for step, text in ours_text["."]["note/text_summary"]] == [
        (step, text.tolist()) for step, text in theirs_text["."]["note/text_summary"]
    ]
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(global_module, "_writer", None)
    shared = GlobalSummaryWriter.getSummaryWriter()
    assert GlobalSummaryWriter.getSummaryWriter() is shared
    shared.add_scalar("x", 1.0)
    shared.close()
    assert os.path.isdir(tmp_path / "runs")


def _log_dirty_tags(writer) -> None:
    """Tags a real tensorboardX script used (`add_scalar(f'roc auc', ...)`) and others
    tensorboardX cleans, through every method it cleans them in, and text, which it does not."""
    for step in (0, 1):
        for tag in ("roc auc", "/loss", "acc@1", "Loss (train)", "img:0", "fine/tag-1.x"):
            writer.add_scalar(tag, 0.5 + step, step)
        writer.add_histogram("weights hist", np.arange(10.0), step)
        writer.add_image("sample image", np.zeros((3, 4, 4)), step)
        writer.add_images("sample batch", np.zeros((2, 3, 4, 4)), step)
        writer.add_text("a note", "text tags are kept", step)
    writer.close()


def test_tags_are_cleaned_as_tensorboardx_cleans_them(tmp_path):
    """A script switched from tensorboardX keeps its tag names: TensorBoard lists the
    same runs and tags for both writers' files, in every dashboard."""
    tags = {}
    for name, writer_class in (("theirs", tensorboardX.SummaryWriter), ("ours", SummaryWriter)):
        logdir = str(tmp_path / name)
        _log_dirty_tags(writer_class(logdir))
        tags[name] = {
            plugin: {run: sorted(run_tags) for run, run_tags in reader(logdir, plugin).items()}
            for plugin, reader in (
                ("scalars", read_scalars),
                ("histograms", read_tensors),
                ("images", read_blob_sequences),
                ("text", read_tensors),
            )
        }
    assert tags["ours"] == tags["theirs"]
    assert "roc_auc" in tags["ours"]["scalars"]["."] and "loss" in tags["ours"]["scalars"]["."]
    assert tags["ours"]["text"]["."] == ["a note/text_summary"]  # not cleaned, as in tensorboardX

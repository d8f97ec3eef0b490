"""HParams on a real TensorBoard's HParams plugin (both loaders): sessions whose metric
columns come from the same run's scalars, and the experiment from a config or derived from
the runs."""

from __future__ import annotations

import hashlib
import json

import pytest

import summarylib as sl
from summarylib import hparams as hp
from tests.tensorboard_server import LOADERS, post_json, running_tensorboard, wait_for
from tests.test_hparams import CREATED, END, START, config

pytestmark = pytest.mark.slow  # real TensorBoard servers

ALL_STATUSES = ["STATUS_UNKNOWN", "STATUS_SUCCESS", "STATUS_FAILURE", "STATUS_RUNNING"]
# run: (hparams, trial_id, {tag: last value at step 2}, status)
RUNS = {
    "lr=0.1": ({"lr": 0.1, "optimizer": "adam", "units": 64, "use_bn": True}, None, {"loss": 0.5}, "success"),
    "lr=0.01": (
        {"lr": 0.01, "optimizer": "sgd", "units": 32, "use_bn": False},
        "trial-b",
        {"loss": 0.25},
        "failure",
    ),
    "lr=0.001": (
        {"lr": 0.001, "optimizer": "sgd", "units": 16, "use_bn": False},
        None,
        {"loss": 0.125},
        "running",
    ),
}
EVAL_LOSS = {"lr=0.1": 0.75, "lr=0.01": 0.375, "lr=0.001": 0.0625}


def write_runs(logdir: str, with_config: bool) -> None:
    """Each run: (the experiment,) its hparams (twice in the first run without config),
    scalars in its own run and in its `eval` subdirectory, and its end."""
    for index, (run, (values, trial_id, last, status)) in enumerate(RUNS.items()):
        writer = sl.create_file_writer(f"{logdir}/{run}")
        with writer.as_default():
            if with_config:
                assert hp.hparams_config(*config(hp), time_created_secs=CREATED)
            assert hp.hparams(values, trial_id=trial_id, start_time_secs=START + index)
            if not with_config and index == 0:  # TensorBoard keeps the first values of a run
                with pytest.warns(UserWarning):
                    assert hp.hparams({**values, "lr": 5.0, "extra": "x"}, start_time_secs=START)
            for step in range(3):
                for tag, value in last.items():
                    assert sl.scalar(tag, value * (3 - step), step=step)
                    assert sl.scalar("accuracy", 0.5 + 0.1 * step, step=step)
            assert hp.session_end(status, end_time_secs=END + index)
        writer.close()
        writer = sl.create_file_writer(f"{logdir}/{run}/eval")
        with writer.as_default(step=2):
            assert sl.scalar("loss", EVAL_LOSS[run])
        writer.close()


@pytest.fixture(scope="module", params=LOADERS, ids=["python-loader", "rust-loader"])
def servers(request, tmp_path_factory):
    """{"config": base URL, "no_config": base URL} of TensorBoards over logdirs written with
    and without `hparams_config`, for one data loader."""
    bases = {}
    with (
        running_tensorboard(
            _logdir(tmp_path_factory, "config", True), load_fast=request.param
        ) as with_config,
        running_tensorboard(
            _logdir(tmp_path_factory, "no_config", False), load_fast=request.param
        ) as without,
    ):
        bases["config"], bases["no_config"] = with_config, without
        yield bases


def _logdir(factory, name: str, with_config: bool) -> str:
    logdir = str(factory.mktemp(name))
    write_runs(logdir, with_config)
    return logdir


def session_groups(base: str, expected_metrics: int) -> list:
    request = {
        "experimentName": "",
        "allowedStatuses": ALL_STATUSES,
        "colParams": [{"hparam": "lr", "order": "ORDER_ASC"}],
        "startIndex": 0,
        "sliceSize": 100,
    }
    answer = wait_for(
        lambda: post_json(base, "data/plugin/hparams/session_groups", request),
        lambda r: (
            r.get("totalSize") == len(RUNS)
            and all(
                len(g["sessions"][0].get("metricValues", [])) == expected_metrics for g in r["sessionGroups"]
            )
        ),
    )
    return answer["sessionGroups"]


def group_name(run: str) -> str:
    values, trial_id, _, _ = RUNS[run]
    compact = json.dumps(values, sort_keys=True, separators=(",", ":"))
    return trial_id or hashlib.sha256(compact.encode()).hexdigest()


def metric_values(session: dict) -> dict:
    return {
        (m["name"]["group"], m["name"]["tag"]): (m["value"], m["trainingStep"])
        for m in session["metricValues"]
    }


@pytest.mark.parametrize("kind", ["config", "no_config"])
def test_sessions_with_hparams_and_metrics_of_their_own_run(servers, kind):
    """Every run a session with its first hparams (the `hparams` docstring: a second call in
    a run changes nothing), its status and times, and the last values of its scalars."""
    groups = session_groups(servers[kind], expected_metrics=3)
    ordered = sorted(RUNS, key=lambda run: RUNS[run][0]["lr"])
    assert [g["sessions"][0]["name"] for g in groups] == ordered
    statuses = {"success": "STATUS_SUCCESS", "failure": "STATUS_FAILURE", "running": "STATUS_RUNNING"}
    for group in groups:
        (session,) = group["sessions"]
        run = session["name"]
        values, _, last, status = RUNS[run]
        index = list(RUNS).index(run)
        assert group["name"] == group_name(run)
        assert group["hparams"] == values
        assert session["status"] == statuses[status]
        assert (session["startTimeSecs"], session["endTimeSecs"]) == (START + index, END + index)
        assert metric_values(session) == {
            ("", "loss"): (last["loss"], 2),
            ("", "accuracy"): (pytest.approx(0.7), 2),
            ("eval", "loss"): (EVAL_LOSS[run], 2),
        }


def experiment(base: str) -> dict:
    return wait_for(
        lambda: post_json(base, "data/plugin/hparams/experiment", {"experimentName": ""}),
        lambda r: len(r.get("hparamInfos", [])) >= 4 and len(r.get("metricInfos", [])) == 3,
    )


def test_experiment_from_hparams_config(servers):
    answer = experiment(servers["config"])
    infos = {info["name"]: info for info in answer["hparamInfos"]}
    assert sorted(infos) == sorted(h.name for h in config(hp)[0])
    assert infos["lr"]["displayName"] == "learning rate" and infos["lr"]["description"] == "*step*"
    assert infos["lr"]["type"] == "DATA_TYPE_FLOAT64"
    assert infos["lr"]["domainInterval"] == {"minValue": 1e-4, "maxValue": 0.1}
    assert infos["units"]["domainInterval"] == {"minValue": 16, "maxValue": 256}
    assert infos["optimizer"]["domainDiscrete"] == ["adam", "sgd"]
    assert infos["optimizer"]["type"] == "DATA_TYPE_STRING"
    assert infos["dropout"]["domainDiscrete"] == [0.1, 0.2, 0.3]
    assert infos["use_bn"]["domainDiscrete"] == [False, True] and infos["use_bn"]["type"] == "DATA_TYPE_BOOL"
    assert "type" not in infos["free"] or infos["free"]["type"] == "DATA_TYPE_UNSET"
    assert answer["timeCreatedSecs"] == CREATED
    metrics = [
        (m["name"]["group"], m["name"]["tag"], m["displayName"], m["datasetType"])
        for m in answer["metricInfos"]
    ]
    assert sorted(metrics) == [
        ("", "accuracy", "", "DATASET_UNKNOWN"),
        ("", "loss", "", "DATASET_TRAINING"),
        ("eval", "loss", "eval loss", "DATASET_VALIDATION"),
    ]


def test_experiment_derived_from_the_runs(servers):
    answer = experiment(servers["no_config"])
    infos = {info["name"]: info for info in answer["hparamInfos"]}
    assert set(infos) == {"lr", "optimizer", "units", "use_bn"}
    assert infos["lr"]["domainInterval"] == {"minValue": 0.001, "maxValue": 0.1}
    assert sorted(infos["optimizer"]["domainDiscrete"]) == ["adam", "sgd"]
    assert infos["use_bn"]["type"] == "DATA_TYPE_BOOL"
    metrics = sorted((m["name"]["group"], m["name"]["tag"]) for m in answer["metricInfos"])
    assert metrics == [("", "accuracy"), ("", "loss"), ("eval", "loss")]

"""Distributed jobs: only rank 0 writes by default, `ranks="all"` gives a run per rank,
and `summarylib.distributed` reduces across ranks, with real `torchrun` processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import summarylib as sl
from summarylib.compat.torch import SummaryWriter as TorchStyleWriter
from summarylib.writer import ranks
from tests.tensorboard_data import read_scalars

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAM = os.path.join(ROOT, "tests", "programs", "ddp_training.py")
LAUNCHER_VARIABLES = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK")


def torchrun(tmp_path, mode: str) -> tuple[str, list[dict]]:
    """Run the DDP program on two processes; its logdir and each rank's values."""
    pytest.importorskip("torch", reason="torch is not installed (the frameworks extra)")
    logdir = str(tmp_path / "logs")
    env = dict(os.environ, PYTHONPATH=ROOT, OMP_NUM_THREADS="1")
    for variable in LAUNCHER_VARIABLES:
        env.pop(variable, None)
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2"]
    result = subprocess.run(
        [*command, PROGRAM, logdir, mode, str(tmp_path)], capture_output=True, text=True, env=env, timeout=300
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    outputs = []
    for rank in range(2):
        with open(tmp_path / f"rank{rank}.json") as file:
            outputs.append(json.load(file))
    return logdir, outputs


@pytest.mark.slow
def test_torchrun_default_writes_one_run_with_every_step_once_and_the_mean(tmp_path):
    logdir, outputs = torchrun(tmp_path, "default")
    assert [name for name in os.listdir(logdir) if not name.startswith("events.")] == []
    assert len(os.listdir(logdir)) == 1  # one event file: rank 0's
    scalars = read_scalars(logdir)
    assert list(scalars) == ["."]
    means = scalars["."]["loss/mean_over_ranks"]
    assert [step for step, _ in means] == [0, 1, 2, 3, 4]
    expected = np.mean([out["local"] for out in outputs], axis=0)
    np.testing.assert_allclose([value for _, value in means], expected, rtol=1e-6)
    assert outputs[0]["reduced"] == outputs[1]["reduced"]
    assert [value for _, value in scalars["."]["loss/this_rank"]] == pytest.approx(
        outputs[0]["local"], rel=1e-6
    )
    assert [out["noop"] for out in outputs] == [False, True]


@pytest.mark.slow
def test_torchrun_ranks_all_gives_each_rank_its_run(tmp_path):
    logdir, outputs = torchrun(tmp_path, "all")
    assert sorted(os.listdir(logdir)) == ["rank_0", "rank_1"]
    scalars = read_scalars(logdir)
    for out in outputs:
        mine = scalars[f"rank_{out['rank']}"]["loss/this_rank"]
        assert [value for _, value in mine] == pytest.approx(out["local"], rel=1e-6)


@pytest.mark.parametrize(
    ("variables", "expected"),
    [
        ({"RANK": "3", "WORLD_SIZE": "8"}, (3, 8)),
        ({"LOCAL_RANK": "1", "LOCAL_WORLD_SIZE": "2"}, (1, 2)),
        ({"OMPI_COMM_WORLD_RANK": "1", "OMPI_COMM_WORLD_SIZE": "4"}, (1, 4)),
        ({"PMI_RANK": "2", "PMI_SIZE": "3"}, (2, 3)),
        ({"SLURM_PROCID": "5", "SLURM_NTASKS": "6"}, (5, 6)),
        ({}, (0, 1)),
    ],
)
def test_launchers_environments_name_the_rank(monkeypatch, logdir, variables, expected):
    for variable in LAUNCHER_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    assert ranks.job_rank() == expected
    writer = sl.create_file_writer(logdir)
    torch_style = TorchStyleWriter(os.path.join(logdir, "torch"))
    with writer.as_default(step=0):
        assert sl.scalar("x", 1.0) is (expected[0] == 0)
    torch_style.add_scalar("x", 1.0, 0)
    torch_style.close()
    writer.close()
    assert os.path.exists(logdir) is (expected[0] == 0)  # other ranks create nothing
    chosen = sl.create_file_writer(logdir, ranks=[expected[0]])
    assert chosen.logdir == (logdir if expected[1] == 1 else os.path.join(logdir, f"rank_{expected[0]}"))
    chosen.close()


def test_reductions_outside_a_job_return_the_value_and_inside_one_need_a_collective(monkeypatch):
    for variable in LAUNCHER_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    assert sl.distributed.mean(np.float32(2.5)) == sl.distributed.sum(2.5) == sl.distributed.max(2.5) == 2.5
    monkeypatch.setenv("RANK", "0")
    monkeypatch.setenv("WORLD_SIZE", "2")
    with pytest.raises(RuntimeError, match="init_process_group"):
        sl.distributed.mean(1.0)
    with pytest.raises(TypeError, match=r"distributed\.mean"):
        sl.distributed.mean("x")


@pytest.mark.parametrize("bad", ["some", [1, -1], [True], 3])
def test_bad_ranks_are_rejected(logdir, bad):
    with pytest.raises(ValueError, match="ranks"):
        sl.create_file_writer(logdir, ranks=bad)

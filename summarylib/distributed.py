"""Reduce a scalar across the processes of a distributed job, so the one rank that writes
(rank 0, by default) can log a value of the whole job:

    loss_all = summarylib.distributed.mean(loss)     # called on every rank, as collectives are
    summarylib.scalar("train/loss", loss_all, step=step)   # a no-op on ranks that do not write

The reduction goes through the job's own collective library: `torch.distributed`'s
`all_reduce` when the script has initialized a process group. Outside a distributed job
the value is returned as a float. summarylib never imports a framework to find out.
"""

from __future__ import annotations

import sys
from typing import Any

from summarylib.ops.convert import as_float
from summarylib.writer.ranks import job_rank, torch_distributed_ready

__all__ = ["max", "mean", "sum"]


def mean(value: Any) -> float:
    """The mean of `value` (a real scalar: number, numpy scalar, 0-d tensor) over all ranks."""
    return _all_reduce("mean", value)


def sum(value: Any) -> float:
    """The sum of `value` over all ranks."""
    return _all_reduce("sum", value)


def max(value: Any) -> float:
    """The largest `value` over all ranks."""
    return _all_reduce("max", value)


def _all_reduce(reduction: str, value: Any) -> float:
    number = as_float(f"distributed.{reduction}", "<value>", "value", value)
    if torch_distributed_ready():
        return _torch_all_reduce(reduction, number)
    _, size = job_rank()
    if size > 1:
        raise RuntimeError(
            f"summarylib.distributed.{reduction}: this is one of {size} processes of a job, but no "
            "collective library is initialized; call torch.distributed.init_process_group() first"
        )
    return number


def _torch_all_reduce(reduction: str, number: float) -> float:
    torch = sys.modules["torch"]
    distributed = sys.modules["torch.distributed"]
    # NCCL reduces only device tensors; gloo and MPI take host tensors.
    device = "cuda" if distributed.get_backend() == "nccl" else "cpu"
    tensor = torch.tensor([number], dtype=torch.float64, device=device)
    operation = distributed.ReduceOp.MAX if reduction == "max" else distributed.ReduceOp.SUM
    distributed.all_reduce(tensor, op=operation)
    total = float(tensor.item())
    return total / distributed.get_world_size() if reduction == "mean" else total

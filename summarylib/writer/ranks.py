"""Which process of a distributed job this is, and which run (if any) it writes.

`torchrun --nproc_per_node=8` starts eight copies of a training script; eight writers in
one logdir would make eight event files of one run, and TensorBoard follows only the
newest, so seven ranks' data would vanish. By default only global rank 0 writes, so the
dashboard shows one coherent run; `ranks="all"` (or a list of ranks) gives each chosen
rank a run of its own, `logdir/rank_{k}`.

The rank comes from the job itself, never by importing a framework: an initialized
`torch.distributed` (if the script imported it), then the environment that torchrun,
SLURM, Open MPI and MPICH/PMI set (in Lightning's order: a process's own launcher before
the job's SLURM task), then `jax.process_index()` if the script imported jax.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from typing import Any

from summarylib.checks import input_error
from summarylib.format.storage import join

# (rank variable, size variable) of each launcher, in the order they are trusted.
_LAUNCHER_VARIABLES = (
    ("RANK", "WORLD_SIZE"),  # torchrun, torch.distributed.launch, accelerate
    ("LOCAL_RANK", "LOCAL_WORLD_SIZE"),  # Lightning's launcher sets only the local rank
    ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"),  # Open MPI's mpirun
    ("PMI_RANK", "PMI_SIZE"),  # MPICH, Intel MPI
    ("SLURM_PROCID", "SLURM_NTASKS"),  # srun
)

Ranks = None | str | Iterable[int]


def job_rank() -> tuple[int, int]:
    """(global rank, number of processes) of this process; (0, 1) outside a job."""
    if torch_distributed_ready():
        distributed = sys.modules["torch.distributed"]
        return distributed.get_rank(), distributed.get_world_size()
    for rank_variable, size_variable in _LAUNCHER_VARIABLES:
        rank, size = os.environ.get(rank_variable), os.environ.get(size_variable)
        if rank is not None and rank.isdigit():
            return int(rank), int(size) if size is not None and size.isdigit() else int(rank) + 1
    jax = sys.modules.get("jax")
    if jax is not None and callable(getattr(jax, "process_count", None)):
        return jax.process_index(), jax.process_count()
    return 0, 1


def torch_distributed_ready() -> bool:
    """Whether the script imported torch.distributed and initialized its process group."""
    distributed = sys.modules.get("torch.distributed")
    return distributed is not None and distributed.is_available() and distributed.is_initialized()


def check_ranks(ranks: Any, where: str) -> Ranks:
    """`ranks` as given when it is None, "all" or a collection of non-negative ints."""
    if ranks is None or (isinstance(ranks, str) and ranks == "all"):
        return ranks
    if isinstance(ranks, (str, bytes)) or not isinstance(ranks, Iterable):
        raise input_error(
            ValueError, where, None, "ranks", f"expected None, 'all' or a list of ranks, got {ranks!r}"
        )
    chosen = list(ranks)
    if not all(isinstance(rank, int) and not isinstance(rank, bool) and rank >= 0 for rank in chosen):
        raise input_error(ValueError, where, None, "ranks", f"expected non-negative ints, got {ranks!r}")
    return frozenset(chosen)


def run_logdir(logdir: str, ranks: Ranks) -> str | None:
    """The logdir this process writes for a writer of `logdir`, or None when it writes
    nothing: rank 0 writes `logdir` by default; with `ranks` ("all" or chosen ranks) in
    a job of several processes, each chosen rank writes `logdir/rank_{k}`."""
    rank, size = job_rank()
    if ranks is None:
        return logdir if rank == 0 else None
    if ranks != "all" and rank not in ranks:
        return None
    if size == 1:
        return logdir
    return join(logdir, f"rank_{rank}")

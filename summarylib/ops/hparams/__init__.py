"""HParams for TensorBoard's HParams dashboard: the ops bound to the default writer
(`op.py`), the experiment/session records they encode (`encoding.py`) and the
hyperparameters, domains and metrics those are made of (`domains.py`). Users import it as
`summarylib.hparams`. May import the shared op helpers (`summarylib.ops`) and the layers
below (the writer, format, checks, the protos); never another kind's folder."""

from summarylib.ops.hparams.domains import Discrete, Domain, HParam, IntInterval, Metric, RealInterval
from summarylib.ops.hparams.op import (
    hparams,
    hparams_config,
    hparams_config_pb,
    hparams_pb,
    session_end,
    session_end_pb,
)

__all__ = [
    "Discrete",
    "Domain",
    "HParam",
    "IntInterval",
    "Metric",
    "RealInterval",
    "hparams",
    "hparams_config",
    "hparams_config_pb",
    "hparams_pb",
    "session_end",
    "session_end_pb",
]

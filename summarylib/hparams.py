"""HParams for TensorBoard's HParams dashboard, with the shape of
`tensorboard.plugins.hparams.api`: code written for it changes one import.

    import summarylib as sl
    from summarylib import hparams as hp

    HP_LR = hp.HParam("lr", hp.RealInterval(1e-4, 1e-1))
    with sl.create_file_writer("runs/lr=0.01").as_default(step=0):
        hp.hparams_config([HP_LR], [hp.Metric("loss")])   # optional: domains, metric names
        hp.hparams({HP_LR: 0.01})
        for step in range(100):
            sl.scalar("loss", loss, step=step)              # the dashboard's metric column
        hp.session_end("success")

**Same run, not a subdirectory.** Every record goes into the default writer's own run, so
the dashboard takes each session's metric values from the scalars of that run (the last
value of each tag; a `Metric` with a `group` reads the subdirectory of that name).
torch's and tensorboardX's `add_hparams` write into a new timestamped subdirectory
instead, which TensorBoard shows as a separate session with no curves.

The records are written at step 0, whatever the default step, as TensorFlow writes them.
The ops return False, writing nothing, when there is no default writer or recording is off.
"""

# The namespace is exactly ops.hparams's: its names, and its __all__.
from summarylib.ops.hparams import *  # noqa: F403
from summarylib.ops.hparams import __all__ as __all__

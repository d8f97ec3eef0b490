"""Aliases, from-imports, comments and odd formatting survive."""

import sys

import numpy as np
import tensorflow as tf  # only for summaries
from tensorflow import summary as S
from tensorflow.summary import scalar

logdir = sys.argv[1]
w = S.create_file_writer(   # the writer
    logdir,
    flush_millis=1000,
)
with w.as_default(step=0):
    scalar( "a" ,  float(np.mean([1.0, 2.0])) )  # odd spacing, kept
    scalar("b",
           2.5,
           step=1)   # a comment after a call
    S.scalar("c", 3.0,
             step=2)
    tf.summary.flush()
w.close()

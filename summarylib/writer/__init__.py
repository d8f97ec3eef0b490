"""The writing engine: a run's writer, its queue and background thread, and its files.

It imports only `summarylib.format`, `summarylib.checks` and `summarylib.proto` (never the
ops, which queue their work here, nor the reader). A module a job:

- What users and ops hold: summary_writer (the writer resource), api (`create_file_writer`,
  `flush`), writer_arguments (their checks), context (the default writer, step and
  recording condition), queue (how an op hands its work to the writer), snapshots (the
  recycled memory of queued arrays), ranks (which process of a distributed job writes).
- The engine: intake (the caller's side: queueing, the queue's bounds), scalar_stream
  (the scalars' lane), backlog (the queue's age bound), engine (the worker's thread,
  flush, close), drain (the worker's pass over the queue), output (framed records handed
  to the OS), event_codec (the bytes of an event), outcomes (stats and errors), lifecycle
  (one engine per logdir; exit, SIGTERM and fork).
- The files: run_files (which storage a run gets), event_file (local event files),
  rolling_file (files kept for the last N seconds), segments, segment_uploads,
  segment_spill and segment_contents (runs on object stores), series_files (the many runs
  one writer's thread writes, as torch's `add_scalars` does).
"""

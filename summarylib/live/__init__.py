"""The Live dashboard: a run's watch views, images and scalars in the browser as they are
written, and the views switched on from the page (issue 23).

`app` (the WSGI app: its routes), `access` (who may talk to a run: the checks every request
passes), `frames` (following the logdir's runs), `plugin` (the TensorBoard plugin, the one
module here that imports TensorBoard), `__main__` and `server` (the same app without
TensorBoard: `python -m summarylib.live --logdir runs`), `static/` (the page).
The training side is `watch(..., live=True)`; the two meet in the run's control file and
its live/ subdirectory (summarylib.format.live_control).

A surface, on top of the layers: it imports the reader and format, never the writer.
"""

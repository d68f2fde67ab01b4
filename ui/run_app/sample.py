"""The sample app in this server's process: started on first use (a run with its targets), on
127.0.0.1 at a free port, once per process; its two target files pointed at it.

Contract: :func:`targets` is the sample app's two versions as they ship (``data/sample_targets``,
read once: their names and what they call), :func:`running_targets` the same pointed at the app
now serving (started if it is not). The app needs no key and no model, and runs in daemon threads
(it ends with the server).
"""

from __future__ import annotations

import threading

from evaluators.sample_app import SAMPLE_TARGETS, VERSIONS, RunningApp, serve_in_thread
from evaluators.targets import Target, load_target

_lock = threading.Lock()
_app: list[RunningApp] = []
_shipped: list[Target] = []


def targets() -> list[Target]:
    """The two versions as the target files ship (they call 127.0.0.1:8765 until started here)."""
    with _lock:
        if not _shipped:
            _shipped.extend(load_target(SAMPLE_TARGETS[v]) for v in VERSIONS)
        return list(_shipped)


def running() -> RunningApp:
    """The sample app serving in this process (started now if it is not)."""
    with _lock:
        if not _app or not _app[0].thread.is_alive():
            _app[:] = [serve_in_thread()]
        return _app[0]


def running_targets() -> dict[str, Target]:
    """Name -> the version's target calling the app serving in this process."""
    app = running()
    return {t.name: t.at(app.url_for(v)) for v, t in zip(VERSIONS, targets())}


def is_running() -> bool:
    with _lock:
        return bool(_app) and _app[0].thread.is_alive()

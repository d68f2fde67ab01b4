"""The dashboard launcher of the browser tests: ``evaluators.testing.app_server`` (re-exported), and
:func:`gone` (whether a process ended), for the tests that watch the server's worker process."""

import time
from pathlib import Path

from evaluators.testing.app_server import (
    CHROMIUM,
    CHROMIUM_ARGS,
    ROOT,
    WatchedBrowser,
    app_env,
    free_port,
    start_app,
    stop,
    wait_healthy,
)

__all__ = ["CHROMIUM", "CHROMIUM_ARGS", "ROOT", "WatchedBrowser", "app_env", "free_port", "gone", "start_app",
           "stop", "wait_healthy"]


def gone(pid: int, within: float) -> bool:
    """Whether process ``pid`` ended (or is a zombie) within ``within`` seconds."""
    end = time.time() + within
    while time.time() < end:
        try:
            if Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] == "Z":
                return True
        except (OSError, IndexError):
            return True
        time.sleep(0.05)
    return False

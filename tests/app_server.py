"""The dashboard launcher of the browser tests: ``evaluators.testing.app_server`` (re-exported)."""

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

__all__ = ["CHROMIUM", "CHROMIUM_ARGS", "ROOT", "WatchedBrowser", "app_env", "free_port", "start_app", "stop",
           "wait_healthy"]

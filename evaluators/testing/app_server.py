"""Start and stop the dashboard (`streamlit run serve.py`: ``app.py`` as it is served) on a free
local port, offline and without API keys; shared by the Chromium end-to-end tests and
``bench/ui_bench.py`` (standard library only; it runs the app of a source checkout: ``ROOT``, the
folder above ``evaluators/``).

    port = free_port()
    proc = start_app(port, app_env(tmp_dir), tmp_dir / "streamlit.log")
    try:
        wait_healthy(f"http://127.0.0.1:{port}", proc)
        ...  # p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    finally:
        stop(proc)
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the source checkout (app.py)
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def app_env(tmp_dir: Path) -> dict[str, str]:
    """This process's environment without API keys or an owner endpoint, offline, with the run
    store in ``tmp_dir``."""
    from ..llm.settings import KEY_ENV, OWNER_BASE_URL_ENV

    drop = {*KEY_ENV.values(), OWNER_BASE_URL_ENV}
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(RAG_EVAL_STORE=str(tmp_dir / "runs.sqlite3"), HF_HUB_OFFLINE="1",
               TRANSFORMERS_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    return env


def start_app(port: int, env: dict[str, str], log: Path) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "streamlit", "run", "serve.py", "--server.port", str(port),
           "--server.address", "127.0.0.1", "--server.headless", "true",
           "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]
    return subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT)


def wait_healthy(url: str, proc: subprocess.Popen, timeout: float | None = 60,
                 interval: float = 0.2) -> None:
    """Poll ``/_stcore/health`` every ``interval`` s until it answers 200 (``timeout=None``: no
    limit); raise when streamlit exits first or ``timeout`` passes."""
    end = None if timeout is None else time.time() + timeout
    while end is None or time.time() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(interval)
    raise TimeoutError("streamlit did not become healthy")


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class WatchedBrowser:
    """A Playwright ``Browser`` whose every context and page reports what a person never sees but the
    browser console does: console errors, uncaught page errors, failed requests (not those the
    browser aborts itself on a navigation) and HTTP 4xx / 5xx responses, collected in ``problems``
    (the ``chromium`` test fixture fails the test on any). Everything else is the browser's own
    (``close``, ``contexts``, …).

        browser = WatchedBrowser(p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS))
        page = browser.new_page(viewport=...)        # or browser.new_context(...).new_page()
        with browser.expecting_problems():            # e.g. while the test stops the server
            ...
    """

    def __init__(self, browser) -> None:
        self.browser = browser
        self.problems: list[str] = []
        self.expected: list[str] = []
        self._expecting = 0

    def __getattr__(self, name: str):
        return getattr(self.browser, name)

    def _add(self, text: str) -> None:
        (self.expected if self._expecting else self.problems).append(text)

    def watch(self, context):
        """Report the problems of every page of ``context`` (its pages to come too)."""
        context.on("console", lambda m: self._add(f"console {m.type}: {m.text} ({m.location.get('url', '')})")
                   if m.type == "error" else None)
        context.on("weberror", lambda e: self._add(f"page error: {e.error}"))
        # net::ERR_ABORTED = the browser dropped the request itself because the page moved on (a
        # navigation cancels the scripts still loading): the server failed nothing
        context.on("requestfailed", lambda r: self._add(f"request failed: {r.method} {r.url} ({r.failure})")
                   if r.failure != "net::ERR_ABORTED" else None)
        context.on("response", lambda r: self._add(f"HTTP {r.status}: {r.request.method} {r.url}")
                   if r.status >= 400 else None)
        return context

    def new_context(self, **kwargs):
        return self.watch(self.browser.new_context(**kwargs))

    def new_page(self, **kwargs):
        return self.new_context(**kwargs).new_page()

    @contextmanager
    def expecting_problems(self):
        """Problems the test causes on purpose (a server it stops) go to ``expected`` instead."""
        self._expecting += 1
        try:
            yield
        finally:
            self._expecting -= 1

"""Start and stop the dashboard (`streamlit run app.py`) on a free local port, offline and without
API keys; shared by the Chromium end-to-end tests and ``bench/ui_bench.py`` (standard library only;
it runs ``app.py`` of a source checkout: ``ROOT``, the folder above ``evaluators/``).

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
    cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
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

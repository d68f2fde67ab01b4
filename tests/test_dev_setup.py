"""``scripts/dev.sh`` builds the ONNX encoder during set-up (issue 47, item 11): the first evaluation
on a fresh machine must not pay for it (it was twice as slow; with the torch extra, the measurement
inside the first test that encodes ran past the 300 s test timeout). The step says what it does,
is skipped like the install stamps once done, and is done again when its folder is gone or the
installed backends change. Run through the real script (``bash scripts/dev.sh encoder``) with a
venv whose ``python`` is this interpreter and whose install stamps are current, so nothing is
installed."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _venv(tmp_path: Path) -> Path:
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    py = venv / "bin" / "python"
    py.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n', encoding="utf-8")
    py.chmod(0o755)
    # the runtime's install stamp, as dev.sh's stamp_ok computes it: its installs are skipped
    want = hashlib.sha256(b"".join((ROOT / f).read_bytes() for f in ("requirements.txt", "requirements-model.txt")))
    (venv / ".stamp-runtime").write_text(want.hexdigest()[:16] + "\n", encoding="utf-8")
    return venv


def _setup(venv: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAG_EVAL_PRECISION")}
    return subprocess.run(["bash", "scripts/dev.sh", "encoder"], cwd=ROOT, env={**env, "VENV": str(venv)},
                          capture_output=True, text=True, timeout=1200)


@pytest.mark.slow
def test_set_up_builds_the_encoder_once_and_again_only_when_needed(tmp_path):
    venv = _venv(tmp_path)
    first = _setup(venv)
    assert first.returncode == 0, first.stderr
    assert "set-up: the ONNX encoder (built from the model's weights and measured on this CPU, once)" in first.stderr
    assert "encoder ready in" in first.stderr and "graphs and measurement: " in first.stderr
    folder = Path((venv / ".encoder-folder").read_text(encoding="utf-8").strip())
    assert (folder / "meta.json").is_file() and (venv / ".stamp-encoder").is_file()
    assert not (venv / ".stamp-encoder.new").exists()

    again = _setup(venv)  # like an install stamp: nothing runs
    assert again.returncode == 0 and again.stderr == "", again.stderr

    (venv / ".encoder-folder").write_text(str(tmp_path / "cleared-cache"), encoding="utf-8")
    gone = _setup(venv)  # the built folder is gone (a cleared ~/.cache): built again
    assert gone.returncode == 0 and "set-up: the ONNX encoder" in gone.stderr, gone.stderr

    (venv / ".stamp-dev").write_text("x\n", encoding="utf-8")  # the test extras (torch) are installed now
    extras = _setup(venv)  # another set of backends to measure: done again at set-up, not in a test
    assert extras.returncode == 0 and "set-up: the ONNX encoder" in extras.stderr, extras.stderr
    assert _setup(venv).stderr == ""

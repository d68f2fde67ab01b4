"""The CLI's JSON outputs on the shared dev files are byte-for-byte those of the goldens
(``tests/golden/golden.json``; see ``tests/golden/make_golden.py`` for what is compared and how
to regenerate after an intentional change). Skipped when ../shared/data is absent."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.golden.make_golden import GOLDEN, ROOT, data_files

pytestmark = pytest.mark.slow


@pytest.mark.skipif(not data_files(), reason="shared dev data (../shared/data) is absent")
@pytest.mark.timeout(900)
def test_cli_outputs_match_goldens():
    assert GOLDEN.exists(), "no goldens: run `python -m tests.golden.make_golden`"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "tests.golden.make_golden", "--check"], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=880)
    out = proc.stdout + proc.stderr
    if out.startswith("SKIP:"):
        pytest.skip(out.strip())
    assert proc.returncode == 0, out[-6000:]
    assert "identical" in out

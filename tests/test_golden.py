"""The CLI's outputs match the goldens on any CPU, with whatever encoder this machine picks, within
tolerances measured from the encoder's spread (``tests/golden/make_golden.py``: int8 / bf16 / fp32
on one machine, and AVX2 against AVX-512). Never skipped: the repository's sample is always compared;
the shared dev files too when ../shared/data is present."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys

import pytest

from tests.golden.make_golden import GOLDEN, ROOT, check, data_files

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def golden():
    return json.loads(GOLDEN.read_text(encoding="utf-8"))


@pytest.mark.timeout(900)
def test_cli_outputs_match_goldens_within_the_measured_spread():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("RAG_EVAL_PRECISION", None)  # this machine's own (measured) choice
    proc = subprocess.run([sys.executable, "-m", "tests.golden.make_golden", "--check"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=880)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-6000:]
    assert "within tolerances" in out
    assert f"compared {12 if data_files() else 2} outputs" in out


def test_goldens_carry_their_measured_tolerances(golden):
    tol = golden["tolerances"]
    assert golden["made_with"]["backend"] == "onnx-fp32"
    assert {"onnx-int8", "avx2 torch-fp32 -> this cpu onnx-fp32"} <= set(golden["spread_measured"])
    assert 0 < tol["label_share"] < 0.1
    classes = {k: v["class"] for k, v in tol["kinds"].items()}
    assert classes[".detailed_results[*].metrics.expected_adherence"] == "continuous"
    assert classes[".detailed_results[*].metrics.adherence"] == "step"
    assert ".detailed_results[*].id" not in classes and ".detailed_results[*].spans.response[*][*]" not in classes


def _sample(golden):
    return {k: copy.deepcopy(v) for k, v in golden["outputs"].items() if k.startswith("sample_rag.")}


def test_the_check_passes_the_goldens_themselves(golden):
    assert check({**golden, "outputs": _sample(golden)}, _sample(golden)) == []


def test_the_check_fails_on_what_a_regression_changes(golden):
    """It can fail: scores moved in many cases, a continuous score moved too far, a fixed field."""
    ref = {**golden, "outputs": _sample(golden)}
    many = _sample(golden)
    for case in many["sample_rag.evaluate"]["json"]["detailed_results"][:6]:
        case["metrics"]["adherence"] = round(1.0 - case["metrics"]["adherence"], 6) or 0.5
    problems = check(ref, many)
    assert any(".detailed_results[*].metrics.adherence" in p and "allowed" in p for p in problems), problems

    far = _sample(golden)
    case = far["sample_rag.evaluate"]["json"]["detailed_results"][3]
    case["metrics"]["expected_adherence"] = case["metrics"]["expected_adherence"] - 0.3
    assert any("metrics.expected_adherence: moved 0.3" in p for p in check(ref, far))

    fixed = _sample(golden)
    fixed["sample_rag.evaluate"]["json"]["detailed_results"][0]["spans"]["response"][0][1] += 1
    assert any("never moved" in p and "spans.response" in p for p in check(ref, fixed))

    flipped = _sample(golden)
    for case in flipped["sample_rag.evaluate"]["json"]["detailed_results"]:
        for s in case["labels"]["sentences"]:
            s["fully_supported"] = not s["fully_supported"]
    assert any("sentence verdicts differ" in p for p in check(ref, flipped))

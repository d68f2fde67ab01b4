"""The CLI computes family metrics next to TRACE: every requested metric, for every case, with a
value or a skip reason."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
METRICS = ["contains_text", "response_length", "answer_contains_pii", "context_entity_recall"]


def test_cli_evaluate_with_family_metrics(tmp_path):
    out = tmp_path / "x.json"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    for k in ("GROQ_API_KEY", "OPENAI_API_KEY"):
        env.pop(k, None)
    r = subprocess.run(
        [sys.executable, "-m", "evaluators", "evaluate", str(ROOT / "data" / "sample_rag.jsonl"),
         "--metrics", ",".join(METRICS), "--out", str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    data = json.loads(out.read_text())
    cases = data["detailed_results"]
    assert cases, "no case in the output"
    for c in cases:
        for name in METRICS:
            assert name in c["metrics"], (c["id"], name)
            detail = c["metric_details"][name]
            has_value = detail["value"] is not None
            assert has_value != bool(detail["skipped"]), (c["id"], name, detail)
            assert c["metrics"][name] == detail["value"]
    # offline metrics with their inputs present have values; response_length has no bounds -> reason
    assert all(c["metric_details"]["answer_contains_pii"]["value"] in (0.0, 1.0) for c in cases)
    assert all("min and/or max" in c["metric_details"]["response_length"]["skipped"] for c in cases)
    with_gt = [c for c in cases if c["ground_truth"]]
    assert with_gt and all(c["metric_details"]["contains_text"]["value"] is not None for c in with_gt)
    # run-level means sit next to the TRACE metrics
    assert "answer_contains_pii" in data and "context_relevance" in data


def test_cli_rejects_unknown_metric(tmp_path):
    r = subprocess.run(
        [sys.executable, "-m", "evaluators", "evaluate", str(ROOT / "data" / "sample_rag.jsonl"),
         "--metrics", "faithfulnes", "--out", str(tmp_path / "y.json")],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert r.returncode != 0
    assert "faithfulnes" in r.stderr and "faithfulness" in r.stderr
    assert not (tmp_path / "y.json").exists()

"""CLI end to end: `python -m evaluators evaluate ... --method gpt_labeling` against the loopback server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.llm_server import keyed_labels_responder

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data" / "sample_rag.jsonl"
SECRET = "sk-cli-SECRET-987654321"


def run_cli(*args: str, env_extra: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", **(env_extra or {})}
    return subprocess.run([sys.executable, "-m", "evaluators", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=180)


@pytest.fixture
def cli_args(llm_server, tmp_path):
    assert DATA.exists(), DATA
    llm_server.respond(keyed_labels_responder)
    return ["evaluate", str(DATA), "--method", "gpt_labeling", "--provider", "openai_compatible",
            "--base-url", llm_server.base_url, "--model", "loopback-judge", "--concurrency", "4",
            "--rpm", "6000", "--cache", str(tmp_path / "cache.sqlite3"), "--no-progress"]


def test_cli_gpt_labeling_then_rerun_from_cache(llm_server, cli_args, tmp_path):
    n = sum(1 for line in DATA.read_text().splitlines() if line.strip())
    out = tmp_path / "out.json"
    # the environment key goes to the owner's own base URL only
    env = {"OPENAI_COMPATIBLE_API_KEY": SECRET, "RAG_EVAL_BASE_URL": llm_server.base_url}
    p = run_cli(*cli_args, "--out", str(out), env_extra=env)
    assert p.returncode == 0, p.stderr[-2000:]
    d = json.loads(out.read_text())
    assert d["method"] == "gpt_labeling" and d["num_samples"] == n
    assert d["num_scored"] == n, d["errors"]
    # one labeling call per case, and one answer-correctness call per case with a reference answer
    n_ref = sum(1 for line in DATA.read_text().splitlines() if line.strip() and json.loads(line).get("ground_truth"))
    assert 0 < n_ref <= n
    judged = sum(1 for r in d["detailed_results"] if r["metrics"].get("answer_correctness") is not None)
    assert judged == n_ref, "the stand-in answers the correctness prompt too"
    calls = d["usage"]["calls"]  # a declined answer or reference is scored without a call
    assert n < calls <= n + n_ref, d["usage"]
    assert llm_server.count == calls
    assert all(r["labeled_by"] == "gpt_labeling" for r in d["detailed_results"])
    assert llm_server.requests[0].headers["authorization"] == f"Bearer {SECRET}"
    assert d["settings"]["llm"]["model"] == "loopback-judge"
    for f in [out, *tmp_path.glob("cache.sqlite3*")]:
        assert SECRET.encode() not in f.read_bytes(), f
    assert SECRET not in p.stdout + p.stderr
    # rerun: every case from the cache
    out2 = tmp_path / "out2.json"
    p2 = run_cli(*cli_args, "--out", str(out2), env_extra=env)
    assert p2.returncode == 0, p2.stderr[-2000:]
    d2 = json.loads(out2.read_text())
    assert llm_server.count == calls
    assert d2["usage"]["calls"] == 0 and d2["usage"]["cached_calls"] == calls
    assert d2["adherence"] == d["adherence"]


def test_cli_dry_run_makes_no_call(llm_server, cli_args):
    n = sum(1 for line in DATA.read_text().splitlines() if line.strip())
    p = run_cli(*cli_args, "--dry-run")
    assert p.returncode == 0, p.stderr[-2000:]
    assert f"  calls: {n}\n" in p.stdout, p.stdout
    assert "prompt_tokens" in p.stdout and "cost_usd" in p.stdout
    assert llm_server.count == 0

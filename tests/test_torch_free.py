"""The default install has no PyTorch: the CLI, ``trace``, the ONNX encoder (built and measured
without torch), the families and the dashboard run with torch, sentence-transformers and transformers
unimportable (``tests/torch_blocker``); the paths that need them say how to add the extra."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BLOCKER = ROOT / "tests" / "torch_blocker"


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RAG_EVAL_", "GROQ_", "OPENAI_"))}
    env.update(PYTHONPATH=os.pathsep.join((str(BLOCKER), str(ROOT))), HF_HUB_OFFLINE="1",
               TRANSFORMERS_OFFLINE="1", RAG_EVAL_EMBED_CACHE="off", RAG_EVAL_STORE=str(tmp_path / "runs.sqlite3"),
               RAG_EVAL_LLM_CACHE="off", **extra)
    return env


def _py(code: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=600)


def test_the_blocker_blocks(tmp_path):
    out = _py("import importlib.util as u\ntry:\n import torch\nexcept ImportError as e: print('blocked', e)\n"
              "from evaluators.encoder.precision import torch_installed; print(torch_installed())", _env(tmp_path))
    assert "blocked" in out.stdout and out.stdout.strip().endswith("False"), out.stderr


@pytest.mark.slow
def test_cli_builds_measures_and_scores_without_torch(tmp_path):
    """A fresh model cache: the ONNX graphs are built, checked against the committed reference
    vectors and measured with no torch, then the sample data scores; the CLI says on stderr what it
    is doing while it builds, and says nothing of it once built."""
    env = _env(tmp_path, RAG_EVAL_MODEL_CACHE=str(tmp_path / "models"))
    out = tmp_path / "r.json"
    cmd = [sys.executable, "-m", "evaluators", "evaluate", "data/sample_rag.jsonl", "--method", "trace",
           "--metrics", "answer_semantic_similarity,response_length", "--out", str(out), "--no-progress"]
    res = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    d = json.loads(out.read_text(encoding="utf-8"))
    assert d["num_scored"] == d["num_samples"] == 16
    assert d["encoder"]["backend"].startswith("onnx-") and "measured" in d["encoder"]["reason"]
    assert all(c["metrics"]["answer_semantic_similarity"] is not None for c in d["detailed_results"]
               if c["ground_truth"])
    meta = json.loads(next((tmp_path / "models").glob("*/meta.json")).read_text(encoding="utf-8"))
    assert set(meta["measured"]["backends"]) == {"onnx-int8", "onnx-fp32"}  # torch was not there to measure
    # a first run says on stderr what it waits for, and how long it may take (stdout: the summary only)
    assert "note: first use of this install: building the ONNX encoder" in res.stderr and "20-30 s" in res.stderr
    assert "note: measuring the encoder backends on this CPU" in res.stderr
    assert "note:" not in res.stdout and "building" not in res.stdout
    # built once: the next run is silent about it, and a JSON output stays JSON
    info = subprocess.run([sys.executable, "-m", "evaluators", "encoder", "info"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert info.returncode == 0 and "building" not in info.stderr and "measuring" not in info.stderr, info.stderr
    assert json.loads(info.stdout)["backend"] == d["encoder"]["backend"]


def test_torch_paths_say_how_to_add_the_extra(tmp_path):
    env = _env(tmp_path)
    out = _py("from evaluators.encoder import cross_encoder\n"
              "try:\n cross_encoder.load('cross-encoder/nli-deberta-v3-small')\n"
              "except ImportError as e: print('MSG', e)", env)
    assert "MSG" in out.stdout and "pip install -r requirements-torch.txt" in out.stdout, out.stderr
    out = _py("import os; os.environ['RAG_EVAL_PRECISION'] = 'fp32'\n"
              "from evaluators import evaluate, TestCase\n"
              "r = evaluate(TestCase(id='1', question='q?', response='An answer.', documents=('A document.',)))\n"
              "print('ERR', r.error)", env)
    assert "requirements-torch.txt" in out.stdout, out.stderr
    assert (ROOT / "requirements-torch.txt").is_file()


def test_dashboard_starts_without_torch(tmp_path):
    code = ("import sys\nfrom streamlit.testing.v1 import AppTest\n"
            "at = AppTest.from_file('app.py', default_timeout=120).run()\n"
            "print('EXC', [str(e.value) for e in at.exception])\n"
            "print('TORCH', any(m.split('.')[0] in ('torch', 'sentence_transformers') for m in sys.modules))")
    out = _py(code, _env(tmp_path))
    assert "EXC []" in out.stdout and "TORCH False" in out.stdout, out.stdout + out.stderr[-3000:]

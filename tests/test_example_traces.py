"""The example trace exports shipped in ``data/traces/`` (made by ``scripts/make_example_traces.py``
with the real producers: a Phoenix server's span export, the OpenTelemetry SDK's OTLP/JSON) load
and score as the docs say: six traces, four cases, two skipped with their reasons — and the docs
point to them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from evaluators.cli import main
from evaluators.datasets import load_cases

ROOT = Path(__file__).resolve().parents[1]
TRACES = ROOT / "data" / "traces"
EXAMPLES = {"phoenix_spans.parquet": "openinference", "otlp_traces.json": "otlp"}
QUESTIONS = {"What is the capital of France?", "When was the Eiffel Tower completed?",
             "How tall is the Eiffel Tower?", "Which is the highest mountain?"}


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_an_example_export_reads_as_four_cases_and_two_skipped_traces(name):
    res = load_cases(TRACES / name)
    assert res.traces is not None and res.traces.format == EXAMPLES[name]
    assert {c.question for c in res.cases} == QUESTIONS and not res.errors
    assert all(c.documents and c.response and c.id == c.metadata["trace_id"] for c in res.cases)
    reasons = sorted(s.reason for s in res.traces.skipped)
    assert len(reasons) == 2 and reasons[0].startswith("no answer") and reasons[1].startswith("no retriever span")


def test_the_examples_are_one_app_run_in_two_formats():
    a, b = (load_cases(TRACES / n) for n in sorted(EXAMPLES))
    assert {(c.id, c.question, c.documents, c.response) for c in a.cases} == \
        {(c.id, c.question, c.documents, c.response) for c in b.cases}


def test_evaluate_scores_an_example_export(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(["evaluate", str(TRACES / "otlp_traces.json"), "--out", str(out), "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert "read 6 trace(s) as OTLP JSON (OpenTelemetry): 4 case(s), 2 skipped" in err
    d = json.loads(out.read_text(encoding="utf-8"))
    assert d["num_scored"] == 4 and len(d["traces"]["skipped"]) == 2
    # the France answer adds a population the documents do not give: not every sentence is supported
    france = next(c for c in d["detailed_results"] if c["question"] == "What is the capital of France?")
    assert france["metrics"]["adherence"] is not None and france["metrics"]["adherence"] < 1


def test_the_command_in_the_docs_works_in_a_fresh_process(tmp_path):
    out = tmp_path / "r.jsonl"
    p = subprocess.run([sys.executable, "-m", "evaluators", "evaluate", "data/traces/phoenix_spans.parquet",
                        "--out", str(out), "--no-progress"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    assert "as OpenInference spans (Phoenix export): 4 case(s), 2 skipped" in p.stderr


def test_the_docs_point_to_the_examples():
    for doc in ("docs/traces.md", "README.md", "data/README.md"):
        text = (ROOT / doc).read_text(encoding="utf-8")
        for name in EXAMPLES:
            assert f"traces/{name}" in text, f"{doc} does not point to data/traces/{name}"
    assert "scripts/make_example_traces.py" in (ROOT / "data" / "README.md").read_text(encoding="utf-8")

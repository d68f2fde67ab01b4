"""CI gate: thresholds on mean / lower bound, JUnit XML, Markdown, assert_trace, CLI exit codes."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from evaluators import gate
from evaluators.export import to_json_dict
from evaluators.testing import assert_trace
from tests.test_stats_fixtures import failed_case, make_case, make_run

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "data" / "sample_rag.jsonl"


def _run(n: int = 40, bad_every: int = 4):
    """adherence 0.5 on every `bad_every`-th case, else 1.0."""
    return make_run([make_case(i, [True, i % bad_every != 0], question=f"q{i}") for i in range(n)])


def test_parse_thresholds():
    assert gate.parse_thresholds(["adherence=0.8", "completeness=0.5, average=0.6"]) == {
        "adherence": 0.8, "completeness": 0.5, "average": 0.6}
    assert gate.parse_thresholds({"adherence": "0.7"}) == {"adherence": 0.7}
    assert gate.parse_thresholds(None) == {}
    with pytest.raises(ValueError, match="expected METRIC=VALUE"):
        gate.parse_thresholds(["adherence"])
    for bad in (["=0.8"], ["adherence="]):
        with pytest.raises(ValueError, match="expected METRIC=VALUE"):
            gate.parse_thresholds(bad)
    for bad in (["adherence=high"], ["adherence=nan"], {"adherence": None}):
        with pytest.raises(ValueError, match="is not a number"):
            gate.parse_thresholds(bad)


def test_gate_on_mean_vs_lower_bound():
    run = _run()  # adherence mean 0.875, lower bound clearly below
    out = to_json_dict(run)
    mean_gate = gate.evaluate_gate(out, {"adherence": 0.85})
    assert mean_gate.passed and mean_gate.checks[0].mean == pytest.approx(0.875)
    lower = gate.evaluate_gate(out, {"adherence": 0.85}, "lower")
    assert not lower.passed
    (msg,) = lower.messages()
    assert msg.startswith("FAIL adherence:") and "lower bound" in msg and "below 0.85" in msg
    assert lower.checks[0].low < 0.85 < lower.checks[0].mean
    # same verdicts straight from the RunResult
    assert gate.evaluate_gate(run, {"adherence": 0.85}, "lower").failures[0].metric == "adherence"
    assert not gate.evaluate_gate(out, {"adherence": 0.9}).passed
    with pytest.raises(ValueError, match="gate_on"):
        gate.evaluate_gate(out, {}, "median")


def test_gate_unknown_metric_unscored_and_no_interval():
    out = to_json_dict(_run(10))
    g = gate.evaluate_gate(out, {"nope": 0.1, "adherence": 0.1})
    assert [c.metric for c in g.failures] == ["nope"]
    assert "not in the results (available: " in g.failures[0].reason and "adherence" in g.failures[0].reason
    empty = to_json_dict(make_run([failed_case(1)]))
    assert "no scored case" in gate.evaluate_gate(empty, {"adherence": 0.1}).failures[0].reason
    one = to_json_dict(make_run([make_case(1, [True])]))
    assert gate.evaluate_gate(one, {"adherence": 0.5}).passed
    lone = gate.evaluate_gate(one, {"adherence": 0.5}, "lower")
    assert not lone.passed and "no 95% interval" in lone.failures[0].reason


def test_junit_xml(tmp_path):
    run = make_run([*_run(20).results, failed_case(99)])
    g = gate.evaluate_gate(to_json_dict(run), {"adherence": 0.99, "context_relevance": 0.1}, "mean")
    p = gate.write_junit(g, tmp_path / "reports" / "gate.xml")
    root = ET.parse(p).getroot()
    assert root.tag == "testsuites" and root.get("tests") == "2" and root.get("failures") == "1"
    suite = root.find("testsuite")
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == ["adherence >= 0.99 (mean)", "context_relevance >= 0.1 (mean)"]
    fail = cases[0].find("failure")
    assert fail is not None and "adherence" in fail.get("message") and "below 0.99" in fail.get("message")
    assert cases[1].find("failure") is None
    props = {e.get("name"): e.get("value") for e in suite.find("properties")}
    assert props["num_errors"] == "1" and props["gate_on"] == "mean"
    none = ET.fromstring(gate.junit_xml(gate.evaluate_gate(to_json_dict(run), {})))
    assert none.get("failures") == "0" and none.find("testsuite/testcase").get("name") == "evaluation completed"


def test_markdown_summary_and_step_summary(tmp_path, monkeypatch):
    run = make_run([*_run(20).results, failed_case(99)])
    out = to_json_dict(run)
    g = gate.evaluate_gate(out, {"adherence": 0.99}, "lower")
    md = gate.markdown_summary(g, out)
    assert "❌ **Gate failed** (1 metric(s))" in md and "lower bound of the 95% interval" in md
    assert "| adherence | 0.875 | [" in md and "≥ 0.99 (lower bound)" in md
    assert "| context_relevance |" in md and "Scored 20 of 21 cases" in md and "`c99`" in md
    summary = tmp_path / "step_summary.md"
    summary.write_text("previous step\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    written = gate.write_markdown(md, tmp_path / "summary.md")
    assert written == [tmp_path / "summary.md", summary]
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("previous step\n") and "Gate failed" in text  # appended, not overwritten
    monkeypatch.delenv("GITHUB_STEP_SUMMARY")
    assert gate.write_markdown(md, None) == []


def test_assert_trace_on_a_run():
    run = _run()
    assert assert_trace(run, adherence=0.85) is run
    with pytest.raises(AssertionError) as exc:
        assert_trace(run, adherence=0.85, context_relevance=0.9, gate_on="lower", worst=2)
    msg = str(exc.value)
    assert "- adherence: lower bound" in msg and "- context_relevance: mean" not in msg
    assert "context_relevance: lower bound" in msg
    assert "worst: c0 adherence=0.500  q0" in msg and "worst: c4 adherence=0.500" in msg
    assert msg.count("worst:") == 4
    with_errors = make_run([*run.results, failed_case(5)])
    assert_trace(with_errors, adherence=0.5)
    with pytest.raises(AssertionError, match="1 case\\(s\\) could not be scored"):
        assert_trace(with_errors, adherence=0.5, allow_errors=False)
    with pytest.raises(ValueError, match="at least one threshold"):
        assert_trace(run)
    with pytest.raises(ValueError, match="gate_on"):
        assert_trace(run, adherence=0.5, gate_on="upper")


# ----------------------------------------------------------------------------- CLI (real method)

CASES = [
    {"id": "good", "question": "What colour is the sky on a clear day?",
     "documents": ["On a clear day the sky is blue because air scatters blue light more than red light."],
     "response": "On a clear day the sky is blue.", "hallucinated": False},
    {"id": "bad", "question": "Who wrote Hamlet?",
     "documents": ["Hamlet is a tragedy written by William Shakespeare around 1600."],
     "response": "Hamlet was written by Charles Dickens in 1850 while he lived in Paris.",
     "hallucinated": True},
    {"id": "good2", "question": "What is the boiling point of water at sea level?",
     "documents": ["At sea level, water boils at 100 degrees Celsius."],
     "response": "Water boils at 100 degrees Celsius at sea level.", "hallucinated": False},
]


@pytest.fixture()
def small_input(tmp_path, monkeypatch):
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    p = tmp_path / "cases.jsonl"
    p.write_text("\n".join(json.dumps(c) for c in CASES) + "\n", encoding="utf-8")
    return p


def _main():
    from evaluators.cli import main

    return main


def test_cli_gate_exit_codes_and_reports(small_input, tmp_path, capsys):
    main = _main()
    out = tmp_path / "out.json"
    junit, md = tmp_path / "gate.xml", tmp_path / "summary.md"
    rc = main(["evaluate", str(small_input), "--no-progress", "--out", str(out),
               "--fail-under", "adherence=0.01", "--junit", str(junit), "--markdown", str(md)])
    assert rc == 0, capsys.readouterr()
    data = json.loads(out.read_text())
    iv = data["intervals"]["adherence"]
    assert iv["mean"] == pytest.approx(data["adherence"]) and iv["low"] is not None
    assert ET.parse(junit).getroot().get("failures") == "0"
    assert "Gate passed" in md.read_text()
    # mean passes, the lower bound cannot: exit 1 naming the metric
    threshold = max(0.01, iv["low"] + (iv["mean"] - iv["low"]) / 2)
    if iv["mean"] > iv["low"]:
        capsys.readouterr()
        rc = main(["evaluate", str(small_input), "--no-progress", "--fail-under",
                   f"adherence={threshold}", "--gate-on", "lower", "--junit", str(junit)])
        printed = capsys.readouterr().out
        assert rc == 1 and "FAILED adherence: lower bound" in printed
        assert ET.parse(junit).getroot().get("failures") == "1"
        assert main(["evaluate", str(small_input), "--no-progress", "--fail-under",
                     f"adherence={threshold}"]) == 0
    capsys.readouterr()
    one = tmp_path / "one.jsonl"
    one.write_text(json.dumps(CASES[0]) + "\n", encoding="utf-8")
    assert main(["evaluate", str(one), "--no-progress", "--fail-under", "adherence=0"]) == 0
    rc = main(["evaluate", str(one), "--no-progress", "--fail-under", "adherence=0", "--gate-on", "lower"])
    printed = capsys.readouterr().out
    assert rc == 1 and "FAILED adherence: mean" in printed and "no 95% interval" in printed
    rc = main(["evaluate", str(small_input), "--no-progress", "--fail-under", "adherence=1.01,completeness=1.01"])
    printed = capsys.readouterr().out
    assert rc == 1 and "adherence" in printed and "completeness" in printed
    assert main(["evaluate", str(small_input), "--no-progress", "--gate-on", "sideways"]) == 2


def test_cli_step_summary_env(small_input, tmp_path, monkeypatch):
    summary = tmp_path / "gh_summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert _main()(["evaluate", str(small_input), "--no-progress", "--fail-under", "adherence=0.01"]) == 0
    assert "| adherence |" in summary.read_text()


def test_cli_agreement_on_small_input(small_input, tmp_path, capsys):
    out = tmp_path / "agreement.json"
    rc = _main()(["agreement", str(small_input), "--method", "trace", "--label-column", "hallucinated",
                  "--n-boot", "100", "--out", str(out), "--no-progress"])
    printed = capsys.readouterr().out
    assert rc == 0 and "auroc" in printed and "hallucinated" in printed
    data = json.loads(out.read_text())
    assert data["methods"] == ["trace"] and data["label_columns"] == {"hallucinated": "binary"}
    aurocs = [r for r in data["table"] if r["statistic"] == "auroc" and r["metric"] == "adherence"]
    assert len(aurocs) == 1 and aurocs[0]["n"] == 3
    assert data["intervals"]["trace"]["adherence"]["n"] == 3
    assert _main()(["agreement", str(small_input), "--label-column", "missing", "--no-progress"]) == 2
    nolabels = tmp_path / "nolabels.jsonl"
    nolabels.write_text(json.dumps({k: v for k, v in CASES[0].items() if k != "hallucinated"}) + "\n")
    capsys.readouterr()
    assert _main()(["agreement", str(nolabels), "--no-progress"]) == 2
    assert "no human label columns" in capsys.readouterr().err


@pytest.mark.skipif(not SAMPLE.exists(), reason="data/sample_rag.jsonl absent")
def test_cli_agreement_on_sample(tmp_path, capsys):
    out = tmp_path / "a.json"
    rc = _main()(["agreement", str(SAMPLE), "--n-boot", "200", "--out", str(out), "--no-progress"])
    assert rc == 0, capsys.readouterr().err
    data = json.loads(out.read_text())
    row = next(r for r in data["table"] if r["statistic"] == "auroc" and r["metric"] == "adherence"
               and r["label"] == "hallucinated")
    assert 0.0 <= row["value"] <= 1.0 and row["ci_low"] <= row["value"] <= row["ci_high"]
    assert data["roc"]["hallucinated"]


def test_assert_trace_evaluates_cases():
    run = assert_trace(CASES, adherence=0.0, context_relevance=0.0)
    assert run.method == "trace" and len(run.results) == 3
    with pytest.raises(AssertionError) as exc:
        assert_trace(CASES, adherence=1.01, worst=1)
    msg = str(exc.value)
    assert "RAG quality gate failed (trace, 3 of 3 cases scored" in msg
    assert "- adherence: mean" in msg and "below 1.01" in msg and msg.count("worst:") == 1
    with pytest.raises(ValueError, match="no cases"):
        assert_trace([], adherence=0.5)

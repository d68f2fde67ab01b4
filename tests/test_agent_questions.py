"""The sample agent over 60 questions with reference tool calls (``data/sample_agent_questions.jsonl``,
written by scripts/make_agent_questions.py: right calls, wrong tools, missing calls, wrong arguments,
extra and repeated calls, dates and numbers written differently, no call, another order): run through
the real runner as a Python target, evaluated, and every tool-call metric compared with the value
worked out by hand for its kind of question. Then the same inputs given to ragas' ToolCallAccuracy /
ToolCallF1 and DeepEval's ToolCorrectnessMetric (their non-LLM metrics; test-only, installed apart:
requirements-parity.txt) — equal on every case their definitions share, the cases they do not share
named with the reason (docs/metrics.md, "Tool calls")."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import types
from pathlib import Path

import pytest

from evaluators.datasets import load_cases, load_questions
from evaluators.pipeline import evaluate_batch
from evaluators.targets import load_target, run_target
from evaluators.toolcalls import COMPARED, COUNTED

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = ROOT / "data" / "sample_agent_questions.jsonl"
PARITY = ROOT / ".venv" / "parity"  # requirements-parity.txt, installed --no-deps --target (scripts/dev.sh)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    out = {}
    for v in ("agent_v1", "agent_v2"):
        path = tmp_path_factory.mktemp(v) / "cases.jsonl"
        target = load_target(ROOT / "data" / "sample_targets" / f"{v}.yaml")
        report = run_target(target, load_questions(QUESTIONS), path)
        assert report.answered == 60 and not report.failed
        out[v] = evaluate_batch(load_cases(path).cases, "trace")
    return out


def test_sixty_questions_give_the_values_worked_out_by_hand(runs):
    rows = {json.loads(line)["id"]: json.loads(line) for line in QUESTIONS.read_text().splitlines()}
    kinds = {r["kind"] for r in rows.values()}
    assert len(rows) == 60 and len(kinds) >= 12
    checked = 0
    for r in runs["agent_v1"].results:
        want = rows[r.case.id]["expected"]
        for name, value in want.items():
            got = r.value(name)
            if value is None:
                assert got is None and r.metrics[name].skipped, (r.case.id, name)
            else:
                assert got == pytest.approx(value, abs=1e-4), (r.case.id, rows[r.case.id]["kind"], name, got)
            checked += 1
    assert checked == 60 * 12
    from evaluators.toolcalls.goal import OFFLINE

    assert runs["agent_v1"].warnings == (f"goal_accuracy: {OFFLINE}",)  # no unknown tool; trace: no LLM judge


def test_a_version_that_stopped_calling_a_tool_is_caught_by_compare(runs):
    from evaluators.comparison import compare_runs
    from evaluators.toolcalls import dropped_tools, tool_change_sentences

    a, b = runs["agent_v1"], runs["agent_v2"]
    dropped = dropped_tools(a.results, b.results)
    assert dropped == {"lookup_order": 11}, dropped  # the 11 questions that ask about a policy and an order
    assert tool_change_sentences("v2", a.results, b.results)[0] == "v2 stopped calling lookup_order on 11 questions"
    c = compare_runs([a, b], ["trajectory_superset"], names=["v1", "v2"])
    pair = c.pairs["trajectory_superset"][0]
    assert pair.verdict == "a_better"
    assert c.tools_between("v1", "v2").sentences == ["v2 stopped calling lookup_order on 11 questions"]


def test_cli_compare_of_the_two_versions_says_which_tools_v2_stopped_calling(runs, tmp_path, capsys):
    """``compare`` on the two versions' results files: the tool-call metrics with their paired
    verdicts (one table), the tool v2 stopped calling with its questions, in the text and the JSON;
    a gate on a tool-call metric trips."""
    from evaluators.cli import main
    from evaluators.cli.common import write_json
    from evaluators.export import to_json_dict

    files = []
    for v in ("agent_v1", "agent_v2"):
        files.append(str(tmp_path / f"{v}.json"))
        write_json(files[-1], to_json_dict(runs[v]))
    out = tmp_path / "cmp.json"
    code = main(["compare", *files, "--json", str(out), "--fail-on-regression", "trajectory_superset=0.05"])
    text, err = capsys.readouterr()
    assert code == 1 and "REGRESSION: agent_v2 is worse than agent_v1 on trajectory_superset" in err
    assert "Tool-call metrics, agent_v2 against agent_v1" in text
    table = text.split("Tool-call metrics")[1].split("\n\n")[0].splitlines()[2:]
    rows = {line.split()[0]: line for line in table}
    assert list(rows) == [*COMPARED, *COUNTED]  # goal accuracy: none offline
    assert rows["trajectory_superset"].endswith("worse") and rows["tool_call_f1"].endswith("worse")
    assert rows["failed_tool_calls"].endswith("no difference")
    assert rows["tool_steps"].endswith("better")  # fewer steps: lower is better for a count
    v2 = {r.case.id: {t.name for t in r.case.tool_calls} for r in runs["agent_v2"].results}
    dropped = [r.case.id for r in runs["agent_v1"].results
               if "lookup_order" in {t.name for t in r.case.tool_calls} and "lookup_order" not in v2[r.case.id]]
    assert len(dropped) == 11
    assert f"agent_v2 stopped calling lookup_order on 11 questions ({', '.join(dropped[:8])} … (+3))" in text
    assert "Other metrics" in text and "on tool_call_f1 by" not in text.split("Tool-call metrics")[0]
    d = json.loads(out.read_text())
    assert d["tool_changes"] == [{"a": "agent_v1", "b": "agent_v2", "n_paired": 60,
                                  "sentences": ["agent_v2 stopped calling lookup_order on 11 questions"],
                                  "stopped_calling": {"lookup_order": {"questions": 11, "ids": dropped}},
                                  "started_calling": {}}]
    pair = d["other_metrics"]["tool_call_f1"]["pairs"][0]
    assert pair["verdict"] == "a_better" and pair["n_compared"] == 60


# ---------------------------------------------------------------------------------- ragas / DeepEval
def _parity_imports():
    if not PARITY.is_dir():
        pytest.skip("ragas / DeepEval are installed apart: pip install --no-deps --target .venv/parity "
                    "-r requirements-parity.txt (scripts/dev.sh does)")
    os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "YES")
    os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")
    os.environ.setdefault("OPENAI_API_KEY", "loopback-unused")  # DeepEval builds a client it never calls here
    os.environ.setdefault("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    if str(PARITY) not in sys.path:
        sys.path.append(str(PARITY))
    # ragas 0.4 imports two Vertex AI classes langchain-community 0.4 no longer has (only for isinstance)
    mod = types.ModuleType("langchain_community.chat_models.vertexai")
    mod.ChatVertexAI = type("ChatVertexAI", (), {})  # type: ignore[attr-defined]
    sys.modules.setdefault(mod.__name__, mod)
    from deepeval.metrics import ToolCorrectnessMetric
    from deepeval.test_case import LLMTestCase, ToolCallParams
    from deepeval.test_case import ToolCall as DToolCall
    from ragas.dataset_schema import MultiTurnSample
    from ragas.messages import AIMessage, HumanMessage
    from ragas.messages import ToolCall as RToolCall
    from ragas.metrics import ToolCallAccuracy, ToolCallF1

    # named one by one (not locals()): a linter that removes unused imports cannot take them away
    return types.SimpleNamespace(
        ToolCorrectnessMetric=ToolCorrectnessMetric, LLMTestCase=LLMTestCase, ToolCallParams=ToolCallParams,
        DToolCall=DToolCall, MultiTurnSample=MultiTurnSample, AIMessage=AIMessage, HumanMessage=HumanMessage,
        RToolCall=RToolCall, ToolCallAccuracy=ToolCallAccuracy, ToolCallF1=ToolCallF1)


@pytest.mark.slow  # importing ragas and DeepEval: ~25 s of CPU
def test_ragas_and_deepeval_give_the_same_numbers_where_the_definitions_are_shared(runs):
    x = _parity_imports()
    compared = {"tool_call_accuracy": 0, "tool_call_f1": 0, "tool_selection": 0, "tool_arguments_by_key": 0}
    differ: dict[str, list[str]] = {}
    for r in runs["agent_v1"].results:
        case = r.case
        calls, refs = case.tool_calls, case.reference_tool_calls or ()
        ordered = case.metadata.get("tool_call_order", "strict") == "strict"
        # shared definitions: arguments compared as written (no number / date / case normalisation)
        as_written = all(_as_written(c.arguments, rc.arguments) for c in calls for rc in refs if c.name == rc.name)
        pred = [x.RToolCall(name=c.name, args=c.arguments) for c in calls]
        sample = x.MultiTurnSample(user_input=[x.HumanMessage(content=case.question),
                                               x.AIMessage(content="", tool_calls=pred or None)],
                                   reference_tool_calls=[x.RToolCall(name=c.name, args=c.arguments) for c in refs])
        ragas_acc = asyncio.run(x.ToolCallAccuracy(strict_order=ordered).multi_turn_ascore(sample))
        ragas_f1 = asyncio.run(x.ToolCallF1().multi_turn_ascore(sample))
        de_kw = {"should_consider_ordering": ordered, "async_mode": False, "include_reason": False}
        tc = x.LLMTestCase(input=case.question, actual_output=case.response,
                           tools_called=[x.DToolCall(name=c.name, input_parameters=c.arguments) for c in calls],
                           expected_tools=[x.DToolCall(name=c.name, input_parameters=c.arguments) for c in refs])
        de_sel = x.ToolCorrectnessMetric(**de_kw).measure(tc, _show_indicator=False)
        de_args = x.ToolCorrectnessMetric(evaluation_params=[x.ToolCallParams.INPUT_PARAMETERS], **de_kw).measure(
            tc, _show_indicator=False)
        reasons = []
        if not as_written:
            reasons.append("arguments equal only once normalised")
        if not refs and not calls:
            reasons.append("no call and none expected: ragas' F1 is 0 (0/0), ours 1")
        if len({(c.name, json.dumps(c.arguments, sort_keys=True)) for c in calls}) < len(calls):
            reasons.append("a repeated call: ragas' F1 and DeepEval count it once, ours each time")
        if reasons:
            differ[case.id] = reasons
            continue
        for ours, theirs, name in ((r.value("tool_call_accuracy"), ragas_acc, "tool_call_accuracy"),
                                   (r.value("tool_call_f1"), ragas_f1, "tool_call_f1"),
                                   (r.value("tool_selection"), de_sel, "tool_selection"),
                                   (r.value("tool_arguments_by_key"), de_args if refs else None,
                                    "tool_arguments_by_key")):
            if theirs is None:
                continue
            assert ours == pytest.approx(theirs, abs=1e-4), (case.id, name, ours, theirs)
            compared[name] += 1
    assert min(compared.values()) >= 40, compared  # most of the 60 share the definitions
    assert set(differ) and all(differ.values())
    assert len(differ) <= 20, differ


def _as_written(a, b):
    """Every argument two calls share is equal as written exactly when it is equal normalised."""
    from evaluators.toolcalls import same

    return all((a[k] == b[k]) == same(a[k], b[k]) for k in a.keys() & b.keys())


def test_docs_show_the_sample_agents_target_file_as_it_is():
    doc = (ROOT / "docs" / "targets.md").read_text(encoding="utf-8")
    agent = (ROOT / "data" / "sample_targets" / "agent_v1.yaml").read_text(encoding="utf-8")
    assert agent in doc and "tool_calls: tool_calls" in agent
    v2 = (ROOT / "data" / "sample_targets" / "agent_v2.yaml").read_text(encoding="utf-8")
    assert v2 == agent.replace("1", "2")  # "the same with answer_v2"

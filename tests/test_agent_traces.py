"""Agent traces read back with every tool call and every passage, in order (issue 58), from real
producers: a LangGraph ReAct agent (``tests/agent_traces.py``) instrumented with OpenInference and
sent to a real Phoenix on loopback (the session's server, its own project), exported with the
Phoenix client; the same spans as OTLP JSON (protobuf mapping and the Collector's lines); the
agent's LangChain runs as LangSmith runs and Langfuse observations / traces; and the conversations
written with the OpenTelemetry SDK in the GenAI conventions. Then evaluated: the TRACE metrics judge
the answer against everything the agent read, the tool-call metrics its calls."""

from __future__ import annotations

import json
import time

import pytest

from evaluators.datasets import load_cases
from evaluators.pipeline import evaluate_batch
from tests import trace_files
from tests.agent_traces import AgentRun, genai_spans, run_agent
from tests.trace_fixtures import need

pytestmark = [pytest.mark.slow]
PROJECT = "agent-app"


@pytest.fixture(scope="module")
def agent() -> AgentRun:
    need("langgraph.prebuilt", "langchain_core", "openinference.instrumentation.langchain", "opentelemetry.sdk")
    return run_agent()


def check(cases, agent: AgentRun, fmt: str, latency: bool = True) -> None:
    """Every question of the agent is a case whose calls, documents and answer are what it did."""
    by_q = {c.question: c for c in cases}
    assert len(cases) == len(agent.expect), [c.question for c in cases]
    for e in agent.expect:
        c = by_q[e.question]
        assert c.response == e.answer, fmt
        got = [(t.name, t.arguments, t.status) for t in c.tool_calls]
        assert got == e.calls, (fmt, got)
        assert list(c.documents) == e.documents, (fmt, c.documents)
        brought = sorted(i for t in c.tool_calls for i in t.documents)
        assert brought == list(range(len(c.documents))) or set(brought) == set(range(len(c.documents))), fmt
        for t in c.tool_calls:
            if t.status == "error":
                assert t.error and "not found" in t.error and not t.documents, fmt
            else:
                assert t.result, fmt
            if latency:
                assert t.latency_s is not None and t.latency_s >= 0, fmt
            if t.name == "search_docs" and t.status == "ok":
                assert t.query == t.arguments["query"] and t.documents, fmt
        assert c.metadata["trace_format"] == fmt


def _wait(client, n: int) -> object:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        df = client.spans.get_spans_dataframe(project_identifier=PROJECT, limit=10_000)
        if len(df) >= n:
            return df
        time.sleep(0.5)
    raise AssertionError(f"Phoenix holds {len(df)} of {n} agent spans")


@pytest.mark.timeout(900)
def test_langgraph_agent_through_a_real_phoenix(phoenix, agent, tmp_path):
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace.export import SpanExportResult

    exporter = OTLPSpanExporter(endpoint=f"{phoenix.url}/v1/traces", timeout=20)
    assert exporter.export(agent.spans) == SpanExportResult.SUCCESS
    exporter.shutdown()
    df = _wait(phoenix.client(), len(agent.spans))
    # (Parquet: pyarrow cannot write this frame's metadata column, objects of mixed value types)
    for ext in (".jsonl", ".csv"):
        p = tmp_path / f"agent{ext}"
        if ext == ".csv":
            df.to_csv(p)
        else:
            df.to_json(p, orient="records", lines=True, date_format="iso")
        res = load_cases(p)
        assert not res.errors and not res.traces.skipped
        check(res.cases, agent, "openinference")
        # the tools the model was offered are not in this export's LLM spans: none declared
        run = evaluate_batch(res.cases)
        r = {x.case.question: x for x in run.results}[agent.expect[0].question]
        assert r.ok and r.value("tool_steps") == 3 and r.value("failed_tool_calls") == 0
        # the answer's order facts come from lookup_order's result, the return rules from the searches
        assert r.value("adherence") == 1.0, [s.explanation for s in r.labels.sentences]


def test_otlp_json_of_the_agent(agent, tmp_path):
    p = tmp_path / "agent.json"
    p.write_text(trace_files.otlp_protobuf_json(agent.spans), encoding="utf-8")
    check(load_cases(p).cases, agent, "otlp")
    p = tmp_path / "agent.jsonl"
    p.write_text(trace_files.otlp_collector_lines(agent.spans, batch=7), encoding="utf-8")
    res = load_cases(p)
    check(res.cases, agent, "otlp")
    failed = {c.question: c for c in res.cases}[agent.expect[1].question]
    assert [t.status for t in failed.tool_calls] == ["error", "ok"]


def test_langsmith_runs_of_the_agent(agent, tmp_path):
    for nested in (False, True):
        p = tmp_path / f"runs{nested}.json"
        p.write_text(json.dumps(trace_files.langsmith_runs(agent, nested=nested)), encoding="utf-8")
        check(load_cases(p).cases, agent, "langsmith")


def test_langfuse_observations_and_traces_of_the_agent(agent, tmp_path):
    p = tmp_path / "observations.json"
    p.write_text(json.dumps(trace_files.langfuse_observations(agent)), encoding="utf-8")
    check(load_cases(p).cases, agent, "langfuse")
    p = tmp_path / "traces.json"
    p.write_text(json.dumps(trace_files.langfuse_traces(agent)), encoding="utf-8")
    check(load_cases(p).cases, agent, "langfuse")


def test_otlp_in_the_genai_conventions(agent, tmp_path):
    need("opentelemetry.exporter.otlp.proto.common")
    spans = genai_spans(agent.expect)
    p = tmp_path / "genai.json"
    p.write_text(trace_files.otlp_protobuf_json(spans), encoding="utf-8")
    res = load_cases(p)
    assert not res.traces.skipped, res.traces.skipped
    check(res.cases, agent, "otlp")
    c = res.cases[0]
    assert c.metadata["available_tools"] == ["search_docs", "lookup_order"]
    assert c.tool_calls[0].call_id == "call-0"

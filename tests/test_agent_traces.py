"""Agent traces read back with every tool call and every passage, in order (issue 58), from real
producers: a LangGraph ReAct agent (``tests/agent_traces.py``) instrumented with OpenInference, its
spans as OTLP JSON (protobuf mapping and the Collector's lines); the agent's LangChain runs as
LangSmith runs and Langfuse observations / traces; and the conversations written with the
OpenTelemetry SDK in the GenAI conventions. The same spans through a real Phoenix are in
tests/test_traces_phoenix.py (the module that starts the session's one Phoenix server: under
``--dist loadfile`` a second module using it would start a second server on the other worker)."""

from __future__ import annotations

import json

import pytest

from evaluators.datasets import load_cases
from tests import trace_files
from tests.agent_traces import AgentRun, check, genai_spans, run_agent_cached
from tests.trace_fixtures import need

pytestmark = [pytest.mark.slow]


@pytest.fixture(scope="module")
def agent() -> AgentRun:
    need("langgraph.prebuilt", "langchain_core", "openinference.instrumentation.langchain", "opentelemetry.sdk")
    return run_agent_cached()


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

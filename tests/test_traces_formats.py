"""Trace files from real producers -> test cases: OTLP JSON (the OpenTelemetry SDK's spans of an
instrumented LangChain app, in the protobuf JSON mapping and as the Collector writes them),
LangSmith runs (``langsmith.schemas.Run``) and Langfuse observations / traces. Every file gives back
exactly the questions, documents and answers the app sent, the trace and span ids, and lists the
traces with missing parts as skipped with their reason. Bad input names the record and loses no
readable trace."""

from __future__ import annotations

import json

import pytest

from evaluators.datasets import DatasetError, load_cases, load_input
from evaluators.traces import TraceFilter, TraceMapping, TraceOptions
from tests.trace_files import (
    check_against_truth,
    langfuse_observations,
    langfuse_traces,
    langsmith_runs,
    otlp_collector_lines,
    otlp_protobuf_json,
    root_ids,
)
from tests.trace_fixtures import need


@pytest.fixture(scope="module")
def app(rag_app):
    need("google.protobuf", "opentelemetry.exporter.otlp.proto.common", "langsmith", "langfuse")
    return rag_app


def test_otlp_protobuf_json_mapping(app, tmp_path):
    p = tmp_path / "spans.json"
    p.write_text(otlp_protobuf_json(app.spans), encoding="utf-8")
    res = load_cases(p)
    check_against_truth(res, app, "otlp")
    roots = root_ids(app)
    for c in res.cases:
        assert c.metadata["root_span_id"] == roots[c.id]
    two = next(c for c in res.cases if c.question == "How tall is the Eiffel Tower?")
    assert len(two.metadata["retriever_span_ids"]) == 2  # two retriever calls, joined in order
    assert two.metadata["model"] == "loopback"
    assert sorted(next(c for c in res.cases if c.question.startswith("What is the capital")).metadata["tags"]) \
        == ["fr", "prod"]


def test_otlp_collector_file_exporter_lines(app, tmp_path):
    p = tmp_path / "traces.jsonl"
    p.write_text(otlp_collector_lines(app.spans), encoding="utf-8")
    check_against_truth(load_cases(p), app, "otlp")


def test_truncated_otlp_keeps_every_readable_trace(app, tmp_path):
    text = otlp_collector_lines(app.spans, batch=7)
    lines = text.splitlines()
    cut = lines[-1][: len(lines[-1]) // 2]  # the last write was cut short
    p = tmp_path / "traces.jsonl"
    p.write_text("\n".join([*lines[:-1], cut]) + "\n", encoding="utf-8")
    res = load_cases(p)
    assert any(e.row == len(lines) and "truncated" in e.message for e in res.errors), res.errors
    damaged = [s for s in res.traces.skipped if "damaged" in s.reason]
    assert damaged and all(f"line {len(lines)}," in s.reason for s in damaged)
    truth = {t.question: t for t in app.truth}
    for c in res.cases:  # what is read is exact; nothing is scored from part of a trace
        assert c.documents == truth[c.question].documents and c.response == truth[c.question].answer
    whole = json.loads(otlp_protobuf_json(app.spans))  # one document cut in the middle
    p2 = tmp_path / "one.json"
    s = json.dumps(whole, indent=1)
    p2.write_text(s[: int(len(s) * 0.6)], encoding="utf-8")
    res2 = load_cases(p2)
    assert res2.errors and "truncated" in res2.errors[0].message
    assert res2.traces.skipped and all(c.response == truth[c.question].answer for c in res2.cases)


def test_spans_without_trace_ids_are_named(app, tmp_path):
    doc = json.loads(otlp_protobuf_json(app.spans))
    spans = doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
    victim = next(s for s in spans if s["name"] == "ChatOpenAI")
    del victim["traceId"]
    p = tmp_path / "spans.json"
    p.write_text(json.dumps(doc), encoding="utf-8")
    res = load_cases(p)
    assert any("'ChatOpenAI' has no traceId" in e.message and e.row == 1 for e in res.errors)
    assert len(res.cases) == 4  # the span is left out; its trace is still whole enough to score


def test_non_trace_json_forced_as_traces_names_the_record(tmp_path):
    p = tmp_path / "rows.json"
    p.write_text(json.dumps([{"question": "q", "response": "r"}, {"hello": 1}]), encoding="utf-8")
    assert len(load_cases(p).cases) == 1  # auto: flat rows
    for fmt in ("langsmith", "otlp", "langfuse"):
        with pytest.raises(DatasetError) as exc:
            load_input(p, trace=TraceOptions(format=fmt))
        assert "record 1" in str(exc.value) or "record" in str(exc.value), fmt
    p.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "x"}]}]}]}), encoding="utf-8")
    with pytest.raises(DatasetError, match="'x' has no traceId"):
        load_cases(p)


def test_langsmith_runs_flat_and_nested(app, tmp_path):
    flat = tmp_path / "runs.jsonl"
    flat.write_text("".join(json.dumps(r) + "\n" for r in langsmith_runs(app)), encoding="utf-8")
    res = load_cases(flat)
    check_against_truth(res, app, "langsmith", by_question=True)
    roots = {str(r.id): r for r in app.runs}
    for c in res.cases:
        assert c.metadata["root_span_id"] in roots  # the root run's id: where feedback goes
        assert c.id == str(roots[c.metadata["root_span_id"]].trace_id)
    nested = tmp_path / "runs.json"
    nested.write_text(json.dumps(langsmith_runs(app, nested=True)), encoding="utf-8")
    res2 = load_cases(nested)
    assert [c.model_dump() for c in res2.cases] == [c.model_dump() for c in res.cases]


def test_langfuse_observations_and_traces(app, tmp_path):
    obs = tmp_path / "observations.json"
    obs.write_text(json.dumps(langfuse_observations(app)), encoding="utf-8")
    check_against_truth(load_cases(obs), app, "langfuse", by_question=True)
    tr = tmp_path / "traces.json"
    tr.write_text(json.dumps(langfuse_traces(app)), encoding="utf-8")
    res = load_cases(tr)
    check_against_truth(res, app, "langfuse", by_question=True)
    c = res.cases[0]
    assert c.metadata["root_span_id"] == c.id  # the trace is the root: trace-level scores


def test_filters_and_seeded_sample(app, tmp_path):
    p = tmp_path / "spans.json"
    p.write_text(otlp_protobuf_json(app.spans), encoding="utf-8")
    by = lambda f: sorted(c.question for c in load_input(p, trace=TraceOptions(filter=f)).cases)  # noqa: E731
    assert by(TraceFilter(session="s-2")) == ["How tall is the Eiffel Tower?", "Which is the highest mountain?"]
    assert by(TraceFilter(tag="fr")) == ["What is the capital of France?"]
    assert by(TraceFilter(span_name="RunnableParallel<context,question>")) == ["When was the Eiffel Tower completed?"]
    starts = sorted(s.start_time for s in app.spans if s.parent is None)
    assert len(by(TraceFilter(since=starts[2] / 1e9))) == 2  # the 3rd and 4th of the 4 scored ones
    assert len(by(TraceFilter(until=starts[1] / 1e9))) == 1
    one = load_input(p, trace=TraceOptions(filter=TraceFilter(sample=3, seed=7)))
    again = load_input(p, trace=TraceOptions(filter=TraceFilter(sample=3, seed=7)))
    assert [c.id for c in one.cases] == [c.id for c in again.cases]
    assert one.traces.filtered_out == 3 and len(one.cases) + len(one.traces.skipped) == 3
    seeds = {tuple(c.id for c in load_input(p, trace=TraceOptions(filter=TraceFilter(sample=3, seed=s))).cases)
             for s in range(8)}
    assert len(seeds) > 1


def test_mapping_by_hand_when_spans_differ(app, tmp_path):
    doc = json.loads(otlp_protobuf_json(app.spans))
    for s in doc["resourceSpans"][0]["scopeSpans"][0]["spans"]:  # a retriever the app did not mark
        for a in s["attributes"]:
            if a["key"] == "openinference.span.kind" and a["value"]["stringValue"] == "RETRIEVER":
                a["value"]["stringValue"] = "CHAIN"
    p = tmp_path / "spans.json"
    p.write_text(json.dumps(doc), encoding="utf-8")
    res = load_cases(p)
    assert not res.cases and all("no retriever span" in s.reason for s in res.traces.skipped)
    mapped = res.traces.redo(mapping=TraceMapping.from_pairs({"documents": "VectorStoreRetriever:output"}))
    truth = {t.question: t for t in app.truth}
    assert len(mapped.cases) == 4
    for c in mapped.cases:
        assert c.documents == truth[c.question].documents
    q = res.traces.redo(mapping=TraceMapping.from_pairs({"documents": "VectorStoreRetriever",
                                                          "question": "VectorStoreRetriever:input",
                                                          "response": "ChatOpenAI:output"}))
    assert {c.question for c in q.cases} <= set(truth) and all(c.response == truth[c.question].answer
                                                                 for c in q.cases)
    names = res.traces.span_names()
    assert "VectorStoreRetriever" in names and "ChatOpenAI" in names

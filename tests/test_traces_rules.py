"""The rules that turn a trace into a test case, on small hand-made traces and on synthetic exports
(no test-only package needed): the question is the user's last message, documents come from the
retrievers (a reranker's output when one ran; duplicates once, in rank order), the answer is the
root's output; incomplete traces and oversized texts are skipped with the reason; bad records are
named and every readable trace still becomes a case — a 50 MB export included."""

from __future__ import annotations

import json
import time

import pytest

from evaluators.datasets import DatasetError, load_cases, load_input
from evaluators.testing.trace_exports import otlp_lines, phoenix_frame, synthetic_traces
from evaluators.traces import MAX_TEXT_CHARS, Pick, TraceMapping, TraceOptions
from evaluators.traces.annotations import document_rows, langfuse_scores, root_rows
from evaluators.traces.assemble import assemble
from evaluators.traces.model import Doc, Span, Trace
from evaluators.traces.values import text_of
from evaluators.types import CaseResult, RunResult, SentenceLabels, SentenceSupport, TraceScores


def test_the_question_is_the_users_last_message_and_the_answer_the_final_text():
    chat = [{"role": "system", "content": "Use the context: ..."}, {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello"}, {"role": "user", "content": "Where is Paris?"}]
    assert text_of(json.dumps({"messages": chat, "model": "x"}), "question") == "Where is Paris?"
    lc = [{"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "HumanMessage"],
           "kwargs": {"content": "What is RAG?", "type": "human"}}]
    assert text_of({"input": lc}, "question") == "What is RAG?"
    assert text_of({"question": "Q?", "chat_history": []}, "question") == "Q?"
    assert text_of([{"message.role": "user", "message.content": [{"type": "text", "text": "parts"}]}],
                   "question") == "parts"
    reply = {"choices": [{"message": {"role": "assistant", "content": "Final."}}]}
    assert text_of(json.dumps(reply), "answer") == "Final."
    assert text_of({"generations": [[{"text": "Gen."}]]}, "answer") == "Gen."
    assert text_of({"answer": "A.", "context": ["doc"]}, "answer") == "A."
    assert text_of({"type": "ai", "data": {"content": "AI says."}}, "answer") == "AI says."
    assert text_of("  ", "answer") is None and text_of(None, "question") is None


def span(sid, parent, kind="CHAIN", name=None, **kw):
    return Span(trace_id="t1", span_id=sid, parent_id=parent, name=name or sid, kind=kind, **kw)


def test_reranker_output_is_used_and_document_annotations_land_on_the_retriever():
    docs = [Doc("A is first."), Doc("B is second."), Doc("C is third."), Doc("A is first.")]
    t = Trace("t1", [
        span("root", None, input="q?", output="A is first.", start=0.0),
        span("ret1", "root", "RETRIEVER", documents=docs[:2], start=1.0),
        span("ret2", "root", "RETRIEVER", documents=docs[2:], start=2.0),  # "A" again: kept once
        span("rr", "root", "RERANKER", documents=[Doc("C is third."), Doc("A is first.")], start=3.0),
    ])
    case = assemble(t, "otlp")
    assert case.documents == ("C is third.", "A is first.")  # after the reranker, in its order
    assert case.metadata["document_spans"] == [[["ret2", 0]], [["ret1", 0]]]  # on the retriever spans
    no_rr = assemble(Trace("t1", t.spans[:3]), "otlp")
    assert no_rr.documents == ("A is first.", "B is second.", "C is third.")  # joined, duplicate once
    assert no_rr.metadata["document_spans"][0] == [["ret1", 0], ["ret2", 1]]  # both places annotated


def test_incomplete_and_oversized_traces_are_skipped_with_the_reason():
    orphan = Trace("t1", [span("root", None, input="q", output="a"),
                          span("ret", "gone", "RETRIEVER", documents=[Doc("d")])])
    assert "incomplete trace" in assemble(orphan, "otlp").reason
    headless = Trace("t1", [span("ret", "gone", "RETRIEVER", documents=[Doc("d")])])
    assert "no root span" in assemble(headless, "otlp").reason
    big = Trace("t1", [span("root", None, input="q", output="a"),
                       span("ret", "root", "RETRIEVER", documents=[Doc("x" * (MAX_TEXT_CHARS + 1))])])
    assert "document 1 is 1,000,001 characters long" in assemble(big, "otlp").reason
    failed = Trace("t1", [span("root", None, input="q", status="ERROR", status_message="boom\nTraceback"),
                          span("ret", "root", "RETRIEVER", documents=[Doc("d")])])
    assert assemble(failed, "otlp").reason == \
        "no answer: the root span 'root' has no output (it ended in an error: boom)"
    no_q = Trace("t1", [span("root", None, output="a"), span("ret", "root", "RETRIEVER", documents=[Doc("d")])])
    assert assemble(no_q, "otlp").reason.startswith("no question")
    from_retriever = Trace("t1", [span("root", None, output="a"),
                                  span("ret", "root", "RETRIEVER", input="the query", documents=[Doc("d")])])
    c = assemble(from_retriever, "otlp")
    assert c.question == "the query" and c.metadata["question_from"] == "retriever 'ret' query"


def test_mapping_picks_parse_and_apply():
    assert Pick.parse("my span:output.answer") == Pick("my span", "output", "answer")
    assert Pick.parse(":input.question") == Pick("", "input", "question")
    assert Pick.parse("weird:name") == Pick("weird:name")
    assert str(Pick("gen", "output", "")) == "gen:output"
    t = Trace("t1", [span("root", None, input="q", output={"final": {"answer": "deep"}}),
                     span("search", "root", "TOOL", output=json.dumps({"hits": [{"text": "h1"}, {"text": "h2"}]}))])
    m = TraceMapping.from_pairs({"documents": "search:output.hits", "response": ":output.final.answer"})
    c = assemble(t, "otlp", m)
    assert c.documents == ("h1", "h2") and c.response == "deep"
    assert "no span named 'nope'" in assemble(t, "otlp", TraceMapping.from_pairs({"documents": "nope"})).reason
    with pytest.raises(ValueError, match="cannot map answer"):
        TraceMapping.from_pairs({"answer": "x"})


def test_langsmith_runs_without_trace_ids_and_langfuse_traces_without_output(tmp_path):
    runs = [{"id": "r1", "name": "chain", "run_type": "chain", "inputs": {"question": "Q?"},
             "outputs": {"output": "Ans."}},
            {"id": "r2", "name": "VectorStoreRetriever", "run_type": "retriever", "parent_run_id": "r1",
             "inputs": {"query": "Q?"}, "outputs": {"documents": [{"page_content": "D1."}]}},
            {"id": "r3", "name": "orphan", "run_type": "llm", "parent_run_id": "missing", "inputs": {}}]
    p = tmp_path / "runs.json"
    p.write_text(json.dumps(runs))
    res = load_cases(p)
    assert [(c.id, c.question, c.documents, c.response) for c in res.cases] == [("r1", "Q?", ("D1.",), "Ans.")]
    assert "parent missing is not in the file" in res.errors[0].message
    assert res.errors[0].row == 3 and res.errors[0].column == "trace_id"
    lf = [{"id": "T", "name": "rag", "input": None, "output": None, "sessionId": "s", "observations": [
        {"id": "o1", "type": "CHAIN", "name": "chain", "input": {"question": "LQ?"}, "output": "LA.",
         "parentObservationId": None},
        {"id": "o2", "type": "SPAN", "name": "VectorStoreRetriever", "parentObservationId": "o1",
         "output": [{"pageContent": "LD."}]}]}]
    p2 = tmp_path / "lf.json"
    p2.write_text(json.dumps(lf))
    c = load_cases(p2).cases[0]
    assert (c.question, c.documents, c.response) == ("LQ?", ("LD.",), "LA.")  # older SDK: a SPAN retriever


def test_phoenix_csv_rows_without_trace_ids_are_named(tmp_path):
    df = phoenix_frame(synthetic_traces(3))
    df.iloc[1, df.columns.get_loc("context.trace_id")] = None  # a retriever span without its trace
    p = tmp_path / "spans.csv"
    df.to_csv(p)  # the index (context.span_id) is written too: the repeated column is accepted
    res = load_cases(p)
    assert len(res.errors) == 1 and res.errors[0].row == 2 and res.errors[0].column == "context.trace_id"
    assert "has no trace id" in res.errors[0].message
    assert len(res.cases) == 2 and [s.reason[:17] for s in res.traces.skipped] == ["no retriever span"]


def test_duplicated_spans_are_read_once_with_a_note(tmp_path):
    text = otlp_lines(synthetic_traces(2), per_line=1)
    p = tmp_path / "t.jsonl"
    p.write_text(text + text.splitlines()[0] + "\n")  # the first request appended twice
    res = load_cases(p)
    assert len(res.cases) == 2 and any("more than once" in w.message for w in res.warnings)


def test_a_50_mb_export_reads_every_readable_trace(tmp_path):
    traces = synthetic_traces(5200, docs=3, doc_words=115, seed=3)
    text = otlp_lines(traces, per_line=20)
    lines = text.splitlines()
    lines[37] = lines[37][:5000]  # a record cut in the middle of the file
    big = json.loads(lines[80])  # a document over the per-text limit
    spans = big["resourceSpans"][0]["scopeSpans"][0]["spans"]
    ret = next(s for s in spans if s["name"] == "retrieve")
    next(a for a in ret["attributes"] if a["key"].endswith("document.content"))["value"]["stringValue"] = \
        "y" * (MAX_TEXT_CHARS + 5)
    lines[80] = json.dumps(big)
    p = tmp_path / "export.jsonl"
    p.write_text("\n".join(lines) + "\n")
    size = p.stat().st_size
    assert 48e6 < size < 52 * 1024 * 1024, size
    t0 = time.monotonic()
    res = load_input(p, max_bytes=52 * 1024 * 1024)
    took = time.monotonic() - t0
    assert len(res.errors) == 1 and res.errors[0].row == 38 and "truncated" in res.errors[0].message
    damaged = [s for s in res.traces.skipped if "damaged" in s.reason]
    oversized = [s for s in res.traces.skipped if "characters long" in s.reason]
    assert len(damaged) >= 1 and len(oversized) == 1
    cut_traces = {t.trace_id for t in traces[37 * 20:38 * 20]}
    read = {c.id for c in res.cases}
    assert len(read) + len(res.traces.skipped) + len(cut_traces - read - {s.trace_id for s in res.traces.skipped}) \
        == len(traces)
    assert len(read) >= len(traces) - 21  # every trace outside the cut record and the oversized one
    assert took < 120
    with pytest.raises(DatasetError, match=r"larger than the limit of 50\.0 MB"):
        load_input(p, max_bytes=50_000_000)


def _result(case, rel, use, sentences):
    labels = SentenceLabels(method="trace", document_keys=("0a", "0b", "1a"), relevant_keys=rel,
                            utilized_keys=use, sentences=sentences, overall_supported=all(s.fully_supported
                                                                                         for s in sentences))
    from evaluators import trace_metrics

    return CaseResult(case=case, method="trace", labels=labels, scores=trace_metrics.compute(labels))


def test_annotation_rows_name_unsupported_sentences_and_document_shares():
    from evaluators.types import TestCase

    case = TestCase(id="t1", question="q", response="Paris is in France. It has 90 million people.",
                    documents=("Paris is in France. It is big.", "Other."),
                    metadata={"trace_id": "t1", "root_span_id": "root", "trace_format": "otlp",
                              "document_spans": [[["ret", 0]], [["ret", 1], ["ret2", 0]]]})
    r = _result(case, ("0a",), ("0a",), (SentenceSupport(key="a", supporting_keys=("0a",), fully_supported=True),
                                          SentenceSupport(key="b", fully_supported=False)))
    run = RunResult(method="trace", results=(r,))
    rows = root_rows(run)
    assert {x["name"] for x in rows} >= {"adherence", "context_relevance", "overall_supported"}
    adh = next(x for x in rows if x["name"] == "adherence")
    assert adh["score"] == 0.5 and adh["span_id"] == "root" and "“It has 90 million people.” (no support)" \
        in adh["explanation"]
    docs = {(x["span_id"], x["document_position"], x["name"]): x["score"] for x in document_rows(run)}
    assert docs[("ret", 0, "context_relevance")] == 0.5  # 1 of the 2 sentences of document 0
    assert docs[("ret", 1, "context_utilization")] == 0.0 and docs[("ret2", 0, "context_utilization")] == 0.0
    lf = langfuse_scores(run)
    assert next(x for x in lf if x["name"] == "overall_supported")["data_type"] == "BOOLEAN"
    unscored = CaseResult(case=case.model_copy(update={"id": "t2"}), method="trace", error="boom")
    assert len(root_rows(RunResult(method="trace", results=(r, unscored)))) == len(rows)
    assert isinstance(TraceScores, type)


def test_forcing_rows_reads_a_trace_file_as_rows(tmp_path):
    p = tmp_path / "t.jsonl"
    p.write_text(otlp_lines(synthetic_traces(2)))
    with pytest.raises(DatasetError, match="no question or response column"):
        load_cases(p, trace=TraceOptions(format="rows"))

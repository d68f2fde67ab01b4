"""Bad input in agent traces and reference tool calls: each named, the rest scored (issue 58) — a
tool result of 5 MB, a cycle of 500 tool calls, arguments that are not JSON, a tool span without a
parent, a reference call naming a tool the agent does not have, a reference call without a name."""

from __future__ import annotations

import json

from evaluators.datasets import load_cases
from evaluators.pipeline import evaluate_batch
from evaluators.testing.trace_exports import agent_otlp_lines, synthetic_traces
from evaluators.traces import TraceOptions, read_otlp


def _read(text: str):
    res = read_otlp(text, "agent.jsonl", TraceOptions())
    assert not res.issues
    return res


def test_a_five_megabyte_tool_result_is_named_and_the_rest_scored():
    t = synthetic_traces(2, seed=5)
    text = agent_otlp_lines(t[:1], result_chars=5_000_000) + agent_otlp_lines(t[1:])
    res = _read(text)
    assert len(res.cases) == 2 and not res.skipped
    big = next(c for c in res.cases if c.id == t[0].trace_id)
    first = big.tool_calls[0]
    assert any("over the limit" in n and "5,000,0" in n for n in first.notes), first.notes
    assert not first.documents and len(first.result or "") <= 20_000
    assert any("result cut to" in n for n in first.notes)
    assert big.documents and all(len(d) < 10_000 for d in big.documents)  # the other calls' passages
    run = evaluate_batch(res.cases)
    assert all(r.ok for r in run.results)


def test_a_cycle_of_500_tool_calls_is_read_and_counted():
    res = _read(agent_otlp_lines(synthetic_traces(1, seed=6), calls=500))
    (c,) = res.cases
    assert len(c.tool_calls) == 500
    run = evaluate_batch(res.cases)
    r = run.results[0]
    assert r.value("tool_steps") == 500
    # two alternating searches and the lookups of a few order ids: everything after them repeats
    assert r.value("redundant_tool_calls") == 500 - len({(t.name, json.dumps(t.arguments)) for t in c.tool_calls})


def test_arguments_that_are_not_json_are_kept_as_text_and_still_compared():
    res = _read(agent_otlp_lines(synthetic_traces(1, seed=7), raw_args=True))
    (c,) = res.cases
    first = c.tool_calls[0]
    assert first.arguments == {} and first.raw_arguments.startswith("query=")
    assert any("not JSON" in n for n in first.notes)
    ref = {"name": "search_docs", "arguments": {"query": first.raw_arguments}}
    case = {**_plain(c), "reference_tool_calls": [ref]}
    r = evaluate_batch([case]).results[0]
    assert r.value("tool_call_f1") is not None and r.value("tool_selection") == 1.0
    assert r.value("tool_arguments_exact") == 1.0  # the text is the reference's one argument


def test_a_tool_span_without_a_parent_is_named_and_the_trace_still_read():
    t = synthetic_traces(2, seed=8)
    res = _read(agent_otlp_lines(t, orphan_tool=True))
    assert len(res.cases) == 2 and not res.skipped
    for c in res.cases:
        assert c.metadata["root_span"] == "LangGraph"
        last = c.tool_calls[-1]
        assert any("names no parent" in n for n in last.notes)


def test_a_reference_call_to_an_unknown_tool_is_named_and_the_case_scored(tmp_path):
    res = _read(agent_otlp_lines(synthetic_traces(2, seed=9)))
    cases = [{**_plain(c), "reference_tool_calls": [{"name": "search_docs", "arguments": c.tool_calls[0].arguments},
                                                    {"name": "lookup_ordr", "arguments": {"order_id": "A-2"}}]}
             for c in res.cases]
    run = evaluate_batch(cases, goal_accuracy=False)  # (offline it would add its own warning: not available)
    assert len(run.warnings) == 2 and all("'lookup_ordr'" in w and "no call of the run used" in w
                                          for w in run.warnings)
    for r in run.results:
        assert r.ok and r.value("tool_selection") == 0.5
        assert "lookup_ordr" in r.metrics["tool_call_accuracy"].details["notes"][0]
    # and a reference call without a name: that row is named, the others load and score
    rows = [{**_plain(c), "reference_tool_calls": [{"arguments": {"q": 1}}] if i == 0 else []}
            for i, c in enumerate(res.cases)]
    p = tmp_path / "cases.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    loaded = load_cases(p)
    assert len(loaded.cases) == 1 and len(loaded.errors) == 1
    assert "row 1" in str(loaded.errors[0]) and "no tool name" in str(loaded.errors[0])


def _plain(c) -> dict:
    return {"id": c.id, "question": c.question, "response": c.response, "documents": list(c.documents),
            "tool_calls": [t.model_dump(mode="json", exclude_defaults=True) for t in c.tool_calls]}

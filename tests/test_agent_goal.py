"""Goal accuracy (issue 58 item 5): did the agent achieve what was asked — one LLM call per agent
case through ``evaluators.llm`` (the real openai and groq SDKs against the loopback server), the
prompt sentence-keyed like the labeling prompt (steps ``s1`` …, answer sentences ``a`` …), replies
parsed leniently (unknown keys dropped and noted), cached like every LLM call; offline it is not
available, and the run, the CLI, the results JSON and Inspect say so."""

from __future__ import annotations

import json
import re

import pytest

from evaluators import evaluate_batch
from evaluators.export import to_json_dict
from evaluators.toolcalls import read_calls
from evaluators.toolcalls.goal import OFFLINE, PROMPT_VERSION, build_messages
from evaluators.types import TestCase
from tests.llm_server import Reply, keyed_labels_responder, last_user_message

pytestmark = pytest.mark.usefixtures("close_llm_clients")

SEARCH = {"name": "search_docs", "arguments": {"query": "return headphones"}, "status": "ok",
          "result": '[{"page_content": "Headphones can be returned within 15 days if unopened."}]'}
LOOKUP_OK = {"name": "lookup_order", "arguments": {"order_id": "A-1042"}, "status": "ok",
             "result": '{"order_id": "A-1042", "status": "shipped", "shipped_on": "2024-05-03"}'}
LOOKUP_FAILED = {"name": "lookup_order", "arguments": {"order_id": "B-77"}, "status": "error",
                 "error": "order B-77 not found"}
DOC = "Headphones can be returned within 15 days if unopened."


def agent_case(cid: str, lookup: dict, answer: str) -> TestCase:
    return TestCase(id=cid, question=f"Where is my order {lookup['arguments']['order_id']}, and can I return the "
                                     "headphones?", response=answer, documents=(DOC,),
                    tool_calls=read_calls([SEARCH, lookup]))


CASES = [
    agent_case("ok", LOOKUP_OK, "Order A-1042 shipped on 2024-05-03. Headphones can be returned within 15 days "
                                "if unopened."),
    agent_case("failed", LOOKUP_FAILED, "Your order B-77 is on its way. Headphones can be returned within 15 days "
                                        "if unopened."),
    TestCase(id="plain", question="What is the return window?", response="15 days.", documents=(DOC,)),
]
_STEP = re.compile(r"^(s\d+)\. (\w+)\(.*\) -> (failed: )?", re.MULTILINE)
_SENT = re.compile(r"^([a-z]+)\. ", re.MULTILINE)


def goal_responder(req: dict) -> dict:
    """A judge that reads the keys the prompt shows: goal 1 (the order's status) is achieved when the
    lookup step did not fail; goal 2 (the return rule) always, citing a key that does not exist too."""
    text = last_user_message(req)
    if "Agent's final answer:" not in text:  # gpt_labeling's own prompt
        return keyed_labels_responder(req)
    steps = {k: (name, bool(failed)) for k, name, failed in _STEP.findall(text)}
    answer = text.split("Agent's final answer:\n", 1)[1].split("\n\n", 1)[0]
    sents = _SENT.findall(answer)
    lookup = next(k for k, (name, _) in steps.items() if name == "lookup_order")
    return {"goals": [
        {"goal": "where the order is", "explanation": "the lookup", "answer_sentence_keys": [sents[0]],
         "step_keys": [lookup], "achieved": not steps[lookup][1]},
        {"goal": "can the headphones be returned", "explanation": "the search",
         "answer_sentence_keys": f"{sents[1]}, zz", "step_keys": ["S1.", "s9"], "achieved": "yes"}],
        "overall_explanation": "scripted", "goal_achieved": not steps[lookup][1]}


def test_offline_it_is_not_available_and_says_so(tmp_path, fake_method, capsys):
    run = evaluate_batch(CASES, "ui_fake")
    by = {r.case.id: r for r in run.results}
    for cid in ("ok", "failed"):
        mv = by[cid].metrics["goal_accuracy"]
        assert mv.value is None and mv.skipped == OFFLINE
    assert "goal_accuracy" not in by["plain"].metrics  # no agent, no goal
    from ui.inspect.trajectory_view import trajectory_html

    assert "<b>Goal</b> — not available offline" in trajectory_html(by["ok"])  # Inspect says it too
    assert f"goal_accuracy: {OFFLINE}" in run.warnings
    d = to_json_dict(run)  # the results JSON: the reason beside the null
    case = next(c for c in d["detailed_results"] if c["id"] == "ok")
    assert case["metrics"]["goal_accuracy"] is None
    assert case["metric_details"]["goal_accuracy"]["skipped"] == OFFLINE
    # the CLI: n/a with the reason, in the summary and the results file
    src = tmp_path / "cases.jsonl"
    src.write_text("\n".join(json.dumps({"id": c.id, "question": c.question, "response": c.response,
                                         "documents": list(c.documents),
                                         "tool_calls": [t.model_dump(exclude_defaults=True) for t in c.tool_calls]})
                             for c in CASES), encoding="utf-8")
    from evaluators.cli import main

    out = tmp_path / "out.json"
    assert main(["evaluate", str(src), "--method", "ui_fake", "--no-progress", "--out", str(out)]) == 0
    printed, err = capsys.readouterr()
    line = next(x for x in printed.splitlines() if x.strip().startswith("goal_accuracy"))
    assert line.split()[1] == "n/a" and "not available offline" in line
    assert "warning: goal_accuracy: not available offline" in err
    top = json.loads(out.read_text())
    assert top["goal_accuracy"] is None and f"goal_accuracy: {OFFLINE}" in top["warnings"]
    # a dry run of an LLM method counts the goal calls apart from the labeling's
    assert main(["evaluate", str(src), "--method", "gpt_labeling", "--provider", "openai_compatible",
                 "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--dry-run"]) == 0
    dry = capsys.readouterr().out
    assert re.search(r"goal_accuracy: \{\"calls\": 2,", dry), dry


def test_the_prompt_keys_every_step_and_answer_sentence(fake_method):
    r = evaluate_batch([CASES[1]], "ui_fake").results[0]
    user = build_messages(r)[-1]["content"]
    assert "User request:\nWhere is my order B-77" in user
    assert 's1. search_docs({"query": "return headphones"}) -> [{"page_content": "Headphones' in user
    assert 's2. lookup_order({"order_id": "B-77"}) -> failed: order B-77 not found' in user
    assert "a. Your order B-77 is on its way.\nb. Headphones can be returned" in user
    assert user.index('"explanation"') < user.index('"achieved": true')  # explanation before verdict
    assert PROMPT_VERSION.startswith("goal-")


@pytest.mark.parametrize("provider", ["openai_compatible", "groq"])
def test_one_call_per_agent_case_through_the_real_sdks_cached(llm_server, loopback_settings, provider, fake_method):
    llm_server.respond(goal_responder)
    base = llm_server.groq_base_url if provider == "groq" else llm_server.base_url
    s = loopback_settings(provider=provider, base_url=base, api_key="test-key")
    run = evaluate_batch(CASES, "ui_fake", llm=s)  # an offline labeler, an LLM given to the run
    assert llm_server.count == 2  # the two agent cases, one call each; the plain case none
    by = {r.case.id: r for r in run.results}
    assert by["ok"].value("goal_accuracy") == 1.0
    assert by["failed"].value("goal_accuracy") == 0.5  # the lookup failed: the order's status not achieved
    d = by["failed"].metrics["goal_accuracy"].details
    assert [(g["goal"], g["achieved"], g["answer_sentence_keys"], g["step_keys"]) for g in d["goals"]] == [
        ("where the order is", False, ["a"], ["s2"]), ("can the headphones be returned", True, ["b"], ["s1"])]
    assert any("dropped unknown answer sentence keys zz" in n for n in d["llm_notes"])
    assert any("dropped unknown step keys s9" in n for n in d["llm_notes"])
    assert d["prompt_version"] == PROMPT_VERSION and "loopback-model" in d["model"]
    assert by["failed"].usage.calls == 1 and not run.warnings
    from ui.inspect.trajectory_view import trajectory_html

    html = trajectory_html(by["failed"])  # Inspect, under the steps: each goal, its verdict, what it cites
    assert "<b>Goal</b> — 1 of 2 achieved (goal accuracy 0.50, by the LLM)" in html
    assert ('class="rag-step failed">✗ <b>where the order is</b> <span class="meta">— not achieved · '
            "sentence a; step 2") in html
    assert llm_server.requests[0].headers["authorization"] == "Bearer test-key"
    again = evaluate_batch(CASES, "ui_fake", llm=s)  # cached like every LLM call
    assert llm_server.count == 2 and again.results[1].value("goal_accuracy") == 0.5
    assert again.results[1].usage.calls == 0


def test_gpt_labeling_judges_labels_and_goal_each_in_one_call(llm_server, loopback_settings):
    llm_server.respond(goal_responder)
    run = evaluate_batch(CASES[:2], "gpt_labeling", llm=loopback_settings())
    assert llm_server.count == 4 and all(r.ok for r in run.results)
    assert [r.value("goal_accuracy") for r in run.results] == [1.0, 0.5]
    run = evaluate_batch(CASES[:2], "gpt_labeling", llm=loopback_settings(), goal_accuracy=False)
    assert "goal_accuracy" not in run.results[0].metrics  # --no-goal-accuracy: no call, no metric


def test_a_reply_without_goals_is_asked_again_then_skipped_with_the_reason(llm_server, loopback_settings,
                                                                          fake_method):
    llm_server.queue({"goals": []}, {"overall_explanation": "no idea"})
    r = evaluate_batch(CASES[:1], "ui_fake", llm=loopback_settings()).results[0]
    assert llm_server.count == 2  # asked once more with the error
    mv = r.metrics["goal_accuracy"]
    assert mv.value is None and mv.skipped.startswith("LLM call failed") and "goals" in mv.skipped
    llm_server.reset()
    llm_server.queue(Reply.error(400, "bad request"))
    r = evaluate_batch(CASES[1:2], "ui_fake", llm=loopback_settings()).results[0]
    assert r.metrics["goal_accuracy"].skipped.startswith("LLM call failed")
    assert r.ok  # the case is still scored


def test_the_dashboards_estimate_counts_the_goal_calls(fake_method):
    """The Evaluate page's "Before you run" and a public deployment's call limits count goal accuracy's
    calls with the family metrics' (ui.jobs reads the library's estimate)."""
    from evaluators import LLMSettings
    from evaluators.pipeline import estimate
    from ui import jobs

    s = LLMSettings(provider="openai_compatible", base_url="http://127.0.0.1:9/v1", model="m")
    est = estimate(CASES, "ui_fake", llm=s)
    assert est["goal_accuracy"]["calls"] == 2 and est["goal_accuracy"]["prompt_tokens"] > 0
    assert jobs.estimated_calls(est) == est["calls"] + 2 and jobs.uses_llm("ui_fake", est)
    assert jobs.metric_llm(est)["prompt_tokens"] == est["goal_accuracy"]["prompt_tokens"]
    assert estimate(CASES, "ui_fake")["goal_accuracy"] == {"calls": 0, "note": OFFLINE}

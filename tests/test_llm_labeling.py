"""gpt_labeling end to end: the real openai / groq SDKs against the loopback server."""

from __future__ import annotations

import json

import pytest

from evaluators import LLMSettings, evaluate_batch
from evaluators.labelers.llm import PROMPT_VERSION, LabelingReply, build_messages, to_labels
from evaluators.sentencize import sentencize_case
from tests.llm_server import PARIS_CASE as CASE
from tests.llm_server import PARIS_LABELS as GOOD
from tests.llm_server import Reply, labels_reply, last_user_message

pytestmark = pytest.mark.usefixtures("close_llm_clients")

DOC_KEYS = ("0a", "0b", "0c", "1a", "1b")


@pytest.fixture
def settings(loopback_settings):
    return loopback_settings


def test_case_sentencizes_as_the_tests_assume():
    item = sentencize_case(CASE)
    assert item.doc_keys == DOC_KEYS
    assert item.response_keys == ("a", "b", "c")


def test_prompt_shows_keys_question_and_version():
    msgs = build_messages(sentencize_case(CASE))
    user = msgs[-1]["content"]
    assert "0a. Paris is the capital of France." in user
    assert "1b. It is large." in user
    assert "c. It has ten million cats." in user
    assert CASE.question in user
    for field in ("relevance_explanation", "all_relevant_sentence_keys", "overall_supported_explanation",
                  "sentence_support_information", "supporting_sentence_keys", "fully_supported",
                  "all_utilized_sentence_keys", "well_known_fact", "numerical_reasoning"):
        assert field in user
    # explanation comes before its verdict in the requested shape
    assert user.index('"explanation"') < user.index('"fully_supported": true')
    assert user.index('"relevance_explanation"') < user.index('"all_relevant_sentence_keys"')
    assert PROMPT_VERSION.startswith("trace-label-")


@pytest.mark.parametrize("provider", ["openai_compatible", "openai", "groq"])
def test_valid_labels_give_exact_metrics(llm_server, settings, provider):
    llm_server.queue(GOOD)
    base = llm_server.groq_base_url if provider == "groq" else llm_server.base_url
    s = settings(provider=provider, base_url=base, api_key="test-key")
    run = evaluate_batch([CASE], "gpt_labeling", llm=s)
    r = run.results[0]
    assert r.error is None, r.error
    assert r.scores.context_relevance == pytest.approx(2 / 5)
    assert r.scores.context_utilization == pytest.approx(2 / 5)
    assert r.scores.completeness == pytest.approx(1 / 2)
    assert r.scores.adherence == pytest.approx(2 / 3)
    assert r.scores.overall_supported is False
    assert r.labeled_by == "gpt_labeling"
    assert r.labels.notes == ()
    assert [s.explanation for s in r.labels.sentences] == ["explains a", "explains b", "explains c"]
    assert llm_server.count == 1
    req = llm_server.requests[0]
    assert req.json["model"] == "loopback-model"
    assert req.json["temperature"] == 0
    assert req.json["response_format"] == {"type": "json_object"}
    assert req.headers["authorization"] == "Bearer test-key"
    assert r.usage.calls == 1 and r.usage.prompt_tokens == 10 and r.usage.completion_tokens == 5


def test_code_fenced_json(llm_server, settings):
    llm_server.queue("Here you go:\n```json\n" + json.dumps(GOOD, indent=2) + "\n```\nAnything else?")
    r = evaluate_batch([CASE], "gpt_labeling", llm=settings()).results[0]
    assert r.error is None
    assert r.scores.adherence == pytest.approx(2 / 3)
    assert any("code fence" in n for n in r.labels.notes)
    assert llm_server.count == 1


def test_truncated_json_is_repaired_without_reask(llm_server, settings):
    text = json.dumps(GOOD)
    cut = text[: text.rindex('"1a"')] + '"1a"'  # reply stops inside the last list
    llm_server.queue(cut)
    r = evaluate_batch([CASE], "gpt_labeling", llm=settings()).results[0]
    assert r.error is None
    assert r.labels.utilized_keys == ("0a", "1a")
    assert r.scores.completeness == pytest.approx(0.5)
    assert any("repaired" in n for n in r.labels.notes)
    assert llm_server.count == 1


def test_truncated_json_missing_a_field_is_reasked_once(llm_server, settings):
    text = json.dumps(GOOD)
    cut = text[: text.index('"all_utilized_sentence_keys"')]
    llm_server.queue(cut, GOOD)
    r = evaluate_batch([CASE], "gpt_labeling", llm=settings()).results[0]
    assert r.error is None
    assert r.scores.context_utilization == pytest.approx(2 / 5)
    assert llm_server.count == 2
    second = llm_server.requests[1].json["messages"]
    assert second[-2]["role"] == "assistant" and second[-2]["content"] == cut
    assert "all_utilized_sentence_keys" in second[-1]["content"]
    assert any(n.startswith("re-asked once") for n in r.labels.notes)


def test_unusable_twice_is_unscored_with_reason(llm_server, settings):
    llm_server.queue("I cannot help with that.", '{"relevance_explanation": "x"}')
    run = evaluate_batch([CASE], "gpt_labeling", llm=settings())
    r = run.results[0]
    assert r.scores is None
    assert "re-ask" in r.error and "gpt_labeling" in r.error
    assert r.usage.calls == 2
    assert llm_server.count == 2
    # a failed case is not cached: the next run asks again
    llm_server.queue(GOOD)
    assert evaluate_batch([CASE], "gpt_labeling", llm=settings()).results[0].error is None
    assert llm_server.count == 3


def test_invalid_keys_are_dropped_and_recorded(llm_server, settings):
    bad = labels_reply(["0a", "0b", "7z", "0B."], ["0a", "1a", "2c"],
                       {"a": (["0a", "9q"], True), "b": (["0b"], True), "c": ([], False)})
    llm_server.queue(bad)
    r = evaluate_batch([CASE], "gpt_labeling", llm=settings()).results[0]
    assert r.error is None
    assert r.labels.relevant_keys == ("0a", "0b")
    assert r.labels.utilized_keys == ("0a", "1a")
    assert r.labels.sentences[0].supporting_keys == ("0a",)
    notes = " | ".join(r.labels.notes)
    assert "7z" in notes and "2c" in notes and "9q" in notes
    assert r.scores.context_relevance == pytest.approx(2 / 5)


def test_missing_sentences_count_as_unsupported(llm_server, settings):
    llm_server.queue(labels_reply(["0a"], ["0a"], {"a": (["0a"], True)}))
    r = evaluate_batch([CASE], "gpt_labeling", llm=settings()).results[0]
    assert r.error is None
    assert [s.level for s in r.labels.sentences] == ["full", "none", "none"]
    assert r.scores.adherence == pytest.approx(1 / 3)
    assert any("missing from the reply" in n and "b, c" in n for n in r.labels.notes)


def test_special_support_values(llm_server, settings):
    llm_server.queue(labels_reply(["0a"], ["0a"], {
        "a": (["0a"], True), "b": (["Well-known fact"], True), "c": (["numerical_reasoning", "0a"], True)}))
    r = evaluate_batch([CASE], "gpt_labeling", llm=settings()).results[0]
    assert r.error is None
    assert r.labels.sentences[1].supporting_keys == ("well_known_fact",)
    assert r.labels.sentences[2].supporting_keys == ("numerical_reasoning", "0a")
    assert r.scores.adherence == 1.0 and r.scores.overall_supported is True
    assert r.labels.notes == ()


def test_reply_covering_no_sentence_is_reasked(llm_server, settings):
    wrong = labels_reply(["0a"], ["0a"], {"0a": (["0a"], True)})
    llm_server.queue(wrong, GOOD)
    r = evaluate_batch([CASE], "gpt_labeling", llm=settings()).results[0]
    assert r.error is None and llm_server.count == 2
    assert "response_sentence_key among: a, b, c" in last_user_message(llm_server.requests[1].json)


def test_lenient_shapes_are_accepted():
    item = sentencize_case(CASE)
    raw = {"all_relevant_sentence_keys": "0a, 0b", "all_utilized_sentence_keys": ["[0A]"],
           "sentence_support_information": {"a": {"supporting_sentence_keys": ["0a"], "fully_supported": "true"},
                                            "b.": {"supporting_sentence_keys": [], "fully_supported": "partial"}},
           "overall_supported": True}
    labels = to_labels(LabelingReply.model_validate(raw), item)
    assert labels.relevant_keys == ("0a", "0b") and labels.utilized_keys == ("0a",)
    assert [s.level for s in labels.sentences] == ["full", "none", "none"]
    assert any("contradicts" in n for n in labels.notes)


def test_no_llm_configured_gives_a_clear_error(monkeypatch):
    monkeypatch.delenv("GROQ_API_KEY", raising=False)
    run = evaluate_batch([CASE], "gpt_labeling")
    assert run.results[0].scores is None
    assert "needs an LLM" in run.results[0].error and "GROQ_API_KEY" in run.results[0].error
    run = evaluate_batch([CASE], "gpt_labeling", llm=LLMSettings(provider="groq"))
    assert "GROQ_API_KEY" in run.results[0].error
    run = evaluate_batch([CASE], "gpt_labeling", llm=LLMSettings(provider="openai_compatible", model="x"))
    assert "base URL" in run.results[0].error


def test_key_from_env_only_to_the_owners_base_url(llm_server, settings, monkeypatch):
    monkeypatch.setenv("GROQ_API_KEY", "env-groq-key")
    llm_server.queue(GOOD, GOOD)
    s = settings(provider="groq", base_url=llm_server.groq_base_url)
    assert evaluate_batch([CASE], "gpt_labeling", llm=s).results[0].error is None
    assert llm_server.requests[0].headers["authorization"] == "Bearer not-needed"
    monkeypatch.setenv("RAG_EVAL_BASE_URL", llm_server.groq_base_url)  # the owner's own server
    s = settings(provider="groq", base_url=llm_server.groq_base_url, cache_path="")
    assert evaluate_batch([CASE], "gpt_labeling", llm=s).results[0].error is None
    assert llm_server.requests[1].headers["authorization"] == "Bearer env-groq-key"


def test_keyless_openai_compatible_uses_a_dummy_key(llm_server, settings, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "must-not-leak-to-third-parties")
    llm_server.queue(GOOD)
    assert evaluate_batch([CASE], "gpt_labeling", llm=settings()).results[0].error is None
    assert "must-not-leak" not in llm_server.requests[0].headers["authorization"]


def test_facade_advanced_evaluator(llm_server, settings):
    from evaluators import AdvancedRAGEvaluator

    llm_server.queue(GOOD)
    scores = AdvancedRAGEvaluator(llm_client=settings()).evaluate(
        CASE.question, CASE.response, list(CASE.documents))
    assert scores.adherence == pytest.approx(2 / 3)
    assert scores.utilization == pytest.approx(2 / 5)


def test_json_mode_rejected_by_server_falls_back(llm_server, settings):
    def responder(req):
        if "response_format" in req:
            return Reply.error(400, "response_format json_object is not supported by this server")
        return GOOD
    llm_server.respond(responder)
    r = evaluate_batch([CASE], "gpt_labeling", llm=settings()).results[0]
    assert r.error is None
    assert [("response_format" in q.json) for q in llm_server.requests] == [True, False]


def test_progress_counts_each_llm_reply_within_a_chunk(llm_server, settings):
    """Issue 30 item 3: gpt_labeling reports every finished case, not one tick per chunk."""
    from evaluators.testing.llm_server import keyed_labels_responder

    llm_server.respond(keyed_labels_responder)
    cases = [CASE.model_copy(update={"id": f"p{i}", "question": f"{CASE.question} ({i})"})
             for i in range(6)]
    seen: list[tuple[int, int]] = []
    run = evaluate_batch(cases, "gpt_labeling", llm=settings(concurrency=2),
                         chunk_size=6, progress=lambda d, t: seen.append((d, t)))
    assert all(r.ok for r in run.results)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen) and seen[-1] == (6, 6)
    assert {d for d, _ in seen} >= {1, 2, 3, 4, 5, 6}, seen

"""LLM family metrics through the loopback OpenAI-compatible server (real openai SDK, scripted
replies, including malformed ones). Expected values are computed by hand from the scripted verdicts."""

from __future__ import annotations

import functools
import json

import numpy as np
import pytest

from evaluators import CaseResult, EvalOptions, LLMSettings, TestCase
from evaluators.families import compute_metrics, embed
from tests.llm_server import Reply, last_user_message

pytestmark = pytest.mark.usefixtures("close_llm_clients")


@pytest.fixture
def settings(loopback_settings):
    return functools.partial(loopback_settings, model="loopback", cache_path="", retry_base_s=0.01,
                             max_retries=1)


def run(cases, metrics, llm, params=None, **kw):
    results = [CaseResult(case=c, method="trace") for c in cases]
    return compute_metrics(results, EvalOptions(metrics=tuple(metrics), metric_params=params or {},
                                                llm=llm, **kw))


def kind(msg: str) -> str:
    if "personally identifiable" in msg:
        return "pii"
    if "Extract the context sentences" in msg:
        return "relevancy"
    if "Judge the RESPONSE" in msg:
        return "judge"
    if "RETRIEVED CHUNKS" in msg:
        return "chunks"
    if "STATEMENTS:" in msg or '"similarity"' in msg or '"ground_truth_entities"' in msg:
        return "verify"
    return "response"


def kinds(srv) -> list[str]:
    return sorted(kind(last_user_message(r.json)) for r in srv.requests)


RAMAN = TestCase(
    id="raman", question="Where and when was Raman born?",
    response="Raman was born in India. He was born on 10 November 1888. He won a Nobel Prize.",
    documents=("Raman (born 7 November 1888) was an Indian physicist.",),
    ground_truth="Raman was born in India on 7 November 1888. He discovered the Raman effect.",
)
CLAIMS = ["Raman was born in India.", "Raman was born on 10 November 1888.", "Raman won a Nobel Prize."]
ALL_ASPECTS = ["harmfulness", "maliciousness", "coherence", "correctness", "conciseness"]


def response_reply(claims=CLAIMS, questions=("Where was Raman born?",) * 3, noncommittal=False,
                   aspects=None):
    return {"claims": list(claims), "questions": list(questions), "noncommittal": noncommittal,
            "aspects": [{"name": a, "reason": "r", "verdict": v} for a, v in (aspects or {}).items()]}


VERIFY = {
    "items": [
        {"id": "R1", "reason": "stated", "supported_by_documents": True, "supported_by_ground_truth": True},
        {"id": "R2", "reason": "wrong date", "supported_by_documents": False, "supported_by_ground_truth": False},
        {"id": "R3", "reason": "absent", "supported_by_documents": False, "supported_by_ground_truth": False},
        {"id": "G1", "reason": "stated", "supported_by_documents": True, "covered_by_response": True},
        {"id": "G2", "reason": "absent", "supported_by_documents": False, "covered_by_response": False},
    ],
    "similarity": 3,
}


def test_claim_metrics_share_two_calls(llm_server, settings):
    aspects = {a: a in ("coherence", "correctness") for a in ALL_ASPECTS}
    llm_server.respond(lambda req: VERIFY if kind(last_user_message(req)) == "verify"
                       else response_reply(aspects=aspects))
    names = ["faithfulness", "answer_consistency", "answer_consistency_binary", "context_recall",
             "ragas_answer_correctness", "answer_similarity"]
    out = run([RAMAN], names, settings(), {"ragas_answer_correctness": {"weights": [1, 0]}})[0]
    assert out["faithfulness"].value == pytest.approx(1 / 3)
    assert out["answer_consistency"].value == pytest.approx(1 / 3)
    assert out["answer_consistency_binary"].value == 0.0
    assert out["context_recall"].value == pytest.approx(1 / 2)
    # TP = 1, FP = 2, FN = 1  ->  1 / (1 + 0.5 * 3)
    assert out["ragas_answer_correctness"].value == pytest.approx(0.4)
    assert out["ragas_answer_correctness"].details["tp"] == 1
    assert out["answer_similarity"].value == 3.0
    # one extraction + one verification for all six metrics
    assert kinds(llm_server) == ["response", "verify"]
    verify_prompt = next(last_user_message(r.json) for r in llm_server.requests
                         if kind(last_user_message(r.json)) == "verify")
    assert "R2: Raman was born on 10 November 1888." in verify_prompt
    assert "G2: He discovered the Raman effect." in verify_prompt
    assert out["faithfulness"].details["claims"][1] == {"claim": CLAIMS[1], "supported": False,
                                                        "reason": "wrong date"}
    assert out["faithfulness"].details["usage"]["calls"] == 2


CHUNK_CASE = TestCase(
    id="india", question="What is the capital of India?", response="New Delhi is the capital of India.",
    documents=("India is a country in South Asia.", "New Delhi is India's capital. It has the Red Fort.",
               "India has many languages."),
    ground_truth="New Delhi is the capital of India.",
)


def chunk_reply(relevant=(True, True, False), useful=(False, True, False), used=(False, True, True),
                keys=("1a", "9z")):
    return {"chunks": [{"chunk": i, "reason": "r", "relevant_to_question": relevant[i],
                        "useful_for_reference": useful[i], "used_in_response": used[i]} for i in range(3)],
            "relevant_sentence_keys": list(keys)}


def test_chunk_metrics_judge_all_chunks_in_one_call(llm_server, settings):
    llm_server.respond(lambda req: chunk_reply())
    names = ["context_precision", "retrieval_precision", "augmentation_precision",
             "augmentation_accuracy", "context_relevancy"]
    out = run([CHUNK_CASE], names, settings())[0]
    # only the second of three chunks useful: (0/1 + 1/2 + 0/3) / 1
    assert out["context_precision"].value == pytest.approx(0.5)
    assert out["context_precision"].details["reference"] == "ground_truth"
    assert out["retrieval_precision"].value == pytest.approx(2 / 3)
    assert out["augmentation_precision"].value == pytest.approx(1 / 2)
    assert out["augmentation_accuracy"].value == pytest.approx(2 / 3)
    # 4 context sentences (0a, 1a, 1b, 2a); "9z" is not a key and is ignored
    assert out["context_relevancy"].value == pytest.approx(1 / 4)
    assert out["context_relevancy"].details["ignored_unknown_keys"] == ["9z"]
    assert kinds(llm_server) == ["chunks"]
    prompt = last_user_message(llm_server.requests[0].json)
    assert "1b: It has the Red Fort." in prompt and "REFERENCE ANSWER" in prompt


def test_context_precision_uses_the_response_without_ground_truth(llm_server, settings):
    llm_server.respond(lambda req: chunk_reply(useful=(True, False, True)))
    c = CHUNK_CASE.model_copy(update={"ground_truth": None})
    mv = run([c], ["context_precision"], settings())[0]["context_precision"]
    assert mv.value == pytest.approx((1 / 1 + 2 / 3) / 2)
    assert mv.details["reference"] == "response"
    assert "REFERENCE ANSWER" not in last_user_message(llm_server.requests[0].json)


def test_augmentation_precision_skipped_when_nothing_relevant(llm_server, settings):
    llm_server.respond(lambda req: chunk_reply(relevant=(False, False, False)))
    out = run([CHUNK_CASE], ["augmentation_precision", "retrieval_precision"], settings())[0]
    assert out["retrieval_precision"].value == 0.0
    assert out["augmentation_precision"].value is None
    assert "no retrieved chunk is relevant" in out["augmentation_precision"].skipped


def test_context_relevancy_strictness_samples_and_agreement(llm_server, settings):
    llm_server.queue({"relevant_sentence_keys": ["1a"]}, {"relevant_sentence_keys": ["1a", "1b"]},
                     {"relevant_sentence_keys": ["1a"]})
    mv = run([CHUNK_CASE], ["context_relevancy"], settings(),
             {"context_relevancy": {"strictness": 3}})[0]["context_relevancy"]
    # overlaps 1/4, 2/4, 1/4 -> mean 1/3; Jaccard pairs 1/2, 1, 1/2 -> agreement 2/3
    assert mv.value == pytest.approx(1 / 3 * 2 / 3)
    assert mv.details["agreement"] == pytest.approx(2 / 3, abs=1e-4)
    assert kinds(llm_server) == ["relevancy"] * 3
    temps = {r.json.get("temperature") for r in llm_server.requests}
    assert temps == {0.7}


def test_aspect_critique_strictness_majority_vote(llm_server, settings):
    def sample(h, c, p, d):
        return {"aspects": [{"name": "harmfulness", "verdict": h}, {"name": "coherence", "verdict": c},
                            {"name": "politeness", "verdict": p}, {"name": "duplication", "verdict": d}]}

    llm_server.queue(sample(False, True, True, False), sample(True, True, False, False),
                     sample(False, False, True, True))
    params = {"aspect_critique": {"aspects": ["harmfulness", "coherence"], "strictness": 3,
                                  "custom": [{"name": "politeness", "definition": "Is the response polite?"}]}}
    out = run([RAMAN], ["aspect_critique", "duplication"], settings(), params)[0]
    ac = out["aspect_critique"]
    assert ac.details["verdicts"] == {"harmfulness": 0, "coherence": 1, "politeness": 1}
    assert ac.details["votes"]["coherence"] == [1, 1, 0] or sorted(ac.details["votes"]["coherence"]) == [0, 1, 1]
    assert ac.value == 1.0  # not harmful, coherent, polite
    assert out["aspect_critique.harmfulness"].value == 0.0
    assert out["aspect_critique.politeness"].value == 1.0
    assert out["duplication"].value == 0.0
    assert kinds(llm_server) == ["judge"] * 3  # all aspects (and duplication) in each sample
    assert "Is the response polite?" in last_user_message(llm_server.requests[0].json)


def test_aspect_critique_fails_when_one_aspect_fails_and_strictness_one_is_shared(llm_server, settings,
                                                                                  monkeypatch):
    monkeypatch.setattr(embed, "encode", lambda texts: np.vstack([[1.0, 0.0]] * len(texts)))
    aspects = {a: a in ("harmfulness", "coherence", "correctness", "conciseness") for a in ALL_ASPECTS}
    aspects["hate_speech_content"] = False
    llm_server.respond(lambda req: response_reply(aspects=aspects))
    out = run([RAMAN], ["aspect_critique", "harmfulness", "hate_speech_content", "answer_relevancy"],
              settings())[0]
    assert out["aspect_critique"].value == 0.0
    assert out["aspect_critique"].details["passed"]["harmfulness"] is False
    assert out["harmfulness"].value == 1.0
    assert out["hate_speech_content"].value == 0.0
    assert out["answer_relevancy"].value == pytest.approx(1.0)
    assert kinds(llm_server) == ["response"]  # judgments + questions in the one response call


def test_answer_relevancy_mean_cosine_and_noncommittal(llm_server, settings, monkeypatch):
    table = {RAMAN.question: [1.0, 0.0], "Q1": [1.0, 0.0], "Q2": [0.6, 0.8], "Q3": [0.0, 1.0]}
    monkeypatch.setattr(embed, "encode", lambda texts: np.vstack([table[t] for t in texts]))
    llm_server.queue(response_reply(questions=["Q1", "Q2", "Q3", "Q4"]))
    mv = run([RAMAN], ["answer_relevancy"], settings())[0]["answer_relevancy"]
    assert mv.value == pytest.approx((1.0 + 0.6 + 0.0) / 3)  # extra questions are dropped
    assert mv.details["generated_questions"] == ["Q1", "Q2", "Q3"]
    llm_server.queue(response_reply(questions=["Q1", "Q2", "Q3"], noncommittal=True))
    c = RAMAN.model_copy(update={"response": "I am not sure."})
    mv = run([c], ["answer_relevancy"], settings())[0]["answer_relevancy"]
    assert mv.value == 0.0 and mv.details["noncommittal"] is True
    body = llm_server.requests[0].json
    assert "exactly 3 different questions" in last_user_message(body)


def test_malformed_reply_is_repaired_or_reasked_once(llm_server, settings):
    llm_server.queue("this is not JSON at all", json.dumps(response_reply()), VERIFY)
    mv = run([RAMAN], ["faithfulness"], settings(concurrency=1))[0]["faithfulness"]
    assert mv.value == pytest.approx(1 / 3)
    assert any("re-asked" in n for n in mv.details["llm_notes"])
    assert llm_server.count == 3
    # fenced JSON with a trailing comma is repaired without a re-ask
    llm_server.reset()
    llm_server.queue("```json\n" + json.dumps(chunk_reply())[:-1] + ",}\n```")
    mv = run([CHUNK_CASE], ["retrieval_precision"], settings())[0]["retrieval_precision"]
    assert mv.value == pytest.approx(2 / 3) and llm_server.count == 1


def test_incomplete_verdicts_trigger_a_reask_naming_what_is_missing(llm_server, settings):
    partial = {"items": VERIFY["items"][:1]}
    llm_server.respond(lambda req: response_reply() if kind(last_user_message(req)) == "response" else partial)
    llm_server.queue(response_reply(), partial, VERIFY)
    mv = run([RAMAN], ["faithfulness"], settings(concurrency=1))[0]["faithfulness"]
    assert mv.value == pytest.approx(1 / 3)
    reask = last_user_message(llm_server.requests[2].json)
    assert "R2" in reask and "R3" in reask


def test_invalid_twice_skips_that_metric_only(llm_server, settings):
    bad_case = RAMAN.model_copy(update={"id": "bad", "response": "BROKEN. Raman was born in India."})

    def responder(req):
        msg = last_user_message(req)
        if "BROKEN" in msg or any("BROKEN" in str(m.get("content")) for m in req["messages"]):
            return "{ not json"
        return VERIFY if kind(msg) == "verify" else response_reply()

    llm_server.respond(responder)
    out = run([bad_case, RAMAN], ["faithfulness", "contains_text"], settings(),
              {"contains_text": {"text": "India"}})
    bad, good = out
    assert bad["faithfulness"].value is None
    assert "LLM call failed" in bad["faithfulness"].skipped and "re-ask" in bad["faithfulness"].skipped
    assert bad["contains_text"].value == 1.0
    assert good["faithfulness"].value == pytest.approx(1 / 3)


def test_server_errors_skip_with_reason(llm_server, settings):
    llm_server.respond(lambda req: Reply.error(500, "boom"))
    out = run([CHUNK_CASE], ["retrieval_precision", "answer_match"], settings(max_retries=0))[0]
    assert out["retrieval_precision"].value is None
    assert out["retrieval_precision"].skipped.startswith("LLM call failed")
    assert out["answer_match"].value == 1.0


def test_retry_after_429_then_success(llm_server, settings):
    llm_server.queue(Reply.error(429, "slow down", headers={"Retry-After": "0"}), chunk_reply())
    mv = run([CHUNK_CASE], ["retrieval_precision"], settings(max_retries=2))[0]["retrieval_precision"]
    assert mv.value == pytest.approx(2 / 3) and llm_server.count == 2


def test_dry_run_makes_no_call_and_estimates(llm_server, settings):
    names = ["faithfulness", "context_precision", "answer_similarity", "latency"]
    out = run([RAMAN], names, settings(), dry_run=True)[0]
    assert llm_server.count == 0
    assert out["faithfulness"].skipped.startswith("dry run")
    assert out["faithfulness"].details["estimated_llm_calls_case"] == 3  # response, chunks, verify
    assert out["latency"].skipped == "missing input: latency"


def test_no_llm_configured_skips_llm_metrics_only():
    out = run([RAMAN], ["faithfulness", "answer_similarity", "contains_text"], None,
              {"contains_text": {"text": "India"}})[0]
    assert "needs an LLM" in out["faithfulness"].skipped
    assert "needs an LLM" in out["answer_similarity"].skipped
    assert out["contains_text"].value == 1.0


def test_unavailable_llm_is_a_skip(monkeypatch):
    monkeypatch.delenv("GROQ_API_KEY", raising=False)
    out = run([RAMAN], ["faithfulness"], LLMSettings(provider="groq", cache_path=""))[0]
    assert out["faithfulness"].skipped.startswith("LLM unavailable") and "GROQ_API_KEY" in out["faithfulness"].skipped


def test_many_metrics_three_calls_per_case(llm_server, settings):
    aspects = {a: a == "coherence" for a in ALL_ASPECTS}

    def responder(req):
        k = kind(last_user_message(req))
        return {"verify": VERIFY, "chunks": chunk_reply()}.get(k) or response_reply(aspects=aspects)

    llm_server.respond(responder)
    names = ["faithfulness", "context_recall", "answer_similarity", "answer_consistency", "context_precision",
             "retrieval_precision", "augmentation_accuracy", "context_relevancy", "aspect_critique",
             "ragas_score", "overall_score"]
    cases = [RAMAN.model_copy(update={"id": f"r{i}", "documents": CHUNK_CASE.documents}) for i in range(4)]
    out = run(cases, names, settings(concurrency=4))
    assert kinds(llm_server) == sorted(["chunks", "response", "verify"] * 4)
    for per_case in out:
        assert all(per_case[n].value is not None for n in names), {n: per_case[n].skipped for n in names}
        comps = per_case["overall_score"].details["components"]
        assert per_case["overall_score"].value == pytest.approx(sum(comps.values()) / len(comps))
        assert comps["answer_similarity"] == pytest.approx(3 / 5)


def test_pii_types_beyond_offline_are_judged_by_the_llm(llm_server, settings):
    llm_server.queue({"response": ["person"], "context": []})
    c = RAMAN.model_copy(update={"documents": ("Write to raman@example.org.",)})
    p = {"types": ["EMAIL_ADDRESS", "PERSON"]}
    out = run([c], ["answer_contains_pii", "context_contains_pii"], settings(),
              {"answer_contains_pii": p, "context_contains_pii": p})[0]
    assert out["answer_contains_pii"].value == 1.0
    assert out["answer_contains_pii"].details["found"] == {"PERSON": 1}
    assert out["context_contains_pii"].details["found"] == {"EMAIL_ADDRESS": 1}
    assert llm_server.count == 1  # one call serves both metrics
    assert "raman@example.org" not in json.dumps(out["context_contains_pii"].details)


def test_context_entity_recall_with_llm_entities(llm_server, settings):
    llm_server.queue({"ground_truth_entities": ["Qutub Minar", "red sandstone", "marble", "Delhi"],
                      "context_entities": ["Qutub Minar", "Delhi"]})
    c = TestCase(id="q", question="What is the Qutub Minar?", response="A minaret.",
                 documents=("The Qutub Minar in Delhi is a marble tower.",),
                 ground_truth="The Qutub Minar is a red sandstone and marble minaret in Delhi.")
    mv = run([c], ["context_entity_recall"], settings())[0]["context_entity_recall"]
    # qutub minar, delhi (context entities) + marble (occurs in the context); red sandstone missing
    assert mv.value == pytest.approx(3 / 4)
    assert mv.details["extractor"] == "llm" and mv.details["missing"] == ["red sandstone"]
    assert llm_server.count == 1


def test_entities_ride_along_in_the_verification_call(llm_server, settings):
    reply = {**VERIFY, "ground_truth_entities": ["Raman", "India", "7 November 1888", "Raman effect"],
             "context_entities": ["Raman", "7 November 1888"]}
    llm_server.respond(lambda req: reply if kind(last_user_message(req)) == "verify" else response_reply())
    out = run([RAMAN], ["faithfulness", "context_entity_recall"], settings())[0]
    assert kinds(llm_server) == ["response", "verify"]
    # raman, 7 november 1888 (context entities), india (in "Indian"? no: word-bounded) -> 2 / 4
    assert out["context_entity_recall"].value == pytest.approx(2 / 4)
    assert out["faithfulness"].value == pytest.approx(1 / 3)


def test_pipeline_adds_family_metrics_usage_and_exports(llm_server, settings):
    from evaluators import evaluate_batch
    from evaluators.export import to_json_dict

    llm_server.respond(lambda req: VERIFY if kind(last_user_message(req)) == "verify" else response_reply())
    result = evaluate_batch([RAMAN], "trace", metrics=["faithfulness", "contains_text"], llm=settings(),
                            metric_params={"contains_text": {"text": "India"}})
    r = result.results[0]
    assert r.ok and r.metrics["faithfulness"].value == pytest.approx(1 / 3)
    assert r.usage.calls == 2 and result.usage.calls == 2
    d = to_json_dict(result)
    assert d["faithfulness"] == pytest.approx(1 / 3) and d["contains_text"] == 1.0
    case = d["detailed_results"][0]
    assert case["metrics"]["faithfulness"] == pytest.approx(1 / 3)
    assert case["metric_details"]["faithfulness"]["details"]["supported_claims"] == 1


def test_answer_relevancy_n_questions_param(llm_server, settings, monkeypatch):
    monkeypatch.setattr(embed, "encode", lambda texts: np.vstack([[1.0, 0.0]] * len(texts)))
    llm_server.queue(response_reply(questions=["Q1", "Q2"]))
    mv = run([RAMAN], ["answer_relevancy"], settings(), {"answer_relevancy": {"n": 2}})[0]["answer_relevancy"]
    assert mv.value == pytest.approx(1.0) and len(mv.details["generated_questions"]) == 2
    assert "exactly 2 different questions" in last_user_message(llm_server.requests[0].json)


def test_missing_cross_encoder_is_a_skip():
    c = RAMAN
    mv = run([c], ["answer_semantic_similarity"], None,
             {"answer_semantic_similarity": {"cross_encoder": "/nonexistent/cross-encoder"}}
             )[0]["answer_semantic_similarity"]
    assert mv.value is None and "cannot load cross-encoder" in mv.skipped


def test_estimate_matches_the_calls_actually_made(llm_server, settings):
    from evaluators.families import estimate_metric_cost
    from evaluators.pipeline import estimate

    def responder(req):
        k = kind(last_user_message(req))
        return {"verify": VERIFY, "chunks": chunk_reply(),
                "judge": {"aspects": [{"name": "duplication", "verdict": False}]}}.get(k) or response_reply()

    names = ["faithfulness", "context_precision", "answer_similarity", "duplication", "latency"]
    params = {"duplication": {"strictness": 3}}
    cases = [RAMAN.model_copy(update={"documents": CHUNK_CASE.documents}), CHUNK_CASE]
    opts = EvalOptions(metrics=tuple(names), metric_params=params, llm=settings())
    est = estimate_metric_cost(cases, opts)
    assert llm_server.count == 0
    llm_server.respond(responder)
    out = run(cases, names, settings(), params)
    assert all(o["duplication"].value == 0.0 for o in out)
    assert est["calls"] == llm_server.count == 2 * (1 + 1 + 1 + 3)  # response, chunks, verify, 3 judge samples
    assert est["prompt_tokens"] > 0 and est["completion_tokens"] > 0
    rep = estimate(cases, "trace", options=opts)
    assert rep["calls"] == 0 and rep["family_metrics"]["calls"] == est["calls"]


def test_lenient_ids_and_noncommittal_without_questions(llm_server, settings):
    verify = {"items": [{"id": "r1", "supported_by_documents": True}, {"id": "R2:", "supported_by_documents": "true"},
                        {"id": "R3", "supported_by_documents": False}]}
    chunks = {"chunks": [{"chunk": "Chunk 0", "relevant_to_question": True},
                         {"chunk": "1", "relevant_to_question": False}, {"chunk": 2, "relevant_to_question": False}]}
    noncommittal = {"claims": CLAIMS, "questions": [], "noncommittal": True}

    def responder(req):
        k = kind(last_user_message(req))
        return {"verify": verify, "chunks": chunks}.get(k) or noncommittal

    llm_server.respond(responder)
    c = RAMAN.model_copy(update={"documents": CHUNK_CASE.documents})
    out = run([c], ["faithfulness", "retrieval_precision", "answer_relevancy"], settings())[0]
    assert out["faithfulness"].value == pytest.approx(2 / 3)
    assert out["retrieval_precision"].value == pytest.approx(1 / 3)
    assert out["answer_relevancy"].value == 0.0
    assert llm_server.count == 3  # no re-ask was needed


def test_groq_sdk_path(llm_server, settings):
    llm_server.respond(lambda req: chunk_reply())
    s = settings(provider="groq", base_url=llm_server.groq_base_url, api_key="gsk-test-key")
    mv = run([CHUNK_CASE], ["retrieval_precision"], s)[0]["retrieval_precision"]
    assert mv.value == pytest.approx(2 / 3)
    assert llm_server.requests[0].path.endswith("/openai/v1/chat/completions")
    assert "gsk-test-key" not in json.dumps(mv.details)


def test_calls_run_concurrently_across_cases_within_the_bound(llm_server, settings):
    llm_server.respond(lambda req: chunk_reply())
    llm_server.latency = 0.2
    cases = [CHUNK_CASE.model_copy(update={"id": f"c{i}"}) for i in range(8)]
    out = run(cases, ["retrieval_precision"], settings(concurrency=3))
    assert all(o["retrieval_precision"].value == pytest.approx(2 / 3) for o in out)
    events = sorted([(r.t_received, 1) for r in llm_server.requests] +
                    [(r.t_replied, -1) for r in llm_server.requests])
    level = peak = 0
    for _, d in events:
        level += d
        peak = max(peak, level)
    assert llm_server.count == 8 and 2 <= peak <= 3

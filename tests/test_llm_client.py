"""LLMClient resilience: retries, Retry-After, timeouts, rate limits, cache, secrets, concurrency.
All through the real SDKs against the loopback server."""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import threading
import time

import pytest
from pydantic import BaseModel

from evaluators import LLMSettings, TestCase, evaluate_batch
from evaluators.export import to_json
from evaluators.llm import LLMClient, StructuredCallError, close_clients, estimate_cost, get_client
from evaluators.llm.prices import cost_usd, lookup
from evaluators.pipeline import estimate
from tests.llm_server import Reply, labels_reply, last_user_message, max_in_flight

SECRET = "sk-test-SECRET-0123456789"

pytestmark = pytest.mark.usefixtures("close_llm_clients")


def one_sentence_case(i: int, marker: str = "") -> TestCase:
    return TestCase(id=f"c{i}", question=f"What is fact {i}?{marker}",
                    response=f"Fact {i} is true.", documents=(f"Fact {i} is true. Other text here.",))


def good_responder(req):
    return labels_reply(["0a"], ["0a"], {"a": (["0a"], True)})


@pytest.fixture
def settings(loopback_settings):
    return functools.partial(loopback_settings, max_retries=3)


class Answer(BaseModel):
    answer: str


@pytest.mark.parametrize("provider", ["openai_compatible", "groq"])
def test_429_with_retry_after_then_success(llm_server, settings, provider):
    llm_server.queue(Reply.error(429, "rate limited", headers={"Retry-After": "1"}))
    llm_server.respond(good_responder)
    s = settings(provider=provider, api_key="k",
                 base_url=llm_server.groq_base_url if provider == "groq" else llm_server.base_url)
    r = evaluate_batch([one_sentence_case(0)], "gpt_labeling", llm=s).results[0]
    assert r.error is None and r.scores.adherence == 1.0
    assert [q.status for q in llm_server.requests] == [429, 200]
    gap = llm_server.requests[1].t_received - llm_server.requests[0].t_replied
    assert 0.95 <= gap < 3.0  # waited what the server asked, not the 0.05 s backoff
    assert r.usage.calls == 1 and r.usage.retries == 1  # the 429 is not billed


def test_500_then_success(llm_server, settings):
    llm_server.queue(Reply.error(500), Reply.error(503))
    llm_server.respond(good_responder)
    r = evaluate_batch([one_sentence_case(0)], "gpt_labeling", llm=settings()).results[0]
    assert r.error is None
    assert [q.status for q in llm_server.requests] == [500, 503, 200]


def test_reply_slower_than_timeout_is_retried(llm_server, settings):
    llm_server.queue(Reply(content=json.dumps(good_responder({})), delay=2.0))
    llm_server.respond(good_responder)
    t0 = time.monotonic()
    r = evaluate_batch([one_sentence_case(0)], "gpt_labeling", llm=settings(timeout_s=0.4)).results[0]
    assert r.error is None
    assert llm_server.count == 2
    assert time.monotonic() - t0 < 2.0  # did not wait for the slow reply


def test_permanent_timeout_is_unscored_with_reason(llm_server, settings):
    llm_server.respond(lambda req: Reply(content="{}", delay=1.0))
    r = evaluate_batch([one_sentence_case(0)], "gpt_labeling",
                       llm=settings(timeout_s=0.2, max_retries=1)).results[0]
    assert r.scores is None
    assert "timed out" in r.error and "2 attempts" in r.error
    assert r.usage.calls == 0 and r.usage.retries == 2


def test_one_permanent_failure_among_20(llm_server, settings):
    def responder(req):
        if "POISON" in last_user_message(req):
            return Reply.error(500, "boom")
        return good_responder(req)
    llm_server.respond(responder)
    cases = [one_sentence_case(i, " POISON" if i == 7 else "") for i in range(20)]
    run = evaluate_batch(cases, "gpt_labeling", llm=settings(max_retries=2, concurrency=4))
    assert len(run.scored) == 19
    assert run.errors == [("c7", run.results[7].error)]
    assert "HTTP 500" in run.results[7].error and "3 attempts" in run.results[7].error
    assert all(r.scores.adherence == 1.0 for r in run.scored)
    assert llm_server.count == 19 + 3


def test_non_retryable_error_is_not_retried_and_key_is_redacted(llm_server, settings):
    llm_server.queue(Reply.error(401, f"Incorrect API key provided: {SECRET}"))
    r = evaluate_batch([one_sentence_case(0)], "gpt_labeling", llm=settings(api_key=SECRET)).results[0]
    assert llm_server.count == 1
    assert "HTTP 401" in r.error
    assert SECRET not in r.error and "***" in r.error


def test_rate_limit_never_exceeded(llm_server, settings):
    rpm = 300  # 5 requests/s (measured at the server, so spacing must dwarf network jitter)
    llm_server.respond(good_responder)
    cases = [one_sentence_case(i) for i in range(13)]
    run = evaluate_batch(cases, "gpt_labeling", llm=settings(rpm=rpm, concurrency=8))
    assert len(run.scored) == 13
    t = sorted(q.t_received for q in llm_server.requests)
    per_s = rpm / 60.0
    for window in (0.6, 1.2, 2.4):
        limit = per_s * window
        for i in range(len(t)):
            n = sum(1 for x in t[i:] if x < t[i] + window)
            assert n <= limit + 1, (window, i, n)  # +1: a window may start and end on a request
    # evenly spaced, not bursts: no two requests closer than half the spacing
    assert min(b - a for a, b in zip(t, t[1:])) > 0.25 / per_s
    # and not needlessly slower than the limit
    assert t[-1] - t[0] < (len(t) - 1) / (per_s * 0.98) + 0.5


def test_tokens_per_minute_limit(llm_server, settings):
    from evaluators.labelers.llm import build_messages
    from evaluators.llm.tokens import approx_message_tokens
    from evaluators.sentencize import sentencize_case

    llm_server.respond(good_responder)
    cases = [one_sentence_case(i) for i in range(8)]
    per_call = approx_message_tokens(build_messages(sentencize_case(cases[0]))) + 16
    tpm = int(per_call * 8 / 1.04)  # the 8th request has to wait ~2.4 s for the bucket to drain
    run = evaluate_batch(cases, "gpt_labeling", llm=settings(tpm=tpm, max_tokens=16, concurrency=8))
    assert len(run.scored) == 8
    t = sorted(q.t_received for q in llm_server.requests)
    for k, tk in enumerate(t, start=1):  # leaky bucket: admitted tokens <= capacity + refill
        assert k * per_call <= tpm + (tk - t[0]) * tpm / 60.0 + per_call * 0.05, k
    assert t[-1] - t[0] > 1.5


def test_second_run_makes_zero_requests_and_resume(llm_server, settings):
    llm_server.respond(good_responder)
    cases = [one_sentence_case(i) for i in range(10)]
    first = evaluate_batch(cases[:4], "gpt_labeling", llm=settings())  # "interrupted" after 4
    assert llm_server.count == 4 and first.usage.calls == 4
    second = evaluate_batch(cases, "gpt_labeling", llm=settings())  # resumes: only 6 new
    assert llm_server.count == 10
    assert second.usage.cached_calls == 4 and second.usage.calls == 6
    close_clients()  # even a fresh client (new process) reads the same file
    third = evaluate_batch(cases, "gpt_labeling", llm=settings())
    assert llm_server.count == 10
    assert third.usage.calls == 0 and third.usage.cached_calls == 10
    assert [r.scores for r in third.results] == [r.scores for r in second.results]
    # a different model is a different cache entry
    evaluate_batch(cases[:1], "gpt_labeling", llm=settings(model="other-model"))
    assert llm_server.count == 11


def test_key_never_in_cache_exports_or_logs(llm_server, settings, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    llm_server.respond(good_responder)
    s = settings(api_key=SECRET)
    run = evaluate_batch([one_sentence_case(i) for i in range(3)], "gpt_labeling", llm=s)
    assert len(run.scored) == 3
    assert llm_server.requests[0].headers["authorization"] == f"Bearer {SECRET}"  # it was used
    cache_bytes = b"".join(p.read_bytes() for p in tmp_path.glob("cache.sqlite3*"))
    assert len(cache_bytes) > 0
    assert SECRET.encode() not in cache_bytes
    out = to_json(run)
    assert SECRET not in out and SECRET not in repr(run) and SECRET not in repr(s)
    assert SECRET not in json.dumps(s.public_dict()) and SECRET not in s.model_dump_json()
    assert SECRET not in caplog.text
    assert SECRET not in json.dumps(estimate([one_sentence_case(0)], "gpt_labeling", llm=s))


def test_run_all_bounded_concurrency_order_and_exceptions(llm_server, settings):
    llm_server.latency = 0.15

    def responder(req):
        msg = last_user_message(req)
        if msg == "fail":
            return Reply.error(400, "bad request")
        return json.dumps({"answer": msg})
    llm_server.respond(responder)
    client = LLMClient(settings(concurrency=3, cache_path=""))
    try:
        prompts = [str(i) for i in range(9)] + ["fail"]
        fns = [lambda p=p: client.structured([{"role": "user", "content": p}], Answer) for p in prompts]
        res = client.run_all(fns)
        assert [r.value.answer for r in res[:9]] == [str(i) for i in range(9)]
        assert isinstance(res[9], StructuredCallError) and "HTTP 400" in res[9].reason
        assert max_in_flight(llm_server.requests) <= 3
        assert max_in_flight(llm_server.requests) >= 2  # it did run in parallel
        assert client.usage.calls == 9 and client.usage.retries == 1  # the 400 is not billed
    finally:
        client.close()


def test_usable_from_a_foreign_event_loop_and_threads(llm_server, settings):
    llm_server.respond(lambda req: json.dumps({"answer": last_user_message(req)}))
    client = LLMClient(settings(cache_path=""))
    try:
        async def main():
            a = await client.structured([{"role": "user", "content": "x"}], Answer)
            text, usage = await client.complete([{"role": "user", "content": "y"}], json_mode=True)
            return a.value.answer, json.loads(text)["answer"], usage.calls
        assert asyncio.run(main()) == ("x", "y", 1)

        out = {}
        def in_thread():
            out["r"] = client.run_all([lambda: client.structured([{"role": "user", "content": "z"}], Answer)])
        th = threading.Thread(target=in_thread)
        th.start()
        th.join(10)
        assert out["r"][0].value.answer == "z"
    finally:
        client.close()


def test_structured_validate_hook_and_cache_salt(llm_server, settings):
    llm_server.respond(lambda req: json.dumps({"answer": "ok"}))
    client = get_client(settings())

    def check(v):
        if v.answer != "ok":
            raise ValueError("answer must be ok")
        return v
    msgs = [{"role": "user", "content": "q"}]
    fns = [lambda: client.structured(msgs, Answer, validate=check),
           lambda: client.structured(msgs, Answer, cache_salt="sample-2")]
    a, b = client.run_all(fns)
    assert a.value.answer == b.value.answer == "ok"
    assert llm_server.count == 2  # salt = a separate sample
    client.run_all(fns)
    assert llm_server.count == 2


def test_dry_run_estimate_makes_no_call(llm_server, settings):
    llm_server.respond(good_responder)
    cases = [one_sentence_case(i) for i in range(5)]
    s = settings(model="gpt-4o-mini", provider="openai", api_key="k")
    est = estimate(cases, "gpt_labeling", llm=s)
    assert llm_server.count == 0
    assert est["calls"] == 5 and est["cached_calls"] == 0 and est["price_known"] is True
    assert est["prompt_tokens"] > 5 * 300 and est["completion_tokens"] > 0
    p_in, p_out = lookup("gpt-4o-mini")
    assert est["cost_usd"] == pytest.approx((est["prompt_tokens"] * p_in + est["completion_tokens"] * p_out) / 1e6)
    evaluate_batch(cases[:3], "gpt_labeling", llm=s)
    est2 = estimate(cases, "gpt_labeling", llm=s)
    assert est2["calls"] == 2 and est2["cached_calls"] == 3
    assert estimate(cases, "trace")["calls"] == 0


def test_cost_accounting_and_price_table(llm_server, settings):
    llm_server.respond(lambda req: Reply(content=json.dumps(good_responder(req)),
                                         prompt_tokens=1000, completion_tokens=200))
    run = evaluate_batch([one_sentence_case(0)], "gpt_labeling", llm=settings(price_per_mtok=(2.0, 10.0)))
    assert run.usage.prompt_tokens == 1000 and run.usage.completion_tokens == 200
    assert run.usage.cost_usd == pytest.approx((1000 * 2.0 + 200 * 10.0) / 1e6)
    assert lookup("gpt-4o-2024-08-06") == lookup("gpt-4o")
    assert lookup("my-local-model") is None and cost_usd(10, 10, "my-local-model") == 0.0
    e = estimate_cost(["x" * 400, "y" * 800], LLMSettings(model="gpt-4o"), 50)
    assert e["calls"] == 2 and e["completion_tokens"] == 100 and e["prompt_tokens"] == 100 + 200 + 24


def test_price_table_file_override(tmp_path, monkeypatch):
    f = tmp_path / "prices.json"
    f.write_text(json.dumps({"my-local-model": [1.0, 2.0]}))
    monkeypatch.setenv("EVALUATORS_PRICE_TABLE", str(f))
    assert lookup("my-local-model") == (1.0, 2.0)
    f.write_text("not json")
    with pytest.raises(ValueError, match="EVALUATORS_PRICE_TABLE"):
        lookup("my-local-model")


def test_huge_retry_after_fails_fast_with_reason(llm_server, settings):
    llm_server.queue(Reply.error(429, "daily quota exhausted", headers={"Retry-After": "3600"}))
    t0 = time.monotonic()
    r = evaluate_batch([one_sentence_case(0)], "gpt_labeling", llm=settings()).results[0]
    assert time.monotonic() - t0 < 5
    assert llm_server.count == 1
    assert "HTTP 429" in r.error and "3600 s" in r.error


def test_429_pauses_every_request_of_the_client(llm_server, settings):
    llm_server.queue(Reply.error(429, "slow down", headers={"retry-after-ms": "800"}))
    llm_server.respond(good_responder)
    llm_server.latency = 0.05
    run = evaluate_batch([one_sentence_case(i) for i in range(6)], "gpt_labeling",
                         llm=settings(concurrency=1))
    assert len(run.scored) == 6
    t429 = llm_server.requests[0].t_replied
    later = [q.t_received for q in llm_server.requests[1:]]
    assert all(t >= t429 + 0.75 for t in later)


def test_cancelled_run_resumes_where_it_stopped(llm_server, settings):
    llm_server.respond(good_responder)
    cases = [one_sentence_case(i) for i in range(12)]
    chunks_done = []
    run = evaluate_batch(cases, "gpt_labeling", llm=settings(), chunk_size=4,
                         progress=lambda done, total: chunks_done.append(done),
                         should_stop=lambda: len(chunks_done) >= 2)  # stop after the 1st chunk
    assert run.cancelled and len(run.results) == 4 and llm_server.count == 4
    close_clients()
    rerun = evaluate_batch(cases, "gpt_labeling", llm=settings(), chunk_size=4)
    assert len(rerun.scored) == 12
    assert llm_server.count == 12 and rerun.usage.cached_calls == 4 and rerun.usage.calls == 8

"""Billing: only answered LLM calls count as billed calls (and cost); rejected attempts (429, 5xx,
timeouts) are counted apart as retries. Proven through the real SDK against the loopback server."""

from __future__ import annotations

import itertools
import json
import threading

import pytest

from evaluators.pipeline import evaluate_batch
from evaluators.types import TestCase, Usage
from tests.llm_server import Reply, keyed_labels_responder, last_user_message

pytestmark = pytest.mark.usefixtures("close_llm_clients")

N = 40


def cases(n: int) -> list[TestCase]:
    return [TestCase(id=f"c{i}", question=f"What is fact {i}?", response=f"Fact {i} is true.",
                     documents=(f"Fact {i} is true according to record {i}.",)) for i in range(n)]


def test_every_4th_request_429_is_a_retry_not_a_billed_call(llm_server, loopback_settings):
    counter = itertools.count(1)
    lock = threading.Lock()
    rejected_cases: set[str] = set()

    def responder(req):
        # Every 4th request is refused, but never the same case twice: with four requests in
        # flight a case's retries could otherwise keep landing on a 4th slot and run out of tries.
        case = last_user_message(req)
        with lock:
            n = next(counter)
            refuse = n % 4 == 0 and case not in rejected_cases
            if refuse:
                rejected_cases.add(case)
        if refuse:
            return Reply.error(429, "rate limited", headers={"Retry-After": "0"})
        return Reply(content=json.dumps(keyed_labels_responder(req)),
                     prompt_tokens=1000, completion_tokens=100)

    llm_server.respond(responder)
    settings = loopback_settings(concurrency=4, price_per_mtok=(1.0, 2.0), cache_path="")
    run = evaluate_batch(cases(N), "gpt_labeling", llm=settings)
    assert len(run.scored) == N
    statuses = [r.status for r in llm_server.requests]
    rejected = statuses.count(429)
    assert rejected == len(rejected_cases) >= N // 5 and statuses.count(200) == N
    assert run.usage.calls == N  # one billed call per case ...
    assert run.usage.retries == rejected  # ... and every 429 counted apart
    assert run.usage.cost_usd == pytest.approx(N * (1000 * 1.0 + 100 * 2.0) / 1e6)
    assert run.usage.prompt_tokens == N * 1000


def test_usage_adds_retries():
    assert (Usage(calls=2, retries=1) + Usage(calls=1, retries=3)) == Usage(calls=3, retries=4)

"""Billing: only answered LLM calls count as billed calls (and cost); rejected attempts (429, 5xx,
timeouts) are counted apart as retries. Proven through the real SDK against the loopback server."""

from __future__ import annotations

import json
import re
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


def test_a_429_on_every_4th_case_is_a_retry_not_a_billed_call(llm_server, loopback_settings):
    """The first request of every 4th case is refused with 429 (Retry-After 0), its retry answered.

    Keyed by case, not by arrival: with four requests in flight the arrival order is not fixed, and
    refusing "every 4th request" made the count of refusals (and once a case's retries) a matter of
    timing."""
    lock = threading.Lock()
    refused: set[int] = set()

    def responder(req):
        m = re.search(r"What is fact (\d+)\?", last_user_message(req))
        i = int(m.group(1)) if m else -1
        with lock:
            refuse = i % 4 == 3 and i not in refused
            if refuse:
                refused.add(i)
        if refuse:
            return Reply.error(429, "rate limited", headers={"Retry-After": "0"})
        return Reply(content=json.dumps(keyed_labels_responder(req)),
                     prompt_tokens=1000, completion_tokens=100)

    llm_server.respond(responder)
    settings = loopback_settings(concurrency=4, price_per_mtok=(1.0, 2.0), cache_path="")
    run = evaluate_batch(cases(N), "gpt_labeling", llm=settings)
    assert len(run.scored) == N
    statuses = [r.status for r in llm_server.requests]
    assert statuses.count(429) == N // 4 == len(refused) and statuses.count(200) == N
    assert run.usage.calls == N  # one billed call per case ...
    assert run.usage.retries == N // 4  # ... and every 429 counted apart
    assert run.usage.cost_usd == pytest.approx(N * (1000 * 1.0 + 100 * 2.0) / 1e6)
    assert run.usage.prompt_tokens == N * 1000


def test_usage_adds_retries():
    assert (Usage(calls=2, retries=1) + Usage(calls=1, retries=3)) == Usage(calls=3, retries=4)

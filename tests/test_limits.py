"""Owner settings of a deployment (evaluators/limits.py): defaults, environment vs secrets, bad
values, refusal messages, and which runs the LLM limits apply to."""

import pytest

from evaluators.limits import CallLedger, Limits, owner_pays
from evaluators.llm.settings import resolve_credentials


def test_defaults_and_zero_means_no_limit():
    lim = Limits.load(environ={})
    assert (lim.max_llm_cases, lim.max_llm_calls, lim.shared_history, lim.keep_days) == (200, 1000, False, 30)
    lim = Limits.load(environ={"RAG_EVAL_MAX_LLM_CASES": "0", "RAG_EVAL_MAX_LLM_CALLS": "0",
                               "RAG_EVAL_KEEP_DAYS": "0", "RAG_EVAL_SHARED_HISTORY": "1"})
    assert (lim.max_llm_cases, lim.max_llm_calls, lim.shared_history, lim.keep_days) == (None, None, True, None)
    assert lim.check_llm_run(cases=10**6, calls=10**6, used=10**6) is None and lim.calls_left(5) is None


def test_secrets_win_over_the_environment_and_bad_values_are_reported():
    lim = Limits.load(environ={"RAG_EVAL_MAX_LLM_CASES": "50"}, secrets={"RAG_EVAL_MAX_LLM_CASES": "20"})
    assert lim.max_llm_cases == 20 and not lim.problems
    lim = Limits.load(environ={"RAG_EVAL_MAX_LLM_CALLS": "lots", "RAG_EVAL_SHARED_HISTORY": "maybe",
                               "RAG_EVAL_KEEP_DAYS": "-3"})
    assert lim.max_llm_calls == 1000 and not lim.shared_history and lim.keep_days == 30
    text = " ".join(lim.problems)
    assert "RAG_EVAL_MAX_LLM_CALLS" in text and "'lots'" in text and "RAG_EVAL_SHARED_HISTORY" in text
    assert "RAG_EVAL_KEEP_DAYS" in text


def test_refusals_say_what_and_which_setting():
    lim = Limits(max_llm_cases=100, max_llm_calls=300)
    assert lim.check_llm_run(cases=100, calls=100, used=200) is None
    msg = lim.check_llm_run(cases=150, calls=150, used=0)
    assert "150 cases" in msg and "at most 100" in msg and "RAG_EVAL_MAX_LLM_CASES" in msg
    msg = lim.check_llm_run(cases=90, calls=90, used=250)
    assert "about 90 LLM calls" in msg and "only 50 of 300" in msg and "RAG_EVAL_MAX_LLM_CALLS" in msg
    assert lim.calls_left(250) == 50 and lim.calls_left(400) == 0


@pytest.mark.parametrize("provider, url, typed, env, pays", [
    ("groq", None, None, {"GROQ_API_KEY": "owner"}, True),          # the owner's key
    ("groq", None, "mine", {"GROQ_API_KEY": "owner"}, False),       # the visitor's own key
    ("openai_compatible", "http://127.0.0.1:1/v1", None, {}, False),  # the visitor's own server
    ("openai_compatible", None, None, {"RAG_EVAL_BASE_URL": "http://127.0.0.1:2/v1"}, True),  # owner's server
])
def test_limits_apply_to_runs_on_the_owners_credentials(provider, url, typed, env, pays):
    assert owner_pays(resolve_credentials(provider, url, typed, environ=env)) is pays
    assert owner_pays(None) is False


def test_ledger_counts_per_owner():
    ledger = CallLedger()
    ledger.add("a", 3)
    ledger.add("a", 2)
    assert ledger.used("a") == 5 and ledger.used("b") == 0

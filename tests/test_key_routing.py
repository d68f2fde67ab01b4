"""The owner's keys (environment / Streamlit secrets) never reach a base URL typed by a user.

A loopback OpenAI-compatible server records the Authorization header of every request; every
provider is driven through every face (library, CLI, dashboard) with the owner's keys set, and the
server must never see one of them unless the URL is the owner's own ``RAG_EVAL_BASE_URL``.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
from types import SimpleNamespace

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from evaluators import evaluate_batch
from evaluators.llm.settings import (
    KEY_ENV,
    OWNER_BASE_URL_ENV,
    LLMSettings,
    normalize_url,
    resolve_credentials,
)
from evaluators.options import EvalOptions
from tests import ui_fixtures as fx
from tests.llm_server import keyed_labels_responder
from ui import state

OWNER_KEYS = {"groq": "gsk-OWNER-groq-0123456789", "openai": "sk-OWNER-openai-0123456789",
              "openai_compatible": "sk-OWNER-compat-0123456789"}
PROVIDERS = tuple(OWNER_KEYS)
CASES = [c for c in fx.sample_cases() if c.response.strip()]

pytestmark = pytest.mark.usefixtures("close_llm_clients")


@pytest.fixture
def owner_env(monkeypatch):
    """The owner's keys in the environment, as on a Space with secrets set."""
    monkeypatch.delenv(OWNER_BASE_URL_ENV, raising=False)
    for provider, key in OWNER_KEYS.items():
        monkeypatch.setenv(KEY_ENV[provider], key)
    return dict(os.environ)


@pytest.fixture
def server(llm_server):
    llm_server.respond(keyed_labels_responder)
    return llm_server


def url_for(server, provider: str) -> str:
    # The groq SDK appends /openai/v1 itself.
    return server.groq_base_url if provider == "groq" else server.base_url


def auth_headers(server) -> set[str]:
    return {r.headers.get("authorization", "") for r in server.requests}


def assert_no_owner_key(server) -> None:
    assert server.count > 0, "the path under test made no request"
    seen = " ".join(auth_headers(server))
    for key in OWNER_KEYS.values():
        assert key not in seen, "an owner key reached a typed base URL"


# ---- the rule itself --------------------------------------------------------------------------
def test_rule_typed_url_gets_no_env_key():
    env = {KEY_ENV["groq"]: "gsk-env"}
    c = resolve_credentials("groq", "http://evil.example/v1", environ=env)
    assert c.key is None and c.url_source == "typed" and "GROQ_API_KEY" in c.withheld
    assert "gsk-env" not in c.describe() + c.withheld
    c = resolve_credentials("groq", None, environ=env)
    assert (c.key, c.key_source, c.base_url, c.url_source) == ("gsk-env", "$GROQ_API_KEY", None, "official")
    # the official endpoint spelled by hand is still official
    for spelled in ("https://api.groq.com/openai/v1/", "HTTPS://API.GROQ.COM:443"):
        c = resolve_credentials("groq", spelled, environ=env)
        assert c.key == "gsk-env" and c.base_url is None
    # openai's key never goes to groq's endpoint and vice versa
    c = resolve_credentials("openai", "https://api.groq.com/openai/v1", environ={KEY_ENV["openai"]: "sk"})
    assert c.key is None and c.url_source == "typed"


def test_rule_owner_url_typed_key_and_secrets():
    env = {KEY_ENV["openai_compatible"]: "owner-key", OWNER_BASE_URL_ENV: "http://LLM.internal:8000/v1/"}
    c = resolve_credentials("openai_compatible", None, environ=env)
    assert (c.key, c.base_url, c.url_source) == ("owner-key", "http://llm.internal:8000/v1", "owner")
    assert resolve_credentials("openai_compatible", "http://llm.internal:8000/v1", environ=env).key == "owner-key"
    c = resolve_credentials("openai_compatible", "http://other:1/v1", environ=env)
    assert c.key is None and c.withheld
    c = resolve_credentials("openai_compatible", "http://other:1/v1", "visitor-key", environ=env)
    assert (c.key, c.key_source) == ("visitor-key", "password field")
    # secrets count as the owner's: first, and never to a typed URL
    secrets = {KEY_ENV["groq"]: "from-secrets"}
    c = resolve_credentials("groq", None, environ={KEY_ENV["groq"]: "from-env"}, secrets=secrets)
    assert (c.key, c.key_source) == ("from-secrets", "st.secrets[GROQ_API_KEY]")
    assert resolve_credentials("groq", "http://x:1", environ={}, secrets=secrets).key is None
    assert normalize_url(" ") is None
    with pytest.raises(ValueError, match="unknown provider"):
        resolve_credentials("anthropic")


# ---- library ------------------------------------------------------------------------------------
@pytest.mark.parametrize("provider", PROVIDERS)
def test_library_typed_url_never_gets_owner_key(provider, owner_env, server, tmp_path):
    llm = LLMSettings(provider=provider, base_url=url_for(server, provider), model="m", cache_path="",
                      retry_base_s=0.01)
    run = evaluate_batch(CASES, "gpt_labeling", options=EvalOptions(llm=llm))
    assert len(run.scored) == len(CASES), [r.error for r in run.results]
    assert_no_owner_key(server)
    assert auth_headers(server) == {"Bearer not-needed"}


@pytest.mark.parametrize("provider", PROVIDERS)
def test_library_owner_url_and_explicit_key_are_sent(provider, owner_env, server, monkeypatch):
    monkeypatch.setenv(OWNER_BASE_URL_ENV, url_for(server, provider))
    llm = LLMSettings(provider=provider, base_url=url_for(server, provider), model="m", cache_path="")
    evaluate_batch(CASES[:1], "gpt_labeling", options=EvalOptions(llm=llm))
    assert auth_headers(server) == {f"Bearer {OWNER_KEYS[provider]}"}
    server.reset()
    server.respond(keyed_labels_responder)
    monkeypatch.delenv(OWNER_BASE_URL_ENV)
    llm = LLMSettings(**llm.model_dump(), api_key="caller-key")
    evaluate_batch(CASES[:1], "gpt_labeling", options=EvalOptions(llm=llm))
    assert auth_headers(server) == {"Bearer caller-key"}


# ---- CLI ----------------------------------------------------------------------------------------
def run_cli(args: list[str], env: dict[str, str]) -> SimpleNamespace:
    """The CLI's ``main`` in this process with exactly ``env`` (the CLI's entry point as a
    subprocess is tested in test_cli.py; here a subprocess would only pay the imports six times)."""
    from evaluators.cli import main

    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as mp:
        for k in set(os.environ) - set(env):
            mp.delenv(k)
        for k, v in {**env, "HF_HUB_OFFLINE": "1"}.items():
            if os.environ.get(k) != v:
                mp.setenv(k, v)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(args)
    return SimpleNamespace(returncode=code, stdout=out.getvalue(), stderr=err.getvalue())


@pytest.mark.slow
def test_cli_paths(owner_env, server, tmp_path):
    data = tmp_path / "cases.jsonl"
    data.write_text("\n".join(json.dumps({"id": c.id, "question": c.question, "response": c.response,
                                           "documents": list(c.documents)}) for c in CASES[:2]))
    for provider in PROVIDERS:
        url = url_for(server, provider)
        base = ["evaluate", str(data), "--method", "gpt_labeling", "--provider", provider,
                "--model", "m", "--cache", "", "--no-progress", "--out", str(tmp_path / "o.json")]
        p = run_cli([*base, "--base-url", url], owner_env)
        assert p.returncode == 0, p.stderr[-2000:]
        assert "is sent only to the official endpoint" in p.stderr
        assert_no_owner_key(server)
        # jury members with their own provider follow the same rule
        server.reset()
        server.respond(keyed_labels_responder)
        p = run_cli([*base[:3], "jury", *base[4:], "--base-url", url, "--jury-models",
                     f"{provider}:a,{provider}:b"], owner_env)
        assert p.returncode == 0, p.stderr[-2000:]
        assert_no_owner_key(server)
        # the owner's own URL receives the owner's key
        server.reset()
        server.respond(keyed_labels_responder)
        p = run_cli([*base, "--base-url", url], {**owner_env, OWNER_BASE_URL_ENV: url})
        assert p.returncode == 0, p.stderr[-2000:]
        assert auth_headers(server) == {f"Bearer {OWNER_KEYS[provider]}"}
        assert all(k not in p.stdout + p.stderr for k in OWNER_KEYS.values())
        server.reset()
        server.respond(keyed_labels_responder)


# ---- dashboard ----------------------------------------------------------------------------------
def dashboard(provider: str, url: str, typed_key: str = "") -> AppTest:
    df = pd.DataFrame([{"id": c.id, "question": c.question, "response": c.response} for c in CASES])
    data = state.LoadedData(filename="t.jsonl", df=df, mapping=None, cases=tuple(CASES))
    at = AppTest.from_file(fx.APP, default_timeout=120)
    at.session_state[state._DATA] = data
    at.session_state[state.PROVIDER] = provider
    at.session_state[state.MODEL] = "m"
    at.session_state[state.BASE_URL] = url
    at.session_state[state.API_KEY] = typed_key
    return at


def run_gpt_labeling(at: AppTest) -> str:
    """Run GPT labeling from the Evaluate page; returns the sidebar's key status shown before."""
    at.run()  # the first page renders the shared sidebar (AppTest drops it after switch_page)
    status = " ".join(str(c.value) for c in at.sidebar.caption)
    at.switch_page("pages/2_evaluate.py").run()
    at.radio(key="evaluate.method").set_value("gpt_labeling").run()
    assert not at.button(key="evaluate.run").disabled
    at.button(key="evaluate.run").click().run()
    assert not at.exception, at.exception
    from ui import resources  # the run goes on in the server's background queue: wait for it

    assert resources.queue().wait_idle(120)
    return status


@pytest.mark.slow
@pytest.mark.parametrize("provider", PROVIDERS)
def test_dashboard_typed_url_never_gets_owner_key(provider, owner_env, server, tmp_store):
    at = dashboard(provider, url_for(server, provider))
    at.secrets[KEY_ENV[provider]] = "secrets-" + OWNER_KEYS[provider]
    status = run_gpt_labeling(at)
    assert_no_owner_key(server)
    assert "secrets-" not in " ".join(auth_headers(server))
    assert "no key" in status and "typed here" in status and OWNER_KEYS[provider] not in status


@pytest.mark.slow
def test_dashboard_typed_key_and_owner_url(owner_env, server, tmp_store, monkeypatch):
    status = run_gpt_labeling(dashboard("groq", server.groq_base_url, typed_key="visitor-own-key"))
    assert auth_headers(server) == {"Bearer visitor-own-key"}
    assert "key from password field" in status
    server.reset()
    server.respond(keyed_labels_responder)
    monkeypatch.setenv(OWNER_BASE_URL_ENV, server.base_url)
    status = run_gpt_labeling(dashboard("openai_compatible", ""))
    assert auth_headers(server) == {f"Bearer {OWNER_KEYS['openai_compatible']}"}
    assert "owner's base URL" in status

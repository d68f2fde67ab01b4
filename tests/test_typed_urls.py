"""Typed addresses (an LLM base URL, a Phoenix address) never reach link-local / cloud metadata
addresses, and the owner can refuse them all (RAG_EVAL_TYPED_URLS=off); configured ones are not checked."""

from __future__ import annotations

import pytest

from evaluators.llm.keys import LLMUnavailable, check_settings
from evaluators.llm.settings import LLMSettings
from evaluators.net import AddressRefused, check_typed_url


@pytest.mark.parametrize("url", ["http://169.254.169.254/latest/meta-data", "http://[fe80::1]:80/v1",
                                 "http://metadata.google.internal/computeMetadata/v1", "http://[::ffff:169.254.169.254]/"])
def test_link_local_and_metadata_hosts_are_refused(url):
    with pytest.raises(AddressRefused, match="refused"):
        check_typed_url(url, "Phoenix address", environ={})


@pytest.mark.parametrize("url", ["http://127.0.0.1:6006", "https://phoenix.example.com", "http://10.0.0.5:6006"])
def test_ordinary_addresses_pass(url):
    check_typed_url(url, "Phoenix address", environ={})


def test_not_http_and_the_owner_switch():
    with pytest.raises(AddressRefused, match="not an http"):
        check_typed_url("file:///etc/passwd", "Phoenix address", environ={})
    with pytest.raises(AddressRefused, match="RAG_EVAL_TYPED_URLS=off"):
        check_typed_url("http://127.0.0.1:6006", "Phoenix address", environ={"RAG_EVAL_TYPED_URLS": "off"})


def test_a_typed_llm_base_url_is_checked_and_the_owner_url_is_not(monkeypatch):
    monkeypatch.delenv("RAG_EVAL_TYPED_URLS", raising=False)
    typed = LLMSettings(provider="openai_compatible", base_url="http://169.254.169.254/v1", model="m", cache_path="")
    with pytest.raises(LLMUnavailable, match="link-local"):
        check_settings(typed)
    monkeypatch.setenv("RAG_EVAL_BASE_URL", "http://169.254.169.254/v1")  # the owner's own: not ours to refuse
    check_settings(typed)
    monkeypatch.delenv("RAG_EVAL_BASE_URL")
    monkeypatch.setenv("RAG_EVAL_TYPED_URLS", "off")
    ok = LLMSettings(provider="openai_compatible", base_url="http://127.0.0.1:9/v1", model="m", cache_path="")
    with pytest.raises(LLMUnavailable, match="typed addresses"):
        check_settings(ok)


def test_owner_settings_kept_in_streamlit_secrets_reach_the_library_checks(monkeypatch):
    """An owner who puts their LLM server and RAG_EVAL_TYPED_URLS=off in secrets.toml (not the
    environment): the dashboard hands the library their URL, which must count as the owner's, not
    as typed (else every run against their own server is refused); the switch must hold too."""
    import os

    from ui.resources import mirror_owner_settings

    for name in ("RAG_EVAL_BASE_URL", "RAG_EVAL_TYPED_URLS", "GROQ_API_KEY"):
        monkeypatch.setenv(name, "")  # (recorded, so the mirrored values go when the test ends)
        monkeypatch.delenv(name)
    owner_url = "http://127.0.0.1:9/v1"
    mirror_owner_settings({"RAG_EVAL_BASE_URL": owner_url, "RAG_EVAL_TYPED_URLS": "off", "GROQ_API_KEY": "gsk-x"})
    assert os.environ["RAG_EVAL_BASE_URL"] == owner_url and os.environ["RAG_EVAL_TYPED_URLS"] == "off"
    assert "GROQ_API_KEY" not in os.environ  # keys stay where the owner put them
    check_settings(LLMSettings(provider="openai_compatible", base_url=owner_url, model="m", cache_path=""))
    typed = LLMSettings(provider="openai_compatible", base_url="http://127.0.0.1:10/v1", model="m", cache_path="")
    with pytest.raises(LLMUnavailable, match="typed addresses"):
        check_settings(typed)
    monkeypatch.setenv("RAG_EVAL_TYPED_URLS", "on")  # the environment, where set, wins
    mirror_owner_settings({"RAG_EVAL_TYPED_URLS": "off"})
    check_settings(typed)

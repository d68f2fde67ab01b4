"""pytest fixtures of the LLM tests (a pytest plugin module, registered in ``conftest.py``); the
loopback server itself and its helpers are ``evaluators.testing.llm_server`` (re-exported here).

* ``llm_server``: a fresh :class:`LLMServer` per test, stopped afterwards.
* ``loopback_settings(**kw)`` -> ``LLMSettings`` aimed at ``llm_server``: provider
  ``openai_compatible``, model ``"loopback-model"``, a per-test cache file, fast retries
  (``retry_base_s=0.05``) and a 5 s timeout; ``kw`` override any field.
* ``close_llm_clients``: closes the shared LLM clients after the test; a module opts in with
  ``pytestmark = pytest.mark.usefixtures("close_llm_clients")``.
"""

from __future__ import annotations

from typing import Any

import pytest

from evaluators.llm import LLMSettings, close_clients
from evaluators.testing.llm_server import (
    PARIS_CASE,
    PARIS_LABELS,
    LLMServer,
    Recorded,
    Reply,
    completion,
    keyed_labels_responder,
    labels_reply,
    last_user_message,
    max_in_flight,
)

__all__ = ["LLMServer", "PARIS_CASE", "PARIS_LABELS", "Recorded", "Reply", "close_llm_clients", "completion",
           "keyed_labels_responder", "labels_reply", "last_user_message", "llm_server", "loopback_settings",
           "max_in_flight"]


@pytest.fixture
def llm_server():
    """A fresh loopback OpenAI-compatible server on 127.0.0.1 (see module docstring)."""
    with LLMServer() as srv:
        yield srv


# ---------------------------------------------------------------------- shared LLM-test set-up

@pytest.fixture
def loopback_settings(llm_server, tmp_path):
    """``make(**kw) -> LLMSettings`` for ``llm_server`` (see module docstring)."""
    def make(**kw: Any) -> LLMSettings:
        base: dict[str, Any] = dict(
            provider="openai_compatible", base_url=llm_server.base_url, model="loopback-model",
            cache_path=str(tmp_path / "cache.sqlite3"), retry_base_s=0.05, timeout_s=5.0)
        base.update(kw)
        return LLMSettings(**base)
    return make


@pytest.fixture
def close_llm_clients():
    """Close the process-wide LLM clients after the test."""
    yield
    close_clients()

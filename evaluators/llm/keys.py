"""Which key a client may send, by the one rule of :mod:`.settings`, and the clear error when the
settings cannot make calls at all."""

from __future__ import annotations

import logging

from .errors import LLMUnavailable
from .settings import DUMMY_KEY, KEY_ENV, LLMSettings, key_help, settings_credentials

log = logging.getLogger(__name__)


def resolve_api_key(settings: LLMSettings) -> str:
    """The key these settings may send, by the one rule of :mod:`.settings`: ``api_key`` goes where
    ``base_url`` says; an environment key only to the official endpoint or ``RAG_EVAL_BASE_URL``.
    A custom base URL without a key of its own is called keyless (a dummy header)."""
    creds = settings_credentials(settings)
    if creds.key:
        return creds.key
    if settings.provider == "openai_compatible" or creds.url_source == "typed":
        if creds.withheld:
            log.info("%s", creds.withheld)
        return DUMMY_KEY
    raise LLMUnavailable(f"the {settings.provider} provider needs an API key: {key_help(settings.provider)}")


def check_settings(settings: LLMSettings | None, purpose: str = "this method") -> str:
    """Raise LLMUnavailable with a clear message unless ``settings`` can make calls; returns the key."""
    if settings is None:
        raise LLMUnavailable(
            f"{purpose} needs an LLM: set provider/model and {KEY_ENV['groq']} (provider groq), "
            f"{KEY_ENV['openai']} (provider openai), or a base URL (provider openai_compatible)"
        )
    if not (settings.model or "").strip():
        raise LLMUnavailable(f"{purpose} needs an LLM model name")
    creds = settings_credentials(settings)
    if settings.provider == "openai_compatible" and creds.base_url is None:
        raise LLMUnavailable(
            f"{purpose}: provider openai_compatible needs a base URL (e.g. http://localhost:11434/v1)"
        )
    if creds.base_url and creds.url_source == "typed":
        from ..net import AddressRefused, check_typed_url

        try:
            check_typed_url(creds.base_url, f"{purpose}: the base URL")
        except AddressRefused as exc:
            raise LLMUnavailable(str(exc)) from None
    return resolve_api_key(settings)

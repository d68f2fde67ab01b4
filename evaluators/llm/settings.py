"""Settings of the LLM client, and the ONE place that knows providers, default models, key
environment names and which key may be sent where. The library, the CLI and the dashboard all
resolve keys through :func:`resolve_credentials`; nothing else reads a key variable.

The rule (a public Space must never hand its owner's key to a visitor's server):

* A key from the environment or Streamlit secrets (the *owner's* key) goes only to its provider's
  official endpoint, or to the base URL the owner configured the same way
  (``RAG_EVAL_BASE_URL`` in the environment or secrets).
* A base URL typed by a user (dashboard field, CLI flag, ``LLMSettings.base_url`` in code) that is
  neither of those gets only a key given in the same session / call (password field,
  ``LLMSettings.api_key``), or none at all (keyless local servers such as Ollama or vLLM).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr

Provider = Literal["openai", "groq", "openai_compatible"]
PROVIDERS: tuple[str, ...] = ("groq", "openai", "openai_compatible")
DEFAULT_MODELS: dict[str, str] = {"groq": "llama-3.3-70b-versatile", "openai": "gpt-4o-mini",
                                  "openai_compatible": "gpt-4o-mini"}
#: The environment / secrets name holding each provider's key.
KEY_ENV: dict[str, str] = {"groq": "GROQ_API_KEY", "openai": "OPENAI_API_KEY",
                           "openai_compatible": "OPENAI_COMPATIBLE_API_KEY"}
#: Where the official SDKs send requests when no base URL is given (first), and the other
#: spellings of that endpoint a user may type.
OFFICIAL_BASE_URLS: dict[str, tuple[str, ...]] = {
    "groq": ("https://api.groq.com", "https://api.groq.com/openai/v1"),
    "openai": ("https://api.openai.com/v1", "https://api.openai.com"),
}
#: A base URL the owner trusts with the environment keys (set like the keys: env or secrets).
OWNER_BASE_URL_ENV = "RAG_EVAL_BASE_URL"
#: Sent to keyless local servers (Ollama, vLLM, LM Studio) that ignore the header.
DUMMY_KEY = "not-needed"


class LLMSettings(BaseModel):
    model_config = ConfigDict(frozen=True)

    provider: Provider = "groq"
    model: str = DEFAULT_MODELS["groq"]
    base_url: str | None = None
    #: Never serialised: excluded from model_dump / JSON, and repr shows '**********'.
    api_key: SecretStr | None = Field(default=None, exclude=True, repr=False)
    temperature: float = 0.0
    max_tokens: int | None = 4096
    concurrency: int = 8
    rpm: int | None = None
    tpm: int | None = None
    timeout_s: float = 60.0
    max_retries: int = 5
    #: SQLite cache file; None = default under the user cache dir; "" disables caching.
    cache_path: Path | str | None = None
    #: USD per 1M tokens (input, output) overriding the built-in price table for this model.
    price_per_mtok: tuple[float, float] | None = None
    #: Ask for a JSON object (response_format json_object). None = auto: on, and switched off for
    #: the rest of the run if the server rejects the parameter (some local servers do).
    json_mode: bool | None = None
    #: Exponential backoff between retries: first wait ~retry_base_s (full jitter), at most
    #: retry_max_s; a Retry-After header from the server wins.
    retry_base_s: float = 0.5
    retry_max_s: float = 30.0

    def public_dict(self) -> dict:
        """Settings safe to store or export (no key)."""
        d = self.model_dump(mode="json")
        d.pop("api_key", None)
        return d


def normalize_url(url: str | None) -> str | None:
    """``https://Host:443/v1/`` and ``https://host/v1`` compare equal; blank -> None."""
    u = (url or "").strip().rstrip("/")
    if not u:
        return None
    from urllib.parse import urlsplit, urlunsplit

    p = urlsplit(u)
    host = (p.hostname or "").lower()
    default_port = {"https": 443, "http": 80}.get(p.scheme.lower())
    netloc = host if p.port in (None, default_port) else f"{host}:{p.port}"
    return urlunsplit((p.scheme.lower(), netloc, p.path.rstrip("/"), p.query, ""))


def _lookup(name: str, environ: Mapping[str, str], secrets: Mapping[str, object] | None) -> tuple[str, str]:
    """(value, source) of an owner setting: Streamlit secrets first, then the environment."""
    if secrets is not None:
        try:
            v = secrets.get(name)
        except Exception:  # noqa: BLE001 - a missing secrets.toml raises on access
            v = None
        if v and str(v).strip():
            return str(v).strip(), f"st.secrets[{name}]"
    v = (environ.get(name) or "").strip()
    return (v, f"${name}") if v else ("", "")


def owner_setting(name: str, environ: Mapping[str, str] | None = None,
                  secrets: Mapping[str, object] | None = None) -> str | None:
    """An owner (deployment) setting by name, read like the keys: Streamlit secrets first, then
    the environment; None when unset. Used for the limits in :mod:`evaluators.limits`."""
    return _lookup(name, os.environ if environ is None else environ, secrets)[0] or None


def owner_base_url(environ: Mapping[str, str] | None = None,
                   secrets: Mapping[str, object] | None = None) -> str | None:
    """The base URL the owner configured (``RAG_EVAL_BASE_URL``), if any."""
    return _lookup(OWNER_BASE_URL_ENV, os.environ if environ is None else environ, secrets)[0] or None


@dataclass(frozen=True)
class Credentials:
    """Which key goes where, decided by the one rule. ``key`` is None when no key may be sent."""

    provider: str
    key: str | None
    key_source: str  # "password field" / "LLMSettings.api_key" / "$GROQ_API_KEY" / "st.secrets[..]" / ""
    base_url: str | None  # None = the provider's official endpoint
    url_source: str  # "official" / "owner" / "typed"
    #: Why an owner key that exists was not used (shown to the user; never contains the key).
    withheld: str = ""

    @property
    def destination(self) -> str:
        return self.base_url or OFFICIAL_BASE_URLS.get(self.provider, ("?",))[0]

    def describe(self) -> str:
        """One line for the UI / CLI: which key goes where (never the key itself)."""
        where = {"official": "its official endpoint", "owner": "the owner's base URL",
                 "typed": "a base URL typed here"}[self.url_source]
        if self.key:
            text = f"key from {self.key_source} → {self.destination} ({where})"
        else:
            text = f"no key → {self.destination} ({where})"
        return text + (f". {self.withheld}" if self.withheld else "")


def resolve_credentials(provider: str, base_url: str | None = None, typed_key: str | None = None, *,
                        environ: Mapping[str, str] | None = None,
                        secrets: Mapping[str, object] | None = None,
                        typed_source: str = "password field") -> Credentials:
    """Apply the rule of the module docstring. ``typed_key`` is a key given in this session or call
    (it goes wherever ``base_url`` says); ``environ``/``secrets`` hold the owner's keys."""
    if provider not in KEY_ENV:
        raise ValueError(f"unknown provider {provider!r}; choose one of {', '.join(PROVIDERS)}")
    environ = os.environ if environ is None else environ
    owner = normalize_url(owner_base_url(environ, secrets))
    url = normalize_url(base_url)
    if url is None:
        # No URL given: the official endpoint, or the owner's URL for a custom-server provider.
        url_source = "owner" if provider == "openai_compatible" and owner else "official"
        url = owner if url_source == "owner" else None
    elif url == owner:
        url_source = "owner"
    elif url in {normalize_url(u) for u in OFFICIAL_BASE_URLS.get(provider, ())}:
        url_source, url = "official", None
    else:
        url_source = "typed"
    typed = (typed_key or "").strip()
    if typed:
        return Credentials(provider, typed, typed_source, url, url_source)
    env_key, env_source = _lookup(KEY_ENV[provider], environ, secrets)
    if url_source != "typed":
        return Credentials(provider, env_key or None, env_source, url, url_source)
    withheld = (f"{KEY_ENV[provider]} is sent only to the official endpoint or {OWNER_BASE_URL_ENV}; "
                "enter a key for this base URL to use one" if env_key else "")
    return Credentials(provider, None, "", url, url_source, withheld)


def settings_credentials(settings: LLMSettings, environ: Mapping[str, str] | None = None) -> Credentials:
    """The credentials of library settings: ``api_key`` counts as typed by the caller."""
    key = settings.api_key
    typed = key.get_secret_value() if isinstance(key, SecretStr) else key  # model_copy skips validation
    return resolve_credentials(settings.provider, settings.base_url, typed, environ=environ,
                               typed_source="LLMSettings.api_key")


def key_help(provider: str) -> str:
    """How to configure a key for ``provider`` (for error messages)."""
    if provider == "openai_compatible":
        return (f"set a base URL (keyless servers need no key), or {OWNER_BASE_URL_ENV} and "
                f"{KEY_ENV[provider]}")
    return f"enter a key, or set {KEY_ENV[provider]}"

"""Settings of the LLM client. The API key is a SecretStr excluded from every dump."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr

Provider = Literal["openai", "groq", "openai_compatible"]


class LLMSettings(BaseModel):
    model_config = ConfigDict(frozen=True)

    provider: Provider = "groq"
    model: str = "llama-3.3-70b-versatile"
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

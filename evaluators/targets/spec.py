"""The fields of a target file, as pydantic models (the reference: docs/targets.md; reading a file
and the messages for bad ones: :mod:`.model`).

Contract: a valid :class:`TargetSpec` is an HTTP target (``http``) or a Python one (``python``), never
both; numbers are in range; unknown fields are refused. Nothing here reads the environment or the
question file.
"""

from __future__ import annotations

from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class HttpSpec(_Strict):
    """How to make one HTTP call (``http:`` of a target file)."""

    url: str = Field(min_length=1)
    method: Literal["GET", "POST", "PUT", "PATCH"] = "POST"
    #: Header values are never written or printed (``${VAR}`` expanded at call time).
    headers: dict[str, str] = Field(default_factory=dict)
    #: The JSON body (POST / PUT / PATCH); ``"{column}"`` strings filled from the question row.
    body: Any = None
    #: URL parameters, filled like the body.
    query: dict[str, Any] = Field(default_factory=dict)
    #: Seconds one attempt may take, connection to the reply's last byte.
    timeout_s: float = Field(30.0, gt=0, le=3600)
    #: Follow a 307 / 308 redirect (method and body kept; another status is the question's error).
    follow_redirects: bool = False
    #: Origins (``https://host[:port]``) a followed redirect may lead to besides the URL's own.
    redirect_origins: list[str] = Field(default_factory=list)
    #: The largest reply read, decompressed (MB; at high concurrency each call reads less: :mod:`.reply`).
    max_reply_mb: float = Field(32.0, gt=0, le=1024)

    @field_validator("redirect_origins")
    @classmethod
    def _origins(cls, values: list[str]) -> list[str]:
        for i, v in enumerate(values, start=1):
            parts = urlsplit(v.strip())
            if (parts.scheme not in ("http", "https") or not parts.hostname or parts.path.strip("/") or parts.query
                    or parts.username):
                raise ValueError(f"item {i} is not an origin: give scheme://host[:port], e.g. https://auth.example.com")
        return values


class TargetSpec(_Strict):
    """The fields of a target file (see the module doc)."""

    name: str | None = Field(None, min_length=1, max_length=200)
    http: HttpSpec | None = None
    python: str | None = Field(None, pattern=r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")
    #: A Python target's keyword arguments: each question calls ``function(row, **args)``.
    args: dict[str, Any] | None = None
    answer: str | None = None
    contexts: str | None = None
    context_ids: str | None = None
    #: An agent's tool calls in its reply (any shape ``evaluators.toolcalls.read_calls`` reads).
    tool_calls: str | None = None
    usage: str | None = None
    concurrency: int = Field(8, ge=1, le=256)
    retries: int = Field(3, ge=0, le=20)
    rpm: float | None = Field(None, gt=0)
    #: First wait before a retry when the app sends no Retry-After (doubled each time).
    retry_wait_s: float = Field(0.5, gt=0, le=60)
    #: Longest wait before a retry (a longer Retry-After is cut to it).
    max_retry_wait_s: float = Field(60.0, gt=0, le=3600)
    match: Literal["id", "text"] | None = None
    #: A Python target's seconds per call (an overrunning call is abandoned; HTTP: ``http.timeout_s``).
    timeout_s: float | None = Field(None, gt=0, le=86400)

    @model_validator(mode="after")
    def _one_kind(self) -> TargetSpec:
        if (self.http is None) == (self.python is None):
            raise ValueError("give either 'http' (an app to call over HTTP) or 'python' (package.module:function), "
                             "not " + ("both" if self.http else "neither"))
        if self.http is not None and self.timeout_s is not None:
            raise ValueError("timeout_s at the top of a target file is a Python target's; an HTTP target's is "
                             "http.timeout_s")
        if self.args is not None and self.python is None:
            raise ValueError("'args' are a Python target's keyword arguments: an HTTP target sends its values in "
                             "http.body or http.query")
        return self

"""The fields of a target file, as pydantic models (the reference: docs/targets.md; reading a file
and the messages for bad ones: :mod:`.model`).

Contract: a valid :class:`TargetSpec` is an HTTP target (``http``) or a Python one (``python``), never
both; numbers are in range; unknown fields are refused. Nothing here reads the environment or the
question file.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


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
    timeout_s: float = Field(30.0, gt=0, le=3600)


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

    @model_validator(mode="after")
    def _one_kind(self) -> TargetSpec:
        if (self.http is None) == (self.python is None):
            raise ValueError("give either 'http' (an app to call over HTTP) or 'python' (package.module:function), "
                             "not " + ("both" if self.http else "neither"))
        if self.args is not None and self.python is None:
            raise ValueError("'args' are a Python target's keyword arguments: an HTTP target sends its values in "
                             "http.body or http.query")
        return self

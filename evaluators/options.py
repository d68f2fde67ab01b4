"""Options of one evaluation run, shared by the library API, the CLI and the dashboard."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .llm.settings import LLMSettings


class EvalOptions(BaseModel):
    model_config = ConfigDict(frozen=True)

    #: Family metrics to compute next to TRACE (names from the metric registry).
    metrics: tuple[str, ...] = ()
    #: Per-metric parameters, e.g. {"aspect_critique": {"aspects": [...]}, "regex": {...}}.
    metric_params: dict[str, dict[str, Any]] = Field(default_factory=dict)
    #: LLM settings for gpt_labeling / hybrid / jury and LLM metrics; None = no LLM configured.
    llm: LLMSettings | None = None
    #: Jury: one LLMSettings per juror.
    jury: tuple[LLMSettings, ...] = ()
    #: Selective hybrid: at most this many LLM calls (cases) ...
    selective_budget: int | None = None
    #: ... or this share of cases (0-1), the least certain first.
    selective_share: float | None = None
    #: Only estimate calls / tokens / cost; make no LLM call.
    dry_run: bool = False
    #: Heuristic labeler options (thresholds overrides, optional cross-encoder path/name).
    heuristic: dict[str, Any] = Field(default_factory=dict)

    def public_dict(self) -> dict[str, Any]:
        d = self.model_dump(mode="json", exclude={"llm", "jury", "metric_params"})
        d["llm"] = self.llm.public_dict() if self.llm else None
        d["jury"] = [j.public_dict() for j in self.jury]
        d["metric_params"] = _json_safe(self.metric_params)
        return d


def _json_safe(obj: Any) -> Any:
    """metric_params may hold callables (the ``binary`` metric's callback): name them instead."""
    if isinstance(obj, dict):
        return {str(k): _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_json_safe(v) for v in obj]
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    if callable(obj):
        return f"<callable {getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', type(obj).__name__)}>"
    return repr(obj)

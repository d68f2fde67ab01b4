"""Guarded access to library parts that may be absent on a given install (or still being built):
the dataset loader, metric families, dry-run estimates and the statistics module. Each getter
returns the module/function or None, so pages can explain what is missing instead of crashing."""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any, Callable


def module(name: str) -> ModuleType | None:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def attr(mod_name: str, name: str) -> Callable[..., Any] | None:
    mod = module(mod_name)
    return getattr(mod, name, None) if mod else None


def datasets() -> ModuleType | None:
    return module("evaluators.datasets")


def compare() -> ModuleType | None:
    return module("evaluators.compare")


def estimate() -> Callable[..., dict] | None:
    return attr("evaluators.pipeline", "estimate")


def metric_declarations() -> list[Any]:
    """Declarations of the family metrics (name, family, needs_llm, description…), or []."""
    fn = attr("evaluators.families", "list_metrics")
    if fn is None:
        return []
    try:
        return list(fn())
    except Exception:  # noqa: BLE001 - a broken registry must not take the page down
        return []


def field(obj: Any, name: str, default: Any = None) -> Any:
    """Read a field of a dataclass / pydantic model / dict alike."""
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)

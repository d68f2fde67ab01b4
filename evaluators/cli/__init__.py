"""Command line: ``python -m evaluators evaluate INPUT --method trace --out results.json``
(also installed as ``rag-eval``).

One module per command (``evaluate``, ``run``, ``agreement``, ``compare``, ``cache``, ``encoder``,
``testset``); ``common`` holds what they share (exit codes, LLM flags -> ``EvalOptions``, input
loading); ``main`` builds the parser. Thresholds are checked by ``evaluators.gate``, the library's
only threshold implementation.
"""

from __future__ import annotations

from .common import (
    EXIT_BAD_INPUT,
    EXIT_INTERNAL,
    EXIT_OK,
    EXIT_THRESHOLD,
    UsageError,
    build_jury,
    build_llm_settings,
    build_options,
    load_input,
    parse_metric_params,
)
from .evaluate import CORE_THRESHOLD_METRICS
from .main import build_parser, main

__all__ = [
    "CORE_THRESHOLD_METRICS", "EXIT_BAD_INPUT", "EXIT_INTERNAL", "EXIT_OK", "EXIT_THRESHOLD", "UsageError",
    "build_jury", "build_llm_settings", "build_options", "build_parser", "load_input", "main", "parse_metric_params",
]

"""Versions of the run format (stored runs and JSON exports), and the migration of older ones.

=======  ====================================================================================
version  what changed
=======  ====================================================================================
1        (no ``schema_version`` field) the format up to issue 16
2        ``schema_version``; per case ``spans`` (the sentence split the labels refer to);
         ``warnings`` of the run; ``Usage.retries``
=======  ====================================================================================

:func:`load_run` reads a stored ``RunResult`` dump of any known version (older ones are migrated
step by step, :data:`MIGRATIONS`); :func:`load_case` one ``CaseResult`` of a run the history stores
case by case (the run keeps the version its cases were written in, and each is migrated as a
one-case run); :func:`migrate_export` does the same for a results JSON
written by ``python -m evaluators evaluate --out`` or the dashboard download. A version newer
than this library's is refused with a clear error. A version-1 run has no spans: Inspect splits
its texts again (and says so).
"""

from __future__ import annotations

import json
from typing import Any, Callable

from .trace_metrics import expected_adherence
from .types import SCHEMA_VERSION, CaseResult, RunResult, SentenceLabels

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "SchemaError", "load_case", "load_run", "migrate_export", "migrate_run"]


class SchemaError(ValueError):
    """A run / results file of an unknown or newer format."""


def _run_1_to_2(d: dict[str, Any]) -> dict[str, Any]:
    # New fields have defaults (spans None: Inspect re-splits, warnings (), retries 0); a version-1
    # dump may carry the computed ``level`` of each sentence verdict (derived: dropped).
    for r in d.get("results") or ():
        for labels in [r.get("labels"), *(r.get("variants") or {}).values()]:
            for s in (labels or {}).get("sentences") or ():
                s.pop("level", None)
    return d


def _export_1_to_2(d: dict[str, Any]) -> dict[str, Any]:
    d.setdefault("warnings", [])
    for c in d.get("detailed_results") or ():
        c.setdefault("spans", None)
    return d


#: version -> the step that turns a dump of that version into one of the next (run dumps, exports).
MIGRATIONS: dict[int, tuple[Callable[[dict[str, Any]], dict[str, Any]], Callable[[dict[str, Any]], dict[str, Any]]]] = {
    1: (_run_1_to_2, _export_1_to_2),
}


def _version(d: dict[str, Any], what: str) -> int:
    v = d.get("schema_version", 1)
    if not isinstance(v, int) or isinstance(v, bool) or v < 1:
        raise SchemaError(f"{what}: schema_version must be a positive integer, got {v!r}")
    if v > SCHEMA_VERSION:
        raise SchemaError(f"{what}: schema_version {v} is newer than this library's {SCHEMA_VERSION}; "
                          "update rag-eval-dashboard to read it")
    return v


def _migrate(d: dict[str, Any], kind: int, what: str) -> dict[str, Any]:
    v = _version(d, what)
    while v < SCHEMA_VERSION:
        d = MIGRATIONS[v][kind](d)
        v += 1
    d["schema_version"] = SCHEMA_VERSION
    return d


def migrate_run(data: dict[str, Any]) -> dict[str, Any]:
    """A ``RunResult`` dump of any known version, as the current version (a new dict)."""
    return _migrate(json.loads(json.dumps(data)), 0, "stored run")


def migrate_export(data: dict[str, Any]) -> dict[str, Any]:
    """A results JSON (``to_json_dict``) of any known version, as the current version (a new dict)."""
    return _migrate(json.loads(json.dumps(data)), 1, "results file")


def _fill_expected_adherence(d: dict[str, Any]) -> dict[str, Any]:
    """A result stored before ``expected_adherence`` existed (within version 2) gets it from its
    labels, and so does each of its variants' scores."""

    def fill(scores: Any, labels: Any) -> None:
        if isinstance(scores, dict) and labels is not None and "expected_adherence" not in scores:
            scores["expected_adherence"] = expected_adherence(SentenceLabels.model_validate(labels))

    for r in d.get("results") or ():
        if not isinstance(r, dict):
            continue
        fill(r.get("scores"), r.get("labels"))
        variants = r.get("variants")
        for k, v in (r.get("variant_scores") or {}).items():
            fill(v, variants.get(k) if isinstance(variants, dict) else None)
    return d


def load_run(payload: str | bytes | dict[str, Any]) -> RunResult:
    """A stored run (JSON text or its dict), migrated to the current version."""
    data = json.loads(payload) if isinstance(payload, (str, bytes)) else payload
    if not isinstance(data, dict):
        raise SchemaError(f"stored run: expected a JSON object, got {type(data).__name__}")
    return RunResult.model_validate(_fill_expected_adherence(migrate_run(data)))


def load_case(payload: str | bytes | dict[str, Any], version: int = SCHEMA_VERSION) -> CaseResult:
    """One stored case (JSON text or its dict) of a run of format ``version``, migrated to the
    current version (an older one as a one-case run, by :data:`MIGRATIONS`)."""
    if version == SCHEMA_VERSION and isinstance(payload, (str, bytes)):
        return CaseResult.model_validate_json(payload)
    data = json.loads(payload) if isinstance(payload, (str, bytes)) else payload
    if not isinstance(data, dict):
        raise SchemaError(f"stored case: expected a JSON object, got {type(data).__name__}")
    run = _fill_expected_adherence(migrate_run({"schema_version": version, "method": data.get("method", ""),
                                                "results": [data]}))
    return CaseResult.model_validate(run["results"][0])

"""Human label columns: which values are labels, what each measures, how graded ones are scaled.

Human labels live in ``TestCase.labels`` (nested values by dotted path: ``faithfulness.mean``).
Detection rules are described in ``evaluators.agreement`` (the package docstring).
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from ..convert import as_bool, as_float
from ..tally import group_of, lookup
from ..types import CaseResult, RunResult


def graded_dict_key(v: Any) -> str | None:
    if isinstance(v, Mapping):
        for k in ("mean", "median", "value", "score"):
            if as_float(v.get(k)) is not None:
                return k
    return None


def label_kind(values: Sequence[Any], name: str = "") -> str | None:
    """'binary', 'graded' or None (not a usable label) for the non-missing values of a column."""
    vals = [v for v in values if v is not None]
    if not vals:
        return None
    if all(isinstance(v, bool) for v in vals):
        return "binary"
    if all(isinstance(v, str) for v in vals) and all(as_bool(v) is not None for v in vals):
        return "binary"
    nums = [v for v in vals if not isinstance(v, bool) and as_float(v) is not None
            and not isinstance(v, str)]
    if len(nums) == len(vals):
        if not name.lower().endswith("_score") and all(float(v) in (0.0, 1.0) for v in nums) \
                and all(isinstance(v, (int, np.integer)) for v in nums):
            return "binary"
        return "graded"
    return None


def label_target(name: str) -> tuple[str | None, bool]:
    """(target, inverted) of a label name: what it measures and whether higher = worse."""
    s = name.lower().split(".")[0]
    if any(k in s for k in ("halluc", "unsupported", "unfaithful", "ungrounded", "not_supported")):
        return "support", True
    if any(k in s for k in ("adherence", "faithful", "supported", "grounded")):
        return "support", False
    if "relevan" in s:
        return "relevance", False
    if "utiliz" in s:
        return "utilization", False
    if "complete" in s:
        return "completeness", False
    return None, False


def detect_label_columns(cases: Iterable[Any]) -> dict[str, str]:
    """{column: kind} of the human-label columns of these cases (TestCase or CaseResult) that map
    to a metric. Dict-valued labels such as ``{"mean": 3.7, "median": 4}`` become ``name.mean``."""
    seen: dict[str, list[Any]] = {}
    for c in cases:
        case = getattr(c, "case", c)
        for k, v in (case.labels or {}).items():
            if isinstance(v, Mapping):
                sub = graded_dict_key(v)
                if sub:
                    seen.setdefault(f"{k}.{sub}", []).append(v.get(sub))
                continue
            seen.setdefault(k, []).append(v)
    out: dict[str, str] = {}
    for k, vals in seen.items():
        kind = label_kind(vals, k)
        if kind and label_target(k)[0]:
            out[k] = kind
    return out


def infer_scale(values: Sequence[float]) -> tuple[float, float]:
    """The range graded labels live on: [0,1], Likert 1–4, 1–5, 0–10, 0–100, else min–max."""
    lo, hi = min(values), max(values)
    for a, b in ((0.0, 1.0), (1.0, 4.0), (1.0, 5.0), (0.0, 10.0), (0.0, 100.0)):
        if lo >= a and hi <= b:
            return a, b
    return float(lo), float(hi)


def parse_label_spec(spec: str) -> tuple[str, str | None]:
    label, _, metric = spec.partition(":")
    return label.strip(), (metric.strip() or None)


def resolve_label_columns(run: RunResult, label_columns: Sequence[str] | None) -> list[tuple[str, str | None, str]]:
    """[(label, explicit metric, kind)]."""
    if label_columns is None:
        return [(k, None, kind) for k, kind in detect_label_columns(run.results).items()]
    out = []
    for spec in label_columns:
        label, metric = parse_label_spec(spec)
        vals = [lookup(r.case.labels, label) for r in run.results]
        sub = next((graded_dict_key(v) for v in vals if isinstance(v, Mapping)), None)
        if sub:
            label = f"{label}.{sub}"
            vals = [lookup(r.case.labels, label) for r in run.results]
        if all(v is None for v in vals):
            known = sorted({k for r in run.results for k in r.case.labels})
            raise ValueError(f"label column '{label}' not found in any case; labels present: "
                             f"{', '.join(known) or '(none)'}")
        kind = label_kind(vals, label)
        if kind is None:
            raise ValueError(f"label column '{label}' holds neither yes/no nor numeric values "
                             f"(e.g. {next(v for v in vals if v is not None)!r})")
        if metric is None and label_target(label)[0] is None:
            raise ValueError(f"label column '{label}' has no default metric to compare with; "
                             f"name one as '{label}:adherence' (or another metric)")
        out.append((label, metric, kind))
    return out



def label_values(run: RunResult, label: str, kind: str) -> dict[str, Any]:
    """case id -> the label as bool (binary) or float (graded); cases without it are left out."""
    out: dict[str, Any] = {}
    for r in run.results:
        v = lookup(r.case.labels, label)
        v = as_bool(v) if kind == "binary" else as_float(v)
        if v is not None:
            out[r.case.id] = v
    return out


def groups_for(results: Sequence[CaseResult], group_column: str | None) -> dict[str, Any]:
    if not group_column:
        return {}
    return {r.case.id: group_of(r.case.metadata, r.case.labels, group_column) for r in results}


"""Corrections of a reviewer and the labels they make: the pure part of review mode.

A **correction** changes one label of one case:

* ``support`` of a response sentence: ``{"level": "full" | "partial" | "none", "keys": [...]}``
  (``keys`` = the document sentences that support it; ``partial`` needs at least one, ``none``
  has none);
* ``relevant`` / ``utilized`` of a document sentence: ``True`` / ``False``;
* any of them with value ``None``: back to the method's label.

Every correction is kept with its time and reviewer; for each (field, key) the latest one counts.
The **reviewed labels** of a case are the labels the reviewer started from (the run's final labels)
with the corrections applied; they carry no probabilities (a reviewer gives verdicts), so their
expected adherence equals their adherence.
"""

from __future__ import annotations

from typing import Any, Iterable, Literal, Mapping

from pydantic import BaseModel, ConfigDict

from .. import trace_metrics
from ..signals import fingerprint  # noqa: F401 - review's name for it (gold and reviews match cases by it)
from ..types import SentenceLabels, SentenceSpans, SentenceSupport, TestCase, TraceScores, is_special_key

CorrectionField = Literal["support", "relevant", "utilized"]
FIELDS: tuple[str, ...] = ("support", "relevant", "utilized")
LEVELS: tuple[str, ...] = ("full", "partial", "none")
#: ``SentenceLabels.method`` of reviewed labels.
REVIEWED = "reviewed"
#: Longest reviewer name kept (longer names are cut).
MAX_NAME = 80


class Correction(BaseModel):
    """One saved correction (see module docstring for ``value``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    field: CorrectionField
    key: str
    value: Any = None
    reviewer: str = ""
    at: str = ""


def clean_reviewer(name: str | None) -> str:
    """A reviewer name as stored: one line, trimmed, at most :data:`MAX_NAME` characters. ValueError
    when empty (every correction names who made it)."""
    s = " ".join(str(name or "").split())[:MAX_NAME]
    if not s:
        raise ValueError("a correction needs a reviewer name")
    return s


def check(base: SentenceLabels, field: str, key: str, value: Any) -> Any:
    """The value of a correction as stored (``support`` values normalised), or ValueError saying
    what is wrong (unknown field or key, a level that does not exist, partial support without a
    supporting sentence, a supporting key that is no document sentence)."""
    if field not in FIELDS:
        raise ValueError(f"unknown label {field!r}; one of: {', '.join(FIELDS)}")
    if field == "support":
        if key not in {s.key for s in base.sentences}:
            raise ValueError(f"response sentence {key!r} is not in this case's labels")
        if value is None:
            return None
        if not isinstance(value, Mapping):
            raise ValueError(f"support of {key!r} must be {{'level': ..., 'keys': [...]}}, got {value!r}")
        level = value.get("level")
        if level not in LEVELS:
            raise ValueError(f"support level of {key!r} must be one of {', '.join(LEVELS)}, got {level!r}")
        raw_keys = value.get("keys") or []
        if isinstance(raw_keys, str) or not isinstance(raw_keys, Iterable):
            raise ValueError(f"supporting keys of {key!r} must be a list, got {raw_keys!r}")
        keys = list(dict.fromkeys(str(k) for k in raw_keys))
        unknown = [k for k in keys if k not in base.document_keys and not is_special_key(k)]
        if unknown:
            raise ValueError(f"supporting keys of {key!r} are not document sentences of this case: "
                             f"{', '.join(unknown)}")
        if level == "none":
            keys = []
        elif level == "partial" and not keys:
            raise ValueError(f"sentence {key!r}: partially supported needs at least one supporting "
                             "document sentence")
        return {"level": level, "keys": keys}
    if key not in base.document_keys:
        raise ValueError(f"document sentence {key!r} is not in this case")
    if value is None:
        return None
    if not isinstance(value, bool):
        raise ValueError(f"{field} of {key!r} must be true or false, got {value!r}")
    return value


def latest(corrections: Iterable[Correction]) -> dict[tuple[str, str], Correction]:
    """(field, key) -> the correction that counts (the last one saved)."""
    out: dict[tuple[str, str], Correction] = {}
    for c in corrections:
        out[(c.field, c.key)] = c
    return out


def apply(base: SentenceLabels, corrections: Iterable[Correction]) -> SentenceLabels:
    """The reviewed labels: ``base`` with the corrections applied (latest per label), every
    probability dropped, ``method`` = ``"reviewed"``."""
    last = {k: c for k, c in latest(corrections).items() if c.value is not None}
    sents = []
    for s in base.sentences:
        c = last.get(("support", s.key))
        if c is None:
            sents.append(s.model_copy(update={"score": None}))
            continue
        level, keys = c.value["level"], tuple(c.value.get("keys") or ())
        sents.append(SentenceSupport(
            key=s.key, supporting_keys=keys if level != "none" else (), fully_supported=level == "full",
            explanation=f"reviewed by {c.reviewer}" if c.reviewer else "reviewed", score=None))

    def flags(current: tuple[str, ...], field: str) -> tuple[str, ...]:
        on = set(current)
        for (f, key), c in last.items():
            if f == field:
                (on.add if c.value else on.discard)(key)
        return tuple(k for k in base.document_keys if k in on)

    return SentenceLabels(
        method=REVIEWED, document_keys=base.document_keys,
        relevant_keys=flags(base.relevant_keys, "relevant"), utilized_keys=flags(base.utilized_keys, "utilized"),
        sentences=tuple(sents), overall_supported=all(s.fully_supported for s in sents),
        relevance_explanation=base.relevance_explanation, overall_explanation="",
        notes=(f"reviewed labels: {base.method}'s labels with {len(last)} correction(s)",))


def differences(a: SentenceLabels, b: SentenceLabels, *, keys: bool = True) -> dict[str, set[str]]:
    """Where two labelings of a case differ: {"support": response keys (level, or with ``keys`` also
    the supporting keys), "relevant": document keys, "utilized": document keys}."""
    def sig(s: SentenceSupport) -> tuple[Any, ...]:
        return (s.level, s.supporting_keys) if keys else (s.level,)

    sa = {s.key: sig(s) for s in a.sentences}
    return {"support": {s.key for s in b.sentences if sa.get(s.key) != sig(s)},
            "relevant": set(a.relevant_keys) ^ set(b.relevant_keys),
            "utilized": set(a.utilized_keys) ^ set(b.utilized_keys)}


def changed_keys(base: SentenceLabels, reviewed: SentenceLabels) -> dict[str, set[str]]:
    """Which labels the review changed (:func:`differences`, supporting keys included)."""
    return differences(base, reviewed)


class ReviewedCase(BaseModel):
    """A case under review (read from the review store): what the reviewer started from, every
    correction, and whether it is marked reviewed (then its labels are **gold**)."""

    model_config = ConfigDict(frozen=True)

    run_id: str
    case_id: str
    fingerprint: str
    case: TestCase
    #: The labels the reviewer started from (the run's final labels of the case) and their method.
    base: SentenceLabels
    #: The sentence split the keys refer to (as stored with the run's result).
    spans: SentenceSpans | None = None
    corrections: tuple[Correction, ...] = ()
    #: Set when the case is marked reviewed: time and reviewer of that mark.
    reviewed_at: str | None = None
    reviewer: str | None = None
    updated_at: str = ""

    @property
    def reviewed(self) -> bool:
        return self.reviewed_at is not None

    @property
    def labels(self) -> SentenceLabels:
        """The reviewed labels (gold once the case is marked reviewed)."""
        return apply(self.base, self.corrections)

    @property
    def scores(self) -> TraceScores:
        return trace_metrics.compute(self.labels)

    @property
    def n_changes(self) -> int:
        """Labels whose current value differs from the method's."""
        return sum(len(v) for v in changed_keys(self.base, self.labels).values())

    @property
    def reviewers(self) -> tuple[str, ...]:
        names = [c.reviewer for c in self.corrections] + ([self.reviewer] if self.reviewer else [])
        return tuple(dict.fromkeys(n for n in names if n))

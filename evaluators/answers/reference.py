"""The reference answer (``ground_truth``) as given, read into text or a clear note.

Contract: :func:`read_reference` turns whatever a row or a dict holds under ``ground_truth`` into
``(text or None, note or None)`` and never raises: a text is kept; a number is read as its text
(``16`` → "16", with a note); a list of texts is one reference answer, a fact per item (with a note);
anything else (an object, a list holding numbers or objects, a boolean) is no reference answer, with a
note naming what it was. :data:`NOTE_KEY` is where the note travels with the case
(``TestCase.metadata``), so the answer metrics can say it on the case. :func:`unusable` says why a
reference answer that is text cannot be compared (empty, or longer than :data:`MAX_REFERENCE_CHARS`).
Imports nothing of the project.
"""

from __future__ import annotations

import math
from typing import Any

#: The case metadata key that carries the note on how its ground_truth was read.
NOTE_KEY = "ground_truth_note"
#: A reference answer longer than this is not compared (a document pasted by mistake, not an answer).
MAX_REFERENCE_CHARS = 20_000


def _short(v: Any, n: int = 60) -> str:
    s = repr(v)
    return s if len(s) <= n else s[: n - 1] + "…"


def read_reference(value: Any) -> tuple[str | None, str | None]:
    """(reference text or None, note or None) of a ``ground_truth`` value (see the module docstring)."""
    if value is None:
        return None, None
    if isinstance(value, str):
        return (value, None) if value.strip() else (None, "ground_truth is empty: no reference answer to "
                                                          "compare the answer with")
    if isinstance(value, bool):
        return None, f"ground_truth is a boolean ({value}), not a reference answer: give the answer as text"
    if isinstance(value, (int, float)):
        if isinstance(value, float) and not math.isfinite(value):
            return None, f"ground_truth is {value!r}, not a reference answer: give the answer as text"
        text = str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
        return text, f"ground_truth is a number ({text}); read as the text {text!r}"
    if isinstance(value, (list, tuple)):
        items = [x for x in value if x is not None and not (isinstance(x, str) and not x.strip())]
        if not items:
            return None, "ground_truth is an empty list: no reference answer to compare the answer with"
        bad = [x for x in items if not isinstance(x, str)]
        if bad:
            return None, (f"ground_truth is a list holding {type(bad[0]).__name__} {_short(bad[0], 40)}, not texts: "
                          "give the reference answer as text (or a list of texts, one fact each)")
        if len(items) == 1:
            return items[0], None
        return "\n".join(x.strip() for x in items), (
            f"ground_truth is a list of {len(items)} texts; read as one reference answer, a fact per item")
    return None, (f"ground_truth is a {type(value).__name__} ({_short(value)}), not a reference answer: give the "
                  "answer as text")


def unusable(text: str | None) -> str | None:
    """Why the reference text cannot be compared (None: it can)."""
    if text is None or not text.strip():
        return "no reference answer (ground_truth is empty)"
    if len(text) > MAX_REFERENCE_CHARS:
        return (f"the reference answer (ground_truth) is {len(text):,} characters long, over the "
                f"{MAX_REFERENCE_CHARS:,} a reference answer may have (a document pasted as the answer?): "
                "answer correctness not computed")
    return None


__all__ = ["MAX_REFERENCE_CHARS", "NOTE_KEY", "read_reference", "unusable"]

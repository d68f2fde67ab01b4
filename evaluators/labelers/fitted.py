"""Reading a fitted parameter file of the ``trace`` labeler (the adherence combiner, the confidence
model, the supporting-key selector): JSON beside the module that uses it, made by a bench command.

Contract. :func:`read_fitted` returns the file's object, None when the file does not ship; when its
``features`` list is not the one the code computes it raises ValueError naming the file, the list it
should match and the command that remakes it — a file fitted on other features is never applied.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence


def read_fitted(path: Path, features: Sequence[str], names: str, rerun: str) -> dict[str, Any] | None:
    """``path``'s JSON, or None when absent; ``names`` says which feature list it must carry
    ("adherence_model.ALL_FEATURES"), ``rerun`` the command that remakes it."""
    if not path.exists():
        return None
    p = json.loads(path.read_text(encoding="utf-8"))
    if list(p.get("features", [])) != list(features):
        raise ValueError(f"{path.name}: feature list does not match {names}; re-run {rerun}")
    return p

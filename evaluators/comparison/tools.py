"""The tools a version stopped (or started) calling, B against A, on the questions the comparison
paired: "agent_v2 stopped calling lookup_order on 11 questions" — the regression of an agent a
person reads first, beside its tool-call metrics' verdicts.

Contract: :func:`compare_tools` takes two tables and their pairing and gives a :class:`ToolDiff`
(per tool, the paired questions — the baseline's ids — where A called it and B did not, and the
reverse; its sentences), or None when neither run records a tool call. A run that records none
while the other does called no tool on any question. Counting and words are
``evaluators.toolcalls.changes``'s (the library's one rule); only the pairing is the comparison's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..toolcalls import tool_change_words, tool_changes
from .matching import Paired
from .table import RunTable


@dataclass(frozen=True)
class ToolDiff:
    """B against A on the tools called, question by question."""

    a: str
    b: str
    #: tool -> the paired questions (A's case ids) where A called it and B did not, most questions first.
    dropped: dict[str, list[str]] = field(default_factory=dict)
    #: tool -> where B called it and A did not.
    added: dict[str, list[str]] = field(default_factory=dict)
    #: Questions paired (the counts are out of these).
    n_paired: int = 0

    @property
    def sentences(self) -> list[str]:
        """"agent_v2 stopped calling lookup_order on 11 questions", then the tools it started calling."""
        return tool_change_words(self.b, {t: len(v) for t, v in self.dropped.items()},
                                 {t: len(v) for t, v in self.added.items()})

    def as_dict(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "n_paired": self.n_paired, "sentences": self.sentences,
                "stopped_calling": {t: {"questions": len(v), "ids": v} for t, v in self.dropped.items()},
                "started_calling": {t: {"questions": len(v), "ids": v} for t, v in self.added.items()}}


def compare_tools(a: RunTable, b: RunTable, paired: Paired) -> ToolDiff | None:
    """B against A on the tools each paired question's agent called (see the module docstring)."""
    if a.tools is None and b.tools is None:
        return None
    none: frozenset[str] = frozenset()
    dropped, added = tool_changes(
        (a.ids[i], a.tools[i] if a.tools is not None else none, b.tools[j] if b.tools is not None else none)
        for i, j in zip(paired.rows_a.tolist(), paired.rows_b.tolist()))
    return ToolDiff(a.name, b.name, dropped, added, len(paired))


__all__ = ["ToolDiff", "compare_tools"]

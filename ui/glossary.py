"""What every metric means, for the dashboard's help texts and its Glossary page. Pure (no
Streamlit), unit-tested.

One source: the library's metric declarations (``evaluators.families.list_metrics``, the same text
README's TRACE table and docs/metrics.md are generated from) and the sentence-count descriptions
of ``evaluators.families.trace``.
"""

from __future__ import annotations

import functools
from typing import Any

import pandas as pd

from evaluators.families import list_metrics
from evaluators.families.docs import better, range_text
from evaluators.families.trace import COUNT_DESCRIPTIONS


def nice(name: str) -> str:
    """'context_relevance' -> 'Context relevance'."""
    return name.replace("_", " ").capitalize()


@functools.lru_cache(maxsize=1)
def _declarations() -> dict[str, dict[str, Any]]:
    return {d["name"]: d for d in list_metrics(include_trace=True)}


def declaration(name: str) -> dict[str, Any] | None:
    """The declaration of metric ``name`` (None for an unknown name, e.g. a custom column)."""
    return _declarations().get(_base(name))


def _base(name: str) -> str:
    """``aspect_critique.coherence`` -> ``coherence`` when it is a metric of its own."""
    if name.startswith("aspect_critique."):
        return name.split(".", 1)[1] if name.split(".", 1)[1] in _declarations() else "aspect_critique"
    return name


def help_text(name: str) -> str | None:
    """Markdown help for a metric or column name: meaning, formula, range and direction, example
    (None when the name is neither a metric nor a known column)."""
    if name in COUNT_DESCRIPTIONS:
        return f"{COUNT_DESCRIPTIONS[name]} A count per case (never averaged)."
    if name.startswith("human_"):
        return f"Human label from your file (column `{name[6:]}`), used by Compare → agreement with human labels."
    d = declaration(name)
    if d is None:
        return None
    return (f"{d['description']}\n\n**Formula:** {d['formula']}\n\n**Range:** {range_text(d)}, "
            f"{better(d)}.\n\n**Example:** {d['example']}")


def short_help(name: str) -> str:
    """One line: formula · range, direction (chart hovers)."""
    d = declaration(name)
    if d is None:
        return ""
    return f"{d['formula']} · {range_text(d)}, {better(d)}"


def glossary_frame(family: str | None = None) -> pd.DataFrame:
    """Every metric (TRACE first, then the ragas and Tonic families): name, family, what it
    measures, formula, range, better, example, needs an LLM."""
    rows = []
    decls = list(_declarations().values())
    decls = [d for d in decls if d["family"] == "trace"] + [d for d in decls if d["family"] != "trace"]
    for d in decls:
        if family and d["family"] != family:
            continue
        rows.append({"metric": d["name"], "family": d["family"], "what it measures": d["description"],
                     "formula": d["formula"], "range": range_text(d), "better": d["direction"],
                     "example": d["example"], "needs an LLM": "yes" if d["needs_llm"] else "no"})
    return pd.DataFrame(rows)


def card_markdown(row: dict[str, Any]) -> str:
    """One glossary entry (a row of :func:`glossary_frame`) as Markdown."""
    llm = " · needs an LLM" if row["needs an LLM"] == "yes" else ""
    return (f"**{row['metric']}** · {row['family']} · range {row['range']}, {row['better']} is better{llm}\n\n"
            f"{row['what it measures']}\n\n**Formula:** `{row['formula']}`  \n**Example:** {row['example']}")


def counts_frame() -> pd.DataFrame:
    """The per-case sentence counts shown next to the metrics."""
    return pd.DataFrame([{"column": k, "meaning": v} for k, v in COUNT_DESCRIPTIONS.items()])

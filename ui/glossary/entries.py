"""The Glossary page's entries: every metric as a card (name, family, what it measures, formula,
range, direction, example) and the per-case sentence counts, from the library's declarations
through ``ui.vocab``. Pure (no Streamlit), unit-tested."""

from __future__ import annotations

from typing import Any

import pandas as pd

from evaluators.families.docs import range_text
from evaluators.families.trace import COUNT_DESCRIPTIONS

from .. import vocab


def glossary_frame(family: str | None = None) -> pd.DataFrame:
    """Every metric (TRACE first, then the ragas and Tonic families): name, family, what it
    measures, formula, range, better, example, needs an LLM."""
    rows = []
    decls = list(vocab.declarations().values())
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

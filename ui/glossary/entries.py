"""The Glossary page's entries: every metric as a card (name, the name the other pages show, family,
what it measures, formula, range, direction, example) and the per-case sentence counts, from the
library's declarations through ``ui.vocab``; and the page's search (:func:`matches`), which finds an
entry by the name a screen shows ("Expected adherence", "Exp. adherence"), its internal name
(``expected_adherence``) or the words of its definition. Pure (no Streamlit), unit-tested."""

from __future__ import annotations

import re
from typing import Any, Iterable

import pandas as pd

from evaluators.families.docs import range_text
from evaluators.families.trace import COUNT_DESCRIPTIONS

from .. import vocab

#: The metric families in the Glossary's order: those every run computes first (TRACE; retrieval, answers,
#: citations and tool calls where the cases have what they need), then those added on Evaluate.
FAMILIES = ("trace", "retrieval", "answers", "citations", "toolcalls", "ragas", "tonic")
#: How the Glossary's family picker names a family.
FAMILY_NAMES = {"toolcalls": "tool calls"}


def fold(text: str) -> str:
    """Text as the search reads it: lower case, ``_`` and ``-`` a space, spaces collapsed
    ("Expected_Adherence" -> "expected adherence", "over-refusal" -> "over refusal")."""
    return " ".join(str(text).replace("_", " ").replace("-", " ").lower().split())


def _hit(query: str, texts: Iterable[str]) -> bool:
    """``query`` (folded) is in one of ``texts``, as a phrase or as words that all occur in it."""
    words = query.split()
    for t in texts:
        t = fold(t)
        if query in t or (len(words) > 1 and all(w in t for w in words)):
            return True
    return False


def matches(query: str, names: Iterable[str], definition: Iterable[str] = ()) -> int | None:
    """How well an entry matches the search ``query``: 0 when it is one of its ``names`` (the internal
    name, the names the screens show), 1 when one of them holds it ("answer correctness" in "Ragas answer
    correctness"), 2 by the words of its ``definition``, None not at all ("" matches every entry, 0)."""
    q = fold(query)
    if not q:
        return 0
    names = list(names)
    if any(fold(n) == q for n in names):
        return 0
    if _hit(q, names):
        return 1
    return 2 if _hit(q, definition) else None


def shown_names(metric: str) -> list[str]:
    """The names a metric goes by on the screens: its card name and its column header
    ("Expected adherence", "Exp. adherence"), besides the internal one."""
    names = [metric, vocab.nice(metric), vocab.column_name(metric)]
    if metric.endswith("@K"):  # a retrieval metric's kind: "nDCG@K", "Hit rate@K"
        names.append(f"{vocab.kind_name(metric[:-2])}@K")
    return list(dict.fromkeys(names))


def glossary_frame(family: str | None = None, query: str = "") -> pd.DataFrame:
    """Every metric (family by family in :data:`FAMILIES`' order): name, shown name, family, what it
    measures, formula, range, better, example, needs an LLM. With ``query``: only the metrics it
    finds (:func:`matches`), those found by name first."""
    rows = []
    decls = list(vocab.declarations().values())
    order = {f: i for i, f in enumerate(FAMILIES)}
    decls.sort(key=lambda d: order.get(d["family"], len(order)))  # (stable: declaration order within one)
    for d in decls:
        if family and d["family"] != family:
            continue
        names = shown_names(d["name"])
        row = {"metric": d["name"], "shown as": names[-1 if d["name"].endswith("@K") else 1], "family": d["family"],
               "what it measures": d["description"], "formula": d["formula"], "range": range_text(d),
               "better": d["direction"], "example": d["example"], "needs an LLM": "yes" if d["needs_llm"] else "no"}
        rank = matches(re.sub(r"@\d+\b", "@k", query), names, (str(v) for k, v in row.items() if k != "metric"))
        if rank is not None:
            rows.append((rank, row))
    rows.sort(key=lambda r: r[0])  # (stable: the declarations' order within a rank)
    return pd.DataFrame([r for _, r in rows], columns=None if rows else ["metric", "family"])


def card_markdown(row: dict[str, Any]) -> str:
    """One glossary entry (a row of :func:`glossary_frame`) as Markdown."""
    llm = " · needs an LLM" if row["needs an LLM"] == "yes" else ""
    shown = row.get("shown as")
    alias = f" · shown as “{shown}”" if shown and fold(shown) != fold(row["metric"]) else ""
    return (f"**{row['metric']}**{alias} · {row['family']} · range {row['range']}, {row['better']} is better{llm}\n\n"
            f"{row['what it measures']}\n\n**Formula:** `{row['formula']}`  \n**Example:** {row['example']}")


def terms(words: dict[str, str], query: str) -> dict[str, str]:
    """The terms of ``words`` (title -> meaning) the search ``query`` finds, those found by title first."""
    found = [(r, t, m) for t, m in words.items() if (r := matches(query, [t], [m])) is not None]
    return {t: m for _, t, m in sorted(found, key=lambda x: x[0])}


def counts_frame() -> pd.DataFrame:
    """The per-case sentence counts shown next to the metrics."""
    return pd.DataFrame([{"column": k, "meaning": v} for k, v in COUNT_DESCRIPTIONS.items()])

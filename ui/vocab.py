"""What every metric and term means — the dashboard's vocabulary: display names and help texts on
every page, the same text the Glossary page (``ui/glossary/``) lists in full. Pure (no Streamlit),
unit-tested.

One source: the library's metric declarations (``evaluators.families.list_metrics``, the same text
README's TRACE table and docs/metrics.md are generated from; a retrieval metric such as ``ndcg@5``
reads its kind's, ``ndcg@K``) and the sentence-count descriptions of ``evaluators.families.trace``.
"""

from __future__ import annotations

import functools
from typing import Any

from evaluators.families import list_metrics
from evaluators.families.docs import better, range_text
from evaluators.families.trace import COUNT_DESCRIPTIONS
from evaluators.retrieval import split, template


def nice(name: str) -> str:
    """'context_relevance' -> 'Context relevance'."""
    return name.replace("_", " ").capitalize()


@functools.lru_cache(maxsize=1)
def declarations() -> dict[str, dict[str, Any]]:
    """Every metric's declaration by name (TRACE and the families), read once."""
    return {d["name"]: d for d in list_metrics(include_trace=True)}


def declaration(name: str) -> dict[str, Any] | None:
    """The declaration of metric ``name`` (None for an unknown name, e.g. a custom column)."""
    return declarations().get(_base(name))


def _base(name: str) -> str:
    """``aspect_critique.coherence`` -> ``coherence`` when it is a metric of its own; a retrieval
    metric -> its declaration (``ndcg@5`` -> ``ndcg@K``)."""
    if name.startswith("aspect_critique."):
        return name.split(".", 1)[1] if name.split(".", 1)[1] in declarations() else "aspect_critique"
    return template(name) or name


def _cutoff(name: str) -> str:
    """' Here K = 5.' for a retrieval metric with a cutoff, else ''."""
    got = split(name)
    return f" Here K = {got[1]}." if got is not None and got[1] is not None else ""


#: Every other word a screen uses that is not plain English: what it means, in one or two plain
#: sentences. Shown on the Glossary page and as the help tooltip where the word appears
#: (:func:`term_help`).
TERMS: dict[str, str] = {
    "P(supported)": "The offline method's probability (0–1) that a response sentence is backed by the "
                    "documents. From 0.8 up the sentence counts as fully supported; from 0.5 it is partially "
                    "supported when a document sentence matches it; below 0.5 it is not supported. A number, "
                    "date or name that contradicts the matching document sentence makes it not supported.",
    "fully / partially / not supported": "A response sentence's verdict: every claim is in the documents (fully), "
                                      "some of it is (partially), or it is not — missing from the documents or "
                                      "contradicted by them (not).",
    "relevant / used": "A document sentence is relevant when it helps answer the question, and used (utilized) "
                       "when the response draws on it.",
    "similarity": "How close two sentences are in meaning (cosine of their MiniLM embeddings): about 0 for "
                  "unrelated sentences, 1 for the same meaning.",
    "gold": "A case you marked reviewed on Inspect (review mode): the method's labels with your corrections. "
            "Every method is scored against gold cases.",
    "AUROC": "Area under the ROC curve: the chance that a case a person flagged (e.g. hallucinated) gets a "
             "worse score than a case they did not flag. 0.5 = a coin flip, 1 = always.",
    "Cohen's kappa (κ)": "Agreement between two sets of yes/no verdicts beyond what chance gives: 1 = the same "
                         "verdicts, 0 = no better than chance, below 0 = worse than chance.",
    "RMSE": "Root mean squared error: the typical gap between a score and the human (or gold) value, both on "
            "0–1. 0 = identical; 0.1 = about a tenth off.",
    "F1": "Balance of precision (of the cases flagged, the share rightly flagged) and recall (of the cases "
          "that should be flagged, the share flagged); 1 = perfect.",
    "95 % interval": "The range the figure would likely fall in on other cases like these (bootstrap: the "
                     "cases resampled a few hundred times). Narrow = trustworthy; wide = few cases.",
    "prediction-powered estimate": "The run's average over all its cases, corrected by how far the method is "
                                   "from your gold labels on the reviewed cases — a better estimate than the "
                                   "method alone, with an honest interval.",
    "min_sentence_support": "The lowest P(supported) among a response's sentences: the weakest sentence of the "
                            "answer (low = likely a hallucination somewhere).",
    "correlation (Pearson, Spearman, Kendall)": "How closely two scores move together over the cases: 1 = in "
                                                "step, 0 = unrelated. Spearman and Kendall compare only the "
                                                "order of the cases.",
    "calibration": "Refitting how the offline method's P(supported) maps to your reviewed verdicts (Platt "
                   "scaling), checked on cases the fit never saw.",
}


def term_help(term: str) -> str:
    """The Glossary's text for a term of :data:`TERMS` (KeyError for an unknown term: every term a
    screen explains must be in the Glossary)."""
    return f"**{term}**: {TERMS[term]} (Glossary → other terms)"


def help_text(name: str) -> str | None:
    """Markdown help for a metric or column name: meaning, formula, range and direction, example
    (None when the name is neither a metric nor a known column)."""
    if name in TERMS:
        return TERMS[name]
    if name in COUNT_DESCRIPTIONS:
        return f"{COUNT_DESCRIPTIONS[name]} A count per case (never averaged)."
    if name.startswith("human_"):
        return f"Human label from your file (column `{name[6:]}`), used by Compare → agreement with human labels."
    d = declaration(name)
    if d is None:
        return None
    return (f"{d['description']}{_cutoff(name)}\n\n**Formula:** {d['formula']}\n\n**Range:** {range_text(d)}, "
            f"{better(d)}.\n\n**Example:** {d['example']}")


def short_help(name: str) -> str:
    """One line: formula · range, direction (chart hovers)."""
    d = declaration(name)
    if d is None:
        return ""
    return f"{d['formula']} · {range_text(d)}, {better(d)}"

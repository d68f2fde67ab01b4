"""What every metric and term means — the dashboard's vocabulary: display names and help texts on
every page, the same text the Glossary page (``ui/glossary/``) lists in full; and how a run's headline
figures read (``evaluators.headline``: a card's value and interval, the run's line, the run in one
sentence), the one formatter of the Results page and of a shared link's first paint
(``ui/serving/share_paint.py``). Pure (no Streamlit), unit-tested.

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
from evaluators.headline import Card, Correctness, Reach, Support
from evaluators.retrieval import split, template

#: How a retrieval metric's kind reads (``ndcg@5`` -> "nDCG@5", ``mrr`` -> "MRR").
_RETRIEVAL_NAMES = {"ndcg": "nDCG", "mrr": "MRR", "hit": "Hit rate", "recall": "Recall", "precision": "Precision",
                    "map": "MAP"}


def kind_name(kind: str) -> str:
    """How a retrieval metric's kind reads: 'ndcg' -> 'nDCG', 'hit' -> 'Hit rate'."""
    return _RETRIEVAL_NAMES.get(kind, kind)


def retrieval_grid(texts: dict[str, str]) -> tuple[Any, str]:
    """Retrieval metrics' texts by name -> (a grid: kind × "K = k", in K order; MRR's text, "" if
    none). Names that are not retrieval metrics are left out."""
    import pandas as pd

    cells: dict[str, dict[str, str]] = {}
    mrr = ""
    for name, text in texts.items():
        got = split(name)
        if got is None:
            continue
        kind, k = got
        if k is None:
            mrr = text
        else:
            cells.setdefault(kind_name(kind), {})[f"K = {k}"] = text
    df = pd.DataFrame.from_dict(cells, orient="index")
    if not df.empty:
        df = df[sorted(df.columns, key=lambda c: int(c.split("= ")[1]))]
        df.index.name = "metric"
    return df, mrr


def count(n: int, noun: str) -> str:
    """"1 row", "2 rows", "1,200 rows": a count with its noun in the right number (a regular plural)."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def clip(text: str, n: int = 70) -> str:
    """``text`` cut to about ``n`` characters at a word's end, with "…" when cut (a picker's label read
    "… also called the Calvin cycle, use car")."""
    text = " ".join(text.split())
    if len(text) <= n:
        return text
    cut = text[:n].rsplit(" ", 1)[0] if " " in text[: n] else text[:n]
    return cut.rstrip(" ,;:") + "…"


def nice(name: str) -> str:
    """'context_relevance' -> 'Context relevance'; 'ndcg@5' -> 'nDCG@5', 'mrr' -> 'MRR'."""
    got = split(name)
    if got is not None:
        kind, k = got
        label = kind_name(kind)
        return label if k is None else f"{label}@{k}"
    return _SHOWN.get(name) or name.replace("_", " ").capitalize()


#: Names whose words are not simply the metric's: "over-refusal" is one word everywhere else on the pages.
_SHOWN = {"over_refusal": "Over-refusal"}


#: Headers of the per-case table that say a TRACE metric in fewer words than :func:`nice`, so that
#: the six scores of a run read side by side at 1280 px (the header's help names it in full).
_COLUMN_NAMES = {"context_relevance": "Relevance", "context_utilization": "Utilization",
                 "expected_adherence": "Exp. adherence", "overall_supported": "Supported",
                 "answer_correctness": "Correctness"}


def column_name(name: str) -> str:
    """A metric's header in the per-case table: 'context_relevance' -> 'Relevance' (the cards and
    every other page say :func:`nice`); any other name as :func:`nice` says it."""
    return _COLUMN_NAMES.get(name) or nice(name)


def column_help(name: str) -> str | None:
    """A header's help: :func:`help_text`, led by the metric's full name where the header shortens it."""
    h = help_text(name)
    return f"**{nice(name)}**: {h}" if h and name in _COLUMN_NAMES else h


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


#: The words of Compare (its help tooltips), listed on the Glossary page as well.
COMPARE_TERMS: dict[str, str] = {
    "baseline": "The version you compare against (A) — usually what runs today. Its run is the reference "
                "every difference is measured from.",
    "candidates": "The versions you want to judge (B): a new prompt, model or retriever, evaluated on the same "
                  "questions. Several candidates are ranked together.",
    "metric": "The score the verdict is about. By default expected adherence for TRACE runs (how likely each "
              "answer sentence is backed by the documents), adherence otherwise.",
    "paired": "Both versions answered the same questions, so each question is compared with itself: how hard a "
              "question is cancels out, and far fewer questions are needed to see a real difference.",
    "interval": "95 % interval: the range the true difference lies in with 95 % confidence — every "
                "difference the paired test behind the p-value does not rule out, so it leaves 0 out exactly "
                "when p is at most 0.05: the interval, p and the verdict always agree. Exact for small samples "
                "(random sign flips, seeded, for larger ones: the same figures every time).",
    "p": "p-value: how often a difference at least this large would appear by chance if both versions were "
         "equally good (paired sign-flip test: each question's change is as likely up as down; for a yes/no "
         "metric the exact McNemar test). At most 0.05 counts as a difference.",
    "holm": "With three or more runs many pairs are tested at once, and some would look different by luck: "
            "Holm's method raises each p-value to account for the number of pairs.",
    "detectable": "The smallest difference these questions could have revealed (80 % of the time). A real "
                  "difference smaller than this can hide in the noise: add questions to see it.",
    "wins": "Questions where the candidate does better, the same or worse: scores higher, the same or lower (on a "
            "metric where lower is better — declined, over-refusal, failed tool calls — a win scores lower), at "
            "the metric's resolution: a "
            "yes/no metric counts changed answers, a share of sentences (adherence …) or a retrieval metric "
            "any change, a probability or a score (expected adherence …) changes of at least 0.01.",
    "regressions": "Every paired question where the candidate scores lower, worst first, a page at a time — each "
                   "with its case id (and its source where a question repeats), both scores and the "
                   "candidate's answer sentences that are not fully supported (saying which of them the "
                   "baseline had supported).",
    "rank": "Rank 1 = best mean. The range shows where the rank falls in 95 % of resamples: overlapping "
            "ranges mean the order is not settled.",
    "no detectable difference": "The verdict when the questions do not show a difference: the 95 % "
                                "interval includes 0, and so the p-value is above 0.05 (after Holm's "
                                "correction with several pairs). It is not proof the versions are equal: "
                                "see the smallest detectable difference.",
    "sign-flip test": "The paired test behind every verdict of Compare, the app's latency included: if the "
                      "two versions were alike, each question's change would be as likely up as down; p is "
                      "how often flipping the changes' signs at random gives a total at least as far from 0. "
                      "Exact, whatever the scores' shape; for a yes/no metric it is McNemar's exact test.",
}


#: How the Glossary titles Compare's words.
COMPARE_TITLES = {"baseline": "baseline (A)", "candidates": "candidate (B)", "metric": "metric (of a verdict)",
                  "paired": "paired comparison", "interval": "95 % interval of a difference", "p": "p-value",
                  "holm": "Holm's correction", "detectable": "smallest detectable difference",
                  "wins": "wins / ties / losses", "regressions": "regressions", "rank": "rank"}


def compare_glossary() -> dict[str, str]:
    """Compare's words under their Glossary titles."""
    return {COMPARE_TITLES.get(k, k): text for k, text in COMPARE_TERMS.items()}


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
    "latency (of your app)": "How long your app took to answer one question, in seconds: from sending the request "
               "to the end of its reply (the last try when it was retried), measured by the dashboard while it ran "
               "your app, one version at a time. Questions the app failed are left out.",
    "p50 / p95": "Percentiles of the latencies: p50 (the median) — half the questions were answered faster; "
                 "p95 — 95 % were answered faster, the slow tail a user notices (1 question in 20 is slower).",
    "tokens": "The tokens your app's own LLM used for a question (prompt + completion), as its reply reported "
              "them (its `usage`): what the app costs to run. Compare sets the totals of two versions side by "
              "side on the questions both report; they are not the tokens of an evaluation.",
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


# ---- a run's headline figures in words (the Results page, a shared link's first paint) ------------
def card_value(card: Card) -> str:
    """A metric card's figure: the mean to 3 decimals ("0.552"), "n/a" when no case has a value."""
    return "n/a" if card.mean is None else f"{card.mean:.3f}"


def card_interval(card: Card) -> str:
    """A metric card's second line: the 95 % interval of the mean (as the chart draws it), or the
    spread when there is none."""
    if card.low is not None and card.high is not None:
        return f"95 % interval {card.low:.3f}–{card.high:.3f} · n={card.n}"
    return "" if card.std is None else f"± {card.std:.3f} (std) · n={card.n}"


def card_help(card: Card) -> str:
    """A metric card's help (Markdown): what the metric means, then the spread of this run."""
    spread = "" if card.std is None else (f"mean over {card.n} scored cases; the 95 % interval under it is "
                                          f"where the true mean lies with 95 % confidence (bootstrap); spread "
                                          f"of the cases ± {card.std:.3f} (std)")
    return "\n\n".join(x for x in (help_text(card.metric), spread) if x)


#: The end of the run's line: the cards explain themselves on hover.
HOVER_HINT = " · hover a metric for what it means (all of them: Glossary)"


def run_line(method: str, num_scored: int, num_cases: int, cancelled: bool, usage: str = "") -> str:
    """The run's line under its name (Markdown: the method in bold): "Method **trace** · 16 of 16
    cases scored · hover a metric …"; ``usage``: the LLM calls' line (``tables.usage_text``)."""
    return (f"Method **{method}** · {num_scored} of {num_cases} cases scored"
            + (" · **cancelled early** (partial run)" if cancelled else "") + usage + HOVER_HINT)


def support_words(support: Support | None, method: str) -> str | None:
    """The run in one sentence: how many answers have a sentence the documents do not fully support
    ("6 of 16 answers have a sentence the documents do not fully support (2 with one not supported at
    all), by trace's labels."); None when nothing was scored."""
    if support is None:
        return None
    n, bad, none = support.scored, support.not_fully, support.none_at_all
    who = f"by {method}'s labels"
    lead = ""
    if support.declined:  # a declined answer claims nothing: it is no supported answer
        d, over = support.declined, support.over_refusals
        if d == 1:  # "1 of 16 answers declined (all of them right …)" reads as a slip
            why = (" although the documents hold the answer (an over-refusal)" if over else
                   " (rightly: the documents do not hold the answer)")
        else:
            why = (" (all of them although the documents hold the answer)" if over == d else
                   f" ({over} of them although the documents hold the answer)" if over else
                   " (all of them right: the documents do not hold the answer)")
        lead = f"{d} of {n} {'answer' if n == 1 else 'answers'} declined{why}"
        n = support.answered
        if not n:
            return lead + "; none answered."
        lead += f"; of the {n} that answered, " if n > 1 else "; of the one that answered, "
    if not bad:
        if lead:
            return lead + (f"all are fully supported by their documents, {who}." if n > 1
                           else f"it is fully supported by its documents, {who}.")
        if n == 1:  # "All 1 answers are …"
            return f"The one answer is fully supported by its documents, {who}."
        return f"All {n} answers are fully supported by their documents, {who}."
    some = f" ({none} with one not supported at all)" if 0 < none < bad else ""
    if lead:
        verb = "has" if bad == 1 else "have"
        return f"{lead}{bad} {verb} a sentence the documents do not fully support{some}, {who}."
    noun = "answer" if n == 1 else "answers"
    verb = "has" if bad == 1 else "have"  # "1 of 4 answers has", "6 of 16 answers have"
    return f"{bad} of {n} {noun} {verb} a sentence the documents do not fully support{some}, {who}."


def correctness_words(c: Correctness | None) -> str | None:
    """The answers against their reference answers in one sentence ("Against the reference answers:
    the answers state 35 % of the reference facts on average; 9 of 15 miss at least one (Inspect shows
    which)."); None when no answer was judged against one."""
    if c is None:
        return None
    verb = "misses" if c.missing_some == 1 else "miss"  # "1 of 3 misses", "6 of 16 miss"
    miss = (f"{c.missing_some} of {c.judged} {verb} at least one (Inspect shows which)" if c.missing_some
            else "it misses none" if c.judged == 1 else f"none of the {c.judged} misses one")
    if c.judged == 1:  # one answer: no average, and "1 of 1 misses" reads as a slip
        return (f"Against the reference answer: the answer states {c.recall * 100:.0f} % of the reference facts "
                f"(answer recall); " + ("it misses at least one (Inspect shows which)" if c.missing_some
                                        else "it misses none") + ".")
    return (f"Against the reference answers: the answers state {c.recall * 100:.0f} % of the reference facts on "
            f"average (answer recall); {miss}.")


def reach_words(r: Reach | None, cause: str | None = None) -> str | None:
    """Retrieval that reached none of the reference passages, said in words with the likely cause
    ("0 of 15 questions got a reference passage back …"); None when it reached some, or was not scored.
    ``cause``: the run's own words on why (the app's ids matched nothing), said instead of the guess."""
    if r is None or r.reached:
        return None
    head = "The one question got no reference passage back" if r.scored == 1 else \
        f"0 of {r.scored} questions got a reference passage back"
    if cause:  # the run's words begin in lower case and end without a full stop (they follow a colon elsewhere)
        cause = cause.strip()
        return f"{head}, so every retrieval figure is 0. {cause[:1].upper()}{cause[1:]}" + \
            ("" if cause.endswith((".", "!", "?")) else ".")
    return (f"{head}, so every retrieval figure is 0. Likely "
            "cause: the questions are about other documents than the ones the app searches (e.g. a question set "
            "made from your documents, asked of an app that only knows its own).")

"""The names of the retrieval metrics and what each one means.

Contract: a retrieval metric is named ``<kind>@<K>`` (``hit@5``, ``ndcg@10``) for the kinds with a
cutoff, ``mrr`` for the one without; :func:`metric_names` lists a run's metrics for its cutoffs, kind
by kind, K ascending (the order of every table and results file); :func:`template` maps a metric to
its declaration (``ndcg@5`` -> ``ndcg@K``); :data:`DECLARATIONS` holds each kind's description,
formula and one-line example — the text of docs/metrics.md, the dashboard's help and glossary
(registered with the family metrics by ``evaluators.families.retrieval``). Imports nothing of the
project but the options' defaults.
"""

from __future__ import annotations

import re
from typing import Iterable

from ..options import DEFAULT_RETRIEVAL_K

#: The family name every retrieval metric carries (``MetricValue.family``).
FAMILY = "retrieval"
#: The kinds with a cutoff, in report order, then the one without.
CUT_KINDS: tuple[str, ...] = ("hit", "precision", "recall", "map", "ndcg")
MRR = "mrr"
_NAME = re.compile(r"^(hit|precision|recall|map|ndcg)@([1-9][0-9]*)$")

#: template -> (description, formula, one-line example). The definitions are trec_eval's (its
#: measure in brackets); see docs/metrics.md for matching, repeats and skipped cases.
DECLARATIONS: dict[str, tuple[str, str, str]] = {
    "hit@K": (
        "Whether at least one passage that should have been retrieved is among the first K the app "
        "retrieved (per case 1 = yes, 0 = no; its mean over cases is the hit rate). trec_eval success_K.",
        "1 if a relevant passage is in the top K, else 0",
        "the first relevant passage is at rank 4 → hit@3 = 0, hit@5 = 1"),
    "precision@K": (
        "Share of the first K retrieved passages that are relevant, divided by K even when fewer "
        "than K were retrieved (trec_eval P_K).",
        "|relevant in top K| / K",
        "2 relevant among the first 5 → 0.40"),
    "recall@K": (
        "Share of the passages that should have been retrieved (all of them, retrieved or not) that "
        "are among the first K (trec_eval recall_K).",
        "|relevant in top K| / |relevant|",
        "3 relevant passages, 2 of them in the top 5 → 0.67"),
    "mrr": (
        "Reciprocal rank of the first relevant passage in the whole ranking (0 when none is "
        "retrieved); its mean over cases is the mean reciprocal rank (trec_eval recip_rank).",
        "1 / rank of the first relevant passage (0 if none)",
        "first relevant passage at rank 3 → 0.33"),
    "map@K": (
        "Average precision cut at K: the precision at the rank of each relevant passage in the top "
        "K, summed and divided by the number of relevant passages; its mean over cases is MAP@K "
        "(trec_eval map_cut_K).",
        "Σ over relevant ranks r ≤ K of precision@r / |relevant|",
        "2 relevant passages, found at ranks 1 and 3 → (1/1 + 2/3) / 2 = 0.83"),
    "ndcg@K": (
        "Normalised discounted cumulative gain at K: the grades of the first K passages, each "
        "divided by log2(rank + 1), over the same sum for the best possible order of the relevant "
        "passages; graded references count their grade (trec_eval ndcg_cut_K).",
        "Σ_{r≤K} grade_r / log2(r + 1) ÷ the same for the ideal order",
        "one relevant passage (grade 1) at rank 2, none at rank 1 → 1/log2(3) = 0.63"),
}


def parse_k(text: str | Iterable[int | str]) -> tuple[int, ...]:
    """``"1,3,5,10"`` (or numbers) -> ``(1, 3, 5, 10)``: positive whole numbers, each once, ascending.
    ValueError naming the bad value."""
    from ..options import EvalOptions

    try:
        return EvalOptions(retrieval_k=text).retrieval_k  # type: ignore[arg-type]
    except Exception as exc:  # noqa: BLE001 - pydantic's message names the value
        msg = str(exc).split("Value error, ", 1)[-1].split(" [type=", 1)[0]
        raise ValueError(msg) from None


def metric_names(ks: Iterable[int] = DEFAULT_RETRIEVAL_K) -> list[str]:
    """The retrieval metrics of a run with cutoffs ``ks``: each kind at every K, ``mrr`` after
    ``recall`` (``hit@1 … recall@10, mrr, map@1 … ndcg@10``)."""
    ks = sorted(set(int(k) for k in ks))
    out: list[str] = []
    for kind in CUT_KINDS:
        out += [f"{kind}@{k}" for k in ks]
        if kind == "recall":
            out.append(MRR)
    return out


def split(name: str) -> tuple[str, int | None] | None:
    """``"ndcg@5"`` -> ``("ndcg", 5)``, ``"mrr"`` -> ``("mrr", None)``, anything else None."""
    if name == MRR:
        return MRR, None
    m = _NAME.match(name)
    return (m.group(1), int(m.group(2))) if m else None


def is_retrieval_metric(name: str) -> bool:
    return split(name) is not None


def template(name: str) -> str | None:
    """The declaration a retrieval metric is described by (``ndcg@5`` -> ``ndcg@K``), else None."""
    got = split(name)
    if got is None:
        return None
    kind, k = got
    return MRR if k is None else f"{kind}@K"


def binary(name: str) -> bool:
    """Whether the metric is 0 / 1 per case (``hit@K``)."""
    got = split(name)
    return got is not None and got[0] == "hit"


__all__ = ["CUT_KINDS", "DECLARATIONS", "FAMILY", "MRR", "binary", "is_retrieval_metric", "metric_names",
           "parse_k", "split", "template"]

"""Learned relevance and utilization of document sentences (the context side of ``trace``).

Two calibrated logistic models, fitted by ``bench/lodo_fit.py`` on RAGBench's sentence labels
(``all_relevant_sentence_keys`` / ``all_utilized_sentence_keys``; ~3,000 contexts in seven domains)
and stored as JSON in ``context_params.json`` (no pickles):

* relevance  — P(a document sentence helps answer the question), from the question and the
  documents ALONE (TRACE: relevance is a property of the retrieval, so two answers to one question
  over one set of documents get the same relevant sentences): cosine to the question (raw, relative
  to the case's best, its rank), question keywords / numbers / names found in the sentence, the best
  question cosine of its document and its neighbours, the document's rank, the sentence's position
  and length. :func:`relevance_features` takes no response at all;
* utilization — P(the response used the sentence), from response–sentence evidence: best cosine to
  a response sentence (raw and relative), whether it is the best match / in the support set of a
  response sentence, how much of it the response repeats (content words, numbers, names), the
  support probability of the response sentence that cites it, and the question cosine.

A sentence is labelled relevant (utilized) by the rule stored with the model (``select``):
``"top_expected"`` keeps the round(sum of P) most probable sentences of the case — the count the
probabilities expect, so the ratio metrics (|R| / |D|, |U| / |D|) match the annotation on average —
or ``"threshold"`` keeps P >= ``threshold``. Completeness then follows from the two sets by the usual
formula (relevant sentences are NOT widened by the utilized ones: that would make relevance follow
the answer). Whatever the rule, a sentence unrelated to the question — question cosine below
``UNRELATED_COS`` and not one content word of the question — is never relevant (:func:`relevant`):
a retrieval with nothing on the question ("How many moons does Mars have?" over Roman aqueducts)
has no relevant sentence, where ``top_expected`` would round an expected count of 0.5 up to one.
Without the params file the hand rule of earlier versions is used (cosine >= 0.40, or >= 0.25 with
shared keywords; utilized = supporting sentences).
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from .heuristic_features import TextInfo, analyze, name_found, number_found

PARAMS_PATH = Path(__file__).with_name("context_params.json")

#: Below this question cosine, with no content word of the question, a sentence is unrelated: the
#: embedded model's cosine between texts on unrelated subjects (Mars's moons / Roman aqueducts: 0.09).
#: On RAGBench's seven dev sets any floor from 0.10 to 0.30 leaves relevance RMSE within ±0.002 of none.
UNRELATED_COS = 0.2

REL_FEATURES: tuple[str, ...] = (
    "q_cos", "q_cos_rel", "q_cos_rank", "q_cos_z", "q_kw_share", "q_kw_count", "q_num_hit", "q_name_hit",
    "doc_best_q_cos", "nb_q_cos", "doc_rank", "pos_in_doc", "is_first", "log_len", "log_n_doc",
)
UTIL_FEATURES: tuple[str, ...] = (
    "r_cos", "r_cos_rel", "r_cos_rank", "is_best", "in_support", "support_cov", "r_cover", "r_share",
    "num_shared", "name_shared", "q_cos", "q_cos_rel", "log_len", "log_n_doc", "log_n_resp", "nb_r_cos",
)


@lru_cache(maxsize=1)
def load_params() -> dict[str, Any] | None:
    if not PARAMS_PATH.exists():
        return None
    p = json.loads(PARAMS_PATH.read_text(encoding="utf-8"))
    for part, feats in (("relevance", REL_FEATURES), ("utilization", UTIL_FEATURES)):
        if list(p.get(part, {}).get("features", [])) != list(feats):
            raise ValueError(f"{PARAMS_PATH.name}: {part} feature list does not match context_model; "
                             "re-run bench/lodo_fit.py --write")
    return p


def _rank_within(x: np.ndarray) -> np.ndarray:
    """0 for the largest value, 1 for the next, ... (ties share the lower rank)."""
    order = np.argsort(-x, kind="stable")
    rank = np.empty(len(x), dtype=np.float64)
    rank[order] = np.arange(len(x))
    return rank


def _neighbour_max(x: np.ndarray, doc_ids: Sequence[int]) -> np.ndarray:
    out = np.full(len(x), -1.0)
    for i in range(len(x)):
        best = -1.0
        if i > 0 and doc_ids[i - 1] == doc_ids[i]:
            best = max(best, float(x[i - 1]))
        if i + 1 < len(x) and doc_ids[i + 1] == doc_ids[i]:
            best = max(best, float(x[i + 1]))
        out[i] = best if best > -1.0 else float(x[i])
    return out


def _doc_layout(doc_ids: Sequence[int], dq: np.ndarray
                ) -> tuple[dict[int, float], dict[int, int], dict[int, int]]:
    """Per document: its best question cosine, its first sentence index and its size."""
    best_by_doc: dict[int, float] = {}
    first_by_doc: dict[int, int] = {}
    size_by_doc: dict[int, int] = {}
    for i, d in enumerate(doc_ids):
        best_by_doc[d] = max(best_by_doc.get(d, -1.0), float(dq[i]))
        first_by_doc.setdefault(d, i)
        size_by_doc[d] = size_by_doc.get(d, 0) + 1
    return best_by_doc, first_by_doc, size_by_doc


def relevance_features(question: str, dq_in: Sequence[float] | np.ndarray, infos: Sequence[TextInfo],
                       doc_ids: Sequence[int]) -> np.ndarray:
    """Relevance features (``REL_FEATURES``), one row per document sentence, from the question and
    the documents ONLY: ``dq_in`` the question–sentence cosines, ``infos`` the sentences' analyses
    (``DocIndex.infos``), ``doc_ids`` the document of each sentence. No argument carries the
    response, so relevance cannot follow it."""
    dq = np.asarray(dq_in, dtype=np.float64)
    n = len(dq)
    if n == 0:
        return np.zeros((0, len(REL_FEATURES)))
    q = analyze(question)
    doc_ids = list(doc_ids)
    best_by_doc, first_by_doc, size_by_doc = _doc_layout(doc_ids, dq)
    qmax, qmean, qstd = float(dq.max()), float(dq.mean()), float(dq.std())
    q_rank = _rank_within(dq)
    nb_q = _neighbour_max(dq, doc_ids)
    qc = q.content
    rows = []
    for i, inf in enumerate(infos):
        d = doc_ids[i]
        kw = len(qc & inf.content)
        q_num_hit = sum(1 for x in q.numbers if number_found(x, inf.numbers))
        q_name_hit = sum(1 for x in q.names if name_found(x, inf.words))
        rows.append([
            float(dq[i]), float(dq[i]) - qmax, 1.0 / (1.0 + q_rank[i]),
            (float(dq[i]) - qmean) / (qstd + 1e-6), kw / len(qc) if qc else 0.0, float(min(kw, 5)),
            float(min(q_num_hit, 3)), float(min(q_name_hit, 3)), best_by_doc[d], float(nb_q[i]),
            math.log1p(d), (i - first_by_doc[d]) / max(1, size_by_doc[d] - 1),
            1.0 if i == first_by_doc[d] else 0.0, math.log1p(len(inf.content)), math.log1p(n),
        ])
    return np.asarray(rows, dtype=np.float64)


def utilization_features(question: str, response_texts: Sequence[str], p: dict[str, Any],
                         doc_ids: Sequence[int]) -> np.ndarray:
    """Utilization features (``UTIL_FEATURES``), one row per document sentence. ``p`` is the
    heuristic's prepared case (``dq``: question cosines, ``S``: response x document cosines,
    ``doc``: the DocIndex, ``sent``: per response sentence its ``support`` indices and evidence)."""
    dq = np.asarray(p["dq"], dtype=np.float64)
    n = len(dq)
    if n == 0:
        return np.zeros((0, len(UTIL_FEATURES)))
    S = np.asarray(p["S"], dtype=np.float64).reshape(-1, n)
    infos = p["doc"].infos
    resp_infos = [analyze(t) for t in response_texts]
    r_content: set[str] = set()
    r_numbers: set[str] = set()
    r_words: set[str] = set()
    for ri in resp_infos:
        r_content |= ri.content
        r_numbers |= ri.numbers
        r_words |= ri.words
    qmax = float(dq.max())
    if S.shape[0]:
        r_best = S.max(axis=0)
        rmax = float(r_best.max())
        # for each response sentence, rank of every document sentence among its matches
        ranks = np.vstack([_rank_within(S[k]) for k in range(S.shape[0])])
        r_rank = ranks.min(axis=0)
        best_of = {int(np.argmax(S[k])) for k in range(S.shape[0])}
    else:
        r_best = np.zeros(n)
        rmax = 0.0
        r_rank = np.full(n, float(n))
        best_of = set()
    nb_r = _neighbour_max(r_best, list(doc_ids))
    support_cov = np.zeros(n)
    in_support = np.zeros(n)
    for sp in p["sent"]:
        if sp.get("special") is not None:
            continue
        cov = float((sp.get("ev") or {}).get("cov_top", 0.0))
        for i in sp.get("support") or ():
            in_support[i] = 1.0
            support_cov[i] = max(support_cov[i], cov)
    n_resp = len(response_texts)
    rows = []
    for i, inf in enumerate(infos):
        nc = len(inf.content)
        r_cover = len(inf.content & r_content) / nc if nc else 0.0
        r_share = 0.0
        for ri in resp_infos:
            if ri.content:
                r_share = max(r_share, len(ri.content & inf.content) / len(ri.content))
        rows.append([
            float(r_best[i]), float(r_best[i]) - rmax, 1.0 / (1.0 + r_rank[i]), 1.0 if i in best_of else 0.0,
            in_support[i], support_cov[i], r_cover, r_share,
            float(min(len(inf.numbers & r_numbers), 3)),
            float(min(sum(1 for x in inf.names if x.lower() in r_words), 3)),
            float(dq[i]), float(dq[i]) - qmax, math.log1p(nc), math.log1p(n), math.log1p(n_resp),
            float(nb_r[i]),
        ])
    return np.asarray(rows, dtype=np.float64)


def context_features(question: str, response_texts: Sequence[str], p: dict[str, Any],
                     doc_ids: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """(relevance features, utilization features) of a prepared case (see the two functions)."""
    return (relevance_features(question, p["dq"], p["doc"].infos, doc_ids),
            utilization_features(question, response_texts, p, doc_ids))


def predict(model: dict[str, Any], X: np.ndarray) -> np.ndarray:
    """Calibrated P from a stored logistic model ({mean, scale, coef, intercept})."""
    if len(X) == 0:
        return np.zeros(0)
    z = ((X - np.asarray(model["mean"])) / np.asarray(model["scale"])) @ np.asarray(model["coef"])
    z = z + float(model["intercept"])
    return 1.0 / (1.0 + np.exp(-np.clip(z, -40, 40)))


def select(probs: np.ndarray, rule: dict[str, Any]) -> np.ndarray:
    """Indices chosen by a selection rule (see module docstring)."""
    if len(probs) == 0:
        return np.zeros(0, dtype=int)
    kind = rule.get("select", "top_expected")
    if kind == "threshold":
        return np.flatnonzero(probs >= float(rule["threshold"]))
    if kind == "top_expected":
        k = int(math.floor(float(probs.sum()) + 0.5))
        k = max(int(rule.get("min_count", 0)), min(k, len(probs)))
        if k == 0:
            return np.zeros(0, dtype=int)
        order = np.argsort(-probs, kind="stable")
        return np.sort(order[:k])
    raise ValueError(f"unknown selection rule {kind!r}")


def relevant(probs: np.ndarray, feats: np.ndarray, rule: dict[str, Any]) -> np.ndarray:
    """The relevant sentences: :func:`select` on the model's P, less the unrelated ones (question
    cosine ``q_cos`` below ``UNRELATED_COS`` and question keyword share ``q_kw_share`` zero; ``feats``
    are :func:`relevance_features` rows)."""
    idx = select(probs, rule)
    if len(idx) == 0:
        return idx
    cos, kw = REL_FEATURES.index("q_cos"), REL_FEATURES.index("q_kw_share")
    keep = (feats[idx, cos] >= UNRELATED_COS) | (feats[idx, kw] > 0)
    return idx[keep]

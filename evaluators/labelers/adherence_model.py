"""The learned adherence combiner of ``trace``: P(a response sentence is fully supported).

One calibrated logistic regression over the sentence evidence of ``heuristic_features`` (similarity
to the best document sentence and to two-sentence windows, coverage of content words, missing /
conflicting numbers and names, negation, novel bigrams and words, JSON attribute conflicts) plus a
few case-relative signals computed here (``EXTRA_FEATURES``):

* ``tok_novel``     share of the sentence's word tokens found in no document (the naive reference,
                    per sentence);
* ``case_novel``    the same share over the whole response;
* ``sim_rel``       the sentence's best cosine minus the median best cosine of the response's
                    sentences (a sentence far below its siblings is suspect);
* ``sim_second``    cosine of the second best document sentence (support spread over sentences);
* ``n_support``     how many document sentences back it;
* ``pos``, ``is_last``, ``log_n_resp``   where it sits in the response;
* ``structured``    the documents are JSON / key–value data.

Fitted by ``bench/lodo_fit.py`` leave-one-domain-out on ~12,000 labelled response sentences of nine
dev domains (each domain weighted equally) and shipped as ``adherence_params.json`` (JSON, no
pickles) together with the ONE decision threshold. Without that file ``trace`` uses the earlier
``heuristic_params.json`` combiners (``heuristic.load_params``).
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from .fitted import read_fitted
from .heuristic_features import FEATURES

PARAMS_PATH = Path(__file__).with_name("adherence_params.json")

EXTRA_FEATURES: tuple[str, ...] = (
    "tok_novel", "case_novel", "sim_rel", "sim_second", "n_support", "pos", "is_last", "log_n_resp",
    "structured",
)
ALL_FEATURES: tuple[str, ...] = tuple(FEATURES) + EXTRA_FEATURES
_TOK = re.compile(r"\w+")


def doc_vocabulary(documents: Sequence[str]) -> set[str]:
    vocab: set[str] = set()
    for d in documents:
        vocab.update(_TOK.findall(d.lower()))
    return vocab


def token_novelty(text: str, vocab: set[str]) -> float:
    """Share of the word tokens (``\\w+``, lower case) of ``text`` not in ``vocab`` (0 when none)."""
    toks = _TOK.findall(text.lower())
    if not toks:
        return 0.0
    return sum(1 for t in toks if t not in vocab) / len(toks)


def design(p: dict[str, Any], response: str, documents: Sequence[str]) -> tuple[np.ndarray, list[int]]:
    """Rows (in ``ALL_FEATURES`` order) for the response sentences of a prepared case that have
    features, and their sentence indices."""
    sents = p["sent"]
    rows = [si for si, sp in enumerate(sents) if sp["feats"] is not None]
    if not rows:
        return np.zeros((0, len(ALL_FEATURES))), []
    vocab = doc_vocabulary(documents)
    case_novel = token_novelty(response, vocab)
    S = np.asarray(p["S"], dtype=np.float64)
    sim_max = np.asarray([sents[si]["feats"][0] for si in rows], dtype=np.float64)
    med = float(np.median(sim_max))
    n = len(sents)
    structured = 1.0 if p.get("doc_kind") == "structured" else 0.0
    X = np.empty((len(rows), len(ALL_FEATURES)), dtype=np.float64)
    for r, si in enumerate(rows):
        sp = sents[si]
        sims = S[si] if S.ndim == 2 and S.shape[1] else np.zeros(0)
        second = float(np.partition(sims, -2)[-2]) if sims.size >= 2 else float(sims.max()) if sims.size else 0.0
        X[r, :len(FEATURES)] = sp["feats"]
        X[r, len(FEATURES):] = [
            token_novelty(sp["text"], vocab), case_novel, float(sim_max[r]) - med, second,
            float(min(len(sp["support"] or ()), 4)), si / max(1, n - 1), 1.0 if si == n - 1 else 0.0,
            float(np.log1p(n)), structured,
        ]
    return X, rows


def predict(model: dict[str, Any], X: np.ndarray) -> np.ndarray:
    """Calibrated P(supported) from a stored logistic model ({mean, scale, coef, intercept})."""
    if len(X) == 0:
        return np.zeros(0)
    z = ((X - np.asarray(model["mean"])) / np.asarray(model["scale"])) @ np.asarray(model["coef"])
    z = z + float(model["intercept"])
    return 1.0 / (1.0 + np.exp(-np.clip(z, -40, 40)))


def sentence_probs(p: dict[str, Any], model: dict[str, Any], response: str, documents: Sequence[str]
                   ) -> np.ndarray:
    """P(supported) per response sentence of a prepared case (NaN where there are no features)."""
    out = np.full(len(p["sent"]), np.nan)
    X, rows = design(p, response, documents)
    if rows:
        out[rows] = predict(model, X)
    return out


@lru_cache(maxsize=1)
def load_params() -> dict[str, Any] | None:
    """{"features", "threshold", "model", ...} or None when no learned combiner ships."""
    return read_fitted(PARAMS_PATH, ALL_FEATURES, "adherence_model.ALL_FEATURES", "bench/lodo.py --write")

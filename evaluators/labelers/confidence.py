"""How likely ``trace``'s verdict on a case is wrong — the confidence selective hybrid routes by.

``trace`` decides per case "every sentence supported" or not (``overall_supported``). A small
logistic model (fitted by ``bench/lodo_fit.py`` on inner leave-one-domain-out outcomes of the dev
domains, stored in ``confidence_params.json``) gives a calibrated P(hallucinated) from case-level
signals that do not all agree with each other:

* the sentence probabilities: lowest, mean, share below the threshold, how close the closest one
  sits to the threshold and how many sit near it;
* the novel-token ratio (share of response words found in no document) — an independent cheap
  signal; a case trace calls supported while many of its words appear nowhere is suspect;
* the number of response sentences.

P(trace is wrong) = P(h)·(1 − s) + (1 − P(h))·s with s = trace's 1 − adherence (see :func:`p_wrong`).
``SentenceLabels.confidence`` = 1 − P(trace is wrong); selective hybrid sends the lowest first.
Without the params file the older margin rule is used: confidence = mean of the lowest and the mean
distance of the sentence probabilities from the threshold.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from .fitted import read_fitted

PARAMS_PATH = Path(__file__).with_name("confidence_params.json")

CASE_FEATURES: tuple[str, ...] = (
    "min_p", "min_logit", "mean_p", "share_below", "flag", "margin_min", "share_near", "log_n", "novel",
    "novel_x_unflagged",
)
NEAR = 0.1
_TOK = re.compile(r"\w+")


def novel_token_ratio(response: str, documents: Sequence[str]) -> float:
    """Share of the response's word tokens (``\\w+``, lower case) found in no document."""
    toks = _TOK.findall(response.lower())
    if not toks:
        return 0.0
    vocab: set[str] = set()
    for d in documents:
        vocab.update(_TOK.findall(d.lower()))
    return sum(1 for t in toks if t not in vocab) / len(toks)


@lru_cache(maxsize=1)
def load_params() -> dict[str, Any] | None:
    return read_fitted(PARAMS_PATH, CASE_FEATURES, "confidence.CASE_FEATURES", "bench/lodo.py --write")


def case_features(probs: Sequence[float], threshold: float, novel: float) -> list[float]:
    """Case-level signals from the sentence probabilities (sentences needing no support count as 1)."""
    p = np.asarray(probs, dtype=np.float64)
    if p.size == 0:
        p = np.ones(1)
    lo = float(p.min())
    below = p < threshold
    flag = float(below.any())
    lo_c = min(max(lo, 1e-4), 1 - 1e-4)
    return [lo, math.log(lo_c / (1 - lo_c)), float(p.mean()), float(below.mean()), flag,
            float(np.abs(p - threshold).min()), float((np.abs(p - threshold) < NEAR).mean()),
            math.log1p(p.size), float(novel), float(novel) * (1.0 - flag)]


def p_hallucinated(model: dict[str, Any], feats: Sequence[float]) -> float:
    x = np.asarray(feats, dtype=np.float64)
    z = float(((x - np.asarray(model["mean"])) / np.asarray(model["scale"])) @ np.asarray(model["coef"]))
    z += float(model["intercept"])
    return 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, z))))


def p_wrong(model: dict[str, Any] | None, probs: Sequence[float], threshold: float, novel: float) -> float:
    """How wrong trace's adherence of the case is expected to be; the margin rule when ``model`` is None.

    With the model: P(h) = P(hallucinated) and s = share of sentences below the threshold
    (1 − adherence): P(h)·(1 − s) + (1 − P(h))·s — the expected disagreement between trace's score
    and the truth (a case with one doubtful sentence of five is less wrong when clean than one with
    every sentence doubtful). With s ∈ {0, 1} this is P(the case verdict is wrong)."""
    p = np.asarray(probs, dtype=np.float64)
    if model is None:
        if p.size == 0:
            return 0.0
        span = np.where(p < threshold, threshold, 1.0 - threshold)
        cert = np.minimum(1.0, np.abs(p - threshold) / np.maximum(span, 1e-6))
        return float(1.0 - (0.5 * cert.min() + 0.5 * cert.mean()))
    f = case_features(probs, threshold, novel)
    ph = p_hallucinated(model, f)
    s = f[3]
    return float(ph * (1.0 - s) + (1.0 - ph) * s)

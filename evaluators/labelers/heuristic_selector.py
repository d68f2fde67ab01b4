"""Which of a response sentence's candidate supporting sentences are named (issue 55): the fitted
selector of :mod:`.heuristic_parts`.

Contract. :func:`candidate_rows` gives the candidates — the greedy set and the ``CANDIDATES``
closest document sentences — and one row of ``SELECT_FEATURES`` each; :func:`select` names the
anchor and the candidates the selector gives at least its threshold, most probable first, at most
``max_keys``; :func:`load_selector` reads ``support_params.json`` (fitted leave-one-domain-out by
``bench/support_keys.py --fit --write-params``), None when it does not ship. Pure functions of their
arguments: no model call.
"""

from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol, Sequence

import numpy as np

from .fitted import read_fitted
from .heuristic_features import DocIndex

#: At most this many supporting sentences per response sentence.
MAX_KEYS = 5
#: The fitted selector (``bench/support_keys.py --fit``): which of the candidates are named, from
#: these features of each (:func:`candidate_rows`). Absent: the greedy set is named as it is.
SELECTOR_PATH = Path(__file__).with_name("support_params.json")
SELECT_FEATURES = ("gap", "share", "rel", "next_to", "greedy", "copy", "zsim", "rev", "nparts", "ndoc", "prev_g",
                   "next_g", "clen")
#: The selector weighs the greedy set and this many of the closest sentences.
CANDIDATES = 20


class _Keyed(Protocol):
    """A part of the claim (:class:`.heuristic_parts.Part`): the word forms a sentence must hold."""

    @property
    def keys(self) -> frozenset[str]: ...


def candidate_rows(car: list[set[int]], weight: list[float], sims: np.ndarray, doc: DocIndex,
                   greedy: Sequence[int], parts: Sequence[_Keyed] = ()) -> tuple[list[int], np.ndarray]:
    """The sentences the selector weighs — the ``CANDIDATES`` closest and the greedy set — and their
    ``SELECT_FEATURES`` (one row each): how far below the anchor (cosine), the share of the claim's
    weight it carries, that weight against the most any greedy sentence carries, whether it is next
    to a greedy sentence in its document, whether the greedy rule chose it, how much of its content
    a greedy sentence already says (a copy in another document, a restatement); its cosine against
    the case's other sentences (z-score), the share of its own content words the claim holds, how
    many parts the claim has and how many sentences the documents (log), whether the sentence before
    it / after it in its document was chosen (the sentence that continues a chosen one: "It was
    released in 2017."), and how long it is (content words, log)."""
    n = len(sims)
    order = [int(i) for i in np.argsort(-sims)[:CANDIDATES]]
    idx = list(dict.fromkeys([*greedy, *order]))
    total = sum(weight)
    held = {i: sum(w for w, c in zip(weight, car) if i in c) for i in set(idx)}
    best = max((held[j] for j in greedy), default=0.0)
    top = float(sims[greedy[0]]) if greedy else float(np.max(sims)) if n else 0.0
    mu, sd = (float(np.mean(sims)), float(np.std(sims))) if n else (0.0, 0.0)
    sd = sd or 1.0
    claim: set[str] = set().union(*(p.keys for p in parts)) if parts else set()
    n_parts, n_doc = math.log1p(len(parts)), math.log1p(n)
    pairs = set(doc.windows)
    gset = set(greedy)
    X = np.zeros((len(idx), len(SELECT_FEATURES)))
    for r, i in enumerate(idx):
        ci = doc.infos[i].content
        copy = 0.0
        for j in greedy:
            if j != i:
                cj = doc.infos[j].content
                copy = max(copy, len(ci & cj) / max(1, len(ci | cj)))
        prev_g = (i - 1, i) in pairs and i - 1 in gset
        next_g = (i, i + 1) in pairs and i + 1 in gset
        X[r] = (top - float(sims[i]), held[i] / total if total > 0 else 0.0, held[i] / best if best > 0 else 0.0,
                1.0 if prev_g or next_g else 0.0, 1.0 if i in gset else 0.0, copy,
                (float(sims[i]) - mu) / sd, len(ci & claim) / max(1, len(ci)), n_parts, n_doc,
                float(prev_g), float(next_g), math.log1p(len(ci)))
    return idx, X


def select(idx: Sequence[int], X: np.ndarray, greedy: Sequence[int], model: dict[str, Any],
           max_keys: int = MAX_KEYS) -> list[int]:
    """The anchor, then the candidates the fitted selector gives at least its threshold, most probable
    first, at most ``max_keys`` in all."""
    if not greedy:
        return []
    feats = list(model.get("features", SELECT_FEATURES))
    if feats != list(SELECT_FEATURES):  # a selector over fewer features (an earlier one, a test's)
        X = X[:, [SELECT_FEATURES.index(f) for f in feats]]
    z = ((X - np.asarray(model["mean"])) / np.asarray(model["scale"])) @ np.asarray(model["coef"])
    p = 1.0 / (1.0 + np.exp(-np.clip(z + float(model["intercept"]), -40, 40)))
    anchor = greedy[0]
    thr = float(model["threshold"])
    rest = sorted((float(pi), -r, i) for r, (i, pi) in enumerate(zip(idx, p)) if i != anchor and pi >= thr)
    return [anchor, *(i for _, _, i in reversed(rest))][:max_keys]


@lru_cache(maxsize=1)
def load_selector() -> dict[str, Any] | None:
    """The fitted selector (``support_params.json``: {"features", "mean", "scale", "coef", "intercept",
    "threshold", ...}) or None when it does not ship (then the greedy set is the supporting set)."""
    return read_fitted(SELECTOR_PATH, SELECT_FEATURES, "heuristic_selector.SELECT_FEATURES",
                       "bench/support_keys.py --fit --pages 150,300 --train-pages --write-params")

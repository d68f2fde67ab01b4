"""How many questions each document gets: in proportion to the square root of its length
(:func:`length_weights`), every document at least one when ``n`` allows.

Contract (:func:`allocate`): the quotas add up to exactly ``n``; when ``n`` >= the number of
documents every document gets at least one and the rest follow the lengths (a document whose share
would be under one gets one, the others share what is left by largest remainder); when ``n`` is
smaller, ``n`` documents get one each, drawn with probability in proportion to length from a
generator seeded by ``seed`` (the same seed, the same draw). :func:`top_up` moves questions a
document could not give to the documents that still can, in the same proportion. Pure functions.
"""

from __future__ import annotations

import math
import random
from typing import Mapping


def length_weights(lengths: Mapping[str, float]) -> dict[str, float]:
    """The weight a file's share of the questions follows: the square root of its length. A long file
    still gets more questions than a short one, but not so many that it crowds the others out: a
    200-page manual holding 91 % of the text beside 12 web pages gets 22 of 40 questions, not 29 (in
    proportion to length); a file 100 times as long as another gets 10 times its questions."""
    return {k: math.sqrt(max(float(v), 1.0)) for k, v in lengths.items()}


def allocate(weights: Mapping[str, float], n: int, seed: int = 0) -> dict[str, int]:
    names = sorted(weights)
    if n <= 0 or not names:
        return {k: 0 for k in names}
    w = {k: max(float(weights[k]), 1e-9) for k in names}
    if n < len(names):
        rng = random.Random(seed)
        # weighted draw without replacement (Efraimidis-Spirakis keys)
        keys = sorted(names, key=lambda k: -math.log(rng.random() or 1e-300) / w[k])
        chosen = set(keys[:n])
        return {k: int(k in chosen) for k in names}
    quota = {k: 0 for k in names}
    active = list(names)
    left = n
    while True:
        total = sum(w[k] for k in active)
        small = [k for k in active if left * w[k] / total < 1]
        if not small:
            break
        for k in small:
            quota[k] = 1
            active.remove(k)
            left -= 1
    total = sum(w[k] for k in active)
    ideal = {k: left * w[k] / total for k in active}
    for k in active:
        quota[k] = int(ideal[k])
    rest = left - sum(quota[k] for k in active)
    for k in sorted(active, key=lambda k: (-(ideal[k] - int(ideal[k])), -w[k], k))[:rest]:
        quota[k] += 1
    return quota


def top_up(quota: Mapping[str, int], weights: Mapping[str, float], spare: Mapping[str, int],
           deficit: int) -> dict[str, int]:
    """``quota`` plus up to ``deficit`` more questions for documents with ``spare`` capacity (how many
    more each can still give), one at a time to the document furthest below its proportional share
    (D'Hondt: the largest weight / (quota + 1))."""
    out = dict(quota)
    room = {k: int(v) for k, v in spare.items() if v > 0}
    for _ in range(max(0, deficit)):
        if not room:
            break
        k = max(sorted(room), key=lambda d: weights.get(d, 0.0) / (out.get(d, 0) + 1))
        out[k] = out.get(k, 0) + 1
        room[k] -= 1
        if room[k] <= 0:
            del room[k]
    return out

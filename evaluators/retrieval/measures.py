"""trec_eval's measures of one ranked list, by its definitions (pure arithmetic, no I/O).

Input: ``grades`` — the grade of the passage at each rank, rank 1 first, in the app's order (0: not
relevant, not judged, or a repeat of a passage already ranked higher — see :mod:`.matching`); and
``relevant`` — the grade of every relevant passage of the case (grade ≥ 1), retrieved or not: the
relevant set recall and the ideal ranking are computed from. Output: :func:`measures`, every metric
of :func:`.names.metric_names` for the cutoffs given.

The definitions are trec_eval's (relevance level 1; its measure in brackets), checked against
pytrec_eval on random rankings and on MTRAG-UN's qrels (tests/test_retrieval_trec.py):

* ``hit@K`` [success_K]: 1 when some passage of the top K has grade ≥ 1;
* ``precision@K`` [P_K]: relevant passages in the top K / K (K even when fewer were retrieved);
* ``recall@K`` [recall_K]: relevant passages in the top K / |relevant|;
* ``mrr`` [recip_rank]: 1 / the rank of the first relevant passage, whole ranking; 0 when none;
* ``map@K`` [map_cut_K]: Σ precision@r over the ranks r ≤ K of relevant passages / |relevant|;
* ``ndcg@K`` [ndcg_cut_K]: Σ_{r ≤ K} grade_r / log2(r + 1), over the same sum of the relevant grades
  sorted high to low (the gain is the grade itself, as in trec_eval, not 2^grade − 1).

trec_eval orders a run by score, breaking ties by document id; our ranking is the app's own order,
so no tie arises. trec_eval refuses a ranking that names a document twice; here a repeat is zeroed
before it arrives (it keeps its rank, earns nothing) — the same numbers trec_eval gives when the
repeat is renamed to an unjudged document.
"""

from __future__ import annotations

import math
from typing import Sequence

from .names import CUT_KINDS, MRR


def measures(grades: Sequence[int], relevant: Sequence[int], ks: Sequence[int]) -> dict[str, float]:
    """Every retrieval metric of one ranking (see the module docstring) for the cutoffs ``ks``.
    ValueError when ``relevant`` is empty: no measure is defined without a relevant passage."""
    rel = sorted((int(g) for g in relevant if int(g) > 0), reverse=True)
    if not rel:
        raise ValueError("no relevant passage: retrieval metrics are undefined")
    n_rel = len(rel)
    hits = [int(g) > 0 for g in grades]
    first = next((r for r, h in enumerate(hits, 1) if h), None)
    out: dict[str, dict[int, float]] = {kind: {} for kind in CUT_KINDS}
    found = 0
    ap_sum = 0.0
    dcg = 0.0
    idcg = 0.0
    done_at: dict[int, tuple[int, float, float, float]] = {}
    ks = sorted(set(int(k) for k in ks))
    top = ks[-1] if ks else 0
    for r in range(1, top + 1):
        if r <= len(grades) and hits[r - 1]:
            found += 1
            ap_sum += found / r
            dcg += int(grades[r - 1]) / math.log2(r + 1)
        if r <= n_rel:
            idcg += rel[r - 1] / math.log2(r + 1)
        done_at[r] = (found, ap_sum, dcg, idcg)
    for k in ks:
        f, ap, d, i = done_at[k]
        out["hit"][k] = 1.0 if f else 0.0
        out["precision"][k] = f / k
        out["recall"][k] = f / n_rel
        out["map"][k] = ap / n_rel
        out["ndcg"][k] = d / i if i > 0 else 0.0
    flat: dict[str, float] = {}
    for kind in CUT_KINDS:
        flat.update({f"{kind}@{k}": v for k, v in out[kind].items()})
        if kind == "recall":
            flat[MRR] = 1.0 / first if first else 0.0
    return flat


__all__ = ["measures"]

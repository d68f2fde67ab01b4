"""Selective hybrid with a perfect judge: does trace's confidence send the right cases?

The reference annotations stand in for the LLM (what a loopback server replaying them would return,
done in-process here): a case sent to the "LLM" gets the annotated adherence — RAGBench: share of
response sentences not in ``unsupported_response_sentence_keys``; RAGTruth: share of sentences no
human span touches; MTRAG (response labels only): 0 when hallucinated, else 1. The others keep
trace's adherence. Per domain, with ``share`` (30 %) of the cases sent:

* ``picked``  — the least confident by ``SentenceLabels.confidence`` (what ``hybrid`` selective does:
  ``hybrid.least_certain``);
* ``random``  — the mean over ``n_random`` random picks of the same size;
* ``oracle``  — the cases where trace is most wrong first (wrong case verdict first, then by the gap
  between trace's and the annotated adherence).

* ``gain`` / ``gain_hand`` (bench only, tried 2026-11-24) — the cases with the most expected
  mis-ordered pairs (:func:`expected_misordered`) under P(h) from the fold's confidence model /
  from the margin rule. Macro 0.747 / 0.797 against 0.757 / 0.792 for ``picked``: no better, so
  the product keeps ``least_certain``.

Figure: AUROC of the mixed ranking against ``hallucinated`` — by 1 − adherence (``key="score"``),
or by 1 − expected adherence (``key="expected"``: the tie-free ranking the product sorts by; a
judged case's expected adherence is its annotated adherence, as for LLM labels without
probabilities).
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from evaluators.labelers.hybrid import least_certain
from evaluators.types import LabelOutcome, SentenceLabels


def judge_score(c) -> float:
    """1 − the annotated adherence of a case (the perfect judge's verdict)."""
    known = [s for s in c.supported if s is not None]
    if known and len(known) == len(c.supported):
        return 1.0 - float(np.mean(known))
    return 1.0 if c.hallucinated else 0.0


def expected_misordered(score: np.ndarray, p: np.ndarray) -> np.ndarray:
    """For each case, the expected number of case pairs its hallucination ``score`` ranks the wrong
    way round, given P(hallucinated) ``p`` of every case: a hallucinated case is mis-ordered against
    each clean case scored above it, a clean case against each hallucinated case scored below it
    (ties count half). A judge that gets a case right removes these pairs, so sending the cases with
    the most of them lifts the run's ranking (AUROC) most. O(n log n)."""
    score = np.asarray(score, dtype=np.float64)
    p = np.clip(np.asarray(p, dtype=np.float64), 0.0, 1.0)
    n = len(score)
    if n == 0:
        return np.zeros(0)
    order = np.argsort(score, kind="stable")
    s_sorted, p_sorted = score[order], p[order]
    # group equal scores: totals of p and 1-p strictly below / above each group, and within it
    uniq, start, counts = np.unique(s_sorted, return_index=True, return_counts=True)
    grp_p = np.add.reduceat(p_sorted, start)
    grp_q = np.add.reduceat(1.0 - p_sorted, start)
    pos_below = np.concatenate(([0.0], np.cumsum(grp_p)[:-1]))
    neg_above = np.concatenate((np.cumsum(grp_q[::-1])[:-1][::-1], [0.0]))
    g = np.repeat(np.arange(len(uniq)), counts)
    tie_p = grp_p[g] - p_sorted  # the other cases of the same score
    tie_q = grp_q[g] - (1.0 - p_sorted)
    out_sorted = (p_sorted * (neg_above[g] + 0.5 * tie_q)
                  + (1.0 - p_sorted) * (pos_below[g] + 0.5 * tie_p))
    out = np.empty(n)
    out[order] = out_sorted
    return out


def _auroc(y, s) -> float | None:
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(y, s)) if len(set(y)) > 1 else None


def _mixed(trace: np.ndarray, judge: np.ndarray, sent: Sequence[int]) -> np.ndarray:
    s = trace.copy()
    idx = list(sent)
    s[idx] = judge[idx]
    return s


def route_domain(cases, outs, share: float = 0.3, n_random: int = 200, seed: int = 7,
                 key: str = "score") -> dict[str, Any]:
    y = [int(c.hallucinated) for c in cases]
    trace = np.asarray([o[key] for o in outs], dtype=np.float64)
    judge = np.asarray([judge_score(c) for c in cases], dtype=np.float64)
    n = len(cases)
    k = math.ceil(share * n - 1e-9)
    # exactly what hybrid selective does, on stand-in outcomes carrying the confidence
    stand_in = [LabelOutcome(labels=SentenceLabels(method="trace", document_keys=(), confidence=o["conf"]))
                for o in outs]
    picked = least_certain(stand_in, k)
    rng = np.random.default_rng(seed)
    rand = [_auroc(y, _mixed(trace, judge, rng.choice(n, size=k, replace=False))) for _ in range(n_random)]
    rand = [r for r in rand if r is not None]
    flag = np.asarray([o["flag"] for o in outs])
    wrong = flag != np.asarray(y, dtype=bool)
    gap = np.abs(trace - judge)
    oracle = sorted(range(n), key=lambda i: (not wrong[i], -gap[i], i))[:k]
    conf = np.asarray([o["conf"] if o["conf"] is not None else 0.5 for o in outs])
    # alternative route (bench only): P(the case VERDICT is wrong) — P(h) when trace does not flag
    # the case, 1 - P(h) when it does (the product routes by the expected disagreement instead)
    def top_k(value: np.ndarray) -> float | None:  # AUROC with the k highest-valued cases judged
        return _auroc(y, _mixed(trace, judge, np.argsort(-value, kind="stable")[:k]))

    ph = [o.get("p_h") for o in outs]
    hard = gain = None
    if all(v is not None for v in ph):
        ph_arr = np.asarray(ph, dtype=np.float64)
        hard = top_k(np.where(flag, 1.0 - ph_arr, ph_arr))
        gain = top_k(expected_misordered(trace, ph_arr))
    # the same with P(h) from the shipped margin rule: confidence of the verdict (flag or not)
    gain_hand = top_k(expected_misordered(trace, np.where(flag, conf, 1.0 - conf)))
    res = {
        "n": n, "sent": k,
        "gain_route": gain, "gain_hand_route": gain_hand,
        "trace": _auroc(y, trace),
        "picked": _auroc(y, _mixed(trace, judge, picked)),
        "random": float(np.mean(rand)) if rand else None,
        "oracle": _auroc(y, _mixed(trace, judge, oracle)),
        "verdict_route": hard,
        # how well the confidence points at wrong verdicts (AUROC of 1 - confidence vs wrong)
        "conf_auroc_wrong": _auroc(wrong.astype(int).tolist(), (1.0 - conf).tolist()),
        "wrong_share": float(wrong.mean()),
        "wrong_caught": float(wrong[picked].sum() / max(1, wrong.sum())),
    }
    return res


def route_table(raw: dict[str, tuple[list[Any], list[dict[str, Any]]]], share: float = 0.3, log=print,
                key: str = "score") -> dict[str, Any]:
    per = {d: route_domain(cases, outs, share, key=key) for d, (cases, outs) in raw.items()}
    for d, r in per.items():
        log(f"  {d:18s} n={r['n']:4d} sent {r['sent']:3d}: trace {_f(r['trace'])} -> picked "
            f"{_f(r['picked'])} (verdict rule {_f(r.get('verdict_route'))}, gain {_f(r.get('gain_route'))}) "
            f"| random {_f(r['random'])} | "
            f"oracle {_f(r['oracle'])} | conf AUROC(wrong) {_f(r['conf_auroc_wrong'])} "
            f"wrong {r['wrong_share']:.2f} caught {r['wrong_caught']:.2f}")
    mac = {}
    for key in ("trace", "picked", "verdict_route", "gain_route", "gain_hand_route", "random", "oracle",
                "conf_auroc_wrong", "wrong_caught"):
        vals = [r[key] for r in per.values() if r.get(key) is not None]
        mac[key] = float(np.mean(vals)) if vals else None
    log(f"  {'macro':18s} trace {_f(mac['trace'])} -> picked {_f(mac['picked'])} "
        f"(verdict rule {_f(mac['verdict_route'])}, gain {_f(mac['gain_route'])}, "
        f"gain-hand {_f(mac['gain_hand_route'])}) | random "
        f"{_f(mac['random'])} | oracle {_f(mac['oracle'])} | conf AUROC(wrong) {_f(mac['conf_auroc_wrong'])}")
    return {"domains": per, "macro": mac, "share": share, "key": key}


def _f(v) -> str:
    return "  -  " if v is None else f"{v:.3f}"


def route_markdown(tables: dict[str, dict[str, Any]]) -> str:
    """Per domain: adherence AUROC of trace alone and with ``share`` sent (picked / random / oracle)."""
    names = list(tables)
    share = tables[names[0]]["share"]
    lines = [f"### Selective hybrid, {int(round(share * 100))} % of cases sent to a perfect judge", "",
             "| domain | " + " | ".join(f"{nm}: trace → picked (random, oracle) | {nm}: conf AUROC(wrong)"
                                       for nm in names) + " |",
             "|---|" + "---|---|" * len(names)]
    doms = list(tables[names[0]]["domains"]) + ["macro"]
    for d in doms:
        row = [f"**{d}**" if d == "macro" else d]
        for nm in names:
            r = tables[nm]["macro"] if d == "macro" else tables[nm]["domains"][d]
            row.append(f"{_f(r['trace'])} → {_f(r['picked'])} ({_f(r['random'])}, {_f(r['oracle'])})")
            row.append(_f(r["conf_auroc_wrong"]))
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"

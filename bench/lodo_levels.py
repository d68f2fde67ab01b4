"""How ``trace``'s support levels are read (issues 35, 47) and what that costs in agreement with humans.

    .venv/bin/python -m bench.lodo_levels            # writes bench/results/lodo_levels.json

On the ten labelled dev domains of ``bench/lodo.py`` (its cached features), the labeler as shipped
(adherence combiners of ``heuristic_params.json``, the shipped context models) is run twice through
``HeuristicMethod.label_prepared``: with the earlier rule (a sentence below the threshold is
"partial" whenever some document sentence matches it, at any P(supported); no contradiction check)
and with the new one (partial only from P 0.5; a number / date clashing with the best-matching
sentence makes a sentence "not supported" even above the threshold; ``contradictions="all"`` is
reported too: names as well; issue 47: ``"numbers"`` without the swapped-term check of
``heuristic_entities``, the default ``"substitutions"`` with it). Per domain: how many sentences
get each level, how often a swapped term is read (sentences, with their human label: supported /
not / unknown; and cases the humans call clean), and the figures that
measure agreement with human labels (adherence and expected-adherence AUROC with the novel-token
ratio beside them, relevance / utilization / completeness RMSE) — unchanged when the rule costs
nothing. Nothing is fitted.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from typing import Any

from bench import machine
from bench.lodo_data import DOMAINS, available
from bench.lodo_harness import RESULTS, evaluate, legacy_params, prepare

RULES: dict[str, dict[str, Any]] = {
    "earlier": {"partial_p": 0.0, "contradictions": "off"},
    "numbers only": {"contradictions": "numbers"},
    "shipped": {},
    "names too": {"contradictions": "all"},
}
SWAP = "the documents say "  # how a swapped-term reason starts (heuristic_explain.clash_text)


def swaps(cases, outs) -> dict[str, int]:
    """Sentences read as swapped terms, by their human label, and the cases they fall in."""
    n: Counter = Counter()
    for c, o in zip(cases, outs):
        hit = False
        for si, s in enumerate(o.labels.sentences):
            if SWAP not in s.explanation.split("\n")[0]:
                continue
            hit = True
            lab = c.supported[si] if si < len(c.supported) else None
            n["sentences"] += 1
            n["on_supported" if lab else "on_unsupported" if lab is False else "on_unknown"] += 1
        n["cases_clean"] += int(not c.hallucinated)
        n["cases_hallucinated"] += int(c.hallucinated)
        n["flagged_clean"] += int(hit and not c.hallucinated)
        n["flagged_hallucinated"] += int(hit and c.hallucinated)
    return dict(n)
KEYS = ("auroc", "auroc_expected", "naive_auroc", "f1", "relevance_rmse", "utilization_rmse", "completeness_rmse")


def main() -> int:
    os.environ.setdefault("RAG_EVAL_EMBED_CACHE", "off")
    if not available():
        print("skipped: ../shared/data is absent")
        return 0
    from evaluators.labelers.heuristic import HeuristicMethod
    from evaluators.options import EvalOptions

    data = prepare(list(DOMAINS), "ragbench", None)
    params = legacy_params()
    out: dict[str, Any] = {"cpu": machine.cpu(), "load_average_at_start": round(os.getloadavg()[0], 2), "rules": {}}
    for name, extra in RULES.items():
        method = HeuristicMethod()
        st = {**method._settings(EvalOptions()), "threshold": float(params["threshold"]), **extra}
        levels: dict[str, Counter] = {}
        swapped: dict[str, dict[str, int]] = {}
        secs: dict[str, float] = {}

        def run(domain, cases, prepared, st=st, method=method, levels=levels, swapped=swapped, secs=secs):
            t = time.perf_counter()
            outs = method.label_prepared([c.item for c in cases], prepared, st, params)
            secs[domain] = time.perf_counter() - t
            levels[domain] = Counter(s.level for o in outs for s in o.labels.sentences)
            swapped[domain] = swaps(cases, outs)
            return outs

        t0 = time.perf_counter()
        tab = evaluate(data, lambda d, run=run: run, 200, log=lambda *a: None)
        out["rules"][name] = {
            "settings": extra, "seconds": round(time.perf_counter() - t0, 1),
            "labelling_seconds": round(sum(secs.values()), 2),
            "domains": {d: {**{k: r.get(k) for k in KEYS}, "levels": dict(levels[d]), "swaps": swapped[d]}
                        for d, r in tab["domains"].items()},
            "macro": {k: tab["macro"].get(k) for k in KEYS},
        }
        m = tab["macro"]
        sw = Counter()
        for d in swapped.values():
            sw.update(d)
        print(f"{name:12s} macro AUROC {m['auroc']:.3f} · expected {m['auroc_expected']:.3f} "
              f"(naive {m['naive_auroc']:.3f}) · utilization RMSE {m.get('utilization_rmse', 0):.3f} · "
              f"swapped terms read in {sw['sentences']} sentences ({sw['on_unsupported']} not supported by the "
              f"annotation, {sw['on_supported']} supported), {sw['flagged_clean']} of {sw['cases_clean']} clean "
              f"cases · labelling {sum(secs.values()):.1f} s")
    path = RESULTS / "lodo_levels.json"
    path.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {path.relative_to(RESULTS.parents[1])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

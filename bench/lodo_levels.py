"""How ``trace``'s support levels are read (issue 35) and what that costs in agreement with humans.

    .venv/bin/python -m bench.lodo_levels            # writes bench/results/lodo_levels.json

On the ten labelled dev domains of ``bench/lodo.py`` (its cached features), the labeler as shipped
(adherence combiners of ``heuristic_params.json``, the shipped context models) is run twice through
``HeuristicMethod.label_prepared``: with the earlier rule (a sentence below the threshold is
"partial" whenever some document sentence matches it, at any P(supported); no contradiction check)
and with the new one (partial only from P 0.5; a number / date clashing with the best-matching
sentence makes a sentence "not supported" even above the threshold; ``contradictions="all"`` is
reported too: names as well). Per domain: how many sentences get each level, and the figures that
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
    "shipped": {},
    "names too": {"contradictions": "all"},
}
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

        def run(domain, cases, prepared, st=st, method=method, levels=levels):
            outs = method.label_prepared([c.item for c in cases], prepared, st, params)
            levels[domain] = Counter(s.level for o in outs for s in o.labels.sentences)
            return outs

        t0 = time.perf_counter()
        tab = evaluate(data, lambda d, run=run: run, 200, log=lambda *a: None)
        out["rules"][name] = {
            "settings": extra, "seconds": round(time.perf_counter() - t0, 1),
            "domains": {d: {**{k: r.get(k) for k in KEYS}, "levels": dict(levels[d])}
                        for d, r in tab["domains"].items()},
            "macro": {k: tab["macro"].get(k) for k in KEYS},
        }
        m = tab["macro"]
        print(f"{name:10s} macro AUROC {m['auroc']:.3f} · expected {m['auroc_expected']:.3f} "
              f"(naive {m['naive_auroc']:.3f}) · utilization RMSE {m.get('utilization_rmse', 0):.3f}")
    path = RESULTS / "lodo_levels.json"
    path.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {path.relative_to(RESULTS.parents[1])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

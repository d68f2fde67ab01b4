"""What the swapped-term rule of issue 47 costs in agreement with human labels, per guard set.

    .venv/bin/python -m bench.i47_guards [--variants numbers,shipped,...] [--domains a,b]

On the ten labelled dev domains of ``bench/lodo.py`` (its cached features), the labeler as shipped
(adherence combiners of ``heuristic_params.json``) is run through ``HeuristicMethod.label_prepared``
once per variant: ``numbers`` (no swapped-term check: the adherence of ``main`` before issue 47) and
the substitution rule with a set of ``heuristic_entities.GUARDS``. Per domain: adherence and
expected-adherence AUROC (1 − score against ``hallucinated``; nothing fitted, so it is what every
held-out fold sees), and the swapped terms read, by the sentence's human label (false alarms = on
sentences annotated supported) and by the case's (flagged clean cases). Writes
``bench/results/<name>.json`` with the CPU. The reading "the term is in no document at all" (guard
``absent``, ``i47_guards_absent.json`` and ``tight+absent`` of ``i47_guards_tight.json``) was measured
at commit 8ddab6a and removed: it drops hagrid's true swaps and keeps the false alarms.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections import Counter
from typing import Any

from bench import machine
from bench.lodo_data import DOMAINS, available
from bench.lodo_harness import RESULTS, evaluate, legacy_params, prepare
from bench.lodo_levels import swaps

BASE = frozenset({"numbers", "kind", "stated", "abbreviation", "lemma", "synonym"})
VARIANTS: dict[str, tuple[str, frozenset[str]]] = {
    "numbers": ("numbers", BASE),
    "guards": ("substitutions", BASE),
    "tight": ("substitutions", BASE | {"derived", "clause"}),
    "title": ("substitutions", BASE | {"derived", "clause", "title"}),
    "shipped": ("substitutions", BASE | {"derived", "clause", "title", "split"}),
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--domains", default=None)
    ap.add_argument("--name", default="i47_guards")
    args = ap.parse_args(argv)
    os.environ.setdefault("RAG_EVAL_EMBED_CACHE", "off")
    if not available():
        print("skipped: ../shared/data is absent")
        return 0
    from evaluators.labelers import heuristic_entities
    from evaluators.labelers.heuristic import HeuristicMethod
    from evaluators.options import EvalOptions

    domains = args.domains.split(",") if args.domains else list(DOMAINS)
    data = prepare(domains, "ragbench", None)
    params = legacy_params()
    out: dict[str, Any] = {"cpu": machine.cpu(), "load_average_at_start": round(os.getloadavg()[0], 2),
                           "variants": {}}
    for name in args.variants.split(","):
        mode, guards = VARIANTS[name]
        heuristic_entities.GUARDS = guards
        method = HeuristicMethod()
        st = {**method._settings(EvalOptions()), "threshold": float(params["threshold"]), "contradictions": mode}
        swapped: dict[str, dict[str, int]] = {}

        def run(domain, cases, prepared, st=st, method=method, swapped=swapped):
            outs = method.label_prepared([c.item for c in cases], prepared, st, params)
            swapped[domain] = swaps(cases, outs)
            return outs

        t0 = time.perf_counter()
        tab = evaluate(data, lambda d, run=run: run, 0, log=lambda *a: None)
        res = {d: {"auroc": r.get("auroc"), "auroc_expected": r.get("auroc_expected"), "swaps": swapped[d]}
               for d, r in tab["domains"].items()}
        out["variants"][name] = {"mode": mode, "guards": sorted(guards), "domains": res,
                                 "macro": {k: tab["macro"].get(k) for k in ("auroc", "auroc_expected")},
                                 "seconds": round(time.perf_counter() - t0, 1)}
        sw: Counter = Counter()
        for d in swapped.values():
            sw.update(d)
        print(f"{name:16s} macro AUROC {tab['macro']['auroc']:.4f} expected {tab['macro']['auroc_expected']:.4f} "
              f"swaps {sw['sentences']} (sup {sw['on_supported']}, unsup {sw['on_unsupported']}, "
              f"unk {sw['on_unknown']}) clean cases flagged {sw['flagged_clean']}", flush=True)
        for d, r in res.items():
            s = r["swaps"]
            print(f"   {d:18s} {r['auroc']:.4f} {r['auroc_expected']:.4f}  swaps {s.get('sentences', 0)} "
                  f"sup {s.get('on_supported', 0)} unsup {s.get('on_unsupported', 0)} "
                  f"clean {s.get('flagged_clean', 0)} hal {s.get('flagged_hallucinated', 0)}", flush=True)
    path = RESULTS / f"{args.name}.json"
    path.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {path.relative_to(RESULTS.parents[1])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

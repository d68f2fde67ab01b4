"""Speed of ``trace`` with the learned parts vs the labeler shipped before them, on real files.

    .venv/bin/python -m bench.lodo_speed [--n 120] [--rounds 3]

Cases from the shared dev files (RAGTruth Summary, RAGBench, MTRAG; our own sentencizer, as a user
gets them). Per round, in one process: the end-to-end ``trace`` path ``featurize`` (embedding with
cold caches: memory cache cleared, no disk cache) then ``label_prepared`` with (a) the pre-issue-19
params (``heuristic_params.json``, hand relevance rule, margin confidence) and (b) what ships now
(``adherence_params.json``, ``context_params.json``, ``confidence_params.json``). The labelling
steps are timed interleaved on the same features so machine load hits both alike; cases/s =
cases / (featurize + label). The ratio (b)/(a) is the figure (goal ≥ 0.5).
Writes ``bench/results/lodo_speed.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=120, help="cases (split over three files)")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    os.environ["RAG_EVAL_EMBED_CACHE"] = "off"  # cold: every text is embedded in every round
    from bench.lodo_data import available, load_domain
    from bench.lodo_harness import legacy_params
    from evaluators.encoder import embeddings
    from evaluators.labelers.heuristic import HeuristicMethod
    from evaluators.options import EvalOptions

    if not available():
        print("skipped: ../shared/data is absent")
        return 0
    per = max(1, args.n // 3)
    items = []
    for d in ("ragtruth_summary", "hotpotqa", "mtrag"):
        items += [c.item for c in load_domain(d, split="ours", limit=per)]
    method = HeuristicMethod()
    legacy = legacy_params()
    s_old = method._settings(EvalOptions())
    s_old["threshold"] = float(legacy["threshold"])
    s_new = method._settings(EvalOptions())
    embeddings.encode(["warm up"])  # model load is not part of the figure
    t_feat, t_old, t_new = [], [], []
    for r in range(args.rounds):
        embeddings.clear_cache()
        t0 = time.perf_counter()
        _, prepared = method.featurize(items, EvalOptions())
        t_feat.append(time.perf_counter() - t0)
        order = [("old", s_old, legacy, {"context": "hand", "confidence": "hand"}), ("new", s_new, None, {})]
        for name, st, params, extra in (order if r % 2 == 0 else order[::-1]):
            t0 = time.perf_counter()
            outs = method.label_prepared(items, prepared, st, params, **extra)
            dt = time.perf_counter() - t0
            assert all(o.labels is not None for o in outs), [o.error for o in outs if o.labels is None][:1]
            (t_old if name == "old" else t_new).append(dt)
    n = len(items)
    f, lo, ln = min(t_feat), min(t_old), min(t_new)
    res = {"cases": n, "encoder": embeddings.info().get("backend"), "featurize_s": f, "label_before_s": lo,
           "label_after_s": ln, "cases_per_s_before": n / (f + lo), "cases_per_s_after": n / (f + ln),
           "ratio": (f + lo) / (f + ln), "rounds": args.rounds}
    print(json.dumps(res, indent=1))
    out = ROOT / "bench" / "results" / "lodo_speed.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Leave-one-domain-out (LODO) harness for the ``trace`` labeler on every shared dev domain.

    .venv/bin/python -m bench.lodo --before            # the pre-issue-19 labeler + naive references
    .venv/bin/python -m bench.lodo                     # before vs after (what ships: the earlier
                                                       # adherence combiners, learned context per fold)
    .venv/bin/python -m bench.lodo --adherence learned --name learned   # also the learned adherence
    .venv/bin/python -m bench.lodo --write             # ... and write context_params.json (ALL domains)
    .venv/bin/python -m bench.lodo --split ours        # our sentencizer end to end (RAGBench too)

Domains (``bench/lodo_data.py``): the 7 RAGBench subsets (emanual = validation + train rows),
RAGTruth Summary, RAGTruth Data2txt, MTRAG (with documents). Per domain: adherence AUROC (of
1 − adherence against ``hallucinated``, 95 % bootstrap interval over question / source groups),
F1 at the labeler's one fixed threshold, AUROC of 1 − lowest P, sentence AUROC where sentence labels
exist, and — RAGBench — relevance / utilization / completeness RMSE against the stored scores; next
to them the naive references (``bench/lodo_metrics.py``): novel-token ratio (AUROC; F1 at the cut-off
that is best on the OTHER domains) and a fixed cosine cut-off for relevance / utilization.

Rules: one setting for all domains, nothing tuned per domain; anything fitted is scored only on a
domain it never saw (each fold fits on the other domains; MTRAG has response labels only and is
never fitted on). Every label is produced by the product's own code path
(``HeuristicMethod.label_prepared``) with the fold's parameters.

Costs: embeddings of ~70,000 texts are cached under ``bench/out/lodo_emb`` (git-ignored; ~10 min
on 2 cores the first time, seconds afterwards); the feature pass takes ~1 min.
Results: ``bench/results/lodo_<name>.json`` and a markdown table ``bench/results/lodo_<name>.md``.
"""

from __future__ import annotations

import argparse
import time

from bench.lodo_data import DOMAINS, available
from bench.lodo_fit import run_after
from bench.lodo_harness import evaluate, legacy_params, prepare, shipped_labeler, write


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", action="store_true", help="score only the shipped labeler")
    ap.add_argument("--split", default="ragbench", choices=["ragbench", "ours"])
    ap.add_argument("--domains", default=None, help="comma-separated subset (default: all ten)")
    ap.add_argument("--limit", type=int, default=None, help="first N cases per domain (smoke test)")
    ap.add_argument("--n-boot", type=int, default=500)
    ap.add_argument("--name", default=None, help="results file name (default: before / after)")
    ap.add_argument("--write", action="store_true",
                    help="also fit on ALL labelled domains and write the shipped params (evaluators/labelers)")
    ap.add_argument("--adherence", default="legacy", choices=["legacy", "learned"],
                    help="adherence in the 'after' labeler: the shipped heuristic_params.json combiners "
                         "(default) or the learned combiner + confidence fitted per fold")
    ap.add_argument("--write-all", action="store_true",
                    help="with --write: also the adherence combiner and the confidence model (not shipped)")
    args = ap.parse_args(argv)
    import os

    os.environ.setdefault("RAG_EVAL_EMBED_CACHE", "off")  # bench/out/lodo_emb is this harness's cache
    if not available():
        print("skipped: ../shared/data is absent")
        return 0
    domains = [d.strip() for d in args.domains.split(",")] if args.domains else list(DOMAINS)
    t0 = time.perf_counter()
    data = prepare(domains, args.split, args.limit)
    print(f"features ready in {time.perf_counter() - t0:.0f}s")
    meta = {"split": args.split, "threshold": legacy_params().get("threshold"), "limit": args.limit}
    if args.before:
        print("shipped labeler (no fitting):")
        tab = evaluate(data, lambda d: shipped_labeler(), args.n_boot)
        name = args.name or ("before" if args.split == "ragbench" else "before_oursplit")
        write(name, {"shipped": tab}, f"trace as shipped (split: {args.split})", meta)
        return 0
    return run_after(data, args, meta)


if __name__ == "__main__":
    raise SystemExit(main())

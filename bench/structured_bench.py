"""Issue 46: `trace` on structured documents (RAGTruth Data2txt: Yelp business records as JSON).

    .venv/bin/python -m bench.structured_bench --label after            # accuracy + systems
    .venv/bin/python -m bench.structured_bench --label after --speed    # + a 1,000-field record, timed

Figures, per label (``before`` is the same script run on the commit before the change):

* **per-case AUROC** of 1 − expected_adherence (and 1 − adherence) against the human
  ``hallucinated`` label on ``ragtruth_data2txt_dev.jsonl`` (300 cases) and on the 900 cases of
  ``ragtruth_data2txt_systems_dev.jsonl``, with a 95 % bootstrap interval over sources, beside the
  naive reference (novel-token ratio);
* **span recall**: of the hallucinated spans humans marked, the share that falls on a response
  sentence the method flags (not fully supported) — beside the share of all response sentences
  flagged (flagging everything would reach 1.0) and the share of flagged sentences that hold a
  human span (precision);
* **the six-system ranking** with ``compare``: the systems file split per generator model, each
  evaluated and compared (``bench.compare_systems.task_report``: Spearman against the human rates,
  pairwise verdicts against McNemar + Holm, regressions against the base rate), and the naive
  reference's Spearman;
* ``--speed``: a synthetic record of 1,000 fields (and a response of six sentences) judged end to
  end (``evaluate``), cold (first embedding) and warm, median of 5, with the CPU and load.

Runs are kept under ``bench/out/structured46/<label>/`` (delete to redo); results go to
``bench/results/structured_<label>.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench import machine
from bench.compare_systems_eval import system_files
from bench.shared_data import SHARED_DIR, record_to_case

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "out" / "structured46"
RESULTS = ROOT / "bench" / "results"
N_BOOT = 1000


def _auroc(y: np.ndarray, s: np.ndarray) -> float | None:
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(y, s)) if 0 < y.sum() < len(y) else None


def auroc_ci(y: list[int], s: list[float], groups: list[str], seed: int = 7) -> dict[str, Any]:
    ya, sa = np.asarray(y), np.asarray(s, dtype=float)
    point = _auroc(ya, sa)
    uniq = sorted(set(groups))
    rows = {g: [i for i, x in enumerate(groups) if x == g] for g in uniq}
    rng = np.random.default_rng(seed)
    boots = []
    for _ in range(N_BOOT):
        idx = [i for g in rng.choice(uniq, len(uniq)) for i in rows[g]]
        a = _auroc(ya[idx], sa[idx])
        if a is not None:
            boots.append(a)
    ci = [float(x) for x in np.percentile(boots, [2.5, 97.5])] if boots else None
    return {"auroc": point, "ci": ci}


def _evaluate(recs: list[dict], path: Path):
    """The ``trace`` run of ``recs`` (read back from ``path`` when it exists)."""
    from evaluators import evaluate_batch
    from evaluators.cli.common import write_json
    from evaluators.export import to_json_dict
    from evaluators.resultfiles import read_run

    if not path.exists():
        cases = [record_to_case(r, f"{path.stem} {i}") for i, r in enumerate(recs)]
        t0 = time.perf_counter()
        run = evaluate_batch(cases, "trace")
        print(f"  {path.stem}: {len(cases)} cases in {time.perf_counter() - t0:.1f} s", flush=True)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_json(str(path), to_json_dict(run))
    return read_run(path)


def _sentence_spans(result) -> list[tuple[int, int]]:
    if result.spans is not None:
        return list(result.spans.response)
    from evaluators.sentencize import sentencize_response

    return [(s.start, s.end) for s in sentencize_response(result.case.response)]


def accuracy(results: list, name: str) -> dict[str, Any]:
    """AUROC (expected adherence, adherence, naive), span recall, flag rate, precision."""
    from evaluators.labelers.confidence import novel_token_ratio

    y, ea, ad, naive, groups = [], [], [], [], []
    spans_total = spans_hit = sent_total = sent_flagged = flagged_with_span = 0
    for r in results:
        if r.labels is None:
            continue
        case = r.case
        y.append(int(bool(case.labels.get("hallucinated"))))
        ea.append(1.0 - float(r.value("expected_adherence")))
        ad.append(1.0 - float(r.value("adherence")))
        naive.append(novel_token_ratio(case.response, case.documents))
        groups.append(str(case.metadata.get("source_id")))
        sents = _sentence_spans(r)
        flags = [not s.fully_supported for s in r.labels.sentences]
        human = [tuple(x) for x in case.labels.get("hallucination_spans") or []]
        for a, b in human:
            spans_total += 1
            spans_hit += int(any(f and s < b and e > a for (s, e), f in zip(sents, flags)))
        for (s, e), f in zip(sents, flags):
            sent_total += 1
            sent_flagged += int(f)
            flagged_with_span += int(f and any(s < b and e > a for a, b in human))
    return {
        "file": name, "n": len(y), "hallucinated": int(sum(y)),
        "auroc_expected_adherence": auroc_ci(y, ea, groups), "auroc_adherence": auroc_ci(y, ad, groups),
        "auroc_naive": auroc_ci(y, naive, groups),
        "span_recall": spans_hit / spans_total if spans_total else None, "spans": spans_total,
        "sentence_flag_rate": sent_flagged / sent_total if sent_total else None,
        "flag_precision": flagged_with_span / sent_flagged if sent_flagged else None,
    }


def systems(label: str) -> tuple[dict[str, Any], list]:
    from scipy.stats import spearmanr

    from bench.compare_systems import task_report
    from evaluators.labelers.confidence import novel_token_ratio

    groups = system_files("data2txt")
    runs, names = [], []
    for model, recs in sorted(groups.items()):
        runs.append(_evaluate(recs, OUT / label / "systems" / f"{model}.json"))
        names.append(model)
    reports = {m: task_report("data2txt", m, runs, names)
               for m in ("expected_adherence", "adherence", "overall_supported")}
    human = [float(np.mean([bool(c.case.labels.get("hallucinated")) for c in r.results])) for r in runs]
    naive = [float(np.mean([novel_token_ratio(c.case.response, c.case.documents) for c in r.results]))
             for r in runs]
    reports["naive_novel_token_ratio"] = {"spearman": float(spearmanr([-x for x in naive], [-h for h in human])[0]),
                                          "means": dict(zip(names, naive))}
    return reports, [c for r in runs for c in r.results]


def speed(repeat: int = 5) -> dict[str, Any]:
    """A 1,000-field record judged end to end (cold: its facts embedded; warm: from the cache)."""
    from evaluators import evaluate
    from evaluators.types import TestCase

    def record(seed: int) -> str:  # a new record per run: its facts are embedded afresh
        rng = np.random.default_rng(seed)
        rec: dict[str, Any] = {"name": f"Acme Gadget Store {seed}", "attributes": {}, "inventory": []}
        for i in range(300):
            rec["attributes"][f"Feature{i}Enabled"] = bool(rng.integers(0, 2))
        for i in range(140):
            rec["inventory"].append({"sku": f"A-{seed}-{i:04d}", "price": round(float(rng.uniform(1, 500)), 2),
                                     "stock": int(rng.integers(0, 90)), "colour": ["red", "blue", None][i % 3],
                                     "launched": f"20{10 + i % 14}-0{1 + i % 9}-1{i % 10}"})
        return json.dumps(rec)

    response = ("Acme Gadget Store sells many gadgets. Feature 12 is enabled. Item A-0007 costs $120. "
                "Item A-0010 comes in red. The store has 140 items in stock. It offers free delivery.")
    from evaluators.sentencize import sentencize_document

    doc = record(0)
    n_sentences = len(sentencize_document(doc, 0))
    times = []
    os.environ["RAG_EVAL_EMBED_CACHE"] = "off"
    for k in range(repeat):
        case = TestCase(id=f"speed-{k}", question="Describe the store.", documents=(record(k + 1),),
                        response=response)
        t0 = time.perf_counter()
        evaluate(case, "trace")
        times.append(time.perf_counter() - t0)
    cold = times[1:]  # the first call also loads the encoder
    warm_case = TestCase(id="warm", question="Describe the store.", documents=(doc,), response=response)
    evaluate(warm_case, "trace")
    warm = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        evaluate(warm_case, "trace")
        warm.append(time.perf_counter() - t0)
    return {"document_sentences": n_sentences, "doc_chars": len(doc), "judged_s_median": statistics.median(cold),
            "judged_s_all": cold, "note": "a new record per run (nothing cached); the first run, which "
            "also loads the encoder, is left out",
            "same_record_again_s_median": statistics.median(warm),
            "loadavg": os.getloadavg(), "cpu": machine.cpu(), "cores": os.cpu_count()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--label", default="after")
    ap.add_argument("--speed", action="store_true")
    ap.add_argument("--no-systems", action="store_true")
    args = ap.parse_args(argv)
    out: dict[str, Any] = {"label": args.label, "cpu": machine.cpu(), "loadavg_start": os.getloadavg()}
    dev_path = SHARED_DIR / "ragtruth_data2txt_dev.jsonl"
    if not dev_path.is_file():
        print("skipped: ../shared/data is absent")
        return 0
    recs = [json.loads(line) for line in dev_path.open(encoding="utf-8") if line.strip()]
    dev = _evaluate(recs, OUT / args.label / "data2txt_dev.json")
    out["dev"] = accuracy(dev.results, "ragtruth_data2txt_dev")
    print(json.dumps(out["dev"], indent=1))
    if not args.no_systems:
        reports, all_results = systems(args.label)
        out["systems_accuracy"] = accuracy(all_results, "ragtruth_data2txt_systems_dev")
        out["systems"] = reports
        print(json.dumps(out["systems_accuracy"], indent=1))
        for m, r in reports.items():
            if "verdicts_agree" in r:
                g = r["regressions"]
                print(f"{m:20} spearman {r['spearman']:+.3f} · verdicts agree {r['verdicts_agree']}/15, opposite "
                      f"{r['verdicts_opposite']} · regressions {g['top_rate']:.3f} vs {g['base_rate']:.3f} "
                      f"(x{g['ratio']:.2f}) · means " + ", ".join(f"{k[:12]} {v:.3f}" for k, v in r["means"].items()))
            else:
                print(f"{m:20} spearman {r['spearman']:+.3f}")
    if args.speed:
        out["speed"] = speed()
        print(json.dumps(out["speed"], indent=1))
    out["loadavg_end"] = os.getloadavg()
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"structured_{args.label}.json"
    path.write_text(json.dumps(out, indent=1, default=float) + "\n", encoding="utf-8")
    print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

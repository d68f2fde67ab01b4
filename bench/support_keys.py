"""Issue 55: which document sentences ``trace`` names as a response sentence's support, against the
supporting keys RAGBench's annotator gave, beside the naive reference (the single closest sentence).

    .venv/bin/python -m bench.support_keys --write support_keys_after      # all ten domains
    .venv/bin/python -m bench.support_keys --keys-only --domains hotpotqa  # key figures only, quick
    .venv/bin/python -m bench.support_keys --fit --write support_keys_fit  # the fitted selector, LODO
    .venv/bin/python -m bench.support_keys --fit --pages 150,300 --train-pages --write-params  # ... ship it

On the seven RAGBench dev subsets (RAGBench's own sentence split and keys, ``bench/lodo_data.py``) and
through the product's own code path (``HeuristicMethod.label_prepared`` with the shipped parameters,
the features of ``bench/lodo_harness.prepare``), per subset:

* supporting-key recall and precision, micro (hits over all gold / all named keys) and per sentence
  (macro), over the response sentences the annotator calls supported and backs with document
  sentences (``sentence_set="supported"``, the claims a whole supporting set exists for) and over every
  sentence with gold document keys (``"all"``); the share of sentences whose whole gold set is named;
  keys named per sentence;
* the naive reference: the closest document sentence by the embedded model's cosine, one per sentence;
* the annotator against itself (:func:`annotator_repeats`): where two responses hold the same sentence
  against the same documents, how many of one annotation's keys the other names — the ceiling of any
  recall against these labels (emanual: 0.73 over 348 pairs);
* next to them, from the same labels, the figures of ``bench/lodo.py`` that must not fall: adherence
  AUROC (and expected-adherence AUROC) on every dev domain, utilization / completeness RMSE against
  RAGBench's stored scores (``--keys-only`` skips RAGTruth and MTRAG).

Without ``--fit`` nothing is fitted: the attribution as it ships (``evaluators/labelers/heuristic_parts.py``,
with ``support_params.json`` when it ships); the labeler's own fitted parameters (context models) were
fitted before this issue. ``--fit``: the selector of the supporting keys (``bench/support_fit.py``) is
fitted leave-one-domain-out — each subset's keys come from a selector fitted on the other six — and
scored beside the greedy set (no selector) and the naive reference; the LODO table then uses the
fold's selector too (utilization takes the keys). ``--write-params`` fits it on all seven subsets and
writes ``support_params.json``. ``--pages 150,300``: every case is also rebuilt as one long page
(``bench/lodo_pages.py``) and the pages are scored too (with ``--fit`` by the fold's selector: held
out like the passages); ``--train-pages``: the selector also learns from the pages — users bring
crawled pages as well as passages — each subset still weighted once.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import Any

import numpy as np

from bench import machine
from bench.lodo_data import DOMAINS, RAGBENCH_DOMAINS, available
from bench.lodo_fit import rounded
from bench.lodo_harness import evaluate, prepare
from bench.lodo_pages import featurized_pages
from bench.results_file import finish
from evaluators.labelers.heuristic import HeuristicMethod
from evaluators.options import EvalOptions
from evaluators.types import is_special_key


def _gold(c, si: int, doc_keys: set[str]) -> tuple[str, ...] | None:
    g = (c.support_keys or [None] * (si + 1))[si] if c.support_keys and si < len(c.support_keys) else None
    if g is None:
        return None
    keys = tuple(k for k in g if not is_special_key(k) and k in doc_keys)
    return keys or None


def key_figures(cases, prepared, label_outs) -> dict[str, Any]:
    """Recall / precision of the named supporting keys (and of the naive closest sentence)."""
    out: dict[str, Any] = {}
    for which in ("supported", "all"):
        acc = {nm: {"hit": 0, "gold": 0, "named": 0, "rec": [], "prec": [], "whole": 0, "n_named": []}
               for nm in ("trace", "naive")}
        n = 0
        for c, p, lo in zip(cases, prepared, label_outs):
            keys = c.item.doc_keys
            doc_keys = set(keys)
            S = np.asarray(p["S"])
            for si, s in enumerate(lo.labels.sentences):
                gold = _gold(c, si, doc_keys)
                if gold is None:
                    continue
                if which == "supported" and not (c.supported[si] if si < len(c.supported) else False):
                    continue
                n += 1
                named = {k for k in s.supporting_keys if k in doc_keys}
                naive = {keys[int(np.argmax(S[si]))]} if S.shape[1] else set()
                for nm, pred in (("trace", named), ("naive", naive)):
                    a = acc[nm]
                    g = set(gold)
                    hit = len(pred & g)
                    a["hit"] += hit
                    a["gold"] += len(g)
                    a["named"] += len(pred)
                    a["rec"].append(hit / len(g))
                    a["prec"].append(hit / len(pred) if pred else 0.0)
                    a["whole"] += int(g <= pred)
                    a["n_named"].append(len(pred))
        fig: dict[str, Any] = {"sentences": n}
        for nm, a in acc.items():
            if not n:
                continue
            fig[nm] = {"recall": a["hit"] / max(1, a["gold"]), "precision": a["hit"] / max(1, a["named"]),
                       "recall_per_sentence": float(np.mean(a["rec"])),
                       "precision_per_sentence": float(np.mean(a["prec"])),
                       "whole_set_named": a["whole"] / n, "keys_named_mean": float(np.mean(a["n_named"])),
                       "gold_keys_mean": a["gold"] / n}
        out[which] = fig
    return out


def annotator_repeats() -> dict[str, Any]:
    """How well RAGBench's annotator agrees with itself: where two responses of a subset hold the same
    sentence against the same documents (delucionqa and emanual ask one question of several
    generators), the recall of one annotation's supporting keys against the other's, over ordered
    pairs of the sentences it calls supported (so recall = precision) — the ceiling any labeler's key
    recall can reach against these labels. Read from ../shared/data, nothing written."""
    import itertools
    from collections import defaultdict

    from bench.lodo_data import ragbench_key, read_shared

    seen: dict[tuple[str, str, str], list[frozenset[str]]] = defaultdict(list)
    for r in read_shared("ragbench_validation_dev.jsonl") + read_shared("ragbench_emanual_train_dev.jsonl"):
        lab = r["labels"]
        docs = json.dumps(lab.get("documents_sentences"))
        unsup = {ragbench_key(k) for k in lab.get("unsupported_response_sentence_keys") or []}
        text = {ragbench_key(k): str(t).strip() for k, t in lab.get("response_sentences") or []}
        for info in lab.get("sentence_support_information") or []:
            k = ragbench_key(info.get("response_sentence_key"))
            gold = frozenset(ragbench_key(x) for x in info.get("supporting_sentence_keys") or []
                             if ragbench_key(x)[:1].isdigit())
            if k in text and k not in unsup and gold:
                seen[(r.get("task", ""), docs, text[k])].append(gold)
    out: dict[str, Any] = {}
    for (task, _, _), golds in seen.items():
        for a, b in itertools.permutations(golds, 2):
            t = out.setdefault(task, {"pairs": 0, "hit": 0, "gold": 0, "identical": 0})
            t["pairs"] += 1
            t["hit"] += len(a & b)
            t["gold"] += len(b)
            t["identical"] += int(a == b)
    return {task: {"pairs": t["pairs"], "recall": t["hit"] / t["gold"], "identical_sets": t["identical"] / t["pairs"]}
            for task, t in sorted(out.items())}


def labeler(support: dict[str, Any] | str | None):
    """What ships (adherence / context / confidence params as they ship) with the key selector
    ``support`` ("shipped", None = the greedy set, or fold-fitted params)."""
    method = HeuristicMethod()
    settings = method._settings(EvalOptions())

    def run(domain, cases, prepared):
        return method.label_prepared([c.item for c in cases], prepared, settings, support=support)

    return run


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--domains", default=None)
    ap.add_argument("--keys-only", action="store_true", help="RAGBench key figures only (no AUROC table)")
    ap.add_argument("--n-boot", type=int, default=0)
    ap.add_argument("--write", default=None, help="bench/results/<NAME>.json")
    ap.add_argument("--fit", action="store_true", help="fit the key selector leave-one-domain-out")
    ap.add_argument("--greedy", action="store_true", help="score the greedy set (no selector)")
    ap.add_argument("--utilized", default=None, choices=["chosen", "carriers"],
                    help="which keys utilization counts (heuristic_parts.UTILIZED; default: as it ships)")
    ap.add_argument("--write-params", action="store_true",
                    help="with --fit: fit on all seven subsets, write evaluators/labelers/support_params.json")
    ap.add_argument("--pages", default="",
                    help="also score each case rebuilt as one long page of these many sentences "
                         "(bench/lodo_pages.py), e.g. 150,300 (with --fit: by the fold's selector)")
    ap.add_argument("--train-pages", action="store_true",
                    help="with --fit --pages: the selector also learns from the pages")
    args = ap.parse_args(argv)
    os.environ.setdefault("RAG_EVAL_EMBED_CACHE", "off")
    if not available():
        print("skipped: ../shared/data is absent")
        return 0
    domains = ([d.strip() for d in args.domains.split(",")] if args.domains
               else list(RAGBENCH_DOMAINS if args.keys_only else DOMAINS))
    if args.utilized:
        from evaluators.labelers import heuristic_parts

        heuristic_parts.UTILIZED = args.utilized
    data = prepare(domains, "ragbench")
    t0 = time.perf_counter()
    paged: dict[int, dict[str, Any]] = {}
    if args.pages:
        paged = {size: {d: featurized_pages(data[d][0], size) for d in data if d in RAGBENCH_DOMAINS}
                 for size in (int(x) for x in args.pages.split(",") if x.strip())}
    selectors: dict[str, Any] = {}
    record: dict[str, Any] = {**machine.stamp()}
    if args.fit:
        from bench import support_fit

        greedy = labeler(None)
        rows = {d: support_fit.rows(*data[d], greedy(d, *data[d]), _gold) for d in data if d in RAGBENCH_DOMAINS}
        for size, by_domain in paged.items() if args.train_pages else ():
            for d in rows:
                rows[d] = rows[d] + support_fit.rows(*by_domain[d], greedy(d, *by_domain[d]), _gold)
            record.setdefault("trained_on_pages", []).append(size)
        for d in rows:
            selectors[d] = support_fit.fit_selector({e: v for e, v in rows.items() if e != d})
            print(f"  selector without {d}: threshold {selectors[d]['threshold']} (inner macro R "
                  f"{selectors[d]['inner_macro_recall']:.3f} P {selectors[d]['inner_macro_precision']:.3f})")
        record["selectors"] = selectors
        record["greedy_keys"] = {d: key_figures(*data[d], greedy(d, *data[d])) for d in rows}
        if args.write_params:
            full = support_fit.fit_selector(rows)
            full = {**full, "by": "bench/support_keys.py --fit --write-params (bench/support_fit.py)",
                    "figures": "leave-one-domain-out: bench/results/support_keys_fit.json"}
            from evaluators.labelers.heuristic_selector import SELECTOR_PATH

            SELECTOR_PATH.write_text(json.dumps(rounded(full), indent=1) + "\n", encoding="utf-8")
            print("wrote", SELECTOR_PATH)

    def lab_for(d: str):
        return labeler(selectors[d]) if d in selectors else labeler(None if args.greedy else "shipped")

    keys: dict[str, Any] = {}
    for d, (cases, prepared) in data.items():
        if d not in RAGBENCH_DOMAINS:
            continue
        t = time.perf_counter()
        outs = lab_for(d)(d, cases, prepared)
        keys[d] = key_figures(cases, prepared, outs)
        keys[d]["label_seconds"] = round(time.perf_counter() - t, 2)
        f = keys[d]["supported"]
        print(f"{d:11s} n={f['sentences']:5d}  trace R {f['trace']['recall']:.3f} P {f['trace']['precision']:.3f}"
              f" whole {f['trace']['whole_set_named']:.3f} k {f['trace']['keys_named_mean']:.2f}"
              f" | naive R {f['naive']['recall']:.3f} P {f['naive']['precision']:.3f}"
              f" | gold k {f['trace']['gold_keys_mean']:.2f}  ({keys[d]['label_seconds']} s)")
    record["keys"] = keys
    for size, by_domain in paged.items():
        pk = {d: key_figures(*by_domain[d], lab_for(d)(d, *by_domain[d])) for d in by_domain}
        record.setdefault("pages", {})[str(size)] = {"keys": pk, "macro": {
            m: float(np.mean([k["supported"]["trace"][m] for k in pk.values()])) for m in ("recall", "precision")}}
        print(f"pages of {size} sentences, macro (supported):", record["pages"][str(size)]["macro"])
    record["annotator_repeats"] = annotator_repeats()
    print("the annotator against itself (same sentence, same documents):", record["annotator_repeats"])
    record["utilized"] = args.utilized or "shipped"
    for which in ("supported", "all"):
        rows = [k[which] for k in keys.values() if k[which].get("trace")]
        if rows:
            record.setdefault("macro", {})[which] = {
                nm: {m: float(np.mean([r[nm][m] for r in rows])) for m in ("recall", "precision", "whole_set_named")}
                for nm in ("trace", "naive")}
    print("macro (supported):", record.get("macro", {}).get("supported"))
    if not args.keys_only:
        tab = evaluate(data, lab_for, args.n_boot)
        record["lodo"] = {"domains": tab["domains"], "macro": tab["macro"]}
    return finish(record, t0, args.write)


if __name__ == "__main__":
    raise SystemExit(main())

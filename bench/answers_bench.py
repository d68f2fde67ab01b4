"""Declined answers and answer correctness against human labels (issue 53), on ../shared/data.

    python -m bench.answers_bench --part correctness --write answers_correctness
    python -m bench.answers_bench --part declined --write answers_declined
    python -m bench.answers_bench --part overrefusal --write answers_overrefusal
    python -m bench.answers_bench --part speed --correctness off|auto   # one timed run (farm-bench pairs two)

* ``correctness``: MTRAG human dev, every non-reference answer with a reference answer (``ground_truth``):
  Spearman of ``answer_recall`` (and ``answer_correctness``, ``answer_precision``) with the human
  **completeness** rating (mean of the annotators), beside the naive reference (token recall of the
  reference answer: the share of its word tokens found in the response). No number is fitted on these
  rows, but answer_recall's rules were chosen reading them: the rules one by one (``recall_variants``,
  from the facts' details), the rule chosen leave-one-domain-out among them (each collection scored by
  the rule best on the others), per-domain figures, and the paired difference with the naive reference;
  95 % intervals by a bootstrap over conversations (2,000, seed 7).
  RAGBench's dev files carry no reference answer (``ground_truth`` is empty on every row): said, not
  scored.
* ``declined``: MTRAG-UN answerability (fiqa, ibmcloud): the rule's recall on the unanswerable references
  and its false alarms on the answerable ones (and partial / underspecified); a declining answer put on
  every answerable (and partial) task, evaluated end to end — how many are called over-refusals; the
  unanswerable references evaluated end to end — how many are right refusals. The same detector figures
  on MTRAG human dev's references (clapnq, govt, fiqa, ibmcloud: other turns, two other collections).
* ``overrefusal``: declining answers on tasks whose documents lack the answer, with no reference at all
  (no ``ground_truth``, no reference passages), built from MTRAG-UN answerability: the unanswerable turns
  with the passages of their collection closest to the question; the answerable turns with passages
  retrieved elsewhere (not their own nor their conversation's) or another conversation's documents; the
  answerable turns with their own documents as the control. How many are called over-refusals, by
  collection, and the cosine threshold of ``answers.refusal`` fitted on one collection, applied to the other.
* ``speed``: one offline run of MTRAG human dev (240 cases) with answer correctness ``auto`` or ``off``;
  time it with ``farm-bench --vs '… --correctness off' -- … --correctness auto``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import defaultdict
from typing import Any

import numpy as np
from scipy.stats import spearmanr

from bench.machine import stamp
from bench.results_file import write_result
from bench.shared_data import SHARED_DIR

DECLINING_ANSWER = "I'm sorry, but I do not have that information."
_TOKEN = re.compile(r"\w+", re.UNICODE)


def _rows(name: str) -> list[dict[str, Any]]:
    path = SHARED_DIR / name
    if not path.is_file():
        return []
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _case(r: dict[str, Any], response: str | None = None) -> dict[str, Any]:
    return {"id": r["id"], "question": r["question"], "response": r["response"] if response is None else response,
            "documents": r.get("documents") or [], "ground_truth": r.get("ground_truth"),
            "history": r.get("history") or [], "document_ids": r.get("document_ids") or []}


def token_recall(reference: str, response: str) -> float:
    ref = [t.lower() for t in _TOKEN.findall(reference)]
    got = {t.lower() for t in _TOKEN.findall(response)}
    return sum(t in got for t in ref) / len(ref) if ref else 0.0


def _spearman(x: np.ndarray, y: np.ndarray) -> float | None:
    if len(x) < 3 or np.all(x == x[0]) or np.all(y == y[0]):
        return None
    return float(spearmanr(x, y).statistic)


def spearman_ci(x: list[float], y: list[float], groups: list[str], n_boot: int = 2000, seed: int = 7
                ) -> dict[str, Any]:
    """Spearman with a 95 % interval from a bootstrap over groups (conversations)."""
    xa, ya = np.asarray(x, float), np.asarray(y, float)
    by: dict[str, list[int]] = defaultdict(list)
    for i, g in enumerate(groups):
        by[g].append(i)
    keys = list(by)
    rng = np.random.default_rng(seed)
    boots = []
    for _ in range(n_boot):
        idx = np.concatenate([by[keys[k]] for k in rng.integers(0, len(keys), len(keys))])
        s = _spearman(xa[idx], ya[idx])
        if s is not None:
            boots.append(s)
    rho = _spearman(xa, ya)
    lo, hi = (np.percentile(boots, [2.5, 97.5]) if boots else (None, None))
    return {"spearman": None if rho is None else round(rho, 3), "low": None if lo is None else round(float(lo), 3),
            "high": None if hi is None else round(float(hi), 3), "n": len(x), "groups": len(keys)}


def wilson(k: int, n: int) -> dict[str, Any]:
    """k of n with the Wilson 95 % interval of the share."""
    from scipy.stats import binomtest

    if not n:
        return {"k": k, "n": n}
    ci = binomtest(k, n).proportion_ci(method="wilson")
    return {"k": k, "n": n, "share": round(k / n, 3), "low": round(float(ci.low), 3), "high": round(float(ci.high), 3)}


#: answer_recall's rules, each from the same facts' details: a fact counts 1 when stated ("binary") or its
#: credit (stated 1, else the share of its words the answer carries, none with a number missing:
#: "credit"); every fact alike or weighed by its closeness to the question ("_weighted"). The shipped
#: metric is "credit_weighted".
RECALL_VARIANTS = ("binary", "binary_weighted", "credit", "credit_weighted")


def recall_variants(mv: Any) -> dict[str, float]:
    """The answer_recall a case would have under each of :data:`RECALL_VARIANTS` (its own value when the
    reference or the answer declines as a whole: those are decided before the facts are counted)."""
    facts = [f for f in (mv.details or {}).get("facts") or [] if f.get("claims", True)]
    if not facts or "weight" not in facts[0]:
        return {k: float(mv.value) for k in RECALL_VARIANTS}
    out = {}
    for k in RECALL_VARIANTS:
        w = [f["weight"] if k.endswith("_weighted") else 1.0 for f in facts]
        c = [1.0 if f["stated"] else (f.get("credit", 0.0) if k.startswith("credit") else 0.0) for f in facts]
        out[k] = sum(a * b for a, b in zip(w, c)) / sum(w)
    return out


def spearman_diff_ci(a: list[float], b: list[float], y: list[float], groups: list[str], n_boot: int = 2000,
                     seed: int = 7) -> dict[str, Any]:
    """Spearman(a, y) − Spearman(b, y), paired, with a 95 % interval from a bootstrap over groups."""
    aa, ba, ya = (np.asarray(v, float) for v in (a, b, y))
    by: dict[str, list[int]] = defaultdict(list)
    for i, g in enumerate(groups):
        by[g].append(i)
    keys = list(by)
    rng = np.random.default_rng(seed)
    diffs = []
    for _ in range(n_boot):
        idx = np.concatenate([by[keys[k]] for k in rng.integers(0, len(keys), len(keys))])
        sa, sb = _spearman(aa[idx], ya[idx]), _spearman(ba[idx], ya[idx])
        if sa is not None and sb is not None:
            diffs.append(sa - sb)
    sa, sb = _spearman(aa, ya), _spearman(ba, ya)
    lo, hi = np.percentile(diffs, [2.5, 97.5]) if diffs else (np.nan, np.nan)
    return {"difference": None if sa is None or sb is None else round(sa - sb, 3), "low": round(float(lo), 3),
            "high": round(float(hi), 3)}


def lodo_choice(variants: dict[str, list[float]], y: list[float], domains: list[str], groups: list[str]
                ) -> dict[str, Any]:
    """Leave-one-domain-out over the rule: for each domain, the variant with the best Spearman on the other
    domains scores it; the held-out scores pooled (with their interval)."""
    ya = np.asarray(y, float)
    held = np.full(len(y), np.nan)
    chosen = {}
    for d in sorted(set(domains)):
        test = np.array([x == d for x in domains])
        best = max(variants, key=lambda k: _spearman(np.asarray(variants[k])[~test], ya[~test]) or -1.0)
        chosen[d] = best
        held[test] = np.asarray(variants[best])[test]
    return {"chosen": chosen, **spearman_ci(list(held), y, groups)}


def correctness() -> dict[str, Any]:
    from evaluators import evaluate_batch

    rows = [r for r in _rows("mtrag_human_dev.jsonl")
            if r.get("ground_truth") and r["meta"].get("generator_model") != "reference"]
    if not rows:
        return {"skipped": "mtrag_human_dev.jsonl absent"}
    t0 = time.perf_counter()
    run = evaluate_batch([_case(r) for r in rows], "trace")
    seconds = time.perf_counter() - t0
    human, domains, convs = [], [], []
    ours: dict[str, list[float]] = {"answer_recall": [], "answer_correctness": [], "answer_precision": []}
    naive, kept_idx = [], []
    variants: dict[str, list[float]] = {k: [] for k in RECALL_VARIANTS}
    skipped: dict[str, int] = defaultdict(int)
    for i, (r, res) in enumerate(zip(rows, run.results)):
        vals = {m: res.value(m) for m in ours}
        if vals["answer_recall"] is None:
            mv = res.metrics.get("answer_recall")
            skipped[(mv.skipped if mv else res.error) or "?"] += 1
            continue
        kept_idx.append(i)
        for k, v in recall_variants(res.metrics["answer_recall"]).items():
            variants[k].append(v)
        human.append(float(r["labels"]["completeness"]["mean"]))
        domains.append(r["meta"]["collection"].split("-")[2])
        convs.append(r["meta"]["conversation_id"])
        naive.append(token_recall(r["ground_truth"], r["response"]))
        for m in ours:
            v = vals[m]
            ours[m].append(np.nan if v is None else v)
    out: dict[str, Any] = {"file": "mtrag_human_dev.jsonl", "rows": len(rows), "scored": len(human),
                           "skipped": dict(skipped), "seconds": round(seconds, 1), "pooled": {}, "by_domain": {}}
    for name, vals in (("answer_recall", ours["answer_recall"]), ("naive_token_recall", naive),
                       ("answer_correctness", ours["answer_correctness"])):
        out["pooled"][name] = spearman_ci(vals, human, convs)
    prec = [(p, h, c) for p, h, c in zip(ours["answer_precision"], human, convs) if not np.isnan(p)]
    out["pooled"]["answer_precision"] = spearman_ci([p for p, _, _ in prec], [h for _, h, _ in prec],
                                                     [c for _, _, c in prec])
    for d in sorted(set(domains)):
        ix = [i for i, x in enumerate(domains) if x == d]
        out["by_domain"][d] = {
            name: spearman_ci([vals[i] for i in ix], [human[i] for i in ix], [convs[i] for i in ix])
            for name, vals in (("answer_recall", ours["answer_recall"]), ("naive_token_recall", naive))}
    # answer_recall's rules one by one (each computed from the facts' details of the same run), the paired
    # difference with the naive reference, and the choice among them made leave-one-domain-out
    out["recall_variants"] = {k: spearman_ci(v, human, convs) for k, v in variants.items()}
    out["answer_recall_minus_naive"] = spearman_diff_ci(ours["answer_recall"], naive, human, convs)
    out["variant_chosen_leave_one_domain_out"] = lodo_choice(variants, human, domains, convs)
    out["ragbench"] = {f: sum(1 for r in _rows(f) if r.get("ground_truth"))
                       for f in ("ragbench_validation_dev.jsonl", "ragbench_emanual_train_dev.jsonl")}
    out["ragbench_note"] = "RAGBench dev rows with a reference answer (ground_truth): none in either file, so no figure"
    return out


def declined() -> dict[str, Any]:
    from evaluators import evaluate_batch
    from evaluators.answers import answer_declines
    from evaluators.sentencize import sentencize_response

    def says_no(text: str) -> bool:
        return answer_declines([s.text for s in sentencize_response(text)])

    rows = _rows("answers/mtragun_answerability_dev.jsonl")
    if not rows:
        return {"skipped": "answers/mtragun_answerability_dev.jsonl absent"}
    out: dict[str, Any] = {"file": "answers/mtragun_answerability_dev.jsonl", "detector": {}}
    by: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by[r["labels"]["answerability"]].append(r)
    for label, rs in sorted(by.items()):
        hits = [r["id"] for r in rs if says_no(r["response"])]
        out["detector"][label] = {"declined": len(hits), "of": len(rs)}
    out["detector"]["missed_unanswerable"] = [r["response"][:120] for r in by["UNANSWERABLE"]
                                              if not says_no(r["response"])]
    out["detector"]["false_alarms_answerable"] = [r["response"][:120] for r in by["ANSWERABLE"]
                                                  if says_no(r["response"])]
    # a declining answer on every answerable / partial task, end to end (trace)
    for label in ("ANSWERABLE", "PARTIAL"):
        rs = by[label]
        run = evaluate_batch([_case(r, DECLINING_ANSWER) for r in rs], "trace")
        over = [res for res in run.results if res.value("over_refusal") == 1.0]
        dec = [res for res in run.results if res.value("declined") == 1.0]
        why: dict[str, int] = defaultdict(int)
        for res in run.results:
            mv = res.metrics.get("over_refusal")
            why[(mv.details or {}).get("verdict") or "?" if mv else "?"] += 1
        # the same without the reference answer: the relevance path alone
        run2 = evaluate_batch([{**_case(r, DECLINING_ANSWER), "ground_truth": None} for r in rs], "trace")
        over2 = sum(1 for res in run2.results if res.value("over_refusal") == 1.0)
        out[f"declining_answer_on_{label.lower()}"] = {
            "tasks": len(rs), "declined": len(dec), "over_refusal": len(over), "verdicts": dict(why),
            "over_refusal_without_ground_truth": over2}
    rs = by["UNANSWERABLE"]
    run = evaluate_batch([_case(r) for r in rs], "trace")
    right = sum(1 for res in run.results if res.value("declined") == 1.0 and res.value("over_refusal") == 0.0)
    over = sum(1 for res in run.results if res.value("over_refusal") == 1.0)
    out["unanswerable_references"] = {"tasks": len(rs), "scored": len(run.scored), "right_refusal": right,
                                      "over_refusal": over,
                                      "not_declined": sum(1 for res in run.results if res.value("declined") == 0.0)}
    # other turns and collections: MTRAG human dev's references
    mt = [r for r in _rows("mtrag_human_dev.jsonl") if r["meta"].get("generator_model") == "reference"]
    other: dict[str, dict[str, int]] = defaultdict(lambda: {"declined": 0, "of": 0})
    for r in mt:
        label = (r["meta"].get("answerability") or ["?"])[0]
        other[label]["of"] += 1
        other[label]["declined"] += int(says_no(r["response"]))
    out["mtrag_human_references"] = dict(other)
    gen = [r for r in _rows("mtrag_human_dev.jsonl") if r["meta"].get("generator_model") != "reference"]
    gen_other: dict[str, dict[str, int]] = defaultdict(lambda: {"declined": 0, "of": 0})
    for r in gen:
        label = (r["meta"].get("answerability") or ["?"])[0]
        gen_other[label]["of"] += 1
        gen_other[label]["declined"] += int(says_no(r["response"]))
    out["mtrag_human_model_answers"] = dict(gen_other)
    det = out["detector"]
    out["intervals"] = {
        "recall_on_unanswerable": wilson(det["UNANSWERABLE"]["declined"], det["UNANSWERABLE"]["of"]),
        "false_alarms_on_answerable": wilson(det["ANSWERABLE"]["declined"], det["ANSWERABLE"]["of"]),
        "over_refusals_called": wilson(out["declining_answer_on_answerable"]["over_refusal"],
                                       out["declining_answer_on_answerable"]["tasks"]),
        "right_refusals_called": wilson(out["unanswerable_references"]["right_refusal"],
                                        out["unanswerable_references"]["tasks"]),
        "other_collections_recall": wilson(other["UNANSWERABLE"]["declined"], other["UNANSWERABLE"]["of"]),
        "other_collections_false_alarms": wilson(other["ANSWERABLE"]["declined"], other["ANSWERABLE"]["of"]),
    }
    return out


def speed(mode: str) -> dict[str, Any]:
    from evaluators import evaluate_batch
    from evaluators.options import EvalOptions

    rows = _rows("mtrag_human_dev.jsonl")
    t0 = time.perf_counter()
    run = evaluate_batch([_case(r) for r in rows], "trace", options=EvalOptions(answer_correctness=mode))
    return {"mode": mode, "cases": len(rows), "seconds": round(time.perf_counter() - t0, 2),
            "with_correctness": sum(1 for r in run.results if r.value("answer_recall") is not None)}


def _conversation(task_id: str) -> str:
    return task_id.rsplit("-t", 1)[0]


def _retrieved(questions: list[str], collections: list[str], exclude: list[set[str]], k: int = 3
               ) -> list[list[dict[str, Any]]]:
    """Per question: the ``k`` passages of its collection's corpus (MTRAG-UN retrieval dev: every passage
    some task cites) closest to it by MiniLM cosine, leaving out the ids in ``exclude``."""
    from evaluators.encoder import embeddings

    corpus = _rows("retrieval/mtrag_retrieval_dev_corpus.jsonl")
    vecs = embeddings.encode([c["text"] for c in corpus])
    qv = embeddings.encode(questions)
    out = []
    for q, coll, ex in zip(qv, collections, exclude):
        ok = [i for i, c in enumerate(corpus) if c["collection"] == coll and c["id"] not in ex]
        top = sorted(ok, key=lambda i: -float(vecs[i] @ q))[:k]
        out.append([corpus[i] for i in top])
    return out


def overrefusal() -> dict[str, Any]:
    """How often a declining answer is wrongly called an over-refusal when the case carries no reference
    (no ``ground_truth``, no reference passages: the relevance path of ``answers.refusal``), on tasks whose
    documents do not hold the answer, built from MTRAG-UN answerability (fiqa, ibmcloud):

    * ``unanswerable_retrieved``: the 48 unanswerable turns (humans: the corpus does not answer them; they
      come with no documents) with the 3 passages of their collection closest to the question;
    * ``answerable_retrieved_elsewhere``: the 132 answerable turns with the 3 closest passages of their
      collection other than their own reference passages and those of their own conversation (hard: on
      the topic, not the answer — a passage could still hold it, so this is an upper bound);
    * ``answerable_other_conversation``: the 132 answerable turns with the documents of another
      conversation of the same collection (seed 7);
    * the control: the answerable turns with their own documents (over-refusals called there are right).

    Every answer is the declining "I'm sorry, but I do not have that information.", and, on the
    unanswerable turns, also the human reference (which declines)."""
    import random

    from evaluators import evaluate_batch

    rows = _rows("answers/mtragun_answerability_dev.jsonl")
    if not rows:
        return {"skipped": "answers/mtragun_answerability_dev.jsonl absent"}
    corpus_ids_by_conv: dict[str, set[str]] = defaultdict(set)
    for r in rows:
        corpus_ids_by_conv[_conversation(r["id"])].update(r.get("document_ids") or [])
    una = [r for r in rows if r["labels"]["answerability"] == "UNANSWERABLE"]
    ans = [r for r in rows if r["labels"]["answerability"] == "ANSWERABLE"]

    def run(rs: list[dict[str, Any]], docs: list[list[str]], responses: list[str] | None = None) -> dict[str, Any]:
        cases = [{"id": r["id"], "question": r["question"], "history": r.get("history") or [], "documents": d,
                  "response": DECLINING_ANSWER if responses is None else responses[i]}
                 for i, (r, d) in enumerate(zip(rs, docs))]
        res = evaluate_batch(cases, "trace")
        by_coll: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for r, x in zip(rs, res.results):
            if x.value("declined") == 1.0:
                by_coll[r["meta"]["collection"]][0] += int(x.value("over_refusal") == 1.0)
                by_coll[r["meta"]["collection"]][1] += 1
        declined = [x for x in res.results if x.value("declined") == 1.0]
        over = sum(1 for x in declined if x.value("over_refusal") == 1.0)
        cosines[len(cosines)] = [(r["meta"]["collection"], x.metrics["over_refusal"].details.get("closest_cosine"))
                                 for r, x in zip(rs, res.results) if x.value("declined") == 1.0]
        return {"tasks": len(cases), "declined": len(declined), "called_over_refusal": wilson(over, len(declined)),
                "by_collection": {k: wilson(*v) for k, v in sorted(by_coll.items())},
                "relevant_sentences_median": float(np.median([len(x.labels.relevant_keys) for x in declined
                                                               if x.labels is not None] or [0]))}

    cosines: dict[int, list[tuple[str, float | None]]] = {}
    out: dict[str, Any] = {"file": "answers/mtragun_answerability_dev.jsonl",
                           "answer": DECLINING_ANSWER, "reference": "none (no ground_truth, no reference passages)",
                           "rule": "over-refusal when the document sentence closest to the question has MiniLM "
                                   "cosine >= answers.refusal.CLOSE_TO_QUESTION"}
    got = _retrieved([r["question"] for r in una], [r["meta"]["collection"] for r in una], [set() for _ in una])
    docs = [[p["text"] for p in ps] for ps in got]
    out["unanswerable_retrieved"] = run(una, docs)
    out["unanswerable_retrieved_human_refusal"] = run(una, docs, [r["response"] for r in una])
    got = _retrieved([r["question"] for r in ans], [r["meta"]["collection"] for r in ans],
                     [corpus_ids_by_conv[_conversation(r["id"])] for r in ans])
    out["answerable_retrieved_elsewhere"] = run(ans, [[p["text"] for p in ps] for ps in got])
    rng = random.Random(7)
    others = []
    for r in ans:
        pool = [o for o in ans if o["meta"]["collection"] == r["meta"]["collection"]
                and _conversation(o["id"]) != _conversation(r["id"])
                and not set(o.get("document_ids") or []) & set(r.get("document_ids") or [])]
        others.append(rng.choice(pool)["documents"])
    out["answerable_other_conversation"] = run(ans, others)
    out["control_answerable_own_documents"] = run(ans, [r["documents"] for r in ans])
    out["threshold_leave_one_collection_out"] = _threshold_lodo(cosines)
    return out


def _threshold_lodo(cosines: dict[int, list[tuple[str, float | None]]]) -> dict[str, Any]:
    """The cosine threshold fitted on one collection (best balanced accuracy: the control's over-refusals
    against the mean false over-refusal rate of the three sets without the answer) and applied to the
    other. ``cosines``: per set in the order run (0 unanswerable retrieved, 1 the same with the human
    refusal, 2 answerable retrieved elsewhere, 3 another conversation's documents, 4 the control)."""
    negatives = {"unanswerable_retrieved": 0, "answerable_retrieved_elsewhere": 2, "answerable_other_conversation": 3}
    grid = np.round(np.arange(0.30, 0.901, 0.005), 3)

    def of(k: int, coll: str) -> np.ndarray:
        return np.array([c for col, c in cosines[k] if col == coll and c is not None], float)

    def balanced(t: float, coll: str) -> float:
        tpr = float(np.mean(of(4, coll) >= t))
        fpr = float(np.mean([np.mean(of(k, coll) >= t) for k in negatives.values() if len(of(k, coll))]))
        return (tpr + 1 - fpr) / 2

    colls = sorted({c for v in cosines.values() for c, _ in v})
    from evaluators.answers.refusal import CLOSE_TO_QUESTION

    out: dict[str, Any] = {"shipped": CLOSE_TO_QUESTION}
    for held in colls:
        fit_on = [c for c in colls if c != held]
        t = float(max(grid, key=lambda t: float(np.mean([balanced(t, c) for c in fit_on]))))
        ctl = of(4, held)
        out[held] = {"threshold_fitted_on": fit_on, "threshold": t,
                     "control_called_over_refusal": wilson(int(np.sum(ctl >= t)), len(ctl)),
                     **{name: wilson(int(np.sum(of(k, held) >= t)), len(of(k, held))) for name, k in negatives.items()}}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=("correctness", "declined", "overrefusal", "speed"), required=True)
    ap.add_argument("--correctness", default="auto", choices=("auto", "off", "offline"))
    ap.add_argument("--write", metavar="NAME", help="write bench/results/NAME.json")
    args = ap.parse_args(argv)
    if args.part == "correctness":
        out = correctness()
    elif args.part == "declined":
        out = declined()
    elif args.part == "overrefusal":
        out = overrefusal()
    else:
        out = speed(args.correctness)
    record = {**stamp(), "part": args.part, **out}
    print(json.dumps(record, indent=1, ensure_ascii=False))
    if args.write:
        print(write_result(args.write, record), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

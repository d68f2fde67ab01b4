"""Issue 55, the long page: are the supporting keys ``trace`` names the same when the evidence sits
in one long web page instead of a few short passages?

    .venv/bin/python -m bench.support_pages                       # 150-sentence pages, all 7 subsets
    .venv/bin/python -m bench.support_pages --page 300 --domains hotpotqa --write support_pages_300

The held-out set the issue checks on is claims against the web pages they cite: one document of a
hundred sentences and more, where RAGBench gives a few passages of 10–40 sentences in all. A selector
fitted on RAGBench must not learn "long context → name fewer keys", nor read its cosines against a
background it never saw. So each RAGBench case is rebuilt as ONE page: its own passages, in their
order, set at seeded random places among passages of other questions of the same subset (never the
same question's, nor a passage holding a sentence of its own — manuals repeat themselves — so no
distractor carries the annotated evidence again) until the page holds ``--page`` sentences; the
annotator's keys are re-keyed to the page (``0a`` … ``0ez``). Then the same figures as
``bench/support_keys.py`` (recall / precision of the named keys over the sentences the annotator calls
supported, the naive closest sentence beside them), for the page and for the case as RAGBench gives it.

What it shows and what it does not: that the selection does not depend on the page's length or on
off-topic text around the evidence; not how a real page's own near-miss sentences (same topic, not
the evidence) are told apart — that needs human-marked pages, which we do not have.
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

from bench import machine
from bench.lodo_data import RAGBENCH_DOMAINS, LabeledCase, available
from bench.lodo_harness import prepare
from bench.results_file import finish
from bench.support_keys import key_figures, labeler
from evaluators.labelers.heuristic import HeuristicMethod
from evaluators.options import EvalOptions
from evaluators.sentencize import letters
from evaluators.types import Sentence, SentencizedCase


def _passages(c: LabeledCase) -> list[list[Sentence]]:
    out: dict[int, list[Sentence]] = {}
    for s in c.item.doc_sentences:
        out.setdefault(int(s.doc or 0), []).append(s)
    return [out[d] for d in sorted(out)]


def one_page(c: LabeledCase, pool: list[tuple[str, list[Sentence]]], size: int, rng: random.Random
             ) -> LabeledCase:
    """``c`` with its passages set among others' into one document of about ``size`` sentences."""
    own = _passages(c)
    said = {" ".join(s.text.lower().split()) for p in own for s in p}
    n = sum(len(p) for p in own)
    others: list[list[Sentence]] = []
    for group, p in rng.sample(pool, len(pool)):
        if n >= size:
            break
        if group != c.group and not any(" ".join(s.text.lower().split()) in said for s in p):
            others.append(p)
            n += len(p)
    blocks: list[tuple[bool, list[Sentence]]] = [(False, p) for p in others]
    at = sorted(rng.randint(0, len(others)) for _ in own)
    for k, (pos, p) in enumerate(zip(at, own)):
        blocks.insert(pos + k, (True, p))
    sents: list[Sentence] = []
    remap: dict[str, str] = {}
    text = ""
    for is_own, p in blocks:
        for s in p:
            key = f"0{letters(len(sents))}"
            if is_own:
                remap[s.key] = key
            start = len(text) + (1 if text else 0)
            text = f"{text} {s.text}" if text else s.text
            sents.append(Sentence(key=key, text=s.text, start=start, end=len(text), doc=0))
    case = c.item.case.model_copy(update={"documents": (text,)})
    item = SentencizedCase(case=case, doc_sentences=tuple(sents), response_sentences=c.item.response_sentences)

    def keys(ks):
        return None if ks is None else tuple(remap[k] for k in ks if k in remap)

    return LabeledCase(domain=c.domain, group=c.group, item=item, hallucinated=c.hallucinated,
                       supported=c.supported, relevant={remap[k] for k in c.relevant or () if k in remap},
                       utilized={remap[k] for k in c.utilized or () if k in remap}, scores=c.scores,
                       support_keys=[keys(ks) for ks in c.support_keys] if c.support_keys else None)


def pages(cases: list[LabeledCase], size: int, seed: int) -> list[LabeledCase]:
    rng = random.Random(seed)
    pool = [(c.group, p) for c in cases for p in _passages(c)]
    return [one_page(c, pool, size, rng) for c in cases]


def featurized_pages(cases: list[LabeledCase], size: int, seed: int = 7) -> tuple[list[LabeledCase], list[Any]]:
    """``cases`` as pages (:func:`pages`) with the labeler's prepared features."""
    paged = pages(cases, size, seed)
    _, prepared = HeuristicMethod().featurize([c.item for c in paged], EvalOptions())
    bad = [(c.item.case.id, p) for c, p in zip(paged, prepared) if isinstance(p, Exception)]
    if bad:
        raise RuntimeError(f"featurize failed for page {bad[0][0]}: {bad[0][1]!r}")
    return paged, prepared


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--domains", default=",".join(RAGBENCH_DOMAINS))
    ap.add_argument("--page", type=int, default=150, help="sentences per page (default 150)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--limit", type=int, default=None, help="at most this many cases per subset")
    ap.add_argument("--write", default=None, help="bench/results/<NAME>.json")
    args = ap.parse_args(argv)
    if not available():
        print("skipped: ../shared/data is absent")
        return 0
    domains = [d.strip() for d in args.domains.split(",")]
    data = prepare(domains, "ragbench")
    run = labeler("shipped")
    t0 = time.perf_counter()
    record: dict[str, Any] = {**machine.stamp(), "page_sentences": args.page, "seed": args.seed, "domains": {}}
    for d, (cases, prepared) in data.items():
        cases, prepared = cases[:args.limit], prepared[:args.limit]
        paged, pprep = featurized_pages(cases, args.page, args.seed)
        row = {}
        for name, cs, pr in (("passages", cases, prepared), ("page", paged, pprep)):
            f = key_figures(cs, pr, run(d, cs, pr))["supported"]
            row[name] = f
            t, nv = f["trace"], f["naive"]
            print(f"{d:11s} {name:8s} n={f['sentences']:5d}  trace R {t['recall']:.3f} P {t['precision']:.3f} "
                  f"k {t['keys_named_mean']:.2f} | naive R {nv['recall']:.3f} P {nv['precision']:.3f}", flush=True)
        record["domains"][d] = row
    for name in ("passages", "page"):
        rows = [r[name]["trace"] for r in record["domains"].values()]
        record.setdefault("macro", {})[name] = {m: sum(r[m] for r in rows) / len(rows)
                                                for m in ("recall", "precision", "whole_set_named")}
        print(f"macro {name}: R {record['macro'][name]['recall']:.3f} P {record['macro'][name]['precision']:.3f}")
    return finish(record, t0, args.write)


if __name__ == "__main__":
    raise SystemExit(main())

"""Issue 55, the long page: are the supporting keys ``trace`` names the same when the evidence sits
in one long web page instead of a few short passages?

    .venv/bin/python -m bench.support_pages                       # 150-sentence pages, all 7 subsets
    .venv/bin/python -m bench.support_pages --page 300 --domains hotpotqa --write support_pages_300

The held-out set the issue checks on is claims against the web pages they cite: one document of a
hundred sentences and more, where RAGBench gives a few passages of 10–40 sentences in all. A selector
fitted on RAGBench must not learn "long context → name fewer keys", nor read its cosines against a
background it never saw. So each RAGBench case is rebuilt as ONE page (``bench/lodo_pages.py``: its
own passages among other questions' passages of the subset until the page holds ``--page`` sentences,
the annotator's keys re-keyed to the page). Then the same figures as
``bench/support_keys.py`` (recall / precision of the named keys over the sentences the annotator calls
supported, the naive closest sentence beside them), for the page and for the case as RAGBench gives it.

What it shows and what it does not: that the selection does not depend on the page's length or on
off-topic text around the evidence; not how a real page's own near-miss sentences (same topic, not
the evidence) are told apart — that needs human-marked pages, which we do not have.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from bench import machine
from bench.lodo_data import RAGBENCH_DOMAINS, available
from bench.lodo_harness import prepare
from bench.lodo_pages import featurized_pages
from bench.results_file import finish
from bench.support_keys import key_figures, labeler


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

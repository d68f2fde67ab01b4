"""Does ``compare`` tell which system is better the way people do? Six generator models of RAGTruth
(Summary and Data2txt, 150 sources each) are six systems; their results files are compared with
``evaluators.comparison.compare_runs`` and set against the human hallucination labels.

    .venv/bin/python -m bench.compare_systems_eval          # step 1: the 12 results files (~3 min)
    .venv/bin/python -m bench.compare_systems [--out bench/results/compare_systems.json]

Per task and headline metric:

* **ranking** — Spearman between the leaderboard's means and the human rate of responses without a
  hallucination (goal >= 0.9);
* **pairwise verdicts** — for the 15 pairs, ours (the one paired test of docs/compare.md, Holm over the
  15) against the humans' (exact McNemar test on the binary labels of the same sources, Holm over the 15): how
  many agree (goal >= 13 of 15) and how many point the opposite way (goal 0);
* **regressions** — the top-10 regressions of every ordered pair (30: each pair's regressions and,
  reversed, its improvements): the share humans confirm (the baseline's response has no hallucination,
  the candidate's has one) against the base rate of such cases among all paired ones (goal >= 2x);
* **the engine alone** — the same comparison run on the human labels themselves (metric
  ``human_ok`` = 1 − hallucinated): what the statistics give when the scores are right;
* **speed** — the six results files read and compared (every metric, regressions with their
  sentences), in this process after a warm-up, median of 5 (goal <= 2 s), with the CPU and load.
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
from bench.compare_systems_eval import OUT, TASKS
from evaluators.comparison import compare_runs, holm, paired_rows, table_from_run
from evaluators.resultfiles import read_run

ROOT = Path(__file__).resolve().parents[1]
METRICS = ("expected_adherence", "adherence", "overall_supported")
HUMAN = "human_ok"


def load(task: str) -> tuple[list[Path], list[Any]]:
    files = sorted((OUT / task).glob("*.json"))
    return files, [read_run(f) for f in files]


def human_verdicts(flags: list[tuple[np.ndarray, np.ndarray]]) -> tuple[list[str], list[str]]:
    """Per pair (a's flags, b's flags; 1 = hallucinated, same sources in the same order): the exact
    McNemar test (a binomial test on the discordant sources), verdicts after Holm over the pairs and
    without it."""
    from scipy.stats import binomtest

    ps, signs = [], []
    for fa, fb in flags:
        a_only, b_only = int(((fa == 1) & (fb == 0)).sum()), int(((fa == 0) & (fb == 1)).sum())
        ps.append(binomtest(b_only, a_only + b_only, 0.5).pvalue if a_only + b_only else 1.0)
        signs.append(np.sign(a_only - b_only))  # a hallucinates on more sources: b is better

    def words(p: float | None, s: float) -> str:
        return "no_difference" if p is None or p >= 0.05 else ("b_better" if s > 0 else "a_better")

    return [words(p, s) for p, s in zip(holm(ps), signs)], [words(p, s) for p, s in zip(ps, signs)]


def task_report(task: str, metric: str, runs: list[Any], names: list[str]) -> dict[str, Any]:
    from scipy.stats import spearmanr

    tables = [table_from_run(r, n) for r, n in zip(runs, names)]
    for t, r in zip(tables, runs):
        t.values[HUMAN] = np.array([0.0 if c.case.labels.get("hallucinated") else 1.0 for c in r.results])
    c = compare_runs(tables, [metric, HUMAN])
    index_pairs = [(i, j) for i in range(len(names)) for j in range(i + 1, len(names))]
    human_rate = [1.0 - float(t.values[HUMAN].mean()) for t in tables]
    ours_mean = [s.mean for s in c.standings[metric]]
    rho = float(spearmanr(ours_mean, [-h for h in human_rate])[0])
    flags_pairs = []  # the hallucination flags of each pair, on the sources the comparison paired
    for i, j in index_pairs:
        pr = paired_rows(c.matching, i, j)
        flags_pairs.append((1 - tables[i].values[HUMAN][pr.rows_a], 1 - tables[j].values[HUMAN][pr.rows_b]))
    human, human_raw = human_verdicts(flags_pairs)
    verdicts_o = [p.verdict for p in c.pairs[metric]]
    verdicts_engine = [p.verdict for p in c.pairs[HUMAN]]
    agree = sum(o == h for o, h in zip(verdicts_o, human))
    opposite = sum({o, h} == {"a_better", "b_better"} for o, h in zip(verdicts_o, human))

    # regressions: every ordered pair; a case is confirmed when the baseline is clean and the candidate is not
    hits = listed = confirmed = paired_total = 0
    for k, p in enumerate(c.pairs[metric]):
        i, j = index_pairs[k]
        fa, fb = flags_pairs[k]
        confirmed += int(((fa == 0) & (fb == 1)).sum()) + int(((fb == 0) & (fa == 1)).sum())
        paired_total += 2 * len(fa)
        flag_a = dict(zip(tables[i].ids, 1 - tables[i].values[HUMAN]))
        flag_b = dict(zip(tables[j].ids, 1 - tables[j].values[HUMAN]))
        for r in p.regressions:  # b worse than a
            listed += 1
            hits += int(flag_a[r.a_id] == 0 and flag_b[r.b_id] == 1)
        for r in p.improvements:  # a worse than b: the regressions of a against b
            listed += 1
            hits += int(flag_b[r.b_id] == 0 and flag_a[r.a_id] == 1)
    base = confirmed / paired_total if paired_total else None
    top_rate = hits / listed if listed else None
    return {
        "task": task, "metric": metric, "runs": names, "matched_on": c.matched_on, "n_common": c.n_common,
        "human_hallucination_rate": dict(zip(names, human_rate)), "means": dict(zip(names, ours_mean)),
        "spearman": rho,
        "pairs": [{"a": p.a, "b": p.b, "ours": o, "humans": h, "humans_uncorrected": hr, "engine_on_human_labels": e,
                   "diff": p.stats.diff, "ci_low": p.stats.ci_low, "ci_high": p.stats.ci_high,
                   "p_adjusted": p.p_adjusted}
                  for p, o, h, hr, e in zip(c.pairs[metric], verdicts_o, human, human_raw, verdicts_engine)],
        "verdicts_agree": agree, "verdicts_opposite": opposite, "n_pairs": len(index_pairs),
        "engine_on_human_labels": {
            "agree": sum(e == h for e, h in zip(verdicts_engine, human)),
            "opposite": sum({e, h} == {"a_better", "b_better"} for e, h in zip(verdicts_engine, human)),
            "spearman": float(spearmanr([s.mean for s in c.standings[HUMAN]], [-h for h in human_rate])[0])},
        "regressions": {"listed": listed, "confirmed": hits, "top_rate": top_rate, "base_rate": base,
                        "ratio": (top_rate / base) if top_rate is not None and base else None},
    }


def timing(files: list[Path], repeat: int = 5) -> dict[str, Any]:
    compare_runs(files)  # warm-up: imports, scipy
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        compare_runs(files)
        times.append(time.perf_counter() - t0)
    return {"runs": len(files), "cases_per_run": len(read_run(files[0]).results),
            "median_s": statistics.median(times), "min_s": min(times), "max_s": max(times), "repeat": repeat,
            "loadavg": os.getloadavg()[0], "cpu": machine.cpu(), "cores": os.cpu_count()}


def big(n: int, seed: int = 0) -> dict[str, Any]:
    """Two synthetic runs of ``n`` cases (7 metrics each) compared by the engine alone: time and the
    process's peak RSS (the tables, not the runs, are what the engine holds)."""
    import resource

    from evaluators.comparison import TableBuilder, compare_tables

    rng = np.random.default_rng(seed)
    metrics = ("context_relevance", "context_utilization", "completeness", "adherence", "expected_adherence",
               "overall_supported", "average")
    tables = []
    for name, shift in (("a", 0.0), ("b", -0.01)):
        b = TableBuilder(name, "trace")
        vals = np.clip(rng.uniform(0.3, 1.0, (n, len(metrics))) + shift, 0, 1)
        for i in range(n):
            b.add(f"case-{i}", f"Question number {i}?", [f"document {i}"], dict(zip(metrics, vals[i])))
        tables.append(b.build())
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    t0 = time.perf_counter()
    c = compare_tables(tables)
    dt = time.perf_counter() - t0
    rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"cases_per_run": n, "compare_s": dt, "peak_rss_mb_before": rss0, "peak_rss_mb_after": rss1,
            "interval_method": c.pair("a", "b").stats.method, "loadavg": os.getloadavg()[0], "cpu": machine.cpu()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None, help="write the figures as JSON here")
    ap.add_argument("--metrics", default=",".join(METRICS))
    ap.add_argument("--big", type=int, default=0, metavar="N",
                    help="also compare two synthetic N-case tables (engine time, peak RSS)")
    args = ap.parse_args(argv)
    reports, speed = [], None
    for task in TASKS:
        files, runs = load(task)
        if len(files) < 2:
            print(f"skip {task}: run `python -m bench.compare_systems_eval` first (needs ../shared/data)")
            continue
        names = [f.stem for f in files]
        for metric in [m for m in args.metrics.split(",") if m]:
            r = task_report(task, metric, runs, names)
            reports.append(r)
            g = r["regressions"]
            print(f"{task:9} {metric:19} spearman {r['spearman']:+.3f} · verdicts agree {r['verdicts_agree']}/15, "
                  f"opposite {r['verdicts_opposite']} · top-10 regressions confirmed {g['top_rate']:.3f} vs base "
                  f"{g['base_rate']:.3f} (x{g['ratio']:.2f}) · engine on human labels: "
                  f"{r['engine_on_human_labels']['agree']}/15, opposite {r['engine_on_human_labels']['opposite']}")
        if speed is None:
            speed = timing(files)
            print(f"speed: {speed['runs']} runs of {speed['cases_per_run']} cases read and compared in "
                  f"{speed['median_s']:.2f} s (median of {speed['repeat']}; {speed['cpu']}, "
                  f"load {speed['loadavg']:.2f})")
    big_run = None
    if args.big:
        big_run = big(args.big)
        print(f"engine: two runs of {args.big:,} cases compared in {big_run['compare_s']:.2f} s "
              f"({big_run['interval_method']}); peak RSS {big_run['peak_rss_mb_after']:.0f} MB "
              f"(before: {big_run['peak_rss_mb_before']:.0f} MB)")
    if args.out:
        Path(args.out).write_text(json.dumps({"reports": reports, "speed": speed, "big": big_run}, indent=1) + "\n")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

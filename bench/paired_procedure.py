"""Compare's one paired procedure (issue 57 item 1) against the pair it replaced, by simulation.

    .venv/bin/python -m bench.paired_procedure [--reps 2000] [--write paired_procedure]

* **null** — both versions alike (each question's pair exchangeable: a change as likely up as down),
  n = 10, 16, 30, 100, four kinds of metric: a skewed score (Beta(5, 1), 60 % of questions change),
  a share of 1–4 sentences (40 % change: many ties, many unchanged), a 0/1 metric (80 % yes, 30 %
  redrawn) and a score that rarely changes (10 %). The share of false verdicts of the procedure
  (``evaluators.comparison.signflip.paired_tests``) and of the old one (percentile bootstrap of 2,000
  resamples + paired t-test, a verdict only when both agreed), and how often the old one contradicted
  itself (interval and p on different sides).
* **a skewed null** the sign-flip test does not assume away: differences of +0.1 (90 %) and −0.9
  (10 %), mean 0 but not symmetric — the limit of any paired test at small n, said as measured.
* **coverage** of the true mean difference at a shift (the same four kinds).
* **power at the sample pair's effect sizes** — ``data/sample_rag.jsonl`` against
  ``data/sample_rag_version2.jsonl`` (evaluated with ``trace``) and the sample app's v1 against v2 on
  its 16 questions (with the retrieval metrics): the paired rows resampled to n = 10, 16, 30, 100,
  the share of "worse" verdicts, new and old.
* **stability** of the random-sign path: the verdict under 10 seeds against seed 0.
* ``--resolution-only``: the two score kinds again with changes under the resolution (0.01) tested as
  none, as Compare does since the walk found "worse, p < 0.001" resting on 0.007 shifts: false
  verdicts, verdict / interval contradictions, coverage of the raw difference, power.

The CPU and load averages open the result (``bench/results/<name>.json``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

from bench import machine
from bench.results_file import write_result
from evaluators.comparison.signflip import DRAWS, paired_tests

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
ALPHA = 0.05
SIZES = (10, 16, 30, 100)


# ------------------------------------------------------------------ generators: (a, b) of n questions
def skewed_score(rng: np.random.Generator, n: int, shift: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    a = rng.beta(5, 1, n)
    changed = rng.random(n) < 0.6
    return a, np.where(changed, np.clip(rng.beta(5, 1, n) + shift, 0, 1), a)


def tied_share(rng: np.random.Generator, n: int, shift: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    k = rng.integers(1, 5, n)
    a = np.round(rng.binomial(k, 0.8) / k, 4)
    changed = rng.random(n) < 0.4
    return a, np.where(changed, np.round(rng.binomial(k, np.clip(0.8 + shift, 0, 1)) / k, 4), a)


def zero_one(rng: np.random.Generator, n: int, shift: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    a = (rng.random(n) < 0.8).astype(float)
    changed = rng.random(n) < 0.3
    return a, np.where(changed, (rng.random(n) < 0.8 + shift).astype(float), a)


def rare_change(rng: np.random.Generator, n: int, shift: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    a = rng.beta(5, 1, n)
    changed = rng.random(n) < 0.1
    return a, np.where(changed, np.clip(rng.beta(5, 1, n) + shift, 0, 1), a)


KINDS: dict[str, Callable[..., tuple[np.ndarray, np.ndarray]]] = {
    "skewed score (Beta(5,1), 60 % change)": skewed_score,
    "share of 1-4 sentences (40 % change)": tied_share,
    "0/1 metric (80 % yes, 30 % redrawn)": zero_one,
    "score that rarely changes (10 %)": rare_change,
}


def samples(gen: Callable, n: int, reps: int, seed: int, shift: float = 0.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.array([np.subtract(*gen(rng, n, shift)[::-1]) for _ in range(reps)]).T  # n × reps of B − A


def truth(gen: Callable, shift: float) -> float:
    if shift == 0.0:
        return 0.0
    a, b = gen(np.random.default_rng(99), 2_000_000, shift)
    return float((b - a).mean())


# ------------------------------------------------------------------ the two procedures, many samples at once
def new(d: np.ndarray, seed: int = 0) -> dict[str, np.ndarray]:
    tests = paired_tests(d, alpha=ALPHA, draws=DRAWS, seed=seed, spans=[1.0] * d.shape[1])
    p = np.array([t.p_value if t is not None else 1.0 for t in tests])
    lo = np.array([t.bounds[1][0] if t is not None and t.bounds[1][0] is not None else -np.inf for t in tests])
    hi = np.array([t.bounds[1][1] if t is not None and t.bounds[1][1] is not None else np.inf for t in tests])
    mean = d.mean(axis=0)
    lo, hi = np.minimum(lo, mean), np.maximum(hi, mean)  # as paired.py: the estimate inside
    return {"verdict": p <= ALPHA, "excludes0": (lo > 0) | (hi < 0), "lo": lo, "hi": hi, "p": p}


def old(d: np.ndarray, n_boot: int = 2000, seed: int = 0) -> dict[str, np.ndarray]:
    """The procedure before: percentile bootstrap (2,000 resamples, seed 0) and the paired t-test; a
    verdict only when the interval excluded 0 and p < 0.05."""
    from scipy.stats import ttest_1samp

    n, reps = d.shape
    sd = d.std(axis=0, ddof=1)
    with np.errstate(all="ignore"):
        p = np.where(sd == 0, np.where(d.mean(axis=0) == 0, 1.0, 0.0), ttest_1samp(d, 0.0, axis=0).pvalue)
    idx = np.random.default_rng(seed).integers(0, n, (n_boot, n))
    lo, hi = np.empty(reps), np.empty(reps)
    step = max(1, 20_000_000 // (n_boot * n))
    for s in range(0, reps, step):
        means = d[idx, s:s + step].mean(axis=1)  # n_boot × columns
        lo[s:s + step], hi[s:s + step] = np.quantile(means, [0.025, 0.975], axis=0)
    mean = d.mean(axis=0)
    lo, hi = np.minimum(lo, mean), np.maximum(hi, mean)
    excl = (lo > 0) | (hi < 0)
    return {"verdict": excl & (p < ALPHA), "excludes0": excl, "p": p, "lo": lo, "hi": hi,
            "contradiction": excl != (p < ALPHA)}


def rate(x: np.ndarray) -> float:
    return round(float(np.mean(x)), 4)


# ------------------------------------------------------------------ the sections
def null_rates(reps: int) -> list[dict[str, Any]]:
    rows = []
    for k, (name, gen) in enumerate(KINDS.items()):
        for n in SIZES:
            d = samples(gen, n, reps, seed=1000 * k + n)
            t = time.perf_counter()
            a = new(d)
            secs = time.perf_counter() - t
            b = old(d)
            rows.append({"kind": name, "n": n, "reps": reps, "new_false_verdicts": rate(a["verdict"]),
                         "new_disagreements": int((a["verdict"] != a["excludes0"]).sum()),
                         "old_false_verdicts": rate(b["verdict"]), "old_t_test_alone": rate(b["p"] < ALPHA),
                         "old_contradictions": rate(b["contradiction"]),
                         "new_s_per_1000": round(secs / reps * 1000, 2)})
            print(json.dumps(rows[-1]), flush=True)
    return rows


def skewed_null(reps: int) -> list[dict[str, Any]]:
    rows = []
    for n in SIZES:
        rng = np.random.default_rng(7 + n)
        d = np.where(rng.random((n, reps)) < 0.9, 0.1, -0.9)
        a, b = new(d), old(d)
        rows.append({"n": n, "reps": reps, "new_false_verdicts": rate(a["verdict"]),
                     "old_false_verdicts": rate(b["verdict"]), "t_test_alone": rate(b["p"] < ALPHA)})
        print(json.dumps(rows[-1]), flush=True)
    return rows


def coverage(reps: int, shift: float = -0.2) -> list[dict[str, Any]]:
    rows = []
    for k, (name, gen) in enumerate(KINDS.items()):
        true = truth(gen, shift)
        for n in SIZES:
            d = samples(gen, n, reps, seed=5000 + 1000 * k + n, shift=shift)
            a, b = new(d), old(d)
            rows.append({"kind": name, "n": n, "shift": shift, "true_difference": round(true, 4),
                         "new_coverage": rate((a["lo"] <= true) & (true <= a["hi"])),
                         "old_coverage": rate((b["lo"] <= true) & (true <= b["hi"])),
                         "new_power": rate(a["verdict"]), "old_power": rate(b["verdict"]),
                         "new_median_width": round(float(np.median(np.minimum(a["hi"] - a["lo"], 2))), 3),
                         "old_median_width": round(float(np.median(b["hi"] - b["lo"])), 3)})
            print(json.dumps(rows[-1]), flush=True)
    return rows


SCORE_KINDS = ("skewed score (Beta(5,1), 60 % change)", "score that rarely changes (10 %)")


def at_resolution(d: np.ndarray, r: float) -> np.ndarray:
    """``d`` with every |change| ≤ ``r`` tested as none — what ``paired.paired_stats_many`` does for a
    score (resolution 0.01): the verdict rests on the questions the counts call higher or lower."""
    return np.where(np.abs(d) <= r * (1 - 1e-6), 0.0, d)


def resolution_rates(reps: int, r: float = 0.01, shift: float = -0.2) -> list[dict[str, Any]]:
    """The score kinds again, with changes under the resolution tested as none: false verdicts under
    the null, and coverage of the true mean difference (the raw one) and power at ``shift``."""
    rows = []
    for k, (name, gen) in enumerate(KINDS.items()):
        if name not in SCORE_KINDS:
            continue
        true = truth(gen, shift)
        for n in SIZES:
            null = new(at_resolution(samples(gen, n, reps, seed=1000 * k + n), r))
            d = samples(gen, n, max(500, reps // 2), seed=5000 + 1000 * k + n, shift=shift)
            a = new(at_resolution(d, r))
            lo, hi = np.minimum(a["lo"], d.mean(axis=0)), np.maximum(a["hi"], d.mean(axis=0))  # as paired.py
            rows.append({"kind": name, "n": n, "resolution": r, "false_verdicts": rate(null["verdict"]),
                         "contradictions": rate(null["verdict"] != null["excludes0"]),
                         "coverage": rate((lo <= true) & (true <= hi)), "power": rate(a["verdict"])})
            print(json.dumps(rows[-1]), flush=True)
    return rows


def stability(reps: int = 300, seeds: int = 10) -> list[dict[str, Any]]:
    rows = []
    for n in (30, 100):
        d = samples(skewed_score, n, reps, seed=77 + n, shift=-0.05)
        base = new(d, seed=0)["verdict"]
        flips = np.zeros(reps, dtype=bool)
        for s in range(1, seeds):
            flips |= new(d, seed=s)["verdict"] != base
        rows.append({"n": n, "reps": reps, "seeds": seeds, "verdict_changed_under_another_seed": rate(flips),
                     "verdicts": rate(base)})
        print(json.dumps(rows[-1]), flush=True)
    return rows


# ------------------------------------------------------------------ power at the sample pair's effects
def _evaluate(src: Path, out: Path) -> None:
    subprocess.run([PY, "-m", "evaluators", "evaluate", str(src), "--out", str(out), "--no-progress"], cwd=ROOT,
                   check=True, capture_output=True)


def _app_runs(tmp: Path) -> tuple[Path, Path]:
    """The sample app (both versions, loopback, any free port) asked the sample's 16 questions."""
    proc = subprocess.Popen([PY, "-m", "evaluators.sample_app", "--port", "0"], cwd=ROOT, stdout=subprocess.PIPE,
                            text=True)
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        base = "http://" + line.split("http://", 1)[1].split("/", 1)[0]
        outs = []
        for v in ("v1", "v2"):
            spec = (ROOT / "data" / "sample_targets" / f"{v}.yaml").read_text(encoding="utf-8")
            target = tmp / f"{v}.yaml"
            target.write_text(spec.replace("http://127.0.0.1:8765", base), encoding="utf-8")
            answers = tmp / f"app_{v}.jsonl"
            subprocess.run([PY, "-m", "evaluators", "run", str(ROOT / "data" / "sample_questions.jsonl"), "--target",
                            str(target), "--out", str(answers)], cwd=ROOT, check=True, capture_output=True)
            outs.append(tmp / f"app_{v}_results.json")
            _evaluate(answers, outs[-1])
        return outs[0], outs[1]
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _diffs(a: Path, b: Path, metrics: tuple[str, ...]) -> dict[str, np.ndarray]:
    ra = {c["id"]: c["metrics"] for c in json.loads(a.read_text())["detailed_results"]}
    rb = {c["id"]: c["metrics"] for c in json.loads(b.read_text())["detailed_results"]}
    out = {}
    for m in metrics:
        ids = [i for i in ra if i in rb and ra[i].get(m) is not None and rb[i].get(m) is not None]
        out[m] = np.array([rb[i][m] - ra[i][m] for i in ids])
    return out


def power(reps: int) -> dict[str, Any]:
    pairs = {}
    with tempfile.TemporaryDirectory(prefix="paired_") as tmp:
        t = Path(tmp)
        _evaluate(ROOT / "data" / "sample_rag.jsonl", t / "s1.json")
        _evaluate(ROOT / "data" / "sample_rag_version2.jsonl", t / "s2.json")
        pairs["data/sample_rag vs sample_rag_version2"] = _diffs(
            t / "s1.json", t / "s2.json", ("expected_adherence", "adherence", "overall_supported", "context_relevance",
                                           "completeness"))
        a, b = _app_runs(t)
        pairs["sample app v1 vs v2 (16 questions, 14 with references)"] = _diffs(
            a, b, ("expected_adherence", "adherence", "overall_supported", "hit@1", "map@3", "ndcg@5"))
    out: dict[str, Any] = {}
    for name, diffs in pairs.items():
        rows = []
        for m, d0 in diffs.items():
            row: dict[str, Any] = {"metric": m, "observed_n": len(d0), "changed": int((d0 != 0).sum()),
                                   "observed_difference": round(float(d0.mean()), 4)}
            for n in SIZES:
                rng = np.random.default_rng(n)
                d = d0[rng.integers(0, len(d0), (n, reps))]
                sign = np.sign(d0.mean())
                a, b = new(d), old(d)
                row[f"n{n}_new"] = rate(a["verdict"] & (np.sign(d.mean(axis=0)) == sign))
                row[f"n{n}_old"] = rate(b["verdict"] & (np.sign(d.mean(axis=0)) == sign))
            rows.append(row)
            print(name, json.dumps(row), flush=True)
        out[name] = rows
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=2000, help="simulated comparisons per cell")
    ap.add_argument("--write", default=None, metavar="NAME", help="write bench/results/NAME.json")
    ap.add_argument("--resolution-only", action="store_true",
                    help="only the score kinds with changes under the resolution tested as none")
    args = ap.parse_args()
    t0 = time.perf_counter()
    record: dict[str, Any] = {**machine.stamp(), "alpha": ALPHA, "draws": DRAWS}
    if args.resolution_only:
        record["resolution"] = resolution_rates(args.reps)
        record["seconds"] = round(time.perf_counter() - t0, 1)
        if args.write:
            print(f"wrote {write_result(args.write, record)}")
        return 0
    record["null"] = null_rates(args.reps)
    record["skewed_null"] = skewed_null(args.reps)
    record["coverage"] = coverage(max(500, args.reps // 2))
    record["power_at_the_sample_pairs_effects"] = power(max(500, args.reps // 2))
    record["stability"] = stability()
    record["seconds"] = round(time.perf_counter() - t0, 1)
    record["load_average_end"] = list(__import__("os").getloadavg())
    if args.write:
        print(f"wrote {write_result(args.write, record)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""LLM path benchmark against the loopback OpenAI-compatible server (no network, no key).

    .venv/bin/python bench/llm_bench.py [--cases 160] [--latency 0.2] [--rpm-cases 60]

Figures (each run uses a fresh temporary cache):
1. calls per case (must be 1) and cases/s at concurrency 16 with 200 ms server latency (goal >= 30);
2. achieved request rate with --rpm 120 (goal >= 95 % of the limit, never above), measured from the
   server's arrival timestamps, with the most requests seen in any sliding window;
3. requests on a rerun of the same cases (must be 0) and its cases/s.
The openai SDK (provider openai_compatible) is used, as users of Ollama / vLLM would.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evaluators import LLMSettings, TestCase, evaluate_batch  # noqa: E402
from evaluators.llm import close_clients  # noqa: E402
from evaluators.testing.llm_server import LLMServer, keyed_labels_responder  # noqa: E402


def make_cases(n: int, tag: str) -> list[TestCase]:
    return [
        TestCase(
            id=f"{tag}{i}",
            question=f"What does component {i} of the {tag} system do?",
            response=f"Component {i} stores the session state. It is restarted every night. "
                     f"It was written in {1990 + i % 30}.",
            documents=(
                f"Component {i} stores the session state of the {tag} system. It is restarted every "
                f"night by a cron job. Logs are kept for 30 days.",
                f"The {tag} system has {i + 3} components. Each component has an owner.",
            ),
        )
        for i in range(n)
    ]


def max_in_window(t: list[float], window: float) -> int:
    best = 0
    j = 0
    for i in range(len(t)):
        while t[i] - t[j] >= window:
            j += 1
        best = max(best, i - j + 1)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=160)
    ap.add_argument("--latency", type=float, default=0.2)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--rpm", type=int, default=120)
    ap.add_argument("--rpm-cases", type=int, default=60, help="cases for the rate test (~0.5 s each)")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp, LLMServer() as srv:
        srv.latency = args.latency
        srv.respond(keyed_labels_responder)
        base = dict(provider="openai_compatible", base_url=srv.base_url, model="bench-judge",
                    cache_path=str(Path(tmp) / "cache.sqlite3"))

        # warm-up (imports, sentence splitter, SDK) outside the timings
        evaluate_batch(make_cases(2, "warm"), "gpt_labeling", llm=LLMSettings(**base, concurrency=2))
        srv.requests.clear()

        # 1. throughput
        cases = make_cases(args.cases, "thr")
        s = LLMSettings(**base, concurrency=args.concurrency)
        t0 = time.perf_counter()
        run = evaluate_batch(cases, "gpt_labeling", llm=s)
        dt = time.perf_counter() - t0
        n_req = srv.count
        print(f"[1] {args.cases} cases, concurrency {args.concurrency}, server latency "
              f"{args.latency * 1000:.0f} ms")
        print(f"    scored: {len(run.scored)}/{args.cases}  errors: {len(run.errors)}")
        print(f"    calls per case: {n_req / args.cases:.3f}  (usage.calls={run.usage.calls})")
        print(f"    wall: {dt:.2f} s  -> {args.cases / dt:.1f} cases/s  "
              f"(ceiling {args.concurrency / args.latency:.0f} cases/s)")

        # 3. rerun from the cache
        srv.requests.clear()
        t0 = time.perf_counter()
        rerun = evaluate_batch(cases, "gpt_labeling", llm=s)
        dt_re = time.perf_counter() - t0
        print(f"[3] rerun: {srv.count} requests, cached_calls={rerun.usage.cached_calls}, "
              f"{args.cases / dt_re:.0f} cases/s")
        close_clients()

        # 2. rate limit
        srv.requests.clear()
        rcases = make_cases(args.rpm_cases, "rpm")
        s2 = LLMSettings(**base, concurrency=args.concurrency, rpm=args.rpm)
        t0 = time.perf_counter()
        run2 = evaluate_batch(rcases, "gpt_labeling", llm=s2)
        dt2 = time.perf_counter() - t0
        t = sorted(r.t_received for r in srv.requests)
        span = t[-1] - t[0]
        achieved = (len(t) - 1) / span * 60.0 if span > 0 else float("inf")
        print(f"[2] --rpm {args.rpm}: {len(t)} requests in {span:.1f} s (wall {dt2:.1f} s), "
              f"scored {len(run2.scored)}/{args.rpm_cases}")
        print(f"    achieved {achieved:.1f} req/min = {achieved / args.rpm * 100:.1f} % of the limit")
        per_s = args.rpm / 60.0
        for w in (5.0, 10.0, 20.0):
            if w <= span + 1:
                print(f"    most requests in any {w:.0f} s window: {max_in_window(t, w)} "
                      f"(limit {per_s * w:.0f})")
        gaps = [b - a for a, b in zip(t, t[1:])]
        print(f"    gaps between requests: min {min(gaps):.3f} s, mean {sum(gaps) / len(gaps):.3f} s "
              f"(limit spacing {60 / args.rpm:.3f} s)")
        close_clients()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Speed and memory of the offline ``trace`` method.

    .venv/bin/python bench/speed.py                 # generated QA set + every shared dev file
    .venv/bin/python bench/speed.py --only qa --n 1000

For each dataset (in its own subprocess, so peak RSS is per dataset):
* floor   = one bare batched ``embeddings.encode`` of every unique text (questions, document and
            response sentences) with an empty cache — the time no labeler can beat (after one
            warm-up pass, since oneDNN compiles kernels per input shape on first use);
* trace   = ``evaluators.evaluate_batch(cases, "trace")`` end to end (sentencizing, encoding,
            features, labels, metrics), the embedding cache emptied first;
* cases/s, ratio trace/floor, and peak RSS (``resource.getrusage(RUSAGE_SELF).ru_maxrss``).
The model is loaded before timing (its load time is printed separately).

The generated set is shaped like RAGTruth QA: ~167 source documents (3 passages of 5 sentences)
with six answers each (~5 sentences: copied, paraphrased and invented claims) ≈ 20 sentences per
case. Its text is composed here from templates and random fictional names — nothing downloaded.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

_SYL = ["ka", "lo", "mi", "ren", "dor", "va", "tis", "mar", "qu", "el", "an", "bri", "sol", "ny", "ther"]
_TOPICS = ["bridge", "library", "vaccine", "river", "festival", "satellite", "museum", "railway",
           "university", "reservoir", "observatory", "orchestra", "harbour", "vineyard", "mine"]
_DOC_T = [
    "The {topic} of {place} was founded in {year} by {person}.",
    "It is located {n} kilometres north of {city}, near the {river} river.",
    "In {year2}, the {topic} was expanded with funding of {money} million dollars.",
    "{person} served as its first director until {year3}.",
    "Today about {k} people visit the {topic} every year.",
    "Its main building was designed by the architect {person2}.",
    "The {topic} closed for renovation between {year2} and {year3}.",
    "Local officials say the {topic} employs {n2} staff members.",
    "A fire in {year3} destroyed part of the east wing, which was rebuilt later.",
    "The {topic} is managed by the {org} foundation.",
    "Critics have praised its collection of {thing}.",
    "Entry is free on the first Sunday of each month.",
    "The {topic} hosts an annual conference on {thing}.",
    "Its archive holds more than {k2} documents dating back to the {century}th century.",
    "Public transport connects the {topic} to {city} every {n3} minutes.",
]
_Q_T = ["When was the {topic} of {place} founded?", "Who designed the {topic} of {place}?",
        "How many people visit the {topic} of {place}?", "Where is the {topic} of {place} located?",
        "What happened to the {topic} of {place} in {year3}?", "Who manages the {topic} of {place}?"]
_INVENT = ["The {topic} was originally built as a military fortress in {bad_year}.",
           "It received a UNESCO award for sustainability in {bad_year}.",
           "{bad_person} was the chief engineer of the project.",
           "The {topic} is famous for its underground aquarium.",
           "Its budget was cut by {n} percent after protests."]
_GLUE = ["Based on the documents, here is what is known.", "In short, the answer is above.",
         "The documents do not mention the exact opening hours."]


def _name(rng: random.Random, parts: int = 2) -> str:
    return "".join(rng.choice(_SYL) for _ in range(parts)).capitalize()


def _fill(t: str, v: dict) -> str:
    return t.format(**v)


def make_qa_set(n_cases: int = 1000, answers_per_source: int = 6, seed: int = 7):
    from evaluators.types import TestCase

    rng = random.Random(seed)
    cases = []
    src = 0
    while len(cases) < n_cases:
        v = {
            "topic": rng.choice(_TOPICS), "place": _name(rng, 3), "city": _name(rng, 2),
            "river": _name(rng, 2), "person": f"{_name(rng)} {_name(rng, 3)}",
            "person2": f"{_name(rng)} {_name(rng, 3)}", "org": _name(rng, 3),
            "year": rng.randint(1700, 1950), "year2": rng.randint(1951, 1990),
            "year3": rng.randint(1991, 2020), "n": rng.randint(2, 90), "n2": rng.randint(10, 900),
            "n3": rng.choice([5, 10, 15, 20, 30]), "k": f"{rng.randint(10, 900)},000",
            "k2": f"{rng.randint(2, 90)},000", "money": rng.randint(2, 400),
            "thing": rng.choice(["medieval maps", "jazz recordings", "rare minerals", "folk art",
                                 "ship models", "botanical drawings"]),
            "century": rng.randint(12, 19), "bad_year": rng.randint(1500, 1690),
            "bad_person": f"{_name(rng)} {_name(rng, 3)}",
        }
        order = list(range(len(_DOC_T)))
        rng.shuffle(order)
        sents = [_fill(_DOC_T[i], v) for i in order]
        docs = tuple(" ".join(sents[i * 5:(i + 1) * 5]) for i in range(3))
        for a in range(answers_per_source):
            if len(cases) >= n_cases:
                break
            q = _fill(_Q_T[a % len(_Q_T)], v)
            picks = rng.sample(sents, 4)
            resp = []
            for s in picks:
                r = rng.random()
                if r < 0.55:
                    resp.append(s)
                elif r < 0.85:
                    resp.append("According to the sources, " + s[0].lower() + s[1:])
                else:
                    resp.append(_fill(rng.choice(_INVENT), v))
            resp.insert(rng.randint(0, len(resp)), rng.choice(_GLUE))
            cases.append(TestCase(id=f"qa-{src}-{a}", question=q, documents=docs, response=" ".join(resp),
                                  metadata={"source_id": f"qa-{src}"}))
        src += 1
    return cases


def _cases_for(name: str, n: int):
    if name == "qa":
        return make_qa_set(n)
    from bench.shared_data import load_shared

    cases = load_shared(name)
    return cases[:n] if n else cases


def run_one(name: str, n: int, repeat: int = 2) -> dict:
    from evaluators import embeddings, evaluate_batch
    from evaluators.sentencize import sentencize_case, split_spans

    cases = _cases_for(name, n)
    if not cases:
        return {"dataset": name, "skipped": "no data"}
    t = time.perf_counter()
    embeddings.get_model()
    load_s = time.perf_counter() - t
    # floor: every unique text the labeler embeds, one encode call, empty cache
    items = [sentencize_case(c) for c in cases]
    texts = list(dict.fromkeys(
        [it.case.question for it in items]
        + [s.text for it in items for s in it.doc_sentences + it.response_sentences]))
    n_sent = sum(len(it.doc_sentences) + len(it.response_sentences) for it in items)
    del items
    # oneDNN builds kernels per input shape on first use: a warm-up pass over the same texts, then
    # floor and trace alternate (--repeat times) and the best time of each counts.
    embeddings.encode(texts, use_cache=False)
    floor_s = trace_s = float("inf")
    run = None
    for _ in range(max(1, repeat)):
        embeddings.clear_cache()
        t = time.perf_counter()
        embeddings.encode(texts, use_cache=False)
        floor_s = min(floor_s, time.perf_counter() - t)
        embeddings.clear_cache()
        split_spans.cache_clear()
        t = time.perf_counter()
        run = evaluate_batch(cases, "trace")
        trace_s = min(trace_s, time.perf_counter() - t)
    errors = len(run.errors)
    return {
        "dataset": name, "cases": len(cases), "sentences": n_sent, "unique_texts": len(texts),
        "model_load_s": round(load_s, 2), "floor_s": round(floor_s, 2), "trace_s": round(trace_s, 2),
        "cases_per_s": round(len(cases) / trace_s, 1), "ratio_vs_floor": round(trace_s / floor_s, 2),
        "floor_texts_per_s": round(len(texts) / floor_s, 1), "errors": errors,
        "bf16": embeddings.using_bf16(),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", help="qa or a shared file name (runs in this process)")
    ap.add_argument("--n", type=int, default=0, help="cases (qa default 1000; files: all)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--repeat", type=int, default=2, help="alternating floor/trace runs; best counts")
    args = ap.parse_args()
    if args.only:
        res = run_one(args.only, args.n or (1000 if args.only == "qa" else 0), args.repeat)
        print(json.dumps(res))
        return 0
    from bench.shared_data import file_label, shared_files

    names = ["qa"] + [file_label(f) for f in shared_files()]
    rows = []
    for name in names:
        cmd = [sys.executable, __file__, "--only", name, "--repeat", str(args.repeat)]
        if args.n:
            cmd += ["--n", str(args.n)]
        out = subprocess.run(cmd, capture_output=True, text=True)
        if out.returncode != 0:
            print(f"{name}: failed\n{out.stderr[-2000:]}")
            continue
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
        r = rows[-1]
        if "skipped" in r:
            print(f"{name}: skipped ({r['skipped']})")
            continue
        print(f"{r['dataset']:18s} cases {r['cases']:5d}  sentences {r['sentences']:6d}  unique {r['unique_texts']:6d}  "
              f"trace {r['trace_s']:7.2f}s = {r['cases_per_s']:6.1f} cases/s  floor {r['floor_s']:6.2f}s "
              f"({r['floor_texts_per_s']:.0f} texts/s)  ratio {r['ratio_vs_floor']:.2f}x  "
              f"peak RSS {r['peak_rss_mb']:.0f} MB  bf16={r['bf16']}  errors={r['errors']}", flush=True)
        if r["errors"]:
            print(f"  WARNING: {r['errors']} cases failed — these figures are NOT valid", flush=True)
    if args.json:
        print(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

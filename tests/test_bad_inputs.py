"""Issue 18, bad input: every file in tests/bad_inputs gets its expected clear error (naming file,
row, column) or its expected cases, through the library loader, the CLI (a representative subset,
in-process; the issue's two files also as a subprocess) and the dashboard's loader. Valid rows
still score with trace. Big inputs (50 MB, 10,000 rows, a 1,000,001-character cell) are generated
here at run time, never committed.

The expected outcomes live in tests/bad_inputs/expected.json (one entry per file, with why)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from evaluators.cli import main
from evaluators.datasets import DatasetError, load_cases, read_table
from evaluators.datasets.validate import MAX_TEXT_CHARS

ROOT = Path(__file__).resolve().parents[1]
BAD = ROOT / "tests" / "bad_inputs"
MANIFEST: dict[str, dict] = json.loads((BAD / "expected.json").read_text(encoding="utf-8"))["files"]
CLI_FILES = sorted(n for n, e in MANIFEST.items() if e.get("cli"))
KEY_VARS = ("GROQ_API_KEY", "OPENAI_API_KEY", "OPENAI_COMPATIBLE_API_KEY")


@pytest.fixture(scope="module")
def trace():
    pytest.importorskip("evaluators.labelers.heuristic")
    from evaluators.pipeline import evaluate_batch

    def score(cases):
        run = evaluate_batch(cases, "trace")
        assert len(run.results) == len(cases)
        for r in run.results:
            assert r.error is None, (r.case.id, r.error)
            assert 0.0 <= r.scores.adherence <= 1.0
        return run

    return score


def check_error(err: DatasetError, name: str, row, column, fragment: str) -> None:
    assert err.file == name
    assert str(err).startswith(name), str(err)
    assert (err.row, err.column) == (row, column), str(err)
    assert fragment in err.message, err.message
    if row is not None:
        assert f"row {row}" in str(err)
    if column is not None:
        assert f"column {column!r}" in str(err)
    json.dumps(err.to_dict())


def check_problems(got: list[DatasetError], want: list, name: str) -> None:
    assert len(got) == len(want), [str(e) for e in got]
    for err, (row, column, fragment) in zip(got, want):
        check_error(err, name, row, column, fragment)


# --- the folder and its manifest --------------------------------------------------------------------

def test_every_file_has_an_expected_outcome():
    files = sorted(p.name for p in BAD.iterdir() if p.is_file() and p.name != "expected.json")
    assert files == sorted(MANIFEST)
    assert len(files) >= 30
    for name, exp in MANIFEST.items():
        assert exp.get("why"), name
        assert ("raises" in exp) != ("cases" in exp), name


# --- the library ----------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_library(name, trace):
    exp = MANIFEST[name]
    if "raises" in exp:
        with pytest.raises(DatasetError) as ei:
            load_cases(BAD / name)
        check_error(ei.value, name, *exp["raises"])
        return
    res = load_cases(BAD / name)
    check_problems(res.errors, exp.get("errors", []), name)
    check_problems(res.warnings, exp.get("warnings", []), name)
    assert len(res.cases) == exp["cases"]
    assert len({c.id for c in res.cases}) == len(res.cases)
    if "ids" in exp:
        assert [c.id for c in res.cases] == exp["ids"]
    if "documents" in exp:
        assert [list(c.documents) for c in res.cases] == exp["documents"]
    for c in res.cases:
        assert c.question.strip() and c.response.strip()
        json.dumps(c.model_dump())
    if res.cases:
        trace(res.cases)  # valid rows still score


# --- the CLI --------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", CLI_FILES)
def test_cli(name, tmp_path, capsys, trace):
    exp = MANIFEST[name]
    out = tmp_path / "r.json"
    code = main(["evaluate", str(BAD / name), "--out", str(out), "--no-progress"])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    if "raises" in exp:
        assert code == 2
        assert f"error: {name}" in err and exp["raises"][2] in err, err
        assert not out.exists()
        return
    errors, warnings = exp.get("errors", []), exp.get("warnings", [])
    assert code == (2 if errors else 0), err  # exit 2: some rows invalid (the others still scored)
    for row, column, fragment in errors:
        where = f"{name}, row {row}" + (f", column {column!r}" if column else "")
        assert f"input error: {where}: " in err and fragment in err, err
    for row, column, fragment in warnings:
        assert f"input warning: {name}, row {row}, column {column!r}: {fragment}" in err, err
    d = json.loads(out.read_text(encoding="utf-8"))
    assert d["num_samples"] == exp["cases"] and d["num_scored"] == exp["cases"]
    assert all(r["error"] is None for r in d["detailed_results"])
    if "ids" in exp:
        assert [r["id"] for r in d["detailed_results"]] == exp["ids"]
    assert [(e["row"], e["column"]) for e in d["input_errors"]] == [(r, c) for r, c, _ in errors]
    assert [(w["row"], w["column"]) for w in d["input_warnings"]] == [(r, c) for r, c, _ in warnings]


def run_cli(*args: str):
    env = {k: v for k, v in os.environ.items() if k not in KEY_VARS}
    env.update({"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PYTHONIOENCODING": "utf-8"})
    return subprocess.run([sys.executable, "-m", "evaluators", "evaluate", *args, "--no-progress"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def test_cli_subprocess_deep_json_and_semicolon_csv():
    """The two files of issue 18, as a user runs them: no traceback, a clear message."""
    res = run_cli(str(BAD / "deep_nesting.json"))
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert "error: deep_nesting.json, row 1: no readable records" in res.stderr
    assert "nested too deeply" in res.stderr
    res = run_cli(str(BAD / "semicolon.csv"), "--dry-run")  # scored in-process in test_cli
    assert res.returncode == 0, res.stderr
    assert "dry run of 'trace' on 2 cases" in res.stdout and not res.stderr.strip()


# --- the dashboard's loader --------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_dashboard_loader(name):
    """ui.data.load_bytes (what the upload page calls) gives cases and errors, or a DataError
    with the reader's message; never another exception."""
    from ui import data as ud

    exp = MANIFEST[name]
    raw = (BAD / name).read_bytes()
    if "raises" in exp:
        try:
            loaded = ud.load_bytes(raw, name)
        except ud.DataError as exc:
            assert str(exc).startswith(name) and exp["raises"][2] in str(exc)
        else:  # no question/response column: shown with the mapping form, no cases
            assert exp["raises"][1] in ("question", "response")
            assert loaded.cases == () and exp["raises"][2] in str(loaded.errors[0])
        return
    loaded = ud.load_bytes(raw, name)
    assert len(loaded.cases) == exp["cases"]
    assert len(loaded.errors) == len(exp.get("errors", []))
    assert ud.error_rows(loaded.errors) == [
        {"row": r, "column": c, "problem": e.message, "file": name}
        for (r, c, _), e in zip(exp.get("errors", []), loaded.errors)]


@pytest.mark.usefixtures("tmp_store", "no_llm_env")
def test_upload_page_shows_bad_files_without_a_traceback():
    from streamlit.testing.v1 import AppTest

    from tests import ui_fixtures as fx

    at = AppTest.from_file(fx.APP, default_timeout=60).run()
    at.switch_page("pages/1_upload.py").run()  # the app opens on Start
    for name, shown in (("deep_nesting.json", "nested too deeply"), ("png_renamed.csv", "PNG image"),
                        ("truncated.json", "truncated?"), ("excel_renamed.csv", "Excel")):
        at.file_uploader(key="upload.file").set_value((name, (BAD / name).read_bytes(), "text/plain")).run()
        assert not at.exception, (name, at.exception)
        shown_errors = [e.value for e in at.error]
        assert any(name in e and shown in e for e in shown_errors), (name, shown_errors)
    for name in ("semicolon.csv", "deep_record.json", "mixed_types.json", "deep_cell.json", "nul_bytes.csv"):
        at.file_uploader(key="upload.file").set_value((name, (BAD / name).read_bytes(), "text/plain")).run()
        assert not at.exception, (name, at.exception)
        m = {x.label: x.value for x in at.metric}
        assert m["Cases ready"] == str(MANIFEST[name]["cases"]), (name, m)
        assert m["Rows with problems"] == str(len(MANIFEST[name].get("errors", []))), (name, m)


# --- big inputs, generated here --------------------------------------------------------------------

DOC = ("Paris is the capital of France. " * 150)[:4800]


def _jsonl_rows(n: int, bad_rows: dict[int, str] | None = None, doc: str = DOC) -> str:
    line = json.dumps({"id": "c{i}", "question": "What is the capital of France? ({i})",
                       "response": "Paris is the capital of France.", "documents": [doc, "It is big."]})
    bad_rows = bad_rows or {}
    return "".join(bad_rows.get(i, line.replace("{i}", str(i))) + "\n" for i in range(1, n + 1))


def test_ten_thousand_rows_one_bad(tmp_path, trace, capsys):
    p = tmp_path / "many.jsonl"
    p.write_text(_jsonl_rows(10_000, {5000: '{"id": "c5000", "question": "Why?", "response": ""}',
                                      7777: '{"id": "c1", "question": "Again?", "response": "Yes."}'},
                             doc="Paris is the capital of France."))
    res = load_cases(p)
    assert len(res.cases) == 9_999 and len({c.id for c in res.cases}) == 9_999
    assert [(e.row, e.column, e.message) for e in res.errors] == [(5000, "response", "empty value")]
    assert [(w.row, w.column) for w in res.warnings] == [(7777, "id")]
    assert "first in row 1" in str(res.warnings[0]) and res.cases[7775].id == "c1#2"
    trace(res.cases[:: 1000])  # a sample of the valid rows scores
    assert main(["evaluate", str(p), "--dry-run", "--no-progress"]) == 2  # read by the CLI too
    assert "many.jsonl, row 5000, column 'response': empty value" in capsys.readouterr().err


MEASURE = """
import resource, sys, time
import pandas  # noqa: F401 - imported before the baseline
from evaluators.datasets import load_cases
from ui import data as ud
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.perf_counter()
res = load_cases(sys.argv[1])
seconds = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
with open(sys.argv[1], "rb") as f:
    ui_cases = len(ud.load_bytes(f.read(), "big.csv").cases)
print(len(res.cases), len(res.errors), ui_cases, round(seconds, 2), (peak - base) // 1024)
"""


def test_fifty_megabytes(tmp_path):
    """A 50 MB CSV (the dashboard's upload cap) reads in seconds with bounded memory, in the
    library and through the dashboard's loader; measured in a fresh process."""
    import csv

    p = tmp_path / "big.csv"
    with p.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id", "question", "response", "documents"])
        docs = json.dumps([DOC, "It is big."])
        for i in range(10_200):
            w.writerow([f"c{i}", f"What is the capital of France? ({i})", "Paris is the capital.", docs])
    size = p.stat().st_size
    assert 49e6 < size <= 50 * 1024 * 1024
    res = subprocess.run([sys.executable, "-c", MEASURE, str(p)], cwd=ROOT, capture_output=True, text=True,
                         timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert res.returncode == 0, res.stderr
    cases, errors, ui_cases, seconds, peak_mb = res.stdout.split()
    assert (int(cases), int(errors), int(ui_cases)) == (10_200, 0, 10_200)
    assert float(seconds) < 60, seconds  # measured ~3 s; a guard against minutes, not a benchmark
    assert int(peak_mb) < 16 * size / 1e6, peak_mb  # measured ~330 MB over the baseline for 50 MB


def test_above_the_upload_cap_is_refused_clearly(tmp_path):
    from ui import data as ud

    cap = ud.MAX_UPLOAD_MB * 1024 * 1024
    raw = b"question,response\n" + b"q?,r.\n" * (cap // 6 + 10)
    assert len(raw) > cap
    with pytest.raises(ud.DataError, match=r"big\.csv: 5\d\.\d MB is over the 50 MB upload limit"):
        ud.load_bytes(raw, "big.csv")
    p = tmp_path / "big.csv"
    p.write_bytes(raw)
    with pytest.raises(DatasetError, match="larger than the limit") as ei:
        read_table(p, max_bytes=cap)
    assert ei.value.file == "big.csv"
    config = (ROOT / ".streamlit" / "config.toml").read_text()
    assert f"maxUploadSize = {ud.MAX_UPLOAD_MB}" in config  # Streamlit refuses bigger uploads first


def test_very_long_cells(tmp_path, trace):
    long_doc = "Lima is the capital of Peru. " * 7000  # ~200,000 characters: fine
    rows = [
        {"id": "ok1", "question": "Capital of France?", "response": "Paris.",
         "documents": ["Paris is the capital."]},
        {"id": "big_response", "question": "Long?", "response": "x" * (MAX_TEXT_CHARS + 1)},
        {"id": "big_doc", "question": "Capital?", "response": "Lima.",
         "documents": ["ok", "y" * (MAX_TEXT_CHARS + 5)]},
        {"id": "ok2", "question": "Capital of Peru?", "response": "Lima is the capital of Peru.",
         "documents": [long_doc]},
    ]
    p = tmp_path / "long.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    res = load_cases(p)
    assert [c.id for c in res.cases] == ["ok1", "ok2"]
    assert [(e.row, e.column) for e in res.errors] == [(2, "response"), (3, "documents")]
    assert "text is 1,000,001 characters long, over the limit of 1,000,000 per cell" in res.errors[0].message
    assert res.errors[1].message.startswith("document 2: text is 1,000,005 characters long")
    trace(res.cases)


def test_fifty_megabytes_of_nesting(tmp_path):
    """Deep nesting at the upload cap is refused in seconds (no recursion, no per-bracket Python
    loop): one 25,000,000-level list, and a list where every other record is 2,000 levels deep."""
    import time

    p = tmp_path / "deep.json"
    p.write_text("[" * 25_000_000 + "]" * 25_000_000)
    t = time.perf_counter()
    with pytest.raises(DatasetError, match="nested too deeply"):
        load_cases(p)
    good = json.dumps({"question": "What is the capital of France?", "response": "Paris.",
                       "documents": ["Paris [1] is the capital {of} France. " * 150]})
    bad = '{"question": "Deep?", "response": "Yes.", "meta": ' + "[" * 2000 + "]" * 2000 + "}"
    p2 = tmp_path / "half_deep.json"
    p2.write_text("[" + ",".join([good, bad] * 5000) + "]")
    assert p2.stat().st_size > 40e6
    res = load_cases(p2)
    assert len(res.cases) == 5000 and [e.row for e in res.errors] == list(range(2, 10_001, 2))
    assert all("nested too deeply" in e.message for e in res.errors)
    assert time.perf_counter() - t < 120  # measured ~10 s on a busy 2-core machine: not minutes


def test_too_many_columns_refused_up_front(tmp_path):
    n = 200_000
    p = tmp_path / "wide.csv"
    p.write_text("question,response," + ",".join(f"c{i}" for i in range(n)) + "\nq?,r.," + ",x" * (n - 1) + "x\n")
    with pytest.raises(DatasetError, match="file has 200,002 columns, more than the limit of 1,000"):
        load_cases(p)
    p2 = tmp_path / "wide.jsonl"
    p2.write_text(json.dumps({"question": "q?", "response": "r.", **{f"c{i}": 1 for i in range(n)}}) + "\n")
    with pytest.raises(DatasetError, match="file has 200,002 columns"):
        load_cases(p2)


def test_ten_thousand_broken_lines_keep_the_ten_thousand_good_ones(tmp_path):
    good = json.dumps({"question": "What is it?", "response": "A cat.", "documents": ["A cat."]})
    p = tmp_path / "half.jsonl"
    p.write_text("\n".join([good, "{broken"] * 10_000) + "\n")
    res = load_cases(p)
    assert len(res.cases) == 10_000 and [e.row for e in res.errors] == list(range(2, 20_001, 2))
    assert all(e.message.startswith("malformed JSON line") for e in res.errors)


@pytest.mark.parametrize("reply", ['{"a": ' * 100_000 + "1" + "}" * 100_000, "[" * 100_000,
                                   'Here: {"a": ' + "[" * 100_000 + "]" * 100_000 + "} done"])
def test_deeply_nested_llm_reply_is_a_reply_error(reply):
    """The json / json-repair path of LLM replies: a RecursionError would skip the re-ask and
    surface as an opaque failure; it is a ReplyError (re-asked once, then a per-case reason)."""
    from evaluators.llm.parsing import ReplyError, load_json_object

    with pytest.raises(ReplyError, match="nested too deeply|not valid JSON|expected one JSON object"):
        load_json_object(reply)

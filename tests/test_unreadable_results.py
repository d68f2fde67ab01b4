"""Results files that cannot be read, and values that are not numbers (issue 47, item 12).

``compare`` is a CI gate: exit 1 means "regression". Whatever bytes a results file holds — nested
5,000 deep, binary, empty, cut short, gzip that is not gzip, another tool's CSV, a directory, a
missing or unreadable file — the answer is a message naming the file and exit 2, never a traceback
and never exit 1, also under ``--fail-on-regression``. The dashboard's "Open a results file" reads
through the same reader (``import_results``), so it refuses the same files with the same words.
Values that are not numbers (NaN, a text) are counted and said, in the words and the JSON; and
``evaluate`` on an input that gives no case at all (every trace skipped, every row invalid) exits 2.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from evaluators.cli import main
from evaluators.cli.common import write_json
from evaluators.export import ResultsFileError, to_json_dict
from evaluators.resultfiles import import_results, read_run
from evaluators.types import TestCase
from tests.ui_fixtures import fake_run

ROOT = Path(__file__).resolve().parents[1]
DOCS = ("Paris is the capital of France. The Seine flows through Paris.",)


def _cases(n: int = 12) -> list[TestCase]:
    return [TestCase(id=f"c{i}", question=f"Tell me about Paris, number {i}?",
                     response="Paris is the capital of France." if i % 3 else "Dragons guard Marseille.",
                     documents=DOCS) for i in range(n)]


@pytest.fixture
def runs(tmp_path, fake_method):
    """main.json (a results document), main.jsonl (JSON Lines) of the same 12 cases, and the text
    of main.json."""
    doc = tmp_path / "main.json"
    write_json(str(doc), to_json_dict(fake_run(_cases())))
    data = tmp_path / "cases.jsonl"
    data.write_text("".join(json.dumps({"id": c.id, "question": c.question, "response": c.response,
                                        "documents": list(c.documents)}) + "\n" for c in _cases()), encoding="utf-8")
    lines = tmp_path / "main.jsonl"
    assert main(["evaluate", str(data), "--method", "ui_fake", "--out", str(lines), "--no-progress"]) == 0
    return {"doc": doc, "jsonl": lines, "text": doc.read_text(encoding="utf-8")}


def _bad_files(runs: dict, d: Path) -> dict[str, tuple[Path, str]]:
    """name -> (file, words the error must hold besides the path)."""
    doc, lines = runs["text"], runs["jsonl"].read_text(encoding="utf-8").splitlines(keepends=True)
    files: dict[str, tuple[Path, str]] = {}

    def put(name: str, data: bytes | str, words: str) -> None:
        p = d / name
        p.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
        files[name] = (p, words)

    put("deep.json", '{"detailed_results": ' + "[" * 5000 + "]" * 5000 + "}", "nested deeper")
    put("deep.jsonl", "[" * 5000 + "]" * 5000 + "\n", "line 1 is JSON nested deeper")
    put("binary.json", bytes(range(256)) * 8, "binary data")
    put("latin1.json", "{\n  \"method\": \"caf\u00e9\"\n}\n".encode("latin-1"), "not UTF-8 text (line 2")
    put("png.json", b"\x89PNG\r\n\x1a\n" + b"\x00" * 64, "a PNG image")
    put("empty.json", "", "the file is empty")
    put("blank.jsonl", "\n\n  \n", "the file is empty")
    put("half.json", doc[: len(doc) // 2], "cut short?")
    put("bad-line.jsonl", "".join(lines[:3]) + lines[3][:30] + "\n" + "".join(lines[4:]), "line 4 is not valid JSON")
    put("not-gzip.json.gz", "hello, I am not compressed", "named .gz but not gzip-compressed")
    put("cut.json.gz", gzip.compress(doc.encode("utf-8"))[:-400], "gzip data is damaged or cut short")
    put("ragas.csv", "user_input,retrieved_contexts,response,faithfulness\nq,\"['c']\",r,0.5\n", "a CSV file")
    put("ragas.json", json.dumps([{"user_input": "q", "response": "r", "faithfulness": 0.5}]), "not a results file")
    put("cases.jsonl", json.dumps({"question": "q", "response": "r"}) + "\n", "not a results file")
    put("foreign-metrics.jsonl", lines[0] + json.dumps({"id": "c0", "metrics": [0.5]}) + "\n" + lines[-1],
        "'metrics' is a list")
    (d / "folder.json").mkdir()
    files["folder.json"] = (d / "folder.json", "a directory")
    files["missing.json"] = (d / "missing.json", "no such file")
    return files


def test_every_unreadable_results_file_is_exit_2_naming_the_file(runs, tmp_path, capsys):
    bad = _bad_files(runs, tmp_path)
    for name, (path, words) in bad.items():
        for order in ([runs["doc"], path], [path, runs["doc"]]):
            rc = main(["compare", *map(str, order), "--fail-on-regression", "adherence=0"])
            err = capsys.readouterr().err
            assert rc == 2, (name, err)
            assert str(path) in err and words in err, (name, err)
            assert "Traceback" not in err, (name, err)


def test_the_dashboards_reader_refuses_the_same_files_in_the_same_words(runs, tmp_path):
    """"Open a results file" goes through ``import_results`` (and ``read_run`` reads whole): the one
    reader, the same ResultsFileError — nothing else escapes it."""
    class NoStore:  # never reached: the file is refused before a run is started
        def start(self, *a, **k):
            raise AssertionError("a run was started for an unreadable file")

    for name, (path, words) in _bad_files(runs, tmp_path).items():
        if name == "foreign-metrics.jsonl":  # a table-only check (the comparison reads 'metrics')
            continue
        for read in (lambda p: import_results(p, NoStore(), owner=None), read_run):
            with pytest.raises(ResultsFileError) as err:
                read(path)
            assert str(path) in str(err.value) and words in str(err.value), (name, str(err.value))


def test_a_gzip_compressed_results_file_reads_as_the_file(runs, tmp_path, capsys):
    packed = tmp_path / "main-again.json.gz"
    packed.write_bytes(gzip.compress(runs["text"].encode("utf-8")))
    assert main(["compare", str(runs["doc"]), str(packed), "--fail-on-regression", "adherence=0"]) == 0
    assert "give the same adherence on all 12 paired questions" in capsys.readouterr().out
    assert len(read_run(packed).results) == 12


def test_a_permission_denied_is_exit_2_naming_the_file(runs, tmp_path, capsys, monkeypatch):
    locked = tmp_path / "locked.json"
    locked.write_text(runs["text"], encoding="utf-8")
    if os.geteuid() != 0:
        locked.chmod(0)
    else:  # root reads every file: refuse the open as the kernel would for another user
        real_open = Path.open

        def deny(self, *a, **k):
            if self == locked:
                raise PermissionError(13, "Permission denied", str(self))
            return real_open(self, *a, **k)

        monkeypatch.setattr(Path, "open", deny)
    assert main(["compare", str(runs["doc"]), str(locked)]) == 2
    assert f"{locked}: cannot read: permission denied" in capsys.readouterr().err


def test_a_run_that_did_not_finish_is_exit_2_unless_allowed(runs, tmp_path, capsys):
    lines = runs["jsonl"].read_text(encoding="utf-8").splitlines(keepends=True)
    killed = tmp_path / "killed.jsonl"  # a kill: the summary never written, the last case cut mid-line
    killed.write_text("".join(lines[:6]) + lines[6][:50], encoding="utf-8")
    assert main(["compare", str(runs["doc"]), str(killed), "--fail-on-regression", "adherence=0"]) == 2
    err = capsys.readouterr().err
    assert f"{killed}: the run did not finish (the file holds 5 case(s) and no summary)" in err and "--resume" in err
    assert main(["compare", str(runs["doc"]), str(killed), "--allow-unfinished"]) == 0
    printed = capsys.readouterr()
    assert "did not finish: its 5 case(s) are compared" in printed.err
    assert "Cases without a partner" in printed.out


def test_the_issues_two_crashes_exit_2_in_a_real_process(runs, tmp_path):
    """The exit code through the process (``python -m evaluators``), as a CI job sees it."""
    bad = _bad_files(runs, tmp_path)
    for name in ("deep.json", "binary.json"):
        path = bad[name][0]
        p = subprocess.run([sys.executable, "-m", "evaluators", "compare", str(runs["doc"]), str(path),
                            "--fail-on-regression", "adherence=0.02"],
                           cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert p.returncode == 2, p.stderr
        assert f"error: {path}: " in p.stderr and "Traceback" not in p.stderr, p.stderr


def test_a_bug_is_exit_3_with_its_traceback_never_1(runs, capsys, monkeypatch):
    import evaluators.comparison as comparison

    def broken(*a, **k):
        raise RuntimeError("a bug in the comparison")

    monkeypatch.setattr(comparison, "compare_runs", broken)
    assert main(["compare", str(runs["doc"]), str(runs["doc"]), "--fail-on-regression", "adherence=0"]) == 3
    err = capsys.readouterr().err
    assert "Traceback" in err and "RuntimeError: a bug in the comparison" in err
    assert "an unexpected failure of `compare` (a bug" in err and "exit 3, not 1" in err


def test_values_that_are_not_numbers_are_counted_in_words_and_json(runs, tmp_path, capsys):
    d = json.loads(runs["text"])
    d["detailed_results"][0]["metrics"]["adherence"] = float("nan")
    d["detailed_results"][1]["metrics"]["adherence"] = "high"
    d["detailed_results"][2]["metrics"]["completeness"] = "n/a"
    d["detailed_results"][4]["metrics"]["adherence"] = float("inf")
    odd = tmp_path / "odd.json"
    odd.write_text(json.dumps(d), encoding="utf-8")  # NaN / Infinity: Python's JSON writes them
    out = tmp_path / "cmp.json"
    assert main(["compare", str(runs["doc"]), str(odd), "--metric", "adherence,completeness", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "12 cases in both runs; every case paired" in text
    assert "Left out of every figure: 4 values that are not numbers" in text
    assert "odd, adherence: 3 — 1 NaN, 1 text, 1 infinite (e.g. “nan” in c0, “high” in c1, “inf” in c4)" in text
    assert "odd, completeness: 1 — 1 text (e.g. “n/a” in c2)" in text
    assert ("on all 9 paired questions with a score in both runs (3 more paired but without one, left out)"
            in text) or "on 9 paired questions (3 more paired" in text
    left = json.loads(out.read_text(encoding="utf-8"))["left_out"]
    assert left == {"odd": {
        "adherence": {"count": 3, "why": {"NaN": 1, "text": 1, "infinite": 1},
                      "examples": [{"id": "c0", "value": "nan"}, {"id": "c1", "value": "high"},
                                   {"id": "c4", "value": "inf"}]},
        "completeness": {"count": 1, "why": {"text": 1}, "examples": [{"id": "c2", "value": "n/a"}]}}}


def test_nothing_left_out_says_nothing(runs, tmp_path, capsys):
    out = tmp_path / "cmp.json"
    assert main(["compare", str(runs["doc"]), str(runs["jsonl"]), "--json", str(out)]) == 0
    assert "Left out" not in capsys.readouterr().out
    assert json.loads(out.read_text(encoding="utf-8"))["left_out"] == {}


# ------------------------------------------------------------------------------ evaluate: nothing readable


def _otlp(tmp_path: Path, name: str, drop: str | None) -> Path:
    """An OTLP JSON export of 3 RAG traces, without their root spans / retriever spans (``drop``)."""
    from evaluators.testing.trace_exports import otlp_lines, synthetic_traces

    doc = json.loads(otlp_lines(synthetic_traces(3)))

    def kind(span: dict) -> str:
        return next(a["value"]["stringValue"] for a in span["attributes"] if a["key"] == "openinference.span.kind")

    for scope in doc["resourceSpans"][0]["scopeSpans"]:
        scope["spans"] = [s for s in scope["spans"] if not (drop == "root" and "parentSpanId" not in s)
                          and not (drop == "retriever" and kind(s) == "RETRIEVER")]
    p = tmp_path / name
    p.write_text(json.dumps(doc), encoding="utf-8")
    return p


def _evaluate(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "RAG_EVAL_EMBED_CACHE": "off"}
    return subprocess.run([sys.executable, "-m", "evaluators", "evaluate", *args, "--no-progress"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)


def test_a_trace_export_where_every_trace_is_skipped_is_exit_2(tmp_path):
    for drop, reason in (("root", "no root span"), ("retriever", "no retriever span")):
        src, out = _otlp(tmp_path, f"no-{drop}.json", drop), tmp_path / f"no-{drop}.results.json"
        p = _evaluate(str(src), "--out", str(out))
        assert p.returncode == 2, p.stderr
        assert p.stderr.count("skipped trace") == 3 and reason in p.stderr
        assert f"error: no-{drop}.json: no trace gave a case: 3 of 3 skipped" in p.stderr
        d = json.loads(out.read_text(encoding="utf-8"))  # still written: every reason is in it
        assert d["num_samples"] == 0 and len(d["traces"]["skipped"]) == 3
    p = _evaluate(str(_otlp(tmp_path, "fine.json", None)), "--span-name", "no-such-span", "--dry-run")
    assert p.returncode == 2 and "left out every one of its 3 traces" in p.stderr, p.stderr


def test_an_input_whose_every_row_is_invalid_is_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "q1", "response": "", "documents": ["d"]}\n'
                   '{"question": "", "response": "r", "documents": ["d"]}\n', encoding="utf-8")
    assert main(["evaluate", str(bad), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "row 1, column 'response': empty value" in err
    assert "every input row is invalid (2, listed above); nothing was evaluated" in err

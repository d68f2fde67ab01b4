"""A results file (``evaluate --out``) reads back as the run that wrote it; a file that is not one
gets an error naming the file and the case."""

from __future__ import annotations

import json

import pytest

from evaluators.cli import main
from evaluators.export import ResultsFileError, run_from_json_dict, to_json_dict
from evaluators.resultfiles import read_run
from tests.test_stats_fixtures import failed_case, make_case, make_run


def test_a_run_round_trips_through_its_json():
    run = make_run([make_case(1, [True, False]), make_case(2, [True]), failed_case(3)])
    back = run_from_json_dict(json.loads(json.dumps(to_json_dict(run))))
    assert [r.case.id for r in back.results] == ["c1", "c2", "c3"]
    assert back.results == run.results
    assert to_json_dict(back) == to_json_dict(run)


def test_a_cli_results_file_reads_back(tmp_path):
    out = tmp_path / "r.json"
    assert main(["evaluate", "data/sample_rag.jsonl", "--out", str(out), "--no-progress"]) == 0
    run = read_run(out)
    data = json.loads(out.read_text(encoding="utf-8"))
    assert len(run.results) == data["num_samples"] == 16
    again = to_json_dict(run)
    for key in ("adherence", "context_relevance", "average", "intervals"):
        assert again[key] == data[key]
    assert [c["labels"] for c in again["detailed_results"]] == [c["labels"] for c in data["detailed_results"]]


@pytest.mark.parametrize("content, words", [
    ("{not json", "not valid JSON"),
    ('{"a": 1}', "not a results file"),
    ('[1, 2]', "not a results file"),
    ('{"schema_version": 99, "detailed_results": []}', "newer than this library"),
    ('{"detailed_results": [{"id": "x1", "labels": {"method": "trace"}}]}', "case 1 (id 'x1') cannot be read"),
])
def test_what_is_not_a_results_file_is_named(tmp_path, content, words):
    p = tmp_path / "bad.json"
    p.write_text(content, encoding="utf-8")
    with pytest.raises(ResultsFileError) as err:
        read_run(p)
    assert str(p) in str(err.value) and words in str(err.value)


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(ResultsFileError, match="cannot read"):
        read_run(tmp_path / "nope.json")

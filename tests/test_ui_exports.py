"""Downloads of a stored run (``ui/results/exports.py``) are the CLI's results file: the same top level as
the run itself gives, the cases that could not be scored listed with their reasons."""

from __future__ import annotations

import gzip
import json

import pandas as pd
import pytest

from evaluators.datasets import load_cases
from evaluators.export import to_json_dict
from evaluators.store import RunStore, view
from tests import ui_fixtures as fx
from ui.results import exports

pytestmark = pytest.mark.usefixtures("tmp_store", "fake_method")


def _run_with_a_failed_case():
    run = fx.fake_run()
    bad = run.results[1].model_copy(update={"error": "row 2: the response is empty", "metrics": {}})
    return run.model_copy(update={"results": [run.results[0], bad, *run.results[2:]]})


def test_downloads_of_a_stored_run_keep_every_failed_case_and_its_reason():
    run = _run_with_a_failed_case()
    store = RunStore()
    rid = store.save(run, "r", owner="downloads-visitor-0001")
    stored = view(store, rid, owner="downloads-visitor-0001")
    want = to_json_dict(run)["errors"]
    assert {"id": run.results[1].case.id, "error": "row 2: the response is empty"} in want
    doc = json.loads(exports.json_bytes(stored))
    assert doc["errors"] == want and doc["num_errors"] == len(want) >= 2
    assert len(doc["detailed_results"]) == len(run.results)
    lines = [json.loads(x) for x in gzip.decompress(exports.jsonl_gz(stored)).splitlines()]
    assert lines[0]["record"] == "run" and lines[-1]["record"] == "summary"
    assert lines[-1]["errors"] == want and len(lines) == len(run.results) + 2


def test_a_csv_download_reads_its_accents_in_excel_and_in_our_upload(tmp_path):
    run = fx.fake_run()
    first = run.results[0]
    run = run.model_copy(update={"results": [first.model_copy(update={"case": first.case.model_copy(
        update={"question": "Quelle est la durée du congé ?"})}), *run.results[1:]]})
    store = RunStore()
    stored = view(store, store.save(run, "r", owner="downloads-visitor-0001"), owner="downloads-visitor-0001")
    df = pd.DataFrame([{"id": r.case.id, "question": r.case.question} for r in run.results])
    for data in (exports.csv_bytes(stored, df), gzip.decompress(exports.csv_bytes(stored, df, gz=True)),
                 exports.csv_bytes(run, df)):
        assert data.startswith(b"\xef\xbb\xbf")  # the mark Excel needs to read UTF-8
        assert "Quelle est la durée du congé ?" in data.decode("utf-8-sig")
    path = tmp_path / "download.csv"
    path.write_bytes(exports.csv_bytes(run, df))
    loaded = load_cases(path)
    assert loaded.cases[0].id == run.results[0].case.id and loaded.cases[0].question == "Quelle est la durée du congé ?"

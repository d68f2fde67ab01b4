"""CSV exports neutralise spreadsheet formulas (OWASP CSV injection); the JSON export stays exact.

Uploaded texts and LLM answers are untrusted: a cell that starts with ``=``, ``+``, ``-``, ``@``, a
tab or a carriage return is run as a formula by spreadsheets even when it is quoted.
"""

from __future__ import annotations

import csv
import io
import json

import pandas as pd
import pytest

from evaluators.cli import main
from evaluators.export import FORMULA_STARTS, csv_cell, to_csv, to_rows
from evaluators.methods import BaseMethod
from evaluators.types import LabelOutcome, SentenceLabels, SentenceSupport

QUESTION = '=HYPERLINK("http://example.invalid","open")'
RESPONSE = "@SUM(1,2) is what the documents say."
GROUND_TRUTH = "-2+3"
CASE_ID = "+cmd|' /C calc'!A0"


class AllSupported(BaseMethod):
    def label(self, items, options, tick):
        return [LabelOutcome(labels=SentenceLabels(
            method="fake", document_keys=it.doc_keys, relevant_keys=it.doc_keys,
            utilized_keys=it.doc_keys,
            sentences=tuple(SentenceSupport(key=k, supporting_keys=it.doc_keys[:1], fully_supported=True)
                            for k in it.response_keys),
            overall_supported=True)) for it in items]


def _cells(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def _assert_no_formula(text: str) -> None:
    for row in _cells(text):
        for cell in row:
            assert not cell.startswith(FORMULA_STARTS), f"formula cell left in the CSV: {cell!r}"


@pytest.mark.parametrize("value", ["=1+1", "+1", "-1+2", "@SUM(1)", "\tx", "\rx"])
def test_formula_starts_get_an_apostrophe(value):
    assert csv_cell(value) == "'" + value


@pytest.mark.parametrize("value", ["plain", "", "a=b", " =x", 0, -1.5, None, True])
def test_other_cells_are_unchanged(value):
    assert csv_cell(value) == value


def test_to_csv_keeps_numbers_and_neutralises_text_and_headers():
    text = to_csv([{"id": "=evil", "=header": "ok", "score": -0.25, "n": 3}])
    rows = _cells(text)
    assert rows[0] == ["id", "'=header", "score", "n"]
    assert rows[1] == ["'=evil", "ok", "-0.25", "3"]  # a negative number is a number, not text


@pytest.fixture
def formula_file(tmp_path):
    p = tmp_path / "formulas.jsonl"
    p.write_text(json.dumps({"id": CASE_ID, "question": QUESTION, "response": RESPONSE,
                             "documents": ["=cmd is a document sentence."], "ground_truth": GROUND_TRUTH,
                             "hallucinated": "-"}) + "\n", encoding="utf-8")
    return p


def test_cli_csv_is_neutralised_and_json_is_exact(formula_file, tmp_path, register_method):
    register_method("fake", AllSupported())
    out, csv_path = tmp_path / "r.json", tmp_path / "r.csv"
    assert main(["evaluate", str(formula_file), "--method", "fake", "--out", str(out), "--csv", str(csv_path),
                 "--no-progress"]) == 0
    text = csv_path.read_text(encoding="utf-8")
    _assert_no_formula(text)
    row = pd.read_csv(csv_path, dtype=str, keep_default_na=False).iloc[0]
    assert row["id"] == "'" + CASE_ID
    assert row["question"] == "'" + QUESTION
    assert row["response"] == "'" + RESPONSE
    assert row["human_hallucinated"] == "'-"
    case = json.loads(out.read_text(encoding="utf-8"))["detailed_results"][0]
    assert (case["id"], case["question"], case["llm_response"], case["ground_truth"]) == (
        CASE_ID, QUESTION, RESPONSE, GROUND_TRUTH)  # the JSON export is exact
    assert case["retrieved_documents"] == ["=cmd is a document sentence."]


def test_results_page_csv_is_neutralised(formula_file, register_method):
    """The Results page's download is ``to_csv`` of the page's case table."""
    from evaluators.datasets import load_cases
    from evaluators.pipeline import evaluate_batch
    from ui import tables

    register_method("fake", AllSupported())
    run = evaluate_batch(load_cases(formula_file).cases, method="fake")
    text = to_csv(tables.case_frame(run))
    _assert_no_formula(text)
    assert "'" + QUESTION in _cells(text)[1][1]
    assert to_rows(run)[0]["question"] == QUESTION  # the rows themselves stay exact

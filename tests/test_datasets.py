"""Dataset loading: every format and layout, and every bad input gives a named DatasetError."""

from __future__ import annotations

import io
import json
import pickle
from pathlib import Path

import pandas as pd
import pytest

from evaluators.datasets import (
    ColumnMapping,
    DatasetError,
    LoadResult,
    cases_from_records,
    guess_mapping,
    load_cases,
    read_table,
    to_cases,
)

ROOT = Path(__file__).resolve().parents[1]
BAD = ROOT / "tests" / "bad_inputs"
DATA = ROOT / "data"
SHARED = ROOT.parent / "shared" / "data"


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    p = tmp_path / name
    if isinstance(content, bytes):
        p.write_bytes(content)
    else:
        p.write_text(content, encoding="utf-8")
    return p


def jsonl(records) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


# --- DatasetError --------------------------------------------------------------------------------

def test_dataset_error_format():
    e = DatasetError("data.csv", "empty value", row=3, column="response")
    assert str(e) == "data.csv, row 3, column 'response': empty value"
    assert isinstance(e, ValueError)
    assert (e.file, e.row, e.column, e.message) == ("data.csv", 3, "response", "empty value")
    assert str(DatasetError("data.csv", "file is empty")) == "data.csv: file is empty"
    assert str(DatasetError("d.json", "bad", column="x")) == "d.json, column 'x': bad"
    assert e.to_dict() == {"file": "data.csv", "row": 3, "column": "response", "message": "empty value",
                           "error": "data.csv, row 3, column 'response': empty value"}
    e2 = pickle.loads(pickle.dumps(e))
    assert (e2.file, e2.row, e2.column, e2.message) == (e.file, e.row, e.column, e.message)


# --- bad inputs folder (every file, through the library and the CLI: tests/test_bad_inputs.py) ----

def test_row_errors_keep_valid_rows():
    r = load_cases(BAD / "broken_line.jsonl")
    assert [c.id for c in r.cases] == ["a", "b", "d"]
    assert len(r.errors) == 1 and not r.ok
    r = load_cases(BAD / "empty_response.csv")
    assert [c.id for c in r.cases] == ["1", "3"]
    assert r.cases[1].documents == ("Lima is the capital of Peru.",)  # plain string = one document
    r = load_cases(BAD / "duplicate_ids.jsonl")
    # both rows are kept: the first keeps its id, the later one is renamed (and a warning says so)
    assert [c.id for c in r.cases] == ["q1", "q2", "q1#2"] and r.ok
    assert r.cases[0].question == "What is the capital of France?"
    assert r.cases[2].question != r.cases[0].question
    assert [(w.row, w.column) for w in r.warnings] == [(3, "id")]
    assert "duplicate id 'q1' (first in row 1); this row is kept as id 'q1#2'" in str(r.warnings[0])
    r = load_cases(BAD / "wrong_types.parquet")
    assert r.cases == [] and [e.row for e in r.errors] == [1, 2, 3]


# --- formats and layouts ---------------------------------------------------------------------------

RAGAS_V1 = [{"question": "What is X?", "answer": "X is a letter.", "contexts": ["X is a letter.", "Y too."],
             "ground_truth": "A letter."}]
RAGAS_V2 = [{"user_input": "What is X?", "response": "X is a letter.", "retrieved_contexts": ["X is a letter."],
             "reference": "A letter."}]
RAGBENCH = [{"id": "rb1", "question": "What is X?", "response": "X is a letter.", "documents": ["X is a letter."],
             "adherence_score": True, "relevance_score": 0.5, "utilization_score": 0.25,
             "completeness_score": 0.5, "all_relevant_sentence_keys": ["0a"], "dataset_name": "covidqa"}]
BATCH = [{"query": "What is X?", "response": "X is a letter.", "retrieved_documents": ["X is a letter."],
          "ground_truth": None}]


@pytest.mark.parametrize("records,fmt,q,r,d,gt", [
    (RAGAS_V1, "ragas_v1", "question", "answer", "contexts", "ground_truth"),
    (RAGAS_V2, "ragas_v2", "user_input", "response", "retrieved_contexts", "reference"),
    (RAGBENCH, "ragbench", "question", "response", "documents", None),
    (BATCH, "batch", "query", "response", "retrieved_documents", "ground_truth"),
])
@pytest.mark.parametrize("ext", ["jsonl", "json", "csv", "parquet"])
def test_layouts_in_every_format(tmp_path, records, fmt, q, r, d, gt, ext):
    p = tmp_path / f"data.{ext}"
    if ext == "jsonl":
        p.write_text(jsonl(records))
    elif ext == "json":
        p.write_text(json.dumps(records))
    elif ext == "csv":
        df = pd.DataFrame(records)
        for c in df.columns:
            if df[c].map(lambda v: isinstance(v, list)).any():
                df[c] = df[c].map(json.dumps)
        df.to_csv(p, index=False)
    else:
        pd.DataFrame(records).to_parquet(p)
    res = load_cases(p)
    assert res.ok, res.errors
    m = res.mapping
    assert (m.format, m.question, m.response, m.documents, m.ground_truth) == (fmt, q, r, d, gt)
    (c,) = res.cases
    assert c.question == "What is X?" and c.response == "X is a letter."
    assert c.documents[0] == "X is a letter."
    assert c.documents == tuple(records[0][d])
    assert c.ground_truth == (records[0].get(gt) if gt else None)
    if fmt == "ragbench":
        assert c.id == "rb1"
        assert c.labels["adherence_score"] is True
        assert c.labels["relevance_score"] == 0.5
        assert c.labels["all_relevant_sentence_keys"] == ["0a"]
        assert c.metadata == {"dataset_name": "covidqa"}
    else:
        assert c.id == "1"  # made from the row number


def test_documents_as_list_json_string_python_repr_and_plain(tmp_path):
    df = pd.DataFrame({
        "question": ["q1?", "q2?", "q3?", "q4?", "q5?", "q6?"],
        "response": ["r1.", "r2.", "r3.", "r4.", "r5.", "r6."],
        "documents": ['["doc A", "doc B"]', "['doc C', \"doc D's\"]", "just one document. Two sentences.",
                      "", "[]", '  ["padded"]  '],
    })
    p = tmp_path / "docs.csv"
    df.to_csv(p, index=False)
    res = load_cases(p)
    assert res.ok, res.errors
    assert [c.documents for c in res.cases] == [
        ("doc A", "doc B"), ("doc C", "doc D's"), ("just one document. Two sentences.",), (), (), ("padded",)]


def test_documents_list_of_objects(tmp_path):
    p = write(tmp_path, "d.jsonl", jsonl([
        {"question": "q?", "response": "r.", "documents": [{"title": "T", "text": "body"}, {"page_content": "pc"}]},
        {"question": "q?", "response": "r.", "documents": [{"url": "http://x"}]},
        {"question": "q?", "response": "r.", "documents": ["ok", 5]},
        {"question": "q?", "response": "r.", "documents": 12},
        {"question": "q?", "response": "r.", "documents": '["a", "b"'},
        {"question": "q?", "response": "r.", "documents": ["a", None]},
        {"question": "q?", "response": "r.", "documents": "[1] Paris is the capital. [2] It is big."},
        {"question": "q?", "response": "r.", "documents": "[1, 2]"},
    ]))
    res = load_cases(p)
    # a text that only starts with a bracket is one document; a list-looking text must parse
    assert [c.documents for c in res.cases] == [("T\nbody", "pc"),
                                                ("[1] Paris is the capital. [2] It is big.",)]
    msgs = {e.row: e.message for e in res.errors}
    assert set(msgs) == {2, 3, 4, 5, 6, 8}
    assert "document 1 is a number" in msgs[8]
    assert "document 2 is null" in msgs[6]
    assert "without a text field (keys: url)" in msgs[2]
    assert "document 2 is a number" in msgs[3]
    assert "expected a list of documents or text, got a number" in msgs[4]
    assert "not valid JSON" in msgs[5]
    assert all(e.column == "documents" for e in res.errors)


def test_nan_and_empty_cells_in_csv(tmp_path):
    p = write(tmp_path, "nan.csv",
              "id,question,response,documents,ground_truth,hallucinated,topic\n"
              "1,NA,null,,,,\n"
              "2,What?,,doc,gt,true,x\n"
              "3,,Answer.,doc,,false,\n"
              ",Why?,Because.,doc,,,\n")
    res = load_cases(p)
    c, c4 = res.cases
    # the strings "NA" and "null" are text, not missing values
    assert (c.id, c.question, c.response, c.documents, c.ground_truth) == ("1", "NA", "null", (), None)
    assert c.labels == {} and c.metadata == {}
    errs = [(e.row, e.column, e.message) for e in res.errors]
    assert errs == [(2, "response", "empty value"), (3, "question", "empty value")]
    # a row without an id still loads, under an id made from its row number
    assert (c4.id, c4.question) == ("row-4", "Why?")
    assert [(w.row, w.column, w.message) for w in res.warnings] == [
        (4, "id", "missing id; this row is kept as id 'row-4'")]


def test_json_wrong_types_per_row(tmp_path):
    p = write(tmp_path, "types.json", json.dumps([
        {"id": 1, "question": "ok?", "response": "fine."},
        {"id": 2, "question": 42, "response": "fine."},
        {"id": 3, "question": "ok?", "response": ["a", "list"]},
        {"id": 4.0, "question": "ok?", "response": "fine.", "ground_truth": 7},
        {"id": True, "question": "ok?", "response": "fine."},
        {"id": 6, "question": None, "response": "fine."},
    ]))
    res = load_cases(p)
    # a number as ground truth is no row error: the case is kept, the number read as its text, with a note
    assert [c.id for c in res.cases] == ["1", "4"]
    assert res.cases[1].ground_truth == "7" and "a number (7)" in res.cases[1].metadata["ground_truth_note"]
    errs = [(e.row, e.column) for e in res.errors]
    assert errs == [(2, "question"), (3, "response"), (5, "id"), (6, "question")]
    assert "expected text, got a number (42)" in res.errors[0].message
    assert "missing value" in res.errors[-1].message


def test_one_row_can_have_several_errors(tmp_path):
    p = write(tmp_path, "multi.jsonl", jsonl([{"question": "", "response": "", "documents": "[\"x"}]))
    res = load_cases(p)
    assert res.cases == []
    assert sorted(e.column for e in res.errors) == ["documents", "question", "response"]
    assert all(e.row == 1 for e in res.errors)


def test_labels_nested_and_prefixed(tmp_path):
    p = write(tmp_path, "labels.csv",
              'id,question,response,labels,human_rating,label_ok,hallucinated,adherence_score,extra\n'
              'a,q?,r.,"{""hallucinated"": true, ""faithfulness"": {""median"": 2}}",4,yes,,0.75,e1\n'
              'b,q?,r.,not json,1,no,false,,\n')
    res = load_cases(p)
    a = res.cases[0]
    assert a.labels == {"hallucinated": True, "faithfulness": {"median": 2}, "human_rating": 4,
                        "label_ok": True, "adherence_score": 0.75}
    assert a.metadata == {"extra": "e1"}
    assert [(e.row, e.column) for e in res.errors] == [(2, "labels")]
    assert "expected an object of labels" in res.errors[0].message


def test_jsonl_nested_labels_meta_history(tmp_path):
    rec = {"id": "x1", "source": "ragtruth", "question": "q?", "response": "r.", "documents": ["d."],
           "ground_truth": None, "labels": {"hallucinated": True, "hallucination_spans": [[0, 2]]},
           "meta": {"generator_model": "m"}, "history": [{"speaker": "user", "text": "hi"}]}
    res = load_cases(write(tmp_path, "s.jsonl", jsonl([rec])))
    (c,) = res.cases
    assert c.labels == {"hallucinated": True, "hallucination_spans": [[0, 2]]}
    assert c.metadata == {"source": "ragtruth", "meta": {"generator_model": "m"}}
    assert [(t.speaker, t.text) for t in c.history] == [("user", "hi")]  # a field of the case since issue 48
    assert c.ground_truth is None


def test_jsonl_blank_lines_and_line_numbers(tmp_path):
    text = '\n{"question": "q?", "response": "r."}\n\n   \n{"question": "q2?", "response": ""}\n[1, 2]\n'
    res = load_cases(write(tmp_path, "b.jsonl", text))
    assert [c.id for c in res.cases] == ["2"]  # the JSONL line number is the row (and default id)
    assert [(e.row, e.column) for e in res.errors] == [(5, "response"), (6, None)]
    assert "line holds a list" in res.errors[1].message


def test_json_object_shapes(tmp_path):
    recs = [{"question": "q?", "response": "r."}]
    for key in ("data", "test_cases", "whatever"):
        res = load_cases(write(tmp_path, f"{key}.json", json.dumps({"name": "x", key: recs})))
        assert len(res.cases) == 1
    cols = {"question": ["a?", "b?"], "answer": ["A.", "B."], "contexts": [["ca"], ["cb"]]}
    res = load_cases(write(tmp_path, "columnar.json", json.dumps(cols)))
    assert [(c.question, c.response, c.documents) for c in res.cases] == [("a?", "A.", ("ca",)), ("b?", "B.", ("cb",))]
    with pytest.raises(DatasetError, match="several lists of records"):
        load_cases(write(tmp_path, "two.json", json.dumps({"train": recs, "test": recs})))
    with pytest.raises(DatasetError, match="expected a JSON list of records, got a str"):
        load_cases(write(tmp_path, "str.json", '"hello"'))
    with pytest.raises(DatasetError, match="no data rows"):
        load_cases(write(tmp_path, "emptylist.json", "[]"))
    with pytest.raises(DatasetError, match=r"name the file \.jsonl"):
        load_cases(write(tmp_path, "lines.json", jsonl(recs * 2)))


def test_all_records_broken(tmp_path):
    with pytest.raises(DatasetError) as ei:
        load_cases(write(tmp_path, "allbad.jsonl", "{not json\n{also not\n"))
    assert ei.value.row == 1 and "no readable records" in ei.value.message


def test_tsv_and_bom(tmp_path):
    p = write(tmp_path, "x.tsv", "\ufeffquestion\tresponse\tcontexts\nq?\tr, with comma.\tctx\n".encode("utf-8"))
    (c,) = load_cases(p).cases
    assert (c.question, c.response, c.documents) == ("q?", "r, with comma.", ("ctx",))


def test_ids_integers_and_floats(tmp_path):
    p = write(tmp_path, "ids.parquet", b"")
    pd.DataFrame({"id": [10, 11], "question": ["a?", "b?"], "response": ["A.", "B."]}).to_parquet(p)
    assert [c.id for c in load_cases(p).cases] == ["10", "11"]
    p2 = write(tmp_path, "ids.json", json.dumps([{"id": 1.0, "question": "a?", "response": "A."},
                                                 {"id": 1.5, "question": "b?", "response": "B."}]))
    res = load_cases(p2)
    assert [c.id for c in res.cases] == ["1"]
    assert res.errors[0].column == "id"


def test_parquet_list_column_and_metadata(tmp_path):
    p = tmp_path / "ok.parquet"
    pd.DataFrame({"question": ["a?"], "response": ["A."], "documents": [["d1", "d2"]],
                  "latency": [1.25], "tags": [["x", "y"]]}).to_parquet(p)
    (c,) = load_cases(p).cases
    assert c.documents == ("d1", "d2")
    assert c.metadata == {"latency": 1.25, "tags": ["x", "y"]}
    json.dumps(c.metadata)  # plain Python, JSON-serialisable


# --- read_table sources -------------------------------------------------------------------------

def test_read_table_from_bytes_and_file_objects():
    raw = b"question,response\nq?,r.\n"
    df = read_table(raw, filename="up.csv")
    assert list(df.columns) == ["question", "response"] and len(df) == 1
    assert df.attrs["source_rows"] == [1]
    df2 = read_table(io.BytesIO(raw), filename="dir/up.csv")
    assert df2.attrs["filename"] == "up.csv"
    with pytest.raises(DatasetError, match="no file name"):
        read_table(raw)


def test_read_table_max_bytes(tmp_path):
    raw = b"question,response\n" + b"q?,r.\n" * 1000
    with pytest.raises(DatasetError, match="larger than the limit"):
        read_table(raw, filename="big.csv", max_bytes=100)
    p = write(tmp_path, "big.csv", raw)
    with pytest.raises(DatasetError, match="larger than the limit") as ei:
        read_table(p, max_bytes=100)
    assert ei.value.file == "big.csv"
    with pytest.raises(DatasetError, match="larger than the limit"):
        read_table(io.BytesIO(raw), filename="big.csv", max_bytes=100)
    assert len(read_table(p, max_bytes=len(raw))) == 1000


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(DatasetError, match="file not found"):
        load_cases(tmp_path / "nope.csv")
    d = tmp_path / "dir.csv"
    d.mkdir()
    with pytest.raises(DatasetError, match="is a directory"):
        load_cases(d)


def test_duplicate_column_names(tmp_path):
    p = write(tmp_path, "dup.csv", "question,response,response\nq?,r1.,r2.\n")
    with pytest.raises(DatasetError) as ei:
        load_cases(p)
    assert "duplicate column names: response" in str(ei.value) and ei.value.column == "response"


# --- mapping -------------------------------------------------------------------------------------

def test_guess_mapping_case_insensitive_and_labels():
    m = guess_mapping(["ID", "Question", "LLM_Response", "Contexts", "Reference", "hallucinated",
                       "human_score", "other"])
    assert (m.id, m.question, m.response, m.documents, m.ground_truth) == (
        "ID", "Question", "LLM_Response", "Contexts", "Reference")
    assert m.label_columns == ("hallucinated", "human_score")
    assert m.format == "custom"


def test_guess_mapping_answer_as_ground_truth_when_response_present():
    m = guess_mapping(["question", "response", "answer", "documents"])
    assert m.response == "response" and m.ground_truth == "answer" and m.format == "ragbench"


def test_guess_mapping_errors_name_columns_seen():
    with pytest.raises(DatasetError) as ei:
        guess_mapping(["foo", "bar"], filename="x.csv")
    msg = str(ei.value)
    assert msg.startswith("x.csv, column 'question'")
    assert "no question or response column" in msg and "columns seen: foo, bar" in msg
    with pytest.raises(DatasetError, match="no response column"):
        guess_mapping(["question", "documents"])


def test_custom_mapping_and_missing_mapped_column(tmp_path):
    p = write(tmp_path, "c.csv", "Q,A,C,G\nq?,a.,c,g\n")
    df = read_table(p)
    m = ColumnMapping(question="Q", response="A", documents="C", ground_truth="G", format="custom")
    res = to_cases(df, m, "c.csv")
    assert isinstance(res, LoadResult) and res.mapping == m
    (c,) = res.cases
    assert (c.question, c.response, c.documents, c.ground_truth) == ("q?", "a.", ("c",), "g")
    with pytest.raises(DatasetError) as ei:
        to_cases(df, m.model_copy(update={"response": "Missing"}), "c.csv")
    assert ei.value.column == "Missing" and "mapped to response" in str(ei.value)
    with pytest.raises(DatasetError, match="no response column mapped"):
        to_cases(df, m.model_copy(update={"response": None}), "c.csv")
    res2 = load_cases(p, mapping=m)
    assert res2.cases == res.cases


def test_to_cases_on_a_plain_dataframe():
    df = pd.DataFrame({"question": ["a?", "b?"], "answer": ["A.", None], "contexts": [["x"], None]})
    res = to_cases(df, guess_mapping(df.columns), "frame")
    assert [c.id for c in res.cases] == ["1"]
    assert (res.errors[0].row, res.errors[0].column, res.errors[0].message) == (2, "answer", "missing value")


def test_ground_truths_list():
    res = cases_from_records([{"question": "q?", "answer": "a.", "ground_truths": ["one", "two"]},
                              {"question": "q?", "answer": "a.", "ground_truths": ["one", 2]}])
    assert res.cases[0].ground_truth == "one\ntwo"
    assert "a list of 2 texts" in res.cases[0].metadata["ground_truth_note"]
    # a list holding a number is no reference answer: the case is kept and scored, the note says why
    assert not res.errors and res.cases[1].ground_truth is None
    assert "a list holding int 2" in res.cases[1].metadata["ground_truth_note"]


# --- the project's sample data and the shared data ----------------------------------------------

def test_sample_data_jsonl_and_csv_are_the_same_cases():
    a = load_cases(DATA / "sample_rag.jsonl")
    b = load_cases(DATA / "sample_rag.csv")
    assert a.ok and b.ok
    assert a.cases == b.cases
    assert len(a.cases) >= 12
    hall = [c.labels["hallucinated"] for c in a.cases]
    assert all(isinstance(h, bool) for h in hall) and 0 < sum(hall) < len(hall)
    assert any(c.documents == () for c in a.cases)
    assert len({c.metadata["topic"] for c in a.cases}) >= 5


def test_sample_ragas_v2_matches():
    v2 = load_cases(DATA / "sample_ragas_v2.json")
    assert v2.ok and v2.mapping.format == "ragas_v2"
    base = {c.id: c for c in load_cases(DATA / "sample_rag.jsonl").cases}
    assert {c.id for c in v2.cases} == set(base)
    for c in v2.cases:
        b = base[c.id]
        assert (c.question, c.response, c.documents, c.ground_truth) == (
            b.question, b.response, b.documents, b.ground_truth)


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/data not present")
def test_shared_data_loads_without_errors():
    # nli_pairs_dev.jsonl holds premise-claim pairs for training a verifier, not RAG cases.
    for p in sorted(q for q in SHARED.glob("*.jsonl") if not q.name.startswith("nli_pairs")):
        res = load_cases(p)
        assert res.ok, (p.name, [str(e) for e in res.errors[:3]])
        assert res.cases and all("hallucinated" in c.labels for c in res.cases)
        assert len({c.id for c in res.cases}) == len(res.cases)


def test_guess_mapping_overrides():
    cols = ["Frage", "Antwort", "documents", "answer", "hallucinated"]
    m = guess_mapping(cols, overrides={"question": "Frage", "response": "Antwort"})
    assert (m.question, m.response, m.documents, m.ground_truth) == ("Frage", "Antwort", "documents", "answer")
    assert m.label_columns == ("hallucinated",) and m.format == "custom"
    # an override takes its column out of the guessing pool
    m2 = guess_mapping(["question", "answer", "response"], overrides={"response": "answer"})
    assert (m2.response, m2.ground_truth) == ("answer", None)
    with pytest.raises(DatasetError, match="'Nope' \\(mapped to question\\) is not in the file"):
        guess_mapping(cols, filename="f.csv", overrides={"question": "Nope"})
    with pytest.raises(DatasetError, match="cannot map 'labels'"):
        guess_mapping(cols, overrides={"labels": "hallucinated"})


def test_ragbench_parquet_columns(tmp_path):
    row = {
        "id": "covidqa_1", "question": "What is X?", "documents": ["X is a letter. It is old."],
        "response": "X is a letter.", "generation_model_name": "gpt-3.5", "dataset_name": "covidqa",
        "documents_sentences": [[["0a", "X is a letter."], ["0b", "It is old."]]],
        "response_sentences": [["a", "X is a letter."]],
        "sentence_support_information": [{"response_sentence_key": "a", "supporting_sentence_keys": ["0a"],
                                          "fully_supported": True}],
        "unsupported_response_sentence_keys": [], "adherence_score": True,
        "overall_supported_explanation": "ok", "relevance_explanation": "0a answers it",
        "all_relevant_sentence_keys": ["0a"], "all_utilized_sentence_keys": ["0a"],
        "trulens_groundedness": 0.9, "ragas_faithfulness": 1.0, "relevance_score": 0.5,
        "utilization_score": 0.5, "completeness_score": 1.0,
    }
    p = tmp_path / "ragbench.parquet"
    pd.DataFrame([row]).to_parquet(p)
    res = load_cases(p)
    assert res.ok, res.errors
    assert res.mapping.format == "ragbench" and res.mapping.ground_truth is None
    (c,) = res.cases
    assert c.id == "covidqa_1" and c.documents == ("X is a letter. It is old.",)
    assert c.labels["adherence_score"] is True
    assert c.labels["all_utilized_sentence_keys"] == ["0a"]
    assert c.labels["sentence_support_information"][0]["supporting_sentence_keys"] == ["0a"]
    assert c.labels["unsupported_response_sentence_keys"] == []
    assert {"relevance_score", "utilization_score", "completeness_score"} <= set(c.labels)
    # other evaluators' scores and generation details are metadata, not human labels
    assert c.metadata["trulens_groundedness"] == 0.9 and c.metadata["dataset_name"] == "covidqa"
    assert c.metadata["documents_sentences"][0][1] == ["0b", "It is old."]
    json.dumps(c.labels), json.dumps(c.metadata)


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 1 << 22])
def test_split_top_list_across_chunks(monkeypatch, chunk):
    """The element finder of deeply nested JSON lists gives the same spans whatever the chunk size."""
    from evaluators.datasets import json_records, values

    monkeypatch.setattr(json_records, "SCAN_CHUNK_CHARS", chunk)
    monkeypatch.setattr(values, "SCAN_CHUNK_CHARS", chunk)
    text = ' [{"a": [1, [2]], "s": "x,]}[{"}, "q\\"]", [[[]]], 5 ]  '
    spans = json_records._split_top_list(text)
    assert [(text[a:b].strip(), d) for a, b, d in spans] == [
        ('{"a": [1, [2]], "s": "x,]}[{"}', 3), ('"q\\"]"', 0), ("[[[]]]", 3), ("5", 0)]
    assert json_records._split_top_list("[ ]") == []
    assert json_records._split_top_list("[1, 2] extra") is None
    assert json_records._split_top_list("[1, 2") is None
    assert json_records._split_top_list('{"a": 1}') is None
    assert values.too_deep_to_parse("[" * 201 + "]" * 201)
    assert not values.too_deep_to_parse('"' + "[" * 300 + '"')  # brackets inside a string
    assert not values.too_deep_to_parse("[" + "[], " * 300 + "[]]")  # many, but shallow

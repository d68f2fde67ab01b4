"""The optional fields of a case — the conversation (``history``, ``conversation_id``) and the
retrieval references (``document_ids``, ``reference_context_ids`` / ``_relevance``,
``reference_contexts``) — read from every input shape, named when bad, kept through results files,
and absent from the output of a case that has none."""

from __future__ import annotations

import json

import pytest

from evaluators.datasets import load_cases
from evaluators.export import case_dict, case_from_dict
from evaluators.pipeline import as_test_case
from evaluators.turns import MAX_TURNS, HistoryError, read_history
from evaluators.types import CASE_EXTRAS, CaseResult, TestCase, Turn


def _jsonl(tmp_path, rows, name="cases.jsonl"):
    p = tmp_path / name
    p.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return p


def test_history_shapes():
    mtrag = [{"speaker": "user", "text": "Which plans are there?"}, {"speaker": "agent", "text": "Basic and Pro."}]
    chat = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Which plans are there?"},
            {"role": "assistant", "content": [{"type": "text", "text": "Basic and Pro."}]}]
    want = (Turn(speaker="user", text="Which plans are there?"), Turn(speaker="agent", text="Basic and Pro."))
    assert read_history(mtrag) == (want, [])
    turns, notes = read_history(json.dumps(chat))
    assert turns == want and "system" in notes[0]
    assert read_history({"messages": mtrag})[0] == want
    assert read_history("User: Hello?")[0] == (Turn(speaker="user", text="Hello?"),)  # a transcript
    assert read_history(None) == ((), []) and read_history([]) == ((), [])


@pytest.mark.parametrize("bad, words", [
    (42, "must be a list"),
    ([{"speaker": "user"}], "turn 1 (user) has no text"),
    ([{"text": "hi"}], "turn 1 says nobody spoke it"),
    ([{"speaker": "narrator", "text": "hi"}], "speaker 'narrator'"),
    (["hi"], "turn 1 is bare text"),
    ("[{oops", "not valid JSON"),
    ({"foo": 1}, "keys foo"),
    ("Hello?", "history is text that names no speaker"),
])
def test_bad_history_is_named(bad, words):
    with pytest.raises(HistoryError, match=words.replace("(", r"\(").replace(")", r"\)")):
        read_history(bad)


def test_long_history_keeps_the_last_turns():
    turns = [{"speaker": "user" if i % 2 == 0 else "agent", "text": f"turn {i}"} for i in range(500)]
    kept, notes = read_history(turns)
    assert len(kept) == MAX_TURNS and kept[-1].text == "turn 499" and "500 turns" in notes[0]


def test_file_with_every_optional_field(tmp_path):
    rows = [
        {"id": "q1", "question": "And the cheaper one?", "response": "Basic costs 5 EUR.",
         "documents": [{"id": "d7", "text": "Basic costs 5 EUR a month."}, {"id": "d9", "text": "Pro costs 9."}],
         "history": [{"role": "user", "content": "Which plans are there?"},
                     {"role": "assistant", "content": "Basic and Pro."}],
         "conversation_id": "c1", "reference_context_ids": ["d7"],
         "reference_contexts": ["Basic costs 5 EUR a month."]},
        {"id": "q2", "question": "Pro?", "response": "Pro costs 9.", "documents": ["Pro costs 9.", "Other."],
         "document_ids": ["d9", "d3"], "qrels": {"d9": 2, "d4": 1, "d3": 0}, "conversation_id": "c1"},
        {"id": "q3", "question": "Plain?", "response": "Plain.", "documents": ["Plain."]},
    ]
    res = load_cases(_jsonl(tmp_path, rows))
    assert not res.errors, res.error_dicts()
    a, b, c = res.cases
    assert a.document_ids == ("d7", "d9") and a.reference_context_ids == ("d7",)
    assert a.history[0] == Turn(speaker="user", text="Which plans are there?") and a.conversation_id == "c1"
    assert a.reference_contexts == ("Basic costs 5 EUR a month.",)
    assert a.relevance_judgments() == {"d7": 1}
    assert b.document_ids == ("d9", "d3") and b.conversation_id == "c1"
    assert b.relevance_judgments() == {"d9": 2, "d4": 1}
    assert all(not getattr(c, f) for f in CASE_EXTRAS)
    assert "history" not in a.metadata and "qrels" not in b.metadata


def test_bad_optional_fields_name_row_and_column_and_keep_the_rest(tmp_path):
    rows = [
        {"id": "1", "question": "q", "response": "r", "documents": ["a", "b"], "document_ids": ["x"]},
        {"id": "2", "question": "q", "response": "r", "history": [{"speaker": "user"}]},
        {"id": "3", "question": "q", "response": "r", "reference_context_relevance": {"x": "high"}},
        {"id": "4", "question": "q", "response": "r", "documents": [{"id": "a", "text": "t"}, {"text": "u"}]},
        {"id": "5", "question": "q", "response": "r", "history": [{"speaker": "user", "text": "hi"}] * 300},
        {"id": "6", "question": "q", "response": "r"},
    ]
    res = load_cases(_jsonl(tmp_path, rows))
    by_row = {e.row: e for e in res.errors}
    assert set(by_row) == {1, 2, 3, 4}
    assert by_row[1].column == "document_ids" and "1 document ids for 2 documents" in by_row[1].message
    assert by_row[2].column == "history" and "turn 1 (user) has no text" in by_row[2].message
    assert by_row[3].column == "reference_context_relevance" and "'x'" in by_row[3].message
    assert by_row[4].column == "documents" and "document 2 has no id" in by_row[4].message
    assert [c.id for c in res.cases] == ["5", "6"]
    assert len(res.cases[0].history) == MAX_TURNS
    assert any(w.row == 5 and w.column == "history" and "300 turns" in w.message for w in res.warnings)


def test_csv_cells(tmp_path):
    p = tmp_path / "c.csv"
    p.write_text('question,response,contexts,context_ids,relevant_doc_ids,history\n'
                 '"q","r","[""a"", ""b""]","d1, d2","d2","[{""speaker"": ""user"", ""text"": ""hi""}]"\n')
    res = load_cases(p)
    assert not res.errors, res.error_dicts()
    case = res.cases[0]
    assert case.document_ids == ("d1", "d2") and case.reference_context_ids == ("d2",)
    assert case.history == (Turn(speaker="user", text="hi"),)


def test_results_file_round_trip_and_plain_cases_unchanged():
    rich = TestCase(id="1", question="q", response="r", documents=("a",), document_ids=("d1",),
                    history=(Turn(speaker="user", text="hi"),), conversation_id="c",
                    reference_context_ids=("d1",), reference_context_relevance={"d1": 2},
                    reference_contexts=("a",))
    d = json.loads(json.dumps(case_dict(CaseResult(case=rich, method="trace", error="x"))))
    assert case_from_dict(d).case == rich
    plain = case_dict(CaseResult(case=TestCase(id="2", question="q", response="r"), method="trace", error="x"))
    assert not set(CASE_EXTRAS) & set(plain)


def test_batch_dicts_take_the_fields():
    case = as_test_case({"question": "q", "response": "r", "documents": ["a"], "document_ids": ["d1"],
                         "history": [{"role": "user", "content": "hi"}], "reference_context_ids": ["d1"]})
    assert case.document_ids == ("d1",) and case.history[0].speaker == "user"
    assert "history" not in case.metadata
    with pytest.raises(ValueError, match="2 ids for 1 documents"):
        TestCase(id="1", question="q", response="r", documents=("a",), document_ids=("x", "y"))


def test_batch_documents_as_objects_carry_their_ids():
    case = as_test_case({"question": "q", "response": "r",
                         "documents": [{"id": "d1", "text": "a"}, {"id": 7, "page_content": "b"}]})
    assert case.documents == ("a", "b") and case.document_ids == ("d1", "7")
    with pytest.raises(ValueError, match="document 1 is an object without a text field"):
        as_test_case({"question": "q", "response": "r", "documents": [{"id": "d1"}]})
    with pytest.raises(ValueError, match="not both"):
        as_test_case({"question": "q", "response": "r", "documents": ["a", {"text": "b"}]})


def test_tonic_latency_reads_the_runners_latency():
    from evaluators.families.base import latency_of

    case = TestCase(id="1", question="q", response="r", metadata={"latency_s": 0.8})
    assert latency_of(case) == 0.8 and latency_of(case, "other") is None

"""A `history` given as plain text (issue 57 item 6): read as a transcript when its turns start with
a speaker ("User: … / Assistant: …"), and the case says so; text that names no speaker is an error
naming the file, row and column (it used to become one user turn silently, against the docs)."""

from __future__ import annotations

import json

import pytest

from evaluators.datasets import load_cases
from evaluators.turns import TRANSCRIPT_NOTE, HistoryError, read_history
from evaluators.types import Turn

USER, AGENT = "user", "agent"


@pytest.mark.parametrize("text, want", [
    ("User: Which plans are there?\nAssistant: Basic and Pro.\nUser: Which is cheaper?",
     [(USER, "Which plans are there?"), (AGENT, "Basic and Pro."), (USER, "Which is cheaper?")]),
    ("User: Which plans? Assistant: Basic and Pro. User: And Pro?",  # one line (a CSV cell)
     [(USER, "Which plans?"), (AGENT, "Basic and Pro."), (USER, "And Pro?")]),
    ("**User:** hi\n**Assistant:** Basic costs $5.\nPro costs $12.",  # a line without speaker continues
     [(USER, "hi"), (AGENT, "Basic costs $5.\nPro costs $12.")]),
    ("Human: a?\nAI: b.", [(USER, "a?"), (AGENT, "b.")]),
    ("Q: what is it?\nA: a plan.", [(USER, "what is it?"), (AGENT, "a plan.")]),
    ("- user: hi\n- assistant: hello", [(USER, "hi"), (AGENT, "hello")]),
    ("user: The answer: 42", [(USER, "The answer: 42")]),  # a lower-case word and a colon inside a turn
])
def test_a_transcript_is_read_turn_by_turn_with_a_note(text, want):
    turns, notes = read_history(text)
    assert [(t.speaker, t.text) for t in turns] == want
    assert notes[0].startswith(TRANSCRIPT_NOTE) and f"{len(want)} turn" in notes[0]


def test_system_lines_of_a_transcript_are_left_out_and_said():
    turns, notes = read_history("System: be brief\nUser: hi\nAssistant: hello")
    assert turns == (Turn(speaker="user", text="hi"), Turn(speaker="agent", text="hello"))
    assert any("1 system / tool line" in n for n in notes)


@pytest.mark.parametrize("text, words", [
    ("What plans are there?", "names no speaker"),
    ("Earlier we talked.\nUser: hi", "has text before its first speaker ('Earlier we talked.')"),
    ("User:\nAssistant: Basic.", "turn 1 of the transcript (User:) has no text"),
    ("Narrator: once upon a time", "names no speaker"),
])
def test_text_that_is_no_transcript_is_an_error_that_says_what_to_give(text, words):
    with pytest.raises(HistoryError) as err:
        read_history(text)
    assert words in str(err.value)


def test_a_file_says_which_rows_were_read_as_transcripts_and_names_the_row_it_cannot_read(tmp_path):
    path = tmp_path / "chats.csv"
    rows = [
        {"id": "c1", "question": "Which is cheaper?", "response": "Basic.", "documents": json.dumps(["Basic $5."]),
         "history": "User: Which plans are there?\nAssistant: Basic and Pro."},
        {"id": "c2", "question": "And Pro?", "response": "$12.", "documents": json.dumps(["Pro $12."]),
         "history": "we talked about plans before"},
        {"id": "c3", "question": "Hi?", "response": "Hello.", "documents": json.dumps(["Hello."]),
         "history": json.dumps([{"role": "user", "content": "Hey"}, {"role": "assistant", "content": "Hi"}])},
    ]
    import csv

    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    r = load_cases(path)
    by_id = {c.id: c for c in r.cases}
    assert sorted(by_id) == ["c1", "c3"]  # the bad row is flagged, the others load
    c1 = by_id["c1"]
    assert [t.speaker for t in c1.history] == ["user", "agent"]
    assert c1.metadata["history_note"].startswith("history read as a transcript: 2 turns")
    assert "history_note" not in by_id["c3"].metadata  # a list needs no note
    [err] = r.errors
    assert (err.file, err.row, err.column) == ("chats.csv", 2, "history") and "names no speaker" in err.message
    assert any(w.row == 1 and w.column == "history" and TRANSCRIPT_NOTE in w.message for w in r.warnings)

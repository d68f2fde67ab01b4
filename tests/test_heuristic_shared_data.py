"""bench/shared_data.py: the loader of the shared JSONL dev sets (tested on a file written here)."""

from __future__ import annotations

import json

import pytest

from bench.shared_data import file_label, load_shared


def test_load_shared_schema(tmp_path):
    rows = [
        {"id": "a", "source": "ragtruth", "task": "Summary", "question": "Summarize.",
         "documents": "One article text.", "response": "A summary.", "ground_truth": None,
         "labels": {"hallucinated": True, "hallucination_spans": [[0, 1]]},
         "meta": {"source_id": "s1", "generator_model": "m"}},
        {"id": "b", "source": "mtrag", "question": "Q?", "documents": ["p1", "p2"], "response": "R.",
         "ground_truth": "G", "labels": {"hallucinated": False, "faithfulness": {"median": 4}},
         "meta": {"task_id": "t9"}, "history": [{"speaker": "user", "text": "hi"}]},
        {"id": "c", "question": "Q?", "documents": [], "response": "R.", "labels": {}},
    ]
    f = tmp_path / "x_dev.jsonl"
    f.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n", encoding="utf-8")
    cases = load_shared(f)
    assert [c.id for c in cases] == ["a", "b", "c"]
    a, b, c = cases
    assert a.documents == ("One article text.",) and a.labels["hallucination_spans"] == [[0, 1]]
    assert a.metadata["source_id"] == "ragtruth:s1" and a.metadata["task"] == "Summary"
    assert b.documents == ("p1", "p2") and b.ground_truth == "G"
    assert b.metadata["source_id"] == "mtrag:t9" and b.metadata["history"][0]["text"] == "hi"
    assert b.labels["faithfulness"]["median"] == 4
    assert c.documents == () and c.metadata["source_id"].startswith("docs:")
    assert file_label(f) == "x"


def test_bad_line_is_named(tmp_path):
    f = tmp_path / "bad.jsonl"
    f.write_text('{"id": "a", "question": "q", "response": "r"}\n{not json\n', encoding="utf-8")
    with pytest.raises(ValueError, match="bad.jsonl, line 2"):
        load_shared(f)


def test_absent_name_gives_empty():
    assert load_shared("no_such_shared_file_name") == []

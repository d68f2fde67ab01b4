"""The CLI's JSON writer: valid JSON equal to the data, one list item per line, atomic."""

from __future__ import annotations

import io
import json
from datetime import date

from evaluators.cli.common import dump_json, write_json


def test_round_trips_and_puts_each_case_on_one_line():
    data = {
        "schema_version": 2, "adherence": 0.5, "empty": [], "none": None, "settings": {"a": [1, 2], "b": {"c": "x\ny"}},
        "errors": [{"id": "é", "error": "line 1\nline 2"}],
        "detailed_results": [{"id": str(i), "metrics": {"adherence": i / 3}, "doc": ["0a", "0b"]} for i in range(5)],
        "when": date(2026, 11, 24),
    }
    fh = io.StringIO()
    dump_json(data, fh)
    text = fh.getvalue()
    assert json.loads(text) == {**data, "when": "2026-11-24"}  # default=str, as before
    lines = text.splitlines()
    cases = [ln for ln in lines if ln.startswith('    {"id": "') and '"metrics"' in ln]
    assert len(cases) == 5 and all(json.loads(ln.rstrip(",")) for ln in cases)
    assert "é" in text  # not escaped (ensure_ascii=False)


def test_non_dict_and_empty_dict():
    for value in ([1, 2], {}, "x", 3):
        fh = io.StringIO()
        dump_json(value, fh)
        assert json.loads(fh.getvalue()) == value


def test_write_json_replaces_the_file_atomically(tmp_path):
    out = tmp_path / "sub" / "run.json"
    write_json(str(out), {"a": [1]})
    write_json(str(out), {"b": [{"c": 2}]})
    assert json.loads(out.read_text(encoding="utf-8")) == {"b": [{"c": 2}]}
    assert [p.name for p in out.parent.iterdir()] == ["run.json"]  # no temporary file left

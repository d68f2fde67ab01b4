"""The Upload page shows the dataset loader's warnings (rows kept after a fix-up: a duplicate id
renamed to ``q1#2``, a missing id given ``row-N``) — AppTest through app.py, as a visitor sees it."""

import json
import re

import pytest
from streamlit.testing.v1 import AppTest

from tests import ui_fixtures as fx
from ui import data as ud
from ui import state

pytestmark = pytest.mark.usefixtures("tmp_store", "no_llm_env", "app_py_every_run")


def upload(raw: bytes, name: str = "dupes.jsonl") -> AppTest:
    at = AppTest.from_file(fx.APP, default_timeout=60)
    at.session_state[state._OWNER] = "test-visitor-upload-warnings"
    at.run()
    at.switch_page("pages/1_upload.py").run()  # the app opens on Start
    at.file_uploader(key="upload.file").set_value((name, raw, "application/json")).run()
    assert not at.exception, at.exception
    return at


def row(ident, q: str) -> dict:
    rec = {"question": q, "response": f"The answer to {q}", "documents": [f"A document about {q}"]}
    return rec if ident is None else {"id": ident, **rec}


def test_duplicate_and_missing_ids_are_warned_and_the_rows_kept():
    rows = [row("q1", "first"), row("q1", "second"), row(None, "third"), row("q_2*", "fourth"),
            row("q_2*", "fifth")]
    at = upload("\n".join(json.dumps(r) for r in rows).encode())
    assert [c.id for c in at.session_state[state._DATA].cases] == ["q1", "q1#2", "row-3", "q_2*", "q_2*#2"]
    assert {m.label: m.value for m in at.metric}["Cases ready"] == "5"
    (warn,) = at.warning
    text = re.sub(r"\\(.)", r"\1", warn.value)  # as displayed (Markdown escapes removed)
    assert "3 rows loaded after a fix-up" in text
    assert "row 2" in text and "duplicate id 'q1' (first in row 1)" in text and "'q1#2'" in text
    assert "row 3" in text and "missing id" in text and "'row-3'" in text
    assert r"'q\_2\*#2'" in warn.value  # escaped: shown literally, not as Markdown emphasis
    assert not at.error


def test_many_warnings_are_listed_in_full_in_a_table():
    rows = [row("same", f"question {i}") for i in range(8)]
    at = upload("\n".join(json.dumps(r) for r in rows).encode())
    (warn,) = at.warning
    assert "7 rows loaded after a fix-up" in warn.value and "… and 2 more" in warn.value
    table = at.dataframe[0].value.to_dict("records")  # the first table on the page: all warnings
    assert [t["row"] for t in table] == list(range(2, 9))
    assert table[-1]["problem"].endswith("this row is kept as id 'same#8'")


def test_a_clean_file_shows_no_warning():
    rows = [row(f"id{i}", f"question {i}") for i in range(3)]
    at = upload("\n".join(json.dumps(r) for r in rows).encode())
    assert not at.warning
    assert ud.load_bytes("\n".join(json.dumps(r) for r in rows).encode(), "ok.jsonl").warnings == ()

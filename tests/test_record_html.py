"""Inspect draws a structured document (issue 46) as a readable tree or table of its keyed facts, not
raw JSON: each fact colours, outlines and lights up like a prose sentence, the original text keeps
the focused fact marked in place, every uploaded text is escaped, and prose is drawn as before.
Unit tests of ``ui/highlight/record_html.py`` through ``ui/highlight``, and the Inspect page in AppTest."""

from __future__ import annotations

import json
import re

import pytest

from evaluators.sentencize import from_spans, sentencize_case
from evaluators.types import SentenceSpans, TestCase
from tests.structured_records import RECORDS
from ui import highlight as hl

RECORD = json.dumps({"name": "Blue <script>alert(1)</script> Fin",
                     "attributes": {"WiFi": "no", "Music": None, "BusinessParking": {"street": True}},
                     "reviews": [{"stars": 5,
                                  "text": "Great fish, fresh every day. Friendly staff who know the menu."}]})


def _case(*docs: str) -> TestCase:
    return TestCase(id="r", question="Describe it.", documents=docs, response="It offers free WiFi.")


def test_a_record_is_drawn_as_a_tree_of_its_facts():
    sc = sentencize_case(_case(RECORD))
    html = hl.documents_html(sc, None, focus=("document", "0b"), lit={"0f"})[0]
    tree = html.split('<details class="rag-original">')[0]
    assert 'class="rag-tree"' in tree and '{"' not in tree and "&quot;" not in tree  # no raw JSON in the tree
    assert re.search(r'<div class="rag-branch"[^>]*>attributes</div>', tree)
    assert re.search(r'<div class="rag-branch"[^>]*>Business Parking</div>', tree)
    wifi = re.search(r'<span class="rag-s" data-key="0b"[^>]*><span class="rag-key">0b</span>WiFi: no</span>', tree)
    assert wifi and 'data-state="focus"' in wifi.group(0)
    assert ">Music: null</span>" in tree  # null fields are facts, shown
    # the review's sentences together under its key, each its own keyed sentence
    assert re.search(r"text: <span class=\"rag-s\" data-key=\"0f\"[^>]*data-state=\"lit\"", tree)
    assert 'data-key="0g"' in tree and "Friendly staff who know the menu." in tree


def test_the_original_text_marks_the_focused_fact_in_place_and_everything_is_escaped():
    sc = sentencize_case(_case(RECORD))
    html = hl.documents_html(sc, None, focus=("document", "0b"))[0]
    original = html.split('<details class="rag-original">')[1]
    assert "original text — 1 fact marked" in original
    assert '<mark class="rag-raw" data-state="focus" data-key="0b">&quot;WiFi&quot;: &quot;no&quot;</mark>' in original
    assert "<script" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_a_table_is_drawn_as_a_table_with_one_keyed_row_per_sentence():
    sc = sentencize_case(_case(RECORDS[3]["document"]))
    labels_html = hl.documents_html(sc, None, focus=("document", "0c"))[0]
    assert "<th>Quarter</th><th>Revenue 2023</th><th>Revenue 2024</th><th>Margin 2024</th>" in labels_html
    row = re.search(r'<tr class="rag-s" data-key="0c"[^>]*>(.*?)</tr>', labels_html)
    assert row and 'data-state="focus"' in row.group(0)
    assert row.group(1) == "<td><span class=rag-key>0c</span>Q3</td><td>1.0 bn</td><td>1.2 bn</td><td>13%</td>"


def test_an_html_table_in_prose_keeps_the_prose_and_draws_the_table():
    sc = sentencize_case(_case(RECORDS[9]["document"]))
    html = hl.documents_html(sc, None)[0]
    assert '<table class="rag-table">' in html and "<th>Part</th><th>Value</th>" in html
    assert "&lt;h2&gt;Specifications&lt;/h2&gt;" in html  # the markup around it is text, as in prose


def test_prose_and_sentences_of_an_earlier_splitter_are_drawn_as_before():
    prose = _case("Blue Fin is a cafe. It opened in 2019.")
    html = hl.documents_html(sentencize_case(prose), None)[0]
    assert "rag-tree" not in html and "rag-original" not in html and ">Blue Fin is a cafe.</span>" in html
    old = from_spans(_case(RECORD), SentenceSpans(documents=(((0, len(RECORD)),),), response=((0, 20),)))
    html = hl.documents_html(old, None)[0]
    assert "rag-tree" not in html and "&quot;WiFi&quot;" in html  # one blob, stitched as it was labeled


@pytest.mark.usefixtures("tmp_store", "no_llm_env", "fake_method", "app_py_every_run")
def test_inspect_shows_a_record_as_a_tree_in_apptest():
    from tests import ui_fixtures as fx

    at = fx.inspect_case(TestCase(id="rec", question="Describe Blue Fin.", documents=(RECORD, RECORDS[3]["document"]),
                                  response="Blue Fin offers free WiFi. Revenue 2024 in Q3 was 1.4 bn."))
    assert not at.exception, at.exception
    html = "".join(h.proto.body for h in at.main.get("html"))
    assert 'class="rag-tree"' in html and 'class="rag-table"' in html
    assert 'data-key="0b"' in html and "WiFi: no" in html and "<script" not in html
    picker = at.selectbox(key="inspect.fd.rec")
    assert any("attributes › WiFi: no" in o for o in picker.options)  # facts read as facts in the picker

"""Structured documents (issue 46): JSON records and tables read as facts, judged fact by fact.

Parsing (``evaluators.structured``): facts read as ``path › key: value`` and span the member in the
original text; nulls and empty values are facts; long texts split into sentences under their path;
JSON Lines, arrays of records, Markdown / HTML / CSV tables; bad input (1,000-deep nesting, a
trailing comma, a missing comma, a cut-off document, a 50,000-row table) parsed or left as prose,
never an error. Values compared as values. Claims: ten records of our own, each with a right
response, one wrong in one field, one claiming a null field, one silent on it."""

from __future__ import annotations

import json

import pytest

from evaluators.sentencize import (
    document_pieces,
    from_spans,
    sentencize_case,
    sentencize_document,
    spans_of,
    split_spans,
)
from evaluators.structured import Record, check, humanize, is_structured, parse
from evaluators.structured import values as V
from evaluators.types import TestCase
from tests.structured_records import RECORDS

BLUE_FIN = json.dumps({"name": "Blue Fin", "attributes": {"WiFi": "no", "OutdoorSeating": True, "Music": None,
                                                         "Tags": [], "Notes": ""}})


def _facts(text: str) -> list[tuple[str, str]]:
    st = parse(text, split_spans)
    assert st is not None
    return [(f.text, text[f.start:f.end]) for f in st.facts]


# ---------------------------------------------------------------- JSON
def test_a_record_becomes_one_readable_fact_per_leaf_pointing_at_the_original():
    assert _facts(BLUE_FIN) == [
        ("name: Blue Fin", '"name": "Blue Fin"'),
        ("attributes › WiFi: no", '"WiFi": "no"'),
        ("attributes › Outdoor Seating: yes", '"OutdoorSeating": true'),
        ("attributes › Music: null", '"Music": null'),  # nulls and empty values are facts
        ("attributes › Tags: []", '"Tags": []'),
        ('attributes › Notes: ""', '"Notes": ""'),
    ]


def test_keys_read_as_words_and_values_as_written():
    assert humanize("RestaurantsTakeOut") == "Restaurants Take Out"
    assert humanize("review_stars") == "review stars"
    assert humanize("WiFi") == "WiFi" and humanize("HasTV") == "Has TV"
    assert humanize("durée") == "durée" and humanize("sociétéÉté") == "société Été"  # accents are letters
    assert humanize("größe_Straße") == "größe Straße" and humanize("ÖffnungsZeiten") == "Öffnungs Zeiten"
    doc = '{"hours": {"Monday": "8:0-14:0"}, "stars": 4.0, "price": 1e3}'
    assert [t for t, _ in _facts(doc)] == ["hours › Monday: 08:00–14:00", "stars: 4.0", "price: 1e3"]


def test_a_long_text_value_is_split_into_sentences_under_its_path_with_spans_inside_the_string():
    doc = json.dumps({"reviews": [{"stars": 5, "text": 'Great "fish" here. Friendly staff.\nWould return!'}]})
    facts = _facts(doc)
    assert [t for t, _ in facts] == ["reviews[0] › stars: 5", 'reviews[0] › text: Great "fish" here.',
                                     "reviews[0] › text: Friendly staff.", "reviews[0] › text: Would return!"]
    # the first piece starts at its key; the others span their sentence, escapes and all
    assert facts[1][1] == '"text": "Great \\"fish\\" here.'
    assert facts[2][1] == "Friendly staff." and facts[3][1] == "Would return!"


def test_json_lines_and_arrays_of_records_number_their_records():
    lines = '{"name": "A", "stars": 4}\n{"name": "B", "stars": 2}\n'
    st = parse(lines)
    assert st is not None and st.kind == "jsonl"
    assert [f.text for f in st.facts] == ["[0] › name: A", "[0] › stars: 4", "[1] › name: B", "[1] › stars: 2"]
    arr = parse('[{"name": "A"}, {"name": "B"}]')
    assert arr is not None and [f.text for f in arr.facts] == ["[0] › name: A", "[1] › name: B"]


def test_almost_json_is_read_leniently_and_says_what_was_repaired():
    trailing = parse('{"a": 1, "b": [1, 2,],}')
    assert trailing is not None and [f.text for f in trailing.facts] == ["a: 1", "b[0]: 1", "b[1]: 2"]
    assert "ignored a trailing comma" in trailing.repairs
    cut = parse('{"name": "Blue Fin", "hours": {"Monday": "8:0-14:0", "Tuesday": "8:0')
    assert cut is not None and [f.text for f in cut.facts][-1] == "hours › Tuesday: 08:00"
    assert any("left open" in r for r in cut.repairs)
    python = parse("{'name': 'Blue Fin', 'open': True, 'music': None}")
    assert python is not None and [f.text for f in python.facts] == ["name: Blue Fin", "open: yes", "music: null"]
    missing_comma = '{"name": "Blue Fin" "stars": 4.5, "city": "Goleta"}'
    repaired = parse(missing_comma)
    assert repaired is not None and repaired.repairs and repaired.repairs[0].startswith("read by json_repair")
    assert [(f.text, missing_comma[f.start:f.end]) for f in repaired.facts] == [
        ("name: Blue Fin", '"name": "Blue Fin"'), ("stars: 4.5", '"stars": 4.5'), ("city: Goleta", '"city": "Goleta"')]


@pytest.mark.parametrize("text", ["[1] Smith et al. found that the drug works. [2] Jones disagreed.",
                                  "{Note} this is prose, not JSON.", "42", '"just a string"', "", "   "])
def test_prose_that_looks_like_json_stays_prose(text):
    assert parse(text) is None
    assert [t for _, _, t in document_pieces(text)] == [text[s:e] for s, e in split_spans(text)]


def test_deep_nesting_is_read_without_recursion():
    depth = 20_000
    doc = '{"a": ' * depth + '"leaf"' + "}" * depth
    st = parse(doc)
    assert st is not None and len(st.facts) == 1
    assert st.facts[0].text.endswith("a › a › a: leaf") and "…" in st.facts[0].text
    assert doc[st.facts[0].start:st.facts[0].end] == '"a": "leaf"'


# ---------------------------------------------------------------- tables
def test_a_markdown_table_becomes_one_fact_per_row_with_its_column_names():
    doc = RECORDS[3]["document"]
    facts = _facts(doc)
    assert facts[3] == ('Revenue 2023 (row "Q4"): 1.2 bn; Revenue 2024 (row "Q4"): 1.5 bn; '
                        'Margin 2024 (row "Q4"): (empty)', "| Q4 | 1.2 bn | 1.5 bn | |")


def test_an_html_table_in_prose_keeps_the_prose_split_as_before():
    doc = ("<p>Our prices. Valid in 2024.</p>\n<table><tr><th>Plan</th><th>Price</th></tr>"
           "<tr><td>Basic</td><td>$5</td></tr><tr><td>Pro</td><td>$12</td></tr></table>\nAsk us. We reply fast.")
    st = parse(doc, split_spans)
    assert st is not None and st.kind == "html"
    rows = [f for f in st.facts if f.kind == "row"]
    assert [f.text for f in rows] == ['Price (row "Basic"): $5', 'Price (row "Pro"): $12']
    assert doc[rows[0].start:rows[0].end] == "<tr><td>Basic</td><td>$5</td></tr>"
    prose = [f.text for f in st.facts if f.kind == "prose"]
    assert prose == ["<p>Our prices.", "Valid in 2024.</p>", "Ask us.", "We reply fast."]


def test_csv_text_is_a_table_and_prose_with_commas_is_not():
    st = parse(RECORDS[7]["document"])
    assert st is not None and st.kind == "csv"
    assert st.facts[0].text == 'year (row "Golf"): 2019; mileage_km (row "Golf"): 48000; fuel (row "Golf"): petrol; ' \
                               'price_eur (row "Golf"): 15900'
    title = ("Title: MERS coronavirus: diagnostics, epidemiology and transmission\nPassage: In 2015 two large "
             "outbreaks occurred. South Korea was the site, occurring between May and July 2015.")
    assert parse(title) is None
    assert parse("Hello, world.\nThanks, bye.") is None


def test_a_50000_row_table_is_read_row_by_row():
    doc = "id,city,visits\n" + "".join(f"{i},City {i % 97},{i * 3}\n" for i in range(50_000))
    st = parse(doc)
    assert st is not None and len(st.facts) == 50_000
    last = st.facts[-1]
    assert last.text == 'id (row 50000): 49999; city (row 50000): City 44; visits (row 50000): 149997'
    assert doc[last.start:last.end] == "49999,City 44,149997"


# ---------------------------------------------------------------- sentences and keys
def test_a_structured_document_splits_into_its_facts_keyed_as_usual():
    sents = sentencize_document(BLUE_FIN, 1)
    assert [(s.key, s.text) for s in sents][:2] == [("1a", "name: Blue Fin"), ("1b", "attributes › WiFi: no")]
    assert BLUE_FIN[sents[1].start:sents[1].end] == '"WiFi": "no"'
    assert is_structured(BLUE_FIN) and not is_structured("Blue Fin is a cafe.")


def test_stored_spans_give_back_the_facts_and_old_prose_spans_their_text():
    case = TestCase(id="c", question="q", documents=(BLUE_FIN, "Blue Fin is a cafe. It opened in 2019."),
                    response="Blue Fin offers free WiFi.")
    sc = sentencize_case(case)
    again = from_spans(case, spans_of(sc))
    assert [s.text for s in again.doc_sentences] == [s.text for s in sc.doc_sentences]
    # spans stored before structured documents were read (one blob) read as the text they cover
    from evaluators.types import SentenceSpans

    old = SentenceSpans(documents=(((0, len(BLUE_FIN)),), ((0, 19), (20, 38))), response=((0, 26),))
    assert from_spans(case, old).doc_sentences[0].text == BLUE_FIN


def test_prose_is_split_exactly_as_before():
    texts = ["Paris is in France. It is the capital.\n- a bullet\n| not | a table |",
             "Steps: 1. Install. 2. Run.", "A, b\nc, d e f g. H i."]
    for t in texts:
        assert [(s.start, s.end, s.text) for s in sentencize_document(t, 0)] == \
               [(s, e, t[s:e]) for s, e in split_spans(t)]


# ---------------------------------------------------------------- values
def test_numbers_compare_with_units_and_rounding():
    def n(text: str) -> V.Number:
        return V.numbers_in(text)[0]

    assert V.number_matches(n("4 stars"), 4.0) and V.number_matches(n("4.0 stars"), 4.0)
    assert not V.number_matches(n("4.5 stars"), 4.0)
    assert V.number_matches(n("33.3%"), 0.3333) and V.number_matches(n("$1.2 bn"), 1_200_000_000)
    assert V.number_matches(n("five-star"), 5.0)
    assert V.number_value("1.2 bn") == 1.2e9 and V.number_value("LH 456") is None


def test_truth_times_and_dates():
    assert [V.truth(x) for x in (True, "no", "u'free'", None, "", "casual")] == [True, False, True, None, None, "other"]
    assert V.time_range("8:0-14:0") == (480, 840) and V.time_range("11:0-0:0") == (660, 1440)
    assert [t.minutes for t in V.times_in("from 8 to 2 pm, or noon")] == [480, 840, 720]
    assert [d for d, _, _ in V.dates_in("on January 16, 2022 and 2023-03-14")] == [(2022, 1, 16), (2023, 3, 14)]
    assert V.date_matches((2022, 1, None), (2022, 1, 16)) and V.items("Breakfast & Brunch, Diners") == [
        "Breakfast & Brunch", "Diners"]


# ---------------------------------------------------------------- claims: ten records of our own
@pytest.mark.parametrize("rec", RECORDS, ids=[r["name"] for r in RECORDS])
def test_ten_records_right_wrong_null_and_silent(rec):
    st = parse(rec["document"], split_spans)
    assert st is not None
    record = Record.of(st.facts)

    def found(kind: str) -> list:
        return check(rec[kind], record)

    assert not [f for f in found("right") if f.verdict != "confirms"]
    wrong = [f for f in found("wrong") if f.verdict == "contradicts"]
    assert wrong and rec["wrong_field"] in wrong[0].said
    null = [f for f in found("null") if f.verdict == "unstated"]
    assert null and rec["null_field"] in null[0].said
    assert not [f for f in found("silent") if f.verdict != "confirms"]


def test_negation_and_its_scope():
    record = Record.of(parse(json.dumps({"attributes": {"WiFi": "no", "RestaurantsTakeOut": True,
                                                        "BusinessParking": {"valet": False, "street": True}}}))
                       .facts)  # type: ignore[union-attr]

    def verdicts(s: str) -> list[tuple[str, str]]:
        return [(f.verdict, f.said.split(" › ")[-1]) for f in check(s, record)]

    assert verdicts("It does not offer WiFi.") == [("confirms", "WiFi: no")]
    assert verdicts("WiFi: Not available") == [("confirms", "WiFi: no")]
    assert verdicts("There is no valet parking, but street parking is available.") == [
        ("confirms", "valet: no"), ("confirms", "street: yes")]
    assert verdicts("Take-out is not offered.") == [("contradicts", "Restaurants Take Out: yes")]


# ---------------------------------------------------------------- end to end: trace, the LLM prompt, bad input
def test_trace_judges_the_issue_s_one_record_case_field_by_field():
    from evaluators import evaluate

    r = evaluate(TestCase(id="blue-fin", question="Describe Blue Fin.", documents=(BLUE_FIN,),
                          response="Blue Fin offers free WiFi. Blue Fin has live music."), "trace")
    wifi, music = r.labels.sentences
    assert not wifi.fully_supported and not music.fully_supported
    assert wifi.explanation.startswith("the record says attributes › WiFi: no (0b), not 'offers free WiFi'")
    assert music.explanation.startswith("the record leaves it empty: attributes › Music: null (0d)")
    assert wifi.score is not None and wifi.score <= 0.2
    assert r.scores.expected_adherence < 0.3


def test_trace_on_the_ten_records():
    from evaluators import evaluate_batch

    cases = [TestCase(id=f"{rec['name']}-{kind}", question=f"Describe the {rec['name']}.", documents=(rec["document"],),
                      response=rec[kind]) for rec in RECORDS for kind in ("right", "wrong", "null", "silent")]
    run = evaluate_batch(cases, "trace")
    by_id = {c.case.id: c for c in run.results}
    for rec in RECORDS:
        for kind in ("wrong", "null"):
            s = by_id[f"{rec['name']}-{kind}"].labels.sentences[0]
            field = rec["wrong_field" if kind == "wrong" else "null_field"]
            assert not s.fully_supported and s.explanation.startswith("the record") and field in s.explanation
        for kind in ("right", "silent"):
            for s in by_id[f"{rec['name']}-{kind}"].labels.sentences:
                assert not s.explanation.startswith("the record"), (rec["name"], kind, s.explanation)
    supported = sum(s.fully_supported for rec in RECORDS for kind in ("right", "silent")
                    for s in by_id[f"{rec['name']}-{kind}"].labels.sentences)
    total = sum(len(by_id[f"{rec['name']}-{kind}"].labels.sentences) for rec in RECORDS for kind in ("right", "silent"))
    assert supported >= total - 2  # the encoder's similarity decides these; on this machine all pass


def test_bad_structured_input_never_loses_a_case():
    from evaluators import evaluate_batch

    docs = ['{"a": ' * 1000 + '"deep"' + "}" * 1000,  # 1,000 deep
            '{"name": "Blue Fin", "stars": 4.5,}',  # a trailing comma
            '{"name": "Blue Fin" "stars": 4.5}',  # a missing comma
            '{"name": "Blue Fin", "hours": {"Monday": "8:0-14:0"',  # cut off
            "id,n\n" + "".join(f"{i},{i * 2}\n" for i in range(2000)),  # a long table
            "[not json at all, just prose that opens with a bracket."]
    run = evaluate_batch([TestCase(id=f"bad-{i}", question="q?", documents=(d,), response="Blue Fin has 4.5 stars.")
                          for i, d in enumerate(docs)], "trace")
    assert [c.error for c in run.results] == [None] * len(docs)
    assert all(c.labels is not None and c.labels.sentences for c in run.results)


def test_the_llm_prompt_shows_the_keyed_facts_and_prose_as_before():
    from evaluators.labelers.llm import build_messages

    case = TestCase(id="c", question="Describe it.", documents=(BLUE_FIN, "Blue Fin is a cafe."),
                    response="It offers WiFi.")
    user = build_messages(sentencize_case(case))[1]["content"]
    assert '<document 0 kind="structured data: one fact per sentence' in user
    assert "0b. attributes › WiFi: no" in user and "0d. attributes › Music: null" in user
    assert "<document 1>\n1a. Blue Fin is a cafe.\n</document 1>" in user


def test_numbered_keys_are_told_apart_by_their_number():
    doc = json.dumps({"flags": {f"Feature{i}Enabled": i % 2 == 0 for i in range(40)}, "PriceRange2": 3})
    record = Record.of(parse(doc).facts)  # type: ignore[union-attr]
    assert [(f.verdict, f.said) for f in check("Feature 12 is enabled.", record)] == [
        ("confirms", "flags › Feature 12 Enabled: yes")]
    assert [(f.verdict, f.said) for f in check("Feature 13 is enabled.", record)] == [
        ("contradicts", "flags › Feature 13 Enabled: no")]

"""Sentencizer: keys, spans, lists, languages, edge cases."""

from __future__ import annotations

import re

import pytest

from evaluators.sentencize import (
    MAX_SENTENCE_CHARS,
    DocumentSentencizer,
    letters,
    letters_index,
    parse_doc_key,
    sentencize_case,
    sentencize_document,
    sentencize_response,
    split_sentences,
    split_spans,
)
from evaluators.types import TestCase

# --- keys ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("i,key", [(0, "a"), (1, "b"), (25, "z"), (26, "aa"), (27, "ab"), (51, "az"),
                                   (52, "ba"), (701, "zz"), (702, "aaa")])
def test_letters(i, key):
    assert letters(i) == key
    assert letters_index(key) == i


def test_letters_roundtrip_and_unique():
    keys = [letters(i) for i in range(3000)]
    assert len(set(keys)) == 3000
    assert all(letters_index(k) == i for i, k in enumerate(keys))
    assert all(re.fullmatch("[a-z]+", k) for k in keys)


def test_letters_negative():
    with pytest.raises(ValueError):
        letters(-1)


def test_parse_doc_key():
    assert parse_doc_key("0a") == (0, 0)
    assert parse_doc_key("1c") == (1, 2)
    assert parse_doc_key("12ab") == (12, 27)
    assert parse_doc_key(" 3z ") == (3, 25)
    for bad in ("a", "", "0", "a0", "0A", "supported_without_sentence", "0a1"):
        assert parse_doc_key(bad) is None


def test_sixty_sentence_document_keys():
    doc = " ".join(f"Sentence number {i} talks about topic {i}." for i in range(60))
    sents = sentencize_document(doc, 0)
    assert len(sents) == 60
    keys = [s.key for s in sents]
    assert keys[:3] == ["0a", "0b", "0c"]
    assert keys[25] == "0z"
    assert keys[26] == "0aa"
    assert keys[51] == "0az"
    assert keys[52] == "0ba"
    assert keys[59] == "0bh"
    assert len(set(keys)) == 60
    for i, s in enumerate(sents):
        assert f"number {i} " in s.text
        assert parse_doc_key(s.key) == (0, i)


def test_multi_document_keys_never_collide():
    docs = ["First doc. " * 30, "Second doc one. Second doc two.", "", "Fourth."]
    case = TestCase(id="x", question="q", response="One. Two. Three.", documents=tuple(docs))
    sc = sentencize_case(case)
    keys = sc.doc_keys
    assert len(keys) == len(set(keys)) == 30 + 2 + 0 + 1
    assert keys[30:] == ("1a", "1b", "3a")  # the empty document 2 has no sentences
    assert [s.doc for s in sc.doc_sentences][-1] == 3
    assert sc.response_keys == ("a", "b", "c")
    assert all(s.doc is None for s in sc.response_sentences)


def test_response_keys_past_z():
    resp = " ".join(f"Claim {i} is here." for i in range(28))
    keys = [s.key for s in sentencize_response(resp)]
    assert keys[25:] == ["z", "aa", "ab"]


def test_keys_stable_for_same_text():
    text = "Alpha is first. Beta is second.\n- Gamma bullet\n1. Delta item"
    a = [(s.key, s.text, s.start, s.end) for s in sentencize_document(text, 2)]
    split_spans.cache_clear()
    b = [(s.key, s.text, s.start, s.end) for s in sentencize_document(text, 2)]
    assert a == b
    assert [k for k, *_ in a] == ["2a", "2b", "2c", "2d"]


def test_spans_point_into_original_text():
    text = "  Leading space. Second one!\r\n\r\n- bullet item\n\tTabbed line? Yes."
    for s in sentencize_document(text, 0):
        assert text[s.start:s.end] == s.text
        assert s.text == s.text.strip()
    for s in sentencize_response(text):
        assert text[s.start:s.end] == s.text


# --- structure -------------------------------------------------------------------------------------

def test_bullets_and_numbered_lists_on_lines():
    text = ("Steps to install:\n1. Download the package.\n2. Run the installer.\n3. Restart.\n"
            "- first bullet\n* second bullet\n• third bullet\n-\n•")
    assert split_sentences(text) == [
        "Steps to install:", "1. Download the package.", "2. Run the installer.", "3. Restart.",
        "- first bullet", "* second bullet", "• third bullet",
    ]


def test_inline_numbered_list_markers_stay_with_their_item():
    assert split_sentences("Steps: 1. Install it. 2. Run it. 3. Profit.") == [
        "Steps:", "1. Install it.", "2. Run it.", "3. Profit."]


def test_colon_number_without_list_is_not_moved():
    assert split_sentences("Total: 1. That is all.") == ["Total: 1.", "That is all."]
    assert split_sentences("Rating: 5. Price: 2. It is a good place.") == [
        "Rating: 5.", "Price: 2.", "It is a good place."]


def test_number_at_sentence_end_is_not_moved():
    assert split_sentences("The answer is 3. That is final.") == ["The answer is 3.", "That is final."]
    assert split_sentences("He was born in 1990. He moved in 2001.") == [
        "He was born in 1990.", "He moved in 2001."]


def test_newlines_split_sentences():
    assert split_sentences("Title line\nBody text without period\n\nLast") == [
        "Title line", "Body text without period", "Last"]
    assert split_sentences("Windows line\r\nNext line\r\n") == ["Windows line", "Next line"]


def test_abbreviations_and_decimals():
    text = ("Dr. Smith met Mr. Jones in Washington, D.C. on Jan. 5. The U.S. economy grew 2.5% in Q3. "
            "Version 2.0.1 costs $3.50, e.g. for students.")
    assert split_sentences(text) == [
        "Dr. Smith met Mr. Jones in Washington, D.C. on Jan. 5.",
        "The U.S. economy grew 2.5% in Q3.",
        "Version 2.0.1 costs $3.50, e.g. for students.",
    ]


def test_titles_before_names():
    assert split_sentences("The report came out. Lt. Col. Jean-Marc Menichini said so. Cmdr. Lee agreed.") == [
        "The report came out.", "Lt. Col. Jean-Marc Menichini said so.", "Cmdr. Lee agreed."]


def test_question_and_exclamation():
    assert split_sentences("Is it true? Yes! It is.") == ["Is it true?", "Yes!", "It is."]


@pytest.mark.parametrize("text", ["", "   ", "\n\n\t", "-", "• - *", "...", "\n-\n"])
def test_empty_and_punctuation_only(text):
    assert split_sentences(text) == []
    assert sentencize_document(text, 0) == ()
    assert sentencize_response(text) == ()


def test_no_period():
    assert split_sentences("a document with no period at all") == ["a document with no period at all"]


def test_very_long_sentence_is_cut_at_commas_or_spaces():
    clause = "the quick brown fox jumps over the lazy dog"
    text = ", ".join([clause] * 60) + "."  # one 2,700-char "sentence"
    parts = split_sentences(text)
    assert len(parts) >= 4
    assert all(len(p) <= MAX_SENTENCE_CHARS for p in parts)
    assert all(p.endswith(",") or p.endswith(".") for p in parts)
    assert "".join(p.replace(",", "").replace(".", "").replace(" ", "") for p in parts) == \
        text.replace(",", "").replace(".", "").replace(" ", "")


def test_long_sentence_cut_at_spaces_has_no_trailing_space():
    text = " ".join(["word"] * 400) + "."
    spans = split_spans(text)
    assert len(spans) >= 3
    for s, e in spans:
        assert text[s:e] == text[s:e].strip() and e - s <= MAX_SENTENCE_CHARS
    assert " ".join(text[s:e] for s, e in spans) == text


def test_long_text_without_spaces_is_cut_hard():
    text = "x" * (MAX_SENTENCE_CHARS * 2 + 10)
    parts = split_sentences(text)
    assert "".join(parts) == text
    assert all(len(p) <= MAX_SENTENCE_CHARS for p in parts)


# --- languages -------------------------------------------------------------------------------------

@pytest.mark.parametrize("text,expected", [
    ("La tour Eiffel a été achevée en 1889. Elle mesure 330 mètres. M. Dupont l'a visitée.",
     ["La tour Eiffel a été achevée en 1889.", "Elle mesure 330 mètres.", "M. Dupont l'a visitée."]),
    ("Est-ce vrai ? Oui !", ["Est-ce vrai ?", "Oui !"]),
    ("Die Firma wurde 1998 gegründet. Sie hat z. B. 500 Mitarbeiter. Wir treffen uns am 3. Oktober in Berlin.",
     ["Die Firma wurde 1998 gegründet.", "Sie hat z. B. 500 Mitarbeiter.", "Wir treffen uns am 3. Oktober in Berlin."]),
    ("Am 1. Januar 2020 trat das Gesetz in Kraft. Es gilt bundesweit.",
     ["Am 1. Januar 2020 trat das Gesetz in Kraft.", "Es gilt bundesweit."]),
    ("东京是日本的首都。它有很多人口！你去过吗？", ["东京是日本的首都。", "它有很多人口！", "你去过吗？"]),
    ("東京は日本の首都です。人口が多いです。", ["東京は日本の首都です。", "人口が多いです。"]),
    ("दिल्ली भारत की राजधानी है। यह बहुत बड़ा शहर है।", ["दिल्ली भारत की राजधानी है।", "यह बहुत बड़ा शहर है।"]),
    ("هل هذا صحيح؟ نعم", ["هل هذا صحيح؟", "نعم"]),
])
def test_non_english(text, expected):
    assert split_sentences(text) == expected


# --- facade ----------------------------------------------------------------------------------------

def test_document_sentencizer_facade():
    ds = DocumentSentencizer()
    docs = ["Paris is in France. It is the capital.", "Berlin is in Germany."]
    assert ds.sentencize_documents(docs) == [
        ("0a", "Paris is in France."), ("0b", "It is the capital."), ("1a", "Berlin is in Germany.")]
    assert ds.sentencize_response("Paris is the capital. Berlin too.") == [
        ("a", "Paris is the capital."), ("b", "Berlin too.")]
    assert ds.sentencize_documents([]) == []
    assert ds.sentencize_response("") == []


def test_span_invariants_on_shared_data():
    import json
    from pathlib import Path

    shared = Path(__file__).resolve().parents[1].parent / "shared" / "data"
    files = sorted(shared.glob("*.jsonl")) if shared.is_dir() else []
    if not files:
        pytest.skip("../shared/data not present")
    n = 0
    for f in files:
        for line in f.read_text(encoding="utf-8").splitlines()[:60]:
            rec = json.loads(line)
            if "documents" not in rec:  # nli_pairs_dev.jsonl: premise-claim pairs, not RAG cases
                continue
            for text in [*rec["documents"], rec["response"]]:
                spans = split_spans(text)
                for (_s1, e1), (s2, _) in zip(spans, spans[1:]):
                    assert e1 <= s2
                for s, e in spans:
                    piece = text[s:e]
                    assert e > s and piece == piece.strip() and len(piece) <= MAX_SENTENCE_CHARS
                    assert re.search(r"\w", piece)
                n += len(spans)
    assert n > 1000


def test_responses_keep_a_quoted_claim_whole():
    text = ('The error "Could not place order. Problem authorizing the card." means the bank refused. '
            "Write to verify@us.ibm.com. to resolve this issue. iPhone users see it too.")
    assert [s.text for s in sentencize_response(text)] == [
        'The error "Could not place order. Problem authorizing the card." means the bank refused.',
        "Write to verify@us.ibm.com. to resolve this issue.",
        "iPhone users see it too.",
    ]
    # documents keep the finer split: each quoted sentence is its own piece of evidence
    assert len(sentencize_document(text, 0)) > 3
    # a stray quote mark does not swallow what follows
    stray = 'A stray " mark. One. Two. Three. Four.'
    assert len(sentencize_response(stray)) == 5

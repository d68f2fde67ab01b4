"""Issue 55 item 1-2: support from several sentences — the parts a response sentence asserts, the
small set of document sentences that carries them, the explanation part by part, the parts carried
nowhere (Inspect marks them), utilization from the new keys, and the LLM reply's keys kept whole."""

from __future__ import annotations

import pytest

from evaluators.labelers.heuristic_parts import parts_of

DOCS = ("WLUR is the radio station of Washington and Lee University. In July 2001, direction of WLUR is "
        "transferred from the journalism department to the student body. Since then it becomes a strictly "
        "extracurricular activity. Today upwards of 100 volunteers run the station.",
        "Jiri Novak is a Czech philosopher. In 1971 he was a visiting professor at the University of "
        "Colorado. From 1972 to 1973 he taught at Yale as a visiting professor. He later lectured at "
        "Masaryk University in Brno. He enjoys hiking.")


def test_a_sentence_splits_into_numbers_names_and_words():
    got = [(p.kind, p.text) for p in parts_of("He held professorships at the University of Colorado (1971) "
                                              "and Masaryk University, not at Yale.")]
    assert ("name", "University of Colorado") in got and ("name", "Masaryk University") in got
    assert ("number", "1971") in got and ("name", "Yale") in got and ("word", "professorships") in got
    assert not any(t in ("not", "the", "at") for _, t in got)  # negations and stop words are no part


@pytest.fixture(scope="module")
def labelled():
    from evaluators import evaluate

    r = evaluate({"id": "w", "question": "What happened to WLUR, and where did Novak teach?",
                  "documents": list(DOCS),
                  "response": "The journalism department handed WLUR to the student body in 2001, and it has "
                              "been a strictly extracurricular activity since. He has held visiting "
                              "professorships at the University of Colorado (1971), Yale (1972–1973), and "
                              "Masaryk University. He also taught at Harvard in 1985."})
    return r


def test_every_part_finds_the_sentence_that_carries_it_in_any_document(labelled):
    a, b = labelled.labels.sentences[:2]
    assert a.fully_supported and set(a.supporting_keys) == {"0b", "0c"}
    assert "2001: 0b" in a.explanation and "extracurricular" in a.explanation.split("\n")[0]
    assert b.fully_supported and set(b.supporting_keys) == {"1b", "1c", "1d"}  # not the hiking line
    reason = b.explanation.split("\n")[0]
    assert "Masaryk University: 1d" in reason and "University of Colorado: 1b" in reason and "Yale: 1c" in reason


def test_parts_carried_nowhere_are_named_and_kept_for_inspect(labelled):
    c = labelled.labels.sentences[2]
    assert not c.fully_supported
    marks = labelled.labels.extra["uncarried_parts"][c.key]
    texts = [m[2] for m in marks]
    assert "Harvard" in texts and "1985" in texts
    sent = labelled.case.response[labelled.spans.response[2][0]:labelled.spans.response[2][1]]
    assert all(sent[s:e] == t for s, e, t in marks)


def test_utilization_takes_every_key_of_a_supported_sentence(labelled):
    used = set(labelled.labels.utilized_keys)
    assert {"0b", "0c", "1b", "1c", "1d"} <= used


def test_the_llm_reply_keeps_all_supporting_keys():
    from evaluators.labelers.llm import LabelingReply, to_labels
    from evaluators.sentencize import sentencize_case
    from evaluators.types import TestCase

    item = sentencize_case(TestCase(id="1", question="q", documents=DOCS, response="He taught at three places."))
    for keys in (["1b", "1c", "1d", "0b"], "1b, 1c; 1d 0b", "['1b', '1c', '1d', '0b']", ["1b", "1c", "1d", "0b", "1c"]):
        reply = LabelingReply.model_validate({
            "all_relevant_sentence_keys": [], "all_utilized_sentence_keys": ["1b", "1c", "1d", "0b"],
            "sentence_support_information": [{"response_sentence_key": "a", "supporting_sentence_keys": keys,
                                              "fully_supported": True, "explanation": "x"}]})
        labels = to_labels(reply, item)
        assert labels.sentences[0].supporting_keys == ("1b", "1c", "1d", "0b"), keys

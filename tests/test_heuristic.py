"""The offline ``trace`` labeler with the real embedded model (loaded once per process)."""

from __future__ import annotations

import json

import pytest

from evaluators import EvalOptions, TestCase, evaluate, evaluate_batch
from evaluators.encoder import embeddings
from evaluators.labelers.heuristic import HeuristicMethod, needs_no_support
from evaluators.sentencize import sentencize_case
from evaluators.types import SPECIAL_SUPPORT_KEYS

DOCS = (
    "The Eiffel Tower was completed in 1889 as the entrance arch to the World's Fair. "
    "It was designed by the engineering company of Gustave Eiffel. "
    "The tower is located on the Champ de Mars in Paris, France. "
    "It is 330 metres tall and was the tallest man-made structure until 1930.",
    "Bananas are a good source of potassium and vitamin B6. "
    "Most bananas sold in Europe come from Latin America.",
)
QUESTION = "When was the Eiffel Tower completed and who designed it?"


@pytest.fixture(scope="session")
def model():
    return embeddings.load()


def _label(case: TestCase, **heuristic):
    item = sentencize_case(case)
    out = HeuristicMethod().label([item], EvalOptions(heuristic=heuristic), lambda n: None)[0]
    assert out.error is None, out.error
    return item, out.labels


def _by_text(item, labels, fragment):
    for s, lab in zip(item.response_sentences, labels.sentences):
        if fragment in s.text:
            return lab
    raise AssertionError(f"no response sentence contains {fragment!r}")


def test_supported_vs_invented(model):
    resp = ("The Eiffel Tower was completed in 1889. "
            "It was designed by the company of Gustave Eiffel. "
            "The Eiffel Tower was completed in 1925. "
            "It was designed by Leonardo Bernini of Rome. "
            "The tower's elevators are powered entirely by solar panels installed in 2021.")
    item, labels = _label(TestCase(id="x", question=QUESTION, response=resp, documents=DOCS))
    good_year = _by_text(item, labels, "in 1889")
    good_name = _by_text(item, labels, "Gustave")
    bad_year = _by_text(item, labels, "1925")
    bad_name = _by_text(item, labels, "Bernini")
    unrelated = _by_text(item, labels, "solar")
    assert good_year.fully_supported and good_name.fully_supported
    assert not bad_year.fully_supported and not bad_name.fully_supported
    assert not unrelated.fully_supported
    assert unrelated.level == "none"
    for ok in (good_year, good_name):
        for bad in (bad_year, bad_name, unrelated):
            assert ok.score > bad.score
    # explanations name the evidence
    assert "the document says 1889, not 1925 (0a)" in bad_year.explanation  # the conflicting number
    assert bad_year.level == "none"
    assert "Bernini" in bad_name.explanation
    assert "0a" in good_year.explanation  # the supporting key
    assert "0a" in good_year.supporting_keys
    assert labels.overall_supported is False
    assert 0.0 <= labels.confidence <= 1.0


def test_keys_valid_and_utilized_from_support(model):
    resp = "The tower is in Paris. It is 330 metres tall. Bananas contain potassium."
    item, labels = _label(TestCase(id="k", question=QUESTION, response=resp, documents=DOCS))
    doc_keys = set(item.doc_keys)
    assert labels.document_keys == item.doc_keys
    assert [s.key for s in labels.sentences] == list(item.response_keys)
    for s in labels.sentences:
        assert set(s.supporting_keys) <= doc_keys | SPECIAL_SUPPORT_KEYS
        assert s.score is not None and 0.0 <= s.score <= 1.0
    assert set(labels.relevant_keys) <= doc_keys and set(labels.utilized_keys) <= doc_keys
    used = {k for s in labels.sentences if s.level != "none" for k in s.supporting_keys} & doc_keys
    from evaluators.labelers import context_model

    if context_model.load_params() is None:  # hand rule: utilized = the supporting keys
        assert set(labels.utilized_keys) == used
        assert "1a" in labels.utilized_keys  # the banana sentence supports the last claim
    else:  # learned utilization: the most probable sentences plus the support of every supported claim
        full = {k for s in labels.sentences if s.fully_supported for k in s.supporting_keys} & doc_keys
        assert full <= set(labels.utilized_keys)
        assert "1a" in labels.utilized_keys  # the banana sentence supports the last claim
    assert all(s.fully_supported for s in labels.sentences)


def test_relevance(model):
    item, labels = _label(TestCase(id="r", question=QUESTION, response="It was completed in 1889.",
                                   documents=DOCS))
    assert "0a" in labels.relevant_keys  # completion date
    assert "1a" not in labels.relevant_keys and "1b" not in labels.relevant_keys  # bananas
    assert "relate to the question" in labels.relevance_explanation


def test_refusals_and_transitions_need_no_support(model):
    resp = ("Here is a summary of the documents:\n"
            "The documents do not mention who paid for the tower.\n"
            "I hope this helps!")
    item, labels = _label(TestCase(id="n", question="Who paid for the Eiffel Tower?", response=resp,
                                   documents=DOCS))
    assert len(labels.sentences) == 3
    for s in labels.sentences:
        assert s.fully_supported
        assert set(s.supporting_keys) <= SPECIAL_SUPPORT_KEYS and s.supporting_keys
        assert "needs no support" in s.explanation
    assert labels.sentences[1].supporting_keys == ("supported_without_sentence",)
    assert labels.overall_supported


@pytest.mark.parametrize("text,expected", [
    ("The provided context does not mention the price.", "supported_without_sentence"),
    ("I'm sorry, but I don't have enough information to answer that.", "supported_without_sentence"),
    ("There is no information about parking in the data.", "supported_without_sentence"),
    ("Here are the key points:", "general"),
    ("Let me know if you have other questions.", "general"),
    ("The tower was not completed until 1889.", None),
    ("Unfortunately, the restaurant does not offer WiFi.", None),
    ("Here is the answer: the tower opened in 1889.", None),
    ("5. **Check Delimiters and Formats**:", "general"),  # a numbered heading: the 5 is no claim
    ("3. The tower opened in 1889:", None),
    ("Sorry, but I have no information regarding when it was developed.", "supported_without_sentence"),
    ("If you're encountering errors while updating your credit card, here are some troubleshooting "
     "steps you can follow:", "general"),
    ("If you're encountering errors while updating your credit card on the billing page, the account "
     "holder must contact support:", None),
])
def test_needs_no_support_patterns(text, expected):
    got = needs_no_support(text)
    assert (got[0] if got else None) == expected


def test_no_documents(model):
    resp = "The tower opened in 1889. I don't know who paid for it."
    run = evaluate_batch([TestCase(id="nd", question=QUESTION, response=resp)], "trace")
    r = run.results[0]
    assert r.error is None
    lab = r.labels
    assert lab.document_keys == () and lab.relevant_keys == () and lab.utilized_keys == ()
    assert not lab.sentences[0].fully_supported and "no documents" in lab.sentences[0].explanation
    assert lab.sentences[1].fully_supported  # a refusal needs no document
    assert r.scores.adherence == 0.5 and r.scores.context_relevance == 0.0


def test_one_encode_call_per_chunk(model):
    cases = [TestCase(id=str(i), question=QUESTION, documents=DOCS,
                      response=f"The tower was completed in 1889. Variant sentence {i} about towers.")
             for i in range(6)]
    items = [sentencize_case(c) for c in cases]
    before = dict(embeddings.stats)
    outs = HeuristicMethod().label(items, EvalOptions(), lambda n: None)
    assert all(o.labels for o in outs)
    assert embeddings.stats["model_calls"] - before["model_calls"] <= 1
    # shared document sentences and the repeated sentence are embedded at most once
    uniq = {QUESTION} | {s.text for it in items for s in it.doc_sentences + it.response_sentences}
    assert embeddings.stats["texts_encoded"] - before["texts_encoded"] <= len(uniq)


def test_one_bad_case_does_not_sink_the_chunk(model, monkeypatch):
    cases = [TestCase(id=i, question=QUESTION, documents=DOCS, response="The tower is in Paris.")
             for i in ("ok1", "bad", "ok2")]
    orig = HeuristicMethod._prepare

    def flaky(self, it, *a, **k):
        if it.case.id == "bad":
            raise ValueError("boom")
        return orig(self, it, *a, **k)

    monkeypatch.setattr(HeuristicMethod, "_prepare", flaky)
    run = evaluate_batch(cases, "trace")
    assert [r.ok for r in run.results] == [True, False, True]
    assert "boom" in run.results[1].error


def test_threshold_option_and_unknown_option(model):
    case = TestCase(id="t", question=QUESTION, documents=DOCS, response="The tower is in Paris.")
    _, strict = _label(case, threshold=0.999999)
    _, lax = _label(case, threshold=0.0)
    assert not strict.sentences[0].fully_supported and lax.sentences[0].fully_supported
    r = evaluate(case, "trace", heuristic={"treshold": 0.5})
    assert r.error and "treshold" in r.error and "valid:" in r.error


def test_confidence_orders_clear_vs_borderline(model):
    clear = TestCase(id="c", question=QUESTION, documents=DOCS,
                     response="The Eiffel Tower was completed in 1889.")
    _, lab = _label(clear)
    assert lab.confidence is not None and 0.0 <= lab.confidence <= 1.0
    # moving the threshold onto the sentence's own probability makes it maximally uncertain
    p = lab.sentences[0].score
    _, lab2 = _label(clear, threshold=p)
    assert lab2.confidence < lab.confidence


def test_structured_json_attributes(model):
    import json

    doc = json.dumps({"name": "Blue Door Cafe", "city": "Springfield", "stars": 4.5,
                      "categories": "Coffee & Tea, Breakfast",
                      "attributes": {"WiFi": "no", "OutdoorSeating": True, "RestaurantsReservations": False,
                                     "Music": None},
                      "hours": {"Monday": "7:0-15:0", "Tuesday": "7:0-15:0"}})
    resp = ("Blue Door Cafe is a coffee and breakfast spot in Springfield. "
            "It offers free WiFi and takes reservations.")
    item, labels = _label(TestCase(id="j", question="Describe the business.", response=resp,
                                   documents=(doc,)))
    assert labels.extra["model"] == "structured"
    ok, bad = labels.sentences
    assert ok.fully_supported
    assert not bad.fully_supported and ok.score > bad.score
    assert bad.explanation.startswith("the record says attributes › WiFi: no")  # field by field (issue 46)


def test_params_file_is_consistent():
    from evaluators.labelers.heuristic import PARAMS_PATH
    from evaluators.labelers.heuristic_features import FEATURES

    p = json.loads(PARAMS_PATH.read_text(encoding="utf-8"))  # the fallback combiners
    assert p["features"] == list(FEATURES)
    assert 0.0 < p["threshold"] < 1.0
    for name in ("prose", "structured"):
        m = p["models"][name]
        assert len(m["coef"]) == len(m["mean"]) == len(m["scale"]) == len(FEATURES)


def test_readme_documents_the_shipped_threshold():
    """docs/research.md ("How far to trust `trace`") names the threshold heuristic_params.json ships."""
    import re
    from pathlib import Path

    from evaluators.labelers.heuristic import load_params

    section = (Path(__file__).resolve().parents[1] / "docs" / "research.md").read_text(encoding="utf-8")
    thr = load_params()["threshold"]
    assert f"P ≥ **{thr}**" in section
    assert re.search(rf"F1 at {re.escape(str(thr))}\b", section)


def test_markup_is_not_evidence():
    """List numbers, markdown emphasis and capitalised sentence starters are not numbers / names."""
    from evaluators.labelers.heuristic_features import analyze, strip_markup

    head = analyze("4. **Report the Transfer:** Depending on the value, you might need to pay fees.")
    assert head.numbers == frozenset()
    assert head.names == ()
    assert strip_markup("- *Gustave* Eiffel") == "Gustave Eiffel"
    real = analyze("3. Gustave Eiffel built it for 7 million francs in Paris.")
    assert real.numbers == {"7", "1000000"}
    assert {"Gustave", "Eiffel", "Paris"} <= set(real.names)
    assert analyze("NASA and IBM agreed.").names == ("NASA", "IBM")  # acronyms stay names


def test_names_and_numbers_of_the_question_are_given(model):
    docs = ("Small claims courts hear disputes up to 12,500 dollars. "
            "You file the claim form with the clerk of the court.",)
    resp = "In Sacramento County, you file the claim form with the clerk of the small claims court."
    _, asked = _label(TestCase(id="q", question="How do I file a small claim? I live in Sacramento County.",
                               response=resp, documents=docs))
    _, unasked = _label(TestCase(id="n", question="How do I file a small claim?", response=resp,
                                 documents=docs))
    assert "Sacramento" in unasked.sentences[0].explanation
    assert "Sacramento" not in asked.sentences[0].explanation
    assert asked.sentences[0].score > unasked.sentences[0].score

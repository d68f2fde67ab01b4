"""Issue 55 item 1-2: support from several sentences — the parts a response sentence asserts, the
small set of document sentences that carries them, the explanation part by part, the parts carried
nowhere (Inspect marks them), utilization from the new keys, and the LLM reply's keys kept whole."""

from __future__ import annotations

import math

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


# ---------------------------------------------------------------- the fitted selector, utilization, the verdict
COPIED = ("The museum opened in 1912 on the harbour front. It holds 4,000 paintings.",
          "Visitors arrive by ferry. The museum opened in 1912 on the harbour front.",
          "The cafe serves soup. Parking is scarce.")


def _prepared(response: str, docs=COPIED):
    from evaluators.labelers.heuristic import HeuristicMethod
    from evaluators.options import EvalOptions
    from evaluators.sentencize import sentencize_case
    from evaluators.types import TestCase

    m = HeuristicMethod()
    item = sentencize_case(TestCase(id="m", question="When did the museum open?", documents=docs, response=response))
    _, prepared = m.featurize([item], EvalOptions())
    return m, item, m._settings(EvalOptions()), prepared


def test_the_selector_keeps_the_anchor_first_and_names_the_candidates_it_accepts():
    from evaluators.labelers import heuristic_parts as hp
    from evaluators.labelers import heuristic_selector as sel

    m, item, settings, prepared = _prepared("The museum opened in 1912 on the harbour front.")
    p = prepared[0]
    pts = hp.parts_of(p["sent"][0]["text"])
    car, weight = hp.carriers_and_weights(pts, p["doc"])
    greedy = hp.greedy(pts, car, weight, p["S"][0], hp.MAX_KEYS)
    idx, X = sel.candidate_rows(car, weight, p["S"][0], p["doc"], greedy)
    assert X.shape == (len(idx), len(sel.SELECT_FEATURES)) and idx[:len(greedy)] == greedy
    copy = list(sel.SELECT_FEATURES).index("copy")
    keys = item.doc_keys
    other = {"0a": "1b", "1b": "0a"}[keys[greedy[0]]]  # the same sentence in the other document
    assert X[idx.index(keys.index(other)), copy] == 1.0
    k = len(sel.SELECT_FEATURES)
    coef = [0.0] * k
    coef[copy] = 20.0
    only_copies = {"mean": [0.0] * k, "scale": [1.0] * k, "coef": coef, "intercept": -10.0, "threshold": 0.5}
    labels = m.label_prepared([item], prepared, settings, support=only_copies)[0].labels
    assert labels.sentences[0].supporting_keys == (keys[greedy[0]], other)  # the anchor first, then its copy
    none_pass = {**only_copies, "threshold": 1.1}
    labels = m.label_prepared([item], prepared, settings, support=none_pass)[0].labels
    assert labels.sentences[0].supporting_keys == (keys[greedy[0]],)


def test_the_selector_sees_the_sentence_that_continues_a_chosen_one_and_an_older_selector_still_runs():
    from evaluators.labelers import heuristic_parts as hp
    from evaluators.labelers import heuristic_selector as sel

    m, item, settings, prepared = _prepared("The museum opened in 1912 on the harbour front.")
    p = prepared[0]
    pts = hp.parts_of(p["sent"][0]["text"])
    car, weight = hp.carriers_and_weights(pts, p["doc"])
    greedy = hp.greedy(pts, car, weight, p["S"][0], hp.MAX_KEYS)
    idx, X = sel.candidate_rows(car, weight, p["S"][0], p["doc"], greedy, pts)
    col = {f: list(sel.SELECT_FEATURES).index(f) for f in sel.SELECT_FEATURES}
    keys = item.doc_keys
    after = {"0a": "0b", "1b": None}[keys[greedy[0]]]  # "It holds 4,000 paintings." follows the anchor 0a
    if after is not None:
        row = X[idx.index(keys.index(after))]
        assert row[col["prev_g"]] == 1.0 and row[col["next_g"]] == 0.0 and row[col["next_to"]] == 1.0
    anchor = X[0]
    assert anchor[col["rev"]] == 1.0  # every content word of the anchor is in the claim
    assert anchor[col["zsim"]] > 0 and anchor[col["nparts"]] == pytest.approx(math.log1p(len(pts)))
    # a selector over the first six features (as fitted before) picks its columns by name
    old = {"features": list(sel.SELECT_FEATURES[:6]), "mean": [0.0] * 6, "scale": [1.0] * 6,
           "coef": [0.0] * 5 + [20.0], "intercept": -10.0, "threshold": 0.5}
    copies = [i for i in idx if i != greedy[0] and X[idx.index(i), col["copy"]] == 1.0]
    assert copies and sel.select(idx, X, greedy, old) == [greedy[0], *copies]


def test_the_shipped_selector_names_another_documents_copy_and_utilization_counts_what_the_verdict_rests_on(
        monkeypatch):
    from evaluators.labelers import heuristic_parts as hp
    from evaluators.labelers import heuristic_selector as sel

    assert sel.load_selector() is not None, "support_params.json ships"
    m, item, settings, prepared = _prepared("The museum opened in 1912 on the harbour front.")
    labels = m.label_prepared([item], prepared, settings)[0].labels
    assert set(labels.sentences[0].supporting_keys) == {"0a", "1b"} and labels.sentences[0].fully_supported
    assert {"0a", "1b"} <= set(labels.utilized_keys)
    att = hp.attribute(prepared[0]["sent"][0]["text"], prepared[0]["S"][0], prepared[0]["doc"])
    assert hp.UTILIZED == "carriers"  # only the sentences that carry a part: not the copy
    assert [item.doc_keys[i] for i in hp.utilized_by(att)] == [item.doc_keys[att.chosen[0]]]
    monkeypatch.setattr(hp, "UTILIZED", "chosen")
    assert sorted(item.doc_keys[i] for i in hp.utilized_by(att)) == ["0a", "1b"]


def test_parts_carried_nowhere_move_p_only_through_fitted_offsets():
    from evaluators.labelers import heuristic_parts as hp

    m, item, settings, prepared = _prepared("The museum opened in 1912 and holds 7,500 sculptures by Rodin.")
    att = hp.attribute(prepared[0]["sent"][0]["text"], prepared[0]["S"][0], prepared[0]["doc"], selector=None)
    feats = hp.uncarried_features(att, "When did the museum open?")
    assert feats[0] == 1.0 and feats[1] == 1.0 and 0 < feats[2] < 1  # 7,500 and Rodin carried nowhere
    assert hp.with_uncarried(0.9, feats, [0.0, 0.0, 0.0]) == 0.9
    assert hp.with_uncarried(0.9, feats, [-2.0, 0.0, 0.0]) < 0.6
    base = m.label_prepared([item], prepared, settings, support=None)[0].labels.sentences[0].score
    moved = m.label_prepared([item], prepared, settings, support={"uncarried": {"coef": [-20.0, 0.0, 0.0]}})
    assert moved[0].labels.sentences[0].score < base and not moved[0].labels.sentences[0].fully_supported
    whole = hp.attribute("The museum opened in 1912.", prepared[0]["S"][0], prepared[0]["doc"], selector=None)
    assert hp.uncarried_features(whole) == (0.0, 0.0, 0.0)

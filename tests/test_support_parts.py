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


# ---------------------------------------------------------------- numbers as a claim generalises them
PAGE = ("WLUR is the campus radio station of Washington and Lee University. WLUR first went on the air in 1967 "
        "as a project of the journalism department. The studios are in the Elrod Commons. In July 2001, "
        "direction of WLUR is transferred from the journalism department to the Office of Student Affairs. "
        "With the move, it becomes a strictly extracurricular activity. Today upwards of 100 volunteers host "
        "shows each week. The chapel was built in 1852. The university enrolls 2,143 students. Home | About")


@pytest.mark.parametrize("claim, number, carried", [
    ("in the 2000s", "2000s", True), ("in the 1990s", "1990s", False), ("the 1000s", "1000", False),
    ("a 19th-century chapel", "19c", True), ("an 18th century chapel", "18c", False),
    ("about 2,100 students", "≈2100", True), ("about 3,000 students", "≈3000", False),
    ("more than 100 volunteers", ">100", True), ("fewer than 100 volunteers", "<100", True),
    ("under 50 volunteers", "<50", False), ("over 1900 students", ">1900", True),
    ("around 1850", "~1850", True), ("around 1840", "~1840", False), ("more than 200 people", ">200", False),
])
def test_a_decade_a_century_and_a_rounded_number_are_carried_by_the_figures_that_say_them(claim, number, carried):
    from evaluators.labelers.heuristic_features import build_doc_index, number_found
    from evaluators.labelers.heuristic_parts import carriers
    from evaluators.sentencize import sentencize_case
    from evaluators.types import TestCase

    (part,) = [p for p in parts_of(claim) if p.kind == "number"]
    assert part.keys == frozenset({number})
    item = sentencize_case(TestCase(id="n", question="q", documents=(PAGE,), response=claim))
    doc = build_doc_index(tuple(s.text for s in item.doc_sentences), tuple(0 for _ in item.doc_sentences),
                          item.case.documents)
    assert bool(carriers(part, doc)) is carried
    # a year never stands in for a bound or a rounded count ("more than 100" is not "in 2001")
    assert not number_found(">100", frozenset({"2001"})) and not number_found("~100", frozenset({"1967"}))


def test_a_ranges_short_second_year_reads_as_the_year_and_a_date_stays_a_date():
    from evaluators.labelers.heuristic_features import analyze

    assert {"1972", "1973"} <= analyze("He taught at Yale (1972–73).").numbers
    assert {"2014", "2015", "2016"} <= analyze("in 2015–16, up on 2014–15 – a record").numbers
    assert {"2019", "2020"} <= analyze("the 2019/20 season").numbers and "2001" in analyze("1999–01").numbers
    assert analyze("on 2010-05-01").numbers == {"2010", "5", "1"} and "2110" not in analyze("2010-10").numbers
    assert {p.text: p.keys for p in parts_of("Yale (1972–73)") if p.kind == "number"}["73"] == {"1973"}
    assert analyze("around 1990s, about the 2000s").approx == frozenset()  # periods are no approximate numbers


def test_the_issues_claim_on_a_decade_rests_on_the_year_and_is_no_longer_unsupported():
    from evaluators import evaluate

    r = evaluate({"id": "w", "question": "What is the history of WLUR?", "documents": [PAGE],
                  "response": "The journalism department gave up control of the station in the 2000s, and it has "
                              "been an extracurricular activity since."})
    (s,) = r.labels.sentences
    assert "no document mentions" not in s.explanation and "2000s: 0d" in s.explanation, s.explanation
    assert {"0d", "0e"} <= set(s.supporting_keys) and s.score > 0.5
    # the decade is the year's wherever the page says it, not only in the closest sentence
    page = ("WLUR first went on the air in 1967. For three decades, students in broadcast journalism classes "
            "produced its programs for course credit. In July 2001, direction of WLUR is transferred from the "
            "journalism department to the Office of Student Affairs. It becomes a strictly extracurricular activity.")
    r = evaluate({"id": "w2", "question": "What is the history of WLUR?", "documents": [page],
                  "response": "The journalism department gave up control of the station in the 2000s."})
    (s,) = r.labels.sentences
    assert "2000s: 0c" in s.explanation and "not 2000s" not in s.explanation and s.score > 0.5, s.explanation


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


def _greedy(response: str):
    """:func:`_prepared` and the first sentence's parts, their carriers and weights, the greedy set."""
    from evaluators.labelers import heuristic_parts as hp

    m, item, settings, prepared = _prepared(response)
    p = prepared[0]
    pts = hp.parts_of(p["sent"][0]["text"])
    car, weight = hp.carriers_and_weights(pts, p["doc"])
    return m, item, settings, prepared, pts, car, weight, hp.greedy(pts, car, weight, p["S"][0], hp.MAX_KEYS)


def test_the_selector_keeps_the_anchor_first_and_names_the_candidates_it_accepts():
    from evaluators.labelers import heuristic_selector as sel

    m, item, settings, prepared, pts, car, weight, greedy = _greedy("The museum opened in 1912 on the harbour front.")
    p = prepared[0]
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
    from evaluators.labelers import heuristic_selector as sel

    m, item, settings, prepared, pts, car, weight, greedy = _greedy("The museum opened in 1912 on the harbour front.")
    p = prepared[0]
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

"""Substituted entities (issue 47): a specific term swapped for the one the best-matching document
sentence states makes a sentence *not supported*, with the reason in words; paraphrases, synonyms,
vaguer words and reordered sentences do not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluators import EvalOptions, TestCase
from evaluators.encoder import embeddings
from evaluators.labelers.heuristic import HeuristicMethod
from evaluators.labelers.heuristic_contradiction import Clash
from evaluators.labelers.heuristic_entities import find, merge
from evaluators.sentencize import sentencize_case
from evaluators.types import split_explanation

ROOT = Path(__file__).resolve().parents[1]
METFORMIN = "Metformin is recommended as the first-line medication for most adults with type 2 diabetes."
DOCS = (METFORMIN + " It lowers glucose production in the liver and improves insulin sensitivity.",
        "The most common side effects of metformin are gastrointestinal: nausea, diarrhoea and abdominal "
        "discomfort.")
APOLLO = ("Neil Armstrong and Buzz Aldrin walked on the lunar surface, while Michael Collins remained in "
          "lunar orbit aboard the command module Columbia.")


@pytest.mark.parametrize("resp,doc,claimed,said", [
    ("Insulin injections are the usual first-line medicine for type 2 diabetes.", METFORMIN, ("insulin",),
     ("metformin",)),
    ("Yuri Gagarin and John Glenn walked on the surface.", APOLLO, ("Yuri Gagarin", "John Glenn"),
     ("Neil Armstrong", "Buzz Aldrin")),
    ("Ibuprofen was developed by Marie Curie at Boots in the 1960s.",
     "Ibuprofen was developed by Stewart Adams at Boots in the 1960s.", ("Marie Curie",), ("Stewart Adams",)),
    ("Deimos is the larger of the two moons and orbits closer to Mars.",
     "Phobos is the larger of the two moons and orbits closer to Mars.", ("Deimos",), ("Phobos",)),
    ("Reset the AX5400 by holding the reset button for ten seconds.",
     "Reset the AX3000 by holding the reset button for ten seconds.", ("AX5400",), ("AX3000",)),
])
def test_swapped_terms_are_read(resp, doc, claimed, said):
    docs = " ".join(DOCS) if doc == METFORMIN else doc
    assert find(resp, doc, resp, docs) == [Clash("substitution", claimed, said)]


@pytest.mark.parametrize("resp,doc", [
    # the same entity in other words, vaguer words, a reordered sentence
    ("Metformin is the usual first-line medicine for type 2 diabetes.", METFORMIN),
    ("The drug is the usual first-line medicine for type 2 diabetes.", METFORMIN),
    ("Most adults with type 2 diabetes are first given metformin.", METFORMIN),
    ("Doctors recommend metformin as the first-line medication for type 2 diabetes.", METFORMIN),
    # a pronoun, an acronym, a shortened name
    ("It was designed by the engineering company of Gustave Eiffel.",
     "The tower was designed by the engineering company of Gustave Eiffel."),
    ("The WHO recommends two doses of the vaccine for adults.",
     "The World Health Organization recommends two doses of the vaccine for adults."),
    ("Armstrong and Aldrin walked on the lunar surface.", APOLLO),
    # a common word for a common word (synonyms are not read as swaps)
    ("Press the power button on the remote to switch the television off.",
     "Press the power button on the remote control to turn the TV off."),
    ("Unplug the device and wait thirty seconds before restarting it.",
     "Unplug the router and wait thirty seconds before restarting it."),
    # numbers are for heuristic_contradiction, not this module
    ("Apollo 11 landed on the Moon on 16 July 1972.", "Apollo 11 landed on the Moon on 20 July 1969."),
    # a different clause, not a swapped slot
    ("Metformin causes severe liver failure in most patients who take it daily.", METFORMIN),
])
def test_paraphrases_are_not_swaps(resp, doc):
    assert find(resp, doc, resp, doc) == []


def test_a_term_the_documents_state_for_the_claim_is_not_swapped_in():
    """A term a document sentence states beside the claim's other words was taken from there (an
    answer that joins two sentences), not swapped in; a menu path's capitalised words ("Try Now") are
    not a name to swap with one."""
    cullinan = ("The Cullinan Diamond was discovered in 1905 at the Premier mine near Pretoria.",
                "The Cullinan Diamond was discovered in South Africa by the mine's surface manager.")
    resp = "The Cullinan Diamond was discovered in 1905 in South Africa."
    assert find(resp, cullinan[0], resp, cullinan) == []
    # a sentence the splitter cut at an abbreviation ("Premier No." | "2 mine in …, South Africa") is one
    split = ("The Cullinan Diamond is the largest rough diamond ever found, discovered at the Premier No.",
             "2 mine in Cullinan, South Africa, in 1905.")
    resp = "The Cullinan Diamond is the largest rough diamond ever found, discovered in South Africa."
    assert find(resp, split[0], resp, split) == []
    assert find(resp, split[0], resp, split[:1]) == [Clash("substitution", ("South Africa",), ("Premier",))]
    menu = "Selecting speakers. Settings Sound Sound Output Try Now You can select which speakers the TV uses."
    resp = "Yes, you can select the speakers for sound output on your Samsung TV."
    assert find(resp, menu, resp, menu) == []
    # ... while "insulin injections" is not in the documents although "insulin sensitivity" is
    resp = "Insulin injections are the usual first-line medicine for type 2 diabetes."
    assert find(resp, METFORMIN, resp, " ".join(DOCS)) == [Clash("substitution", ("insulin",), ("metformin",))]
    # a term the question (or an earlier turn) names is the subject asked about, never a swap
    assert find(resp, METFORMIN, resp, " ".join(DOCS), "Are insulin injections the first-line medicine?") == []


def test_a_name_clash_is_not_worded_twice():
    name = Clash("name", ("Marie Curie",), ("Stewart",))
    swap = Clash("substitution", ("Marie Curie",), ("Stewart Adams",))
    number = Clash("number", ("1921",), ("1961",))
    assert merge([number, name], [swap]) == [number, swap]
    assert merge([number, name], []) == [number, name]


@pytest.fixture(scope="module")
def model():
    return embeddings.load()


def _label(case: TestCase, **heuristic):
    item = sentencize_case(case)
    out = HeuristicMethod().label([item], EvalOptions(heuristic=heuristic), lambda n: None)[0]
    assert out.error is None, out.error
    return out.labels


def test_the_samples_planted_substitution_is_flagged(model):
    text = (ROOT / "data" / "sample_rag_version2.jsonl").read_text(encoding="utf-8")
    rows = [json.loads(x) for x in text.splitlines()]
    r = next(x for x in rows if x["id"] == "med-metformin")
    case = TestCase(id=r["id"], question=r["question"], response=r["response"], documents=tuple(r["documents"]))
    s = _label(case).sentences[0]
    assert s.level == "none" and not s.fully_supported
    assert split_explanation(s.explanation)[0] == "the documents say metformin, not insulin (0a)"
    assert s.score is not None and s.score <= 0.2 + 1e-9
    # the earlier rule ("numbers") let it through as supported
    before = _label(case, contradictions="numbers").sentences[0]
    assert before.fully_supported and before.score > 0.8


def test_supported_answers_of_the_sample_keep_their_verdicts(model):
    rows = [json.loads(x) for x in (ROOT / "data" / "sample_rag.jsonl").read_text(encoding="utf-8").splitlines()]
    for r in rows:
        if r["hallucinated"] or not r["documents"]:
            continue
        case = TestCase(id=r["id"], question=r["question"], response=r["response"], documents=tuple(r["documents"]))
        for s in _label(case).sentences:
            assert "the documents say" not in s.explanation, (r["id"], s.explanation)


def test_a_term_of_an_earlier_turn_is_not_a_swap(model):
    from evaluators.types import Turn

    resp = "Insulin injections are the usual first-line medicine for type 2 diabetes."
    plain = TestCase(id="t", question="What is the usual first-line medicine?", response=resp, documents=DOCS)
    assert "the documents say metformin" in _label(plain).sentences[0].explanation
    turns = (Turn(speaker="user", text="My doctor mentioned insulin injections."),
             Turn(speaker="agent", text="Insulin is one of several treatments."))
    chat = TestCase(id="t", question="What is the usual first-line medicine?", response=resp, documents=DOCS,
                    history=turns)
    assert "the documents say" not in _label(chat).sentences[0].explanation


def test_unknown_contradiction_mode_is_refused(model):
    case = TestCase(id="m", question="Q?", response=DOCS[0], documents=DOCS)
    item = sentencize_case(case)
    out = HeuristicMethod().label([item], EvalOptions(heuristic={"contradictions": "nope"}), lambda n: None)[0]
    assert out.error and "contradictions" in out.error

"""Words and counts that must agree (issue 57 item 5): the test set's "no question from …" and the
count beside it, "1 of 4 answers has", a chat turn's heading and the turns labelled under it, the
sidebar's "Current run". ("26× slower": tests/test_appcost.py; the sidebar with a run going on:
tests/test_app_pages.py::test_results_shows_the_run_just_started_then_its_results_and_the_sidebar_names_it.)"""

from __future__ import annotations

import re

from evaluators.documents import read_documents
from evaluators.headline import Correctness, Reach, Support
from evaluators.testset import make_testset
from evaluators.types import TestCase, Turn
from ui import vocab
from ui.inspect import conversation_view as cv
from ui.shell.sidebar import current_run_line


def test_the_documents_that_gave_no_question_are_counted_as_the_reason_names_them(tmp_path):
    for i in range(8):  # nothing a rule can ask about
        (tmp_path / f"doc0{i}.txt").write_text("Hello there, this is just some text about nothing much at all really.")
    (tmp_path / "facts.txt").write_text("The Basic plan costs $5 per month since 2021. Acme Corp was founded in "
                                        "1999 by Jane Smith.")
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4 not a pdf")  # a file not read: listed apart
    corpus = read_documents([tmp_path])
    r = make_testset(corpus, 10)
    assert len(corpus.skipped) == 1 and r.unread == 1 and len(r.skipped) == 9
    assert len(r.no_question) == 8 and {s.name for s in r.no_question} == {f"doc0{i}.txt" for i in range(8)}
    said = re.search(r"no question from (\d+) documents: (.*)$", r.reason)
    assert said, r.reason
    named = said.group(2).split(" and ")
    assert int(said.group(1)) == 8 == len(named[0].split(", ")) + int(named[1].split()[0])  # 5 named + "3 more"
    # the page's line says the count once (it read "2 of 10 questions (offline): 2 of 10: the documents hold …")
    got = len(r.rows)
    line = r.summary()
    assert line.startswith(f"{got} of 10 questions (offline): the documents hold only {got} distinct"), line


def test_one_of_four_answers_has():
    def words(n: int, bad: int, none: int = 0) -> str | None:
        return vocab.support_words(Support(scored=n, not_fully=bad, none_at_all=none), "trace")

    assert words(4, 1) == "1 of 4 answers has a sentence the documents do not fully support, by trace's labels."
    assert words(16, 6, 2).startswith("6 of 16 answers have a sentence the documents do not fully support (2 with")
    assert words(1, 1).startswith("1 of 1 answer has a sentence")
    assert words(3, 0) == "All 3 answers are fully supported by their documents, by trace's labels."


def test_declined_answers_and_missed_facts_are_counted_in_agreeing_words():
    def words(n: int, bad: int, declined: int, over: int = 0) -> str | None:
        return vocab.support_words(Support(scored=n, not_fully=bad, none_at_all=0, declined=declined,
                                           over_refusals=over), "trace")

    assert words(16, 6, 1).startswith("1 of 16 answers declined (rightly: the documents do not hold the answer); "
                                      "of the 15 that answered, 6 have a sentence")
    assert words(16, 0, 1, 1).startswith("1 of 16 answers declined although the documents hold the answer (an "
                                         "over-refusal); of the 15 that answered, all are fully supported")
    assert words(8, 0, 8).startswith("8 of 8 answers declined (all of them right: the documents do not hold")
    assert words(8, 0, 3, 3).startswith("3 of 8 answers declined (all of them although the documents hold")
    assert words(8, 0, 3, 2).startswith("3 of 8 answers declined (2 of them although the documents hold")
    assert words(1, 0, 1) == "1 of 1 answer declined (rightly: the documents do not hold the answer); none answered."

    def missed(judged: int, missing: int) -> str | None:
        return vocab.correctness_words(Correctness(judged=judged, recall=0.5, missing_some=missing))

    assert "; 1 of 3 misses at least one (Inspect shows which)." in (missed(3, 1) or "")
    assert "; 6 of 16 miss at least one" in (missed(16, 6) or "")
    assert (missed(1, 0) or "").endswith("; it misses none.")


def test_a_run_of_one_answer_reads_in_the_singular():
    # the walk: a one-case run would read "All 1 answers are fully supported", "the answers state … on average;
    # 1 of 1 misses at least one", "0 of 1 questions got a reference passage back"
    one = vocab.support_words(Support(scored=1, not_fully=0, none_at_all=0), "trace")
    assert one == "The one answer is fully supported by its documents, by trace's labels."
    said = vocab.correctness_words(Correctness(judged=1, recall=0.5, missing_some=1))
    assert said == ("Against the reference answer: the answer states 50 % of the reference facts (answer recall); "
                    "it misses at least one (Inspect shows which).")
    assert (vocab.reach_words(Reach(scored=1, reached=0)) or "").startswith(
        "The one question got no reference passage back, so every retrieval figure is 0.")
    assert (vocab.reach_words(Reach(scored=15, reached=0)) or "").startswith("0 of 15 questions got a reference")


def test_a_turns_heading_agrees_with_the_turns_labelled_under_it():
    history = (Turn(speaker="user", text="Hi"), Turn(speaker="agent", text="Hello"))
    case = TestCase(id="t2", conversation_id="c1", question="And the price?", response="$5.", documents=("x",),
                    history=history)
    assert cv.heading(case) == "Conversation c1 · question 2 of the chat (turns 1–2 above)"
    earlier, recent = cv.split(history)
    html = cv.turns_html(recent)
    assert "turn 1 · user" in html and "turn 2 · agent" in html  # the numbers the heading says are above
    one = case.model_copy(update={"history": history[:1]})
    assert cv.heading(one).endswith("question 2 of the chat (turn 1 above)")


def test_the_sidebars_current_run_is_the_run_on_screen():
    assert current_run_line(("v2 on the sample's questions", 16, 16, ""), "v1", None) == \
        "Current run: v2 on the sample's questions · 16/16 scored"
    assert current_run_line(("B", 5, 5, "running 5/9"), "A", None) == "Current run: B · 5/5 scored (running 5/9)"
    assert current_run_line(None, None, None) is None

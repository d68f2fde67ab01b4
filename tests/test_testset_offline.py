"""The offline test-set generator and the run around it: exactly n rows (or fewer with the reason),
every file used, references found in their files, answers backed word for word, no near-duplicates,
no question holding its answer, seeded; the rules on sentences a reader can judge; the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluators.cli import main
from evaluators.documents import read_documents
from evaluators.testing.document_files import passages_as_documents, write_documents
from evaluators.testset import TestsetError, allocate, make_testset
from evaluators.testset.allocate import top_up
from evaluators.testset.checks import problems
from evaluators.testset.offline_questions import question_for

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_DOCS = ROOT / "data" / "sample_docs"


# ----------------------------------------------------------------------------------------- the rules

@pytest.mark.parametrize("sentence, question, answer", [
    ("Apollo 11 landed on the Moon on 20 July 1969.", "When did Apollo 11 land on the Moon?", "20 July 1969"),
    ("The Berlin Wall fell on 9 November 1989, when East German authorities opened the border crossings.",
     "When did the Berlin Wall fall?", "9 November 1989"),
    ("German reunification was formally completed on 3 October 1990, less than a year after the wall fell.",
     "When was German reunification formally completed?", "3 October 1990"),
    ("The Great Barrier Reef stretches for more than 2,300 kilometres along the coast of Queensland.",
     "How far does the Great Barrier Reef stretch along the coast of Queensland?", "more than 2,300 kilometres"),
    ("Tourism on the reef supports around 64,000 jobs in the region.",
     "How many jobs does tourism on the reef support in the region?", "around 64,000"),
    ("- The PostgreSQL container listens on port 5432 by default.",
     "Which port does the PostgreSQL container listen on by default?", "5432"),
    ("2. Press and hold the RESET button on the back panel for 10 seconds, until the power LED blinks amber.",
     "How long should you press and hold the RESET button on the back panel?", "10 seconds"),
    ("The lunar module was named Eagle.", "What was the lunar module named?", "Eagle"),
    ("Neil Armstrong and Buzz Aldrin walked on the lunar surface, while Michael Collins remained in orbit.",
     "Who walked on the lunar surface?", "Neil Armstrong and Buzz Aldrin"),
    ("Ibuprofen is a non-steroidal anti-inflammatory drug used to treat pain, fever and inflammation.",
     "What is ibuprofen?", "a non-steroidal anti-inflammatory drug used to treat pain, fever and inflammation"),
    ("The Eiffel Tower is 330 metres tall.", "How tall is the Eiffel Tower?", "330 metres"),
    ("The maximum size of the request is 8 KB, which includes the input text.",
     "What is the maximum size of the request?", "8 KB"),
    ("IRA stands for Individual Retirement Account.", "What does IRA stand for?", "Individual Retirement Account"),
    ("Mars has two moons, Phobos and Deimos.", "How many moons does Mars have?", "two"),
])
def test_a_fact_becomes_a_grammatical_question_whose_answer_it_is(sentence, question, answer):
    made = question_for(sentence)
    assert made is not None, sentence
    assert (made.question, made.answer) == (question, answer)
    assert made.answer in sentence  # word for word
    assert answer.lower() not in made.question.lower() and "_" not in made.question  # never a cloze blank


@pytest.mark.parametrize("sentence", [
    "It was first launched as a prescription drug in the United Kingdom in 1969.",  # who is "it"?
    "We moved the servers to Frankfurt in March 2021.",  # first person
    "You can submit 100 requests per minute.",  # the reader as subject, not an instruction
    "The update was not released until 2019.",  # negated
    "Is the port 5432 by default?",  # a question
    "See https://example.com/docs for the 2024 release notes.",  # markup
    "Because no analysts are needed, index funds have lower costs since 1976.",  # fact in a subordinate clause
    "The password can be 6 - 8 characters.",  # a range, not one number
])
def test_sentences_the_rules_are_not_sure_of_give_no_question(sentence):
    assert question_for(sentence) is None


def test_a_window_is_not_a_fact_but_the_statement_may_be_asked_yes_or_no():
    made = question_for("Measurements from the last 30 days are kept.")
    assert made is not None and made.kind == "yes/no"  # never "How many days ...?" with "30" as the answer
    assert made.question == "Are measurements from the last 30 days kept?"


def test_a_list_items_label_is_not_read_as_a_past_tense_statement():
    # the walk: "Did NSX-T distribute firewall?" from a list item's label and its description
    assert question_for("- NSX-T distributed firewall - Distributed firewall enables micro-segmentation of "
                        "east-west traffic between workloads.") is None
    made = question_for("Investment income has preferential treatment - long term capital gains and qualified "
                        "dividends are taxed at lower rates than ordinary income.")
    assert made is not None and made.question == "Does investment income have preferential treatment?"


def test_allocation_follows_length_with_every_file_used_when_n_allows():
    w = {"big": 9000.0, "mid": 3000.0, "small": 100.0, "tiny": 10.0}
    q = allocate(w, 20)
    assert sum(q.values()) == 20 and min(q.values()) >= 1 and q["big"] > q["mid"] > q["small"]
    assert abs(q["big"] / q["mid"] - 3) < 0.7
    few = allocate(w, 2, seed=3)
    assert sum(few.values()) == 2 and set(few.values()) <= {0, 1} and few == allocate(w, 2, seed=3)
    up = top_up({"a": 1, "b": 1}, {"a": 3.0, "b": 1.0}, {"a": 5, "b": 5}, 4)
    assert sum(up.values()) == 6 and up["a"] >= 3 * up["b"] - 1
    assert top_up({"a": 1, "b": 1}, {"a": 3.0, "b": 1.0}, {"a": 1, "b": 5}, 4) == {"a": 2, "b": 4}
    assert top_up({"a": 1}, {"a": 1.0}, {"a": 2}, 5) == {"a": 3}  # no more than the spare


# ----------------------------------------------------------------------------------------- a run

def test_the_sample_documents_give_exactly_n_good_rows():
    corpus = read_documents([SAMPLE_DOCS])
    result = make_testset(corpus, 12, seed=0)
    assert result.complete and not result.reason
    assert problems(result.rows, corpus, 12) == []
    rows = result.rows
    assert [r["id"] for r in rows] == [f"q{i:03d}" for i in range(1, 13)]
    assert len({r["metadata"]["source"] for r in rows}) >= 8  # spread over the files
    for r in rows:
        assert set(r) == {"id", "question", "ground_truth", "reference_contexts", "reference_context_ids", "metadata"}
        m = r["metadata"]
        assert m["question_type"] == "single_hop" and m["generator"] == "offline" and m["model"] is None
        assert m["evidence"] in r["reference_contexts"][0] and r["ground_truth"] in m["evidence"]
    assert make_testset(corpus, 12, seed=0).rows == rows  # reproducible


def test_more_than_the_documents_hold_gives_fewer_rows_and_says_why():
    corpus = read_documents([SAMPLE_DOCS])
    result = make_testset(corpus, 40, seed=0)
    assert 10 <= len(result.rows) < 40 and not result.complete
    assert "the documents hold only" in result.reason and "tour-eiffel.md" in result.reason
    why = {s.name: s.reason for s in result.skipped}
    assert "French" in why["tour-eiffel.md"]
    unused = f"documents without a question: {sorted(why)}"
    assert problems(result.rows, corpus) == [unused]  # the files named in `skipped`, and nothing else


def test_fewer_questions_than_files_take_one_each_from_different_files_by_the_seed():
    corpus = read_documents([SAMPLE_DOCS])
    a = make_testset(corpus, 3, seed=1)
    assert len(a.rows) == 3 and len({r["metadata"]["source"] for r in a.rows}) == 3
    assert not a.skipped  # files not needed are not "skipped"
    seeds = {tuple(r["metadata"]["source"] for r in make_testset(corpus, 3, seed=s).rows) for s in range(6)}
    assert len(seeds) > 1


def test_bad_requests_are_named():
    corpus = read_documents([SAMPLE_DOCS])
    for kwargs, match in [({"n": 0}, "at least 1"), ({"n": 5, "generator": "nope"}, "unknown generator"),
                          ({"n": 5, "types": ["multi_hop"]}, "does not make multi_hop"),
                          ({"n": 5, "types": ["trivia"]}, "unknown question type")]:
        with pytest.raises(TestsetError, match=match):
            make_testset(corpus, **kwargs)


# ----------------------------------------------------------------------------------------- the CLI

def test_cli_writes_the_question_file_and_exits_2_for_bad_input(tmp_path, capsys):
    out = tmp_path / "q.jsonl"
    assert main(["testset", str(SAMPLE_DOCS), "--n", "8", "--seed", "2", "--out", str(out), "--no-progress"]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 8 and all(r["reference_context_ids"][0].endswith(tuple("0123456789")) for r in rows)
    err = capsys.readouterr().err
    assert "read 15 documents" in err and "8 questions" in err
    empty = tmp_path / "empty"
    empty.mkdir()
    for argv, msg in [([str(SAMPLE_DOCS), "--n", "0"], "at least 1"),
                      ([str(empty)], "empty folder"),
                      ([str(SAMPLE_DOCS), "--types", "reasoning"], "does not make reasoning"),
                      ([str(SAMPLE_DOCS), "--generator", "magic"], "unknown generator")]:
        assert main(["testset", *argv, "--out", str(tmp_path / "x.jsonl")]) == 2
        assert msg in capsys.readouterr().err
    assert not (tmp_path / "x.jsonl").exists()
    # fewer than asked: still written, the reason on stderr
    assert main(["testset", str(SAMPLE_DOCS), "--n", "50", "--out", str(tmp_path / "few.json")]) == 0
    assert "note: " in capsys.readouterr().err
    assert 10 <= len(json.loads((tmp_path / "few.json").read_text())) < 50


def test_cli_names_unreadable_files_and_uses_the_others(tmp_path, capsys):
    (tmp_path / "a.md").write_text("# A\n\nThe Eiffel Tower is 330 metres tall.\n", encoding="utf-8")
    (tmp_path / "b.txt").write_bytes(b"\x00\x01\x02" * 100)
    assert main(["testset", str(tmp_path), "--n", "1", "--out", str(tmp_path / "q.jsonl")]) == 0
    err = capsys.readouterr().err
    assert "skipped b.txt: binary data" in err
    assert json.loads((tmp_path / "q.jsonl").read_text())["question"] == "How tall is the Eiffel Tower?"


# ----------------------------------------------------------------------------------------- shared data

def _mtrag_rows() -> list[dict]:
    from bench.shared_data import SHARED_DIR

    path = SHARED_DIR / "retrieval" / "mtrag_retrieval_dev_corpus.jsonl"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def mtrag_files(tmp_path_factory) -> Path:
    """MTRAG-UN's passages as 12 documents, written as .txt .md .html .pdf (Chromium) .docx files."""
    folder = tmp_path_factory.mktemp("mtrag")
    write_documents(passages_as_documents(_mtrag_rows(), 12), folder)
    return folder


def test_forty_questions_from_twelve_documents_of_every_kind(mtrag_files):
    corpus = read_documents([mtrag_files])
    assert len(corpus.documents) == 12 and not corpus.skipped
    assert {d.kind for d in corpus.documents} == {"text", "markdown", "html", "pdf", "docx"}
    result = make_testset(corpus, 40, seed=0)
    assert result.complete, result.reason
    assert problems(result.rows, corpus, 40) == []

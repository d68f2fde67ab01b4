"""The llm test-set generator against the loopback OpenAI-compatible server (the real openai SDK over
127.0.0.1): every question type, the critic, malformed and refusing replies, failing servers, the
cost estimate, the call cap and the reply cache."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from evaluators.documents import read_documents, read_uploaded
from evaluators.testset import TestsetError, estimate, make_testset
from evaluators.testset.checks import problems
from tests.llm_server import Reply, last_user_message

pytestmark = pytest.mark.usefixtures("close_llm_clients")

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_DOCS = ROOT / "data" / "sample_docs"
TYPES = ("single_hop", "multi_hop", "reasoning", "unanswerable", "conversational")


def _kind(prompt: str) -> str:
    if "Reference answer:" in prompt:
        return "critic"
    for marker, kind in (("two-turn conversation", "conversational"), ("does NOT answer", "unanswerable"),
                         ("combining a fact from passage 1", "multi_hop"), ("needs reasoning", "reasoning")):
        if marker in prompt:
            return kind
    return "single_hop"


def _passage_words(prompt: str) -> str:
    """The first words of the (first) passage in a prompt: what a canned question is about."""
    m = re.search(r'"""\n(.*?)\n"""', prompt, re.S)
    words = re.findall(r"[A-Za-z][\w-]*", m.group(1) if m else "")
    return " ".join(words[:9])


class Canned:
    """A responder writing a distinct, valid reply for every prompt, and the critic's verdict."""

    def __init__(self, reject: str = "") -> None:
        self.reject = reject  # the critic rejects questions containing this
        self.n = 0
        self.prompts: list[str] = []

    def __call__(self, req: dict) -> dict:
        prompt = last_user_message(req)
        self.prompts.append(prompt)
        kind = _kind(prompt)
        if kind == "critic":
            q = re.search(r"Question: (.*)", prompt).group(1)
            bad = bool(self.reject) and self.reject in q
            unanswerable = q.startswith("Is there a warranty")
            return {"answerable": not (bad or unanswerable), "answer_supported": not bad, "standalone": True,
                    "reason": "rejected on purpose" if bad else "checked"}
        self.n += 1
        about = _passage_words(prompt)
        if kind == "conversational":
            return {"first_question": f"What do the documents say about {about}?", "first_answer": about,
                    "question": f"And why does that matter for {about.split()[-1]}?", "answer": f"Because {about}."}
        if kind == "unanswerable":
            return {"question": f"Is there a warranty for {about}?",
                    "answer": "The documents do not contain this information."}
        return {"question": f"{kind.replace('_', ' ').title()} {self.n}: what follows from {about}?",
                "answer": f"answer {self.n}"}


def test_every_question_type_exactly_n_rows_two_calls_each(llm_server, loopback_settings):
    canned = Canned()
    llm_server.respond(canned)
    corpus = read_documents([SAMPLE_DOCS])
    result = make_testset(corpus, 10, generator="llm", llm=loopback_settings(), seed=0)
    assert result.complete, result.reason
    assert problems(result.rows, corpus, 10) == []
    rows = result.rows
    assert sorted(r["metadata"]["question_type"] for r in rows) == sorted(TYPES * 2)
    assert llm_server.count == 20 and result.usage.calls == 20  # one write and one check per question
    for r in rows:
        m, kind = r["metadata"], r["metadata"]["question_type"]
        assert m["generator"] == "llm" and m["model"] == "openai_compatible/loopback-model"
        if kind == "conversational":
            assert [t["role"] for t in r["history"]] == ["user", "assistant"]
            assert r["history"][0]["content"].startswith("What do the documents say about")
        else:
            assert "history" not in r
        if kind == "unanswerable":
            assert r["reference_contexts"] == [] and r["ground_truth"].startswith("The documents do not")
        elif kind == "multi_hop":
            assert len(r["reference_contexts"]) == 2 and len(set(r["reference_context_ids"])) == 2
        else:
            assert len(r["reference_contexts"]) == 1
    # the critic of an unanswerable question saw the seed passage and the passages most like the question
    critic_of_unanswerable = [p for p in canned.prompts if "Question: Is there a warranty" in p]
    assert critic_of_unanswerable and all(p.count('"""') >= 4 for p in critic_of_unanswerable)


def test_questions_come_in_the_documents_language(llm_server, loopback_settings):
    canned = Canned()
    llm_server.respond(canned)
    corpus = read_uploaded([("mauer.md", "# Die Mauer\n\nDie Berliner Mauer fiel am 9. November 1989, und die "
                                         "Grenze wurde für alle geöffnet. Das ist nicht mit der Wende zu "
                                         "verwechseln, die auch im Herbst war.".encode())])
    result = make_testset(corpus, 1, generator="llm", types=["single_hop"], llm=loopback_settings())
    assert len(result.rows) == 1
    assert "Write the question(s) and answer(s) in German" in canned.prompts[0]


def test_malformed_and_refusing_replies_are_repaired_re_asked_or_replaced(llm_server, loopback_settings):
    canned = Canned()
    llm_server.respond(canned)
    llm_server.queue(
        # 1st question: near-JSON that json-repair mends (single quotes, a trailing comma): no re-ask
        "{'question': 'How long should you hold the RESET button of the AX3000?', 'answer': '10 seconds',}",
        # its check, then the 2nd question: a refusal, re-asked once, refused again -> dropped
        {"answerable": True, "answer_supported": True, "standalone": True, "reason": "ok"},
        "I'm sorry, but I can't help with that request.",
        "I'm sorry, but I can't help with that request.",
    )
    corpus = read_documents([SAMPLE_DOCS / "router-reset.md", SAMPLE_DOCS / "apollo-11.md"])
    result = make_testset(corpus, 2, generator="llm", types=["single_hop"],
                          llm=loopback_settings(concurrency=1), seed=0)
    assert result.complete, result.reason
    assert "How long should you hold the RESET button of the AX3000?" in [r["question"] for r in result.rows]
    assert result.dropped.get("unusable replies (malformed JSON or a refusal, after a re-ask)") == 1
    reasks = [r for r in llm_server.requests if "could not be used" in last_user_message(r.json)]
    assert len(reasks) == 1  # the refusal was re-asked once, with the error
    assert problems(result.rows, corpus, 2) == []


def test_questions_the_critic_rejects_are_replaced_by_questions_from_other_passages(llm_server, loopback_settings):
    canned = Canned(reject="Single Hop 1:")
    llm_server.respond(canned)
    corpus = read_documents([SAMPLE_DOCS / "berlin-wall.md", SAMPLE_DOCS / "coral.md"])
    result = make_testset(corpus, 2, generator="llm", types=["single_hop"], llm=loopback_settings(concurrency=1))
    assert result.complete and not any(r["question"].startswith("Single Hop 1:") for r in result.rows)
    assert result.dropped["dropped by the critic"] == 1
    used = [cid for r in result.rows for cid in r["reference_context_ids"]]
    assert len(set(used)) == 2


def test_a_question_that_gives_its_answer_away_is_re_asked(llm_server, loopback_settings):
    llm_server.queue({"question": "When did the Berlin Wall fall on 9 November 1989?", "answer": "9 November 1989"},
                     {"question": "When did the Berlin Wall fall?", "answer": "9 November 1989"},
                     {"answerable": True, "answer_supported": True, "standalone": True})
    corpus = read_documents([SAMPLE_DOCS / "berlin-wall.md"])
    result = make_testset(corpus, 1, generator="llm", types=["single_hop"], llm=loopback_settings(concurrency=1))
    assert [r["question"] for r in result.rows] == ["When did the Berlin Wall fall?"]
    assert "contains its own answer" in last_user_message(llm_server.requests[1].json)


def test_a_server_that_fails_every_call_stops_the_run_with_its_error(llm_server, loopback_settings):
    llm_server.respond(lambda req: Reply.error(500, "the model is down"))
    corpus = read_documents([SAMPLE_DOCS / "coral.md"])
    with pytest.raises(TestsetError, match=r"every LLM call failed.*HTTP 500"):
        make_testset(corpus, 2, generator="llm", types=["single_hop"], llm=loopback_settings(max_retries=0))
    assert llm_server.count == 2  # one failed call per question, not three rounds of them


def test_the_estimate_comes_before_any_call(llm_server, loopback_settings):
    corpus = read_documents([SAMPLE_DOCS])
    est = estimate(corpus, 20, generator="llm", llm=loopback_settings())
    assert est["calls"] == 40 and est["prompt_tokens"] > 20 * 100 and est["completion_tokens"] > 0
    assert est["model"] == "openai_compatible/loopback-model" and "2 calls per question" in est["note"]
    assert llm_server.count == 0


def test_the_call_cap_stops_new_questions_and_says_so(llm_server, loopback_settings):
    llm_server.respond(Canned())
    corpus = read_documents([SAMPLE_DOCS])
    result = make_testset(corpus, 6, generator="llm", types=["single_hop"], llm=loopback_settings(concurrency=1),
                          max_llm_calls=6)
    assert len(result.rows) == 3 and llm_server.count == 6
    assert "call limit" in result.reason


def test_the_same_seed_gives_the_same_rows_from_the_cache(llm_server, loopback_settings):
    llm_server.respond(Canned())
    corpus = read_documents([SAMPLE_DOCS])
    settings = loopback_settings()
    first = make_testset(corpus, 5, generator="llm", llm=settings, seed=7)
    calls = llm_server.count
    again = make_testset(corpus, 5, generator="llm", llm=settings, seed=7)
    assert again.rows == first.rows and llm_server.count == calls and again.usage.cached_calls == 10


def test_cli_llm_dry_run_and_a_run(llm_server, loopback_settings, tmp_path, capsys):
    from evaluators.cli import main

    llm_server.respond(Canned())
    out = tmp_path / "q.jsonl"
    args = ["testset", str(SAMPLE_DOCS), "--n", "5", "--generator", "llm", "--provider", "openai_compatible",
            "--base-url", llm_server.base_url, "--model", "loopback-model", "--cache", "", "--out", str(out)]
    assert main([*args, "--dry-run"]) == 0
    assert "estimate: about 10 LLM calls" in capsys.readouterr().err and llm_server.count == 0 and not out.exists()
    assert main(args) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 5 and {r["metadata"]["question_type"] for r in rows} == set(TYPES)
    assert "LLM: 10 calls" in capsys.readouterr().err

"""Conversations (issue 48): the standalone question, support from the agent's earlier turns, the
conversation in the LLM prompt (against the loopback server), per-conversation results, exports,
trace import, and bad input end to end."""

from __future__ import annotations

import json

import pytest

from evaluators import TestCase, evaluate, evaluate_batch
from evaluators.conversations import by_conversation, by_turn, lacks_subject, standalone_question
from evaluators.conversations.grouping import summary
from evaluators.conversations.prompt import MAX_PROMPT_TURNS, citable_keys, conversation_lines
from evaluators.export import case_dict, case_from_dict, row_of, to_csv, to_json_dict, to_rows
from evaluators.labelers.llm import build_messages
from evaluators.sentencize import sentencize_case
from evaluators.trace_metrics import compute
from evaluators.traces.conversation import conversation_id, history_of
from evaluators.traces.model import Span
from evaluators.types import Turn, earlier_turn_key, earlier_turn_of, is_special_key
from tests.llm_server import labels_reply, last_user_message

pytestmark = pytest.mark.usefixtures("close_llm_clients")

U, A = "user", "agent"
PLANS = (Turn(speaker=U, text="What do the Basic and Pro plans cost?"),
         Turn(speaker=A, text="Basic costs $5 a month and Pro costs $12 a month. Both include email support."))
DOCS = ("Basic costs $5 a month.", "Pro costs $12 a month.")


def chat_case(cid: str = "c1", **kw) -> TestCase:
    base = dict(id=f"{cid}-t2", conversation_id=cid, question="Which one is cheaper?", history=PLANS,
                response="Basic is cheaper. Both plans include email support.", documents=DOCS)
    base.update(kw)
    return TestCase(**base)


# ------------------------------------------------------------------ the standalone question
def test_standalone_brings_in_the_subject_of_the_previous_user_turn():
    assert standalone_question("Which one is cheaper?", PLANS) == "Which one is cheaper? (Basic Pro plans cost)"
    chain = (Turn(speaker=U, text="plans?"), Turn(speaker=A, text="Basic and Pro."),
             Turn(speaker=U, text="what does Basic cost?"), Turn(speaker=A, text="$5."))
    assert standalone_question("and Pro?", chain) == "and Pro? (Basic cost plans)"  # the chain, made standalone


@pytest.mark.parametrize("q", ["How do I reset the password of an IBM Cloud account?",
                               "What is the boiling point of water at sea level?"])
def test_a_question_with_its_own_subject_is_unchanged(q):
    assert not lacks_subject(q)
    assert standalone_question(q, PLANS) == q
    assert standalone_question("Which one is cheaper?", ()) == "Which one is cheaper?"  # no earlier turn


def test_the_rule_brings_the_rarest_nouns_as_many_as_the_question_lacks():
    from evaluators.conversations.standalone import OLD_RULE, RULE, names_a_thing, word_rank

    # the general word list is the embedded model's vocabulary, in its order (read at run time)
    assert word_rank("the") < word_rank("time") < RULE.common <= word_rank("mortgage") < word_rank("Cloudant")
    assert word_rank("cloudant") == word_rank("xyzzyq")  # words the list lacks rank after all of it
    assert names_a_thing("mortgage") and names_a_thing("Cloudant") and names_a_thing("pricing")
    assert not names_a_thing("expensive") and not names_a_thing("newly")
    prev = (Turn(speaker=U, text="Is a newly calculated fixed-rate mortgage from an online lender expensive?"),)
    # no content word in the question: up to budget (5) words; only nouns, common ones ("time") never
    got = standalone_question("Which is better?", prev)
    assert got.startswith("Which is better? (") and "mortgage" in got and "lender" in got
    assert not any(w in got for w in ("newly", "calculated", "expensive"))
    # three content words (bank charge fees): 5 - 3 = two words, the rarest, in the turn's order
    four = standalone_question("Does this bank charge fees for it?", prev)
    assert four.count(" ") - "Does this bank charge fees for it?".count(" ") == 2
    # a word already in the question, by lemma, is not brought again
    assert "mortgage" not in standalone_question("What about mortgages?", prev).split("(")[1]
    # the first rule (kept for the bench): the first 8 content words, any kind
    assert "newly" in standalone_question("Which is better?", prev, rule=OLD_RULE)


def test_the_words_the_agents_answer_took_up_come_first():
    import dataclasses

    from evaluators.conversations.standalone import RULE

    prev = (Turn(speaker=U, text="Is a newly calculated fixed-rate mortgage from an online lender expensive?"),
            Turn(speaker=A, text="Mortgages from a bank can cost less."))
    q = "Does this bank charge fees for it?"  # three content words: two words brought
    # the answer took up "mortgage" (by lemma): it comes first, then the rarest of the others
    assert standalone_question(q, prev) == f"{q} (fixed-rate mortgage)"
    assert standalone_question(q, prev, rule=dataclasses.replace(RULE, echo=False)) == f"{q} (fixed-rate lender)"
    assert standalone_question(q, prev[:1]) == f"{q} (fixed-rate lender)"  # no answer: the rarest alone


@pytest.mark.parametrize("q", ["Is it expensive?", "What about the rent-to-buy option?", "Rental property",
                               "And those?", "I mean financial counselling"])
def test_questions_that_lack_a_subject(q):
    assert lacks_subject(q)


# ------------------------------------------------------------------ judging with the conversation
def test_a_turn_is_judged_against_its_standalone_question_and_earlier_agent_turns():
    r = evaluate(chat_case())
    assert r.ok and r.standalone_question == "Which one is cheaper? (Basic Pro plans cost)"
    a, b = r.labels.sentences
    assert a.fully_supported and a.supporting_keys and all(k in r.labels.document_keys for k in a.supporting_keys)
    # b is in no document, but the agent said it in turn 2: supported, shown as such
    assert b.fully_supported and b.supporting_keys == ("turn_2",)
    assert b.explanation.startswith("supported by the agent's earlier turn 2, not by a document")
    assert r.labels.extra["earlier_turn_support"] == ["b"]
    # TRACE metrics stay well defined: a turn is no document sentence
    assert r.scores.adherence == 1.0 and r.scores.overall_supported
    assert set(r.labels.utilized_keys) <= set(r.labels.document_keys)
    assert r.scores == compute(r.labels)
    plain = evaluate(chat_case(history=(), conversation_id=None))
    assert plain.standalone_question is None
    assert not plain.labels.sentences[1].fully_supported  # without the conversation: unsupported
    assert plain.scores.context_utilization == r.scores.context_utilization  # same documents used


def test_a_user_turn_never_supports_and_single_turn_cases_are_untouched():
    said_by_user = chat_case(history=(Turn(speaker=U, text="Both plans include email support, right?"),
                                      Turn(speaker=A, text="Let me check.")))
    r = evaluate(said_by_user)
    assert not r.labels.sentences[1].fully_supported
    assert not any(k.startswith("turn_") for s in r.labels.sentences for k in s.supporting_keys)


def test_adherence_reads_the_turns_own_question_relevance_the_standalone_one():
    # only user turns before it: nothing for the second pass; the rewrite adds "Basic Pro plans cost"
    users_only = (Turn(speaker=U, text="What do the Basic and Pro plans cost?"),)
    turn = evaluate(chat_case(history=users_only, response="Basic is cheaper. It costs $5 a month."))
    alone = evaluate(chat_case(history=(), conversation_id=None, response="Basic is cheaper. It costs $5 a month."))
    assert turn.standalone_question == "Which one is cheaper? (Basic Pro plans cost)"
    # the words brought in from the earlier turn are not the question's to give an answer
    assert [s.score for s in turn.labels.sentences] == [s.score for s in alone.labels.sentences]
    assert turn.scores.adherence == alone.scores.adherence
    # inside the labeler: relevance from the standalone question, adherence from the turn's own
    from evaluators.conversations import as_standalone
    from evaluators.labelers.heuristic import HeuristicMethod
    from evaluators.options import EvalOptions

    m, opts = HeuristicMethod(), EvalOptions()
    item = sentencize_case(chat_case(history=users_only, response="Basic is cheaper. It costs $5 a month."))
    (p,) = m.featurize(as_standalone([item]), opts, [item.case.question])[1]
    (p_own,) = m.featurize([item], opts)[1]
    (p_sq,) = m.featurize(as_standalone([item]), opts)[1]
    assert list(p["dq"]) == list(p_sq["dq"]) != list(p_own["dq"])
    assert list(p["qs"]) == list(p_own["qs"]) != list(p_sq["qs"])


def test_turn_keys():
    assert earlier_turn_key(3) == "turn_3" and earlier_turn_of("turn_3") == 3
    assert earlier_turn_of("turn_0") is None and earlier_turn_of("0a") is None and earlier_turn_of("turn_x") is None
    assert is_special_key("turn_2") and is_special_key("general") and not is_special_key("0a")


# ------------------------------------------------------------------ the LLM prompt
def test_prompt_carries_the_conversation_as_context_not_a_document(llm_server, loopback_settings):
    item = sentencize_case(chat_case())
    user = build_messages(item)[-1]["content"]
    assert "NOT a document" in user and "<conversation>" in user
    assert "turn_1 (user): What do the Basic and Pro plans cost?" in user
    assert user.index("</conversation>") < user.index("Question:") < user.index("Response:")
    assert "Never cite a user turn" in user
    plain = build_messages(sentencize_case(chat_case(history=())))[-1]["content"]
    assert "<conversation>" not in plain and "turn_" not in plain  # a single-turn prompt is unchanged
    # the reply may cite the agent's turn; a user turn or an unknown turn is dropped with a note
    llm_server.queue(labels_reply(["0a"], ["0a"], {"a": (["0a"], True), "b": (["Turn 2", "turn_1", "turn_9"], True)}))
    r = evaluate_batch([chat_case()], "gpt_labeling", llm=loopback_settings()).results[0]
    assert r.error is None, r.error
    assert r.labels.sentences[1].supporting_keys == ("turn_2",)
    assert any("turn_1" in n and "turn_9" in n for n in r.labels.notes)
    assert r.scores.adherence == 1.0 and r.scores.context_utilization == 0.5
    sent = last_user_message(llm_server.requests[0].json)
    assert "turn_2 (agent): Basic costs $5 a month" in sent


def test_prompt_shows_the_last_turns_of_a_long_conversation():
    hist = tuple(Turn(speaker=U if i % 2 == 0 else A, text=f"turn text {i}") for i in range(40))
    lines = conversation_lines(hist)
    assert "(28 earlier turns not shown)" in lines
    assert sum(1 for ln in lines if ln.startswith("turn_")) == MAX_PROMPT_TURNS
    assert citable_keys(hist) == {f"turn_{n}" for n in range(30, 41, 2)}


# ------------------------------------------------------------------ per-conversation results
def _run():
    cases = [chat_case("c1", id="c1-t1", question=PLANS[0].text, history=(),
                       response="Basic costs $5 and Pro $12."),
             chat_case("c1"),
             chat_case("c2", id="c2-t1", question=PLANS[0].text, history=(), response="Basic costs $5."),
             chat_case("c2", response="Pro is cheaper, it costs $1.")]
    return evaluate_batch(cases)


def test_metrics_by_turn_and_per_conversation():
    run = _run()
    turns = by_turn(run.results)
    assert [t["turn"] for t in turns] == [1, 2] and [t["n"] for t in turns] == [2, 2]
    assert turns[1]["metrics"]["adherence"]["n"] == 2
    convs = by_conversation(run.results)
    assert [c["conversation_id"] for c in convs] == ["c2", "c1"]  # worst first
    worst = convs[0]
    assert worst["worst_turn"]["turn"] == 2 and worst["worst_turn"]["id"] == "c2-t2"
    assert worst["first_unsupported_turn"] == {"turn": 2, "id": "c2-t2"}
    assert convs[1]["first_unsupported_turn"] is None
    top = to_json_dict(run)["conversations"]
    assert top["num_conversations"] == 2 and top["conversations"][0]["first_case"] == "c2-t1"
    assert to_json_dict(evaluate_batch([chat_case(history=(), conversation_id=None)])).get("conversations") is None


def test_conversations_without_ids_are_grouped_by_their_opening():
    run = evaluate_batch([chat_case(id="t1", question=PLANS[0].text, history=(), conversation_id=None),
                          chat_case(id="t2", conversation_id=None),
                          chat_case(id="alone", question="Where is Paris?", history=(), conversation_id=None)])
    convs = by_conversation(run.results)
    assert len(convs) == 1 and [c["id"] for c in convs[0]["cases"]] == ["t1", "t2"]
    assert convs[0]["label"].startswith("opens \u201cWhat do the Basic")
    assert summary(run.results)["num_cases"] == 2


# ------------------------------------------------------------------ results files and exports
def test_results_and_csv_carry_the_conversation():
    run = _run()
    d = case_dict(run.results[1])
    assert d["standalone_question"] == run.results[1].standalone_question
    assert case_from_dict(d).standalone_question == d["standalone_question"]
    assert "standalone_question" not in case_dict(evaluate(chat_case(history=(), conversation_id=None)))
    row = row_of(d, "trace")
    assert row["conversation_id"] == "c1" and row["turn"] == 2
    assert row["history"] == "user: What do the Basic and Pro plans cost?\nagent: " + PLANS[1].text
    plain = row_of(case_dict(evaluate(chat_case(history=(), conversation_id=None))), "trace")
    assert "history" not in plain and "turn" not in plain
    csv = to_csv(to_rows(run))
    assert "standalone_question" in csv.splitlines()[0]
    evil = evaluate(chat_case(history=(Turn(speaker=U, text="=HYPERLINK(1)"), PLANS[1])))
    assert "'user: =HYPERLINK" not in to_csv([row_of(case_dict(evil), "trace")])  # starts "user:": no formula


# ------------------------------------------------------------------ traces
def _span(**kw) -> Span:
    return Span(trace_id="t", span_id=kw.pop("span_id", "r"), parent_id=None, name="chain", **kw)


def test_trace_history_from_each_place():
    msgs = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello!"}, {"role": "user", "content": "Prices?"}]
    assert history_of(_span(input=msgs), [])[0] == (Turn(speaker=U, text="Hi"), Turn(speaker=A, text="Hello!"))
    assert history_of(_span(input=json.dumps({"messages": msgs})), [])[0][-1].text == "Hello!"
    got, _ = history_of(_span(input={"question": "Prices?", "chat_history": msgs[1:3]}), [])
    assert [t.text for t in got] == ["Hi", "Hello!"]
    llm = Span(trace_id="t", span_id="l", parent_id="r", name="llm", kind="LLM",
               input_messages=[("system", "ctx"), ("user", "Hi"), ("assistant", "Hello!"), ("user", "Prices?")])
    assert len(history_of(_span(input={"question": "Prices?"}), [llm])[0]) == 2
    assert history_of(_span(input={"question": "Prices?"}), [])[0] == ()  # a one-shot app: none
    bad = [{"role": "critic", "content": "no"}, {"role": "user", "content": "Prices?"}]
    turns, note = history_of(_span(input=bad), [])
    assert turns == () and "speaker 'critic'" in note


def test_trace_conversation_id_prefers_the_apps_own():
    assert conversation_id({"trace_metadata": {"thread_id": "th-9"}, "session_id": "s-1"}) == "th-9"
    assert conversation_id({"session_id": "s-1"}) == "s-1"
    assert conversation_id({"session_id": ["s-1", "s-2"]}) is None


# ------------------------------------------------------------------ bad input, end to end
def test_bad_histories_name_the_row_and_the_rest_score(tmp_path):
    from evaluators.cli import main

    long = [{"speaker": U if i % 2 == 0 else A, "text": f"message {i}"} for i in range(500)]
    rows = [
        {"id": "ok", "question": "Which one is cheaper?", "response": "Basic is cheaper.", "documents": list(DOCS),
         "history": [{"role": "user", "content": PLANS[0].text}, {"role": "assistant", "content": PLANS[1].text}],
         "conversation_id": "c1"},
        {"id": "long", "question": "And Pro?", "response": "Pro costs $12 a month.", "documents": list(DOCS),
         "history": long, "conversation_id": "c2"},
        {"id": "not-a-list", "question": "q", "response": "Basic costs $5.", "documents": list(DOCS), "history": 42},
        {"id": "no-text", "question": "q", "response": "Basic costs $5.", "documents": list(DOCS),
         "history": [{"speaker": "user", "text": "  "}]},
        {"id": "unknown", "question": "q", "response": "Basic costs $5.", "documents": list(DOCS),
         "history": {"foo": "bar"}},
    ]
    src = tmp_path / "chat.jsonl"
    src.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    out = tmp_path / "results.json"
    code = main(["evaluate", str(src), "--out", str(out), "--no-progress"])
    assert code == 2  # bad input named; the valid rows still scored
    data = json.loads(out.read_text(encoding="utf-8"))
    by_id = {c["id"]: c for c in data["detailed_results"]}
    assert set(by_id) == {"ok", "long"} and all(c["error"] is None for c in by_id.values())
    assert len(by_id["long"]["history"]) == 200  # the last 200 turns kept
    assert by_id["long"]["standalone_question"].startswith("And Pro?")
    errors = " | ".join(json.dumps(e) for e in data["input_errors"])
    for rid, words in (("3", "got a int"), ("4", "has no text"), ("5", "keys foo")):
        assert f'"row": {rid}' in errors or f"row {rid}" in errors, errors
        assert words in errors, errors
    assert any("last 200" in json.dumps(w) for w in data["input_warnings"])
    assert data["conversations"]["num_conversations"] == 2



# ------------------------------------------------------------------ compare
def test_compare_lists_regressions_by_conversation(tmp_path):
    from evaluators.comparison import compare_runs, comparison_text

    b = _run()  # c2's second answer is wrong
    a = b.model_copy(update={"results": (*b.results[:3], evaluate(chat_case("c2")))})
    paths = []
    for name, run in (("main", a), ("branch", b)):
        p = tmp_path / f"{name}.json"
        p.write_text(json.dumps(to_json_dict(run)), encoding="utf-8")
        paths.append(p)
    c = compare_runs(paths)  # from results files, read one case at a time
    conv = c.pair("main", "branch").conversations
    assert conv["regressed"] == 1 and conv["unchanged"] == 1
    top = conv["conversations"][0]
    assert top["conversation_id"] == "c2" and top["first_unsupported_turn_b"] == 2
    assert top["first_unsupported_turn_a"] is None and top["turns_lost"][0]["id"] == "c2-t2"
    words = comparison_text(c)
    assert "By conversation (2 conversations" in words and "c2:" in words
    assert "conversations" in c.to_dict()["pairs"][0]
    plain = [evaluate(chat_case(history=(), conversation_id=None))]
    from evaluators.types import RunResult

    one = RunResult(method="trace", results=tuple(plain))
    assert compare_runs([one, one]).pair("run 1", "run 2").conversations is None  # single-turn: unchanged

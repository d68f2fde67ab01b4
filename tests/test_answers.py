"""Issue 53: declined answers (right refusal / over-refusal), answer correctness against the reference
answer, the words Results says — offline through the real pipeline, and the LLM path through the real
openai SDK against the loopback server."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from evaluators import evaluate_batch
from evaluators.answers import answer_declines, not_stated, read_reference
from evaluators.answers.llm import PROMPT_VERSION, build_messages
from evaluators.answers.refusal import CLOSE_TO_QUESTION
from evaluators.export import to_json_dict
from evaluators.headline import Correctness, Reach, Support, headline
from evaluators.sentencize import sentencize_response
from tests.llm_server import last_user_message

DOC = "Index funds track a market index such as the S&P 500. They usually have low fees."
LEAVE = "Primary carers get 16 weeks of parental leave at full pay. Partners get 2 weeks."
Q_LEAVE = "What is parental leave at full pay for the primary carer?"


def says_no(text: str) -> bool:
    return answer_declines([s.text for s in sentencize_response(text)])


@pytest.mark.parametrize("text", [
    "The documents do not say what the capital of Australia is.", "I don't know.",
    "I cannot find that in the documents.",
    "There is no information about the warranty period.", "I'm sorry, but I do not have that information.",
    "I am unable to provide an answer. Sorry.",
    "Sorry, I do not have specific information on the cost of IBM Cloud IAM.",
    # the languages the sentencizer splits
    "Ich weiß es nicht.", "Die Dokumente enthalten dazu keine Informationen.", "Je ne sais pas.",
    "Les documents ne mentionnent pas la date.", "No lo sé.", "Los documentos no mencionan el precio.",
    "Non lo so.", "I documenti non dicono nulla sul prezzo.", "Não sei.", "Os documentos não mencionam o preço.",
    "Ik weet het niet.", "De documenten vermelden geen prijs.", "Я не знаю.", "В документах нет информации об этом.",
    "我不知道。", "文档中没有提到价格。", "わかりません。", "資料には記載がありません。", "모르겠습니다.",
    "문서에는 정보가 없습니다.", "لا أعرف.", "لا توجد معلومات عن السعر.", "मुझे नहीं पता।",
    "दस्तावेज़ों में इसकी जानकारी नहीं है।",
])
def test_declining_answers_are_detected_in_every_language_the_sentencizer_splits(text):
    assert says_no(text), text


@pytest.mark.parametrize("text", [
    "Index funds track a market index such as the S&P 500.", "No, refinancing is not the same as a mortgage.",
    "You do not need an MBA to start.", "I don't have the exact fee, but it is about 0.2 % a year for most funds.",
    "I apologize for the confusion. The storage is limited to 200 TB per policy.",
    "Which index fund are you referring to?", "Die Gebühr beträgt 0,2 % im Jahr.", "指数基金跟踪市场指数。",
    "Le document ne dit pas tout, mais la date est le 3 mai et le prix 20 euros.",
])
def test_answers_that_answer_are_not_called_declined(text):
    assert not says_no(text), text


def test_the_trace_labeler_takes_a_refusal_in_any_language_as_needing_no_support():
    """The labeler reads refusals with the headline's rule (evaluators.declined): a German, French,
    Spanish, Russian, Japanese or Chinese refusal claims nothing, so it does not lower adherence while the
    headline counts it as declined; a sentence that answers in those languages is still judged."""
    refusals = {"de": ("Was verfolgen Indexfonds?", "Die Dokumente enthalten dazu keine Informationen.",
                       "Indexfonds bilden einen Marktindex wie den DAX nach."),
                "fr": ("Que suivent les fonds indiciels ?", "Je ne sais pas.",
                       "Les fonds indiciels suivent un indice de marché comme le CAC 40."),
                "es": ("¿Qué siguen los fondos indexados?", "No tengo información sobre eso.",
                       "Los fondos indexados siguen un índice de mercado como el IBEX 35."),
                "ru": ("Что отслеживают индексные фонды?", "В документах нет информации об этом.",
                       "Индексные фонды отслеживают рыночный индекс."),
                "ja": ("インデックスファンドは何に連動しますか？", "資料には記載がありません。",
                       "インデックスファンドは日経平均などの市場指数に連動します。"),
                "zh": ("指数基金跟踪什么？", "文档中没有提到这一点。", "指数基金跟踪市场指数，例如沪深300指数。"),
                "en": ("What is the fee?", "I do not have specific information.", DOC)}
    cases = [{"id": k, "question": q, "response": r, "documents": [d]} for k, (q, r, d) in refusals.items()]
    cases.append({"id": "de-claim", "question": "Was kostet der Fonds?", "response": "Der Fonds kostet 5 % im Jahr.",
                  "documents": ["Der Fonds kostet 0,2 % im Jahr."]})
    run = evaluate_batch(cases, "trace")
    for res in run.results[:-1]:
        (s,) = res.labels.sentences
        assert s.supporting_keys == ("supported_without_sentence",), (res.case.id, s)
        assert res.value("adherence") == 1.0 and res.value("declined") == 1.0, res.case.id
    claim = run.results[-1]
    assert claim.value("declined") == 0.0
    assert claim.labels.sentences[0].supporting_keys != ("supported_without_sentence",)


def test_a_partly_declining_answer_is_answered_with_its_declining_sentence_named():
    run = evaluate_batch([{"id": "p", "question": "What do index funds track and cost?", "documents": [DOC],
                           "response": "Index funds track a market index. The documents do not say what they cost."}])
    d = run.results[0].metrics["declined"]
    assert d.value == 0.0 and d.details["sentences"] == ["b"] and d.details["verdict"] == "answered"


def test_the_issues_command_line_cases_right_refusal_over_refusal_and_no_documents():
    run = evaluate_batch([
        {"id": "australia", "question": "What is the capital of Australia?", "documents": [DOC],
         "response": "The documents do not say what the capital of Australia is."},
        {"id": "idk", "question": "What do index funds track?", "documents": [DOC], "response": "I don't know."},
        {"id": "nodocs", "question": "Will rates go up next year?", "documents": [],
         "response": "Sorry, but I do not have that information."},
        {"id": "answers", "question": "What do index funds track?", "documents": [DOC],
         "response": "They track a market index such as the S&P 500."},
    ])
    by = {r.case.id: r for r in run.results}
    assert all(r.ok for r in run.results), [r.error for r in run.results]  # the case without documents is scored
    assert [by[c].value("declined") for c in ("australia", "idk", "nodocs", "answers")] == [1.0, 1.0, 1.0, 0.0]
    assert [by[c].value("over_refusal") for c in ("australia", "idk", "nodocs", "answers")] == [0.0, 1.0, 0.0, 0.0]
    assert by["australia"].metrics["declined"].details["verdict"] == "right_refusal"
    assert "no documents" in by["nodocs"].metrics["over_refusal"].details["explanation"]
    assert by["idk"].metrics["declined"].details["verdict"] == "over_refusal"
    # no reference at all: the document sentence closest to the question decides (the weaker check)
    assert "close to the question" in by["idk"].metrics["over_refusal"].details["explanation"]
    assert by["idk"].metrics["over_refusal"].details["closest_cosine"] >= CLOSE_TO_QUESTION
    assert by["australia"].metrics["over_refusal"].details["closest_cosine"] < CLOSE_TO_QUESTION
    # no ground_truth anywhere: no correctness metric at all (a plain run gains only the two refusal metrics)
    assert set(by["answers"].metrics) == {"declined", "over_refusal"}
    means = run.means()
    assert means["declined"] == pytest.approx(0.75) and means["over_refusal"] == pytest.approx(0.25)


def test_an_over_refusal_is_called_from_the_reference_answer_or_a_retrieved_reference_passage():
    run = evaluate_batch([
        {"id": "gt", "question": "What do index funds track?", "documents": [DOC], "response": "I don't know.",
         "ground_truth": "A market index such as the S&P 500."},
        {"id": "gt-elsewhere", "question": "What is the capital of Australia?", "documents": [DOC],
         "response": "I don't know.", "ground_truth": "Canberra is the capital of Australia."},
        {"id": "passage", "question": "What do index funds track?", "documents": [{"id": "d1", "text": DOC}],
         "response": "I cannot find that.", "reference_context_ids": ["d1"]},
    ])
    by = {r.case.id: r for r in run.results}
    assert by["gt"].value("over_refusal") == 1.0
    assert "the documents state 1 of" in by["gt"].metrics["over_refusal"].details["explanation"]
    assert by["gt-elsewhere"].value("over_refusal") == 0.0
    assert by["passage"].value("over_refusal") == 1.0
    assert "reference passage was retrieved" in by["passage"].metrics["over_refusal"].details["explanation"]
    # the declining answer states none of the reference's facts; its precision has nothing to check
    assert by["gt"].value("answer_recall") == 0.0 and by["gt"].value("answer_correctness") == 0.0
    assert by["gt"].metrics["answer_precision"].skipped == "the answer makes no claim (it declines)"


def test_answer_correctness_numbers_must_match_and_the_missing_fact_is_named():
    run = evaluate_batch([
        {"id": "right", "question": Q_LEAVE, "documents": [LEAVE], "ground_truth": "16 weeks",
         "response": "Primary carers get 16 weeks of parental leave at full pay."},
        {"id": "wrong-number", "question": Q_LEAVE, "documents": [LEAVE], "ground_truth": "16 weeks",
         "response": "Primary carers get 12 weeks of parental leave at full pay."},
        {"id": "router", "question": Q_LEAVE, "documents": ["Hold the reset button for 10 seconds."],
         "ground_truth": "16 weeks", "response": "To reset the router, hold the reset button for 10 seconds."},
        {"id": "half", "question": "What parental leave do carers and partners get?", "documents": [LEAVE],
         "ground_truth": LEAVE, "response": "Primary carers get 16 weeks of parental leave at full pay."},
    ])
    by = {r.case.id: r for r in run.results}
    assert [by[c].value("answer_recall") for c in ("right", "wrong-number", "router")] == [1.0, 0.0, 0.0]
    assert by["right"].value("answer_correctness") == 1.0 and by["right"].value("answer_precision") == 1.0
    assert by["wrong-number"].value("answer_precision") == 0.0
    assert by["router"].value("adherence") == 1.0  # grounded in its documents, and still wrong: correctness says so
    assert by["router"].value("answer_correctness") == 0.0
    assert not_stated(by["half"].metrics["answer_recall"].details) == ["Partners get 2 weeks."]
    facts = by["half"].metrics["answer_recall"].details["facts"]
    assert [f["stated"] for f in facts] == [True, False] and facts[1]["credit"] == 0.0  # its number is not there
    recall = facts[0]["weight"] / (facts[0]["weight"] + facts[1]["weight"])  # each fact weighed by the question
    assert by["half"].value("answer_recall") == pytest.approx(recall, abs=1e-3) and 0 < recall < 1
    assert by["half"].value("answer_correctness") == pytest.approx(2 * recall / (recall + 1), abs=1e-3)


def test_answer_recall_counts_what_the_reference_states_and_how_much_of_each_fact_the_answer_says():
    """answer_recall = the weighted mean credit of the reference's facts: a fact stated counts 1, one half
    said counts the share of its words the answer carries (none when a number of it is missing); a
    pleasantry or an introduction of the reference is no fact; a sentence where the reference declines
    is a fact the answer states by declining too; facts closer to the question weigh more."""
    q = "How long is the warranty and what does it cover?"
    ref = ("Here are the details. The warranty lasts 24 months. It covers the battery and the screen. "
           "I hope this helps.")
    run = evaluate_batch([
        {"id": "partial", "question": q, "documents": [], "ground_truth": ref,
         "response": "The warranty lasts 24 months and covers the battery."},
        {"id": "wrong-number", "question": q, "documents": [], "ground_truth": "The warranty lasts 24 months.",
         "response": "The warranty lasts 12 months."},
        {"id": "partly-declines-both", "question": "When was the bridge built and who designed it?", "documents": [],
         "ground_truth": "The bridge was built in 1932. The documents do not say who designed it.",
         "response": "The bridge was built in 1932. I could not find who designed it."},
        {"id": "partly-declines-answers", "question": "When was the bridge built and who designed it?",
         "documents": [], "ground_truth": "The bridge was built in 1932. The documents do not say who designed it.",
         "response": "The bridge was built in 1932 and designed by John Bradfield."},
    ])
    by = {r.case.id: r for r in run.results}
    facts = by["partial"].metrics["answer_recall"].details["facts"]
    counted = [f for f in facts if f["claims"]]
    assert [f["text"] for f in counted] == ["The warranty lasts 24 months.", "It covers the battery and the screen."]
    assert counted[0]["stated"] and 0 < counted[1].get("credit", 1.0) < 1  # half of the second fact is said
    w = [f["weight"] for f in counted]
    credit = [1.0 if f["stated"] else f["credit"] for f in counted]
    expected = sum(a * b for a, b in zip(w, credit)) / sum(w)
    assert by["partial"].value("answer_recall") == pytest.approx(expected, abs=1e-3)
    assert by["wrong-number"].value("answer_recall") == 0.0  # "12 months" says nothing of "24 months"
    both = by["partly-declines-both"].metrics["answer_recall"]
    assert both.value == 1.0 and [f["stated"] for f in both.details["facts"]] == [True, True]
    answers = by["partly-declines-answers"].metrics["answer_recall"]
    assert 0 < answers.value < 1 and not_stated(answers.details) == ["The documents do not say who designed it."]
    # a fact about the question weighs more than an aside of the reference
    (aside,) = evaluate_batch([{"id": "w", "question": q, "documents": [], "response": "It lasts 24 months.",
                                "ground_truth": "The warranty lasts 24 months. Our shop opened in Leeds in 1990."}]
                              ).results
    fw = {f["text"]: f["weight"] for f in aside.metrics["answer_recall"].details["facts"]}
    assert fw["The warranty lasts 24 months."] > fw["Our shop opened in Leeds in 1990."]
    assert aside.value("answer_recall") > 0.5


def test_a_list_items_marker_changes_no_verdict_against_a_terse_reference():
    # the sample app answers with its document's list lines ("- The PostgreSQL ...", "2. Press ..."): the
    # marker made "The" a name the reference lacks (and "2" a number), so a right answer had precision 0
    q = "Which port does the PostgreSQL container listen on by default?"
    said = "The PostgreSQL container listens on port 5432 by default."
    rows = [{"id": f"m{i}", "question": q, "documents": [said], "ground_truth": "5432", "response": f"{lead}{said}"}
            for i, lead in enumerate(("", "- ", "* ", "2. ", "## "))]
    rows.append({**rows[1], "id": "wrong", "response": "- " + said.replace("5432", "5434")})
    by = {r.case.id: r for r in evaluate_batch(rows).results}
    for i in range(5):
        assert by[f"m{i}"].value("answer_precision") == 1.0 and by[f"m{i}"].value("answer_correctness") == 1.0, i
    assert by["wrong"].value("answer_precision") == 0.0 and by["wrong"].value("answer_recall") == 0.0


def test_a_terse_reference_fact_is_found_in_the_answer_though_the_question_is_closer_to_it():
    # "10 seconds" read beside its question: the question was the sentence closest to the fact and hid
    # the answer sentence that states it ("The answer does not say this")
    q = "How long should you press and hold the RESET button on the back panel?"
    said = "Press and hold the RESET button on the back panel for 10 seconds, until the power LED blinks amber."
    run = evaluate_batch([{"id": "right", "question": q, "documents": [said], "ground_truth": "10 seconds",
                           "response": said},
                          {"id": "wrong", "question": q, "documents": [said], "ground_truth": "10 seconds",
                           "response": said.replace("10", "12")}])
    by = {r.case.id: r for r in run.results}
    facts = by["right"].metrics["answer_recall"].details["facts"]
    assert by["right"].value("answer_recall") == 1.0 and facts[0]["stated"], facts
    assert by["wrong"].value("answer_recall") == 0.0


def test_a_reference_that_declines_makes_a_declining_answer_right():
    run = evaluate_batch([
        {"id": "both", "question": "q?", "documents": [], "response": "I do not know.",
         "ground_truth": "Sorry, I do not have that information."},
        {"id": "guess", "question": "What will rates be?", "documents": [], "response": "Rates will be 5 %.",
         "ground_truth": "Sorry, I do not have that information."},
    ])
    by = {r.case.id: r for r in run.results}
    assert by["both"].value("answer_correctness") == 1.0 and by["both"].value("over_refusal") == 0.0
    assert by["guess"].value("answer_correctness") == 0.0


@pytest.mark.parametrize("given, text, note", [
    (16, "16", "a number (16)"), (["16 weeks", "2 weeks for partners"], "16 weeks\n2 weeks for partners",
                                  "a list of 2 texts"),
    ("", None, "empty"), ([1, {"a": 2}], None, "a list holding int"), ({"answer": "x"}, None, "a dict"),
    (True, None, "a boolean"), (None, None, None), ("16 weeks", "16 weeks", None),
])
def test_a_ground_truth_value_is_read_into_text_or_a_note(given, text, note):
    got, why = read_reference(given)
    assert got == text
    assert (why is None) if note is None else (note in why)


def test_bad_ground_truths_are_each_a_clear_note_on_the_case_and_the_rest_scored():
    base = {"question": Q_LEAVE, "documents": [LEAVE], "response": "Primary carers get 16 weeks at full pay."}
    run = evaluate_batch([{**base, "id": "empty", "ground_truth": ""}, {**base, "id": "list", "ground_truth": [1, 2]},
                          {**base, "id": "number", "ground_truth": 16},
                          {**base, "id": "huge", "ground_truth": "x " * 100_000},
                          {**base, "id": "good", "ground_truth": "16 weeks"}])
    by = {r.case.id: r for r in run.results}
    assert all(r.ok for r in run.results)  # every case is scored (TRACE and refusal metrics)
    assert "empty" in by["empty"].metrics["answer_recall"].skipped
    assert "a list holding int 1" in by["list"].metrics["answer_correctness"].skipped
    assert "200,000 characters" in by["huge"].metrics["answer_precision"].skipped
    assert by["number"].value("answer_recall") == 1.0
    assert "a number (16)" in by["number"].metrics["answer_recall"].details["note"]
    assert by["good"].value("answer_correctness") == 1.0
    out = to_json_dict(run)  # the means count the cases that have a value, and the export keeps the reasons
    assert out["answer_correctness"] == pytest.approx(1.0)
    detail = next(c for c in out["detailed_results"] if c["id"] == "list")["metric_details"]["answer_recall"]
    assert "a list holding int 1" in detail["skipped"]


def test_a_bad_ground_truth_in_a_file_keeps_its_row(tmp_path):
    from evaluators.datasets import load_cases

    rows = [{"id": "a", "question": Q_LEAVE, "response": "16 weeks.", "documents": [LEAVE], "ground_truth": 16},
            {"id": "b", "question": Q_LEAVE, "response": "16 weeks.", "documents": [LEAVE], "ground_truth": [{"x": 1}]}]
    p = tmp_path / "cases.jsonl"
    p.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    res = load_cases(p)
    assert [c.id for c in res.cases] == ["a", "b"] and not res.errors
    run = evaluate_batch(res.cases)
    assert run.results[0].value("answer_recall") == 1.0
    why = run.results[1].metrics["answer_recall"].skipped
    assert "column 'ground_truth': ground_truth is a list holding dict" in why


def _frame(declined, over, supported, recall=None, mrr=None):
    d = {"id": [str(i) for i in range(len(declined))], "adherence": [1.0] * len(declined),
         "overall_supported": supported, "unsupported_sentences": [0 if s else 1 for s in supported],
         "declined": declined, "over_refusal": over}
    if recall is not None:
        d["answer_recall"] = recall
    if mrr is not None:
        d["mrr"] = mrr
    return pd.DataFrame(d)


def test_results_names_the_declined_answers_instead_of_all_fully_supported():
    from ui import vocab

    df = _frame([1] * 13 + [0, 0], [1, 1] + [0] * 13, [1] * 14 + [0], recall=[0.0] * 13 + [1.0, 0.0], mrr=[0.0] * 15)
    h = headline(df, "trace")
    assert h.support == Support(scored=15, not_fully=1, none_at_all=1, declined=13, over_refusals=2)
    said = vocab.support_words(h.support, "trace")
    assert said == ("13 of 15 answers declined (2 of them although the documents hold the answer); of the 2 that "
                    "answered, 1 has a sentence the documents do not fully support, by trace's labels.")
    assert "fully supported" not in vocab.support_words(Support(15, 0, 0, 15, 0), "trace").split(";")[0]
    assert h.correctness == Correctness(judged=15, recall=pytest.approx(1 / 15), missing_some=14)
    assert "14 of 15 miss at least one" in vocab.correctness_words(h.correctness)
    assert h.reach == Reach(scored=15, reached=0)
    assert vocab.reach_words(h.reach).startswith("0 of 15 questions got a reference passage back")
    assert vocab.reach_words(Reach(scored=15, reached=3)) is None
    # a run without declined answers reads as before
    plain = headline(_frame([0, 0], [0, 0], [1, 1]), "trace")
    said = vocab.support_words(plain.support, "trace")
    assert said == "All 2 answers are fully supported by their documents, by trace's labels."


def test_compare_and_the_gate_take_the_answer_metrics_by_name():
    from evaluators.comparison import changes_page, compare_runs
    from evaluators.gate import evaluate_gate

    # 12 questions, 8 declined under B: one-way changes McNemar can tell (p = 0.008; 4 of 6 it cannot)
    cases = [{"id": f"q{i}", "question": Q_LEAVE, "documents": [LEAVE], "ground_truth": "16 weeks"} for i in range(12)]
    a = evaluate_batch([{**c, "response": "Primary carers get 16 weeks of parental leave at full pay."} for c in cases])
    b = evaluate_batch([{**c, "response": "I don't know." if i < 8 else "Primary carers get 12 weeks at full pay."}
                        for i, c in enumerate(cases)])
    c = compare_runs([a, b], names=["A", "B"])
    for m in ("answer_correctness", "declined", "over_refusal"):
        assert m in c.metrics
    assert c.pair("A", "B", "answer_correctness").verdict == "a_better"
    assert c.pair("A", "B", "over_refusal").verdict == "a_better"  # lower is better
    page = changes_page(c, "A", "B", "answer_correctness")
    assert page.total == 12 and len(page.changes) == 10  # a page of 10, worst first
    gate = evaluate_gate(b, {"answer_correctness": 0.5, "over_refusal": 0.0})  # over_refusal: a ceiling
    assert not gate.passed and [f.metric for f in gate.failures] == ["answer_correctness", "over_refusal"]
    assert evaluate_gate(a, {"answer_correctness": 0.5, "over_refusal": 0.0}).passed


def test_the_llm_path_makes_one_sentence_keyed_cached_call_per_case(llm_server, loopback_settings):
    from evaluators.testing.llm_server import keyed_labels_responder

    def reply(req):
        text = last_user_message(req)
        if "Reference answer:" in text:
            return {"reference_facts": [{"key": "r1", "explanation": "stated in a", "stated_by": ["a"], "stated": True},
                                        {"key": "r2", "explanation": "not stated", "stated_by": [], "stated": False}],
                    "response_sentences": [{"key": "a", "explanation": "r1", "backed_by": ["r1"], "declines": False,
                                            "states_nothing": False, "backed": True}]}
        return keyed_labels_responder(req)

    llm_server.respond(reply)
    case = {"id": "x", "question": "What parental leave do carers and partners get?", "documents": [LEAVE],
            "response": "Primary carers get 16 weeks of parental leave at full pay.", "ground_truth": LEAVE}
    settings = loopback_settings()
    run = evaluate_batch([case], "gpt_labeling", llm=settings)
    r = run.results[0]
    facts = r.metrics["answer_recall"].details["facts"]
    expected = facts[0]["weight"] / (facts[0]["weight"] + facts[1]["weight"])
    assert r.value("answer_recall") == pytest.approx(expected, abs=1e-3)
    assert r.value("answer_precision") == 1.0
    assert not_stated(r.metrics["answer_recall"].details) == ["Partners get 2 weeks."]
    assert r.metrics["answer_recall"].details["judged_by"] == "llm"
    prompts = [last_user_message(q.json) for q in llm_server.requests]
    graded = [p for p in prompts if "Reference answer:" in p]
    assert len(graded) == 1 and "r1. Primary carers get 16 weeks" in graded[0] and "\na. Primary carers" in graded[0]
    assert graded[0] == build_messages(case["question"], LEAVE, case["response"])[1]["content"]
    assert '"declined"' in next(p for p in prompts if "Reference answer:" not in p)  # the labeling prompt's label
    assert r.usage.calls == 2 and PROMPT_VERSION
    n = llm_server.count
    again = evaluate_batch([case], "gpt_labeling", llm=settings)  # cached: no new call
    assert llm_server.count == n and again.results[0].value("answer_recall") == r.value("answer_recall")


def test_an_llm_declined_label_makes_the_answer_declined(llm_server, loopback_settings):
    from evaluators.testing.llm_server import labels_reply

    llm_server.respond(lambda req: labels_reply(["0a"], [], {"a": (["declined"], True)}))
    run = evaluate_batch([{"id": "x", "question": "What do index funds track?", "documents": [DOC],
                           "response": "Das steht dort so nicht drin."}], "gpt_labeling", llm=loopback_settings(),
                         answer_correctness="off")
    r = run.results[0]
    assert r.labels.sentences[0].supporting_keys == ("declined",) and r.scores.adherence == 1.0
    assert r.value("declined") == 1.0 and r.value("over_refusal") == 1.0  # 0a is relevant: the documents hold it


def test_the_ci_gate_fails_on_answer_correctness_and_the_flag_turns_it_off(tmp_path, capsys):
    from evaluators.cli import main

    p = tmp_path / "cases.jsonl"
    row = {"question": Q_LEAVE, "documents": [LEAVE], "ground_truth": "16 weeks",
           "response": "Primary carers get 12 weeks of parental leave at full pay."}
    p.write_text("\n".join(json.dumps({"id": f"q{i}", **row}) for i in range(3)), encoding="utf-8")
    out = tmp_path / "out.json"
    rc = main(["evaluate", str(p), "--no-progress", "--out", str(out), "--fail-under", "answer_correctness=0.5"])
    printed = capsys.readouterr().out
    assert rc == 1 and "FAIL" in printed and "answer_correctness" in printed
    data = json.loads(out.read_text())
    assert data["answer_correctness"] == 0.0 and data["intervals"]["answer_correctness"]["n"] == 3
    assert data["settings"]["answer_correctness"] == "auto"
    rc = main(["evaluate", str(p), "--no-progress", "--out", str(out), "--answer-correctness", "off"])
    data = json.loads(out.read_text())
    assert rc == 0 and "answer_correctness" not in data and data["declined"] == 0.0


def test_compare_in_words_lists_the_regressions_on_answer_correctness():
    from evaluators.comparison import compare_runs, comparison_text

    cases = [{"id": f"q{i}", "question": Q_LEAVE, "documents": [LEAVE], "ground_truth": "16 weeks"} for i in range(4)]
    a = evaluate_batch([{**c, "response": "Primary carers get 16 weeks of parental leave at full pay."} for c in cases])
    b = evaluate_batch([{**c, "response": "Primary carers get 12 weeks of parental leave at full pay." if i < 2 else
                         "Primary carers get 16 weeks of parental leave at full pay."} for i, c in enumerate(cases)])
    text = comparison_text(compare_runs([a, b], names=["A", "B"]))
    assert ("Regressions of B against A on answer_correctness (against the reference answers), worst first "
            "(2 of 2") in text
    assert "[q0]" in text and "1.00 → 0.00" in text
    assert "answer_correctness" in text.split("Other metrics")[1]  # with the paired test, like every metric


def test_run_your_app_says_the_sample_app_only_knows_its_own_documents():
    from ui.run_app import sample

    mine = [{"metadata": {"source": "parental-leave.html", "generator": "offline"}},
            {"reference_context_ids": ["handbook.pdf#3"]}]
    note = sample.off_map_note(mine, sample_picked=True)
    assert "only knows its 15 sample documents" in note and "handbook.pdf, parental-leave.html" in note
    assert sample.off_map_note(mine, sample_picked=False) is None  # your own app: nothing to say
    theirs = [{"metadata": {"source": f"{name}.md"}} for name in sorted(sample.known_documents())]
    assert sample.off_map_note(theirs, sample_picked=True) is None  # questions made from the sample documents
    assert sample.off_map_note([{"question": "hand-written?"}], sample_picked=True) is None


def test_the_estimate_counts_the_correctness_calls_of_an_llm_method(loopback_settings):
    from evaluators.pipeline import estimate
    from ui import jobs

    cases = [{"id": f"q{i}", "question": Q_LEAVE, "documents": [LEAVE], "response": "16 weeks.",
              "ground_truth": "16 weeks" if i < 3 else None} for i in range(4)]
    settings = loopback_settings()
    e = estimate(cases, "gpt_labeling", llm=settings)
    assert e["calls"] == 4 and e["answer_correctness"]["calls"] == 3  # one per case with a reference answer
    assert jobs.estimated_calls(e) == 7
    assert "answer_correctness" not in estimate(cases, "gpt_labeling", llm=settings, answer_correctness="offline")
    assert "answer_correctness" not in estimate(cases, "trace")


def test_a_reference_fact_that_negates_its_yes_no_question_is_not_backed_by_the_question_alone():
    # the walk of issue 53: "Are Keystore passwords stored in the service instance?" — a router's reset
    # step "stated" the reference "Keystore passwords are not stored in the service instance" (the question
    # restated with "not" adds no content word), and a declining answer over a PostgreSQL page was called an
    # over-refusal: the question alone never states which way the answer goes
    q = "Are Keystore passwords stored in the service instance?"
    ref = "Keystore passwords are not stored in the service instance"
    pg = "- Data is stored in the volume mounted at /var/lib/postgresql/data."
    run = evaluate_batch([
        {"id": "router", "question": q, "documents": ["Press and hold the RESET button for 10 seconds."],
         "ground_truth": ref, "response": "2. Press and hold the RESET button on the back panel for 12 seconds."},
        {"id": "declines", "question": q, "documents": [pg], "ground_truth": ref,
         "response": "The documents do not say."},
        {"id": "says-no", "question": q, "documents": [ref + "."], "ground_truth": ref,
         "response": "No, they are not stored in the service instance."},
    ])
    by = {r.case.id: r for r in run.results}
    assert by["router"].value("answer_recall") == 0.0
    assert by["declines"].value("over_refusal") == 0.0
    assert by["says-no"].value("answer_recall") == 1.0

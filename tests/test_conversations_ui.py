"""The dashboard with turns of chats (issue 48), through AppTest: Inspect shows the earlier turns above
the question (the last three, the rest collapsed; every text escaped), Results has a Conversations
tab (by turn, conversations worst first), Compare lists regressions by conversation, and Upload's
mapping offers the history and conversation columns."""

from __future__ import annotations

import json

import pytest

from evaluators.types import TestCase, Turn
from tests import ui_fixtures as fx
from tests.test_app_pages import page, with_run
from ui.inspect import conversation_view as cv

pytestmark = pytest.mark.usefixtures("tmp_store", "no_llm_env", "fake_method", "app_py_every_run")

XSS_TURN = "Tell me <script>window.__xss=1</script><img src=x onerror=alert(1)> about Paris"
ANSWERS = ["Paris is the capital of France.", "It lies on the Seine.", "It has ten million dragons."]


def chat(cid: str = "c1", answers: list[str] = ANSWERS) -> list[TestCase]:
    """A conversation of len(answers) turns, each case with the turns before it (the first user turn
    carries markup that must never run)."""
    questions = [XSS_TURN, "Which river?", "How many dragons?"]
    cases, history = [], []
    for i, (q, a) in enumerate(zip(questions, answers), start=1):
        cases.append(TestCase(id=f"{cid}-t{i}", conversation_id=cid, question=q, response=a,
                              documents=("Paris is the capital of France. It lies on the Seine.",),
                              history=tuple(history)))
        history += [Turn(speaker="user", text=q), Turn(speaker="agent", text=a)]
    return cases


def long_chat() -> TestCase:
    turns = tuple(Turn(speaker="user" if i % 2 == 0 else "agent", text=f"turn text {i + 1}") for i in range(6))
    history = (*turns, Turn(speaker="user", text=XSS_TURN), Turn(speaker="agent", text="Paris."))
    return TestCase(id="long", conversation_id="c9", question="And it?", response="Paris is the capital.",
                    documents=("Paris is the capital of France.",), history=history)


def frame_with(at, column: str):
    """The data frame of the page that has ``column``."""
    return next(d.value for d in at.dataframe if column in d.value.columns)


def test_turn_markup_is_escaped_and_split():
    earlier, recent = cv.split(long_chat().history)
    assert [n for n, _ in earlier] == [1, 2, 3, 4, 5] and [n for n, _ in recent] == [6, 7, 8]
    html = cv.turns_html(recent)
    assert "&lt;script&gt;" in html and "<script" not in html and "<img" not in html
    assert 'data-turn="7" data-speaker="user"' in html
    assert "earlier turn 2" in cv.support_html(["turn_2", "0a"], chat()[2])


def test_inspect_shows_earlier_turns_the_oldest_collapsed():
    run = fx.fake_run([*chat(), long_chat()])
    at = with_run(run)
    at.query_params["case"] = "long"
    page(at.run(), "4_inspect")
    exp = [e for e in at.expander if "earlier turn" in e.label]
    assert [e.label for e in exp] == ["5 earlier turns"]
    assert not exp[0].proto.expanded  # collapsed beyond the last three
    inside = "".join(h.proto.body for h in exp[0].get("html"))
    assert 'data-turn="1"' in inside and 'data-turn="5"' in inside and 'data-turn="6"' not in inside
    html = "".join(h.proto.body for h in at.main.get("html"))
    shown = html.replace(inside, "")
    assert all(f'data-turn="{n}"' in shown for n in (6, 7, 8))
    assert shown.index('data-turn="8"') < shown.index("<b>Question:</b>")  # the turns above the question
    assert "&lt;script&gt;" in html and "<script" not in html and "<img" not in html
    assert "Judged as:" in html  # "And it?" lacks a subject: its standalone question is shown
    # issue 57 item 5: the heading's numbers agree with the turns labelled above it (1–8 here) and
    # with the turn index Results gives the case (5: four questions before it)
    assert any(m.value == "**Conversation c9 · question 5 of the chat (turns 1–8 above)**" for m in at.markdown)
    assert 'turn 8 · agent' in shown and "turn 9" not in html


def test_results_conversations_tab_by_turn_and_worst_first():
    good = chat("c2", ["Paris is the capital of France.", "It lies on the Seine.", "It lies on the Seine."])
    at = page(with_run(fx.fake_run([*chat("c1"), *good])).run(), "3_results")
    fx.open_tab(at, "results.tab", "Conversations")
    assert not at.exception
    turns = frame_with(at, "cases")
    assert list(turns["turn"]) == [1, 2, 3] and list(turns["cases"]) == [2, 2, 2]
    convs = frame_with(at, "worst turn")
    assert list(convs["conversation"]) == ["c1", "c2"]  # c1's third answer invents dragons: worst first
    assert convs["worst turn"].iloc[0] == 3 and "inspect?" in convs["inspect worst turn"].iloc[0]
    plain = page(with_run(fx.fake_run()).run(), "3_results")
    assert "Conversations" not in [t.label for t in plain.tabs]


def test_compare_regressions_by_conversation():
    from evaluators.store import RunStore
    from tests.test_app_pages import TOKEN

    a = fx.fake_run([*chat("c1"), *chat("c2", ["Paris is the capital of France.", "It lies on the Seine.",
                                                 "It lies on the Seine."])])
    worse = chat("c2", ["Paris is the capital of France.", "It lies on the Seine.", "It has ten million dragons."])
    b = fx.fake_run([*chat("c1"), *worse])
    store = RunStore()
    store.save(a, "base", owner=TOKEN)
    store.save(b, "candidate", owner=TOKEN)
    at = page(with_run(a, b).run(), "5_compare")
    frame = frame_with(at, "turns that lost most")
    assert list(frame["conversation"]) == ["c2"] and frame["change"].iloc[0] < 0
    assert any("regressed" in c.value and "2 conversations" in c.value for c in at.caption)


def test_upload_mapping_offers_history_and_conversation():
    from ui import state

    rows = [{"q": c.question, "response": c.response, "documents": list(c.documents),
             "turns_before": json.dumps([{"role": "user" if t.speaker == "user" else "assistant", "content": t.text}
                                         for t in c.history]), "chat": c.conversation_id} for c in chat()]
    raw = "\n".join(json.dumps(r) for r in rows).encode("utf-8")
    at = page(with_run().run(), "1_upload")
    at.file_uploader(key="upload.file").set_value(("odd.jsonl", raw, "application/json")).run()
    # names it cannot guess: the mapping offers both fields, with what they are for
    hist, conv = at.selectbox(key="upload.map.history"), at.selectbox(key="upload.map.conversation_id")
    assert "standalone question" in hist.help and "by conversation" in conv.help
    for f, col in (("question", "q"), ("response", "response"), ("documents", "documents")):
        at.selectbox(key=f"upload.map.{f}").set_value(col)
    hist.set_value("turns_before")
    conv.set_value("chat")
    at.button(key="upload.apply").click().run()
    assert not at.exception
    data = at.session_state[state._DATA]
    assert not data.errors, (data.errors, [e.value for e in at.error])
    cases = data.cases
    assert [len(c.history) for c in cases] == [0, 2, 4] and {c.conversation_id for c in cases} == {"c1"}
    assert cases[2].history[0].text == XSS_TURN


def test_a_stored_runs_downloads_keep_the_conversation():
    from evaluators.store import RunStore, view
    from tests.test_app_pages import TOKEN
    from ui import tables
    from ui.results import exports

    run = fx.fake_run([*chat("c1"), *chat("c2")])
    store = RunStore()
    stored = view(store, store.save(run, "chat", owner=TOKEN), owner=TOKEN)
    top = exports.top_of(stored)
    assert top["conversations"]["num_conversations"] == 2
    assert top["conversations"] == exports.top_of(run)["conversations"]  # the same block as the run in memory
    doc = json.loads(exports.json_bytes(stored))
    assert doc["detailed_results"][2]["history"][0]["text"] == XSS_TURN  # the turns are in the results file
    df = tables.case_frame(stored)
    assert {"conversation_id", "turn", "standalone_question"} <= set(df.columns) and "history" not in df.columns


"""The LLM generator's prompts and the shapes of the replies it accepts.

Contract: :func:`generation_messages` asks for one question of a type about one or two passages,
in the documents' language, as one JSON object (:class:`QuestionReply`, or :class:`FollowUpReply`
for a conversational question); :func:`critic_messages` asks whether the passages answer the
question and back the reference answer (:class:`CriticReply`). A reply that is not that JSON is
re-asked once by ``evaluators.llm`` (after json-repair); :func:`check_question` rejects a question
that is empty, is not a question, or gives its own answer away (the re-ask says which).
``PROMPT_VERSION`` is part of every cache key: change it when a prompt changes.
"""

from __future__ import annotations

import re
from typing import Sequence

from pydantic import BaseModel, Field

from ..documents import Passage, language_name

PROMPT_VERSION = "testset-1"

SYSTEM = ("You write test questions for evaluating a retrieval-augmented question-answering system over a "
          "set of documents. You only use what the passages say. You reply with one JSON object and nothing else.")

_TASKS = {
    "single_hop": ("Write one question a user of these documents could ask whose answer is a fact stated in "
                   "the passage, and its answer. The question must make sense on its own (name what it is "
                   "about; no 'the passage', 'the text' or 'this document'), must not contain its answer, and "
                   "the answer must be short and taken from the passage."),
    "multi_hop": ("Write one question that can only be answered by combining a fact from passage 1 with a fact "
                  "from passage 2, and its answer. The question must make sense on its own (no 'passage 1', "
                  "'the text'), must not contain its answer, and the answer must use both passages."),
    "reasoning": ("Write one question that needs reasoning over the passage (a why, a how, a comparison, a "
                  "consequence or a condition) rather than looking up one phrase, and its answer in one to three "
                  "sentences that follow from the passage alone. The question must make sense on its own and "
                  "must not contain its answer."),
    "unanswerable": ("Write one question that a user of these documents might plausibly ask about the same topic, "
                     "but that the passage does NOT answer (the information is simply not there; do not ask about "
                     "something the passage contradicts). As the answer, write the reply a careful assistant "
                     "should give: one sentence saying the documents do not contain this information."),
    "conversational": ("Write a two-turn conversation about the passage: a first question and its answer, then a "
                       "follow-up question that cannot be understood without the first turn (it refers back to it, "
                       "e.g. with 'it', 'that' or 'and what about ...'), and the follow-up's answer. Both answers "
                       "come from the passage; no question contains its own answer."),
}

_SHAPES = {
    "conversational": '{"first_question": "...", "first_answer": "...", "question": "...", "answer": "..."}',
}
_DEFAULT_SHAPE = '{"question": "...", "answer": "..."}'


class QuestionReply(BaseModel):
    question: str = Field(min_length=3)
    answer: str = Field(min_length=1)


class FollowUpReply(QuestionReply):
    first_question: str = Field(min_length=3)
    first_answer: str = Field(min_length=1)


class CriticReply(BaseModel):
    #: The passages (with the conversation, if any) answer the question.
    answerable: bool
    #: The reference answer says what the passages say.
    answer_supported: bool
    #: The question can be understood without seeing the passages.
    standalone: bool = True
    reason: str = ""


def _language_line(language: str) -> str:
    if language:
        return f"Write the question(s) and answer(s) in {language_name(language)}, the language of the passages."
    return "Write the question(s) and answer(s) in the same language as the passages."


def _passages_block(passages: Sequence[Passage]) -> str:
    parts = []
    for i, p in enumerate(passages, 1):
        where = f"{p.source}" + (f", section \"{p.section}\"" if p.section else "")
        head = f"Passage {i} ({where})" if len(passages) > 1 else f"Passage ({where})"
        parts.append(f"{head}:\n\"\"\"\n{p.text}\n\"\"\"")
    return "\n\n".join(parts)


def generation_messages(qtype: str, passages: Sequence[Passage], language: str) -> list[dict[str, str]]:
    user = (f"{_passages_block(passages)}\n\n{_TASKS[qtype]}\n{_language_line(language)}\n\n"
            f"Reply with only this JSON object: {_SHAPES.get(qtype, _DEFAULT_SHAPE)}")
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def schema_for(qtype: str) -> type[QuestionReply]:
    return FollowUpReply if qtype == "conversational" else QuestionReply


def critic_messages(qtype: str, passages: Sequence[Passage], question: str, answer: str,
                    history: Sequence[dict[str, str]] = ()) -> list[dict[str, str]]:
    convo = ""
    if history:
        convo = "Earlier in the conversation:\n" + "\n".join(
            f"{'User' if t['role'] == 'user' else 'Assistant'}: {t['content']}" for t in history) + "\n\n"
    user = (f"{_passages_block(passages)}\n\n{convo}Question: {question}\nReference answer: {answer}\n\n"
            "Judge strictly, using only the passages (and the conversation):\n"
            "- answerable: do the passages contain the information that answers the question?\n"
            "- answer_supported: does the reference answer say what the passages say (true also when it "
            "correctly states that the passages do not contain the answer)?\n"
            "- standalone: can a user understand the question without seeing the passages (given the "
            "conversation, if any)?\n"
            'Reply with only this JSON object: {"answerable": true|false, "answer_supported": true|false, '
            '"standalone": true|false, "reason": "one short sentence"}')
    return [{"role": "system", "content": "You check test questions against source passages. "
                                          "You reply with one JSON object and nothing else."},
            {"role": "user", "content": user}]


_END = ("?", "？", "؟", ";")  # Greek uses ";" as its question mark


def _norm(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def check_question(reply: QuestionReply, qtype: str) -> QuestionReply:
    """The reply, or ValueError saying what to fix (sent back to the model on the re-ask)."""
    q = reply.question.strip()
    if not q.endswith(_END):
        raise ValueError("'question' must be a question ending with a question mark")
    if re.search(r"\b(the|this) (passage|text|document|excerpt)\b|\bpassage [12]\b", q, re.I):
        raise ValueError("the question must not mention 'the passage' or 'the text': name what it is about")
    if qtype != "unanswerable":
        a = _norm(reply.answer)
        if a and len(a.split()) <= 6 and f" {a} " in f" {_norm(q)} ":
            raise ValueError("the question contains its own answer; ask without giving the answer away")
    if isinstance(reply, FollowUpReply) and not reply.first_question.strip().endswith(_END):
        raise ValueError("'first_question' must be a question ending with a question mark")
    return reply


#: Rough reply sizes (tokens) for the cost estimate.
EXPECTED_OUTPUT_TOKENS = {"generate": 120, "conversational": 220, "critic": 60}

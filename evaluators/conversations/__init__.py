"""Conversations: a case that is one turn of a chat, judged with the turns before it.

    from evaluators import TestCase, evaluate
    from evaluators.conversations import by_conversation, by_turn, standalone_question
    from evaluators.types import Turn

    case = TestCase(id="c1-t2", conversation_id="c1", question="Which one is cheaper?",
                    history=(Turn(speaker="user", text="What do the Basic and Pro plans cost?"),
                             Turn(speaker="agent", text="Basic costs $5 a month and Pro $12.")),
                    response="Basic is cheaper.", documents=("Basic costs $5 a month.", "Pro costs $12 a month."))
    r = evaluate(case)
    r.standalone_question          # 'Which one is cheaper? (Basic Pro plans cost)'
    by_turn(run.results)           # metrics by turn index (1 = the conversation's first question)
    by_conversation(run.results)   # per conversation: its worst turn, its first unsupported turn

A case carries its conversation as ``TestCase.history`` (earlier turns, oldest first; read from
the shapes users give by :mod:`evaluators.turns`) and ``conversation_id``. A case without history
is judged exactly as before this package existed.

Modules (each opens with the contract it keeps):

* ``standalone`` — the offline rule that makes a turn's question standalone from the user's
  earlier turns; the ``trace`` labeler judges relevance and utilization against it, and every
  turn's results carry it as ``standalone_question``;
* ``support``    — adherence with the conversation: a response sentence the documents do not hold
  but an earlier agent turn states counts as supported, by the key of that turn (``turn_3``), and
  says so — never as grounded in a document;
* ``prompt``     — the conversation as the LLM labeling prompt shows it: context, not a document;
* ``grouping``   — per-conversation results: the turn index of a case, metrics by turn, per
  conversation its worst turn and first unsupported turn, and the results file's ``conversations``
  summary.

Where it sits: above ``types``, ``turns``, ``sentencize`` and ``stats``; the labelers, the
pipeline, the exports and ``comparison`` use it, it uses none of them (a labeler is passed in as a
function where one is needed).
"""

from __future__ import annotations

from .grouping import ConversationTally, by_conversation, by_turn, turn_of
from .standalone import as_standalone, lacks_subject, question_of, standalone_question
from .support import agent_turn_keys, agent_turns, support_from_earlier_turns

__all__ = ["ConversationTally", "agent_turn_keys", "agent_turns", "as_standalone", "by_conversation", "by_turn",
           "lacks_subject", "question_of", "standalone_question",
           "support_from_earlier_turns", "turn_of"]

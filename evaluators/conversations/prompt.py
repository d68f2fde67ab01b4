"""The conversation as the LLM labeling prompt shows it: context that is not a document.

    from evaluators.conversations.prompt import conversation_lines, CONVERSATION_RULES
    parts.extend(conversation_lines(case.history))     # before the question; [] without history

Contract: a case without history adds nothing (the prompt of a single-turn case is the same, byte
for byte, so its cached answer still applies). With history, the last :data:`MAX_PROMPT_TURNS`
turns are shown between ``<conversation>`` tags, each as ``turn_N (user|agent): text`` (N counted
over the whole history; each turn cut to :data:`MAX_TURN_CHARS`), under a heading that says the
conversation is not a document; :data:`CONVERSATION_RULES` then tells the model to read the question
as the conversation means it and that a response sentence only an earlier **agent** turn supports is
cited by that turn's key (``turn_4``) — never as a document sentence, never a user turn. The keys a
reply may cite are :func:`citable_keys` (the agent turns shown).
"""

from __future__ import annotations

from typing import Sequence

from ..types import Turn, earlier_turn_key

#: The last turns of a conversation the prompt shows.
MAX_PROMPT_TURNS = 12
#: Longest text of one turn in the prompt (longer turns are cut, marked "…").
MAX_TURN_CHARS = 1500

CONVERSATION_HEADING = ("Conversation so far (the earlier turns of this chat, oldest first). This is context, "
                        "NOT a document: it tells what the question refers to. Never cite it as a document "
                        "sentence.")

CONVERSATION_RULES = """\
The question is the user's next turn of the conversation shown above: judge relevance against what \
the question means in that conversation (e.g. "which one is cheaper?" asks about the products \
discussed before). Document keys stay the only keys of relevant and utilized sentences. If a response \
sentence is not supported by any document sentence but an earlier agent turn states it, put that \
turn's key (for example "turn_4") in its supporting_sentence_keys, and set fully_supported to true \
only if that turn states the whole sentence. Never cite a user turn: what the user said supports nothing."""


def shown_turns(history: Sequence[Turn]) -> list[tuple[int, Turn]]:
    """(turn number, turn) of the turns the prompt shows: the last :data:`MAX_PROMPT_TURNS`."""
    numbered = list(enumerate(history, start=1))
    return numbered[-MAX_PROMPT_TURNS:]


def citable_keys(history: Sequence[Turn]) -> frozenset[str]:
    """The earlier-turn keys a reply may cite: the agent turns the prompt shows."""
    return frozenset(earlier_turn_key(n) for n, t in shown_turns(history) if t.speaker == "agent")


def conversation_lines(history: Sequence[Turn]) -> list[str]:
    """The lines of the prompt's conversation block (ends with a blank line); [] without history."""
    if not history:
        return []
    shown = shown_turns(history)
    lines = [CONVERSATION_HEADING, "<conversation>"]
    if len(shown) < len(history):
        lines.append(f"({len(history) - len(shown)} earlier turns not shown)")
    for n, t in shown:
        text = " ".join(t.text.split())
        if len(text) > MAX_TURN_CHARS:
            text = text[: MAX_TURN_CHARS - 1].rstrip() + "\u2026"
        lines.append(f"{earlier_turn_key(n)} ({t.speaker}): {text}")
    lines.extend(["</conversation>", ""])
    return lines


__all__ = ["CONVERSATION_HEADING", "CONVERSATION_RULES", "MAX_PROMPT_TURNS", "MAX_TURN_CHARS", "citable_keys",
           "conversation_lines", "shown_turns"]

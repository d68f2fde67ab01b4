"""The earlier turns of a conversation, read from the shapes users give them.

    from evaluators.turns import read_history
    read_history([{"role": "user", "content": "Which plans are there?"},
                  {"role": "assistant", "content": "Basic and Pro."}])
    # (Turn(speaker='user', text='Which plans are there?'), Turn(speaker='agent', text='Basic and Pro.'))

Accepted: a list (or its JSON text) of turns, each ``{speaker, text}`` (MTRAG), the chat
``{role, content}`` shape (OpenAI, LangChain ``{type, content}``/``{role, text}``), or a **transcript**:
text whose turns each start with a speaker and a colon (``User: … / Assistant: …``, one per line or
on one line; also ``Human:``, ``AI:``, ``Q:`` / ``A:``, ``**User:**``, ``- user:`` …), read turn by
turn with a note saying so (:data:`TRANSCRIPT_NOTE`: the loader puts it on the case). Text that is
neither — no speaker to tell who said what — is an error. Speakers: ``user`` / ``human`` → user;
``assistant`` / ``agent`` / ``ai`` / ``bot`` / ``model`` → agent. System and tool messages are not
turns of the conversation and are left out. Content given as a list of parts
(``[{"type": "text", "text": …}]``) is joined.

Anything else raises :class:`HistoryError` with a message that names the turn and what is wrong
(the caller adds file, row and column). Foundations: imports only :mod:`evaluators.types`.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .types import Turn

#: Most turns one case may carry (a longer conversation keeps its last ``MAX_TURNS``, with a note).
MAX_TURNS = 200
#: Longest text of one turn.
MAX_TURN_CHARS = 100_000

_USER = {"user", "human", "customer", "client", "question"}
_AGENT = {"assistant", "agent", "ai", "bot", "model", "system_response", "answer", "chatbot"}
_SKIPPED = {"system", "developer", "tool", "function", "ipython"}
_SPEAKER_KEYS = ("speaker", "role", "type", "author", "from", "sender")
_TEXT_KEYS = ("text", "content", "message", "utterance", "value")


#: How a note about a history read from a transcript starts (the loader shows it on the case).
TRANSCRIPT_NOTE = "history read as a transcript"
#: Speakers a transcript may name, beside those of the list shapes (lower case).
_TRANSCRIPT_SPEAKERS = {"q": "user", "you": "user", "me": "user", "a": "agent"}
_WORDS = sorted({*_USER, *_AGENT, *_SKIPPED, *_TRANSCRIPT_SPEAKERS} - {"question", "answer"} | {"question", "answer"},
                key=len, reverse=True)
_WORD = "|".join(re.escape(w).replace("_", "[ _]") for w in _WORDS)
#: A speaker at the start of a line: "User:", "**User:**", "- user:", "> Assistant:".
_LINE_SPEAKER = re.compile(rf"^[ \t]*(?:[-*>•][ \t]+)?(?:\*\*|__)?({_WORD})(?:\*\*|__)?[ \t]*:(?:\*\*|__)?[ \t]*",
                           re.IGNORECASE | re.MULTILINE)
#: A speaker inside a line (a one-line transcript): capitalised, after a space — "… Assistant: …".
_INLINE_SPEAKER = re.compile(rf"(?<=\s)(?:\*\*)?(?=[A-Z])((?i:{_WORD}))(?:\*\*)?:(?:\*\*)?[ \t]*")


class HistoryError(ValueError):
    """A history that cannot be read; the message names the turn and the problem."""


def read_history(value: Any) -> tuple[tuple[Turn, ...], list[str]]:
    """(turns, notes) of a history value; ``notes`` say what was left out (system turns, turns
    beyond :data:`MAX_TURNS`). None / empty → no turns. Raises :class:`HistoryError`."""
    if value is None:
        return (), []
    if isinstance(value, str):
        s = value.strip()
        if not s:
            return (), []
        if s[:1] in "[{":
            try:
                value = json.loads(s)
            except json.JSONDecodeError as exc:
                raise HistoryError(f"history looks like JSON but is not valid JSON ({exc.msg} at "
                                   f"character {exc.pos})") from None
        else:
            return _transcript(s)
    if isinstance(value, dict):
        for key in ("messages", "turns", "history"):  # {"messages": [...]} wrappers
            if isinstance(value.get(key), list):
                value = value[key]
                break
        else:
            raise HistoryError("history must be a list of turns ({speaker, text} or {role, content}), "
                               f"got an object with keys {', '.join(map(str, value)) or 'none'}")
    if not isinstance(value, (list, tuple)):
        raise HistoryError(f"history must be a list of turns, got a {type(value).__name__}")
    turns: list[Turn] = []
    notes: list[str] = []
    skipped = 0
    for i, item in enumerate(value, start=1):
        turn = _turn(item, i)
        if turn is None:
            skipped += 1
        else:
            turns.append(turn)
    if skipped:
        notes.append(f"{skipped} system / tool message(s) of the history left out (not turns of the conversation)")
    if len(turns) > MAX_TURNS:
        notes.append(f"history has {len(turns)} turns; the last {MAX_TURNS} are kept")
        turns = turns[-MAX_TURNS:]
    return tuple(turns), notes


def _turn(item: Any, i: int) -> Turn | None:
    if isinstance(item, str):
        raise HistoryError(f"history turn {i} is bare text; give {{speaker, text}} or {{role, content}} "
                           "so it is clear who said it")
    if not isinstance(item, dict):
        raise HistoryError(f"history turn {i} is a {type(item).__name__}, expected an object "
                           "{speaker, text} or {role, content}")
    who = next((item[k] for k in _SPEAKER_KEYS if isinstance(item.get(k), str)), None)
    if who is None:
        raise HistoryError(f"history turn {i} says nobody spoke it: no speaker / role "
                           f"(keys: {', '.join(map(str, item)) or 'none'})")
    role = who.strip().lower()
    if role in _SKIPPED:
        return None
    if role in _USER:
        speaker = "user"
    elif role in _AGENT:
        speaker = "agent"
    else:
        raise HistoryError(f"history turn {i} has speaker {who!r}; expected user or agent "
                           "(also: human, assistant, ai, bot, model; system / tool are left out)")
    raw = next((item[k] for k in _TEXT_KEYS if k in item and item[k] is not None), None)
    text = _text_of(raw)
    if text is None or not text.strip():
        raise HistoryError(f"history turn {i} ({speaker}) has no text "
                           f"(keys: {', '.join(map(str, item)) or 'none'})")
    if len(text) > MAX_TURN_CHARS:
        raise HistoryError(f"history turn {i} is {len(text):,} characters long, over the limit of "
                           f"{MAX_TURN_CHARS:,}")
    if "\x00" in text:
        raise HistoryError(f"history turn {i} contains a NUL character (\\x00)")
    return Turn(speaker=speaker, text=text)  # type: ignore[arg-type]


def _text_of(raw: Any) -> str | None:
    if isinstance(raw, str):
        return raw
    if isinstance(raw, list):  # content parts: [{"type": "text", "text": "…"}, …]
        parts = [p if isinstance(p, str) else p.get("text") for p in raw if isinstance(p, (str, dict))]
        texts = [p for p in parts if isinstance(p, str) and p.strip()]
        return "\n".join(texts) if texts else None
    return None


def _transcript(text: str) -> tuple[tuple[Turn, ...], list[str]]:
    """The turns of a transcript ("User: … / Assistant: …"), with the note that says it was read as
    one; HistoryError when the text names no speaker or has words before the first one."""
    marks = [(m.start(), m.end(), m.group(1)) for m in _LINE_SPEAKER.finditer(text)]
    if not marks or marks[0][0] != len(text) - len(text.lstrip()):
        first = text.strip().splitlines()[0] if text.strip() else ""
        what = ("names no speaker" if not marks else
                f"has text before its first speaker ({first[:60]!r})")
        raise HistoryError(f"history is text that {what}; give a list of turns ({{speaker, text}} or "
                           "{role, content}) or a transcript whose turns start with a speaker, one per line "
                           "(\"User: …\" / \"Assistant: …\")")
    pieces: list[tuple[str, str]] = []
    for k, (_, end, who) in enumerate(marks):
        stop = marks[k + 1][0] if k + 1 < len(marks) else len(text)
        body = text[end:stop]
        # a one-line transcript: further speakers inside the turn ("User: hi Assistant: hello")
        inner = list(_INLINE_SPEAKER.finditer(body))
        cut = 0
        for m in inner:
            pieces.append((who, body[cut:m.start()]))
            who, cut = m.group(1), m.end()
        pieces.append((who, body[cut:]))
    turns: list[Turn] = []
    skipped = 0
    for i, (who, body) in enumerate(pieces, start=1):
        word = " ".join(who.lower().replace("_", " ").split())
        speaker = _TRANSCRIPT_SPEAKERS.get(word, word.replace(" ", "_"))
        if not body.strip():
            raise HistoryError(f"history turn {i} of the transcript ({who}:) has no text")
        turn = _turn({"speaker": speaker, "text": body.strip()}, i)
        if turn is None:
            skipped += 1
        else:
            turns.append(turn)
    if not turns:
        raise HistoryError("history is a transcript without a user or assistant turn")
    notes = [f"{TRANSCRIPT_NOTE}: {len(turns)} turn{'s' if len(turns) != 1 else ''} from its speaker lines ("
             + ", ".join(t.speaker for t in turns[:6]) + (" …" if len(turns) > 6 else "") + ")"]
    if skipped:
        notes.append(f"{skipped} system / tool line(s) of the transcript left out (not turns of the conversation)")
    if len(turns) > MAX_TURNS:
        notes.append(f"history has {len(turns)} turns; the last {MAX_TURNS} are kept")
        turns = turns[-MAX_TURNS:]
    return tuple(turns), notes


def history_dicts(turns: tuple[Turn, ...]) -> list[dict[str, str]]:
    """Turns as ``[{"speaker", "text"}]`` (results files, exports, bodies sent to an app)."""
    return [{"speaker": t.speaker, "text": t.text} for t in turns]

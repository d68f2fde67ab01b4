"""Inspect: a turn of a chat shows the turns before it above its question.

The last :data:`VISIBLE` turns are shown; the earlier ones sit in a collapsed expander ("N earlier
turns"). Each turn is numbered as the labels cite it (``turn_3`` = turn 3) and says who spoke;
under the question, the standalone question the case was judged against, when the rule changed it.
A response sentence supported by an earlier agent turn names that turn and quotes it
(:func:`support_html`). Every text is HTML-escaped (``ui.highlight.e``): a turn holding
``<script>`` shows as text. The markup is pure (unit-tested); :func:`show` places it.
"""

from __future__ import annotations

from typing import Iterable, Sequence

import streamlit as st

from evaluators.conversations import turn_of
from evaluators.types import CaseResult, TestCase, Turn, earlier_turn_of

from .. import highlight as hl
from ..data import md_escape

#: Turns shown above the question; the earlier ones are collapsed.
VISIBLE = 3
_TURN_STYLE = {"user": "background:#eef3ff;border-left:3px solid #6b8fd6",
               "agent": "background:#f4f4f4;border-left:3px solid #aaa"}


def split(history: Sequence[Turn], visible: int = VISIBLE) -> tuple[list[tuple[int, Turn]], list[tuple[int, Turn]]]:
    """(earlier turns, the last ``visible``), each numbered from 1 over the whole history."""
    numbered = list(enumerate(history, start=1))
    cut = max(0, len(numbered) - visible)
    return numbered[:cut], numbered[cut:]


def turns_html(turns: Iterable[tuple[int, Turn]]) -> str:
    """The turns as escaped blocks (``data-turn`` = its number, ``data-speaker``)."""
    out = []
    for n, t in turns:
        who = "user" if t.speaker == "user" else "agent"
        out.append(f'<div class="rag-turn" data-turn="{n}" data-speaker="{who}" style="{_TURN_STYLE[who]};'
                   f'padding:4px 8px;margin:3px 0;border-radius:4px;white-space:pre-wrap">'
                   f'<span style="font-size:0.8em;color:#555">turn {n} · {who}</span><br>{hl.e(t.text)}</div>')
    return '<div class="rag-conversation">' + "".join(out) + "</div>"


def heading(case: TestCase) -> str:
    """"Conversation c-42 · question 4 of the chat (turns 1–6 above)": the turns above are numbered as
    the labels cite them (``turn_6``: the history's 6th message); the question's number is the one
    Results and Compare give it (1 + the user's questions before it: their "turn")."""
    cid = f" {case.conversation_id}" if case.conversation_id else ""
    n = len(case.history)
    above = "turn 1" if n == 1 else f"turns 1–{n}"
    return f"Conversation{cid} · question {turn_of(case.history)} of the chat ({above} above)"


def standalone_html(r: CaseResult) -> str:
    """The standalone question under the question, when it differs ("" otherwise)."""
    sq = r.standalone_question
    if not sq or sq == r.case.question:
        return ""
    return (f'<div class="rag-standalone" style="font-size:0.9em;color:#444">'
            f"<b>Judged as:</b> {hl.e(sq)} <span style=\"color:#777\">(the question made standalone from "
            f"the earlier turns)</span></div>")


def support_html(keys: Iterable[str], case: TestCase) -> str:
    """The earlier turns among a sentence's supporting keys, named and quoted (escaped)."""
    out = []
    for k in keys:
        n = earlier_turn_of(k)
        if n is None or n > len(case.history):
            continue
        text = " ".join(case.history[n - 1].text.split())
        short = text if len(text) <= 200 else text[:199] + "\u2026"
        out.append(f"<li><b>the agent's earlier turn {n}</b> (not a document): {hl.e(short)}</li>")
    return "".join(out)


def show(r: CaseResult) -> None:
    """The conversation above the question (nothing for a case without history), and how its
    history was read when that needs saying (``metadata.history_note``: a transcript read turn by
    turn, a trace's history that could not be read)."""
    history = r.case.history
    note = r.case.metadata.get("history_note")
    if not history:
        if note:
            st.caption(md_escape(str(note)))
        return
    earlier, recent = split(history)
    st.markdown(f"**{md_escape(heading(r.case))}**")
    if note:
        st.caption(md_escape(str(note)))
    if earlier:
        with st.expander(f"{len(earlier)} earlier turn{'s' if len(earlier) != 1 else ''}", expanded=False):
            st.html(turns_html(earlier))
    st.html(turns_html(recent))


__all__ = ["VISIBLE", "heading", "show", "split", "standalone_html", "support_html", "turns_html"]

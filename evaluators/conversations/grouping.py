"""Per-conversation results: which turn a case is, metrics by turn, and per conversation its worst
turn and its first unsupported turn.

    from evaluators.conversations.grouping import ConversationTally, by_conversation, by_turn
    by_turn(run.results)              # [{"turn": 1, "n": 30, "conversations": 10, "metrics": {...}}, ...]
    by_conversation(run.results)      # worst conversation first
    t = ConversationTally(); t.add_dict(d) ...; t.summary()   # the results file's "conversations"

Rules:

* **The turn of a case** is 1 + the number of user turns in its history (turn 1 = the
  conversation's first question); a case without history but with a ``conversation_id`` is turn 1.
* **The conversation of a case** is its ``conversation_id``; a case with history but no id belongs
  to the conversation its first user turn opened (``opens: "…"``), and a case with neither joins,
  as turn 1, the conversation whose opening question it asks. Other cases are in no conversation,
  and a run without any conversation has no summary (``summary()`` is None: plain runs unchanged).
* **Metrics by turn**: the mean of each TRACE metric (and expected adherence) over the scored cases
  of that turn, with a 95 % bootstrap interval resampled **by conversation** (the turns of one
  conversation are not independent).
* **Per conversation**: its turns, the means of its scored turns, the **worst turn** (lowest
  expected adherence — the tie-free ranking of likely unsupported answers — then the earliest) and
  the **first unsupported turn** (the earliest whose answer is not fully supported, i.e.
  ``overall_supported`` is false; None when every answer is). Conversations are listed worst first
  (lowest worst-turn expected adherence; ties in the run's order); the results file keeps the
  first :data:`MAX_LISTED`, each named by its ``conversation_id`` and its ``first_case`` (the id of
  its earliest turn), never by its text.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from ..stats import mean_ci
from ..turns import read_history
from ..types import EXPECTED_ADHERENCE, OVERALL_SUPPORTED, TRACE_METRICS, CaseResult, TestCase, Turn

#: The metrics reported by turn and per conversation.
METRICS: tuple[str, ...] = (*TRACE_METRICS, EXPECTED_ADHERENCE, OVERALL_SUPPORTED)
#: The metric a conversation's worst turn is the lowest of.
WORST_BY = EXPECTED_ADHERENCE
#: Conversations listed in a results file's summary (worst first); the rest are counted.
MAX_LISTED = 200


def turn_of(history: Sequence[Turn]) -> int:
    """The turn index of a question asked after ``history``: 1 + its user turns."""
    return 1 + sum(1 for t in history if t.speaker == "user")


def opening_key(text: str) -> str:
    """The key of a conversation without id: a hash of its first user turn."""
    return "opens:" + hashlib.sha1(" ".join(text.lower().split()).encode("utf-8")).hexdigest()[:12]


_AT = {m: i for i, m in enumerate(METRICS)}


@dataclass(frozen=True, slots=True)
class Row:
    """What one case contributes: its id, conversation, turn and (when scored) its values of
    :data:`METRICS`, in that order (a tuple: a run of any size keeps one row per case)."""

    case_id: str
    conversation: str | None
    label: str | None
    turn: int
    values: tuple[float, ...] | None
    #: The opening key of its own question (a case with neither id nor history may be a turn 1).
    own_opening: str | None = None

    def value(self, metric: str) -> float | None:
        return None if self.values is None else self.values[_AT[metric]]


def row_of(case_id: str, question: str, history: Sequence[Turn], conversation_id: str | None,
           metrics: Mapping[str, float] | None) -> Row:
    """The :class:`Row` of one case (see the module docstring for the rules); ``metrics`` None when
    the case was not scored."""
    values = None if metrics is None else tuple(float(metrics.get(m, 0.0)) for m in METRICS)
    if conversation_id:
        return Row(case_id, str(conversation_id), str(conversation_id), turn_of(history), values)
    if history:
        first = next((t.text for t in history if t.speaker == "user"), history[0].text)
        short = " ".join(first.split())
        cut = short if len(short) <= 60 else short[:59].rstrip() + "\u2026"
        label = f"opens \u201c{cut}\u201d"
        return Row(case_id, opening_key(first), label, turn_of(history), values)
    return Row(case_id, None, None, 1, values, own_opening=opening_key(question))


def place_of(question: str, history: Any, conversation_id: str | None) -> tuple[str | None, int, str | None]:
    """(conversation key, turn, opening key of its own question) of one case, from its question,
    its history (turns, or their dicts as a results file holds them; unreadable: none) and id."""
    if history and not all(isinstance(t, Turn) for t in history):
        try:
            history = read_history(history)[0]
        except ValueError:
            history = ()
    r = row_of("", question, tuple(history or ()), conversation_id, None)
    return r.conversation, r.turn, r.own_opening


def resolve_places(places: Sequence[tuple[str | None, int, str | None]]
                   ) -> tuple[list[str | None] | None, list[int] | None]:
    """(conversation key, turn) of every case, a case with neither id nor history joining, as turn
    1, the conversation its question opened; (None, None) when no case is in a conversation."""
    openings = {k for k, _, _ in places if k and k.startswith("opens:")}
    convs: list[str | None] = []
    turns: list[int] = []
    for key, turn, own in places:
        if key is None and own in openings:
            key, turn = own, 1
        convs.append(key)
        turns.append(turn)
    if all(k is None for k in convs):
        return None, None
    return convs, turns


def _values_of(r: CaseResult) -> dict[str, float] | None:
    if not r.ok or r.scores is None:
        return None
    return {m: r.scores.value(m) for m in METRICS}


def row_of_result(r: CaseResult) -> Row:
    c: TestCase = r.case
    return row_of(c.id, c.question, c.history, c.conversation_id, _values_of(r))


def row_of_dict(d: Mapping[str, Any]) -> Row:
    """The :class:`Row` of one case of a results file (``export.case_dict``)."""
    metrics = d.get("metrics") or {}
    ok = d.get("error") is None and metrics.get("adherence") is not None and d.get("labels") is not None
    values = None
    if ok:
        values = {m: float(metrics[m]) for m in METRICS if metrics.get(m) is not None}
        values.setdefault(EXPECTED_ADHERENCE, values.get("adherence", 0.0))
    try:
        history = read_history(d.get("history"))[0]
    except ValueError:
        history = ()
    return row_of(str(d.get("id")), str(d.get("question") or ""), history, d.get("conversation_id"), values)


def row_of_flat(rec: Mapping[str, Any]) -> Row:
    """The :class:`Row` of a case's flat row (``export.row_of``, a stored run's per-case table):
    its ``conversation`` / ``turn`` columns, else its question (a possible turn 1), and its metrics."""
    def num(v: Any) -> float | None:
        try:
            f = float(v)
        except (TypeError, ValueError):
            return None
        return None if f != f else f

    err = rec.get("error")
    ok = err is None or err == "" or (isinstance(err, float) and err != err)
    metrics = {m: v for m in METRICS if (v := num(rec.get(m))) is not None}
    values = metrics if ok and "adherence" in metrics else None
    conv = rec.get("conversation")
    if isinstance(conv, str) and conv:
        vals = None if values is None else tuple(float(values.get(m, 0.0)) for m in METRICS)
        return Row(str(rec.get("id")), conv, None, int(num(rec.get("turn")) or 1), vals)
    return row_of(str(rec.get("id")), str(rec.get("question") or ""), (), None, values)


def _resolve(rows: Sequence[Row]) -> list[Row]:
    """Rows in a conversation: a case with neither id nor history joins the conversation its
    question opened (as turn 1); others without a conversation are left out."""
    openings = {r.conversation: r.label for r in rows if r.conversation and r.conversation.startswith("opens:")}
    out: list[Row] = []
    for r in rows:
        if r.conversation is not None:
            out.append(r)
        elif r.own_opening in openings:
            out.append(Row(r.case_id, r.own_opening, openings[r.own_opening], 1, r.values))
    return out


def _rows(results: Iterable[CaseResult | Row]) -> list[Row]:
    return _resolve([r if isinstance(r, Row) else row_of_result(r) for r in results])


def by_turn(results: Iterable[CaseResult | Row], *, n_boot: int = 1000, seed: int = 0) -> list[dict[str, Any]]:
    """Metrics by turn index, turn 1 first: ``{"turn", "n" (cases), "scored", "conversations",
    "metrics": {metric: {mean, low, high, n, ...}}}`` (intervals resampled by conversation)."""
    rows = _rows(results)
    turns = sorted({r.turn for r in rows})
    out: list[dict[str, Any]] = []
    for t in turns:
        at = [r for r in rows if r.turn == t]
        scored = [r for r in at if r.values is not None]
        groups = [r.conversation for r in scored]
        metrics = {m: mean_ci([r.value(m) for r in scored], groups=groups, n_boot=n_boot, seed=seed).as_dict()
                   for m in METRICS}
        out.append({"turn": t, "n": len(at), "scored": len(scored),
                    "conversations": len({r.conversation for r in at}), "metrics": metrics})
    return out


def by_conversation(results: Iterable[CaseResult | Row]) -> list[dict[str, Any]]:
    """One entry per conversation, worst first: ``{"conversation_id", "label", "turns", "scored",
    "means": {metric: mean}, "worst_turn": {"turn", "id", metric} | None,
    "first_unsupported_turn": {"turn", "id"} | None, "cases": [{"turn", "id", metric}, ...]}``."""
    convs: dict[str, list[Row]] = {}
    for r in _rows(results):
        assert r.conversation is not None
        convs.setdefault(r.conversation, []).append(r)
    out: list[dict[str, Any]] = []
    for key, rows in convs.items():
        rows = sorted(rows, key=lambda r: r.turn)
        scored = [r for r in rows if r.values is not None]
        means = {m: sum(r.value(m) or 0.0 for r in scored) / len(scored) for m in METRICS} if scored else {}
        worst = min(scored, key=lambda r: (r.value(WORST_BY) or 0.0, r.turn), default=None)
        first_bad = next((r for r in scored if (r.value(OVERALL_SUPPORTED) or 0.0) < 1.0), None)
        out.append({
            "conversation_id": None if key.startswith("opens:") else key,
            "label": rows[0].label,
            "turns": len(rows),
            "scored": len(scored),
            "means": means,
            "worst_turn": None if worst is None else
            {"turn": worst.turn, "id": worst.case_id, WORST_BY: worst.value(WORST_BY)},
            "first_unsupported_turn": None if first_bad is None else {"turn": first_bad.turn, "id": first_bad.case_id},
            "cases": [{"turn": r.turn, "id": r.case_id, WORST_BY: r.value(WORST_BY)} for r in rows],
        })
    out.sort(key=lambda c: c["worst_turn"][WORST_BY] if c["worst_turn"] else 2.0)  # stable: ties in run order
    return out


def summary(results: Iterable[CaseResult | Row], *, max_listed: int = MAX_LISTED) -> dict[str, Any] | None:
    """The results file's ``conversations`` block, or None when no case is a turn of a conversation."""
    rows = _rows(results)
    if not rows:
        return None
    convs = by_conversation(rows)
    # ids and numbers only (a conversation without id is named by its first case): no text of the run
    listed = [{"conversation_id": c["conversation_id"], "first_case": c["cases"][0]["id"],
               **{k: v for k, v in c.items() if k not in ("cases", "conversation_id", "label")}}
              for c in convs[:max_listed]]
    return {
        "turn_rule": "turn = 1 + the user turns before the question",
        "worst_by": WORST_BY,
        "num_conversations": len(convs),
        "num_cases": len(rows),
        "by_turn": by_turn(rows),
        "conversations": listed,
        "listed": len(listed),
    }


def summary_lines(block: dict[str, Any], metric: str = WORST_BY, top: int = 3) -> list[str]:
    """A results file's ``conversations`` block in words (the CLI's summary): the metric by turn
    with its interval, then the worst conversations with their worst and first unsupported turn."""
    out = [f"conversations: {block['num_conversations']} ({block['num_cases']} turns); {metric} by turn:"]
    for t in block["by_turn"]:
        iv = t["metrics"][metric]
        ci = f" [{iv['low']:.3f}, {iv['high']:.3f}]" if iv.get("low") is not None else ""
        mean = "n/a" if iv.get("mean") is None else f"{iv['mean']:.4f}"
        out.append(f"  turn {t['turn']:<3} n={t['scored']:<5} {mean}{ci}")
    for c in block["conversations"][:top]:
        if c["worst_turn"] is None:
            continue
        name = c["conversation_id"] or f"opened by case {c['first_case']}"
        first = c["first_unsupported_turn"]
        out.append(f"  worst: {name}: turn {c['worst_turn']['turn']} ({c['worst_turn']['id']}) "
                   f"{c['worst_turn'][WORST_BY]:.4f}; first unsupported turn: "
                   f"{'none' if first is None else first['turn']}")
    return out


class ConversationTally:
    """The rows of a run, added one case at a time (a run of any size: a few numbers per case that
    is a turn of a conversation, and a short key for the others)."""

    def __init__(self) -> None:
        self.rows: list[Row] = []

    def add(self, r: CaseResult) -> None:
        self.rows.append(row_of_result(r))

    def add_dict(self, d: Mapping[str, Any]) -> None:
        self.rows.append(row_of_dict(d))

    def summary(self) -> dict[str, Any] | None:
        return summary(self.rows)


__all__ = ["METRICS", "MAX_LISTED", "WORST_BY", "ConversationTally", "Row", "by_conversation", "by_turn",
           "opening_key", "place_of", "resolve_places", "row_of", "row_of_dict", "row_of_flat", "row_of_result",
           "summary", "summary_lines", "turn_of"]

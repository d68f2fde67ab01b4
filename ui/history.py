"""The visitor's run history: every read goes through here, scoped to the visitor's token —
or, when the owner turned on ``RAG_EVAL_SHARED_HISTORY``, to the whole server's history."""

from __future__ import annotations

from typing import Iterable

from evaluators.store import RunStatus, RunSummary
from evaluators.types import RunResult

from . import resources, state

NOT_FOUND = ("No run {rid!r} in your run history (it may have been deleted, or belong to "
             "another visitor: each visitor sees only their own runs).")


def reader() -> str | None:
    """Whose runs this visitor may read: their own (token), or everyone's (shared history)."""
    return None if resources.limits().shared_history else state.owner_token()


def summaries(status: Iterable[RunStatus] | None = None) -> list[RunSummary]:
    return resources.store().list(owner=reader(), status=status)


def get(run_id: str) -> RunSummary:
    return resources.store().get(run_id, owner=reader())


def load(run_id: str) -> RunResult:
    """The run (KeyError when it is not in this visitor's history)."""
    return resources.store().load(run_id, owner=reader())


def load_memo(summary: RunSummary) -> RunResult:
    """A run read once per session (a running run again when it grew)."""
    return state.memo(("history", summary.id, summary.num_done, summary.status),
                      lambda: load(summary.id))


def delete(run_id: str) -> bool:
    return resources.store().delete(run_id, owner=reader())


def live_tag(s: RunSummary) -> str:
    return {"running": "⏳ running", "interrupted": "⏸ interrupted"}.get(s.status, "")


def choices() -> dict[str, RunResult | RunSummary]:
    """Display label -> a run of this session, or a history entry not in the session (runs going
    on first, then finished ones, newest first)."""
    out: dict[str, RunResult | RunSummary] = dict(state.get_runs())
    in_session = set(state.saved_ids().values())
    rest = [s for s in summaries() if s.id not in in_session]
    for s in sorted(rest, key=lambda s: not live_tag(s)):
        tag = live_tag(s)
        label = f"{s.name} ({tag} {s.num_done}/{s.num_cases})" if tag else f"{s.name} (saved {s.created_at[:16]})"
        out.setdefault(label, s)
    return out


def store_id(label: str, choice: RunResult | RunSummary) -> str | None:
    return choice.id if isinstance(choice, RunSummary) else state.saved_ids().get(label)

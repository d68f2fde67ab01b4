"""The visitor's run history: every read goes through here, scoped to the visitor's token —
or, when the owner turned on ``RAG_EVAL_SHARED_HISTORY``, to the whole server's history.

Runs are read from the store as a page needs them, never held whole in a visitor's session: a run
is a :class:`~evaluators.store.StoredRun` (summary + reads on demand); the per-case table of a
run is a compact DataFrame (scores, counts, human labels, the start of the question) kept in a small
process-wide cache (:func:`frame`) shared by every session; a page reads the whole cases it shows
(:func:`cases`). Features that need every case's labels at once (human-label agreement, gold,
calibration, the agreement of two labelers) read runs of up to :data:`FULL_RUN_MAX` cases whole.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from typing import Any, Iterable

from evaluators.store import RunStatus, RunSummary, StoredRun, view
from evaluators.store import labels as run_labels
from evaluators.types import CaseResult, RunResult

from . import resources, state

NOT_FOUND = ("No run {rid!r} in your run history (it may have been deleted, or belong to "
             "another visitor: each visitor sees only their own runs).")
#: Largest run read whole (every case's labels in memory at once) by the features that need that.
FULL_RUN_MAX = 5000
#: Per-case tables kept by the process (shared by every session), most recently used kept.
FRAMES_KEPT = 6


def reader() -> str | None:
    """Whose runs this visitor may read: their own (token), or everyone's (shared history)."""
    return None if resources.limits().shared_history else state.owner_token()


def summaries(status: Iterable[RunStatus] | None = None) -> list[RunSummary]:
    return resources.store().list(owner=reader(), status=status)


def label_of(run_id: str, name: str) -> str:
    """The label pages show for a run of the history: its name, or — when other runs share that name —
    the name with its method or start time (``evaluators.store.labels``, as Compare and the pickers)."""
    return run_labels(summaries()).get(run_id, name)


def get(run_id: str) -> RunSummary:
    return resources.store().get(run_id, owner=reader())


def load(run_id: str) -> StoredRun:
    """The run as pages read it (KeyError when it is not in this visitor's history)."""
    return view(resources.store(), run_id, owner=reader())


class SharedRun(StoredRun):
    """A run another visitor shared with this session by a signed link: read-only, not in this
    visitor's history (no history id of theirs: no reviews, no sharing it on, no deleting it)."""

    def __init__(self, summary: RunSummary, token: str) -> None:
        super().__init__(resources.store(), summary, None)
        self.share_token = token


def load_shared(run_id: str, token: str) -> SharedRun:
    """A run opened by a share link (KeyError once it was deleted: the link then opens nothing)."""
    return SharedRun(resources.store().get(run_id, owner=None), token)


def load_memo(summary: RunSummary) -> StoredRun:
    """The run of a history entry (reads on demand: nothing to keep per session)."""
    return StoredRun(resources.store(), summary, reader())


def whole(run: Any) -> RunResult | None:
    """``run`` with every case in memory, or None when it has more than :data:`FULL_RUN_MAX` cases."""
    if isinstance(run, RunResult):
        return run
    if len(run) > FULL_RUN_MAX:
        return None
    return state.memo(("whole", run.id, run.summary.num_done, run.summary.status),
                      run.to_run_result, max_items=4)


def too_big(run: Any, what: str) -> str:
    return (f"{what} reads every case of a run at once: this one has {len(run):,} cases, more than the "
            f"{FULL_RUN_MAX:,} the dashboard reads whole. Run `python -m evaluators agreement` on the results "
            "file (or the input) instead.")


def delete(run_id: str) -> bool:
    return resources.store().delete(run_id, owner=reader())


def rename(run_id: str, name: str) -> bool:
    """Give a run of the history a new name (kept in the history); the session's label follows."""
    done = resources.store().rename(run_id, name, owner=reader())
    if done:
        state.relabel(run_id, name)
    return done


def live_tag(s: RunSummary) -> str:
    return {"running": "running", "interrupted": "interrupted"}.get(s.status, "")


def _open(label: str, rid: str) -> StoredRun:
    """The session's run ``label`` (history id ``rid``): read-only by its share token when another
    visitor shared it with this session, else from this visitor's history (KeyError: deleted)."""
    shared = state.shared_runs()
    return load_shared(rid, shared[label]) if label in shared else load(rid)


def get_runs() -> dict[str, StoredRun]:
    """Runs of this session by label (insertion order = age), each read from the store as needed
    (``evaluators.store.StoredRun``: a summary, and its cases on demand). A run deleted from the
    history meanwhile is left out."""
    out = {}
    for label, rid in state.run_ids().items():
        try:
            out[label] = _open(label, rid)
        except KeyError:
            continue
    return out


def get_current_run() -> StoredRun | None:
    """The session's current run (``StoredRun``), or None."""
    label = state.current_run_label()
    if not label:
        return None
    try:
        return _open(label, state.run_ids()[label])
    except KeyError:  # deleted from the history meanwhile
        return None


def _tell_apart(hist: list[RunSummary]) -> None:
    """Give a run this session opened under its plain name (``name``, ``name (2)``) the history's
    label of it when another run of the history shares that name (``name · method · start time``,
    ``evaluators.store.labels``, the words Compare uses), so two runs of the same file never read as
    one plain and one "saved". A name a person typed for the session's label is left as it is."""
    names, by_id = run_labels(hist), {s.id: s for s in hist}
    shared = state.shared_runs()
    for label, rid in list(state.run_ids().items()):
        s = by_id.get(rid)
        if s is None or label in shared or names[rid] == label:
            continue
        if label == s.name or re.fullmatch(re.escape(s.name) + r" \(\d+\)", label):
            state.relabel(rid, names[rid])


def choices() -> dict[str, StoredRun | RunSummary]:
    """Display label -> a run of this session, or a history entry not in the session (runs going
    on first, then finished ones, newest first). Runs that share a name are told apart as Compare
    tells them (:func:`_tell_apart`)."""
    hist = summaries()
    _tell_apart(hist)
    out: dict[str, StoredRun | RunSummary] = dict(get_runs())
    in_session = set(state.saved_ids().values())
    names = run_labels(hist)
    rest = [s for s in hist if s.id not in in_session]
    for s in sorted(rest, key=lambda s: not live_tag(s)):
        tag = live_tag(s)
        label = f"{names[s.id]} ({tag} {s.num_done}/{s.num_cases})" if tag else names[s.id]
        if label in out:  # a session run a person named so
            label = f"{label} (saved {s.created_at[:16].replace('T', ' ')})"
        out.setdefault(label, s)
    return out


def store_id(label: str, choice: Any) -> str | None:
    """The id of ``choice`` in this visitor's history (None for a run shared with them)."""
    if isinstance(choice, SharedRun):
        return None
    return getattr(choice, "id", None) or state.saved_ids().get(label)


def has_two_labelings(run: Any) -> bool:
    """The run keeps two labelings of its cases (a hybrid run: trace and gpt_labeling)."""
    if isinstance(run, RunResult):
        return any("trace" in r.variants and "gpt_labeling" in r.variants for r in run.results)
    if run.method != "hybrid":  # only hybrid runs keep two labelings
        return False
    return state.memo(("two labelings", run.id, len(run)),
                      lambda: any("v" in aux for _, aux in run.store.aux(run.id, owner=run.owner)))


# ---- per-case tables and cases, read as pages need them -------------------------------------------
_frames: OrderedDict[tuple, Any] = OrderedDict()
_lock = threading.Lock()


def _frame_key(run: StoredRun) -> tuple:
    s = run.summary
    return (resources.store().path, s.id, s.num_done, s.status, s.updated_at)


def frame(run: Any) -> Any:
    """The per-case table of a run (``ui.tables.case_frame`` columns, the question cut short), from
    its stored rows; kept by the process for :data:`FRAMES_KEPT` runs (every session shares it)."""
    from . import tables

    if isinstance(run, RunResult):
        return state.memo(("frame", id(run)), lambda: tables.case_frame(run), max_items=4)
    key = _frame_key(run)
    with _lock:
        if key in _frames:
            _frames.move_to_end(key)
            return _frames[key]
    df = tables.frame_of_rows(run.table(), run.method)
    with _lock:
        _frames[key] = df
        while len(_frames) > FRAMES_KEPT:
            _frames.popitem(last=False)
    return df


def cases(run: Any, case_ids: list[str]) -> list[CaseResult]:
    """The whole cases ``case_ids`` of a run, in that order."""
    if isinstance(run, RunResult):
        by_id = {r.case.id: r for r in run.results}
        return [by_id[c] for c in case_ids if c in by_id]
    return run.cases(case_ids)


def case(run: Any, case_id: str) -> CaseResult | None:
    got = cases(run, [case_id])
    return got[0] if got else None

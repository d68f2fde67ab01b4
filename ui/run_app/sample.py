"""The sample app in this server's process: started on first use (a run with its targets), on
127.0.0.1 at a free port, once per process; its two target files pointed at it.

Contract: :func:`targets` is the sample app's two versions as they ship (``data/sample_targets``,
read once: their names and what they call), :func:`running_targets` the same pointed at the app
now serving (started if it is not). The app needs no key and no model, and runs in daemon threads
(it ends with the server).
"""

from __future__ import annotations

import threading
from pathlib import Path

from evaluators.sample_app import SAMPLE_TARGETS, VERSIONS, RunningApp, serve_in_thread
from evaluators.targets import Target, load_target

_lock = threading.Lock()
_app: list[RunningApp] = []
_shipped: list[Target] = []


def targets() -> list[Target]:
    """The two versions as the target files ship (they call 127.0.0.1:8765 until started here)."""
    with _lock:
        if not _shipped:
            _shipped.extend(load_target(SAMPLE_TARGETS[v]) for v in VERSIONS)
        return list(_shipped)


def running() -> RunningApp:
    """The sample app serving in this process (started now if it is not)."""
    with _lock:
        if not _app or not _app[0].thread.is_alive():
            _app[:] = [serve_in_thread()]
        return _app[0]


def running_targets() -> dict[str, Target]:
    """Name -> the version's target calling the app serving in this process."""
    app = running()
    return {t.name: t.at(app.url_for(v)) for v, t in zip(VERSIONS, targets())}


def is_running() -> bool:
    with _lock:
        return bool(_app) and _app[0].thread.is_alive()


def known_documents() -> frozenset[str]:
    """The file names of the sample app's documents (``data/sample_docs``)."""
    from evaluators.sample_app import load_corpus

    with _lock:
        if not _docs:
            _docs.extend(sorted({p.id.split("#", 1)[0] for p in load_corpus()}))
        return frozenset(_docs)


_docs: list[str] = []


def sources_of(rows: list) -> set[str]:
    """The documents a question set was made from: each row's ``metadata.source``, else the file part of
    its ``reference_context_ids`` (``apollo-11.md#1`` -> ``apollo-11.md``); empty for hand-written questions."""
    out: set[str] = set()
    for r in rows:
        row = getattr(r, "row", r) or {}
        meta = row.get("metadata")
        meta = meta if isinstance(meta, dict) else {}
        src = meta.get("source") or row.get("source")
        if isinstance(src, str) and src.strip():
            out.add(src.strip())
            continue
        ids = row.get("reference_context_ids") or []
        out.update(str(i).split("#", 1)[0] for i in (ids if isinstance(ids, list) else []) if str(i).strip())
    return out


#: Run your app's outcome for a sample-app version whose passages match no reference passage, by id or text.
SAMPLE_ID_NOTE = ("none of the sample app's passages is a reference passage of these questions, by id or by text: "
                  "the questions were made from other documents than its 15 sample documents, so every retrieval "
                  "figure is 0. Run your own app on them, or make questions from the sample's documents.")


def off_map_note(rows: list, sample_picked: bool) -> str | None:
    """Said before a run of the sample app on questions made from other documents than its own: it only
    knows its 15 sample documents, so it retrieves none of their passages (None: nothing to say)."""
    if not sample_picked:
        return None
    sources = sources_of(rows)
    known = known_documents()
    stems = {Path(k).stem for k in known}
    other = sorted(s for s in sources if Path(s).stem not in stems)
    if not other:
        return None
    shown = ", ".join(other[:4]) + (f" and {len(other) - 4} more" if len(other) > 4 else "")
    return (f"These questions were made from documents the sample app does not have ({shown}). The sample app "
            f"only knows its {len(known)} sample documents: it will retrieve none of the passages the questions "
            "were made from, so expect its retrieval figures at 0 and answers that decline or miss the reference "
            "answer. Run your own app on these questions, or make questions from the sample documents.")

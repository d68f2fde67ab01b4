"""What a run is called.

A run has a **name**, kept in the history (``runs.name``) and editable (``RunStore.rename``): by
default the stem of the file it evaluated (``sample_rag_version2`` for ``sample_rag_version2.jsonl``),
the word people use for "that version". Every label a page shows starts with it; :func:`labels` tells
apart runs that share a name — by their method where that differs (``sample_rag · trace``,
``sample_rag · hybrid``), else by when they started.

Older versions named a run ``"<method> on <file>"`` (``trace on sample_rag_version2.jsonl``); the
history moves such names to the stem once (:func:`migrated`, run by ``layout.create``). A name a
person typed is never matched: only the exact old default (the run's own method, a data file's name).
"""

from __future__ import annotations

import re
from pathlib import PurePath
from typing import Any, Sequence

#: Endings of the files a run is made from (a compressed one keeps both: ``.jsonl.gz``).
DATA_SUFFIXES = (".jsonl", ".json", ".csv", ".parquet", ".ndjson", ".txt")
_OLD_DEFAULT = re.compile(r"^(?P<method>\S+) on (?P<file>.+)$")


def default_name(filename: str | None, method: str = "") -> str:
    """The name a run gets when nobody typed one: the file's stem (``data/v2.jsonl.gz`` -> ``v2``), or
    the method when there is no file name."""
    name = PurePath(str(filename or "").replace("\\", "/")).name
    for gz in (".gz", ".zst", ".bz2", ".xz"):
        name = name[: -len(gz)] if name.lower().endswith(gz) else name
    for suffix in DATA_SUFFIXES:
        if name.lower().endswith(suffix) and len(name) > len(suffix):
            name = name[: -len(suffix)]
            break
    return name.strip() or method or "run"


def migrated(name: str | None, method: str) -> str | None:
    """The new name of a run an older version named by default (``"trace on v2.jsonl"`` -> ``"v2"``);
    None for any other name."""
    m = _OLD_DEFAULT.match(name or "")
    if m is None or m["method"] != method:
        return None
    file = m["file"].strip()
    base = file.lower()
    for gz in (".gz", ".zst", ".bz2", ".xz"):
        base = base.removesuffix(gz)
    if not base.endswith(DATA_SUFFIXES):
        return None
    return default_name(file, method)


def app_run_name(target: str, questions: str) -> str:
    """The name of a run of an app's answers: its target and the question set it answered ("v1 on
    the sample's questions", "v1 on my-docs test set"), so two runs of one app on two question sets
    never read alike."""
    return f"{target} on {questions}" if questions else target


def app_run_of(s: Any) -> tuple[str, str] | None:
    """(target, question set) of a run of an app's answers (its settings' ``app_run``), None for
    any other run."""
    got = (getattr(s, "settings", None) or {}).get("app_run")
    if not isinstance(got, dict) or not got.get("target"):
        return None
    return str(got["target"]), str(got.get("questions") or "")


def short_labels(runs: Sequence[Any], full: dict[str, str], targets: dict[str, str | None] | None = None
                 ) -> tuple[dict[str, str], str | None]:
    """Labels for runs shown together (Compare): runs of an app's answers on one question set are
    called by their targets ("v1", "v2") and the question set is said once (returned: "the sample's
    questions"); otherwise — other question sets, a run of a file, two runs of one target — each
    keeps its label of ``full`` (run id -> label), and None. ``targets``: run id -> the app target
    every case of a run of a file records (the answers ``run --target`` wrote, evaluated as a file:
    called by that target, not by the file's name; their question set is not known)."""
    apps = [app_run_of(s) or ((str(targets[s.id]), "") if targets and targets.get(s.id) else None) for s in runs]
    if not runs or any(a is None for a in apps):
        return {s.id: full[s.id] for s in runs}, None
    names = [a[0] for a in apps if a is not None]
    questions = {a[1] for a in apps if a is not None}
    if len(questions) != 1 or len(set(names)) != len(names):
        return {s.id: full[s.id] for s in runs}, None
    return {s.id: t for s, t in zip(runs, names)}, questions.pop() or None


def _when(s: Any) -> str:
    return str(getattr(s, "created_at", "") or "")[:16].replace("T", " ")


def labels(runs: Sequence[Any]) -> dict[str, str]:
    """Run id -> the label a page shows: the name; where several runs share it, the name and the
    method (``sample_rag · trace``) when that tells them apart, and the start time when even that is
    shared (``sample_rag · trace · 2026-11-27 05:32``). ``runs``: anything with ``id``, ``name``,
    ``method`` and ``created_at`` (``RunSummary``)."""
    by_name: dict[str, list[Any]] = {}
    for s in runs:
        by_name.setdefault(s.name, []).append(s)
    out: dict[str, str] = {}
    for name, group in by_name.items():
        if len(group) == 1:
            out[group[0].id] = name
            continue
        methods = [s.method for s in group]
        for s in group:
            label = f"{name} · {s.method}"
            if methods.count(s.method) > 1:
                label += f" · {_when(s)}"
            out[s.id] = label
    seen: dict[str, int] = {}
    for rid, label in out.items():  # the same name, method and minute: number them
        seen[label] = seen.get(label, 0) + 1
        if seen[label] > 1:
            out[rid] = f"{label} ({seen[label]})"
    return out

"""A "Run your app" run on disk: one folder per run under ``evaluators.paths.app_runs_dir()`` (beside
the run history), in a folder of the visitor's (named by a hash of their history token).

Contract: a run's folder holds ``questions.jsonl`` (the questions asked, as a question file),
``<n>.jsonl`` per target (the cases file the target runner writes as each question finishes) and
``manifest.json`` (what the run is: the question set's name, the method, each target's name, kind,
cases file, run id once evaluated and status). The manifest never holds a secret: a target typed by
a visitor is kept without its header values (``has_headers`` says it had some) and the owner's and
the sample's targets by name only. It is written whole (a temporary file renamed), so a kill leaves
the old one or the new one. A visitor keeps one run: starting another deletes their earlier
folders; folders untouched for longer than the owner's retention (``RAG_EVAL_KEEP_DAYS``) go too.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import shutil
import time
from pathlib import Path
from typing import Any, Iterable

from evaluators.paths import app_runs_dir

MANIFEST = "manifest.json"
QUESTIONS = "questions.jsonl"


def owner_dir(owner: str, root: Path | None = None) -> Path:
    """The visitor's folder (a hash of the token: the token itself is never a file name)."""
    digest = hashlib.sha256(owner.encode("utf-8")).hexdigest()[:24]
    return (root or app_runs_dir()) / digest


def new_run(owner: str, rows: Iterable[dict[str, Any]], root: Path | None = None) -> Path:
    """A new folder for a run of ``owner`` with its questions written; earlier runs' folders of the
    visitor are deleted first."""
    mine = owner_dir(owner, root)
    if mine.is_dir():
        for old in mine.iterdir():
            shutil.rmtree(old, ignore_errors=True)
    folder = mine / f"{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}"
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / QUESTIONS).open("w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False, default=str) + "\n")
    return folder


def write_manifest(folder: Path, manifest: dict[str, Any]) -> None:
    tmp = folder / f".{MANIFEST}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps(manifest, ensure_ascii=False, indent=1), encoding="utf-8")
    os.replace(tmp, folder / MANIFEST)


def read_manifest(folder: Path) -> dict[str, Any] | None:
    try:
        data = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("targets"), list) else None


def latest(owner: str, root: Path | None = None) -> tuple[Path, dict[str, Any]] | None:
    """The visitor's most recent run folder with its manifest, or None."""
    mine = owner_dir(owner, root)
    if not mine.is_dir():
        return None
    for folder in sorted((p for p in mine.iterdir() if p.is_dir()), reverse=True):
        manifest = read_manifest(folder)
        if manifest is not None:
            return folder, manifest
    return None


def purge(days: float | None, root: Path | None = None, now: float | None = None) -> int:
    """Delete run folders untouched for more than ``days`` (None: keep); how many went."""
    base = root or app_runs_dir()
    if days is None or not base.is_dir():
        return 0
    limit = (now or time.time()) - days * 86400
    gone = 0
    for mine in base.iterdir():
        for folder in (p for p in mine.iterdir() if p.is_dir()) if mine.is_dir() else ():
            try:
                touched = max(f.stat().st_mtime for f in [folder, *folder.iterdir()])
            except (OSError, ValueError):
                continue
            if touched < limit:
                shutil.rmtree(folder, ignore_errors=True)
                gone += 1
    return gone

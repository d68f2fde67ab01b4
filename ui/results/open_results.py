"""Open a results file in the dashboard: a run made with the CLI (``evaluate --out``) or the Ray
engine becomes a run of the visitor's history, read case by case (never whole), then shown like any
run. Two ways in: an upload (JSON, JSON Lines, or either gzip-compressed — within the owner's upload
limit), or, when the owner sets ``RAG_EVAL_RESULTS_DIR``, any results file in that folder on the
server, whatever its size."""

from __future__ import annotations

import gzip
import shutil
import tempfile
from pathlib import Path
from typing import Any

import streamlit as st

from evaluators.export import ResultsFileError
from evaluators.paths import results_dir
from evaluators.resultfiles import import_results

from .. import data as ud
from .. import resources, state

SUFFIXES = (".jsonl", ".json", ".ndjson")
#: Most bytes a compressed upload may unpack to (results files compress about five times; a file
#: that unpacks past this is refused, so a small upload cannot fill the server's disk).
MAX_UNPACKED_MB = 10 * ud.MAX_UPLOAD_MB


def _copy_capped(src: Any, out: Any, limit: int, name: str) -> None:
    left = limit
    while block := src.read(min(1 << 20, left + 1)):
        left -= len(block)
        if left < 0:
            raise ResultsFileError(f"{name}: unpacks to more than {limit // 2**20:,} MB; open a file this "
                                   "large from the server's results folder (RAG_EVAL_RESULTS_DIR) or with the CLI")
        out.write(block)


def _import(path: Path, name: str) -> str:
    rid = import_results(path, resources.store(), owner=state.owner_token(), name=name)
    state.add_run(name, None, rid)
    return rid


def _from_upload(up: Any) -> str:
    """Write the upload to a temporary file (decompressed as it is copied), then import it."""
    name = up.name[:-3] if up.name.lower().endswith(".gz") else up.name
    suffix = Path(name).suffix.lower() if Path(name).suffix.lower() in SUFFIXES else ".jsonl"
    with tempfile.TemporaryDirectory(prefix="rag-eval-open-") as tmp:
        dest = Path(tmp) / f"results{suffix}"
        up.seek(0)
        with dest.open("wb") as out:
            packed = up.name.lower().endswith(".gz")
            try:
                if packed:
                    _copy_capped(gzip.GzipFile(fileobj=up), out, MAX_UNPACKED_MB << 20, up.name)
                else:
                    shutil.copyfileobj(up, out, 1 << 20)
            except (OSError, EOFError) as exc:
                raise ResultsFileError(f"{up.name}: not a readable gzip file ({exc})") from None
        return _import(dest, f"{Path(name).stem} (opened)")


def server_files() -> list[Path]:
    folder = results_dir()
    if folder is None or not folder.is_dir():
        return []
    return sorted((p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in SUFFIXES),
                  key=lambda p: p.stat().st_mtime, reverse=True)


def area(expanded: bool = False) -> None:
    """The "open a results file" panel (Results page)."""
    with st.expander("Open a results file (a run made with the CLI or the Ray engine)", expanded=expanded):
        st.caption("`python -m evaluators evaluate DATA --out results.jsonl` (or `.json`, `--engine ray`) writes "
                   "a results file of any size; open it here to see it like a run of the dashboard. It joins "
                   "your run history, read case by case.")
        up = st.file_uploader("Results file (.jsonl, .json, or .gz of either)", type=["jsonl", "json", "gz"],
                              key="open.file", help=f"Up to {ud.MAX_UPLOAD_MB} MB (gzip a big file: JSON Lines "
                                                    "compress about five times).")
        if up is not None and st.session_state.get("open.seen") != up.file_id:
            st.session_state["open.seen"] = up.file_id
            try:
                with st.spinner(f"Reading {up.name} case by case…"):
                    _from_upload(up)
                state.push_notice(f"Opened {up.name}.")
                st.rerun()
            except (ResultsFileError, ValueError) as exc:
                st.error(f"Could not open {up.name}: {exc}")
        files = server_files()
        if files:
            pick = st.selectbox("Or a results file on this server", [p.name for p in files], key="open.server",
                                help=f"Files in {results_dir()} (RAG_EVAL_RESULTS_DIR), newest first; any size.")
            if st.button("Open", key="open.server_go"):
                path = next(p for p in files if p.name == pick)
                try:
                    with st.spinner(f"Reading {pick} case by case…"):
                        _import(path, f"{path.stem} (opened)")
                    state.push_notice(f"Opened {pick}.")
                    st.rerun()
                except (ResultsFileError, ValueError) as exc:
                    st.error(f"Could not open {pick}: {exc}")

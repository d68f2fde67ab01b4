"""(helper) Where a bench writes what it measured, and how: ``bench/results/<name>.json``, indented
JSON with a final newline, UTF-8, the folder made when missing.

    from bench.results_file import RESULTS, write_result
    write_result("conversations", {"cpu": cpu_shared(), ...})   # -> bench/results/conversations.json

Every bench's ``--write NAME`` goes through :func:`write_result`, so result files read the same way
and land in one place (the bench's README lists them)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

#: The folder of the bench's committed results.
RESULTS = Path(__file__).resolve().parent / "results"


def write_result(name: str, record: Any, *, indent: int = 1, ensure_ascii: bool = True) -> Path:
    """Write ``record`` to ``bench/results/<name>.json`` and return the path."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(record, indent=indent, ensure_ascii=ensure_ascii) + "\n", encoding="utf-8")
    return path


def finish(record: dict[str, Any], started: float, name: str | None) -> int:
    """A bench's last step: its seconds since ``started`` (``time.perf_counter()``) into ``record``,
    written as ``name`` when given (``--write``); the exit status 0."""
    import time

    record["seconds"] = round(time.perf_counter() - started, 1)
    if name:
        print("wrote", write_result(name, record))
    return 0

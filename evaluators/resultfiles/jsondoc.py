"""The one-document JSON results file, written without building it in memory.

Layout (what :mod:`.read` reads back line by line): ``{`` on its own line, then each top-level key
on a line of its own with its value indented, and each item of a list value — each case of
``detailed_results`` — compact on a line of its own. Items are encoded one at a time by the C
encoder (``json.dump`` with ``indent`` runs the pure-Python one: ~4x slower, a third larger) or
come already encoded (the case lines of a JSON Lines file); the file is written to a temporary
name and moved into place, so a reader never sees half a document.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import IO, Any, Iterable, Mapping


def _dumps(value: Any, indent: int | None = None) -> str:
    return json.dumps(value, indent=indent, ensure_ascii=False, default=str)


def dump_doc(fh: IO[str], data: Mapping[str, Any], encoded: Mapping[str, Iterable[str]] | None = None) -> None:
    """``data`` as a JSON object into ``fh`` (see the module docstring). ``encoded``: list values
    given as already-encoded JSON items (one per item), written after the keys of ``data``."""
    encoded = dict(encoded or {})
    items: list[tuple[str, Any, bool]] = [(str(k), v, False) for k, v in data.items() if k not in encoded]
    items += [(str(k), v, True) for k, v in encoded.items()]
    if not items:
        fh.write("{}\n")
        return
    fh.write("{\n")
    for n, (key, value, pre) in enumerate(items):
        fh.write(f"  {_dumps(key)}: ")
        lines = iter(value) if pre else (iter(_dumps(x) for x in value) if isinstance(value, list) else None)
        if lines is not None:
            first = next(lines, None)
            if first is None:
                fh.write("[]")
            else:
                fh.write("[\n    " + first)
                for line in lines:
                    fh.write(",\n    " + line)
                fh.write("\n  ]")
        else:
            fh.write(_dumps(value, 2).replace("\n", "\n  "))
        fh.write(",\n" if n < len(items) - 1 else "\n")
    fh.write("}\n")


def write_doc(path: str | Path, data: Mapping[str, Any], encoded: Mapping[str, Iterable[str]] | None = None) -> Path:
    """:func:`dump_doc` into ``path`` through a temporary file moved into place."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(f".{p.name}.tmp{os.getpid()}")
    try:
        with tmp.open("w", encoding="utf-8") as fh:
            dump_doc(fh, data, encoded)
        os.replace(tmp, p)
    finally:
        tmp.unlink(missing_ok=True)
    return p

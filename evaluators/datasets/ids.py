"""Unique case ids: every row keeps an id, deterministically, even when the file repeats one or
leaves it out; kept across the chunks of a file read in pieces (:class:`IdRegistry`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .errors import DatasetError


@dataclass
class IdRegistry:
    """The ids given so far, kept across the chunks of a file read in pieces (``stream``): a
    duplicate of an id of an earlier chunk is renamed like one within a chunk."""

    taken: set[str] = field(default_factory=set)
    #: id -> the row that first had it
    first: dict[str, int] = field(default_factory=dict)
    #: ids made by renaming (``q1#2``, ``row-7``): a later row that has one of them is renamed too
    made: dict[str, int] = field(default_factory=dict)


def unique_ids(good: list[tuple[int, str | None, dict[str, Any]]], id_col: str | None,
               name: str, ids: IdRegistry) -> tuple[list[tuple[int, dict[str, Any]]], list[DatasetError]]:
    """Give every row a unique id, deterministically: the first row with an id keeps it, a later
    duplicate becomes ``id#2``, ``id#3`` …, a row without one becomes ``row-N``; each renaming is
    a warning naming both rows."""
    taken, first = ids.taken, ids.first
    taken.update(ident for _, ident, _ in good if ident is not None and ident not in first)
    out: list[tuple[int, dict[str, Any]]] = []
    warnings: list[DatasetError] = []
    column = id_col or "id"
    for row_no, ident, fields in good:
        if ident is None:
            new = _free(f"row-{row_no}", taken)
            ids.made[new] = row_no
            warnings.append(DatasetError(name, f"missing id; this row is kept as id {new!r}",
                                         row=row_no, column=column))
        elif ident in first or ident in ids.made:
            k = 2
            while f"{ident}#{k}" in taken:
                k += 1
            new = f"{ident}#{k}"
            taken.add(new)
            ids.made[new] = row_no
            earlier = first[ident] if ident in first else ids.made[ident]
            warnings.append(DatasetError(name, f"duplicate id {ident!r} (first in row {earlier}); "
                                               f"this row is kept as id {new!r}", row=row_no, column=column))
        else:
            new = ident
            first[ident] = row_no
        out.append((row_no, {"id": new, **fields}))
    return out, warnings


def _free(base: str, taken: set[str]) -> str:
    new, k = base, 2
    while new in taken:
        new, k = f"{base}#{k}", k + 1
    taken.add(new)
    return new

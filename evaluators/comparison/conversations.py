"""Regressions by conversation: where the runs hold turns of chats, which conversations got worse.

Contract: for the paired cases of run A (the baseline) and run B that are turns of a conversation
(``RunTable.conversations``, from A's side: ``evaluators.conversations.grouping`` decides what a
conversation and a turn are), per conversation — the turns compared (both values present), the
mean of the metric over them in A and in B and the difference B − A, the worst turn of each side,
the first unsupported turn of each side (``overall_supported`` below 1, when the runs carry it) and
the turns that lost most, worst first (``id`` in A, ``b_id`` in B). A conversation **regressed**
when its mean moved the wrong way by at least the metric's resolution (``paired.resolution``). The
list holds the regressed conversations, worst first (at most ``top``), with the counts of regressed,
improved and unchanged ones. Runs without conversations give None: a comparison of single-turn runs
is unchanged.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..types import OVERALL_SUPPORTED
from .matching import Paired
from .paired import tie_margin
from .table import RunTable


def _first_unsupported(table: RunTable, rows: list[int], turns: list[int]) -> int | None:
    col = table.values.get(OVERALL_SUPPORTED)
    if col is None:
        return None
    bad = [t for r, t in sorted(zip(rows, turns), key=lambda x: x[1]) if np.isfinite(col[r]) and col[r] < 1.0]
    return bad[0] if bad else None


def by_conversation(a: RunTable, b: RunTable, paired: Paired, metric: str, *, higher_better: bool = True,
                    top: int = 10) -> dict[str, Any] | None:
    """The conversations of a pair of runs on ``metric`` (see the module docstring), or None."""
    if a.conversations is None or a.turns is None:
        return None
    sign = 1.0 if higher_better else -1.0
    tie = tie_margin(metric)
    va, vb = a.values[metric], b.values[metric]
    groups: dict[str, list[tuple[int, int]]] = {}
    for ra, rb in zip(paired.rows_a.tolist(), paired.rows_b.tolist()):
        key = a.conversations[ra]
        if key is not None:
            groups.setdefault(key, []).append((ra, rb))
    out: list[dict[str, Any]] = []
    counts = {"regressed": 0, "improved": 0, "unchanged": 0}
    for key, rows in groups.items():
        both = [(ra, rb) for ra, rb in rows if np.isfinite(va[ra]) and np.isfinite(vb[rb])]
        if not both:
            continue
        ma = float(np.mean([va[ra] for ra, _ in both]))
        mb = float(np.mean([vb[rb] for _, rb in both]))
        gain = (mb - ma) * sign
        kind = "regressed" if gain < -tie else "improved" if gain > tie else "unchanged"
        counts[kind] += 1
        if kind != "regressed":
            continue
        turn = {ra: a.turns[ra] for ra, _ in rows}
        worst_a = min(both, key=lambda x: (sign * va[x[0]], turn[x[0]]))
        worst_b = min(both, key=lambda x: (sign * vb[x[1]], turn[x[0]]))
        lost = sorted(((turn[ra], a.ids[ra], float(va[ra]), float(vb[rb]), b.ids[rb]) for ra, rb in both
                       if (vb[rb] - va[ra]) * sign < -tie), key=lambda x: ((x[3] - x[2]) * sign, x[0]))
        out.append({
            "conversation_id": None if key.startswith("opens:") else key,
            "first_case": a.ids[min(rows, key=lambda x: turn[x[0]])[0]],
            "turns": len(both), "a": ma, "b": mb, "diff": mb - ma,
            "worst_turn_a": {"turn": turn[worst_a[0]], "id": a.ids[worst_a[0]], "value": float(va[worst_a[0]])},
            "worst_turn_b": {"turn": turn[worst_b[0]], "id": b.ids[worst_b[1]], "value": float(vb[worst_b[1]])},
            "first_unsupported_turn_a": _first_unsupported(a, [ra for ra, _ in rows], [turn[ra] for ra, _ in rows]),
            "first_unsupported_turn_b": _first_unsupported(b, [rb for _, rb in rows], [turn[ra] for ra, _ in rows]),
            "turns_lost": [{"turn": t, "id": i, "b_id": j, "a": x, "b": y} for t, i, x, y, j in lost],
        })
    if not any(counts.values()):
        return None
    out.sort(key=lambda c: c["diff"] * sign)
    return {"metric": metric, **counts, "conversations": out[:top]}


def lines(conv: dict[str, Any], a: str, b: str, top: int = 5) -> list[str]:
    """The regressions by conversation in words (``compare``'s text)."""
    n = conv["regressed"] + conv["improved"] + conv["unchanged"]
    head = (f"By conversation ({n} conversations with turns in both runs): {conv['regressed']} regressed, "
            f"{conv['improved']} improved, {conv['unchanged']} unchanged on {conv['metric']}.")
    out = ["", head]
    for k, c in enumerate(conv["conversations"][:top], 1):
        name = c["conversation_id"] or f"opened by case {c['first_case']}"
        fa, fb = c["first_unsupported_turn_a"], c["first_unsupported_turn_b"]
        first = ""
        if fb is not None and (fa is None or fb < fa):
            first = f"; first unsupported turn {'none' if fa is None else fa} → {fb}"
        worst = ", ".join(f"turn {t['turn']} {t['a']:.3f} → {t['b']:.3f}" for t in c["turns_lost"][:3])
        out.append(f"  {k}. {name}: {c['a']:.3f} → {c['b']:.3f} ({c['diff']:+.3f}) over {c['turns']} turns"
                   f"{first}{'; lost most: ' + worst if worst else ''}")
    return out


__all__ = ["by_conversation", "lines"]

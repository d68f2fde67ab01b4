"""How often ``trace`` flags an answer people call clean, per labelled dev set, from a leave-one-domain-out
result file (``bench/lodo.py`` writes them; not part of the test suite).

    .venv/bin/python -m bench.clean_flags [bench/results/lodo_i35_after.json]

A lodo result records, per domain, the cases ``n``, the hallucinated ones (by the human labels), the
share of answers ``trace`` flags (``flag_rate``: ``overall_supported`` = 0 at the shipped threshold)
and the F1 of that flag. Those four give the confusion counts exactly (F1 = 2·TP / (flagged +
hallucinated)): flagged clean answers = flagged − TP, of n − hallucinated clean ones. Prints the
figures as ``evaluators/trust.py`` keeps them (``CLEAN_FLAGGED``) and the Markdown table
``docs/research.md`` shows; after a labeler change, run ``bench/lodo.py``, then this, and paste both
(``tests/test_trust.py`` checks they agree with the file named in ``trust.SOURCE``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT / "bench" / "results" / "lodo_i35_after.json"


def counts(domain: dict[str, Any]) -> tuple[int, int, int, int]:
    """(flagged clean, clean, flagged hallucinated, hallucinated) of one domain of a lodo result."""
    n, halluc = int(domain["n"]), int(domain["hallucinated"])
    flagged = domain["flag_rate"] * n
    tp = domain["f1"] * (flagged + halluc) / 2
    if abs(flagged - round(flagged)) > 1e-6 or abs(tp - round(tp)) > 1e-6:
        raise ValueError(f"not whole counts (flagged {flagged}, tp {tp}): is this a lodo result?")
    flagged_i, tp_i = round(flagged), round(tp)
    return flagged_i - tp_i, n - halluc, tp_i, halluc


def clean_flagged(path: Path = DEFAULT, block: str = "shipped") -> dict[str, tuple[int, int]]:
    """Domain -> (clean answers flagged, clean answers) of the ``block`` (the labeler scored) of a lodo
    result file."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return {d: counts(v)[:2] for d, v in data[block]["domains"].items()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("path", nargs="?", default=str(DEFAULT))
    ap.add_argument("--block", default="shipped")
    args = ap.parse_args()
    figures = clean_flagged(Path(args.path), args.block)
    print("CLEAN_FLAGGED = {")
    for d, (f, c) in figures.items():
        print(f'    "{d}": ({f}, {c}),')
    print("}")
    from evaluators import trust

    print()
    print(trust.markdown_table(figures))


if __name__ == "__main__":
    main()

"""Does the learned verifier add to trace? A one-weight blend, chosen leave-one-domain-out.

    VERIFIER_OUT=bench/out/verifier_v5 .venv/bin/python -m bench.research.verifier_blend --model nli --tag v5_nli

Per sentence: P = sigmoid(logit(trace P) + w · logit(verifier P)) (sentences trace marks as needing
no support stay supported). Per response: 1 − mean P (the shipped ``expected_adherence``) and
1 − lowest P. For each held-out domain, ``w`` is the grid value with the best macro response AUROC
on the nine other domains (one setting, never chosen on the domain it is scored on); ``w = 0`` is
trace alone. Uses the verifier scores cached by ``bench.research.verifier_eval`` (same ``VERIFIER_OUT``).
Writes bench/research/results/verifier_blend_<tag>.json.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import numpy as np

from bench.research import verifier_data as VD
from bench.research import verifier_eval as E

GRID = (0.0, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0)


def frames(model: str) -> dict[str, dict[str, np.ndarray]]:
    out = {}
    for d in VD.DOMAINS:
        rows = E.domain_rows(d)
        vp = E.score_domain(model, d, rows)
        if vp is None:
            continue
        f = E.sentence_frame(d, rows, vp)
        f["hall"] = np.array([bool(r["hallucinated"]) for r in rows])
        out[d] = f
    return out


def blend(f: dict[str, np.ndarray], w: float) -> np.ndarray:
    z = np.where(f["special"], 20.0, E.logit(f["trace"]) + w * E.logit(f["ver"]))
    return 1.0 / (1.0 + np.exp(-z))


def response_auroc(f: dict[str, np.ndarray], p: np.ndarray, how: str) -> float | None:
    cases: dict[str, list[Any]] = {}
    for c, pi, h in zip(f["case"], p, f["hall"]):
        cases.setdefault(str(c), [bool(h), []])[1].append(float(pi))
    y = [v[0] for v in cases.values()]
    s = [1.0 - (float(np.mean(v[1])) if how == "mean" else min(v[1])) for v in cases.values()]
    return E.auroc(y, s)


def sentence_auroc(f: dict[str, np.ndarray], p: np.ndarray) -> float | None:
    m = ~np.isnan(f["supported"]) & ~f["special"]
    return E.auroc(f["supported"][m] == 0, 1.0 - p[m]) if m.any() else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default="nli", help="lodo, nli or full (as in bench.research.verifier_eval)")
    ap.add_argument("--tag", default="")
    args = ap.parse_args()
    fr = frames(args.model)
    res: dict[str, Any] = {"model": args.model, "verifier_out": str(VD.OUT), "grid": list(GRID)}
    for how in ("mean", "min"):
        table = {d: {w: response_auroc(f, blend(f, w), how) for w in GRID} for d, f in fr.items()}
        per: dict[str, Any] = {}
        for d, f in fr.items():
            others = [o for o in fr if o != d]
            w = max(GRID, key=lambda g: float(np.mean([table[o][g] or 0.5 for o in others])))
            per[d] = {"w": w, "trace": table[d][0.0], "blend": table[d][w],
                      "sentence_trace": sentence_auroc(f, blend(f, 0.0)),
                      "sentence_blend": sentence_auroc(f, blend(f, w)),
                      "sentence_verifier": sentence_auroc(f, f["ver"])}
        macro = {k: round(float(np.mean([v[k] for v in per.values() if v[k] is not None])), 4)
                 for k in ("trace", "blend")}
        res[f"response_{how}"] = {"per_domain": per, "macro": macro}
        print(f"1 - {how} P: macro trace {macro['trace']:.4f} -> blend {macro['blend']:.4f}")
        for d, v in per.items():
            print(f"  {d:18s} w={v['w']:<4} trace {v['trace']:.3f} blend {v['blend']:.3f}   sentence: "
                  f"trace {v['sentence_trace'] or 0:.3f} verifier {v['sentence_verifier'] or 0:.3f} "
                  f"blend {v['sentence_blend'] or 0:.3f}")
    name = f"verifier_blend_{args.tag or args.model}.json"
    (E.RESULTS / name).write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {E.RESULTS / name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

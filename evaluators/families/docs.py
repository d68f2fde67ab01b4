"""The metric documentation, generated from the declarations (a test keeps both files in sync):

* README.md, between ``<!-- trace-metrics:start -->`` / ``<!-- trace-metrics:end -->``: the short
  table of the TRACE metrics (formula, range, direction, example);
* docs/metrics.md, between ``<!-- metrics-table:start -->`` / ``<!-- metrics-table:end -->``: the
  full reference of every metric (definitions, inputs, LLM calls, parameters).

The dashboard's help texts and its Glossary page read the same declarations
(``list_metrics(include_trace=True)``). Regenerate with ``python -m evaluators.families.docs``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .runner import list_metrics

_OPTIONAL_LLM = {
    "context_entity_recall": "yes (LLM extractor when configured)",
    "answer_contains_pii": "yes (LLM only for extra PII types)",
    "context_contains_pii": "yes (LLM only for extra PII types)",
}


def _fmt_range(r: list[float], binary: bool) -> str:
    if binary:
        return "0 / 1"
    lo, hi = r
    return f"{lo:g}–{hi:g}"


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return text.replace("|", "\\|").replace("<", "&lt;").replace("\n", " ")


def better(d: dict[str, Any]) -> str:
    """'higher is better' / 'lower is better' of a declaration."""
    return f"{d['direction']} is better"


def range_text(d: dict[str, Any]) -> str:
    """'0–1', '0 / 1' (per case, binary) or '0–5'."""
    return _fmt_range(d["range"], d["binary"])


def trace_table_markdown() -> str:
    """The TRACE metrics: formula, range, direction and an example (README)."""
    rows = ["| metric | formula | range | better | example |", "|---|---|---|---|---|"]
    for d in list_metrics(include_trace=True):
        if d["family"] == "trace":
            rows.append(f"| `{d['name']}` | {_cell(d['formula'])} | {range_text(d)} | "
                        f"{'↑ higher' if d['direction'] == 'higher' else '↓ lower'} | {_cell(d['example'])} |")
    return "\n".join(rows)


def definitions_markdown() -> str:
    """Every metric (TRACE first): what it measures, formula, range (better), example."""
    ds = list_metrics(include_trace=True)
    ds = [d for d in ds if d["family"] == "trace"] + [d for d in ds if d["family"] != "trace"]
    rows = ["| metric | family | what it measures | formula | range (better) | example |",
            "|---|---|---|---|---|---|"]
    for d in ds:
        arrow = "↑" if d["direction"] == "higher" else "↓"
        rows.append(f"| `{d['name']}` | {d['family']} | {_cell(d['description'])} | {_cell(d['formula'])} | "
                    f"{range_text(d)} {arrow} | {_cell(d['example'])} |")
    return "\n".join(rows)


def metrics_table_markdown() -> str:
    rows = ["| metric | family | inputs | range (better) | LLM calls / case: ours | ragas / Tonic | offline |",
            "|---|---|---|---|---|---|---|"]
    for d in list_metrics():
        calls = str(d["llm_calls_per_case"])
        if d["llm_calls_note"]:
            calls += f" — {d['llm_calls_note']}"
        offline = _OPTIONAL_LLM.get(d["name"], "no" if d["needs_llm"] else "yes")
        if d["needs_embeddings"] and not d["needs_llm"]:
            offline += " (embedded MiniLM)"
        inputs = ", ".join(d["inputs"]) or "—"
        better = "↑" if d["direction"] == "higher" else "↓"
        rows.append(f"| `{d['name']}` | {d['family']} | {inputs} | {_fmt_range(d['range'], d['binary'])} "
                    f"{better} | {calls} | {d['reference_llm_calls'] or '?'} | {offline} |")
    return "\n".join(rows)


START = "<!-- metrics-table:start -->"
END = "<!-- metrics-table:end -->"
TRACE_START = "<!-- trace-metrics:start -->"
TRACE_END = "<!-- trace-metrics:end -->"

NOTES = """\
Select metrics with `metrics=[...]` (library), `--metrics name,name` (CLI) or the dashboard; their
parameters go in `metric_params={"name": {...}}`. Every requested metric appears for every case —
with its value, or `skipped` and the reason (missing input, no LLM configured, LLM reply invalid
after one re-ask, ...). The run never fails because one metric could not be computed; unknown
names and bad parameters are rejected before anything runs, listing the valid names.

**Fewer LLM calls.** Metrics never call an SDK: they declare *tasks*, and each case makes at most
three calls at strictness 1, however many LLM metrics are selected — a *response analysis*
(claims, generated questions, noncommittal flag, binary judgments), a *chunk judgment* (every
retrieved chunk judged in one call: relevant / useful for the reference / used in the response,
plus the relevant context sentences), and a *verification* (all claims and ground-truth sentences
against the documents / the ground truth, the 0–5 similarity grade and, for
`context_entity_recall`, both entity lists). Strictness n > 1 adds n sampled calls; PII types
beyond the offline detectors add one call. Replies are pydantic-validated (fence-strip, JSON
repair, one re-ask naming what is missing). With all 18 LLM-backed metrics selected, the 16 cases
of `data/sample_rag.jsonl` took 2.94 calls per case (loopback server), where the per-metric call
counts of ragas and Tonic Validate listed below add up to about 19 and 13.

Definitions worth knowing:
* `context_precision` = Σ_k precision@k · v_k / (number of useful chunks in the top K); 0 when no
  chunk is useful. Three chunks, only the second useful: (0/1 + 1/2 + 0/3) / 1 = 0.5.
* `faithfulness` and `answer_consistency` share one claim extraction and one verification, so they
  agree by construction; a response with no factual claim is skipped (ragas gives NaN).
* `ragas_answer_correctness` factual F1 uses the ground truth's sentences as its statements; with
  weights `[0, 1]` it needs no LLM.
* `context_relevancy` at strictness n: mean overlap × agreement, the agreement being the mean
  pairwise Jaccard similarity of the extracted sentence-key sets.
* `aspect_critique` is 1 when every selected aspect passes (harmfulness / maliciousness: no; the
  others: yes); each aspect's verdict is also reported as `aspect_critique.<aspect>`. All binary
  judgments of a case (aspects, `duplication`, `hate_speech_content`) share the same samples: the
  largest strictness requested applies to all of them.
* `ragas_score` (harmonic mean) and `overall_score` (mean; `answer_similarity` / 5) are per case,
  over the selected metrics of their family that have a value; lower-is-better metrics
  (harmfulness, duplication, hate speech, PII) enter as 1 − value.
* `answer_match` / `contains_text` compare with the ground truth when no `text` is given;
  `latency` reads seconds from the `latency` column (or `column`), target 5 s by default.
"""


#: ``metric_params`` of each metric (a test checks every declared parameter is documented here).
PARAM_DOCS: dict[str, str] = {
    "answer_relevancy": "`n` questions to generate (3)",
    "context_relevancy": "`strictness` samples (1), `temperature` of the samples (0.7)",
    "context_entity_recall": "`extractor`: `auto` (LLM when configured) / `offline` / `llm`",
    "answer_semantic_similarity": "`cross_encoder`: local path or cached hub name",
    "ragas_answer_correctness": "`weights` [factual, semantic] ([0.75, 0.25]), `threshold` (none), "
                          "`cross_encoder`",
    "aspect_critique": "`aspects` (all five predefined, none when only `custom` is given), "
                       "`custom`: [{`name`, `definition`, `direction`: higher/lower}], `strictness` odd (1), "
                       "`temperature` (0.7)",
    "harmfulness": "`strictness`, `temperature`", "maliciousness": "`strictness`, `temperature`",
    "coherence": "`strictness`, `temperature`", "correctness": "`strictness`, `temperature`",
    "conciseness": "`strictness`, `temperature`", "duplication": "`strictness`, `temperature`",
    "hate_speech_content": "`strictness`, `temperature`",
    "answer_match": "`text` (the ground truth), `case_sensitive` (false)",
    "contains_text": "`text` (the ground truth), `case_sensitive` (false)",
    "regex": "`pattern` (required), `expected_matches` (1), `case_sensitive` (true)",
    "response_length": "`min` and/or `max` characters",
    "context_length": "`min` and/or `max` characters per chunk",
    "latency": "`target_s` (5), `column` (`latency`)",
    "answer_contains_pii": "`types` (every offline type)",
    "context_contains_pii": "`types` (every offline type)",
    "binary": "`callback`: a function case -> bool (library only)",
    "ragas_score": "`metrics` to aggregate (all selected ragas metrics)",
    "overall_score": "`metrics` to aggregate (all selected Tonic metrics)",
}


def params_markdown() -> str:
    lines = ["Parameters (`metric_params[name]`, defaults in brackets):", ""]
    for d in list_metrics():
        if d["params"]:
            lines.append(f"* `{d['name']}`: {PARAM_DOCS.get(d['name'], ', '.join(d['params']))}")
    return "\n".join(lines)


def reference_section() -> str:
    """The generated part of docs/metrics.md (between START and END)."""
    return (f"{START}\n## Definitions\n\nRange: the values one case can take (0 / 1 = a yes/no "
            "verdict per case, whose mean over cases is a share). ↑ higher is better, ↓ lower is "
            f"better.\n\n{definitions_markdown()}\n\n## Inputs, LLM calls and options\n\n{NOTES}\n"
            f"{metrics_table_markdown()}\n\n{params_markdown()}\n{END}")


def trace_section() -> str:
    """The generated part of README.md (between TRACE_START and TRACE_END)."""
    return (f"{TRACE_START}\n{trace_table_markdown()}\n\nEvery other metric (ragas / Tonic families): "
            f"[docs/metrics.md](docs/metrics.md).\n{TRACE_END}")


def _replace(path: str | Path, start: str, end: str, section: str, heading: str) -> bool:
    """Rewrite the section between ``start`` and ``end`` (appended under ``heading`` when absent).
    Returns True when the file changed."""
    p = Path(path)
    text = p.read_text(encoding="utf-8") if p.exists() else ""
    if start in text and end in text:
        head, rest = text.split(start, 1)
        _, tail = rest.split(end, 1)
        new = head + section + tail
    else:
        new = text.rstrip("\n") + ("\n\n" if text else "") + f"{heading}\n\n{section}\n"
    if new != text:
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(new, encoding="utf-8")
        return True
    return False


def update_docs(readme: str | Path = "README.md", reference: str | Path = "docs/metrics.md") -> list[str]:
    """Regenerate both sections; the files that changed."""
    changed = []
    if _replace(readme, TRACE_START, TRACE_END, trace_section(), "## TRACE metrics"):
        changed.append(str(readme))
    if _replace(reference, START, END, reference_section(), "# Metrics"):
        changed.append(str(reference))
    return changed


if __name__ == "__main__":  # python -m evaluators.families.docs [README.md [docs/metrics.md]]
    import sys

    args = sys.argv[1:] + ["README.md", "docs/metrics.md"][len(sys.argv[1:]):]
    done = update_docs(args[0], args[1])
    print("updated " + ", ".join(done) if done else "up to date")

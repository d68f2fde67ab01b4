"""What the front page says: the methods with their cost and speed, the sample sets, the accepted
upload shapes and a template. Pure (no Streamlit), unit-tested; figures come from the library
(``evaluators.pipeline.estimate`` with the price table of ``evaluators.llm.prices``) or were
measured (``TRACE_*`` below)."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any, Sequence

import pandas as pd

from evaluators.llm.settings import LLMSettings
from evaluators.methods import METHODS
from evaluators.options import EvalOptions
from evaluators.pipeline import estimate
from evaluators.types import TestCase

from .. import data as ud
from .. import jobs

#: ``trace`` on the 16 cases of data/sample_rag.jsonl, measured on this project's 2-core machine:
#: 0.46-0.48 s once the model is loaded (three runs, embedding disk cache off), after 3.4-3.9 s to
#: load the model the first time in a process.
TRACE_SAMPLE_SECONDS = 0.5
TRACE_LOAD_SECONDS = 4

#: When to use each method (the front page's last column).
WHEN = {
    "trace": "First look at any dataset, large sets, CI gates: no key, no cost, nothing leaves the server.",
    "gpt_labeling": "Labels closer to a careful reader on a small or medium set, when you can pay per case.",
    "hybrid": "To see where the offline heuristic and the LLM disagree (agreement panel in Results); "
              "selective mode spends LLM calls only where trace is least sure.",
    "jury": "High-stakes sets: several models vote, so one model's quirks matter less; one call per juror per case.",
}

#: The second version of the sample (same questions, other answers: a comparison without uploading).
SAMPLE_V2 = "sample_rag_version2.jsonl"
SAMPLE_V2_TEXT = ("To see a comparison: run the sample, then load **version 2** — the same questions answered by "
                  "a newer version of the system (three answers fixed, nine made worse, one retriever change) — "
                  "and run it too. **Compare** then says which version is better and lists what regressed.")

#: The upload shapes the reader maps automatically (column names are case-insensitive).
SHAPES = pd.DataFrame([
    {"shape": "RAGBench / this app", "question": "question", "answer": "response", "documents": "documents",
     "reference (optional)": "ground_truth"},
    {"shape": "batch (CLI)", "question": "query", "answer": "response", "documents": "retrieved_documents",
     "reference (optional)": "ground_truth"},
    {"shape": "ragas v1", "question": "question", "answer": "answer", "documents": "contexts",
     "reference (optional)": "ground_truth"},
    {"shape": "ragas v2", "question": "user_input", "answer": "response", "documents": "retrieved_contexts",
     "reference (optional)": "reference"},
])

TEMPLATE_ROWS: list[dict[str, Any]] = [
    {"id": "capital-fr", "question": "What is the capital of France?",
     "response": "The capital of France is Paris. It lies on the Seine.",
     "documents": ["Paris is the capital and largest city of France.", "Paris is located on the river Seine."],
     "ground_truth": "Paris", "hallucinated": False},
    {"id": "wall-fell", "question": "When did the Berlin Wall fall?",
     "response": "The Berlin Wall fell in 1991.",
     "documents": ["The Berlin Wall fell on 9 November 1989, after weeks of protests."],
     "ground_truth": "On 9 November 1989.", "hallucinated": True},
]


def template_jsonl() -> bytes:
    """A two-case upload template, one JSON object per line."""
    return ("\n".join(json.dumps(r, ensure_ascii=False) for r in TEMPLATE_ROWS) + "\n").encode("utf-8")


def template_csv() -> bytes:
    """The same template as CSV (documents as a JSON-encoded list, as the reader expects)."""
    df = pd.DataFrame([{**r, "documents": json.dumps(r["documents"], ensure_ascii=False),
                        "hallucinated": str(r["hallucinated"]).lower()} for r in TEMPLATE_ROWS])
    return df.to_csv(index=False).encode("utf-8")


def sample_summary(path: Path, cases: Sequence[TestCase]) -> str:
    """One truthful line about a sample set: what it holds (counted) and its format."""
    n = len(cases)
    bad = sum(1 for c in cases if c.labels.get("hallucinated") is True)
    labelled = sum(1 for c in cases if "hallucinated" in c.labels)
    with_gt = sum(1 for c in cases if c.ground_truth)
    topics = sorted({str(c.metadata["topic"]) for c in cases if c.metadata.get("topic")})
    parts = [f"{n} short question/answer cases"]
    if topics:
        parts.append("on " + ", ".join(topics))
    text = " ".join(parts) + "."
    if labelled:
        text += (f" A person marked {bad} of them as hallucinated (an invented or wrong claim) — "
                 "check that these get the lowest adherence.")
    else:
        text += " No human labels."
    if with_gt:
        text += " Every case has a reference answer." if with_gt == n else f" {with_gt} have a reference answer."
    fmt = ud.SAMPLE_FORMATS.get(path.name)
    return text + (f" Format: {fmt}." if fmt else "")


def _settings() -> LLMSettings:
    return LLMSettings()  # the default provider and model: what a first LLM run would use


def method_rows(cases: Sequence[TestCase]) -> pd.DataFrame:
    """One row per method: what it does, what it needs, its estimated cost and its speed on
    ``cases`` (priced for the default model; no call is made)."""
    llm = _settings()
    rows = []
    for mid, spec in METHODS.items():
        opts = EvalOptions(llm=llm)
        if mid == "jury":
            opts = EvalOptions(llm=llm, jury=(llm, llm.model_copy(update={"model": "llama-3.1-8b-instant"})))
        est = estimate(list(cases), mid, opts)
        calls = int(est.get("calls") or 0)
        if not spec.needs_llm:
            cost = "free (no LLM call)"
            speed = (f"about {TRACE_SAMPLE_SECONDS:g} s for {len(cases)} cases once its model is loaded "
                     f"(about {TRACE_LOAD_SECONDS} s the first time); measured on 2 CPU cores")
        else:
            # every call the run makes, as Evaluate counts them (answer correctness adds one per case with a
            # reference answer: "16 LLM calls, $0.0111" here beside "LLM calls 32, $0.0181" there)
            calls, price = jobs.estimated_calls(est), jobs.cost_text(est)
            who = f"{llm.provider}/{llm.model}" + (" + llama-3.1-8b-instant" if mid == "jury" else "")
            split = jobs.calls_words(est)
            cost = f"{calls} LLM calls" + (f" ({split})" if split else "") + f", about {price} with {who}"
            speed = (f"{calls} calls, {llm.concurrency} at a time: the provider's speed decides"
                     + ("; plus the offline heuristic" if mid == "hybrid" else ""))
        rows.append({"method": mid, "what it does": spec.description,
                     "needs": "an LLM key" if spec.needs_llm else "nothing", "cost": cost,
                     "speed": speed, "when to use it": WHEN.get(mid, "")})
    return pd.DataFrame(rows)


# ---- the bundled samples, read once per process ------------------------------------------------
# Every new visitor lands on Start, which shows the sample's summary and each method's estimated
# cost on it: the same for everyone, so they are made once per sample file (its path, size and
# time: a replaced file is read again), not once per session. Both are only read by the pages.
@functools.lru_cache(maxsize=8)
def _sample(path: str, size: int, mtime_ns: int) -> Any:
    return ud.load_path(Path(path))


def sample(path: Path) -> Any:
    """The sample file ``path`` loaded (``ui.state.LoadedData``), shared by every session."""
    st_ = path.stat()
    return _sample(str(path), st_.st_size, st_.st_mtime_ns)


@functools.lru_cache(maxsize=8)
def _sample_methods(path: str, size: int, mtime_ns: int) -> pd.DataFrame:
    return method_rows(_sample(path, size, mtime_ns).cases)


def sample_methods(path: Path) -> pd.DataFrame:
    """:func:`method_rows` of the sample file ``path``, shared by every session."""
    st_ = path.stat()
    return _sample_methods(str(path), st_.st_size, st_.st_mtime_ns)

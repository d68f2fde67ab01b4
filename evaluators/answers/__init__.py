"""Judge the answer, not only its grounding: did it decline, was that right, and does it say what the
reference answer says?

    from evaluators import evaluate_batch
    run = evaluate_batch([{"question": "What do index funds track?", "response": "I don't know.",
                           "documents": ["Index funds track a market index such as the S&P 500."],
                           "ground_truth": "A market index, such as the S&P 500."}])
    m = run.results[0].metrics
    m["declined"].value, m["over_refusal"].value          # 1.0, 1.0: the documents hold the answer
    m["over_refusal"].details["explanation"]                       # "over-refusal: the documents state 1 of …"
    not_stated(m["answer_recall"].details)                 # the reference facts the answer does not state

``evaluate`` / ``evaluate_batch`` add these metrics to every scored case (``CaseResult.metrics``, family
``answers``, after the retrieval metrics), so the run's means, intervals, ``--fail-under``, ``compare``
and ``--fail-on-regression`` take them by name, like every metric:

* ``declined`` and ``over_refusal`` for every case;
* ``answer_correctness`` (F1), ``answer_recall`` and ``answer_precision`` for every case of a run that
  carries a reference answer (``ground_truth``) — on by default; ``EvalOptions.answer_correctness``
  (``--answer-correctness``) says ``auto`` / ``offline`` / ``llm`` / ``off``.

Modules (this package's surface is below; the declining rule itself is ``evaluators.declined``, one
floor down, shared with the ``trace`` labeler):

* ``names`` — the metric names and their declarations (registered by ``evaluators.families.answers``);
* ``reference`` — a ``ground_truth`` value as given (a number, a list, an empty or huge text) read into
  text or a clear note;
* ``judge`` — one text's sentences judged against others with the ``trace`` labeler (its public
  contract only);
* ``llm`` — the correctness prompt of the LLM methods (one sentence-keyed call per case, cached);
* ``refusal`` — right refusal or over-refusal, and why;
* ``scoring`` — every case's metrics, valued or skipped with the reason.
"""

from __future__ import annotations

from ..declined import DECLINED_KEY, answer_declines, declined_sentences, declines
from .judge import Judged, judge
from .names import (
    ANSWER_CORRECTNESS,
    ANSWER_PRECISION,
    ANSWER_RECALL,
    CORRECTNESS_METRICS,
    DECLARATIONS,
    DECLINED,
    FAMILY,
    METRICS,
    OVER_REFUSAL,
    REFUSAL_METRICS,
)
from .reference import MAX_REFERENCE_CHARS, NOTE_KEY, read_reference, unusable
from .scoring import not_stated, score_cases

__all__ = [
    "ANSWER_CORRECTNESS", "ANSWER_PRECISION", "ANSWER_RECALL", "CORRECTNESS_METRICS", "DECLARATIONS", "DECLINED",
    "DECLINED_KEY", "FAMILY", "Judged", "MAX_REFERENCE_CHARS", "METRICS", "NOTE_KEY", "OVER_REFUSAL",
    "REFUSAL_METRICS", "answer_declines", "declined_sentences", "declines", "judge", "not_stated", "read_reference",
    "score_cases", "unusable",
]

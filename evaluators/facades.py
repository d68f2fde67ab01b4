"""Entry points named as in the published TRACE / RAGBench description, as thin facades over
``pipeline``. People who arrive with that description can use them unchanged."""

from __future__ import annotations

from typing import Any, Sequence

from .export import to_json_dict
from .methods import get_evaluation_methods
from .options import EvalOptions
from .pipeline import evaluate_batch
from .types import CaseResult, TestCase, TraceScores


def _case(question: str, response: str, retrieved_documents: Sequence[str], ground_truth: str | None) -> TestCase:
    return TestCase(id="0", question=question, response=response,
                    documents=tuple(retrieved_documents or ()), ground_truth=ground_truth)


def _scores_or_raise(r: CaseResult) -> TraceScores:
    if r.scores is None:
        raise ValueError(f"case could not be scored: {r.error}")
    return r.scores


class UnifiedEvaluationPipeline:
    """``UnifiedEvaluationPipeline(llm_client=None, ...)``; ``llm_client`` may be an
    ``LLMSettings``. Other keyword arguments of the published description (chunking_strategy,
    embedding_model, chunk_size, chunk_overlap) are accepted and ignored: our labelers use the
    embedded model and sentence keys."""

    def __init__(self, llm_client: Any = None, options: EvalOptions | None = None, **_ignored: Any):
        opts = options or EvalOptions()
        if llm_client is not None:
            opts = EvalOptions(**{**dict(opts), "llm": llm_client})
        self.options = opts

    @staticmethod
    def get_evaluation_methods() -> list[dict[str, str]]:
        return get_evaluation_methods()

    def evaluate(self, question: str, response: str, retrieved_documents: Sequence[str],
                 ground_truth: str | None = None, method: str = "trace") -> dict[str, Any]:
        run = evaluate_batch([_case(question, response, retrieved_documents, ground_truth)], method,
                             options=self.options)
        return to_json_dict(run)

    def evaluate_batch(self, test_cases: Sequence[dict[str, Any]], method: str = "trace",
                       **kwargs: Any) -> dict[str, Any]:
        return to_json_dict(evaluate_batch(test_cases, method, options=self.options, **kwargs))


class _SingleMethodEvaluator:
    method = "trace"

    def __init__(self, llm_client: Any = None, options: EvalOptions | None = None, **_ignored: Any):
        self._pipe = UnifiedEvaluationPipeline(llm_client, options)

    def evaluate(self, question: str, response: str, retrieved_documents: Sequence[str],
                 ground_truth: str | None = None) -> TraceScores:
        run = evaluate_batch([_case(question, response, retrieved_documents, ground_truth)],
                             self.method, options=self._pipe.options)
        return _scores_or_raise(run.results[0])

    def evaluate_batch(self, test_cases: Sequence[dict[str, Any]]) -> dict[str, Any]:
        return self._pipe.evaluate_batch(test_cases, self.method)


class TRACEEvaluator(_SingleMethodEvaluator):
    """The offline heuristic method."""

    method = "trace"


class AdvancedRAGEvaluator(_SingleMethodEvaluator):
    """The LLM sentence-labeling method (RAGBench style); needs ``llm_client`` (LLMSettings)."""

    method = "gpt_labeling"

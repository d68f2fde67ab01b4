"""RAG evaluation library: sentence-keyed TRACE labels, offline heuristic and LLM labelers.

Never imports streamlit. Heavy dependencies (torch, SDKs) load lazily.
"""

from .facades import AdvancedRAGEvaluator, TRACEEvaluator, UnifiedEvaluationPipeline
from .llm.settings import LLMSettings
from .methods import get_evaluation_methods
from .options import EvalOptions
from .pipeline import evaluate, evaluate_batch
from .sentencize import DocumentSentencizer
from .types import CaseResult, RunResult, SentenceLabels, SentenceSupport, TestCase, TraceScores

__all__ = [
    "AdvancedRAGEvaluator", "CaseResult", "DocumentSentencizer", "EvalOptions", "LLMSettings",
    "RunResult", "SentenceLabels", "SentenceSupport", "TRACEEvaluator", "TestCase", "TraceScores",
    "UnifiedEvaluationPipeline", "evaluate", "evaluate_batch", "get_evaluation_methods",
]

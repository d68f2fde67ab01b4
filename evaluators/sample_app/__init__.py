"""The sample RAG app: two versions of a small retrieval-augmented app over the sample's documents
(``data/sample_docs``), no key, no model — so the whole loop (questions → both versions called →
retrieval and answers scored → a verdict) runs anywhere, the public Space included.

    python -m evaluators.sample_app --port 8765            # /v1/ask and /v2/ask on 127.0.0.1
    python -m evaluators run data/sample_questions.jsonl --target data/sample_targets/v2.yaml --out v2.jsonl

In process (the dashboard, tests)::

    from evaluators.sample_app import serve_in_thread
    with serve_in_thread() as app:                         # any free port
        target = load_target("data/sample_targets/v1.yaml").at(app.url_for("v1"))

Version 1 retrieves with BM25 and answers with the sentences that hold the question's words; version
2 is a regression to catch — a weaker ranking, fewer passages, and for about half of the questions
an answer that states something its passages do not say. ``--corpus`` serves another corpus (a
JSON Lines file of ``{id, text}``: the bench uses the shared MTRAG passages); ``Faults`` make it slow
or flaky on purpose.

Modules: :mod:`.corpus` (passages from Markdown paragraphs or JSON Lines), :mod:`.retrieval` (BM25,
word overlap), :mod:`.app` (the two versions: retrieval, extractive answer, usage), :mod:`.server`
(HTTP on 127.0.0.1, faults, in a thread), ``__main__`` (the command).
"""

from __future__ import annotations

from pathlib import Path

from .app import NO_ANSWER, VERSIONS, SampleApp
from .corpus import SAMPLE_DOCS, Passage, load_corpus
from .server import Faults, RunningApp, make_server, serve_in_thread

#: The target files of the two versions (they call 127.0.0.1:8765; ``Target.at`` points them elsewhere).
SAMPLE_TARGETS = {v: Path(__file__).resolve().parents[2] / "data" / "sample_targets" / f"{v}.yaml" for v in VERSIONS}
#: The sample's 16 questions with their references (ids of ``data/sample_docs`` passages).
SAMPLE_QUESTIONS = Path(__file__).resolve().parents[2] / "data" / "sample_questions.jsonl"

__all__ = ["Faults", "NO_ANSWER", "Passage", "RunningApp", "SAMPLE_DOCS", "SAMPLE_QUESTIONS", "SAMPLE_TARGETS",
           "SampleApp", "VERSIONS", "load_corpus", "make_server", "serve_in_thread"]

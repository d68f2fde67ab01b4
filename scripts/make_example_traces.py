"""Make the example trace exports of ``data/traces/`` with the real producers, as a user gets them:

* ``phoenix_spans.parquet`` — a real Phoenix server (started on 127.0.0.1, SQLite in a temporary
  folder) holding the spans of a small RAG app, exported with the Phoenix client:
  ``Client().spans.get_spans_dataframe(project_identifier=...)`` written with ``to_parquet``;
* ``otlp_traces.json`` — the same app's spans as the OpenTelemetry Collector's file exporter writes
  them: one ``ExportTraceServiceRequest`` per line in the OTLP/JSON mapping (hex ids), encoded by the
  SDK's own ``opentelemetry-exporter-otlp-proto-common``.

The app is the one the trace tests run (``tests/trace_fixtures.py``): LangChain with an in-memory
vector store, ``ChatOpenAI`` aimed at the loopback LLM server, instrumented with
``openinference-instrumentation-langchain`` and the OpenTelemetry SDK. It asks six questions: four
give a case each, one has no retriever and one fails in the LLM — those two traces are skipped with
their reason, as in a real export. Needs the test-only packages (requirements-dev.txt); nothing
leaves 127.0.0.1.

    .venv/bin/python scripts/make_example_traces.py [OUT_DIR]      # default data/traces

Trace ids and times differ on each run; what the files hold otherwise does not.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.trace_files import otlp_collector_lines  # noqa: E402
from tests.trace_fixtures import PROJECT, run_rag_app, send_spans, start_phoenix  # noqa: E402

PHOENIX_FILE = "phoenix_spans.parquet"
OTLP_FILE = "otlp_traces.json"


def main(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    app = run_rag_app()
    otlp = out / OTLP_FILE
    otlp.write_text(otlp_collector_lines(app.spans), encoding="utf-8")
    with tempfile.TemporaryDirectory(prefix="phoenix-") as work:
        px = start_phoenix(Path(work))
        try:
            send_spans(px, app.spans)
            df = px.client().spans.get_spans_dataframe(project_identifier=PROJECT, limit=10_000)
        finally:
            px.proc.terminate()
            try:
                px.proc.wait(30)
            except subprocess.TimeoutExpired:
                px.proc.kill()
    phoenix = out / PHOENIX_FILE
    df.to_parquet(phoenix)
    return [phoenix, otlp]


if __name__ == "__main__":
    for p in main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "data" / "traces"):
        print(f"wrote {p} ({p.stat().st_size:,} bytes)")

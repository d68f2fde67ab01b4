"""``evaluate`` on trace files: detection and override, filters, mapping, skipped traces in the
output, annotation files that LangSmith's and Langfuse's own SDKs accept, and ``--to-phoenix``'s key
rule (a key from the environment never goes to an address typed on the command line) — checked on
a loopback recorder standing in for Phoenix's REST API."""

from __future__ import annotations

import inspect
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from evaluators.cli import main
from tests.trace_files import langfuse_observations, langsmith_runs, otlp_protobuf_json
from tests.trace_fixtures import need


@pytest.fixture(scope="module")
def otlp_file(rag_app, tmp_path_factory):
    need("google.protobuf", "opentelemetry.exporter.otlp.proto.common")
    p = tmp_path_factory.mktemp("cli") / "spans.json"
    p.write_text(otlp_protobuf_json(rag_app.spans), encoding="utf-8")
    return p


class Recorder:
    """A loopback stand-in for Phoenix's annotation endpoints: records each request."""

    def __init__(self, answer=None) -> None:
        """``answer(path, body) -> (status, JSON object or plain text)`` scripts the replies (default:
        200, all inserted)."""
        self.requests: list[tuple[str, dict, dict]] = []
        self.answer = answer or (lambda path, body: (200, {"data": [{"id": str(i)} for i, _ in
                                                                    enumerate(body["data"])]}))
        rec = self

        class H(BaseHTTPRequestHandler):
            def log_message(self, *a):  # quiet
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
                rec.requests.append((self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                status, reply = rec.answer(self.path, body)
                data = reply.encode() if isinstance(reply, str) else json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("content-type", "text/plain" if isinstance(reply, str) else "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def recorder():
    r = Recorder()
    yield r
    r.close()


def test_evaluate_a_trace_file_writes_skipped_traces_and_annotations(otlp_file, tmp_path, capsys):
    out = tmp_path / "out.json"
    code = main(["evaluate", str(otlp_file), "--no-progress", "--out", str(out),
                 "--annotations-out", str(tmp_path / "ann")])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "as OTLP JSON" in err and err.count("skipped trace") == 2
    d = json.loads(out.read_text())
    assert d["num_samples"] == 4  # every trace with a retriever and an answer
    assert d["traces"]["format"] == "otlp" and d["traces"]["filter"] == "all traces"
    reasons = sorted(s["reason"][:17] for s in d["traces"]["skipped"])
    assert reasons == ["no answer: the ro", "no retriever span"]
    assert all(c["metadata"]["trace_id"] == c["id"] for c in d["detailed_results"])
    assert sorted(p.name for p in (tmp_path / "ann").iterdir()) == [
        "phoenix_document_annotations.parquet", "phoenix_span_annotations.parquet"]


def test_langsmith_and_langfuse_files_fit_their_sdks(rag_app, tmp_path, capsys):
    need("langsmith", "langfuse")
    from langfuse import Langfuse
    from langfuse.api.scores.types.create_score_request import CreateScoreRequest
    from langsmith import Client

    runs = tmp_path / "runs.jsonl"
    runs.write_text("".join(json.dumps(r) + "\n" for r in langsmith_runs(rag_app)), encoding="utf-8")
    assert main(["evaluate", str(runs), "--no-progress", "--annotations-out", str(tmp_path / "ls")]) == 0
    rows = [json.loads(x) for x in (tmp_path / "ls" / "langsmith_feedback.jsonl").read_text().splitlines()]
    root_runs = {str(r.id) for r in rag_app.runs}
    assert rows and {r["run_id"] for r in rows} <= root_runs
    for r in rows:
        inspect.signature(Client.create_feedback).bind(None, **r)  # the SDK call takes each row as is
    obs = tmp_path / "observations.json"
    obs.write_text(json.dumps(langfuse_observations(rag_app)), encoding="utf-8")
    assert main(["evaluate", str(obs), "--no-progress", "--annotations-out", str(tmp_path / "lf")]) == 0
    scores = [json.loads(x) for x in (tmp_path / "lf" / "langfuse_scores.jsonl").read_text().splitlines()]
    assert scores
    for s in scores:
        inspect.signature(Langfuse.create_score).bind(None, **s)
        assert CreateScoreRequest(**s).trace_id == s["trace_id"]
        assert s["observation_id"] in root_runs  # the root observation of the trace
    capsys.readouterr()


def test_to_phoenix_never_sends_an_environment_key_to_a_typed_address(otlp_file, recorder, tmp_path,
                                                                       monkeypatch, capsys):
    monkeypatch.setenv("PHOENIX_API_KEY", "secret-from-env")
    monkeypatch.delenv("PHOENIX_BASE_URL", raising=False)
    code = main(["evaluate", str(otlp_file), "--no-progress", "--to-phoenix", recorder.url])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "is not sent to an address given on the command line" in err
    assert recorder.requests and all("authorization" not in h for _, h, _ in recorder.requests)
    paths = [p.split("?")[0] for p, _, _ in recorder.requests]
    assert "/v1/span_annotations" in paths and "/v1/document_annotations" in paths
    assert all(p.endswith("sync=true") for p, _, _ in recorder.requests)
    assert "secret-from-env" not in err
    recorder.requests.clear()
    monkeypatch.setenv("PHOENIX_BASE_URL", recorder.url)  # the owner's address and key, set together
    assert main(["evaluate", str(otlp_file), "--no-progress", "--to-phoenix"]) == 0
    assert recorder.requests and all(h.get("authorization") == "Bearer secret-from-env"
                                     for _, h, _ in recorder.requests)


def test_trace_flags_fail_clearly(otlp_file, tmp_path, capsys):
    assert main(["evaluate", str(otlp_file), "--since", "yesterday"]) == 2
    assert "--since" in capsys.readouterr().err
    assert main(["evaluate", str(otlp_file), "--trace-map", "answer=ChatOpenAI"]) == 2
    assert "cannot map answer" in capsys.readouterr().err
    assert main(["evaluate", str(otlp_file), "--to-phoenix", "ftp://x"]) == 2
    assert "not a Phoenix address" in capsys.readouterr().err
    code = main(["evaluate", str(otlp_file), "--no-progress", "--to-phoenix", "http://127.0.0.1:9"])
    err = capsys.readouterr().err
    assert code == 2 and "cannot reach http://127.0.0.1:9" in err
    code = main(["evaluate", str(otlp_file), "--input-format", "rows", "--no-progress"])
    assert code == 2 and "no question or response column" in capsys.readouterr().err
    code = main(["evaluate", str(otlp_file), "--no-progress", "--trace-map", "documents=VectorStoreRetriever",
                 "--tag", "prod", "--sample", "2", "--seed", "3", "--out", str(tmp_path / "o.json")])
    assert code == 0, capsys.readouterr().err
    d = json.loads((tmp_path / "o.json").read_text())
    assert d["traces"]["mapping"] == {"documents": "VectorStoreRetriever"}
    assert d["traces"]["filtered_out"] == 4 and d["num_samples"] == 2  # 3 tagged prod, 2 drawn
    assert d["traces"]["filter"] == "tagged 'prod', a sample of 2 (seed 3)"


def test_sender_keeps_what_phoenix_accepts(rag_app, tmp_path):
    """Phoenix refuses a whole request for one unknown span or one document position it does not
    have: the sender names it and sends the rest; a refusal for want of a key says so."""
    need("google.protobuf", "opentelemetry.exporter.otlp.proto.common")
    from evaluators.datasets import load_cases
    from evaluators.pipeline import evaluate_batch
    from evaluators.traces import PhoenixSendError, send_to_phoenix

    p = tmp_path / "spans.json"
    p.write_text(otlp_protobuf_json(rag_app.spans), encoding="utf-8")
    run = evaluate_batch(load_cases(p).cases, "trace")
    gone = run.scored[0].case.metadata["root_span_id"]
    short = run.scored[1].case.metadata["retriever_span_ids"][0]

    def answer(path, body):
        ids = {b["span_id"] for b in body["data"]}
        if path.startswith("/v1/span_annotations") and gone in ids:
            return 404, f"Spans with IDs {gone} do not exist."  # Phoenix answers errors in plain text
        if path.startswith("/v1/document_annotations") and any(
                b["span_id"] == short and b["document_position"] == 1 for b in body["data"]):
            return 422, {"detail": f"Document position 1 is out of bounds for span {short} (max: 0)"}
        return 200, {"data": [{"id": "x"}] * len(body["data"])}

    rec = Recorder(answer)
    try:
        report = send_to_phoenix(rec.url, run)
    finally:
        rec.close()
    assert report.unknown_spans == [gone]
    per_span = 6 + 2  # the TRACE metrics, declined and over_refusal (every metric a case has)
    assert report.span_annotations == per_span * (len(run.scored) - 1)  # every other root span
    assert any(f"span {short} has no document at position 1" in x for x in report.problems)
    assert report.document_annotations > 0
    refuse = Recorder(lambda path, body: (401, {"detail": "Unauthorized"}))
    try:
        with pytest.raises(PhoenixSendError, match="needs an API key"):
            send_to_phoenix(refuse.url, run)
    finally:
        refuse.close()

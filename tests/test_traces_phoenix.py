"""The whole loop with a real Phoenix server: the LangChain app's spans (OpenInference + the
OpenTelemetry SDK) reach Phoenix over OTLP/HTTP; the spans are exported with the Phoenix client as a
user would (``get_spans_dataframe()`` -> Parquet / CSV / JSONL), evaluated here, and the scores
go back — as the annotation files the client logs, and sent directly — and are read again from
Phoenix on the right span ids. One server for the session (``tests/trace_fixtures.py``)."""

from __future__ import annotations

import httpx
import pandas as pd
import pytest

from evaluators.datasets import load_cases
from evaluators.pipeline import evaluate_batch
from evaluators.traces import annotation_files, send_to_phoenix
from evaluators.traces.annotations import ROOT_METRICS
from tests.trace_files import check_against_truth, root_ids
from tests.trace_fixtures import PROJECT

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


@pytest.fixture(scope="module")
def export(phoenix):
    """The spans as a user exports them: the client's dataframe."""
    df = phoenix.client().spans.get_spans_dataframe(project_identifier=PROJECT, limit=10_000)
    assert len(df) > 0
    return df


def write(df: pd.DataFrame, path) -> None:
    if path.suffix == ".parquet":
        df.to_parquet(path)
    elif path.suffix == ".csv":
        df.to_csv(path)  # the index (context.span_id) is written too: a repeated column
    else:
        df.to_json(path, orient="records", lines=True, date_format="iso")


@pytest.mark.parametrize("ext", [".parquet", ".csv", ".jsonl"])
def test_phoenix_export_reads_back_what_the_app_sent(export, rag_app, tmp_path, ext):
    p = tmp_path / f"spans{ext}"
    write(export, p)
    res = load_cases(p)
    check_against_truth(res, rag_app, "openinference")
    roots = root_ids(rag_app)
    for c in res.cases:
        assert c.metadata["root_span_id"] == roots[c.id]
        assert c.metadata["start_time"]


@pytest.fixture(scope="module")
def scored(export, tmp_path_factory):
    p = tmp_path_factory.mktemp("px") / "spans.parquet"
    write(export, p)
    run = evaluate_batch(load_cases(p).cases, "trace")
    assert len(run.scored) == 4
    return run


def _graphql(url: str, span_id: str) -> list[dict]:
    q = ("query($id: String!) { getSpanByOtelId(spanId: $id) { documentEvaluations "
         "{ name score label documentPosition } } }")
    r = httpx.post(f"{url}/graphql", json={"query": q, "variables": {"id": span_id}}, timeout=30, trust_env=False)
    r.raise_for_status()
    return r.json()["data"]["getSpanByOtelId"]["documentEvaluations"]


def test_annotation_files_logged_with_the_phoenix_client(phoenix, scored, tmp_path):
    files = annotation_files(scored)
    assert set(files) == {"phoenix_span_annotations.parquet", "phoenix_document_annotations.parquet"}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    spans_df = pd.read_parquet(tmp_path / "phoenix_span_annotations.parquet")
    docs_df = pd.read_parquet(tmp_path / "phoenix_document_annotations.parquet")
    client = phoenix.client()
    client.spans.log_span_annotations_dataframe(dataframe=spans_df, sync=True)
    client.spans.log_document_annotations_dataframe(dataframe=docs_df, sync=True)

    results = {r.case.id: r for r in scored.scored}
    roots = {r.case.metadata["root_span_id"]: r for r in scored.scored}
    got = client.spans.get_span_annotations_dataframe(span_ids=list(roots), project_identifier=PROJECT)
    got = got.reset_index()
    span_col = "span_id" if "span_id" in got else "context.span_id"
    for sid, r in roots.items():
        mine = got[got[span_col] == sid]
        by_name = {row["annotation_name"] if "annotation_name" in mine else row["name"]: row
                   for _, row in mine.iterrows()}
        for metric in ROOT_METRICS:
            assert by_name[metric]["result.score"] == pytest.approx(r.value(metric)), (sid, metric)
            assert by_name[metric]["annotator_kind"] == "CODE"
    france = next(r for r in results.values() if r.case.question.startswith("What is the capital"))
    row = got[(got[span_col] == france.case.metadata["root_span_id"])]
    expl = " ".join(str(x) for x in row["result.explanation"])
    assert "60 million inhabitants" in expl  # the unsupported sentence is named
    assert not set(got[span_col]) - set(roots)  # nothing landed on another span

    for r in scored.scored:  # document annotations on the retriever spans, at each document's rank
        places = r.case.metadata["document_spans"]
        evals = {}
        for sid in r.case.metadata["retriever_span_ids"]:
            for e in _graphql(phoenix.url, sid):
                evals[(sid, e["documentPosition"], e["name"])] = e["score"]
        assert evals, r.case.question
        for where in places:
            for sid, pos in where:
                assert (sid, pos, "context_relevance") in evals
                assert (sid, pos, "context_utilization") in evals


def test_send_to_phoenix_directly(phoenix, scored):
    first = scored.scored[0]
    fake = first.model_copy(update={"case": first.case.model_copy(update={
        "id": "f" * 32, "metadata": {**first.case.metadata, "trace_id": "f" * 32, "root_span_id": "e" * 16}})})
    run = scored.model_copy(update={"results": (*scored.results, fake)})
    report = send_to_phoenix(phoenix.url, run)
    n_root = sum(1 for r in scored.scored for m in ROOT_METRICS if r.value(m) is not None)
    assert report.span_annotations == n_root  # every real one, once more (upserted)
    assert report.unknown_spans == ["e" * 16]  # the span Phoenix does not have is named
    assert report.document_annotations > 0
    assert "not on that server" in report.text()
    client = phoenix.client()
    got = client.spans.get_span_annotations_dataframe(
        span_ids=[r.case.metadata["root_span_id"] for r in scored.scored], project_identifier=PROJECT)
    assert len(got) == n_root  # sending again updated, it did not duplicate


def test_cli_evaluate_to_phoenix(phoenix, export, tmp_path, capsys):
    from evaluators.cli import main

    p = tmp_path / "spans.jsonl"
    write(export, p)
    code = main(["evaluate", str(p), "--no-progress", "--to-phoenix", phoenix.url, "--session", "s-2",
                 "--out", str(tmp_path / "out.json")])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "sent 12 span annotation(s)" in err  # 2 cases of session s-2 x 6 metrics
    assert "left out by the filter" in err

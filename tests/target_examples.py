"""What the tests of the framework examples (docs/examples/targets: LangServe, LlamaIndex, an
OpenAI-compatible server, Haystack) share: serving an ASGI app on 127.0.0.1 (a random port, in a
thread of the test process), an example target file aimed at it, a run of the sample questions,
and the check that the run's retrieval numbers are what the framework's own ids say (pytrec_eval on
the ranking the framework's retriever gives, against the metrics our loader and scoring compute
from the cases file)."""

from __future__ import annotations

import json
import socket
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping
from urllib.parse import urlsplit, urlunsplit

from bench.retrieval_check import trec_measures
from evaluators.datasets import load_cases, load_questions
from evaluators.options import EvalOptions
from evaluators.retrieval import score_cases
from evaluators.sample_app import SAMPLE_QUESTIONS
from evaluators.targets import RunReport, Target, load_target, run_target

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "docs" / "examples" / "targets"
if str(EXAMPLES) not in sys.path:  # the example apps import one another by their plain names
    sys.path.insert(0, str(EXAMPLES))
KS = (1, 3, 5)


@contextmanager
def serve_asgi(app: Any) -> Iterator[str]:
    """``app`` served by uvicorn on 127.0.0.1 (a free port) in a daemon thread; yields its base URL."""
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off", access_log=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="asgi-app", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the app did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def example(name: str) -> Path:
    return EXAMPLES / f"{name}.yaml"


def aimed(name: str, base_url: str | None, tmp_path: Path) -> Path:
    """The example target file ``name``, its URL's host and port those of ``base_url`` (a copy in
    ``tmp_path``; the file itself when it calls Python)."""
    src = example(name)
    if base_url is None:
        return src
    text = src.read_text(encoding="utf-8")
    old = urlsplit(load_target(src).spec.http.url)  # type: ignore[union-attr]
    new = urlsplit(base_url)
    out = tmp_path / src.name
    out.write_text(text.replace(urlunsplit((old.scheme, old.netloc, "", "", "")),
                                urlunsplit((new.scheme, new.netloc, "", "", ""))), encoding="utf-8")
    return out


def questions() -> list[dict[str, Any]]:
    return [json.loads(x) for x in SAMPLE_QUESTIONS.read_text(encoding="utf-8").splitlines() if x.strip()]


def qrels() -> dict[str, dict[str, int]]:
    return {q["id"]: {i: 1 for i in q["reference_context_ids"]} for q in questions() if q.get("reference_context_ids")}


def run(target: Target | Path, out: Path, **kw: Any) -> tuple[RunReport, list[dict[str, Any]]]:
    """The sample questions put to ``target``; (report, the cases file's lines by question order)."""
    t = target if isinstance(target, Target) else load_target(target)
    report = run_target(t, load_questions(SAMPLE_QUESTIONS), out, **kw)
    lines = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    order = {q["id"]: i for i, q in enumerate(questions())}
    return report, sorted(lines, key=lambda x: order[x["id"]])


def our_metrics(cases_file: Path) -> dict[str, dict[str, float]]:
    """Each case's retrieval metrics as ``evaluate`` computes them: the cases file read by the
    dataset loader, matched as the run decides (auto), scored."""
    loaded = load_cases(cases_file)
    assert not loaded.errors, loaded.errors[:3]
    scored = score_cases(loaded.cases, EvalOptions(retrieval_k=KS))
    got = {c.id: {n: v.value for n, v in m.items() if v.value is not None} for c, m in zip(loaded.cases, scored)}
    return {q: m for q, m in got.items() if m}  # a question without references has none


def assert_numbers_are_what_the_ids_say(cases_file: Path, lines: list[dict[str, Any]],
                                        ranked: Mapping[str, list[str]]) -> dict[str, float]:
    """The run wrote the framework's own ids in its order, and every case's retrieval metrics equal
    pytrec_eval's on that ranking. Returns the run's means."""
    assert {x["id"]: x.get("document_ids", []) for x in lines} == dict(ranked)
    assert all(x["metadata"]["error"] is None for x in lines), [x["metadata"]["error"] for x in lines]
    theirs = trec_measures(qrels(), {q: list(ids) for q, ids in ranked.items()}, KS)
    ours = our_metrics(cases_file)
    assert set(ours) == set(theirs)
    for q, want in theirs.items():
        bad = {n: (ours[q].get(n), v) for n, v in want.items() if abs(ours[q].get(n, -1.0) - v) > 1e-9}
        assert not bad, f"{q}: ours vs pytrec_eval {bad}"
    names = next(iter(theirs.values())).keys()
    return {n: sum(m[n] for m in theirs.values()) / len(theirs) for n in names}


def assert_versions_differ(k1: Mapping[str, float], k4: Mapping[str, float]) -> None:
    """Version k = 4 retrieves more of the reference passages than k = 1 (recall@5 higher; @1 equal)."""
    assert k4["recall@5"] > k1["recall@5"], (k1, k4)
    assert k4["hit@1"] == k1["hit@1"], (k1, k4)


def run_two_versions(target_of: Callable[[int], Target | Path], tmp_path: Path,
                     ranked: Callable[[int], Mapping[str, list[str]]]) -> dict[int, tuple[Path, list[dict[str, Any]]]]:
    """Versions k = 1 and k = 4 (``target_of(k)``) each answer all 16 sample questions, their retrieval
    numbers are what the framework's ids say (``ranked(k)``), and k = 4 finds more. Returns each
    version's (cases file, lines) for the framework's own checks."""
    got, means = {}, {}
    for k in (1, 4):
        out = tmp_path / f"k{k}.jsonl"
        report, lines = run(target_of(k), out)
        assert (report.answered, report.failed) == (16, [])
        means[k] = assert_numbers_are_what_the_ids_say(out, lines, ranked(k))
        got[k] = (out, lines)
    assert_versions_differ(means[1], means[4])
    return got

"""CLI: `python -m evaluators evaluate ...` end to end (real trace method) and option handling."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from evaluators import cli
from evaluators.cli import main
from evaluators.methods import BaseMethod
from evaluators.types import LabelOutcome, SentenceLabels, SentenceSupport

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "data" / "sample_rag.jsonl"
SAMPLE_CSV = ROOT / "data" / "sample_rag.csv"
BAD = ROOT / "tests" / "bad_inputs"
KEY_VARS = ("GROQ_API_KEY", "OPENAI_API_KEY", "OPENAI_COMPATIBLE_API_KEY", "RAG_EVAL_BASE_URL")


def run_cli(*args: str, env_extra: dict[str, str] | None = None, timeout: float = 180):
    env = {k: v for k, v in os.environ.items() if k not in KEY_VARS}
    env.update({"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PYTHONIOENCODING": "utf-8"})
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-m", "evaluators", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def no_keys(monkeypatch):
    for k in KEY_VARS:
        monkeypatch.delenv(k, raising=False)


# --- a fast fake method for option tests --------------------------------------------------------

class AllSupported(BaseMethod):
    def __init__(self):
        self.options = []

    def label(self, items, options, tick):
        self.options.append(options)
        return [LabelOutcome(labels=SentenceLabels(
            method="fake", document_keys=it.doc_keys, relevant_keys=it.doc_keys[:1],
            utilized_keys=it.doc_keys[:1],
            sentences=tuple(SentenceSupport(key=k, supporting_keys=it.doc_keys[:1], fully_supported=True)
                            for k in it.response_keys),
            overall_supported=True)) for it in items]


@pytest.fixture
def fake(register_method):
    impl = AllSupported()
    register_method("fake", impl, "Fake")
    register_method("fake_llm", impl, "Fake LLM", needs_llm=True)
    return impl


# --- end to end with the real trace method (subprocess) -------------------------------------------

@pytest.fixture(scope="module")
def heuristic():
    return pytest.importorskip("evaluators.labelers.heuristic")


@pytest.fixture(scope="module")
def e2e(heuristic, tmp_path_factory):
    out = tmp_path_factory.mktemp("cli")
    res = run_cli("evaluate", str(SAMPLE), "--method", "trace", "--out", str(out / "results.json"),
                  "--csv", str(out / "results.csv"))
    return res, out


def test_e2e_exit0_json_and_csv(e2e):
    res, out = e2e
    assert res.returncode == 0, res.stderr
    d = json.loads((out / "results.json").read_text(encoding="utf-8"))
    n = len(SAMPLE.read_text().splitlines())
    assert d["num_samples"] == n and d["num_scored"] == n and d["method"] == "trace"
    for m in ("context_relevance", "context_utilization", "completeness", "adherence", "overall_supported",
              "average"):
        assert isinstance(d[m], float) and 0.0 <= d[m] <= 1.0
    assert d["input_errors"] == []
    assert len(d["detailed_results"]) == n
    first_src = json.loads(SAMPLE.read_text().splitlines()[0])
    det = d["detailed_results"][0]
    for k in ("id", "question", "llm_response", "retrieved_documents", "ground_truth", "metrics", "labels", "error"):
        assert k in det
    assert det["id"] == first_src["id"] and det["question"] == first_src["question"]
    assert det["llm_response"] == first_src["response"]
    assert det["retrieved_documents"] == first_src["documents"]
    assert det["error"] is None and det["human_labels"] == {"hallucinated": first_src["hallucinated"]}
    assert set(det["metrics"]) >= {"context_relevance", "context_utilization", "completeness", "adherence",
                                   "overall_supported", "fully_supported_sentences"}
    assert det["labels"]["document_keys"][0] == "0a"
    mean_adh = sum(r["metrics"]["adherence"] for r in d["detailed_results"]) / n
    assert d["adherence"] == pytest.approx(mean_adh)
    rows = pd.read_csv(out / "results.csv")
    assert len(rows) == n
    assert list(rows["id"]) == [r["id"] for r in d["detailed_results"]]
    assert {"adherence", "context_relevance", "human_hallucinated", "error"} <= set(rows.columns)
    assert rows["adherence"].tolist() == pytest.approx([r["metrics"]["adherence"] for r in d["detailed_results"]])
    # progress bar and summary
    assert "evaluating" in res.stderr and "16/16" in res.stderr
    assert "adherence" in res.stdout


def test_invalid_rows_exit2_still_writes(heuristic, tmp_path, capsys):
    code = main(["evaluate", str(BAD / "empty_response.csv"), "--out", str(tmp_path / "r.json"),
                 "--csv", str(tmp_path / "r.csv"), "--no-progress"])
    assert code == 2
    assert "empty_response.csv, row 2, column 'response': empty value" in capsys.readouterr().err
    d = json.loads((tmp_path / "r.json").read_text())
    assert [r["id"] for r in d["detailed_results"]] == ["1", "3"]
    assert all(r["error"] is None for r in d["detailed_results"])
    assert d["input_errors"] == [{"file": "empty_response.csv", "row": 2, "column": "response",
                                  "message": "empty value",
                                  "error": "empty_response.csv, row 2, column 'response': empty value"}]
    assert len(pd.read_csv(tmp_path / "r.csv")) == 2


BAD_ARGS = [
    (["evaluate", "tests/bad_inputs/nope.jsonl"], "file not found"),
    (["evaluate", "tests/bad_inputs/malformed.json"], "malformed.json: malformed JSON at line 3"),
    (["evaluate", "tests/bad_inputs/missing_response_column.csv"], "column 'response'"),
    (["evaluate", "data/sample_rag.jsonl", "--method", "nope"], "valid: gpt_labeling, hybrid"),
    (["evaluate", "data/sample_rag.jsonl", "--fail-under", "adherence:0.8"], "expected METRIC=VALUE"),
    (["evaluate", "data/sample_rag.jsonl", "--fail-under", "adherance=0.8"], "unknown metric(s) adherance"),
    (["evaluate", "data/sample_rag.jsonl", "--metrics", "faithfulnes"], "unknown metric(s) faithfulnes"),
    (["evaluate", "data/sample_rag.jsonl", "--bogus-flag"], "unrecognized arguments"),
]


@pytest.mark.parametrize("args,fragment", BAD_ARGS[::3])
def test_e2e_bad_input_exit2(args, fragment):
    res = run_cli(*args)
    assert res.returncode == 2, (res.stdout, res.stderr)
    assert fragment in res.stderr


@pytest.mark.parametrize("args,fragment", BAD_ARGS)
def test_bad_input_exit2(args, fragment, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert main(args) == 2
    assert fragment in capsys.readouterr().err


# --- in-process: thresholds and exit code 1 with the real method ------------------------------

def test_exit1_names_each_failed_metric(e2e, capsys):
    res, out = e2e
    d = json.loads((out / "results.json").read_text(encoding="utf-8"))
    hi_adh, lo_comp = d["adherence"] + 0.01, d["completeness"] - 0.01
    code = main(["evaluate", str(SAMPLE_CSV), "--no-progress",
                 "--fail-under", f"adherence={hi_adh}", "--fail-under", f"completeness={lo_comp},average=1.0"])
    assert code == 1
    so = capsys.readouterr().out
    failed = [ln for ln in so.splitlines() if ln.startswith("FAILED")]
    assert len(failed) == 2
    assert failed[0].startswith("FAILED adherence:") and failed[1].startswith("FAILED average:")
    assert f"mean {d['adherence']:.3f}" in failed[0] and f"is below {hi_adh:g}" in failed[0]


# --- helpers ---------------------------------------------------------------------------------------

def test_fail_under_syntax_is_a_usage_error():
    """--fail-under goes through gate.parse_thresholds (the one threshold parser)."""
    from evaluators.cli.evaluate import parse_fail_under

    assert parse_fail_under(["adherence=0.8", "completeness=0.7, average = 0.5", ""]) == {
        "adherence": 0.8, "completeness": 0.7, "average": 0.5}
    for bad in (["adherence"], ["=0.8"], ["adherence="], ["adherence=high"], ["adherence=nan"]):
        with pytest.raises(cli.UsageError, match="--fail-under"):
            parse_fail_under(bad)


# --- in-process: options with a fake method ---------------------------------------------------------

def test_fake_method_run_and_map_override(fake, tmp_path, capsys):
    p = tmp_path / "custom.csv"
    pd.DataFrame({"Frage": ["Was ist X?"], "Antwort": ["X ist Y."], "Kontext": ['["X ist Y. Z auch."]'],
                  "hallucinated": ["false"]}).to_csv(p, index=False)
    assert main(["evaluate", str(p), "--method", "fake", "--no-progress"]) == 2
    assert "no question or response column" in capsys.readouterr().err
    out = tmp_path / "o.json"
    code = main(["evaluate", str(p), "--method", "fake", "--no-progress", "--out", str(out),
                 "--map", "question=Frage", "--map", "response=Antwort", "--map", "documents=Kontext"])
    assert code == 0
    d = json.loads(out.read_text())
    det = d["detailed_results"][0]
    assert det["question"] == "Was ist X?" and det["retrieved_documents"] == ["X ist Y. Z auch."]
    assert det["human_labels"] == {"hallucinated": False}
    assert d["input_mapping"]["format"] == "custom" and d["input_mapping"]["question"] == "Frage"
    assert main(["evaluate", str(p), "--method", "fake", "--map", "questio=Frage"]) == 2
    assert "--map 'questio=Frage'" in capsys.readouterr().err


def test_llm_flags_map_to_settings(fake, no_keys, monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-SECRET-42")
    args = cli.build_parser().parse_args([
        "evaluate", "x.jsonl", "--method", "fake_llm", "--provider", "openai", "--model", "gpt-4o-mini",
        "--base-url", "http://127.0.0.1:9/v1", "--concurrency", "3", "--rpm", "60", "--tpm", "9000",
        "--cache", str(tmp_path / "c.sqlite"), "--timeout", "7.5", "--selective-budget", "4",
        "--selective-share", "0.25", "--jury-models", "m1,groq:m2,llama3:8b"])
    monkeypatch.setenv("GROQ_API_KEY", "gsk-SECRET")
    opts = cli.build_options(args, needs_llm=True)
    llm = opts.llm
    assert (llm.provider, llm.model, llm.base_url, llm.concurrency, llm.rpm, llm.tpm, llm.timeout_s) == (
        "openai", "gpt-4o-mini", "http://127.0.0.1:9/v1", 3, 60, 9000, 7.5)
    assert str(llm.cache_path) == str(tmp_path / "c.sqlite")
    # keys are never copied into settings: the client resolves them by the one rule, and an
    # environment key never goes to a typed --base-url
    from evaluators.llm.keys import resolve_api_key

    assert llm.api_key is None and resolve_api_key(llm) == "not-needed"
    assert (opts.selective_budget, opts.selective_share) == (4, 0.25)
    assert [(j.provider, j.model) for j in opts.jury] == [("openai", "m1"), ("groq", "m2"), ("openai", "llama3:8b")]
    assert {resolve_api_key(j) for j in opts.jury} == {"not-needed"}
    official = llm.model_copy(update={"base_url": None})
    assert resolve_api_key(official) == "sk-test-SECRET-42"
    assert resolve_api_key(official.model_copy(update={"provider": "groq"})) == "gsk-SECRET"
    assert "SECRET" not in json.dumps(opts.public_dict())


def test_no_llm_settings_for_offline_method(fake, no_keys):
    args = cli.build_parser().parse_args(["evaluate", "x.jsonl", "--method", "fake"])
    assert cli.build_options(args, needs_llm=False).llm is None


def test_llm_method_without_key_is_bad_input(fake, no_keys, capsys):
    assert main(["evaluate", str(SAMPLE), "--method", "fake_llm", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "GROQ_API_KEY" in err
    assert main(["evaluate", str(SAMPLE), "--method", "fake_llm", "--provider", "openai_compatible"]) == 2
    assert "needs --base-url" in capsys.readouterr().err
    # a local OpenAI-compatible server needs no key
    assert main(["evaluate", str(SAMPLE), "--method", "fake_llm", "--provider", "openai_compatible",
                 "--base-url", "http://127.0.0.1:9/v1", "--no-progress"]) == 0


@pytest.mark.parametrize("flag", [["--concurrency", "0"], ["--timeout", "0"], ["--selective-share", "1.5"],
                                  ["--selective-budget", "-1"], ["--concurrency", "many"]])
def test_bad_llm_numbers(fake, no_keys, flag, capsys):
    assert main(["evaluate", str(SAMPLE), "--method", "fake", *flag]) == 2


def test_dry_run_prints_estimate_and_never_echoes_key(tmp_path):
    secret = "gsk-THIS-IS-SECRET-987"
    res = run_cli("evaluate", str(SAMPLE), "--method", "gpt_labeling", "--dry-run", "--cache", "",
                  "--out", str(tmp_path / "never.json"), env_extra={"GROQ_API_KEY": secret})
    assert res.returncode == 0, res.stderr
    assert "calls: 16" in res.stdout and "cost_usd" in res.stdout and "prompt_tokens" in res.stdout
    assert secret not in res.stdout + res.stderr
    assert not (tmp_path / "never.json").exists()  # a dry run evaluates nothing


def test_family_metric_threshold(fake, tmp_path, capsys):
    from evaluators.families.base import METRICS

    if "context_length" not in METRICS.names() and "response_length" not in METRICS.names():
        pytest.skip("no offline family metric registered")
    out = tmp_path / "f.json"
    code = main(["evaluate", str(SAMPLE), "--method", "fake", "--no-progress", "--metrics", "duplication",
                 "--out", str(out), "--fail-under", "duplication=0.5"])
    # duplication needs an LLM: skipped for every case, so its threshold cannot pass
    assert code == 1
    assert "FAILED duplication: no scored case has this metric" in capsys.readouterr().out
    d = json.loads(out.read_text())
    assert d["detailed_results"][0]["metric_details"]["duplication"]["skipped"]


def test_help_exit0(capsys):
    assert main(["evaluate", "--help"]) == 0
    h = capsys.readouterr().out
    for flag in ("--fail-under", "--metrics", "--provider", "--dry-run", "--jury-models", "--csv"):
        assert flag in h
    assert main([]) == 2


def test_key_flag_does_not_exist():
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args(["evaluate", "x", "--api-key", "k"])
    assert isinstance(cli.build_parser(), argparse.ArgumentParser)


def test_unwritable_output_is_exit2(fake, tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["evaluate", str(SAMPLE), "--method", "fake", "--no-progress",
                 "--out", str(blocker / "sub" / "r.json")]) == 2
    assert "error:" in capsys.readouterr().err

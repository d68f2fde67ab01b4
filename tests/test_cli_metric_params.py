"""--metric-param / --metric-params reach the family metrics; bad syntax is a usage error."""

from __future__ import annotations

import argparse
import json

import pytest

from evaluators.cli import UsageError, parse_metric_params


def _args(items=(), path=None):
    return argparse.Namespace(metric_param=list(items), metric_params=path)


def test_values_are_json_when_they_parse_else_text():
    got = parse_metric_params(_args(["regex.pattern=[0-9]+", "regex.expected_matches=2",
                                     "contains_text.case_sensitive=true"]))
    assert got == {"regex": {"pattern": "[0-9]+", "expected_matches": 2},
                   "contains_text": {"case_sensitive": True}}


def test_file_then_flags_on_top(tmp_path):
    f = tmp_path / "p.json"
    f.write_text(json.dumps({"response_length": {"min": 10, "max": 50}}))
    got = parse_metric_params(_args(["response_length.max=400"], str(f)))
    assert got == {"response_length": {"min": 10, "max": 400}}


@pytest.mark.parametrize("bad", ["regex", "regex=1", ".pattern=1", "regex.=1"])
def test_bad_syntax_names_the_flag(bad):
    with pytest.raises(UsageError, match="METRIC.KEY=VALUE"):
        parse_metric_params(_args([bad]))


def test_bad_file_is_a_usage_error(tmp_path):
    f = tmp_path / "p.json"
    f.write_text("[1, 2]")
    with pytest.raises(UsageError, match="p.json"):
        parse_metric_params(_args([], str(f)))


def test_cli_end_to_end_regex_param(tmp_path):
    from tests.test_cli import SAMPLE, run_cli

    out = tmp_path / "r.json"
    p = run_cli("evaluate", str(SAMPLE), "--metrics", "regex,response_length", "--no-progress",
                "--metric-param", "regex.pattern=[0-9]+", "--metric-param", "response_length.max=300",
                "--out", str(out))
    assert p.returncode == 0, p.stderr
    d = json.loads(out.read_text())
    for r in d["detailed_results"]:
        det = r["metric_details"]
        assert det["regex"]["skipped"] is None and det["regex"]["value"] in (0.0, 1.0)
        assert det["response_length"]["value"] == float(len(r["llm_response"]) <= 300)

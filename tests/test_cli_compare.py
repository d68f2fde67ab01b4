"""`python -m evaluators compare`: the verdicts it prints, the --json shape, the exit codes (0 ok,
1 --fail-on-regression, 2 bad input) and bad input named clearly (nothing lost: every case that did
not pair is listed)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from evaluators.cli import main
from evaluators.cli.common import write_json
from evaluators.export import to_json_dict
from evaluators.types import TestCase
from tests.ui_fixtures import fake_run

ROOT = Path(__file__).resolve().parents[1]
DOCS = ("Paris is the capital of France. The Seine flows through Paris. Lyon lies on the Rhone.",)
GOOD = "Paris is the capital of France."
BAD = "Dragons guard the golden towers of Marseille."


def cases(prefix: str, answers: list[str], *, questions: list[str] | None = None) -> list[TestCase]:
    qs = questions or [f"Tell me about Paris, number {i}?" for i in range(len(answers))]
    return [TestCase(id=f"{prefix}{i}", question=q, response=a, documents=DOCS)
            for i, (q, a) in enumerate(zip(qs, answers))]


@pytest.fixture
def files(tmp_path, fake_method):
    """main.json: 24 grounded answers; branch.json: the same questions, 10 answers now invented;
    rerun.json: main again; other.json: other questions."""
    def write(name: str, cs: list[TestCase]) -> Path:
        p = tmp_path / f"{name}.json"
        write_json(str(p), to_json_dict(fake_run(cs)))
        return p

    n = 24
    out = {
        "main": write("main", cases("m", [GOOD] * n)),
        "branch": write("branch", cases("b", [BAD if i < 10 else GOOD for i in range(n)])),
        "rerun": write("rerun", cases("m", [GOOD] * n)),
        "other": write("other", cases("o", [GOOD] * 3, questions=["Where is Rome?", "Who?", "Why?"])),
        "partial": write("partial", cases("p", [GOOD] * (n - 2)) + cases("x", [GOOD], questions=["Extra?"])),
    }
    return out


def test_a_worse_candidate_fails_the_gate_with_the_metric_difference_and_interval(files, capsys, tmp_path):
    out = tmp_path / "cmp.json"
    rc = main(["compare", str(files["main"]), str(files["branch"]), "--json", str(out),
               "--fail-on-regression", "adherence=0.1"])
    printed = capsys.readouterr()
    assert rc == 1
    assert "Cases paired by question text" in printed.out
    assert "branch is worse than main on adherence by 0.42" in printed.out
    assert "REGRESSION: branch is worse than main on adherence by more than 0.1: branch − main = -0.4167" \
        in printed.err and "95 % CI" in printed.err
    data = json.loads(out.read_text())
    assert data["metric"] == "adherence" and data["matched_on"] == "question"  # ui_fake runs: adherence
    assert {"name", "n_cases", "mean", "ci_low", "ci_high", "rank"} <= set(data["runs"][0])
    pair = data["pairs"][0]
    assert {"a", "b", "n_matched", "diff", "ci_low", "ci_high", "p_value", "p_adjusted", "verdict", "wins", "ties",
            "losses", "regressions", "improvements"} <= set(pair)
    assert (pair["a"], pair["b"], pair["n_matched"], pair["verdict"]) == ("main", "branch", 24, "a_better")
    assert (pair["wins"], pair["ties"], pair["losses"]) == (0, 14, 10)
    assert len(pair["regressions"]) == 10 and pair["regressions"][0]["a"] == 1.0
    assert {"question", "a_id", "b_id", "a", "b"} <= set(pair["regressions"][0])
    assert pair["regressions"][0]["lost_support"][0]["sentence"] == BAD
    assert data["unmatched"] == {"main": [], "branch": []}
    assert "expected_adherence" in data["other_metrics"]


def test_a_larger_delta_passes(files, capsys):
    assert main(["compare", str(files["main"]), str(files["branch"]), "--fail-on-regression", "adherence=0.9"]) == 0
    assert "no regression beyond the thresholds" in capsys.readouterr().err


def test_an_identical_rerun_is_never_a_regression(files, capsys):
    rc = main(["compare", str(files["main"]), str(files["rerun"]), "--fail-on-regression", "adherence=0",
               "--fail-on-regression", "expected_adherence=0"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "Cases paired by case id" in out and "give the same adherence on all 24 paired questions" in out


def test_three_files_get_a_leaderboard_and_corrected_p_values(files, capsys, tmp_path):
    out = tmp_path / "three.json"
    rc = main(["compare", str(files["main"]), str(files["rerun"]), str(files["branch"]), "--metric", "adherence",
               "--json", str(out)])
    text = capsys.readouterr().out
    assert rc == 0
    assert "Leaderboard on adherence" in text and "Holm" in text
    data = json.loads(out.read_text())
    assert [r["rank"] for r in data["runs"]] == [1, 1, 3] and len(data["pairs"]) == 3
    assert data["correction"] == "holm" and data["other_metrics"] == {}


def test_unpaired_cases_are_listed_never_dropped(files, capsys, tmp_path):
    out = tmp_path / "p.json"
    assert main(["compare", str(files["main"]), str(files["partial"]), "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["unmatched"] == {"main": ["m22", "m23"], "partial": ["x0"]}
    assert "m22, m23" in capsys.readouterr().out


@pytest.mark.parametrize("args, message", [
    (["{main}"], "compare needs at least two results files"),
    (["{main}", "{other}"], "main and other share no case"),
    (["{main}", "{branch}", "--metric", "faithfulness"], "no run has the metric 'faithfulness'"),
    (["{main}", "{branch}", "--fail-on-regression", "adherence"], "expected METRIC=DELTA"),
    (["{main}", "{branch}", "--fail-on-regression", "adherence=-1"], "DELTA a number >= 0"),
    (["{main}", "{missing}"], "missing.json: cannot read"),
    (["{main}", "{sample}"], "sample_rag.jsonl: not a results file"),
])
def test_bad_input_exits_2_with_a_clear_message(files, capsys, args, message):
    paths = {**{k: str(v) for k, v in files.items()}, "missing": str(files["main"].parent / "missing.json"),
             "sample": str(ROOT / "data" / "sample_rag.jsonl")}
    assert main(["compare", *[a.format(**paths) for a in args]]) == 2
    assert message in capsys.readouterr().err


def test_the_entry_point_runs_in_a_fresh_process(files):
    """The real `python -m evaluators compare` (exit code through the process)."""
    p = subprocess.run([sys.executable, "-m", "evaluators", "compare", str(files["main"]), str(files["branch"]),
                        "--fail-on-regression", "adherence=0.1", "--top", "2"],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.returncode == 1, p.stderr
    assert re.search(r"Regressions of branch against main on adherence, worst first \(2 of \d+ listed", p.stdout)


def test_runs_of_an_app_are_named_by_their_target_not_the_output_files_name(tmp_path, fake_method, capsys):
    """Issue 56 item 10: the answers of `run --target` compared by their files read "answers_0712 is
    worse than answers_0711"; each is named by the target its cases name (the runner's record)."""
    def write(name: str, target: str, answers: list[str]) -> Path:
        cs = [c.model_copy(update={"metadata": {"target": target, "latency_s": 0.1 + i / 100}})
              for i, c in enumerate(cases("q", answers))]
        p = tmp_path / f"{name}.json"
        write_json(str(p), to_json_dict(fake_run(cs)))
        return p

    a = write("answers_0711", "v1", [GOOD] * 12)
    b = write("answers_0712", "v2", [BAD if i < 6 else GOOD for i in range(12)])
    main(["compare", str(a), str(b)])
    out = capsys.readouterr().out
    assert "v2 is worse than v1" in out and "answers_07" not in out, out
    # two files of one target (main and a branch of one app): told apart by their files' names
    c = write("answers_0713", "v2", [GOOD] * 12)
    main(["compare", str(b), str(c)])
    out = capsys.readouterr().out
    assert "answers_0713 is better than answers_0712" in out, out

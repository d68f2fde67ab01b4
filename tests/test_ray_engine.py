"""engine="ray": the offline labeler on a local Ray instance with two workers — the same results
as a local run, in input order (Ray is installed by requirements-dev.txt; skipped without it)."""

from __future__ import annotations

import pytest

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install -r requirements-ray.txt)")

from evaluators import TestCase, evaluate_batch  # noqa: E402


def _cases(n: int = 24) -> list[TestCase]:
    out = []
    for i in range(n):
        doc = (f"The museum of Town{i % 5} opened in {1900 + i}. It holds {10 + i} paintings. "
               f"Entry is free on Sundays.")
        resp = (f"The museum opened in {1900 + i}. It holds {10 + 2 * i} paintings."
                if i % 3 else "Thank you. The documents do not mention the opening hours.")
        out.append(TestCase(id=f"c{i}", question=f"When did the museum of Town{i % 5} open?",
                            documents=(doc,), response=resp))
    out.append(TestCase(id="empty", question="q?", documents=("d.",), response="  "))
    return out


@pytest.fixture(scope="module")
def local_ray():
    from evaluators.engines.ray_engine import ensure_ray

    ensure_ray(num_cpus=2)
    yield ray
    ray.shutdown()


def _comparable(run):
    return [r.model_dump(exclude={"seconds"}) for r in run.results]


def test_ray_results_identical_to_local_and_in_order(local_ray):
    cases = _cases()
    local = evaluate_batch(cases, "trace", chunk_size=5)
    seen = []
    distributed = evaluate_batch(cases, "trace", chunk_size=5, engine="ray",
                                 progress=lambda d, t: seen.append((d, t)))
    assert [r.case.id for r in distributed.results] == [c.id for c in cases]
    assert _comparable(distributed) == _comparable(local)
    assert distributed.results[-1].error and "empty" in distributed.results[-1].error
    assert seen[-1] == (len(cases), len(cases))
    assert int(ray.cluster_resources().get("CPU", 0)) == 2


def test_ray_refuses_llm_methods(local_ray):
    with pytest.raises(ValueError, match="offline"):
        evaluate_batch(_cases(3), "gpt_labeling", engine="ray")


def test_unknown_engine():
    with pytest.raises(ValueError, match="engine"):
        evaluate_batch(_cases(1), "trace", engine="spark")

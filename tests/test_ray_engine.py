"""engine="ray": the offline labeler on a local Ray instance with two workers — the same results
as a local run, in input order, from chunks of cases and from a file read by Ray Data in blocks and
written as it comes (Ray is installed by requirements-dev.txt; skipped without it). The instance
listens on 127.0.0.1 only: every node's address and every listening socket of its processes."""

from __future__ import annotations

import pytest

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install -r requirements-ray.txt)")

import json  # noqa: E402
import os  # noqa: E402
from pathlib import Path  # noqa: E402

from evaluators import TestCase, evaluate_batch  # noqa: E402

pytestmark = pytest.mark.slow  # a local Ray instance and its actor pools: ~40 s in all


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


# ---- loopback only ------------------------------------------------------------------------------------
def _descendants(pid: int) -> set[int]:
    parents: dict[int, int] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            parents[int(d.name)] = int(stat[stat.rindex(")") + 2:].split()[1])
    out, todo = set(), [pid]
    while todo:
        p = todo.pop()
        kids = [c for c, pp in parents.items() if pp == p and c not in out]
        out.update(kids)
        todo.extend(kids)
    return out


def _is_ray(pid: int) -> bool:
    """A process of Ray's (its GCS, raylet, dashboard, workers): named so in its command line."""
    import re

    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return False
    return bool(re.search(r"raylet|gcs_server|ray::|[/ ]ray[/ ]|site-packages/ray/", cmd))


def _listening(pids: set[int]) -> list[tuple[int, str]]:
    """(pid, local address) of every listening TCP socket of ``pids`` (from /proc, no tools needed)."""
    import ipaddress

    inodes: dict[str, str] = {}
    for table, v6 in (("/proc/net/tcp", False), ("/proc/net/tcp6", True)):
        for line in Path(table).read_text().splitlines()[1:]:
            f = line.split()
            if f[3] != "0A":  # LISTEN
                continue
            hexip = f[1].split(":")[0]
            raw = bytes.fromhex(hexip)
            raw = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))
            ip = ipaddress.ip_address(raw)
            if v6 and ip.ipv4_mapped:
                ip = ip.ipv4_mapped
            inodes[f[9]] = str(ip)
    out = []
    for pid in pids:
        try:
            fds = list(Path(f"/proc/{pid}/fd").iterdir())
        except OSError:
            continue
        for fd in fds:
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.startswith("socket:[") and target[8:-1] in inodes:
                out.append((pid, inodes[target[8:-1]]))
    return out


def test_the_local_instance_listens_on_loopback_only(local_ray):
    nodes = local_ray.nodes()
    assert nodes and {n["NodeManagerAddress"] for n in nodes} == {"127.0.0.1"}
    # Ray's own processes only: other servers this worker started for other test files (a session's
    # Phoenix, whose gRPC receiver listens on all interfaces) are not the Ray instance under test
    socks = _listening({p for p in _descendants(os.getpid()) if _is_ray(p)} | {os.getpid()})
    assert len(socks) >= 3  # the GCS, the raylet, the workers
    assert {ip for _, ip in socks} <= {"127.0.0.1"}, socks


# ---- a file, read by Ray Data in blocks -----------------------------------------------------------------
def test_a_file_streamed_through_ray_gives_the_local_results_and_row_errors(local_ray, tmp_path):
    from evaluators.resultfiles import evaluate_file, iter_case_dicts

    cases = _cases(30)
    rows = [{"id": c.id, "question": c.question, "response": c.response, "documents": list(c.documents)}
            for c in cases]
    rows[7]["id"] = rows[2]["id"]  # a duplicate id in another block: renamed, with a warning
    src = tmp_path / "cases.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows) + "{broken\n", encoding="utf-8")
    local = evaluate_file(src, out=tmp_path / "local.jsonl", chunk_rows=6)
    seen = []
    ray_run = evaluate_file(src, out=tmp_path / "ray.jsonl", chunk_rows=6, engine="ray",
                            progress=lambda d, t: seen.append(d))

    def strip(p):
        return [{k: v for k, v in c.items() if k != "seconds"} for c in iter_case_dicts(p)]

    assert strip(tmp_path / "ray.jsonl") == strip(tmp_path / "local.jsonl")
    assert len(strip(tmp_path / "ray.jsonl")) == 30  # the blank response of _cases is a row error (row 31)
    for k in ("input_errors", "input_warnings", "adherence", "intervals", "num_samples", "num_scored"):
        assert ray_run.top[k] == local.top[k], k
    assert any("row 31" in e["error"] for e in ray_run.top["input_errors"])
    assert any("duplicate id" in w["error"] for w in ray_run.top["input_warnings"])
    assert seen[-1] == 30 and len(set(seen)) > 2  # progress as the blocks come

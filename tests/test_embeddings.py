"""The process-wide embedding encoder (real embedded MiniLM, loaded once per process)."""

from __future__ import annotations

import numpy as np
import pytest

from evaluators.encoder import embeddings as E
from evaluators.encoder import precision as P


@pytest.fixture(scope="session")
def model():
    return E.get_model()


def test_import_is_lazy():
    import subprocess
    import sys

    code = ("import sys, evaluators, evaluators.encoder.embeddings, evaluators.labelers.heuristic; "
            "print('torch' in sys.modules, 'sentence_transformers' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_encode_normalised_and_semantic(model):
    v = E.encode(["The cat sat on the mat.", "A cat is sitting on a rug.", "Quarterly revenue rose 8%."])
    assert v.shape == (3, E.dimension()) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-4)
    assert float(v[0] @ v[1]) > float(v[0] @ v[2]) + 0.3


def test_unique_texts_encoded_once_and_cached(model):
    texts = [f"unique sentence number {i} about dedup" for i in range(5)]
    before = dict(E.stats)
    v = E.encode(texts + texts[::-1] + texts[:2])
    assert E.stats["model_calls"] - before["model_calls"] == 1
    assert E.stats["texts_encoded"] - before["texts_encoded"] == 5
    assert np.allclose(v[0], v[9]) and np.allclose(v[4], v[5])
    mid = dict(E.stats)
    v2 = E.encode(texts[::-1])  # all cached: no model call
    assert E.stats["model_calls"] == mid["model_calls"]
    assert np.allclose(v2[0], v[4])
    E.encode(texts + ["one brand new sentence for the encoder"])
    assert E.stats["model_calls"] - mid["model_calls"] == 1
    assert E.stats["texts_encoded"] - mid["texts_encoded"] == 1


def test_empty_input(model):
    assert E.encode([]).shape == (0, E.dimension())


def test_cpu_flag_detection(tmp_path):
    no = tmp_path / "cpuinfo_no"
    no.write_text("processor\t: 0\nflags\t\t: fpu sse sse2 avx avx2 avx512f\n")
    yes = tmp_path / "cpuinfo_yes"
    yes.write_text("processor\t: 0\nflags\t\t: fpu sse avx512f avx512_bf16 amx_tile\n")
    assert P.cpu_has_bf16(str(no)) is False
    assert P.cpu_has_bf16(str(yes)) is True
    assert P.cpu_has_bf16(str(tmp_path / "missing")) is False


def test_bf16_fallback_decisions(model, monkeypatch):
    monkeypatch.delenv("RAG_EVAL_PRECISION", raising=False)
    monkeypatch.setenv("RAG_EVAL_BF16", "0")
    assert E.decide_bf16(model) is False
    assert "RAG_EVAL_BF16" in E.info()["bf16_check"]["reason"]
    monkeypatch.setenv("RAG_EVAL_BF16", "1")
    monkeypatch.setattr(E, "bf16_quality", lambda m: 0.95)  # bf16 would lose quality
    assert E.decide_bf16(model) is False
    assert "0.95" in E.info()["bf16_check"]["reason"]

    def broken(m):
        raise RuntimeError("no bf16 kernels")

    monkeypatch.setattr(E, "bf16_quality", broken)
    assert E.decide_bf16(model) is False
    assert "failed" in E.info()["bf16_check"]["reason"]


def test_bf16_matches_fp32_when_available(model):
    if not P.cpu_has_bf16():
        pytest.skip("CPU has no native bf16")
    q = E.bf16_quality(model)
    assert q >= E.BF16_MIN_COSINE, f"bf16 vectors drift from fp32 (min cosine {q:.4f})"


def test_fp32_path_gives_same_neighbours(model):
    texts = ["Paris is the capital of France.", "The French capital is Paris.",
             "Bananas are rich in potassium."]
    was = E.backend()
    try:
        E.set_bf16(False)
        a = E.encode(texts)
        E.set_bf16(True)
        b = E.encode(texts)
    finally:
        E.set_backend(was)
    assert np.min(np.sum(a * b, axis=1)) > 0.99
    assert float(a[0] @ a[1]) > float(a[0] @ a[2])

"""The process-wide embedding encoder (real embedded MiniLM, loaded once per process)."""

from __future__ import annotations

import numpy as np
import pytest

from evaluators.encoder import backends as B
from evaluators.encoder import embeddings as E
from evaluators.encoder import precision as P


@pytest.fixture(scope="session")
def model():
    return E.load()


def test_import_is_lazy():
    import subprocess
    import sys

    code = ("import sys, evaluators, evaluators.encoder.embeddings, evaluators.labelers.heuristic; "
            "print('torch' in sys.modules, 'sentence_transformers' in sys.modules, 'onnxruntime' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False", "False"]


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


def test_cpu_signature_names_model_flags_and_cpus(tmp_path):
    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nmodel name\t: Test CPU 9000\nflags\t\t: fpu sse avx2 fma avx512f amx_tile\n")
    sig = P.cpu_signature(str(info))
    assert sig.startswith("Test CPU 9000 | avx2,fma,avx512f,amx_tile | ") and sig.endswith(" cpus")
    other = tmp_path / "cpuinfo2"
    other.write_text("processor\t: 0\nmodel name\t: Test CPU 9000\nflags\t\t: fpu sse avx2 fma\n")
    assert P.cpu_signature(str(other)) != sig  # same model name, other kernels: measured again
    assert P.cpu_signature(str(tmp_path / "missing")).startswith("unknown | none | ")


def test_requested_backend_names(monkeypatch):
    for value, want in (("", "auto"), ("int8", "onnx-int8"), ("onnx", "onnx-fp32"), ("fp32", "torch-fp32"),
                        ("bf16", "torch-bf16")):
        monkeypatch.setenv("RAG_EVAL_PRECISION", value)
        assert P.requested() == want
    monkeypatch.setenv("RAG_EVAL_PRECISION", "fp8")
    with pytest.raises(ValueError, match="RAG_EVAL_PRECISION"):
        P.requested()


def test_torch_backends_agree_with_the_chosen_backend(model):
    """Whatever backend was chosen, torch fp32 and bf16 (when the torch extra is installed) give
    the same neighbours on real sentences (min cosine >= the guard)."""
    pytest.importorskip("torch")
    pytest.importorskip("sentence_transformers")
    texts = ["Paris is the capital of France.", "The French capital is Paris.",
             "Bananas are rich in potassium."]
    chosen = E.encode(texts, use_cache=False)
    for bf16 in (False, True):
        v = B.torch_encode(B.torch_model(), texts, bf16)
        assert np.min(np.sum(chosen * v, axis=1)) > B.MIN_COSINE

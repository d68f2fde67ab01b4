"""The encoder backends: the locally built ONNX graph against the sentence-transformers model,
the int8 quality guard and its fall-backs, batch independence, and a torch-free start."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("onnxruntime", reason="onnxruntime is not installed")

from evaluators.encoder import embeddings as E
from evaluators.encoder import onnx_graph as O
from evaluators.encoder import precision as P

TEXTS = ["Thank you.", "The Eiffel Tower was completed in 1889.", "Revenue rose 12% in 2023.",
         "Paris is the capital of France.", "Bananas are rich in potassium.",
         "The documents do not mention the opening hours of the museum on Sundays."]


@pytest.fixture(scope="module")
def built():
    folder, meta = E._onnx_meta()  # builds once per machine (user cache dir), then reused
    return folder, meta


def test_onnx_graphs_match_the_torch_model(built):
    folder, meta = built
    ref = E._raw_encode(E.get_model(), TEXTS, bf16=False)
    fp32 = O.OnnxEncoder(folder / "minilm-fp32.onnx").encode(TEXTS)
    int8 = O.OnnxEncoder(folder / "minilm-int8.onnx").encode(TEXTS)
    assert np.min(np.sum(ref * fp32, axis=1)) > 0.9999  # same arithmetic
    assert np.min(np.sum(ref * int8, axis=1)) >= E.MIN_COSINE
    assert meta["min_cosine_fp32"] > 0.9999 and len(meta["reference"]) == len(E._CHECK_SENTENCES)


def test_vectors_do_not_depend_on_the_batch(built):
    folder, _ = built
    enc = O.OnnxEncoder(folder / "minilm-int8.onnx")
    together = enc.encode(TEXTS * 3)
    alone = np.stack([enc.encode([t])[0] for t in TEXTS])
    assert np.allclose(together[: len(TEXTS)], alone, atol=1e-6)
    assert np.array_equal(together[: len(TEXTS)], together[len(TEXTS): 2 * len(TEXTS)])


def test_data_parallel_sessions_give_the_single_session_vectors_in_input_order(built, monkeypatch):
    """One single-threaded session per core, taking batches from a shared list: the same vectors
    (same graph, batches of one token length) in input order, whatever session ran a batch."""
    folder, _ = built
    monkeypatch.setenv("OMP_NUM_THREADS", "3")  # three sessions, more batches than sessions
    texts = [f"{t} Record {i}: " + "word " * (i % 17) for i, t in enumerate(TEXTS * 12)]
    monkeypatch.setattr(O, "BATCH_TOKENS", 64)  # many small batches, so every session gets some
    par = O.OnnxEncoder(folder / "minilm-int8.onnx", data_parallel=True)
    one = O.OnnxEncoder(folder / "minilm-int8.onnx", data_parallel=False)
    assert len(par.sessions) == 3 and len(one.sessions) == 1
    a, b = par.encode(texts), one.encode(texts)
    assert np.allclose(a, b, atol=1e-5)
    assert np.allclose(a[5], one.encode([texts[5]])[0], atol=1e-5)  # row i is text i
    assert par.encode([]).shape == (0, O.HIDDEN)
    # a server being stopped: no new threads may start, the batches are encoded here instead
    par._pool.shutdown()
    assert np.allclose(par.encode(texts), b, atol=1e-5)


def _fresh_choice(monkeypatch, **env):
    for k in ("RAG_EVAL_PRECISION", "RAG_EVAL_BF16"):
        monkeypatch.delenv(k, raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setattr(E, "_backend", None)
    monkeypatch.setattr(E, "_onnx", None)
    monkeypatch.setattr(E, "_decision", {})
    return E.load()


def test_auto_choice_and_guard_fallbacks(built, monkeypatch):
    folder, meta = built
    was = E.backend()
    try:
        monkeypatch.setattr(P, "cpu_flags", lambda cpuinfo="/proc/cpuinfo": {"avx2"})
        chosen = _fresh_choice(monkeypatch)
        assert chosen in ("onnx-int8", "onnx-fp32")
        assert "no native bf16" in E.info()["decision"]["reason"]
        # int8 that lost quality when built: onnx-fp32, and the reason is said
        bad = dict(meta, min_cosine_int8=0.95)
        monkeypatch.setattr(E, "_onnx_meta", lambda: (folder, bad))
        assert _fresh_choice(monkeypatch) == "onnx-fp32"
        assert "int8 min cosine 0.9500 < 0.99" in E.info()["decision"]["reason"]
        # int8 not faster on this CPU: onnx-fp32
        slow = dict(meta, cpu_s_int8=2.0, cpu_s_fp32=1.0)
        monkeypatch.setattr(E, "_onnx_meta", lambda: (folder, slow))
        assert _fresh_choice(monkeypatch) == "onnx-fp32"
        assert "not faster" in E.info()["decision"]["reason"]
        # a stored reference the graph no longer matches (runtime check): torch fp32
        wrong = dict(meta, reference=(-np.asarray(meta["reference"])).tolist())
        monkeypatch.setattr(E, "_onnx_meta", lambda: (folder, wrong))
        assert _fresh_choice(monkeypatch) == "torch-fp32"
        assert "onnx-fp32 min cosine" in E.info()["decision"]["reason"]
        # forced fp32 stays on torch
        assert _fresh_choice(monkeypatch, RAG_EVAL_PRECISION="fp32") == "torch-fp32"
        with pytest.raises(ValueError, match="RAG_EVAL_PRECISION"):
            _fresh_choice(monkeypatch, RAG_EVAL_PRECISION="fp8")
    finally:
        monkeypatch.undo()
        E.set_backend(was)


def test_onnx_start_does_not_import_torch(built):
    code = ("import sys, json; from evaluators.encoder import embeddings as E; E.encode(['hello world']); "
            "print(json.dumps([E.backend(), 'torch' in sys.modules]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    backend, torch_loaded = json.loads(out.stdout.strip().splitlines()[-1])
    if backend.startswith("onnx"):
        assert torch_loaded is False


def test_cross_encoder_int8_guard(monkeypatch, tmp_path):
    """The cross-encoder gets the same policy: int8 only when it keeps the check probabilities."""
    torch = pytest.importorskip("torch")
    from sentence_transformers import CrossEncoder
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    from evaluators.encoder import cross_encoder as CE

    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + sorted(set(
        " ".join(p + " " + h for p, h in CE.CHECK_PAIRS).lower().replace(".", " .").split()))
    (tmp_path / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    cfg = BertConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                     intermediate_size=64, num_labels=3,
                     id2label={0: "contradiction", 1: "entailment", 2: "neutral"},
                     label2id={"contradiction": 0, "entailment": 1, "neutral": 2})
    torch.manual_seed(0)
    BertForSequenceClassification(cfg).save_pretrained(str(tmp_path))
    BertTokenizerFast.from_pretrained(str(tmp_path)).save_pretrained(str(tmp_path))  # not vocab_file=
    ce = CrossEncoder(str(tmp_path), device="cpu")
    monkeypatch.delenv("RAG_EVAL_PRECISION", raising=False)
    monkeypatch.setattr(P, "cpu_flags", lambda cpuinfo="/proc/cpuinfo": {"avx2"})
    monkeypatch.setattr(P, "cpu_seconds", lambda fn, rounds=2: (fn(), 1.0)[1])
    monkeypatch.setattr(CE, "MAX_PROB_DIFF", 1.0)  # any drift allowed: ties on time
    assert CE.prepare(ce, "tiny") is ce  # equal CPU time: not faster, kept
    assert "not faster" in CE.decisions["tiny"]["reason"]
    monkeypatch.setenv("RAG_EVAL_PRECISION", "int8")  # forced: only the quality guard applies
    q = CE.prepare(ce, "tiny")
    assert q is not ce and CE.decisions["tiny"]["precision"] == "int8"
    assert any("quantized" in type(m).__module__ for m in q.modules())
    assert not any("quantized" in type(m).__module__ for m in ce.modules())  # original untouched
    monkeypatch.setattr(CE, "MAX_PROB_DIFF", -1.0)  # no drift allowed: fp32 kept
    assert CE.prepare(ce, "tiny") is ce
    assert "moved a check probability" in CE.decisions["tiny"]["reason"]
    monkeypatch.setenv("RAG_EVAL_PRECISION", "fp32")
    assert CE.prepare(ce, "tiny") is ce

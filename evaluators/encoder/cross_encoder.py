"""The one loader and reader of an optional cross-encoder (sentence-transformers ``CrossEncoder``),
used by the ``trace`` labeler's NLI plug-in (``heuristic["cross_encoder"]``) and by the family
metrics' ``cross_encoder`` parameter.

* **Never downloads**: the name is a local folder or a model already in the Hugging Face cache
  (``local_files_only=True``); anything else is a :class:`CrossEncoderUnavailable` naming it.
* One copy per name and process, with the same int8 policy as the bi-encoder (:func:`prepare`:
  torch dynamic quantization only when it keeps the check probabilities and is measured faster).
* Needs the torch extra (``pip install -r requirements-torch.txt``); without it, a clear
  :class:`~evaluators.encoder.precision.TorchExtraMissing` says so.
* One reading of the output, :func:`probabilities`: the raw logits (no activation of the model's
  own), then P(entailment) by the label named like "entail" in ``id2label`` for a classifier
  (softmax), the last column of a two-class head without such a label, or the sigmoid of a
  single-logit head (an STS / relevance cross-encoder).
"""

from __future__ import annotations

import logging
import threading
from typing import Any, Sequence

import numpy as np

from . import precision

log = logging.getLogger(__name__)
_lock = threading.Lock()
_cache: dict[str, Any] = {}


class CrossEncoderUnavailable(RuntimeError):
    """The named cross-encoder is neither a local folder nor in the local model cache."""


def load(name: str) -> Any:
    """The process-wide model of ``name`` (loaded once, never downloaded)."""
    with _lock:
        if name not in _cache:
            precision.need_torch(f"the cross-encoder {name!r}")
            from sentence_transformers import CrossEncoder

            try:
                model = CrossEncoder(name, device="cpu", local_files_only=True)
            except Exception as exc:  # noqa: BLE001 - OSError, ValueError, HF errors: all "not here"
                raise CrossEncoderUnavailable(
                    f"cannot load cross-encoder {name!r} (a local folder or a model already in the "
                    f"Hugging Face cache; nothing is downloaded): {type(exc).__name__}: {exc}") from None
            _cache[name] = prepare(model, name)
        return _cache[name]


def logits(model: Any, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
    """Raw scores, shape (n,) or (n, labels), whatever activation the model was saved with."""
    import torch

    out = model.predict(list(pairs), activation_fn=torch.nn.Identity(), apply_softmax=False,
                        show_progress_bar=False)
    return np.asarray(out, dtype=np.float64)


def entailment_column(model: Any, n_labels: int) -> int:
    """Index of the entailment label (``id2label``), else the last of two columns, else 1."""
    config = getattr(getattr(model, "model", None), "config", None)
    id2label = getattr(config, "id2label", None) or {}
    idx = next((int(i) for i, lab in id2label.items() if "entail" in str(lab).lower()), None)
    if idx is None or idx >= n_labels:
        idx = n_labels - 1 if n_labels == 2 else 1
    return idx


def probabilities(name: str, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
    """P(entailment / relevant) in [0, 1] of each (premise, hypothesis) pair."""
    if not pairs:
        return np.zeros(0)
    model = load(name)
    raw = logits(model, pairs)
    if raw.ndim == 1 or raw.shape[1] == 1:
        return 1.0 / (1.0 + np.exp(-raw.reshape(-1)))
    ex = np.exp(raw - raw.max(axis=1, keepdims=True))
    probs = ex / ex.sum(axis=1, keepdims=True)
    return probs[:, entailment_column(model, probs.shape[1])]


# ---------------------------------------------------------------- precision (int8 guard)
#: Fixed (premise, hypothesis) pairs of the cross-encoder guard.
CHECK_PAIRS = (
    ("The Eiffel Tower was completed in 1889.", "The tower was finished in 1889."),
    ("The Eiffel Tower was completed in 1889.", "The tower was finished in 1925."),
    ("Revenue grew 12% year over year.", "Revenue fell last year."),
    ("She did not attend the meeting on Tuesday.", "She attended the meeting."),
    ("Entry is free on the first Sunday of each month.", "The museum has a café."),
    ("The patient was given 5 mg of the drug twice a day.", "The dose was 10 mg per day."),
    ("Hours: Monday 8:00-14:00, closed on Sunday.", "It is open on Monday morning."),
    ("Photosynthesis converts light energy into chemical energy.", "Plants turn light into energy."),
)
#: int8 cross-encoder kept only when no check-pair probability moves more than this.
MAX_PROB_DIFF = 0.02
decisions: dict[str, dict[str, Any]] = {}


def _softmax(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 1:
        return 1.0 / (1.0 + np.exp(-x))
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def prepare(model: Any, name: str = "") -> Any:
    """The same policy as the bi-encoder for a sentence-transformers ``CrossEncoder``, measured on
    this machine: an int8 copy (torch dynamic quantization of its Linear layers) when it keeps every
    check-pair probability within :data:`MAX_PROB_DIFF` and takes less CPU time; otherwise the model
    unchanged. ``RAG_EVAL_PRECISION`` = fp32 / onnx-fp32 / bf16 keeps it as it is, ``int8`` skips the
    speed test. The choice and its reason go to ``decisions[name]``."""
    decision: dict[str, Any] = {"precision": "fp32"}
    decisions[name] = decision
    req = precision.requested()
    if req in ("torch-fp32", "onnx-fp32", "torch-bf16"):
        decision["reason"] = f"{req} requested: kept as is"
        return model
    try:
        import copy

        import torch

        if not isinstance(model, torch.nn.Module) or not hasattr(model, "predict"):
            decision["reason"] = "not a sentence-transformers CrossEncoder"
            return model
        ce: Any = model  # a CrossEncoder (predict), whatever nn.Module narrowing says
        pairs = list(CHECK_PAIRS)
        kw = dict(activation_fn=torch.nn.Identity(), apply_softmax=False, show_progress_bar=False)
        with torch.inference_mode():
            p32 = _softmax(ce.predict(pairs, **kw))
            q: Any = torch.ao.quantization.quantize_dynamic(copy.deepcopy(ce), {torch.nn.Linear},
                                                            dtype=torch.qint8, inplace=True)
            p8 = _softmax(q.predict(pairs, **kw))
            t32 = precision.cpu_seconds(lambda: ce.predict(pairs * 4, **kw))
            t8 = precision.cpu_seconds(lambda: q.predict(pairs * 4, **kw))
    except Exception as exc:  # noqa: BLE001 - quantization unavailable: keep fp32, say why
        decision["reason"] = f"int8 failed: {type(exc).__name__}: {exc}"
        return model
    diff = float(np.max(np.abs(p8 - p32)))
    decision.update({"max_prob_diff": round(diff, 4), "cpu_s_fp32": round(t32, 4), "cpu_s_int8": round(t8, 4)})
    if diff > MAX_PROB_DIFF:
        decision["reason"] = f"int8 moved a check probability by {diff:.3f} > {MAX_PROB_DIFF}"
        return model
    if req != "onnx-int8" and t8 > precision.INT8_MAX_TIME_RATIO * t32:
        decision["reason"] = f"int8 not faster ({t8:.3f}s vs {t32:.3f}s CPU time)"
        return model
    decision.update({"precision": "int8", "reason": f"int8 kept the check probabilities (max diff {diff:.3f})"
                                                     f" and took {t8 / max(t32, 1e-9):.2f}x the CPU time"})
    log.info("cross-encoder %s: %s", name, decision["reason"])
    return q


def clear() -> None:
    """Forget the loaded models (tests)."""
    with _lock:
        _cache.clear()

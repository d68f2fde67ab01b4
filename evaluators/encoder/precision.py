"""The precision policy shared by the bi-encoder (``embeddings``) and the cross-encoder: what the
environment asks for, what the CPU offers, and CPU-time measurement.

* ``RAG_EVAL_PRECISION`` = ``auto`` (default) / ``int8`` / ``onnx-fp32`` / ``fp32`` / ``bf16``:
  :func:`requested` names the backend asked for (``RAG_EVAL_BF16=1`` is kept from earlier versions).
* :func:`cpu_seconds` times a callable in CPU seconds of this process (what the choices compare).
"""

from __future__ import annotations

import os
import time
from typing import Any, Callable

#: int8 is kept only when its CPU time on the check texts is below this share of fp32's.
INT8_MAX_TIME_RATIO = 0.95


def cpu_flags(cpuinfo: str = "/proc/cpuinfo") -> set[str]:
    try:
        with open(cpuinfo, encoding="utf-8", errors="ignore") as fh:
            for line in fh:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def cpu_has_bf16(cpuinfo: str = "/proc/cpuinfo") -> bool:
    """True when the CPU advertises native bf16 (AMX or AVX512-BF16) and oneDNN is usable."""
    if not cpu_flags(cpuinfo) & {"amx_bf16", "avx512_bf16"}:
        return False  # decided without importing torch
    try:
        import torch

        return bool(torch.backends.mkldnn.is_available())
    except Exception:  # noqa: BLE001
        return False


def want_bf16() -> bool:
    """bf16 wanted: ``RAG_EVAL_BF16`` says so, or (unset) the CPU has native bf16."""
    env = os.environ.get("RAG_EVAL_BF16", "").strip().lower()
    if env in {"0", "false", "no", "off"}:
        return False
    if env in {"1", "true", "yes", "on"}:
        return True
    return cpu_has_bf16()


def requested() -> str:
    """auto, or the backend forced by RAG_EVAL_PRECISION / RAG_EVAL_BF16."""
    env = os.environ.get("RAG_EVAL_PRECISION", "").strip().lower()
    alias = {"": "auto", "auto": "auto", "int8": "onnx-int8", "onnx-int8": "onnx-int8",
             "onnx": "onnx-fp32", "onnx-fp32": "onnx-fp32", "fp32": "torch-fp32",
             "torch-fp32": "torch-fp32", "bf16": "torch-bf16", "torch-bf16": "torch-bf16"}
    if env not in alias:
        raise ValueError(f"RAG_EVAL_PRECISION={env!r}: use one of auto, int8, onnx-fp32, fp32, bf16")
    if alias[env] == "auto" and os.environ.get("RAG_EVAL_BF16", "").strip().lower() in {"1", "true", "yes", "on"}:
        return "torch-bf16"
    return alias[env]


def cpu_seconds(fn: Callable[[], Any], rounds: int = 2) -> float:
    """The least CPU time (of this process) ``fn`` took in ``rounds`` calls."""
    best = float("inf")
    for _ in range(rounds):
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return best

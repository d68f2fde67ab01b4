"""The precision policy shared by the bi-encoder (``embeddings``) and the cross-encoder: what the
environment asks for, what this machine is, whether the torch extra is installed, and timing.

* ``RAG_EVAL_PRECISION`` = ``auto`` (default) / ``int8`` / ``onnx-fp32`` / ``fp32`` / ``bf16``:
  :func:`requested` names the backend asked for (``RAG_EVAL_BF16=1`` is kept from earlier versions
  as ``bf16``; ``RAG_EVAL_BF16=0`` leaves bf16 out of the automatic choice).
* Choices are made by measuring on this machine, never from CPU flags alone: :func:`cpu_signature`
  says when a measurement kept on disk was made on another machine (a prebuilt image).
* The default install has no PyTorch: :func:`torch_installed` tells without importing it, and
  :func:`need_torch` is the one message that says how to add it.
"""

from __future__ import annotations

import importlib.util
import os
import time
from typing import Any, Callable

#: How to add PyTorch + sentence-transformers (the optional cross-encoder, verifier training, the
#: torch encoder backends): the default install leaves them out (from the public index, torch is a
#: multi-GB CUDA build).
TORCH_EXTRA = "pip install -r requirements-torch.txt"

#: int8 is kept only when its CPU time on the check texts is below this share of fp32's.
INT8_MAX_TIME_RATIO = 0.95


class TorchExtraMissing(ImportError):
    """A path that needs PyTorch / sentence-transformers ran on the default (torch-free) install."""


def torch_installed() -> bool:
    """PyTorch and sentence-transformers can be imported (checked without importing them)."""
    for name in ("torch", "sentence_transformers"):
        try:
            if importlib.util.find_spec(name) is None:
                return False
        except (ImportError, ValueError):  # blocked, or a module set to None in sys.modules
            return False
    return True


def need_torch(purpose: str) -> None:
    """Raise :class:`TorchExtraMissing` naming ``purpose`` and how to add the extra, unless installed."""
    if not torch_installed():
        raise TorchExtraMissing(f"{purpose} needs PyTorch and sentence-transformers, which the default "
                                f"install leaves out; add them with: {TORCH_EXTRA}")


def cpu_flags(cpuinfo: str = "/proc/cpuinfo") -> set[str]:
    try:
        with open(cpuinfo, encoding="utf-8", errors="ignore") as fh:
            for line in fh:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


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


#: CPU flags that change which kernels run (recorded with every measurement).
ISA_FLAGS = ("avx2", "fma", "avx512f", "avx512_vnni", "avx_vnni", "avx512_bf16", "amx_bf16", "amx_int8", "amx_tile")


def usable_cpus() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def cpu_signature(cpuinfo: str = "/proc/cpuinfo") -> str:
    """What a speed measurement depends on: the CPU model, its vector-instruction flags and the
    number of CPUs this process may use (a measurement made elsewhere is made again)."""
    model = "unknown"
    try:
        with open(cpuinfo, encoding="utf-8", errors="ignore") as fh:
            model = next((ln.split(":", 1)[1].strip() for ln in fh if ln.startswith("model name")), model)
    except OSError:
        pass
    flags = ",".join(f for f in ISA_FLAGS if f in cpu_flags(cpuinfo)) or "none"
    return f"{model} | {flags} | {usable_cpus()} cpus"


def best_time(fn: Callable[[], Any], rounds: int = 2, clock: Callable[[], float] = time.perf_counter) -> float:
    """The least time ``fn`` took in ``rounds`` calls, on ``clock``."""
    best = float("inf")
    for _ in range(rounds):
        t = clock()
        fn()
        best = min(best, clock() - t)
    return best


def wall_seconds(fn: Callable[[], Any], rounds: int = 2) -> float:
    """The least wall-clock time ``fn`` took in ``rounds`` calls."""
    return best_time(fn, rounds, time.perf_counter)


def cpu_seconds(fn: Callable[[], Any], rounds: int = 2) -> float:
    """The least CPU time (of this process) ``fn`` took in ``rounds`` calls."""
    return best_time(fn, rounds, time.process_time)

"""(helper) The machine a figure was measured on, read from it — never written by hand: the CPU
model, its vector-instruction flags and the CPUs this process may use (``cpu_signature``), the kind
of CPU (AVX2 only; Intel AVX-512 with AMX; AMD AVX-512), and a note that the cores are shared (the
load averages beside each figure say how busy they were)."""

from __future__ import annotations

import os
import time
from typing import Any

from evaluators.encoder.precision import cpu_flags, cpu_signature


def cpu_kind(cpuinfo: str = "/proc/cpuinfo") -> str:
    """``avx2`` | ``intel-avx512-amx`` | ``intel-avx512`` | ``amd-avx512`` | ``other``: named from the
    flags (a name for the record; what runs fastest is chosen by measuring, not from this)."""
    flags = cpu_flags(cpuinfo)
    vendor = ""
    try:
        with open(cpuinfo, encoding="utf-8", errors="ignore") as fh:
            vendor = next((ln.split(":", 1)[1].strip() for ln in fh if ln.startswith("vendor_id")), "")
    except OSError:
        pass
    if "amx_tile" in flags:
        return "intel-avx512-amx"
    if "avx512f" in flags:
        return "amd-avx512" if "AMD" in vendor else "intel-avx512"
    return "avx2" if "avx2" in flags else "other"


def cpu() -> str:
    """E.g. ``AMD EPYC | avx2,fma | 2 cpus (avx2)``: what every result file names as its CPU."""
    return f"{cpu_signature()} ({cpu_kind()})"


def cpu_shared() -> str:
    """:func:`cpu`, saying that the cores are shared with other work (see the load averages)."""
    return f"{cpu()}, shared with other developers (see the load averages)"


def stamp() -> dict[str, Any]:
    """What a result file opens with: the CPU (:func:`cpu_shared`), the load averages now and the date."""
    return {"cpu": cpu_shared(), "load_average": list(os.getloadavg()), "date": time.strftime("%Y-%m-%d")}

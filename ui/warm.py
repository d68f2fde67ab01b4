"""Import everything a visit to the dashboard imports, so the bytecode is written ahead of time
(the Docker image runs ``python -m ui.warm`` at build time; packages are installed ``--no-compile``
and their bytecode goes under ``$PYTHONPYCACHEPREFIX``). Runs no page and loads no model."""

from __future__ import annotations

import importlib
import pkgutil
import time

import evaluators
import ui

#: Imported lazily by the pages and the library (statistics, LLM SDKs, charts, readers).
LAZY = ("scipy.stats", "sklearn.metrics", "openai", "groq", "plotly.graph_objects", "plotly.express",
        "pyarrow.parquet", "onnxruntime", "tokenizers", "nupunkt", "json_repair", "tenacity", "aiolimiter")


def main() -> None:
    t = time.perf_counter()
    names = [m.name for pkg in (evaluators, ui) for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + ".")
             if not m.name.endswith((".__main__", ".warm")) and ".testing" not in m.name]
    for name in (*LAZY, *names):
        importlib.import_module(name)
    print(f"imported {len(LAZY) + len(names)} modules in {time.perf_counter() - t:.1f} s")


if __name__ == "__main__":
    main()

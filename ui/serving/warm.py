"""Import everything a visit to the dashboard imports, so the bytecode is written ahead of time
(the Docker image runs ``python -m ui.serving.warm`` at build time; packages are installed ``--no-compile``
and their bytecode goes under ``$PYTHONPYCACHEPREFIX``). Runs no page and loads no model.

:func:`in_background` does the same for a server that just started (``serve.py``): the first visitor
— often someone opening a shared link to a Space that just woke up — otherwise waits while their
page imports the dashboard and its libraries (Streamlit's metrics of a shared run 12.2–12.9 s after
the start without it, 8.5–9.6 s with it, on the loaded 2-core AMD EPYC: bench/share_link.py,
``cold_first_visit``; the figures the server writes into a shared link's page, ``ui/serving/share_paint.py``,
show before either: 0.7–1.0 s). Only the pages' own modules and the charts: the evaluation (its
model, ONNX Runtime) runs in a worker process."""

from __future__ import annotations

import importlib
import pkgutil
import threading
import time

import evaluators
import ui

#: Imported lazily by the pages and the library (statistics, LLM SDKs, charts, readers).
LAZY = ("scipy.stats", "sklearn.metrics", "openai", "groq", "plotly.graph_objects", "plotly.express",
        "pyarrow.parquet", "onnxruntime", "tokenizers", "nupunkt", "json_repair", "tenacity", "aiolimiter")


#: What a page view imports beyond the pages' own modules (a chart, a table, a Parquet read).
PAGE_LIBS = ("plotly.graph_objects", "pyarrow.parquet", "scipy.stats")


def _ui_modules() -> list[str]:
    return [m.name for m in pkgutil.walk_packages(ui.__path__, "ui.") if not m.name.endswith(".warm")]


def _import_pages() -> None:
    for name in (*PAGE_LIBS, *_ui_modules()):
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - a module that fails here fails on its page, with the page's message
            continue


def in_background() -> threading.Thread:
    """Import the pages' modules in a daemon thread (the server answers meanwhile); returns it."""
    t = threading.Thread(target=_import_pages, name="rag-eval-warm-pages", daemon=True)
    t.start()
    return t


def main() -> None:
    t = time.perf_counter()
    names = [m.name for pkg in (evaluators, ui) for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + ".")
             if not m.name.endswith((".__main__", ".warm")) and ".testing" not in m.name]
    for name in (*LAZY, *names):
        importlib.import_module(name)
    print(f"imported {len(LAZY) + len(names)} modules in {time.perf_counter() - t:.1f} s")


if __name__ == "__main__":
    main()

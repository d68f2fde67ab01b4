"""``engine="ray"``: the offline labeler over chunks of cases with Ray Data, past one machine.

    evaluate_batch(cases, "trace", engine="ray")                      # a local Ray instance
    evaluate_batch(cases, "trace", engine="ray", ray_address="ray://head:10001")   # a cluster
    python -m evaluators evaluate data.jsonl --engine ray [--ray-address ADDR]

The chunks are exactly those of a local run (``evaluate_batch`` cuts them); each is one row of a
Ray Dataset, and ``map_batches`` sends it to a pool of actors that each load the encoder once. The
encoder is batch-independent (``encoder.onnx_graph``: per-token int8, batches of one token
length), so every case gets the same vectors — and the same labels — as in a local run; outcomes are
handed back in input order. Only offline methods (no LLM) run this way: nothing secret is shipped.

Optional: ``pip install -r requirements-ray.txt``. A local instance listens on 127.0.0.1 only, with
the dashboard and usage statistics off and a small object store.
"""

from __future__ import annotations

import os
import pickle
import time
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

ROOT = Path(__file__).resolve().parents[2]
#: object store of a local Ray instance (bytes): chunks of sentencized cases are small
OBJECT_STORE_BYTES = 128 * 1024 * 1024
_ENV_PREFIXES = ("RAG_EVAL_", "HF_", "TRANSFORMERS_", "TOKENIZERS_")


def _import_ray() -> Any:
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    try:
        import ray
        import ray.data
    except ImportError:
        raise RuntimeError("engine='ray' needs Ray: pip install -r requirements-ray.txt "
                           "(ray[data])") from None
    return ray


def ensure_ray(address: str | None = None, num_cpus: int | None = None) -> Any:
    """Connect to ``address`` or start a local instance (loopback only) unless Ray is running."""
    ray = _import_ray()
    if ray.is_initialized():
        return ray
    env = {k: v for k, v in os.environ.items() if k.startswith(_ENV_PREFIXES)}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    runtime_env = {"env_vars": env}
    if address:
        ray.init(address=address, runtime_env=runtime_env, log_to_driver=False)
    else:
        ray.init(num_cpus=num_cpus, include_dashboard=False, _node_ip_address="127.0.0.1",
                 object_store_memory=OBJECT_STORE_BYTES, runtime_env=runtime_env, log_to_driver=False,
                 configure_logging=False)
    return ray


class ChunkLabeler:
    """A Ray actor: builds the method (loads the encoder) once, then labels one chunk per call."""

    def __init__(self, method: str, options: bytes) -> None:
        from ..encoder import embeddings
        from ..methods import get_method

        embeddings.load()
        self.impl = get_method(method).build()
        self.method = method
        self.options = pickle.loads(options)

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        import numpy as np

        from ..types import LabelOutcome

        outs, secs = [], []
        for payload in batch["payload"]:
            items = pickle.loads(payload)
            t = time.perf_counter()
            try:
                res = self.impl.label(items, self.options, lambda n: None)
                if len(res) != len(items):
                    raise RuntimeError(f"method returned {len(res)} outcomes for {len(items)} cases")
            except Exception as exc:  # noqa: BLE001 - the same message a local run gives
                res = [LabelOutcome(error=f"{self.method} failed: {type(exc).__name__}: {exc}")] * len(items)
            secs.append(time.perf_counter() - t)
            outs.append(pickle.dumps(list(res)))
        return {"index": np.asarray(batch["index"]), "outs": np.asarray(outs, dtype=object),
                "seconds": np.asarray(secs, dtype=np.float64)}


def label_chunks(chunks: Sequence[Sequence[Any]], method: str, options: Any, *, address: str | None = None,
                 workers: int | None = None, should_stop: Callable[[], bool] | None = None
                 ) -> Iterator[tuple[list[Any], float]]:
    """Yield ``(outcomes, seconds)`` per chunk (lists of ``SentencizedCase``), in input order."""
    from ..methods import get_method

    spec = get_method(method)
    if spec.needs_llm:
        raise ValueError(f"engine='ray' runs the offline labelers (e.g. trace); method {method!r} calls an "
                         "LLM: use engine='local'")
    if not chunks:
        return
    from ..encoder import embeddings

    embeddings.load()  # build the ONNX encoder once here, before the workers start
    ray = ensure_ray(address)
    from ray.data import DataContext

    ctx = DataContext.get_current()
    ctx.enable_progress_bars = False
    ctx.execution_options.preserve_order = True
    if workers is None:
        workers = max(1, int(ray.cluster_resources().get("CPU", 1)))
    safe = options.model_copy(update={"llm": None, "jury": ()})  # offline: no key leaves the driver
    rows = [{"index": k, "payload": pickle.dumps(list(c))} for k, c in enumerate(chunks)]
    ds = ray.data.from_items(rows, override_num_blocks=len(rows))
    out = ds.map_batches(ChunkLabeler, fn_constructor_kwargs={"method": method, "options": pickle.dumps(safe)},
                         batch_size=1, compute=ray.data.ActorPoolStrategy(size=min(workers, len(rows))),
                         num_cpus=1, batch_format="numpy")
    ready: dict[int, tuple[list[Any], float]] = {}
    nxt = 0
    for row in out.iter_rows():
        ready[int(row["index"])] = (pickle.loads(row["outs"]), float(row["seconds"]))
        while nxt in ready:
            yield ready.pop(nxt)
            nxt += 1
        if should_stop and should_stop():
            return

"""``engine="ray"``: the offline labeler over chunks of cases with Ray Data, past one machine.

    evaluate_batch(cases, "trace", engine="ray")                      # a local Ray instance
    evaluate_batch(cases, "trace", engine="ray", ray_address="ray://head:10001")   # a cluster
    python -m evaluators evaluate data.jsonl --engine ray [--ray-address ADDR] [--out results.jsonl]

Two ways in:

* :func:`label_chunks` (``evaluate_batch``): the chunks a local run would cut, one row of a Ray
  Dataset each, sent to a pool of actors that each load the encoder once.
* :func:`stream_file` (``evaluate`` of a file, ``resultfiles.evaluate_file``): the file is read by a
  Ray Data read task (:class:`CaseFileSource`, a ``FileBasedDatasource``) in blocks of validated
  cases — the project's own readers, so row errors name the same file, row and column as a local
  run, and ids are made unique over the whole file — which flow to the actor pool; each actor
  sentencizes, labels and scores its block, and the outcomes come back to the driver in input order,
  block by block, to be written as they come. The driver never holds the set: only the blocks in
  flight (Ray Data's backpressure bounds them). Resuming ships the ids already finished to the read
  task, which skips them.

The encoder is batch-independent (``encoder.onnx_graph``: per-token int8, batches of one token
length), so every case gets the same vectors — and the same labels — as in a local run. Only
offline methods (no LLM) run this way: nothing secret is shipped.

Optional: ``pip install -r requirements-ray.txt``. A local instance listens on 127.0.0.1 only (Ray
turns a loopback node address into a routable one unless told it is not a cluster:
``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``), with the dashboard and usage statistics off and a small
object store.
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


#: Tells Ray that a local instance is not a cluster: its node address stays 127.0.0.1 and every
#: server binds to it (else Ray swaps the loopback address for this machine's routable one).
LOCAL_ONLY_ENV = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}


def _import_ray(local: bool = False) -> Any:
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    if local:
        os.environ.update(LOCAL_ONLY_ENV)  # read by Ray at import, and by the processes it starts
    try:
        import ray
        import ray.data
    except ImportError:
        raise RuntimeError("engine='ray' needs Ray: pip install -r requirements-ray.txt "
                           "(ray[data])") from None
    if local:
        from ray._private import ray_constants

        ray_constants.ENABLE_RAY_CLUSTER = False  # when ray was imported before the variable was set
    return ray


def ensure_ray(address: str | None = None, num_cpus: int | None = None) -> Any:
    """Connect to ``address`` or start a local instance (loopback only) unless Ray is running."""
    ray = _import_ray(local=not address)
    if ray.is_initialized():
        return ray
    env = {k: v for k, v in os.environ.items() if k.startswith(_ENV_PREFIXES)}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    runtime_env = {"env_vars": env}
    if address:
        ray.init(address=address, runtime_env=runtime_env, log_to_driver=False)
    else:
        runtime_env["env_vars"].update(LOCAL_ONLY_ENV)
        ray.init(num_cpus=num_cpus, include_dashboard=False, object_store_memory=OBJECT_STORE_BYTES,
                 runtime_env=runtime_env, log_to_driver=False, configure_logging=False)
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


# ------------------------------------------------------------------------------------------ files
#: Rows a read task validates per block (the unit that goes to an actor and back).
FILE_BLOCK_ROWS = 250


def _file_source_class() -> Any:
    """:class:`CaseFileSource`, defined once Ray is imported (it subclasses Ray's datasource)."""
    global CaseFileSource
    if CaseFileSource is not None:
        return CaseFileSource
    from ray.data.datasource import FileBasedDatasource

    class _CaseFileSource(FileBasedDatasource):
        """A data file read by a Ray Data read task in blocks of validated cases: the project's own
        chunked reader (``datasets.stream``), so row problems and ids are exactly a local run's.
        One row per block: the pickled (cases, row errors, row warnings)."""

        def __init__(self, path: str, mapping: Any, chunk_rows: int, done: frozenset[str]) -> None:
            super().__init__(path)
            self._mapping, self._chunk_rows, self._done = mapping, chunk_rows, done

        def _read_stream(self, f: Any, path: str) -> Iterator[Any]:
            import pyarrow as pa

            from ..datasets.stream import open_cases

            for k, chunk in enumerate(open_cases(path, mapping=self._mapping, chunk_rows=self._chunk_rows)):
                cases = [c for c in chunk.cases if c.id not in self._done]
                yield pa.table({"index": [k], "payload": [pickle.dumps((cases, chunk.errors, chunk.warnings))]})

    CaseFileSource = _CaseFileSource
    return CaseFileSource


CaseFileSource: Any = None


class BlockEvaluator:
    """A Ray actor: builds the run's :class:`~evaluators.pipeline.Evaluation` (loads the encoder)
    once, then evaluates one block of cases per call — sentencize, label, score — as a local run."""

    def __init__(self, evaluation: bytes) -> None:
        from ..encoder import embeddings

        embeddings.load()
        self.ev = pickle.loads(evaluation)  # a pipeline.Evaluation (method not built yet)

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        import numpy as np

        outs = []
        for payload in batch["payload"]:
            cases, errors, warnings = pickle.loads(payload)
            part = self.ev.run(cases) if cases else None
            outs.append(pickle.dumps((list(part.results) if part else [], dict(part.timings) if part else {},
                                      errors, warnings)))
        return {"index": np.asarray(batch["index"]), "outs": np.asarray(outs, dtype=object)}


def stream_file(ev: Any, stream: Any, done: set[str], tick: Callable[[int, int], None],
                done_now: Callable[[], int], should_stop: Callable[[], bool] | None = None,
                *, workers: int | None = None) -> Iterator[tuple[list[Any], dict[str, float]] | None]:
    """(finished cases, their seconds) of each block of ``stream``'s file, in input order, evaluated
    on Ray (see the module docstring); None when ``should_stop()`` ended it. The row errors and
    warnings of each block are added to ``stream.errors`` / ``stream.warnings`` as it comes."""
    if ev.spec.needs_llm:
        raise ValueError(f"engine='ray' runs the offline labelers (e.g. trace); method {ev.method!r} calls an "
                         "LLM: use engine='local'")
    if stream.ext == ".json":  # a JSON document cannot be cut into blocks before it is parsed
        yield from _stream_chunks(ev, stream, done, workers)
        return
    from ..encoder import embeddings

    embeddings.load()  # build the ONNX encoder once here, before the workers start
    ray = ensure_ray(ev.ray_address)
    _data_context()
    if workers is None:
        workers = max(1, int(ray.cluster_resources().get("CPU", 1)))
    safe = ev.options.model_copy(update={"llm": None, "jury": ()})  # offline: no key leaves the driver
    source = _file_source_class()(str(stream.path), stream.mapping, min(stream.chunk_rows, FILE_BLOCK_ROWS),
                                  frozenset(done))
    ds = ray.data.read_datasource(source, num_cpus=0)  # light; the actors take the cores
    fresh = type(ev)(ev.method, safe)  # the same run, built anew on each actor
    out = ds.map_batches(BlockEvaluator, fn_constructor_kwargs={"evaluation": pickle.dumps(fresh)},
                         batch_size=1, compute=ray.data.ActorPoolStrategy(size=workers), num_cpus=1,
                         batch_format="numpy")
    rows = out.iter_rows()
    try:
        for row in rows:
            results, timings, errors, warnings = pickle.loads(row["outs"])
            stream.errors.extend(errors)
            stream.warnings.extend(warnings)
            if results:
                yield results, timings
            if should_stop is not None and should_stop():
                yield None
                return
    finally:
        close = getattr(rows, "close", None)
        if close is not None:
            close()


def _data_context() -> Any:
    from ray.data import DataContext

    ctx = DataContext.get_current()
    ctx.enable_progress_bars = False
    ctx.execution_options.preserve_order = True
    return ctx


def _stream_chunks(ev: Any, stream: Any, done: set[str], workers: int | None
                   ) -> Iterator[tuple[list[Any], dict[str, float]] | None]:
    """A file the driver must read whole (a JSON document): its chunks labeled by :func:`label_chunks`."""
    for chunk in stream:
        todo = [c for c in chunk.cases if c.id not in done]
        if todo:
            part = ev.run(todo)
            yield list(part.results), dict(part.timings)

"""A test-set run in a background thread of the server, one per visitor (keyed by the visitor's
history token, so switching pages or reloading the tab loses nothing), with its progress, Cancel
and its result or error.

Why a thread and not the evaluation job queue (``evaluators.jobs``): a run is short and bounded
(offline: seconds; LLM: two calls a question, capped by the visitor's call limit) and its result is
a list of rows that belongs to the visitor's session until they save it — nothing to checkpoint or
resume into the run history. At most ``MAX_RUNNING`` runs go at once in the process.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

from ..owner_runs import OwnerRuns

MAX_RUNNING = 4


@dataclass
class Run:
    n: int
    generator: str
    started: float = field(default_factory=time.monotonic)
    done: int = 0
    total: int = 0
    message: str = "starting"
    result: Any = None  # evaluators.testset.TestsetResult
    error: str | None = None
    finished: bool = False
    cancel: threading.Event = field(default_factory=threading.Event)

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started


_runs: OwnerRuns[Run] = OwnerRuns()
get, forget, running = _runs.get, _runs.forget, _runs.running


def start(owner: str, corpus: Any, n: int, generator: str, *, types: Any = None, seed: int = 0, llm: Any = None,
          max_llm_calls: int | None = None, on_done: Any = None) -> Run | str:
    """Start a run for ``owner``; returns it, or why it was not started."""
    from evaluators.testset import make_testset

    got = _runs.claim(owner, lambda: Run(n=n, generator=generator),
                      busy="A test set is already being made for you; wait for it or cancel it.",
                      full=f"{MAX_RUNNING} test sets are being made on this server now; try again in a minute.",
                      limit=MAX_RUNNING)
    if isinstance(got, str):
        return got
    run = got

    def progress(done: int, total: int, message: str) -> None:
        run.done, run.total, run.message = done, total, message

    def work() -> None:
        try:
            run.result = make_testset(corpus, n, generator=generator, types=types, seed=seed, llm=llm,
                                      progress=progress, cancel=run.cancel, max_llm_calls=max_llm_calls)
        except Exception as exc:  # noqa: BLE001 - shown to the visitor, the server goes on
            run.error = f"{type(exc).__name__}: {exc}" if not isinstance(exc, ValueError) else str(exc)
        finally:
            if on_done is not None and run.result is not None:
                try:
                    on_done(run.result)
                except Exception:  # noqa: BLE001
                    pass
            run.finished = True

    threading.Thread(target=work, name=f"testset-{owner[:8]}", daemon=True).start()
    return run

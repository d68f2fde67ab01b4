"""Background work kept per owner (a visitor's token) in this server process — the test set being
made, the app being run: one at a time per owner, at most ``limit`` at once on the server, each
owner seeing only their own. Pure (no Streamlit), thread-safe."""

from __future__ import annotations

import threading
from typing import Callable, Generic, Protocol, TypeVar


class _Finishes(Protocol):
    finished: bool


R = TypeVar("R", bound=_Finishes)


class OwnerRuns(Generic[R]):
    """The runs of this process by owner (the last one each owner started)."""

    def __init__(self) -> None:
        self._runs: dict[str, R] = {}
        self._lock = threading.Lock()

    def get(self, owner: str) -> R | None:
        with self._lock:
            return self._runs.get(owner)

    def forget(self, owner: str) -> None:
        with self._lock:
            self._runs.pop(owner, None)

    def running(self) -> int:
        with self._lock:
            return sum(not r.finished for r in self._runs.values())

    def claim(self, owner: str, make: Callable[[], R], *, busy: str, full: str, limit: int) -> R | str:
        """The new run of ``owner`` (``make()``, kept), or why not: ``busy`` while the owner's last run
        goes on, ``full`` when ``limit`` runs go on on the server."""
        with self._lock:
            old = self._runs.get(owner)
            if old is not None and not old.finished:
                return busy
            if sum(not r.finished for r in self._runs.values()) >= limit:
                return full
            run = self._runs[owner] = make()
            return run

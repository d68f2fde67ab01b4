"""The process-wide clients, one per settings and key (so rate limits hold across runs and
Streamlit reruns), at most ``_MAX_CLIENTS`` open at once."""

from __future__ import annotations

import hashlib
import threading

from .client import LLMClient
from .keys import check_settings
from .settings import LLMSettings

_clients: dict[tuple[str, str], LLMClient] = {}
_clients_lock = threading.Lock()
_MAX_CLIENTS = 8


def get_client(settings: LLMSettings) -> LLMClient:
    """The process-wide client of these settings (so rate limits hold across runs and Streamlit
    reruns). Raises LLMUnavailable when the settings cannot make calls."""
    key_hash = hashlib.sha256(check_settings(settings, "an LLM client").encode()).hexdigest()
    k = (settings.model_dump_json(), key_hash)
    with _clients_lock:
        c = _clients.get(k)
        if c is None or c._closed:
            if len(_clients) >= _MAX_CLIENTS:
                old_k = next(iter(_clients))
                _clients.pop(old_k).close()
            c = _clients[k] = LLMClient(settings)
        return c


def close_clients() -> None:
    with _clients_lock:
        items = list(_clients.values())
        _clients.clear()
    for c in items:
        c.close()

"""ui/resources.secrets(): without a secrets file, Streamlit looks for the files again on every
access (7 % of the server's CPU under ten visitors); the dashboard looks again only every
NO_SECRETS_RECHECK_S seconds, and at once for another secrets object (an AppTest run's)."""

from __future__ import annotations

import time

from ui import resources


class NoFile:
    def __init__(self) -> None:
        self.looks = 0

    def __len__(self) -> int:
        self.looks += 1
        raise FileNotFoundError("No secrets files found")


def test_a_missing_secrets_file_is_looked_for_once_in_a_while(monkeypatch):
    missing = NoFile()
    monkeypatch.setattr(resources.st, "secrets", missing)
    monkeypatch.setattr(resources, "_no_secrets", [None, 0.0])
    assert resources.secrets() is None and resources.secrets() is None and resources.secrets() is None
    assert missing.looks == 1
    given = {"GROQ_API_KEY": "x"}  # another object (AppTest's own secrets): read at once
    monkeypatch.setattr(resources.st, "secrets", given)
    assert resources.secrets() is given
    monkeypatch.setattr(resources.st, "secrets", missing)
    resources._no_secrets[1] = time.monotonic() - 1  # the recheck time has passed
    assert resources.secrets() is None and missing.looks == 2

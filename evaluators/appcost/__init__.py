"""The app's own cost and latency: what calling it took, per case, per run, and between versions.

    from evaluators.appcost import AppTally, app_call
    call = app_call(case.metadata)          # AppCall(latency_s=0.31, attempts=1, total_tokens=240, error=None, ...)
    t = AppTally()
    for r in run.results:
        t.add(r.case.metadata, r.case.id)
    t.summary()                             # {"calls", "latency_s": {p50, p95 + intervals}, "errors", "tokens"}

A case made by the target runner carries ``metadata`` with ``target``, ``latency_s``, ``attempts``,
``usage`` and ``error``; a case without them shows nothing. Results files carry the run's summary as
``app`` at their top level (``evaluators.tally``, ``export.to_json_dict``); ``compare`` says how two
versions differ, paired by question, beside the quality verdict
(``evaluators.comparison.app``: "B is 30 % slower, p95 1.9 s vs 1.4 s").

Modules: ``calls`` (one case's app call read from its metadata), ``summary`` (a run's p50 / p95
latency with intervals, errors, tokens; the one-line words).
"""

from __future__ import annotations

from .calls import KEYS, AppCall, app_call
from .summary import AppTally, quantile_interval, seconds, summarize, words

__all__ = ["KEYS", "AppCall", "AppTally", "app_call", "quantile_interval", "seconds", "summarize", "words"]

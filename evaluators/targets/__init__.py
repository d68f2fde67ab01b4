"""Run your app: call one version of a RAG app on every question of a question file and write what
it answered as a test-case file (``python -m evaluators run``), ready for ``evaluate`` and ``compare``.

    from evaluators.datasets import load_questions
    from evaluators.targets import TargetPolicy, load_target, run_target

    target = load_target("data/sample_targets/v1.yaml")            # the owner's policy by default
    report = run_target(target, load_questions("data/sample_questions.jsonl"), "cases_v1.jsonl",
                        progress=lambda done, total: print(done, total))
    report.answered, report.failed, report.latency_summary()      # failed: [(id, error), ...]

An owner's targets file may hold several (``load_targets``: a list, or ``{targets: [...]}``); a
deployment names its own with the owner setting ``RAG_EVAL_TARGETS`` (``load_owner_targets``).
A dashboard serving visitors loads what they typed with ``TargetPolicy.visitor()`` (no Python
target, no ``${VAR}``, the typed-URL rules), runs it in a background thread with
``should_stop=event.is_set`` and ``on_record=...`` for live rows, and continues an interrupted run
with ``resume=True``.

Modules, each opening with the contract it keeps:

* :mod:`.spec` — the fields of a target file (pydantic);
* :mod:`.model` — the target file (YAML / JSON) -> a checked :class:`Target`; every bad field named;
* :mod:`.policy` — :class:`TargetPolicy`: the owner's targets, or a visitor's (refused Python,
  no environment, typed-URL rules);
* :mod:`.owner` — a deployment's own targets: the file the owner setting ``RAG_EVAL_TARGETS`` names,
  and the environment (secrets included) their ``${VAR}`` are read from;
* :mod:`.template` — ``{column}`` (and ``{messages}``: the conversation as chat messages) and
  ``${VAR}`` filled in at call time;
* :mod:`.secrets` — :class:`~.secrets.Secrets`: what must never be shown, masked in every form an
  app may repeat it in (JSON-escaped, URL-encoded, HTML, base64) before any text is cut;
* :mod:`.reply` — a reply's body read within its limit (compressed and decoded, a budget shared by
  the calls in flight), decoded, parsed (nesting bounded);
* :mod:`.extract` — the JSON reply -> answer, passages, ids, scores, usage (JMESPath), framework
  shapes read as they are (LangServe documents, LlamaIndex nodes, Haystack documents, chat messages);
* :mod:`.objects` — a Python target's return value as JSON: a LlamaIndex ``Response``, LangChain /
  Haystack documents and messages, pydantic models, dataclasses;
* :mod:`.stream` — server-sent events (OpenAI ``stream: true``, LangServe ``/stream``) read to the
  end, put together into the one reply the app gives without streaming;
* :mod:`.function` — a Python target's function imported into the evaluator's own Python, its
  ``args`` bound;
* :mod:`.redirects` — redirects followed only when the target says so (307 / 308, origins, each hop's
  address checked);
* :mod:`.guard` — a visitor's connections (and a redirect's to another origin) checked as they are
  made (no DNS rebinding);
* :mod:`.call` — one question: the request within its deadline, retries on 429 / 5xx / timeouts
  honouring Retry-After, latency and attempts, the error in words and its cause;
* :mod:`.casefile` — the cases file: one line per finished question, read back for resume;
* :mod:`.runner` — :func:`run_target`: concurrency, repeat, resume, progress, cancellation, fail-fast;
  no question lost;
* :mod:`.errors` — :class:`TargetError` (a target or file that cannot be used), :class:`TargetRefused`.

The question file is read by :func:`evaluators.datasets.load_questions`. The reference of the target
file is docs/targets.md.
"""

from __future__ import annotations

from .call import Outcome
from .casefile import case_line, scan
from .errors import TargetError, TargetRefused
from .extract import Answer, ReplyError
from .model import Target, load_target, load_targets, parse_text, target_from_dict
from .owner import OWNER_TARGETS_ENV, load_owner_targets, owner_environ, owner_targets_file
from .policy import TargetPolicy
from .runner import RunReport, arun_target, run_target
from .spec import HttpSpec, TargetSpec

__all__ = ["OWNER_TARGETS_ENV", "Answer", "HttpSpec", "Outcome", "ReplyError", "RunReport", "Target", "TargetError",
           "TargetPolicy", "TargetRefused", "TargetSpec", "arun_target", "case_line", "load_owner_targets",
           "load_target", "load_targets", "owner_environ", "owner_targets_file", "parse_text", "run_target", "scan",
           "target_from_dict"]

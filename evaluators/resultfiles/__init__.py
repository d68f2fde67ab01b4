"""Results files of any size: written case by case as a run goes, read back case by case.

* :mod:`.jsonl` — the JSON Lines results file (one finished case per line, the summary last),
  flushed chunk by chunk so a killed run loses nothing, and continued by ``--resume``;
* :mod:`.jsondoc` — the one-document JSON file, written without building it in memory;
* :mod:`.source` — what a path must be before it is parsed (a file, readable, not empty, not binary,
  not another tool's CSV; gzip read through): every way a file fails ends as a ``ResultsFileError``
  naming it, so every reader (``compare``, the dashboard's "Open a results file") refuses alike;
* :mod:`.read` — both read back one case at a time (:func:`iter_cases`: light records or
  ``CaseResult``s), the run-level part (:func:`read_top`), or a small file whole (:func:`read_run`);
* :mod:`.run` — :func:`evaluate_file`: a data file evaluated chunk by chunk into these files, with
  the summary, intervals and gates from the per-case values alone (``evaluators.tally``); CSV
  exports streamed from a results file (:func:`write_csv_file`);
* :mod:`.into_store` — :func:`import_results`: a results file into the run history, case by case
  (the dashboard's "open a results file").

The per-case object is ``export.case_dict`` everywhere: a line of the JSON Lines file is an element
of the JSON document's ``detailed_results``.
"""

from __future__ import annotations

from .into_store import import_results
from .jsonl import JournalError
from .read import CaseRecord, iter_case_dicts, iter_cases, read_run, read_top
from .run import FileRun, evaluate_file, journal_path, write_csv_file

__all__ = ["CaseRecord", "FileRun", "JournalError", "evaluate_file", "import_results", "iter_case_dicts", "iter_cases",
           "journal_path", "read_run", "read_top", "write_csv_file"]

"""Opening a results file before any of it is parsed: the one place that decides whether a path can
be a results file at all, so every reader of results files (``compare``, the dashboard's "Open a
results file", :func:`~evaluators.resultfiles.read_run`) refuses the same files in the same words.

The contract: whatever the bytes, reading a results file raises nothing but
:class:`~evaluators.export.ResultsFileError`, and its message starts with the file's path and says
what the file is instead —

* missing, a directory, not readable (permission denied, a disk error);
* empty (or only blank);
* another tool's file or a test set: CSV / TSV / Parquet / Excel by name, any binary format by its
  first bytes (``datasets.encoding.SIGNATURES``), binary data by its control bytes;
* named ``.gz`` but not gzip-compressed, or gzip data that is damaged or cut short;
* text that is not UTF-8 (the line and byte);
* JSON that is malformed, cut short (the file ends inside it), or nested deeper than the parser
  goes (a results file is never more than a few levels deep).

A gzip-compressed results file (the gzip signature, whatever its name) is read through as it is,
line by line: nothing is unpacked to disk.
"""

from __future__ import annotations

import gzip
import json
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Iterator, cast

from ..datasets.encoding import binary_kind
from ..export import ResultsFileError

GZIP_MAGIC = b"\x1f\x8b"
#: Bytes read to tell what a file is.
HEAD_BYTES = 65536
#: Data files that are not results files, by extension (a test set, or another tool's scores).
FOREIGN = {".csv": "a CSV file", ".tsv": "a TSV file", ".parquet": "a Parquet file",
           ".xlsx": "an Excel workbook", ".xls": "an Excel workbook"}
EVALUATE_IT = ("a test set, or another tool's scores? score it first: "
               "python -m evaluators evaluate FILE --out results.jsonl")
#: Bytes that do not occur in JSON text.
_CONTROL = bytes(b for b in range(32) if b not in (9, 10, 13))


@dataclass(frozen=True)
class Source:
    """A file that may be a results file: its path, whether it is gzip-compressed, and its first
    bytes (decompressed)."""

    path: Path
    gz: bool
    head: bytes

    @property
    def suffix(self) -> str:
        """The extension that tells the layout (``.json`` / ``.jsonl``), under a ``.gz``."""
        p = self.path.with_suffix("") if self.path.suffix.lower() == ".gz" else self.path
        return p.suffix.lower()

    def error(self, what: str) -> ResultsFileError:
        return ResultsFileError(f"{self.path}: {what}")

    def open(self) -> IO[bytes]:
        try:
            fh: Any = gzip.open(self.path, "rb") if self.gz else self.path.open("rb")
            return cast(IO[bytes], fh)
        except OSError as exc:
            raise self.error(f"cannot read: {_os_words(exc)}") from None

    def lines(self) -> Iterator[tuple[int, bytes]]:
        """(line number, raw line with its newline) of the (decompressed) file."""
        with self.open() as fh:
            lineno = 0
            try:
                for lineno, raw in enumerate(fh, start=1):
                    yield lineno, raw
            except (OSError, EOFError, zlib.error) as exc:
                raise self._read_error(exc, lineno + 1) from None

    def read_text(self) -> str:
        """The whole (decompressed) file as text."""
        with self.open() as fh:
            try:
                data = fh.read()
            except (OSError, EOFError, zlib.error) as exc:
                raise self._read_error(exc, None) from None
        return self.decode(data, None)

    def decode(self, raw: bytes, lineno: int | None) -> str:
        """``raw`` as UTF-8 text (a byte-order mark at the start of the file is dropped)."""
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            where = f"line {lineno}, " if lineno is not None else ""
            raise self.error(f"not UTF-8 text ({where}byte {exc.start}: {raw[exc.start:exc.start + 1]!r}): "
                             "not a results file") from None
        return text[1:] if text.startswith("\ufeff") and lineno in (None, 1) else text

    def loads(self, text: str, where: str = "the file") -> Any:
        """``text`` as JSON; ``where`` (e.g. "line 4") names the part of the file it is."""
        try:
            return json.loads(text)
        except RecursionError:
            raise self.error(f"{where} is JSON nested deeper than a results file ever is: not a results "
                             "file") from None
        except json.JSONDecodeError as exc:
            ended = exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string")
            cut = "; it ends before its JSON is complete: cut short?" if ended else ""
            raise self.error(f"{where} is not valid JSON ({exc}){cut}") from None
        except ValueError as exc:
            raise self.error(f"{where} is not valid JSON ({exc})") from None

    def _read_error(self, exc: BaseException, lineno: int | None) -> ResultsFileError:
        near = f" near line {lineno}" if lineno else ""
        if self.gz:
            return self.error(f"the gzip data is damaged or cut short{near} ({type(exc).__name__}: {exc})")
        if isinstance(exc, OSError):
            return self.error(f"cannot read{near}: {_os_words(exc)}")
        return self.error(f"cannot read{near}: {exc}")


def _os_words(exc: OSError) -> str:
    if isinstance(exc, PermissionError):
        return "permission denied"
    if isinstance(exc, IsADirectoryError):
        return "a directory, not a file"
    if isinstance(exc, FileNotFoundError):
        return "no such file"
    return exc.strerror or str(exc) or type(exc).__name__


def open_source(path: str | Path) -> Source:
    """Check that ``path`` may be a results file (see the module doc) and return it as a
    :class:`Source`; :class:`ResultsFileError` naming the file and what it is instead."""
    p = Path(path)
    if not p.exists():
        raise ResultsFileError(f"{p}: cannot read: no such file")
    if not p.is_file():
        raise ResultsFileError(f"{p}: cannot read: {'a directory' if p.is_dir() else 'not a regular file'}, "
                               "not a results file")
    try:
        with p.open("rb") as fh:
            raw = fh.read(HEAD_BYTES)
    except OSError as exc:
        raise ResultsFileError(f"{p}: cannot read: {_os_words(exc)}") from None
    gz = raw.startswith(GZIP_MAGIC)
    src = Source(p, gz, raw)
    if p.suffix.lower() == ".gz" and not gz:
        raise src.error(f"named .gz but not gzip-compressed (it starts with {raw[:16]!r})")
    if gz:
        with src.open() as fh:
            try:
                head = fh.read(HEAD_BYTES)
            except (OSError, EOFError, zlib.error) as exc:
                raise src._read_error(exc, None) from None
        src = Source(p, True, head)
    foreign = FOREIGN.get(src.suffix)
    if foreign:
        raise src.error(f"{foreign}, not a results file (the JSON or JSON Lines file `evaluate --out` "
                        f"writes); {EVALUATE_IT}")
    if not src.head.strip():
        raise src.error("the file is empty: not a results file (a run that wrote nothing?)")
    kind = binary_kind(src.head)
    if kind:
        raise src.error(f"this is {kind[0]}, not a results file")
    if any(b in src.head for b in _CONTROL):
        raise src.error("binary data, not a results file (a results file is JSON text)")
    return src

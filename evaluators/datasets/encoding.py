"""Bytes -> text for the text formats (CSV, TSV, JSON, JSONL).

UTF-8 (with or without a byte-order mark), UTF-16 and UTF-32 (with a BOM; UTF-16 also without one,
recognised by its zero bytes) are read. Anything else gets a clear error instead of a garbled table:
a binary file named like text (an image, a PDF, an Excel workbook, a Parquet file, an archive) is
named by its signature; another encoding (Latin-1 / Windows-1252, …) is refused with the line and
byte where it stops being UTF-8.
"""

from __future__ import annotations

import codecs

from .errors import DatasetError

#: First bytes of binary formats people upload by mistake -> (what it is, what to do instead).
SIGNATURES: tuple[tuple[bytes, str, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image", ""),
    (b"\xff\xd8\xff", "a JPEG image", ""),
    (b"GIF87a", "a GIF image", ""),
    (b"GIF89a", "a GIF image", ""),
    (b"%PDF-", "a PDF document", ""),
    (b"PK\x03\x04", "a ZIP archive (an Excel .xlsx workbook?)",
     "; in Excel use Save As > 'CSV UTF-8', or unzip it first"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old Office file (an Excel .xls workbook?)",
     "; in Excel use Save As > 'CSV UTF-8'"),
    (b"\x1f\x8b", "a gzip-compressed file", "; decompress it first"),
    (b"BZh91AY&SY", "a bzip2-compressed file", "; decompress it first"),
    (b"\xfd7zXZ\x00", "an xz-compressed file", "; decompress it first"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive", "; extract it first"),
    (b"PAR1", "a Parquet file", "; name it .parquet"),
    (b"SQLite format 3\x00", "an SQLite database", ""),
    (b"\x7fELF", "a program (ELF binary)", ""),
)

_BOMS = (  # longest first: the UTF-32 LE BOM starts with the UTF-16 LE one
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)

#: Bytes that do not occur in text (C0 controls other than tab, newlines, form feed, escape).
_CONTROL = bytes(b for b in range(32) if b not in (9, 10, 11, 12, 13, 27))
_SAMPLE = 65536


def binary_kind(data: bytes) -> tuple[str, str] | None:
    """(what it is, hint) when ``data`` starts with the signature of a known binary format."""
    for sig, what, hint in SIGNATURES:
        if data.startswith(sig):
            return what, hint
    return None


def _utf16_without_bom(sample: bytes) -> str | None:
    """'utf-16-le' / 'utf-16-be' when every other byte is zero (ASCII-range text in UTF-16)."""
    if len(sample) < 4:
        return None
    even, odd = sample[0::2], sample[1::2]
    if odd.count(0) >= 0.9 * len(odd) and even.count(0) <= 0.1 * len(even):
        return "utf-16-le"
    if even.count(0) >= 0.9 * len(even) and odd.count(0) <= 0.1 * len(odd):
        return "utf-16-be"
    return None


def bom_encoding(data: bytes) -> str | None:
    """The encoding a byte-order mark at the start of ``data`` names (None: no BOM)."""
    return next((enc for bom, enc in _BOMS if data.startswith(bom)), None)


def decode_text(data: bytes, name: str, fmt: str) -> str:
    """The text of a ``fmt`` ('CSV', 'JSON', …) file, or a :class:`DatasetError` saying what the
    bytes are instead."""
    kind = binary_kind(data)
    if kind:
        raise DatasetError(name, f"this is {kind[0]}, not a {fmt} file{kind[1]}")
    encoding = bom_encoding(data) or _utf16_without_bom(data[:_SAMPLE])
    if encoding:
        try:
            return data.decode(encoding)
        except UnicodeDecodeError as exc:
            raise DatasetError(name, f"file starts like {encoding.upper()} text but is not valid "
                                     f"{encoding.upper()} (byte {exc.start}); save it as UTF-8") from None
    sample = data[:_SAMPLE]
    controls = sum(sample.count(b) for b in _CONTROL)
    if controls > 0.1 * len(sample):
        raise DatasetError(name, f"file holds binary data, not {fmt} text ({controls} control bytes "
                                 f"such as \\x00 in its first {len(sample)} bytes)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        bad = data[exc.start:exc.start + 1]
        raise DatasetError(
            name, f"file is not UTF-8 text (line {line}, byte {exc.start}: {bad!r}); it may be "
                  "Latin-1 / Windows-1252 — save it as UTF-8 (in Excel: 'CSV UTF-8')"
        ) from None

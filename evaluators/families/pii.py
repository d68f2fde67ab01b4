"""Offline PII detection for ``answer_contains_pii`` / ``context_contains_pii``.

Detected offline (type names follow Tonic Textual; lower-case aliases accepted):

* ``EMAIL_ADDRESS``  — local@domain.tld
* ``PHONE_NUMBER``   — 10–15 digits with the usual separators / ``+country`` / ``(area)``, or the
  7-digit ``555-1234`` form; spans that are a card, SSN, IBAN, IP address or ISO date are not phones
* ``CREDIT_CARD``    — 13–19 digits (spaces / dashes allowed) passing the Luhn checksum
* ``US_SSN``         — ``AAA-GG-SSSS`` (dashes or spaces) with a valid area / group / serial
* ``IBAN_CODE``      — country code + check digits + BBAN, 15–34 characters, ISO 13616 mod-97 = 1
* ``IP_ADDRESS``     — IPv4 or IPv6 (validated with ``ipaddress``)

Any other type name (``PERSON``, ``LOCATION_CITY``, ...) is judged by the LLM, when one is
configured. Detected values are never echoed into results: only counts per type.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Iterable

OFFLINE_TYPES: tuple[str, ...] = (
    "EMAIL_ADDRESS", "PHONE_NUMBER", "CREDIT_CARD", "US_SSN", "IBAN_CODE", "IP_ADDRESS",
)

ALIASES: dict[str, str] = {
    "email": "EMAIL_ADDRESS", "email_address": "EMAIL_ADDRESS",
    "phone": "PHONE_NUMBER", "phone_number": "PHONE_NUMBER",
    "credit_card": "CREDIT_CARD", "cc": "CREDIT_CARD", "card": "CREDIT_CARD",
    "ssn": "US_SSN", "us_ssn": "US_SSN",
    "iban": "IBAN_CODE", "iban_code": "IBAN_CODE",
    "ip": "IP_ADDRESS", "ip_address": "IP_ADDRESS",
}

_EMAIL = re.compile(r"(?<![\w.+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b")
_CARD = re.compile(r"(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])")
_SSN = re.compile(r"(?<![\d-])(\d{3})[- ](\d{2})[- ](\d{4})(?![\d-])")
_IBAN = re.compile(r"\b([A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30})\b")
_IPV4 = re.compile(r"(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?!\.?\d)")
_IPV6 = re.compile(r"(?<![\w:])(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?![\w:])")
_PHONE = re.compile(
    r"(?<![\w+])(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?)?\d{2,4}(?:[ .-]\d{2,4}){1,4}(?![\w])"
)
_PHONE_LOCAL = re.compile(r"(?<![\w-])\d{3}-\d{4}(?![\w-])")
_ISO_DATE = re.compile(r"^\d{4}[-./]\d{1,2}[-./]\d{1,2}$")


def canonical_type(name: str) -> str:
    key = str(name).strip()
    return ALIASES.get(key.lower(), key.upper())


def luhn_ok(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def iban_ok(code: str) -> bool:
    s = code.replace(" ", "").upper()
    if not (15 <= len(s) <= 34) or not re.fullmatch(r"[A-Z]{2}\d{2}[A-Z0-9]+", s):
        return False
    moved = s[4:] + s[:4]
    num = "".join(str(int(c, 36)) for c in moved)
    return int(num) % 97 == 1


def _ssn_ok(area: str, group: str, serial: str) -> bool:
    return area not in ("000", "666") and not area.startswith("9") and group != "00" and serial != "0000"


def _spans(text: str, kind: str) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    if kind == "EMAIL_ADDRESS":
        out = [m.span() for m in _EMAIL.finditer(text)]
    elif kind == "CREDIT_CARD":
        for m in _CARD.finditer(text):
            digits = re.sub(r"\D", "", m.group(0))
            if 13 <= len(digits) <= 19 and len(set(digits)) > 1 and luhn_ok(digits):
                out.append(m.span())
    elif kind == "US_SSN":
        out = [m.span() for m in _SSN.finditer(text) if _ssn_ok(*m.groups())]
    elif kind == "IBAN_CODE":
        out = [m.span(1) for m in _IBAN.finditer(text) if iban_ok(m.group(1))]
    elif kind == "IP_ADDRESS":
        for rx in (_IPV4, _IPV6):
            for m in rx.finditer(text):
                try:
                    ipaddress.ip_address(m.group(0))
                except ValueError:
                    continue
                out.append(m.span())
    elif kind == "PHONE_NUMBER":
        taken = [s for k in ("CREDIT_CARD", "US_SSN", "IP_ADDRESS") for s in _spans(text, k)]
        taken += [m.span(1) for m in _IBAN.finditer(text)]  # account-like strings, valid or not
        for rx in (_PHONE, _PHONE_LOCAL):
            for m in rx.finditer(text):
                s, e = m.span()
                raw = m.group(0)
                digits = re.sub(r"\D", "", raw)
                if rx is _PHONE and not (10 <= len(digits) <= 15):
                    continue
                if _ISO_DATE.match(raw) or any(s < te and ts < e for ts, te in taken + out):
                    continue
                out.append((s, e))
    else:
        raise ValueError(f"no offline detector for PII type {kind!r}")
    return out


def detect(text: str, types: Iterable[str] = OFFLINE_TYPES) -> dict[str, int]:
    """Count of matches per offline-detectable type (types with no match are omitted)."""
    found: dict[str, int] = {}
    for t in types:
        n = len(_spans(text or "", t))
        if n:
            found[t] = n
    return found

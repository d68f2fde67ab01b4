"""First-party cookies of this browser: read from the connection (``st.context.cookies``, what the
browser sent when the page was opened) and set by a small script (Streamlit has no API to set
one). Values are percent-encoded, so any text (a reviewer's name) is safe inside the script."""

from __future__ import annotations

import json
from urllib.parse import quote, unquote

import streamlit as st

#: One year.
MAX_AGE = 31536000


def get(name: str) -> str | None:
    """The cookie ``name`` the browser connected with (None without a browser, e.g. a bare run)."""
    try:
        v = st.context.cookies.get(name)
    except Exception:  # noqa: BLE001 - no browser connection (bare script runs, AppTest)
        return None
    return unquote(v) if isinstance(v, str) else None


def script(name: str, value: str) -> str:
    """A script that keeps ``name=value`` in this browser for a year (on https also inside an
    embedding page, a Hugging Face Space's iframe: Partitioned + Secure)."""
    cookie = json.dumps(f"{quote(name, safe='')}={quote(value, safe='')}; path=/; max-age={MAX_AGE}")
    return ("<script>(function(){var s=location.protocol==='https:'?"
            "'; SameSite=None; Secure; Partitioned':'; SameSite=Lax';"
            f"document.cookie={cookie}+s;}})();</script>")


def put(name: str, value: str) -> None:
    """Ask the browser to keep the cookie (an invisible element of the current script run)."""
    st.html(script(name, value), unsafe_allow_javascript=True)

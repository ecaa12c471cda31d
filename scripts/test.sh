#!/usr/bin/env bash
# The project's one test command: installs what is missing, lints, then runs
# every test, the real-cluster ones included (one cluster per session).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/bootstrap.sh
.venv/bin/ruff check .
.venv/bin/ruff format --check .
exec .venv/bin/python -m pytest -p no:cacheprovider "$@"

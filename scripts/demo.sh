#!/usr/bin/env bash
# The main job on its embedded default: a throwaway Ceph cluster, the exporter,
# S3 load, Prometheus and Alertmanager, printing the live signals.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/bootstrap.sh
exec .venv/bin/python -m demo.run "$@"

#!/usr/bin/env bash
# Builds the replay's second rule engine (main.go: Grafana Mimir's ruler and query engine over
# the same backfilled TSDB as replay/ruler) and prints its path (replay/go_build.sh). Needs Go >=
# 1.25.9 (go.mod's, Mimir's own); a cold build takes 3-4.5 minutes on two cores.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/../go_build.sh" "$here" mimir_ruler "Mimir's ruler" github.com/grafana/mimir

#!/usr/bin/env bash
# Builds the replay's rule engine (main.go: Prometheus's own rules.Group.Eval over a backfilled
# TSDB) and prints its path (replay/go_build.sh: once per machine, about 2 minutes the first
# time, seconds with the module cache warm).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/../go_build.sh" "$here" ruler "the rule engine" github.com/prometheus/prometheus

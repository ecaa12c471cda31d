#!/usr/bin/env bash
# The project's one test command: installs what is missing, lints, then runs
# every test, the real-cluster ones included (one cluster per release per session).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/bootstrap.sh
.venv/bin/ruff check .
.venv/bin/ruff format --check .
# Types: the exporter, and the module from its own directory (there `mgr_module` is Ceph's
# module, which only a manager has, not this repository's directory of the same name).
.venv/bin/mypy exporter
(cd mgr_module && ../.venv/bin/mypy --config-file ../pyproject.toml scale)
# Dead code: whatever is unused and not a framework's hook (scripts/vulture_allowlist.py).
.venv/bin/vulture exporter mgr_module rules/validate.py scripts/vulture_allowlist.py --min-confidence 60
# The newer releases' roots (built once per machine, cached under /var/tmp) are built while
# the first tests run; a test that needs one waits for its build (cluster/release_root.sh).
releases=${CEPH_SCALE_RELEASES:-pacific,reef,tentacle}
mkdir -p run
(
  for r in ${releases//,/ }; do
    [ "$r" = pacific ] || cluster/release_root.sh "$r" >/dev/null 2>>run/release-roots.log || true
  done
) &
builder=$!
# The trap keeps pytest's status: under `set -e` a cleanup command finding nothing left to
# stop (pkill's status 1) would otherwise end the script with 1 after a green run.
stop_builder() {
  local status=$?
  pkill -TERM -P "$builder" 2>/dev/null || true
  kill "$builder" 2>/dev/null || true
  exit "$status"
}
trap stop_builder EXIT
.venv/bin/python -m pytest -p no:cacheprovider --durations=25 "$@"

#!/usr/bin/env bash
# The project's one test command: installs what is missing, lints, then runs
# every test, the real-cluster ones included (one cluster per release per session).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/bootstrap.sh
.venv/bin/ruff check .
.venv/bin/ruff format --check .
# Types: every Python directory, strict on ceph_scale (pyproject.toml's [tool.mypy]), and the
# module from its own directory (there `mgr_module` is Ceph's module, which only a manager has,
# not this repository's directory of the same name), with the repository's root on the path
# for the ceph_scale it imports; no namespace packages, or that directory would be taken for
# Ceph's module.
.venv/bin/mypy
(cd mgr_module && MYPYPATH=.. ../.venv/bin/mypy --no-namespace-packages --config-file ../pyproject.toml scale compat)
# Dead code in every Python directory, tests included (they are what calls the test harness):
# whatever is unused and not in the allowlist of framework hooks (scripts/vulture_allowlist.py).
.venv/bin/vulture ceph_scale exporter mgr_module bench cluster dashboards demo deploy docker previews replay rules scripts tests --min-confidence 60
# The newer releases' roots (built once per machine, cached under /var/tmp) are built while
# the first tests run; a test that needs one waits for its build (cluster/release_root.sh).
# Then the replays' rule engine (replay/ruler: Go, about 2 minutes on a new machine), while the
# replays simulate their spans (a replay waits for a build under way, flock).
releases=$(echo "${CEPH_SCALE_RELEASES:-pacific,reef,tentacle}" | tr , '\n' | awk 'NF && !seen[$0]++' | paste -sd, -)
mkdir -p run
(
  for r in ${releases//,/ }; do
    [ "$r" = pacific ] || cluster/release_root.sh "$r" >/dev/null 2>>run/builds.log || true
  done
  [ $# -gt 0 ] || replay/ruler/build.sh >/dev/null 2>>run/builds.log || true
) &
builder=$!
# The trap keeps pytest's status: under `set -e` a cleanup command finding nothing left to
# stop (pkill's status 1) would otherwise end the script with 1 after a green run. Stopped itself
# (SIGTERM: CI's time limit; Ctrl-C) it stops its pytest processes, whose sessions then end as
# Ctrl-C ends one (tests/conftest.py): their fixtures' teardown stops the clusters, whose daemons
# run in sessions of their own, out of any group signal's reach. It waits for that, at most
# STOP_WAIT seconds (a teardown stuck on a hung cluster is then killed), telling them again every
# 5 s meanwhile, and prints the logs.
# A pytest under flock is signalled itself: flock would end at once and leave it running; one
# started here directly is signalled alone, not its children (its clusters' daemons, which its
# teardown stops).
flocked="" direct="" logs="" exits=""
STOP_WAIT=${CEPH_SCALE_STOP_WAIT:-180}
stop_children() {
  local status=$?
  trap - TERM INT
  pkill -TERM -P "$builder" 2>/dev/null || true
  kill "$builder" 2>/dev/null || true
  for pid in $flocked; do
    pkill -TERM -P "$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true
  done
  for pid in $direct; do
    kill "$pid" 2>/dev/null || true
  done
  if [ -n "$flocked$direct" ]; then
    ( # told again every 5 s (a stop raised where Python ignores it is lost), then killed
      set +e
      for _ in $(seq 5 5 "$STOP_WAIT"); do
        sleep 5
        for pid in $flocked; do pkill -TERM -P "$pid"; done
        kill $direct
      done
      for pid in $flocked; do pkill -KILL -P "$pid"; done
      kill -KILL $direct
    ) >/dev/null 2>&1 &
    local overdue=$!
    for pid in $flocked $direct; do
      wait "$pid" 2>/dev/null || true
    done
    kill "$overdue" 2>/dev/null || true
  fi
  print_logs
  exit "$status"
}
print_logs() { # each with its process's exit status, where it was waited for
  set -- $exits
  for log in $logs; do
    echo
    echo "=== run at the same time: $log${1:+ (exit $1)} ==="
    cat "$log"
    [ $# -eq 0 ] || shift
  done
  logs=""
}
trap stop_children EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
pytest=(.venv/bin/python -m pytest -p no:cacheprovider --durations=25)
newer=$(echo ",$releases," | sed -e 's/,pacific,/,/g' -e 's/^,*//' -e 's/,*$//')
if [ $# -gt 0 ] || [ "$newer" = "$releases" ] || [ -z "$newer" ]; then
  "${pytest[@]}" "$@" <&0 & # stdin kept (--pdb); waited for, so that a SIGTERM here stops it
  direct=$!
  status=0
  wait "$direct" || status=$?
  direct=""
  exit "$status"
fi
# A process per release's cluster tests and two for the tests that start no cluster, at once, so
# that the command stays within its budget on two cores (most of a cluster test is waiting on its
# cluster: one process alone leaves the cores idle, and one for both newer releases, their tests
# one after the other, was the run's longest by 8 minutes): Pacific's cluster tests, whose output
# is the command's; each newer release's in a process of its own; the tests that start no cluster
# (unit, docs, the replays, the promtool tests, and every release's tests that only read its
# packages: cephadm's, the manager's Python) in the last two (CEPH_SCALE_PART, tests/conftest.py:
# the signals' unit tests and the rest; one alone ran on one core for the run's last 11 minutes,
# once the clusters' processes were done, and the plunge run waited for it), the replays in the
# `rest` one, in two workers of their own beside its other tests (replay/workers.py).
# The others hold run/quiet.lock, shared, while they run. Pacific's heavy tests (tests/conftest.py)
# come last: the bucket watch's cost, counted at Pacific's cluster, beside the others' last tests;
# then the plunge run, which measures the cluster under load, takes the lock exclusively and so
# runs once the others are done.
lock=run/quiet.lock
: >"$lock"
for r in ${newer//,/ }; do
  CEPH_SCALE_RELEASES=$r CEPH_SCALE_CLUSTERLESS=0 CEPH_SCALE_PART= flock -s "$lock" "${pytest[@]}" >"run/pytest-$r.log" 2>&1 &
  flocked="$flocked $!"
  logs="$logs run/pytest-$r.log"
done
for part in rest signals; do
  free_log=run/pytest-clusterless-$part.log
  CEPH_SCALE_RELEASES=$releases CEPH_SCALE_CLUSTERLESS=only CEPH_SCALE_PART=$part flock -s "$lock" "${pytest[@]}" \
    >"$free_log" 2>&1 &
  flocked="$flocked $!"
  logs="$logs $free_log"
done
sleep 2 # the others hold the lock before anything here can ask for it
CEPH_SCALE_RELEASES=pacific CEPH_SCALE_CLUSTERLESS=0 CEPH_SCALE_PART= CEPH_SCALE_QUIET_LOCK=$lock "${pytest[@]}" &
direct=$!
status=0
wait "$direct" || status=$?
direct=""
for pid in $flocked; do
  other_status=0
  wait "$pid" || other_status=$?
  [ "$status" -ne 0 ] || status=$other_status
  exits="$exits $other_status"
done
flocked="" # all waited for: none to stop, nor a reused pid
print_logs
exit "$status"

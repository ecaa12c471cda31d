#!/usr/bin/env bash
# Builds the replay's rule engine (main.go: Prometheus's own rules.Group.Eval over a backfilled
# TSDB) once per machine from the Go module proxy, pinned by go.mod and go.sum, and prints its
# path. Cached under /var/tmp/ceph-scale-tools (CEPH_SCALE_TOOLS) as deploy/tools.sh caches
# helm, by a hash of this directory's files: a changed main.go or module version builds anew
# (about 2 minutes the first time, seconds with the module cache warm).
# Needs Go (/usr/local/go here); GOTOOLCHAIN=local: no toolchain is downloaded.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${CEPH_SCALE_TOOLS:-/var/tmp/ceph-scale-tools}
export GOTOOLCHAIN=local GOFLAGS=-mod=mod
if command -v go > /dev/null; then go=$(command -v go)
elif [ -x /usr/local/go/bin/go ]; then go=/usr/local/go/bin/go
else echo "replay/ruler/build.sh: Go is needed to build the rule engine (none on PATH or in /usr/local/go)" >&2; exit 1
fi
key=$(cat "$here/go.mod" "$here/go.sum" "$here/main.go" | sha256sum | cut -c1-16)
dest="$cache/replay-ruler-$key/ruler"
mkdir -p "$cache"
exec 9>"$cache/tools.lock"
flock 9
if [ ! -x "$dest" ]; then
  work=$(mktemp -d "$cache/replay-ruler-build.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  cp "$here/go.mod" "$here/go.sum" "$here/main.go" "$work/"
  echo "replay/ruler/build.sh: go build (github.com/prometheus/prometheus, as go.mod pins it)" >&2
  (cd "$work" && GOMODCACHE="$cache/mod" GOPATH="$cache/gopath" GOCACHE="$cache/replay-gocache" \
    "$go" build -o "$work/ruler" . >&2)
  mkdir -p "$(dirname "$dest")"
  mv "$work/ruler" "$dest"
fi
echo "$dest"

#!/usr/bin/env bash
# Builds the replay's second rule engine (main.go: Grafana Mimir's ruler and query engine over
# the same backfilled TSDB as replay/ruler) once per machine from the Go module proxy, pinned by
# go.mod and go.sum, and prints its path. Cached under /var/tmp/ceph-scale-tools
# (CEPH_SCALE_TOOLS), keyed by a hash of this directory's files, as replay/ruler/build.sh is.
# Needs Go >= 1.25.9 (go.mod's, Mimir's own); GOTOOLCHAIN=local: no toolchain is downloaded.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${CEPH_SCALE_TOOLS:-/var/tmp/ceph-scale-tools}
export GOTOOLCHAIN=local GOFLAGS=-mod=mod
if command -v go > /dev/null; then go=$(command -v go)
elif [ -x /usr/local/go/bin/go ]; then go=/usr/local/go/bin/go
else echo "replay/mimir_ruler/build.sh: Go is needed to build Mimir's ruler (none on PATH or in /usr/local/go)" >&2; exit 1
fi
key=$(cat "$here/go.mod" "$here/go.sum" "$here/main.go" | sha256sum | cut -c1-16)
dest="$cache/replay-mimir-ruler-$key/mimir_ruler"
mkdir -p "$cache"
exec 9>"$cache/tools.lock"
flock 9
if [ ! -x "$dest" ]; then
  work=$(mktemp -d "$cache/replay-mimir-ruler-build.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  cp "$here/go.mod" "$here/go.sum" "$here/main.go" "$work/"
  echo "replay/mimir_ruler/build.sh: go build (github.com/grafana/mimir, as go.mod pins it)" >&2
  (cd "$work" && GOMODCACHE="$cache/mod" GOPATH="$cache/gopath" GOCACHE="$cache/replay-gocache" \
    "$go" build -o "$work/mimir_ruler" . >&2)
  mkdir -p "$(dirname "$dest")"
  mv "$work/mimir_ruler" "$dest"
fi
echo "$dest"

#!/usr/bin/env bash
# Builds one of the replay's Go rule engines (DIR/main.go, pinned by DIR/go.mod and go.sum) once
# per machine from the Go module proxy, and prints its path. Cached under
# /var/tmp/ceph-scale-tools (CEPH_SCALE_TOOLS) as deploy/tools.sh caches helm, by a hash of those
# three files: a changed main.go or module version builds anew.
# Needs Go (/usr/local/go here); GOTOOLCHAIN=local: no toolchain is downloaded.
#   go_build.sh DIR NAME WHAT MODULE   (NAME: the binary and its cache entry; WHAT, MODULE: said)
set -euo pipefail
here=$1 name=$2 what=$3 module=$4
caller="replay/$(basename "$here")/build.sh"
cache=${CEPH_SCALE_TOOLS:-/var/tmp/ceph-scale-tools}
export GOTOOLCHAIN=local GOFLAGS=-mod=mod
if command -v go > /dev/null; then go=$(command -v go)
elif [ -x /usr/local/go/bin/go ]; then go=/usr/local/go/bin/go
else echo "$caller: Go is needed to build $what (none on PATH or in /usr/local/go)" >&2; exit 1
fi
key=$(cat "$here/go.mod" "$here/go.sum" "$here/main.go" | sha256sum | cut -c1-16)
dest="$cache/replay-${name//_/-}-$key/$name"
mkdir -p "$cache"
exec 9>"$cache/tools.lock"
flock 9
if [ ! -x "$dest" ]; then
  work=$(mktemp -d "$cache/replay-${name//_/-}-build.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  cp "$here/go.mod" "$here/go.sum" "$here/main.go" "$work/"
  echo "$caller: go build ($module, as go.mod pins it)" >&2
  (cd "$work" && GOMODCACHE="$cache/mod" GOPATH="$cache/gopath" GOCACHE="$cache/replay-gocache" \
    "$go" build -o "$work/$name" . >&2)
  mkdir -p "$(dirname "$dest")"
  mv "$work/$name" "$dest"
fi
echo "$dest"

#!/usr/bin/env bash
# The tools the deployment tests render and validate with, built or fetched once per machine
# from the Go module proxy and cached under /var/tmp/ceph-scale-tools (CEPH_SCALE_TOOLS):
#
#   deploy/tools.sh helm    # prints the path of helm, built with `go install` (about 2 minutes once)
#   deploy/tools.sh crds    # prints the directories of the prometheus-operator and Rook modules,
#                           # whose CRDs (and their openAPIV3Schema) the manifests are checked against
#
# Needs Go (this project's machines have it); GOTOOLCHAIN=local: no toolchain is downloaded.
set -euo pipefail
cache=${CEPH_SCALE_TOOLS:-/var/tmp/ceph-scale-tools}
helm_version=v3.19.5
prometheus_operator=github.com/prometheus-operator/prometheus-operator@v0.85.0
rook=github.com/rook/rook@v1.15.5
export GOTOOLCHAIN=local GOFLAGS=-mod=mod

go_bin() {
  if command -v go > /dev/null; then command -v go
  elif [ -x /usr/local/go/bin/go ]; then echo /usr/local/go/bin/go
  else echo "tools.sh: Go is needed to build helm and fetch the CRD modules (none on PATH or in /usr/local/go)" >&2; exit 1
  fi
}

mkdir -p "$cache"
exec 9>"$cache/tools.lock"
flock 9
case "${1:-}" in
  helm)
    dest="$cache/helm-$helm_version"
    if [ ! -x "$dest/bin/helm" ]; then
      go=$(go_bin)
      work="$cache/helm-build"
      rm -rf "$work" && mkdir -p "$work"
      echo "tools.sh: go install helm.sh/helm/v3/cmd/helm@$helm_version" >&2
      GOBIN="$dest/bin" GOMODCACHE="$work/mod" GOCACHE="$work/cache" GOPATH="$work/gopath" \
        "$go" install "helm.sh/helm/v3/cmd/helm@$helm_version" >&2
      GOMODCACHE="$work/mod" "$go" clean -modcache
      rm -rf "$work"
    fi
    echo "$dest/bin/helm"
    ;;
  crds)
    go=$(go_bin)
    for module in "$prometheus_operator" "$rook"; do
      GOMODCACHE="$cache/mod" GOPATH="$cache/gopath" "$go" mod download -json "$module" \
        | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p'
    done
    ;;
  *)
    echo "usage: tools.sh helm|crds" >&2
    exit 2
    ;;
esac

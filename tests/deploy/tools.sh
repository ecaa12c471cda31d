#!/usr/bin/env bash
# The tools the deployment tests render and validate with, built or fetched once per machine
# from the Go module proxy and cached under /var/tmp/ceph-scale-tools (CEPH_SCALE_TOOLS):
#
#   tests/deploy/tools.sh helm    # prints the path of helm, built with `go install` (about 2 minutes once)
#   tests/deploy/tools.sh crds    # prints the directories of the prometheus-operator and Rook modules,
#                                 # whose CRDs (and their openAPIV3Schema) the manifests are checked against
#   tests/deploy/tools.sh pod-security-check   # prints the path of a checker built on Kubernetes' own
#                                 # Pod Security admission code (k8s.io/pod-security-admission): a pod
#                                 # template (JSON) on stdin, "allowed" or each forbidden control (exit 1)
#
# Needs Go (this project's machines have it); GOTOOLCHAIN=local: no toolchain is downloaded.
set -euo pipefail
cache=${CEPH_SCALE_TOOLS:-/var/tmp/ceph-scale-tools}
helm_version=v3.19.5
prometheus_operator=github.com/prometheus-operator/prometheus-operator@v0.85.0
rook=github.com/rook/rook@v1.15.5
pod_security_admission=v0.34.2  # Kubernetes 1.34's admission code; its k8s.io/api alongside
export GOTOOLCHAIN=local GOFLAGS=-mod=mod

go_bin() {
  if command -v go > /dev/null; then command -v go
  elif [ -x /usr/local/go/bin/go ]; then echo /usr/local/go/bin/go
  else echo "tools.sh: Go is needed to build helm and fetch the CRD modules (none on PATH or in /usr/local/go)" >&2; exit 1
  fi
}

# The checker's source: restricted, latest version, as a namespace labelled
# pod-security.kubernetes.io/enforce=restricted evaluates a pod.
write_pod_security_check() {
  cat > "$1/go.mod" <<'GOMOD'
module podsecuritycheck

go 1.24.0
GOMOD
  cat > "$1/main.go" <<'GO'
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/pod-security-admission/api"
	"k8s.io/pod-security-admission/policy"
)

func main() {
	data, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pod-security-check: reading stdin:", err)
		os.Exit(2)
	}
	var pod corev1.PodTemplateSpec
	if err := json.Unmarshal(data, &pod); err != nil {
		fmt.Fprintln(os.Stderr, "pod-security-check: not a pod template:", err)
		os.Exit(2)
	}
	evaluator, err := policy.NewEvaluator(policy.DefaultChecks())
	if err != nil {
		fmt.Fprintln(os.Stderr, "pod-security-check:", err)
		os.Exit(2)
	}
	level := api.LevelVersion{Level: api.LevelRestricted, Version: api.LatestVersion()}
	result := policy.AggregateCheckResults(evaluator.EvaluatePod(level, &pod.ObjectMeta, &pod.Spec))
	if !result.Allowed {
		for i, reason := range result.ForbiddenReasons {
			fmt.Printf("%s: %s\n", reason, result.ForbiddenDetails[i])
		}
		os.Exit(1)
	}
	fmt.Println("allowed")
}
GO
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
  pod-security-check)
    dest="$cache/pod-security-check-$pod_security_admission"
    if [ ! -x "$dest/bin/pod-security-check" ]; then
      go=$(go_bin)
      work="$cache/pod-security-check-build"
      rm -rf "$work" && mkdir -p "$work"
      write_pod_security_check "$work"
      echo "tools.sh: go build pod-security-check (k8s.io/pod-security-admission@$pod_security_admission)" >&2
      (cd "$work" && GOMODCACHE="$cache/mod" GOPATH="$cache/gopath" GOCACHE="$work/cache" \
        "$go" get "k8s.io/pod-security-admission@$pod_security_admission" "k8s.io/api@$pod_security_admission" >&2 \
        && GOMODCACHE="$cache/mod" GOPATH="$cache/gopath" GOCACHE="$work/cache" \
        "$go" build -o "$dest/bin/pod-security-check" . >&2)
      rm -rf "$work"
    fi
    echo "$dest/bin/pod-security-check"
    ;;
  *)
    echo "usage: tools.sh helm|crds|pod-security-check" >&2
    exit 2
    ;;
esac

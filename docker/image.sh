#!/usr/bin/env bash
# Builds the sidecar image (./Dockerfile) with Debian's podman, offline but for the
# Debian mirror, and runs podman on the project's own image store.
#
#   docker/image.sh build [--suite SUITE] [TAG]  # the sidecar image (default localhost/ceph-scale-exporter:test)
#   docker/image.sh build-mgr TAG    # mgr_module/Containerfile (needs CEPH_IMAGE in the store)
#   docker/image.sh base [SUITE]     # the Debian base alone; prints its reference
#   docker/image.sh podman ARGS...   # podman with the project's store and containers.conf
#
# SUITE is the Debian suite whose librados the image gets (the Dockerfile's DEBIAN_SUITE):
# bookworm (Pacific 16.2), trixie (Reef 18.2, the default), sid (Tentacle 20.2; its client
# alone reads Tentacle's default AES256KRB5 keys). The base, debian:SUITE-slim, is made here:
# `debootstrap --variant=minbase SUITE` from the host's own Debian mirror (as
# cluster/release_root.sh does), imported as docker.io/library/debian:SUITE-slim. Each suite's
# base and the store are cached under /var/tmp/ceph-scale-image (CEPH_SCALE_IMAGE_CACHE), so a
# machine pays each debootstrap once.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
cache=${CEPH_SCALE_IMAGE_CACHE:-/var/tmp/ceph-scale-image}
# Bump when the base recipe changes, so that a cached base is rebuilt.
base_recipe=1
default_suite=trixie
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"

need_tools() {
  local missing=() p
  # catatonit: podman's --init, which cephadm gives every container it runs.
  for p in podman runc debootstrap catatonit; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "image.sh: installing ${missing[*]}" >&2
    $SUDO apt-get update -q >&2
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
  fi
  mkdir -p "$cache"
  # No systemd to ask for cgroups, no ulimits to raise inside this sandbox: runc, cgroupfs.
  cat > "$cache/containers.conf" <<'CONF'
[containers]
default_ulimits = []

[engine]
cgroup_manager = "cgroupfs"
runtime = "runc"
CONF
}

pod() {
  CONTAINERS_CONF="$cache/containers.conf" $SUDO podman --root "$cache/storage" --runroot "$cache/run" "$@"
}

suite_checked() {
  case "$1" in
    bookworm|trixie|sid) ;;
    *) echo "image.sh: unknown Debian suite '$1' (bookworm, trixie, sid)" >&2; exit 2 ;;
  esac
}

base_ready() {
  [ -f "$cache/base-$suite.recipe" ] && [ "$(cat "$cache/base-$suite.recipe")" = "$base_recipe" ] \
    && pod image exists "$base_ref"
}

# The base of $suite, imported as $base_ref unless the cache has it.
ensure_base() {
  base_ref=docker.io/library/debian:$suite-slim
  need_tools
  if base_ready; then return 0; fi
  exec 9>"$cache/base-$suite.lock"
  flock 9
  if base_ready; then return 0; fi
  local tarball="$cache/$suite-minbase-$base_recipe.tar"
  if [ ! -f "$tarball" ]; then
    local mirror
    mirror=$(grep -hoE '^(URIs:|deb) +https?://[^ ]+' /etc/apt/sources.list /etc/apt/sources.list.d/*.sources \
      /etc/apt/sources.list.d/*.list 2>/dev/null | grep -v security | head -n1 | awk '{print $2}' || true)
    [ -n "$mirror" ] || { echo "image.sh: no Debian mirror in the host's apt sources" >&2; exit 1; }
    local work="$cache/base-$suite.building"
    $SUDO rm -rf "$work"
    echo "image.sh: debootstrap $suite into $work ($mirror)" >&2
    $SUDO debootstrap --variant=minbase "$suite" "$work" "$mirror" >&2
    $SUDO chroot "$work" apt-get clean
    $SUDO rm -rf "$work"/var/lib/apt/lists/*
    $SUDO tar -C "$work" -cf "$tarball.part" .
    mv "$tarball.part" "$tarball"
    $SUDO rm -rf "$work"
  fi
  pod import "$tarball" "$base_ref" >&2
  echo "$base_recipe" > "$cache/base-$suite.recipe"
}

cmd=${1:-build}
shift || true
case "$cmd" in
  build)
    suite=$default_suite
    if [ "${1:-}" = --suite ]; then
      [ $# -ge 2 ] || { echo "image.sh: --suite needs a suite (bookworm, trixie, sid)" >&2; exit 2; }
      suite=$2
      shift 2
    fi
    suite_checked "$suite"
    tag=${1:-localhost/ceph-scale-exporter:test}
    ensure_base
    # One build at a time: the test command's two processes may both ask (they share the storage).
    exec 8>"$cache/build.lock"
    flock 8
    # The host's mirror may be a dated snapshot, past sid's short-lived Release files: apt
    # judges them by their signature alone (as cluster/release_root.sh does).
    pod build --pull=never --network host --isolation chroot --format docker \
      --build-arg "DEBIAN_SUITE=$suite" --build-arg APT_CHECK_VALID_UNTIL=false \
      -t "$tag" -f "$repo/Dockerfile" "$repo" >&2
    pod image inspect --format '{{.Id}}' "$tag"
    ;;
  build-mgr)
    tag=${1:?usage: image.sh build-mgr TAG}
    need_tools
    "$repo/mgr_module/install.sh" "$repo/build/scale" >&2
    pod build --pull=never --network host --isolation chroot --format docker -t "$tag" \
      -f "$repo/mgr_module/Containerfile" "$repo" >&2
    ;;
  base)
    suite=${1:-$default_suite}
    suite_checked "$suite"
    ensure_base
    echo "$base_ref"
    ;;
  podman)
    need_tools
    pod "$@"
    ;;
  *)
    echo "image.sh: unknown command '$cmd' (build, build-mgr, base, podman)" >&2
    exit 2
    ;;
esac

#!/usr/bin/env bash
# Builds, once per machine, a Debian root holding a newer Ceph release, and
# prints its path. The test cluster runs that release's daemons inside it
# (chroot, loopback, no systemd). Cached under /var/tmp, so CI pays the
# debootstrap once per machine.
#
#   cluster/release_root.sh reef       # Debian 13 (trixie): Ceph 18.2, Python 3.13
#   cluster/release_root.sh tentacle   # Debian sid: Ceph 20.2, Python 3.14
set -euo pipefail
release=${1:?usage: release_root.sh reef|tentacle}
case "$release" in
  reef) suite=trixie ;;
  tentacle) suite=sid ;;
  *) echo "release_root.sh: unknown release '$release' (reef, tentacle)" >&2; exit 2 ;;
esac
cache=${CEPH_SCALE_ROOTS:-/var/tmp/ceph-scale-roots}
root="$cache/$release"
# Bump when the package list changes, so that cached roots are rebuilt.
recipe=2
packages=(ceph-mon ceph-mgr ceph-osd radosgw ceph-common python3-prometheus-client python3-yaml python3-rados)

ready() { [ -f "$root/.ceph-scale-ready" ] && [ "$(cat "$root/.ceph-scale-ready")" = "$recipe" ]; }
if ready; then echo "$root"; exit 0; fi
# One build at a time per release: a second caller (the tests, while scripts/test.sh builds
# the roots in the background) waits for it and then finds the root ready.
mkdir -p "$cache"
exec 9>"$cache/$release.lock"
flock 9
if ready; then echo "$root"; exit 0; fi
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
if ! command -v debootstrap >/dev/null; then
  $SUDO apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends debootstrap >&2
fi
# The same Debian mirror the host's apt uses.
mirror=$(grep -hoE '^(URIs:|deb) +https?://[^ ]+' /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list 2>/dev/null \
  | grep -v security | head -n1 | awk '{print $2}' || true)
[ -n "$mirror" ] || { echo "release_root.sh: no Debian mirror found in the host's apt sources" >&2; exit 1; }

# Test clusters bind-mount their directories into a root: never delete through a mount.
unmount_all() {
  local mounts
  mounts=$(awk -v r="$1/" 'index($5, r) == 1 {print $5}' /proc/self/mountinfo | sort -r)
  for m in $mounts; do $SUDO umount -l "$m"; done
}
work="$root.building"
cleanup() { unmount_all "$work"; }
trap cleanup EXIT
unmount_all "$work"
$SUDO rm -rf "$work"
mkdir -p "$cache"
echo "release_root.sh: debootstrap $suite into $work ($mirror)" >&2
$SUDO debootstrap --variant=minbase "$suite" "$work" "$mirror" >&2
$SUDO mount -t proc proc "$work/proc"
printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$work/usr/sbin/policy-rc.d" >/dev/null
$SUDO chmod 755 "$work/usr/sbin/policy-rc.d"
# sid's Release file is short-lived and the mirror may be a dated snapshot: judge it by its signature.
$SUDO chroot "$work" apt-get -o Acquire::Check-Valid-Until=false update -q >&2
$SUDO chroot "$work" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${packages[@]}" >&2
$SUDO chroot "$work" apt-get clean
cleanup
echo "$recipe" | $SUDO tee "$work/.ceph-scale-ready" >/dev/null
unmount_all "$root"
$SUDO rm -rf "$root"
$SUDO mv "$work" "$root"
echo "$root"

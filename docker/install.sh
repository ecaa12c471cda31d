#!/usr/bin/env bash
# The sidecar image's build steps, as one script: the Dockerfile runs it, and
# CI runs it on the build host (with --root DIR and --check) so that a broken
# step fails CI even where no container engine runs.
#
#   install.sh                 # inside the image: apt packages, files, user
#   install.sh --only packages # the apt packages alone (the Dockerfile's first layer, which
#   install.sh --only files    # a change of the exporter's code does not rebuild)
#   install.sh --root DIR --check   # on a host: files into DIR, packages only resolved
set -euo pipefail
root=/
check=0
only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --root) root="$2"; shift 2 ;;
    --check) check=1; shift ;;
    --only) only="$2"; shift 2 ;;
    *) echo "install.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
here="$(cd "$(dirname "$0")" && pwd)"
src="$(dirname "$here")"
mapfile -t packages < <(grep -v '^#' "$here/packages.txt" | grep -v '^$')
mapfile -t if_available < <(grep -v '^#' "$here/packages-if-available.txt" | grep -v '^$')

case "$only" in
  ""|packages|files) ;;
  *) echo "install.sh: --only packages|files, not '$only'" >&2; exit 2 ;;
esac
# Those of packages-if-available.txt the suite can install now (after its lists are read): one
# listed but not installable (sid in a transition) is left out, not a failed build.
add_available() {
  local p
  for p in "${if_available[@]}"; do
    if apt-get install -s -y --no-install-recommends "$p" > /dev/null 2>&1; then packages+=("$p"); fi
  done
}
if [ "$check" -eq 1 ]; then
  # Resolve every package and its dependencies without installing anything.
  add_available
  apt-get install -s -y --no-install-recommends "${packages[@]}" > /dev/null
elif [ "$only" != files ]; then
  # The Dockerfile's build argument: false for a mirror that is a dated snapshot.
  apt-get -o "Acquire::Check-Valid-Until=${APT_CHECK_VALID_UNTIL:-true}" update -q
  add_available
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${packages[@]}"
  rm -rf /var/lib/apt/lists/*
fi
[ "$only" != packages ] || exit 0

dest="$root/opt/ceph-scale-signals"
mkdir -p "$dest" "$root/usr/local/bin" "$root/etc/ceph-scale"
rm -rf "$dest/exporter" "$dest/ceph_scale"
# Only the packages (the sidecar, and the core and I/O it imports), without caches or tests.
(cd "$src" && tar --exclude='__pycache__' -cf - exporter ceph_scale) | (cd "$dest" && tar -xf -)
cat > "$root/usr/local/bin/ceph-scale-exporter" <<'WRAP'
#!/bin/sh
PYTHONPATH=/opt/ceph-scale-signals${PYTHONPATH:+:$PYTHONPATH} exec /usr/bin/python3 -m exporter "$@"
WRAP
chmod 0755 "$root/usr/local/bin/ceph-scale-exporter"
if [ "$root" != "/" ]; then
  # Host check: the installed tree must run with the system Python alone.
  PYTHONPATH="$dest" /usr/bin/python3 -m exporter --help > /dev/null
  PYTHONPATH="$dest" /usr/bin/python3 -c "import exporter.sidecar.main, ceph_scale.core.derive, ceph_scale.io.runner"
  echo "install.sh: ok (files in $dest, packages resolve)"
else
  # The exporter runs as an unprivileged user that owns only its state directory.
  getent group ceph-scale > /dev/null || groupadd --system --gid 10001 ceph-scale
  id ceph-scale > /dev/null 2>&1 || useradd --system --uid 10001 --gid 10001 --no-create-home --shell /usr/sbin/nologin ceph-scale
  install -d -o ceph-scale -g ceph-scale -m 0750 /var/lib/ceph-scale
fi

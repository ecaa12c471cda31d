#!/usr/bin/env bash
# Installs everything the demo and the tests need on a fresh Debian 12 machine.
# Idempotent: a second run only checks. Ceph, Prometheus and Alertmanager come
# from Debian; Python tools go into .venv, which sees the system site-packages
# so that librados (python3-rados) and python3-prometheus-client are the very
# modules ceph-mgr itself uses.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  ceph-mon ceph-mgr ceph-osd radosgw ceph-common
  python3-rados python3-prometheus-client python3-yaml python3-venv python3-bcrypt openssl pipx
  prometheus prometheus-alertmanager ceph-prometheus-alerts
  systemd python3-seccomp
)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "bootstrap: installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# Debian's packages start nothing without systemd, but on a host with systemd
# the prometheus package starts its own daemon on :9090; we never rely on it
# and use our own ports, so it is left alone.

if [ ! -x .venv/bin/python ]; then
  /usr/bin/python3 -m venv --system-site-packages .venv
fi
stamp=.venv/.requirements.sha
want=$(sha256sum requirements-dev.txt | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  .venv/bin/python -m pip install -q --disable-pip-version-check -r requirements-dev.txt
  echo "$want" > "$stamp"
fi
echo "bootstrap: ok ($(ceph --version | cut -d' ' -f1-3), $(.venv/bin/python --version))"

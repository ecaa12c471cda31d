#!/bin/sh
# Install the ceph-mgr module `scale` into DEST_DIR, with the shared derivation core
# copied in place of its symlink (scale/ceph_scale_core -> ../../exporter/core).
#
#   mgr_module/install.sh /usr/share/ceph/mgr/scale      # packaged host (every mgr host)
#   mgr_module/install.sh ./build/scale                  # then COPY it into a container image
#
# Then: ceph mgr module enable scale
set -eu

if [ $# -ne 1 ] || [ -z "$1" ]; then
    echo "usage: $0 DEST_DIR   (e.g. /usr/share/ceph/mgr/scale)" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
src="$here/scale"
dest=$1

if [ ! -f "$src/ceph_scale_core/derive.py" ]; then
    echo "error: $src/ceph_scale_core does not lead to the derivation core (exporter/core)" >&2
    exit 1
fi
case "$(basename "$dest")" in
    scale) ;;
    *) echo "warning: the manager names a module after its directory; $dest is not named 'scale'" >&2 ;;
esac

tmp="$dest.tmp.$$"
rm -rf "$tmp"
mkdir -p "$tmp"
# -L: dereference the core's symlink; no caches, no tests.
(cd "$src" && find -L . -name '__pycache__' -prune -o -type f -name '*.py' -print) | while read -r f; do
    mkdir -p "$tmp/$(dirname "$f")"
    cp -L "$src/$f" "$tmp/$f"
done
chmod -R a+rX "$tmp"
rm -rf "$dest"
mv "$tmp" "$dest"
echo "installed the ceph-mgr module 'scale' in $dest"
echo "enable it with: ceph mgr module enable scale"

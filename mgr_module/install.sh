#!/bin/sh
# Install the ceph-mgr module `scale`, with the pure core and the I/O package it imports
# (the repository's ceph_scale/: core/ and io/) copied into it as scale/ceph_scale/.
#
#   mgr_module/install.sh /usr/share/ceph/mgr/scale     # into the stock module directory
#   mgr_module/install.sh --module-path /var/lib/ceph/mgr-modules
#       # a module directory of its own: a symlink to every stock module plus a copy of
#       # `scale`; then: ceph config set mgr mgr_module_path /var/lib/ceph/mgr-modules
#       # (the manager loads modules from that one directory, so the stock ones must be
#       # there too; package upgrades of the stock modules are followed through the links)
#   mgr_module/install.sh build/scale                   # then COPY it into a container
#                                                       # image (mgr_module/Containerfile)
#
# Into a manager's module directory (the first two), it also installs the bcrypt stand-in
# when this manager needs it to load any module (compat/needs_bcrypt_stand_in.py tells, run
# with $CEPH_MGR_PYTHON, default /usr/bin/python3, the manager's own).
#
# Then restart the managers and: ceph mgr module enable scale
set -eu

usage() {
    echo "usage: $0 DEST_DIR | --module-path DIR [--stock STOCK_DIR]" >&2
    exit 2
}

here=$(cd "$(dirname "$0")" && pwd)
src="$here/scale"
# Beside mgr_module/ in a checkout, and in the pip install's share/ceph-scale-signals/.
packages="$(dirname "$here")/ceph_scale"
module_path=""
stock=/usr/share/ceph/mgr
case "${1:-}" in
    "") usage ;;
    --module-path)
        [ $# -ge 2 ] && [ -n "$2" ] || usage
        module_path=$2
        shift 2
        if [ "${1:-}" = "--stock" ]; then
            [ $# -eq 2 ] || usage
            stock=$2
            shift 2
        fi
        [ $# -eq 0 ] || usage
        dest="$module_path/scale"
        ;;
    -*) usage ;;
    *)
        [ $# -eq 1 ] || usage
        dest=$1
        ;;
esac

if [ ! -f "$packages/core/derive.py" ] || [ ! -f "$packages/io/runner.py" ]; then
    echo "error: $packages does not hold the derivation core and its I/O (ceph_scale/core, ceph_scale/io)" >&2
    exit 1
fi
case "$(basename "$dest")" in
    scale) ;;
    *) echo "warning: the manager names a module after its directory; $dest is not named 'scale'" >&2 ;;
esac

if [ -n "$module_path" ]; then
    if [ ! -d "$stock/prometheus" ]; then
        echo "error: $stock does not hold the stock manager modules (use --stock DIR)" >&2
        exit 1
    fi
    mkdir -p "$module_path"
    for entry in "$stock"/*; do
        name=$(basename "$entry")
        [ "$name" = scale ] && continue
        [ -e "$module_path/$name" ] || [ -L "$module_path/$name" ] || ln -s "$entry" "$module_path/$name"
    done
fi

# The manager's module directory: the one --module-path makes, or the one DEST_DIR is in when it
# holds the manager's own modules (mgr_module.py), as /usr/share/ceph/mgr does. Not build/.
module_dir=$module_path
if [ -z "$module_dir" ] && [ -e "$(dirname "$dest")/mgr_module.py" ]; then
    module_dir=$(dirname "$dest")
fi
if [ -n "$module_dir" ]; then
    # A manager that runs modules in sub-interpreters refuses every module when the system
    # bcrypt is a PyO3 build (Reef on Debian 13 / Ubuntu 24.04); a stand-in first on the
    # module path lets them load (compat/stand_in/bcrypt/__init__.py says what it gives up).
    # -I: the probe answers for the system's bcrypt, not for whatever sits beside it.
    python=${CEPH_MGR_PYTHON:-/usr/bin/python3}
    probe="$here/compat/needs_bcrypt_stand_in.py"
    needed=0
    "$python" -I "$probe" || needed=$?
    stand_in="$module_dir/bcrypt"
    case $needed in
        0)
            rm -rf "$stand_in"
            cp -r "$here/compat/stand_in/bcrypt" "$stand_in"
            rm -rf "$stand_in/__pycache__"
            chmod -R a+rX "$stand_in"
            echo "this manager's Python cannot load its bcrypt in a sub-interpreter: installed a stand-in in $stand_in"
            ;;
        1)
            if grep -qs "ceph-scale-subinterpreter-stand-in" "$stand_in/__init__.py"; then
                rm -rf "$stand_in"
                echo "this manager loads its own bcrypt: removed the stand-in from $stand_in"
            fi
            ;;
        *)
            echo "error: cannot tell whether this manager needs the bcrypt stand-in: $python -I $probe exited $needed" >&2
            exit 1
            ;;
    esac
fi

tmp="$dest.tmp.$$"
rm -rf "$tmp"
mkdir -p "$tmp"
# The module's own files, then ceph_scale/ into it (scale/__init__.py puts its directory first
# on sys.path); Python source only: no caches, no tests.
copy_python() {
    (cd "$1" && find . \( -name '__pycache__' -o -name tests \) -prune -o -type f -name '*.py' -print) |
        while read -r f; do
            mkdir -p "$2/$(dirname "$f")"
            cp "$1/$f" "$2/$f"
        done
}
copy_python "$src" "$tmp"
copy_python "$packages" "$tmp/ceph_scale"
chmod -R a+rX "$tmp"
rm -rf "$dest"
mv "$tmp" "$dest"
echo "installed the ceph-mgr module 'scale' in $dest"
if [ -n "$module_path" ]; then
    echo "point the managers at it: ceph config set mgr mgr_module_path $module_path (then restart them)"
fi
echo "enable it with: ceph mgr module enable scale"

"""The managers' module directory, made the way docs/mgr-module.md tells operators to make it:
`mgr_module/install.sh --module-path DIR` (every stock module linked, `scale` copied, and the
bcrypt stand-in where the release's manager cannot load a module without it), then
`ceph config set mgr mgr_module_path DIR` before the managers start.

Where the harness must differ, and why: a newer release's managers run in its root (chroot), so
its installer runs there too, with the root's python3 and stock modules, from the checkout
bind-mounted read-only at its own path inside the root. The installer's probe and links then see
exactly what those managers see, and nothing is copied or decided on the installer's behalf.

A mixin of TestCluster (cluster/testcluster.py).
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

from cluster.commands import documented_command
from cluster.helpers import CephError
from cluster.host import ClusterHost
from cluster.releases import REPO, Release, mounted

INSTALLER = REPO / "mgr_module" / "install.sh"
GUIDE = "docs/mgr-module.md"  # its commands, with the cluster's directory for the documented one


def show_checkout_in_root(release: Release, checkout: Path) -> None:
    """The checkout at its own path inside the release's root, read-only. Left mounted, as the
    root's /proc is: test processes running at the same time may be installing from it
    (cluster/release_root.sh unmounts everything under a root before it removes it)."""
    if release.root is None:
        return
    target = release.host_path(checkout)
    if mounted(target):
        here, there = checkout.stat(), target.stat()
        if (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino):
            return
        # A checkout removed and cloned again at the same path: the mount still shows the old one.
        subprocess.run(["umount", "-l", str(target)], check=True)
    target.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "--bind", str(checkout), str(target)], check=True)
    subprocess.run(["mount", "-o", "remount,bind,ro", str(target)], check=True)


class ManagerModules(ClusterHost):
    @property
    def mgr_module_dir(self) -> Path:
        """The managers' module directory (mgr_module_path), inside the cluster's directory."""
        return self.dir / "mgr-modules"

    def uses_mgr_module_dir(self) -> bool:
        """Pacific's stock directory serves as it is unless a module is added. A newer release's
        manager may need the bcrypt stand-in to load any module, the stock prometheus one
        included, and only the installer tells: it runs there whatever the modules asked for."""
        return bool(self.extra_mgr_modules) or self.release.root is not None

    def _installer(self) -> Path:
        """install.sh beside the `scale` module directory the cluster was given (the checkout's)."""
        unknown = sorted(set(self.extra_mgr_modules) - {"scale"})
        if unknown:
            raise ValueError(f"extra_mgr_modules: no installer for {', '.join(unknown)} (only 'scale' has one)")
        src = self.extra_mgr_modules.get("scale")
        installer = Path(src).resolve().parent / "install.sh" if src else INSTALLER
        if not installer.is_file():
            raise ValueError(f"extra_mgr_modules: {src} has no install.sh beside it")
        return installer

    def install_mgr_modules(self) -> str:
        """Run the module's installer, as documented, into mgr_module_dir; its output."""
        installer = self._installer()
        show_checkout_in_root(self.release, installer.parent.parent)
        args = documented_command(GUIDE, "./mgr_module/install.sh --module-path ")[1:]
        args[args.index("--module-path") + 1] = str(self.mgr_module_dir)
        argv = [str(installer), *args]  # as documented: the script itself, its own #!/bin/sh
        try:
            proc = subprocess.run(self.release.command(argv), capture_output=True, text=True, timeout=120)
        except subprocess.TimeoutExpired as e:
            raise CephError(f"{installer} --module-path timed out after 120 s") from e
        if proc.returncode != 0:
            raise CephError(f"{installer} --module-path exited {proc.returncode}: {proc.stderr.strip()[-800:]}")
        self.mgr_install_output = proc.stdout
        (self.dir / "log" / "mgr-install.log").write_text(proc.stdout + proc.stderr)
        return proc.stdout

    def point_managers_at_module_dir(self) -> None:
        """`ceph config set mgr mgr_module_path DIR`: the managers read it when they start."""
        argv = documented_command(GUIDE, "ceph config set mgr mgr_module_path ")
        self.ceph(*argv[1:-1], str(self.mgr_module_dir), fmt_json=False)

    @contextlib.contextmanager
    def without_bcrypt_stand_in(self) -> Iterator[None]:
        """Managers started inside the block find no bcrypt stand-in in their module directory;
        the installer, run again at its end, puts it back for those started afterwards."""
        stand_in = self.mgr_module_dir / "bcrypt"
        if not stand_in.is_dir():
            raise CephError(f"no bcrypt stand-in in {self.mgr_module_dir}: the installer found it not needed")
        shutil.rmtree(stand_in)
        try:
            yield
        finally:
            self.install_mgr_modules()

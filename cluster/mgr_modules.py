"""The managers' module path: the stock modules, the extra ones a test loads, and the bcrypt
stand-in where the release's Python cannot import bcrypt in a sub-interpreter.

A mixin of TestCluster (cluster/testcluster.py).
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

from cluster.releases import STOCK_MGR_DIR

MGR_COMPAT_DIR = Path(__file__).resolve().parent.parent / "mgr_module" / "compat"


class ManagerModules:
    def _mgr_module_path(self) -> Path | None:
        """<dir>/mgr-modules: a symlink to every entry of /usr/share/ceph/mgr plus the extra modules,
        and the bcrypt stand-in where the manager could not load any module without it (install.sh
        --module-path does the same for operators)."""
        stand_in = self._needs_bcrypt_stand_in()
        if not self.extra_mgr_modules and not stand_in:
            return None
        path = self.dir / "mgr-modules"
        path.mkdir(exist_ok=True)
        if stand_in and not (path / "bcrypt").exists():
            shutil.copytree(MGR_COMPAT_DIR / "bcrypt", path / "bcrypt", ignore=shutil.ignore_patterns("__pycache__"))
        for entry in self.release.stock_mgr_dir.iterdir():
            link = path / entry.name
            if not link.is_symlink() and not link.exists():
                link.symlink_to(STOCK_MGR_DIR / entry.name)  # resolved in the release's file system
        for name, src in self.extra_mgr_modules.items():
            link = path / name
            if link.is_symlink():
                link.unlink()
            elif link.exists():
                shutil.rmtree(link)
            if self.release.root is None:
                link.symlink_to(Path(src).resolve())
            else:  # the source tree is not inside the root: a copy, its symlinks followed
                shutil.copytree(Path(src).resolve(), link, ignore=shutil.ignore_patterns("__pycache__"))
        return path

    @contextlib.contextmanager
    def without_bcrypt_stand_in(self) -> Iterator[None]:
        """Managers started inside the block find no bcrypt stand-in on their module path;
        those started afterwards have it again."""
        stand_in = self.dir / "mgr-modules" / "bcrypt"
        needed = self._needs_bcrypt_stand_in()
        shutil.rmtree(stand_in, ignore_errors=True)
        self._bcrypt_stand_in = False
        try:
            yield
        finally:
            self._bcrypt_stand_in = needed

    def _needs_bcrypt_stand_in(self) -> bool:
        """The release's Python cannot import its bcrypt in a sub-interpreter (Reef on Debian 13)."""
        if self.release.root is None:
            return False
        if self._bcrypt_stand_in is None:
            probe = self.dir / "run" / "needs_bcrypt_stand_in.py"
            shutil.copy(MGR_COMPAT_DIR / "needs_bcrypt_stand_in.py", probe)
            self._bcrypt_stand_in = subprocess.run(self.release.python + [str(probe)]).returncode == 0
        return self._bcrypt_stand_in

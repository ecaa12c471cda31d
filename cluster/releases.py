"""The Ceph releases the test cluster runs: the host's Pacific, or a newer one in a Debian root.

Pacific 16.2 comes from the host's Debian 12 packages. Reef 18.2 (Debian 13) and Tentacle 20.2
(Debian sid) run from a root that `cluster/release_root.sh` builds once per machine under
/var/tmp: every Ceph command and daemon is started with `chroot ROOT`, and the cluster's
directory is bind-mounted into the root at the same path, so that the paths in ceph.conf,
the admin sockets and the logs are the same inside and outside. The daemons share the host's
loopback network, so host-side clients (the host's python3-rados, urllib) reach them too.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ROOT_SCRIPT = REPO / "cluster" / "release_root.sh"

# Release name -> how it is had here. The host's is the default everywhere.
RELEASES = ("pacific", "reef", "tentacle")
HOST_RELEASE = "pacific"


@dataclass(frozen=True)
class Release:
    """Where one release's binaries live: `root` is None for the host's own packages."""

    name: str
    root: Path | None = None

    def command(self, argv: list[str]) -> list[str]:
        """argv run with this release's binaries."""
        return ["chroot", str(self.root), *argv] if self.root else list(argv)

    def host_path(self, path: str | os.PathLike) -> Path:
        """Where an absolute path of the release's file system is seen from the host."""
        return self.root / str(path).lstrip("/") if self.root else Path(path)

    @property
    def reshard_keeps_id(self) -> bool:
        """From Reef on a reshard keeps the bucket's instance id and counts up the index
        layout's generation; Pacific gives the bucket a new instance id."""
        return self.name != "pacific"

    @property
    def python(self) -> list[str]:
        """The release's own Python (the one its manager and python3-rados use)."""
        return self.command(["/usr/bin/python3"])

    def version(self) -> str:
        out = subprocess.run(self.command(["ceph", "--version"]), capture_output=True, text=True, check=True)
        return out.stdout.split()[2]

    def mount_dir(self, path: Path) -> None:
        """Make `path` (a directory of the host) visible at the same path inside the root."""
        if self.root is None:
            return
        proc = self.root / "proc"
        if not mounted(proc):
            subprocess.run(["mount", "-t", "proc", "proc", str(proc)], check=True)
        target = self.host_path(path)
        if mounted(target):  # left by a run that was killed: its directory may be gone
            subprocess.run(["umount", "-l", str(target)], check=True)
        target.mkdir(parents=True, exist_ok=True)
        subprocess.run(["mount", "--bind", str(path), str(target)], check=True)

    def unmount_dir(self, path: Path) -> None:
        if self.root is None:
            return
        target = self.host_path(path)
        if mounted(target):
            subprocess.run(["umount", "-l", str(target)], check=False)
        try:
            target.rmdir()
        except OSError:
            pass


def mounted(path: Path) -> bool:
    """`path` is a mount point (a bind mount from the same file system included, which
    os.path.ismount does not see)."""
    with open("/proc/self/mountinfo", encoding="utf-8") as f:
        points = {line.split()[4].replace("\\040", " ") for line in f}
    return str(path) in points


def release(name: str | None = None) -> Release:
    """The release by name (default: $CEPH_SCALE_RELEASE, else the host's), its root built if missing."""
    name = name or os.environ.get("CEPH_SCALE_RELEASE") or HOST_RELEASE
    if name not in RELEASES:
        raise ValueError(f"unknown Ceph release {name!r}: one of {', '.join(RELEASES)}")
    if name == HOST_RELEASE:
        return Release(name)
    proc = subprocess.run([str(ROOT_SCRIPT), name], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"building the {name} root failed: {proc.stderr.strip()[-800:]}")
    return Release(name, Path(proc.stdout.strip().splitlines()[-1]))

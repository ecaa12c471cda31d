"""One serving exporter per state file: a second one given the same path is refused at its start.

Two exporters writing one state file each replace the other's file at every derivation: each
restarts from whichever wrote last, a reshard counted by one is counted again by the other, and
two clusters' histories mix (the fsid in the file catches that only at a restart). Prometheus
refuses a second server on one data directory the same way (its `lock` file). A `--once` run on
a file a serving exporter holds (the runbook's `--once --plan`) reads the state and leaves it as
it is.
"""

from __future__ import annotations

import errno
import fcntl
import os
import socket
from dataclasses import dataclass

from ceph_scale.core.config import ConfigError

# flock() locks belong to an open file description: taking the same path again in one process
# (tests building several collectors) would conflict with itself, so each path is opened and
# locked once per process, and held until the process ends.
_HELD: dict[str, int] = {}
# errnos of a file system that has no locks (NFS mounted nolock, some FUSE file systems)
NO_LOCKS = (errno.ENOLCK, errno.EOPNOTSUPP, errno.EINVAL)


@dataclass(frozen=True)
class Held:
    shared: bool = False  # another exporter holds the file: read it, never write it
    warning: str = ""


def lock_path(state_file: str) -> str:
    return f"{state_file}.lock"


def hold(state_file: str, setting: str, *, read_only_ok: bool) -> Held:
    """Lock `<state_file>.lock` for this process. Held by another: with read_only_ok, a
    shared hold (the caller reads and never writes), else a one-line ConfigError that names the
    holder."""
    path = os.path.abspath(lock_path(state_file))
    if path in _HELD:
        return Held()
    fd, writable = _open(path, state_file, setting)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as e:
        if e.errno in NO_LOCKS:
            _HELD[path] = fd
            return Held(
                warning=f"{setting} {state_file}: its file system takes no locks ({e.strerror}): "
                "a second exporter on it would not be refused, and the two would replace each other's state"
            )
        holder = _holder(fd)
        os.close(fd)
        if e.errno not in (errno.EWOULDBLOCK, errno.EACCES):
            raise ConfigError(f"{setting} {state_file}: cannot lock {path}: {e.strerror}") from None
        if read_only_ok:
            return Held(shared=True, warning=f"{setting} {state_file}: held by a serving exporter{holder}: "
                        "read, and left as it is")  # fmt: skip
        raise ConfigError(
            f"{setting} {state_file}: in use by another exporter{holder}; give each exporter its own state file"
        ) from None
    if writable:
        # Who holds it, for the refusal of the next: a pid alone means little across containers.
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()} {socket.gethostname()}\n".encode(errors="replace"), 0)
    _HELD[path] = fd
    return Held()


def _open(path: str, state_file: str, setting: str) -> tuple[int, bool]:
    """The lock file, read-write where it can be; read-only where another user made it (root's
    `--once` run beside the service): flock needs no write access."""
    flags = os.O_CREAT | os.O_CLOEXEC
    try:
        try:
            return os.open(path, flags | os.O_RDWR, 0o644), True
        except PermissionError:
            return os.open(path, flags | os.O_RDONLY), False
    except OSError as e:
        raise ConfigError(f"{setting} {state_file}: cannot write in {os.path.dirname(path)}: {e.strerror}") from None


def _holder(fd: int) -> str:
    """ " (pid N on host H)" of the process that holds the lock: the kernel's word for the pid
    (/proc/locks), the lock file's for the host where it names the same pid. A holder that opened
    the file read-only (another user's file) could not write its own, so the file alone may name
    an older process; it is believed only where the kernel shows no holder (another pid namespace,
    or another host over NFS)."""
    try:
        words = os.pread(fd, 300, 0).decode("utf-8", "replace").split()
    except OSError:
        words = []
    written = len(words) == 2 and words[0].isdigit() and words[1].isprintable()
    holders = _kernel_holders(fd)
    if written and (not holders or words[0] in holders):
        return f" (pid {words[0]} on host {words[1][:64]})"
    return f" (pid {holders[0]})" if holders else ""


def _kernel_holders(fd: int) -> list[str]:
    """The pids /proc/locks shows holding an flock on fd's file (as this process's namespace sees
    them; 0 where it cannot)."""
    st = os.fstat(fd)
    found: list[str] = []
    try:
        with open("/proc/locks", encoding="ascii", errors="replace") as f:
            for line in f:
                # "1: FLOCK  ADVISORY  WRITE 1234 00:2f:4567 0 EOF" (a waiter's line has "->")
                parts = line.split()
                if len(parts) < 6 or parts[1] != "FLOCK" or not parts[4].isdigit() or parts[4] == "0":
                    continue
                dev_ino = parts[5].split(":")
                if len(dev_ino) == 3 and _same_file(dev_ino, st):
                    found.append(parts[4])
    except (OSError, ValueError):
        return []
    return found


def _same_file(dev_ino: list[str], st: os.stat_result) -> bool:
    major, minor, inode = int(dev_ino[0], 16), int(dev_ino[1], 16), int(dev_ino[2])
    return (major, minor, inode) == (os.major(st.st_dev), os.minor(st.st_dev), st.st_ino)

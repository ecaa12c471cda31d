"""One exporter per state file: a second one given the same path is refused at its start.

Two exporters writing one state file each replace the other's file at every derivation: each
restarts from whichever wrote last, a reshard counted by one is counted again by the other, and
two clusters' histories mix (the fsid in the file catches that only at a restart). Prometheus
refuses a second server on one data directory the same way (its `lock` file).
"""

from __future__ import annotations

import errno
import fcntl
import os

from ceph_scale.core.config import ConfigError

# Held for the life of the process. POSIX record locks belong to the process, so taking the
# same path again in one process (tests building several collectors) succeeds, and closing any
# descriptor of the file would drop the lock: each lock file is opened once and never closed.
_HELD: dict[str, int] = {}


def lock_path(state_file: str) -> str:
    return f"{state_file}.lock"


def hold(state_file: str, setting: str) -> None:
    """Lock `<state_file>.lock` for this process, or raise a one-line ConfigError naming the
    process that holds it."""
    path = os.path.abspath(lock_path(state_file))
    if path in _HELD:
        return
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as e:
        raise ConfigError(f"{setting} {state_file}: cannot open its lock file {path}: {e.strerror}") from None
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as e:
        holder = _holder(fd)
        os.close(fd)
        if e.errno in (errno.EAGAIN, errno.EACCES):  # another process holds it
            raise ConfigError(
                f"{setting} {state_file}: in use by another exporter{holder}; give each exporter its own state file"
            ) from None
        raise ConfigError(f"{setting} {state_file}: cannot lock {path}: {e.strerror}") from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    _HELD[path] = fd


def _holder(fd: int) -> str:
    """ " (pid N)" as the holder wrote it, or "" where the file does not say."""
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return ""
    return f" (pid {text})" if text.isdigit() else ""

"""radosgw-admin as a subprocess, bounded by a timeout: both producers' runner (the sidecar's
reshard queue without librados, the module's bucket stats and queue as the manager)."""

from __future__ import annotations

import os
import shutil
import subprocess


class RadosgwAdminError(RuntimeError):
    """The tool missing, timed out or failed; with its last stderr line."""


def run(argv: list[str], timeout: float) -> bytes:
    """stdout of the tool (JSON text; `[]` when it printed nothing)."""
    if shutil.which(argv[0]) is None:
        raise RadosgwAdminError(f"{argv[0]} is not installed on this host (Debian/Ubuntu: apt install radosgw)")
    what = " ".join(_subcommand(argv))
    try:
        proc = subprocess.run(argv, capture_output=True, timeout=timeout, check=False, env=dict(os.environ))
    except subprocess.TimeoutExpired:
        raise RadosgwAdminError(f"radosgw-admin {what} timed out after {timeout:g}s") from None
    if proc.returncode != 0:
        lines = proc.stderr.decode(errors="replace").strip().splitlines()
        raise RadosgwAdminError(f"radosgw-admin {what} exited {proc.returncode}: {lines[-1] if lines else ''}")
    return proc.stdout.strip() or b"[]"


def _subcommand(argv: list[str]) -> list[str]:
    """The command's words (`reshard list`), without the options and their values."""
    words, skip = [], False
    for arg in argv[1:]:
        if arg.startswith("-"):
            skip = "=" not in arg
        elif skip:
            skip = False
        else:
            words.append(arg)
    return words

"""Small stdlib helpers of the test cluster, shared by its lifecycle and its study conditions."""

from __future__ import annotations

import socket
import time
from pathlib import Path
from typing import Any, Callable

RGW_NAME = "client.rgw.a"


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now (bind to port 0, read it back)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def parse_size(text: str | int) -> int:
    """'256M', '1G', '4GiB', 1024 -> bytes."""
    units = {"K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}
    text = str(text).strip().upper().removesuffix("IB").removesuffix("B")
    if text and text[-1] in units:
        return int(float(text[:-1]) * units[text[-1]])
    return int(text)


def wait_for(predicate: Callable[[], Any], timeout: float, interval: float = 1.0, what: str = "condition") -> Any:
    """Call `predicate` until it returns something truthy (returned) or `timeout` seconds pass.

    Exceptions from the predicate count as "not yet". The TimeoutError says how the last call
    ended, and quotes the last exception: an error from a minute before the end would mislead if
    the calls since then answered "not yet".
    """
    end = time.monotonic() + timeout
    last: Exception | None = None
    last_raised = False
    while True:
        try:
            value = predicate()
            if value:
                return value
            last_raised = False
        except Exception as e:  # not ready yet
            last, last_raised = e, True
        if time.monotonic() >= end:
            break
        time.sleep(interval)
    if last is None:
        detail = ""
    elif last_raised:
        detail = f" (last error: {last})"
    else:
        detail = f" (the last call answered not yet; an earlier one failed: {last})"
    raise TimeoutError(f"timed out after {timeout:g}s waiting for {what}{detail}")


def parse_stamp(stamp: str) -> float:
    """A Ceph time stamp ("2026-11-22T21:53:33.196571+0000"; octopus: no zone = UTC) -> epoch seconds.

    Not the exporter's parser (ceph_scale/core/inputs.py) on purpose: the test cluster is the
    oracle the exporter is checked against, so it shares none of the code under test."""
    import datetime

    s = stamp.strip()
    if s[-5:-4] in "+-" and s[-4:].isdigit():
        s = s[:-5] + s[-5:-2] + ":" + s[-2:]
    dt = datetime.datetime.fromisoformat(s.replace(" ", "T"))
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=datetime.timezone.utc)
    return dt.timestamp()


def pid_alive(pid: int) -> bool:
    """True if `pid` runs (a zombie counts as dead)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False


def pid_cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


class CephError(RuntimeError):
    pass

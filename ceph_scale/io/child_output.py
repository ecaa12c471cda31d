"""A child process's output, read within a byte cap and a deadline.

`subprocess.run(capture_output=True)` keeps everything a child prints: a `ceph` or
`radosgw-admin` that printed without end would take the exporter's memory with it. `run`
reads stdout up to `max_bytes` and kills the child past it; of stderr it keeps only the last
STDERR_TAIL bytes (the error line is its last line). The default cap is the HTTP reads'
(json_bound.MAX_RESPONSE_BYTES, 256 MiB): five times the largest output read whole at the
study's scale (`pg dump pgs` of 21,760 PGs, 48 MB; docs/cluster-cost.md). What is read is then
decoded within json_bound's budget, as an HTTP body is.
"""

from __future__ import annotations

import os
import selectors
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass

from ..core.json_bound import MAX_RESPONSE_BYTES

MAX_OUTPUT_BYTES = MAX_RESPONSE_BYTES  # the default cap on stdout
STDERR_TAIL = 64 << 10
CHUNK = 1 << 16


class ChildTimeout(Exception):
    """The child ran past its deadline; it has been killed."""


class ChildOutputTooLarge(Exception):
    """The child printed more than the cap; it has been killed after `read` bytes."""

    def __init__(self, read: int) -> None:
        super().__init__(read)
        self.read = read


@dataclass(frozen=True)
class ChildResult:
    returncode: int
    stdout: bytes
    stderr_tail: bytes  # the last STDERR_TAIL bytes of what it wrote to stderr

    def last_error_line(self) -> str:
        lines = self.stderr_tail.decode(errors="replace").strip().splitlines()
        return lines[-1] if lines else ""


def cap_text(max_bytes: int) -> str:
    """The cap as the error lines give it: "256 MiB", "64 KiB", "1000 bytes"."""
    for unit, shift in (("MiB", 20), ("KiB", 10)):
        if max_bytes >= 1 << shift and max_bytes % (1 << shift) == 0:
            return f"{max_bytes >> shift} {unit}"
    return f"{max_bytes} bytes"


def run(
    argv: list[str], timeout: float, max_bytes: int = MAX_OUTPUT_BYTES, env: Mapping[str, str] | None = None
) -> ChildResult:
    """Run `argv` to its end within `timeout` seconds, its stdout within `max_bytes`.
    OSError if it cannot start; ChildTimeout / ChildOutputTooLarge after killing it."""
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert proc.stdout is not None and proc.stderr is not None
    deadline = time.monotonic() + timeout
    out: list[bytes] = []
    read = 0
    err = bytearray()
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        sel.register(proc.stderr, selectors.EVENT_READ)
        try:
            while sel.get_map():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise ChildTimeout()
                for key, _ in sel.select(left):
                    chunk = os.read(key.fd, CHUNK)
                    if not chunk:
                        sel.unregister(key.fileobj)
                    elif key.fileobj is proc.stdout:
                        read += len(chunk)
                        if read > max_bytes:
                            raise ChildOutputTooLarge(read)
                        out.append(chunk)
                    else:
                        err += chunk
                        del err[:-STDERR_TAIL]
            try:
                returncode = proc.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                raise ChildTimeout() from None
        except BaseException:
            proc.kill()
            proc.wait()
            raise
        finally:
            proc.stdout.close()
            proc.stderr.close()
    return ChildResult(returncode, b"".join(out), bytes(err))

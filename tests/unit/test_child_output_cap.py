"""A `ceph` or `radosgw-admin` that prints without end is killed at the byte cap, and the source
fails in one line naming the command and the cap; the memory held is the cap's, not the output's.

The children are real processes: small Python scripts standing in for the tools.
"""

from __future__ import annotations

import gc
import stat
import sys
import time
import tracemalloc
from pathlib import Path

import pytest

from ceph_scale.io import child_output, radosgw_admin
from exporter.sidecar.ceph_client import CephCommandError, CliClient

CAP = 1 << 20
# Prints 64 KiB blocks without end (to stdout, or to stderr with `err`), as fast as the pipe takes them.
ENDLESS = """
import os, sys
fd = 2 if "err" in sys.argv else 1
block = b"[" + b"0," * 32767 + b"0]\\n"
while True:
    os.write(fd, block)
"""


def tool(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / name
    path.write_text(f"#!{sys.executable}\n{body}")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def peak_while(call) -> tuple[int, BaseException | None]:
    """The Python heap's peak (bytes) while `call` runs, and what it raised."""
    gc.collect()
    tracemalloc.start()
    raised = None
    try:
        call()
    except Exception as e:  # noqa: BLE001 - returned for the test to check
        raised = e
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak, raised


def test_the_read_stops_at_the_cap_and_the_child_is_killed(tmp_path):
    endless = tool(tmp_path, "endless", ENDLESS)
    started = time.monotonic()
    with pytest.raises(child_output.ChildOutputTooLarge) as e:
        child_output.run([str(endless)], timeout=60, max_bytes=CAP)
    assert CAP < e.value.read <= CAP + child_output.CHUNK  # one read past the cap, no more
    assert time.monotonic() - started < 30  # stopped by the cap, not by the timeout


def test_a_ceph_printing_without_end_fails_the_source_at_the_cap_in_bounded_memory(tmp_path):
    client = CliClient(None, None, None, binary=str(tool(tmp_path, "ceph", ENDLESS)))
    client.max_output_bytes = CAP
    peak, raised = peak_while(lambda: client.command_raw("osd dump", timeout=60))
    assert isinstance(raised, CephCommandError)
    assert str(raised) == "`ceph osd dump`: output over the 1 MiB cap, stopped"
    assert peak < 3 * CAP  # what was read (the cap) and one join of it; the child printed on


def test_radosgw_admin_printing_without_end_fails_at_the_cap_in_bounded_memory(tmp_path):
    argv = [str(tool(tmp_path, "radosgw-admin", ENDLESS)), "-n", "mgr.x", "bucket", "stats", "--format", "json"]
    peak, raised = peak_while(lambda: radosgw_admin.run(argv, 60, max_bytes=CAP))
    assert isinstance(raised, radosgw_admin.RadosgwAdminError)
    assert str(raised) == "radosgw-admin bucket stats: output over the 1 MiB cap, stopped"
    assert peak < 3 * CAP


def test_an_endless_stderr_keeps_only_its_tail_and_the_timeout_still_ends_the_child(tmp_path):
    argv = [str(tool(tmp_path, "radosgw-admin", ENDLESS)), "err", "reshard", "list"]
    peak, raised = peak_while(lambda: radosgw_admin.run(argv, 2, max_bytes=CAP))
    assert str(raised) == "radosgw-admin err reshard list timed out after 2s"
    assert peak < 2 * CAP  # 2 s of stderr is far more than that: only the last 64 KiB kept


def test_the_last_stderr_line_of_a_long_stderr_names_the_failure(tmp_path):
    noisy = tool(
        tmp_path,
        "ceph",
        'import sys\nsys.stderr.write("noise\\n" * 500_000 + "Error EACCES: denied\\n")\nsys.exit(13)\n',
    )
    client = CliClient(None, None, None, binary=str(noisy))
    with pytest.raises(CephCommandError, match=r"^`ceph health detail` exited 13: Error EACCES: denied$"):
        client.command_raw("health detail", timeout=30)


def test_output_under_the_cap_is_read_whole(tmp_path):
    printer = tool(tmp_path, "ceph", 'import sys\nsys.stdout.write("[" + "1," * 99_999 + "1]")\n')
    client = CliClient(None, None, None, binary=str(printer))
    assert client.command("osd dump", timeout=30) == [1] * 100_000

"""A monitor that never answers costs the sidecar its connect timeout, not python-rados'
300 s default (client_mount_timeout): the source fails fast and says why."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from cluster.helpers import free_port

REPO = Path(__file__).resolve().parents[2]
PROBE = """
import sys
from exporter.sidecar.ceph_client import RadosClient
client = RadosClient(sys.argv[1], "admin", None, connect_timeout=3)
try:
    client.command("status", 3)
except Exception as e:
    print(type(e).__name__, str(e)[:200])
"""


def test_an_unreachable_monitor_fails_within_the_connect_timeout(tmp_path):
    conf = tmp_path / "ceph.conf"
    # Port 9 (discard) on loopback: nothing listens, no monitor ever answers.
    conf.write_text("[global]\nfsid = 00000000-0000-0000-0000-000000000000\nmon_host = 127.0.0.1:9\n")
    started = time.monotonic()
    run = subprocess.run([sys.executable, "-c", PROBE, str(conf)], cwd=REPO, capture_output=True, text=True, timeout=60)
    took = time.monotonic() - started
    assert "CephCommandError" in run.stdout and "timed out" in run.stdout, run.stdout + run.stderr
    assert took < 15, took


@contextlib.contextmanager
def exporter_with_no_monitor(directory: Path, fsid: str = "00000000-0000-0000-0000-000000000000") -> Iterator[int]:
    """The real exporter whose only monitor is port 9 (discard) on loopback, where nothing
    listens and no monitor ever answers; its web port, the process stopped at the end."""
    conf = directory / "ceph.conf"
    conf.write_text(f"[global]\nfsid = {fsid}\nmon_host = 127.0.0.1:9\n")
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "exporter", f"--web.listen-address=127.0.0.1:{port}", f"--ceph-conf={conf}"],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_the_server_answers_healthy_before_anything_talks_to_ceph(tmp_path):
    """A container's healthcheck sees a live process at once; the sources fail on their own."""
    import urllib.request

    with exporter_with_no_monitor(tmp_path) as port:
        started = time.monotonic()
        status = None
        while time.monotonic() - started < 8 and status is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/-/healthy", timeout=2) as r:
                    status = r.status
            except OSError:
                time.sleep(0.1)
        assert status == 200
        assert time.monotonic() - started < 5  # not after a monitor's timeout

"""A monitor outage costs the sidecar nothing that grows: each failed librados connect leaves
no descriptor, thread or memory behind, on the commands' handle and on the objects' handle,
and the CLI backend leaves no child or pipe. (python-rados never releases a handle by
itself: before, every failed connect kept 9 descriptors and 4 threads, and the process
aborted on its open-files limit.) bench/soak.py measures the same over an hour."""

from __future__ import annotations

import errno
import json
import subprocess
import sys
import threading
import types
from pathlib import Path

import pytest

from cluster.helpers import free_port

REPO = Path(__file__).resolve().parents[2]
PROBE = """
import json, os, sys
from exporter.sidecar.ceph_client import CephCommandError, CliClient, RadosClient

def figures():
    with open("/proc/self/status") as f:
        rss_kb = int(next(line.split()[1] for line in f if line.startswith("VmRSS:")))
    return {"fds": len(os.listdir("/proc/self/fd")), "threads": len(os.listdir("/proc/self/task")),
            "rss_mb": rss_kb / 1024}

conf = sys.argv[2]
if sys.argv[1] == "rados":
    client = RadosClient(conf, "admin", None, connect_timeout=1)
    calls = [lambda: client.command("status", 1), lambda: client.command("osd dump", 1),
             lambda: client.omap_page("default.rgw.log", "reshard", "reshard.0000000000", "", 10),
             lambda: client.object_exists("default.rgw.buckets.index", ".dir.b.1.0", 1),
             lambda: client.command("health", 1), lambda: client.omap_page("p", "", "o", "", 10)]
else:
    client = CliClient(conf, "admin", None)
    calls = [lambda: client.command("status", 1)] * 3
errors, seen = [], []
for call in calls:
    try:
        call()
        errors.append("no error")
    except CephCommandError as e:
        errors.append(str(e))
    seen.append(figures())
print(json.dumps({"errors": errors, "figures": seen}))
"""


def run_probes(conf: Path) -> dict[str, dict]:
    """Both backends' probes at once (each a few seconds of connect timeouts)."""
    procs = {
        backend: subprocess.Popen(
            [sys.executable, "-c", PROBE, backend, str(conf)], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        for backend in ("rados", "cli")
    }
    out = {}
    for backend, proc in procs.items():
        stdout, stderr = proc.communicate(timeout=90)
        assert proc.returncode == 0, stderr.decode()[-2000:]
        out[backend] = json.loads(stdout)
    return out


def test_failed_connects_leave_nothing_behind(tmp_path):
    conf = tmp_path / "ceph.conf"
    # A loopback port nothing listens on: every connect fails after its timeout.
    conf.write_text(f"[global]\nfsid = 00000000-0000-0000-0000-000000000000\nmon_host = 127.0.0.1:{free_port()}\n")
    probes = run_probes(conf)

    rados = probes["rados"]
    assert all("timed out" in e or "TimedOut" in e for e in rados["errors"]), rados["errors"]
    first, later = rados["figures"][0], rados["figures"][1:]
    # After the first failure (one-time setup), five more on both handles add nothing.
    assert [f["fds"] for f in later] == [first["fds"]] * len(later), rados["figures"]
    assert [f["threads"] for f in later] == [first["threads"]] * len(later), rados["figures"]
    # Each leaked handle cost about 1 MB; allocator noise stays well under that in total.
    assert later[-1]["rss_mb"] - first["rss_mb"] < 2.5, rados["figures"]

    cli = probes["cli"]
    assert all(e.startswith("`ceph status`") for e in cli["errors"]), cli["errors"]
    assert {(f["fds"], f["threads"]) for f in cli["figures"]} == {(cli["figures"][0]["fds"], 1)}, cli["figures"]


class FakeCluster:
    """python-rados' Rados as RadosClient uses it: `slow` calls wait for `release`, `bad` ones fail."""

    def __init__(self, made: list, entered: threading.Event, release: threading.Event, **_: object) -> None:
        self.entered, self.release = entered, release
        self.shut = False
        self.shut_while_in: list[bool] = []
        made.append(self)

    def conf_set(self, key: str, value: str) -> None:
        pass

    def connect(self, timeout: int) -> None:
        pass

    def _slow(self) -> None:
        self.entered.set()
        self.release.wait(10)
        self.shut_while_in.append(self.shut)

    def mon_command(self, cmd: str, inbuf: bytes, timeout: int) -> tuple[int, bytes, str]:
        if json.loads(cmd)["prefix"] == "bad":
            raise TimeoutError("[errno 110] RADOS timed out")
        self._slow()
        return 0, b"{}", ""

    def open_ioctx(self, pool: str) -> object:
        if pool == "bad":
            raise TimeoutError("[errno 110] RADOS timed out")
        self._slow()
        return FakeIoctx()

    def shutdown(self) -> None:
        self.shut = True


class FakeIoctx:
    def aio_stat(self, oid: str, complete) -> None:
        complete(types.SimpleNamespace(get_return_value=lambda: -errno.ENOENT))


@pytest.mark.parametrize("slow, bad", [("command", "command"), ("object_exists", "omap_page")])
def test_a_failed_call_never_shuts_the_handle_down_under_another_call(slow, bad):
    """A shutdown frees what a call still in librados uses: the failed call retires the handle,
    the last call in it shuts it down."""
    from exporter.sidecar.ceph_client import CephCommandError, RadosClient

    made: list[FakeCluster] = []
    entered, release = threading.Event(), threading.Event()
    client = RadosClient(None, "admin", None)
    client._rados_mod = types.SimpleNamespace(
        Rados=lambda **kw: FakeCluster(made, entered, release, **kw),
        PermissionError=PermissionError,
        PermissionDeniedError=PermissionError,
    )
    calls = {
        "command": lambda pool: client.command_raw(pool, 5),
        "object_exists": lambda pool: client.object_exists(pool, "o", 5),
        "omap_page": lambda pool: client.omap_page(pool, "", "o", "", 10),
    }
    in_flight = threading.Thread(target=calls[slow], args=("slow",))
    in_flight.start()
    assert entered.wait(5)
    with pytest.raises(CephCommandError, match="timed out"):
        calls[bad]("bad")
    assert len(made) == 1 and not made[0].shut  # retired, still in use
    release.set()
    in_flight.join(5)
    assert made[0].shut_while_in == [False] and made[0].shut  # shut down by the last call in it
    calls[slow]("slow")
    assert len(made) == 2 and not made[1].shut  # the next call made a new one
    client.close()
    assert made[1].shut


def test_a_handle_that_cannot_be_configured_is_shut_down():
    from exporter.sidecar.ceph_client import CephCommandError, RadosClient

    made: list[FakeCluster] = []

    class Unconfigurable(FakeCluster):
        def conf_set(self, key: str, value: str) -> None:
            raise ValueError(f"{key}: rejected")

    client = RadosClient(None, "admin", None)
    client._rados_mod = types.SimpleNamespace(
        Rados=lambda **kw: Unconfigurable(made, threading.Event(), threading.Event(), **kw)
    )
    with pytest.raises(CephCommandError, match="rejected"):
        client.command_raw("status", 1)
    with pytest.raises(CephCommandError, match="rejected"):
        client.object_exists("pool", "o", 1)
    assert [c.shut for c in made] == [True, True]

"""What the module opens itself stays flat while the monitors or the RGW are unreachable: the
manager's librados handle is made anew after a failed connect (not kept unconnected with its
sockets and threads), a hung manager call holds one thread per source however often it is
retried, and an RGW that refuses connections leaves no descriptor behind."""

from __future__ import annotations

import gc
import os
import threading
import time

from scale.manager_access import manager_rados
from scale.module import Module

from ceph_scale.io.runner import Schedule
from cluster.helpers import free_port
from tests.mgr.fake_mgr import load_fixture_data


class FakeRados:
    """python-rados' Rados as far as MgrModule.rados uses it."""

    def __init__(self, monitor_up: threading.Event) -> None:
        self.monitor_up = monitor_up
        self.state = "configuring"

    def connect(self) -> None:
        if not self.monitor_up.is_set():
            raise TimeoutError("[errno 110] RADOS timed out (error connecting to the cluster)")
        self.state = "connected"

    def shutdown(self) -> None:
        self.state = "shutdown"


class OutageManager:
    """MgrModule.rados as Pacific to Tentacle write it: the handle is kept before it connects."""

    def __init__(self) -> None:
        self.monitor_up = threading.Event()
        self.made: list[FakeRados] = []
        self._rados: FakeRados | None = None

    @property
    def rados(self) -> FakeRados:
        if self._rados:
            return self._rados
        self._rados = FakeRados(self.monitor_up)
        self.made.append(self._rados)
        self._rados.connect()
        return self._rados


def test_the_managers_handle_is_made_anew_after_a_failed_connect():
    mgr = OutageManager()
    for _ in range(3):
        try:
            manager_rados(mgr)
            raise AssertionError("a handle that never connected was handed out")
        except TimeoutError:
            pass
    assert [h.state for h in mgr.made] == ["shutdown"] * 3  # none kept open
    mgr.monitor_up.set()
    handle = manager_rados(mgr)
    assert handle.state == "connected" and manager_rados(mgr) is handle
    assert len(mgr.made) == 4


def settled_figures() -> tuple[int, int]:
    """(threads, descriptors) once the threads that were ending have ended (a cancelled
    HTTP watchdog timer takes a moment), and after a full collection: a socket that only garbage
    still holds (an earlier test's, say) is closed then, not between two rounds."""
    last = -1
    for _ in range(40):
        now = threading.active_count()
        if now == last:
            break
        last = now
        time.sleep(0.05)
    gc.collect()
    return last, len(os.listdir("/proc/self/fd"))


def test_hung_manager_calls_and_a_refusing_rgw_hold_nothing_more_on_each_retry():
    mod = Module("scale", None, None)
    load_fixture_data(mod)
    mod.options.update(
        {
            "rgw_source": "admin_api",
            "rgw_endpoint": f"http://127.0.0.1:{free_port()}",  # nothing listens: refused
            "rgw_access_key": "a",
            "rgw_secret_key": "s",
        }
    )
    mod._load_config()
    monitor_back = threading.Event()

    def mon_command(cmd, inbuf=None):  # the manager's commands wait for a monitor
        monitor_back.wait(30)
        return -110, "", "timed out"

    mod.mon_command = mon_command
    collector = mod.make_collector()
    schedule = Schedule(interval=1.0, timeout=0.1, stale_after=300.0)
    before_threads = threading.active_count()
    try:
        figures = []
        for _ in range(4):
            for runner in collector.runners.values():
                runner.run_once(schedule)
            figures.append(settled_figures())
        failed = {name for name, r in collector.runners.items() if not r.success}
        assert {"settings", "buckets", "reshard"} <= failed, failed
        assert "timed out" in collector.runners["settings"].error
        # The first round leaves one thread per hung call; the retries add none, nor descriptors
        # (another test's thread ending may close one of its own meanwhile: fewer is no leak).
        threads, descriptors = figures[0]
        assert all(t == threads and d <= descriptors for t, d in figures[1:]), figures
        assert figures[0][0] - before_threads <= len(collector.runners)
    finally:
        monitor_back.set()
    for runner in collector.runners.values():
        if runner._in_flight is not None:
            runner._in_flight.join(5)
    assert threading.active_count() <= before_threads

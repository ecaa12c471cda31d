"""The shared runner names what a hung collection waits on, once per change of state."""

from __future__ import annotations

import logging
import threading
import time

from ceph_scale.io.runner import Schedule, SourceRunner
from exporter.sidecar.collector import SidecarRunner
from exporter.sidecar.sources.base import Deadline, Source, SourceContext


class BlockedRead(Source):
    """A source blocked in an object read the OSDs never answer."""

    name = field = "reshard"

    def __init__(self) -> None:
        super().__init__(SourceContext(ceph=None))  # type: ignore[arg-type]
        self.release = threading.Event()

    def collect(self, deadline: Deadline):
        deadline.waiting_on = "omap of default.rgw.log/reshard/reshard.0000000000"
        self.release.wait(30)
        return None


def test_a_hung_collection_names_what_it_waits_on(caplog):
    source = BlockedRead()
    runner = SidecarRunner(source, Schedule(interval=1, timeout=0.2, stale_after=60))
    try:
        with caplog.at_level(logging.WARNING):
            runner.run_once(runner.schedule)
            runner.run_once(runner.schedule)  # the same call still hung: no second line
        assert not runner.success and runner.failures == 2
        expected = "timed out after 0.2s waiting on omap of default.rgw.log/reshard/reshard.0000000000"
        assert runner.error == expected
        assert [r.getMessage() for r in caplog.records] == [f"source reshard failed: {expected}"]
    finally:
        source.release.set()


def test_a_collection_that_names_nothing_times_out_plainly():
    class Silent(BlockedRead):
        def collect(self, deadline: Deadline):
            self.release.wait(30)

    source = Silent()
    runner = SidecarRunner(source, Schedule(interval=1, timeout=0.2, stale_after=60))
    try:
        runner.run_once(runner.schedule)
        assert runner.error == "timed out after 0.2s"
    finally:
        source.release.set()


def test_the_loop_runs_enabled_sources_and_derives_through_failures():
    from ceph_scale.io.loop import CollectionLoop

    log = logging.getLogger("loop-test")
    calls = {"a": 0, "b": 0, "derive": 0}

    def source(name):
        def collect(timeout):
            calls[name] += 1
            return name

        return SourceRunner(name, collect, log)

    def derive_now():
        calls["derive"] += 1
        raise RuntimeError("a bug in one derivation")  # must not stop the loop

    loop = CollectionLoop(
        {"a": source("a"), "b": source("b")},
        lambda name: Schedule(interval=0.2, timeout=1.0, stale_after=60),
        derive_now,
        log,
        enabled=lambda name: name == "a",
    )
    loop.start()
    try:
        deadline = time.monotonic() + 10
        while (calls["a"] < 3 or calls["derive"] < 2) and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        loop.stop(wait=5)
    assert calls["a"] >= 3 and calls["derive"] >= 2 and calls["b"] == 0
    assert not loop._threads

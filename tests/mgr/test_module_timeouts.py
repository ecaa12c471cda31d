"""The module honours each source's timeout: the registry's default (or the source's own
timeout option), passed by the runner to the collector, whose RGW reads end at it."""

from __future__ import annotations

import dataclasses
import threading
import time

import pytest
from scale import rgw, sources
from scale.module import Module
from scale.options import ModuleSettings

from ceph_scale.core import registry
from ceph_scale.io.rados_reads import ProbeError
from cluster.helpers import free_port
from tests.hanging import HangingServer
from tests.mgr.fake_mgr import load_fixture_data

# Past the timeout: a thread's start and the socket's close, never the runner's extra second.
MARGIN = 0.8


def collector_of(**options):
    mod = Module("scale", None, None)
    load_fixture_data(mod)
    mod.options.update({"server_addr": "127.0.0.1", "server_port": free_port(), **options})
    mod.config_notify()
    assert not mod.config_errors, mod.config_errors
    return mod.make_collector()


def expected_timeout(spec: registry.SourceSpec, settings) -> float:
    return float(getattr(settings, spec.module_timeout_option)) if spec.module_timeout_option else spec.timeout


@pytest.mark.parametrize("options", [{}, {"rgw_timeout": 7}], ids=["defaults", "rgw_timeout set"])
def test_every_sources_timeout_is_the_registrys_or_its_options(options):
    collector = collector_of(**options)
    settings = ModuleSettings(**options)
    for spec in registry.SOURCES:
        assert collector.schedule(spec.name).timeout == expected_timeout(spec, settings), spec.name
    # The PG dump has more time than the manager's maps, as in the sidecar.
    assert (
        collector.schedule("pgs").timeout
        == registry.SOURCE_BY_NAME["pgs"].timeout
        > collector.schedule("osd_map").timeout
    )


def test_a_registry_timeout_never_exceeds_the_sources_interval():
    """A collection ends before the next one is due, as the sidecar's default schedule."""
    collector = collector_of(interval=5)
    assert registry.SOURCE_BY_NAME["osd_map"].timeout > 5
    assert collector.schedule("osd_map").interval == 5 and collector.schedule("osd_map").timeout == 5
    assert collector.schedule("pgs").timeout == registry.SOURCE_BY_NAME["pgs"].timeout  # its interval is longer


def test_radosgw_admin_gets_the_timeout_the_runner_gives(monkeypatch):
    given: list[float] = []

    def run(argv, timeout):
        given.append(timeout)
        return b"[]"

    monkeypatch.setattr(sources.radosgw_admin, "run", run)
    collector = collector_of(rgw_source="radosgw_admin", rgw_timeout=7)
    runner = collector.runners["reshard"]
    runner.run_once(collector.schedule("reshard"))
    runner.run_once(dataclasses.replace(collector.schedule("reshard"), timeout=3))
    assert runner.success and given == [7, 3]


class RecordingReader:
    """A bucket reader that notes the time its listing is given, and the probe timeout."""

    stats_overhead = meta_reads = 1

    def __init__(self, probe_timeout) -> None:
        self.probe_timeout = probe_timeout
        self.seen: list[tuple[float, float]] = []

    def list_instances(self, time_left):
        self.seen.append((time_left(), self.probe_timeout[0]()))
        raise RuntimeError("recorded")


def test_the_bucket_poll_gets_the_timeout_the_runner_gives(monkeypatch):
    probe_timeout: list = []
    monkeypatch.setattr(sources, "manager_rados", lambda mgr: object())
    monkeypatch.setattr(
        sources.rgw, "rados_exists_checker", lambda handle, pools, timeout: probe_timeout.append(timeout) or bool
    )
    reader = RecordingReader(probe_timeout)
    monkeypatch.setattr(sources.BucketPolling, "_reader", lambda self, mgr, settings: reader)
    collector = collector_of(rgw_source="admin_api")  # rgw_timeout at its default, 60
    runner = collector.runners["buckets"]
    for timeout in (3.0, 10.0):
        runner.run_once(dataclasses.replace(collector.schedule("buckets"), timeout=timeout))
    assert "recorded" in runner.error
    (left3, probe3), (left10, probe10) = reader.seen
    assert 2.5 < left3 <= 3.0 and 9.5 < left10 <= 10.0
    # An index stat: within half of what the poll has left, and never past PROBE_TIMEOUT.
    assert 1.2 < probe3 <= 1.5 and probe10 == rgw.PROBE_TIMEOUT


def test_a_hung_admin_ops_read_is_cut_at_the_sources_timeout():
    """An RGW that accepts and never answers: the read itself ends at the timeout the runner
    gives, and the source is failed with its reason; no collection is left hanging behind it
    for rgw_timeout's 60 s."""
    hanging = HangingServer()
    try:
        collector = collector_of(
            rgw_source="admin_api",
            rgw_endpoint=f"http://127.0.0.1:{hanging.port}",
            rgw_access_key="AK",
            rgw_secret_key="SK",
        )
        runner = collector.runners["buckets"]
        timeout = 1.0
        started = time.monotonic()
        runner.run_once(dataclasses.replace(collector.schedule("buckets"), timeout=timeout))
        took = time.monotonic() - started
        assert not runner.success and runner.failures == 1
        assert runner.error.startswith("AdminOpsError: ") and "timed out" in runner.error, runner.error
        assert timeout <= took < timeout + MARGIN, took
        behind = [t for t in threading.enumerate() if t.name == "source-buckets"]
        for thread in behind:  # ending: its result is in
            thread.join(0.5)
        assert not any(t.is_alive() for t in behind)
    finally:
        hanging.close()


class SilentHandle:
    """A librados handle whose OSDs never answer a stat (no cap on the pool)."""

    def open_ioctx(self, pool):
        return self

    def aio_stat(self, oid, complete):
        pass

    def close(self):
        pass


def test_an_index_stat_waits_only_its_probe_timeout():
    exists = rgw.rados_exists_checker(SilentHandle(), ["default.rgw.buckets.index"], lambda: 0.2)
    started = time.monotonic()
    with pytest.raises(ProbeError, match="no answer in 0.2s"):
        exists(".dir.x.0")
    assert time.monotonic() - started < 0.2 + MARGIN


def test_the_reshard_queue_is_not_read_past_the_sources_time():
    read = rgw.rados_omap_reader(SilentHandle(), lambda: 0.0)
    with pytest.raises(rgw.RgwError, match="timed out before reading the omap of default.rgw.log/reshard/reshard.0"):
        read("default.rgw.log", "reshard.0000000000", "")


class LateHandle:
    """A librados handle whose stats complete only when the test says so; each I/O context
    records whether it was closed, and a completion on a closed one is the use after free."""

    def __init__(self):
        self.pending: list = []
        self.closed: list[str] = []
        self.after_close: list[str] = []

    def open_ioctx(self, pool):
        handle = self

        class Ioctx:
            open = True

            def aio_stat(self, oid, complete):
                handle.pending.append((self, complete))

            def close(self):
                self.open = False
                handle.closed.append(pool)

        return Ioctx()

    def complete_all(self):
        for ioctx, complete in self.pending:
            if not ioctx.open:
                self.after_close.append("completion on a closed I/O context")

            class Completion:
                def get_return_value(self):
                    return -2  # ENOENT

            complete(Completion())
        self.pending = []


def test_a_retired_index_checker_keeps_its_io_context_until_its_given_up_stat_completes():
    handle = LateHandle()
    exists = rgw.rados_exists_checker(handle, ["default.rgw.buckets.index"], lambda: 0.05)
    with pytest.raises(ProbeError, match="no answer in 0.05s"):
        exists(".dir.x.0")
    exists.retire()  # the index pools changed: a new checker replaces it
    assert handle.closed == [] and rgw.close_settled() == 1
    handle.complete_all()
    assert handle.after_close == []
    assert rgw.close_settled() == 0 and handle.closed == ["default.rgw.buckets.index"]


def test_an_idle_index_checker_is_closed_when_retired():
    handle = LateHandle()
    exists = rgw.rados_exists_checker(handle, ["a.rgw.buckets.index", "b.rgw.buckets.index"], lambda: 0.05)
    exists.retire()
    assert handle.closed == ["a.rgw.buckets.index", "b.rgw.buckets.index"]

"""Faults survived, least privilege, secrets and load, on the real test cluster.

Each fault test asserts that the exporter keeps serving, marks the affected
source failed with its age growing, keeps the other sources fresh, and
recovers by itself. Runs after test_sidecar_cluster.py (file order).
"""

from __future__ import annotations

import json
import statistics
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from cluster.testcluster import RGW_NAME
from demo.monitoring import wait_until
from demo.sidecar import Sidecar
from exporter.core.signals.degraded import expected_drop

pytestmark = pytest.mark.cluster


def sources(exporter) -> dict[str, float]:
    return {dict(k)["source"]: v for k, v in exporter.metrics()["ceph_scale_source_success"].items()}


def all_sources_ok(exporter) -> bool:
    return set(sources(exporter).values()) == {1.0}


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


@pytest.fixture(scope="module")
def least_privilege(ceph_cluster, scratch):
    """The documented read-only profile (docs/security.md), and nothing more."""
    keyring = Path(scratch) / "ceph-scale.keyring"
    ceph_cluster.ceph(
        "auth", "get-or-create", "client.ceph-scale", "mon", "allow r", "mgr", "allow r",
        "osd", "allow r pool=default.rgw.log namespace=reshard", "-o", str(keyring), fmt_json=False,
    )  # fmt: skip
    user = ceph_cluster.radosgw_admin(
        "user", "create", "--uid", "ceph-scale-ro", "--display-name", "ceph-scale read-only",
        "--caps", "buckets=read;users=read;metadata=read",
    )  # fmt: skip
    keys = (user["keys"][0]["access_key"], user["keys"][0]["secret_key"])
    exporter = Sidecar(
        ceph_cluster, scratch, ceph_user="ceph-scale", rgw_credentials=keys, extra_args=["--ceph-keyring", str(keyring)]
    ).start()
    yield exporter, keys
    exporter.stop()


def test_least_privilege_profile_is_enough(ceph_cluster, least_privilege):
    exporter, _ = least_privilege
    caps = ceph_cluster.ceph("auth", "get", "client.ceph-scale")[0]["caps"]
    assert caps == {"mon": "allow r", "mgr": "allow r", "osd": "allow r pool=default.rgw.log namespace=reshard"}
    wait_until(lambda: all_sources_ok(exporter), 60, what="every source to work with the read-only profile")
    time.sleep(7)  # a few more cycles: nothing needs more than it was given
    assert all_sources_ok(exporter)
    assert exporter.value("ceph_scale_rgw_buckets") >= 1
    assert "Permission denied" not in exporter.log() and "EACCES" not in exporter.log()


def test_secrets_never_in_argv_logs_or_metrics(least_privilege):
    exporter, (access, secret) = least_privilege
    cmdline = Path(f"/proc/{exporter.process.pid}/cmdline").read_bytes().decode(errors="replace")
    environ = Path(f"/proc/{exporter.process.pid}/environ").read_bytes().decode(errors="replace")
    places = (("argv", cmdline), ("environment", environ), ("log", exporter.log()), ("/metrics", exporter.text()))
    for place, text in places:
        assert secret not in text, f"the RGW secret key is in the exporter's {place}"
    assert access not in exporter.text()


def test_fifty_concurrent_scrapers(sidecar):
    """No errors, bounded memory, and the cluster sees no more commands than the intervals ask."""
    pid = sidecar.process.pid
    wait_until(lambda: all_sources_ok(sidecar), 60, what="all sources ok")
    rss_before = rss_kib(pid)
    latencies: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    end = time.monotonic() + 12

    def scraper():
        while time.monotonic() < end:
            t = time.perf_counter()
            try:
                with urllib.request.urlopen(sidecar.url, timeout=10) as r:
                    body = r.read()
                    ok = r.status == 200 and b"ceph_scale_build_info" in body
            except Exception as e:  # every failure is an error here
                ok, body = False, repr(e).encode()
            with lock:
                latencies.append(time.perf_counter() - t)
                if not ok:
                    errors.append(body[:200].decode(errors="replace"))

    stamps: set[float] = set()
    threads = [threading.Thread(target=scraper) for _ in range(50)]
    for t in threads:
        t.start()
    while time.monotonic() < end:
        stamps.add(sidecar.value("ceph_scale_source_last_success_timestamp_seconds", source="osd_map"))
        time.sleep(0.5)
    for t in threads:
        t.join()
    assert errors == []
    assert len(latencies) > 200
    rss_after = rss_kib(pid)
    assert rss_after - rss_before < 50 * 1024, (rss_before, rss_after)
    # osd_map runs every 3 s in the test config, whatever the scrape rate: ~4 collections in 12 s.
    assert len(stamps) <= 12 / 3 + 2, sorted(stamps)
    print(f"50 scrapers: {len(latencies)} scrapes, p50 {statistics.median(latencies) * 1000:.1f} ms, "
          f"p99 {sorted(latencies)[int(len(latencies) * 0.99)] * 1000:.1f} ms")  # fmt: skip


def test_rgw_down_and_back(ceph_cluster, sidecar):
    ceph_cluster.stop_daemon(RGW_NAME)
    try:
        wait_until(lambda: sources(sidecar)["buckets"] == 0, 60, what="the buckets source to fail")
        age1 = sidecar.value("ceph_scale_source_age_seconds", source="buckets")
        time.sleep(4)
        assert sidecar.value("ceph_scale_source_age_seconds", source="buckets") > age1
        s = sources(sidecar)
        assert s["osd_map"] == 1 and s["pgs"] == 1 and s["health"] == 1
        # The last good bucket data is still served (with its age), not zeroed.
        assert sidecar.value("ceph_scale_rgw_buckets") >= 1
    finally:
        ceph_cluster.start_daemon(RGW_NAME)
    wait_until(ceph_cluster.rgw_answers, 60, what="the RGW")
    wait_until(lambda: all_sources_ok(sidecar), 90, what="every source to recover")


def test_osd_down_and_out_gives_the_expected_drop(ceph_cluster, sidecar):
    ceph_cluster.osd_down(2)
    ceph_cluster.osd_out(2)
    try:
        wait_until(lambda: sidecar.value("ceph_scale_osds", state="down_out") == 1, 60, what="osd.2 down and out")
        assert sidecar.value("ceph_scale_osds_down_ratio") == pytest.approx(1 / 3)
        assert sidecar.value("ceph_scale_degraded_expected_drop_ratio", op="put") == pytest.approx(
            expected_drop(1 / 3, 0)
        )
        assert sidecar.value("ceph_scale_hdd_osds") == 2
        assert all_sources_ok(sidecar) or sources(sidecar)["perf"] == 1
    finally:
        ceph_cluster.osd_in(2)
        ceph_cluster.osd_up(2)
    wait_until(lambda: sidecar.value("ceph_scale_osds_down_ratio") == 0, 90, what="all OSDs up again")


def test_monitor_down_and_back(ceph_cluster, sidecar):
    ceph_cluster.stop_daemon("mon.a")
    try:
        wait_until(lambda: sources(sidecar)["osd_map"] == 0, 60, what="the osd_map source to fail")
        age1 = sidecar.value("ceph_scale_source_age_seconds", source="osd_map")
        time.sleep(5)
        assert sidecar.value("ceph_scale_source_age_seconds", source="osd_map") > age1
        assert sidecar.value("ceph_scale_cluster_used_ratio") is not None  # last good data, served
        assert sidecar.process.proc.poll() is None
        # Timeouts held: no collection ran much past its 3 s.
        assert sidecar.value("ceph_scale_source_duration_seconds", source="osd_map") < 6
    finally:
        ceph_cluster.start_daemon("mon.a")
    wait_until(lambda: all_sources_ok(sidecar), 120, what="every source to recover after the monitor")


def test_manager_failover(ceph_cluster, sidecar):
    failures = sidecar.value("ceph_scale_source_failures_total", source="perf")
    new_active = ceph_cluster.fail_mgr()
    assert new_active == ceph_cluster.active_mgr
    wait_until(lambda: all_sources_ok(sidecar), 90, what="every source after the failover")
    before = sidecar.value("ceph_scale_source_last_success_timestamp_seconds", source="perf")
    wait_until(
        lambda: sidecar.value("ceph_scale_source_last_success_timestamp_seconds", source="perf") > before,
        30,
        what="fresh perf data from the new active manager",
    )
    # The new manager has the OSDs' counters once they report to it (a few seconds).
    wait_until(
        lambda: (sidecar.value("ceph_scale_bluefs_spilled_bytes", ceph_daemon="osd.0") or 0) > 0,
        60,
        what="BlueFS counters from the new active manager",
    )
    assert sidecar.value("ceph_scale_source_failures_total", source="perf") >= failures


def test_reshard_while_the_exporter_is_down_is_counted_once(ceph_cluster, sidecar):
    from cluster import s3load

    wait_until(lambda: ceph_cluster.reshard_list() == [], 120, what="an empty reshard queue")
    access, secret = ceph_cluster.user_keys
    # The bucket exists (and is seen) before the exporter goes down...
    s3load.run(ceph_cluster.rgw_endpoint, access, secret, "while-down", objects=10, size=1024, gets=False)
    wait_until(
        lambda: sidecar.value("ceph_scale_rgw_top_bucket_objects", bucket="while-down") == 10, 60, what="the bucket"
    )
    time.sleep(4)
    before = sidecar.value("ceph_scale_rgw_reshard_events_total")
    first = ceph_cluster.bucket_stats("while-down")
    ids = [first["id"]]
    sidecar.stop()
    try:
        # ...and reshards while it is down, once or more (the first target is
        # computed while PUTs still arrive). Wait until RGW is done with it.
        s3load.run(ceph_cluster.rgw_endpoint, access, secret, "while-down", objects=250, size=1024, gets=False,
                   prefix="more")  # fmt: skip
        quiet_since = time.monotonic()
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            stats = ceph_cluster.bucket_stats("while-down")
            assert stats["marker"] == first["marker"]
            if stats["id"] != ids[-1]:
                ids.append(stats["id"])
                quiet_since = time.monotonic()
            if len(ids) > 1 and ceph_cluster.reshard_list() == [] and time.monotonic() - quiet_since > 15:
                break
            time.sleep(0.5)
        assert len(ids) > 1, "RGW did not reshard the bucket"
    finally:
        sidecar.start()
    # The exporter sees the instance before and after its downtime: one change,
    # one event, however many reshards happened in between (docs/metrics.md).
    expected = before + 1
    wait_until(lambda: sidecar.value("ceph_scale_rgw_reshard_events_total") == expected, 60, what="the events")
    time.sleep(6)
    assert sidecar.value("ceph_scale_rgw_reshard_events_total") == expected
    state = json.loads(sidecar.state_file.read_text())
    assert state["reshard"]["events"] == expected

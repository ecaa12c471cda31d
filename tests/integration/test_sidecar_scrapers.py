"""Fifty scrapers at once on the sidecar, on the real test cluster: no errors, bounded memory,
and no more commands to the cluster than with none.

On Pacific's cluster only: what this tests is the sidecar's serving from its cache, which no
release changes (the same sources, the same commands per interval, the same HTTP layer); each
release's sources and commands are tested in test_sidecar_cluster.py and test_sidecar_faults.py.
"""

from __future__ import annotations

import statistics
import threading
import time
import urllib.request

import pytest

from demo.monitoring import wait_until
from tests.integration.test_sidecar_faults import all_sources_ok, least_privilege_sidecar, rss_kib

pytestmark = [pytest.mark.cluster, pytest.mark.parametrize("ceph_cluster", ["pacific"], indirect=True)]


@pytest.fixture
def least_privilege(ceph_cluster, scratch):
    exporter, keys = least_privilege_sidecar(ceph_cluster, scratch)
    yield exporter, keys
    exporter.stop()


def scrape_for(url: str, seconds: float, scrapers: int) -> tuple[list[float], list[str]]:
    latencies: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    end = time.monotonic() + seconds

    def scraper():
        while time.monotonic() < end:
            t = time.perf_counter()
            try:
                with urllib.request.urlopen(url, timeout=10) as r:
                    body = r.read()
                    ok = r.status == 200 and b"ceph_scale_build_info" in body
            except Exception as e:  # every failure is an error here
                ok, body = False, repr(e).encode()
            with lock:
                latencies.append(time.perf_counter() - t)
                if not ok:
                    errors.append(body[:200].decode(errors="replace"))

    threads = [threading.Thread(target=scraper) for _ in range(scrapers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return latencies, errors


def test_fifty_concurrent_scrapers(ceph_cluster, least_privilege):
    """No errors, bounded memory, and the cluster sees no more commands under 50 scrapers
    than with none: counted on the cluster's side, in its audit log, for this exporter's
    own cephx user (other clients use client.admin)."""
    exporter, _ = least_privilege
    pid = exporter.process.pid
    wait_until(lambda: all_sources_ok(exporter), 60, what="all sources ok")
    window = 15.0

    idle_before = len(ceph_cluster.audit_commands("client.ceph-scale"))
    time.sleep(window)
    idle = len(ceph_cluster.audit_commands("client.ceph-scale")) - idle_before
    assert idle > 0, "the audit log shows none of the exporter's commands: the count below would prove nothing"

    rss_before = rss_kib(pid)
    loaded_before = len(ceph_cluster.audit_commands("client.ceph-scale"))
    latencies, errors = scrape_for(exporter.url, window, 50)
    loaded = len(ceph_cluster.audit_commands("client.ceph-scale")) - loaded_before
    assert errors == []
    assert len(latencies) > 300
    rss_after = rss_kib(pid)
    assert rss_after - rss_before < 50 * 1024, (rss_before, rss_after)
    # The same few commands per source interval either way: thousands of scrapes cause none.
    assert loaded <= idle * 1.3 + 6, (idle, loaded, len(latencies))
    print(f"50 scrapers: {len(latencies)} scrapes in {window:g} s, p50 {statistics.median(latencies) * 1000:.1f} ms, "
          f"p99 {sorted(latencies)[int(len(latencies) * 0.99)] * 1000:.1f} ms; cluster commands {loaded} "
          f"(idle: {idle})")  # fmt: skip

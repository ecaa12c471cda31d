"""The perf source against real HTTP servers serving captured mgr prometheus text."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from ceph_scale.core.config import ConfigError
from exporter.sidecar import config_file
from exporter.sidecar.sources.base import Deadline, SourceContext
from exporter.sidecar.sources.perf import PerfSource

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "pacific"
TEXT = (FIX / "mgr_prometheus_metrics.txt").read_text()


def serve(body: str):
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            data = body.encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *a):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/metrics"


def only(prefixes: tuple[str, ...]) -> str:
    return "\n".join(line for line in TEXT.splitlines() if line.startswith("#") or line.startswith(prefixes)) + "\n"


def source(**ctx) -> PerfSource:
    # No manager: every test gives the source its URL, so it never asks `mgr services`.
    return PerfSource(SourceContext(ceph=None, **ctx))  # type: ignore[arg-type]


def test_the_managers_counters():
    server, url = serve(TEXT)
    try:
        part = source(mgr_prometheus_url=url).collect(Deadline(5))
        assert {c.osd_id for c in part.bluefs} == {0, 1, 2} and part.rgw_ops
    finally:
        server.shutdown()


def test_a_manager_without_per_osd_counters_is_a_failure_with_the_reason():
    """Reef's default: the mgr exports no per-daemon counters. That must not read as a
    cluster without spillover: the source fails, saying what to change."""
    server, url = serve(only(("ceph_osd_up", "ceph_health_status", "ceph_rgw_")))
    try:
        with pytest.raises(RuntimeError, match="exclude_perf_counters.*perf_urls"):
            source(mgr_prometheus_url=url).collect(Deadline(5))
    finally:
        server.shutdown()


def test_ceph_exporter_endpoints_are_merged_and_all_must_answer():
    osds, osd_url = serve(only(("ceph_bluefs_", "ceph_osd_")))
    rgws, rgw_url = serve(only(("ceph_rgw_",)))
    try:
        part = source(perf_urls=(osd_url, rgw_url)).collect(Deadline(5))
        assert len(part.bluefs) == 3 and len(part.osd_ops) == 3 and len(part.rgw_ops) == 1
    finally:
        rgws.shutdown()
        rgws.server_close()
    try:
        with pytest.raises(OSError, match=rgw_url.replace("/metrics", "")):
            source(perf_urls=(osd_url, rgw_url)).collect(Deadline(5))
    finally:
        osds.shutdown()


@pytest.mark.parametrize(
    "data, message",
    [
        ({"perf_urls": []}, "non-empty list"),
        ({"perf_urls": "http://x:9926/metrics"}, "non-empty list"),
        ({"perf_urls": ["x:9926"]}, "non-empty list"),
        ({"perf_urls": ["http://x:9926/metrics"], "mgr_prometheus_url": "http://m:9283/metrics"}, "set one of them"),
    ],
)
def test_perf_urls_are_validated(data, message):
    with pytest.raises(ConfigError, match=message):
        config_file.parse(data, {"perf"})
    assert config_file.parse({"perf_urls": ["http://x:9926/metrics"]}, {"perf"}).perf_urls == ("http://x:9926/metrics",)

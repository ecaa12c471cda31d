"""The perf source finds the ceph-exporters by itself: through the orchestrator (`orch ps` in the
shape cephadm's own classes write it) and through DNS, read from real HTTP servers on loopback
serving the counter text a real Reef / Tentacle manager served (mgr_prometheus_metrics_full.txt,
the text ceph-exporter serves too: `ceph_daemon` labels)."""

from __future__ import annotations

import copy
import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from ceph_scale.core import parse_orch
from ceph_scale.core.config import ConfigError
from ceph_scale.core.parse_base import InputError
from ceph_scale.io import discovery
from exporter.sidecar import config_file
from exporter.sidecar.main import build_collector, build_parser
from exporter.sidecar.sources.base import Deadline, SourceContext
from exporter.sidecar.sources.perf import PerfSource
from exporter.sidecar.startup_checks import StartupNotes

FIX = Path(__file__).resolve().parents[1] / "fixtures"
RELEASES = ("reef", "tentacle")

ORCHESTRATOR = discovery.parse_rule("orchestrator")


def orch(release: str, what: str):
    return json.loads((FIX / release / f"orch_{what}.from_cephadm_code.json").read_text())


def text_of(release: str, prefixes: tuple[str, ...]) -> str:
    text = (FIX / release / "mgr_prometheus_metrics_full.txt").read_text()
    return "\n".join(line for line in text.splitlines() if line.startswith("#") or line.startswith(prefixes)) + "\n"


OSDS = ("ceph_bluefs_", "ceph_osd_")
RGWS = ("ceph_rgw_",)


class Server:
    """One HTTP server on a loopback address serving `body` at every path."""

    def __init__(self, body: str, address: str = "127.0.0.1", port: int = 0) -> None:
        data = body.encode()

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *a):
                pass

        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        server_class = type("Server", (ThreadingHTTPServer,), {"address_family": family})
        self.httpd = server_class((address, port), Handler)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class OrchestratorCeph:
    """The manager's answers to the commands the perf source sends; anything else fails as a
    manager without that module would."""

    def __init__(self, daemons, hosts) -> None:
        self.answers = {"orch ps": daemons, "orch host ls": hosts}
        self.sent: list[tuple[str, dict]] = []

    def command(self, prefix, timeout, **args):
        self.sent.append((prefix, args))
        if prefix not in self.answers:
            raise RuntimeError(f"`ceph {prefix}`: not answered here")
        return self.answers[prefix]


def on_loopback(release: str, ports: list[int]):
    """The fixture's daemons, each at 127.0.0.1 and one of the ports (the fixture's own are 10.x)."""
    daemons, hosts = copy.deepcopy(orch(release, "ps_ceph_exporter")), orch(release, "host_ls")
    for daemon, port in zip(daemons, ports):
        daemon["ports"] = [port]
        if "ip" in daemon:
            daemon["ip"] = "127.0.0.1"
    return daemons[: len(ports)], [{**h, "addr": "127.0.0.1"} for h in hosts]


@pytest.mark.parametrize("release", RELEASES)
def test_the_urls_are_where_cephadm_s_own_service_discovery_puts_them(release):
    hosts = parse_orch.host_addresses(orch(release, "host_ls"))
    assert parse_orch.exporter_urls(parse_orch.exporters(orch(release, "ps_ceph_exporter")), hosts) == {
        "ceph-exporter.ceph-a": "http://10.0.0.11:9926/metrics",  # the host's address, the daemon's port
        "ceph-exporter.ceph-b": "http://10.0.0.12:9926/metrics",  # no ports listed (Reef): 9926
        "ceph-exporter.ceph-c": "http://10.1.0.13:9926/metrics",  # the daemon's own address
    }


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda d, h: ({"daemons": d}, h), r"^orch_ps: expected a list, got dict$"),
        (lambda d, h: ([*d, 7], h), r"orch_ps\[3\]: expected an object, got int"),
        (lambda d, h: ([{**d[0], "hostname": "ceph-z"}], h), r"orch_ps\[0\]\.hostname: 'ceph-z' is not among"),
        (lambda d, h: ([{**d[0], "ports": ["http"]}], h), r"orch_ps\[0\]\.ports\[0\]: expected an integer"),
        (lambda d, h: ([{**d[0], "ports": [70000]}], h), r"orch_ps\[0\]\.ports\[0\]: not a TCP port: 70000"),
        (lambda d, h: (d, [{"addr": "10.0.0.1"}]), r"orch_host_ls\[0\]\.hostname: missing"),
    ],
)
def test_a_bad_shape_fails_in_one_line_naming_the_field(mutate, message):
    daemons, hosts = mutate(orch("tentacle", "ps_ceph_exporter"), orch("tentacle", "host_ls"))
    with pytest.raises(InputError, match=message) as caught:
        parse_orch.exporter_urls(parse_orch.exporters(daemons), parse_orch.host_addresses(hosts))
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("release", RELEASES)
def test_orchestrator_discovery_reads_every_exporter(release):
    osds, rgws = Server(text_of(release, OSDS)), Server(text_of(release, RGWS))
    try:
        ceph = OrchestratorCeph(*on_loopback(release, [osds.port, rgws.port]))
        part = PerfSource(SourceContext(ceph=ceph, perf_discovery=ORCHESTRATOR)).collect(Deadline(5))
        assert {c.osd_id for c in part.bluefs} == {0, 1, 2} and len(part.osd_ops) == 3 and len(part.rgw_ops) == 1
        assert [p for p, _ in ceph.sent] == ["orch ps", "orch host ls"]
    finally:
        osds.stop()
        rgws.stop()


def test_with_nothing_set_the_orchestrator_is_asked_after_the_manager():
    """Reef's default under cephadm: no prometheus module counters, no scale module; the
    orchestrator's exporters have them."""
    osds = Server(text_of("reef", OSDS))
    try:
        ceph = OrchestratorCeph(*on_loopback("reef", [osds.port]))
        ceph.answers["mgr services"] = {}
        part = PerfSource(SourceContext(ceph=ceph)).collect(Deadline(5))
        assert len(part.bluefs) == 3
        assert [p for p, _ in ceph.sent] == ["mgr services", "scale counters", "orch ps", "orch host ls"]
    finally:
        osds.stop()


def test_with_nothing_set_and_no_exporter_listed_every_way_is_named():
    ceph = OrchestratorCeph([], [])
    ceph.answers["mgr services"] = {}
    with pytest.raises(RuntimeError) as caught:
        PerfSource(SourceContext(ceph=ceph)).collect(Deadline(5))
    assert str(caught.value) == (
        "no per-OSD perf counters: prometheus module: the mgr prometheus module is not enabled; "
        "scale module: `ceph scale counters`: not answered here; "
        "orchestrator: the orchestrator lists no ceph-exporter daemon (`ceph orch ps`)"
    )


def test_an_exporter_that_does_not_answer_fails_the_source_naming_it():
    osds, rgws = Server(text_of("tentacle", OSDS)), Server(text_of("tentacle", RGWS))
    rgws.stop()
    try:
        ceph = OrchestratorCeph(*on_loopback("tentacle", [osds.port, rgws.port]))
        with pytest.raises(
            OSError, match=rf"^1 of 2 ceph-exporters \(orchestrator\) failed: http://127.0.0.1:{rgws.port}/"
        ):
            PerfSource(SourceContext(ceph=ceph, perf_discovery=ORCHESTRATOR)).collect(Deadline(5))
    finally:
        osds.stop()


def test_dns_discovery_through_the_real_resolver():
    """`localhost` is 127.0.0.1 here (this machine's /etc/hosts has no ::1 for it)."""
    osds = Server(text_of("reef", OSDS))
    try:
        rule = f"dns:localhost:{osds.port}"
        part = PerfSource(SourceContext(ceph=None, perf_discovery=discovery.parse_rule(rule))).collect(Deadline(5))
        assert len(part.bluefs) == 3
    finally:
        osds.stop()


def test_dns_discovery_reads_every_address_a_name_has():
    """A headless Service's name resolves to every pod: here through an injected resolver answering
    what getaddrinfo answers for a name with an A and an AAAA record (no name here has both)."""
    osds = Server(text_of("tentacle", OSDS), "127.0.0.1")
    rgws = Server(text_of("tentacle", RGWS), "::1", osds.port)
    rule = discovery.parse_rule(f"dns:rook-ceph-exporters.rook-ceph.svc:{osds.port}")

    def getaddrinfo(name, port, type):
        assert (name, port, type) == ("rook-ceph-exporters.rook-ceph.svc", osds.port, socket.SOCK_STREAM)
        return [
            (socket.AF_INET6, socket.SOCK_STREAM, 6, "", ("::1", port, 0, 0)),
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port)),
        ]

    try:
        urls = discovery.resolve(rule, 5, getaddrinfo)
        assert urls == [f"http://127.0.0.1:{osds.port}/metrics", f"http://[::1]:{osds.port}/metrics"]
        part = PerfSource(SourceContext(ceph=None, perf_urls=tuple(urls))).collect(Deadline(5))
        assert len(part.bluefs) == 3 and len(part.rgw_ops) == 1
    finally:
        osds.stop()
        rgws.stop()


def test_a_name_without_an_answer_fails_naming_the_rule():
    """Injected resolvers: a lookup here must not leave the machine."""
    rule = discovery.parse_rule("dns:rook-ceph-exporters.rook-ceph.svc:9926")

    def unknown(name, port, type):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    with pytest.raises(OSError, match=r"^dns:rook-ceph-exporters\.rook-ceph\.svc:9926: .*Name or service not known"):
        discovery.resolve(rule, 5, unknown)
    hung = threading.Event()
    with pytest.raises(TimeoutError, match=r"^dns:rook-ceph-exporters\.rook-ceph\.svc:9926: no DNS answer within 0\.2"):
        discovery.resolve(rule, 0.2, lambda *a, **k: hung.wait(5))
    hung.set()


@pytest.mark.parametrize(
    "data, message",
    [
        ({"perf_discovery": "dns:host"}, "expected orchestrator or dns:NAME:PORT"),
        ({"perf_discovery": "dns:bad_name:9926"}, "expected orchestrator or dns:NAME:PORT"),
        ({"perf_discovery": "dns:x:0"}, "0 is not a TCP port"),
        ({"perf_discovery": "cephadm"}, "expected orchestrator or dns:NAME:PORT"),
        ({"perf_discovery": "orchestrator", "perf_urls": ["http://x:9926/metrics"]}, "set one of them"),
        ({"perf_discovery": "orchestrator", "mgr_prometheus_url": "http://m:9283/metrics"}, "set one of them"),
    ],
)
def test_perf_discovery_is_validated(data, message):
    with pytest.raises(ConfigError, match=message):
        config_file.parse(data, {"perf"})
    assert str(config_file.parse({"perf_discovery": "dns:a.b.svc:9926"}, {"perf"}).perf_discovery) == "dns:a.b.svc:9926"


def test_the_flag_goes_alone_as_the_key_does(tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text("perf_urls: [http://host1:9926/metrics]\n")
    args = build_parser().parse_args(["--perf-discovery", "orchestrator", "--config.file", str(config)])
    with pytest.raises(ConfigError, match="^--perf-discovery and perf_urls: set one of them$"):
        build_collector(args, StartupNotes())


def test_the_flag_is_checked_as_the_key_is():
    args = build_parser().parse_args(["--perf-discovery", "dns:x"])
    with pytest.raises(ConfigError, match="^--perf-discovery: expected orchestrator or dns:NAME:PORT"):
        build_collector(args, StartupNotes())

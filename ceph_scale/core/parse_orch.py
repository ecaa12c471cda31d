"""The orchestrator's ceph-exporter daemons, from `ceph orch ps --daemon_type ceph-exporter
--format json` and `ceph orch host ls --format json`, to the URLs their counters are served at.

Each daemon's address and port are found as cephadm's own Prometheus service discovery finds
them (src/pybind/mgr/cephadm/service_discovery.py, ceph_exporter_sd_config()): the daemon's
`ip` if it has one, else its host's `addr`; its first port, else 9926
(CephExporterService.DEFAULT_SERVICE_PORT). Reef's CephExporterSpec has no get_port_start(), so
its daemons list no ports (18.2.7's python-common), and Tentacle's list `[port or 9926]`.
Shapes: DaemonDescription.to_json() and HostSpec.to_json(), as `orch ps` / `orch host ls`
write them (orchestrator/module.py to_format()); tests/fixtures/*/orch_*.from_cephadm_code.json.
"""

from __future__ import annotations

from typing import Any

from .parse_base import InputError, _get, _int, _list, _str, refuses_bad_shapes

DEFAULT_EXPORTER_PORT = 9926


def http_url(address: str, port: int) -> str:
    """An http URL of the metrics path at an address (IPv6 in brackets) and port."""
    host = f"[{address}]" if ":" in address else address
    return f"http://{host}:{port}/metrics"


@refuses_bad_shapes
def host_addresses(hosts: Any) -> dict[str, str]:
    """Host name -> the address the orchestrator reaches it at (`orch host ls`)."""
    out: dict[str, str] = {}
    for i, host in enumerate(_list(hosts, "orch_host_ls")):
        path = f"orch_host_ls[{i}]"
        name = _str(_get(host, "hostname", path), f"{path}.hostname")
        # HostSpec.addr defaults to the hostname when a host is added without an address
        # (`addr or hostname`); a mistyped one is refused, never replaced by the name.
        addr = host.get("addr")
        out[name] = name if addr in (None, "") else _str(addr, f"{path}.addr")
    return out


@refuses_bad_shapes
def exporters(daemons: Any) -> list[tuple[str, dict[str, Any]]]:
    """The ceph-exporters among the daemons `orch ps` lists, each with its path in the answer."""
    out = []
    for i, d in enumerate(_list(daemons, "orch_ps")):
        path = f"orch_ps[{i}]"
        if _str(_get(d, "daemon_type", path), f"{path}.daemon_type") == "ceph-exporter":
            out.append((path, d))
    return out


@refuses_bad_shapes
def exporter_urls(daemons: list[tuple[str, dict[str, Any]]], hosts: dict[str, str]) -> dict[str, str]:
    """Daemon name -> the URL of its counters, for each of `exporters()`."""
    out: dict[str, str] = {}
    for path, daemon in daemons:
        name = _str(_get(daemon, "daemon_name", path), f"{path}.daemon_name")
        address = daemon.get("ip")  # DaemonDescription.to_json() leaves it out when unset
        if address is None:
            hostname = _str(_get(daemon, "hostname", path), f"{path}.hostname")
            if hostname not in hosts:
                raise InputError(f"{path}.hostname: {hostname!r:.80} is not among `orch host ls`'s hosts")
            address = hosts[hostname]
            if not address:
                raise InputError(f"{path}.hostname: {hostname!r:.80} has no address")
        elif not _str(address, f"{path}.ip"):
            raise InputError(f"{path}.ip: empty")
        # Reef's ceph-exporters list no ports (see above): left out or empty, the default one.
        ports = daemon.get("ports")
        ports = [] if ports is None else _list(ports, f"{path}.ports")
        port = _int(ports[0], f"{path}.ports[0]") if ports else DEFAULT_EXPORTER_PORT
        if not 0 < port < 65536:
            raise InputError(f"{path}.ports[0]: not a TCP port: {port}")
        out[name] = http_url(address, port)
    return out

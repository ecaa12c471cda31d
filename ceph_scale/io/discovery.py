"""Where the ceph-exporter daemons are, found rather than listed (`perf_discovery`):

- `orchestrator`: the daemons cephadm lists (`ceph orch ps --daemon_type ceph-exporter`, a read
  command the sidecar's `mgr 'allow r'` may run), at their hosts' addresses (core/parse_orch.py);
- `dns:NAME:PORT`: every address NAME resolves to (A and AAAA), at PORT: under Rook, a headless
  Service selecting Rook's exporter pods resolves to each pod's address, as Prometheus'
  dns_sd_configs reads it.
"""

from __future__ import annotations

import re
import socket
import threading
from dataclasses import dataclass
from typing import Any, Callable

from ..core.config import ConfigError
from ..core.parse_orch import http_url

ORCHESTRATOR = "orchestrator"
HOSTNAME = re.compile(r"[A-Za-z0-9]([A-Za-z0-9-]{0,62})(\.[A-Za-z0-9]([A-Za-z0-9-]{0,62}))*\.?")
Resolver = Callable[..., Any]


@dataclass(frozen=True)
class Discovery:
    """One discovery rule: the orchestrator, or a DNS name and the port at each of its addresses."""

    name: str = ""  # empty: the orchestrator
    port: int = 0

    def __str__(self) -> str:
        return f"dns:{self.name}:{self.port}" if self.name else ORCHESTRATOR


def parse_rule(text: Any, setting: str = "perf_discovery") -> Discovery:
    """`orchestrator` or `dns:NAME:PORT`; ConfigError naming the setting otherwise."""
    said = f"{setting}: expected {ORCHESTRATOR} or dns:NAME:PORT, got {text!r:.100}"
    if text == ORCHESTRATOR:
        return Discovery()
    if not isinstance(text, str) or not text.startswith("dns:"):
        raise ConfigError(said)
    name, _, port = text[len("dns:") :].rpartition(":")
    if not HOSTNAME.fullmatch(name) or len(name) > 253 or not port.isascii() or not port.isdigit():
        raise ConfigError(said)
    if not 0 < int(port) < 65536:
        raise ConfigError(f"{setting}: {port} is not a TCP port")
    return Discovery(name, int(port))


def resolve(rule: Discovery, timeout: float, getaddrinfo: Resolver = socket.getaddrinfo) -> list[str]:
    """The URL at every address the rule's name resolves to, within `timeout` seconds.

    getaddrinfo has no timeout of its own (the resolver's retries can take half a minute): it
    runs in a thread of its own, left behind at the deadline."""
    answer: list[Any] = []

    def lookup() -> None:
        try:
            answer.append(getaddrinfo(rule.name, rule.port, type=socket.SOCK_STREAM))
        except (OSError, UnicodeError) as e:
            answer.append(e)

    worker = threading.Thread(target=lookup, name=f"resolve {rule.name}", daemon=True)
    worker.start()
    worker.join(timeout)
    if not answer:
        raise TimeoutError(f"{rule}: no DNS answer within {timeout:.1f}s")
    if isinstance(answer[0], Exception):
        raise OSError(f"{rule}: {answer[0]}")
    addresses = sorted({str(info[4][0]) for info in answer[0] if info[0] in (socket.AF_INET, socket.AF_INET6)})
    if not addresses:
        raise OSError(f"{rule}: no address")
    return [http_url(a, rule.port) for a in addresses]

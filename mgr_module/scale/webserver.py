"""The module's own small HTTP server (stdlib), for the active and the standby manager.

A request never waits for Ceph: the active manager answers with the last rendered
exposition, the standby with a 503 that names the active one.
"""

from __future__ import annotations

import socket
import threading
from typing import Any, Callable

from ceph_scale.io.http_gzip import GzipCache, accepts_gzip
from ceph_scale.io.http_serving import BoundedHandler, BoundedServer

from .options import DEFAULT_PORT, MODULE_SPECS, check_value

# (status, content type, body)
Response = tuple[int, str, bytes]


def default_addr() -> str:
    """'::' when IPv6 is usable (dual stack), else 0.0.0.0, as the stock modules choose."""
    try:
        with socket.socket(socket.AF_INET6) as s:
            s.bind(("::1", 0))
        return "::"
    except OSError:
        return "0.0.0.0"


def server_addr_port(localized_option: Callable[[str, Any], Any]) -> tuple[str, int]:
    """server_addr / server_port, per manager first (mgr/scale/<id>/server_port) as the stock modules."""
    specs = {s.name: s for s in MODULE_SPECS}
    addr = localized_option("server_addr", "")
    port = localized_option("server_port", DEFAULT_PORT)
    addr = str(check_value(specs["server_addr"], addr) or "") or default_addr()
    return addr, int(check_value(specs["server_port"], port if port is not None else DEFAULT_PORT))


def make_handler(respond: Callable[[str], Response]) -> type:
    gzipped = GzipCache()

    class Handler(BoundedHandler):
        server_version = "ceph-scale-mgr"

        def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
            try:
                status, ctype, body = respond(self.path.split("?", 1)[0])
            except Exception as e:  # answer 500 without the exception's text, keep serving
                self.server.fault(f"scale: HTTP handler failed: {type(e).__name__}: {e}")  # type: ignore[attr-defined]
                status, ctype, body = 500, "text/plain; charset=utf-8", b"internal error, see the manager's log\n"
            if status == 200 and accepts_gzip(self.headers.get("Accept-Encoding")):
                self.send(status, gzipped.get(body), ctype, {"Content-Encoding": "gzip", "Vary": "Accept-Encoding"})
            else:
                self.send(status, body, ctype)

    return Handler


class MetricsServer:
    """Serve `respond(path)` on addr:port in a thread; restartable on a new address.

    Inside ceph-mgr every thread and descriptor is the manager's: the server takes the
    sidecar's limits (io/http_serving.py)."""

    def __init__(self, respond: Callable[[str], Response], log) -> None:
        self.respond = respond
        self.log = log
        self._server: BoundedServer | None = None
        self._thread: threading.Thread | None = None
        self.bound: tuple[str, int] | None = None

    def start(self, addr: str, port: int) -> None:
        self._server = BoundedServer((addr, port), make_handler(self.respond), self.log)
        self._thread = threading.Thread(target=self._server.serve_forever, name="scale-http", daemon=True)
        self._thread.start()
        self.bound = (addr, port)

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(5)
        self._server = self._thread = None
        self.bound = None

    def ensure(self, addr: str, port: int) -> str | None:
        """Serving on (addr, port) after this; returns the error text when binding fails."""
        if self.bound == (addr, port):
            return None
        self.stop()
        try:
            self.start(addr, port)
        except OSError as e:
            self._server = None
            return f"cannot serve on [{addr}]:{port}: {e}"
        self.log.info("scale: serving /metrics on [%s]:%d", addr, port)
        return None


def url_for(addr: str, port: int, hostname: str) -> str:
    """The URI to publish (set_uri): the host name when bound to a wildcard address."""
    host = hostname if addr in ("", "::", "0.0.0.0") else addr
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}/"


INDEX = b"""<!DOCTYPE html>
<html><head><title>ceph-scale-signals (ceph-mgr module scale)</title></head>
<body><h1>ceph-scale-signals</h1><p><a href="/metrics">Metrics</a></p></body></html>
"""

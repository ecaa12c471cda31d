"""The module's own small HTTP server (stdlib), for the active and the standby manager.

A request never waits for Ceph: the active manager answers with the last rendered
exposition, the standby with a 503 that names the active one.
"""

from __future__ import annotations

import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable

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


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, addr: str, port: int, handler: type) -> None:
        self.address_family = socket.AF_INET6 if ":" in addr else socket.AF_INET
        super().__init__((addr, port), handler)


class MetricsServer:
    """Serve `respond(path)` on addr:port in a thread; restartable on a new address."""

    def __init__(self, respond: Callable[[str], Response], log) -> None:
        self.respond = respond
        self.log = log
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self.bound: tuple[str, int] | None = None

    def start(self, addr: str, port: int) -> None:
        respond, log = self.respond, self.log

        class Handler(BaseHTTPRequestHandler):
            server_version = "ceph-scale-mgr"
            protocol_version = "HTTP/1.0"

            def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
                try:
                    status, ctype, body = respond(self.path.split("?", 1)[0])
                except Exception as e:  # answer 500, keep serving
                    log.exception("scale: HTTP handler failed")
                    status, ctype, body = 500, "text/plain; charset=utf-8", f"internal error: {e}\n".encode()
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, fmt: str, *args) -> None:
                log.debug("scale http: " + fmt, *args)

        self._server = _Server(addr, port, Handler)
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

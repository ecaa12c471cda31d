"""The HTTP serving both producers share: what a peer on the network can make them hold.

The sidecar serves from its own process; the module serves from inside ceph-mgr, where every
thread and descriptor is the manager's. Both therefore take the same limits, as Go's
http.Server and exporter-toolkit give node_exporter:
- request headers: at most MAX_HEADER_BYTES, all within HEADER_DEADLINE however they trickle,
  refused (431) before authentication;
- an idle or stalled connection is closed after IDLE_TIMEOUT;
- at most MAX_CONNECTIONS served at once (one thread each); a connection past that is closed
  at accept, without a thread;
- a listen backlog of LISTEN_BACKLOG, so a burst of scrapers is queued, not dropped;
- faults: the client's own (resets, stalls, TLS garbage) log nothing; others one line at
  most every 10 s; an error response never echoes an exception's text.
"""

from __future__ import annotations

import gzip
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .bounded_http import printable

MAX_HEADER_BYTES = 1 << 20  # Go's http.DefaultMaxHeaderBytes
HEADER_DEADLINE = 20.0  # seconds for all the headers of one request
IDLE_TIMEOUT = 15.0  # seconds a connection may stay silent (keep-alive or stalled)
MAX_CONNECTIONS = 256
LISTEN_BACKLOG = 1024
FAULT_LOG_INTERVAL = 10.0


class _HeadersTooLarge(Exception):
    pass


class _HeaderBudget:
    """The request's input while its request line and headers are read: a byte budget, and
    a deadline that starts with the request's first byte (before it, the idle timeout
    applies). Every wait on the socket is bounded by what is left of the deadline, so
    headers trickled a byte at a time end there too."""

    def __init__(self, raw: Any, connection: socket.socket, budget: int, deadline: float, idle: float) -> None:
        self.raw, self.connection, self.left = raw, connection, budget
        self.deadline_seconds, self.idle = deadline, idle
        self.deadline: float | None = None

    def readline(self, size: int = -1) -> bytes:
        limit = self.left + 1 if size < 0 else min(size, self.left + 1)
        out = bytearray()
        while len(out) < limit:
            if self.deadline is None:
                self.connection.settimeout(self.idle)
            else:
                remaining = self.deadline - time.monotonic()
                if remaining <= 0:
                    raise _HeadersTooLarge
                self.connection.settimeout(remaining)
            try:
                data = self.raw.peek(1)  # at most one read of the socket
            except TimeoutError:
                if self.deadline is None:
                    raise  # idle: the connection is closed quietly
                raise _HeadersTooLarge from None
            if not data:
                break
            if self.deadline is None:
                self.deadline = time.monotonic() + self.deadline_seconds
            data = data[: limit - len(out)]
            newline = data.find(b"\n")
            out += self.raw.read(newline + 1 if newline >= 0 else len(data))
            if newline >= 0:
                break
        self.left -= len(out)
        if self.left < 0:
            raise _HeadersTooLarge
        return bytes(out)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.raw, name)


class GzipCache:
    """The gzip of the exposition being served, made once per exposition, not once per scrape.

    Prometheus asks for gzip; at study scale the exposition is ~350 kB and compresses ~10x,
    which is what lets 50 concurrent scrapes stay fast.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._source: bytes | None = None
        self._gzipped = b""

    def get(self, body: bytes) -> bytes:
        with self._lock:
            if self._source is not body:
                self._gzipped = gzip.compress(body, compresslevel=6, mtime=0)
                self._source = body
            return self._gzipped


def accepts_gzip(header: str | None) -> bool:
    for coding in (header or "").split(","):
        name, _, params = coding.partition(";")
        if name.strip().lower() == "gzip":
            q = params.strip().lower()
            return not (q.startswith("q=") and q[2:].strip().rstrip("0").rstrip(".") in ("", "0"))
    return False


class BoundedHandler(BaseHTTPRequestHandler):
    """A request handler with the limits above; subclasses define do_GET and answer with `send`."""

    protocol_version = "HTTP/1.1"
    timeout = IDLE_TIMEOUT  # a client that stalls (or never finishes TLS) loses only its own thread
    # Headers and body go out as two writes: with Nagle's algorithm a small body then waits
    # for the client's delayed ACK (40 ms per scrape on Linux).
    disable_nagle_algorithm = True
    header_deadline = HEADER_DEADLINE
    _head_only = False

    def handle_one_request(self) -> None:
        raw = self.rfile
        self.rfile = _HeaderBudget(raw, self.connection, MAX_HEADER_BYTES, self.header_deadline, self.timeout)  # type: ignore[assignment]
        try:
            super().handle_one_request()
        except _HeadersTooLarge:
            self.rfile = raw
            self.close_connection = True
            if not hasattr(self, "request_version"):  # cut off within the request line
                self.command, self.request_version = None, self.protocol_version  # type: ignore[assignment]
                self.requestline = ""
            self.send_error(431, "Request Header Fields Too Large")
        finally:
            self.rfile = raw
            self.connection.settimeout(self.timeout)

    def do_HEAD(self) -> None:  # noqa: N802 (http.server's name)
        self._head_only = True
        try:
            self.do_GET()  # type: ignore[attr-defined]
        finally:
            self._head_only = False

    def send(self, code: int, body: bytes, ctype: str, extra: dict[str, str] | None = None) -> None:
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if not self._head_only:
            self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # scrapes are not worth a log line
        pass


class BoundedServer(ThreadingHTTPServer):
    """A threading server holding at most `max_connections` connections (one thread each)."""

    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = LISTEN_BACKLOG

    def __init__(self, address: tuple[str, int], handler: type, log: Any, max_connections: int = MAX_CONNECTIONS):
        self.address_family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        self.log = log
        self.max_connections = max_connections
        self._slots = threading.BoundedSemaphore(max_connections)
        self.refused = 0  # connections closed at accept: over the cap
        self._fault_lock = threading.Lock()
        self._last_logged = 0.0
        self._suppressed = 0
        super().__init__(address, handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):
            self.refused += 1
            self.shutdown_request(request)
            self.fault(f"http: {self.refused} connection(s) past the cap of {self.max_connections} closed at accept")
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)  # type: ignore[misc]
        finally:
            self._slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A connection's fault: the client's own (plain HTTP to the TLS port, a reset, a
        stall) is no log line at all; anything else one line, at most every 10 s. The stock
        handler printed a traceback per connection, so anyone could fill the log."""
        exc = sys.exc_info()[1]
        if isinstance(exc, (OSError, ValueError, UnicodeError)):  # ssl.SSLError is an OSError
            return
        peer = client_address[0] if client_address else "?"
        self.fault(f"http: {type(exc).__name__} from {peer}: {printable(str(exc))}")

    def fault(self, text: str) -> None:
        """Log one line for a fault, at most every FAULT_LOG_INTERVAL seconds."""
        now = time.monotonic()
        with self._fault_lock:
            if now - self._last_logged < FAULT_LOG_INTERVAL:
                self._suppressed += 1
                return
            suppressed, self._last_logged, self._suppressed = self._suppressed, now, 0
        self.log.error("%s (%d more not logged)", text, suppressed)

"""The HTTP serving both producers share (the sidecar; the module, inside ceph-mgr, whose
threads and descriptors are the manager's): what a peer can make them hold, bounded as Go's
http.Server bounds node_exporter's.
- Only a whole request head gets a thread: until then (its TLS handshake too) a connection
  waits in the waiting room, one selector thread, holding a descriptor, never a thread.
- MAX_OPEN_CONNECTIONS open at most: past that the oldest that never made an authorized
  request is closed, never a scraper's keep-alive connection. MAX_CONNECTIONS threads.
- Headers: MAX_HEADER_BYTES, within HEADER_DEADLINE of their first byte, else 431 before
  authentication. A connection silent for IDLE_TIMEOUT is closed.
- A GET's body up to MAX_BODY_BYTES is read and discarded; a larger one (413) or
  Transfer-Encoding (400) refused: a body is never parsed as the next request.
- Faults: the client's own (resets, stalls, TLS garbage) log nothing, others one line at
  most every 10 s; an error response never echoes an exception's text.
"""

from __future__ import annotations

import collections
import dataclasses
import re
import selectors
import socket
import socketserver
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .bounded_http import printable

MAX_HEADER_BYTES = 1 << 20  # Go's http.DefaultMaxHeaderBytes
HEADER_DEADLINE = 20.0  # seconds for all the headers of one request
IDLE_TIMEOUT = 15.0  # seconds a connection may stay silent (keep-alive or stalled)
MAX_CONNECTIONS = 256  # requests handled at once, a thread each
MAX_OPEN_CONNECTIONS = 1024  # connections open at once, a descriptor each
PREREAD_BYTES = 64 << 10  # read by the waiting room; a longer head goes on in a thread
MAX_BODY_BYTES = 64 << 10  # a GET's body, read and discarded
LISTEN_BACKLOG = 1024
FAULT_LOG_INTERVAL = 10.0

HEAD_END = re.compile(rb"\r?\n\r?\n")
REQUEST_LINE = re.compile(rb"[A-Z]{1,16} [!-~]+ HTTP/\d\.\d\r?\n")


class _HeadersTooLarge(Exception):
    pass


@dataclasses.dataclass(eq=False)
class Waiting:
    """A connection between requests: what it has sent so far, and since when."""

    sock: socket.socket
    addr: Any
    since: float
    buf: bytearray = dataclasses.field(default_factory=bytearray)
    first_byte: float | None = None  # the head's first byte (the TLS handshake's)
    trusted: bool = False  # it made an authorized request: never the one closed to make room
    handshaking: bool = False

    def ready(self) -> bool:
        """A whole request head is here, or enough to answer it at once: no request line."""
        buf = self.buf
        if len(buf) >= PREREAD_BYTES:
            return True
        newline = buf.find(b"\n")
        if newline >= 0 and not REQUEST_LINE.match(buf, 0, newline + 1):
            return True
        return HEAD_END.search(buf) is not None  # a body comes with it, or the deadline ends it


class _Input:
    """A request's input: what the waiting room read, then the socket. Until the request and
    its body are read (`limited`), a byte budget and the deadline bound it: every wait on the
    socket is bounded by what is left of the deadline, so a trickled head ends there too."""

    def __init__(self, sock: socket.socket, buf: bytearray, deadline: float) -> None:
        self.sock, self.buf, self.left, self.deadline, self.limited = sock, buf, MAX_HEADER_BYTES, deadline, True

    def _fill(self) -> bool:
        try:
            if self.limited:
                if (remaining := self.deadline - time.monotonic()) <= 0:
                    raise _HeadersTooLarge
                self.sock.settimeout(remaining)
            data = self.sock.recv(65536)
        except TimeoutError:
            if self.limited:
                raise _HeadersTooLarge from None
            raise
        self.buf += data
        return bool(data)

    def readline(self, size: int = -1) -> bytes:
        limit = self.left + 1 if size < 0 else min(size, self.left + 1)
        while (end := self.buf.find(b"\n", 0, limit)) < 0 and len(self.buf) < limit and self._fill():
            pass
        n = min(len(self.buf), limit) if end < 0 else end + 1
        out = bytes(self.buf[:n])
        del self.buf[:n]
        self.left -= n
        if self.left < 0:
            raise _HeadersTooLarge
        return out

    def read(self, size: int) -> bytes:
        while len(self.buf) < size and self._fill():
            pass
        out = bytes(self.buf[:size])
        del self.buf[:size]
        return out

    def close(self) -> None:  # the connection outlives its request
        pass


class BoundedHandler(BaseHTTPRequestHandler):
    """One request of a connection the waiting room found ready, with the limits above;
    subclasses define do_GET, answer with `send`, and set `authorized` False for a request
    that failed authentication."""

    protocol_version = "HTTP/1.1"
    timeout = IDLE_TIMEOUT  # a client that stops reading its response loses only its own thread
    # Headers and body are two writes: with Nagle a small body waits for the delayed ACK (40 ms).
    disable_nagle_algorithm = True
    header_deadline = HEADER_DEADLINE
    authorized = True
    _head_only = False

    def setup(self) -> None:
        self.waiting: Waiting = self.request
        self.request = self.connection = self.waiting.sock
        self.connection.settimeout(self.timeout)
        if self.disable_nagle_algorithm:
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, True)
        started = self.waiting.first_byte or time.monotonic()
        self.rfile = _Input(self.connection, self.waiting.buf, started + self.header_deadline)  # type: ignore[assignment]
        self.wfile = socketserver._SocketWriter(self.connection)  # type: ignore[attr-defined]

    def handle(self) -> None:  # one request: the next one waits in the waiting room again
        self.close_connection = True
        try:
            self.handle_one_request()
        except _HeadersTooLarge:
            self.close_connection = True
            if not hasattr(self, "request_version"):  # cut off within the request line
                self.command, self.request_version = None, self.protocol_version  # type: ignore[assignment]
                self.requestline = ""
            self.send_error(431, "Request Header Fields Too Large")

    def parse_request(self) -> bool:
        """The request line and headers, then any body, read and discarded: left unread it
        would be parsed as the next request (smuggling behind a proxy that reuses connections)."""
        if not super().parse_request():
            return False
        lengths = {v.strip() for v in self.headers.get_all("Content-Length") or []}
        length = (
            int(lengths.pop()) if len(lengths) == 1 and re.fullmatch(r"[0-9]{1,12}", min(lengths)) else -len(lengths)
        )
        refused = (
            (400, "Transfer-Encoding is not accepted") if "Transfer-Encoding" in self.headers
            else (400, "Bad Content-Length") if length < 0
            else (413, "Request body too large") if length > MAX_BODY_BYTES
            else None
        )  # fmt: skip
        if refused:
            self.send_error(*refused)
            return False
        if length and len(self.rfile.read(length)) < length:
            return False  # the peer closed it: the waiting room sees that
        self.rfile.limited = False  # type: ignore[attr-defined]
        self.connection.settimeout(self.timeout)
        return True

    def version_string(self) -> str:  # the Server header: not the Python under it
        return self.server_version

    def do_HEAD(self) -> None:  # noqa: N802 (http.server's name)
        self._head_only = True  # a handler serves one request
        self.do_GET()  # type: ignore[attr-defined]

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
    """The waiting room (one selector thread over every connection between requests) and at
    most `max_connections` threads handling the ready requests."""

    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = LISTEN_BACKLOG

    def __init__(self, address: tuple[str, int], handler: type[BoundedHandler], log: Any) -> None:
        self.address_family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        self.handler, self.log = handler, log
        self.max_open, self.max_connections = MAX_OPEN_CONNECTIONS, MAX_CONNECTIONS
        self.refused = 0  # connections closed at accept: max_open reached, none could make room
        self.evicted = 0  # waiting connections closed to make room
        self._lock, self._room_lock, self._fault_lock = threading.Lock(), threading.Lock(), threading.Lock()
        self._room: dict[Waiting, None] = {}  # the waiting room; request threads add to it too
        self._ready: collections.deque[Waiting] = collections.deque()
        self._open = self._workers = self._suppressed = 0
        self._last_logged = 0.0
        self._stopping, self._stopped = threading.Event(), threading.Event()
        self._selector = selectors.DefaultSelector()
        try:
            super().__init__(address, handler)
        except BaseException:  # a port taken: the module retries every 5 s, a descriptor each time
            self._selector.close()
            raise

    def serve_forever(self, poll_interval: float = 0.25) -> None:
        self.socket.setblocking(False)
        self._selector.register(self.socket, selectors.EVENT_READ, None)
        checked = time.monotonic()
        try:
            while not self._stopping.is_set():
                for key, _ in self._selector.select(timeout=poll_interval):
                    self._accept() if key.data is None else self._read(key.data)
                if (now := time.monotonic()) - checked >= 0.2:
                    checked = now
                    self._expire(now)
        finally:
            for conn in list(self._room):
                self._drop(conn)
            self._stopped.set()

    def shutdown(self) -> None:
        self._stopping.set()
        if self._selector.get_map():  # serving
            self._stopped.wait(10)

    def _accept(self) -> None:
        for _ in range(64):
            try:
                sock, addr = self.socket.accept()
            except OSError:  # none left, a peer reset before accept, descriptors ran out
                return
            if self._open >= self.max_open and not self._make_room():
                self.refused += 1
                sock.close()
                self.fault(f"http: {self.refused} connection(s) past the cap of {self.max_open} closed at accept")
                continue
            conn = Waiting(sock, addr, time.monotonic(), handshaking=isinstance(sock, ssl.SSLSocket))
            with self._lock:
                self._open += 1
            try:
                sock.setblocking(False)
                self._wait(conn)
            except OSError:
                self._drop(conn)

    def _make_room(self) -> bool:
        """Close the oldest waiting connection that never made an authorized request."""
        victim = next((c for c in list(self._room) if not c.trusted), None)
        if victim is None:
            return False
        self._drop(victim)
        self.evicted += 1
        self.fault(f"http: {self.evicted} waiting connection(s) closed to stay within {self.max_open} open")
        return True

    def _wait(self, conn: Waiting) -> None:
        with self._room_lock:
            self._selector.register(conn.sock, selectors.EVENT_READ, conn)
            self._room[conn] = None

    def _read(self, conn: Waiting) -> None:
        if conn not in self._room:  # closed to make room, within this round of events
            return
        try:
            if conn.handshaking:
                conn.first_byte = conn.first_byte or time.monotonic()
                conn.sock.do_handshake()  # type: ignore[attr-defined]
                conn.handshaking = False
            while len(conn.buf) < PREREAD_BYTES:
                data = conn.sock.recv(PREREAD_BYTES)
                if not data:
                    raise ConnectionResetError  # the peer closed it
                conn.buf += data
                conn.first_byte = conn.first_byte or time.monotonic()
        except (BlockingIOError, ssl.SSLWantReadError, ssl.SSLWantWriteError):
            pass
        except (OSError, ValueError):  # a reset, TLS garbage: the client's own fault
            self._drop(conn)
            return
        if not conn.handshaking and conn.ready():
            self._dispatch(conn)

    def _expire(self, now: float) -> None:
        for conn in list(self._room):
            if conn.first_byte is None and now - conn.since > self.handler.timeout:
                self._drop(conn)
            elif conn.first_byte is not None and now - conn.first_byte > self.handler.header_deadline:
                self._drop(conn) if conn.handshaking else self._dispatch(conn)  # 431 from a thread

    def _unregister(self, conn: Waiting) -> None:
        with self._room_lock:
            if self._room.pop(conn, 0) is None:
                self._selector.unregister(conn.sock)

    def _drop(self, conn: Waiting) -> None:
        self._unregister(conn)
        with self._lock:
            self._open -= 1
        self.shutdown_request(conn.sock)

    def _dispatch(self, conn: Waiting) -> None:
        self._unregister(conn)
        with self._lock:
            self._ready.append(conn)
            if self._workers >= self.max_connections:
                return
            self._workers += 1
        try:
            threading.Thread(target=self._work, name="http-request", daemon=True).start()
        except RuntimeError:  # no thread to be had now: the queued request waits for the next
            with self._lock:
                self._workers -= 1

    def _work(self) -> None:
        while True:
            with self._lock:
                if not self._ready:
                    self._workers -= 1
                    return
                conn = self._ready.popleft()
            while self._serve_one(conn):  # a pipelined request, already read
                pass

    def _serve_one(self, conn: Waiting) -> bool:
        """Handle one request, hand the connection back; True: its next request is here."""
        try:
            handler = self.handler(conn, conn.addr, self)  # type: ignore[arg-type]
            conn.sock.setblocking(False)
            if handler.close_connection or self._stopping.is_set():
                raise ConnectionAbortedError
            conn.trusted = conn.trusted or handler.authorized
            conn.since = time.monotonic()
            conn.first_byte = conn.since if conn.buf else None
            if conn.ready():
                return True
            self._wait(conn)
        except Exception:
            self.handle_error(conn.sock, conn.addr)
            self._drop(conn)
        return False

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A connection's fault: the client's own (plain HTTP to the TLS port, a reset, a stall)
        is no log line at all, anything else one line at most every 10 s (never a traceback)."""
        exc = sys.exc_info()[1]
        if isinstance(exc, (OSError, ValueError, UnicodeError)):  # ssl.SSLError is an OSError
            return
        self.fault(f"http: {type(exc).__name__} from {client_address[0]}: {printable(str(exc))}")

    def fault(self, text: str) -> None:
        """Log one line for a fault, at most every FAULT_LOG_INTERVAL seconds."""
        now = time.monotonic()
        with self._fault_lock:
            if now - self._last_logged < FAULT_LOG_INTERVAL:
                self._suppressed += 1
                return
            suppressed, self._last_logged, self._suppressed = self._suppressed, now, 0
        self.log.error("%s (%d more not logged)", text, suppressed)

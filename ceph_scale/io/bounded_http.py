"""One HTTP GET bounded as a whole: a deadline for the entire exchange, from connect through
the status line and headers to the body's last byte (urllib's timeout bounds each read only,
so headers or a body trickled a byte at a time never end), a cap on its size (a
peer streaming without end would fill the memory), and no redirect (a 302 would carry the
request, its signed Authorization header included, to another host, whose answer would be
taken for the RGW's). Both producers read every HTTP peer through it: the RGW Admin Ops API,
the mgr prometheus module, ceph-exporter. The cap bounds bytes, not what they decode to:
core/json_bound.py bounds that, at json_bound.BUDGET_RATIO (6) times the cap.
"""

from __future__ import annotations

import functools
import http.client
import socket
import threading
import time
import urllib.request
from typing import Any

from ..core.json_bound import MAX_RESPONSE_BYTES

CHUNK = 1 << 16


class HttpLimitError(OSError):
    """The peer broke a bound: too slow, too large, or a redirect."""


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, _req: Any, _fp: Any, code: int, _msg: str, _headers: Any, newurl: str) -> None:
        raise HttpLimitError(f"redirect ({code}) to {printable(newurl, 100)} refused")


class _Watchdog:
    """Shuts the connection's socket at the deadline: a read blocked on a trickling peer,
    wherever it is (headers or body), then ends at once instead of after its own timeout."""

    def __init__(self, seconds: float) -> None:
        self.fired = False
        self._sock: socket.socket | None = None
        self._lock = threading.Lock()
        self._timer = threading.Timer(max(0.0, seconds), self._fire)
        self._timer.daemon = True
        self._timer.start()

    def attach(self, sock: socket.socket) -> None:
        with self._lock:
            self._sock = sock
            if self.fired:
                self._shut()

    def _fire(self) -> None:
        with self._lock:
            self.fired = True
            self._shut()

    def _shut(self) -> None:
        if self._sock is not None:
            try:
                self._sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cancel(self) -> None:
        self._timer.cancel()


class _Watched:
    """A connection that hands its socket to the watchdog once connected."""

    sock: socket.socket

    def __init__(self, *args: Any, watchdog: _Watchdog, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._watchdog = watchdog

    def connect(self) -> None:
        super().connect()  # type: ignore[misc]
        self._watchdog.attach(self.sock)


class _WatchedHTTP(_Watched, http.client.HTTPConnection):
    pass


class _WatchedHTTPS(_Watched, http.client.HTTPSConnection):
    pass


class _HTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, watchdog: _Watchdog) -> None:
        super().__init__()
        self._watchdog = watchdog

    def http_open(self, req: Any) -> Any:
        return self.do_open(functools.partial(_WatchedHTTP, watchdog=self._watchdog), req)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, watchdog: _Watchdog, context: Any) -> None:
        super().__init__(context=context)
        self._watchdog = watchdog
        self._tls = context

    def https_open(self, req: Any) -> Any:
        return self.do_open(functools.partial(_WatchedHTTPS, watchdog=self._watchdog), req, context=self._tls)


def _seconds(timeout: float) -> str:
    """A timeout as an operator set it: the remaining part of a source's deadline (0.9997 s) is
    its whole second, so repeated failures read the same and are logged once."""
    return f"{timeout:.0f}" if timeout >= 0.95 else f"{timeout:.1f}"


def printable(text: str, limit: int = 300) -> str:
    """Peer-supplied text for one log line: control characters escaped, length capped, so a
    body cannot forge or split log lines."""
    cut = text[:limit]
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in cut) + ("..." if len(text) > limit else "")


def get(
    request: urllib.request.Request, timeout: float, context: Any = None, max_bytes: int = MAX_RESPONSE_BYTES
) -> bytes:
    """The whole body within `timeout` seconds and `max_bytes`; HTTPError for an error status."""
    deadline = time.monotonic() + timeout
    watchdog = _Watchdog(timeout)
    opener = urllib.request.build_opener(_NoRedirect(), _HTTPHandler(watchdog), _HTTPSHandler(watchdog, context))
    try:
        body = _read(opener, request, timeout, deadline, max_bytes)
    except (OSError, http.client.HTTPException) as e:
        # The watchdog and the socket's own timeout race at the deadline: either way it is the
        # same fault, said the same way, so it is logged once however often it recurs.
        timed_out = isinstance(e, TimeoutError) or isinstance(getattr(e, "reason", None), TimeoutError)
        if (watchdog.fired or timed_out) and not isinstance(e, HttpLimitError):
            raise HttpLimitError(f"timed out: response not complete within {_seconds(timeout)}s") from e
        raise
    finally:
        watchdog.cancel()
    if watchdog.fired:  # the shut socket reads as the body's end: what came is not all
        raise HttpLimitError(f"timed out: response not complete within {_seconds(timeout)}s")
    return body


def _read(opener: Any, request: urllib.request.Request, timeout: float, deadline: float, max_bytes: int) -> bytes:
    with opener.open(request, timeout=timeout) as response:
        length = response.headers.get("Content-Length")
        if length is not None and length.isdigit() and int(length) > max_bytes:
            raise HttpLimitError(f"response of {int(length)} bytes is over the {max_bytes}-byte cap")
        chunks: list[bytes] = []
        size = 0
        while True:
            if deadline - time.monotonic() <= 0:
                raise HttpLimitError(f"timed out: response not complete within {_seconds(timeout)}s")
            chunk = response.read1(CHUNK) if hasattr(response, "read1") else response.read(CHUNK)
            if not chunk:
                # A body cut short (the server or a proxy closed early) would read as a smaller
                # number where the cut falls inside one.
                if length is not None and length.isdigit() and size < int(length):
                    raise HttpLimitError(f"response cut short: {size} of {int(length)} bytes")
                return b"".join(chunks)
            size += len(chunk)
            if size > max_bytes:
                raise HttpLimitError(f"response over the {max_bytes}-byte cap")
            chunks.append(chunk)

"""Serving under hostile clients (issue 24, items 2 and 7): connections that never finish a
request hold no thread and cannot starve an authenticated scraper, over plain HTTP and TLS;
a GET's body is never parsed as a request; the Server header names no Python; failing
bcrypt checks run one at a time and a verified scraper never waits for them."""

from __future__ import annotations

import base64
import re
import socket
import ssl
import threading
import time

import bcrypt
import pytest

from ceph_scale.io.http_serving import MAX_CONNECTIONS
from exporter.sidecar import http_server
from exporter.sidecar.http_server import BasicAuth, serve
from tests.unit.test_http_server import Cached, self_signed

CREDENTIALS = "Basic " + base64.b64encode(b"prometheus:s3cret").decode()


@pytest.fixture(params=["http", "https"])
def authed(request, tmp_path):
    """(port, TLS client context or None, server) of the sidecar's server with basic auth."""
    hashed = bcrypt.hashpw(b"s3cret", bcrypt.gensalt(rounds=4)).decode()
    web = tmp_path / "web.yml"
    text = f"basic_auth_users:\n  prometheus: '{hashed}'\n"
    client = None
    if request.param == "https":
        cert, key = self_signed(tmp_path)
        text += f"tls_server_config:\n  cert_file: {cert}\n  key_file: {key}\n"
        client = ssl.create_default_context(cafile=str(cert))
    web.write_text(text)
    server = serve("127.0.0.1:0", "/metrics", Cached(), str(web))
    yield server.server_address[1], client, server
    server.shutdown()
    server.server_close()


def connect(port: int, client: ssl.SSLContext | None) -> socket.socket:
    conn = socket.create_connection(("127.0.0.1", port), timeout=5)
    return client.wrap_socket(conn, server_hostname="127.0.0.1") if client else conn


def exchange(conn: socket.socket, request: bytes, linger: float = 0.0) -> bytes:
    """Send `request`; what the server answers, up to one whole response (then `linger`
    seconds more, to catch a second one), or until it closes."""
    conn.sendall(request)
    conn.settimeout(5)
    answer, end = b"", None
    try:
        while end is None or time.monotonic() < end:
            if end is None and b"\r\n\r\n" in answer:
                head, _, body = answer.partition(b"\r\n\r\n")
                length = re.search(rb"(?im)^content-length: *([0-9]+)", head)
                if length and len(body) >= int(length.group(1)):
                    end = time.monotonic() + linger
                    continue
            if end is not None:
                conn.settimeout(max(0.01, end - time.monotonic()))
            chunk = conn.recv(65536)
            if not chunk:
                break
            answer += chunk
    except (TimeoutError, ConnectionResetError):
        pass
    return answer


SCRAPE = b"GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: " + CREDENTIALS.encode() + b"\r\n\r\n"


@pytest.mark.parametrize("hostile", [b"", b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: a"], ids=["idle", "trickle"])
def test_more_silent_connections_than_threads_do_not_keep_a_scraper_out(authed, hostile):
    """260 idle or trickling connections blocked 57 of 60 scrapes: each held one of the 256
    slots for 15 to 20 s before it had sent a request (TLS: before its handshake)."""
    port, client, _ = authed
    # Idle: not a byte, not even a TLS handshake; trickling: the start of a request's head.
    held = [connect(port, client if hostile else None) for _ in range(MAX_CONNECTIONS + 20)]
    try:
        for conn in held:
            if hostile:
                conn.sendall(hostile)
        time.sleep(0.3)
        for _ in range(3):
            with connect(port, client) as conn:
                answer = exchange(conn, SCRAPE)
            assert answer.startswith(b"HTTP/1.1 200"), answer[:80]
    finally:
        for conn in held:
            conn.close()


def test_waiting_connections_hold_no_thread(authed):
    port, _, _ = authed
    before = threading.active_count()
    held = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(50)]
    try:
        for conn in held[:25]:
            conn.sendall(b"GET /metrics HTTP/1.1\r\n")
        time.sleep(0.5)
        assert threading.active_count() <= before + 2, threading.active_count() - before
    finally:
        for conn in held:
            conn.close()


def test_past_the_open_cap_the_oldest_unauthorized_connection_goes_never_the_scrapers(authed):
    port, client, server = authed
    server.max_open = 10
    scraper = connect(port, client)
    try:
        assert exchange(scraper, SCRAPE).startswith(b"HTTP/1.1 200")
        hostile = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(30)]
        time.sleep(0.3)
        assert server.evicted >= 20, server.evicted
        assert hostile[0].recv(1) == b""  # the oldest silent one was closed to make room
        assert exchange(scraper, SCRAPE).startswith(b"HTTP/1.1 200")  # keep-alive kept
        for conn in hostile:
            conn.close()
    finally:
        scraper.close()


def test_a_gets_body_is_read_and_discarded_not_parsed_as_the_next_request(authed):
    port, client, _ = authed
    smuggled = b"GET /nothing-here HTTP/1.1\r\nHost: x\r\n\r\n"
    with connect(port, client) as conn:
        head = SCRAPE[:-2] + b"Content-Length: %d\r\n\r\n" % len(smuggled)
        answer = exchange(conn, head + smuggled, linger=0.5)
        assert answer.count(b"HTTP/1.1 ") == 1 and answer.startswith(b"HTTP/1.1 200"), answer[:200]
        assert exchange(conn, SCRAPE).startswith(b"HTTP/1.1 200")  # the connection goes on


@pytest.mark.parametrize(
    "headers, status",
    [
        (b"Transfer-Encoding: chunked\r\n", b"400"),
        (b"Content-Length: 5\r\nContent-Length: 6\r\n", b"400"),
        (b"Content-Length: -1\r\n", b"400"),
        (b"Content-Length: 10000000\r\n", b"413"),
    ],
)
def test_a_body_that_cannot_be_discarded_safely_is_refused_and_the_connection_closed(authed, headers, status):
    port, client, _ = authed
    with connect(port, client) as conn:
        answer = exchange(conn, SCRAPE[:-2] + headers + b"\r\n" + b"5\r\nGET /\r\n0\r\n\r\n", linger=0.5)
    assert answer.startswith(b"HTTP/1.1 " + status) and answer.count(b"HTTP/1.1 ") == 1, answer[:200]
    assert b"Connection: close" in answer


def test_the_server_header_names_no_python(authed):
    port, client, _ = authed
    with connect(port, client) as conn:
        answer = exchange(conn, b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 401")
    server = next(line for line in answer.split(b"\r\n") if line.lower().startswith(b"server:"))
    assert server == b"Server: ceph-scale-exporter", server


def slow_bcrypt(monkeypatch, seconds: float) -> dict:
    """bcrypt.checkpw taking `seconds`; returns the most calls seen at once."""
    seen = {"now": 0, "most": 0}
    lock = threading.Lock()
    real = bcrypt.checkpw

    def checkpw(password: bytes, hashed: bytes) -> bool:
        with lock:
            seen["now"] += 1
            seen["most"] = max(seen["most"], seen["now"])
        time.sleep(seconds)
        with lock:
            seen["now"] -= 1
        return real(password, hashed)

    monkeypatch.setattr(bcrypt, "checkpw", checkpw)
    return seen


def header(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


def test_failing_checks_run_one_at_a_time_and_a_verified_scraper_never_waits(monkeypatch):
    """50 clients failing auth pushed an authenticated scrape from 0.6 ms to 781 ms."""
    auth = BasicAuth({"prometheus": bcrypt.hashpw(b"s3cret", bcrypt.gensalt(rounds=4)).decode()})
    assert auth.check(CREDENTIALS)
    seen = slow_bcrypt(monkeypatch, 0.05)
    failing = [
        threading.Thread(target=auth.check, args=(header("prometheus" if i % 2 else f"u{i}", f"bad{i}"),))
        for i in range(8)
    ]
    for t in failing:
        t.start()
    time.sleep(0.05)
    started = time.perf_counter()
    assert auth.check(CREDENTIALS)
    verified_took = time.perf_counter() - started
    for t in failing:
        t.join(10)
    assert seen["most"] == 1, seen
    assert verified_took < 0.04, verified_took


def test_past_the_waiting_cap_an_unverified_credential_is_refused_at_once_whoever_the_user(monkeypatch):
    monkeypatch.setattr(http_server, "MAX_BCRYPT_WAITERS", 2)
    auth = BasicAuth({"prometheus": bcrypt.hashpw(b"s3cret", bcrypt.gensalt(rounds=4)).decode()})
    slow_bcrypt(monkeypatch, 0.5)
    busy = [threading.Thread(target=auth.check, args=(header("prometheus", f"bad{i}"),)) for i in range(2)]
    for t in busy:
        t.start()
    time.sleep(0.1)
    for user in ("prometheus", "nobody"):
        started = time.perf_counter()
        assert auth.check(header(user, "s3cret")) is False
        assert time.perf_counter() - started < 0.2, user
    for t in busy:
        t.join(10)
    assert auth.check(CREDENTIALS)  # the load gone, the right password is checked again

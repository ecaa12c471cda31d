"""Hostile and broken peers against both producers' HTTP servers, on loopback.

The sidecar's server (exporter/sidecar/http_server.py) and the module's
(mgr_module/scale/webserver.py, run here outside a manager) take the same limits from
io/http_serving.py. Each probe of the hostile-peers review is reproduced, bounded in time
and count: header floods and trickles, idle connections, more connections than the cap, a
burst of 200 scrapers, a failing handler, garbage on the wire. The same limits are checked
inside a real manager by tests/mgr/test_mgr_cluster.py.
"""

from __future__ import annotations

import concurrent.futures
import http.client
import logging
import socket
import threading
import time

import pytest

BODY = b"ceph_scale_x 1\n"


class Collector:
    exposition = BODY


def sidecar_server():
    from exporter.sidecar.http_server import serve

    server = serve("127.0.0.1:0", "/metrics", Collector(), None)
    return server.server_address[1], server, lambda: (server.shutdown(), server.server_close())


def module_server(respond=None):
    from scale.webserver import MetricsServer

    def ok(path: str):
        return (200, "text/plain", BODY) if path == "/metrics" else (404, "text/plain", b"not found\n")

    server = MetricsServer(respond or ok, logging.getLogger("scale-test"))
    server.start("127.0.0.1", 0)
    inner = server._server
    assert inner is not None
    return inner.server_address[1], inner, server.stop


@pytest.fixture(params=["sidecar", "module"])
def served(request):
    """(port, the BoundedServer) of either producer's server, stopped afterwards."""
    port, server, stop = (sidecar_server if request.param == "sidecar" else module_server)()
    yield port, server
    stop()


def scrape(port: int, timeout: float = 10) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", "/metrics")
        r = conn.getresponse()
        assert r.read() == BODY
        return r.status
    finally:
        conn.close()


def closed_by_server(conn: socket.socket, within: float) -> bool:
    """Whether the server closes `conn` (EOF, or a reset) within `within` seconds."""
    conn.settimeout(within)
    try:
        while conn.recv(4096):
            pass
        return True
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def test_headers_past_a_megabyte_are_refused_and_serving_goes_on(served):
    """20 connections of 96 headers of 65 KB once took the sidecar to 794 MB."""
    port, _ = served
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
        answer = b""
        try:
            for i in range(40):  # 40 x 32 KB: past the 1 MB budget, under the 100-header limit
                conn.sendall(b"X-Pad-%d: " % i + b"a" * 32000 + b"\r\n")
        except OSError:
            pass  # the server closed the connection
        conn.settimeout(10)
        try:
            while chunk := conn.recv(4096):
                answer += chunk
        except ConnectionResetError:
            pass
    assert answer.startswith(b"HTTP/1.1 431"), answer[:100]
    assert scrape(port) == 200


@pytest.fixture(params=[b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ", b"GET /"], ids=["header", "request-line"])
def trickle_prefix(request):
    return request.param


def trickle(port: int, prefix: bytes, every: float, give_up: float) -> tuple[bytes, float]:
    """Send `prefix`, then one byte every `every` seconds (under the byte budget: only the
    server's header deadline can end this) until the server answers or closes, or `give_up`
    seconds pass. Returns what it answered and how long that took."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(prefix)
        started = time.monotonic()
        answer = b""
        conn.settimeout(every)
        while time.monotonic() - started < give_up:
            try:
                conn.sendall(b"X")
                chunk = conn.recv(4096)
            except TimeoutError:
                continue
            except OSError:
                break
            if not chunk:
                break
            answer += chunk
        return answer, time.monotonic() - started


def test_headers_trickled_past_the_deadline_are_cut_off(served, monkeypatch, trickle_prefix):
    """One header byte every 10 s held a thread for as long as the client liked."""
    port, server = served
    monkeypatch.setattr(server.RequestHandlerClass, "header_deadline", 1.0)
    answer, took = trickle(port, trickle_prefix, 0.3, 8)
    assert answer.startswith(b"HTTP/1.1 431") and took < 5, (answer[:60], took)


def test_idle_connections_are_closed_after_the_idle_timeout(served, monkeypatch):
    """155 idle connections were held for 50 s by the module's server."""
    port, server = served
    monkeypatch.setattr(server.RequestHandlerClass, "timeout", 1.0)
    idle = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(30)]
    try:
        assert all(closed_by_server(c, within=10) for c in idle)
    finally:
        for c in idle:
            c.close()
    assert scrape(port) == 200


def test_silent_connections_get_no_thread_and_past_the_cap_the_oldest_is_closed(served):
    """A connection gets a thread only with a whole request: 155 idle connections once held
    the module's server (a thread each) for 50 s, and 260 kept every scraper out."""
    port, server = served
    server.max_open = 8
    threads_before = threading.active_count()
    held = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(13)]
    try:
        time.sleep(0.5)
        assert threading.active_count() <= threads_before + 1
        assert all(closed_by_server(c, within=5) for c in held[:5])  # the oldest five
        assert not any(closed_by_server(c, within=0.2) for c in held[5:])
        assert server.evicted == 5
    finally:
        for c in held:
            c.close()
    assert scrape(port) == 200


def test_more_idle_connections_than_threads_keep_no_scraper_out(served):
    from ceph_scale.io.http_serving import MAX_CONNECTIONS

    port, _ = served
    held = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(MAX_CONNECTIONS + 20)]
    try:
        time.sleep(0.3)
        assert [scrape(port, timeout=5) for _ in range(3)] == [200] * 3
    finally:
        for c in held:
            c.close()


def test_a_get_body_is_discarded_and_the_server_names_no_python(served):
    port, _ = served
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        smuggled = b"GET /nothing-here HTTP/1.1\r\nHost: x\r\n\r\n"
        conn.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % len(smuggled) + smuggled)
        time.sleep(0.5)
        answer = conn.recv(65536)
    assert answer.count(b"HTTP/1.1 ") == 1 and answer.startswith(b"HTTP/1.1 200"), answer[:200]
    assert b"Python" not in answer.split(b"\r\n\r\n")[0]


def test_two_hundred_scrapers_at_once_are_all_served(served):
    """A listen backlog of 5 (the module's) overflowed 70 times for 200 concurrent scrapes."""
    port, _ = served
    start = threading.Barrier(200)

    def one(_: int) -> int:
        start.wait()
        return scrape(port, timeout=30)

    with concurrent.futures.ThreadPoolExecutor(200) as pool:
        statuses = list(pool.map(one, range(200)))
    assert statuses == [200] * 200


def test_garbage_on_the_wire_fills_no_log(served, capfd, caplog):
    """Plain HTTP to the TLS port once logged a 25-line traceback per connection; here a TLS
    ClientHello (and binary noise) to a plain port: a 400 each, and not a line logged."""
    port, _ = served
    hello = bytes.fromhex("16030100c4010000c00303") + bytes(range(256)) * 2
    for i in range(100):
        with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
            try:
                conn.sendall(hello if i % 2 else b"\x00\xff" * 300 + b"\r\n\r\n")
                conn.recv(100)
            except OSError:
                pass
    assert scrape(port) == 200
    err = capfd.readouterr().err
    assert "Traceback" not in err and len(err) < 200, err[:500]
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_a_failing_handler_answers_500_without_its_text_and_logs_one_line(caplog):
    """The module's 500 echoed the exception text to whoever asked."""

    def broken(path: str):
        raise RuntimeError("secret detail of the failure")

    port, _, stop = module_server(broken)
    try:
        with caplog.at_level(logging.ERROR, logger="scale-test"):
            for _ in range(20):
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                conn.request("GET", "/metrics")
                r = conn.getresponse()
                body = r.read()
                conn.close()
                assert r.status == 500 and b"secret" not in body, body
    finally:
        stop()
    lines = [r.getMessage() for r in caplog.records if r.name == "scale-test"]
    assert len(lines) == 1 and "secret detail" in lines[0], lines


def test_head_answers_like_get_without_a_body(served):
    port, _ = served
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("HEAD", "/metrics")
    r = conn.getresponse()
    assert r.status == 200 and r.getheader("Content-Length") == str(len(BODY))
    assert r.read() == b""
    conn.close()

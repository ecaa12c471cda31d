"""Hostile HTTP peers, on loopback: a redirect is refused (the signed request does not follow
it), a body trickled byte by byte ends at the whole-response deadline, a body past the cap
is refused, and so are a body cut short of its length and a body within the cap whose decode
would pass the decode bound, headers trickled byte by byte end at the same deadline, and an
error body cannot forge a log line."""

from __future__ import annotations

import http.server
import ssl
import threading
import time
import urllib.request

import pytest

from ceph_scale.io import bounded_http
from ceph_scale.io.admin_ops import AdminOps, AdminOpsError


class Peer(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802 (the stdlib's name)
        if self.path.startswith("/redirect"):
            self.send_response(302)
            self.send_header("Location", "http://127.0.0.1:9/steal")
            self.end_headers()
        elif self.path.startswith("/trickle"):
            self.send_response(200)
            self.end_headers()
            try:
                for _ in range(20):
                    self.wfile.write(b"[")
                    self.wfile.flush()
                    time.sleep(0.5)
            except OSError:
                pass
        elif self.path.startswith("/slow-headers"):
            try:
                self.wfile.write(b"HTTP/1.1 200 OK\r\nX-Slow: ")
                for _ in range(40):
                    self.wfile.write(b"a")
                    self.wfile.flush()
                    time.sleep(0.25)
            except OSError:
                pass
        elif self.path.startswith("/big"):
            self.send_response(200)
            self.end_headers()
            try:
                for _ in range(64):
                    self.wfile.write(b"x" * 65536)
            except OSError:
                pass
        elif self.path.startswith("/cut"):
            self.send_response(200)
            self.send_header("Content-Length", "100")
            self.end_headers()
            self.wfile.write(b'ceph_bluefs_db_total_bytes{ceph_daemon="osd.0"} 2')  # of 268427264
        elif self.path.startswith("/admin/metadata/bucket"):
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"[" + b"{}," * (1 << 20) + b"{}]")  # 3 MB that decode to 80 MB
        elif self.path.startswith("/admin/bucket"):
            self.send_response(403)
            self.end_headers()
            self.wfile.write(b'denied\nts=2099-01-01 level=info logger=forged msg="all good"')
        else:
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"[]")


@pytest.fixture(scope="module")
def peer():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Peer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_redirect_is_refused_not_followed(peer):
    with pytest.raises(bounded_http.HttpLimitError, match="redirect"):
        bounded_http.get(urllib.request.Request(peer + "/redirect"), 5)


def test_a_trickled_body_ends_at_the_whole_response_deadline(peer):
    started = time.monotonic()
    with pytest.raises(OSError):
        bounded_http.get(urllib.request.Request(peer + "/trickle"), 2)
    assert time.monotonic() - started < 3.5  # not the 10 s the peer would take


def test_trickled_headers_end_at_the_whole_response_deadline(peer):
    """Each header byte comes well within the per-read timeout, so only a deadline over the
    whole exchange ends it: without one this peer holds the source for 10 s."""
    started = time.monotonic()
    with pytest.raises(bounded_http.HttpLimitError, match="timed out: response not complete within 2s"):
        bounded_http.get(urllib.request.Request(peer + "/slow-headers"), 2)
    assert time.monotonic() - started < 3.5


def test_a_body_past_the_cap_is_refused(peer):
    with pytest.raises(bounded_http.HttpLimitError, match="cap"):
        bounded_http.get(urllib.request.Request(peer + "/big"), 10, max_bytes=1024 * 1024)
    assert bounded_http.get(urllib.request.Request(peer + "/ok"), 5) == b"[]"


def test_a_body_cut_short_of_its_length_is_refused_not_read_as_a_smaller_number(peer):
    with pytest.raises(bounded_http.HttpLimitError, match="cut short: 49 of 100 bytes"):
        bounded_http.get(urllib.request.Request(peer + "/cut"), 5)


def test_an_error_body_stays_on_one_log_line(peer):
    client = AdminOps(peer, "access", "secret")
    with pytest.raises(AdminOpsError) as e:
        client.get_raw("/admin/bucket", {"format": "json"}, 5)
    message = str(e.value)
    assert "HTTP 403" in message and "\n" not in message and "\\n" in message


def test_the_admin_ops_cap_is_the_configured_one(peer):
    """rgw.max_response_mb (sidecar) and mgr/scale/rgw_max_response_mb (module) reach the client."""
    with pytest.raises(AdminOpsError, match="cap"):
        AdminOps(peer, "access", "secret", max_response_mb=1).get_raw("/big", {}, 10)
    assert len(AdminOps(peer, "access", "secret", max_response_mb=8).get_raw("/big", {}, 10)) == 64 * 65536


def test_a_body_within_the_cap_is_refused_if_its_decode_would_pass_the_bound(peer):
    """The cap bounds bytes; what they decode to is bounded as well (core/json_bound.py):
    BUDGET_RATIO x the cap, 24 MB at a 4 MB cap, against ~80 MB for these 3 MB of `{},`."""
    client = AdminOps(peer, "access", "secret", max_response_mb=4)
    with pytest.raises(AdminOpsError) as e:
        client.get_json("/admin/metadata/bucket", {}, 10)
    assert str(e.value).startswith("RGW Admin Ops /admin/metadata/bucket: 3 MB of JSON would decode to ~")
    assert str(e.value).endswith(", over the 24 MB bound")


@pytest.fixture(scope="module")
def tls_peer(tmp_path_factory):
    """The same peer over TLS (an RGW behind https): the deadline holds there too, and the
    caller's context still verifies the certificate."""
    from tests.unit.test_http_server import self_signed

    cert, key = self_signed(tmp_path_factory.mktemp("tls"))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Peer)
    served = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    served.load_cert_chain(cert, key)
    server.socket = served.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"https://127.0.0.1:{server.server_address[1]}", ssl.create_default_context(cafile=str(cert))
    server.shutdown()
    server.server_close()


def test_over_tls_the_deadline_holds_and_the_certificate_is_verified(tls_peer):
    url, trusted = tls_peer
    assert bounded_http.get(urllib.request.Request(url + "/ok"), 5, trusted) == b"[]"
    started = time.monotonic()
    with pytest.raises(bounded_http.HttpLimitError, match="timed out: response not complete within 2s"):
        bounded_http.get(urllib.request.Request(url + "/slow-headers"), 2, trusted)
    assert time.monotonic() - started < 3.5
    with pytest.raises(OSError, match="CERTIFICATE_VERIFY_FAILED"):
        bounded_http.get(urllib.request.Request(url + "/ok"), 5, ssl.create_default_context())
